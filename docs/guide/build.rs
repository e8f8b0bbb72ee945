// The demo CRD's types, with apply configurations, as a user's build.rs writes them.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    kubeskema_codegen::Config::new()
        .crd("../../fixtures/crds/widgets.yaml")
        // docs/conversion.md's worked example.
        .crd("../../fixtures/golden/conversion.yaml")
        .apply_configurations(true)
        .generate()?;
    Ok(())
}
