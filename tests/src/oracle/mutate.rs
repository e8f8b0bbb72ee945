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
    "cel-error-order",
    "cel-beyond-int64",
    "cel-environment",
    "cel-url",
    "cel-map-list",
    "cel-dyn-index",
    "cel-dyn-call",
    "multipleof-not-positive",
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
    "null-default",
    "rule-on-default",
    "cost-near-limit",
    "message-expression",
    "type-information",
    "envelope",
];

/// One candidate change.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// Its class.
    pub class: &'static str,
    /// The change.
    pub patch: Vec<Value>,
    /// For an object's change, what it needs of its CRD (a rule that reads the changed field,
    /// a keyword); empty for most.
    pub crd_patch: Vec<Value>,
}

impl Candidate {
    pub(crate) fn new(class: &'static str, patch: Vec<Value>) -> Candidate {
        Candidate { class, patch, crd_patch: Vec::new() }
    }
}

pub(crate) fn rep(pointer: &str, value: Value) -> Value {
    json!({"op": "replace", "path": pointer, "value": value})
}

pub(crate) fn add(pointer: &str, value: Value) -> Value {
    json!({"op": "add", "path": pointer, "value": value})
}

pub(crate) fn rm(pointer: &str) -> Value {
    json!({"op": "remove", "path": pointer})
}

pub(crate) fn escape(key: &str) -> String {
    kubeskema::path::escape_token(key).into_owned()
}

/// Every candidate change of `object`, an object of the CRD version whose schema is `schema`.
pub fn object_candidates(object: &Value, schema: &Schema, cluster_scoped: bool) -> Vec<Candidate> {
    let mut out = Vec::new();
    walk_object(object, schema, "", &mut out);
    metadata_candidates(object, cluster_scoped, &mut out);
    out
}

fn walk_object(v: &Value, s: &Schema, ptr: &str, out: &mut Vec<Candidate>) {
    let mut push = |class, patch: Vec<Value>| out.push(Candidate::new(class, patch));
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
                let bad = match &**f {
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
            if s.multiple_of().is_some() {
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
            if let Some(max) = s.max_properties().filter(|m| (0..64).contains(m)) {
                let mut grown = map.clone();
                for i in 0..=max {
                    grown.insert(format!("extra{i}"), map.values().next().cloned().unwrap_or(json!("x")));
                }
                push("bounds", vec![rep(ptr, Value::Object(grown))]);
            }
            if s.min_properties().is_some_and(|m| m > 0) {
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
            if !is_root && s.type_str() == Some("object") && !s.properties.is_empty() {
                rule_candidates(map, s, ptr, out);
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

/// A CEL name for a property, where it has one without escaping (the apiserver's escaping,
/// [`kubeskema::cel::escape`], leaves it as it is).
fn cel_ident(name: &str) -> Option<&str> {
    (kubeskema::cel::escape(name).as_deref() == Some(name)).then_some(name)
}

/// The CRD patch that gives the node at `s` the rules `rules`, after any it has.
fn with_rules(s: &Schema, rules: Vec<Value>) -> Vec<Value> {
    let at = format!("{}/x-kubernetes-validations", s.pointer);
    if s.validations.is_empty() {
        vec![add(&at, Value::Array(rules))]
    } else {
        rules.into_iter().map(|r| add(&format!("{at}/-"), r)).collect()
    }
}

/// Rules added to an object node, each with the change of the object that makes it say
/// something: several failing parts (which error cel-go keeps), integers beyond int64 read,
/// the environment's functions over the object's own strings, URLs that need escaping, map
/// lists compared, `multipleOf` that is not positive.
fn rule_candidates(map: &serde_json::Map<String, Value>, s: &Schema, ptr: &str, out: &mut Vec<Candidate>) {
    let mut push = |class, patch: Vec<Value>, crd_patch: Vec<Value>| out.push(Candidate { class, patch, crd_patch });
    let rule = |r: String| json!({"rule": r});
    let named = |want: &dyn Fn(&Schema) -> bool| -> Vec<(&str, &Schema)> {
        s.properties.iter().filter(|(_, p)| want(p)).filter_map(|(k, p)| cel_ident(k).map(|k| (k, p))).collect()
    };
    let absent: Vec<&str> =
        named(&|_| true).into_iter().filter(|(k, _)| !map.contains_key(*k)).map(|(k, _)| k).collect();
    let strings: Vec<&str> = named(&|p| p.type_str() == Some("string"))
        .into_iter()
        .filter(|(k, _)| map.contains_key(*k))
        .map(|(k, _)| k)
        .collect();
    let integers: Vec<(&str, &Schema)> = named(&|p| p.type_str() == Some("integer"));
    // Several parts that fail: which error the rule reports.
    let rules: Vec<String> = match (absent.first(), absent.get(1)) {
        (Some(a), Some(b)) => vec![
            format!("self.{a} == self.{a} || self.{b} == self.{b}"),
            format!("self.{b} == self.{b} && self.{a} == self.{a}"),
            format!("[self.{a}, self.{b}].size() == 2"),
            format!("self.{a} == self.{a} ? true : self.{b} == self.{b}"),
            format!("[1, 2].all(i, self.{a} == self.{a}) || [1].exists(i, self.{b} == self.{b})"),
            format!("{{'x': self.{b}, 'y': self.{a}}}.size() == 2"),
        ],
        (Some(a), None) => vec![
            format!("self.{a} == self.{a} || 1 / 0 == 0"),
            format!("1 / 0 == 0 || self.{a} == self.{a}"),
            format!("[0, 1].exists(i, 1 / i == 1) && self.{a} == self.{a}"),
        ],
        _ => Vec::new(),
    };
    let mut rules = rules;
    if let (Some(t), Some(a)) = (strings.first(), absent.first()) {
        rules.push(format!("int(self.{t}) > 0 || self.{a} == self.{a}"));
    }
    for r in rules {
        push("cel-error-order", Vec::new(), with_rules(s, vec![rule(r)]));
    }
    // Integers beyond int64 where a rule reads them.
    for (name, p) in &integers {
        let at = format!("{ptr}/{name}");
        for big in [json!(9_223_372_036_854_775_808u64), json!(1e19), json!(-9.3e18)] {
            push(
                "cel-beyond-int64",
                vec![add(&at, big)],
                with_rules(s, vec![rule(format!("!has(self.{name}) || self.{name} >= 0"))]),
            );
        }
        // multipleOf that is not positive: the field's own keyword.
        if map.contains_key(*name) {
            for factor in [json!(0), json!(-1), json!(0.5)] {
                push("multipleof-not-positive", Vec::new(), vec![add(&format!("{}/multipleOf", p.pointer), factor)]);
            }
        }
    }
    // The environment's functions over the object's own strings.
    for t in &strings {
        for call in environment_calls(&format!("self.{t}")) {
            push("cel-environment", Vec::new(), with_rules(s, vec![rule(format!("[{call}].size() == 1"))]));
        }
        for url in URLS {
            let rules = vec![
                json!({"rule": format!("url(self.{t}).getEscapedPath() == 'x'"),
                       "messageExpression": format!("url(self.{t}).getEscapedPath() + '|' + url(self.{t}).getHost() + '|' + url(self.{t}).getPort()")}),
                rule(format!("isURL(self.{t})")),
            ];
            push("cel-url", vec![add(&format!("{ptr}/{t}"), json!(url))], with_rules(s, rules));
        }
    }
    // Map lists compared whole and item by item.
    for (name, p) in named(&|p| p.list_type.as_deref() == Some("map")) {
        let Some(Value::Array(items)) = map.get(name) else { continue };
        let Some(Value::Object(first)) = items.first() else { continue };
        let mut other = first.clone();
        for k in &p.list_map_keys {
            if other.get(k).is_some_and(Value::is_string) {
                other.insert(k.clone(), json!("zz-other"));
            }
        }
        let rules = [
            format!("size(self.{name}) < 2 || self.{name}[0] != self.{name}[1]"),
            format!("self.{name} == self.{name}"),
            format!("self.{name}.exists(x, x == self.{name}[0])"),
            format!("self.{name}[0] in self.{name}"),
        ];
        for r in rules {
            push(
                "cel-map-list",
                vec![add(&format!("{ptr}/{name}/-"), Value::Object(other.clone()))],
                with_rules(s, vec![rule(r)]),
            );
        }
    }
    for r in dyn_index_rules(map, s) {
        push("cel-dyn-index", Vec::new(), with_rules(s, vec![rule(r)]));
    }
    // Every function of the environment called with one of the object's own values, of
    // whatever type, as `dyn`.
    for (name, _) in s.properties.iter().filter(|(name, _)| map.contains_key(name.as_str())) {
        let Some(n) = cel_ident(name) else { continue };
        for call in dyn_calls(&format!("dyn(self.{n})")) {
            push("cel-dyn-call", Vec::new(), with_rules(s, vec![rule(format!("[{call}].size() == 1"))]));
        }
    }
}

/// Rules that index the object's lists and maps by keys the checker cannot type (`dyn(0u)`,
/// `dyn(0.5)`, `dyn(true)`): cel-go reads a list's index by its value, the apiserver's own
/// lists and maps by their Go types (the class `data-index` of `targeted.jsonl` was found so).
fn dyn_index_rules(map: &serde_json::Map<String, Value>, s: &Schema) -> Vec<String> {
    let mut rules = Vec::new();
    for (name, p) in &s.properties {
        let Some(n) = cel_ident(name) else { continue };
        match (p.type_str(), map.get(name.as_str())) {
            (Some("array"), Some(Value::Array(items))) if !items.is_empty() => {
                for key in ["dyn(0u)", "dyn(0.0)", "dyn(0.5)", "dyn('0')", "dyn(true)"] {
                    rules.push(format!("self.{n}[{key}] == self.{n}[0]"));
                }
                rules.push(format!("self.{n}[?dyn(0.5)].hasValue()"));
                rules.push(format!("[self.{n}][0][dyn(0u)] == self.{n}[0]"));
                rules.push(format!("(self.{n} + self.{n})[dyn(1.0)] == self.{n}[0]"));
            }
            (Some("object"), Some(Value::Object(_)))
                if p.properties.is_empty() && p.additional_properties.is_some() =>
            {
                for key in ["dyn(1)", "dyn(true)", "dyn(1u)"] {
                    rules.push(format!("self.{n}[{key}] == self.{n}[{key}]"));
                    rules.push(format!("{key} in self.{n}"));
                }
                rules.push(format!("self.{n}[?dyn(1)].hasValue()"));
            }
            _ => {}
        }
    }
    rules
}

/// URLs that need escaping, or that `net/url` reads with care.
const URLS: &[&str] = &[
    "https://example.com/with space/",
    "https://example.com/ü/ñ?q=ä",
    "https://[::1]:8080/p",
    "http://host:/x",
    "https://user:pa ss@host:99/x",
    "https://example.com/a%2fb",
    "/relative/path",
    "https://ex ample.com/",
];

/// The overloads of the apiserver's environment a rule can call by name
/// (fixtures/oracle/cel-environment.tsv, recorded from kube-apiserver 1.36.3): name, whether a
/// member, parameter types (the receiver first).
fn environment_rows() -> &'static [(String, bool, Vec<String>)] {
    static ROWS: std::sync::OnceLock<Vec<(String, bool, Vec<String>)>> = std::sync::OnceLock::new();
    ROWS.get_or_init(|| {
        let path = crate::repo_dir().join("fixtures/oracle/cel-environment.tsv");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let cols: Vec<&str> = l.split('\t').collect();
                let [name, id, member, sig] = cols[..] else { return None };
                let skip = id == "macro" || name.starts_with(['@', '_', '!', '-']) || sig.contains("authorization");
                let args = sig.split(" -> ").next()?.strip_prefix('(')?.strip_suffix(')')?;
                let args: Vec<String> = split_top(args).into_iter().map(|a| a.trim().to_owned()).collect();
                (!skip).then(|| (name.to_owned(), member == "member", args))
            })
            .collect()
    })
}

/// One call of each function of the environment (each name, member or not, and arity), every
/// argument `value`: what cel-go's dispatch answers for a value of whatever type (class
/// `cel-overload-words` of `targeted.jsonl` was found so).
fn dyn_calls(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (name, member, args) in environment_rows().iter().filter(|(_, _, args)| !args.is_empty()) {
        let call = if *member {
            format!("{value}.{name}({})", vec![value; args.len() - 1].join(", "))
        } else {
            format!("{name}({})", vec![value; args.len()].join(", "))
        };
        if !out.contains(&call) {
            out.push(call);
        }
    }
    out
}

/// Calls of every overload of the apiserver's environment that takes a string, `value` as that
/// string.
fn environment_calls(value: &str) -> Vec<String> {
    let rows: Vec<&(String, bool, Vec<String>)> =
        environment_rows().iter().filter(|(_, _, args)| args.iter().any(|a| a == "string")).collect();
    let literal = |t: &str| -> Option<&str> {
        Some(match t {
            "string" => "'a,b'",
            "int" => "1",
            "uint" => "1u",
            "double" => "2.5",
            "bool" => "true",
            "bytes" => "b'ab'",
            "list(string)" => "['b', 'a']",
            "list(int)" => "[3, 1, 2]",
            "map(string, string)" => "{'k': 'v'}",
            "kubernetes.NamedFormat" => "format.dns1123Label()",
            _ => return None,
        })
    };
    let mut out = Vec::new();
    for (name, member, args) in rows {
        let Some(first) = args.iter().position(|a| a == "string") else { continue };
        let values: Option<Vec<&str>> =
            args.iter().enumerate().map(|(i, a)| if i == first { Some(value) } else { literal(a) }).collect();
        let Some(values) = values else { continue };
        let call = if *member {
            format!("{}.{name}({})", values[0], values[1..].join(", "))
        } else {
            format!("{name}({})", values.join(", "))
        };
        if !out.contains(&call) {
            out.push(call);
        }
    }
    out
}

/// Splits at top-level commas (not inside parentheses).
fn split_top(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(&s[start..]);
    }
    out
}

/// Edge values for the fields a rule's node holds: what rules most often refuse.
fn cel_candidates(map: &serde_json::Map<String, Value>, s: &Schema, ptr: &str, out: &mut Vec<Candidate>) {
    let mut push = |patch| out.push(Candidate::new("cel", patch));
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
    let mut push = |class, patch| out.push(Candidate::new(class, patch));
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
pub(crate) struct Node<'a> {
    pub pointer: String,
    pub schema: &'a Value,
    /// Below the items of an atomic or set list (where no old value can be correlated).
    uncorrelatable: bool,
    /// Directly the root of a version's schema.
    root: bool,
}

pub(crate) fn nodes<'a>(schema: &'a Value, pointer: String, uncorrelatable: bool, root: bool, out: &mut Vec<Node<'a>>) {
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
            out.push(Candidate::new("status-root", patch));
        }
        // Every array node with the same costly rule: the schema's total.
        let arrays: Vec<&Node<'_>> = all.iter().filter(|n| n.schema["type"] == "array").collect();
        if arrays.len() > 1 {
            let patch = arrays
                .iter()
                .flat_map(|n| {
                    [
                        add(&format!("{}/maxItems", n.pointer), json!(3_000)),
                        add(
                            &format!("{}/x-kubernetes-validations", n.pointer),
                            json!([{"rule": "self.all(x, self.all(y, true))"}]),
                        ),
                    ]
                })
                .collect();
            out.push(Candidate::new("cost-near-limit", patch));
        }
        envelope_candidates(crd, vi, &mut out);
    }
    out
}

/// The CRD around its schemas: names, versions, printer columns, selectable fields, scale
/// paths, deprecation, conversion, the approval of protected groups.
fn envelope_candidates(crd: &Value, vi: usize, out: &mut Vec<Candidate>) {
    let mut push = |patch| out.push(Candidate::new("envelope", patch));
    let v = format!("/spec/versions/{vi}");
    let group = crd["spec"]["group"].as_str().unwrap_or_default();
    let plural = crd["spec"]["names"]["plural"].as_str().unwrap_or_default();
    let kind = crd["spec"]["names"]["kind"].as_str().unwrap_or_default();
    let renamed = |g: &str| vec![rep("/spec/group", json!(g)), rep("/metadata/name", json!(format!("{plural}.{g}")))];
    if vi == 0 {
        for g in ["Example.Com", "nodot", "x.k8s.io", "example.kubernetes.io"] {
            push(renamed(g));
        }
        push(rep_all(&[("/spec/names/listKind", json!(kind))]));
        push(rep_all(&[("/spec/names/kind", json!(format!("{kind}_x")))]));
        push(rep_all(&[("/spec/names/plural", json!(plural.to_uppercase()))]));
        push(rep_all(&[("/spec/names/shortNames", json!(["ok", "Not_Ok"]))]));
        push(rep_all(&[("/spec/names/categories", json!(["all", "Bad Cat"]))]));
        push(rep_all(&[("/metadata/name", json!(format!("other.{group}")))]));
        push(rep_all(&[("/spec/scope", json!("Global"))]));
        push(rep_all(&[("/spec/preserveUnknownFields", json!(true))]));
        push(rep_all(&[("/spec/conversion", json!({"strategy": "Webhook"}))]));
        push(rep_all(&[(
            "/spec/conversion",
            json!({"strategy": "Webhook", "webhook": {"clientConfig": {"url": "http://x/c?q=1"}, "conversionReviewVersions": ["v2"]}}),
        )]));
    }
    push(vec![add(&format!("{v}/name"), json!("V1"))]);
    push(vec![add(&format!("{v}/storage"), json!(false))]);
    push(vec![add(&format!("{v}/storage"), json!(true))]);
    push(vec![add(&format!("{v}/deprecationWarning"), json!("dep\u{1}recated"))]);
    push(vec![add(&format!("{v}/deprecated"), json!(true)), add(&format!("{v}/deprecationWarning"), json!(""))]);
    push(vec![add(
        &format!("{v}/additionalPrinterColumns"),
        json!([{"name": "A", "type": "int", "jsonPath": "spec", "format": "hex"}]),
    )]);
    push(vec![add(&format!("{v}/additionalPrinterColumns"), json!([{"name": "", "type": "", "jsonPath": ""}]))]);
    push(vec![add(
        &format!("{v}/selectableFields"),
        json!([{"jsonPath": ".spec"}, {"jsonPath": ".spec.nope"}, {"jsonPath": ".metadata.name"}, {"jsonPath": ".spec['x']"}]),
    )]);
    push(vec![add(
        &format!("{v}/subresources"),
        json!({"scale": {"specReplicasPath": ".status.r", "statusReplicasPath": "r", "labelSelectorPath": ".x"}}),
    )]);
}

fn rep_all(pairs: &[(&str, Value)]) -> Vec<Value> {
    pairs.iter().map(|(p, v)| add(p, v.clone())).collect()
}

fn node_candidates(n: &Node<'_>, out: &mut Vec<Candidate>) {
    let mut push = |class, patch| out.push(Candidate::new(class, patch));
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
    // `default: null` (none), and keywords written null.
    for key in ["default", "example", "externalDocs", "maxLength", "items", "x-kubernetes-validations"] {
        push("null-default", vec![add(&at(key), Value::Null)]);
    }
    // Rules on defaulted nodes: evaluated on the default when the CRD is created, with
    // fieldPath and messageExpression beside them.
    let default = match ty {
        Some("string") => Some(json!("x")),
        Some("integer") => Some(json!(1)),
        Some("boolean") => Some(json!(true)),
        Some("array") => Some(json!([])),
        Some("object") if s["properties"].is_object() => Some(json!({})),
        _ => None,
    };
    if let Some(d) = default {
        let first =
            s["properties"].as_object().and_then(|m| m.keys().next()).map_or("x".to_owned(), |k| format!(".{k}"));
        for r in [
            json!({"rule": "false", "fieldPath": first}),
            json!({"rule": "self != self", "fieldPath": ".nope"}),
            json!({"rule": "false", "messageExpression": "'bad ' + string(1)"}),
            json!({"rule": "false", "messageExpression": "1"}),
            json!({"rule": "1 / 0 == 0"}),
        ] {
            push(
                "rule-on-default",
                vec![add(&at("default"), d.clone()), add(&at("x-kubernetes-validations"), json!([r]))],
            );
        }
    }
    // messageExpression beside rules that fail, compile or not.
    if ty.is_some() {
        for r in [
            json!({"rule": "1 +", "messageExpression": "'x'"}),
            json!({"rule": "true", "messageExpression": "1 +"}),
            json!({"rule": "true", "messageExpression": ""}),
            json!({"rule": "self == self", "messageExpression": "42"}),
            json!({"rule": "true", "messageExpression": "[1, 2].map(x, string(x)).join(',')", "fieldPath": ".no"}),
        ] {
            push("message-expression", vec![add(&at("x-kubernetes-validations"), json!([r]))]);
        }
    }
    // Rules where CEL has no type to declare: preserve-unknown-fields alone, or lists of it.
    if ty.is_none() || s["x-kubernetes-int-or-string"] == true {
        for rule in ["[1][5] == 1", "self == self", "1 == 1"] {
            push("type-information", vec![add(&at("x-kubernetes-validations"), json!([{"rule": rule}]))]);
        }
    }
    // Near the cost limits: lists bounded at sizes around them, rules that walk them twice.
    if ty == Some("array") {
        for max in [100, 1_000, 3_000, 10_000, 100_000] {
            push(
                "cost-near-limit",
                vec![
                    add(&at("maxItems"), json!(max)),
                    add(&at("x-kubernetes-validations"), json!([{"rule": "self.all(x, self.all(y, x == y || true))"}])),
                ],
            );
        }
    }
    if n.root {
        for (prop, keep) in [("metadata", "object"), ("apiVersion", "string"), ("kind", "string")] {
            push("drop-type", vec![add(&format!("{p}/properties/{prop}"), json!({"description": keep}))]);
        }
    }
}
