//! OpenAPI value validation of a JSON value against a schema node, as kube-openapi's
//! `validate` package does it for the apiserver (semantics §7): every check that applies runs
//! and all results are kept; checks are chosen by the *kind of the value*, not the declared
//! type; only the string checks stop at their first failure.
//!
//! Each keyword's check and message live in [`crate::keywords`] and [`crate::format`]; this
//! module only walks.
//!
//! Where no anyOf/oneOf branch passes, the branch shown is chosen by kube-openapi's
//! `MatchCount` ([`crate::junctor::match_count`]).

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use crate::check::format::{self, Format};
use crate::check::keywords::{self, Num, NumberRules, NumberType};
use crate::check::pattern::{Matcher, PatternError};
use crate::check::{junctor, listtype};
use crate::report::issue::{BadValue, ErrorType, Issue};
use crate::report::path::{At, Path};
use crate::schema::{AdditionalProperties, Schema};

/// A validator for one schema: each node's checks worked out once (a plan of its nodes).
pub struct OpenApiValidator<'s> {
    root: Node<'s>,
    /// Each pattern compiled once, however many nodes write it; [`Node::pattern`] indexes it.
    patterns: Vec<Result<Matcher, PatternError>>,
}

/// A schema node with what its checks ask of it decided once, not per value (issue 54: the
/// walk compared type and format names, hashed each string's pattern source to find its
/// matcher and looked each key up twice, about a fifth of the dynamic validator's time on an
/// HTTPRoute). Its children mirror the schema's, so the walk never looks a node up.
struct Node<'s> {
    schema: &'s Schema,
    /// Bit `ValueClass as u8`: the type check passes every value of that class, so it need not
    /// run (`keywords::type_check` stays the one place the check is written; this only
    /// remembers its verdicts).
    type_passes: u16,
    /// The string format to check (its name as written is the schema's).
    string_format: Option<Format>,
    /// The index of the node's compiled pattern in [`OpenApiValidator::patterns`].
    pattern: Option<u32>,
    /// The numeric rules, where the node has any (a number elsewhere is only type-checked).
    number: Option<Box<NumberRules<'s>>>,
    /// One for each of the schema's properties, in [`crate::schema::Properties::iter`]'s order.
    properties: Box<[Node<'s>]>,
    items: Option<Box<Node<'s>>>,
    additional: Option<Box<Node<'s>>>,
    /// Few nodes have any: boxed, a node stays small (a CLI holds every CRD's nodes).
    junctors: Option<Box<Junctors<'s>>>,
}

struct Junctors<'s> {
    all_of: Box<[Node<'s>]>,
    any_of: Box<[Node<'s>]>,
    one_of: Box<[Node<'s>]>,
    not: Option<Node<'s>>,
}

/// What the type check's verdict depends on of a value: its JSON type as the apiserver reads it
/// ([`keywords::json_type`]), and for a float whether it is whole ([`keywords::is_json_integer`]).
#[derive(Clone, Copy)]
enum ValueClass {
    Null,
    Boolean,
    Integer,
    /// A whole number beyond int64: a `number` that is not a float.
    WideInteger,
    WholeFloat,
    Float,
    String,
    Array,
    Object,
}

impl ValueClass {
    const ALL: [ValueClass; 9] = [
        ValueClass::Null,
        ValueClass::Boolean,
        ValueClass::Integer,
        ValueClass::WideInteger,
        ValueClass::WholeFloat,
        ValueClass::Float,
        ValueClass::String,
        ValueClass::Array,
        ValueClass::Object,
    ];

    fn of(v: &Value) -> ValueClass {
        match v {
            Value::Null => ValueClass::Null,
            Value::Bool(_) => ValueClass::Boolean,
            Value::Number(n) if n.as_i64().is_some() => ValueClass::Integer,
            Value::Number(n) => match n.as_f64().filter(|_| n.is_f64()) {
                Some(f) if keywords::is_json_integer(f) => ValueClass::WholeFloat,
                Some(_) => ValueClass::Float,
                None => ValueClass::WideInteger,
            },
            Value::String(_) => ValueClass::String,
            Value::Array(_) => ValueClass::Array,
            Value::Object(_) => ValueClass::Object,
        }
    }

    /// A value of the class, for asking the type check its verdict once.
    fn example(self) -> Value {
        match self {
            ValueClass::Null => Value::Null,
            ValueClass::Boolean => Value::Bool(true),
            ValueClass::Integer => Value::from(1),
            ValueClass::WideInteger => Value::from(u64::MAX),
            ValueClass::WholeFloat => Value::from(1.0),
            ValueClass::Float => Value::from(1.5),
            ValueClass::String => Value::String(String::new()),
            ValueClass::Array => Value::Array(Vec::new()),
            ValueClass::Object => Value::Object(serde_json::Map::new()),
        }
    }
}

/// What building a validator's nodes shares: the patterns compiled so far, by source, and
/// the type check's verdicts by what they depend on of the schema (most nodes of a CRD share a
/// few type and format pairs; asking the check for each node made building one several times
/// slower).
#[derive(Default)]
struct Build<'s> {
    patterns: HashMap<&'s str, u32>,
    compiled: Vec<Result<Matcher, PatternError>>,
    type_passes: HashMap<Typing<'s>, u16>,
}

/// Everything [`type_issue`] reads of a schema node: its type, format, `nullable` and
/// `x-kubernetes-int-or-string`.
type Typing<'s> = (Option<&'s str>, Option<&'s str>, bool, bool);

impl<'s> Node<'s> {
    /// Whether the type check passes `v` (its remembered verdict for `v`'s class).
    #[inline]
    fn type_holds(&self, v: &Value) -> bool {
        self.type_passes & (1 << ValueClass::of(v) as u8) != 0
    }

    fn new(s: &'s Schema, build: &mut Build<'s>) -> Self {
        let mut plan = |child: &'s Schema| Node::new(child, build);
        let properties = s.properties.values().map(&mut plan).collect();
        let items = s.items.as_deref().map(|i| Box::new(plan(i)));
        let additional = s.additional_properties_schema().map(|a| Box::new(plan(a)));
        let junctors =
            (!s.all_of().is_empty() || !s.any_of().is_empty() || !s.one_of().is_empty() || s.not().is_some()).then(
                || {
                    Box::new(Junctors {
                        all_of: s.all_of().iter().map(&mut plan).collect(),
                        any_of: s.any_of().iter().map(&mut plan).collect(),
                        one_of: s.one_of().iter().map(&mut plan).collect(),
                        not: s.not().map(&mut plan),
                    })
                },
            );
        let Build { patterns, compiled, type_passes } = build;
        let pattern = s.pattern.as_deref().map(|source| {
            *patterns.entry(source).or_insert_with(|| {
                compiled.push(Matcher::compile(source));
                // More than four billion patterns cannot be read into memory to get here.
                u32::try_from(compiled.len() - 1).unwrap_or(u32::MAX)
            })
        });
        let typing: Typing = (s.type_str(), s.format.as_deref(), s.nullable, s.int_or_string);
        let type_passes = *type_passes.entry(typing).or_insert_with(|| {
            ValueClass::ALL
                .iter()
                .filter(|class| type_issue(&class.example(), s, &At::ROOT).is_none())
                .fold(0, |bits, &class| bits | 1 << class as u8)
        });
        let single_numeric = s.type_str().filter(|t| !s.int_or_string && (*t == "integer" || *t == "number"));
        let number = NumberRules {
            number_type: NumberType::of(single_numeric, s.format.as_deref().unwrap_or_default()),
            multiple_of: s.multiple_of().and_then(serde_json::Number::as_f64),
            maximum: s.maximum.as_ref().and_then(serde_json::Number::as_f64),
            exclusive_maximum: s.exclusive_maximum(),
            minimum: s.minimum.as_ref().and_then(serde_json::Number::as_f64),
            exclusive_minimum: s.exclusive_minimum(),
        };
        Node {
            schema: s,
            type_passes,
            string_format: string_format(s),
            pattern,
            number: (number != NumberRules::default()).then(|| Box::new(number)),
            properties,
            items,
            additional,
            junctors,
        }
    }

    /// The node of an object's `key` with its place: its property, else the
    /// `additionalProperties` schema ([`Schema::key_place`]).
    fn key_place<'a>(&self, key: &'a str, at: &'a At<'a>) -> Option<(&Node<'s>, At<'a>)> {
        match self.schema.properties.position(key) {
            Some(n) => Some((&self.properties[n], at.field(key))),
            None => self.additional.as_deref().map(|a| (a, at.key(key))),
        }
    }
}

impl<'s> OpenApiValidator<'s> {
    /// Prepares a validator (works out each node's checks, compiles every pattern).
    pub fn new(root: &'s Schema) -> Self {
        let mut build = Build::default();
        let root = Node::new(root, &mut build);
        OpenApiValidator { root, patterns: build.compiled }
    }

    /// Every issue of `value` against the root schema, in the apiserver's order, identical
    /// texts once.
    pub fn validate(&self, value: &Value) -> Vec<Issue> {
        self.validate_at(value, &Path::root())
    }

    /// [`OpenApiValidator::validate`] for a value that sits at `path` of a larger object.
    pub fn validate_at(&self, value: &Value, path: &Path) -> Vec<Issue> {
        let mut out = Vec::new();
        self.node(value, &self.root, &At::under(path), &mut out, None);
        once_each(out)
    }

    /// [`OpenApiValidator::validate_at`], and apart from those the list-type issues
    /// (`x-kubernetes-list-type` `set` and `map`, [`crate::listtype`]), which the apiserver
    /// reports in a later step. One walk finds both: a walk of its own for the lists was an
    /// eighth of the dynamic validator's time on a small Prometheus (issue 54).
    pub fn validate_with_list_types(&self, value: &Value, path: &Path) -> (Vec<Issue>, Vec<Issue>) {
        let (mut values, mut list_types) = (Vec::new(), Vec::new());
        self.node(value, &self.root, &At::under(path), &mut values, Some(&mut list_types));
        (once_each(values), list_types)
    }

    /// The root schema's checks of `value` at `path`, appended to `out` as they come.
    pub fn check(&self, value: &Value, path: &Path, out: &mut Vec<Issue>) {
        self.node(value, &self.root, &At::under(path), out, None);
    }

    /// `path` becomes a [`Path`] only where an issue is made. `lists` collects list-type
    /// issues where they are asked for: not in junctor branches, whose lists the apiserver's
    /// list-type walk does not enter.
    fn node(&self, v: &Value, n: &Node<'s>, path: &At<'_>, out: &mut Vec<Issue>, mut lists: Option<&mut Vec<Issue>>) {
        let s = n.schema;
        if !n.type_holds(v) {
            out.extend(type_issue(v, s, path));
        }
        if v.is_null() {
            if let Some(allowed) = &s.enum_ {
                out.extend(keywords::enumeration(path, v, allowed));
            }
            return;
        }
        self.junctors(v, n, path, out);
        if let Value::String(text) = v {
            out.extend(keywords::first_string_failure(path, text, s.max_length, s.min_length, || {
                let source = s.pattern.as_deref()?;
                keywords::compiled_pattern(path, text, &self.patterns[n.pattern? as usize], source)
            }));
            if let (Some(f), Some(written)) = (n.string_format, s.format.as_deref()) {
                out.extend(format::check(path, text, f, written));
            }
        }
        if let (Value::Number(number), Some(rules)) = (v, &n.number) {
            keywords::number_checks(path, Num::of(number), rules, out);
        }
        if let Value::Array(items) = v {
            if let Some(lists) = lists.as_deref_mut() {
                listtype::check_list(items, s, path, lists);
            }
            if let Some(item) = n.items.as_deref() {
                for (i, value) in items.iter().enumerate() {
                    self.node(value, item, &path.index(i), out, lists.as_deref_mut());
                }
            }
            out.extend(s.min_items.and_then(|m| keywords::min_items(path, items.len(), m)));
            out.extend(s.max_items.and_then(|m| keywords::max_items(path, items.len(), m)));
        }
        if let Some(allowed) = &s.enum_ {
            out.extend(keywords::enumeration(path, v, allowed));
        }
        if let Value::Object(map) = v {
            out.extend(s.min_properties().and_then(|m| keywords::min_properties(path, map.len(), m)));
            out.extend(s.max_properties().and_then(|m| keywords::max_properties(path, map.len(), m)));
            if matches!(s.additional_properties, Some(AdditionalProperties::Bool(false))) {
                for k in map.keys().filter(|k| !s.properties.contains_key(k)) {
                    out.push(Issue::new(
                        ErrorType::Invalid,
                        path,
                        "additionalProperties",
                        BadValue::Str(k.clone()),
                        format!("{} in body is a forbidden property", path.to_path().map_key(k).openapi()),
                    ));
                }
            }
            for (k, child) in map {
                if let Some((child_node, at)) = n.key_place(k, path) {
                    self.node(child, child_node, &at, out, lists.as_deref_mut());
                }
            }
            for r in &s.required {
                if !map.contains_key(r) {
                    out.push(keywords::required(path, r));
                }
            }
        }
    }

    fn junctors(&self, v: &Value, n: &Node<'s>, at: &At<'_>, out: &mut Vec<Issue>) {
        let Some(j) = n.junctors.as_deref() else { return };
        let run = |branch: &Node<'s>| {
            let mut issues = Vec::new();
            self.node(v, branch, at, &mut issues, None);
            issues
        };
        // Whether a branch passes does not depend on where the value sits: asked at the root,
        // where an issue's place costs nothing to print. A branch's issues are made where
        // they are reported (every `anyOf` branch of an int-or-string that the value is not
        // made a place and a message for each value, most of the dynamic validator's time
        // on prometheus's CRD). A branch of the wrong type fails before any issue is made:
        // the probe of an int-or-string's `integer` branch formatted a type error for every
        // string, a third of the dynamic validator's time on a large Prometheus.
        let passes = |branch: &Node<'s>| {
            if !branch.type_holds(v) {
                return false;
            }
            let mut probe = Vec::new();
            self.node(v, branch, &At::ROOT, &mut probe, None);
            probe.is_empty()
        };
        let place = std::cell::OnceCell::new();
        let path = || place.get_or_init(|| at.to_path());
        if !j.all_of.is_empty() {
            junctor::all_of(path(), j.all_of.iter().map(run).collect(), out);
        }
        fn counts<'a>(branches: &'a [Node<'_>], v: &'a Value) -> impl FnOnce() -> Vec<usize> + 'a {
            move || branches.iter().map(|b| junctor::match_count(b.schema, v)).collect()
        }
        if !j.any_of.is_empty() && !j.any_of.iter().any(passes) {
            junctor::any_of(path(), j.any_of.iter().map(run).collect(), counts(&j.any_of, v), out);
        }
        if !j.one_of.is_empty() {
            let passing = j.one_of.iter().filter(|b| passes(b)).count();
            // One passing branch: nothing to report, and the summaries need only the count.
            if passing != 1 {
                junctor::one_of(path(), j.one_of.iter().map(run).collect(), counts(&j.one_of, v), out);
            }
        }
        if let Some(not) = &j.not
            && passes(not)
        {
            junctor::not(path(), Vec::new(), out);
        }
    }
}

/// The type check (§7.3) of the schema's types and format.
fn type_issue(v: &Value, s: &Schema, path: &At<'_>) -> Option<Issue> {
    // On the stack: a list for each node was an allocation for each value validated.
    let one;
    let types: &[&str] = match s.type_str() {
        _ if s.int_or_string => &["integer", "string"],
        Some(t) if !t.is_empty() => {
            one = [t];
            &one
        }
        _ => &[],
    };
    keywords::type_check(path, v, types, s.format.as_deref(), s.nullable)
}

/// Issues with the same text once, the first kept (as [`OpenApiValidator::validate`] gives them).
fn once_each(mut issues: Vec<Issue>) -> Vec<Issue> {
    let mut seen = std::collections::HashSet::new();
    issues.retain(|i| seen.insert(i.to_string()));
    issues
}

/// The value validations of one node that derived code keeps as JSON (its junctors, and the
/// `metadata` schema a typed `ObjectMeta` cannot carry): parsed once, on first use, and
/// checked by the same walk as the dynamic validator's, so there is one walker for what is
/// not straight-line code.
pub struct StaticSchema {
    json: &'static str,
    schema: OnceLock<Schema>,
    validator: OnceLock<OpenApiValidator<'static>>,
}

impl StaticSchema {
    /// A node from its JSON text (checked when the derive expanded it).
    pub const fn new(json: &'static str) -> StaticSchema {
        StaticSchema { json, schema: OnceLock::new(), validator: OnceLock::new() }
    }

    /// The node, parsed.
    pub fn schema(&'static self) -> &'static Schema {
        self.schema.get_or_init(|| {
            let json = serde_json::from_str(self.json).unwrap_or(Value::Null);
            let (schema, errors) = Schema::parse(&json, "");
            debug_assert!(errors.is_empty(), "{errors:?}");
            schema
        })
    }

    /// The validator of the node (its patterns compiled).
    pub fn validator(&'static self) -> &'static OpenApiValidator<'static> {
        self.validator.get_or_init(|| OpenApiValidator::new(self.schema()))
    }

    /// The node's checks of `value` (the typed value as JSON) at `path`.
    pub fn check(&'static self, value: &Value, path: &Path, out: &mut Vec<Issue>) {
        self.validator().check(value, path, out);
    }
}

/// The string format to check (its name as written is the schema's `format`).
fn string_format(s: &Schema) -> Option<Format> {
    let t = if s.int_or_string { "" } else { s.type_str().unwrap_or("") };
    format::supported(t, s.format.as_deref()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Values of every class, numbers near the edges the classes draw: whole and fractional
    /// floats, floats within the whole-number tolerance, int64's ends and beyond.
    fn values() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            (-5i64..5, prop_oneof![Just(0.0), Just(1e-12), Just(0.5), Just(-1e-10)])
                .prop_map(|(n, frac)| Value::from(n as f64 + frac)),
            Just(Value::from(9_007_199_254_740_993.0)),
            ".{0,3}".prop_map(Value::from),
        ];
        leaf.prop_recursive(2, 4, 2, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..2).prop_map(Value::from),
                proptest::collection::btree_map("[a-b]", inner, 0..2)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]

        /// A node remembers the type check's verdict per class of value: it must be the
        /// check's own verdict for every value of the class, whatever the node's typing.
        #[test]
        fn the_remembered_type_verdict_is_the_type_checks(
            value in values(),
            type_ in proptest::sample::select(vec!["", "integer", "number", "string", "boolean", "array", "object"]),
            format in proptest::sample::select(vec!["", "int32", "int64", "float", "double", "date-time", "byte", "uuid", "int-or-string", "bogus"]),
            nullable in proptest::prelude::any::<bool>(),
            int_or_string in proptest::prelude::any::<bool>(),
        ) {
            let mut schema = serde_json::Map::new();
            if !type_.is_empty() {
                schema.insert("type".into(), type_.into());
            }
            if !format.is_empty() {
                schema.insert("format".into(), format.into());
            }
            schema.insert("nullable".into(), nullable.into());
            schema.insert("x-kubernetes-int-or-string".into(), int_or_string.into());
            let (s, _) = Schema::parse(&Value::Object(schema), "");
            let node = Node::new(&s, &mut Build::default());
            let remembered = node.type_passes & (1 << ValueClass::of(&value) as u8) != 0;
            proptest::prop_assert_eq!(remembered, type_issue(&value, &s, &At::ROOT).is_none(), "{}", value);
        }
    }

    fn issues(schema: Value, value: Value) -> Vec<String> {
        let (s, errors) = Schema::parse(&schema, "");
        assert!(errors.is_empty(), "{errors:?}");
        OpenApiValidator::new(&s).validate(&value).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_valid_object_has_no_issues() {
        let schema = json!({"type": "object", "required": ["spec"], "properties": {"spec": {"type": "object", "properties": {
            "replicas": {"type": "integer", "minimum": 0, "maximum": 10},
            "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 8},
            "when": {"type": "string", "format": "date-time"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}}});
        assert!(
            issues(
                schema,
                json!({"spec": {"replicas": 3, "name": "abc", "when": "2024-01-01T00:00:00Z", "labels": {"a": "b"}}})
            )
            .is_empty()
        );
    }

    #[test]
    fn every_problem_is_reported_in_one_pass() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["name"], "properties": {
            "replicas": {"type": "integer", "maximum": 10},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "tags": {"type": "array", "maxItems": 1, "items": {"type": "string", "minLength": 2}},
            "labels": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 1}}}}}});
        assert_eq!(
            issues(
                schema,
                json!({"spec": {"replicas": 11, "mode": "c", "tags": ["x", "yy"], "labels": {"app.kubernetes.io/name": "long"}}})
            ),
            vec![
                "spec.labels.app.kubernetes.io/name: Too long: may not be more than 1 byte",
                "spec.mode: Unsupported value: \"c\": supported values: \"a\", \"b\"",
                "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
                "spec.tags[0]: Invalid value: \"x\": spec.tags[0] in body should be at least 2 chars long",
                "spec.tags: Too many: 2: must have at most 1 item",
                "spec.name: Required value",
            ]
        );
    }

    #[test]
    fn checks_follow_the_value_kind_not_the_declared_type() {
        assert_eq!(
            issues(json!({"type": "integer", "maxLength": 1}), json!("abc")),
            vec![
                ": Invalid value: \"string\":  in body must be of type integer: \"string\"",
                ": Too long: may not be more than 1 byte"
            ]
        );
        assert!(issues(json!({"type": "integer"}), json!(1.0)).is_empty(), "1.0 is an integer");
        assert_eq!(
            issues(json!({"type": "integer"}), json!(1.5)),
            vec![
                ": Invalid value: \"number\":  in body must be of type integer: \"number\"",
                "<nil>: Invalid value: \"\": Checked value must be of type integer (default format) in ",
            ],
            "the type error, and (1.36) the range of the format"
        );
        assert_eq!(issues(json!({"type": "object", "required": ["a"]}), json!({})), vec!["a: Required value"]);
    }

    /// Semantics §7.4 (1.36): a whole number beyond int64 decodes as float64, so it gets the
    /// range error of the format *and* the type error; so does it in the integer branch of an
    /// int-or-string's `anyOf`.
    #[test]
    fn numbers_beyond_int64_are_type_and_range_errors() {
        for big in [json!(9223372036854775808u64), json!(1e20)] {
            assert_eq!(
                issues(json!({"type": "integer"}), big.clone()),
                vec![
                    ": Invalid value: \"number\":  in body must be of type integer: \"number\"",
                    "<nil>: Invalid value: \"\": Checked value must be of type integer (default format) in ",
                ],
                "{big}"
            );
        }
        assert_eq!(
            issues(json!({"type": "integer", "maximum": 10}), json!(9223372036854775808u64)),
            vec![
                ": Invalid value: \"number\":  in body must be of type integer: \"number\"",
                "<nil>: Invalid value: \"\": Checked value must be of type integer (default format) in ",
                ": Invalid value: 9.223372036854776e+18:  in body should be less than or equal to 10",
            ]
        );
        // An int-or-string's anyOf: both branches count the same, so kube-openapi shows the
        // first, the integer branch, with its type error and range error.
        let int_or_string =
            json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]});
        assert_eq!(
            issues(int_or_string, json!(1e20)),
            vec![
                ": Invalid value: \"number\":  in body must be of type integer,string: \"number\"",
                "<nil>: Invalid value: \"\": \"\" must validate at least one schema (anyOf)",
                ": Invalid value: \"number\":  in body must be of type integer: \"number\"",
                "<nil>: Invalid value: \"\": Checked value must be of type integer (default format) in ",
            ]
        );
    }

    #[test]
    fn additional_properties_false_forbids_each_extra_key() {
        let schema =
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "additionalProperties": false});
        assert!(issues(schema.clone(), json!({})).is_empty());
        assert_eq!(
            issues(json!({"type": "object", "properties": {"m": schema}}), json!({"m": {"k": 1}})),
            vec!["m: Invalid value: \"k\": m.k in body is a forbidden property"]
        );
    }

    #[test]
    fn nulls_get_only_type_and_enum_checks() {
        assert_eq!(
            issues(json!({"type": "array", "items": {"type": "string"}}), json!([null])),
            vec!["[0]: Invalid value: \"null\": [0] in body must be of type string: \"null\""]
        );
        assert!(issues(json!({"type": "string", "nullable": true, "minLength": 3}), json!(null)).is_empty());
        assert_eq!(
            issues(json!({"type": "string", "nullable": true, "enum": ["a", null]}), json!(null)),
            vec![": Unsupported value: null: supported values: \"a\", \"null\""]
        );
    }

    #[test]
    fn formats_short_cut_and_name_themselves() {
        assert!(issues(json!({"type": "string", "format": "date"}), json!(["x"])).is_empty(), "[quirk] arrays pass");
        assert_eq!(
            issues(json!({"type": "string", "format": "date"}), json!(5)),
            vec![": Invalid value: \"int64\":  in body must be of type date: \"int64\""]
        );
        assert_eq!(
            issues(json!({"type": "integer", "format": "int64"}), json!(1.5)),
            vec![
                ": Invalid value: \"float64\":  in body must be of type int64: \"float64\"",
                "<nil>: Invalid value: \"\": Checked value must be of type integer with format int64 in ",
            ]
        );
        assert!(issues(json!({"type": "string", "format": "unknown-format"}), json!("anything")).is_empty());
    }

    #[test]
    fn junctors_report_their_summaries_at_the_base_path() {
        let union = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                           "oneOf": [{"required": ["a"]}, {"required": ["b"]}]});
        assert!(issues(union.clone(), json!({"a": "x"})).is_empty());
        assert_eq!(
            issues(union.clone(), json!({"a": "x", "b": "y"})),
            vec![
                "<nil>: Invalid value: \"\": \"\" must validate one and only one schema (oneOf). Found 2 valid alternatives"
            ]
        );
        assert_eq!(
            issues(union, json!({})),
            vec![
                "<nil>: Invalid value: \"\": \"\" must validate one and only one schema (oneOf). Found none valid",
                "a: Required value"
            ]
        );
        let port = json!({"type": "object", "properties": {"p": {"x-kubernetes-int-or-string": true,
            "anyOf": [{"type": "integer"}, {"type": "string"}]}}});
        assert_eq!(
            issues(port, json!({"p": true})),
            vec![
                "p: Invalid value: \"boolean\": p in body must be of type integer,string: \"boolean\"",
                "<nil>: Invalid value: \"\": \"p\" must validate at least one schema (anyOf)",
                "p: Invalid value: \"boolean\": p in body must be of type integer: \"boolean\"",
            ]
        );
        assert_eq!(
            issues(json!({"type": "object", "not": {"required": ["x"]}}), json!({"x": 1})),
            vec!["<nil>: Invalid value: \"\": \"\" must not validate the schema (not)"]
        );
    }
}
