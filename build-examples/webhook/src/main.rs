//! Serves the webhook on `ADDR` (default `127.0.0.1:8080`): `/validate` and `/convert`. With
//! `TLS_CERT` and `TLS_KEY` (PEM files; a mounted Secret's `tls.crt` and `tls.key`) it serves
//! HTTPS, as the apiserver requires, and picks up a rotated certificate; without them, plain
//! HTTP for a TLS terminator in front. Every client is held to the default
//! [`Limits`](kubeskema_example_webhook::Limits). With `CRDS` (a file of CustomResourceDefinitions)
//! `/validate` validates their kinds with the dynamic validator instead of Widgets.

use std::sync::Arc;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::var("ADDR").unwrap_or_else(|_| "127.0.0.1:8080".into());
    let tls = match (std::env::var_os("TLS_CERT"), std::env::var_os("TLS_KEY")) {
        (Some(cert), Some(key)) => {
            let files = kubeskema_example_webhook::tls::CertFiles::load(cert, key).map_err(std::io::Error::other)?;
            Some(files.server_config().map_err(std::io::Error::other)?)
        }
        (None, None) => None,
        _ => return Err(std::io::Error::other("give both TLS_CERT and TLS_KEY, or neither")),
    };
    let limits = kubeskema_example_webhook::Limits::default();
    let (app, validated) = match std::env::var_os("CRDS") {
        Some(path) => {
            let crds = read_crds(std::path::Path::new(&path)).map_err(std::io::Error::other)?;
            (kubeskema_example_webhook::app_for(limits.clone(), Arc::new(crds)), "the kinds of $CRDS")
        }
        None => (kubeskema_example_webhook::app_with(limits.clone()), "Widgets"),
    };
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    eprintln!(
        "validating {validated} on {scheme}://{0}/validate, converting Widgets on {scheme}://{0}/convert",
        listener.local_addr()?
    );
    kubeskema_example_webhook::serve_app(listener, limits, app, tls).await
}

/// The CRDs of a YAML or JSON file, with the file named in what is wrong.
fn read_crds(path: &std::path::Path) -> Result<kubeskema_example_webhook::crds::Crds, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let documents = kubeskema::yaml::parse_documents(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    kubeskema_example_webhook::crds::Crds::new(documents.into_iter().map(|d| d.value).collect())
        .map_err(|e| format!("{}: {e}", path.display()))
}
