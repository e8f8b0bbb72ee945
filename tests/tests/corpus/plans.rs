//! The dynamic validator's plans (rules compiled once into operations over JSON, issue 54)
//! over the corpus: on every corpus object of a CRD with rules and on its edge-value copies
//! (`kubeskema_tests::differential::edges`), created and updated from the original, the
//! rules run with their plans must give what the interpreter alone gives: the same issues,
//! warnings, stop and cost (the budget left). A plan answers only that a rule holds (with
//! its cost); every other answer is the interpreter's, so a disagreement is a plan saying
//! `true`, or charging other than the interpreter, where it should not.
//! `cargo test -p kubeskema-tests --features corpus --test corpus plans:: -- --nocapture`.

use kubeskema::cel::{Cx, SchemaRules};
use kubeskema_tests::differential::edges;
use serde_json::Value;

/// At most this many edge copies of one object, spread over its places.
const EDGES_PER_OBJECT: usize = 200;

/// The rules of `rules` over `value` (updated from `old`) with plans and interpreted: how they
/// differ, if they do, and how many rules the plans answered.
fn compare(rules: &SchemaRules, value: &Value, old: Option<&Value>) -> (Option<String>, usize) {
    let run = |mut cx: Cx| {
        rules.validate(value, old, &mut cx);
        let show = |issues: &[kubeskema::issue::Issue]| issues.iter().map(ToString::to_string).collect::<Vec<_>>();
        ((show(&cx.issues), show(&cx.warnings), cx.stopped(), cx.budget_left()), cx.planned())
    };
    let ((planned, held), (interpreted, _)) = (run(Cx::default()), run(Cx::interpreted()));
    let difference = (planned != interpreted).then(|| format!("plans: {planned:?}\ninterpreted: {interpreted:?}"));
    (difference, held)
}

#[test]
fn plans_agree_with_the_interpreter_over_the_corpus() {
    let (mut crds, mut docs) = (kubeskema_tests::CorpusCrds::default(), kubeskema_tests::CorpusDocuments::default());
    let (mut objects, mut copies, mut held, mut disagreements) = (0, 0, 0, Vec::new());
    for inst in kubeskema_tests::instances() {
        let Some((_, version)) = crds.version_of(&inst) else { continue };
        let Some(schema) = version.schema.as_ref() else { continue };
        let rules = SchemaRules::new(schema);
        if rules.is_empty() {
            continue;
        }
        let object = docs.value_of(&inst);
        let at = format!("{}#{}", inst.file, inst.doc_index);
        let mut check = |what: &str, value: &Value, old: Option<&Value>| {
            let (difference, n) = compare(&rules, value, old);
            held += n;
            if let Some(d) = difference {
                disagreements.push(format!("{at} ({what}): {d}"));
            }
        };
        check("as written", &object, None);
        objects += 1;
        let all = edges(&object);
        let step = all.len().div_ceil(EDGES_PER_OBJECT).max(1);
        for edge in all.into_iter().step_by(step) {
            check("an edge copy, created", &edge, None);
            check("an edge copy, updated", &edge, Some(&object));
            copies += 1;
        }
    }
    println!(
        "plans over the corpus: {objects} objects of CRDs with rules, {copies} edge copies (created and updated), {} disagreements; {held} rule evaluations held by their plans",
        disagreements.len()
    );
    for d in disagreements.iter().take(20) {
        println!("  {d}");
    }
    assert!(objects > 0, "no corpus object has rules");
    assert!(held > 0, "no plan answered a rule");
    assert!(disagreements.is_empty(), "{} disagreements", disagreements.len());
}
