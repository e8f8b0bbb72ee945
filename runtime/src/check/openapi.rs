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

/// A validator for one schema: its patterns compiled once.
pub struct OpenApiValidator<'s> {
    root: &'s Schema,
    /// By source. Each string with a pattern looks its source up here: foldhash hashes a long
    /// pattern several times faster than the default SipHash.
    patterns: Patterns<'s>,
}

impl<'s> OpenApiValidator<'s> {
    /// Prepares a validator (compiles every pattern of the schema).
    pub fn new(root: &'s Schema) -> Self {
        let mut patterns = Patterns::default();
        collect_patterns(root, &mut patterns);
        OpenApiValidator { root, patterns }
    }

    /// Every issue of `value` against the root schema, in the apiserver's order, identical
    /// texts once.
    pub fn validate(&self, value: &Value) -> Vec<Issue> {
        self.validate_at(value, &Path::root())
    }

    /// [`OpenApiValidator::validate`] for a value that sits at `path` of a larger object.
    pub fn validate_at(&self, value: &Value, path: &Path) -> Vec<Issue> {
        let mut out = Vec::new();
        self.node(value, self.root, &At::under(path), &mut out, None);
        once_each(out)
    }

    /// [`OpenApiValidator::validate_at`], and apart from those the list-type issues
    /// (`x-kubernetes-list-type` `set` and `map`, [`crate::listtype`]), which the apiserver
    /// reports in a later step. One walk finds both: a walk of its own for the lists was an
    /// eighth of the dynamic validator's time on a small Prometheus (issue 54).
    pub fn validate_with_list_types(&self, value: &Value, path: &Path) -> (Vec<Issue>, Vec<Issue>) {
        let (mut values, mut list_types) = (Vec::new(), Vec::new());
        self.node(value, self.root, &At::under(path), &mut values, Some(&mut list_types));
        (once_each(values), list_types)
    }

    /// The root schema's checks of `value` at `path`, appended to `out` as they come.
    pub fn check(&self, value: &Value, path: &Path, out: &mut Vec<Issue>) {
        self.node(value, self.root, &At::under(path), out, None);
    }

    /// `path` becomes a [`Path`] only where an issue is made. `lists` collects list-type
    /// issues where they are asked for: not in junctor branches, whose lists the apiserver's
    /// list-type walk does not enter.
    fn node(&self, v: &Value, s: &'s Schema, path: &At<'_>, out: &mut Vec<Issue>, mut lists: Option<&mut Vec<Issue>>) {
        if v.is_null() {
            self.type_check(v, s, path, out);
            if let Some(allowed) = &s.enum_ {
                out.extend(keywords::enumeration(path, v, allowed));
            }
            return;
        }
        self.type_check(v, s, path, out);
        self.junctors(v, s, path, out);
        if let Value::String(text) = v {
            out.extend(keywords::first_string_failure(path, text, s.max_length, s.min_length, || {
                self.pattern(path, text, s)
            }));
            if let Some((f, written)) = string_format(s) {
                out.extend(format::check(path, text, f, written));
            }
        }
        if let Value::Number(n) = v {
            let single_numeric = s.type_str().filter(|t| !s.int_or_string && (*t == "integer" || *t == "number"));
            let rules = NumberRules {
                number_type: NumberType::of(single_numeric, s.format.as_deref().unwrap_or_default()),
                multiple_of: s.multiple_of.as_ref().and_then(serde_json::Number::as_f64),
                maximum: s.maximum.as_ref().and_then(serde_json::Number::as_f64),
                exclusive_maximum: s.exclusive_maximum,
                minimum: s.minimum.as_ref().and_then(serde_json::Number::as_f64),
                exclusive_minimum: s.exclusive_minimum,
            };
            keywords::number_checks(path, Num::of(n), &rules, out);
        }
        if let Value::Array(items) = v {
            if let Some(lists) = lists.as_deref_mut() {
                listtype::check_list(items, s, path, lists);
            }
            if let Some(item_schema) = s.items.as_deref() {
                for (i, item) in items.iter().enumerate() {
                    self.node(item, item_schema, &path.index(i), out, lists.as_deref_mut());
                }
            }
            out.extend(s.min_items.and_then(|m| keywords::min_items(path, items.len(), m)));
            out.extend(s.max_items.and_then(|m| keywords::max_items(path, items.len(), m)));
        }
        if let Some(allowed) = &s.enum_ {
            out.extend(keywords::enumeration(path, v, allowed));
        }
        if let Value::Object(map) = v {
            out.extend(s.min_properties.and_then(|m| keywords::min_properties(path, map.len(), m)));
            out.extend(s.max_properties.and_then(|m| keywords::max_properties(path, map.len(), m)));
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
                if let Some((child_schema, at)) = s.key_place(k, path) {
                    self.node(child, child_schema, &at, out, lists.as_deref_mut());
                }
            }
            for r in &s.required {
                if !map.contains_key(r) {
                    out.push(keywords::required(path, r));
                }
            }
        }
    }

    fn pattern(&self, path: &At<'_>, text: &str, s: &Schema) -> Option<Issue> {
        let source = s.pattern.as_deref()?;
        keywords::compiled_pattern(path, text, self.patterns.get(source)?, source)
    }

    /// The type check (§7.3) of the schema's types and format.
    fn type_check(&self, v: &Value, s: &Schema, path: &At<'_>, out: &mut Vec<Issue>) {
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
        out.extend(keywords::type_check(path, v, types, s.format.as_deref(), s.nullable));
    }

    fn junctors(&self, v: &Value, s: &'s Schema, at: &At<'_>, out: &mut Vec<Issue>) {
        if s.all_of.is_empty() && s.any_of.is_empty() && s.one_of.is_empty() && s.not.is_none() {
            return;
        }
        let run = |branch: &'s Schema| {
            let mut issues = Vec::new();
            self.node(v, branch, at, &mut issues, None);
            issues
        };
        // Whether a branch passes does not depend on where the value sits: asked at the root,
        // where an issue's place costs nothing to print. A branch's issues are made where
        // they are reported (every `anyOf` branch of an int-or-string that the value is not
        // made a place and a message for each value, most of the dynamic validator's time
        // on prometheus's CRD).
        let passes = |branch: &'s Schema| {
            let mut probe = Vec::new();
            self.node(v, branch, &At::ROOT, &mut probe, None);
            probe.is_empty()
        };
        let place = std::cell::OnceCell::new();
        let path = || place.get_or_init(|| at.to_path());
        if !s.all_of.is_empty() {
            junctor::all_of(path(), s.all_of.iter().map(run).collect(), out);
        }
        let counts = |branches: &'s [Schema]| move || branches.iter().map(|b| junctor::match_count(b, v)).collect();
        if !s.any_of.is_empty() && !s.any_of.iter().any(passes) {
            junctor::any_of(path(), s.any_of.iter().map(run).collect(), counts(&s.any_of), out);
        }
        if !s.one_of.is_empty() {
            let passing = s.one_of.iter().filter(|b| passes(b)).count();
            // One passing branch: nothing to report, and the summaries need only the count.
            if passing != 1 {
                junctor::one_of(path(), s.one_of.iter().map(run).collect(), counts(&s.one_of), out);
            }
        }
        if let Some(n) = s.not.as_deref()
            && passes(n)
        {
            junctor::not(path(), Vec::new(), out);
        }
    }
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

/// The string format to check, with its name as written.
fn string_format(s: &Schema) -> Option<(Format, &str)> {
    let f = s.format.as_deref()?;
    let t = if s.int_or_string { "" } else { s.type_str().unwrap_or("") };
    format::supported(t, f).map(|fmt| (fmt, f))
}

type Patterns<'s> = HashMap<&'s str, Result<Matcher, PatternError>, foldhash::fast::RandomState>;

fn collect_patterns<'s>(s: &'s Schema, out: &mut Patterns<'s>) {
    if let Some(p) = &s.pattern {
        out.entry(p.as_str()).or_insert_with(|| Matcher::compile(p));
    }
    for child in s.children() {
        collect_patterns(child, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
