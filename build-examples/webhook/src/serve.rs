//! The webhook on a socket, held to [`Limits`] that a slow or hostile client cannot get past:
//! headers, body and a turn to be validated each within the timeout, a bounded number of
//! connections, and a bounded number of request bytes held at once. Past a limit a client gets
//! an answer that says which (408, 413, 503 with `Retry-After`), never the webhook's memory.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::post;
use http_body_util::BodyExt;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, timeout_at};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;

use crate::crds::Crds;
use crate::{MAX_REVIEW_BYTES, refuse};

/// How much the webhook gives each client, and all of them together.
#[derive(Clone, Debug)]
pub struct Limits {
    /// For a request's headers (and for an idle kept-alive connection's next request), then
    /// for its body and its turn to be validated. The apiserver waits `timeoutSeconds` for a
    /// webhook: 10 s unless the configuration says otherwise, and at most 30.
    pub timeout: Duration,
    /// Connections open at once; one past them is answered 503 and closed.
    pub max_connections: usize,
    /// The largest request body (413 past it).
    pub max_body: usize,
    /// Bytes of request bodies held at once, across connections (503 past it). At least
    /// `max_body`, or a largest body could never be read.
    pub max_buffered: usize,
    /// Reviews decoded and validated at once (the work is CPU-bound); the rest wait for a
    /// turn within the timeout.
    pub max_validating: usize,
    /// A connection older than this is closed once its request in hand is answered, so that
    /// a client that reads its answers slowly cannot hold a connection for ever.
    pub max_connection_age: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(10),
            max_connections: 512,
            max_body: MAX_REVIEW_BYTES,
            max_buffered: 64 * 1024 * 1024,
            max_validating: std::thread::available_parallelism().map_or(2, usize::from),
            max_connection_age: Duration::from_secs(300),
        }
    }
}

/// Each connection's read buffer: an `AdmissionReview`'s headers are a few hundred bytes, and
/// hyper's default (about 400 KiB) would let `max_connections` clients that send long headers
/// hold 200 MB. Larger headers are answered 431.
const READ_BUFFER: usize = 64 * 1024;

/// What every request shares: the limits and what is left of them.
struct Shared {
    limits: Limits,
    buffered: Arc<Semaphore>,
    validating: Arc<Semaphore>,
}

/// The routes with the default [`Limits`]: `POST /validate` takes an `AdmissionReview` and
/// answers with one; `POST /convert` takes a `ConversionReview` and answers with one.
pub fn app() -> Router {
    app_with(Limits::default())
}

/// [`app`] held to `limits` (all but the connection limits, which are [`serve`]'s).
pub fn app_with(limits: Limits) -> Router {
    routes(limits, Arc::new(crate::answer))
}

/// [`app_with`] whose `/validate` validates the kinds of `crds` instead of Widgets.
pub fn app_for(limits: Limits, crds: Arc<Crds>) -> Router {
    routes(limits, Arc::new(move |body: &[u8]| crds.answer(body)))
}

/// What answers a review's body.
type Answer = Arc<dyn Fn(&[u8]) -> Response + Send + Sync>;

fn routes(limits: Limits, validate: Answer) -> Router {
    let convert: Answer = Arc::new(crate::convert::answer);
    let shared = Arc::new(Shared {
        buffered: Arc::new(Semaphore::new(limits.max_buffered.max(limits.max_body))),
        validating: Arc::new(Semaphore::new(limits.max_validating.max(1))),
        limits,
    });
    Router::new()
        .route("/validate", post(|state, request| answered(state, request, validate)))
        .route("/convert", post(|state, request| answered(state, request, convert)))
        .with_state(shared)
}

/// Serves [`app_with`]`(limits)` on `listener` over plain HTTP (behind a TLS terminator) until
/// the listener fails for good.
pub async fn serve(listener: TcpListener, limits: Limits) -> std::io::Result<()> {
    serve_app(listener, limits.clone(), app_with(limits), None).await
}

/// [`serve`] over TLS (`crate::tls::CertFiles`): the handshake is held to the timeout too.
pub async fn serve_tls(listener: TcpListener, limits: Limits, tls: Arc<ServerConfig>) -> std::io::Result<()> {
    serve_app(listener, limits.clone(), app_with(limits), Some(tls)).await
}

/// [`serve`] of `app` ([`app_with`] or [`app_for`], made with the same `limits`), over TLS
/// when `tls` is given.
pub async fn serve_app(
    listener: TcpListener,
    limits: Limits,
    app: Router,
    tls: Option<Arc<ServerConfig>>,
) -> std::io::Result<()> {
    let tls = tls.map(TlsAcceptor::from);
    let connections = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of file descriptors (or another passing failure): wait rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = connections.clone().try_acquire_owned() else {
            turn_away(&stream, limits.max_connections);
            continue;
        };
        let (app, limits, tls) = (app.clone(), limits.clone(), tls.clone());
        tokio::spawn(async move {
            let _slot = slot;
            match tls {
                None => connection(stream, app, limits).await,
                // A client that never finishes its handshake is closed after the timeout.
                Some(tls) => {
                    if let Ok(Ok(stream)) = tokio::time::timeout(limits.timeout, tls.accept(stream)).await {
                        connection(stream, app, limits).await;
                    }
                }
            }
        });
    }
}

/// One connection's requests, answered until the client closes it, it idles past the timeout,
/// or it grows older than [`Limits::max_connection_age`].
async fn connection<I>(io: I, app: Router, limits: Limits)
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(limits.timeout).max_buf_size(READ_BUFFER);
    let connection = http.serve_connection(TokioIo::new(io), TowerToHyperService::new(app));
    tokio::pin!(connection);
    tokio::select! {
        _ = connection.as_mut() => return,
        () = tokio::time::sleep(limits.max_connection_age) => connection.as_mut().graceful_shutdown(),
    }
    let _ = tokio::time::timeout(limits.timeout, connection).await;
}

/// A 503 to a connection past the limit, written without waiting (a new socket's send buffer
/// takes it), then closed.
fn turn_away(stream: &TcpStream, max_connections: usize) {
    let body = format!("the webhook has {max_connections} connections open, as many as it takes; retry\n");
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n\
         Content-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.try_write(response.as_bytes());
}

fn busy(message: String) -> Response {
    let mut response = refuse(StatusCode::SERVICE_UNAVAILABLE, message);
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

fn seconds(duration: Duration) -> String {
    format!("{} s", duration.as_secs_f64())
}

/// A review read within the limits and answered by `answer` (`/validate`'s or `/convert`'s).
async fn answered(State(shared): State<Arc<Shared>>, request: Request, answer: Answer) -> Response {
    let deadline = Instant::now() + shared.limits.timeout;
    let body = match read_body(&shared, request, deadline).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let Ok(Ok(turn)) = timeout_at(deadline, shared.validating.clone().acquire_owned()).await else {
        return busy(format!(
            "the webhook is validating {} reviews, as many as it does at once, and this one's turn did not come within {}",
            shared.limits.max_validating,
            seconds(shared.limits.timeout)
        ));
    };
    // The body and its share of the budget are held until the answer is made, even if the
    // client goes away meanwhile.
    let answered = tokio::task::spawn_blocking(move || {
        let answer = answer(&body.bytes);
        drop((body, turn));
        answer
    });
    answered.await.unwrap_or_else(|_| {
        refuse(StatusCode::INTERNAL_SERVER_ERROR, "validating the review failed unexpectedly".to_owned())
    })
}

/// A request body, in a buffer whose capacity is counted against [`Limits::max_buffered`].
struct Body {
    bytes: Vec<u8>,
    _held: Option<OwnedSemaphorePermit>,
}

async fn read_body(shared: &Shared, request: Request, deadline: Instant) -> Result<Body, Response> {
    let limits = &shared.limits;
    let too_large = || {
        refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the review is larger than this webhook takes ({} bytes)", limits.max_body),
        )
    };
    let declared =
        request.headers().get(header::CONTENT_LENGTH).and_then(|length| length.to_str().ok()?.parse::<usize>().ok());
    if declared.is_some_and(|length| length > limits.max_body) {
        return Err(too_large());
    }
    let mut incoming = request.into_body();
    let mut body = Body { bytes: Vec::new(), _held: None };
    loop {
        let frame = match timeout_at(deadline, incoming.frame()).await {
            Err(_) => {
                return Err(refuse(
                    StatusCode::REQUEST_TIMEOUT,
                    format!("the request body did not arrive within {}", seconds(limits.timeout)),
                ));
            }
            Ok(None) => return Ok(body),
            Ok(Some(Err(e))) => return Err(refuse(StatusCode::BAD_REQUEST, format!("reading the request body: {e}"))),
            Ok(Some(Ok(frame))) => frame,
        };
        let Ok(data) = frame.into_data() else { continue };
        let needed = body.bytes.len() + data.len();
        if needed > limits.max_body {
            return Err(too_large());
        }
        let capacity = body.bytes.capacity();
        if needed > capacity {
            // Doubling, as a Vec grows, but never past what the client declared: the budget
            // counts what is allocated, and is asked before.
            let grown =
                needed.max(2 * capacity).min(declared.unwrap_or(limits.max_body).max(needed)).min(limits.max_body);
            let permit = u32::try_from(grown - capacity)
                .ok()
                .and_then(|more| shared.buffered.clone().try_acquire_many_owned(more).ok());
            let Some(permit) = permit else {
                return Err(busy(format!(
                    "the webhook holds {} bytes of requests being read, as many as it takes",
                    limits.max_buffered
                )));
            };
            match &mut body._held {
                Some(held) => held.merge(permit),
                held @ None => *held = Some(permit),
            }
            body.bytes.reserve_exact(grown - body.bytes.len());
        }
        body.bytes.extend_from_slice(&data);
    }
}
