//! Mutators: single changes to real objects and real CRDs, each named by the class of input it
//! makes (the class a finding of the apiserver's falls in). Each returns every candidate change
//! of its class as a JSON patch; the caller picks among them with a seeded [`Rng`](super::rng::Rng).

use kubeskema::schema::Schema;
use serde_json::{Value, json};

/// The object mutators' classes.
pub const OBJECT_CLASSES: &[&str] = &[
    "type-swap",
    "whole-float",
    "beyond-int64",
    "null",
    "remove-required",
    "duplicate-item",
    "bounds",
    "enum",
    "pattern",
    "format",
    "cel",
    "metadata",
    "owner-references",
    "cluster-namespace",
    "embedded",
];

/// The CRD mutators' classes.
pub const CRD_CLASSES: &[&str] = &[
    "drop-type",
    "junctor",
    "items-array",
    "status-root",
    "transition-uncorrelatable",
    "bad-fieldpath",
    "bad-pattern",
    "embedded-default",
    "unbounded-rule",
    "bad-rule",
    "dollar-schema",
    "bad-default",
    "keywords",
];

/// One candidate change.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// Its class.
    pub class: &'static str,
    /// The change.
    pub patch: Vec<Value>,
}

fn rep(pointer: &str, value: Value) -> Value {
    json!({"op": "replace", "path": pointer, "value": value})
}

fn add(pointer: &str, value: Value) -> Value {
    json!({"op": "add", "path": pointer, "value": value})
}

fn rm(pointer: &str) -> Value {
    json!({"op": "remove", "path": pointer})
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Every candidate change of `object`, an object of the CRD version whose schema is `schema`.
pub fn object_candidates(object: &Value, schema: &Schema, cluster_scoped: bool) -> Vec<Candidate> {
    let mut out = Vec::new();
    walk_object(object, schema, "", &mut out);
    metadata_candidates(object, cluster_scoped, &mut out);
    out
}

fn walk_object(v: &Value, s: &Schema, ptr: &str, out: &mut Vec<Candidate>) {
    let mut push = |class, patch: Vec<Value>| out.push(Candidate { class, patch });
    let is_root = ptr.is_empty();
    let is_meta = ptr == "/metadata" || ptr.starts_with("/metadata/");
    if is_meta {
        return; // the metadata mutators' work
    }
    let ty = s.type_str();
    if !is_root {
        let other = match (ty, s.int_or_string) {
            (_, true) => Some(json!(true)),
            (Some("string"), _) => Some(json!(12345)),
            (Some("integer" | "number"), _) => Some(json!("12")),
            (Some("boolean"), _) => Some(json!("yes")),
            (Some("array"), _) => Some(json!({"not": "a list"})),
            (Some("object"), _) => Some(json!(["not an object"])),
            _ => None,
        };
        if let Some(o) = other {
            push("type-swap", vec![rep(ptr, o)]);
        }
        push("null", vec![rep(ptr, Value::Null)]);
    }
    if let Some(values) = &s.enum_ {
        let outside = match values.first() {
            Some(Value::Number(_)) => json!(987654),
            Some(Value::Bool(_)) => json!("maybe"),
            _ => json!("not-in-the-enum"),
        };
        push("enum", vec![rep(ptr, outside)]);
    }
    match v {
        Value::String(text) => {
            if let Some(max) = s.max_length.filter(|m| (0..4096).contains(m)) {
                push("bounds", vec![rep(ptr, json!("a".repeat(max as usize + 1)))]);
            }
            if s.min_length.is_some_and(|m| m > 0) {
                push("bounds", vec![rep(ptr, json!(""))]);
            }
            if s.pattern.is_some() {
                push("pattern", vec![rep(ptr, json!(format!("{text} <&>!")))]);
            }
            if let Some(f) = &s.format {
                let bad = match f.as_str() {
                    "date-time" => "2024-13-45T99:00:00Z",
                    "date" => "2024/01/01",
                    "duration" => "ten minutes",
                    "int-or-string" => "",
                    _ => "%not a formatted value%",
                };
                push("format", vec![rep(ptr, json!(bad))]);
            }
        }
        Value::Number(n) => {
            let integer = ty == Some("integer");
            let beyond = |bound: &serde_json::Number, step: f64| {
                let b = bound.as_f64().unwrap_or_default() + step;
                if integer { json!(b.round() as i64) } else { json!(b) }
            };
            if let Some(max) = &s.maximum {
                push("bounds", vec![rep(ptr, beyond(max, 1.0))]);
            }
            if let Some(min) = &s.minimum {
                push("bounds", vec![rep(ptr, beyond(min, -1.0))]);
            }
            if s.multiple_of.is_some() {
                push("bounds", vec![rep(ptr, json!(7))]);
            }
            if integer {
                let whole = n.as_f64().unwrap_or_default().trunc();
                push("whole-float", vec![rep(ptr, json!(if whole == 0.0 { 1.0 } else { whole }))]);
                push("beyond-int64", vec![rep(ptr, json!(9_223_372_036_854_775_808u64))]);
            }
        }
        Value::Array(items) => {
            if let (Some(max), Some(first)) = (s.max_items.filter(|m| (0..256).contains(m)), items.first()) {
                let mut grown = items.clone();
                while grown.len() as i64 <= max {
                    grown.push(first.clone());
                }
                push("bounds", vec![rep(ptr, Value::Array(grown))]);
            }
            if s.min_items.is_some_and(|m| m > 0) {
                push("bounds", vec![rep(ptr, json!([]))]);
            }
            if let (Some("set" | "map"), Some(first)) = (s.list_type.as_deref(), items.first()) {
                push("duplicate-item", vec![add(&format!("{ptr}/-"), first.clone())]);
            }
            if let Some(item) = s.items.as_deref() {
                for (i, x) in items.iter().enumerate().take(4) {
                    walk_object(x, item, &format!("{ptr}/{i}"), out);
                }
            }
        }
        Value::Object(map) => {
            for r in &s.required {
                if map.contains_key(r) && !(is_root && matches!(r.as_str(), "apiVersion" | "kind" | "metadata")) {
                    push("remove-required", vec![rm(&format!("{ptr}/{}", escape(r)))]);
                }
            }
            if let Some(max) = s.max_properties.filter(|m| (0..64).contains(m)) {
                let mut grown = map.clone();
                for i in 0..=max {
                    grown.insert(format!("extra{i}"), map.values().next().cloned().unwrap_or(json!("x")));
                }
                push("bounds", vec![rep(ptr, Value::Object(grown))]);
            }
            if s.min_properties.is_some_and(|m| m > 0) {
                push("bounds", vec![rep(ptr, json!({}))]);
            }
            if s.embedded_resource {
                push("embedded", vec![rm(&format!("{ptr}/apiVersion"))]);
                push("embedded", vec![rep(&format!("{ptr}/kind"), json!(""))]);
                push(
                    "embedded",
                    vec![rep(&format!("{ptr}/metadata"), json!({"name": "Not_A_Name", "labels": {"-x": "y"}}))],
                );
                push(
                    "embedded",
                    vec![rep(&format!("{ptr}/metadata"), json!({"namespace": "Bad NS", "generateName": "x_"}))],
                );
            }
            if !s.validations.is_empty() {
                cel_candidates(map, s, ptr, out);
            }
            for (k, x) in map {
                if let Some(child) = s.schema_of_key(k) {
                    walk_object(x, child, &format!("{ptr}/{}", escape(k)), out);
                }
            }
        }
        _ => {}
    }
}

/// Edge values for the fields a rule's node holds: what rules most often refuse.
fn cel_candidates(map: &serde_json::Map<String, Value>, s: &Schema, ptr: &str, out: &mut Vec<Candidate>) {
    let mut push = |patch| out.push(Candidate { class: "cel", patch });
    for (name, child) in &s.properties {
        let at = format!("{ptr}/{}", escape(name));
        match (child.type_str(), map.get(name)) {
            (_, Some(_)) if !s.required.contains(name) => push(vec![rm(&at)]),
            _ => {}
        }
        let edges: Vec<Value> = match child.type_str() {
            Some("string") => vec![json!(""), json!("a-b.c/D_E"), json!("x".repeat(70))],
            Some("integer") => vec![json!(0), json!(-1), json!(2_147_483_648i64)],
            Some("number") => vec![json!(-0.5), json!(1e10)],
            Some("boolean") => vec![json!(!map.get(name).and_then(Value::as_bool).unwrap_or(false))],
            Some("array") => vec![json!([])],
            Some("object") => vec![json!({})],
            _ => vec![],
        };
        for e in edges {
            push(vec![add(&at, e)]);
        }
    }
}

fn metadata_candidates(object: &Value, cluster_scoped: bool, out: &mut Vec<Candidate>) {
    let mut push = |class, patch| out.push(Candidate { class, patch });
    if !object["metadata"].is_object() {
        return;
    }
    let long = "v".repeat(64);
    for (what, v) in [
        ("/metadata/name", json!("Not_A_DNS_Name")),
        ("/metadata/name", json!("")),
        ("/metadata/labels", json!({"ok": long})),
        ("/metadata/labels", json!({"a/b/c": "x"})),
        ("/metadata/labels", json!({"x": "<&>"})),
        ("/metadata/annotations", json!({"Bad Key": "x"})),
        ("/metadata/annotations", json!({"x": 5})),
        ("/metadata/finalizers", json!(["no-slash-here", "a/b"])),
        ("/metadata/generateName", json!("Bad_")),
        ("/metadata/namespace", json!("Bad_NS")),
        ("/metadata/labels", json!(["not", "a", "map"])),
        ("/metadata/uid", json!(7)),
    ] {
        push("metadata", vec![add(what, v)]);
    }
    let owner = |ov: Value| vec![add("/metadata/ownerReferences", ov)];
    for refs in [
        json!([{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": ""}]),
        json!([{"apiVersion": "", "kind": "", "name": "", "uid": "u"}]),
        json!([{"apiVersion": "v1", "kind": "Pod", "name": "a", "uid": "1", "controller": true},
               {"apiVersion": "v1", "kind": "Pod", "name": "b", "uid": "2", "controller": true}]),
        json!([{"apiVersion": "v1", "kind": "List", "name": "l", "uid": "1"}]),
        json!([{"kind": "Pod", "name": "p"}]),
        json!([{"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "1", "blockOwnerDeletion": "yes"}]),
        json!({"apiVersion": "v1"}),
    ] {
        push("owner-references", owner(refs));
    }
    if cluster_scoped {
        push("cluster-namespace", vec![add("/metadata/namespace", json!("some-namespace"))]);
        push("cluster-namespace", vec![add("/metadata/namespace", json!("Not A Namespace"))]);
        push("cluster-namespace", vec![add("/metadata/namespace", json!(""))]);
    }
}

/// A schema node of a CRD, as written: where it is and what it says.
struct Node<'a> {
    pointer: String,
    schema: &'a Value,
    /// Below the items of an atomic or set list (where no old value can be correlated).
    uncorrelatable: bool,
    /// Directly the root of a version's schema.
    root: bool,
}

fn nodes<'a>(schema: &'a Value, pointer: String, uncorrelatable: bool, root: bool, out: &mut Vec<Node<'a>>) {
    if !schema.is_object() {
        return;
    }
    out.push(Node { pointer: pointer.clone(), schema, uncorrelatable, root });
    if let Some(props) = schema["properties"].as_object() {
        for (k, v) in props {
            nodes(v, format!("{pointer}/properties/{}", escape(k)), uncorrelatable, false, out);
        }
    }
    if schema["items"].is_object() {
        let atomic = !matches!(schema["x-kubernetes-list-type"].as_str(), Some("map"));
        nodes(&schema["items"], format!("{pointer}/items"), uncorrelatable || atomic, false, out);
    }
    if schema["additionalProperties"].is_object() {
        nodes(&schema["additionalProperties"], format!("{pointer}/additionalProperties"), uncorrelatable, false, out);
    }
}

/// Every candidate change of a CRD (`apiextensions.k8s.io/v1`).
pub fn crd_candidates(crd: &Value) -> Vec<Candidate> {
    let mut out = Vec::new();
    let Some(versions) = crd["spec"]["versions"].as_array() else {
        return out;
    };
    for (vi, version) in versions.iter().enumerate() {
        let base = format!("/spec/versions/{vi}/schema/openAPIV3Schema");
        let mut all = Vec::new();
        nodes(&version["schema"]["openAPIV3Schema"], base.clone(), false, true, &mut all);
        for n in &all {
            node_candidates(n, &mut out);
        }
        let has_status = version["subresources"]["status"].is_object();
        let root_extras = [
            json!({"op": "add", "path": format!("{base}/required"), "value": ["spec"]}),
            json!({"op": "add", "path": format!("{base}/minProperties"), "value": 1}),
            json!({"op": "add", "path": format!("{base}/x-kubernetes-validations"), "value": [{"rule": "has(self.spec)"}]}),
            json!({"op": "add", "path": format!("{base}/anyOf"), "value": [{"required": ["spec"]}]}),
            json!({"op": "add", "path": format!("{base}/additionalProperties"), "value": false}),
            json!({"op": "add", "path": format!("{base}/nullable"), "value": true}),
        ];
        for extra in root_extras {
            let mut patch = vec![extra];
            if !has_status {
                patch.insert(0, add(&format!("/spec/versions/{vi}/subresources"), json!({"status": {}})));
            }
            out.push(Candidate { class: "status-root", patch });
        }
    }
    out
}

fn node_candidates(n: &Node<'_>, out: &mut Vec<Candidate>) {
    let mut push = |class, patch| out.push(Candidate { class, patch });
    let p = &n.pointer;
    let s = n.schema;
    let ty = s["type"].as_str();
    let at = |k: &str| format!("{p}/{k}");
    if ty.is_some() {
        push("drop-type", vec![rm(&at("type"))]);
    }
    // Junctors, with what may and may not stand in them.
    for (j, v) in [
        ("anyOf", json!([{"type": "string"}, {"type": "integer"}])),
        ("allOf", json!([{"required": ["missing"]}])),
        ("oneOf", json!([{"properties": {"added": {"type": "string"}}}])),
        ("not", json!({"description": "no", "default": 1})),
        ("allOf", json!([{"additionalProperties": {"type": "string"}}])),
        ("anyOf", json!([{"x-kubernetes-validations": [{"rule": "true"}]}])),
        ("allOf", json!([{"nullable": true}, {"type": ty.unwrap_or("object")}])),
    ] {
        push("junctor", vec![add(&at(j), v)]);
    }
    if ty == Some("array") && s["items"].is_object() {
        let items = s["items"].clone();
        push("items-array", vec![rep(&at("items"), json!([items]))]);
        push("items-array", vec![rep(&at("items"), json!([items.clone(), items]))]);
        push("items-array", vec![rep(&at("items"), json!([]))]);
        if s["x-kubernetes-list-type"] != "map" {
            push(
                "transition-uncorrelatable",
                vec![add(&format!("{p}/items/x-kubernetes-validations"), json!([{"rule": "self == oldSelf"}]))],
            );
        }
    }
    if n.uncorrelatable && !n.root {
        push(
            "transition-uncorrelatable",
            vec![add(&at("x-kubernetes-validations"), json!([{"rule": "self == oldSelf", "message": "immutable"}]))],
        );
        push(
            "transition-uncorrelatable",
            vec![add(
                &at("x-kubernetes-validations"),
                json!([{"rule": "!has(oldSelf) || true", "optionalOldSelf": true}]),
            )],
        );
    }
    if ty == Some("object") {
        let props: Vec<&String> = s["properties"].as_object().map(|m| m.keys().collect()).unwrap_or_default();
        let first = props.first().map(|k| k.as_str()).unwrap_or("x");
        for fp in [".nonexistent", ".spec[", "nodot", &format!(".{first}.deeper"), &format!(".{first}"), "['a b']"] {
            push(
                "bad-fieldpath",
                vec![add(&at("x-kubernetes-validations"), json!([{"rule": "true", "fieldPath": fp}]))],
            );
        }
        if s["x-kubernetes-embedded-resource"] == true {
            for d in [
                json!({"apiVersion": "v1", "kind": "X", "metadata": {"name": 5}}),
                json!({"apiVersion": "v1", "kind": "X", "metadata": {"labels": "x"}}),
                json!({"apiVersion": "v1", "kind": "X", "metadata": {"name": "Not_Valid"}}),
                json!({"kind": "X"}),
            ] {
                push("embedded-default", vec![add(&at("default"), d)]);
            }
        }
        push("keywords", vec![add(&at("x-kubernetes-preserve-unknown-fields"), json!(false))]);
        push("keywords", vec![add(&at("additionalProperties"), json!({"type": "string"}))]);
        push("keywords", vec![add(&at("x-kubernetes-map-type"), json!("bogus"))]);
        push("keywords", vec![add(&at("required"), json!(["a", "a"]))]);
    }
    if ty == Some("string") {
        for pat in ["(?<name>x)", "[a-", "\\p{Foo}", "a{2,1}", "x**", "(?i)ok", "\\8"] {
            push("bad-pattern", vec![add(&at("pattern"), json!(pat))]);
        }
        for rule in ["self.matches('[a-')", "self.matches('(?<n>x)')", "self.find('a**') == ''"] {
            push("bad-pattern", vec![add(&at("x-kubernetes-validations"), json!([{"rule": rule}]))]);
        }
        push("keywords", vec![add(&at("format"), json!("not-a-format"))]);
        push("keywords", vec![add(&at("enum"), json!(["a", 1, null]))]);
        push("keywords", vec![add(&at("maxLength"), json!(-1))]);
        push("bad-default", vec![add(&at("default"), json!(42))]);
        push("bad-default", vec![add(&at("default"), json!(""))]);
    }
    if matches!(ty, Some("integer" | "number")) {
        push("bad-default", vec![add(&at("default"), json!("ten"))]);
        push("bad-default", vec![add(&at("default"), json!(1.5))]);
        push("keywords", vec![add(&at("multipleOf"), json!(0))]);
        push("keywords", vec![add(&at("exclusiveMinimum"), json!(true))]);
    }
    if ty == Some("array") {
        push("keywords", vec![add(&at("uniqueItems"), json!(true))]);
        push("keywords", vec![add(&at("x-kubernetes-list-type"), json!("map"))]);
        push("keywords", vec![add(&at("x-kubernetes-list-map-keys"), json!(["name"]))]);
        push("bad-default", vec![add(&at("default"), json!({}))]);
        // Rules over unbounded lists: the cost estimate's work.
        for rule in [
            "self.all(x, self.all(y, self.all(z, string(x) != string(y) || string(y) != string(z))))",
            "self.map(x, self.map(y, string(x) + string(y))).size() >= 0",
        ] {
            push("unbounded-rule", vec![add(&at("x-kubernetes-validations"), json!([{"rule": rule}]))]);
        }
    }
    if ty == Some("string") && s["maxLength"].is_null() {
        push(
            "unbounded-rule",
            vec![add(
                &at("x-kubernetes-validations"),
                json!([{"rule": "self.split('').all(a, self.split('').all(b, a != b || true))"}]),
            )],
        );
    }
    if ty.is_some() {
        for (rule, extra) in [
            ("1 +", json!({})),
            ("self.size()", json!({})),
            ("self.noSuchField == 1", json!({})),
            ("oldSelf == self", json!({"optionalOldSelf": true})),
            ("true", json!({"messageExpression": "1"})),
            ("true", json!({"reason": "Bogus"})),
            ("type(self) == net.IP", json!({})),
            ("'%s and %d'.format(['a', 1]) != ''", json!({})),
        ] {
            let mut r = json!({"rule": rule});
            r.as_object_mut().expect("an object").extend(extra.as_object().expect("an object").clone());
            push("bad-rule", vec![add(&at("x-kubernetes-validations"), json!([r]))]);
        }
    }
    push("dollar-schema", vec![add(&at("$schema"), json!("http://json-schema.org/draft-04/schema#"))]);
    if n.root {
        for (prop, keep) in [("metadata", "object"), ("apiVersion", "string"), ("kind", "string")] {
            push("drop-type", vec![add(&format!("{p}/properties/{prop}"), json!({"description": keep}))]);
        }
    }
}
