//! Null pruning and defaulting, as the apiserver does them after pruning and before
//! validation (`apiextensions-apiserver/pkg/apiserver/schema/defaulting/`).
//!
//! - A `null` map entry whose schema is not nullable and has no default is deleted (so it
//!   reads as absent: no type error; a `Required value` if the field is required).
//! - A default fills an absent property, or a `null` one that is not nullable; defaults nest
//!   (a default `{}` gets its own properties' defaults), and are pruned first as the
//!   apiserver prunes them when it loads the CRD.
//! - Nullable with a default keeps an explicit `null`. Empty values are never replaced.

use serde_json::Value;

use crate::dynamic::prune::prune_value;
use crate::schema::Schema;

/// Deletes the `null` entries of non-nullable, non-defaulted fields (`prunenulls.go`).
pub fn prune_nulls(value: &mut Value, schema: &Schema) {
    match value {
        Value::Object(map) => {
            map.retain(|k, v| match schema.schema_of_key(k) {
                Some(c) if v.is_null() && !c.nullable && c.default.is_none() => false,
                Some(c) => {
                    prune_nulls(v, c);
                    true
                }
                None => true,
            });
        }
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

fn default_of(schema: &Schema) -> Option<Value> {
    schema.default.clone().map(|mut d| {
        prune_value(&mut d, schema);
        d
    })
}

/// Applies the schema's defaults to a value (`algorithm.go`).
pub fn apply_defaults(value: &mut Value, schema: &Schema) {
    match value {
        Value::Object(map) => {
            for (k, prop) in &schema.properties {
                if prop.default.is_none() {
                    continue;
                }
                let fill = match map.get(k) {
                    None => true,
                    Some(v) => v.is_null() && !prop.nullable,
                };
                if fill && let Some(d) = default_of(prop) {
                    map.insert(k.clone(), d);
                }
            }
            for (k, v) in map.iter_mut() {
                if let Some(prop) = schema.properties.get(k) {
                    apply_defaults(v, prop);
                } else if let Some(ap) = schema.additional_properties_schema() {
                    if v.is_null()
                        && !ap.nullable
                        && let Some(d) = default_of(ap)
                    {
                        *v = d;
                    }
                    apply_defaults(v, ap);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.items.as_deref() {
                for item in items {
                    if item.is_null()
                        && !item_schema.nullable
                        && let Some(d) = default_of(item_schema)
                    {
                        *item = d;
                    }
                    apply_defaults(item, item_schema);
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
        Schema::parse(&v, "").0
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
