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
