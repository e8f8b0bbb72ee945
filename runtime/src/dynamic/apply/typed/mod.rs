//! The walks structured-merge-diff makes over a value and its type: the set of fields a value
//! sets (`ToFieldSet`), the merge of an applied configuration into a live object (`Merge`),
//! what changed between two objects (`Compare`), and the removal (or extraction) of a set of
//! fields (`RemoveItems`, `ExtractItems`). Each is a port of upstream's walker of that name,
//! case for case; where upstream is subtle the comment says what it does.
//!
//! One file per walker, as upstream's `typed/` has them; this one holds what they share:
//! list items' keys, the union of two maps' keys, the element map.

pub(crate) mod compare;
pub(crate) mod merge;
pub(crate) mod reconcile;
pub(crate) mod remove;
pub(crate) mod tofieldset;
pub(crate) mod validate;

use std::collections::HashMap;
use std::hash::Hash;
use std::iter::Peekable;

use serde_json::{Map, Value};

use crate::dynamic::apply::path::{ItemKey, KeyFields};
use crate::dynamic::apply::types::{ListMerge, Ty};

static NULL: Value = Value::Null;

/// The path element of a list item, borrowed (made an element only where a set records it):
/// its keys (with the key fields' defaults) in a map list, its value in a set. Upstream's
/// words where the item cannot have one.
pub(crate) fn item_key<'v>(kind: ListMerge<'v>, items: Ty<'v>, item: &'v Value) -> Result<ItemKey<'v>, String> {
    match kind {
        ListMerge::Atomic => Err("invalid indexing of non-associative list".into()),
        ListMerge::Set => match item {
            Value::Object(_) => Err("associative list without keys has an element that's a map type".into()),
            Value::Array(_) => Err("not supported: associative list with lists as elements".into()),
            Value::Null => Err("associative list without keys has an element that's an explicit null".into()),
            v => Ok(ItemKey::Value(v)),
        },
        ListMerge::Map(keys) => {
            let Value::Object(map) = item else {
                return Err(match item {
                    Value::Null => "associative list with keys may not have a null element".into(),
                    _ => "associative list with keys may not have non-map elements".into(),
                });
            };
            if let [key] = keys
                && let Some(v) = map.get(key).or_else(|| key_default(items, key))
            {
                return Ok(ItemKey::Key(KeyFields::One([(key.as_str(), v)])));
            }
            let fields: Vec<(&str, &Value)> = keys
                .iter()
                .filter_map(|key| map.get(key).or_else(|| key_default(items, key)).map(|v| (key.as_str(), v)))
                .collect();
            if !keys.is_empty() && fields.is_empty() {
                let quoted: Vec<String> = keys.iter().map(|k| crate::report::issue::go_quote(k)).collect();
                return Err(format!(
                    "associative list with keys has an element that omits all key fields [{}] (and doesn't have default values for any key fields)",
                    quoted.join(" ")
                ));
            }
            Ok(ItemKey::Key(KeyFields::of(fields)))
        }
    }
}

/// A list's items by path element: a few found by a scan, many by a hash with a per-process
/// seed. Nearly every list is short (a list of two tags in each of 45,000 items made a hash
/// table per item per walk, most of a merge's time), and a long one must not be quadratic.
struct ElementMap<K, V> {
    few: Vec<(K, V)>,
    many: Option<HashMap<K, V, foldhash::fast::RandomState>>,
}

impl<K: Eq + Hash, V> ElementMap<K, V> {
    /// Past this many, a scan costs more than a hash.
    const FEW: usize = 16;

    fn with_capacity(n: usize) -> Self {
        if n <= Self::FEW {
            ElementMap { few: Vec::with_capacity(n), many: None }
        } else {
            ElementMap { few: Vec::new(), many: Some(HashMap::with_capacity_and_hasher(n, Default::default())) }
        }
    }

    fn get(&self, key: &K) -> Option<&V> {
        match &self.many {
            Some(many) => many.get(key),
            None => self.few.iter().find(|(k, _)| k == key).map(|(_, v)| v),
        }
    }

    fn contains_key(&self, key: &K) -> bool {
        self.get(key).is_some()
    }

    /// The value at `key`, inserted by `value` first if absent.
    fn get_or_insert_with(&mut self, key: K, value: impl FnOnce() -> V) -> &mut V {
        if self.many.is_none() && self.few.len() >= Self::FEW && !self.few.iter().any(|(k, _)| *k == key) {
            self.many = Some(std::mem::take(&mut self.few).into_iter().collect());
        }
        match &mut self.many {
            Some(many) => many.entry(key).or_insert_with(value),
            None => match self.few.iter().position(|(k, _)| *k == key) {
                Some(at) => &mut self.few[at].1,
                None => {
                    self.few.push((key, value()));
                    &mut self.few.last_mut().expect("invariant: just pushed").1
                }
            },
        }
    }
}

fn key_default<'s>(items: Ty<'s>, key: &str) -> Option<&'s Value> {
    match items {
        Ty::Schema(s) => s.properties.get(key).and_then(|p| p.default.as_ref()),
        Ty::Deduced => None,
    }
}

/// The keys of either map, each once, in order. serde_json's maps iterate in key order (a
/// `BTreeMap`), walked together without a copy; with `preserve_order` (an `IndexMap`, if a
/// dependent turns it on) they are gathered and sorted.
fn union_keys<'m>(l: Option<&'m Map<String, Value>>, r: Option<&'m Map<String, Value>>) -> UnionKeys<'m> {
    let sorted = |m: Option<&Map<String, Value>>| m.is_none_or(|m| m.keys().is_sorted());
    let (l_keys, r_keys) = (l.into_iter().flat_map(Map::keys), r.into_iter().flat_map(Map::keys));
    if !(sorted(l) && sorted(r)) {
        let mut keys: Vec<&String> = l_keys.chain(r_keys).collect();
        keys.sort();
        keys.dedup();
        return UnionKeys::Gathered(keys.into_iter());
    }
    UnionKeys::Walked(l.map(|m| m.keys().peekable()), r.map(|m| m.keys().peekable()))
}

/// [`union_keys`]' keys: two sorted maps' walked together (a merge of a list of 10,000 items
/// gathered them into a vector per item), or gathered and sorted.
enum UnionKeys<'m> {
    Walked(Option<Peekable<serde_json::map::Keys<'m>>>, Option<Peekable<serde_json::map::Keys<'m>>>),
    Gathered(std::vec::IntoIter<&'m String>),
}

impl<'m> Iterator for UnionKeys<'m> {
    type Item = &'m String;

    fn next(&mut self) -> Option<&'m String> {
        let (l, r) = match self {
            UnionKeys::Gathered(keys) => return keys.next(),
            UnionKeys::Walked(l, r) => (l, r),
        };
        let (Some(l), Some(r)) = (l.as_mut(), r.as_mut()) else {
            return l.as_mut().or(r.as_mut()).and_then(Iterator::next);
        };
        match (l.peek(), r.peek()) {
            (Some(a), Some(b)) if a == b => {
                r.next();
                l.next()
            }
            (Some(a), Some(b)) if a < b => l.next(),
            (Some(_), Some(_)) | (None, _) => r.next(),
            (Some(_), None) => l.next(),
        }
    }
}

fn as_list(v: Option<&Value>) -> Option<&[Value]> {
    match v {
        Some(Value::Array(items)) => Some(items),
        _ => None,
    }
}

fn as_map(v: Option<&Value>) -> Option<&Map<String, Value>> {
    match v {
        Some(Value::Object(map)) => Some(map),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::remove::*;
    use super::tofieldset::*;

    use super::*;
    use crate::dynamic::apply::set::FieldSet;
    use crate::dynamic::crd::Crd;
    use crate::schema::Schema;

    /// A schema with each kind of node a removal meets: a map list (one key; two keys, one
    /// defaulted), a set, a granular and an atomic map, an atomic list, a struct, a field of
    /// no declared type.
    fn schema() -> Schema {
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
          "names": {"kind": "Thing", "plural": "things"},
          "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
            "type": "object", "properties": {"spec": {"type": "object", "properties": {
              "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {
                  "name": {"type": "string"}, "value": {"type": "integer"},
                  "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                  "sub": {"type": "object", "properties": {"p": {"type": "string"}, "q": {"type": "string"}}}}}},
              "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
                "items": {"type": "object", "properties": {"port": {"type": "integer"},
                  "protocol": {"type": "string", "default": "TCP"}, "name": {"type": "string"}}}},
              "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
              "labels": {"type": "object", "additionalProperties": {"type": "string"}},
              "whole": {"type": "object", "x-kubernetes-map-type": "atomic", "additionalProperties": {"type": "string"}},
              "atomic": {"type": "array", "items": {"type": "string"}},
              "obj": {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "string"}}},
              "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
            }}}}}}]}});
        Crd::parse(&crd).0.versions[0].schema.clone().expect("a schema")
    }

    fn word() -> impl Strategy<Value = Value> {
        prop_oneof![Just(json!("a")), Just(json!("b")), Just(json!("c"))]
    }

    /// An object with fields present or not, now and then empty, null, repeated or of another
    /// type than declared.
    fn object() -> impl Strategy<Value = Value> {
        let maybe = |v: BoxedStrategy<Value>| proptest::option::of(v);
        let strings = || proptest::collection::vec(word(), 0..3).prop_map(Value::from).boxed();
        let sub = (maybe(word().boxed()), maybe(word().boxed())).prop_map(|(p, q)| {
            let mut map = Map::new();
            map.extend(p.map(|p| ("p".to_owned(), p)));
            map.extend(q.map(|q| ("q".to_owned(), q)));
            Value::Object(map)
        });
        let item = prop_oneof![
            8 => (maybe(word().boxed()), maybe(Just(json!(1)).boxed()), maybe(strings()), maybe(sub.boxed())).prop_map(
                |(name, value, tags, sub)| {
                    let mut map = Map::new();
                    for (k, v) in [("name", name), ("value", value), ("tags", tags), ("sub", sub)] {
                        map.extend(v.map(|v| (k.to_owned(), v)));
                    }
                    Value::Object(map)
                }
            ),
            1 => Just(Value::Null),
        ];
        let port = (
            prop_oneof![Just(json!(1)), Just(json!(2))],
            maybe(prop_oneof![Just(json!("TCP")), Just(json!("UDP"))].boxed()),
            maybe(word().boxed()),
        )
            .prop_map(|(port, protocol, name)| {
                let mut map = Map::new();
                map.insert("port".into(), port);
                map.extend(protocol.map(|p| ("protocol".to_owned(), p)));
                map.extend(name.map(|n| ("name".to_owned(), n)));
                Value::Object(map)
            });
        let labels = proptest::collection::btree_map(
            prop_oneof![Just("a".to_owned()), Just("b".to_owned())],
            prop_oneof![word(), Just(Value::Null)],
            0..3,
        )
        .prop_map(|m| Value::Object(m.into_iter().collect()));
        let obj = prop_oneof![
            (maybe(word().boxed()), maybe(word().boxed())).prop_map(|(x, y)| {
                let mut map = Map::new();
                map.extend(x.map(|x| ("x".to_owned(), x)));
                map.extend(y.map(|y| ("y".to_owned(), y)));
                Value::Object(map)
            }),
            Just(json!("not a map")),
        ];
        let free = prop_oneof![Just(json!({})), Just(json!({"a": {"b": 1}, "c": [1, 2]})), Just(json!({"a": {}}))];
        (
            maybe(proptest::collection::vec(item, 0..4).prop_map(Value::from).boxed()),
            maybe(proptest::collection::vec(port, 0..3).prop_map(Value::from).boxed()),
            maybe(strings()),
            maybe(labels.boxed()),
            maybe(labels_whole().boxed()),
            maybe(strings()),
            maybe(obj.boxed()),
            maybe(free.boxed()),
        )
            .prop_map(|(items, ports, set, labels, whole, atomic, obj, free)| {
                let mut spec = Map::new();
                let fields = [
                    ("items", items),
                    ("ports", ports),
                    ("set", set),
                    ("labels", labels),
                    ("whole", whole),
                    ("atomic", atomic),
                    ("obj", obj),
                    ("free", free),
                ];
                for (k, v) in fields {
                    spec.extend(v.map(|v| (k.to_owned(), v)));
                }
                json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}, "spec": spec})
            })
    }

    fn labels_whole() -> impl Strategy<Value = Value> {
        prop_oneof![Just(json!({})), Just(json!({"a": "b"}))]
    }

    /// A map made for few holds many once they come: each key once, its first value kept.
    #[test]
    fn element_maps_hold_more_than_they_were_made_for() {
        let mut map = ElementMap::with_capacity(2);
        for round in 0..2 {
            for i in 0..40 {
                *map.get_or_insert_with(i, || i * 10 + round) += 0;
            }
        }
        assert!((0..40).all(|i| map.get(&i) == Some(&(i * 10))));
        assert!(!map.contains_key(&40));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Prune reads the fields of what a removal leaves off the object's own set; they are
        /// those of the object the removal makes, whatever is removed: members, paths below
        /// them, paths the object does not have.
        #[test]
        fn fields_after_removal_are_those_of_the_object_left(
            value in object(),
            other in object(),
            picks in proptest::collection::vec((any::<usize>(), any::<usize>()), 0..6),
        ) {
            let schema = schema();
            let ty = Ty::Schema(&schema);
            let fields = to_named_field_set(ty, &value);
            let mut paths = fields.paths();
            paths.extend(to_field_set(ty, &other).paths());
            let mut removed = FieldSet::new();
            if !paths.is_empty() {
                for (which, cut) in picks {
                    let path = &paths[which % paths.len()];
                    removed.insert(&path[..1 + cut % path.len()]);
                }
            }
            let expected = to_named_field_set(ty, &remove_items(ty, &value, &removed));
            prop_assert_eq!(named_fields_after_removal(ty, &value, &fields, &removed), expected);
        }
    }
}
