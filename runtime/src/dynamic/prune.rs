//! Pruning of unknown fields, as the apiserver does it before defaulting and validation
//! (`apiextensions-apiserver/pkg/apiserver/schema/pruning/algorithm.go`).
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
    let mut pruned = Vec::new();
    prune(object, Some(root), true, &At::ROOT, &mut pruned);
    // The apiserver's order: by the dotted path it prints.
    let mut keyed: Vec<(String, Path)> = pruned.into_iter().map(|p| (p.openapi(), p)).collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.into_iter().map(|(_, p)| p).collect()
}

/// Prunes a value against the schema node it belongs to (used for defaults, which the
/// apiserver prunes when it loads the CRD).
pub fn prune_value(value: &mut Value, schema: &Schema) {
    let mut sink = Vec::new();
    let base = Path::root().key("value");
    prune(value, Some(schema), schema.embedded_resource, &At::under(&base), &mut sink);
}

/// A child's place: a property of the schema, or a key of its `additionalProperties` map.
fn child<'a>(at: &'a At<'a>, s: Option<&Schema>, k: &'a str) -> At<'a> {
    match s {
        Some(s) if !s.properties.contains_key(k) && s.additional_properties.is_some() => at.key(k),
        _ => at.field(k),
    }
}

/// `path` becomes a [`Path`] only where a field is pruned.
fn prune(value: &mut Value, schema: Option<&Schema>, is_resource: bool, path: &At<'_>, pruned: &mut Vec<Path>) {
    if let Some(s) = schema
        && s.preserves_unknown_fields()
    {
        skip_prune(value, s, is_resource, path, pruned);
        return;
    }
    match value {
        Value::Object(map) => {
            let Some(s) = schema else {
                pruned.extend(map.keys().map(|k| path.field(k).to_path()));
                map.clear();
                return;
            };
            let top_level = path.is_root();
            retain_rarely(map, |k, v| {
                if is_resource && META.contains(&k.as_str()) {
                    return true;
                }
                if let Some(p) = s.properties.get(k) {
                    prune(v, Some(p), p.embedded_resource, &path.field(k), pruned);
                    true
                } else if let Some(ap) = &s.additional_properties {
                    let child = ap.schema();
                    prune(v, child, child.is_some_and(|c| c.embedded_resource), &path.key(k), pruned);
                    true
                } else {
                    if !(top_level && META.contains(&k.as_str())) {
                        pruned.push(path.field(k).to_path());
                    }
                    false
                }
            });
        }
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            for (i, item) in items.iter_mut().enumerate() {
                prune(item, item_schema, item_schema.is_some_and(|s| s.embedded_resource), &path.index(i), pruned);
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

fn skip_prune(value: &mut Value, s: &Schema, is_resource: bool, path: &At<'_>, pruned: &mut Vec<Path>) {
    match value {
        Value::Object(map) => {
            let map: &mut Map<String, Value> = map;
            for (k, v) in map.iter_mut() {
                if is_resource && META.contains(&k.as_str()) {
                    continue;
                }
                if let Some(p) = s.properties.get(k) {
                    prune(v, Some(p), p.embedded_resource, &child(path, Some(s), k), pruned);
                } else if let Some(ap) = &s.additional_properties {
                    let c = ap.schema();
                    prune(v, c, c.is_some_and(|c| c.embedded_resource), &child(path, Some(s), k), pruned);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = s.items.as_deref() {
                for (i, item) in items.iter_mut().enumerate() {
                    skip_prune(item, item_schema, item_schema.embedded_resource, &path.index(i), pruned);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
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
