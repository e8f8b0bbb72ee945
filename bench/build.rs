//! Types for the benchmarked CRDs, generated from the shared corpus (`../shared/corpus`, or
//! `KUBESKEMA_CORPUS`), the way a user's build.rs would.
use std::path::PathBuf;

fn main() {
    let corpus = match std::env::var_os("KUBESKEMA_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    };
    println!("cargo::rerun-if-env-changed=KUBESKEMA_CORPUS");
    let mut crds: Vec<PathBuf> = crate_files().iter().map(|f| corpus.join("crds").join(f)).collect();
    // The conversion benchmark's: cluster-api's Cluster in three versions (kopium's copy), and
    // the worked example of docs/conversion.md.
    crds.push(corpus.join("crds/kube-rs__kopium/cluster-crd.yaml"));
    crds.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/golden/conversion.yaml"));
    println!("cargo::rerun-if-changed=../fixtures/golden/conversion.yaml");
    // Interpretable: the CEL benchmark runs each rule natively and interpreted.
    if let Err(e) = kubeskema_codegen::Config::new().crds(&crds).docs(false).interpretable(true).generate() {
        panic!("{e}");
    }
}

/// The CRDs of the benchmarked objects.
fn crate_files() -> [&'static str; 4] {
    [
        "prometheus-operator__prometheus-operator/monitoring.coreos.com_prometheuses.yaml",
        "kubernetes-sigs__gateway-api/gateway.networking.k8s.io_httproutes.yaml",
        "cert-manager__cert-manager/cert-manager.io_certificates.yaml",
        "argoproj__argo-workflows/argoproj.io_workflows.yaml",
    ]
}
