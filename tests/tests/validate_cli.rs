//! `cargo kubeskema validate`: manifests checked against CRDs with no cluster, each finding
//! at its line and column with the apiserver's message, in the DESIGN.md output contract.

use std::path::PathBuf;

use clap::Parser;
use kubeskema_codegen::__internal::manifests::validate;
use kubeskema_codegen::Severity;
use kubeskema_codegen::cli::{CargoCli, run};

fn fixture(rel: &str) -> PathBuf {
    kubeskema_tests::repo_dir().join("fixtures").join(rel)
}

/// `cargo kubeskema validate ARGS...` as a command line, parsed as the binary parses it; the
/// exit status.
fn validate_command<S: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = S>) -> i32 {
    let line = ["cargo", "kubeskema", "validate"].map(std::ffi::OsString::from);
    let parsed = CargoCli::try_parse_from(line.into_iter().chain(args.into_iter().map(|a| a.as_ref().to_owned())));
    let CargoCli::Kubeskema(args) = parsed.unwrap_or_else(|e| panic!("{e}"));
    run(args)
}

/// A finding as `document:line:column type message`.
fn placed(f: &kubeskema_codegen::Diagnostic) -> String {
    let pos = f.pos.unwrap();
    format!("{}:{}:{} {} {}", f.document().unwrap(), pos.line, pos.column, f.code.name(), f.message)
}

#[test]
fn every_problem_of_every_document_is_found_at_its_place() {
    let findings = validate(&[fixture("crds")], &[fixture("manifests/widgets.yaml")]).unwrap().findings;
    let lines: Vec<String> = findings.iter().map(placed).collect();
    let expected = [
        "1:20:3 UnknownField unknown field \"spec.typo\"",
        "1:19:3 FieldValueInvalid spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
        "1:18:3 FieldValueNotSupported spec.type: Unsupported value: \"Medium\": supported values: \"Small\", \"Large\", \"\"",
        "1:24:7 FieldValueDuplicate spec.ports[1]: Duplicate value: {\"name\":\"http\"}",
        "2:28:1 NoSchema no CRD or OpenAPI schema given for example.com/v1 Gizmo",
    ];
    for e in expected {
        assert!(lines.iter().any(|l| l == e), "missing {e:?} in {lines:#?}");
    }
    assert!(lines.iter().any(|l| l.starts_with("1:16:3 FieldValueInvalid metadata.name: Invalid value: \"Bad_Name\"")));
    assert!(findings.iter().all(|f| f.document() != Some(0)), "the first widget is valid");
    assert_eq!(findings.iter().filter(|f| f.severity == Severity::Warning).count(), 1);
}

/// An unknown key with dots is one key: its own line and pointer, its whole name in the
/// apiserver's warning (not `/spec/example/com/extra` at the nearest known parent).
#[test]
fn unknown_keys_with_dots_are_placed_at_their_own_line() {
    let findings = validate(&[fixture("crds")], &[fixture("manifests/dotted-unknown.yaml")]).unwrap().findings;
    let found: Vec<(usize, usize, &str, &str, &str)> = findings
        .iter()
        .map(|f| {
            let pos = f.pos.unwrap();
            (pos.line, pos.column, f.pointer.as_str(), f.field.as_str(), f.message.as_str())
        })
        .collect();
    assert_eq!(
        found,
        vec![(8, 3, "/spec/example.com~1extra", "spec.example.com/extra", "unknown field \"spec.example.com/extra\"")]
    );
}

#[test]
fn human_output_reads_like_a_compiler_diagnostic() {
    let findings = validate(&[fixture("crds")], &[fixture("manifests/widgets.yaml")]).unwrap().findings;
    let replicas = findings.iter().find(|f| f.field == "spec.replicas").unwrap();
    let shown = replicas.human().replace('\\', "/");
    let expected = "\
error: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10
  --> FILE:19:3
   |
19 |   replicas: 11
   |   ^^^^^^^^ Widget/Bad_Name";
    let file = fixture("manifests/widgets.yaml").display().to_string().replace('\\', "/");
    assert_eq!(shown.trim_end(), expected.replace("FILE", &file));
}

/// On a terminal the same text in rustc's colours; `--output github` one workflow command per
/// finding, at its place (issue 50).
#[test]
fn colour_and_github_annotations_carry_the_same_finding() {
    let findings = validate(&[fixture("crds")], &[fixture("manifests/widgets.yaml")]).unwrap().findings;
    let replicas = findings.iter().find(|f| f.field == "spec.replicas").unwrap();
    let colored = replicas.human_in_color(true);
    assert!(colored.contains('\u{1b}'), "{colored:?}");
    let mut stripped = String::new();
    let mut rest = colored.as_str();
    while let Some(at) = rest.find('\u{1b}') {
        stripped.push_str(&rest[..at]);
        rest = &rest[at..];
        rest = &rest[rest.find('m').map_or(rest.len(), |m| m + 1)..];
    }
    stripped.push_str(rest);
    assert_eq!(stripped, replicas.human(), "only colour is added");
    let github = replicas.github();
    let path = fixture("manifests/widgets.yaml").display().to_string().replace(':', "%3A").replace(',', "%2C");
    assert_eq!(
        github,
        format!(
            "::error file={path},line=19,col=3,title=Widget/Bad_Name%3A FieldValueInvalid::spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"
        )
    );
}

#[test]
fn json_lines_carry_the_contracts_fields() {
    let findings = validate(&[fixture("crds")], &[fixture("manifests/widgets.yaml")]).unwrap().findings;
    let json = findings[1].to_json();
    for key in [
        "file",
        "document",
        "line",
        "column",
        "apiVersion",
        "kind",
        "name",
        "field",
        "pointer",
        "type",
        "detail",
        "message",
    ] {
        assert!(json.get(key).is_some(), "missing {key} in {json}");
    }
    assert_eq!(json["kind"], "Widget");
    assert_eq!(json["name"], "Bad_Name");
}

#[test]
fn exit_status_says_what_happened() {
    let validate = |crd: &str, manifest: &str| {
        validate_command([
            "--output".as_ref(),
            "json".as_ref(),
            "--crd".as_ref(),
            fixture(crd).as_os_str(),
            fixture(manifest).as_os_str(),
        ])
    };
    assert_eq!(validate("crds", "manifests/good-widget.json"), 0, "no issues");
    assert_eq!(validate("crds", "manifests/widgets.yaml"), 1, "issues found");
    assert_eq!(validate("crds", "crds/widgets.yaml"), 0, "a CRD among the manifests is checked as a CRD");
    assert_eq!(validate("crds", "invalid/not_structural.yaml"), 1, "one the apiserver refuses is invalid");
    assert_eq!(validate("invalid/not_structural.yaml", "manifests/widgets.yaml"), 2, "CRDs the apiserver refuses");
    assert_eq!(validate("crds", "manifests/missing.yaml"), 2, "unreadable input");
}

/// One manifest that is missing or not YAML does not hide the others' findings: each file's
/// error is reported, the rest validated, and the exit status is 2.
#[test]
fn one_unreadable_manifest_does_not_hide_the_others() {
    let manifests =
        [fixture("manifests/missing.yaml"), fixture("invalid/malformed.yaml"), fixture("manifests/widgets.yaml")];
    let report = validate(&[fixture("crds")], &manifests).unwrap();
    assert!(report.findings.iter().any(|f| f.field == "spec.replicas"), "widgets.yaml is still validated");
    let files: Vec<String> = report.files.iter().map(ToString::to_string).collect();
    assert_eq!(files.len(), 2, "{files:#?}");
    assert!(files[0].contains("missing.yaml") && files[0].contains("no such file or folder"), "{files:#?}");
    assert!(files[1].contains("malformed.yaml:") && files[1].contains("not valid YAML"), "{files:#?}");
    let crds = fixture("crds");
    let args = ["--output".as_ref(), "json".as_ref(), "--crd".as_ref(), crds.as_os_str()];
    assert_eq!(validate_command(args.into_iter().chain(manifests.iter().map(|m| m.as_os_str()))), 2);
}

/// A document the reader stops in (nested past the limit, a collection for a key, aliases that
/// expand too far) is a finding at its place with the documents before it validated, and the
/// run exits 2: the file's types were read from its events alone, which cannot tell, and such a
/// document once ended its file silently (an invalid document after it passed, exit 0).
#[test]
fn a_document_the_reader_stops_in_is_a_finding_not_the_end_of_its_file() {
    let dir = std::env::temp_dir().join(format!("kubeskema-unreadable-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let widget = |name: &str, kind: &str, spec: &str| {
        format!("apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: {name}}}\nspec:\n  type: {kind}\n{spec}")
    };
    let mut bomb = String::from("  junk:\n    a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..9 {
        bomb.push_str(&format!("    a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 10].join(", ")));
    }
    for (name, unreadable, place, message) in [
        (
            "deep.yaml",
            format!("  deep: {}{}\n", "[".repeat(200), "]".repeat(200)),
            "12:135",
            "nesting deeper than 128 levels",
        ),
        ("key.yaml", "  x: {[a]: 1}\n".to_owned(), "12:7", "a mapping key must be a scalar"),
        ("aliases.yaml", bomb, "16:14", "document contains excessive aliasing"),
    ] {
        let file = dir.join(name);
        let text = [widget("before", "Nope", ""), widget("bad", "Small", &unreadable), widget("after", "Nope", "")];
        std::fs::write(&file, text.join("---\n")).unwrap();
        let report = validate(&[fixture("crds")], std::slice::from_ref(&file)).unwrap();
        let found: Vec<String> = report.findings.iter().map(placed).collect();
        assert!(
            found[0].starts_with("0:5:3 FieldValueNotSupported spec.type"),
            "{name}: the document before: {found:#?}"
        );
        assert_eq!(found.last().unwrap(), &format!("1:{place} YamlSyntax not valid YAML: {message}"), "{name}");
        assert!(report.findings.iter().all(|f| f.document() != Some(2)), "{name}: the document after is not read");
        assert_eq!((report.counts.invalid, report.counts.unreadable, report.counts.documents()), (1, 1, 2), "{name}");
        let crds = fixture("crds");
        assert_eq!(validate_command(["--crd".as_ref(), crds.as_os_str(), file.as_os_str()]), 2, "{name}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Input that cannot mean anything is said to be so: a document without apiVersion or kind,
/// standard input named for both the CRDs and the manifests, a folder without CRDs.
#[test]
fn meaningless_input_gets_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("kubeskema-validate-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    let plain = dir.join("plain.yaml");
    std::fs::write(&plain, "name: just-data\n---\napiVersion: v1\nname: no-kind\n").unwrap();
    let findings = validate(&[fixture("crds")], std::slice::from_ref(&plain)).unwrap().findings;
    let messages: Vec<&str> = findings.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(messages, ["not a Kubernetes object: no apiVersion and kind", "not a Kubernetes object: no kind"]);

    let status = |crd: PathBuf, manifest: PathBuf| {
        validate_command([
            "--output".as_ref(),
            "json".as_ref(),
            "--crd".as_ref(),
            crd.as_os_str(),
            manifest.as_os_str(),
        ])
    };
    assert_eq!(status("-".into(), "-".into()), 2, "standard input twice");
    let err = validate(&[dir.join("empty")], std::slice::from_ref(&plain)).unwrap_err().to_string();
    assert!(err.contains("no CustomResourceDefinition found in"), "{err}");
    assert_eq!(status(dir.join("empty"), plain), 2, "a folder without CRDs");
    std::fs::remove_dir_all(&dir).ok();
}

/// JSON is read as kubectl's JSON decoder reads it: YAML 1.1's numbers (`0x10`, `010`, `+1`) in
/// a `.json` file or a stream that starts with `{` are syntax errors naming the file and the
/// place (exit 2), not numbers.
#[test]
fn json_with_yaml_numbers_is_a_syntax_error_at_its_place() {
    let dir = std::env::temp_dir().join(format!("kubeskema-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text, place) in [
        (
            "hex.json",
            "{\"apiVersion\": \"example.com/v1\", \"kind\": \"Widget\",\n \"spec\": {\"replicas\": 0x10}}",
            "2:23",
        ),
        (
            "octal.yaml",
            "{\"apiVersion\": \"example.com/v1\", \"kind\": \"Widget\", \"spec\": {\"replicas\": 010}}",
            "1:73",
        ),
        ("list.json", "[+1]", "1:2"),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let report = validate(&[fixture("crds")], std::slice::from_ref(&file)).unwrap();
        assert!(report.findings.is_empty(), "{name}: no value was read: {:?}", report.findings);
        let problem = report.files.first().unwrap_or_else(|| panic!("{name}: no file problem")).to_string();
        assert!(problem.contains(&format!("{name}:{place}: error: not valid JSON: invalid JSON value")), "{problem}");
        let crds = fixture("crds");
        assert_eq!(validate_command(["--crd".as_ref(), crds.as_os_str(), file.as_os_str()]), 2, "{name}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Many findings on one long line (a one-line JSON manifest): each is placed and rendered in
/// linear time (the line was copied into every finding and rescanned by the renderer), and
/// the place goes with the path where the line is too long to show.
#[test]
fn many_findings_on_one_long_line_are_linear() {
    let dir = std::env::temp_dir().join(format!("kubeskema-long-line-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = |n: usize| {
        let labels: serde_json::Map<String, serde_json::Value> =
            (0..n).map(|i| (format!("k{i}"), serde_json::Value::String("x".repeat(64)))).collect();
        let widget = serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w"}, "spec": {"type": "Small", "labels": labels}});
        let file = dir.join(format!("w{n}.json"));
        std::fs::write(&file, widget.to_string()).unwrap();
        file
    };
    let small = manifest(5);
    let findings = validate(&[fixture("crds")], &[small]).unwrap().findings;
    let too_long = findings.iter().find(|f| f.field == "spec.labels.k0").expect("a finding at the label");
    let human = too_long.human();
    assert!(human.contains(&format!("w5.json:1:{}", too_long.pos.unwrap().column)), "{human}");
    let ratio = kubeskema::__private::growth_ratio(1_000, |n| {
        let file = manifest(n);
        let findings = validate(&[fixture("crds")], &[file]).unwrap().findings;
        assert!(findings.len() >= n);
        let rendered: usize = findings.iter().map(|f| f.human().len()).sum();
        assert!(rendered > 0);
    });
    assert!(ratio < kubeskema::__private::LINEAR_GROWTH, "10x the findings took {ratio:.1}x the time");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A number beyond float64 in YAML is read as a string (go-yaml does, so the apiserver gets a
/// string too): the type error that calls it "string" says why.
#[test]
fn numbers_yaml_reads_as_strings_are_explained() {
    let dir = std::env::temp_dir().join(format!("kubeskema-1e400-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("w.yaml");
    std::fs::write(
        &file,
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  type: Small\n  replicas: 1e400\n",
    )
    .unwrap();
    let findings = validate(&[fixture("crds")], &[file]).unwrap().findings;
    let replicas = findings.iter().find(|f| f.field == "spec.replicas").expect("a type error");
    assert_eq!(
        replicas.message,
        "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\""
    );
    let note = replicas.note.as_deref().unwrap();
    assert!(note.starts_with("1e400 does not fit a float64, so YAML reads it as a string"), "{note}");
    assert!(replicas.human().contains("note: 1e400 does not fit"), "{}", replicas.human());
    assert_eq!(replicas.to_json()["note"], note);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The pieces a stream of documents is made of in [`every_document_the_reader_reads_is_accounted_for`]:
/// objects valid and not, an empty document, and each way a document can stop the reader.
fn stream_piece() -> impl proptest::strategy::Strategy<Value = String> {
    let widget = |spec: &str| format!("apiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: w}}\nspec:\n{spec}");
    let mut aliases = String::from("  junk:\n    a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..6 {
        aliases.push_str(&format!("    a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 10].join(", ")));
    }
    proptest::sample::select(vec![
        widget("  type: Small\n"),
        widget("  type: Nope\n"),
        String::new(),
        "{}\n".to_owned(),
        widget(&format!("  type: Small\n  deep: {}{}\n", "[".repeat(129), "]".repeat(129))),
        widget("  type: Small\n  x: {[a]: 1}\n"),
        widget("  type: Small\n  x: {{a: 1}: 1}\n"),
        widget(&format!("  type: Small\n{aliases}")),
        widget("  type: Small\n  x: *nowhere\n"),
        widget("  type: [unclosed\n"),
    ])
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

    /// Whatever a stream holds, `validate` accounts for every document the reader hands on and
    /// for where it stopped: each object it read is in the report, in order, and a stream the
    /// reader stops in is a file error or an unreadable document at the reader's place, never a
    /// run that ends early and passes.
    #[test]
    fn every_document_the_reader_reads_is_accounted_for(pieces in proptest::collection::vec(stream_piece(), 1..6)) {
        let dir = std::env::temp_dir().join(format!("kubeskema-streams-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("stream.yaml");
        let text = pieces.join("---\n");
        std::fs::write(&file, &text).unwrap();
        let mut read = Vec::new();
        // Read as the CLI reads it: a stream that starts with `{` is JSON.
        let stopped = kubeskema::yaml::parse_each(&text, kubeskema::yaml::looks_like_json(&text), &mut |doc| {
            if !doc.value.is_null() {
                read.push(doc.index);
            }
        });
        let report = validate(&[fixture("crds")], std::slice::from_ref(&file)).unwrap();
        let crds = fixture("crds");
        let status = validate_command(["--crd".as_ref(), crds.as_os_str(), file.as_os_str()]);
        let reported: Vec<usize> = report.documents.iter().map(|d| d.document).collect();
        match stopped {
            Ok(()) => {
                proptest::prop_assert_eq!(&reported, &read);
                proptest::prop_assert_eq!(report.counts.unreadable, 0);
            }
            Err(e) => {
                proptest::prop_assert_eq!(status, 2, "the reader stopped: {}", e);
                let file_error = report.files.iter().any(|f| f.pos == Some(e.pos) && f.detail.ends_with(&e.message));
                let last = report.documents.last();
                let unreadable = last.is_some_and(|d| d.verdict == kubeskema_codegen::__internal::manifests::Verdict::Unreadable && d.start == e.pos);
                proptest::prop_assert!(file_error || unreadable, "{}: {:?} {:?}", e, report.files, last);
                if unreadable {
                    proptest::prop_assert_eq!(&reported[..reported.len() - 1], &read[..]);
                }
            }
        }
    }
}
