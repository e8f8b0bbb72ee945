//! The webhook over a real socket: an AdmissionReview posted as the apiserver posts it, the
//! answer read back.

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The status line and body of the answer to `body` posted to `app` over a real socket.
async fn exchange(app: axum::Router, body: &str) -> (String, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST /validate HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    // The server may answer (413) before it has read the whole body.
    let _ = stream.write_all(body.as_bytes()).await;
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response).await;
    let response = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP response");
    (head.lines().next().unwrap_or_default().to_owned(), body.to_owned())
}

async fn post(body: &Value) -> Value {
    let (status, body) = exchange(kubeskema_example_webhook::app(), &body.to_string()).await;
    assert!(status.starts_with("HTTP/1.1 200"), "{status}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

fn review(operation: &str, object: Value, old: Option<Value>) -> Value {
    json!({
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "kind": {"group": "example.com", "version": "v1", "kind": "Widget"},
            "resource": {"group": "example.com", "version": "v1", "resource": "widgets"},
            "name": "w", "namespace": "default", "operation": operation,
            "userInfo": {"username": "admin"},
            "object": object, "oldObject": old, "dryRun": false
        }
    })
}

fn widget(spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"}, "spec": spec})
}

#[tokio::test]
async fn a_valid_widget_is_allowed() {
    let answer = post(&review("CREATE", widget(json!({"type": "Small", "replicas": 3})), None)).await;
    assert_eq!(answer["kind"], "AdmissionReview");
    assert_eq!(answer["response"]["uid"], "705ab4f5-6393-11e8-b7cc-42010a800002");
    assert_eq!(answer["response"]["allowed"], true, "{answer}");
}

#[tokio::test]
async fn an_invalid_widget_is_denied_with_the_apiservers_message() {
    let object = widget(json!({"type": "Small", "replicas": 11, "maxSurge": "lots",
        "ports": [{"name": "a", "port": 1}, {"name": "a", "port": 2}]}));
    let answer = post(&review("CREATE", object, None)).await;
    assert_eq!(answer["response"]["allowed"], false, "{answer}");
    assert_eq!(
        answer["response"]["status"]["message"],
        "Widget.example.com \"w\" is invalid: [\
         spec.maxSurge: Invalid value: \"lots\": spec.maxSurge in body should match '^[0-9]+%?$', \
         spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10, \
         spec.ports[1]: Duplicate value: {\"name\":\"a\"}]"
    );
    let answer = post(&review("CREATE", widget(json!({"type": "Huge"})), None)).await;
    assert_eq!(
        answer["response"]["status"]["message"],
        "Widget.example.com \"w\" is invalid: [\
         spec.type: Unsupported value: \"Huge\": supported values: \"Small\", \"Large\", \"\", \
         <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]",
        "an enum error keeps CEL rules from running, as in the apiserver"
    );
}

/// The denial carries the apiserver's 422 details: a cause per issue with its error type, so a
/// bad format reads `FieldValueTypeInvalid` (and, being a type error, keeps CEL from running).
#[tokio::test]
async fn a_denial_carries_a_cause_per_issue() {
    let object = widget(json!({"type": "Small", "source": {"git": "not a uri"}}));
    let answer = post(&review("CREATE", object, None)).await;
    let status = &answer["response"]["status"];
    assert_eq!((status["code"].clone(), status["reason"].clone()), (json!(422), json!("Invalid")), "{answer}");
    assert_eq!(status["details"]["kind"], "Widget");
    assert_eq!(
        status["details"]["causes"],
        json!([
            {"reason": "FieldValueTypeInvalid", "field": "spec.source.git",
             "message": "Invalid value: \"not a uri\": spec.source.git in body must be of type uri: \"not a uri\""},
            {"reason": "FieldValueInvalid", "field": "<nil>",
             "message": "Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"}
        ])
    );
}

#[tokio::test]
async fn an_update_ratchets_and_runs_transition_rules() {
    // Stored before the schema capped replicas: unchanged, the old error is not held against it.
    let old = widget(json!({"type": "Small", "replicas": 12}));
    let new = widget(json!({"type": "Large", "replicas": 12}));
    let answer = post(&review("UPDATE", new, Some(old.clone()))).await;
    assert_eq!(answer["response"]["allowed"], true, "{answer}");
    let broken = widget(json!({"type": "Large", "replicas": 12, "minReplicas": 20}));
    let answer = post(&review("UPDATE", broken, Some(old))).await;
    assert_eq!(
        answer["response"]["status"]["message"],
        "Widget.example.com \"w\" is invalid: spec: Invalid value: minReplicas must not exceed replicas"
    );
}

/// An update of a 1.2 MiB object (object and old object in one review, 2.4 MiB) is validated,
/// not refused at the door: under `failurePolicy: Ignore` a 413 would let it through
/// unvalidated. The unknown field is a warning in the response, as the apiserver shows it.
#[tokio::test]
async fn a_large_update_is_validated_and_unknown_fields_are_warnings() {
    let blob = "x".repeat(1_200 * 1024);
    let object = widget(json!({"type": "Small", "replicas": 3, "blob": blob}));
    let answer = post(&review("UPDATE", object.clone(), Some(object))).await;
    assert_eq!(answer["response"]["allowed"], true, "{}", &answer.to_string()[..300]);
    assert_eq!(answer["response"]["warnings"], json!(["unknown field \"spec.blob\""]));
}

/// An object with 100,000 unknown fields gets about 4 KB of warnings, as the apiserver would
/// pass on, and a note of how many were left out (issue 49: it got every one, 3 MB).
#[tokio::test]
async fn warnings_are_capped_as_the_apiserver_caps_them() {
    let mut spec = serde_json::Map::new();
    spec.insert("type".into(), json!("Small"));
    spec.insert("replicas".into(), json!(3));
    for i in 0..100_000 {
        spec.insert(format!("f{i}"), json!(1));
    }
    let answer = post(&review("CREATE", widget(Value::Object(spec)), None)).await;
    assert_eq!(answer["response"]["allowed"], true);
    let warnings = answer["response"]["warnings"].as_array().unwrap();
    let size: usize = warnings.iter().map(|w| w.as_str().unwrap().len()).sum();
    assert!(size < 5 * 1024, "{size} bytes of warnings");
    let last = warnings.last().unwrap().as_str().unwrap();
    assert!(last.contains("more warnings left out"), "{last}");
}

/// Past [`MAX_REVIEW_BYTES`] the answer is a 413 that says why.
#[tokio::test]
async fn a_body_past_the_limit_is_a_413_that_says_why() {
    let limit = kubeskema_example_webhook::MAX_REVIEW_BYTES;
    assert!(limit >= 7 * 1024 * 1024, "two 3 MiB objects and the envelope");
    let blob = "x".repeat(limit);
    let body = review("CREATE", widget(json!({"type": "Small", "blob": blob})), None).to_string();
    let (status, text) = exchange(kubeskema_example_webhook::app(), &body).await;
    assert!(status.starts_with("HTTP/1.1 413"), "{status}");
    assert!(text.contains(&format!("larger than this webhook takes ({limit} bytes)")), "{text}");
}

/// Another kind (or version) than the one served is denied with a reason, not validated as a
/// Widget; a body that is not an `admission.k8s.io/v1` review with a request is a 400.
#[tokio::test]
async fn other_kinds_and_malformed_reviews_are_refused_clearly() {
    let mut other =
        review("CREATE", json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}), None);
    other["request"]["kind"] = json!({"group": "apps", "version": "v1", "kind": "Deployment"});
    let answer = post(&other).await;
    assert_eq!(answer["response"]["allowed"], false);
    let message = answer["response"]["status"]["message"].as_str().unwrap();
    assert!(message.contains("validates example.com/v1 Widget, not apps/v1 Deployment"), "{message}");
    let mut v2 = review("CREATE", widget(json!({"type": "Small"})), None);
    v2["request"]["kind"]["version"] = json!("v2");
    assert_eq!(post(&v2).await["response"]["allowed"], false, "another version");

    let app = kubeskema_example_webhook::app;
    let no_request = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}).to_string();
    let (status, text) = exchange(app(), &no_request).await;
    assert!(status.starts_with("HTTP/1.1 400") && text.contains("no request"), "{status}: {text}");
    let mut unknown = review("CREATE", widget(json!({"type": "Small"})), None);
    unknown["apiVersion"] = json!("admission.k8s.io/v2");
    let (status, text) = exchange(app(), &unknown.to_string()).await;
    assert!(
        status.starts_with("HTTP/1.1 400") && text.contains("admission.k8s.io/v1 AdmissionReview"),
        "{status}: {text}"
    );
    let (status, _) = exchange(app(), "{not json").await;
    assert!(status.starts_with("HTTP/1.1 400"), "{status}");
}

/// On update, a rule the old object failed too, at an unchanged place, passes as a warning
/// (the apiserver's ratcheting), and the warning is in the response.
#[tokio::test]
async fn ratcheted_rules_are_warnings() {
    let old = widget(json!({"type": "Small", "replicas": 5, "minReplicas": 9}));
    let mut new = old.clone();
    new["metadata"]["labels"] = json!({"team": "a"});
    let answer = post(&review("UPDATE", new, Some(old))).await;
    assert_eq!(answer["response"]["allowed"], true, "{answer}");
    let warnings = answer["response"]["warnings"].as_array().cloned().unwrap_or_default();
    assert!(
        warnings.iter().any(|w| w.as_str().unwrap_or_default().contains("minReplicas must not exceed replicas")),
        "{answer}"
    );
}

/// The webhook for CRDs read when it starts (`CRDS`), given the Widget CRD, answers every
/// review as the webhook with the Widget types compiled in: verdict, status, causes and
/// warnings.
#[tokio::test]
async fn the_webhook_of_crd_files_answers_as_the_compiled_one() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/crds/widgets.yaml")).unwrap();
    let documents = kubeskema::yaml::parse_documents(&text).unwrap().into_iter().map(|d| d.value).collect();
    let crds = std::sync::Arc::new(kubeskema_example_webhook::crds::Crds::new(documents).unwrap());
    let limits = kubeskema_example_webhook::Limits::default;
    let old = widget(json!({"type": "Small", "replicas": 5, "minReplicas": 9}));
    let mut relabelled = old.clone();
    relabelled["metadata"]["labels"] = json!({"team": "a"});
    let reviews = [
        review("CREATE", widget(json!({"type": "Small", "replicas": 3})), None),
        review(
            "CREATE",
            widget(json!({"type": "Small", "replicas": 11, "maxSurge": "lots",
            "ports": [{"name": "a", "port": 1}, {"name": "a", "port": 2}]})),
            None,
        ),
        review("CREATE", widget(json!({"type": "Huge"})), None),
        review("CREATE", widget(json!({"type": "Small", "source": {"git": "not a uri"}})), None),
        review("CREATE", widget(json!({"type": "Small", "blob": "x"})), None),
        review(
            "UPDATE",
            widget(json!({"type": "Large", "replicas": 12})),
            Some(widget(json!({"type": "Small", "replicas": 12}))),
        ),
        review(
            "UPDATE",
            widget(json!({"type": "Large", "replicas": 12, "minReplicas": 20})),
            Some(widget(json!({"type": "Small", "replicas": 12}))),
        ),
        review("UPDATE", relabelled, Some(old)),
    ];
    for review in reviews {
        let body = review.to_string();
        let (status, compiled) = exchange(kubeskema_example_webhook::app_with(limits()), &body).await;
        assert!(status.starts_with("HTTP/1.1 200"), "{status}: {compiled}");
        let (status, read) = exchange(kubeskema_example_webhook::app_for(limits(), crds.clone()), &body).await;
        assert!(status.starts_with("HTTP/1.1 200"), "{status}: {read}");
        let (compiled, read): (Value, Value) =
            (serde_json::from_str(&compiled).unwrap(), serde_json::from_str(&read).unwrap());
        assert_eq!(read["response"], compiled["response"], "{body}");
    }
    let mut other =
        review("CREATE", json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}), None);
    other["request"]["kind"] = json!({"group": "apps", "version": "v1", "kind": "Deployment"});
    let (_, answer) = exchange(kubeskema_example_webhook::app_for(limits(), crds.clone()), &other.to_string()).await;
    assert!(answer.contains("validates example.com/v1 Widget, not apps/v1 Deployment"), "{answer}");
    assert!(
        kubeskema_example_webhook::crds::Crds::new(vec![json!({"kind": "ConfigMap"})])
            .is_err_and(|e| e.contains("no served version")),
        "a file without CRDs is refused when the webhook starts"
    );
}

/// Slow clients (issue 49, class 4): every way a client can hold the webhook open ends within
/// the timeout, and past the limits a client gets a 503 instead of the webhook's memory.
mod slow_clients {
    use kubeskema_example_webhook::{Limits, serve};
    use std::net::SocketAddr;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    /// Time limits in these tests are short so that they run fast; the waits for what the
    /// webhook must do are generous so that a loaded machine does not fail them.
    const PATIENCE: Duration = Duration::from_secs(20);

    async fn start(limits: Limits) -> SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(serve(listener, limits));
        addr
    }

    fn short(timeout_ms: u64) -> Limits {
        Limits { timeout: Duration::from_millis(timeout_ms), ..Limits::default() }
    }

    /// What the webhook sends before it closes the connection (empty if it sends nothing);
    /// `None` if it keeps the connection open past [`PATIENCE`].
    async fn until_closed(stream: &mut TcpStream) -> Option<String> {
        let mut answer = Vec::new();
        let read = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut answer)).await.ok()?;
        // A reset after the answer is a close too.
        let _ = read;
        Some(String::from_utf8_lossy(&answer).into_owned())
    }

    fn head(content_length: usize) -> String {
        format!(
            "POST /validate HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\nContent-Length: {content_length}\r\n\r\n"
        )
    }

    fn valid_review() -> String {
        super::review("CREATE", super::widget(serde_json::json!({"type": "Small"})), None).to_string()
    }

    /// `body` posted on a new connection, and the answer.
    async fn answered(addr: SocketAddr, body: &str) -> String {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request = head(body.len()).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n") + body;
        stream.write_all(request.as_bytes()).await.unwrap();
        until_closed(&mut stream).await.expect("an answer")
    }

    /// Posts `body` until it is answered 200, within [`PATIENCE`]: what a client that went
    /// away held is given back.
    async fn answered_again(addr: SocketAddr, body: &str, held: &str) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let answer = answered(addr, body).await;
            if answer.starts_with("HTTP/1.1 200") {
                return;
            }
            assert!(tokio::time::Instant::now() < deadline, "{held} not given back: {answer}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    #[tokio::test]
    async fn half_sent_headers_are_closed_after_the_timeout() {
        let addr = start(short(300)).await;
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(b"POST /validate HTTP/1.1\r\nHost: webhook\r\n").await.unwrap();
        assert!(until_closed(&mut stream).await.is_some(), "half-sent headers kept open");
    }

    #[tokio::test]
    async fn an_idle_connection_is_closed_after_the_timeout() {
        let addr = start(short(300)).await;
        let mut stream = TcpStream::connect(addr).await.unwrap();
        assert!(until_closed(&mut stream).await.is_some(), "a connection that sends nothing kept open");
        // Kept alive after an answer, then idle: closed too.
        let body = valid_review();
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all((head(body.len()) + &body).as_bytes()).await.unwrap();
        let answer = until_closed(&mut stream).await.expect("an idle kept-alive connection kept open");
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }

    #[tokio::test]
    async fn a_half_sent_body_is_a_408_after_the_timeout() {
        let addr = start(short(300)).await;
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all((head(1000) + "{\"apiVersion\":").as_bytes()).await.unwrap();
        let answer = until_closed(&mut stream).await.expect("a half-sent body kept open");
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(answer.contains("did not arrive within 0.3 s"), "{answer}");
    }

    /// A client that keeps its connection busy is closed once the connection is older than
    /// `max_connection_age`, after its answer: a slow reader cannot hold it for ever.
    #[tokio::test]
    async fn a_busy_connection_is_closed_past_its_age() {
        let addr = start(Limits { max_connection_age: Duration::from_millis(300), ..short(60_000) }).await;
        let body = valid_review();
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let deadline = tokio::time::Instant::now() + PATIENCE;
        let mut answers = 0;
        loop {
            assert!(tokio::time::Instant::now() < deadline, "a connection kept past its age");
            if stream.write_all((head(body.len()) + &body).as_bytes()).await.is_err() {
                break;
            }
            let mut answer = vec![0; 64 * 1024];
            match stream.read(&mut answer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => assert!(answer[..n].starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&answer[..n])),
            }
            answers += 1;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(answers > 1, "{answers}");
    }

    /// Past `max_connections`, a new connection gets a 503 at once; once the slow ones are
    /// gone, reviews are answered again.
    #[tokio::test]
    async fn connections_past_the_limit_get_a_503() {
        let addr = start(Limits { max_connections: 4, ..short(60_000) }).await;
        let mut slow = Vec::new();
        for _ in 0..4 {
            let mut stream = TcpStream::connect(addr).await.unwrap();
            stream.write_all(b"POST /validate HTTP/1.1\r\n").await.unwrap();
            slow.push(stream);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        let answer = answered(addr, &valid_review()).await;
        assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
        assert!(answer.contains("Retry-After: 1") && answer.contains("4 connections"), "{answer}");
        drop(slow);
        answered_again(addr, &valid_review(), "connections").await;
    }

    /// Bodies being read hold at most `max_buffered` bytes together: past it a 503, and what a
    /// client that goes away held is given back.
    #[tokio::test]
    async fn buffered_bytes_past_the_budget_get_a_503() {
        let limits = Limits { max_body: 1 << 20, max_buffered: 1 << 20, ..short(60_000) };
        let addr = start(limits).await;
        let mut hog = TcpStream::connect(addr).await.unwrap();
        hog.write_all((head(1 << 20) + &" ".repeat(900 << 10)).as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        let body = " ".repeat(200 << 10) + &valid_review();
        let answer = answered(addr, &body).await;
        assert!(answer.starts_with("HTTP/1.1 503"), "{}", &answer[..answer.len().min(300)]);
        assert!(answer.contains("bytes of requests"), "{answer}");
        drop(hog);
        answered_again(addr, &body, "the buffer budget").await;
    }

    /// Two hundred clients that stop half-way through their headers or bodies do not keep a
    /// review from being answered, and are all closed after the timeout.
    #[tokio::test]
    async fn slow_clients_do_not_keep_a_review_from_an_answer() {
        let addr = start(short(1_000)).await;
        let mut slow = Vec::new();
        for i in 0..200 {
            let mut stream = TcpStream::connect(addr).await.unwrap();
            let part = if i % 2 == 0 { "POST /validate HTTP/1.1\r\n".to_owned() } else { head(100_000) + "{" };
            stream.write_all(part.as_bytes()).await.unwrap();
            slow.push(stream);
        }
        assert!(answered(addr, &valid_review()).await.starts_with("HTTP/1.1 200"));
        for mut stream in slow {
            assert!(until_closed(&mut stream).await.is_some(), "a slow client kept open");
        }
    }
}
