//! `cargo kubeskema apply`: a recorded apiserver apply replayed through the command line (the
//! CRD and objects written as files), conflicts in the apiserver's words and exit status 1,
//! input problems placed and explained, and input text never printed raw.

use std::path::{Path, PathBuf};

use clap::Parser;
use kubeskema_codegen::__internal::apply::{Request, run};
use kubeskema_codegen::cli::CargoCli;
use serde_json::{Value, json};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kubeskema-apply-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, value: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    path
}

/// The recorded case `case`'s step `step`, and its CRD.
fn recorded(case: &str, step: u64) -> (Value, Value) {
    let dir = kubeskema_tests::repo_dir().join("fixtures/apply");
    let crds: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("crds.json")).unwrap()).unwrap();
    let text = std::fs::read_to_string(dir.join("recorded.jsonl")).unwrap();
    let r: Value = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["case"] == case && r["step"] == step)
        .unwrap();
    let crd = crds[r["crd"].as_str().unwrap()].clone();
    (r, crd)
}

fn apply_command(args: &[&str]) -> i32 {
    let line = ["cargo", "kubeskema", "apply"].iter().chain(args).map(std::ffi::OsString::from);
    let CargoCli::Kubeskema(args) = CargoCli::try_parse_from(line).unwrap_or_else(|e| panic!("{e}"));
    kubeskema_codegen::cli::run(args)
}

#[test]
fn a_recorded_apply_and_its_conflicts_come_out_as_the_apiserver_gave_them() {
    let dir = scratch("recorded");
    let (conflict, crd) = recorded("before-first-apply-conflict", 1);
    let crd_file = write(&dir, "crd.json", &crd);
    let live = write(&dir, "live.json", &conflict["live"]);
    let applied = write(&dir, "applied.json", &conflict["applied"]);
    let request = |force| Request {
        crds: vec![crd_file.clone()],
        applied: applied.clone(),
        live: Some(live.clone()),
        manager: "ci".into(),
        force,
        now: Some("2026-01-01T00:00:00Z".into()),
        subresource: kubeskema::apply::Subresource::Main,
    };
    let diags = run(&request(false)).unwrap_err();
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].code.name(), "ApplyConflict");
    assert_eq!(diags[0].detail, conflict["answer"]["error"].as_str().unwrap());
    assert_eq!(diags[0].pos.map(|p| (p.line, p.column)), Some((1, 1)));

    // The same request with --force is step 2 of the case.
    let (forced, _) = recorded("before-first-apply-conflict", 2);
    let applied_forced = write(&dir, "applied.json", &forced["applied"]);
    assert_eq!(applied_forced, applied);
    let object = run(&request(true)).unwrap();
    assert_eq!(object, forced["answer"]["object"]);

    let (a, l, c) = (applied.to_str().unwrap(), live.to_str().unwrap(), crd_file.to_str().unwrap());
    let now = "--now=2026-01-01T00:00:00Z";
    assert_eq!(apply_command(&["--crd", c, "--manager", "ci", "--live", l, "--force", now, a]), 0);
    assert_eq!(apply_command(&["--crd", c, "--manager", "ci", "--live", l, "--output", "json", "--force", now, a]), 0);
    assert_eq!(apply_command(&["--crd", c, "--manager", "other", "--live", l, now, a]), 1, "a conflict");
    assert_eq!(apply_command(&["--crd", c, "--manager", "ci", now, "/no/such/file.yaml"]), 2, "unusable input");
}

#[test]
fn input_problems_are_placed_and_explained() {
    let dir = scratch("problems");
    let (_, crd) = recorded("leaf-apply-twice", 0);
    let crd_file = write(&dir, "crd.json", &crd);
    let file = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let request = |applied: PathBuf, now: Option<&str>| Request {
        crds: vec![crd_file.clone()],
        applied,
        live: None,
        manager: "ci".into(),
        force: false,
        now: now.map(str::to_owned),
        subresource: kubeskema::apply::Subresource::Main,
    };
    let problem = |applied, now| {
        let diags = run(&request(applied, now)).unwrap_err();
        let d = &diags[0];
        (d.code.name(), d.pos.map(|p| (p.line, p.column)), d.detail.clone(), d.help.clone().unwrap_or_default())
    };
    let unknown = file("unknown.yaml", "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n");
    let (code, pos, detail, help) = problem(unknown, None);
    assert_eq!((code, pos), ("NoSchema", Some((2, 1))), "at the kind");
    assert!(detail.contains("example.com/v1 Gadget") && help.contains("--crd"), "{detail} / {help}");

    let two =
        file("two.yaml", "apiVersion: example.com/v1\nkind: Widget\n---\napiVersion: example.com/v1\nkind: Widget\n");
    let (code, pos, detail, _) = problem(two, None);
    assert_eq!((code, pos, detail.as_str()), ("NotAnObject", Some((3, 1)), "the file holds more than one object"));

    let broken = file("broken.yaml", "apiVersion: example.com/v1\nkind: [Widget\n");
    assert_eq!(problem(broken, None).0, "YamlSyntax");

    let fine = file(
        "fine.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\nspec: {replicas: 1}\n",
    );
    let (code, _, detail, _) = problem(fine.clone(), Some("yesterday"));
    assert_eq!(
        (code, detail.as_str()),
        (
            "Config",
            r#"--now yesterday is not an RFC 3339 time: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006""#
        )
    );
    let (_, _, detail, _) = problem(fine.clone(), Some("2026-02-30T00:00:00Z"));
    assert!(detail.ends_with(r#"parsing time "2026-02-30T00:00:00Z": day out of range"#), "{detail}");
    // A time Go reads is stamped as metav1.Time writes it: in UTC, to the second.
    let object = run(&request(fine.clone(), Some("2026-01-01T01:00:00.5+01:00"))).unwrap();
    assert_eq!(object["metadata"]["managedFields"][0]["time"], "2026-01-01T00:00:00Z");
    // Without --now the wall clock is stamped.
    let object = run(&request(fine, None)).unwrap();
    let time = object["metadata"]["managedFields"][0]["time"].as_str().unwrap();
    assert!(kubeskema::go::time::unix_seconds(time).is_some_and(|t| t > 1_767_225_600), "{time}");

    let refused = file(
        "refused.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\nspec: {\"a\\nb\": 1}\n",
    );
    let (code, _, detail, _) = problem(refused, None);
    assert_eq!(code, "ApplyRefused");
    assert!(detail.ends_with(".spec.a\\nb: field not declared in schema"), "{detail}");
}

/// A map key is input: a line break or an escape in one stays escaped in the conflict list, so
/// a name cannot forge a line of the CI log.
#[test]
fn conflicts_print_input_escaped() {
    let dir = scratch("hostile");
    let (_, crd) = recorded("leaf-apply-twice", 0);
    let crd_file = write(&dir, "crd.json", &crd);
    let object = |value: &str| {
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"},
               "spec": {"labels": {"k\u{1b}[31m\n::error ::forged": value}}})
    };
    let first = write(&dir, "first.json", &object("1"));
    let request = |applied: PathBuf, live: Option<PathBuf>, manager: &str| Request {
        crds: vec![crd_file.clone()],
        applied,
        live,
        manager: manager.into(),
        force: false,
        now: Some("2026-01-01T00:00:00Z".into()),
        subresource: kubeskema::apply::Subresource::Main,
    };
    // A manager name no apply may give (ValidatePatchOptions), but a stored entry can hold.
    let refused = run(&request(first.clone(), None, "a\nb")).unwrap_err();
    assert!(
        refused[0].to_string().contains(
            r#"PatchOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\nb": invalid character U+000A (at position 1)"#
        ),
        "{}",
        refused[0]
    );
    let mut stored = run(&request(first, None, "a")).unwrap();
    stored["metadata"]["managedFields"][0]["manager"] = json!("a\nb");
    let live = write(&dir, "live.json", &stored);
    let second = write(&dir, "second.json", &object("2"));
    let diags = run(&request(second, Some(live), "c")).unwrap_err();
    let shown = diags[0].to_string();
    assert!(!shown.contains('\u{1b}') && !shown.contains("\n::"), "{shown}");
    assert!(shown.contains(r#"conflict with "a\nb": .spec.labels.k\x1b[31m\n::error ::forged"#), "{shown}");
}

/// docs/cli.md's example: the autoscaler's replicas conflict; forced, ci owns them and the port.
#[test]
fn the_readme_example_conflicts_then_forces() {
    let dir = kubeskema_tests::repo_dir().join("fixtures");
    let request = |force| Request {
        crds: vec![dir.join("crds")],
        applied: dir.join("apply/cli/applied.yaml"),
        live: Some(dir.join("apply/cli/live.yaml")),
        manager: "ci".into(),
        force,
        now: Some("2026-01-03T00:00:00Z".into()),
        subresource: kubeskema::apply::Subresource::Main,
    };
    let diags = run(&request(false)).unwrap_err();
    assert_eq!(
        diags[0].detail,
        r#"Apply failed with 1 conflict: conflict with "autoscaler" using example.com/v1: .spec.replicas"#
    );
    let object = run(&request(true)).unwrap();
    assert_eq!(object["spec"], json!({"replicas": 3, "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]}));
    let entries = object["metadata"]["managedFields"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "the autoscaler owns nothing any more: {entries:?}");
    assert_eq!(entries[0]["fieldsV1"]["f:spec"]["f:replicas"], json!({}));
}
