//! A kube-rs program with types kubeskema generated from cert-manager's CRDs (kube-rs mode, in
//! build.rs): it builds a Certificate, validates it as the apiserver will, and sends it with
//! `kube::Api` when asked to (`-- --apply`, with a kubeconfig pointing at a cluster that has
//! cert-manager installed). Without `--apply` it prints the object and the CRD it came from.

// `pub mod cert_manager_io { pub mod v1 { .. } }` and `pub mod acme_cert_manager_io { .. }`.
include!(concat!(env!("OUT_DIR"), "/kubeskema.rs"));

use cert_manager_io::v1::{Certificate, CertificateSpec};
use kube::api::{Api, PostParams};
use kube::{CustomResourceExt, Resource, ResourceExt};
use kubeskema::Validate;

/// The Certificate this program asks for. Generated structs read from JSON, so the many
/// optional fields of a spec need not be spelled out.
fn certificate(name: &str, dns_names: &[&str]) -> Certificate {
    let spec: CertificateSpec = serde_json::from_value(serde_json::json!({
        "secretName": format!("{name}-tls"),
        "dnsNames": dns_names,
        "issuerRef": {"name": "letsencrypt", "kind": "ClusterIssuer"},
        "privateKey": {"algorithm": "ECDSA", "size": 256},
    }))
    .expect("the spec fits the schema");
    let mut cert = Certificate::new(name, spec);
    cert.meta_mut().namespace = Some("default".into());
    cert
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cert = certificate("example", &["example.com", "www.example.com"]);
    let issues = cert.validate();
    if !issues.is_empty() {
        for issue in &issues {
            eprintln!("{issue}");
        }
        return Err(format!("{} is invalid; not sent", cert.name_any()).into());
    }
    println!("{} {} is valid:", Certificate::kind(&()), cert.name_any());
    println!("{}", serde_json::to_string_pretty(&cert)?);

    if std::env::args().any(|a| a == "--apply") {
        let client = kube::Client::try_default().await?;
        let api: Api<Certificate> = Api::namespaced(client, "default");
        let created = api.create(&PostParams::default(), &cert).await?;
        println!("created {} (uid {:?})", created.name_any(), created.uid());
    } else {
        let crd = Certificate::crd();
        println!("(not sent: pass --apply; the CRD is {} with {} versions)", crd.name_any(), crd.spec.versions.len());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_good_certificate_is_valid_and_a_bad_one_gets_the_apiservers_messages() {
        assert!(certificate("ok", &["example.com"]).validate().is_empty());
        // A manifest from elsewhere: the validating read reports what the types cannot hold
        // (an enum value) beside what validation finds, all in one pass.
        let manifest = serde_json::json!({
            "apiVersion": "cert-manager.io/v1", "kind": "Certificate", "metadata": {"name": "bad"},
            "spec": {"secretName": "s", "issuerRef": {"name": "i"}, "privateKey": {"algorithm": "DSA"}}
        });
        let read = kubeskema::decode::from_value::<Certificate>(&manifest, &Default::default());
        let issues: Vec<String> = read.issues.iter().map(ToString::to_string).collect();
        assert_eq!(
            issues,
            [
                "spec.privateKey.algorithm: Unsupported value: \"DSA\": supported values: \"RSA\", \"ECDSA\", \"Ed25519\""
            ]
        );
    }

    #[test]
    fn the_type_is_what_kube_expects() {
        assert_eq!(Certificate::url_path(&(), Some("ns")), "/apis/cert-manager.io/v1/namespaces/ns/certificates");
        assert_eq!(Certificate::crd_name(), "certificates.cert-manager.io");
    }
}
