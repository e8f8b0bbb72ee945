//! Types for cert-manager's CRDs, generated in kube-rs mode. The repository does not carry
//! other projects' files: the CRDs come from `CERT_MANAGER_CRDS` (a file such as the
//! `cert-manager.crds.yaml` of a cert-manager release, or a folder), else from the shared
//! corpus next to this checkout.
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo::rerun-if-env-changed=CERT_MANAGER_CRDS");
    let crds = std::env::var_os("CERT_MANAGER_CRDS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../../../shared/corpus/crds/cert-manager__cert-manager"));
    if !crds.exists() {
        return Err(format!(
            "{} does not exist: set CERT_MANAGER_CRDS to cert-manager's CRDs (cert-manager.crds.yaml of a release)",
            crds.display()
        )
        .into());
    }
    // Apply configurations too: `CertificateApply`, what a server-side apply sends.
    kubeskema_codegen::Config::new().crd(&crds).docs(false).kube(true).apply_configurations(true).generate()?;
    Ok(())
}
