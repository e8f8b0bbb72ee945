//! The schemas of the types derived types hold, as controller-gen writes them for their Go
//! counterparts: each says what the type's serde reads and writes.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use serde_json::{Map, Value, json};

use super::{SchemaGenerator, StructuralSchema};

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

macro_rules! fixed {
    ($($ty:ty => $schema:tt;)*) => {
        $(impl StructuralSchema for $ty {
            fn schema_in(_: &mut SchemaGenerator) -> Map<String, Value> {
                object(json!($schema))
            }
        })*
    };
}

fixed! {
    String => {"type": "string"};
    str => {"type": "string"};
    bool => {"type": "boolean"};
    // The apiserver stores integers as int64; narrower types say their range, as serde refuses
    // what is outside it.
    i8 => {"type": "integer", "minimum": -128, "maximum": 127};
    i16 => {"type": "integer", "minimum": -32768, "maximum": 32767};
    i32 => {"type": "integer", "format": "int32"};
    // Every integer is an int64 to the apiserver: no format needed (a CRD may still say one).
    i64 => {"type": "integer"};
    u8 => {"type": "integer", "minimum": 0, "maximum": 255};
    u16 => {"type": "integer", "minimum": 0, "maximum": 65535};
    u32 => {"type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295u32};
    // Beyond int64: the derive asks for an explicit `maximum` where it sees these.
    u64 => {"type": "integer", "format": "int64", "minimum": 0};
    usize => {"type": "integer", "format": "int64", "minimum": 0};
    f32 => {"type": "number"};
    f64 => {"type": "number"};
    // Any JSON value, kept as sent.
    Value => {"x-kubernetes-preserve-unknown-fields": true};
    Map<String, Value> => {"type": "object", "x-kubernetes-preserve-unknown-fields": true};
    crate::types::int_or_string::IntOrString => {"x-kubernetes-int-or-string": true};
    crate::types::empty_object::EmptyObject => {"type": "object"};
    // What a resource's metadata may hold is the apiserver's business, not the schema's.
    crate::types::meta::ObjectMeta => {"type": "object"};
    // What serde writes for a `std::time::Duration`.
    std::time::Duration => {
        "type": "object",
        "required": ["nanos", "secs"],
        "properties": {
            "nanos": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 999999999},
            "secs": {"type": "integer", "format": "int64", "minimum": 0}
        }
    };
}

/// Holders of one value: the schema is the value's.
macro_rules! transparent {
    ($($ty:ident),*) => {
        $(impl<T: StructuralSchema + ?Sized> StructuralSchema for $ty<T> {
            fn schema_in(generator: &mut SchemaGenerator) -> Map<String, Value> {
                T::schema_in(generator)
            }
        })*
    };
}

use std::rc::Rc;
use std::sync::Arc;
transparent!(Box, Rc, Arc);

impl<T: StructuralSchema + ToOwned + ?Sized> StructuralSchema for std::borrow::Cow<'_, T> {
    fn schema_in(generator: &mut SchemaGenerator) -> Map<String, Value> {
        T::schema_in(generator)
    }
}

/// `None` serializes as `null`: where an `Option` is an item or a map value, the schema lets
/// `null` through. (A field's `Option` is the field's business: absent or `null`, by its shape.)
impl<T: StructuralSchema> StructuralSchema for Option<T> {
    fn schema_in(generator: &mut SchemaGenerator) -> Map<String, Value> {
        let mut schema = T::schema_in(generator);
        schema.insert("nullable".into(), true.into());
        schema
    }
}

fn array(items: Map<String, Value>) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert("type".into(), "array".into());
    schema.insert("items".into(), Value::Object(items));
    schema
}

macro_rules! lists {
    ($($ty:ident),*) => {
        $(impl<T: StructuralSchema> StructuralSchema for $ty<T> {
            fn schema_in(generator: &mut SchemaGenerator) -> Map<String, Value> {
                array(generator.nested::<T>("[*]"))
            }
        })*
    };
}
lists!(Vec, VecDeque);

impl<T: StructuralSchema> StructuralSchema for [T] {
    fn schema_in(generator: &mut SchemaGenerator) -> Map<String, Value> {
        array(generator.nested::<T>("[*]"))
    }
}

impl<T: StructuralSchema, const N: usize> StructuralSchema for [T; N] {
    fn schema_in(generator: &mut SchemaGenerator) -> Map<String, Value> {
        let mut schema = array(generator.nested::<T>("[*]"));
        schema.insert("minItems".into(), N.into());
        schema.insert("maxItems".into(), N.into());
        schema
    }
}

/// Sets serialize as lists of distinct items: `x-kubernetes-list-type: set`, which the
/// apiserver checks (and server-side apply merges) by value.
macro_rules! sets {
    ($($ty:ident),*) => {
        $(impl<T: StructuralSchema> StructuralSchema for $ty<T> {
            fn schema_in(generator: &mut SchemaGenerator) -> Map<String, Value> {
                let mut schema = array(generator.nested::<T>("[*]"));
                schema.insert("x-kubernetes-list-type".into(), "set".into());
                schema
            }
        })*
    };
}
sets!(BTreeSet, HashSet);

fn map(values: Map<String, Value>) -> Map<String, Value> {
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("additionalProperties".into(), Value::Object(values));
    schema
}

impl<V: StructuralSchema> StructuralSchema for BTreeMap<String, V> {
    fn schema_in(generator: &mut SchemaGenerator) -> Map<String, Value> {
        map(generator.nested::<V>("[*]"))
    }
}

impl<V: StructuralSchema, S> StructuralSchema for HashMap<String, V, S> {
    fn schema_in(generator: &mut SchemaGenerator) -> Map<String, Value> {
        map(generator.nested::<V>("[*]"))
    }
}

/// k8s-openapi's types, with the schemas controller-gen writes for their Go types.
#[cfg(feature = "kube")]
mod k8s {
    use k8s_openapi::api::core::v1::ObjectReference;
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, MicroTime, ObjectMeta, Time};
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
    use serde_json::{Map, Value, json};

    use super::{SchemaGenerator, StructuralSchema, object};
    use crate::schema::resource::{CONDITION_SCHEMA, OBJECT_REFERENCE_SCHEMA, QUANTITY_SCHEMA, TIME_SCHEMA};

    fn known(text: &str) -> Map<String, Value> {
        object(serde_json::from_str(text).unwrap_or_default())
    }

    fixed! {
        ObjectMeta => {"type": "object"};
        IntOrString => {"x-kubernetes-int-or-string": true};
    }

    macro_rules! known {
        ($($t:ty => $json:expr;)*) => {$(
            impl StructuralSchema for $t {
                fn schema_in(_: &mut SchemaGenerator) -> Map<String, Value> {
                    known($json)
                }
            }
        )*};
    }

    known! {
        Condition => CONDITION_SCHEMA;
        ObjectReference => OBJECT_REFERENCE_SCHEMA;
        Time => TIME_SCHEMA;
        MicroTime => TIME_SCHEMA;
        Quantity => QUANTITY_SCHEMA;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::of_types::Docs;

    fn schema<T: StructuralSchema>() -> Value {
        Value::Object(SchemaGenerator::new(Docs::All).schema_of::<T>())
    }

    /// The derive reads a field's bounds against the type and format this file gives each
    /// number type, by name (`kubeskema_attributes::number::RUST_NUMBERS`).
    #[test]
    fn number_types_are_as_the_derive_reads_their_bounds() {
        let ours = [
            ("i8", schema::<i8>()),
            ("i16", schema::<i16>()),
            ("i32", schema::<i32>()),
            ("i64", schema::<i64>()),
            ("u8", schema::<u8>()),
            ("u16", schema::<u16>()),
            ("u32", schema::<u32>()),
            ("u64", schema::<u64>()),
            ("usize", schema::<usize>()),
            ("f32", schema::<f32>()),
            ("f64", schema::<f64>()),
        ];
        let table: Vec<_> = kubeskema_attributes::number::RUST_NUMBERS.iter().map(|&(n, t, f)| (n, t, f)).collect();
        let read: Vec<_> = ours
            .iter()
            .map(|(n, s)| (*n, s["type"].as_str().unwrap_or_default(), s["format"].as_str().unwrap_or_default()))
            .collect();
        assert_eq!(read, table);
    }

    #[test]
    fn std_types_have_the_schema_serde_gives_them() {
        assert_eq!(
            schema::<Vec<Option<i32>>>(),
            json!({"type": "array", "items": {"type": "integer", "format": "int32", "nullable": true}})
        );
        assert_eq!(
            schema::<BTreeMap<String, bool>>(),
            json!({"type": "object", "additionalProperties": {"type": "boolean"}})
        );
        assert_eq!(schema::<BTreeSet<String>>()["x-kubernetes-list-type"], "set");
        assert_eq!(schema::<[u8; 2]>()["maxItems"], 2);
        assert_eq!(
            schema::<Box<crate::types::int_or_string::IntOrString>>(),
            json!({"x-kubernetes-int-or-string": true})
        );
    }
}
