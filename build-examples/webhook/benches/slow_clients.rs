//! The webhook under 1,000 slow clients, over loopback, bounded in count and time (issue 49):
//! half of them stop half-way through their headers, half after 1 MiB of a 7 MiB body. The
//! webhook runs in a child process of its own, so that its memory is its own, in two builds in
//! the same run: the shipped one ([`serve`] with the default [`Limits`]) and the baseline before
//! the limits (`axum::serve` with a 7 MiB body limit and nothing else).
//!
//! Reported: the webhook's resident memory idle, its peak while the clients hold on, what it
//! keeps after they close, how long a valid review waits for its answer meanwhile, and how
//! many slow clients it still holds after its timeout (10 s).
//!
//! `cargo bench -p kubeskema-example-webhook --bench slow_clients`

mod child;

use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::routing::post;
use kubeskema_example_webhook::{Limits, MAX_REVIEW_BYTES, answer, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use child::Server;

const CLIENTS: usize = 1_000;
/// What a slow body sends before it stops.
const SENT: usize = 1024 * 1024;

fn main() {
    raise_open_file_limit();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    match std::env::args().nth(1).as_deref() {
        Some("--serve") => runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            println!("{}", listener.local_addr().unwrap().port());
            serve(listener, Limits::default()).await.unwrap();
        }),
        Some("--serve-baseline") => runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            println!("{}", listener.local_addr().unwrap().port());
            let app = Router::new()
                .route("/validate", post(|body: Bytes| async move { answer(&body) }))
                .layer(DefaultBodyLimit::max(MAX_REVIEW_BYTES));
            axum::serve(listener, app).await.unwrap();
        }),
        _ => {
            println!(
                "{CLIENTS} slow clients: half stop in their headers, half after {} MiB of a 7 MiB body",
                SENT >> 20
            );
            let baseline = runtime.block_on(run("--serve-baseline"));
            let shipped = runtime.block_on(run("--serve"));
            println!("\n| | baseline (no limits) | shipped (default Limits) | shipped / baseline |");
            println!("|---|---|---|---|");
            let mib = |kib: f64| format!("{:.1} MiB", kib / 1024.0);
            let ms = |ms: f64| format!("{ms:.1} ms");
            let count = |n: f64| format!("{n}");
            row("resident memory, idle", &mib, baseline.idle_kib as f64, shipped.idle_kib as f64);
            row("peak resident memory (VmHWM)", &mib, baseline.peak_kib as f64, shipped.peak_kib as f64);
            row("resident memory after the clients close", &mib, baseline.after_kib as f64, shipped.after_kib as f64);
            let review = |o: &Outcome| o.review.as_secs_f64() * 1e3;
            row("a valid review's answer, meanwhile", &ms, review(&baseline), review(&shipped));
            let held = |o: &Outcome| o.held_after_timeout as f64;
            row("slow clients still held after 12 s", &count, held(&baseline), held(&shipped));
            println!("\nanswers the shipped webhook gave the slow clients: {}", shipped.answers);
        }
    }
}

fn row(name: &str, show: &dyn Fn(f64) -> String, baseline: f64, shipped: f64) {
    let ratio = if baseline > 0.0 { format!("{:.2}", shipped / baseline) } else { "-".to_owned() };
    println!("| {name} | {} | {} | {ratio} |", show(baseline), show(shipped));
}

struct Outcome {
    idle_kib: u64,
    peak_kib: u64,
    after_kib: u64,
    review: Duration,
    held_after_timeout: usize,
    answers: String,
}

fn head(content_length: usize, close: bool) -> String {
    let connection = if close { "Connection: close\r\n" } else { "" };
    format!(
        "POST /validate HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\n{connection}Content-Length: {content_length}\r\n\r\n"
    )
}

async fn run(mode: &str) -> Outcome {
    let (server, addr) = Server::start([mode]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let idle_kib = server.status("VmRSS:");

    let mut tasks = Vec::new();
    for i in 0..CLIENTS {
        let addr = addr.clone();
        tasks.push(tokio::spawn(async move {
            let mut stream = TcpStream::connect(&addr).await.ok()?;
            let sent = if i % 2 == 0 {
                stream.write_all(b"POST /validate HTTP/1.1\r\nHost: webhook\r\n").await
            } else {
                let body = vec![b' '; SENT];
                match stream.write_all(head(MAX_REVIEW_BYTES, false).as_bytes()).await {
                    Ok(()) => stream.write_all(&body).await,
                    error => error,
                }
            };
            // A client turned away may find its connection closed while it writes.
            let _ = sent;
            Some(stream)
        }));
    }
    let mut clients = Vec::new();
    for task in tasks {
        if let Ok(Some(stream)) = tokio::time::timeout(Duration::from_secs(20), task).await.unwrap_or(Ok(None)) {
            clients.push(stream);
        }
    }
    let start = Instant::now();
    let review = valid_review(&addr).await;
    let mut peak_kib = 0;
    while start.elapsed() < Duration::from_secs(3) {
        peak_kib = peak_kib.max(server.status("VmRSS:"));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_secs(12).saturating_sub(start.elapsed())).await;
    let mut held_after_timeout = 0;
    let mut answers = std::collections::BTreeMap::<String, usize>::new();
    for stream in &mut clients {
        let mut buffer = vec![0; 4096];
        match tokio::time::timeout(Duration::from_millis(2), stream.read(&mut buffer)).await {
            Err(_) => held_after_timeout += 1,
            Ok(Ok(n)) => {
                let status = String::from_utf8_lossy(&buffer[..n]).lines().next().unwrap_or("closed").to_owned();
                *answers.entry(status).or_default() += 1;
            }
            Ok(Err(e)) => *answers.entry(e.kind().to_string()).or_default() += 1,
        }
    }
    drop(clients);
    tokio::time::sleep(Duration::from_secs(2)).await;
    Outcome {
        idle_kib,
        peak_kib: peak_kib.max(server.status("VmHWM:")),
        after_kib: server.status("VmRSS:"),
        review,
        held_after_timeout,
        answers: format!("{answers:?}"),
    }
}

/// How long a valid review waits for its answer (up to 30 s).
async fn valid_review(addr: &str) -> Duration {
    let body = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","kind":{"group":"example.com","version":"v1","kind":"Widget"},"resource":{"group":"example.com","version":"v1","resource":"widgets"},"name":"w","operation":"CREATE","userInfo":{},"object":{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"type":"Small"}}}}"#;
    let start = Instant::now();
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await?;
        stream.write_all((head(body.len(), true) + body).as_bytes()).await?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await?;
        assert!(answer.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&answer));
        std::io::Result::Ok(())
    };
    let _ = tokio::time::timeout(Duration::from_secs(30), exchange).await;
    start.elapsed()
}

/// Two thousand sockets in each process: the soft limit on open files is often 1,024.
fn raise_open_file_limit() {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit read and write the one struct they are given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}
