//! `/convert` over a real socket, plain and over TLS: `ConversionReview`s as the apiserver posts
//! them (lists of objects in both versions, a failure among them, malformed bodies), and the
//! answers taken through the apiserver's own acceptance rules (`kubeskema::conversion::apiserver`,
//! ported from `webhook_converter.go`).

use std::sync::Arc;

use kubeskema::conversion::apiserver;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::rustls;

const UID: &str = "0c5b3ed1-7e6c-4f6a-9d0e-2b1f3a4c5d6e";

fn stored_v1() -> Value {
    json!({"apiVersion": "apps.example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "uid": "3e1f", "resourceVersion": "7"},
        "spec": {"replicas": 3, "image": {"repository": "nginx", "tag": "1.27"}, "paused": true, "color": "blue"}})
}

fn stored_v1beta1() -> Value {
    json!({"apiVersion": "apps.example.com/v1beta1", "kind": "Widget",
        "metadata": {"name": "old", "namespace": "default", "uid": "9a0b"},
        "spec": {"size": 2, "image": "redis:7", "legacyMode": true, "color": "red"}})
}

fn review(desired: &str, objects: &[Value]) -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": UID, "desiredAPIVersion": desired, "objects": objects}})
}

/// The status line and body of `body` posted to `path` on a stream.
async fn exchange_on<S: AsyncRead + AsyncWrite + Unpin>(mut stream: S, path: &str, body: &str) -> (String, String) {
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response).await;
    let response = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP response");
    (head.lines().next().unwrap_or_default().to_owned(), body.to_owned())
}

async fn plain() -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(kubeskema_example_webhook::serve(listener, Default::default()));
    addr
}

async fn post(addr: std::net::SocketAddr, body: &str) -> (String, String) {
    exchange_on(TcpStream::connect(addr).await.unwrap(), "/convert", body).await
}

async fn converted(addr: std::net::SocketAddr, review: &Value) -> Value {
    let (status, body) = post(addr, &review.to_string()).await;
    assert!(status.starts_with("HTTP/1.1 200"), "{status}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

/// A list in both versions, to each version: every answer is one the apiserver takes, object by
/// object, and its read of each is the converted object.
#[tokio::test]
async fn lists_in_both_versions_convert_and_the_apiserver_takes_them() {
    let addr = plain().await;
    let objects = [stored_v1(), stored_v1beta1()];
    for (desired, version) in [("apps.example.com/v1beta1", "v1beta1"), ("apps.example.com/v1", "v1")] {
        let answer = converted(addr, &review(desired, &objects)).await;
        assert_eq!(answer["kind"], "ConversionReview");
        assert_eq!(answer["response"]["uid"], UID);
        assert_eq!(answer["response"]["result"]["status"], "Success", "{answer:#}");
        let out = answer["response"]["convertedObjects"].as_array().unwrap();
        assert_eq!(out.len(), 2);
        for (sent, got) in objects.iter().zip(out) {
            let single = converted(addr, &review(desired, std::slice::from_ref(sent))).await;
            let read = apiserver::convert(sent, desired, version, UID, &single)
                .unwrap_or_else(|e| panic!("the apiserver refuses {} to {desired}: {e}", sent["metadata"]["name"]));
            assert_eq!(&read, got);
            assert_eq!(got["metadata"]["uid"], sent["metadata"]["uid"]);
        }
    }
    // v1 down and back up: whole again (`paused` and `blue` rode in the annotation).
    let down = converted(addr, &review("apps.example.com/v1beta1", &[stored_v1()])).await;
    let old = down["response"]["convertedObjects"][0].clone();
    assert_eq!(old["spec"]["image"], "nginx:1.27");
    assert!(old["metadata"]["annotations"][kubeskema::conversion::DATA_ANNOTATION].is_string());
    let up = converted(addr, &review("apps.example.com/v1", &[old])).await;
    assert_eq!(up["response"]["convertedObjects"][0], stored_v1());
}

/// One object the converter cannot read fails the review, naming it; the apiserver's reading
/// of the failure is its message.
#[tokio::test]
async fn a_partial_failure_fails_the_review_naming_the_object() {
    let addr = plain().await;
    let mut bad = stored_v1beta1();
    bad["metadata"]["name"] = json!("bad");
    bad["spec"]["image"] = json!(5);
    let answer = converted(addr, &review("apps.example.com/v1", &[stored_v1beta1(), bad.clone()])).await;
    assert_eq!(answer["response"]["result"]["status"], "Failure", "{answer:#}");
    let message = answer["response"]["result"]["message"].as_str().unwrap();
    assert!(message.starts_with("converting object 1 (Widget default/bad) to apps.example.com/v1: "), "{message}");
    assert!(answer["response"]["convertedObjects"].as_array().is_none_or(Vec::is_empty), "{answer:#}");
    let refused = apiserver::convert(&bad, "apps.example.com/v1", "v1", UID, &answer).unwrap_err();
    assert!(refused.contains(message), "{refused}");
    // A version the CRD does not have.
    let answer = converted(addr, &review("apps.example.com/v9", &[stored_v1()])).await;
    assert_eq!(answer["response"]["result"]["status"], "Failure");
    assert!(answer["response"]["result"]["message"].as_str().unwrap().contains("not a version of Widget"), "{answer}");
}

/// A body that is not a `ConversionReview` request is a 400 with the reason, never a panic.
#[tokio::test]
async fn malformed_bodies_are_400s_that_say_why() {
    let addr = plain().await;
    for body in [
        "{not json".to_owned(),
        "[]".to_owned(),
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"}).to_string(),
        json!({"apiVersion": "apiextensions.k8s.io/v2", "kind": "ConversionReview", "request": {}}).to_string(),
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
               "request": {"uid": UID, "desiredAPIVersion": "apps.example.com/v1", "objects": "no"}})
        .to_string(),
        "\u{0}".repeat(10),
    ] {
        let (status, text) = post(addr, &body).await;
        assert!(status.starts_with("HTTP/1.1 400"), "{body:?}: {status}: {text}");
        assert!(!text.is_empty(), "{body:?}: a 400 says why");
    }
    // A review for another kind is a Failure that names both (the CRD's webhook misconfigured).
    let mut gadget = stored_v1();
    gadget["kind"] = json!("Gadget");
    let answer = converted(addr, &review("apps.example.com/v1beta1", &[gadget])).await;
    assert_eq!(answer["response"]["result"]["status"], "Failure");
    let message = answer["response"]["result"]["message"].as_str().unwrap();
    assert!(message.contains("Gadget") && message.contains("Widget"), "{message}");
}

fn tls_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tls")
}

fn client(ca: &std::path::Path) -> tokio_rustls::TlsConnector {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    roots.add(CertificateDer::from_pem_file(ca).unwrap()).unwrap();
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    tokio_rustls::TlsConnector::from(Arc::new(config))
}

/// The certificate the server at `addr` presents, after a `/convert` answered over TLS.
async fn over_tls(addr: std::net::SocketAddr, ca: &std::path::Path) -> Vec<u8> {
    let stream = TcpStream::connect(addr).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let tls = client(ca).connect(name, stream).await.expect("a TLS handshake the CA vouches for");
    let presented = tls.get_ref().1.peer_certificates().unwrap()[0].to_vec();
    let (status, body) =
        exchange_on(tls, "/convert", &review("apps.example.com/v1beta1", &[stored_v1()]).to_string()).await;
    assert!(status.starts_with("HTTP/1.1 200"), "{status}: {body}");
    assert!(body.contains("\"Success\""), "{body}");
    presented
}

/// Served over TLS from certificate files, as from a mounted Secret; a certificate rotated in
/// place is served without a restart.
#[tokio::test]
async fn tls_from_files_and_a_rotated_certificate() {
    use kubeskema_example_webhook::tls::CertFiles;
    let dir = std::env::temp_dir().join(format!("kubeskema-webhook-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (cert, key) = (dir.join("tls.crt"), dir.join("tls.key"));
    std::fs::copy(tls_dir().join("cert.pem"), &cert).unwrap();
    std::fs::copy(tls_dir().join("key.pem"), &key).unwrap();
    let config = CertFiles::load(&cert, &key).unwrap().reload_every(std::time::Duration::ZERO).server_config().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(kubeskema_example_webhook::serve_tls(listener, Default::default(), config));

    let first = over_tls(addr, &tls_dir().join("ca.pem")).await;
    // Plain HTTP to the TLS port gets no HTTP answer, and the server goes on.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(b"POST /convert HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}").await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
    assert!(!answer.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&answer));

    // Rotated in place (as the kubelet updates a mounted Secret): the next handshake has it.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::copy(tls_dir().join("cert-rotated.pem"), &cert).unwrap();
    std::fs::copy(tls_dir().join("key-rotated.pem"), &key).unwrap();
    let second = over_tls(addr, &tls_dir().join("ca.pem")).await;
    assert_ne!(first, second, "the rotated certificate is served");
    std::fs::remove_dir_all(&dir).ok();
}

/// Files that are not a certificate and its key are refused with the file named.
#[test]
fn bad_certificate_files_are_named() {
    use kubeskema_example_webhook::tls::CertFiles;
    let dir = tls_dir();
    let err = CertFiles::load(dir.join("missing.pem"), dir.join("key.pem")).unwrap_err();
    assert!(err.contains("missing.pem"), "{err}");
    let err = CertFiles::load(dir.join("README.md"), dir.join("key.pem")).unwrap_err();
    assert!(err.contains("README.md"), "{err}");
    let err = CertFiles::load(dir.join("cert.pem"), dir.join("key-rotated.pem")).unwrap_err();
    assert!(err.contains("is not the certificate's"), "{err}");
}
