// Generates Rust types for the demo CRD into OUT_DIR. Cargo reruns this only when the CRD
// changes (generate() prints `cargo::rerun-if-changed` for every input).
fn main() -> Result<(), Box<dyn std::error::Error>> {
    kubeskema_codegen::generate(&["../../fixtures/crds/widgets.yaml"])?;
    Ok(())
}
