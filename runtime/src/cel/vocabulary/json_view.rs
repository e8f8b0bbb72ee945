//! `self` and `oldSelf` of the dynamic validator's rules as views over the object's JSON
//! (issue 54): an object or a list becomes CEL values one level at a time, the first time a
//! rule reads into it, and its strings are borrowed from the JSON. Converting the node's whole
//! subtree for every node with rules (and again for the interpreter's own representation)
//! cost the dynamic validator most of its time on CEL-heavy CRDs: HTTPRoute's filters hold a
//! dozen rules each, and most read one field.
//!
//! A level holds what [`from_json_with`](super::value::from_json_with) makes of it, which
//! stays the one statement of the dynamic validator's typing (a test holds the two equal):
//! null properties absent, property names escaped, the root's `metadata` cut to `name` and
//! `generateName`, integers and numbers by the schema's `type`, strings by its `format`, and
//! what the schema does not describe as it is. Every operation is the built-in list's or
//! map's, on the level: equality, `in`, `size`, iteration, `+` and the downcasts functions do
//! ([`Val::as_builtin`]) all answer exactly as for the converted value.

use std::sync::{Arc, OnceLock};

use cel::common::traits::{Adder, Container, Indexer, Iterable, Sizer, Zeroer};
use cel::common::types::{
    CelBool, CelDouble, CelInt, CelList, CelMap, CelMapEntries, CelMapKey, CelNull, CelString, CelUInt,
};
use cel::common::types::{DYN_TYPE, LIST_TYPE, MAP_TYPE, Type};
use cel::common::value::{Builtin, BuiltinRef, Val};
use serde_json::Value as Json;

use super::value::{FieldKey, field_key};
use crate::schema::Schema;

/// How a JSON node is typed: by a schema node, or not at all (what a schema leaves open).
#[derive(Clone, Copy)]
pub(crate) enum Typing<'v> {
    /// `from_json`: as the JSON is.
    Untyped,
    /// `from_json_with(schema, root)`.
    Typed { schema: &'v Schema, root: bool },
}

/// The CEL value of `json` typed by `typing`: a view for an object or a list, the scalar
/// itself otherwise.
pub(crate) fn value<'v>(json: &'v Json, typing: Typing<'v>) -> Box<dyn Val + 'v> {
    let schema = match typing {
        Typing::Typed { schema, .. } => Some(schema),
        Typing::Untyped => None,
    };
    match json {
        Json::Object(_) | Json::Array(_) => Box::new(JsonView { json, typing, level: OnceLock::new() }),
        Json::Null => Box::new(CelNull),
        Json::Bool(b) => Box::new(CelBool::from(*b)),
        Json::Number(n) => match schema.and_then(Schema::type_str) {
            Some("number") => Box::new(CelDouble::from(n.as_f64().unwrap_or_default())),
            Some("integer") if n.as_i64().is_some() => Box::new(CelInt::from(n.as_i64().unwrap_or_default())),
            _ => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Box::new(CelInt::from(i)),
                (None, Some(u)) => Box::new(CelUInt::from(u)),
                _ => Box::new(CelDouble::from(n.as_f64().unwrap_or_default())),
            },
        },
        Json::String(s) => match schema {
            Some(schema) if schema.type_str() == Some("string") && schema.format.is_some() => {
                let format = schema.format.as_deref().unwrap_or_default();
                owned(super::value::with_format(super::value::from_json(json), format))
            }
            _ => Box::new(CelString::from(s.as_str())),
        },
    }
}

/// A CEL value of the interpreter's enum as the interpreter's own representation.
fn owned<'v>(v: cel::Value) -> Box<dyn Val + 'v> {
    // Only maps, lists and opaque values can fail to convert; nothing here makes one.
    let converted: Result<Box<dyn Val + 'v>, _> = v.try_into();
    converted.unwrap_or_else(|_| Box::new(CelNull))
}

/// An object or a list of the JSON, made into CEL values on first use, one level deep.
/// Copies of a view share its level: a comprehension binds a copy of each element every
/// iteration, and `self.all(a, self.exists(b, ...))` would otherwise make the level of
/// every element again for every element.
struct JsonView<'v> {
    json: &'v Json,
    typing: Typing<'v>,
    level: OnceLock<Arc<Level<'v>>>,
}

enum Level<'v> {
    List(CelList<'v>),
    Map(CelMap<'v>),
}

impl std::fmt::Debug for JsonView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "JsonView({})", self.json)
    }
}

impl<'v> JsonView<'v> {
    fn level(&self) -> &Level<'v> {
        self.shared_level()
    }

    fn shared_level(&self) -> &Arc<Level<'v>> {
        self.level.get_or_init(|| Arc::new(build(self.json, self.typing)))
    }

    fn into_level(self) -> Level<'v> {
        let JsonView { json, typing, level } = self;
        match level.into_inner().map(Arc::try_unwrap) {
            Some(Ok(level)) => level,
            // Shared with a copy, or not made yet.
            Some(Err(_)) | None => build(json, typing),
        }
    }
}

/// One level of `json` (an object or a list), as `from_json_with` (or `from_json`) types it.
fn build<'v>(json: &'v Json, typing: Typing<'v>) -> Level<'v> {
    match (json, typing) {
        (Json::Array(items), typing) => {
            let item_typing = match typing {
                Typing::Typed { schema, .. } => {
                    schema.items.as_deref().map_or(Typing::Untyped, |s| Typing::Typed { schema: s, root: false })
                }
                Typing::Untyped => Typing::Untyped,
            };
            Level::List(CelList::from(items.iter().map(|i| value(i, item_typing)).collect::<Vec<_>>()))
        }
        (Json::Object(map), Typing::Typed { schema, root })
            if !schema.properties.is_empty() || schema.additional_properties_schema().is_none() =>
        {
            let mut fields = CelMapEntries::with_capacity_and_hasher(map.len(), Default::default());
            for (name, v) in map {
                if v.is_null() {
                    continue; // a null property is absent to rules
                }
                let child = match schema.properties.get(name) {
                    Some(_) if root && name == "metadata" => owned(super::value::metadata(v)),
                    Some(p) => value(v, Typing::Typed { schema: p, root: false }),
                    None => value(v, Typing::Untyped),
                };
                insert_field(&mut fields, name, child);
            }
            Level::Map(CelMap::from(fields))
        }
        (Json::Object(map), typing) => {
            let values = match typing {
                Typing::Typed { schema, .. } => schema
                    .additional_properties_schema()
                    .map_or(Typing::Untyped, |s| Typing::Typed { schema: s, root: false }),
                Typing::Untyped => Typing::Untyped,
            };
            let fields: CelMapEntries =
                map.iter().map(|(k, v)| (CelMapKey::from(k.as_str()), value(v, values))).collect();
            Level::Map(CelMap::from(fields))
        }
        // Views are made of objects and lists only (`value`).
        _ => Level::List(CelList::from(Vec::new())),
    }
}

/// A property under its CEL name or names ([`field_key`], as [`object`](super::value::object)
/// keys it).
fn insert_field<'v>(fields: &mut CelMapEntries<'v>, name: &'v str, v: Box<dyn Val + 'v>) {
    let FieldKey { escaped, also_as_written } = field_key(name);
    let Some(escaped) = escaped else {
        fields.insert(CelMapKey::from(name), v);
        return;
    };
    if also_as_written {
        fields.insert(CelMapKey::from(name), v.clone());
    }
    fields.insert(CelMapKey::from(escaped), v);
}

impl<'v> Val for JsonView<'v> {
    fn get_type(&self) -> &Type {
        match self.json {
            Json::Object(_) => &MAP_TYPE,
            _ => &LIST_TYPE,
        }
    }

    fn cel_type() -> &'static Type {
        // The type is per value (a map or a list): never named by a Rust type.
        &DYN_TYPE
    }

    fn as_adder<'b, 'w>(&'b self) -> Option<&'b (dyn Adder + 'w)>
    where
        Self: 'w,
    {
        match self.level() {
            Level::List(l) => l.as_adder(),
            Level::Map(m) => m.as_adder(),
        }
    }

    fn as_container(&self) -> Option<&dyn Container> {
        match self.level() {
            Level::List(l) => l.as_container(),
            Level::Map(m) => m.as_container(),
        }
    }

    fn as_indexer<'b, 'w>(&'b self) -> Option<&'b (dyn Indexer + 'w)>
    where
        Self: 'w,
    {
        match self.level() {
            Level::List(l) => l.as_indexer(),
            Level::Map(m) => m.as_indexer(),
        }
    }

    fn into_indexer<'w>(self: Box<Self>) -> Option<Box<dyn Indexer + 'w>>
    where
        Self: 'w,
    {
        match self.into_level() {
            Level::List(l) => Box::new(l).into_indexer(),
            Level::Map(m) => Box::new(m).into_indexer(),
        }
    }

    fn as_iterable<'b, 'w>(&'b self) -> Option<&'b (dyn Iterable + 'w)>
    where
        Self: 'w,
    {
        match self.level() {
            Level::List(l) => l.as_iterable(),
            Level::Map(m) => m.as_iterable(),
        }
    }

    fn as_sizer(&self) -> Option<&dyn Sizer> {
        match self.level() {
            Level::List(l) => l.as_sizer(),
            Level::Map(m) => m.as_sizer(),
        }
    }

    fn as_zeroer(&self) -> Option<&dyn Zeroer> {
        match self.level() {
            Level::List(l) => l.as_zeroer(),
            Level::Map(m) => m.as_zeroer(),
        }
    }

    fn equals(&self, other: &dyn Val) -> bool {
        match self.level() {
            Level::List(l) => l.equals(other),
            Level::Map(m) => m.equals(other),
        }
    }

    fn clone_as_boxed<'w>(&self) -> Box<dyn Val + 'w>
    where
        Self: 'w,
    {
        // The level is made here if it was not, to be shared with every copy: a copy is
        // made to be read (a comprehension's variable, a value a rule returns).
        let level = OnceLock::from(Arc::clone(self.shared_level()));
        Box::new(JsonView { json: self.json, typing: self.typing, level })
    }

    fn as_builtin<'b, 'w>(&'b self) -> BuiltinRef<'b, 'w>
    where
        Self: 'w,
    {
        match self.level() {
            Level::List(l) => BuiltinRef::List(l),
            Level::Map(m) => BuiltinRef::Map(m),
        }
    }

    fn into_builtin<'w>(self: Box<Self>) -> Option<Builtin<'w>>
    where
        Self: 'w,
    {
        Some(match self.into_level() {
            Level::List(l) => Builtin::List(l),
            Level::Map(m) => Builtin::Map(m),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cel::vocabulary::value::from_json_with;
    use serde_json::json;

    /// The view, read whole, is what `from_json_with` converts: the one typing of the dynamic
    /// validator's values, stated once there.
    fn same_as_converted(schema: &serde_json::Value, object: &serde_json::Value) {
        let schema = Schema::parse(schema, "").0;
        for root in [true, false] {
            let view = value(object, Typing::Typed { schema: &schema, root });
            let read = cel::Value::try_from(view.as_ref()).expect("a view reads as a value");
            assert_eq!(read, from_json_with(object, &schema, root), "root: {root}, object: {object}");
        }
        let untyped = value(object, Typing::Untyped);
        assert_eq!(cel::Value::try_from(untyped.as_ref()).ok(), Some(crate::cel::vocabulary::value::from_json(object)));
    }

    #[test]
    fn a_view_reads_as_the_converted_value() {
        let schema = json!({"type": "object", "properties": {
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {
                "namespace": {"type": "string"},
                "true": {"type": "string"},
                "dash-ed": {"type": "integer"},
                "x__y": {"type": "number"},
                "1st": {"type": "string"},
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "when": {"type": "string", "format": "date-time"},
                "every": {"type": "string", "format": "duration"},
                "blob": {"type": "string", "format": "byte"},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                "labels": {"type": "object", "additionalProperties": {"type": "number"}},
                "items": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}},
                "any": {"type": "array"}}}}});
        let object = json!({"apiVersion": "v1", "kind": "K",
            "metadata": {"name": "n", "generateName": "g", "labels": {"a": "b"}},
            "spec": {"namespace": "ns", "true": "t", "dash-ed": 1, "x__y": 2, "1st": "one",
                "count": 3.0, "ratio": 4, "gone": null, "unknown": {"k": [1, null, "s"]},
                "when": "2024-01-02T03:04:05Z", "every": "1h30m", "blob": "aGk=",
                "free": {"x": null, "y": 18446744073709551615u64, "z": -1.5},
                "labels": {"a": 1, "b": null}, "items": [{"n": 1}, {"n": 2.0, "m": null}], "any": [{"q": null}, 7]}});
        same_as_converted(&schema, &object);
        same_as_converted(&schema, &json!({"spec": {"when": "not a time", "every": "soon", "blob": "%%"}}));
        same_as_converted(&schema, &json!([1, "a", null, {"b": [true]}]));
    }

    /// Equality and membership ask the level, so a view equals the converted value both ways.
    #[test]
    fn views_compare_as_built_in_values() {
        let schema = Schema::parse(
            &json!({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string"}}}}),
            "",
        )
        .0;
        let object = json!({"l": ["a", "b"]});
        let view = value(&object, Typing::Typed { schema: &schema, root: false });
        let converted: Box<dyn Val> = from_json_with(&object, &schema, false).try_into().expect("converts");
        assert!(view.equals(converted.as_ref()) && converted.equals(view.as_ref()));
        let list = view.as_indexer().and_then(|i| i.get(&CelString::from("l")).ok()).expect("l");
        assert!(list.as_container().is_some_and(|c| c.contains(&CelString::from("b")) == Ok(true)));
        assert_eq!(list.as_sizer().map(|s| *s.size().inner()), Some(2));
    }
}
