//! Evolutions: changes a CRD goes through between releases (a bound tightened or loosened, a
//! field required, added, removed or retyped, a rule added, a version retired), for the `compat`
//! differential (`compat-diff`). Each is a JSON patch of the CRD, like the mutators'.

use serde_json::{Value, json};

use super::mutate::{Candidate, Node, add, escape, nodes, rep, rm};

/// The evolutions, by class (the differential draws them in turn).
pub const EVOLUTIONS: &[&str] = &[
    "tighten-bound",
    "loosen-bound",
    "add-enum",
    "add-pattern",
    "add-format",
    "add-required",
    "add-rule",
    "remove-property",
    "add-property",
    "retype",
    "add-default",
    "documentation",
    "list-type",
    "drop-preserve",
    "versions",
];

/// Every evolution of `crd` (`apiextensions.k8s.io/v1`).
pub fn evolutions(crd: &Value) -> Vec<Candidate> {
    let mut out = Vec::new();
    let Some(versions) = crd["spec"]["versions"].as_array() else { return out };
    for (vi, version) in versions.iter().enumerate() {
        let base = format!("/spec/versions/{vi}/schema/openAPIV3Schema");
        let mut all = Vec::new();
        nodes(&version["schema"]["openAPIV3Schema"], base, false, true, &mut all);
        for n in all.iter().filter(|n| !n.pointer.contains("/properties/metadata")) {
            node_evolutions(n, &mut out);
        }
    }
    version_evolutions(crd, versions, &mut out);
    out
}

fn node_evolutions(n: &Node<'_>, out: &mut Vec<Candidate>) {
    let s = n.schema;
    let p = &n.pointer;
    let mut push = |class: &'static str, patch: Vec<Value>| out.push(Candidate::new(class, patch));
    let set = |key: &str, value: Value| {
        if s.get(key).is_some() { rep(&format!("{p}/{key}"), value) } else { add(&format!("{p}/{key}"), value) }
    };
    let int = |key: &str| s[key].as_i64();
    push("documentation", vec![set("description", json!("changed by an evolution"))]);
    if s.get("x-kubernetes-preserve-unknown-fields") == Some(&json!(true)) && s["type"] == "object" {
        push("drop-preserve", vec![rm(&format!("{p}/x-kubernetes-preserve-unknown-fields"))]);
    }
    match s["type"].as_str() {
        Some("string") if s.get("enum").is_none() && s.get("format").is_none() => {
            let max = int("maxLength");
            push("tighten-bound", vec![set("maxLength", json!(max.map_or(3, |m| (m / 2).max(1))))]);
            push("tighten-bound", vec![set("minLength", json!(int("minLength").unwrap_or(0) + 2))]);
            if let Some(m) = max {
                push("loosen-bound", vec![set("maxLength", json!(m * 2))]);
            }
            push("add-enum", vec![set("enum", json!(["a", "b"]))]);
            push("add-pattern", vec![set("pattern", json!("^[a-z]+$"))]);
            push("add-format", vec![set("format", json!("uuid"))]);
            push("retype", vec![set("type", json!("integer"))]);
            push("add-default", vec![set("default", json!("a"))]);
        }
        Some("integer" | "number") => {
            push("tighten-bound", vec![set("maximum", json!(int("maximum").map_or(5, |m| m / 2)))]);
            push("tighten-bound", vec![set("minimum", json!(int("minimum").map_or(1, |m| m + 1)))]);
            if let Some(m) = int("maximum") {
                push("loosen-bound", vec![set("maximum", json!(m.saturating_mul(2)))]);
            }
            push("retype", vec![set("type", json!("string"))]);
            push("add-default", vec![set("default", json!(int("minimum").unwrap_or(1).max(1)))]);
        }
        Some("boolean") => push("retype", vec![set("type", json!("string"))]),
        Some("array") => {
            push("tighten-bound", vec![set("maxItems", json!(int("maxItems").map_or(1, |m| (m / 2).max(1))))]);
            push("tighten-bound", vec![set("minItems", json!(int("minItems").unwrap_or(0) + 1))]);
            let scalar = matches!(s["items"]["type"].as_str(), Some("string" | "integer"));
            if scalar && s.get("x-kubernetes-list-type").is_none() {
                push("list-type", vec![add(&format!("{p}/x-kubernetes-list-type"), json!("set"))]);
            }
        }
        Some("object") => {
            let props: Vec<&String> = s["properties"].as_object().map(|m| m.keys().collect()).unwrap_or_default();
            let required: Vec<&str> =
                s["required"].as_array().map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
            if let Some(name) = props.iter().find(|k| !required.contains(&k.as_str()) && k.as_str() != "metadata") {
                let mut list: Vec<Value> = required.iter().map(|r| json!(r)).collect();
                list.push(json!(name));
                push("add-required", vec![set("required", Value::Array(list))]);
                // A rule on the object about one of its fields.
                // As a rule names it (`__namespace__`), where it can.
                if let Some(field) = kubeskema::cel::escape(name) {
                    let rule =
                        json!([{"rule": format!("!has(self.{field}) || self.{field} == self.{field} && false")}]);
                    push("add-rule", vec![set("x-kubernetes-validations", rule)]);
                }
                if !required.contains(&name.as_str()) && s["properties"].as_object().is_some_and(|m| m.len() > 1) {
                    push("remove-property", vec![rm(&format!("{p}/properties/{}", escape(name)))]);
                }
            }
            if s["properties"].is_object() {
                push("add-property", vec![add(&format!("{p}/properties/addedByEvolution"), json!({"type": "string"}))]);
            }
            push("tighten-bound", vec![set("minProperties", json!(int("minProperties").unwrap_or(0) + 1))]);
        }
        _ => {}
    }
}

fn version_evolutions(crd: &Value, versions: &[Value], out: &mut Vec<Candidate>) {
    let mut push = |patch: Vec<Value>| out.push(Candidate::new("versions", patch));
    let storage = versions.iter().position(|v| v["storage"] == true);
    if versions.len() > 1 {
        // A version retired: removed, or no longer served.
        for (i, v) in versions.iter().enumerate() {
            if Some(i) != storage {
                push(vec![rm(&format!("/spec/versions/{i}"))]);
                if v["served"] == true {
                    push(vec![rep(&format!("/spec/versions/{i}/served"), json!(false))]);
                }
            }
        }
        // The storage version moved.
        if let Some(s) = storage {
            let other = (s + 1) % versions.len();
            push(vec![
                rep(&format!("/spec/versions/{s}/storage"), json!(false)),
                rep(&format!("/spec/versions/{other}/storage"), json!(true)),
            ]);
        }
    }
    // A new version that becomes the storage version.
    if let Some(s) = storage {
        let mut next = versions[s].clone();
        next["name"] = json!("v99");
        let mut patch = vec![rep(&format!("/spec/versions/{s}/storage"), json!(false))];
        patch.push(add("/spec/versions/-", next));
        push(patch);
    }
    let scope = if crd["spec"]["scope"] == "Cluster" { "Namespaced" } else { "Cluster" };
    push(vec![rep("/spec/scope", json!(scope))]);
}

/// Rules a CRD stored long ago may break, because it was written before the apiserver checked
/// them: a set of granular objects, a map key neither required nor defaulted, a default with an
/// unknown field, a type OpenAPI does not know. Applied to OLD (and so to NEW), they ask
/// whether the CRD update relaxes each rule as the apiserver does (`Relaxed`).
pub fn legacies(crd: &Value) -> Vec<Candidate> {
    let Some(versions) = crd["spec"]["versions"].as_array() else { return Vec::new() };
    let Some(at) = versions.iter().position(|v| v["schema"]["openAPIV3Schema"]["properties"].is_object()) else {
        return Vec::new();
    };
    let root = format!("/spec/versions/{at}/schema/openAPIV3Schema");
    let props = if versions[at]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"].is_object() {
        format!("{root}/properties/spec/properties")
    } else {
        format!("{root}/properties")
    };
    let legacy = |name: &str, schema: Value| Candidate::new("legacy", vec![add(&format!("{props}/{name}"), schema)]);
    vec![
        legacy(
            "legacySet",
            json!({"type": "array", "x-kubernetes-list-type": "set",
                   "items": {"type": "object", "properties": {"a": {"type": "string"}}}}),
        ),
        legacy(
            "legacyMap",
            json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                   "items": {"type": "object", "properties": {"name": {"type": "string"}}}}),
        ),
        legacy(
            "legacyDefault",
            json!({"type": "object", "properties": {"a": {"type": "integer"}}, "default": {"a": 1, "unknown": 2}}),
        ),
        legacy("legacyType", json!({"type": "foo"})),
    ]
}
