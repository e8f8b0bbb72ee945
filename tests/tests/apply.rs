//! Server-side apply against kube-apiserver 1.36.3: every request in `fixtures/apply/
//! recorded.jsonl` (the cases of `fixtures/apply/cases.yaml`, each following a table of
//! structured-merge-diff's merge tests) replayed through `kubeskema::apply`, which must give
//! the apiserver's answer: the merged object with every managedFields entry, or the same
//! conflicts and message, or the same refusal; and for an extract, the same configuration.
//!
//! Re-record (needs the oracle built, `../shared/oracle/README.md`):
//! `ORACLE_BIN=.../apiserver-oracle fixtures/apply/record.py`.

use std::collections::{BTreeMap, BTreeSet};

use kubeskema::apply::{ApplyError, Options, Resource, Subresource};
use kubeskema::crd::Crd;
use kubeskema_tests::repo_dir;
use serde_json::Value;

/// Where the apiserver's text goes on in json-iterator's words.
const JSONITER: &str = "parsing key as path element: ";

/// Upstream's merge tables the cases must cover, at least this many cases in all.
const AT_LEAST_CASES: usize = 60;

fn crds() -> BTreeMap<String, Crd> {
    let text = std::fs::read_to_string(repo_dir().join("fixtures/apply/crds.json")).expect("fixtures/apply/crds.json");
    let crds: serde_json::Map<String, Value> = serde_json::from_str(&text).expect("crds.json is a JSON object");
    crds.iter()
        .map(|(name, doc)| {
            let (crd, errors) = Crd::parse(doc);
            assert!(errors.is_empty(), "{name}: {errors:?}");
            (name.clone(), crd)
        })
        .collect()
}

#[test]
fn recorded_apiserver_applies_are_ours() {
    let crds = crds();
    let text = std::fs::read_to_string(repo_dir().join("fixtures/apply/recorded.jsonl")).expect("recorded.jsonl");
    let mut cases = BTreeSet::new();
    let mut failures = Vec::new();
    let mut count = 0;
    for line in text.lines() {
        let r: Value = serde_json::from_str(line).expect("a JSON line");
        let s = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
        let (case, op) = (s("case"), s("op"));
        cases.insert(case.clone());
        count += 1;
        let crd = &crds[&s("crd")];
        let resource = Resource::new(crd, &s("version")).expect("the version exists");
        let live = Some(&r["live"]).filter(|l| !l.is_null());
        let answer = &r["answer"];
        let at = format!("{case} step {}", r["step"]);
        match op.as_str() {
            "apply" => {
                let options = Options {
                    manager: &s("manager"),
                    force: r["force"].as_bool().unwrap_or(false),
                    now: &s("now"),
                    subresource: Subresource::Main,
                };
                let ours = resource.field_manager_apply(live, &r["applied"], &options);
                let problem = match (&ours, answer.get("object"), answer.get("conflicts")) {
                    (Ok(object), Some(want), _) => (object != want).then(|| {
                        format!(
                            "object differs\n ours: {}\n want: {}",
                            serde_json::to_string(object).unwrap(),
                            serde_json::to_string(want).unwrap()
                        )
                    }),
                    (Err(ApplyError::Conflicts(c)), _, Some(want)) => {
                        let ours: BTreeSet<(String, String, String)> = c
                            .conflicts
                            .iter()
                            .map(|c| (c.manager.clone(), c.field.clone(), c.message.clone()))
                            .collect();
                        let want: BTreeSet<(String, String, String)> = want
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|c| {
                                let f = |k: &str| c[k].as_str().unwrap_or_default().to_owned();
                                (f("manager"), f("field"), f("message"))
                            })
                            .collect();
                        let message = answer["error"].as_str().unwrap_or_default();
                        (ours != want || c.message != message).then(|| {
                            format!("conflicts differ\n ours: {ours:?}\n {}\n want: {want:?}\n {message}", c.message)
                        })
                    }
                    (Err(ApplyError::Invalid(e)), None, None) => {
                        let want = answer["error"].as_str().unwrap_or_default();
                        // What json-iterator says of a FieldsV1 key it cannot read is its own
                        // (byte offsets, context excerpts): the text up to it must agree.
                        let (ours, want) = match (e.split_once(JSONITER), want.split_once(JSONITER)) {
                            (Some((ours, _)), Some((want, _))) => (ours, want),
                            _ => (e.as_str(), want),
                        };
                        (ours != want).then(|| format!("refusal differs\n ours: {e}\n want: {want}"))
                    }
                    (ours, _, _) => Some(format!("ours: {ours:?}\n want: {answer}")),
                };
                if let Some(problem) = problem {
                    failures.push(format!("{at} ({}): {problem}", s("follows")));
                }
            }
            "extract" => {
                let live = live.expect("extract has a live object");
                let ours = resource.extract(live, &s("manager"), Subresource::Main);
                let want = answer.get("object").filter(|o| !o.is_null());
                let same = match (&ours, want) {
                    (Ok(Some(o)), Some(w)) => o == w,
                    (Ok(None), None) => answer["extra"]["found"] == Value::Bool(false),
                    _ => false,
                };
                if !same {
                    failures
                        .push(format!("{at} ({}): extract differs\n ours: {ours:?}\n want: {answer}", s("follows")));
                }
            }
            other => panic!("{at}: unknown op {other}"),
        }
    }
    assert!(cases.len() >= AT_LEAST_CASES, "{} cases recorded, want at least {AT_LEAST_CASES}", cases.len());
    assert!(failures.is_empty(), "{} of {count} answers differ:\n\n{}", failures.len(), failures.join("\n\n"));
}

/// After the field manager, the registry strategy: an apply to the main resource stores the
/// live status (or none on create), one to `/status` stores only its status, under an entry
/// with `subresource: status` that owns nothing else.
#[test]
fn the_status_endpoint_and_the_main_resource_keep_to_their_part() {
    let crds = crds();
    let resource = Resource::new(&crds["widgets"], "v1").unwrap();
    let object = |spec: Value, status: Value| {
        serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": "default"}, "spec": spec, "status": status})
    };
    let main = |manager| Options { manager, force: false, now: "2026-01-01T00:00:00Z", subresource: Subresource::Main };
    let created = resource
        .apply(None, &object(serde_json::json!({"replicas": 1}), serde_json::json!({"phase": "A"})), &main("ci"))
        .unwrap();
    assert_eq!(created.get("status"), None, "a create through the main resource stores no status");

    let status =
        Options { manager: "controller", force: false, now: "2026-01-01T00:00:00Z", subresource: Subresource::Status };
    let with_status = resource
        .apply(Some(&created), &object(serde_json::json!({"replicas": 9}), serde_json::json!({"phase": "B"})), &status)
        .unwrap();
    assert_eq!(with_status["status"], serde_json::json!({"phase": "B"}));
    assert_eq!(with_status["spec"]["replicas"], 1, "/status changes nothing but status");
    let entry = with_status["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == "controller")
        .expect("the controller's entry");
    assert_eq!(entry["subresource"], "status");
    assert_eq!(entry["fieldsV1"], serde_json::json!({"f:status": {"f:phase": {}}}));

    let again = resource
        .apply(
            Some(&with_status),
            &object(serde_json::json!({"replicas": 2}), serde_json::json!({"phase": "C"})),
            &main("ci"),
        )
        .unwrap();
    assert_eq!(again["status"], serde_json::json!({"phase": "B"}), "the main resource keeps the stored status");
    assert_eq!(again["spec"]["replicas"], 2);
    let extracted = resource.extract(&again, "controller", Subresource::Status).unwrap().expect("an apply entry");
    assert_eq!(extracted["status"], serde_json::json!({"phase": "B"}));
}

/// `Options::new(manager)` applies as that manager, unforced, stamped with the current time
/// (`now` left empty); a literal takes `..Default::default()` (issue 50).
#[test]
fn options_default_to_now() {
    let crds = crds();
    let resource = Resource::new(&crds["widgets"], "v1").unwrap();
    let object = serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"}, "spec": {"replicas": 1}});
    let before = std::time::SystemTime::now();
    let created = resource.apply(None, &object, &Options::new("ci")).unwrap();
    let stamped = created["metadata"]["managedFields"][0]["time"].as_str().unwrap().to_owned();
    let year = before.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() / 31_556_952 + 1970;
    assert!(stamped.starts_with(&year.to_string()) || stamped.starts_with(&(year + 1).to_string()), "{stamped}");
    assert!(Options::new("ci").force().force);
    let literal = Options { manager: "ci", now: "2026-01-01T00:00:00Z", ..Default::default() };
    let at = resource.apply(None, &object, &literal).unwrap();
    assert_eq!(at["metadata"]["managedFields"][0]["time"], "2026-01-01T00:00:00Z");
    assert!(
        matches!(resource.apply(None, &object, &Options::default()), Err(ApplyError::Invalid(_))),
        "a manager is required"
    );
}

/// The PATCH handler's refusals around the field manager, in the order it makes them: the
/// route (`/status` of a version without it is a 404), the options (`ValidatePatchOptions`),
/// the object the URL names (a subresource never creates), then, after the field manager, the
/// merged object's namespace and name against the URL's (the live object's). The words are
/// the apiserver's source's (`patch.go`, `rest.go`, `validation.go`, `StatusREST.Update`):
/// the oracle runs the field manager alone.
#[test]
fn the_handlers_refusals_come_around_the_field_manager() {
    let crds = crds();
    let widgets = Resource::new(&crds["widgets"], "v1").unwrap();
    let dials = Resource::new(&crds["versioned"], "v1").unwrap();
    let object = |kind: &str, name: &str, namespace: &str| {
        serde_json::json!({"apiVersion": "example.com/v1", "kind": kind,
            "metadata": {"name": name, "namespace": namespace}, "spec": {}})
    };
    let options = |manager, subresource| Options { manager, force: false, now: "2026-01-01T00:00:00Z", subresource };
    let refusal = |resource: &Resource, live: Option<&Value>, applied: &Value, options: &Options| match resource
        .apply(live, applied, options)
    {
        Err(ApplyError::Invalid(message)) => message,
        other => panic!("not refused: {other:?}"),
    };
    let widget = object("Widget", "w", "default");
    let dial = object("Dial", "w", "default");
    assert_eq!(
        refusal(&dials, None, &dial, &options("ci", Subresource::Status)),
        "the server could not find the requested resource"
    );
    assert_eq!(
        refusal(&widgets, None, &widget, &options("ci", Subresource::Status)),
        r#"widgets.example.com "w" not found"#
    );
    assert_eq!(
        refusal(&widgets, None, &widget, &options("", Subresource::Main)),
        r#"PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch"#
    );
    let long = "m".repeat(129);
    assert_eq!(
        refusal(&widgets, None, &widget, &options(&long, Subresource::Main)),
        r#"PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes"#
    );
    assert_eq!(
        refusal(&widgets, None, &widget, &options("a\u{7f}b\tc", Subresource::Main)),
        concat!(
            r#"PatchOptions.meta.k8s.io "" is invalid: [fieldManager: Invalid value: "a\x7fb\tc": invalid character U+007F (at position 1), "#,
            r#"fieldManager: Invalid value: "a\x7fb\tc": invalid character U+0009 (at position 3)]"#
        )
    );
    let bad_now = Options { manager: "ci", force: false, now: "2026-02-30T00:00:00Z", subresource: Subresource::Main };
    assert_eq!(
        refusal(&widgets, None, &widget, &bad_now),
        r#"now: parsing time "2026-02-30T00:00:00Z": day out of range"#
    );

    let live = widgets.apply(None, &widget, &options("ci", Subresource::Main)).unwrap();
    assert_eq!(
        refusal(&widgets, Some(&live), &object("Widget", "other", "default"), &options("ci", Subresource::Main)),
        "the name of the object (other) does not match the name on the URL (w)"
    );
    assert_eq!(
        refusal(&widgets, Some(&live), &object("Widget", "w", "elsewhere"), &options("ci", Subresource::Main)),
        "the namespace of the provided object does not match the namespace sent on the request"
    );
    assert!(
        refusal(&widgets, Some(&dial), &widget, &options("ci", Subresource::Main))
            .starts_with(r#"the live object is a "Dial""#)
    );
    // An applied object without a namespace takes the URL's (the live object's).
    let mut unnamespaced = widget.clone();
    unnamespaced["metadata"].as_object_mut().unwrap().remove("namespace");
    let applied = widgets.apply(Some(&live), &unnamespaced, &options("ci", Subresource::Main)).unwrap();
    assert_eq!(applied["metadata"]["namespace"], "default");
}
