//! Values as CEL rules see them (semantics §9.4): [`ToCel`] for typed values, [`from_json`]
//! for JSON (with its schema, for the dynamic validator), [`with_format`] for the string
//! formats CEL reads as timestamps, durations and bytes, and [`escape`] for property names.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use cel::Value;
use cel::objects::{Key, Map};

use crate::schema::cel_name::{escape, is_own_cel_name, reserved};
use crate::types::empty_object::EmptyObject;
use crate::types::int_or_string::IntOrString;
use crate::types::meta::ObjectMeta;

/// A value as CEL sees it when it is `self` of a rule (or inside one).
pub trait ToCel {
    /// The CEL value (its type is the schema's: rules are checked against the declaration of
    /// their node, [`crate::cel::types::derived_declaration`]).
    fn to_cel(&self) -> Value;
}

macro_rules! scalar {
    ($($t:ty => |$v:ident| $e:expr;)*) => {$(
        impl ToCel for $t {
            fn to_cel(&self) -> Value {
                let $v = self;
                $e
            }
        }
    )*};
}

scalar! {
    String => |s| Value::String(Arc::new(s.clone()));
    bool => |b| Value::Bool(*b);
    i64 => |i| Value::Int(*i);
    i32 => |i| Value::Int(i64::from(*i));
    f64 => |f| Value::Float(*f);
    f32 => |f| Value::Float(f64::from(*f));
    i8 => |i| Value::Int(i64::from(*i));
    i16 => |i| Value::Int(i64::from(*i));
    u8 => |i| Value::Int(i64::from(*i));
    u16 => |i| Value::Int(i64::from(*i));
    u32 => |i| Value::Int(i64::from(*i));
    // Beyond int64 only when invalid (the derive asks these for a maximum within it).
    u64 => |i| i64::try_from(*i).map_or(Value::Float(*i as f64), Value::Int);
    usize => |i| i64::try_from(*i).map_or(Value::Float(*i as f64), Value::Int);
    IntOrString => |v| match v {
        IntOrString::Int(i) => Value::Int(*i),
        IntOrString::String(s) => Value::String(Arc::new(s.clone())),
    };
    serde_json::Value => |v| from_json(v);
    EmptyObject => |_e| object(Vec::new());
}

impl ToCel for serde_json::Map<String, serde_json::Value> {
    fn to_cel(&self) -> Value {
        object(self.iter().map(|(k, v)| (k.clone(), from_json(v))).collect())
    }
}

/// Only `name` and `generateName` of the root metadata are visible to rules (§9.4).
impl ToCel for ObjectMeta {
    fn to_cel(&self) -> Value {
        let mut fields = Vec::new();
        if let Some(n) = &self.name {
            fields.push(("name".to_owned(), Value::from(n.clone())));
        }
        if let Some(g) = &self.generate_name {
            fields.push(("generateName".to_owned(), Value::from(g.clone())));
        }
        object(fields)
    }
}

impl<T: ToCel> ToCel for Option<T> {
    fn to_cel(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToCel::to_cel)
    }
}

impl<T: ToCel> ToCel for Box<T> {
    fn to_cel(&self) -> Value {
        (**self).to_cel()
    }
}

impl<T: ToCel> ToCel for Vec<T> {
    // Loops, not iterator adapters, here and below: instantiated for every item type of a
    // generated crate, each adapter is a function per type in a debug build.
    fn to_cel(&self) -> Value {
        list_of(self.len(), self)
    }
}

/// Map keys are never escaped.
impl<T: ToCel> ToCel for BTreeMap<String, T> {
    fn to_cel(&self) -> Value {
        string_map(self.len(), self.iter())
    }
}

/// Map keys are never escaped; a `HashMap` is a map as a `BTreeMap` is.
impl<T: ToCel, S> ToCel for HashMap<String, T, S> {
    fn to_cel(&self) -> Value {
        string_map(self.len(), self.iter())
    }
}

fn list_of<'t, T: ToCel + 't>(len: usize, items: impl IntoIterator<Item = &'t T>) -> Value {
    let mut list = Vec::with_capacity(len);
    for item in items {
        list.push(item.to_cel());
    }
    Value::List(Arc::new(list))
}

fn string_map<'t, T: ToCel + 't>(len: usize, entries: impl Iterator<Item = (&'t String, &'t T)>) -> Value {
    let mut map = HashMap::with_capacity(len);
    for (k, v) in entries {
        map.insert(Key::String(Arc::new(k.clone())), v.to_cel());
    }
    Value::Map(Map { map: Arc::new(map) })
}

/// What serde writes for a `std::time::Duration`, as its schema declares it: `secs`, `nanos`.
impl ToCel for std::time::Duration {
    fn to_cel(&self) -> Value {
        let secs = i64::try_from(self.as_secs()).map_or(Value::UInt(self.as_secs()), Value::Int);
        object(vec![("secs".to_owned(), secs), ("nanos".to_owned(), Value::Int(self.subsec_nanos().into()))])
    }
}

/// A set is a list (`x-kubernetes-list-type: set`), in the set's order.
macro_rules! sets_to_cel {
    ($($set:ident $(<$h:ident>)?),*) => {$(
        impl<T: ToCel $(, $h)?> ToCel for std::collections::$set<T $(, $h)?> {
            fn to_cel(&self) -> Value {
                list_of(self.len(), self)
            }
        }
    )*};
}
sets_to_cel!(BTreeSet, HashSet<S>);

/// How a property is keyed among its object's CEL fields: under its escaped name, or as
/// written where that is its escaped name or it cannot be escaped (`escaped` is `None`); a
/// reserved word the 1.31 environment also accepts unescaped under the name as written too
/// (`also_as_written`). The one statement of it, for [`object`] and the dynamic validator's
/// views (`json_view`).
pub(crate) struct FieldKey {
    pub(crate) escaped: Option<String>,
    pub(crate) also_as_written: bool,
}

pub(crate) fn field_key(name: &str) -> FieldKey {
    // Its own CEL name (most names; no escaping asked).
    let bytes = name.as_bytes();
    if is_own_cel_name(bytes) {
        return FieldKey { escaped: None, also_as_written: false };
    }
    match escape(name) {
        Some(escaped) if escaped != name => FieldKey {
            also_as_written: reserved(bytes) && !["true", "false", "null", "in"].contains(&name),
            escaped: Some(escaped),
        },
        _ => FieldKey { escaped: None, also_as_written: false },
    }
}

/// An object with its properties, each under its escaped name (and, for the reserved words
/// the 1.31 environment also accepts unescaped, under the plain name too). A
/// name that cannot be escaped is kept as written: no rule can select it, but the object's
/// size, its keys and its equality count it, as the apiserver's do.
pub fn object(fields: Vec<(String, Value)>) -> Value {
    let mut map = HashMap::with_capacity(fields.len());
    for (name, v) in fields {
        let FieldKey { escaped, also_as_written } = field_key(&name);
        let Some(escaped) = escaped else {
            map.insert(Key::String(Arc::new(name)), v);
            continue;
        };
        if also_as_written {
            map.insert(Key::String(Arc::new(name)), v.clone());
        }
        map.insert(Key::String(Arc::new(escaped)), v);
    }
    Value::Map(Map { map: Arc::new(map) })
}

/// An object from its fields, for derived code: `(json name, value)`, absent ones left out.
pub fn struct_value<const N: usize>(mut fields: [(&str, Option<Value>); N], unknown: Option<Value>) -> Value {
    fields_value(&mut fields, unknown)
}

/// [`struct_value`]'s work, not generic over the number of fields.
fn fields_value(fields: &mut [(&str, Option<Value>)], unknown: Option<Value>) -> Value {
    let mut all: Vec<(String, Value)> = Vec::with_capacity(fields.len());
    for (name, v) in fields {
        if let Some(v) = v.take() {
            all.push(((*name).to_owned(), v));
        }
    }
    if let Some(Value::Map(m)) = unknown {
        for (k, v) in m.map.iter() {
            if let Key::String(k) = k {
                all.push((k.to_string(), v.clone()));
            }
        }
    }
    object(all)
}

/// JSON as CEL sees untyped data: integers as `int` (unsigned beyond `int64` as `uint`),
/// other numbers as `double`, objects as maps with their keys as written.
pub fn from_json(v: &serde_json::Value) -> Value {
    use serde_json::Value as J;
    match v {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(u)) => Value::UInt(u),
            _ => Value::Float(n.as_f64().unwrap_or_default()),
        },
        J::String(s) => Value::String(Arc::new(s.clone())),
        J::Array(items) => Value::List(Arc::new(items.iter().map(from_json).collect())),
        J::Object(map) => {
            let map: HashMap<Key, Value> =
                map.iter().map(|(k, v)| (Key::String(Arc::new(k.clone())), from_json(v))).collect();
            Value::Map(Map { map: Arc::new(map) })
        }
    }
}

/// A string of a node with `format` as CEL reads it: `date-time` and `date` as timestamps,
/// `duration` as a duration, `byte` as the decoded bytes. A string the format does not read
/// stays a string (the format check has reported it).
pub fn with_format(v: Value, format: &str) -> Value {
    let Value::String(s) = &v else { return v };
    let converted = match format_read(format) {
        Some(FormatRead::DateTime) => parse_date_time(s).map(Value::Timestamp),
        Some(FormatRead::Date) => chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|d| Value::Timestamp(d.and_utc().fixed_offset())),
        Some(FormatRead::Duration) => {
            crate::go::duration::parse_strfmt(s).map(|ns| Value::Duration(chrono::Duration::nanoseconds(ns)))
        }
        Some(FormatRead::Byte) => {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD.decode(s.as_bytes()).ok().map(|b| Value::Bytes(Arc::new(b)))
        }
        None => None,
    };
    converted.unwrap_or(v)
}

/// A string format CEL reads as another type than a string ([`with_format`]).
#[derive(Clone, Copy)]
pub(crate) enum FormatRead {
    DateTime,
    Date,
    Duration,
    Byte,
}

/// What CEL reads a string of `format` as: `None` for a string.
pub(crate) fn format_read(format: &str) -> Option<FormatRead> {
    Some(match format {
        "date-time" => FormatRead::DateTime,
        "date" => FormatRead::Date,
        "duration" => FormatRead::Duration,
        "byte" => FormatRead::Byte,
        _ => return None,
    })
}

/// [`with_format`] for each element of a list (or each value of a map).
pub fn with_format_each(v: Value, format: &str) -> Value {
    match v {
        Value::List(items) => Value::List(Arc::new(items.iter().map(|i| with_format(i.clone(), format)).collect())),
        Value::Map(m) => Value::Map(Map {
            map: Arc::new(m.map.iter().map(|(k, v)| (k.clone(), with_format(v.clone(), format))).collect()),
        }),
        other => other,
    }
}

/// RFC 3339 with any fraction, or a local ISO 8601 time without a zone (read as UTC).
fn parse_date_time(s: &str) -> Option<chrono::DateTime<chrono::FixedOffset>> {
    chrono::DateTime::parse_from_rfc3339(s).ok().or_else(|| {
        chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f").ok().map(|d| d.and_utc().fixed_offset())
    })
}

/// CEL equality as the apiserver's ratcheting and `indexOf` use it: numbers by value across
/// int, uint and double; lists in order; maps by key.
pub fn deep_equal(a: &Value, b: &Value) -> bool {
    let num = |v: &Value| match v {
        Value::Int(i) => Some(*i as f64),
        Value::UInt(u) => Some(*u as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    };
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::List(x), Value::List(y)) => x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| deep_equal(p, q)),
        (Value::Map(x), Value::Map(y)) => {
            x.map.len() == y.map.len() && x.map.iter().all(|(k, v)| y.map.get(k).is_some_and(|w| deep_equal(v, w)))
        }
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        },
    }
}

/// The node of a schema, for [`from_json_with`]: the dynamic validator's typing of `self`.
pub fn from_json_with(v: &serde_json::Value, schema: &crate::schema::Schema, root: bool) -> Value {
    use serde_json::Value as J;
    match v {
        J::Object(map) if !schema.properties.is_empty() || schema.additional_properties_schema().is_none() => {
            let fields = map
                .iter()
                .filter_map(|(k, v)| {
                    if v.is_null() {
                        return None; // a null property is absent to rules
                    }
                    let value = match schema.properties.get(k) {
                        Some(_) if root && k == "metadata" => metadata(v),
                        Some(p) => from_json_with(v, p, false),
                        None => from_json(v),
                    };
                    Some((k.clone(), value))
                })
                .collect();
            object(fields)
        }
        J::Object(map) => {
            let values = schema.additional_properties_schema();
            let map: HashMap<Key, Value> = map
                .iter()
                .map(|(k, v)| {
                    (
                        Key::String(Arc::new(k.clone())),
                        values.map_or_else(|| from_json(v), |s| from_json_with(v, s, false)),
                    )
                })
                .collect();
            Value::Map(Map { map: Arc::new(map) })
        }
        J::Array(items) => Value::List(Arc::new(
            items
                .iter()
                .map(|i| schema.items.as_deref().map_or_else(|| from_json(i), |s| from_json_with(i, s, false)))
                .collect(),
        )),
        J::Number(n) => match schema.type_str() {
            Some("number") => Value::Float(n.as_f64().unwrap_or_default()),
            // Whole floats read as integers, as the typed value holds them.
            Some("integer") => n.as_i64().map(Value::Int).unwrap_or_else(|| from_json(v)),
            _ => from_json(v),
        },
        J::String(_) => match schema.format.as_deref() {
            Some(f) if schema.type_str() == Some("string") => with_format(from_json(v), f),
            _ => from_json(v),
        },
        _ => from_json(v),
    }
}

/// The root's `metadata` as rules see it: `name` and `generateName` only.
pub(crate) fn metadata(v: &serde_json::Value) -> Value {
    let fields = ["name", "generateName"]
        .into_iter()
        .filter_map(|k| v.get(k).and_then(serde_json::Value::as_str).map(|s| (k.to_owned(), Value::from(s))))
        .collect();
    object(fields)
}

/// A CEL value as JSON, the inverse of [`from_json`] for what JSON can hold (bytes as base64,
/// timestamps and durations as the strings they were read from are not kept: as CEL prints them).
pub fn to_json(v: &Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i) => J::from(*i),
        Value::UInt(u) => J::from(*u),
        Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
        Value::String(s) => J::String(s.to_string()),
        Value::Bytes(b) => {
            use base64::Engine as _;
            J::String(base64::engine::general_purpose::STANDARD.encode(&**b))
        }
        Value::List(items) => J::Array(items.iter().map(to_json).collect()),
        Value::Map(m) => J::Object(
            m.map
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        Key::String(s) => s.to_string(),
                        Key::Int(i) => i.to_string(),
                        Key::Uint(u) => u.to_string(),
                        Key::Bool(b) => b.to_string(),
                    };
                    (key, to_json(v))
                })
                .collect(),
        ),
        Value::Timestamp(t) => J::String(t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
        Value::Duration(d) => J::String(format!("{}s", d.num_seconds())),
        other => J::String(format!("{other:?}")),
    }
}

/// A value as cel-go's `%v` prints it in an error (`index out of bounds: 1e+06`).
pub(crate) fn plain(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::String(s) => s.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Float(f) => crate::report::issue::go_float(*f),
        other => format!("{other:?}"),
    }
}
