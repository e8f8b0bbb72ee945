//! CEL rules as the apiserver runs them (semantics §9): messages, reasons, field paths,
//! escaping, typing, transition rules, ratcheting, gating and cost, through
//! `#[derive(kubeskema::Validate)]` on hand-written types and through the dynamic validator on
//! the same schema — each case is asserted on both.
#![cfg(all(feature = "cel", feature = "dynamic"))]

use kubeskema::{IntOrString, ObjectMeta, Validate};
use serde_json::{Value, json};

#[derive(Debug, Clone, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(
    resource(group = "example.com", version = "v1", kind = "Widget", plural = "widgets", scope = "Namespaced"),
    rule(rule = "self.metadata.name.size() <= 10", message = "name too long")
)]
struct Widget {
    #[kubeskema(rename = "apiVersion")]
    api_version: String,
    kind: String,
    #[kubeskema(default_json = "{}")]
    metadata: ObjectMeta,
    spec: Option<WidgetSpec>,
}

#[derive(Debug, Clone, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(
    rule(
        rule = "self.min <= self.max",
        message_expression = "self.min > 3 ? 'min is above max, and above 3' : 'min is above max'",
        field_path = ".min"
    ),
    rule(rule = "self.max == oldSelf.max", message = "max is immutable"),
    rule(
        rule = "!has(self.mode) || self.mode != 'off' || self.max == 0",
        reason = "FieldValueForbidden",
        message = "off means max 0"
    ),
    rule(
        rule = "!has(self.foo__dash__bar) || self.foo__dash__bar != 'bad'",
        reason = "FieldValueRequired",
        message = "not bad"
    ),
    rule(rule = "!has(self.__namespace__) || self.namespace == self.__namespace__"),
    rule(rule = "!has(self.mode) || self.mode != 'dup'", reason = "FieldValueDuplicate", message = "dropped"),
    rule(
        rule = "!oldSelf.hasValue() || !has(oldSelf.value().mode) || (has(self.mode) && self.mode == oldSelf.value().mode)",
        optional_old_self = true,
        message = "mode is set once"
    )
)]
struct WidgetSpec {
    min: i64,
    max: i64,
    mode: Option<String>,
    #[kubeskema(rename = "foo-bar", rule(rule = "self.size() <= 3"))]
    foo_bar: Option<String>,
    namespace: Option<String>,
    #[kubeskema(
        list_type = "map",
        list_map_keys("name"),
        rule(rule = "self.all(p, p.port > 0)", message = "ports must be positive")
    )]
    ports: Option<Vec<Port>>,
    #[kubeskema(items(rule(rule = "self.startsWith('x')")))]
    tags: Option<Vec<String>>,
    #[kubeskema(format = "duration", rule(rule = "self >= duration('1s')", message = "at least a second"))]
    timeout: Option<String>,
    #[kubeskema(int_or_string, rule(rule = "self > 0"))]
    size: Option<IntOrString>,
    #[kubeskema(rule(rule = "self.a == 1"))]
    counts: Option<std::collections::BTreeMap<String, i64>>,
}

#[derive(Debug, Clone, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(rule(rule = "self.port == oldSelf.port", message = "a port keeps its number"))]
struct Port {
    name: String,
    port: i64,
}

/// The same schema for the dynamic validator.
fn crd() -> kubeskema::crd::Crd {
    let spec = json!({"type": "object", "required": ["min", "max"],
        "x-kubernetes-validations": [
            {"rule": "self.min <= self.max", "messageExpression": "self.min > 3 ? 'min is above max, and above 3' : 'min is above max'", "fieldPath": ".min"},
            {"rule": "self.max == oldSelf.max", "message": "max is immutable"},
            {"rule": "!has(self.mode) || self.mode != 'off' || self.max == 0", "reason": "FieldValueForbidden", "message": "off means max 0"},
            {"rule": "!has(self.foo__dash__bar) || self.foo__dash__bar != 'bad'", "reason": "FieldValueRequired", "message": "not bad"},
            {"rule": "!has(self.__namespace__) || self.namespace == self.__namespace__"},
            {"rule": "!has(self.mode) || self.mode != 'dup'", "reason": "FieldValueDuplicate", "message": "dropped"},
            {"rule": "!oldSelf.hasValue() || !has(oldSelf.value().mode) || (has(self.mode) && self.mode == oldSelf.value().mode)", "optionalOldSelf": true, "message": "mode is set once"}],
        "properties": {
            "min": {"type": "integer"}, "max": {"type": "integer"}, "mode": {"type": "string"},
            "foo-bar": {"type": "string", "x-kubernetes-validations": [{"rule": "self.size() <= 3"}]},
            "namespace": {"type": "string"},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "x-kubernetes-validations": [{"rule": "self.all(p, p.port > 0)", "message": "ports must be positive"}],
                "items": {"type": "object", "required": ["name", "port"],
                    "x-kubernetes-validations": [{"rule": "self.port == oldSelf.port", "message": "a port keeps its number"}],
                    "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
            "tags": {"type": "array", "items": {"type": "string", "x-kubernetes-validations": [{"rule": "self.startsWith('x')"}]}},
            "timeout": {"type": "string", "format": "duration",
                "x-kubernetes-validations": [{"rule": "self >= duration('1s')", "message": "at least a second"}]},
            "size": {"x-kubernetes-int-or-string": true, "x-kubernetes-validations": [{"rule": "self > 0"}]},
            "counts": {"type": "object", "additionalProperties": {"type": "integer"},
                "x-kubernetes-validations": [{"rule": "self.a == 1"}]}}});
    let schema = json!({"type": "object",
        "x-kubernetes-validations": [{"rule": "self.metadata.name.size() <= 10", "message": "name too long"}],
        "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"}, "spec": spec}});
    kubeskema::crd::Crd::parse(&json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced",
                 "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema}}]}
    }))
    .0
}

fn object(spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec})
}

/// The issues of `spec` (over `old_spec` on update), derived and dynamic, asserted equal (as
/// sorted lists: the apiserver walks properties in Go map order).
fn issues(spec: Value, old_spec: Option<Value>) -> Vec<String> {
    let (value, old) = (object(spec), old_spec.map(object));
    let typed: Widget = serde_json::from_value(value.clone()).unwrap();
    let c = crd();
    let dynamic = kubeskema::validate::ResourceValidator::new(&c, &c.versions[0]);
    let (derived, dynamic) = match &old {
        None => (typed.validate(), dynamic.validate_create(&value).issues),
        Some(old) => {
            let typed_old: Widget = serde_json::from_value(old.clone()).unwrap();
            (typed.validate_update(&typed_old), dynamic.validate_update(&value, old).issues)
        }
    };
    let sorted = |v: Vec<kubeskema::issue::Issue>| {
        let mut out: Vec<String> = v.iter().map(ToString::to_string).collect();
        out.sort();
        out
    };
    let (derived, dynamic) = (sorted(derived), sorted(dynamic));
    assert_eq!(derived, dynamic, "derived and dynamic disagree");
    derived
}

fn create(spec: Value) -> Vec<String> {
    issues(spec, None)
}

fn update(spec: Value, old_spec: Value) -> Vec<String> {
    issues(spec, Some(old_spec))
}

#[test]
fn passing_rules_report_nothing() {
    assert_eq!(
        create(json!({"min": 1, "max": 2, "mode": "on", "foo-bar": "ok", "namespace": "n",
            "ports": [{"name": "a", "port": 1}], "tags": ["x1"], "timeout": "5s", "size": 3, "counts": {"a": 1}})),
        Vec::<String>::new()
    );
}

#[test]
fn message_expression_field_path_and_reasons() {
    assert_eq!(
        create(json!({"min": 5, "max": 2, "mode": "off"})),
        vec!["spec.min: Invalid value: min is above max, and above 3", "spec: Forbidden: off means max 0",]
    );
}

#[test]
fn duplicate_drops_the_message_and_required_has_no_value() {
    assert_eq!(
        create(json!({"min": 1, "max": 2, "mode": "dup", "foo-bar": "bad"})),
        vec!["spec: Duplicate value", "spec: Required value: not bad",]
    );
}

#[test]
fn escaped_and_reserved_property_names() {
    // `namespace` is reachable as `self.__namespace__` and, since the 1.31 environment, as is.
    assert!(create(json!({"min": 1, "max": 2, "namespace": "n"})).is_empty());
    assert_eq!(create(json!({"min": 1, "max": 2, "foo-bar": "bad"})), vec!["spec: Required value: not bad"]);
}

#[test]
fn failures_print_the_value_of_a_scalar_and_no_value_of_an_object_or_list() {
    assert_eq!(
        create(json!({"min": 1, "max": 2, "foo-bar": "long", "tags": ["x", "y"], "counts": {"a": 2}})),
        vec![
            "spec.counts: Invalid value: failed rule: self.a == 1",
            "spec.foo-bar: Invalid value: \"long\": failed rule: self.size() <= 3",
            "spec.tags[1]: Invalid value: \"y\": failed rule: self.startsWith('x')",
        ]
    );
}

#[test]
fn formats_are_typed_and_int_or_string_is_dynamic() {
    assert_eq!(
        create(json!({"min": 1, "max": 2, "timeout": "500ms"})),
        vec!["spec.timeout: Invalid value: \"500ms\": at least a second"]
    );
    // A string where the rule compares with an int: cel-go has no overload for it at run time.
    assert_eq!(
        create(json!({"min": 1, "max": 2, "size": "big"})),
        vec![
            "spec.size: Invalid value: \"\": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self > 0"
        ]
    );
}

#[test]
fn evaluation_errors_name_the_rule() {
    assert_eq!(
        create(json!({"min": 1, "max": 2, "counts": {"b": 1}})),
        vec!["spec.counts: Invalid value: \"object\": no such key: a evaluating rule: self.a == 1"]
    );
}

#[test]
fn root_rules_see_name_and_generate_name() {
    let long = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "a-very-long-name"}});
    let typed: Widget = serde_json::from_value(long).unwrap();
    assert_eq!(
        typed.validate().iter().map(ToString::to_string).collect::<Vec<_>>(),
        vec!["<nil>: Invalid value: name too long"]
    );
}

#[test]
fn transition_rules_need_an_old_value() {
    // On create, `self.max == oldSelf.max` is skipped; `optionalOldSelf` rules run with
    // `oldSelf` none (`none.mode` has no field: the rule errors, as in cel-go).
    assert!(create(json!({"min": 1, "max": 2})).is_empty());
    assert_eq!(
        update(json!({"min": 1, "max": 3}), json!({"min": 1, "max": 2})),
        vec!["spec: Invalid value: max is immutable"]
    );
    assert!(update(json!({"min": 1, "max": 2, "mode": "on"}), json!({"min": 1, "max": 2, "mode": "on"})).is_empty());
    assert_eq!(
        update(json!({"min": 1, "max": 2, "mode": "b"}), json!({"min": 1, "max": 2, "mode": "a"})),
        vec!["spec: Invalid value: mode is set once"]
    );
}

#[test]
fn list_map_items_correlate_by_key() {
    let old = json!({"min": 1, "max": 2, "ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}]});
    // Reordered, same numbers: fine. Item `b` changed its number: refused. A new item `c`: no
    // old value, the transition rule is skipped.
    assert!(
        update(json!({"min": 1, "max": 2, "ports": [{"name": "b", "port": 2}, {"name": "a", "port": 1}]}), old.clone())
            .is_empty()
    );
    assert_eq!(
        update(json!({"min": 1, "max": 2, "ports": [{"name": "b", "port": 9}, {"name": "c", "port": 5}]}), old),
        vec!["spec.ports[0]: Invalid value: a port keeps its number"]
    );
}

#[test]
fn unchanged_failures_ratchet_on_update() {
    // `foo-bar` too long in the stored object and unchanged: a warning, not an error.
    let old = json!({"min": 1, "max": 2, "foo-bar": "long", "tags": ["y"]});
    assert!(update(old.clone(), old.clone()).is_empty());
    assert_eq!(
        update(json!({"min": 1, "max": 2, "foo-bar": "longer", "tags": ["y"]}), old),
        vec!["spec.foo-bar: Invalid value: \"longer\": failed rule: self.size() <= 3"]
    );
}

#[test]
fn blocking_errors_skip_every_rule_with_one_note() {
    // `max` missing is `Required`: a blocking error.
    let value = object(json!({"min": 5}));
    let c = crd();
    let out = kubeskema::validate::ResourceValidator::new(&c, &c.versions[0]).validate_create(&value);
    assert_eq!(
        out.issues.iter().map(ToString::to_string).collect::<Vec<_>>(),
        vec![
            "spec.max: Required value",
            "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
        ]
    );
}

/// A format error is kube-openapi's type error (`FieldValueTypeInvalid`): it blocks CEL too,
/// so `min > max` goes unreported and the one note stands instead.
#[test]
fn format_errors_are_type_errors_and_block_rules() {
    assert_eq!(
        issues(json!({"min": 5, "max": 1, "timeout": "soon"}), None),
        vec![
            "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            "spec.timeout: Invalid value: \"soon\": spec.timeout in body must be of type duration: \"soon\"",
        ]
    );
    let c = crd();
    let out = kubeskema::validate::ResourceValidator::new(&c, &c.versions[0])
        .validate_create(&object(json!({"min": 1, "max": 2, "timeout": "soon"})));
    assert_eq!(out.issues[0].error_type, kubeskema::issue::ErrorType::TypeInvalid);
    assert_eq!(out.issues[0].error_type.reason(), "FieldValueTypeInvalid");
}

#[test]
fn the_per_call_cost_limit_stops_evaluation() {
    let mut cx = kubeskema::cel::Cx::default();
    static RULES: [kubeskema::cel::Rule; 2] = [
        kubeskema::cel::Rule::new("self.all(x, self.all(y, self.all(z, x + y + z >= 0)))"),
        kubeskema::cel::Rule::new("false"),
    ];
    let big = kubeskema::cel::from_json(&json!((0..200).collect::<Vec<i64>>()));
    cx.evaluate(&RULES, &kubeskema::path::Path::root().key("spec"), big, None, None, "array");
    assert_eq!(cx.issues.len(), 1, "evaluation stops at the first rule over the limit");
    assert_eq!(
        cx.issues[0].to_string(),
        "spec: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.all(y, self.all(z, x + y + z >= 0)))"
    );
    assert!(cx.stopped());
}

#[test]
fn the_per_object_budget_runs_out() {
    let mut cx = kubeskema::cel::Cx::default();
    static RULES: [kubeskema::cel::Rule; 1] = [kubeskema::cel::Rule::new("self.all(x, self.all(y, x + y >= 0))")];
    let list = kubeskema::cel::from_json(&json!((0..300).collect::<Vec<i64>>()));
    for i in 0..100 {
        cx.evaluate(&RULES, &kubeskema::path::Path::root().index(i), list.clone(), None, None, "array");
    }
    let last = cx.issues.last().map(ToString::to_string).unwrap_or_default();
    assert!(
        last.ends_with("validation failed due to running out of cost budget, no further validation rules will be run"),
        "{last}"
    );
    assert_eq!(cx.issues.len(), 1);
}

/// Evaluates one rule (and its messageExpression) on `self` and returns the issues.
fn run_rule(rule: &'static str, message_expression: Option<&'static str>, value: serde_json::Value) -> Vec<String> {
    let rules =
        Box::leak(Box::new([kubeskema::cel::Rule::declared(rule, None, message_expression, None, None, false, None)]));
    let mut cx = kubeskema::cel::Cx::default();
    cx.evaluate(
        &rules[..],
        &kubeskema::path::Path::root().key("spec"),
        kubeskema::cel::from_json(&value),
        None,
        None,
        "object",
    );
    cx.issues.iter().map(ToString::to_string).collect()
}

const CALL_LIMIT: &str = "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule";

/// Cost is counted while a rule runs: loops that the data does not size (`lists.range`) stop
/// at the per-call limit instead of running for hours, even where `||` would absorb an error.
#[test]
fn runaway_loops_stop_at_the_call_limit() {
    for rule in [
        "lists.range(1000000).all(x, lists.range(1000000).all(y, y >= 0))",
        "lists.range(1000000).exists(x, lists.range(1000000).all(y, y < 0)) || true",
        "lists.range(1000000).map(x, lists.range(1000000).filter(y, y > x)).size() > 0",
        "lists.range(1000000).exists_one(x, lists.range(1000000).exists(y, y < 0))",
    ] {
        let issues = run_rule(rule, None, json!({}));
        assert_eq!(issues, [format!("spec: Invalid value: \"object\": {CALL_LIMIT}: {rule}")], "{rule}");
    }
}

/// Results far larger than their inputs are charged before they are built: no gigabytes from
/// a small object.
#[test]
fn amplifying_results_are_charged_before_they_are_built() {
    let s = "x".repeat(130_000);
    let items: Vec<i64> = (0..20_000).collect();
    let value = json!({"s": s, "items": items});
    for rule in [
        "self.s.replace('', self.s).size() > 0",
        "self.items.map(x, self.items).flatten().size() > 0",
        "self.items.map(x, self.s).join(self.s).size() > 0",
        "self.items.map(x, self.s + self.s).size() > 0",
        "self.items.all(x, !self.s.matches('x+y'))",
        "self.items.exists(x, self.s.findAll('[a-w]').size() > 0)",
    ] {
        let issues = run_rule(rule, None, value.clone());
        assert_eq!(issues, [format!("spec: Invalid value: \"object\": {CALL_LIMIT}: {rule}")], "{rule}");
    }
    // Within the limit, the guarded functions give what the strings and lists extensions give.
    let small = json!({"s": "a-b-c", "l": [[1, [2]], [3]], "w": ["x", "y"]});
    for rule in [
        "self.s.replace('-', '+') == 'a+b+c'",
        "self.s.replace('-', '', 1) == 'ab-c'",
        "self.s.replace('', '.') == '.a.-.b.-.c.'",
        // A literal mixing types does not check: `dyn` makes it one type.
        "self.l.flatten() == [dyn(1), dyn([2]), dyn(3)]",
        "self.l.flatten(2) == [1, 2, 3]",
        "self.w.join() == 'xy' && self.w.join(', ') == 'x, y'",
        "lists.range(3) == [0, 1, 2]",
        "self.s + '!' == 'a-b-c!'",
    ] {
        assert_eq!(run_rule(rule, None, small.clone()), Vec::<String>::new(), "{rule}");
    }
}

/// A messageExpression is metered too, against the same budget.
#[test]
fn message_expressions_are_metered() {
    let issues = run_rule(
        "false",
        Some("lists.range(1000000).map(x, lists.range(1000000).size()).size() > 0 ? 'a' : 'b'"),
        json!({}),
    );
    assert_eq!(
        issues,
        [
            "spec: Invalid value: \"object\": messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"
        ]
    );
}

/// Nesting: cel-go's parser limit (250) with its message; a deeper tree from a chain of
/// operators is refused too; within the limits, deep rules parse and run on a test thread's
/// 2 MiB stack.
#[test]
fn deep_rules_are_refused_or_run_without_overflow() {
    let compile = |rule: String| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || kubeskema::cel::eval(&rule, kubeskema::cel::from_json(&json!({"a": 1}))))
            .unwrap()
            .join()
            .expect("no overflow")
    };
    let parens = |n: usize| format!("{}1{} == 1", "(".repeat(n), ")".repeat(n));
    assert_eq!(compile(parens(200)), Ok(kubeskema::cel::Value::Bool(true)));
    let err = compile(parens(300)).unwrap_err();
    assert!(err.contains("expression recursion limit exceeded: 250"), "{err}");
    let chain = |n: usize| format!("{} == {n}", vec!["self.a"; n].join(" + "));
    assert_eq!(compile(chain(200)), Ok(kubeskema::cel::Value::Bool(true)));
    let err = compile(chain(5_000)).unwrap_err();
    assert!(err.contains("expression recursion limit exceeded: 250"), "{err}");
    let brackets = |n: usize| format!("size({}1{}) == 1", "[".repeat(n), "]".repeat(n));
    assert_eq!(compile(brackets(200)), Ok(kubeskema::cel::Value::Bool(true)));
}

/// An enum whose values are of several kinds derives `Validate` (rules compiled to Rust read
/// enum values only of one kind, which is all codegen writes).
#[test]
fn an_enum_of_mixed_values_derives() {
    #[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
    enum Mixed {
        #[kubeskema(value = "fast")]
        Fast,
        #[kubeskema(value = 2)]
        Two,
    }
    let fast: Mixed = serde_json::from_str("\"fast\"").unwrap();
    let two: Mixed = serde_json::from_str("2").unwrap();
    assert!(matches!((fast, two), (Mixed::Fast, Mixed::Two)));
}

/// A messageExpression the apiserver would refuse for its estimated cost (`string(int)` has no
/// bound) is left out, as one that does not compile: the rule still runs, with its `message`.
#[derive(Debug, Clone, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(rule(rule = "self.n < 10", message = "n is below 10", message_expression = "'n is ' + string(self.n)"))]
struct Costly {
    n: i64,
}

#[test]
fn a_message_expression_over_budget_is_left_out() {
    let issues: Vec<String> = Costly { n: 11 }.validate().iter().map(ToString::to_string).collect();
    assert_eq!(issues, ["<nil>: Invalid value: n is below 10"]);
}

/// A field that is absent, read by a rule: `no such key` names it as the rule writes it,
/// escaped or not, natively and interpreted (kube-apiserver 1.36.3 answers
/// `no such key: __namespace__` for `self.__namespace__` and `no such key: namespace` for
/// `self.namespace`, asked with `apiserver-oracle`'s `validate` on the corpus's
/// VolumeGroupSnapshotContent with `spec.volumeGroupSnapshotRef.namespace` written `null`).
#[test]
fn an_absent_field_is_named_as_the_rule_writes_it() {
    #[derive(Debug, Clone, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
    #[kubeskema(rule(rule = "self.__namespace__ == 'x'"), rule(rule = "self.namespace == 'x'"))]
    struct Ref {
        name: String,
        namespace: Option<String>,
    }
    let rules = json!([{"rule": "self.__namespace__ == 'x'"}, {"rule": "self.namespace == 'x'"}]);
    let schema = json!({"type": "object", "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
        "metadata": {"type": "object"}, "spec": {"type": "object", "x-kubernetes-validations": rules, "required": ["name"],
        "properties": {"name": {"type": "string"}, "namespace": {"type": "string"}}}}});
    let crd = kubeskema::crd::Crd::parse(&json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "refs.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Ref", "plural": "refs"}, "scope": "Namespaced",
                 "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema}}]}
    }))
    .0;
    let expected = [
        "spec: Invalid value: \"object\": no such key: __namespace__ evaluating rule: self.__namespace__ == 'x'",
        "spec: Invalid value: \"object\": no such key: namespace evaluating rule: self.namespace == 'x'",
    ];
    let object = json!({"apiVersion": "example.com/v1", "kind": "Ref", "metadata": {"name": "r"},
        "spec": {"name": "n", "namespace": null}});
    let dynamic = kubeskema::validate::ResourceValidator::new(&crd, &crd.versions[0]).validate_create(&object);
    assert_eq!(dynamic.issues.iter().map(ToString::to_string).collect::<Vec<_>>(), expected);
    // The typed value is validated as a root: its place prints `<nil>`.
    let native = Ref { name: "n".into(), namespace: None }.validate();
    let native: Vec<String> = native.iter().map(ToString::to_string).collect();
    assert_eq!(native, expected.map(|e| e.replacen("spec:", "<nil>:", 1)));
}
