//! `kubeskema::crd::compat` against kube-apiserver 1.36.3's recorded answers
//! (`fixtures/oracle/compat/pairs.jsonl`, written by `compat-diff --record`): for every pair of
//! an OLD corpus CRD and NEW (OLD through seeded evolutions), the CRD update's verdict is the
//! apiserver's, our validator answers each recorded witness as the apiserver did, and the class
//! `compat` gives each change is the one those answers prove.
//!
//! Re-record (needs the oracle built): `cargo run --release -p kubeskema-tests --bin compat-diff
//! -- --seed 7 --pairs 300 --record fixtures/oracle`.

use std::collections::BTreeSet;

use kubeskema::validate::ResourceValidator;
use kubeskema_tests::oracle::compat::{Pair, crds, messages, our_update, ours, proven, same};
use kubeskema_tests::oracle::{Answer, Documents, Finding, known_differences};
use kubeskema_tests::repo_dir;

fn pairs() -> Vec<Pair> {
    let path = repo_dir().join("fixtures/oracle/compat/pairs.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    assert!(
        first.contains("kube-apiserver 1.36.3"),
        "{}: the first line says where the answers came from",
        path.display()
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}

fn answer(issues: &[kubeskema::issue::Issue]) -> Answer {
    Answer {
        errors: issues
            .iter()
            .map(|i| Finding { field: i.field(), type_: i.error_type.reason().to_owned(), message: i.to_string() })
            .collect(),
        ..Answer::default()
    }
}

#[test]
fn recorded_compat_pairs_agree_with_the_apiserver() {
    let known = known_differences(&repo_dir().join("fixtures/oracle/compat/KNOWN-DIFFERENCES.tsv"));
    let mut still_known = BTreeSet::new();
    let mut docs = Documents::default();
    let mut failures = Vec::new();
    let (mut witnesses, mut classes) = (0, BTreeSet::new());
    let all = pairs();
    assert!(all.len() >= 100, "the recording holds {} pairs", all.len());
    for pair in &all {
        let apiserver = pair.apiserver.as_ref().unwrap_or_else(|| panic!("pair {} was never recorded", pair.id));
        let (_, _, old, new) = crds(pair, &mut docs).unwrap_or_else(|e| panic!("pair {}: {e}", pair.id));
        let report = ours(&old, &new);
        let agrees = same(true, &apiserver.update, &our_update(&report));
        if !agrees && known.contains_key(&pair.id) {
            still_known.insert(pair.id.clone());
        } else if agrees && known.contains_key(&pair.id) {
            failures.push(format!("{}: listed as a known difference, but agrees now: unlist it", pair.id));
        } else if !agrees {
            failures.push(format!(
                "{}: the CRD update: apiserver {:#?}, ours {:#?}",
                pair.id,
                messages(&apiserver.update),
                messages(&our_update(&report))
            ));
        }
        for w in &apiserver.witnesses {
            witnesses += 1;
            let (Some(ov), Some(nv)) = (old.version(&w.version), new.version(&w.version)) else {
                failures.push(format!("{}: no version {}", pair.id, w.version));
                continue;
            };
            let (old_v, new_v) = (ResourceValidator::new(&old, ov), ResourceValidator::new(&new, nv));
            let asked: [(&str, Answer, &Answer); 4] = [
                ("OLD's create", answer(&old_v.validate_create(&w.object).issues), &w.old_create),
                ("NEW's create", answer(&new_v.validate_create(&w.object).issues), &w.create),
                ("NEW's no-op update", answer(&new_v.validate_update(&w.object, &w.object).issues), &w.no_op),
                ("NEW's update beside it", answer(&new_v.validate_update(&w.edited, &w.object).issues), &w.edit),
            ];
            for (what, mine, theirs) in asked {
                if !same(false, theirs, &mine) {
                    failures.push(format!(
                        "{} {} {}: {what}: apiserver {:?}, ours {:?}",
                        pair.id,
                        w.version,
                        w.field,
                        messages(theirs),
                        messages(&mine)
                    ));
                }
            }
            // The class compat gives the change now is the one the answers prove.
            let change = report.changes.iter().find(|c| {
                c.version.as_deref() == Some(&w.version)
                    && c.place.field == w.field
                    && c.witness.is_ok()
                    && c.served_from.is_none()
            });
            match change {
                None => failures
                    .push(format!("{} {} {}: compat no longer builds a witness here", pair.id, w.version, w.field)),
                Some(c) => {
                    classes.insert(c.class.name());
                    if let Err(e) = proven(c.class, w) {
                        failures.push(format!("{} {} {}: {}: {e}", pair.id, w.version, w.field, c.class.name()));
                    }
                }
            }
        }
    }
    let unseen: Vec<String> = known
        .keys()
        .filter(|id| !still_known.contains(*id) && !failures.iter().any(|f| f.starts_with(id.as_str())))
        .map(|id| format!("{id}: listed as a known difference, but no recorded pair has that id"))
        .collect();
    failures.extend(unseen);
    assert!(known.len() * 100 <= all.len(), "{} known differences in {} pairs: more than 1%", known.len(), all.len());
    assert!(witnesses >= 100, "{witnesses} witnesses recorded");
    for class in ["tightens", "blocks-updates", "drops-data"] {
        assert!(classes.contains(class), "no recorded witness of a `{class}` change");
    }
    assert!(failures.is_empty(), "{} of {} pairs differ:\n{}", failures.len(), all.len(), failures.join("\n"));
}
