//! CEL compiled to Rust against the interpreter, on edge values: every rule of the golden
//! types runs natively and interpreted (`__private::cel_differential`), on create and on
//! update, and must give the same issues, warnings and stop. The values are a seed object
//! with one place changed at a time: a field removed, a list or map emptied or grown, a
//! string emptied, made long or non-ASCII, a number at the int64 bounds, zero or negative.
//! `fixtures/golden/cel_native.yaml` holds rules written to fail in each of those ways
//! (division by zero, overflow, missing keys and indexes, substring ranges, bad durations).

#![allow(dead_code, reason = "every golden type is compiled; the tests use some")]
include!(concat!(env!("OUT_DIR"), "/golden.rs"));

use kubeskema::Validate;
use kubeskema_tests::differential::{compare, edge_seed};
use serde_json::{Value, json};

/// A loop over a list far longer than its `maxItems` (the typed value does not stop at
/// it): both paths stop at the per-call cost limit, with the same issue, and no rule runs
/// after it.
#[test]
fn native_and_interpreted_cel_stop_at_the_same_cost() {
    let items: Vec<Value> = (0..1500).map(|i| json!({"name": format!("n{i}")})).collect();
    let edge = json!({
        "apiVersion": "native.example.com/v1", "kind": "Edge", "metadata": {"name": "e"},
        "spec": {"items": items, "count": 1, "labels": {}, "name": "a", "timeout": "1m", "level": "a",
                 "number": "1", "tags": [], "link": "https://example.com"}
    });
    let value: cel_native::native_example_com::v1::Edge = serde_json::from_value(edge).unwrap();
    kubeskema::__private::cel_differential(&value, None).unwrap();
    let mut cx = kubeskema::cel::Cx::default();
    value.validate_cel_at(None, &kubeskema::path::At::ROOT, &mut cx);
    assert!(cx.stopped());
    let last = cx.issues.last().unwrap().to_string();
    assert!(last.contains("call cost exceeds limit for rule: every item is there"), "{last}");
}

#[test]
fn native_and_interpreted_cel_agree_on_edge_values() {
    let edge = edge_seed();
    let n = compare::<cel_native::native_example_com::v1::Edge>(edge);
    let route = json!({
        "apiVersion": "cel.example.com/v1", "kind": "Route", "metadata": {"name": "r"},
        "spec": {"size": 1, "timeout": "1m", "since": "2024-01-01T00:00:00Z", "memory": "1Mi",
                 "cidr": "10.0.0.0/8", "link": "https://example.com", "label": "a-b", "version": "1.2.3",
                 "tags": ["a", "b"], "hosts": ["a.example.com"], "weights": {"a": 1},
                 "ports": [{"name": "http", "port": 80}]}
    });
    let n = n + compare::<cel_environment::cel_example_com::v1::Route>(route);
    let policy = json!({
        "apiVersion": "validations.example.com/v1", "kind": "Policy", "metadata": {"name": "p"},
        "spec": {"min": 1, "max": 5, "name": "x"}
    });
    let n = n + compare::<validations::validations_example_com::v1::Policy>(policy);
    assert!(n > 500, "only {n} comparisons");
}

/// The integer places of `v` (pointers), for writing them as floats.
fn integer_places(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                integer_places(child, format!("{at}/{}", kubeskema::path::escape_token(k)), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                integer_places(child, format!("{at}/{i}"), out);
            }
        }
        Value::Number(n) if n.is_i64() => out.push(at),
        _ => {}
    }
}

/// An integer the document writes as a float (`5.0`) is read into the typed value, and the
/// validating read's CEL step fails each rule that reads it as the apiserver does (`invalid
/// data, expected int, got float64`): natively, interpreted, and as the dynamic validator
/// (which the recorded kube-apiserver 1.36.3 answers hold to) says, one float at a time and
/// all at once.
#[test]
fn integers_written_as_floats_fail_the_rules_that_read_them() {
    use kubeskema::decode::{Decoded, from_value};
    let edge = edge_seed();
    let text = std::fs::read_to_string(kubeskema_tests::repo_dir().join("fixtures/golden/cel_native.yaml")).unwrap();
    let crd = kubeskema::crd::Crd::parse(&kubeskema::yaml::parse_documents(&text).unwrap().remove(0).value).0;
    let validator = kubeskema::validate::ResourceValidator::new(&crd, &crd.versions[0]);
    let mut places = Vec::new();
    integer_places(&edge, String::new(), &mut places);
    assert!(places.len() >= 7, "{places:?}");
    let mut cases: Vec<Vec<String>> = places.iter().map(|p| vec![p.clone()]).collect();
    cases.push(places.clone());
    let mut failing = 0;
    for floats in cases {
        let mut object = edge.clone();
        for p in &floats {
            let n = object.pointer(p).unwrap().as_i64().unwrap();
            *object.pointer_mut(p).unwrap() = json!(n as f64);
        }
        let dynamic: Vec<String> = validator.validate_create(&object).issues.iter().map(ToString::to_string).collect();
        let read: Decoded<cel_native::native_example_com::v1::Edge> = from_value(&object, &Default::default());
        let issues: Vec<String> = read.issues.iter().map(ToString::to_string).collect();
        assert_eq!(issues, dynamic, "{floats:?}");
        assert_eq!(read.written_as_float, floats);
        failing += usize::from(dynamic.iter().any(|i| i.contains("expected int, got float64")));
        // Interpreted, the same.
        let value = read.value.unwrap();
        kubeskema::cel::with_written_as_float(floats.clone(), || kubeskema::__private::cel_differential(&value, None))
            .unwrap_or_else(|d| panic!("{floats:?}: {d}"));
        // A value built in Rust (or validated outside the read) reads its integers.
        let plain: Vec<String> = kubeskema::Validate::validate(&value).iter().map(ToString::to_string).collect();
        assert!(!plain.iter().any(|i| i.contains("float64")), "{plain:?}");
    }
    assert!(failing >= 5, "only {failing} cases fail a rule");
}
