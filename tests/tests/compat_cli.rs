//! `cargo kubeskema compat`: what it says of a compatible and of a breaking change
//! (`fixtures/compat/`), where, with which witness, what fails the run, and bad input. The
//! witnesses' answers were confirmed with kube-apiserver 1.36.3; the corpus-wide agreement is
//! `compat.rs`'s.

use std::path::PathBuf;

use kubeskema::crd::compat::Class;
use kubeskema_codegen::__internal::compat::{Old, Outcome, Policy, Request, run};
use kubeskema_codegen::cli::{Args, Command, CompatArgs};

fn fixture(name: &str) -> PathBuf {
    kubeskema_tests::repo_dir().join("fixtures/compat").join(name)
}

fn compare(old: &str, new: &str, policy: Policy) -> Outcome {
    run(&Request {
        old: Old::Files(vec![fixture(old)]),
        new: vec![fixture(new)],
        options: Default::default(),
        policy,
        objects: Vec::new(),
    })
}

fn status(paths: Vec<PathBuf>, tweak: impl FnOnce(&mut CompatArgs)) -> i32 {
    let mut args = CompatArgs {
        paths,
        old_ref: None,
        stored_versions: None,
        allow: Vec::new(),
        acknowledge: Vec::new(),
        policy: None,
        verbose: false,
        objects: Vec::new(),
        output: "json".to_owned(),
    };
    tweak(&mut args);
    kubeskema_codegen::cli::run(Args { command: Command::Compat(args) })
}

/// (field, class, line in its file) of each change.
fn changes(outcome: &Outcome) -> Vec<(String, &'static str, usize)> {
    outcome
        .records
        .iter()
        .filter_map(|r| {
            let c = r.change.as_ref()?;
            Some((c.place.field.clone(), c.class.name(), r.diagnostic.pos.map_or(0, |p| p.line)))
        })
        .collect()
}

#[test]
fn a_compatible_change_breaks_nothing() {
    let outcome = compare("old.yaml", "compatible.yaml", Policy::default());
    assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
    // Loosened bounds and a new field: classified, and compatible; the description is shown
    // only with --verbose.
    assert_eq!(
        changes(&outcome),
        [
            (".spec.name".to_owned(), "compatible", 32),
            (".spec.size".to_owned(), "compatible", 33),
            (".spec.weight".to_owned(), "compatible", 36)
        ]
    );
    assert!(outcome.records.iter().all(|r| !r.diagnostic.is_error()));
    assert_eq!(status(vec![fixture("old.yaml"), fixture("compatible.yaml")], |_| {}), 0);
}

#[test]
fn each_breaking_change_has_its_class_its_line_and_its_witness() {
    let outcome = compare("old.yaml", "breaking.yaml", Policy::default());
    assert_eq!(
        changes(&outcome),
        [
            (String::new(), "breaks-clients", 13),
            (".spec".to_owned(), "blocks-updates", 29),
            (".spec.color".to_owned(), "tightens", 38),
            (".spec.labels[*]".to_owned(), "drops-data", 41),
            // Removed: placed in OLD.
            (".spec.legacy".to_owned(), "drops-data", 35),
            (".spec.name".to_owned(), "tightens", 36),
        ]
    );
    let removed = outcome.records.iter().find(|r| r.diagnostic.field == "spec.legacy").unwrap();
    assert!(removed.diagnostic.file.ends_with("old.yaml"));
    let name = outcome.records.iter().find(|r| r.diagnostic.field == "spec.name").unwrap();
    let witness = name.change.as_ref().unwrap().witness.as_ref().unwrap();
    assert_eq!(witness.object["spec"]["name"], "aaaa");
    assert_eq!(witness.create[0], "spec.name: Too long: may not be more than 3 bytes");
    assert!(witness.no_op_update.is_empty() && witness.edit.1.is_empty(), "{witness:?}");
    // The human form: the change at its line, the witness and NEW's answers, the way out.
    let human = name.diagnostic.human();
    for expected in [
        "breaking.yaml:36:17",
        "maxLength 10 → 3",
        "NEW on create: refused",
        "--acknowledge gadgets.example.com/v1/spec.name",
    ] {
        assert!(human.contains(expected), "{expected} in:\n{human}");
    }
    assert!(outcome.records.iter().all(|r| r.diagnostic.is_error()));
    assert_eq!(status(vec![fixture("old.yaml"), fixture("breaking.yaml")], |_| {}), 1);
}

#[test]
fn a_policy_allows_classes_and_acknowledges_changes() {
    let policy = Policy {
        allow: vec![Class::Tightens, Class::DropsData, Class::BreaksClients],
        acknowledge: vec!["gadgets.example.com/v1/spec".to_owned()],
    };
    let outcome = compare("old.yaml", "breaking.yaml", policy);
    assert!(outcome.records.iter().all(|r| !r.diagnostic.is_error()), "{:#?}", outcome.records);
    let ok = status(vec![fixture("old.yaml"), fixture("breaking.yaml")], |a| {
        a.allow = vec!["tightens".into(), "drops-data".into(), "breaks-clients".into()];
        a.acknowledge = vec!["gadgets.example.com/v1/spec".into()];
    });
    assert_eq!(ok, 0);
    // Only allowing some still fails.
    let partly = status(vec![fixture("old.yaml"), fixture("breaking.yaml")], |a| a.allow = vec!["tightens".into()]);
    assert_eq!(partly, 1);
}

#[test]
fn bad_input_stops_the_comparison_with_status_two() {
    let scratch = std::env::temp_dir().join(format!("kubeskema-compat-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let not_a_crd = scratch.join("pod.yaml");
    std::fs::write(&not_a_crd, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n").unwrap();
    let twice = scratch.join("twice.yaml");
    let old = std::fs::read_to_string(fixture("old.yaml")).unwrap();
    let other = old.replace("maxLength: 10", "maxLength: 11");
    std::fs::write(&twice, format!("{old}\n---\n{other}")).unwrap();
    let policy = scratch.join("policy.yaml");
    std::fs::write(&policy, "allow: [loosens]\n").unwrap();
    for (what, code) in [
        ("a missing file", status(vec![scratch.join("missing.yaml"), fixture("old.yaml")], |_| {})),
        ("no CRD in OLD", status(vec![not_a_crd.clone(), fixture("old.yaml")], |_| {})),
        ("two CRDs with one name", status(vec![twice.clone(), fixture("old.yaml")], |_| {})),
        ("one path without --old-ref", status(vec![fixture("old.yaml")], |_| {})),
        ("an unknown class", status(vec![fixture("old.yaml"), fixture("old.yaml")], |a| a.allow = vec!["x".into()])),
        (
            "a policy naming an unknown class",
            status(vec![fixture("old.yaml"), fixture("old.yaml")], |a| a.policy = Some(policy.clone())),
        ),
        (
            "a ref that does not exist",
            status(vec![fixture("old.yaml")], |a| a.old_ref = Some("no-such-ref-kubeskema".into())),
        ),
    ] {
        assert_eq!(code, 2, "{what}");
    }
    let outcome = compare("old.yaml", "old.yaml", Policy::default());
    assert!(outcome.records.is_empty() && outcome.problems.is_empty(), "a CRD against itself: {:?}", outcome.records);
}

/// `--old-ref`: OLD is NEW's file at a git revision (a pull request against its base).
#[test]
fn old_ref_reads_old_from_git() {
    let Ok(git) = std::process::Command::new("git").arg("--version").output() else { return };
    assert!(git.status.success());
    let repo = std::env::temp_dir().join(format!("kubeskema-compat-git-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&repo);
    std::fs::create_dir_all(&repo).unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git").arg("-C").arg(&repo).args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    git(&["init", "-q"]);
    let file = repo.join("crd.yaml");
    std::fs::copy(fixture("old.yaml"), &file).unwrap();
    git(&["add", "crd.yaml"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "released"]);
    std::fs::copy(fixture("breaking.yaml"), &file).unwrap();
    let outcome = run(&Request {
        old: Old::GitRef("HEAD".into()),
        new: vec![file.clone()],
        options: Default::default(),
        policy: Policy::default(),
        objects: Vec::new(),
    });
    assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
    assert_eq!(changes(&outcome).len(), 6);
    assert_eq!(status(vec![file], |a| a.old_ref = Some("HEAD".into())), 1);
}

/// `--objects`: the objects a cluster holds, against NEW. kube-apiserver 1.36.3 (asked with
/// these files) refuses `long-name` and `no-color` as created, and takes the update of each that
/// changes nothing: ratcheting keeps both editable, so nothing fails the run.
#[test]
fn stored_objects_are_replayed_against_new() {
    let outcome = run(&Request {
        old: Old::Files(vec![fixture("old.yaml")]),
        new: vec![fixture("breaking.yaml")],
        options: Default::default(),
        policy: Policy::default(),
        objects: vec![fixture("stored.yaml")],
    });
    assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
    let objects: Vec<(String, bool, String)> = outcome
        .records
        .iter()
        .filter(|r| r.change.is_none() && r.diagnostic.document().is_some())
        .map(|r| {
            let d = &r.diagnostic;
            let name = match &d.subject {
                kubeskema_codegen::Subject::Object { name, .. } => name.clone(),
                _ => String::new(),
            };
            (name, d.is_error(), d.message.clone())
        })
        .collect();
    let messages =
        |name: &str| -> Vec<&str> { objects.iter().filter(|(n, ..)| n == name).map(|(_, _, m)| m.as_str()).collect() };
    assert!(objects.iter().all(|(_, error, _)| !error), "{objects:#?}");
    assert!(messages("long-name").contains(&"spec.name: Too long: may not be more than 3 bytes"), "{objects:#?}");
    assert!(messages("no-color").contains(&"spec.color: Required value"), "{objects:#?}");
    assert!(messages("fine").is_empty(), "{objects:#?}");
}

/// A bound raised under a rule: compatible for values, and a `cel-cost` change with the
/// estimates kube-apiserver 1.36.3 gives (`apiserver.py cost`: 52, then 5002).
#[test]
fn a_rules_cost_change_is_reported_with_the_apiservers_estimates() {
    let outcome = compare("cost-old.yaml", "cost-new.yaml", Policy::default());
    let classes: Vec<(String, &str)> = changes(&outcome).into_iter().map(|(f, c, _)| (f, c)).collect();
    assert_eq!(
        classes,
        [
            (".spec.tags".to_owned(), "compatible"),
            ("properties[spec].properties[tags].x-kubernetes-validations[0].rule".to_owned(), "cel-cost")
        ]
    );
    let cost = outcome.records.iter().find(|r| r.change.as_ref().is_some_and(|c| c.class == Class::CelCost)).unwrap();
    assert!(cost.diagnostic.message.contains("estimated cost 52 → 5002"), "{}", cost.diagnostic.message);
    assert!(!cost.diagnostic.is_error());
}

/// Under conversion `None`, an object stored at the storage version is served, and written, at
/// every served version: a served version stricter than the storage version is a change from
/// it, reported even when nothing changed between OLD and NEW.
#[test]
fn served_versions_are_compared_with_the_storage_version() {
    let outcome = compare("served-versions.yaml", "served-versions.yaml", Policy::default());
    let found: Vec<(Option<String>, Option<String>, String, &str)> = outcome
        .records
        .iter()
        .filter_map(|r| r.change.as_ref())
        .map(|c| (c.version.clone(), c.served_from.clone(), c.place.field.clone(), c.class.name()))
        .collect();
    assert_eq!(found, [(Some("v1beta1".to_owned()), Some("v1".to_owned()), ".spec.name".to_owned(), "tightens")]);
    let witness = outcome.records[0].change.as_ref().unwrap().witness.as_ref().unwrap();
    assert_eq!(witness.object["apiVersion"], "example.com/v1beta1");
    assert_eq!(witness.create, ["spec.name: Too long: may not be more than 3 bytes"]);
}

/// SARIF for code scanning and JUnit for a CI test report hold every finding: the errors as
/// `error` results and failed cases (with the witness), the rest as warnings and passed cases.
#[test]
fn sarif_and_junit_carry_every_finding() {
    use kubeskema_codegen::__internal::compat::{junit, sarif};
    let outcome = compare("old.yaml", "breaking.yaml", Policy { allow: vec![Class::DropsData], ..Policy::default() });
    let errors = outcome.records.iter().filter(|r| r.diagnostic.is_error()).count();
    assert!(errors >= 3 && errors < outcome.records.len(), "{errors} errors");

    let log = sarif(&outcome);
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), outcome.records.len());
    assert_eq!(results.iter().filter(|r| r["level"] == "error").count(), errors);
    let tightened = results.iter().find(|r| r["properties"]["field"] == "spec.name").expect("spec.name");
    assert_eq!(tightened["ruleId"], "Tightens");
    assert_eq!(tightened["properties"]["crd"], "gadgets.example.com");
    assert_eq!(tightened["properties"]["version"], "v1");
    assert!(tightened["message"]["text"].as_str().unwrap().contains("witness (OLD accepts it)"));
    let region = &tightened["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 36);
    let rules = log["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(results.iter().all(|r| rules[r["ruleIndex"].as_u64().unwrap() as usize]["id"] == r["ruleId"]));

    let xml = junit(&outcome);
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let root = doc.root_element();
    assert_eq!(root.attribute("failures"), Some(errors.to_string().as_str()));
    assert_eq!(root.attribute("tests"), Some(outcome.records.len().to_string().as_str()));
    let failed: Vec<_> = doc.descendants().filter(|n| n.has_tag_name("failure")).collect();
    assert_eq!(failed.len(), errors);
    let name_case = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some("v1 spec.name: Tightens"))
        .expect("a case for spec.name");
    assert_eq!(name_case.attribute("classname"), Some("gadgets.example.com"));
    let failure = name_case.children().find(|n| n.has_tag_name("failure")).expect("failed");
    assert!(failure.text().unwrap_or_default().contains("NEW on the update that changes nothing: accepted"));
    // An allowed class passes, its text kept.
    let legacy = doc
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some("v1 spec.legacy: DropsData"))
        .expect("a case for spec.legacy");
    assert!(legacy.children().any(|n| n.has_tag_name("system-out")));
    assert!(!legacy.children().any(|n| n.has_tag_name("failure")));

    // A CRD whose change affects nothing is one passing case.
    let xml = junit(&compare("old.yaml", "old.yaml", Policy::default()));
    let doc = roxmltree::Document::parse(&xml).unwrap();
    assert_eq!(doc.root_element().attribute("failures"), Some("0"));
    assert!(doc.descendants().any(|n| n.attribute("name") == Some("no change that affects stored objects")));
    for output in ["sarif", "junit"] {
        let code = status(vec![fixture("old.yaml"), fixture("breaking.yaml")], |a| a.output = output.to_owned());
        assert_eq!(code, 1, "--output {output}");
    }
}
