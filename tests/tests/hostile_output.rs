//! Hostile input, printed: names, kinds, keys, rule messages and file names that carry line
//! breaks, `::error ...::` (a GitHub Actions workflow command at a line's start), ANSI and
//! OSC escape sequences and bidi controls reach every output (human, JSON, SARIF, JUnit, GitHub
//! annotations, the
//! file problems on standard error, `check`) printable: no control character but the tab and
//! the line breaks of the output's own making, no bidi control, and no line that a CI runner
//! reads as a command.

use std::path::PathBuf;

use kubeskema_codegen::__internal::manifests::{Request, validate_request};

/// What an attacker puts in a string.
const FORGED: &str =
    "x\n::error file=a.yaml,line=1::forged\r\u{1b}[31mred\u{1b}]8;;https://e.example\u{7}\u{202e}evil\u{2028}";

/// Every problem a printed text can carry, listed.
fn unsafe_in(text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for c in text.chars() {
        let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}');
        if (c.is_control() && c != '\n' && c != '\t') || bidi || c == '\u{2028}' || c == '\u{2029}' {
            problems.push(format!("character {:?}", c));
        }
    }
    for line in text.lines() {
        if line.trim_start().starts_with("::") {
            problems.push(format!("a workflow command line: {line:?}"));
        }
    }
    problems
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kubeskema-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn text_from_input_is_printable_in_every_output() {
    let dir = temp_dir("validate");
    let crd = kubeskema_tests::repo_dir().join("fixtures/crds");
    let forged_json = serde_json::to_string(FORGED).unwrap();
    // A bad name (label and message), an unknown key (field path), an unknown kind, and a
    // manifest whose file name is forged too.
    let manifest = format!(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {forged_json}\n  namespace: {forged_json}\nspec:\n  {forged_json}: 1\n---\napiVersion: example.com/v1\nkind: {forged_json}\nmetadata:\n  name: a\n"
    );
    let plain = dir.join("widgets.yaml");
    std::fs::write(&plain, &manifest).unwrap();
    let forged_file = dir.join(format!("{}.yaml", FORGED.replace('/', "_")));
    std::fs::write(&forged_file, "{not yaml: [").unwrap();
    let request = Request { crds: vec![crd], manifests: vec![plain, forged_file], jobs: 1, ..Request::default() };
    let report = validate_request(&request).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.findings.len() >= 3, "{:#?}", report.findings);
    assert!(!report.files.is_empty(), "the unreadable file is reported");
    let mut outputs: Vec<(String, String)> = Vec::new();
    for f in &report.findings {
        outputs.push(("human".into(), f.human()));
        let json = kubeskema_codegen::__internal::report::json_text(&f.to_json(), false);
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back, f.to_json(), "the JSON line carries the same value");
        outputs.push(("json".into(), json));
    }
    for d in &report.files {
        outputs.push(("file problem".into(), d.to_string()));
    }
    // GitHub annotations: one line each, a command by design, whose properties carry no `:`
    // or `,` of the input's and whose message carries no line break.
    for g in report.findings.iter().chain(&report.files).map(|f| f.github()) {
        let body = g.strip_prefix("::error ").or_else(|| g.strip_prefix("::warning ")).unwrap_or_else(|| panic!("{g}"));
        let (properties, message) = body.split_once("::").unwrap();
        assert!(!g.contains('\n') && !g.contains('\r'), "{g}");
        let keys: Vec<&str> = properties.split(',').map(|p| p.split_once('=').map_or(p, |(k, _)| k)).collect();
        assert!(keys.iter().all(|k| ["file", "line", "col", "title"].contains(k)), "only our properties: {g}");
        assert!(!properties.contains(':') && !properties.contains('\u{1b}'), "{g}");
        outputs.push(("github message".into(), message.to_owned()));
    }
    outputs.push((
        "sarif".into(),
        kubeskema_codegen::__internal::report::json_text(&kubeskema_codegen::__internal::report::sarif(&report), true),
    ));
    outputs.push(("junit".into(), kubeskema_codegen::__internal::report::junit(&report)));
    outputs.push(("summary".into(), kubeskema_codegen::__internal::report::summary(&report)));
    let forged_seen = outputs.iter().filter(|(_, text)| text.contains("forged")).count();
    assert!(forged_seen >= 5, "the hostile strings are printed (escaped), not dropped");
    for (what, text) in &outputs {
        let problems = unsafe_in(text);
        assert!(problems.is_empty(), "{what}: {problems:?} in\n{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `check`'s diagnostics: a CRD whose name, property names, rule text and message are forged.
#[test]
fn crd_check_diagnostics_are_printable() {
    let dir = temp_dir("check");
    let forged_json = serde_json::to_string(FORGED).unwrap();
    let crd = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {forged_json}\nspec:\n  group: example.com\n  names: {{kind: W, plural: ws}}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          {forged_json}: {{type: strin}}\n          spec:\n            type: object\n            x-kubernetes-validations:\n            - rule: {forged_json}\n              message: {forged_json}\n"
    );
    let file = dir.join("crd.yaml");
    std::fs::write(&file, crd).unwrap();
    let diags = kubeskema_codegen::__internal::pipeline::check(&[file], false);
    assert!(diags.len() >= 2, "{diags:#?}");
    for d in &diags {
        let text = d.to_string();
        let problems = unsafe_in(&text);
        assert!(problems.is_empty(), "{problems:?} in\n{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The YAML kubeskema writes (a derived CRD's `to_yaml`, `apply`'s output) is read back by a
/// YAML 1.1 reader, as kubectl's go-yaml v2 reads it: PyYAML (libyaml) refuses DEL, the C1
/// controls and U+FFFE raw in a quoted string, and folds NEL into a space. Needs `python3`
/// with PyYAML (`.ci/run` installs it); without it the test says so and passes, unless
/// `KUBESKEMA_REQUIRE_PYYAML` is set, as CI sets it.
#[test]
fn yaml_written_reads_back_in_a_yaml_1_1_reader() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let hostile = format!("{FORGED}\u{7f}\u{80}\u{85}\u{9f}\u{2029}\u{feff}\u{fffe}\u{ffff}\u{2066}");
    let value = serde_json::json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "x", "annotations": {hostile.clone(): hostile.clone()}},
        "data": {"plain\u{85}": "nel\u{85}", "list": [hostile.clone(), "ok"]},
    });
    let text = kubeskema::schema::of_types::to_yaml(&value);
    let read_back =
        "import sys, json, yaml; print(json.dumps(yaml.load(sys.stdin.buffer.read(), Loader=yaml.CSafeLoader)))";
    let child = Command::new("python3")
        .args(["-c", read_back])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let required = std::env::var_os("KUBESKEMA_REQUIRE_PYYAML").is_some();
    let mut child = match child {
        Ok(c) => c,
        Err(e) if !required => return eprintln!("skipped: no python3 ({e})"),
        Err(e) => panic!("python3: {e}"),
    };
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !required && (stderr.contains("No module named 'yaml'") || stderr.contains("has no attribute 'CSafeLoader'")) {
        return eprintln!("skipped: no PyYAML with libyaml");
    }
    assert!(out.status.success(), "PyYAML refused the text: {stderr}\n{text}");
    let theirs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(theirs, value, "{text}");
    assert_eq!(unsafe_in(&text), Vec::<String>::new(), "{text}");
}
