//! A kube-rs program with types kubeskema generated from cert-manager's CRDs (kube-rs mode, in
//! build.rs): it builds a Certificate, validates it as the apiserver will, and sends it with
//! `kube::Api` when asked to (`-- --apply`, with a kubeconfig pointing at a cluster that has
//! cert-manager installed). Without `--apply` it prints the object and the CRD it came from.

// `pub mod cert_manager_io { pub mod v1 { .. } }` and `pub mod acme_cert_manager_io { .. }`.
include!(concat!(env!("OUT_DIR"), "/kubeskema.rs"));

use cert_manager_io::v1::{Algorithm, Certificate, CertificateSpec, IssuerRef, PrivateKey};
use kube::api::{Api, PostParams};
use kube::{CustomResourceExt, Resource, ResourceExt};
use kubeskema::Validate;

/// The Certificate this program asks for: `new` takes the fields the schema requires, `with_`
/// setters and `Default` the rest, each field left out as the apiserver's read leaves it.
fn certificate(name: &str, dns_names: &[&str]) -> Certificate {
    let issuer = IssuerRef::new("letsencrypt").with_kind("ClusterIssuer");
    let key = PrivateKey { algorithm: Some(Algorithm::Ecdsa), size: Some(256), ..Default::default() };
    let spec = CertificateSpec::new(issuer, format!("{name}-tls"))
        .with_dns_names(dns_names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
        .with_private_key(key);
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

    /// Server-side apply with an apply configuration built by its builders: the request kube
    /// sends (captured by a loopback service standing in for the cluster) is an apply PATCH
    /// whose body holds only what was set, with apiVersion, kind and the name.
    #[tokio::test]
    async fn an_apply_configuration_sends_only_what_is_set() {
        use cert_manager_io::v1::{CertificateApply, CertificateSpecApply, IssuerRefApply};
        use http_body_util::BodyExt;
        use kube::api::{Patch, PatchParams};

        let sent = std::sync::Arc::new(std::sync::Mutex::new(None));
        let seen = sent.clone();
        let service = tower::service_fn(move |request: http::Request<kube::client::Body>| {
            let seen = seen.clone();
            async move {
                let (parts, body) = request.into_parts();
                let body = body.collect().await?.to_bytes();
                let content_type = parts.headers[http::header::CONTENT_TYPE].to_str().unwrap_or_default().to_owned();
                *seen.lock().unwrap() = Some((parts.method.clone(), parts.uri.to_string(), content_type, body.clone()));
                // The apiserver answers with the object it stored; the body sent stands in for it.
                Ok::<_, Box<dyn std::error::Error + Send + Sync>>(http::Response::new(kube::client::Body::from(
                    body.to_vec(),
                )))
            }
        });
        let api: Api<Certificate> = Api::namespaced(kube::Client::new(service, "default"), "default");
        let apply = CertificateApply::new("example").namespace("default").spec(
            CertificateSpecApply::default()
                .secret_name("example-tls")
                .dns_names(vec!["example.com".to_owned()])
                .issuer_ref(IssuerRefApply::default().name("letsencrypt").kind("ClusterIssuer")),
        );
        let stored =
            api.patch("example", &PatchParams::apply("ci"), &Patch::Apply(&apply)).await.expect("the loopback answers");
        assert_eq!(stored.spec.map(|s| s.secret_name).as_deref(), Some("example-tls"));

        let (method, uri, content_type, body) = sent.lock().unwrap().take().expect("a request was sent");
        assert_eq!(method, http::Method::PATCH);
        assert_eq!(uri, "/apis/cert-manager.io/v1/namespaces/default/certificates/example?&fieldManager=ci");
        assert_eq!(content_type, "application/apply-patch+yaml");
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            body,
            serde_json::json!({
                "apiVersion": "cert-manager.io/v1", "kind": "Certificate",
                "metadata": {"name": "example", "namespace": "default"},
                "spec": {"secretName": "example-tls", "dnsNames": ["example.com"],
                         "issuerRef": {"name": "letsencrypt", "kind": "ClusterIssuer"}}
            })
        );
    }

    #[test]
    fn the_type_is_what_kube_expects() {
        assert_eq!(Certificate::url_path(&(), Some("ns")), "/apis/cert-manager.io/v1/namespaces/ns/certificates");
        assert_eq!(Certificate::crd_name(), "certificates.cert-manager.io");
    }
}
