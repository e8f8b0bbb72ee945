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

use crate::schema::Schema;

const META: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// Prunes a whole custom resource against its version's root schema. Returns the paths of
/// the fields that were removed (`spec.foo`, `spec.list[1].b`), sorted.
pub fn prune_resource(object: &mut Value, root: &Schema) -> Vec<String> {
    let mut pruned = Vec::new();
    let mut path = String::new();
    prune(object, Some(root), true, &mut path, &mut pruned);
    pruned.sort();
    pruned
}

/// Prunes a value against the schema node it belongs to (used for defaults, which the
/// apiserver prunes when it loads the CRD).
pub fn prune_value(value: &mut Value, schema: &Schema) {
    let mut sink = Vec::new();
    let mut path = "value".to_owned();
    prune(value, Some(schema), schema.embedded_resource, &mut path, &mut sink);
}

fn push_key(path: &mut String, key: &str) -> usize {
    let len = path.len();
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
    len
}

fn push_index(path: &mut String, i: usize) -> usize {
    let len = path.len();
    path.push('[');
    path.push_str(&i.to_string());
    path.push(']');
    len
}

fn prune(value: &mut Value, schema: Option<&Schema>, is_resource: bool, path: &mut String, pruned: &mut Vec<String>) {
    if let Some(s) = schema
        && s.preserves_unknown_fields()
    {
        skip_prune(value, s, is_resource, path, pruned);
        return;
    }
    match value {
        Value::Object(map) => {
            let Some(s) = schema else {
                for k in map.keys() {
                    let len = push_key(path, k);
                    pruned.push(path.clone());
                    path.truncate(len);
                }
                map.clear();
                return;
            };
            let top_level = path.is_empty();
            map.retain(|k, v| {
                if is_resource && META.contains(&k.as_str()) {
                    return true;
                }
                let len = push_key(path, k);
                let keep = if let Some(p) = s.properties.get(k) {
                    prune(v, Some(p), p.embedded_resource, path, pruned);
                    true
                } else if let Some(ap) = &s.additional_properties {
                    let child = ap.schema();
                    prune(v, child, child.is_some_and(|c| c.embedded_resource), path, pruned);
                    true
                } else {
                    // apiVersion/kind/metadata at the very top are dropped silently.
                    if !(top_level && META.contains(&k.as_str())) {
                        pruned.push(path.clone());
                    }
                    false
                };
                path.truncate(len);
                keep
            });
        }
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            for (i, item) in items.iter_mut().enumerate() {
                let len = push_index(path, i);
                prune(item, item_schema, item_schema.is_some_and(|s| s.embedded_resource), path, pruned);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

fn skip_prune(value: &mut Value, s: &Schema, is_resource: bool, path: &mut String, pruned: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            let map: &mut Map<String, Value> = map;
            for (k, v) in map.iter_mut() {
                if is_resource && META.contains(&k.as_str()) {
                    continue;
                }
                let len = push_key(path, k);
                if let Some(p) = s.properties.get(k) {
                    prune(v, Some(p), p.embedded_resource, path, pruned);
                } else if let Some(ap) = &s.additional_properties {
                    let child = ap.schema();
                    prune(v, child, child.is_some_and(|c| c.embedded_resource), path, pruned);
                }
                path.truncate(len);
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = s.items.as_deref() {
                for (i, item) in items.iter_mut().enumerate() {
                    let len = push_index(path, i);
                    skip_prune(item, item_schema, item_schema.embedded_resource, path, pruned);
                    path.truncate(len);
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
        assert_eq!(pruned, vec!["spec.b", "spec.list[1].y", "unknown"]);
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
        assert_eq!(prune_resource(&mut obj, &root), vec!["spec.known.b"]);
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
        assert_eq!(prune_resource(&mut obj, &root), vec!["t.spec.a", "t.z"]);
        assert_eq!(obj, json!({"t": {"apiVersion": "v1", "kind": "Pod", "metadata": {"x": 1}, "spec": {}}}));
    }
}
