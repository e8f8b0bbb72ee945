//! Rules on hand-written types, compiled by the derive (`kubeskema::cel::derived`), against the
//! interpreter: the golden `Edge`'s rules, verbatim, on a hand-written `Edge`
//! (`kubeskema_tests::derived_native`), on the edge values the generated types' differential
//! uses (`tests/cel_native.rs`): the same issues, warnings and stop, on create and update.

use kubeskema::Validate;
use kubeskema::cel::{Cx, DerivedRuns};
use kubeskema::path::At;
use kubeskema_tests::derived_native::Edge;
use kubeskema_tests::differential::{compare, edge_seed, edges};
use serde_json::{Value, json};

fn runs(value: &Edge, old: Option<&Edge>) -> (DerivedRuns, Cx) {
    let mut cx = Cx::default();
    value.validate_cel_at(old, &At::ROOT, &mut cx);
    (cx.derived_runs(), cx)
}

#[test]
fn derived_native_and_interpreted_cel_agree_on_edge_values() {
    let n = compare::<Edge>(edge_seed());
    assert!(n > 300, "only {n} comparisons");
}

/// The rules the derive compiles run natively to the end on the seed and its edges, except
/// where a value is read that the compiled code does not read (then the interpreter runs):
/// counted, so that a regression to deferring everything fails here.
#[test]
fn derived_rules_run_natively() {
    let seed: Edge = serde_json::from_value(edge_seed()).unwrap();
    let (on_seed, _) = runs(&seed, Some(&seed));
    // Of the 27 rules, 22 are compiled (`cel::summary` lists the others with their reasons);
    // the two that compare lists (`self.ports == oldSelf.ports`, `self.set == oldSelf.set`:
    // map-list and set equality, which the list's type decides) defer.
    assert_eq!(on_seed, DerivedRuns { native: 20, deferred: 2 }, "on the seed");
    let (mut total, mut evaluations) = (DerivedRuns::default(), 0);
    for edge in edges(&edge_seed()) {
        let Ok(value) = serde_json::from_value::<Edge>(edge) else { continue };
        let (r, _) = runs(&value, Some(&seed));
        total.native += r.native;
        total.deferred += r.deferred;
        evaluations += 1;
    }
    assert!(total.deferred <= 2 * evaluations, "{total:?} in {evaluations}");
    assert!(total.native > 10 * evaluations, "{total:?} in {evaluations}");
}

/// A loop over a list far longer than its `maxItems`: both paths stop at the per-call cost
/// limit, with the same issue.
#[test]
fn derived_native_and_interpreted_cel_stop_at_the_same_cost() {
    let items: Vec<Value> = (0..1500).map(|i| json!({"name": format!("n{i}")})).collect();
    let edge = json!({
        "apiVersion": "native.example.com/v1", "kind": "Edge", "metadata": {"name": "e"},
        "spec": {"items": items, "count": 1, "labels": {}, "name": "a", "timeout": "1m", "level": "a",
                 "number": "1", "tags": [], "link": "https://example.com"}
    });
    let value: Edge = serde_json::from_value(edge).unwrap();
    kubeskema::__private::cel_differential(&value, None).unwrap();
    let (r, cx) = runs(&value, None);
    assert!(cx.stopped());
    assert!(r.native > 0, "{r:?}");
    let last = cx.issues.last().unwrap().to_string();
    assert!(last.contains("call cost exceeds limit for rule: every item is there"), "{last}");
}

/// `cel::summary` walks the type tree: every rule is native or listed with its reason.
#[test]
fn the_summary_lists_every_rule_native_or_with_its_reason() {
    let count = kubeskema::cel::summary::<Edge>();
    for (owner, rule, reason) in &count.interpreted {
        println!("{owner}: {rule}: {reason}");
    }
    assert_eq!(count.summary(), "CEL rules: 22 native, 5 interpreted");
    let reasons: Vec<&str> = count.interpreted.iter().map(|(_, _, reason)| reason.as_str()).collect();
    assert_eq!(
        reasons,
        [
            "a comprehension other than all, exists, exists_one and filter",
            "a map literal",
            "a list literal",
            "the function `getScheme`: URL values are the interpreter's",
            "optionalOldSelf",
        ]
    );
}

/// The derive fixtures' rules: each native, or listed with its reason.
#[test]
fn the_derive_fixtures_rules_are_native_or_listed() {
    use kubeskema_tests::{derived, serde_shapes};
    let mut all = kubeskema::cel::CelCount::default();
    for count in [
        kubeskema::cel::summary::<derived::Kitchen>(),
        kubeskema::cel::summary::<derived::GadgetV1>(),
        kubeskema::cel::summary::<derived::GadgetV2>(),
        kubeskema::cel::summary::<derived::Costly>(),
        kubeskema::cel::summary::<derived::Mistyped>(),
        kubeskema::cel::summary::<serde_shapes::by_kubeskema::Pipeline>(),
        kubeskema::cel::summary::<serde_shapes::by_serde::Pipeline>(),
    ] {
        all.add(&count);
    }
    for (owner, rule, reason) in &all.interpreted {
        println!("{owner}: {rule}: {reason}");
    }
    assert_eq!(all.summary(), "CEL rules: 13 native, 1 interpreted, 22 kept by the types");
    assert_eq!(all.interpreted[0].2, "optionalOldSelf");
}

/// Every rule of a derived CRD is counted by `cel::summary`: native, interpreted, or kept by
/// the type (a data-carrying enum's variant rules, which its values cannot break). A type used
/// at two places is counted once, so the CRD's rules are counted once per text.
#[test]
fn the_summary_counts_every_rule_of_the_crd() {
    use kubeskema::resource::CustomResource;
    use kubeskema_tests::{derived, serde_shapes};
    fn rules(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    match (k.as_str(), v) {
                        ("x-kubernetes-validations", serde_json::Value::Array(r)) => {
                            out.extend(r.iter().map(ToString::to_string))
                        }
                        _ => rules(v, out),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| rules(v, out)),
            _ => {}
        }
    }
    fn check<T: CustomResource + kubeskema::Validate>() -> usize {
        let count = kubeskema::cel::summary::<T>();
        let mut distinct = std::collections::BTreeSet::new();
        rules(T::definition().to_json(), &mut distinct);
        let in_crd = distinct.len();
        assert_eq!(count.native + count.interpreted.len() + count.kept_by_types, in_crd, "{}", count.summary());
        count.kept_by_types
    }
    assert_eq!(check::<serde_shapes::by_kubeskema::Pipeline>(), 11);
    assert_eq!(check::<serde_shapes::by_serde::Pipeline>(), 11);
    for kept in [check::<derived::Kitchen>(), check::<derived::GadgetV1>(), check::<derived::Costly>()] {
        assert_eq!(kept, 0);
    }
}

/// The serde shapes' rules (on data-carrying enums, flattened structs, transparent newtypes)
/// on every sample: the same issues natively and interpreted, and how many evaluations ran
/// natively: `has(self.x)` on an internally tagged or untagged enum reads the variant's
/// fields, on an externally tagged one a newtype variant's payload (`self.ociImage.image`);
/// what the derive cannot read (a flattened struct's fields, the fields a newtype variant's
/// payload merges into an internally tagged enum) defers.
#[test]
fn rules_on_serde_shapes_run_natively_where_the_fields_are_known() {
    use kubeskema_tests::serde_shapes::{by_kubeskema::Pipeline, object, samples};
    let mut total = DerivedRuns::default();
    for (spec, _) in samples() {
        let Ok(value) = serde_json::from_value::<Pipeline>(object(&spec)) else { continue };
        kubeskema::__private::cel_differential(&value, None).unwrap();
        let mut cx = Cx::default();
        value.validate_cel_at(None, &At::ROOT, &mut cx);
        total.native += cx.derived_runs().native;
        total.deferred += cx.derived_runs().deferred;
    }
    // Samples with a field of another variant are refused by the read (as the apiserver
    // refuses them), so no rule runs on them.
    assert_eq!(total, DerivedRuns { native: 44, deferred: 0 });
}

/// Rules over values the compiled code does not read compile, and defer to the interpreter.
#[test]
fn rules_over_values_the_compiled_code_does_not_read_defer() {
    use kubeskema_tests::derived_native::Awkward;
    let objects = [
        json!({"port": 80, "count": 1, "names": ["a", null], "weights": {"a": 1}, "flag": true, "tags": ["x"]}),
        json!({"port": "http", "count": 3, "any": 1, "names": [], "weights": {}, "flag": false, "tags": []}),
        json!({"port": 8080, "count": 7, "any": "x", "names": [""], "weights": {"a": -1}, "flag": true, "tags": ["y"]}),
    ];
    let mut runs = DerivedRuns::default();
    for object in objects {
        let value: Awkward = serde_json::from_value(object).unwrap();
        kubeskema::__private::cel_differential(&value, None).unwrap();
        let mut cx = Cx::default();
        value.validate_cel_at(None, &At::ROOT, &mut cx);
        runs.native += cx.derived_runs().native;
        runs.deferred += cx.derived_runs().deferred;
    }
    assert!(runs.deferred > 0, "{runs:?}");
}
