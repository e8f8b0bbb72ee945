//! The round trip CRD → generated Rust → `T::schema()`: the schema the derive gives a generated
//! type must be the schema it was generated from. These are the only differences allowed, each
//! because the apiserver treats both forms alike; everything else is a difference to fix.
//!
//! 1. **Documentation** (`description`, `title`, `example`, `externalDocs`) is left out on both
//!    sides: the corpus is generated without docs, and the apiserver validates nothing with it.
//! 2. **Zero values**: `false` of a boolean keyword (`nullable`, `uniqueItems`, ...) and an
//!    empty `required` or `enum` are dropped: the apiserver decodes them into its Go struct as
//!    the zero value, the same as absent.
//! 3. **`required` is a set**: compared sorted and without repeats (each entry is checked on its
//!    own; the derive lists them in field order, the CRD in its own).
//! 4. **Type metadata of resources**: at the root and in an `x-kubernetes-embedded-resource`
//!    node, `apiVersion` and `kind` as `{type: string}` and `metadata` as `{type: object}` are
//!    dropped, and so are the `required` entries of `apiVersion` and `kind` (and of `metadata`
//!    at the root): the apiserver adds exactly these properties to every resource schema, and
//!    refuses an object (or embedded resource) without an apiVersion and kind before the
//!    schema is asked; the root always has metadata.
//! 5. **Numbers** compare as the apiserver reads them, float64: `1` and `1.0` are one bound.
//! 6. **Defaulted properties are not required**: a property with a `default` is dropped from
//!    its parent's `required` (the derive refuses both on one field). The apiserver defaults
//!    before it validates, so it never finds such a property missing.
//! 7. **`items` on a node that is not an array** is dropped: the apiserver applies `items` to
//!    arrays only (rook's `authentication: {type: object, items: {...}}`).
//! 8. **Items of a preserving list**: an array with `x-kubernetes-preserve-unknown-fields`
//!    keeps the unknown fields of its items whether they say so or not (the apiserver's pruning
//!    passes preservation down to them), so on its items the flag is compared as inherited.
//!
//! This file needs nothing but `serde_json`: the kube-rs mode corpus crate includes it in the
//! `round_trip` example `corpus-crate --kube` writes, so both modes compare by these rules.

use serde_json::{Map, Value};

const DOCUMENTATION: &[&str] = &["description", "title", "example", "externalDocs"];
const BOOLEAN_KEYWORDS: &[&str] = &[
    "nullable",
    "uniqueItems",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
];

/// `schema` with the allowed differences taken out (see the module docs).
pub fn normalize(schema: &Value) -> Value {
    node(schema, true)
}

fn node(v: &Value, root: bool) -> Value {
    let Value::Object(m) = v else { return v.clone() };
    let mut out = Map::new();
    for (key, value) in m {
        let k = key.as_str();
        if DOCUMENTATION.contains(&k) {
            continue;
        }
        if BOOLEAN_KEYWORDS.contains(&k) && *value == Value::Bool(false) {
            continue;
        }
        if matches!(k, "required" | "enum") && value.as_array().is_some_and(Vec::is_empty) {
            continue;
        }
        let value = match (k, value) {
            ("properties", Value::Object(props)) => {
                Value::Object(props.iter().map(|(name, s)| (name.clone(), node(s, false))).collect())
            }
            ("items", s @ Value::Object(_)) if preserves(m) => {
                let mut items = node(s, false);
                if let Value::Object(i) = &mut items {
                    i.remove("x-kubernetes-preserve-unknown-fields");
                }
                items
            }
            ("items" | "additionalProperties" | "not", s @ Value::Object(_)) => node(s, false),
            ("allOf" | "anyOf" | "oneOf", Value::Array(list)) => {
                Value::Array(list.iter().map(|s| node(s, false)).collect())
            }
            ("required", Value::Array(list)) => {
                let mut names: Vec<Value> = list.clone();
                names.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                names.dedup();
                Value::Array(names)
            }
            (k, v) if is_bound(k) => number(v),
            (_, v) => v.clone(),
        };
        out.insert(key.clone(), value);
    }
    if out.get("type").is_some_and(|t| t != "array") {
        out.remove("items");
    }
    let defaulted: Vec<String> = match out.get("properties") {
        Some(Value::Object(props)) => {
            props.iter().filter(|(_, p)| p.get("default").is_some()).map(|(name, _)| name.clone()).collect()
        }
        _ => Vec::new(),
    };
    if let Some(Value::Array(required)) = out.get_mut("required") {
        required.retain(|r| !r.as_str().is_some_and(|r| defaulted.iter().any(|d| d == r)));
        if required.is_empty() {
            out.remove("required");
        }
    }
    let resource = root || out.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true));
    if resource {
        drop_type_metadata(&mut out, root);
    }
    Value::Object(out)
}

fn preserves(m: &Map<String, Value>) -> bool {
    m.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
}

fn is_bound(key: &str) -> bool {
    matches!(
        key,
        "maximum"
            | "minimum"
            | "multipleOf"
            | "maxLength"
            | "minLength"
            | "maxItems"
            | "minItems"
            | "maxProperties"
            | "minProperties"
    )
}

fn number(v: &Value) -> Value {
    match v.as_f64().and_then(serde_json::Number::from_f64) {
        Some(n) => Value::Number(n),
        None => v.clone(),
    }
}

fn drop_type_metadata(node: &mut Map<String, Value>, root: bool) {
    let implied = [
        ("apiVersion", serde_json::json!({"type": "string"})),
        ("kind", serde_json::json!({"type": "string"})),
        ("metadata", serde_json::json!({"type": "object"})),
    ];
    if let Some(Value::Object(props)) = node.get_mut("properties") {
        for (name, schema) in implied {
            if props.get(name) == Some(&schema) {
                props.remove(name);
            }
        }
        if props.is_empty() {
            node.remove("properties");
        }
    }
    let always_there: &[&str] = if root { &["apiVersion", "kind", "metadata"] } else { &["apiVersion", "kind"] };
    if let Some(Value::Array(required)) = node.get_mut("required") {
        required.retain(|r| !r.as_str().is_some_and(|r| always_there.contains(&r)));
        if required.is_empty() {
            node.remove("required");
        }
    }
}

/// The first place where two normalized schemas differ, as a JSON pointer with both sides.
pub fn first_difference(expected: &Value, got: &Value) -> Option<String> {
    fn walk(a: &Value, b: &Value, at: &str) -> Option<String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
                keys.sort();
                keys.dedup();
                keys.into_iter().find_map(|k| {
                    let here = format!("{at}/{}", kubeskema::path::escape_token(k));
                    match (x.get(k), y.get(k)) {
                        (Some(p), Some(q)) => walk(p, q, &here),
                        (p, q) => Some(format!("{here}: CRD {} / derived {}", show(p), show(q))),
                    }
                })
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                x.iter().zip(y).enumerate().find_map(|(i, (p, q))| walk(p, q, &format!("{at}/{i}")))
            }
            _ if a == b => None,
            _ => Some(format!("{at}: CRD {} / derived {}", show(Some(a)), show(Some(b)))),
        }
    }
    fn show(v: Option<&Value>) -> String {
        match v {
            None => "absent".into(),
            Some(v) => {
                let text = v.to_string();
                if text.len() > 160 { format!("{}...", &text[..text.floor_char_boundary(160)]) } else { text }
            }
        }
    }
    walk(expected, got, "")
}

/// Every CRD version's schema in a CRD (as JSON), as written: `(version, schema)`
/// (`spec.versions[].schema.openAPIV3Schema`, or v1beta1's shared `spec.validation`).
pub fn version_schemas(crd: &Value) -> Vec<(String, Value)> {
    let shared = crd.pointer("/spec/validation/openAPIV3Schema");
    let versions = crd.pointer("/spec/versions").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut names: Vec<(String, Option<Value>)> = versions
        .iter()
        .map(|v| {
            let name = v.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
            (name, v.pointer("/schema/openAPIV3Schema").cloned())
        })
        .collect();
    if names.is_empty()
        && let Some(version) = crd.pointer("/spec/version").and_then(Value::as_str)
    {
        names.push((version.to_owned(), None));
    }
    names.into_iter().filter_map(|(version, schema)| Some((version, schema.or_else(|| shared.cloned())?))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_listed_differences_vanish() {
        let crd = json!({"type": "object", "description": "x", "required": ["spec", "kind"],
            "properties": {"kind": {"type": "string", "description": "k"}, "spec": {"type": "object", "nullable": false, "properties": {"n": {"type": "integer", "maximum": 1.0}}}}});
        let derived = json!({"type": "object", "required": ["spec"],
            "properties": {"spec": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 1}}}}});
        assert_eq!(normalize(&crd), normalize(&derived));
        let other = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 2}}}}});
        assert_eq!(
            first_difference(&normalize(&crd), &normalize(&other)).unwrap(),
            "/properties/spec/properties/n/maximum: CRD 1.0 / derived 2.0"
        );
    }
}
