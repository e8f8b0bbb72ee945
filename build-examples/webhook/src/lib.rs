//! A validating admission webhook for Widgets: it decodes the `AdmissionReview` the apiserver
//! posts, validates the object with the generated validators (on update against the old
//! object, with ratcheting and transition rules) and answers allowed, or denied with the
//! status the apiserver itself would give: the message (`Widget.example.com "w" is invalid:
//! [...]`) and a cause per problem (its error type, text and field).
//!
//! Useful where the apiserver does not validate for you: objects on their way through other
//! controllers, or a CRD served without its schema's newer rules.

include!(concat!(env!("OUT_DIR"), "/kubeskema.rs"));

use axum::Json;
use axum::Router;
use axum::routing::post;
use example_com::v1::Widget;
use kube_core::DynamicObject;
use kube_core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview, Operation};
use kubeskema::Validate;
use kubeskema::issue::Issue;
use kubeskema::kube::invalid_status;

/// The routes: `POST /validate` takes an `AdmissionReview` and answers with one.
pub fn app() -> Router {
    Router::new().route("/validate", post(review))
}

async fn review(Json(review): Json<AdmissionReview<DynamicObject>>) -> Json<AdmissionReview<DynamicObject>> {
    let request: AdmissionRequest<DynamicObject> = match review.try_into() {
        Ok(r) => r,
        Err(e) => return Json(AdmissionResponse::invalid(e.to_string()).into_review()),
    };
    Json(decide(&request).into_review())
}

/// The verdict on one request.
pub fn decide(request: &AdmissionRequest<DynamicObject>) -> AdmissionResponse {
    let response = AdmissionResponse::from(request);
    let Some(object) = &request.object else { return response };
    let json = serde_json::to_value(object).unwrap_or_default();
    let issues = match (&request.operation, &request.old_object) {
        (Operation::Update, Some(old)) => update_issues(&json, &serde_json::to_value(old).unwrap_or_default()),
        _ => kubeskema::decode::from_value::<Widget>(&json, &Default::default()).issues,
    };
    if issues.is_empty() {
        return response;
    }
    let name = json.pointer("/metadata/name").and_then(|n| n.as_str()).unwrap_or(&request.name);
    // The apiserver's 422 Status: its message and one cause per issue.
    let status = invalid_status(Widget::GROUP, Widget::KIND, name, &issues);
    let mut response = response.deny(&status.message);
    response.result = status;
    response
}

/// On update: ratcheting and transition rules need both objects typed; an object the types
/// cannot hold is reported by the validating read instead.
fn update_issues(new: &serde_json::Value, old: &serde_json::Value) -> Vec<Issue> {
    match (serde_json::from_value::<Widget>(new.clone()), serde_json::from_value::<Widget>(old.clone())) {
        (Ok(new), Ok(old)) => new.validate_update(&old),
        _ => kubeskema::decode::from_value::<Widget>(new, &Default::default()).issues,
    }
}
