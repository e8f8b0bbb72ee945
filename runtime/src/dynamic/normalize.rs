//! What the apiserver does to a custom resource between decoding and validation, in its
//! order (`customresource_handler.go`): root `metadata` through `ObjectMeta`, pruning, null
//! pruning, embedded `metadata` through `ObjectMeta`, defaulting.

use serde_json::Value;

use crate::dynamic::default::Defaults;
#[cfg(feature = "yaml")]
use crate::dynamic::prune::Pruning;
use crate::dynamic::prune::prune_resource_and_nulls;
use crate::schema::Schema;
use crate::types::meta::ObjectMeta;

/// What normalization removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Normalized {
    /// Places of pruned unknown fields (`spec.foo`), sorted by their dotted form.
    pub pruned: Vec<crate::report::path::Path>,
}

/// A `metadata` that does not decode as `ObjectMeta` (the apiserver answers 400).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataError {
    /// The path of the metadata (`metadata`, `spec.template.metadata`).
    pub path: String,
    /// The decoder's message.
    pub message: String,
}

/// What normalizing the objects of one CRD version needs, worked out once for many objects.
#[derive(Clone, Debug)]
pub struct Normalizer<'s> {
    root: &'s Schema,
    defaults: Defaults<'s>,
    /// Whether any node is `x-kubernetes-embedded-resource`: most schemas have none, and
    /// their objects need no walk for embedded `metadata` (6% of the dynamic validator's
    /// time on a large HTTPRoute, issue 54).
    embeds_resources: bool,
}

impl<'s> Normalizer<'s> {
    /// The normalizer of objects whose root schema is `root`.
    pub fn new(root: &'s Schema) -> Self {
        Normalizer { root, defaults: Defaults::of(root), embeds_resources: root.any(&|s| s.embedded_resource) }
    }

    /// Whether the schema has an `x-kubernetes-embedded-resource` node anywhere.
    pub fn embeds_resources(&self) -> bool {
        self.embeds_resources
    }

    /// Normalizes a custom resource in place.
    pub fn normalize(&self, object: &mut Value) -> Result<Normalized, MetadataError> {
        if let Some(meta) = object.get_mut("metadata") {
            coerce_metadata(meta, "metadata")?;
        }
        let pruned = prune_resource_and_nulls(object, self.root);
        self.after_pruning(object)?;
        Ok(Normalized { pruned })
    }

    /// The pruning of a custom resource's document as it is converted
    /// ([`crate::read::yaml::Document::value_selected`]), for [`Normalizer::normalize_pruned`].
    #[cfg(feature = "yaml")]
    pub fn pruning<'t>(&self) -> Pruning<'s, 't> {
        Pruning::of_resource(self.root)
    }

    /// [`Normalizer::normalize`] of a custom resource `pruning` converted: its steps but
    /// pruning, in the same order (pruning's of root `metadata` after its round trip through
    /// `ObjectMeta`; the rest of pruning, done as the object was converted, touches no
    /// `metadata` the round trip reads).
    #[cfg(feature = "yaml")]
    pub fn normalize_pruned(&self, object: &mut Value, pruning: Pruning<'_, '_>) -> Result<Normalized, MetadataError> {
        if let Some(meta) = object.get_mut("metadata") {
            coerce_metadata(meta, "metadata")?;
        }
        let pruned = pruning.finish(object);
        self.after_pruning(object)?;
        Ok(Normalized { pruned })
    }

    /// What follows pruning: embedded `metadata`, defaults.
    fn after_pruning(&self, object: &mut Value) -> Result<(), MetadataError> {
        if self.embeds_resources {
            coerce_embedded(object, self.root, &String::new, true)?;
        }
        self.defaults.apply(object);
        Ok(())
    }
}

/// Round-trips a `metadata` value through `ObjectMeta`: unknown keys and empty values go.
/// A field that does not decode is dropped, as the request decoder does
/// (`GetObjectMetaWithOptions` with `DropMalformedFields`: each field is decoded on its own,
/// and those that fail are left out); a `metadata` that is not an object is refused.
fn coerce_metadata(meta: &mut Value, path: &str) -> Result<(), MetadataError> {
    let typed: ObjectMeta = match meta {
        Value::Null => return Ok(()),
        Value::Object(map) if round_trips_unchanged(map) => return Ok(()),
        // Read from the borrowed value: a copy of the map cost as much as the read.
        Value::Object(_) => match <ObjectMeta as serde::Deserialize>::deserialize(&*meta) {
            Ok(typed) => typed,
            Err(_) => {
                let decodes = |k: &String, v: &Value| {
                    let one = serde_json::Map::from_iter([(k.clone(), v.clone())]);
                    serde_json::from_value::<ObjectMeta>(Value::Object(one)).is_ok()
                };
                let kept: serde_json::Map<String, Value> = meta
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(k, v)| decodes(k, v))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                serde_json::from_value(Value::Object(kept))
                    .expect("invariant: fields that decode alone decode together")
            }
        },
        other => {
            let got = match other {
                Value::Bool(_) => "bool",
                Value::Number(_) => "float64",
                Value::String(_) => "string",
                _ => "[]interface {}",
            };
            return Err(MetadataError {
                path: path.to_owned(),
                message: format!("invalid metadata: expected object, got {got}"),
            });
        }
    };
    *meta = serde_json::to_value(typed).expect("invariant: ObjectMeta serializes");
    Ok(())
}

/// Whether the round trip through `ObjectMeta` gives `meta` back as it is: each key one that
/// `ObjectMeta` keeps as written (a string; a map or list of strings that is not empty). Most
/// objects' metadata is such (a name, a namespace, labels), and the round trip's two copies
/// were a fifth of the dynamic validator's time on a small certificate (issue 54).
fn round_trips_unchanged(meta: &serde_json::Map<String, Value>) -> bool {
    meta.iter().all(|(k, v)| match k.as_str() {
        "name" | "generateName" | "namespace" | "selfLink" | "uid" | "resourceVersion" | "creationTimestamp"
        | "deletionTimestamp" => v.is_string(),
        "labels" | "annotations" => v.as_object().is_some_and(|m| !m.is_empty() && m.values().all(Value::is_string)),
        "finalizers" => v.as_array().is_some_and(|l| !l.is_empty() && l.iter().all(Value::is_string)),
        _ => false,
    })
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") }
}

/// `path` is made only when an embedded `metadata` is coerced: most objects have none, and
/// a string per node of every object was 6% of the dynamic validator's time (issue 54).
fn coerce_embedded(
    value: &mut Value,
    schema: &Schema,
    path: &dyn Fn() -> String,
    is_root: bool,
) -> Result<(), MetadataError> {
    match value {
        Value::Object(map) => {
            if schema.embedded_resource
                && !is_root
                && let Some(meta) = map.get_mut("metadata")
            {
                coerce_metadata(meta, &join(&path(), "metadata"))?;
            }
            for (k, v) in map.iter_mut() {
                if let Some(child) = schema.schema_of_key(k) {
                    coerce_embedded(v, child, &|| join(&path(), k), false)?;
                }
            }
        }
        Value::Array(items) => {
            if let Some(i) = schema.items.as_deref() {
                for (n, item) in items.iter_mut().enumerate() {
                    coerce_embedded(item, i, &|| format!("{}[{n}]", path()), false)?;
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
        let n = Normalizer::new(&root).normalize(&mut obj).unwrap();
        assert_eq!(n.pruned.iter().map(crate::report::path::Path::openapi).collect::<Vec<_>>(), vec!["spec.junk"]);
        assert_eq!(
            obj,
            json!({"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n"},
            "spec": {"replicas": 1, "tpl": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}}})
        );
    }

    fn round_trip(meta: &Value) -> Option<Value> {
        serde_json::to_value(serde_json::from_value::<ObjectMeta>(meta.clone()).ok()?).ok()
    }

    /// A value of a metadata field: each shape the round trip keeps or changes.
    fn field_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let string = prop_oneof![Just(json!("")), "[a-z]{1,3}".prop_map(Value::from)];
        prop_oneof![
            string.clone(),
            Just(json!(null)),
            Just(json!(1)),
            Just(json!(1.5)),
            Just(json!(true)),
            proptest::collection::btree_map("[a-z]{1,2}", string.clone(), 0..3).prop_map(|m| json!(m)),
            Just(json!({"a": 1})),
            proptest::collection::vec(string, 0..3).prop_map(Value::from),
            Just(json!([1])),
            Just(json!([{"name": "o"}])),
        ]
    }

    proptest::proptest! {
        /// Metadata left as it is is what the round trip through `ObjectMeta` gives back.
        #[test]
        fn metadata_is_left_as_it_is_only_where_the_round_trip_would_leave_it(
            fields in proptest::collection::btree_map(
                proptest::sample::select(vec!["name", "generateName", "namespace", "uid", "selfLink",
                    "resourceVersion", "creationTimestamp", "deletionTimestamp", "labels", "annotations",
                    "finalizers", "generation", "ownerReferences", "managedFields", "bogus"]),
                field_value(),
                0..5,
            ),
        ) {
            let meta = json!(fields);
            if round_trips_unchanged(meta.as_object().unwrap()) {
                proptest::prop_assert_eq!(round_trip(&meta), Some(meta));
            }
        }
    }

    /// The shapes the round trip changes are never left as they are.
    #[test]
    fn metadata_the_round_trip_changes_is_round_tripped() {
        for m in [
            json!({"name": null}),
            json!({"labels": {}}),
            json!({"annotations": {"a": 1}}),
            json!({"finalizers": []}),
            json!({"generation": 1.0}),
            json!({"bogus": "x"}),
            json!({"creationTimestamp": null}),
            json!({"ownerReferences": [{"name": "o"}]}),
        ] {
            assert!(!round_trips_unchanged(m.as_object().unwrap()), "{m}");
            assert_ne!(round_trip(&m).as_ref(), Some(&m), "{m}");
        }
    }

    #[test]
    fn wrongly_typed_metadata_fields_are_dropped_and_metadata_that_is_no_object_is_an_error() {
        let (root, _) = Schema::parse(&json!({"type": "object"}), "");
        let mut obj = json!({"metadata": {"name": "n", "labels": {"a": 1}, "uid": 7, "annotations": {"k": "v"}}});
        Normalizer::new(&root).normalize(&mut obj).unwrap();
        assert_eq!(obj, json!({"metadata": {"name": "n", "annotations": {"k": "v"}}}));
        let err = Normalizer::new(&root).normalize(&mut json!({"metadata": "n"})).unwrap_err();
        assert_eq!(
            (err.path.as_str(), err.message.as_str()),
            ("metadata", "invalid metadata: expected object, got string")
        );
    }
}
