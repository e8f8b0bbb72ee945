//! `POST /convert`: the conversion webhook of `apps.example.com` Widgets, `v1beta1` and the hub
//! `v1` (`docs/conversion.md`'s worked example, `fixtures/golden/conversion.yaml`). Codegen wrote
//! the conversions and `Converter`; what it could not know is [`Widgets`], eight methods.
//!
//! A `ConversionReview` (`apiextensions.k8s.io/v1` or `v1beta1`) is answered in its own version,
//! every object converted, each held to the apiserver's acceptance rules before the answer goes
//! out (a failure is `result.status: Failure` with the object named); a body that is not a review
//! request is a 400 with the reason.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::apps_example_com::{v1, v1beta1};
use crate::refuse;

include!("../../../fixtures/conversion/widgets.rs");

/// The answer to a posted body: the `ConversionReview` with the converted objects (or the
/// failure), or a 400 that says what the body is not.
pub fn answer(body: &[u8]) -> Response {
    match kubeskema::conversion::review(body, &v1::widget_conversion::Converter(Widgets)) {
        Ok(review) => Json(review).into_response(),
        Err(bad) => refuse(StatusCode::BAD_REQUEST, bad.0),
    }
}
