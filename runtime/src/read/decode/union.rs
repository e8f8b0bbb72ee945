//! The validating read of a data-carrying enum: the value is read whole (a variant is known
//! only from its tag, its key or, untagged, from which variant reads it), then the variant's
//! payload is read from it by its own `Decode`, at the place the payload sits.

use serde::de::{self, Deserializer};
use serde_json::{Map, Value};

use super::{At, Cx, unknown_key};
use crate::issue::{BadValue, ErrorType, Issue};
use crate::keywords;
use crate::schema::of_types::Tagging;

/// A variant of a derived data-carrying enum: its JSON name, and whether it is a unit variant.
#[doc(hidden)]
pub type VariantName = (&'static str, bool);

/// Reads payload `value` of variant `index` at `at` (the derived enum's match over its variants).
#[doc(hidden)]
pub type ReadVariant<'f, T> =
    &'f mut dyn FnMut(usize, Value, &mut Cx<'_>, &At<'_>) -> Result<Option<T>, serde_json::Error>;

/// Reads a derived data-carrying enum named `enum_name`, written in `tagging`; `read` reads the
/// payload of the variant found. `Ok(None)`: unusable, an issue says why.
#[doc(hidden)]
pub fn decode_union<'de, D: Deserializer<'de>, T>(
    d: D,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    enum_name: &'static str,
    tagging: Tagging,
    variants: &'static [VariantName],
    read: ReadVariant<'_, T>,
) -> Result<Option<T>, D::Error> {
    let value = Value::deserialize(d)?;
    let found = match tagging {
        Tagging::External => external(cx, at, variants, value, read),
        Tagging::Internal { tag } => internal(cx, at, variants, tag, value, read),
        Tagging::Adjacent { tag, content } => adjacent(cx, at, variants, tag, content, value, read),
        Tagging::Untagged => untagged(cx, at, enum_name, variants, value, read),
    };
    let found = found.map_err(de::Error::custom)?;
    cx.stop()?;
    Ok(found)
}

use serde::Deserialize as _;

type Found<T> = Result<Option<T>, serde_json::Error>;

fn names(variants: &[VariantName], unit: Option<bool>) -> Vec<Value> {
    variants.iter().filter(|(_, u)| unit.is_none_or(|want| *u == want)).map(|(n, _)| Value::from(*n)).collect()
}

fn type_error(cx: &mut Cx<'_>, at: &At<'_>, value: &Value, expected: &str) {
    cx.type_mismatch(at, keywords::json_type(value), expected);
}

/// `"Unit"` or `{"Variant": payload}`.
fn external<T>(
    cx: &mut Cx<'_>,
    at: &At<'_>,
    variants: &[VariantName],
    value: Value,
    read: ReadVariant<'_, T>,
) -> Found<T> {
    match value {
        Value::String(s) => match variants.iter().position(|(n, unit)| *n == s && *unit) {
            Some(i) => read(i, Value::Null, cx, at),
            None => {
                let allowed = names(variants, Some(true));
                if let Some(issue) = keywords::enumeration(&at.to_path(), &Value::String(s), &allowed) {
                    cx.issues.push(issue);
                }
                Ok(None)
            }
        },
        Value::Object(map) if map.len() == 1 => {
            let Some((key, payload)) = map.into_iter().next() else { return Ok(None) };
            match variants.iter().position(|(n, _)| *n == key) {
                Some(i) => {
                    let here = at.key(&key);
                    read(i, payload, cx, &here)
                }
                None => {
                    let detail = format!(
                        "unknown variant {key:?}: expected one of {}",
                        serde_json::to_string(&names(variants, Some(false))).unwrap_or_default()
                    );
                    cx.issues.push(Issue::new(ErrorType::Invalid, &at.to_path(), "oneOf", BadValue::Omit, detail));
                    Ok(None)
                }
            }
        }
        Value::Object(map) => {
            let detail = format!(
                "must have exactly one of the keys {} (found {})",
                serde_json::to_string(&names(variants, Some(false))).unwrap_or_default(),
                map.len()
            );
            cx.issues.push(Issue::new(ErrorType::Invalid, &at.to_path(), "oneOf", BadValue::Omit, detail));
            Ok(None)
        }
        other => {
            let expected = if variants.iter().any(|(_, u)| *u) { "string,object" } else { "object" };
            type_error(cx, at, &other, expected);
            Ok(None)
        }
    }
}

/// The variant a tag names (`Ok(None)` with an issue when it names none).
fn by_tag(
    cx: &mut Cx<'_>,
    at: &At<'_>,
    variants: &[VariantName],
    tag: &'static str,
    map: &mut Map<String, Value>,
) -> Option<usize> {
    let here = at.property(tag);
    match map.remove(tag) {
        None | Some(Value::Null) => {
            cx.issues.push(keywords::required(&at.to_path(), tag));
            None
        }
        Some(Value::String(s)) if variants.iter().any(|(n, _)| *n == s) => variants.iter().position(|(n, _)| *n == s),
        Some(other) => {
            let allowed = names(variants, None);
            match &other {
                Value::String(_) => {
                    if let Some(issue) = keywords::enumeration(&here.to_path(), &other, &allowed) {
                        cx.issues.push(issue);
                    }
                }
                _ => type_error(cx, &here, &other, "string"),
            }
            None
        }
    }
}

/// A tagged enum's object: the variant its tag names and the object's other keys (`None`, with
/// an issue, when it is not an object or its tag names no variant).
fn tagged_object(
    cx: &mut Cx<'_>,
    at: &At<'_>,
    variants: &[VariantName],
    tag: &'static str,
    value: Value,
) -> Option<(usize, Map<String, Value>)> {
    let Value::Object(mut map) = value else {
        type_error(cx, at, &value, "object");
        return None;
    };
    let i = by_tag(cx, at, variants, tag, &mut map)?;
    Some((i, map))
}

/// `{"tag": "Variant", ...fields}`.
fn internal<T>(
    cx: &mut Cx<'_>,
    at: &At<'_>,
    variants: &[VariantName],
    tag: &'static str,
    value: Value,
    read: ReadVariant<'_, T>,
) -> Found<T> {
    let Some((i, map)) = tagged_object(cx, at, variants, tag, value) else { return Ok(None) };
    if variants[i].1 {
        // A unit variant's object holds only its tag.
        for (k, v) in map {
            unknown_key(cx, at, &k, v);
        }
        return read(i, Value::Null, cx, at);
    }
    read(i, Value::Object(map), cx, at)
}

/// `{"tag": "Variant", "content": payload}`.
#[allow(clippy::too_many_arguments)]
fn adjacent<T>(
    cx: &mut Cx<'_>,
    at: &At<'_>,
    variants: &[VariantName],
    tag: &'static str,
    content: &'static str,
    value: Value,
    read: ReadVariant<'_, T>,
) -> Found<T> {
    let Some((i, mut map)) = tagged_object(cx, at, variants, tag, value) else { return Ok(None) };
    let payload = map.remove(content);
    for (k, v) in map {
        unknown_key(cx, at, &k, v);
    }
    match (variants[i].1, payload) {
        (true, None | Some(Value::Null)) => read(i, Value::Null, cx, at),
        (true, Some(other)) => {
            unknown_key(cx, at, content, other);
            read(i, Value::Null, cx, at)
        }
        (false, None | Some(Value::Null)) => {
            cx.issues.push(keywords::required(&at.to_path(), content));
            Ok(None)
        }
        (false, Some(payload)) => read(i, payload, cx, &at.property(content)),
    }
}

/// The payload of the first variant that reads it without an error, as serde tries them.
fn untagged<T>(
    cx: &mut Cx<'_>,
    at: &At<'_>,
    enum_name: &str,
    variants: &[VariantName],
    value: Value,
    read: ReadVariant<'_, T>,
) -> Found<T> {
    for (i, (_, unit)) in variants.iter().enumerate() {
        if *unit {
            if value.is_null() {
                return read(i, Value::Null, cx, at);
            }
            continue;
        }
        if value.is_null() {
            continue;
        }
        // A trial read: a variant fits when it reads the value without an error (unknown keys
        // are dropped, as serde drops them).
        let mut trial = Cx::new(cx.options);
        let fits = matches!(read(i, value.clone(), &mut trial, at), Ok(Some(_)))
            && trial.issues.iter().all(|issue| issue.error_type == ErrorType::Strict);
        if fits {
            return read(i, value, cx, at);
        }
    }
    let detail = format!("data did not match any variant of untagged enum {enum_name}");
    cx.issues.push(Issue::new(ErrorType::Invalid, &at.to_path(), "anyOf", BadValue::Omit, detail));
    Ok(None)
}

/// Reads a variant's payload (the derived enum's `read` calls this per variant).
#[doc(hidden)]
pub fn payload<T: super::Decode>(value: Value, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<T>, serde_json::Error> {
    T::decode(value, cx, at)
}
