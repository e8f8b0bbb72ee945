//! `x-kubernetes-list-type` uniqueness (`apiextensions-apiserver/pkg/apiserver/schema/listtype`,
//! semantics §8), over a JSON value and its schema, with field paths (`spec.m[key].l[2]`).
//!
//! - `set`: scalars are compared as Go compares decoded values, so the int `1` and the float
//!   `1.0` differ \[quirk\]; objects and arrays by their canonical JSON, where `1.0` is written
//!   `1`. Only the second occurrence of a value is reported; later ones are silent.
//! - `map`: every element must be an object (or null): the first one that is not is reported
//!   and the list is not checked further. Elements are identified by their key fields, a
//!   missing key being different from a `null` one; again only the second occurrence.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::issue::{BadValue, ErrorType, Issue, PathForm, go_json};
use crate::path::{Path, Place};
#[cfg(feature = "dynamic")]
use crate::schema::Schema;

/// The keyword of every list-type issue (the pipeline reports them after the values).
pub const KEYWORD: &str = "x-kubernetes-list-type";

/// Every list-type problem of `value` against `schema`, walking properties, map values and
/// list items (lists of lists are checked at every level).
#[cfg(feature = "dynamic")]
pub fn validate(value: &Value, schema: &Schema) -> Vec<Issue> {
    let mut out = Vec::new();
    walk(value, schema, &Path::root(), &mut out);
    out
}

#[cfg(feature = "dynamic")]
fn walk(value: &Value, s: &Schema, path: &Path, out: &mut Vec<Issue>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if let Some((child_schema, child_path)) = s.key_child(k, path) {
                    walk(v, child_schema, &child_path, out);
                }
            }
        }
        Value::Array(items) => {
            match s.list_type.as_deref() {
                Some("set") => check_set(items, path, out),
                Some("map") => check_map(items, &s.list_map_keys, path, out),
                _ => {}
            }
            if let Some(item_schema) = s.items.as_deref() {
                for (i, item) in items.iter().enumerate() {
                    walk(item, item_schema, &path.index(i), out);
                }
            }
        }
        _ => {}
    }
}

fn duplicate(path: &Path, value: BadValue) -> Issue {
    Issue::new(ErrorType::Duplicate, path, KEYWORD, value, "").in_form(PathForm::Field)
}

/// The identity of a set element: scalars keep their decoded Go type, composites their
/// canonical JSON. Strings are borrowed: identifying a list of scalars allocates nothing.
#[derive(PartialEq, Eq, Hash)]
enum Identity<'v> {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(&'v str),
    Json(String),
}

fn set_identity(v: &Value) -> Identity<'_> {
    match v {
        Value::Null => Identity::Null,
        Value::Bool(b) => Identity::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Identity::Int(i),
            None => Identity::Float(n.as_f64().unwrap_or_default().to_bits()),
        },
        Value::String(s) => Identity::Str(s),
        composite => Identity::Json(go_json(composite)),
    }
}

/// `x-kubernetes-list-type: set` over the items of one list at `path`.
pub fn check_set(items: &[Value], path: &dyn Place, out: &mut Vec<Issue>) {
    let mut seen = HashSet::new();
    let mut reported = HashSet::new();
    for (i, item) in items.iter().enumerate() {
        if !seen.insert(set_identity(item)) && reported.insert(set_identity(item)) {
            out.push(duplicate(&path.to_path().index(i), BadValue::of(item)));
        }
    }
}

/// `x-kubernetes-list-type: map` with these keys over the items of one list at `path`.
pub fn check_map<K: AsRef<str>>(items: &[Value], keys: &[K], path: &dyn Place, out: &mut Vec<Issue>) {
    if let Some((i, bad)) = items.iter().enumerate().find(|(_, v)| !(v.is_object() || v.is_null())) {
        out.push(
            Issue::new(
                ErrorType::Invalid,
                &path.to_path().index(i),
                KEYWORD,
                BadValue::of(bad),
                "must be an object for an array of list-type map",
            )
            .in_form(PathForm::Field),
        );
        return;
    }
    let mut seen = HashSet::new();
    let mut reported = HashSet::new();
    let empty = Map::new();
    for (i, item) in items.iter().enumerate() {
        let obj = item.as_object().unwrap_or(&empty);
        // The key tuple: each key's value, or `None`, unspecified (not the same as null).
        let id = || -> Vec<Option<Identity>> { keys.iter().map(|k| obj.get(k.as_ref()).map(set_identity)).collect() };
        if !seen.insert(id()) && reported.insert(id()) {
            let shown: Map<String, Value> =
                keys.iter().filter_map(|k| obj.get(k.as_ref()).map(|v| (k.as_ref().to_owned(), v.clone()))).collect();
            out.push(duplicate(&path.to_path().index(i), BadValue::Json(go_json(&Value::Object(shown)))));
        }
    }
}

/// The key fields of a typed list-map item as a JSON object (`null` for a null item): only
/// they are serialized, not the whole item, for [`check_map`] and correlation by key.
pub fn item_keys<T: serde::Serialize + ?Sized>(item: &T, keys: &[&str]) -> Value {
    item.serialize(picker::Picker { keys }).unwrap_or_else(|picker::Whole| {
        // Not a struct or map (a hand-written item type): the whole item, its keys kept.
        match serde_json::to_value(item) {
            Ok(Value::Object(map)) => {
                Value::Object(map.into_iter().filter(|(k, _)| keys.contains(&k.as_str())).collect())
            }
            Ok(other) => other,
            Err(_) => Value::Null,
        }
    })
}

/// For each item of `new`, the index of the item of `old` with the same list-map key values.
pub fn correlate<T: serde::Serialize>(new: &[T], old: &[T], keys: &[&str]) -> Vec<Option<usize>> {
    let picked = |items: &[T]| items.iter().map(|i| item_keys(i, keys)).collect::<Vec<_>>();
    crate::ratchet::correlate_map_items(&picked(new), &picked(old), keys)
}

/// A serializer that keeps the named top-level fields of a struct or map and serializes
/// nothing else.
mod picker {
    use serde::ser::{self, Impossible, Serialize};
    use serde_json::{Map, Value};

    pub(super) struct Picker<'k> {
        pub keys: &'k [&'k str],
    }

    /// Anything but a struct, a map or null: the caller serializes the whole item instead.
    #[derive(Debug)]
    pub(super) struct Whole;

    impl std::fmt::Display for Whole {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("not an object")
        }
    }
    impl std::error::Error for Whole {}
    impl ser::Error for Whole {
        fn custom<T: std::fmt::Display>(_: T) -> Self {
            Whole
        }
    }

    pub(super) struct Fields<'k> {
        keys: &'k [&'k str],
        out: Map<String, Value>,
        /// The key just given to a map, when it is one of `keys`.
        next: Option<String>,
    }

    impl Fields<'_> {
        fn keep<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) {
            if self.keys.contains(&key) {
                self.out.insert(key.to_owned(), serde_json::to_value(value).unwrap_or(Value::Null));
            }
        }
    }

    impl ser::SerializeStruct for Fields<'_> {
        type Ok = Value;
        type Error = Whole;
        fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Whole> {
            self.keep(key, value);
            Ok(())
        }
        fn end(self) -> Result<Value, Whole> {
            Ok(Value::Object(self.out))
        }
    }

    impl ser::SerializeMap for Fields<'_> {
        type Ok = Value;
        type Error = Whole;
        fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Whole> {
            self.next = match serde_json::to_value(key) {
                Ok(Value::String(k)) if self.keys.contains(&k.as_str()) => Some(k),
                _ => None,
            };
            Ok(())
        }
        fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Whole> {
            if let Some(k) = self.next.take() {
                self.keep(&k, value);
            }
            Ok(())
        }
        fn end(self) -> Result<Value, Whole> {
            Ok(Value::Object(self.out))
        }
    }

    macro_rules! whole {
        ($($name:ident($($arg:ty),*)),* $(,)?) => {
            $(fn $name(self, $(_: $arg),*) -> Result<Value, Whole> { Err(Whole) })*
        };
    }

    impl<'k> ser::Serializer for Picker<'k> {
        type Ok = Value;
        type Error = Whole;
        type SerializeSeq = Impossible<Value, Whole>;
        type SerializeTuple = Impossible<Value, Whole>;
        type SerializeTupleStruct = Impossible<Value, Whole>;
        type SerializeTupleVariant = Impossible<Value, Whole>;
        type SerializeMap = Fields<'k>;
        type SerializeStruct = Fields<'k>;
        type SerializeStructVariant = Impossible<Value, Whole>;

        fn serialize_none(self) -> Result<Value, Whole> {
            Ok(Value::Null)
        }
        fn serialize_unit(self) -> Result<Value, Whole> {
            Ok(Value::Null)
        }
        fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value, Whole> {
            value.serialize(self)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Fields<'k>, Whole> {
            Ok(Fields { keys: self.keys, out: Map::new(), next: None })
        }
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Fields<'k>, Whole> {
            Ok(Fields { keys: self.keys, out: Map::new(), next: None })
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<Value, Whole> {
            value.serialize(self)
        }
        whole!(
            serialize_bool(bool),
            serialize_i8(i8),
            serialize_i16(i16),
            serialize_i32(i32),
            serialize_i64(i64),
            serialize_u8(u8),
            serialize_u16(u16),
            serialize_u32(u32),
            serialize_u64(u64),
            serialize_f32(f32),
            serialize_f64(f64),
            serialize_char(char),
            serialize_str(&str),
            serialize_bytes(&[u8]),
            serialize_unit_struct(&'static str),
            serialize_unit_variant(&'static str, u32, &'static str),
        );
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Value, Whole> {
            Err(Whole)
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Whole> {
            Err(Whole)
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Whole> {
            Err(Whole)
        }
        fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Whole> {
            Err(Whole)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, Whole> {
            Err(Whole)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, Whole> {
            Err(Whole)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn issues(schema: Value, value: Value) -> Vec<String> {
        let (s, errors) = Schema::parse(&schema, "");
        assert!(errors.is_empty(), "{errors:?}");
        validate(&value, &s).iter().map(ToString::to_string).collect()
    }

    fn set_of(items: Value) -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "s": {"type": "array", "x-kubernetes-list-type": "set", "items": items}}}}})
    }

    #[test]
    fn sets_report_the_second_occurrence_only() {
        let schema = set_of(json!({"type": "string"}));
        assert!(issues(schema.clone(), json!({"spec": {"s": ["a", "b"]}})).is_empty());
        assert_eq!(
            issues(schema, json!({"spec": {"s": ["a", "b", "a", "a"]}})),
            vec!["spec.s[2]: Duplicate value: \"a\""]
        );
    }

    #[test]
    fn set_identity_follows_go_types() {
        let schema = set_of(json!({"type": "number"}));
        assert!(
            issues(schema.clone(), json!({"spec": {"s": [1, 1.0]}})).is_empty(),
            "[quirk] int 1 and float 1.0 differ"
        );
        let objects = set_of(
            json!({"type": "object", "x-kubernetes-map-type": "atomic", "x-kubernetes-preserve-unknown-fields": true}),
        );
        assert_eq!(
            issues(objects, json!({"spec": {"s": [{"a": 1}, {"a": 1.0}]}})),
            vec!["spec.s[1]: Duplicate value: {\"a\":1}"],
            "objects compare by canonical JSON, where 1.0 is 1"
        );
    }

    #[test]
    fn maps_identify_elements_by_their_keys() {
        let schema = json!({"type": "object", "properties": {"l": {"type": "array",
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "port"],
            "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}}}});
        assert_eq!(
            issues(
                schema.clone(),
                json!({"l": [{"name": "a", "port": 1}, {"name": "a", "port": 2}, {"name": "a", "port": 1, "x": 0}]})
            ),
            vec!["l[2]: Duplicate value: {\"name\":\"a\",\"port\":1}"]
        );
        assert!(
            issues(schema.clone(), json!({"l": [{"name": "a"}, {"name": "a", "port": null}]})).is_empty(),
            "missing differs from null"
        );
        assert_eq!(
            issues(schema.clone(), json!({"l": [{"name": "a"}, {"name": "a"}]})),
            vec!["l[1]: Duplicate value: {\"name\":\"a\"}"]
        );
        assert_eq!(
            issues(schema, json!({"l": ["a", {"name": "a"}, 3, {"name": "a"}]})),
            vec!["l[0]: Invalid value: \"a\": must be an object for an array of list-type map"],
            "the first non-object stops the check"
        );
    }

    #[test]
    fn lists_under_map_values_print_field_paths() {
        let schema = json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties":
            {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}});
        assert_eq!(issues(schema, json!({"m": {"a.b": ["x", "x"]}})), vec!["m[a.b][1]: Duplicate value: \"x\""]);
    }

    #[derive(serde::Serialize)]
    struct Port {
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        protocol: Option<String>,
        big: Vec<u64>,
    }

    #[test]
    fn typed_items_serialize_their_keys_only() {
        let port = |name: &str, protocol: Option<&str>| Port {
            name: name.into(),
            protocol: protocol.map(Into::into),
            big: vec![1; 1000],
        };
        assert_eq!(item_keys(&port("a", None), &["name", "protocol"]), json!({"name": "a"}));
        assert_eq!(item_keys(&Some(port("a", Some("TCP"))), &["protocol"]), json!({"protocol": "TCP"}));
        assert_eq!(item_keys(&None::<Port>, &["name"]), Value::Null);
        // A map (`Value` objects serialize as one) and a scalar, which is no object at all.
        assert_eq!(item_keys(&json!({"name": "a", "x": 1}), &["name"]), json!({"name": "a"}));
        assert_eq!(item_keys(&json!(5), &["name"]), json!(5));
        let (new, old) =
            (vec![port("b", None), port("a", None), port("c", None)], vec![port("a", None), port("b", None)]);
        assert_eq!(correlate(&new, &old, &["name"]), [Some(1), Some(0), None]);
        // An absent key is not a null one.
        let (absent, null) = (json!({"name": "a"}), json!({"name": "a", "protocol": null}));
        let keys = ["name", "protocol"];
        assert_eq!(crate::ratchet::correlate_map_items(std::slice::from_ref(&absent), &[null], &keys), [None]);
        assert_eq!(
            crate::ratchet::correlate_map_items(std::slice::from_ref(&absent), std::slice::from_ref(&absent), &keys),
            [Some(0)]
        );
    }
}
