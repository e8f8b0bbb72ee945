// The demo Widget in kube-rs mode (the webhook reads AdmissionReviews with kube-core's types).
fn main() -> Result<(), Box<dyn std::error::Error>> {
    kubeskema_codegen::Config::new().crd("../../fixtures/crds/widgets.yaml").docs(false).kube(true).generate()?;
    Ok(())
}
