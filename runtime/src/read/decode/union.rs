//! The validating read of a data-carrying enum: the value is read whole (a variant is known
//! only from its tag, its key or, untagged, from which variant reads it), then the variant's
//! payload is read from it by its own `Decode`, at the place the payload sits.
//!
//! The derived CRD holds the enum as one merged node (`schema::of_types::union`): its junctors
//! choose a variant and its rules refuse the fields of other variants. Where the value is not
//! one the type holds as written (no variant found, a payload the variant cannot read, a field
//! of another variant the type would drop), the answer for the node is the schema's: the
//! node's JSON checked against the enum's derived schema as the apiserver checks it
//! ([`Answer`]), in place of the read's own words. So the read says what the apiserver says
//! of the derived CRD, and drops nothing silently.

use std::sync::Arc;

use serde::Deserialize as _;
use serde::de::{self, Deserializer};
use serde_json::{Map, Value};

use super::{Cx, unknown_key};
use crate::check::keywords;
use crate::report::issue::{BadValue, ErrorType, Issue};
use crate::report::path::At;
use crate::report::path::Path;
use crate::schema::Schema;
use crate::schema::of_types::union::Tagging;

/// A variant of a derived data-carrying enum: its JSON name, and whether it is a unit variant.
#[doc(hidden)]
pub type VariantName = (&'static str, bool);

/// Reads payload `value` of variant `index` at `at` (the derived enum's match over its variants).
#[doc(hidden)]
pub type ReadVariant<'f, T> =
    &'f mut dyn FnMut(usize, &Value, &mut Cx<'_>, &At<'_>) -> Result<Option<T>, serde_json::Error>;

/// The enum's derived schema (the derive passes `derived_parsed::<Self>`).
#[doc(hidden)]
pub type UnionSchema = fn() -> Arc<Schema>;

/// The schema's answer for one place the type could not hold as written: the value
/// validations of its JSON, and its CEL rules' failures, each for its own pipeline step.
#[derive(Debug)]
pub(crate) struct Answer {
    pub path: Path,
    pub values: Vec<Issue>,
    pub cel: Vec<Issue>,
    /// Whether the type still holds a value there (the variant, without what it drops).
    pub held: bool,
}

impl Answer {
    /// Whether `issue` is about this place or below it.
    pub(crate) fn covers(&self, issue: &Issue) -> bool {
        self.covers_path(&issue.path)
    }

    fn covers_path(&self, path: &Path) -> bool {
        let (at, mine) = (path.pointer(), self.path.pointer());
        at.starts_with(&mine) && (at.len() == mine.len() || at.as_bytes()[mine.len()] == b'/')
    }
}

/// A union being read: where its payload sits, and whether a key of another variant was met
/// there (one the merged node declares, which the variant's type would drop).
pub(crate) struct Frame {
    path: Path,
    schema: UnionSchema,
    /// The adjacent content key the payload sits under, if any.
    content: Option<&'static str>,
    foreign: bool,
}

/// Called for a key no field of the struct being read names: whether it is a field of another
/// variant of the union whose payload this is (it is then no unknown field, but a value the
/// type cannot hold).
pub(crate) fn other_variants_field(cx: &mut Cx<'_>, at: &At<'_>, key: &str) -> bool {
    let Some(frame) = cx.union_frames.last_mut() else { return false };
    if frame.path != at.to_path() {
        return false;
    }
    let schema = (frame.schema)();
    let node = match frame.content {
        Some(content) => schema.properties.get(content),
        None => Some(&*schema),
    };
    let declared = node.is_some_and(|n| n.properties.contains_key(key));
    frame.foreign |= declared;
    declared
}

/// Reads a derived data-carrying enum named `enum_name`, written in `tagging`; `read` reads the
/// payload of the variant found. `Ok(None)`: unusable, an issue (or the schema's answer) says
/// why.
#[doc(hidden)]
#[allow(
    clippy::too_many_arguments,
    reason = "derived code calls it with the enum's statics; a struct would be one more thing the derive writes"
)]
pub fn decode_union<'de, D: Deserializer<'de>, T>(
    d: D,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    enum_name: &'static str,
    tagging: Tagging,
    variants: &'static [VariantName],
    schema: UnionSchema,
    read: ReadVariant<'_, T>,
) -> Result<Option<T>, D::Error> {
    let mut value = Value::deserialize(d)?;
    let mark = cx.issues.len();
    let (payload_at, content) = match tagging {
        Tagging::External => (None, None),
        Tagging::Internal { .. } | Tagging::Untagged => (Some(at.to_path()), None),
        Tagging::Adjacent { content, .. } => (Some(at.to_path().property(content)), Some(content)),
    };
    let framed = payload_at.is_some();
    if let Some(path) = payload_at {
        cx.union_frames.push(Frame { path, schema, content, foreign: false });
    }
    let found = match tagging {
        Tagging::External => external(cx, at, variants, &value, read),
        Tagging::Internal { tag } => internal(cx, at, variants, tag, &mut value, read),
        Tagging::Adjacent { tag, content } => adjacent(cx, at, variants, tag, content, &value, read),
        Tagging::Untagged => untagged(cx, at, enum_name, variants, &value, read),
    };
    let foreign = framed && cx.union_frames.pop().is_some_and(|f| f.foreign);
    let found = found.map_err(de::Error::custom)?;
    cx.stop()?;
    if foreign || cx.issues[mark..].iter().any(|i| i.error_type != ErrorType::Strict) {
        // Strict decoding's findings stand (the apiserver's decoder makes them first); the
        // rest is the schema's to say.
        let mut read_issues = cx.issues.split_off(mark);
        read_issues.retain(|i| i.error_type == ErrorType::Strict);
        cx.issues.append(&mut read_issues);
        let answer = answer(&value, &schema(), at.to_path(), found.is_some());
        cx.answers.retain(|a| !answer.covers_path(&a.path));
        // Plain `Deserialize` stops at the first thing the apiserver refuses.
        if let Some(first) = answer.values.first().or(answer.cel.first()).filter(|_| cx.fail_fast) {
            cx.issues.push(first.clone());
            cx.stop()?;
        }
        cx.answers.push(answer);
    }
    Ok(found)
}

/// The schema's answer for `value` at `path`: what the apiserver's value validation (with its
/// list-type checks) and CEL rules say of it under the enum's derived node.
fn answer(value: &Value, schema: &Schema, path: Path, held: bool) -> Answer {
    let (mut values, list_types) =
        crate::check::openapi::OpenApiValidator::new(schema).validate_with_list_types(value, &path);
    values.extend(list_types);
    #[cfg(feature = "cel")]
    let cel = {
        let mut cx = crate::cel::running::cx::Cx::default();
        crate::cel::running::walk::SchemaRules::of_node(schema).validate_at(value, &path, &mut cx);
        cx.issues
    };
    #[cfg(not(feature = "cel"))]
    let cel = Vec::new();
    Answer { path, values, cel, held }
}

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
    value: &Value,
    read: ReadVariant<'_, T>,
) -> Found<T> {
    match value {
        Value::String(s) => match variants.iter().position(|(n, unit)| n == s && *unit) {
            Some(i) => read(i, &Value::Null, cx, at),
            None => {
                let allowed = names(variants, Some(true));
                if let Some(issue) = keywords::enumeration(&at.to_path(), value, &allowed) {
                    cx.issues.push(issue);
                }
                Ok(None)
            }
        },
        Value::Object(map) => {
            // A key that names no variant is no field of the node: pruned (or reported, or
            // kept) as the apiserver's decoder treats an unknown field.
            for (k, v) in map.iter().filter(|(k, _)| !variants.iter().any(|(n, _)| n == *k)) {
                unknown_key(cx, at, k, v.clone());
            }
            let mut named =
                map.iter().filter_map(|(k, v)| variants.iter().position(|(n, _)| n == k).map(|i| (i, k, v)));
            match (named.next(), named.next()) {
                (Some((i, key, payload)), None) => read(i, payload, cx, &at.key(key)),
                (first, second) => {
                    let found = usize::from(first.is_some()) + usize::from(second.is_some()) + named.count();
                    let detail = format!(
                        "must have exactly one of the keys {} (found {found})",
                        serde_json::to_string(&names(variants, Some(false))).unwrap_or_default(),
                    );
                    cx.issues.push(Issue::new(ErrorType::Invalid, &at.to_path(), "oneOf", BadValue::Omit, detail));
                    Ok(None)
                }
            }
        }
        other => {
            let expected = if variants.iter().any(|(_, u)| *u) { "string,object" } else { "object" };
            type_error(cx, at, other, expected);
            Ok(None)
        }
    }
}

/// The variant a tag names (`None`, with an issue, when it names none).
fn by_tag(
    cx: &mut Cx<'_>,
    at: &At<'_>,
    variants: &[VariantName],
    tag: &'static str,
    map: &Map<String, Value>,
) -> Option<usize> {
    let here = at.property(tag);
    match map.get(tag) {
        None | Some(Value::Null) => {
            cx.issues.push(keywords::required(&at.to_path(), tag));
            None
        }
        Some(Value::String(s)) if variants.iter().any(|(n, _)| n == s) => variants.iter().position(|(n, _)| n == s),
        Some(other) => {
            let allowed = names(variants, None);
            match other {
                Value::String(_) => {
                    if let Some(issue) = keywords::enumeration(&here.to_path(), other, &allowed) {
                        cx.issues.push(issue);
                    }
                }
                _ => type_error(cx, &here, other, "string"),
            }
            None
        }
    }
}

/// `{"tag": "Variant", ...fields}`: the payload is the object without its tag (taken out for
/// the read and put back, so the node stays whole for the schema's answer).
fn internal<T>(
    cx: &mut Cx<'_>,
    at: &At<'_>,
    variants: &[VariantName],
    tag: &'static str,
    value: &mut Value,
    read: ReadVariant<'_, T>,
) -> Found<T> {
    let Value::Object(map) = &*value else {
        type_error(cx, at, value, "object");
        return Ok(None);
    };
    let Some(i) = by_tag(cx, at, variants, tag, map) else {
        unread_keys(cx, at, map, &[tag]);
        return Ok(None);
    };
    if variants[i].1 {
        // A unit variant's object holds only its tag.
        for (k, v) in map.iter().filter(|(k, _)| *k != tag) {
            unknown_key(cx, at, k, v.clone());
        }
        return read(i, &Value::Null, cx, at);
    }
    let Value::Object(map) = value else { return Ok(None) };
    let tag_value = map.remove(tag).unwrap_or(Value::Null);
    let found = read(i, value, cx, at);
    if let Value::Object(map) = value {
        map.insert(tag.to_owned(), tag_value);
    }
    found
}

/// `{"tag": "Variant", "content": payload}`.
#[allow(
    clippy::too_many_arguments,
    reason = "the read's context and the enum's statics, passed on from decode_union as they came"
)]
fn adjacent<T>(
    cx: &mut Cx<'_>,
    at: &At<'_>,
    variants: &[VariantName],
    tag: &'static str,
    content: &'static str,
    value: &Value,
    read: ReadVariant<'_, T>,
) -> Found<T> {
    let Value::Object(map) = value else {
        type_error(cx, at, value, "object");
        return Ok(None);
    };
    unread_keys(cx, at, map, &[tag, content]);
    let Some(i) = by_tag(cx, at, variants, tag, map) else {
        if let Some(Value::Object(payload)) = map.get(content) {
            unread_keys(cx, &at.property(content), payload, &[]);
        }
        return Ok(None);
    };
    match (variants[i].1, map.get(content)) {
        (true, None | Some(Value::Null)) => read(i, &Value::Null, cx, at),
        (true, Some(_)) => {
            // The content of another variant: the node declares it, the unit variant drops it.
            if let Some(frame) = cx.union_frames.last_mut() {
                frame.foreign = true;
            }
            read(i, &Value::Null, cx, at)
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
    value: &Value,
    read: ReadVariant<'_, T>,
) -> Found<T> {
    for (i, (_, unit)) in variants.iter().enumerate() {
        if *unit {
            if value.is_null() {
                return read(i, &Value::Null, cx, at);
            }
            continue;
        }
        if value.is_null() {
            continue;
        }
        // A trial read: a variant fits when it reads the value without an error (unknown keys
        // are dropped, as serde drops them).
        let mut trial = Cx::new(cx.options);
        let fits = matches!(read(i, value, &mut trial, at), Ok(Some(_)))
            && trial.issues.iter().all(|issue| issue.error_type == ErrorType::Strict);
        if fits {
            return read(i, value, cx, at);
        }
    }
    if let Value::Object(map) = value {
        unread_keys(cx, at, map, &[]);
    }
    let detail = format!("data did not match any variant of untagged enum {enum_name}");
    cx.issues.push(Issue::new(ErrorType::Invalid, &at.to_path(), "anyOf", BadValue::Omit, detail));
    Ok(None)
}

/// The keys of an object no variant was read from, but `except`: each is a field of some
/// variant or, where the node declares no such field, an unknown one.
fn unread_keys(cx: &mut Cx<'_>, at: &At<'_>, map: &Map<String, Value>, except: &[&str]) {
    for (k, v) in map.iter().filter(|(k, _)| !except.contains(&k.as_str())) {
        unknown_key(cx, at, k, v.clone());
    }
}

/// Reads a variant's payload (the derived enum's `read` calls this per variant).
#[doc(hidden)]
pub fn payload<T: super::Decode>(value: &Value, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<T>, serde_json::Error> {
    T::decode(value, cx, at)
}
