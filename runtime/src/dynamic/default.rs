//! Null pruning and defaulting, as the apiserver does them after pruning and before
//! validation (`apiextensions-apiserver/pkg/apiserver/schema/defaulting/`).
//!
//! - A `null` map entry whose schema is not nullable and has no default is deleted (so it
//!   reads as absent: no type error; a `Required value` if the field is required). The rule
//!   lives with pruning ([`crate::prune`]), which does both in one walk of a resource.
//! - A default fills an absent property, or a `null` one that is not nullable; defaults nest
//!   (a default `{}` gets its own properties' defaults), and are pruned first as the
//!   apiserver prunes them when it loads the CRD.
//! - Nullable with a default keeps an explicit `null`. Empty values are never replaced.

use serde_json::Value;

/// Null pruning, as [`crate::prune`] does it.
pub use crate::dynamic::prune::prune_nulls;
use crate::dynamic::prune::prune_value;
use crate::schema::Schema;

/// Applies the schema's defaults to a value (`algorithm.go`). Where one schema defaults many
/// values, build [`Defaults::of`] it once and apply that.
pub fn apply_defaults(value: &mut Value, schema: &Schema) {
    Defaults::of(schema).apply(value);
}

/// Where a schema's defaults go, worked out once: the defaulted properties of each node with
/// their defaults already pruned, and only the subtrees that have a default somewhere below.
///
/// Walking the schema instead looked at every property of every object node for a default,
/// and pruned a copy of a default each time it filled one: a quarter of the dynamic
/// validator's time on a large HTTPRoute (issue 54), whose only defaults are a few strings.
#[derive(Clone, Debug, Default)]
pub struct Defaults<'s> {
    /// Properties with a default: name, the default (pruned), whether `null` is kept.
    fill: Vec<(&'s str, Value, bool)>,
    /// Properties with defaults below them.
    properties: Vec<(&'s str, Defaults<'s>)>,
    /// `additionalProperties`, for the keys that are not properties.
    additional: Option<Box<Below<'s>>>,
    /// `items`.
    items: Option<Box<Below<'s>>>,
    /// Keys that are not properties are looked up only when `additional` is set.
    schema: Option<&'s Schema>,
}

/// A map value's or a list item's defaults: its own, for a non-nullable `null`, and those
/// below it.
#[derive(Clone, Debug)]
struct Below<'s> {
    null_becomes: Option<Value>,
    below: Defaults<'s>,
}

impl<'s> Defaults<'s> {
    /// The defaults of `schema` and the schemas under it.
    pub fn of(schema: &'s Schema) -> Self {
        let fill = schema
            .properties
            .iter()
            .filter_map(|(name, p)| Some((name.as_str(), pruned_default(p)?, p.nullable)))
            .collect();
        let properties = schema
            .properties
            .iter()
            .map(|(name, p)| (name.as_str(), Defaults::of(p)))
            .filter(|(_, d)| !d.is_empty())
            .collect();
        let below = |s: &'s Schema| {
            let below = Below { null_becomes: pruned_default(s).filter(|_| !s.nullable), below: Defaults::of(s) };
            (below.null_becomes.is_some() || !below.below.is_empty()).then(|| Box::new(below))
        };
        let additional = schema.additional_properties_schema().and_then(below);
        let items = schema.items.as_deref().and_then(below);
        Defaults { fill, properties, schema: additional.is_some().then_some(schema), additional, items }
    }

    /// Whether there is nothing to default.
    pub fn is_empty(&self) -> bool {
        self.fill.is_empty() && self.properties.is_empty() && self.additional.is_none() && self.items.is_none()
    }

    /// Fills the defaults into `value`: absent properties and non-nullable `null`s; a default
    /// filled in gets the defaults below it.
    pub fn apply(&self, value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (name, default, nullable) in &self.fill {
                    let fill = match map.get(*name) {
                        None => true,
                        Some(v) => v.is_null() && !nullable,
                    };
                    if fill {
                        map.insert((*name).to_owned(), default.clone());
                    }
                }
                for (name, below) in &self.properties {
                    if let Some(v) = map.get_mut(*name) {
                        below.apply(v);
                    }
                }
                if let (Some(additional), Some(schema)) = (&self.additional, self.schema) {
                    for (_, v) in map.iter_mut().filter(|(k, _)| !schema.properties.contains_key(k)) {
                        additional.apply(v);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(each) = &self.items {
                    items.iter_mut().for_each(|item| each.apply(item));
                }
            }
            _ => {}
        }
    }
}

impl Below<'_> {
    fn apply(&self, value: &mut Value) {
        if value.is_null()
            && let Some(d) = &self.null_becomes
        {
            *value = d.clone();
        }
        self.below.apply(value);
    }
}

/// A default as the apiserver keeps it: pruned when it loads the CRD.
fn pruned_default(schema: &Schema) -> Option<Value> {
    schema.default.clone().map(|mut d| {
        prune_value(&mut d, schema);
        d
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> Schema {
        Schema::parse(&v, "").0
    }

    /// The apiserver's `Default` (`defaulting/algorithm.go`) as it is written: fill each
    /// defaulted property that is absent or a non-nullable `null`, then default every value
    /// by its schema.
    fn default_as_written(value: &mut Value, s: &Schema) {
        let filled = |d: &Value, s: &Schema| {
            let mut d = d.clone();
            prune_value(&mut d, s);
            d
        };
        match value {
            Value::Object(map) => {
                for (k, p) in s.properties.iter() {
                    let Some(d) = &p.default else { continue };
                    if map.get(k).is_none_or(|v| v.is_null() && !p.nullable) {
                        map.insert(k.clone(), filled(d, p));
                    }
                }
                for (k, v) in map.iter_mut() {
                    if let Some(p) = s.properties.get(k) {
                        default_as_written(v, p);
                    } else if let Some(a) = s.additional_properties_schema() {
                        if let Some(d) = a.default.as_ref().filter(|_| v.is_null() && !a.nullable) {
                            *v = filled(d, a);
                        }
                        default_as_written(v, a);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(i) = s.items.as_deref() {
                    for v in items {
                        if let Some(d) = i.default.as_ref().filter(|_| v.is_null() && !i.nullable) {
                            *v = filled(d, i);
                        }
                        default_as_written(v, i);
                    }
                }
            }
            _ => {}
        }
    }

    fn value() -> impl proptest::strategy::Strategy<Value = Value> {
        crate::dynamic::prune::tests::json_with_keys(vec!["a", "b", "c", "d", "e", "m", "l", "z"])
    }

    proptest::proptest! {
        /// The defaults worked out once fill what the apiserver's algorithm fills: nested
        /// defaults, nullable ones, defaults of map values and list items, under absent and
        /// `null` places.
        #[test]
        fn defaults_fill_what_the_apiservers_algorithm_fills(object in value()) {
            let inner = json!({"type": "object", "properties": {
                "a": {"type": "integer", "default": 1},
                "b": {"type": "string", "nullable": true, "default": "x"},
                "c": {"type": "object", "default": {"a": 2, "junk": 3}, "properties": {
                    "a": {"type": "integer"}, "d": {"type": "string", "default": "deep"}}},
                "z": {"type": "string"}}});
            let root = schema(json!({"type": "object", "properties": {
                "a": {"type": "integer", "default": 5},
                "d": {"type": "object", "default": {}, "properties": {"e": inner.clone()}},
                "e": inner.clone(),
                "m": {"type": "object", "additionalProperties": {"type": "object", "default": {"c": null}, "properties": {
                    "c": {"type": "object", "nullable": true, "properties": {"a": {"type": "integer", "default": 9}}},
                    "a": {"type": "integer", "default": 4}}}},
                "l": {"type": "array", "items": inner},
                "b": {"type": "array", "items": {"type": "string", "default": "item"}}}}));
            let (mut fast, mut written) = (object.clone(), object);
            Defaults::of(&root).apply(&mut fast);
            default_as_written(&mut written, &root);
            proptest::prop_assert_eq!(fast, written);
        }
    }

    #[test]
    fn non_nullable_nulls_without_default_are_deleted() {
        let s = schema(json!({"type": "object", "properties": {
            "a": {"type": "integer"}, "b": {"type": "integer", "nullable": true},
            "c": {"type": "integer", "default": 3}, "l": {"type": "array", "items": {"type": "string"}}}}));
        let mut v = json!({"a": null, "b": null, "c": null, "l": [null], "unknown": null});
        prune_nulls(&mut v, &s);
        assert_eq!(v, json!({"b": null, "c": null, "l": [null], "unknown": null}));
    }

    #[test]
    fn defaults_fill_absent_and_non_nullable_nulls_and_nest() {
        let s = schema(json!({"type": "object", "properties": {
            "spec": {"type": "object", "default": {}, "properties": {
                "replicas": {"type": "integer", "default": 1},
                "mode": {"type": "string", "nullable": true, "default": "fast"},
                "empty": {"type": "string", "default": "x"}}}}}));
        let mut v = json!({});
        apply_defaults(&mut v, &s);
        assert_eq!(v, json!({"spec": {"replicas": 1, "mode": "fast", "empty": "x"}}));

        let mut v = json!({"spec": {"replicas": null, "mode": null, "empty": ""}});
        apply_defaults(&mut v, &s);
        assert_eq!(v, json!({"spec": {"replicas": 1, "mode": null, "empty": ""}}));
    }

    #[test]
    fn defaults_are_pruned_before_they_are_applied() {
        let s = schema(json!({"type": "object", "properties": {
            "o": {"type": "object", "default": {"a": 1, "junk": 2}, "properties": {"a": {"type": "integer"}}}}}));
        let mut v = json!({});
        apply_defaults(&mut v, &s);
        assert_eq!(v, json!({"o": {"a": 1}}));
    }
}
