//! Conversion webhooks: the `ConversionReview` kube-apiserver posts to a CRD's conversion
//! webhook, answered with a [`Converter`] ([`review`]), and the apiserver's own handling of the
//! answer ([`apiserver`]: which objects it sends, what it accepts back and with which messages),
//! ported from apiextensions-apiserver's `webhook_converter.go`.
//!
//! [`review`] checks each converted object as the apiserver will before it answers: a converter
//! that changes the kind, the name or the namespace, returns another version, or writes labels
//! the apiserver refuses, gets a `Failure` naming the object and the rule, not an apiserver
//! log line nobody reads. Metadata other than labels and annotations is restored from the
//! original, as the apiserver restores it.

pub mod apiserver;

use serde_json::{Map, Value, json};

use crate::types::conversion::Converter;

/// The `ConversionReview` versions the apiserver sends (it picks the first of the CRD's
/// `conversionReviewVersions` that it knows).
pub const REVIEW_VERSIONS: [&str; 2] = ["v1", "v1beta1"];

/// A converter of one kind: `convert` is only sent objects of `group` and `kind`.
pub struct ForKind<F> {
    /// The CRD's group.
    pub group: String,
    /// Its kind.
    pub kind: String,
    /// The conversion.
    pub convert: F,
}

/// [`ForKind`]: `convert` as the converter of `group`'s `kind` alone.
pub fn for_kind<F: Fn(Value, &str) -> Result<Value, String>>(group: &str, kind: &str, convert: F) -> ForKind<F> {
    ForKind { group: group.to_owned(), kind: kind.to_owned(), convert }
}

impl<F: Fn(Value, &str) -> Result<Value, String>> Converter for ForKind<F> {
    fn convert(&self, object: Value, desired_api_version: &str) -> Result<Value, String> {
        (self.convert)(object, desired_api_version)
    }

    fn kind(&self) -> Option<(&str, &str)> {
        Some((&self.group, &self.kind))
    }
}

impl<F: Fn(Value, &str) -> Result<Value, String>> Converter for F {
    fn convert(&self, object: Value, desired_api_version: &str) -> Result<Value, String> {
        self(object, desired_api_version)
    }
}

/// A body that is not a `ConversionReview` request: the webhook answers 400 with this text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadReview(pub String);

impl std::fmt::Display for BadReview {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadReview {}

/// The answer to a posted `ConversionReview` (`apiextensions.k8s.io/v1` or `v1beta1`): every
/// object converted to the request's `desiredAPIVersion`, in order, with the request's `uid`;
/// or, when any object fails (the converter's error, or an answer the apiserver would refuse),
/// `result.status: Failure` with a message naming the object. An object already in the desired
/// version is returned as it is.
pub fn review(body: &[u8], converter: &dyn Converter) -> Result<Value, BadReview> {
    let bad = |why: String| BadReview(why);
    let sent: Value = serde_json::from_slice(body).map_err(|e| bad(format!("the body is not JSON: {e}")))?;
    let (api_version, kind) = (sent["apiVersion"].as_str().unwrap_or(""), sent["kind"].as_str().unwrap_or(""));
    let known = REVIEW_VERSIONS.iter().any(|v| api_version == format!("apiextensions.k8s.io/{v}"));
    if !known || kind != "ConversionReview" {
        return Err(bad(format!(
            "expected an apiextensions.k8s.io/v1 (or v1beta1) ConversionReview, got apiVersion {:?} kind {:?}",
            crate::report::issue::printable(api_version),
            crate::report::issue::printable(kind)
        )));
    }
    let request =
        sent.get("request").and_then(Value::as_object).ok_or_else(|| bad("the review has no request".into()))?;
    let text = |key: &str| -> Result<&str, BadReview> {
        request.get(key).and_then(Value::as_str).ok_or_else(|| bad(format!("request.{key} is not a string")))
    };
    let uid = text("uid")?;
    let desired = text("desiredAPIVersion")?;
    let objects: &[Value] = match request.get("objects") {
        None | Some(Value::Null) => &[],
        Some(Value::Array(objects)) => objects,
        Some(_) => return Err(bad("request.objects is not a list".into())),
    };
    let mut converted = Vec::with_capacity(objects.len());
    for (i, object) in objects.iter().enumerate() {
        match convert_one(object, desired, converter) {
            Ok(out) => converted.push(out),
            Err(why) => {
                let name =
                    |key: &str| object.pointer(&format!("/metadata/{key}")).and_then(Value::as_str).unwrap_or("");
                let who = match (object["kind"].as_str().unwrap_or("object"), name("namespace"), name("name")) {
                    (kind, "", name) => format!("{kind} {name:?}"),
                    (kind, namespace, name) => format!("{kind} {namespace}/{name}"),
                };
                let message = format!(
                    "converting object {i} ({}) to {}: {why}",
                    crate::report::issue::printable(&who),
                    crate::report::issue::printable(desired)
                );
                return Ok(answer(api_version, uid, Err(message)));
            }
        }
    }
    Ok(answer(api_version, uid, Ok(converted)))
}

/// One object through the converter, then through the apiserver's checks of what comes back.
fn convert_one(object: &Value, desired: &str, converter: &dyn Converter) -> Result<Value, String> {
    if !object.is_object() {
        return Err("not an object".to_owned());
    }
    if let Some((group, kind)) = converter.kind() {
        let group_of = |api_version: &str| apiserver::group_version(api_version).0.to_owned();
        let (sent_group, sent_kind) =
            (group_of(object["apiVersion"].as_str().unwrap_or("")), object["kind"].as_str().unwrap_or(""));
        if (sent_group.as_str(), sent_kind) != (group, kind) || group_of(desired) != group {
            return Err(format!(
                "this webhook converts {group} {kind}, not {} {} to {}: check the CRD's spec.conversion",
                crate::report::issue::printable(&sent_group),
                crate::report::issue::printable(sent_kind),
                crate::report::issue::printable(desired)
            ));
        }
    }
    if object["apiVersion"].as_str() == Some(desired) {
        return Ok(object.clone());
    }
    let mut converted = converter.convert(object.clone(), desired)?;
    apiserver::check_converted(object, &mut converted, desired)?;
    Ok(converted)
}

/// The response `ConversionReview`.
fn answer(api_version: &str, uid: &str, converted: Result<Vec<Value>, String>) -> Value {
    let mut response = Map::new();
    response.insert("uid".into(), json!(uid));
    match converted {
        Ok(objects) => {
            response.insert("convertedObjects".into(), Value::Array(objects));
            response.insert("result".into(), json!({"status": "Success"}));
        }
        Err(message) => {
            response.insert("convertedObjects".into(), json!([]));
            response.insert("result".into(), json!({"status": "Failure", "message": message}));
        }
    }
    json!({"apiVersion": api_version, "kind": "ConversionReview", "response": response})
}

#[cfg(test)]
mod tests;
