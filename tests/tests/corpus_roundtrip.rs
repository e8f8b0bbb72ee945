//! Every corpus instance labelled `valid` deserializes into its generated type and
//! serializes back to what the apiserver would store: the input after its metadata
//! normalization, pruning, null pruning and defaulting (unknown data under
//! `x-kubernetes-preserve-unknown-fields` kept).
//!
//! Heavy (it compiles every corpus CRD): `cargo test -p kubeskema-tests --features corpus
//! --test corpus_roundtrip -- --nocapture`.
#![cfg(feature = "corpus")]

use std::collections::HashMap;

use kubeskema::crd::Crd;
use kubeskema::normalize::normalize_resource;
use serde_json::Value;

include!(concat!(env!("OUT_DIR"), "/corpus.rs"));

/// JSON equality where numbers compare by value (`1` equals `1.0`): a `number` field is an
/// `f64` and writes `1.0` where the input said `1`, which the apiserver would store as `1`.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Why the apiserver refuses `value`, for the reasons that also stop a typed deserialization:
/// a wrong JSON type, a missing required field, a value outside an `enum`, a root without
/// `metadata.name`. Checked on the normalized object (after pruning, null pruning and
/// defaulting), with the apiserver's messages. Upstream examples marked `valid` that the
/// apiserver refuses for these reasons are upstream mistakes (placeholders such as
/// `projectID: [PROJECT_ID]`, partial snippets), reported but not failures.
fn refusals(value: &Value, schema: &kubeskema::schema::Schema, path: &str, out: &mut Vec<String>) {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let fits = match schema.type_str() {
        _ if schema.int_or_string => matches!(kind, "integer" | "string"),
        Some("integer") => kind == "integer",
        Some("number") => matches!(kind, "integer" | "number"),
        Some(t @ ("string" | "boolean" | "array" | "object")) => kind == t || (kind == "null" && schema.nullable),
        _ => true,
    };
    if !fits {
        let t = schema.type_str().unwrap_or_default();
        out.push(format!("{path}: Invalid value: \"{kind}\": {path} in body must be of type {t}: \"{kind}\""));
        return;
    }
    if let Some(values) = &schema.enum_ {
        if !values.contains(value) {
            out.push(format!("{path}: Unsupported value: {value}"));
        }
    }
    match value {
        Value::Object(map) => {
            for r in &schema.required {
                if !map.contains_key(r) {
                    out.push(format!(
                        "{}: Required value",
                        if path.is_empty() { r.clone() } else { format!("{path}.{r}") }
                    ));
                }
            }
            for (k, v) in map {
                let child = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                if let Some(p) = schema.properties.get(k) {
                    refusals(v, p, &child, out);
                } else if let Some(a) = schema.additional_properties_schema() {
                    refusals(v, a, &child, out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(i) = &schema.items {
                for (n, v) in items.iter().enumerate() {
                    refusals(v, i, &format!("{path}[{n}]"), out);
                }
            }
        }
        _ => {}
    }
}

/// The first place two values differ, for the failure report.
fn first_difference(a: &Value, b: &Value, path: &str) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                match (x.get(k), y.get(k)) {
                    (Some(v), Some(w)) if !same(v, w) => {
                        return first_difference(v, w, &format!("{path}.{k}"));
                    }
                    (Some(v), None) => {
                        return format!("{path}.{k}: expected {v}, missing after the round trip");
                    }
                    (None, Some(w)) => {
                        return format!("{path}.{k}: not expected, round trip wrote {w}");
                    }
                    _ => {}
                }
            }
            format!("{path}: differs")
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if !same(v, w) {
                    return first_difference(v, w, &format!("{path}[{i}]"));
                }
            }
            format!("{path}: differs")
        }
        _ => format!("{path}: expected {a}, got {b}"),
    }
}

#[test]
fn valid_instances_round_trip_through_their_generated_types() {
    let corpus = kubeskema_tests::corpus_dir();
    let mut crds: HashMap<String, Vec<Crd>> = HashMap::new();
    let mut docs: HashMap<String, Vec<kubeskema::yaml::Document>> = HashMap::new();
    let (mut passed, mut failed, mut no_type, mut refused) = (0, Vec::new(), Vec::new(), Vec::new());
    for inst in kubeskema_tests::instances().into_iter().filter(|i| i.expect == "valid") {
        let crd_list = crds.entry(inst.crd_file.clone()).or_insert_with(|| {
            let text = std::fs::read_to_string(corpus.join(&inst.crd_file)).unwrap();
            kubeskema::yaml::parse_documents(&text)
                .unwrap()
                .iter()
                .filter(|d| kubeskema::crd::is_crd(&d.value))
                .map(|d| Crd::parse(&d.value).0)
                .collect()
        });
        let (group, version) = inst.api_version.rsplit_once('/').unwrap_or(("", &inst.api_version));
        let Some(schema) = crd_list
            .iter()
            .find(|c| c.group == group && c.names.kind == inst.kind)
            .and_then(|c| c.version(version))
            .and_then(|v| v.schema.as_ref())
        else {
            no_type.push(format!("{}#{}: no schema for {} {}", inst.file, inst.doc_index, inst.api_version, inst.kind));
            continue;
        };
        let file_docs = docs.entry(inst.file.clone()).or_insert_with(|| {
            kubeskema::yaml::parse_documents(&std::fs::read_to_string(corpus.join(&inst.file)).unwrap()).unwrap()
        });
        let input = file_docs[inst.doc_index].value.clone();
        let mut expected = input.clone();
        if let Err(e) = normalize_resource(&mut expected, schema) {
            failed.push(format!("{}#{}: metadata does not decode: {e:?}", inst.file, inst.doc_index));
            continue;
        }
        let mut why = Vec::new();
        refusals(&expected, schema, "", &mut why);
        if expected.pointer("/metadata/name").is_none() && expected.pointer("/metadata/generateName").is_none() {
            why.push("metadata.name: Required value: name or generateName is required".into());
        }
        let outcome = roundtrip(inst.repo(), &inst.api_version, &inst.kind, input);
        if !why.is_empty() && !matches!(&outcome, Some(Ok(actual)) if same(&expected, actual)) {
            refused.push(format!("{}#{}: {}", inst.file, inst.doc_index, why.join("; ")));
            continue;
        }
        match outcome {
            None => no_type.push(format!(
                "{}#{}: no generated type for {} {}",
                inst.file, inst.doc_index, inst.api_version, inst.kind
            )),
            Some(Err(e)) => failed.push(format!("{}#{}: does not deserialize: {e}", inst.file, inst.doc_index)),
            Some(Ok(actual)) if same(&expected, &actual) => passed += 1,
            Some(Ok(actual)) => {
                failed.push(format!("{}#{}: {}", inst.file, inst.doc_index, first_difference(&expected, &actual, "")))
            }
        }
    }
    println!(
        "valid instances: {passed} round-trip, {} fail, {} without a generated type, {} refused by the apiserver too (upstream mistakes)",
        failed.len(),
        no_type.len(),
        refused.len()
    );
    for f in
        refused.iter().map(|r| format!("refused by the apiserver: {r}")).chain(no_type).chain(failed.iter().cloned())
    {
        println!("  {f}");
    }
    assert!(failed.is_empty(), "{} valid instances do not round-trip", failed.len());
    assert!(passed > 1000, "only {passed} instances were checked");
}
