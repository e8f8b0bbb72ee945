//! Pruning of unknown fields, as the apiserver does it before defaulting and validation
//! (`apiextensions-apiserver/pkg/apiserver/schema/pruning/algorithm.go`), and of `null`s
//! (`defaulting/prunenulls.go`), which follows it.
//!
//! The quirks kept on purpose:
//! - the root of a custom resource is treated as an embedded resource: its `apiVersion`,
//!   `kind` and `metadata` are left alone;
//! - `x-kubernetes-preserve-unknown-fields` keeps unknown keys but specified properties are
//!   still pruned normally, and preservation is inherited by array items;
//! - `additionalProperties` given as a boolean keeps every key but empties object and array
//!   values under it (they are pruned against no schema).

use serde_json::{Map, Value};

use crate::report::path::{At, Path};
use crate::schema::Schema;

use crate::check::objectmeta::RESOURCE_META_FIELDS as META;

/// Prunes a whole custom resource against its version's root schema. Returns the paths of
/// the fields that were removed (`spec.foo`, `spec.list[1].b`), sorted.
pub fn prune_resource(object: &mut Value, root: &Schema) -> Vec<Path> {
    resource(object, root, false)
}

/// [`prune_resource`] and then [`prune_nulls`], in one walk: what the apiserver's decoder does
/// in two (the second walk was a sixteenth of the dynamic validator's time on an HTTPRoute,
/// issue 54). Returns the paths pruned as unknown (nulls are not reported).
pub fn prune_resource_and_nulls(object: &mut Value, root: &Schema) -> Vec<Path> {
    resource(object, root, true)
}

fn resource(object: &mut Value, root: &Schema, nulls: bool) -> Vec<Path> {
    let mut walk = Walk { nulls, pruned: Vec::new() };
    prune(object, Some(root), true, &At::ROOT, &mut walk);
    // The apiserver's order: by the dotted path it prints.
    let mut keyed: Vec<(String, Path)> = walk.pruned.into_iter().map(|p| (p.openapi(), p)).collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.into_iter().map(|(_, p)| p).collect()
}

/// Prunes a value against the schema node it belongs to (used for defaults, which the
/// apiserver prunes when it loads the CRD).
pub fn prune_value(value: &mut Value, schema: &Schema) {
    let mut walk = Walk { nulls: false, pruned: Vec::new() };
    let base = Path::root().key("value");
    prune(value, Some(schema), schema.embedded_resource, &At::under(&base), &mut walk);
}

/// Deletes the `null` entries of non-nullable, non-defaulted fields (`prunenulls.go`).
pub fn prune_nulls(value: &mut Value, schema: &Schema) {
    match value {
        Value::Object(map) => retain_rarely(map, |k, v| keeps_nulls_pruned(v, schema.schema_of_key(k))),
        Value::Array(items) => {
            if let Some(item_schema) = schema.items.as_deref() {
                for item in items {
                    prune_nulls(item, item_schema);
                }
            }
        }
        _ => {}
    }
}

/// Whether a map value stays when nulls are pruned, its own nulls pruned if it does.
fn keeps_nulls_pruned(value: &mut Value, schema: Option<&Schema>) -> bool {
    match schema {
        Some(s) if drops_null(value, s) => false,
        Some(s) => {
            prune_nulls(value, s);
            true
        }
        None => true,
    }
}

/// A `null` map value that its schema neither allows nor defaults: null pruning deletes it.
fn drops_null(value: &Value, schema: &Schema) -> bool {
    value.is_null() && !schema.nullable && schema.default.is_none()
}

/// What a walk does besides pruning (`nulls`: null pruning too) and what it pruned.
struct Walk {
    nulls: bool,
    pruned: Vec<Path>,
}

impl Walk {
    /// Whether a map value under a schema stays: null pruning may delete it; what stays is
    /// pruned in turn.
    fn keeps(&mut self, value: &mut Value, schema: Option<&Schema>, at: &At<'_>) -> bool {
        if self.nulls && schema.is_some_and(|s| drops_null(value, s)) {
            return false;
        }
        prune(value, schema, schema.is_some_and(|s| s.embedded_resource), at, self);
        true
    }

    /// Whether a resource's `apiVersion`, `kind` or `metadata` stays: pruning leaves them,
    /// null pruning does not.
    fn keeps_meta(&self, value: &mut Value, schema: &Schema, key: &str) -> bool {
        !self.nulls || keeps_nulls_pruned(value, schema.schema_of_key(key))
    }

    /// Whether the entry `key` of an object under `s` stays, pruned (and null-pruned) by
    /// the schema it falls under; `None` for a key `s` does not know, which pruning removes
    /// and preserved unknown fields keep.
    fn keeps_entry(
        &mut self,
        s: &Schema,
        is_resource: bool,
        key: &str,
        value: &mut Value,
        at: &At<'_>,
    ) -> Option<bool> {
        if is_resource && META.contains(&key) {
            return Some(self.keeps_meta(value, s, key));
        }
        if let Some(p) = s.properties.get(key) {
            return Some(self.keeps(value, Some(p), &at.field(key)));
        }
        let ap = s.additional_properties.as_ref()?;
        Some(self.keeps(value, ap.schema(), &at.key(key)))
    }
}

/// `path` becomes a [`Path`] only where a field is pruned.
fn prune(value: &mut Value, schema: Option<&Schema>, is_resource: bool, path: &At<'_>, walk: &mut Walk) {
    if let Some(s) = schema
        && s.preserves_unknown_fields()
    {
        skip_prune(value, s, is_resource, path, walk);
        return;
    }
    match value {
        Value::Object(map) => {
            let Some(s) = schema else {
                walk.pruned.extend(map.keys().map(|k| path.field(k).to_path()));
                map.clear();
                return;
            };
            let top_level = path.is_root();
            retain_rarely(map, |k, v| {
                walk.keeps_entry(s, is_resource, k, v, path).unwrap_or_else(|| {
                    if !(top_level && META.contains(&k.as_str())) {
                        walk.pruned.push(path.field(k).to_path());
                    }
                    false
                })
            });
        }
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            for (i, item) in items.iter_mut().enumerate() {
                prune(item, item_schema, item_schema.is_some_and(|s| s.embedded_resource), &path.index(i), walk);
            }
        }
        _ => {}
    }
}

/// `Map::retain` for a map that seldom loses a key: the B-tree's `retain` takes every entry
/// out and back (`ExtractIf`), a seventh of the dynamic validator's time on a large HTTPRoute
/// (issue 54) where nothing was removed. The entries are visited in order, as `retain` does.
pub(crate) fn retain_rarely(map: &mut Map<String, Value>, mut keep: impl FnMut(&String, &mut Value) -> bool) {
    let gone: Vec<String> = map.iter_mut().filter_map(|(k, v)| (!keep(k, v)).then(|| k.clone())).collect();
    for k in gone {
        map.remove(&k);
    }
}

/// Under `x-kubernetes-preserve-unknown-fields`: unknown keys stay as they are; specified
/// ones are pruned (and null-pruned) by their schema.
fn skip_prune(value: &mut Value, s: &Schema, is_resource: bool, path: &At<'_>, walk: &mut Walk) {
    match value {
        Value::Object(map) => {
            retain_rarely(map, |k, v| walk.keeps_entry(s, is_resource, k, v, path).unwrap_or(true));
        }
        Value::Array(items) => {
            if let Some(item_schema) = s.items.as_deref() {
                for (i, item) in items.iter_mut().enumerate() {
                    skip_prune(item, item_schema, item_schema.embedded_resource, &path.index(i), walk);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    fn printed(paths: &[Path]) -> Vec<String> {
        paths.iter().map(Path::openapi).collect()
    }

    /// A map key with dots stays one key: its pointer is `/spec/labels/example.com~1x/extra`.
    #[test]
    fn pruned_places_are_paths_not_dotted_strings() {
        let root = schema(json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "labels": {"type": "object", "additionalProperties": {"type": "object", "properties": {"a": {"type": "string"}}}}}}}}));
        let mut obj = json!({"spec": {"labels": {"example.com/x": {"a": "1", "extra": 2}}, "example.com/extra": 1}});
        let pruned = prune_resource(&mut obj, &root);
        assert_eq!(printed(&pruned), vec!["spec.example.com/extra", "spec.labels.example.com/x.extra"]);
        assert_eq!(
            pruned.iter().map(Path::pointer).collect::<Vec<_>>(),
            vec!["/spec/example.com~1extra", "/spec/labels/example.com~1x/extra"]
        );
    }

    /// JSON of objects with keys from `keys` (names a test's schemas know, and some they do
    /// not), lists, and `null`s among the values.
    pub(crate) fn json_with_keys(keys: Vec<&'static str>) -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let key = proptest::sample::select(keys);
        let leaf = prop_oneof![Just(Value::Null), Just(json!(1)), Just(json!("s"))];
        leaf.prop_recursive(5, 64, 6, move |inner| {
            prop_oneof![
                proptest::collection::btree_map(key.clone(), inner.clone(), 0..6).prop_map(|m| json!(m)),
                proptest::collection::vec(inner, 0..3).prop_map(Value::from),
            ]
        })
    }

    fn value() -> impl proptest::strategy::Strategy<Value = Value> {
        json_with_keys(vec!["apiVersion", "kind", "metadata", "spec", "a", "n", "d", "l", "m", "b", "x", "e", "z"])
    }

    proptest::proptest! {
        /// One walk prunes and null-prunes as pruning and then null pruning do: under
        /// preserved unknown fields, boolean and schema `additionalProperties`, embedded
        /// resources, and a resource's meta fields, which pruning leaves and null pruning not.
        #[test]
        fn pruning_and_null_pruning_in_one_walk_is_both_in_turn(spec in value(), top in value()) {
            let node = json!({"type": "object", "properties": {
                "a": {"type": "string"}, "n": {"type": "integer", "nullable": true},
                "d": {"type": "integer", "default": 1},
                "l": {"type": "array", "items": {"type": "object", "properties": {
                    "a": {"type": "string"}, "n": {"type": "string", "nullable": true}}}},
                "m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"a": {"type": "integer"}}}},
                "b": {"type": "object", "additionalProperties": true},
                "x": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {
                    "a": {"type": "integer"},
                    "l": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}}}},
                "e": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {
                    "kind": {"type": "string"}, "metadata": {"type": "object", "properties": {"n": {"type": "string"}}},
                    "spec": {"type": "object", "properties": {"a": {"type": "string"}}}}}}});
            let roots = [
                json!({"type": "object", "properties": {"apiVersion": {"type": "string"},
                    "metadata": {"type": "object", "properties": {"n": {"type": "string"}}}, "spec": node.clone()}}),
                json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {
                    "kind": {"type": "string", "nullable": true}, "spec": node.clone()}}),
                json!({"type": "object", "additionalProperties": node}),
            ];
            let mut object = top;
            if let Value::Object(map) = &mut object {
                map.insert("spec".into(), spec);
            }
            for root in roots {
                let root = Schema::parse(&root, "").0;
                let (mut one, mut two) = (object.clone(), object.clone());
                let pruned_once = prune_resource_and_nulls(&mut one, &root);
                let pruned = prune_resource(&mut two, &root);
                prune_nulls(&mut two, &root);
                proptest::prop_assert_eq!(&one, &two);
                proptest::prop_assert_eq!(printed(&pruned_once), printed(&pruned));
            }
        }
    }

    fn schema(v: Value) -> Schema {
        let (s, errors) = Schema::parse(&v, "");
        assert!(errors.is_empty(), "{errors:?}");
        s
    }

    #[test]
    fn unknown_fields_are_removed_and_reported() {
        let root = schema(json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"a": {"type": "string"},
                "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}}}}}}));
        let mut obj = json!({"apiVersion": "v", "kind": "K", "metadata": {"name": "n"},
            "spec": {"a": "x", "b": 1, "list": [{"x": 1}, {"x": 2, "y": 3}]}, "unknown": true});
        let pruned = prune_resource(&mut obj, &root);
        assert_eq!(printed(&pruned), vec!["spec.b", "spec.list[1].y", "unknown"]);
        assert_eq!(
            obj,
            json!({"apiVersion": "v", "kind": "K", "metadata": {"name": "n"},
            "spec": {"a": "x", "list": [{"x": 1}, {"x": 2}]}})
        );
    }

    #[test]
    fn preservation_keeps_unknown_keys_but_not_inside_specified_children() {
        let root = schema(json!({"type": "object", "properties": {"spec": {
            "type": "object", "x-kubernetes-preserve-unknown-fields": true,
            "properties": {"known": {"type": "object", "properties": {"a": {"type": "string"}}}}}}}));
        let mut obj = json!({"spec": {"free": {"deep": 1}, "known": {"a": "x", "b": 2}}});
        assert_eq!(printed(&prune_resource(&mut obj, &root)), vec!["spec.known.b"]);
        assert_eq!(obj, json!({"spec": {"free": {"deep": 1}, "known": {"a": "x"}}}));
    }

    #[test]
    fn preservation_is_inherited_by_array_items() {
        let root = schema(json!({"type": "object", "properties": {"l": {
            "type": "array", "x-kubernetes-preserve-unknown-fields": true,
            "items": {"type": "object", "properties": {"a": {"type": "object"}}}}}}));
        let mut obj = json!({"l": [{"a": {"gone": 1}, "kept": 2}]});
        prune_resource(&mut obj, &root);
        assert_eq!(obj, json!({"l": [{"a": {}, "kept": 2}]}));
    }

    #[test]
    fn boolean_additional_properties_keep_keys_but_empty_objects() {
        let root = schema(json!({"type": "object", "properties": {"m": {
            "type": "object", "additionalProperties": true}}}));
        let mut obj = json!({"m": {"s": "x", "o": {"a": 1}, "l": [{"a": 1}, 2]}});
        prune_resource(&mut obj, &root);
        assert_eq!(obj, json!({"m": {"s": "x", "o": {}, "l": [{}, 2]}}));
    }

    #[test]
    fn embedded_resources_keep_their_meta_fields() {
        let root = schema(json!({"type": "object", "properties": {"t": {
            "type": "object", "x-kubernetes-embedded-resource": true,
            "properties": {"spec": {"type": "object"}}}}}));
        let mut obj = json!({"t": {"apiVersion": "v1", "kind": "Pod", "metadata": {"x": 1}, "spec": {"a": 1}, "z": 1}});
        assert_eq!(printed(&prune_resource(&mut obj, &root)), vec!["t.spec.a", "t.z"]);
        assert_eq!(obj, json!({"t": {"apiVersion": "v1", "kind": "Pod", "metadata": {"x": 1}, "spec": {}}}));
    }
}
