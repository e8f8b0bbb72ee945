//! The merge type of a schema node, as the apiserver's type converter reads a CRD's schema
//! for server-side apply: scalars; lists that are atomic (also when `x-kubernetes-list-type`
//! is absent), sets, or maps keyed by `x-kubernetes-list-map-keys`; maps and structs that are
//! granular unless `x-kubernetes-map-type: atomic`; and "deduced" values, under
//! `x-kubernetes-preserve-unknown-fields` and at an `x-kubernetes-int-or-string`, whose kind
//! is read from the value (maps granular, lists atomic). A string of a format other than
//! `byte` is any scalar. The root's `metadata` is ObjectMeta's own type.

use std::sync::OnceLock;

use serde_json::Value;

use super::path::PathElement;
use crate::schema::Schema;

/// Where a value stands in the schema.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ty<'s> {
    /// A node of the CRD's schema (or of ObjectMeta's).
    Schema(&'s Schema),
    /// A value no schema describes (kept by `x-kubernetes-preserve-unknown-fields`): its kind
    /// is the value's.
    Deduced,
}

/// How a list merges.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ListMerge<'s> {
    /// Replaced whole; owned as one field.
    Atomic,
    /// Items are their own value (`v:`).
    Set,
    /// Items are keyed by these fields (`k:`).
    Map(&'s [String]),
}

/// A node's kind for one value (structured-merge-diff's atom after `deduceAtom`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Atom<'s> {
    Scalar,
    List { kind: ListMerge<'s>, items: Ty<'s> },
    Map { atomic: bool, node: MapNode<'s> },
}

/// What a map knows of its keys.
#[derive(Clone, Copy, Debug)]
pub(crate) enum MapNode<'s> {
    Schema(&'s Schema),
    Deduced,
}

impl<'s> MapNode<'s> {
    /// The type of `key`'s value; `None` where the schema does not declare it. An object with
    /// neither properties nor additionalProperties holds anything.
    pub(crate) fn field(self, key: &str) -> Option<Ty<'s>> {
        let MapNode::Schema(s) = self else { return Some(Ty::Deduced) };
        if let Some(field) = s.embedded_resource.then(|| resource_field(key)).flatten() {
            return Some(Ty::Schema(field));
        }
        match s.properties.get(key) {
            Some(p) => Some(Ty::Schema(p)),
            None => match s.additional_properties_schema() {
                Some(items) => Some(Ty::Schema(items)),
                None if s.properties.is_empty() && s.additional_properties.is_none() => Some(Ty::Deduced),
                None => s.preserves_unknown_fields().then_some(Ty::Deduced),
            },
        }
    }

    /// Whether `key` is one of the struct's own properties (not a map key).
    pub(crate) fn is_named(self, key: &str) -> bool {
        matches!(self, MapNode::Schema(s) if s.properties.contains_key(key) || (s.embedded_resource && resource_field(key).is_some()))
    }

    /// The declared type of `key`, else what any other key would have ([`MapNode::field`]),
    /// else deduced: for walks over values already accepted, never refusing.
    pub(crate) fn field_or_deduced(self, key: &str) -> Ty<'s> {
        self.field(key).unwrap_or(Ty::Deduced)
    }

    /// The type below a path element of a field set (`typeRefAtPath`): a field's, else
    /// whatever any key holds; `None` where neither is declared.
    pub(crate) fn element(self, pe: &PathElement) -> Option<Ty<'s>> {
        match (pe, self) {
            (PathElement::Field(name), _) => self.field(name),
            (_, MapNode::Deduced) => Some(Ty::Deduced),
            (_, MapNode::Schema(s)) => s.additional_properties_schema().map(Ty::Schema),
        }
    }

    /// A map of anything with no fields of its own (`isUntypedDeducedMap`: an object that
    /// preserves unknown fields and declares none).
    pub(crate) fn is_untyped_deduced(self) -> bool {
        match self {
            MapNode::Deduced => true,
            MapNode::Schema(s) => {
                s.properties.is_empty()
                    && !s.embedded_resource
                    && s.additional_properties_schema().is_none()
                    && matches!(self.field(""), Some(Ty::Deduced))
            }
        }
    }
}

impl<'s> Ty<'s> {
    /// The type's atom for `value` (`None`: absent). A deduced type takes the value's kind;
    /// absent or null, it is a map (upstream tries the map first), which merges as a leaf.
    pub(crate) fn atom(self, value: Option<&Value>) -> Atom<'s> {
        match self {
            Ty::Deduced => match value {
                Some(Value::Array(_)) => Atom::List { kind: ListMerge::Atomic, items: Ty::Deduced },
                Some(Value::Object(_)) | Some(Value::Null) | None => {
                    Atom::Map { atomic: false, node: MapNode::Deduced }
                }
                Some(_) => Atom::Scalar,
            },
            Ty::Schema(s) => schema_atom(s, value),
        }
    }

    /// The atom without a value (for walks over field sets).
    pub(crate) fn shape(self) -> Atom<'s> {
        self.atom(None)
    }
}

fn schema_atom<'s>(s: &'s Schema, value: Option<&Value>) -> Atom<'s> {
    // The CRD's OpenAPI gives an int-or-string no type: any value, deduced.
    if s.int_or_string {
        return Ty::Deduced.atom(value);
    }
    match s.type_str() {
        Some("array") => {
            let items = s.items.as_deref().map_or(Ty::Deduced, Ty::Schema);
            let kind = match s.list_type.as_deref() {
                Some("set") => ListMerge::Set,
                Some("map") => ListMerge::Map(&s.list_map_keys),
                _ => ListMerge::Atomic,
            };
            Atom::List { kind, items }
        }
        Some("object") => Atom::Map { atomic: s.map_type() == Some("atomic"), node: MapNode::Schema(s) },
        Some(_) => Atom::Scalar,
        // No type: anything (preserve-unknown, or a schema the structural rules would refuse).
        None if !s.properties.is_empty() || s.additional_properties.is_some() => {
            Atom::Map { atomic: s.map_type() == Some("atomic"), node: MapNode::Schema(s) }
        }
        None => Ty::Deduced.atom(value),
    }
}

/// The fields the apiserver's OpenAPI gives every resource, the root and each
/// `x-kubernetes-embedded-resource` (`addEmbeddedProperties`), whatever the schema writes there:
/// TypeMeta's strings and ObjectMeta.
pub(crate) fn resource_field(name: &str) -> Option<&'static Schema> {
    static STRING: OnceLock<Schema> = OnceLock::new();
    match name {
        "apiVersion" | "kind" => {
            Some(STRING.get_or_init(|| Schema { type_: Some("string".into()), ..Schema::default() }))
        }
        "metadata" => Some(object_meta()),
        _ => None,
    }
}

/// ObjectMeta's schema as the apiserver's static OpenAPI gives it to the type converter: the
/// root's `metadata` merges by it, whatever the CRD writes there.
pub(crate) fn object_meta() -> &'static Schema {
    static META: OnceLock<Schema> = OnceLock::new();
    META.get_or_init(|| {
        let text = r#"{"type": "object", "properties": {
            "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
            "creationTimestamp": {"type": "string", "format": "date-time"},
            "deletionGracePeriodSeconds": {"type": "integer"},
            "deletionTimestamp": {"type": "string", "format": "date-time"},
            "finalizers": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            "generateName": {"type": "string"},
            "generation": {"type": "integer"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "managedFields": {"type": "array", "items": {"type": "object", "properties": {
                "apiVersion": {"type": "string"}, "fieldsType": {"type": "string"},
                "fieldsV1": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}, "manager": {"type": "string"},
                "operation": {"type": "string"}, "subresource": {"type": "string"},
                "time": {"type": "string", "format": "date-time"}}}},
            "name": {"type": "string"},
            "namespace": {"type": "string"},
            "ownerReferences": {"type": "array", "items": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {
                "apiVersion": {"type": "string"}, "blockOwnerDeletion": {"type": "boolean"},
                "controller": {"type": "boolean"}, "kind": {"type": "string"},
                "name": {"type": "string"}, "uid": {"type": "string", "default": ""}}},
                "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["uid"]},
            "resourceVersion": {"type": "string"},
            "selfLink": {"type": "string"},
            "uid": {"type": "string"}}}"#;
        let value: Value = serde_json::from_str(text).expect("invariant: ObjectMeta's schema is JSON");
        Schema::parse(&value, "").0
    })
}
