//! The derive's compiler of CEL rules over the corpus: a sample of corpus CRDs (of each project,
//! the smallest CRD file with rules and objects: `DERIVE_COMPILED`, chosen by the
//! build script) generated with codegen's compilation of rules off, so the derive compiles every
//! rule as it does for hand-written types (included here, not in the library: see the build
//! script). On each of their corpus objects and its edge-value
//! copies (`kubeskema_tests::differential::edges`, what the generated types' differential
//! uses), created and updated from the original, the rules the derive compiled must give what
//! the interpreter gives.

use kubeskema::cel::DerivedRuns;
use kubeskema_tests::differential::edges;

include!(concat!(env!("OUT_DIR"), "/derive_compiled.rs"));

/// At most this many edge copies of one object, spread over its places.
const EDGES_PER_OBJECT: usize = 200;

#[test]
fn derive_compiled_rules_agree_with_the_interpreter_over_a_corpus_sample() {
    let mut docs = kubeskema_tests::CorpusDocuments::default();
    let (mut objects, mut copies, mut runs, mut disagreements) = (0, 0, DerivedRuns::default(), Vec::new());
    let mut check =
        |at: &str, value: serde_json::Value, old: Option<serde_json::Value>, inst: &kubeskema_tests::Instance| {
            match derive_compiled(&inst.crd_file, &inst.api_version, &inst.kind, value, old) {
                Some(Ok((differences, r))) => {
                    runs.native += r.native;
                    runs.deferred += r.deferred;
                    disagreements.extend(differences.into_iter().map(|d| format!("{at}: {d}")));
                    true
                }
                _ => false,
            }
        };
    for inst in kubeskema_tests::instances() {
        if !DERIVE_COMPILED.contains(&inst.crd_file.as_str()) {
            continue;
        }
        let object = docs.value_of(&inst);
        let at = format!("{}#{}", inst.file, inst.doc_index);
        if !check(&at, object.clone(), None, &inst) {
            continue;
        }
        objects += 1;
        let all = edges(&object);
        let step = all.len().div_ceil(EDGES_PER_OBJECT).max(1);
        for edge in all.into_iter().step_by(step) {
            let created = check(&at, edge.clone(), None, &inst);
            let updated = check(&at, edge, Some(object.clone()), &inst);
            copies += usize::from(created || updated);
        }
    }
    println!(
        "derive-compiled CEL over {} corpus CRDs (one per project with rules and objects): {objects} objects, {copies} edge copies, {} disagreements; rule evaluations: {} native, {} deferred to the interpreter",
        DERIVE_COMPILED.len(),
        disagreements.len(),
        runs.native,
        runs.deferred
    );
    for d in disagreements.iter().take(20) {
        println!("  {d}");
    }
    assert!(disagreements.is_empty(), "{} disagreements", disagreements.len());
    assert!(DERIVE_COMPILED.len() >= 20 && objects > 100 && copies > 1000, "too little was compared");
    assert!(runs.native > runs.deferred, "mostly deferred: {runs:?}");
}
