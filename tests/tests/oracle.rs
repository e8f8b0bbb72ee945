//! The recorded differential against kube-apiserver 1.36.3: every case in `fixtures/oracle/`
//! (mutated corpus objects and CRDs, and targeted cases) carries the apiserver's answer, as
//! its own code gave it (`../shared/oracle`); this project must give the same (field, type,
//! message) multiset, and the same warnings for CRDs. The cases that cannot agree yet are
//! listed, with why, in `fixtures/oracle/KNOWN-DIFFERENCES.tsv`: at most 1% of them.
//!
//! Re-record (needs the oracle built): `cargo run --release -p kubeskema-tests --bin
//! oracle-diff -- --seed 7 --record fixtures/oracle` (see `docs/apiserver-1.36-messages.md`).

use std::collections::BTreeMap;

use kubeskema_tests::oracle::{Documents, compare, known_differences, ours, read_fixture};
use kubeskema_tests::repo_dir;

/// Every class a recording must hold at least three cases of.
const CLASSES_AT_LEAST_THREE: usize = 3;

#[test]
fn recorded_apiserver_answers_are_ours() {
    let dir = repo_dir().join("fixtures/oracle");
    let known = known_differences(&dir.join("KNOWN-DIFFERENCES.tsv"));
    let scratch = std::env::temp_dir().join(format!("kubeskema-oracle-replay-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch folder");
    let mut docs = Documents::default();
    let mut per_class: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut still_known = Vec::new();
    let mut total = 0;
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/oracle exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no recorded cases in {}", dir.display());
    for file in &files {
        for case in read_fixture(file).unwrap_or_else(|e| panic!("{e}")) {
            let apiserver = case
                .apiserver
                .clone()
                .unwrap_or_else(|| panic!("{}: case {} was never recorded", file.display(), case.id));
            assert!(
                apiserver.error.is_none(),
                "{}: case {} has no verdict of the apiserver's",
                file.display(),
                case.id
            );
            let inputs = case.inputs(&mut docs).unwrap_or_else(|e| panic!("{}: case {}: {e}", file.display(), case.id));
            let mine = ours(case.op, &inputs, &scratch);
            let cmp = compare(case.op, &apiserver, &mine);
            total += 1;
            *per_class.entry(case.class.clone()).or_default() += 1;
            match (cmp.same_messages, known.contains_key(&case.id)) {
                (true, true) => failures.push(format!("{}: listed as a known difference, but agrees now: unlist it", case.id)),
                (true, false) => {}
                (false, true) => still_known.push(case.id.clone()),
                (false, false) => failures.push(format!(
                    "{} [{}] in {}:\n  only the apiserver: {:#?}\n  only ours: {:#?}\n  warnings (apiserver, ours): {:?}{}",
                    case.id,
                    case.class,
                    file.file_name().unwrap_or_default().to_string_lossy(),
                    cmp.only_apiserver,
                    cmp.only_ours,
                    cmp.warnings,
                    mine.error.map(|e| format!("\n  ours failed: {e}")).unwrap_or_default()
                )),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    for id in known.keys() {
        if !still_known.contains(id) && !failures.iter().any(|f| f.starts_with(id.as_str())) {
            failures.push(format!("{id}: listed as a known difference, but no recorded case has that id"));
        }
    }
    assert!(known.len() * 100 <= total, "{} known differences in {total} recorded cases: more than 1%", known.len());
    let thin: Vec<_> = per_class.iter().filter(|(_, n)| **n < CLASSES_AT_LEAST_THREE).collect();
    assert!(thin.is_empty(), "classes with fewer than {CLASSES_AT_LEAST_THREE} recorded cases: {thin:?}");
    eprintln!(
        "recorded differential: {total} cases in {} classes, {} agree, {} known differences",
        per_class.len(),
        total - still_known.len() - failures.len(),
        still_known.len()
    );
    assert!(
        failures.is_empty(),
        "{} recorded cases differ from kube-apiserver 1.36.3:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
