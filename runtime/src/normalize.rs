//! What the apiserver does to a custom resource between decoding and validation, in its
//! order (`customresource_handler.go`): root `metadata` through `ObjectMeta`, pruning, null
//! pruning, embedded `metadata` through `ObjectMeta`, defaulting.

use serde_json::Value;

use crate::ObjectMeta;
use crate::default::{apply_defaults, prune_nulls};
use crate::prune::prune_resource;
use crate::schema::Schema;

/// What normalization removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Normalized {
    /// Places of pruned unknown fields (`spec.foo`), sorted by their dotted form.
    pub pruned: Vec<crate::path::Path>,
}

/// A `metadata` that does not decode as `ObjectMeta` (the apiserver answers 400).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataError {
    /// The path of the metadata (`metadata`, `spec.template.metadata`).
    pub path: String,
    /// The decoder's message.
    pub message: String,
}

/// Normalizes a custom resource in place against its version's root schema.
pub fn normalize_resource(object: &mut Value, root: &Schema) -> Result<Normalized, MetadataError> {
    if let Some(meta) = object.get_mut("metadata") {
        coerce_metadata(meta, "metadata")?;
    }
    let pruned = prune_resource(object, root);
    prune_nulls(object, root);
    coerce_embedded(object, root, "", true)?;
    apply_defaults(object, root);
    Ok(Normalized { pruned })
}

/// Round-trips a `metadata` value through `ObjectMeta`: unknown keys and empty values go.
fn coerce_metadata(meta: &mut Value, path: &str) -> Result<(), MetadataError> {
    if meta.is_null() {
        return Ok(());
    }
    let typed: ObjectMeta = serde_json::from_value(meta.clone())
        .map_err(|e| MetadataError { path: path.to_owned(), message: e.to_string() })?;
    *meta = serde_json::to_value(typed).expect("invariant: ObjectMeta serializes");
    Ok(())
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") }
}

fn coerce_embedded(value: &mut Value, schema: &Schema, path: &str, is_root: bool) -> Result<(), MetadataError> {
    match value {
        Value::Object(map) => {
            if schema.embedded_resource
                && !is_root
                && let Some(meta) = map.get_mut("metadata")
            {
                coerce_metadata(meta, &join(path, "metadata"))?;
            }
            for (k, v) in map.iter_mut() {
                if let Some(child) = schema.schema_of_key(k) {
                    coerce_embedded(v, child, &join(path, k), false)?;
                }
            }
        }
        Value::Array(items) => {
            if let Some(i) = schema.items.as_deref() {
                for (n, item) in items.iter_mut().enumerate() {
                    coerce_embedded(item, i, &format!("{path}[{n}]"), false)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn runs_the_steps_in_the_apiservers_order() {
        let (root, _) = Schema::parse(
            &json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
                "replicas": {"type": "integer", "default": 1},
                "name": {"type": "string"},
                "tpl": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}}}}}),
            "",
        );
        let mut obj = json!({"apiVersion": "x/v1", "kind": "K",
            "metadata": {"name": "n", "creationTimestamp": null, "bogus": 1},
            "spec": {"replicas": null, "name": null, "junk": 1,
                     "tpl": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "nope": 2}}}});
        let n = normalize_resource(&mut obj, &root).unwrap();
        assert_eq!(n.pruned.iter().map(crate::path::Path::openapi).collect::<Vec<_>>(), vec!["spec.junk"]);
        assert_eq!(
            obj,
            json!({"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n"},
            "spec": {"replicas": 1, "tpl": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}}})
        );
    }

    #[test]
    fn wrongly_typed_metadata_is_an_error() {
        let (root, _) = Schema::parse(&json!({"type": "object"}), "");
        let err = normalize_resource(&mut json!({"metadata": {"labels": {"a": 1}}}), &root).unwrap_err();
        assert_eq!(err.path, "metadata");
    }
}
