//! `kubeskema::crd::compat` against kube-apiserver 1.36.3's recorded answers
//! (`fixtures/oracle/compat/pairs.jsonl`, written by `compat-diff --record`): for every pair of
//! an OLD corpus CRD and NEW (OLD through seeded evolutions), the CRD update's verdict is the
//! apiserver's, our validator answers each recorded witness as the apiserver did, and the class
//! `compat` gives each change is the one those answers prove.
//!
//! Re-record (needs the oracle built): `cargo run --release -p kubeskema-tests --bin compat-diff
//! -- --seed 7 --pairs 300 --record fixtures/oracle`.
//!
//! The catalogue of checks (`fixtures/compat/checks.yaml`: every check crdify documents and every
//! other kind of change, one case each, with the class `compat` must give) is replayed the same
//! way from `fixtures/oracle/compat/checks.jsonl` (re-record: `compat-diff --checks
//! fixtures/compat/checks.yaml --record fixtures/oracle`).

use std::collections::BTreeSet;

use kubeskema::validate::ResourceValidator;
use kubeskema_tests::oracle::compat::{Pair, checks, crds, messages, our_update, ours, proven, same};
use kubeskema_tests::oracle::{Answer, Documents, Finding, known_differences};
use kubeskema_tests::repo_dir;

fn recorded(name: &str) -> Vec<Pair> {
    let path = repo_dir().join("fixtures/oracle/compat").join(name);
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

/// What replaying recorded pairs found.
#[derive(Default)]
struct Replayed {
    failures: Vec<String>,
    witnesses: usize,
    classes: BTreeSet<&'static str>,
    /// Pairs that differ and are listed as known differences.
    still_known: BTreeSet<String>,
}

/// [`replay_part`] on every core: each pair builds its witnesses again, the costly part.
fn replay(all: &[Pair], known: &std::collections::BTreeMap<String, String>) -> Replayed {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = all.len().div_ceil(threads).max(1);
    let parts: Vec<Replayed> = std::thread::scope(|s| {
        let workers: Vec<_> = all
            .chunks(chunk)
            .map(|part| {
                // Schemas nest deeply: the CLI's stack, not a thread's default.
                let worker = std::thread::Builder::new().stack_size(64 << 20);
                worker.spawn_scoped(s, move || replay_part(part, known)).expect("a thread")
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("a replay thread")).collect()
    });
    let mut out = Replayed::default();
    for part in parts {
        out.failures.extend(part.failures);
        out.witnesses += part.witnesses;
        out.classes.extend(part.classes);
        out.still_known.extend(part.still_known);
    }
    out
}

/// Each pair's CRD update verdict, its witnesses' four answers and the class they prove,
/// against the recorded answers.
fn replay_part(all: &[Pair], known: &std::collections::BTreeMap<String, String>) -> Replayed {
    let mut out = Replayed::default();
    let mut docs = Documents::default();
    for pair in all {
        let apiserver = pair.apiserver.as_ref().unwrap_or_else(|| panic!("pair {} was never recorded", pair.id));
        let (_, _, old, new) = crds(pair, &mut docs).unwrap_or_else(|e| panic!("pair {}: {e}", pair.id));
        let report = ours(&old, &new);
        let agrees = same(true, &apiserver.update, &our_update(&report));
        if !agrees && known.contains_key(&pair.id) {
            out.still_known.insert(pair.id.clone());
        } else if agrees && known.contains_key(&pair.id) {
            out.failures.push(format!("{}: listed as a known difference, but agrees now: unlist it", pair.id));
        } else if !agrees {
            out.failures.push(format!(
                "{}: the CRD update: apiserver {:#?}, ours {:#?}",
                pair.id,
                messages(&apiserver.update),
                messages(&our_update(&report))
            ));
        }
        if let Some(unmet) = pair.expect.as_ref().and_then(|e| e.unmet(&report, &apiserver.update)) {
            out.failures.push(format!("{} {unmet}", pair.id));
        }
        for w in &apiserver.witnesses {
            out.witnesses += 1;
            let (Some(ov), Some(nv)) = (old.version(&w.version), new.version(&w.version)) else {
                out.failures.push(format!("{}: no version {}", pair.id, w.version));
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
                    out.failures.push(format!(
                        "{} {} {}: {what}: apiserver {:?}, ours {:?}",
                        pair.id,
                        w.version,
                        w.field,
                        messages(theirs),
                        messages(&mine)
                    ));
                }
            }
            // The class compat gives the change now is the one those answers prove.
            let change = report.changes.iter().find(|c| {
                c.version.as_deref() == Some(&w.version)
                    && c.place.field == w.field
                    && c.witness.is_ok()
                    && c.served_from.is_none()
            });
            match change {
                None => out
                    .failures
                    .push(format!("{} {} {}: compat no longer builds a witness here", pair.id, w.version, w.field)),
                Some(c) => {
                    out.classes.insert(c.class.name());
                    if let Err(e) = proven(c.class, w) {
                        out.failures.push(format!("{} {} {}: {}: {e}", pair.id, w.version, w.field, c.class.name()));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn recorded_compat_pairs_agree_with_the_apiserver() {
    let known = known_differences(&repo_dir().join("fixtures/oracle/compat/KNOWN-DIFFERENCES.tsv"));
    let all = recorded("pairs.jsonl");
    assert!(all.len() >= 100, "the recording holds {} pairs", all.len());
    // OLDs that break a rule the apiserver added later: the update's relaxations are asked.
    let legacy = all.iter().filter(|p| p.classes.iter().any(|c| c == "legacy")).count();
    assert!(legacy >= 20, "{legacy} recorded pairs have an OLD written before a rule it breaks");
    let Replayed { mut failures, witnesses, classes, still_known } = replay(&all, &known);
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

/// The checks crdify documents (kubernetes-sigs/crdify, `docs/validations.md`): each has a case.
const CRDIFY_CHECKS: [&str; 15] = [
    "scope",
    "existingFieldRemoval",
    "storedVersionRemoval",
    "enum",
    "default",
    "maximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "minimum",
    "minLength",
    "minItems",
    "minProperties",
    "required",
    "type",
];

#[test]
fn every_check_in_the_catalogue_gets_its_class_as_the_apiserver_proves_it() {
    let catalogue = checks(&repo_dir().join("fixtures/compat/checks.yaml")).expect("the catalogue reads");
    let all = recorded("checks.jsonl");
    // The recording is of the catalogue as it stands: an edited case must be asked again.
    let ids = |pairs: &[Pair]| pairs.iter().map(|p| p.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&catalogue), ids(&all), "fixtures/compat/checks.yaml changed: re-record checks.jsonl");
    for (case, pair) in catalogue.iter().zip(&all) {
        assert!(
            case.old == pair.old && case.new == pair.new && case.expect == pair.expect,
            "{}: the case changed since it was recorded: re-record checks.jsonl",
            case.id
        );
    }
    // The base alone is a CRD the apiserver takes, and compared with itself nothing changes.
    let mut docs = Documents::default();
    let (_, _, base, _) = crds(&catalogue[0], &mut docs).expect("the base reads");
    let same_report = ours(&base, &base);
    assert!(same_report.changes.is_empty() && same_report.update.is_empty(), "{:?}", same_report.changes);
    for check in CRDIFY_CHECKS {
        assert!(
            catalogue.iter().any(|p| p.expect.as_ref().is_some_and(|e| e.check == check)),
            "crdify's `{check}` check has no case in fixtures/compat/checks.yaml"
        );
    }
    let Replayed { failures, witnesses, classes, .. } = replay(&all, &Default::default());
    assert!(witnesses >= 30, "{witnesses} witnesses recorded");
    for class in ["tightens", "blocks-updates", "drops-data"] {
        assert!(classes.contains(class), "no recorded witness of a `{class}` change");
    }
    let expected: BTreeSet<&str> = all.iter().filter_map(|p| p.expect.as_ref()).map(|e| e.class.as_str()).collect();
    for class in kubeskema::crd::compat::Class::ALL {
        assert!(expected.contains(class.name()), "no case expects `{}`", class.name());
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), all.len(), failures.join("\n"));
}
