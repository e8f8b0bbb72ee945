//! Ratcheting on update (semantics §10): an OpenAPI value error is dropped when the node it is
//! about is unchanged from the old object at the correlated place, so an object stored before
//! a schema tightened can still be updated elsewhere.
//!
//! Correlation follows the apiserver: object properties and map entries by key, items of
//! `x-kubernetes-list-type: map` lists by their key values; atomic lists and sets correlate
//! only as a whole. Root `apiVersion`/`kind` are never correlated. TypeMeta, ObjectMeta,
//! embedded-resource and list-type errors are not ratcheted here (list types are all or
//! nothing, decided by the old object's own list-type errors).
//!
//! Both validators find the unchanged places their own way (the dynamic one walks the schema,
//! derived code its fields) into an [`Unchanged`], and filter their issues with it.

use std::collections::HashSet;

use serde_json::Value;

use crate::report::issue::Issue;
#[cfg(feature = "dynamic")]
use crate::report::path::Path;
use crate::report::path::Segment;

/// The places of a new object whose value equals the old object's at the correlated place.
#[derive(Debug, Default)]
pub struct Unchanged(HashSet<Vec<Segment>>);

impl Unchanged {
    /// Records an unchanged place.
    pub fn insert(&mut self, place: &dyn crate::report::path::Place) {
        self.0.insert(place.to_path().segments());
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `issue` is about an unchanged place: the node it was found at (the parent of a
    /// missing `required` key) or any node above it.
    pub fn covers(&self, issue: &Issue) -> bool {
        let segments = issue.path.segments();
        let node = match issue.keyword {
            "required" => &segments[..segments.len().saturating_sub(1)],
            _ => &segments[..],
        };
        (0..=node.len()).any(|n| self.0.contains(&node[..n]))
    }
}

/// For each new item of a list-map, the index of the old item with the same key values.
pub fn correlate_map_items(new: &[Value], old: &[Value], keys: &[&str]) -> Vec<Option<usize>> {
    // The key values as text (absent keys apart from null ones), hashed: a lookup per item,
    // not a scan of the old list, so a long list correlates in linear time.
    let key_of = |item: &Value| -> String {
        let values: Vec<(bool, Option<&Value>)> = keys.iter().map(|k| (item.get(*k).is_some(), item.get(*k))).collect();
        serde_json::to_string(&values).unwrap_or_default()
    };
    let mut first = std::collections::HashMap::new();
    for (j, item) in old.iter().enumerate() {
        first.entry(key_of(item)).or_insert(j);
    }
    new.iter().map(|item| first.get(&key_of(item)).copied()).collect()
}

/// The unchanged places of `new` against `old` under `schema` (the dynamic walk).
#[cfg(feature = "dynamic")]
pub fn unchanged(new: &Value, old: &Value, schema: &crate::schema::Schema) -> Unchanged {
    let mut out = Unchanged::default();
    walk(new, old, schema, &Path::root(), &mut out);
    out
}

/// [`unchanged`] for values that sit at `path` of larger objects, recorded into `out`.
#[cfg(feature = "dynamic")]
pub fn unchanged_at(new: &Value, old: &Value, schema: &crate::schema::Schema, path: &Path, out: &mut Unchanged) {
    walk(new, old, schema, path, out);
}

#[cfg(feature = "dynamic")]
fn walk(new: &Value, old: &Value, s: &crate::schema::Schema, path: &Path, out: &mut Unchanged) {
    if new == old {
        out.insert(path);
        return;
    }
    match (new, old) {
        (Value::Object(n), Value::Object(o)) => {
            for (k, child) in n {
                if path.is_root() && (k == "apiVersion" || k == "kind") {
                    continue;
                }
                if let (Some(old_child), Some((child_schema, child_path))) = (o.get(k), s.key_child(k, path)) {
                    walk(child, old_child, child_schema, &child_path, out);
                }
            }
        }
        (Value::Array(n), Value::Array(o)) if s.list_type.as_deref() == Some("map") => {
            let Some(item_schema) = s.items.as_deref() else { return };
            let keys: Vec<&str> = s.list_map_keys.iter().map(String::as_str).collect();
            for (i, j) in correlate_map_items(n, o, &keys).into_iter().enumerate() {
                if let Some(j) = j {
                    walk(&n[i], &o[j], item_schema, &path.index(i), out);
                }
            }
        }
        _ => {}
    }
}

#[cfg(all(test, feature = "dynamic"))]
mod tests {
    use super::*;
    use crate::report::issue::{BadValue, ErrorType};
    use serde_json::json;

    fn schema() -> crate::schema::Schema {
        crate::schema::Schema::parse(
            &json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
                "a": {"type": "integer"}, "b": {"type": "integer"},
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
                "tags": {"type": "array", "items": {"type": "string"}}}}}}),
            "",
        )
        .0
    }

    fn issue_at(path: Path, keyword: &'static str) -> Issue {
        Issue::new(ErrorType::Invalid, &path, keyword, BadValue::Omit, "")
    }

    #[test]
    fn unchanged_places_follow_keys_and_list_map_items() {
        let old = json!({"spec": {"a": 1, "b": 1, "ports": [{"name": "x", "port": 1}, {"name": "y", "port": 1}], "tags": ["t"]}});
        let new = json!({"spec": {"a": 1, "b": 2, "ports": [{"name": "y", "port": 1}, {"name": "x", "port": 2}], "tags": ["t", "u"]}});
        let u = unchanged(&new, &old, &schema());
        let spec = Path::root().key("spec");
        assert!(u.covers(&issue_at(spec.key("a"), "minimum")));
        assert!(!u.covers(&issue_at(spec.key("b"), "minimum")));
        assert!(u.covers(&issue_at(spec.key("ports").index(0).key("port"), "minimum")), "y moved but is unchanged");
        assert!(!u.covers(&issue_at(spec.key("ports").index(1).key("port"), "minimum")));
        assert!(!u.covers(&issue_at(spec.key("tags").index(0), "maxLength")), "atomic list items do not correlate");
        assert!(!u.covers(&issue_at(spec.key("c"), "required")), "the parent changed");
    }
}
