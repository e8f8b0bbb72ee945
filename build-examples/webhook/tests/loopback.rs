//! The webhook over a real socket: an AdmissionReview posted as the apiserver posts it, the
//! answer read back.

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn post(body: &Value) -> Value {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, kubeskema_example_webhook::app()).await });
    let body = body.to_string();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST /validate HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP response");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
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
