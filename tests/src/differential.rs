//! The differential of CEL compiled to Rust against the interpreter, on edge values: a seed
//! object with one place changed at a time (`tests/cel_native.rs` on generated types,
//! `tests/derived_native.rs` on hand-written ones).

use kubeskema::Validate;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The seed with one place changed, for every place and every change that applies there.
pub fn edges(seed: &Value) -> Vec<Value> {
    let mut pointers = Vec::new();
    places(seed, String::new(), &mut pointers);
    let long = "é".repeat(2000) + &"x".repeat(3000);
    let mut out = Vec::new();
    for pointer in pointers {
        let Some(node) = seed.pointer(&pointer) else { continue };
        let replacements: Vec<Value> = match node {
            Value::String(_) => vec![
                json!(""),
                json!("é✓𝄞日本"),
                json!(long),
                json!("ABC"),
                json!("13"),
                json!("a-b-c-d-e"),
                json!(" padded "),
                json!("zzz"),
                json!("99999999999999999999"),
                json!("1h1m"),
                json!("https://example.com/x"),
                json!("10.0.0.1"),
                json!("first"),
            ],
            Value::Number(_) => {
                vec![json!(0), json!(-1), json!(1), json!(i64::MAX), json!(i64::MIN), json!(i64::MAX - 1)]
            }
            Value::Bool(b) => vec![json!(!b)],
            Value::Array(items) => {
                let mut grown = items.clone();
                grown.extend(items.iter().cloned());
                vec![json!([]), Value::Array(grown)]
            }
            Value::Object(_) => vec![json!({})],
            Value::Null => vec![],
        };
        for r in replacements {
            let mut copy = seed.clone();
            *copy.pointer_mut(&pointer).expect("the place exists") = r;
            out.push(copy);
        }
        // Removed, where it is a property.
        if let Some((parent, key)) = pointer.rsplit_once('/')
            && let Some(Value::Object(_)) = seed.pointer(parent)
        {
            let mut copy = seed.clone();
            copy.pointer_mut(parent).and_then(Value::as_object_mut).expect("an object").remove(key);
            out.push(copy);
        }
    }
    out
}

fn places(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                if at.is_empty() && ["apiVersion", "kind"].contains(&k.as_str()) {
                    continue;
                }
                let p = format!("{at}/{}", kubeskema::path::escape_token(k));
                out.push(p.clone());
                places(child, p, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                places(child, p, out);
            }
        }
        _ => {}
    }
}

/// Compares native and interpreted CEL on the seed's edges (create, update from the seed, and
/// the seed updated from them); returns how many comparisons ran.
pub fn compare<T: DeserializeOwned + Validate>(seed: Value) -> usize {
    let original: T = serde_json::from_value(seed.clone()).expect("the seed deserializes");
    let mut compared = 0;
    let mut differences = Vec::new();
    for edge in edges(&seed) {
        let Ok(value) = serde_json::from_value::<T>(edge.clone()) else { continue };
        for (what, new, old) in
            [("create", &value, None), ("update", &value, Some(&original)), ("update back", &original, Some(&value))]
        {
            compared += 1;
            if let Err(d) = kubeskema::__private::cel_differential(new, old) {
                differences.push(format!("{what} of {edge}:\n{d}"));
            }
        }
    }
    assert!(differences.is_empty(), "{} differences, the first:\n{}", differences.len(), differences[0]);
    compared
}

/// The Edge fixture's seed object: every rule of `fixtures/golden/cel_native.yaml` has data.
pub fn edge_seed() -> Value {
    json!({
        "apiVersion": "native.example.com/v1", "kind": "Edge", "metadata": {"name": "e"},
        "spec": {
            "items": [{"name": "first", "count": 3, "divisor": 2}, {"name": "second", "count": 4, "divisor": 1}, {"name": "axe"}],
            "count": 5, "labels": {"team": "core", "owner": "team-a"}, "name": "ab-cd", "timeout": "30m",
            "level": "a", "number": "42", "tags": ["x", "é"], "extra": ["p"], "link": "https://example.com",
            "ports": [{"name": "http", "protocol": "TCP", "port": 80}, {"name": "http", "port": 81}],
            "set": ["a", "b"]
        }
    })
}
