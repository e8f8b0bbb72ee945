// The demo Widget in kube-rs mode (the webhook reads AdmissionReviews with kube-core's types),
// and the two-version Widget of docs/conversion.md that `/convert` converts.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    kubeskema_codegen::Config::new()
        .crd("../../fixtures/crds/widgets.yaml")
        .crd("../../fixtures/golden/conversion.yaml")
        .docs(false)
        .kube(true)
        .generate()?;
    Ok(())
}
