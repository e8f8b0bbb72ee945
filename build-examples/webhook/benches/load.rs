//! The webhook under load over loopback, bounded in count and time (issue 54): `CONNECTIONS`
//! keep-alive clients post reviews one after another until `REQUESTS` are answered or
//! `SECONDS` have passed. The webhook runs in a child process of its own, so that its memory is
//! its own. Reported for each workload: requests answered per second, the median and p99
//! latency, and the webhook's peak resident memory.
//!
//! - `widget`: a valid Widget, the webhook with the Widget types compiled in ([`app_with`]);
//! - `widget, CRD file`: the same review, the webhook of the Widget CRD read when it starts
//!   ([`app_for`], the dynamic validator): the price of not compiling the types in;
//! - `httproute` and `httproute-large`: gateway-api's HTTPRoute example, and a copy grown to 16
//!   rules of 16 backends each, through the webhook of the corpus's HTTPRoute CRD (`CRDS`): a
//!   CRD with CEL rules at five levels. Skipped when the corpus is not there
//!   (`KUBESKEMA_CORPUS`, else `../shared/corpus` beside the checkout).
//!
//! `cargo bench -p kubeskema-example-webhook --bench load` (`REQUESTS=n`, `CONNECTIONS=n`)

mod child;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use kubeskema_example_webhook::crds::Crds;
use kubeskema_example_webhook::{Limits, app_for, app_with, serve_app};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader as AsyncBufReader};
use tokio::net::TcpStream;

use child::Server;

const SECONDS: u64 = 20;

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--serve") {
        return runtime.block_on(serve(args.get(2).map(PathBuf::from)));
    }
    // `cargo test --benches` only checks that it starts.
    let quick = !args.iter().any(|a| a == "--bench");
    let number = |name: &str, default: usize| std::env::var(name).ok().and_then(|n| n.parse().ok()).unwrap_or(default);
    let requests = number("REQUESTS", if quick { 20 } else { 4_000 });
    let connections = number("CONNECTIONS", 8).max(1);
    let widget_crd = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/crds/widgets.yaml"));
    let widget = review("example.com", "v1", "Widget", widget());
    let mut workloads = vec![("widget", None, widget.clone()), ("widget, CRD file", Some(widget_crd), widget)];
    match httproutes() {
        Some((crd, small, large)) => {
            workloads.push(("httproute", Some(crd.clone()), small));
            workloads.push(("httproute-large", Some(crd), large));
        }
        None => println!("(no corpus at {}: the HTTPRoute workloads are skipped)", corpus().display()),
    }
    println!("{connections} keep-alive connections, {requests} reviews per workload (at most {SECONDS} s)\n");
    println!("| workload | review bytes | requests/s | p50 | p99 | peak resident memory |");
    println!("|---|---|---|---|---|---|");
    for (name, crds, review) in workloads {
        let measured = runtime.block_on(load(crds, review.to_string(), requests, connections));
        println!(
            "| {name} | {} | {:.0} | {:.2} ms | {:.2} ms | {:.1} MiB |",
            review.to_string().len(),
            measured.per_second,
            measured.p50.as_secs_f64() * 1e3,
            measured.p99.as_secs_f64() * 1e3,
            measured.peak_kib as f64 / 1024.0
        );
    }
}

/// The webhook on a free port, printed for the parent: Widgets compiled in, or the CRDs of
/// `crds`.
async fn serve(crds: Option<PathBuf>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let app = match crds {
        None => app_with(Limits::default()),
        Some(path) => {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let documents =
                kubeskema::yaml::parse_documents(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let crds = Crds::new(documents.into_iter().map(|d| d.value).collect()).unwrap();
            app_for(Limits::default(), Arc::new(crds))
        }
    };
    println!("{}", listener.local_addr().unwrap().port());
    serve_app(listener, Limits::default(), app, None).await.unwrap();
}

struct Measured {
    per_second: f64,
    p50: Duration,
    p99: Duration,
    peak_kib: u64,
}

async fn load(crds: Option<PathBuf>, body: String, requests: usize, connections: usize) -> Measured {
    let args = std::iter::once(PathBuf::from("--serve")).chain(crds);
    let (server, addr) = Server::start(args);
    // A review that is not allowed would measure the denial instead.
    let first = exchange(&mut TcpStream::connect(&addr).await.unwrap(), &body).await;
    assert!(first.contains("\"allowed\":true"), "the workload's review is allowed: {first}");

    let deadline = Instant::now() + Duration::from_secs(SECONDS);
    let start = Instant::now();
    let mut clients = Vec::new();
    for client in 0..connections {
        let (addr, body) = (addr.clone(), body.clone());
        let share = requests / connections + usize::from(client < requests % connections);
        clients.push(tokio::spawn(async move {
            let mut stream = TcpStream::connect(&addr).await.unwrap();
            let mut latencies = Vec::with_capacity(share);
            while latencies.len() < share && Instant::now() < deadline {
                let sent = Instant::now();
                exchange(&mut stream, &body).await;
                latencies.push(sent.elapsed());
            }
            latencies
        }));
    }
    let mut latencies = Vec::new();
    for client in clients {
        latencies.extend(client.await.unwrap());
    }
    let elapsed = start.elapsed();
    latencies.sort();
    let at = |q: f64| latencies.get(((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1)));
    let peak_kib = server.status("VmHWM:");
    Measured {
        per_second: latencies.len() as f64 / elapsed.as_secs_f64(),
        p50: at(0.50).copied().unwrap_or_default(),
        p99: at(0.99).copied().unwrap_or_default(),
        peak_kib,
    }
}

/// One review posted on a kept-alive connection, and its answer's body (a 200 is asserted).
async fn exchange(stream: &mut TcpStream, body: &str) -> String {
    let head = format!(
        "POST /validate HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all((head + body).as_bytes()).await.unwrap();
    let mut reader = AsyncBufReader::new(stream);
    let (mut line, mut length) = (String::new(), 0);
    reader.read_line(&mut line).await.unwrap();
    assert!(line.starts_with("HTTP/1.1 200"), "{line}");
    loop {
        line.clear();
        reader.read_line(&mut line).await.unwrap();
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap();
        }
    }
    let mut answer = vec![0; length];
    reader.read_exact(&mut answer).await.unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

fn review(group: &str, version: &str, kind: &str, object: Value) -> Value {
    json!({
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "kind": {"group": group, "version": version, "kind": kind},
            "resource": {"group": group, "version": version, "resource": format!("{}s", kind.to_lowercase())},
            "name": object["metadata"]["name"], "namespace": "default", "operation": "CREATE",
            "userInfo": {"username": "admin"}, "object": object, "dryRun": false
        }
    })
}

fn widget() -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"},
        "spec": {"type": "Small", "replicas": 3, "ports": [{"name": "http", "port": 80}]}})
}

fn corpus() -> PathBuf {
    std::env::var_os("KUBESKEMA_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus")))
}

/// The HTTPRoute CRD's file, and reviews of gateway-api's example route and of a copy of it
/// grown to 16 rules of 16 backends each (within the schema's limits).
fn httproutes() -> Option<(PathBuf, Value, Value)> {
    let corpus = corpus();
    let crd = corpus.join("crds/kubernetes-sigs__gateway-api/gateway.networking.k8s.io_httproutes.yaml");
    let example = corpus.join("instances/kubernetes-sigs__gateway-api/examples/standard/basic-http.yaml");
    let text = std::fs::read_to_string(example).ok()?;
    let route = kubeskema::yaml::parse_documents(&text)
        .ok()?
        .into_iter()
        .map(|d| d.value)
        .find(|d| d["kind"] == "HTTPRoute")?;
    let mut large = route.clone();
    let rule = large["spec"]["rules"][0].clone();
    let backend = rule["backendRefs"][0].clone();
    large["spec"]["rules"] = (0..16)
        .map(|i| {
            let mut rule = rule.clone();
            rule["backendRefs"] = (0..16).map(|_| backend.clone()).collect();
            rule["name"] = json!(format!("rule-{i}"));
            rule
        })
        .collect();
    let review = |route: Value| review("gateway.networking.k8s.io", "v1", "HTTPRoute", route);
    crd.exists().then(|| (crd, review(route), review(large)))
}
