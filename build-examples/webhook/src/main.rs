//! Serves the webhook on `ADDR` (default `127.0.0.1:8080`). The apiserver only calls webhooks
//! over HTTPS: put this behind a TLS terminator, or serve it with axum-server's rustls support.
//! Every client is held to the default [`Limits`](kubeskema_example_webhook::Limits).

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::var("ADDR").unwrap_or_else(|_| "127.0.0.1:8080".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("validating Widgets on http://{}/validate", listener.local_addr()?);
    kubeskema_example_webhook::serve(listener, Default::default()).await
}
