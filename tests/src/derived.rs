//! Hand-written resource types whose derived CRDs cover the Rust → CRD mapping: the types a
//! derive knows, enums of every value kind, every keyword and extension, CEL rules with every
//! field, a type that contains itself, several versions of one kind, subresources, printer
//! columns and selectable fields. `derived-crds` writes their CRDs; the apiserver's verdicts on
//! them are recorded in `fixtures/derived/` (`derived.rs` in the tests).

use std::collections::BTreeMap;

use kubeskema::resource::{CustomResource, CustomResourceDefinition};
use kubeskema::serde_json::{Map, Value};
use kubeskema::{EmptyObject, IntOrString, ObjectMeta};

/// Every type the derive knows a schema for, as fields.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(resource(
    group = "derived.example.com",
    version = "v1",
    kind = "Kitchen",
    short_name = "kit",
    category = "all",
    category = "derived",
    status = true,
    scale_spec_replicas_path = ".spec.replicas",
    scale_status_replicas_path = ".status.replicas",
    scale_label_selector_path = ".status.selector",
    printer_column = r#"{"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}"#,
    printer_column = r#"{"name": "Ready", "type": "string", "jsonPath": ".status.ready", "description": "Whether it is ready", "priority": 1}"#,
    selectable_field = ".spec.name"
))]
pub struct Kitchen {
    #[kubeskema(rename = "apiVersion")]
    pub api_version: String,
    pub kind: String,
    #[kubeskema(default_json = "{}")]
    pub metadata: ObjectMeta,
    pub spec: KitchenSpec,
    pub status: Option<KitchenStatus>,
}

/// The spec: one field per Rust type.
///
/// ```
/// # // Code blocks stay out of descriptions when asked (`Docs::WithoutCode`).
/// let replicas = 3;
/// # assert_eq!(replicas, 3);
/// ```
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub struct KitchenSpec {
    /// A name: a `String`.
    #[kubeskema(max_length = 63)]
    pub name: String,
    /// `i32`: an int32.
    pub replicas: i32,
    /// `i64`: any integer.
    pub count: Option<i64>,
    /// `f64`: a number.
    pub ratio: Option<f64>,
    /// `f32`: a number too.
    pub weight: Option<f32>,
    /// Narrow integers: their range as bounds.
    pub small: Option<u8>,
    pub offset: Option<i16>,
    pub wide: Option<u32>,
    /// `u64`: needs its maximum within int64.
    #[kubeskema(maximum = 1000000)]
    pub huge: Option<u64>,
    /// `bool`.
    pub enabled: Option<bool>,
    /// `Vec<String>`.
    #[kubeskema(max_items = 8, items(max_length = 32))]
    pub tags: Option<Vec<String>>,
    /// `BTreeMap<String, i64>`.
    #[kubeskema(max_properties = 8)]
    pub limits: Option<BTreeMap<String, i64>>,
    /// `Option<Option<T>>`: absent, `null` or a value.
    #[kubeskema(nullable)]
    pub note: Option<Option<String>>,
    /// `IntOrString`.
    pub port: Option<IntOrString>,
    /// `serde_json::Value`: anything, kept as sent.
    pub anything: Option<Value>,
    /// `Map<String, Value>`: an object kept as sent.
    pub free_form: Option<Map<String, Value>>,
    /// `EmptyObject`.
    pub marker: Option<EmptyObject>,
    /// `Box<T>`, and a type that contains itself.
    pub tree: Option<Box<Node>>,
    /// Unit enums.
    pub mode: Option<Mode>,
    pub level: Option<Level>,
    pub toggle: Option<Toggle>,
    pub size: Option<Size>,
    /// An embedded resource.
    pub template: Option<Embedded>,
    /// Keywords and rules.
    pub checks: Option<Checks>,
    /// A default for a whole object (kube-rs/kube#1805), pruned and valid as the apiserver
    /// wants it.
    #[kubeskema(default_json = r#"{"kind": "RollingUpdate", "maxSurge": "25%"}"#)]
    pub strategy: Strategy,
}

/// How to roll out.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub struct Strategy {
    #[kubeskema(enum_json = r#"["RollingUpdate", "Recreate"]"#)]
    pub kind: String,
    #[kubeskema(rename = "maxSurge")]
    pub max_surge: Option<IntOrString>,
}

/// The status.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub struct KitchenStatus {
    pub replicas: Option<i32>,
    pub selector: Option<String>,
    pub ready: Option<String>,
}

/// A tree: a node holds nodes.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub struct Node {
    pub value: Option<String>,
    #[kubeskema(max_items = 4)]
    pub children: Option<Vec<Node>>,
}

/// A string enum.
#[derive(Clone, Copy, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub enum Mode {
    Fast,
    #[kubeskema(value = "slow-and-steady")]
    Slow,
}

/// An integer enum.
#[derive(Clone, Copy, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub enum Level {
    #[kubeskema(value = 1)]
    One,
    #[kubeskema(value = 2)]
    Two,
}

/// A boolean enum.
#[derive(Clone, Copy, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub enum Toggle {
    #[kubeskema(value = true)]
    On,
}

/// Strings and integers: an int-or-string.
#[derive(Clone, Copy, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub enum Size {
    #[kubeskema(value = "small")]
    Small,
    #[kubeskema(value = 100)]
    Hundred,
}

/// An embedded resource: apiVersion, kind and metadata of its own.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(embedded_resource, preserve_unknown_fields)]
pub struct Embedded {
    #[kubeskema(rename = "apiVersion")]
    pub api_version: Option<String>,
    pub kind: Option<String>,
    pub metadata: Option<ObjectMeta>,
    #[kubeskema(unknown_fields)]
    pub rest: Map<String, Value>,
}

/// Every value keyword, list and map type, junctor, extension and rule field.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(
    rule(
        rule = "!has(self.low) || !has(self.high) || self.low <= self.high",
        message = "low above high",
        field_path = ".low",
        reason = "FieldValueForbidden"
    ),
    rule(
        rule = "oldSelf.hasValue() && has(oldSelf.value().id) ? has(self.id) && self.id == oldSelf.value().id : true",
        message_expression = "'id is immutable'",
        optional_old_self = true
    ),
    max_properties = 20,
    min_properties = 1,
    extension(name = "x-kubernetes-patch-strategy", value = "\"merge\"")
)]
pub struct Checks {
    #[kubeskema(minimum = 0, maximum = 100, exclusive_maximum, multiple_of = 5)]
    pub low: Option<i64>,
    #[kubeskema(minimum = 0.5, maximum = 1000)]
    pub high: Option<f64>,
    #[kubeskema(min_length = 1, max_length = 36, pattern = "^[a-z0-9-]+$")]
    pub id: Option<String>,
    #[kubeskema(format = "date-time", max_length = 64)]
    pub at: Option<String>,
    #[kubeskema(enum_json = r#"["a", "b"]"#)]
    pub letter: Option<String>,
    #[kubeskema(default = "standard", max_length = 16)]
    pub class: String,
    #[kubeskema(default_json = "[1, 2]", max_items = 4)]
    pub weights: Vec<i64>,
    #[kubeskema(nullable, required)]
    pub owner: Option<String>,
    #[kubeskema(list_type = "set", max_items = 10, items(max_length = 10))]
    pub set: Option<Vec<String>>,
    #[kubeskema(list_type = "map", list_map_keys("name"), max_items = 10)]
    pub entries: Option<Vec<Entry>>,
    #[kubeskema(list_type = "atomic", max_items = 2)]
    pub pair: Option<Vec<i32>>,
    #[kubeskema(map_type = "atomic", max_properties = 4, values(max_length = 8))]
    pub labels: Option<BTreeMap<String, String>>,
    #[kubeskema(int_or_string, any_of = r#"[{"type": "integer"}, {"type": "string"}]"#, pattern = "^[0-9]+%?$")]
    pub percent: Option<IntOrString>,
    #[kubeskema(
        one_of = r#"[{"required": ["a"]}, {"required": ["b"]}]"#,
        not = r#"{"required": ["c"]}"#,
        all_of = r#"[{"minProperties": 1}]"#
    )]
    pub choice: Option<Choice>,
    #[kubeskema(preserve_unknown_fields)]
    pub open: Option<Map<String, Value>>,
    #[kubeskema(rule(rule = "self.size() <= 3", message = "three at most"), max_length = 10)]
    pub short: Option<String>,
}

/// A list-map item.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(map_type = "granular")]
pub struct Entry {
    #[kubeskema(max_length = 16)]
    pub name: String,
    pub value: Option<i64>,
}

/// One of `a` and `b`, never `c`.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub struct Choice {
    pub a: Option<String>,
    pub b: Option<String>,
    pub c: Option<String>,
}

/// Version v1 of a kind with two versions (deprecated, not stored).
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(resource(
    group = "derived.example.com",
    version = "v1",
    kind = "Gadget",
    scope = "Cluster",
    storage = false,
    deprecated = true,
    deprecation_warning = "derived.example.com/v1 Gadget is deprecated; use v2"
))]
pub struct GadgetV1 {
    #[kubeskema(rename = "apiVersion")]
    pub api_version: String,
    pub kind: String,
    #[kubeskema(default_json = "{}")]
    pub metadata: ObjectMeta,
    pub size: Option<i64>,
}

/// Version v2, the stored one.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(resource(group = "derived.example.com", version = "v2", kind = "Gadget", scope = "Cluster"))]
pub struct GadgetV2 {
    #[kubeskema(rename = "apiVersion")]
    pub api_version: String,
    pub kind: String,
    #[kubeskema(default_json = "{}")]
    pub metadata: ObjectMeta,
    #[kubeskema(rule(rule = "self >= 0", message = "size is not negative"))]
    pub size: Option<i64>,
    /// Either a count or a percentage.
    pub surge: Option<IntOrString>,
}

/// A CRD the apiserver refuses: a `default` that does not match its own pattern. Its verdict
/// shows that the project's check says what the apiserver says, word for word.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(resource(group = "derived.example.com", version = "v1", kind = "Costly"))]
pub struct Costly {
    #[kubeskema(rename = "apiVersion")]
    pub api_version: String,
    pub kind: String,
    #[kubeskema(default_json = "{}")]
    pub metadata: ObjectMeta,
    #[kubeskema(rule(rule = "self.all(n, n.split('.').size() < 4)", message = "at most three labels"))]
    pub names: Option<Vec<String>>,
    #[kubeskema(default = "Upper", pattern = "^[a-z]+$")]
    pub zone: String,
}

/// A CRD the apiserver refuses: a rule on the spec that compares a nested type's integer with a
/// string. The macro sees only the spec's own fields; the CRD check types the rule against the
/// whole derived schema and refuses it with the apiserver's compile error, at the rule's place.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(resource(group = "derived.example.com", version = "v1", kind = "Mistyped"))]
pub struct Mistyped {
    #[kubeskema(rename = "apiVersion")]
    pub api_version: String,
    pub kind: String,
    #[kubeskema(default_json = "{}")]
    pub metadata: ObjectMeta,
    pub spec: MistypedSpec,
}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(rule(rule = "self.limits.count > 'ten'", message = "count above ten"))]
pub struct MistypedSpec {
    pub limits: Limits,
}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub struct Limits {
    pub count: i64,
}

/// More rules the apiserver refuses where the Rust type alone does not say so: the types a
/// rule reads are known from the derived schema only (a flattened struct's fields, a
/// data-carrying enum's merged properties), or the rule's estimated cost is past the limit.
/// Both the CRD check and the values' own validation type and estimate them against that
/// schema.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(resource(group = "derived.example.com", version = "v1", kind = "Refused"))]
pub struct Refused {
    #[kubeskema(rename = "apiVersion")]
    pub api_version: String,
    pub kind: String,
    #[kubeskema(default_json = "{}")]
    pub metadata: ObjectMeta,
    pub spec: RefusedSpec,
}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(rule(rule = "self.size > 'large'", message = "a flattened integer against a string"))]
pub struct RefusedSpec {
    #[serde(flatten)]
    pub sizing: Sizing,
    pub source: Source,
    #[kubeskema(rule(rule = "self.all(a, self.all(b, a == b || a != b))", message = "a loop in a loop, unbounded"))]
    pub names: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub struct Sizing {
    pub size: i64,
}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[serde(tag = "type")]
#[kubeskema(rule(rule = "!has(self.depth) || self.depth > 'deep'", message = "a variant's integer against a string"))]
pub enum Source {
    Git { url: String, depth: Option<i64> },
    Empty,
}

/// Every fixture CRD with the file name `derived-crds` writes it to.
pub fn crds() -> Vec<(&'static str, CustomResourceDefinition)> {
    let gadget = CustomResourceDefinition::merge(&[GadgetV1::definition(), GadgetV2::definition()])
        .unwrap_or_else(|e| panic!("the Gadget versions merge: {e:?}"));
    let pipeline = crate::serde_shapes::by_kubeskema::Pipeline::definition().clone();
    vec![
        ("kitchens.yaml", Kitchen::definition().clone()),
        ("gadgets.yaml", gadget),
        ("costly.yaml", Costly::definition().clone()),
        ("mistyped.yaml", Mistyped::definition().clone()),
        ("refused.yaml", Refused::definition().clone()),
        ("pipelines.yaml", pipeline),
        ("backups.yaml", crate::migrated::Backup::definition().clone()),
    ]
}
