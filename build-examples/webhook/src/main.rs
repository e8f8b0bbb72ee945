//! Serves the webhook on `ADDR` (default `127.0.0.1:8080`): `/validate` and `/convert`. With
//! `TLS_CERT` and `TLS_KEY` (PEM files; a mounted Secret's `tls.crt` and `tls.key`) it serves
//! HTTPS, as the apiserver requires, and picks up a rotated certificate; without them, plain
//! HTTP for a TLS terminator in front. Every client is held to the default
//! [`Limits`](kubeskema_example_webhook::Limits).

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
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    eprintln!(
        "validating Widgets on {scheme}://{0}/validate, converting them on {scheme}://{0}/convert",
        listener.local_addr()?
    );
    match tls {
        Some(tls) => kubeskema_example_webhook::serve_tls(listener, Default::default(), tls).await,
        None => kubeskema_example_webhook::serve(listener, Default::default()).await,
    }
}
