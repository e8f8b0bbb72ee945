//! A validating admission webhook for Widgets: it decodes the `AdmissionReview` the apiserver
//! posts, validates the object with the generated validators (on update against the old
//! object, with ratcheting and transition rules) and answers allowed, or denied with the
//! status the apiserver itself would give: the message (`Widget.example.com "w" is invalid:
//! [...]`) and a cause per problem (its error type, text and field). Unknown fields and rules
//! that ratcheting lets pass are the response's `warnings`, as the apiserver shows them.
//!
//! As the apiserver calls it: bodies up to [`MAX_REVIEW_BYTES`] (an update carries two objects
//! of up to the apiserver's 3 MiB each), a clear 413 past that; a body that is not an
//! `admission.k8s.io/v1` `AdmissionReview` with a `request` is a 400; a request for another
//! kind or version than the one it serves is denied, not validated as a Widget. On a socket
//! ([`serve`]) it holds every client to [`Limits`]: time, connections and buffered bytes.
//!
//! [`crds::Crds`] is the same webhook for CRDs read when it starts (`CRDS=file`), validated by
//! the dynamic validator instead of compiled types ([`app_for`]).
//!
//! `POST /convert` is the conversion webhook of a multi-version CRD ([`convert`]), held to the
//! same limits; [`serve_tls`] serves both over TLS from certificate files ([`tls`]).
//!
//! Useful where the apiserver does not validate for you: objects on their way through other
//! controllers, or a CRD served without its schema's newer rules.

include!(concat!(env!("OUT_DIR"), "/kubeskema.rs"));

pub mod convert;
pub mod crds;
mod serve;
pub mod tls;

pub use serve::{Limits, app, app_for, app_with, serve, serve_app, serve_tls};

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use example_com::v1::Widget;
use kube_core::DynamicObject;
use kube_core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview, Operation};
use kubeskema::Validate;
use kubeskema::issue::Issue;
use kubeskema::kube::invalid_status;

/// The largest `AdmissionReview` body taken: an update's object and old object at the
/// apiserver's 3 MiB request limit each, and the review's envelope.
pub const MAX_REVIEW_BYTES: usize = 7 * 1024 * 1024;

fn refuse(status: StatusCode, message: String) -> Response {
    (status, message).into_response()
}

/// The answer to a posted body: the `AdmissionReview` with the verdict, or a 400 that says
/// what the body is not.
pub fn answer(body: &[u8]) -> Response {
    answer_with(body, decide)
}

/// The answer to a posted body whose request `decide` judges, or a 400 that says what the body
/// is not: the one reading of a review for the compiled Widgets and for CRD files.
fn answer_with(body: &[u8], decide: impl FnOnce(&AdmissionRequest<DynamicObject>) -> AdmissionResponse) -> Response {
    match review_request(body) {
        Ok(request) => Json(decide(&request).into_review()).into_response(),
        Err(not_a_review) => refuse(StatusCode::BAD_REQUEST, not_a_review),
    }
}

/// The request of a posted `AdmissionReview`, or what the body is not.
fn review_request(body: &[u8]) -> Result<AdmissionRequest<DynamicObject>, String> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| format!("the body is not JSON: {e}"))?;
    let (api_version, kind) = (value["apiVersion"].as_str(), value["kind"].as_str());
    if (api_version, kind) != (Some("admission.k8s.io/v1"), Some("AdmissionReview")) {
        return Err(format!("expected an admission.k8s.io/v1 AdmissionReview, got {api_version:?} {kind:?}"));
    }
    if !value["request"].is_object() {
        return Err("the AdmissionReview has no request".to_owned());
    }
    let review = serde_json::from_value::<AdmissionReview<DynamicObject>>(value)
        .map_err(|e| format!("not an AdmissionReview: {e}"))?;
    review.try_into().map_err(|e| format!("not an AdmissionReview request: {e}"))
}

/// A request for another kind than those served, denied with where to look.
fn not_served(response: AdmissionResponse, served: &str, asked: &kube_core::GroupVersionKind) -> AdmissionResponse {
    response.deny(format!(
        "this webhook validates {served}, not {}/{} {}: check the webhook configuration's rules",
        asked.group, asked.version, asked.kind
    ))
}

/// The denial of an object with `issues`: the apiserver's 422 Status, its message and one
/// cause per issue.
fn invalid(response: AdmissionResponse, group: &str, kind: &str, name: &str, issues: &[Issue]) -> AdmissionResponse {
    let status = invalid_status(group, kind, name, issues);
    let mut response = response.deny(&status.message);
    response.result = status;
    response
}

/// The verdict on one request.
pub fn decide(request: &AdmissionRequest<DynamicObject>) -> AdmissionResponse {
    let response = AdmissionResponse::from(request);
    let asked = (request.kind.group.as_str(), request.kind.version.as_str(), request.kind.kind.as_str());
    if asked != (Widget::GROUP, Widget::VERSION, Widget::KIND) {
        let served = format!("{}/{} {}", Widget::GROUP, Widget::VERSION, Widget::KIND);
        return not_served(response, &served, &request.kind);
    }
    let Some(object) = &request.object else { return response };
    let json = serde_json::to_value(object).unwrap_or_default();
    // Unknown fields are kept aside, to be warned about as the apiserver warns.
    let options =
        kubeskema::decode::Options { unknown_fields: kubeskema::decode::UnknownFields::Preserve, ..Default::default() };
    let read = kubeskema::decode::from_value::<Widget>(&json, &options);
    let mut warnings: Vec<String> =
        read.unknown.iter().map(|(path, _)| kubeskema::decode::strict_issue(path.clone(), "unknown").detail).collect();
    let issues = match (&request.operation, &request.old_object) {
        (Operation::Update, Some(old)) => {
            update_issues(&json, &serde_json::to_value(old).unwrap_or_default(), &mut warnings).unwrap_or(read.issues)
        }
        _ => read.issues,
    };
    let mut response = response;
    if !warnings.is_empty() {
        // As many as the apiserver would pass on, and a note of how many more.
        response.warnings = Some(kubeskema::issue::cap_warnings(warnings));
    }
    if issues.is_empty() {
        return response;
    }
    let name = json.pointer("/metadata/name").and_then(|n| n.as_str()).unwrap_or(&request.name);
    invalid(response, Widget::GROUP, Widget::KIND, name, &issues)
}

/// On update: ratcheting and transition rules need both objects typed (`None` where the types
/// cannot hold one: the validating read reports it instead); the failures ratcheting lets pass
/// are warnings.
fn update_issues(new: &serde_json::Value, old: &serde_json::Value, warnings: &mut Vec<String>) -> Option<Vec<Issue>> {
    let (new, old) =
        (serde_json::from_value::<Widget>(new.clone()).ok()?, serde_json::from_value::<Widget>(old.clone()).ok()?);
    let mut cx = kubeskema::cel::Cx::default();
    new.validate_cel_at(Some(&old), &kubeskema::path::At::ROOT, &mut cx);
    warnings.extend(cx.warnings.iter().map(ToString::to_string));
    Some(new.validate_update(&old))
}
