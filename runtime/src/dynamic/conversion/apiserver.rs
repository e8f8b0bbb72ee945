//! The apiserver's side of a conversion webhook, ported from apiextensions-apiserver
//! (`pkg/apiserver/conversion/webhook_converter.go`, kube-apiserver 1.36) with its messages:
//! which objects it sends ([`objects_to_convert`]), the review it posts ([`review_request`]),
//! what it takes from the answer ([`converted_objects`]) and how it checks and places each
//! converted object ([`convert`], [`check_converted`], [`restore_object_meta`]). A webhook's
//! tests replay answers through [`convert`] to see what the apiserver would do with them.

use serde_json::{Map, Value, json};

use crate::check::objectmeta::validate_labels_and_annotations;
use crate::report::path::Path;

/// `GroupVersionKind.String()` of an object (`group/version, Kind=Kind`; the core group's
/// `/v1, Kind=Kind`), from its `apiVersion` as `schema.ParseGroupVersion` reads it.
pub fn gvk(object: &Value) -> String {
    let (group, version) = group_version(object["apiVersion"].as_str().unwrap_or(""));
    format!("{group}/{version}, Kind={}", object["kind"].as_str().unwrap_or(""))
}

/// `schema.ParseGroupVersion`: `v1` is the core group's; more than one `/` is no version.
pub(super) fn group_version(api_version: &str) -> (&str, &str) {
    match api_version.split_once('/') {
        None => ("", api_version),
        Some((_, rest)) if rest.contains('/') => ("", ""),
        Some((group, version)) => (group, version),
    }
}

/// `GroupVersion.String()`: `group/version`, the version alone in the core group.
fn gv_string(api_version: &str) -> String {
    match group_version(api_version) {
        ("", version) => version.to_owned(),
        (group, version) => format!("{group}/{version}"),
    }
}

/// `getObjectsToConvert`: the items of a list (`…List` with `items`) not already in
/// `desired`, or the object itself unless it is in `desired`.
pub fn objects_to_convert(input: &Value, desired: &str) -> Vec<Value> {
    match input.get("items").and_then(Value::as_array).filter(|_| is_list(input)) {
        Some(items) => items.iter().filter(|i| i["apiVersion"].as_str() != Some(desired)).cloned().collect(),
        None if gv_string(input["apiVersion"].as_str().unwrap_or("")) != desired => vec![input.clone()],
        None => Vec::new(),
    }
}

fn is_list(input: &Value) -> bool {
    input["kind"].as_str().is_some_and(|k| k.ends_with("List")) && input.get("items").is_some()
}

/// `createConversionReviewObjects`: the review posted for `objects`, in the first of the
/// CRD's `conversionReviewVersions` the apiserver knows.
pub fn review_request(
    review_versions: &[&str],
    objects: Vec<Value>,
    desired: &str,
    uid: &str,
) -> Result<Value, String> {
    let version = review_versions
        .iter()
        .find(|v| super::REVIEW_VERSIONS.contains(v))
        .ok_or_else(|| "no supported conversion review versions".to_owned())?;
    Ok(json!({
        "apiVersion": format!("apiextensions.k8s.io/{version}"),
        "kind": "ConversionReview",
        "request": {"uid": uid, "desiredAPIVersion": desired, "objects": objects},
    }))
}

/// `getConvertedObjectsFromResponse`: the converted objects of an answer to a review in
/// `review_version` with `uid`. A `v1` answer must say it is one and carry the uid; a
/// `v1beta1` one never had to.
pub fn converted_objects(review_version: &str, uid: &str, response: &Value) -> Result<Vec<Value>, String> {
    if !response.is_object() {
        return Err(format!("unrecognized response type: {}", type_name(response)));
    }
    if review_version == "v1" {
        let got = gvk(response);
        if got != "apiextensions.k8s.io/v1, Kind=ConversionReview" {
            return Err(format!(
                "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got {got}"
            ));
        }
    }
    let Some(answer) = response.get("response").filter(|r| !r.is_null()) else {
        return Err("no response provided".to_owned());
    };
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    if review_version == "v1" && text(answer, "uid") != uid {
        return Err(format!("expected response.uid={}, got {}", go_quote(uid), go_quote(&text(answer, "uid"))));
    }
    let result = answer.get("result").unwrap_or(&Value::Null);
    let status = text(result, "status");
    if status != "Success" {
        let message = text(result, "message");
        if !message.is_empty() {
            return Err(message);
        }
        return Err(format!("response.result.status was '{status}', not 'Success'"));
    }
    Ok(answer.get("convertedObjects").and_then(Value::as_array).cloned().unwrap_or_default())
}

/// `Convert` after the webhook answered: `input` (an object or a list) in `desired`, built from
/// the answer as the apiserver builds it, or its error.
pub fn convert(
    input: &Value,
    desired: &str,
    review_version: &str,
    uid: &str,
    response: &Value,
) -> Result<Value, String> {
    let from = gvk(input);
    // An object of `apiVersion` and `kind` alone is the nop converter's (the watch cache's
    // smoke test), and nothing to convert is no request.
    let empty =
        input.as_object().is_some_and(|o| o.len() == 2 && o.contains_key("apiVersion") && o.contains_key("kind"));
    let sent = objects_to_convert(input, desired);
    if empty || sent.is_empty() {
        let mut out = input.clone();
        if empty || is_list(input) {
            out["apiVersion"] = json!(desired);
        }
        return Ok(out);
    }
    let converted = converted_objects(review_version, uid, response)
        .map_err(|e| format!("conversion webhook for {from} failed: {e}"))?;
    if converted.len() != sent.len() {
        return Err(format!(
            "conversion webhook for {from} returned {} objects, expected {}",
            converted.len(),
            sent.len()
        ));
    }
    if is_list(input) {
        let mut out = input.clone();
        let mut next = converted.into_iter().enumerate();
        for original in out["items"].as_array_mut().into_iter().flatten() {
            if original["apiVersion"].as_str() == Some(desired) {
                continue;
            }
            let Some((i, mut object)) = next.next() else { break };
            checked(original, &mut object, desired).map_err(|(step, e)| match step {
                Step::Metadata => {
                    format!("conversion webhook for {from} returned invalid metadata in object at index {i}: {e}")
                }
                _ => format!("conversion webhook for {from} returned invalid converted object at index {i}: {e}"),
            })?;
            *original = object;
        }
        out["apiVersion"] = json!(desired);
        return Ok(out);
    }
    let Some(mut object) = converted.into_iter().next() else {
        // Not reached when the counts agree: an object needing no conversion is not sent.
        return Ok(input.clone());
    };
    checked(input, &mut object, desired).map_err(|(step, e)| match step {
        Step::Unreadable => e,
        Step::Identity => format!("conversion webhook for {from} returned invalid object at index 0: {e}"),
        Step::Object => format!("conversion webhook for {from} returned invalid object: {e}"),
        Step::Metadata => format!("conversion webhook for {from} returned invalid metadata: {e}"),
    })?;
    Ok(object)
}

/// Which of the apiserver's checks of a converted object refused it: each caller words it
/// with its own prefix.
enum Step {
    /// `Unstructured.UnmarshalJSON`.
    Unreadable,
    /// Its groupVersion or kind.
    Identity,
    /// `validateConvertedObject`.
    Object,
    /// `restoreObjectMeta`.
    Metadata,
}

/// The apiserver's checks of one converted object, in its order; `converted` gets `original`'s
/// metadata back, with the labels and annotations it answered.
fn checked(original: &Value, converted: &mut Value, desired: &str) -> Result<(), (Step, String)> {
    raw_object(converted).map_err(|e| (Step::Unreadable, e))?;
    let got = gv_string(converted["apiVersion"].as_str().unwrap_or(""));
    if got != desired {
        return Err((Step::Identity, format!("invalid groupVersion (expected {desired}, received {got})")));
    }
    let (expected, got) = (kind(original), kind(converted));
    if expected != got {
        return Err((Step::Identity, format!("invalid kind (expected {expected}, received {got})")));
    }
    validate_converted_object(original, converted).map_err(|e| (Step::Object, e))?;
    restore_object_meta(original, converted).map_err(|e| (Step::Metadata, e))
}

/// The checks [`convert`] makes of one converted object, in its order, without the apiserver's
/// prefixes: what a webhook runs on its own answer (`super::review`). Metadata other than
/// labels and annotations is restored from `original`.
pub fn check_converted(original: &Value, converted: &mut Value, desired: &str) -> Result<(), String> {
    checked(original, converted, desired).map_err(|(step, e)| match step {
        Step::Metadata => format!("invalid metadata: {e}"),
        _ => e,
    })
}

fn kind(object: &Value) -> &str {
    object["kind"].as_str().unwrap_or("")
}

/// What `Unstructured.UnmarshalJSON` refuses of a converted object.
fn raw_object(object: &Value) -> Result<(), String> {
    if !object.is_object() {
        return Err(format!(
            "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            type_name(object)
        ));
    }
    if kind(object).is_empty() {
        return Err(format!("Object 'Kind' is missing in '{object}'"));
    }
    Ok(())
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn go_quote(s: &str) -> String {
    crate::report::issue::go_quote(s)
}

/// `validateConvertedObject`: kind, name, namespace and uid unchanged.
fn validate_converted_object(original: &Value, converted: &Value) -> Result<(), String> {
    let (a, b) = (kind(original), kind(converted));
    if a != b {
        return Err(format!("must have the same kind: {a} != {b}"));
    }
    let meta =
        |o: &Value, key: &str| o.pointer(&format!("/metadata/{key}")).and_then(Value::as_str).unwrap_or("").to_owned();
    for (key, what) in [("name", "name"), ("namespace", "namespace"), ("uid", "UID")] {
        let (a, b) = (meta(original, key), meta(converted, key));
        if a != b {
            return Err(format!("must have the same {what}: {a} != {b}"));
        }
    }
    Ok(())
}

/// `restoreObjectMeta`: `converted` gets `original`'s metadata back, with the labels and
/// annotations it answered (validated where they changed).
pub fn restore_object_meta(original: &Value, converted: &mut Value) -> Result<(), String> {
    let Some(answered) = converted.get("metadata") else {
        return Err("missing metadata in converted object".to_owned());
    };
    let Some(answered) = answered.as_object().cloned() else {
        return Err(format!("invalid metadata of type {} in converted object", go_type(answered)));
    };
    let restored = original.get("metadata").cloned().unwrap_or_else(|| json!({}));
    converted["metadata"] = restored;
    let Some(meta) = converted["metadata"].as_object_mut() else {
        return Err(format!("invalid metadata of type {} in input object", go_type(&converted["metadata"])));
    };
    for field in ["labels", "annotations"] {
        let response = match answered.get(field) {
            None | Some(Value::Null) => {
                meta.remove(field);
                continue;
            }
            Some(Value::Object(m)) => m,
            Some(other) => {
                return Err(format!("invalid metadata.{field} of type {} in converted object", go_type(other)));
            }
        };
        let before = match meta.get(field) {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(other) => {
                return Err(format!("invalid metadata.{field} of type {} in original object", go_type(other)));
            }
        };
        let mut changed = before.len() != response.len();
        let mut strings = Vec::with_capacity(response.len());
        for (k, v) in response {
            let Some(text) = v.as_str() else {
                return Err(format!(
                    "metadata.{field}[{k}] must be a string, but is {} in converted object",
                    go_type(v)
                ));
            };
            changed |= before.get(k) != Some(v);
            strings.push((k.as_str(), text));
        }
        if changed {
            // [quirk] the apiserver names annotations `metadata.annotation` here.
            let (labels, annotations, at) = if field == "labels" {
                (strings.as_slice(), &[][..], Path::root().key("metadata").key("labels"))
            } else {
                (&[][..], strings.as_slice(), Path::root().key("metadata").key("annotation"))
            };
            let issues = validate_labels_and_annotations(labels, annotations, &at, &at);
            match issues.as_slice() {
                [] => {}
                [one] => return Err(one.to_string()),
                many => {
                    return Err(format!("[{}]", many.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")));
                }
            }
        }
        meta.insert(field.to_owned(), Value::Object(response.clone()));
    }
    Ok(())
}

/// Go's `%T` of a decoded JSON value.
fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}
