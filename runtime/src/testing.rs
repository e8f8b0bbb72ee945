//! Property tests from a schema (feature `testing`): [`json`] generates values a structural
//! schema accepts, [`resources`] objects of a generated or derived resource type (CEL rules
//! met by rejection), and [`round_trip`] holds a CRD's conversions to cluster-api's test:
//! hub → spoke → hub and spoke → hub → spoke over generated objects.
//!
//! ```
//! use kubeskema::testing::json;
//! use proptest::strategy::{Strategy, ValueTree};
//! use proptest::test_runner::TestRunner;
//! let schema = serde_json::json!({"type": "object", "required": ["port"], "properties": {
//!     "port": {"type": "integer", "minimum": 1, "maximum": 65535},
//!     "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 8}}});
//! let mut runner = TestRunner::deterministic();
//! for _ in 0..100 {
//!     let value = json(&schema).new_tree(&mut runner).unwrap().current();
//!     let port = value["port"].as_i64().unwrap();
//!     assert!((1..=65535).contains(&port));
//! }
//! ```
//!
//! What the generator writes, keyword by keyword: `type`, `properties` and `required`
//! (optional properties present about half the time near the root, less deeper down),
//! `additionalProperties` (up to three keys), `items` with `minItems`/`maxItems`, `enum`,
//! `nullable` (a `null` one time in eight), `minimum`/`maximum` (exclusive too) and
//! `multipleOf`, `minLength`/`maxLength`, `pattern` (through proptest's regex generator), the
//! formats the apiserver checks (`date-time`, `date`, `duration`, `uuid`, `ipv4`, `ipv6`,
//! `cidr`, `hostname`, `email`, `uri`, `byte`, `mac`, ...), `x-kubernetes-int-or-string`,
//! `x-kubernetes-preserve-unknown-fields`, `x-kubernetes-embedded-resource`, and the list
//! types (`set` items and `map` keys unique). What it does not write (`allOf`/`anyOf`/`oneOf`/
//! `not`, `minProperties`/`maxProperties`, a pattern proptest cannot generate, and CEL rules)
//! is met by rejection: [`Generator`] counts what each rejected, and [`Stats`] says the rate.

use std::fmt::Debug;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, TestRunner};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json as j};

use crate::check::format::{Format, supported};
use crate::dynamic::crd::Crd;
use crate::dynamic::validate::ResourceValidator;
use crate::schema::of_types::crd::CustomResource;
use crate::types::conversion::DATA_ANNOTATION;

/// Values `schema` (a structural schema, as JSON) accepts by its keywords (not its CEL rules
/// nor its junctors, see the module's list).
pub fn json(schema: &Value) -> BoxedStrategy<Value> {
    node(schema, 0)
}

/// How likely an optional property is present at `depth`: about half near the root, less
/// deeper down, so that a large schema (a Workflow's templates) gives objects of a readable
/// size.
fn presence(depth: usize) -> f64 {
    match depth {
        0..=2 => 0.6,
        3..=5 => 0.35,
        6..=8 => 0.15,
        _ => 0.0,
    }
}

fn node(s: &Value, depth: usize) -> BoxedStrategy<Value> {
    let inner = bare(s, depth);
    if s.get("nullable") == Some(&Value::Bool(true)) {
        prop_oneof![1 => Just(Value::Null), 7 => inner].boxed()
    } else {
        inner
    }
}

fn bare(s: &Value, depth: usize) -> BoxedStrategy<Value> {
    if let Some(values) = s.get("enum").and_then(Value::as_array).filter(|v| !v.is_empty()) {
        let values: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
        if !values.is_empty() {
            return proptest::sample::select(values).boxed();
        }
    }
    if s.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        // The string's keywords (a quantity's pattern) hold for the string branch.
        return prop_oneof![(0i64..100).prop_map(Value::from), string(s)].boxed();
    }
    match s.get("type").and_then(Value::as_str).unwrap_or("") {
        "object" => object(s, depth),
        "array" => array(s, depth),
        "string" => string(s),
        "integer" => integer(s),
        "number" => number(s),
        "boolean" => any::<bool>().prop_map(Value::from).boxed(),
        // A preserving node without a type: anything; kept small.
        _ => prop_oneof![Just(j!({})), Just(j!("x")), Just(j!(1)), Just(j!({"k": ["v"]}))].boxed(),
    }
}

fn object(s: &Value, depth: usize) -> BoxedStrategy<Value> {
    let required: Vec<&str> = s
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = s.get("properties").and_then(Value::as_object);
    let unions = unions(s);
    let in_union = |name: &str| unions.iter().flatten().flatten().any(|n| n == name);
    let mut fields: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
    for (name, schema) in properties.into_iter().flatten() {
        let is_required = required.contains(&name.as_str());
        let p = presence(depth);
        // Deep down, optional properties are left out: not even their strategies are built.
        if !is_required && !in_union(name) && p == 0.0 {
            continue;
        }
        let always = is_required || in_union(name);
        let name = name.clone();
        let value = node(schema, depth + 1).prop_map(move |v| Some((name.clone(), v)));
        // A union member is always made; the union's branch chosen below keeps it or not.
        if always {
            fields.push(value.boxed());
        } else {
            fields.push(proptest::option::weighted(p, value).prop_map(Option::flatten).boxed());
        }
    }
    // One branch of each union: its members kept, the other branches' members left out.
    let members: Vec<String> = unions.iter().flatten().flatten().cloned().collect();
    let choices: Vec<BoxedStrategy<Vec<String>>> =
        unions.into_iter().map(|branches| proptest::sample::select(branches).boxed()).collect();
    let embedded = s.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true));
    let extra: BoxedStrategy<Vec<(String, Value)>> = match s.get("additionalProperties") {
        Some(schema @ Value::Object(_)) if depth < 8 => {
            let (min, max) = counts(s, "minProperties", "maxProperties", 3);
            let known: Vec<String> = properties.map(|p| p.keys().cloned().collect()).unwrap_or_default();
            proptest::collection::vec((word(1, 8), node(schema, depth + 1)), min..=max)
                .prop_map(move |entries| entries.into_iter().filter(|(k, _)| !known.contains(k)).collect())
                .boxed()
        }
        _ if properties.is_none() && s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) => {
            prop_oneof![Just(vec![]), Just(vec![("extra".to_owned(), j!({"kept": true}))])].boxed()
        }
        _ => Just(Vec::new()).boxed(),
    };
    let object_required: Vec<String> = required.iter().map(|r| (*r).to_owned()).collect();
    (fields, extra, choices)
        .prop_map(move |(fields, extra, chosen)| {
            let mut map: Map<String, Value> = fields.into_iter().flatten().collect();
            let kept: Vec<&String> = chosen.iter().flatten().collect();
            map.retain(|k, _| !members.contains(k) || kept.contains(&k) || object_required.contains(k));
            for (k, v) in extra {
                map.entry(k).or_insert(v);
            }
            if embedded {
                map.entry("apiVersion").or_insert_with(|| j!("v1"));
                map.entry("kind").or_insert_with(|| j!("ConfigMap"));
                let meta = map.entry("metadata").or_insert_with(|| j!({}));
                if let Some(meta) = meta.as_object_mut() {
                    meta.retain(|k, _| k == "name");
                    meta.entry("name").or_insert_with(|| j!("embedded"));
                }
            }
            Value::Object(map)
        })
        .boxed()
}

/// The unions of an object: each `oneOf`/`anyOf` (its own, or an `allOf` entry's) whose
/// branches each require properties (or, as Istio writes "none of them", are a `not`), as the
/// properties each branch keeps. A union of other branches is met by rejection.
fn unions(s: &Value) -> Vec<Vec<Vec<String>>> {
    let mut nodes = vec![s];
    nodes.extend(s.get("allOf").and_then(Value::as_array).into_iter().flatten());
    let mut out = Vec::new();
    for node in nodes {
        for key in ["oneOf", "anyOf"] {
            let Some(branches) = node.get(key).and_then(Value::as_array).filter(|b| b.len() >= 2) else { continue };
            let kept: Option<Vec<Vec<String>>> = branches
                .iter()
                .map(|b| match (b.get("required").and_then(Value::as_array), b.get("not")) {
                    (Some(r), None) => r.iter().map(|n| n.as_str().map(str::to_owned)).collect(),
                    (None, Some(_)) => Some(Vec::new()),
                    _ => None,
                })
                .collect();
            out.extend(kept);
        }
    }
    out
}

/// A count's bounds from two keywords, at most `more` past the least.
fn counts(s: &Value, min_key: &str, max_key: &str, more: usize) -> (usize, usize) {
    let min = s.get(min_key).and_then(Value::as_u64).map_or(0, |n| n.min(64) as usize);
    let max = s.get(max_key).and_then(Value::as_u64).map_or(usize::MAX, |n| n as usize);
    (min, max.min(min + more).max(min))
}

fn array(s: &Value, depth: usize) -> BoxedStrategy<Value> {
    let items = s.get("items").cloned().unwrap_or(j!({}));
    let (min, max) = counts(s, "minItems", "maxItems", if depth < 6 { 2 } else { 0 });
    let unique = s.get("uniqueItems") == Some(&Value::Bool(true))
        || s.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("set");
    let keys: Vec<String> = match s.get("x-kubernetes-list-type").and_then(Value::as_str) {
        Some("map") => s
            .get("x-kubernetes-list-map-keys")
            .and_then(Value::as_array)
            .map(|k| k.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    // A map key's default fills it before the keys are compared.
    let defaults: Vec<Value> = keys
        .iter()
        .map(|k| items.pointer(&format!("/properties/{k}/default")).cloned().unwrap_or(Value::Null))
        .collect();
    proptest::collection::vec(node(&items, depth + 1), min..=max)
        .prop_map(move |list| {
            if !unique && keys.is_empty() {
                return Value::Array(list);
            }
            let mut seen: Vec<Value> = Vec::new();
            let mut out = Vec::new();
            for item in list {
                let identity = if keys.is_empty() {
                    item.clone()
                } else {
                    Value::Array(
                        keys.iter()
                            .zip(&defaults)
                            .map(|(k, d)| item.get(k).cloned().unwrap_or_else(|| d.clone()))
                            .collect(),
                    )
                };
                if !seen.contains(&identity) {
                    seen.push(identity);
                    out.push(item);
                }
            }
            Value::Array(out)
        })
        .boxed()
}

/// `[a-z][a-z0-9]*` of `min..=max` characters.
fn word(min: usize, max: usize) -> BoxedStrategy<String> {
    let max = max.max(min).max(1);
    let min = min.max(1);
    proptest::string::string_regex(&format!("[a-z][a-z0-9]{{{},{}}}", min - 1, max - 1))
        .expect("invariant: a literal regex")
        .boxed()
}

fn string(s: &Value) -> BoxedStrategy<Value> {
    let (min, max) = (
        s.get("minLength").and_then(Value::as_u64).map_or(0, |n| n.min(256) as usize),
        s.get("maxLength").and_then(Value::as_u64).map_or(usize::MAX, |n| n as usize),
    );
    let length_ok = move |v: &str| {
        let n = v.chars().count();
        n >= min && n <= max
    };
    let format = s.get("format").and_then(Value::as_str).and_then(|f| supported("string", f));
    let base: BoxedStrategy<String> = if let Some(f) = format {
        formatted(f)
    } else if let Some(pattern) = s.get("pattern").and_then(Value::as_str) {
        match proptest::string::string_regex(&unanchored(pattern)) {
            Ok(strategy) => strategy.boxed(),
            // A pattern proptest cannot generate from: words, filtered by the pattern below.
            Err(_) => word(min.max(1), max.min(min + 12).max(1)).boxed(),
        }
    } else if max == 0 {
        Just(String::new()).boxed()
    } else {
        word(min.max(1), max.min(min + 12).max(min.max(1))).boxed()
    };
    base.prop_filter("length", move |v| length_ok(v)).prop_map(Value::from).boxed()
}

/// proptest's regex generator takes no anchors: the apiserver's patterns are searched, so a
/// generated string matching the unanchored body also matches the pattern.
fn unanchored(pattern: &str) -> String {
    let p = pattern.strip_prefix('^').unwrap_or(pattern);
    let p = if p.ends_with('$') && !p.ends_with("\\$") { &p[..p.len() - 1] } else { p };
    p.to_owned()
}

/// Strings of a format the apiserver checks.
fn formatted(f: Format) -> BoxedStrategy<String> {
    let samples: &[&str] = match f {
        Format::DateTime => &["2024-02-29T10:00:00Z", "2026-11-29T06:35:47+01:00", "1999-12-31T23:59:59.5Z"],
        Format::Date => &["2024-02-29", "2026-11-29"],
        Format::Duration => &["5s", "1h30m", "250ms", "0s"],
        Format::Uuid | Format::Uuid4 => &["3e1f2b4c-9a0b-4c1d-8e2f-1a2b3c4d5e6f"],
        Format::Uuid3 => &["a3bb189e-8bf9-3888-9912-ace4e6543002"],
        Format::Uuid5 => &["886313e1-3b8a-5372-9b90-0c9aee199e5d"],
        Format::Ipv4 => &["10.0.0.1", "192.168.1.20", "127.0.0.1"],
        Format::Ipv6 => &["::1", "fd00::1", "2001:db8::8a2e:370:7334"],
        Format::Cidr => &["10.0.0.0/8", "192.168.0.0/24", "fd00::/64"],
        Format::Hostname => &["example.com", "node-1", "a.b.example.org"],
        Format::Email => &["dev@example.com", "a.b@example.org"],
        Format::Uri => &["https://example.com/x", "http://localhost:8080"],
        Format::Byte => &["aGVsbG8=", "", "a3ViZXNrZW1h"],
        Format::Mac => &["00:1a:2b:3c:4d:5e"],
        Format::BsonObjectId => &["507f1f77bcf86cd799439011"],
        Format::HexColor => &["#ff0000", "#0a0"],
        Format::RgbColor => &["rgb(255,0,0)"],
        Format::Isbn | Format::Isbn10 => &["0306406152"],
        Format::Isbn13 => &["9780306406157"],
        Format::CreditCard => &["4111111111111111"],
        Format::Ssn => &["123-45-6789"],
        Format::Password => &["hunter2"],
        Format::K8sShortName => &["web", "a-b"],
        Format::K8sLongName => &["example.com", "a.b-c"],
    };
    let samples: Vec<String> = samples.iter().map(|s| (*s).to_owned()).collect();
    proptest::sample::select(samples).prop_filter("format", move |v| f.is_valid(v)).boxed()
}

fn integer(s: &Value) -> BoxedStrategy<Value> {
    let int32 = s.get("format").and_then(Value::as_str) == Some("int32");
    let (lo_default, hi_default) = (-100i64, 1000i64);
    let mut lo = s.get("minimum").and_then(Value::as_f64).map_or(lo_default, |m| m.ceil() as i64);
    let mut hi =
        s.get("maximum").and_then(Value::as_f64).map_or(hi_default.max(lo.saturating_add(1000)), |m| m.floor() as i64);
    if s.get("exclusiveMinimum") == Some(&Value::Bool(true))
        && s.get("minimum").is_some_and(|m| m.as_f64() == Some(lo as f64))
    {
        lo = lo.saturating_add(1);
    }
    if s.get("exclusiveMaximum") == Some(&Value::Bool(true))
        && s.get("maximum").is_some_and(|m| m.as_f64() == Some(hi as f64))
    {
        hi = hi.saturating_sub(1);
    }
    if int32 {
        (lo, hi) = (lo.max(i32::MIN.into()), hi.min(i32::MAX.into()));
    }
    if s.get("minimum").is_none() && s.get("maximum").is_some() {
        lo = lo.min(hi.saturating_sub(1000));
    }
    if lo > hi {
        return Just(Value::from(lo)).boxed();
    }
    match s.get("multipleOf").and_then(Value::as_f64).filter(|m| *m >= 1.0 && m.fract() == 0.0) {
        Some(m) => {
            let m = m as i64;
            let (first, last) = (lo.div_euclid(m) + i64::from(lo.rem_euclid(m) != 0), hi.div_euclid(m));
            if first > last {
                Just(Value::from(lo)).boxed()
            } else {
                (first..=last).prop_map(move |k| Value::from(k * m)).boxed()
            }
        }
        None => (lo..=hi).prop_map(Value::from).boxed(),
    }
}

fn number(s: &Value) -> BoxedStrategy<Value> {
    let lo = s.get("minimum").and_then(Value::as_f64).unwrap_or(-100.0);
    let hi = s.get("maximum").and_then(Value::as_f64).unwrap_or(lo.max(0.0) + 1000.0);
    if lo.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) {
        return Just(j!(lo)).boxed();
    }
    // Halves: exact in binary and in JSON, and strictly inside exclusive bounds.
    let (a, b) = ((lo * 2.0).floor() as i64 + 1, (hi * 2.0).ceil() as i64 - 1);
    if a > b {
        return Just(j!((lo + hi) / 2.0)).boxed();
    }
    (a..=b).prop_map(|h| j!(h as f64 / 2.0)).boxed()
}

/// Counts of what a [`Generator`] made and what it threw away, and why.
#[derive(Debug, Default)]
pub struct Stats {
    generated: AtomicUsize,
    rules: AtomicUsize,
    schema: AtomicUsize,
    read: AtomicUsize,
}

impl Stats {
    /// `(generated, refused by CEL rules, refused by other keywords, not read by the type)`.
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let n = |a: &AtomicUsize| a.load(Ordering::Relaxed);
        (n(&self.generated), n(&self.rules), n(&self.schema), n(&self.read))
    }

    /// `generated N, kept K (R% rejected: a by CEL rules, b by other keywords, c unread)`.
    pub fn summary(&self) -> String {
        let (g, r, s, u) = self.counts();
        let kept = g - r - s - u;
        let rate = if g == 0 { 0.0 } else { 100.0 * (r + s + u) as f64 / g as f64 };
        format!("generated {g}, kept {kept} ({rate:.1}% rejected: {r} by CEL rules, {s} by other keywords, {u} unread)")
    }
}

/// Objects of one version of a CRD (as JSON): `apiVersion` and `kind` its own, a
/// `metadata.name` (and `namespace`), the rest from [`json`]; kept when the apiserver's
/// validation (the dynamic validator) accepts them. [`Generator`] reads them into a type.
pub struct Objects {
    crd: Crd,
    /// The same CRD without its rules: what tells a rule's refusal from the generator's gap.
    bare: Crd,
    version: usize,
    strategy: BoxedStrategy<Value>,
    /// What it made and threw away.
    pub stats: std::sync::Arc<Stats>,
}

impl Objects {
    /// Objects of `version` of `crd` (a CRD document); `None` when it has no such version.
    pub fn new(crd: &Value, version: &str) -> Option<Objects> {
        let (parsed, _) = Crd::parse(crd);
        let index = parsed.versions.iter().position(|v| v.name == version)?;
        let mut bare_json = crd.clone();
        strip_rules(&mut bare_json);
        let (bare, _) = Crd::parse(&bare_json);
        // A v1beta1 CRD may hold one schema for every version.
        let schema = crd
            .pointer(&format!("/spec/versions/{index}/schema/openAPIV3Schema"))
            .or_else(|| crd.pointer("/spec/validation/openAPIV3Schema"))
            .cloned()
            .unwrap_or(j!({"type": "object"}));
        let api_version = crate::dynamic::crd::api_version(&parsed.group, version);
        let kind = parsed.names.kind.clone();
        let namespaced = parsed.scope != "Cluster";
        let strategy = (json(&schema), word(1, 20))
            .prop_map(move |(mut object, name)| {
                if let Some(map) = object.as_object_mut() {
                    map.insert("apiVersion".into(), j!(api_version));
                    map.insert("kind".into(), j!(kind));
                    let meta = if namespaced { j!({"name": name, "namespace": "default"}) } else { j!({"name": name}) };
                    map.insert("metadata".into(), meta);
                }
                object
            })
            .boxed();
        Some(Objects { crd: parsed, bare, version: index, strategy, stats: Default::default() })
    }

    /// Whether `object` is kept (the CRD accepts it): counted in [`Objects::stats`].
    pub fn keep(&self, object: &Value) -> bool {
        let stats = &self.stats;
        stats.generated.fetch_add(1, Ordering::Relaxed);
        let bare = ResourceValidator::new(&self.bare, &self.bare.versions[self.version]);
        if !bare.validate_create(object).issues.is_empty() {
            stats.schema.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        let full = ResourceValidator::new(&self.crd, &self.crd.versions[self.version]);
        if !full.validate_create(object).issues.is_empty() {
            stats.rules.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// The next kept object, trying at most `tries` generated ones.
    pub fn next(&self, runner: &mut TestRunner, tries: usize) -> Option<Value> {
        (0..tries).find_map(|_| {
            let object = self.strategy.new_tree(runner).ok()?.current();
            self.keep(&object).then_some(object)
        })
    }
}

/// [`Objects`] of resource type `T`'s CRD version (its derived CRD), read as `T`.
pub struct Generator<T> {
    objects: Objects,
    _type: std::marker::PhantomData<fn() -> T>,
}

impl<T: CustomResource + DeserializeOwned + Debug + 'static> Generator<T> {
    /// The generator of `T`'s objects.
    pub fn new() -> Self {
        let objects = Objects::new(T::definition().to_json(), T::RESOURCE.version)
            .expect("invariant: a resource type's CRD has its version");
        Generator { objects, _type: std::marker::PhantomData }
    }

    /// What it made and threw away.
    pub fn stats(&self) -> &Stats {
        &self.objects.stats
    }

    /// `object`, when the CRD accepts it and `T` reads it.
    fn keep(&self, object: &Value) -> Option<T> {
        if !self.objects.keep(object) {
            return None;
        }
        serde_json::from_value(object.clone()).map_err(|_| self.objects.stats.read.fetch_add(1, Ordering::Relaxed)).ok()
    }

    /// The generator as a proptest strategy of `T` (rejections count against proptest's
    /// limits: `Config::max_global_rejects`).
    pub fn strategy(self) -> impl Strategy<Value = T> {
        let this = std::sync::Arc::new(self);
        let strategy = this.objects.strategy.clone();
        strategy.prop_filter_map("refused by the CRD or not read by the type", move |object| this.keep(&object))
    }

    /// The next kept object, trying at most `tries` generated ones.
    fn next(&self, runner: &mut TestRunner, tries: usize) -> Option<T> {
        (0..tries).find_map(|_| {
            let object = self.objects.strategy.new_tree(runner).ok()?.current();
            self.keep(&object)
        })
    }
}

impl<T: CustomResource + DeserializeOwned + Debug + 'static> Default for Generator<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// [`Generator::strategy`] of `T`: objects the apiserver would accept, read as `T`.
pub fn resources<T: CustomResource + DeserializeOwned + Debug + 'static>() -> impl Strategy<Value = T> {
    Generator::<T>::new().strategy()
}

fn strip_rules(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("x-kubernetes-validations");
            m.values_mut().for_each(strip_rules);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_rules),
        _ => {}
    }
}

/// What [`round_trip`] did: how many objects each way, and the generators' counts.
#[derive(Debug)]
pub struct RoundTrips {
    /// Hub objects taken down and back up.
    pub hubs: usize,
    /// Spoke objects taken up and back down.
    pub spokes: usize,
    /// The hub generator's [`Stats::summary`].
    pub hub_stats: String,
    /// The spoke generator's.
    pub spoke_stats: String,
}

/// What a spoke → hub → spoke round trip may change: places as JSON keys (`[]` every item of a
/// list, `[*]` every value of a map).
#[derive(Clone, Copy, Debug, Default)]
pub struct Lossy<'a> {
    /// Fields the hub no longer has (generated code lists the spoke's fields without a
    /// namesake in the hub as `NOT_IN_HUB`; renamed ones are among them, and are not lost).
    pub lost: &'a [&'a [&'a str]],
    /// Fields the hub requires where the spoke may leave them out: absent going up, they come
    /// back with the value the conversion gave them (compared where the spoke had them).
    pub filled: &'a [&'a [&'a str]],
}

/// cluster-api's round-trip test of a conversion: `cases` hub objects each go down and back up
/// and must come back equal (what the spoke cannot hold rides in
/// `kubeskema::conversion::DATA_ANNOTATION`); `cases` spoke objects each go up and back down
/// and must come back equal but for what `lossy` names (and the annotation). Objects are
/// generated by [`Generator`], from a deterministic seed. The first difference fails, with
/// both objects as JSON.
pub fn round_trip<H, S>(
    up: impl Fn(S) -> H,
    down: impl Fn(H) -> S,
    lossy: Lossy<'_>,
    cases: usize,
) -> Result<RoundTrips, String>
where
    H: CustomResource + DeserializeOwned + Serialize + Clone + PartialEq + Debug + 'static,
    S: CustomResource + DeserializeOwned + Serialize + Clone + PartialEq + Debug + 'static,
{
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        proptest::test_runner::TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha),
    );
    let (hubs, spokes) = (Generator::<H>::new(), Generator::<S>::new());
    let tries = cases * 50;
    let (mut h_done, mut s_done) = (0, 0);
    let show = |v: &H| serde_json::to_string(v).unwrap_or_default();
    while h_done < cases {
        let Some(hub) = hubs.next(&mut runner, tries) else { break };
        let back = up(down(hub.clone()));
        if back != hub {
            return Err(format!("hub → spoke → hub changed the object:\nsent: {}\ngot:  {}", show(&hub), show(&back)));
        }
        h_done += 1;
    }
    while s_done < cases {
        let Some(spoke) = spokes.next(&mut runner, tries) else { break };
        let back = down(up(spoke.clone()));
        let (mut sent, mut got) = (to_json(&spoke), to_json(&back));
        for path in lossy.lost {
            clear(&mut sent, path);
            clear(&mut got, path);
        }
        for path in lossy.filled {
            clear_where_absent(&sent, &mut got, path);
        }
        for object in [&mut sent, &mut got] {
            if let Some(annotations) = object.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut) {
                annotations.remove(DATA_ANNOTATION);
                if annotations.is_empty() {
                    object["metadata"].as_object_mut().map(|m| m.remove("annotations"));
                }
            }
        }
        if sent != got {
            return Err(format!("spoke → hub → spoke changed the object:\nsent: {sent}\ngot:  {got}"));
        }
        s_done += 1;
    }
    let result = RoundTrips {
        hubs: h_done,
        spokes: s_done,
        hub_stats: hubs.stats().summary(),
        spoke_stats: spokes.stats().summary(),
    };
    if h_done < cases || s_done < cases {
        return Err(format!(
            "the generators kept too few objects ({h_done} hubs, {s_done} spokes of {cases}): hub {}; spoke {}",
            result.hub_stats, result.spoke_stats
        ));
    }
    Ok(result)
}

fn to_json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// Removes from `got` the places `path` names that `sent` does not have.
fn clear_where_absent(sent: &Value, got: &mut Value, path: &[&str]) {
    let Some((first, rest)) = path.split_first() else { return };
    match (*first, sent, got) {
        ("[]", Value::Array(s), Value::Array(g)) => {
            s.iter().zip(g.iter_mut()).for_each(|(s, g)| clear_where_absent(s, g, rest))
        }
        ("[*]", Value::Object(s), Value::Object(g)) => {
            for (k, g) in g.iter_mut() {
                if let Some(s) = s.get(k) {
                    clear_where_absent(s, g, rest);
                }
            }
        }
        (key, Value::Object(s), Value::Object(g)) => match s.get(key) {
            None => {
                g.remove(key);
            }
            Some(s) => {
                if let Some(g) = g.get_mut(key) {
                    clear_where_absent(s, g, rest);
                }
            }
        },
        (key, _, Value::Object(g)) if rest.is_empty() || !matches!(key, "[]" | "[*]") => {
            g.remove(key);
        }
        _ => {}
    }
}

/// Removes the place `path` names (`[]` every item of a list, `[*]` every value of a map).
fn clear(v: &mut Value, path: &[&str]) {
    let Some((first, rest)) = path.split_first() else { return };
    match (*first, v) {
        ("[]", Value::Array(items)) => items.iter_mut().for_each(|i| clear(i, rest)),
        ("[*]", Value::Object(map)) => map.values_mut().for_each(|i| clear(i, rest)),
        (key, Value::Object(map)) if rest.is_empty() => {
            map.remove(key);
        }
        (key, Value::Object(map)) => {
            if let Some(child) = map.get_mut(key) {
                clear(child, rest);
            }
        }
        _ => {}
    }
}
