//! `cargo kubeskema validate` for CI: updates through `--old` and `--old-ref`, the policy
//! flags, every core with the output in input order, and the SARIF and JUnit contracts.
//! The fixtures are in `fixtures/ci/`: a CRD with a transition rule and a rule that ratchets,
//! manifests and their old versions.

use std::path::{Path, PathBuf};

use clap::Parser;
use kubeskema_codegen::__internal::manifests::{OldObjects, Policy, Report, Request, Verdict, validate_request};
use kubeskema_codegen::__internal::native::Kubernetes;
use kubeskema_codegen::cli::{CargoCli, run};
use kubeskema_codegen::{Diagnostic, Severity};

fn fixture(rel: &str) -> PathBuf {
    kubeskema_tests::repo_dir().join("fixtures/ci").join(rel)
}

fn request(old: OldObjects, policy: Policy) -> Request {
    Request {
        crds: vec![fixture("crds")],
        manifests: vec![fixture("manifests")],
        old,
        policy,
        jobs: 1,
        // The Secret and ConfigMap stand for kinds without a schema.
        kubernetes: Kubernetes::None,
        ..Request::default()
    }
}

fn report(request: &Request) -> Report {
    validate_request(request).unwrap_or_else(|e| panic!("{e}"))
}

/// `(document, level, type, message)` of every finding.
fn findings(report: &Report) -> Vec<(usize, Severity, String, String)> {
    report
        .findings
        .iter()
        .map(|f| (f.document().unwrap(), f.severity, f.code.name().to_owned(), f.message.clone()))
        .collect()
}

fn of_document(report: &Report, document: usize) -> Vec<&Diagnostic> {
    report.findings.iter().filter(|f| f.document().unwrap() == document).collect()
}

/// The command line `cargo kubeskema validate ARGS...`, parsed as the binary parses it.
fn command(args: &[&str]) -> i32 {
    let line = ["cargo", "kubeskema", "validate"].iter().chain(args);
    let CargoCli::Kubeskema(args) = CargoCli::try_parse_from(line).unwrap_or_else(|e| panic!("{e}"));
    run(args)
}

fn path(p: &Path) -> &str {
    p.to_str().expect("fixture paths are UTF-8")
}

/// Through `--old`, `logs` (its region changed) is refused by the transition rule, and
/// `archive` (its quota over the limit, unchanged) gets the rule's failure as a warning;
/// validated as creates, neither happens that way: a transition rule does not run on create
/// and the quota is an error.
#[test]
fn old_objects_make_updates_with_transition_rules_and_ratcheting() {
    let update = report(&request(OldObjects::Files(vec![fixture("old")]), Policy::default()));
    let logs = of_document(&update, 0);
    assert_eq!(logs.len(), 1, "{logs:#?}");
    assert_eq!(logs[0].severity, Severity::Error);
    assert_eq!(logs[0].message, "spec.region: Invalid value: \"us-east-1\": region is immutable");
    let archive = of_document(&update, 1);
    assert_eq!(archive.len(), 1, "{archive:#?}");
    assert_eq!(archive[0].severity, Severity::Warning);
    assert_eq!(archive[0].message, "spec.quota: Invalid value: a quota is at most 100 GiB");
    assert!(archive[0].note.as_deref().is_some_and(|n| n.starts_with("ratcheted")), "{:?}", archive[0].note);
    let updates: Vec<bool> = update.documents.iter().map(|d| d.update).collect();
    assert_eq!(updates, [true, true, false, false, false], "media is new: a create");

    let create = report(&request(OldObjects::None, Policy::default()));
    assert!(of_document(&create, 0).is_empty(), "no transition rule on create");
    let archive = of_document(&create, 1);
    assert_eq!((archive.len(), archive[0].severity), (1, Severity::Error), "{archive:#?}");
}

/// An old object matches by apiVersion, kind, namespace and name: the same name in another
/// namespace is another object.
#[test]
fn old_objects_match_by_namespace_and_name() {
    let dir = temp_dir("old-namespace");
    let old = std::fs::read_to_string(fixture("old/buckets.yaml")).unwrap().replace("team-a", "team-b");
    std::fs::write(dir.join("old.yaml"), old).unwrap();
    let update = report(&request(OldObjects::Files(vec![dir.join("old.yaml")]), Policy::default()));
    assert!(update.documents.iter().all(|d| !d.update), "no old object in team-a");
    std::fs::remove_dir_all(dir).ok();
}

/// Runs git in `dir` (as a committer named kubeskema); it must succeed.
fn git_in(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=kubeskema", "-c", "user.email=kubeskema@example.invalid"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// `--old-ref` reads the manifests' files at a git revision: the same update as `--old`.
#[test]
fn old_ref_reads_the_files_at_a_git_revision() {
    let dir = temp_dir("old-ref");
    let git = |args: &[&str]| git_in(&dir, args);
    git(&["init", "-q"]);
    let manifest = dir.join("buckets.yaml");
    std::fs::copy(fixture("old/buckets.yaml"), &manifest).unwrap();
    git(&["add", "buckets.yaml"]);
    git(&["commit", "-q", "-m", "old"]);
    std::fs::copy(fixture("manifests/buckets.yaml"), &manifest).unwrap();
    // A file the revision does not have holds no old objects: its documents are creates (in
    // another namespace: objects are matched wherever they are, so the same ones would be
    // updates).
    let elsewhere = std::fs::read_to_string(fixture("manifests/buckets.yaml")).unwrap().replace("team-a", "team-z");
    std::fs::write(dir.join("new.yaml"), elsewhere).unwrap();

    let at_head = Request {
        manifests: vec![manifest.clone(), dir.join("new.yaml")],
        old: OldObjects::GitRef("HEAD".into()),
        ..request(OldObjects::None, Policy::default())
    };
    let update = report(&at_head);
    let from_files = report(&request(OldObjects::Files(vec![fixture("old")]), Policy::default()));
    let first_file =
        |r: &Report| findings(r).into_iter().filter(|f| f.0 < 5).take(from_files.findings.len()).collect::<Vec<_>>();
    assert_eq!(first_file(&update), findings(&from_files));
    let updates: Vec<bool> = update.documents.iter().map(|d| d.update).collect();
    assert_eq!(updates, [true, true, false, false, false, false, false, false, false, false]);

    let crds = fixture("crds");
    assert_eq!(command(&["--crd", path(&crds), "--old-ref", "no-such-branch", path(&manifest)]), 2, "an unknown ref");
    std::fs::remove_dir_all(dir).ok();
}

/// A file name git's batch protocol cannot carry unchanged (a trailing CR, which git trims
/// from the request line; other control bytes) gets its own old version, not another file's:
/// here `same\r` did not exist at the revision, while `same` did, with the old objects. Outside
/// a git repository, the error says so.
#[test]
fn old_ref_reads_each_odd_file_name_as_itself() {
    let dir = temp_dir("old-ref-odd");
    let git = |args: &[&str]| git_in(&dir, args);
    git(&["init", "-q"]);
    std::fs::copy(fixture("old/buckets.yaml"), dir.join("same")).unwrap();
    git(&["add", "same"]);
    git(&["commit", "-q", "-m", "old"]);
    for odd in ["same\r", "same\u{1b}"] {
        let manifest = dir.join(odd);
        std::fs::copy(fixture("manifests/buckets.yaml"), &manifest).unwrap();
        let at_head = Request {
            manifests: vec![manifest.clone()],
            old: OldObjects::GitRef("HEAD".into()),
            ..request(OldObjects::None, Policy::default())
        };
        let updates: Vec<bool> = report(&at_head).documents.iter().map(|d| d.update).collect();
        assert!(updates.iter().all(|u| !u), "{odd:?} read another file's old version: {updates:?}");
        std::fs::remove_file(&manifest).unwrap();
    }
    let outside = temp_dir("old-ref-outside");
    let problem = kubeskema_codegen::__internal::load::git_revision_problem("HEAD", &outside.join("x.yaml"));
    // A temp folder inside a repository (unusual) is not what this checks.
    if let Some(problem) = problem.filter(|_| !std::path::Path::new("/tmp/.git").exists()) {
        assert!(problem.contains("not in a git repository"), "{problem}");
    }
    std::fs::remove_dir_all(dir).ok();
    std::fs::remove_dir_all(outside).ok();
}

#[test]
fn strict_makes_unknown_and_duplicate_fields_errors() {
    let dir = temp_dir("strict");
    let manifest = dir.join("bucket.yaml");
    std::fs::write(
        &manifest,
        "apiVersion: storage.example.com/v1\nkind: Bucket\nmetadata:\n  name: b\nspec:\n  region: eu\n  region: us\n  typo: 1\n",
    )
    .unwrap();
    let run = |strict| {
        report(&Request {
            manifests: vec![manifest.clone()],
            ..request(OldObjects::None, Policy { strict, ..Policy::default() })
        })
    };
    let levels = |r: &Report| r.findings.iter().map(|f| (f.code.name().to_owned(), f.severity)).collect::<Vec<_>>();
    assert_eq!(
        levels(&run(false)),
        [("DuplicateField".into(), Severity::Warning), ("UnknownField".into(), Severity::Warning)]
    );
    assert_eq!(
        levels(&run(true)),
        [("DuplicateField".into(), Severity::Error), ("UnknownField".into(), Severity::Error)]
    );
    let messages = |r: &Report| r.findings.iter().map(|f| f.message.clone()).collect::<Vec<_>>();
    assert_eq!(messages(&run(false)), ["duplicate field \"spec.region\"", "unknown field \"spec.typo\""]);
    assert_eq!(
        messages(&run(true)),
        [
            "strict decoding error: duplicate field \"spec.region\"",
            "strict decoding error: unknown field \"spec.typo\""
        ]
    );
    let crds = fixture("crds");
    assert_eq!(command(&["--crd", path(&crds), path(&manifest)]), 0, "warnings only");
    assert_eq!(command(&["--crd", path(&crds), "--strict", path(&manifest)]), 1);
    assert_eq!(command(&["--crd", path(&crds), "--deny-warnings", path(&manifest)]), 1, "warnings fail the run");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn kinds_can_be_skipped_rejected_or_allowed_without_a_schema() {
    let policy = |policy| report(&request(OldObjects::None, policy));
    let verdicts = |r: &Report| r.documents.iter().map(|d| d.verdict).collect::<Vec<_>>();
    let types =
        |r: &Report| r.findings.iter().map(|f| (f.document().unwrap(), f.code.name().to_owned())).collect::<Vec<_>>();
    use Verdict::{Invalid, Skipped, Valid};

    let plain = policy(Policy::default());
    assert_eq!(verdicts(&plain), [Valid, Invalid, Valid, Invalid, Invalid]);
    assert_eq!(types(&plain)[2..], [(3, "NoSchema".into()), (4, "NoSchema".into())]);

    // `Kind` and `apiVersion/Kind` both name a kind; comma-separated on the command line.
    let skipped = policy(Policy { skip_kinds: vec!["Secret".into(), "v1/ConfigMap".into()], ..Policy::default() });
    assert_eq!(verdicts(&skipped), [Valid, Invalid, Valid, Skipped, Skipped]);
    assert_eq!(skipped.documents[3].skipped_because.as_deref(), Some("Secret is skipped (--skip-kinds)"));
    assert!(types(&skipped).iter().all(|(_, t)| t != "NoSchema"));
    let not_this_version = policy(Policy { skip_kinds: vec!["apps/v1/ConfigMap".into()], ..Policy::default() });
    assert_eq!(verdicts(&not_this_version)[4], Invalid);

    let rejected = policy(Policy { reject_kinds: vec!["Secret".into()], ..Policy::default() });
    let secret = of_document(&rejected, 3);
    assert_eq!(secret.len(), 1);
    assert_eq!(secret[0].code.name(), "RejectedKind");
    assert_eq!(secret[0].pos.map(|p| (p.line, p.column)), Some((35, 1)), "at the kind");

    let allowed = policy(Policy { ignore_missing_schemas: true, ..Policy::default() });
    assert_eq!(verdicts(&allowed), [Valid, Invalid, Valid, Skipped, Skipped]);

    let (crds, manifests) = (fixture("crds"), fixture("manifests"));
    let status = |flags: &[&str]| command(&[&["--crd", path(&crds)], flags, &[path(&manifests)]].concat());
    assert_eq!(status(&["--skip-kinds", "Secret,ConfigMap"]), 1, "archive's quota is still an error");
    assert_eq!(status(&["--skip-kinds", "Secret,ConfigMap", "--skip-kinds", "Bucket"]), 0);
    assert_eq!(status(&["--ignore-missing-schemas", "--skip-kinds", "Bucket"]), 0);
    assert_eq!(status(&["--ignore-missing-schemas", "--reject-kinds", "Secret", "--skip-kinds", "Bucket"]), 1);
}

/// A native kind validates against the OpenAPI v3 document given with `--schemas` (its
/// `$ref`s inlined, int-or-string and quantity accepted in both spellings), and is `NoSchema`
/// without it; the first finding about a native kind says once that its hand-written checks
/// are not run.
#[test]
fn native_kinds_validate_against_openapi_documents() {
    let with = |schemas: Vec<PathBuf>| {
        report(&Request {
            crds: vec![fixture("crds")],
            schemas,
            manifests: vec![fixture("native/deployment.yaml")],
            jobs: 1,
            kubernetes: Kubernetes::None,
            ..Request::default()
        })
    };
    let found = with(vec![fixture("schemas")]);
    let lines: Vec<String> = found
        .findings
        .iter()
        .map(|f| {
            format!(
                "{}:{} {:?} {} {}",
                f.pos.unwrap().line,
                f.pos.unwrap().column,
                f.severity,
                f.code.name(),
                f.message
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            "23:11 Warning UnknownField unknown field \"spec.template.spec.containers[0].imagePullPolcy\"",
            "10:3 Error FieldValueTypeInvalid spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"",
        ]
    );
    assert_eq!(found.findings[0].note.as_deref(), Some(kubeskema_codegen::__internal::manifests::NATIVE_KINDS_NOTE));
    assert_eq!(found.findings[1].note, None, "once per run");
    assert_eq!(found.findings[0].help.as_deref(), Some("did you mean `imagePullPolicy`?"), "one edit from a field");
    assert!(found.documents[0].native);

    // The core group's apiVersion is the version alone (`v1`).
    let core = report(&Request { schemas: vec![fixture("schemas")], ..request(OldObjects::None, Policy::default()) });
    let verdicts: Vec<(&str, Verdict)> = core.documents.iter().map(|d| (d.kind.as_str(), d.verdict)).collect();
    assert_eq!(verdicts[3..], [("Secret", Verdict::Invalid), ("ConfigMap", Verdict::Valid)]);

    // Native kinds alone need no CRD.
    let schemas = fixture("schemas");
    let deployment = fixture("native/deployment.yaml");
    assert_eq!(command(&["--schemas", path(&schemas), path(&deployment)]), 1);
    assert_eq!(command(&["--schemas", path(&schemas), "--skip-kinds", "Deployment", path(&deployment)]), 0);
    assert_eq!(command(&["--kubernetes-version", "none", "--ignore-missing-schemas", path(&deployment)]), 0);

    let without = with(Vec::new());
    let types: Vec<&str> = without.findings.iter().map(|f| f.code.name()).collect();
    assert_eq!(types, ["NoSchema"]);

    // A document that is not OpenAPI stops the run, as a refused CRD does, naming the file.
    let err = validate_request(&Request {
        crds: vec![fixture("crds")],
        schemas: vec![fixture("crds/buckets.yaml")],
        manifests: vec![fixture("native")],
        ..Request::default()
    })
    .expect_err("not OpenAPI")
    .to_string();
    assert!(err.contains("buckets.yaml:3:1") && err.contains("not an OpenAPI v3 document"), "{err}");
}

/// With no flag, native kinds are validated against the Kubernetes 1.36 schemas the binary
/// carries, each kind's `metadata.name` held to its own rule and `[]byte` read as Go reads
/// it; a kind 1.36 does not serve says how to give another release's.
#[test]
fn native_kinds_are_validated_with_no_flag_against_kubernetes_1_36() {
    let kinds = fixture("native/kinds.yaml");
    let found = report(&Request { manifests: vec![kinds.clone()], jobs: 1, ..Request::default() });
    let verdicts: Vec<(&str, Verdict)> = found.documents.iter().map(|d| (d.kind.as_str(), d.verdict)).collect();
    use Verdict::{Invalid, Valid};
    assert_eq!(
        verdicts,
        [
            ("Service", Invalid),
            ("ClusterRole", Valid),
            ("CertificateSigningRequest", Valid),
            ("Namespace", Valid),
            ("Secret", Invalid),
            ("ConfigMap", Invalid),
            ("Role", Invalid),
            ("PodSecurityPolicy", Invalid),
        ]
    );
    assert!(found.documents.iter().take(7).all(|d| d.native));
    let fields: Vec<(&str, &str)> = found.findings.iter().map(|f| (f.code.name(), f.field.as_str())).collect();
    assert_eq!(
        fields,
        [
            ("FieldValueInvalid", "metadata.name"),
            ("FieldValueInvalid", "data.ca.key"),
            ("FieldValueInvalid", "data.tls.key"),
            ("FieldValueTypeInvalid", "data.replicas"),
            ("FieldValueInvalid", "metadata"),
            ("NoSchema", ""),
        ]
    );
    assert!(found.findings[0].message.contains("a DNS-1035 label"), "{}", found.findings[0].message);
    let labels = &found.findings[4].message;
    assert!(
        labels.ends_with("cannot unmarshal number into Go struct field ObjectMeta.labels of type string"),
        "{labels}"
    );
    let help = found.findings[5].help.as_deref().unwrap_or_default();
    assert!(help.contains("--kubernetes-version") && help.contains("--ignore-missing-schemas"), "{help}");

    // The CLI: no flag needed; `none` turns the built-in schemas off; a document given with
    // `--schemas` wins over them (its Deployment excerpt still finds the same two problems).
    let deployment = fixture("native/deployment.yaml");
    assert_eq!(command(&[path(&deployment)]), 1);
    assert_eq!(command(&["--skip-kinds", "Deployment", path(&deployment)]), 0);
    let with_schemas = report(&Request {
        schemas: vec![fixture("schemas")],
        manifests: vec![deployment.clone()],
        jobs: 1,
        ..Request::default()
    });
    let builtin = report(&Request { manifests: vec![deployment.clone()], jobs: 1, ..Request::default() });
    let codes = |r: &Report| r.findings.iter().map(|f| (f.code.name(), f.field.clone())).collect::<Vec<_>>();
    assert_eq!(codes(&with_schemas), codes(&builtin));

    // Another release's published spec folder, in place of the built-in one.
    let folder = report(&Request {
        manifests: vec![deployment],
        kubernetes: Kubernetes::Spec(fixture("schemas")),
        jobs: 1,
        ..Request::default()
    });
    assert_eq!(codes(&folder), codes(&builtin));
    let parsed = CargoCli::try_parse_from(["cargo", "kubeskema", "validate", "--kubernetes-version", "1.35", "x.yaml"]);
    let refused = parsed.expect_err("1.35 is not carried").to_string();
    assert!(refused.contains("api/openapi-spec/v3"), "{refused}");
    for carried in ["1.36", "v1.36", "1.36.3"] {
        let line = ["cargo", "kubeskema", "validate", "--kubernetes-version", carried, "x.yaml"];
        assert!(CargoCli::try_parse_from(line).is_ok(), "{carried}");
    }
}

/// Every document validated on four threads gives the findings one thread gives, in the same
/// order (the corpus's own manifests, when it is there, make the run long enough to interleave).
#[test]
fn every_core_gives_the_same_report_in_input_order() {
    let corpus = kubeskema_tests::corpus_dir();
    let (crds, manifests) = if corpus.join("instances").is_dir() {
        (vec![corpus.join("crds/cert-manager__cert-manager")], vec![corpus.join("instances")])
    } else {
        (vec![fixture("crds")], vec![fixture("manifests"), fixture("old")])
    };
    let run = |jobs| report(&Request { crds: crds.clone(), manifests: manifests.clone(), jobs, ..Request::default() });
    let (one, four) = (run(1), run(4));
    assert_eq!(four.jobs, 4);
    assert!(one.documents.len() > 4, "{} documents", one.documents.len());
    assert_eq!(one.documents, four.documents);
    assert_eq!(one.findings, four.findings);
    let summary = kubeskema_codegen::__internal::report::summary(&four);
    assert!(
        summary.starts_with(&format!("summary: {} files, {} documents: ", four.files_read, four.documents.len())),
        "{summary}"
    );
    assert!(summary.ends_with("on 4 threads)"), "{summary}");
}

/// The SARIF log has what SARIF 2.1.0 requires and GitHub code scanning reads: the version,
/// one run with its tool's driver and rules, and results with a rule id in the rules, a level,
/// a message and a physical location (a relative URI, line and column).
#[test]
fn sarif_output_has_sarif_2_1_0_structure() {
    let manifest = PathBuf::from("fixtures/ci/manifests/buckets.yaml");
    let mut request = request(OldObjects::Files(vec![fixture("old")]), Policy::default());
    request.manifests = vec![kubeskema_tests::repo_dir().join(&manifest)];
    let mut report = report(&request);
    // As the CLI prints it when run from the repository's root.
    report.findings.iter_mut().for_each(|f| f.file = manifest.clone());
    let log = kubeskema_codegen::__internal::report::sarif(&report);
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"].as_str().is_some_and(|s| s.contains("sarif-2.1.0")));
    let runs = log["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "kubeskema");
    let rules: Vec<&str> = driver["rules"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(rules, ["FieldValueInvalid", "NoSchema", "UnknownField"]);
    assert!(driver["rules"].as_array().unwrap().iter().all(|r| r["shortDescription"]["text"].is_string()));
    let results = runs[0]["results"].as_array().expect("results");
    assert_eq!(results.len(), report.findings.len());
    for (result, finding) in results.iter().zip(&report.findings) {
        let rule = result["ruleId"].as_str().unwrap();
        assert_eq!(rules[result["ruleIndex"].as_u64().unwrap() as usize], rule);
        assert_eq!(rule, finding.code.name());
        assert!(matches!(result["level"].as_str(), Some("error" | "warning")));
        assert!(result["message"]["text"].as_str().unwrap().starts_with(&finding.message));
        let physical = &result["locations"][0]["physicalLocation"];
        assert_eq!(physical["artifactLocation"]["uri"], "fixtures/ci/manifests/buckets.yaml");
        assert_eq!(physical["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        let pos = finding.pos.unwrap();
        assert_eq!(physical["region"]["startLine"], pos.line);
        assert_eq!(physical["region"]["startColumn"], pos.column);
    }
    assert_eq!(results[0]["properties"]["field"], "spec.region");
    assert_eq!(sarif_shape_problems(&log), Vec::<String>::new());
}

/// An OpenAPI schema cut short (references that fan out past the inlining bound) passes what
/// lies below the cut: each document validated against it carries that as a finding, the
/// document's warning is in the report, and `--summary` says what was and was not read.
#[test]
fn a_schema_cut_short_is_a_finding_and_the_summary_counts_unreadable_files() {
    let dir = temp_dir("cut");
    let mut components = serde_json::Map::new();
    for i in 0..40 {
        let next = serde_json::json!({"$ref": format!("#/components/schemas/T{}", i + 1)});
        components.insert(format!("T{i}"), serde_json::json!({"type": "object", "properties": {"a": next, "b": next}}));
    }
    components.insert("T40".into(), serde_json::json!({"type": "string"}));
    components.get_mut("T0").unwrap()["x-kubernetes-group-version-kind"] =
        serde_json::json!([{"group": "example.com", "version": "v1", "kind": "Fan"}]);
    let openapi = serde_json::json!({"openapi": "3.0.0", "components": {"schemas": components}});
    std::fs::write(dir.join("fan.json"), openapi.to_string()).unwrap();
    std::fs::write(dir.join("fan.yaml"), "apiVersion: example.com/v1\nkind: Fan\nmetadata: {name: f}\na: {a: {}}\n")
        .unwrap();
    std::fs::write(dir.join("broken.yaml"), "a: [").unwrap();
    let found = report(&Request {
        schemas: vec![dir.join("fan.json")],
        manifests: vec![dir.join("fan.yaml"), dir.join("broken.yaml")],
        jobs: 1,
        ..Request::default()
    });
    let cut: Vec<&Diagnostic> = found.findings.iter().filter(|f| f.code.name() == "SchemaTooLarge").collect();
    assert_eq!(cut.len(), 1, "{:#?}", found.findings);
    assert_eq!(cut[0].severity, Severity::Warning);
    assert!(cut[0].message.contains("values below the cut were not checked"), "{}", cut[0].message);
    assert!(found.files.iter().any(|d| d.code.name() == "SchemaTooLarge"), "{:?}", found.files);
    let summary = kubeskema_codegen::__internal::report::summary(&found);
    assert!(summary.starts_with("summary: 2 files (1 could not be read), 1 document"), "{summary}");
    let nothing = report(&Request {
        crds: vec![fixture("crds")],
        manifests: vec![dir.join("broken.yaml")],
        jobs: 1,
        ..Request::default()
    });
    let summary = kubeskema_codegen::__internal::report::summary(&nothing);
    assert!(summary.contains("nothing was validated"), "{summary}");
}

/// Input past the limits is refused before it is read, naming the file and the limit, with
/// exit 2: a file larger than `--max-file-size`, and the files that take a run past
/// `--max-input-size` (sizes taken in file order, so which is refused does not depend on
/// threads).
#[test]
fn input_past_the_limits_is_refused_naming_the_file_and_the_limit() {
    let dir = temp_dir("limits");
    // Larger than any CRD file, so that a per-file limit below it refuses the manifests alone.
    let manifest =
        format!("# {}\n{}", "x".repeat(20_000), std::fs::read_to_string(fixture("manifests/buckets.yaml")).unwrap());
    let size = manifest.len() as u64;
    for name in ["a.yaml", "b.yaml", "c.yaml"] {
        std::fs::write(dir.join(name), &manifest).unwrap();
    }
    let files: Vec<PathBuf> = ["a.yaml", "b.yaml", "c.yaml"].iter().map(|n| dir.join(n)).collect();
    let crds_size: u64 =
        std::fs::read_dir(fixture("crds")).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
    let with = |per_file: u64, per_run: u64| {
        report(&Request {
            manifests: files.clone(),
            limits: kubeskema_codegen::__internal::manifests::Limits { per_file, per_run },
            jobs: 4,
            ..request(OldObjects::None, Policy::default())
        })
    };
    let refused = |r: &Report| -> Vec<String> {
        r.files
            .iter()
            .filter(|d| d.code.name() == "TooLarge")
            .map(|d| format!("{} {}", d.file.file_name().unwrap().to_string_lossy(), d.message))
            .collect()
    };
    let all = with(u64::MAX, u64::MAX);
    assert!(refused(&all).is_empty());
    // Each file is too large.
    let small = with(size - 1, u64::MAX);
    let problems = refused(&small);
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(
        problems[0].starts_with("a.yaml the file is") && problems[0].contains("more than a file may be"),
        "{problems:?}"
    );
    assert!(small.documents.is_empty());
    // The run takes the CRDs and two manifests; the third is refused, whatever the threads.
    let run = with(u64::MAX, crds_size + 2 * size);
    let problems = refused(&run);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("c.yaml reading it takes the run's input to"), "{problems:?}");
    let crds = fixture("crds");
    let a = dir.join("a.yaml");
    assert_eq!(command(&["--crd", path(&crds), "--max-file-size", "1K", path(&a)]), 2, "exit 2");
    assert_eq!(command(&["--crd", path(&crds), "--max-file-size", "64M", path(&a)]), 1, "the findings");
}

/// What a SARIF 2.1.0 log must hold for GitHub's upload, as the problems found in `log`: the
/// version and schema, one run whose driver has a name and rules, results whose rule is in
/// the rules (by id and index), with a level, a message, and a location with an artifact URI
/// (relative ones on a base the run names; no scheme but `file`) and a region from line 1.
fn sarif_shape_problems(log: &serde_json::Value) -> Vec<String> {
    let mut problems = Vec::new();
    let mut need = |ok: bool, what: String| {
        if !ok {
            problems.push(what);
        }
    };
    need(log["version"] == "2.1.0", "version".into());
    need(log["$schema"].as_str().is_some_and(|s| s.contains("sarif-2.1.0")), "$schema".into());
    let Some([run]) = log["runs"].as_array().map(Vec::as_slice) else {
        return vec!["one run".into()];
    };
    need(run["tool"]["driver"]["name"].is_string(), "driver name".into());
    let rules: Vec<&str> =
        run["tool"]["driver"]["rules"].as_array().into_iter().flatten().filter_map(|r| r["id"].as_str()).collect();
    let bases = &run["originalUriBaseIds"];
    for (i, result) in run["results"].as_array().into_iter().flatten().enumerate() {
        let rule = result["ruleId"].as_str().unwrap_or_default();
        need(rules.contains(&rule), format!("result {i}: rule {rule} not in the rules"));
        let index = result["ruleIndex"].as_u64().map(|n| n as usize);
        need(index.and_then(|n| rules.get(n)) == Some(&rule), format!("result {i}: ruleIndex"));
        need(
            matches!(result["level"].as_str(), Some("error" | "warning" | "note" | "none")),
            format!("result {i}: level"),
        );
        need(result["message"]["text"].as_str().is_some_and(|t| !t.is_empty()), format!("result {i}: message"));
        let physical = &result["locations"][0]["physicalLocation"];
        let uri = physical["artifactLocation"]["uri"].as_str().unwrap_or_default();
        let scheme = uri.split_once(':').map(|(s, _)| s).filter(|s| !s.contains('/'));
        need(!uri.is_empty() && uri.bytes().all(|b| b.is_ascii_graphic()), format!("result {i}: uri {uri:?}"));
        need(scheme.is_none_or(|s| s == "file"), format!("result {i}: uri {uri:?} has a scheme"));
        if let Some(base) = physical["artifactLocation"]["uriBaseId"].as_str() {
            need(
                bases[base]["uri"].as_str().is_some_and(|u| u.starts_with("file:///") && u.ends_with('/')),
                format!("result {i}: base {base}"),
            );
        } else {
            need(scheme == Some("file"), format!("result {i}: a relative uri without a base"));
        }
        need(physical["region"]["startLine"].as_u64().is_some_and(|l| l >= 1), format!("result {i}: region"));
    }
    problems
}

/// A run that cannot start (a `--crd` path that does not exist, a CRD the apiserver refuses:
/// exit 2) still writes a SARIF log of SARIF 2.1.0's shape, its problems as results with a
/// region, and a JUnit document with them as errors: what the CLI prints for `--output sarif`
/// and `--output junit` then.
#[test]
fn ci_documents_are_written_when_the_run_cannot_start() {
    let dir = temp_dir("exit2");
    let refused = dir.join("refused.yaml");
    std::fs::write(
        &refused,
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: ws.example.com}\nspec:\n  group: example.com\n  names: {kind: W, plural: ws}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {type: strin}}\n",
    )
    .unwrap();
    for crds in [vec![dir.join("missing")], vec![refused]] {
        let request =
            Request { crds: crds.clone(), manifests: vec![fixture("manifests")], jobs: 1, ..Request::default() };
        let Err(diags) = validate_request(&request) else { panic!("{crds:?}: the run starts") };
        let report = Report { files: diags.0, ..Report::default() };
        let log = kubeskema_codegen::__internal::report::sarif(&report);
        let problems = sarif_shape_problems(&log);
        assert!(problems.is_empty(), "{crds:?}: {problems:?}\n{log:#}");
        assert!(!log["runs"][0]["results"].as_array().unwrap().is_empty(), "{crds:?}: the problems are results");
        let xml = kubeskema_codegen::__internal::report::junit(&report);
        let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
        assert!(doc.descendants().any(|n| n.has_tag_name("error")), "{xml}");
    }
}

/// The JUnit report parses as XML: a suite per file, a case per document (failed with its
/// errors, skipped, or passed), the counts adding up, and text that needs escaping escaped.
#[test]
fn junit_output_parses_back() {
    let dir = temp_dir("junit");
    let odd = dir.join("odd.yaml");
    std::fs::write(&odd, "apiVersion: v1\nkind: Odd\nmetadata:\n  name: \"<a & 'b'>\\u0001\"\n").unwrap();
    let mut request = request(
        OldObjects::Files(vec![fixture("old")]),
        Policy { skip_kinds: vec!["ConfigMap".into()], ..Policy::default() },
    );
    request.manifests.push(odd.clone());
    request.manifests.push(dir.join("missing.yaml"));
    let report = report(&request);
    let xml = kubeskema_codegen::__internal::report::junit(&report);
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let attr = |node: roxmltree::Node, name| {
        node.attribute(name).unwrap_or_else(|| panic!("no {name}")).parse::<usize>().unwrap()
    };
    let suites: Vec<_> = root.children().filter(|n| n.has_tag_name("testsuite")).collect();
    assert_eq!(suites.len(), 3, "two files and the unreadable one");
    assert_eq!(suites[0].attribute("name").unwrap(), fixture("manifests/buckets.yaml").display().to_string());
    let cases: Vec<_> = suites[0].children().filter(|n| n.has_tag_name("testcase")).collect();
    assert_eq!(cases.len(), 5);
    let outcome = |case: &roxmltree::Node| {
        let child = case.children().find(|n| n.is_element() && !n.has_tag_name("system-out"));
        child.map_or("passed".to_owned(), |c| c.tag_name().name().to_owned())
    };
    let outcomes: Vec<String> = cases.iter().map(outcome).collect();
    assert_eq!(outcomes, ["failure", "passed", "passed", "failure", "skipped"]);
    let failure = cases[0].children().find(|n| n.has_tag_name("failure")).unwrap();
    assert_eq!(failure.attribute("type"), Some("FieldValueInvalid"));
    assert_eq!(failure.attribute("message"), Some("spec.region: Invalid value: \"us-east-1\": region is immutable"));
    let warned = cases[1].children().find(|n| n.has_tag_name("system-out")).unwrap();
    assert!(warned.text().unwrap().contains("a quota is at most 100 GiB"));
    assert_eq!(cases[2].attribute("name"), Some("storage.example.com/v1 Bucket/media (document 2)"));
    assert_eq!((attr(suites[0], "tests"), attr(suites[0], "failures"), attr(suites[0], "skipped")), (5, 2, 1));
    let odd_case = suites[1].children().find(|n| n.has_tag_name("testcase")).unwrap();
    assert_eq!(
        odd_case.attribute("name"),
        Some("v1 Odd/<a & 'b'>\\x01 (document 0)"),
        "a control character shows as its escape"
    );
    let error = suites[2].children().find(|n| n.has_tag_name("testcase")).unwrap().first_element_child().unwrap();
    assert_eq!(error.tag_name().name(), "error");
    assert_eq!(
        (attr(root, "tests"), attr(root, "failures"), attr(root, "errors"), attr(root, "skipped")),
        (7, 3, 1, 1)
    );
    std::fs::remove_dir_all(dir).ok();
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kubeskema-ci-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Documents are parsed one at a time as threads take them, and the report keeps input order:
/// many files of many documents (valid, invalid, empty, of no known kind, and a file that does
/// not parse) give the same findings and documents, in the same order, on one thread and on
/// four.
#[test]
fn documents_stream_through_threads_in_input_order() {
    let dir = temp_dir("stream");
    let buckets = std::fs::read_to_string(fixture("manifests/buckets.yaml")).unwrap();
    let mut files = Vec::new();
    for i in 0..12 {
        let file = dir.join(format!("m{i:02}.yaml"));
        let text = match i {
            5 => "a: [1, 2\n".to_owned(),
            // Some buckets broken (a tier out of its enum), empty documents, and `{}`.
            _ => format!(
                "{}\n---\n---\n{{}}\n",
                vec![buckets.as_str(); 1 + i % 3].join("---\n").replace("tier: Hot", &format!("tier: T{i}"))
            ),
        };
        std::fs::write(&file, text).unwrap();
        files.push(file);
    }
    let with =
        |jobs| report(&Request { manifests: files.clone(), jobs, ..request(OldObjects::None, Policy::default()) });
    let shown = |r: &Report| -> (Vec<String>, Vec<String>) {
        let findings = r
            .findings
            .iter()
            .map(|f| format!("{} {} {:?} {}", f.file.display(), f.document().unwrap(), f.pos, f.message));
        let documents = r.documents.iter().map(|d| format!("{} {} {:?}", d.file.display(), d.document, d.verdict));
        (findings.collect(), documents.collect())
    };
    let one = with(1);
    let (findings, documents) = shown(&one);
    assert!(documents.len() > 60, "{documents:?}");
    assert!(findings.len() > 60, "{findings:?}");
    assert_eq!(one.files.iter().filter(|d| d.code.name() == "YamlSyntax").count(), 1, "{:?}", one.files);
    let mut sorted = documents.clone();
    sorted.sort_by_key(|line| {
        let mut parts = line.split(' ');
        (parts.next().unwrap().to_owned(), parts.next().unwrap().parse::<usize>().unwrap())
    });
    assert_eq!(documents, sorted, "input order");
    assert_eq!(shown(&with(4)), (findings.clone(), documents.clone()));
    // Handed on as they are done, in the same order, and not kept; the counts agree.
    let mut streamed = Report::default();
    let request = Request { manifests: files.clone(), jobs: 4, ..request(OldObjects::None, Policy::default()) };
    let counted = kubeskema_codegen::__internal::manifests::validate_each(&request, &|_, _| {}, &mut |validated| {
        streamed.findings.extend(validated.findings);
        streamed.documents.push(validated.checked);
    })
    .unwrap();
    assert!(counted.findings.is_empty() && counted.documents.is_empty());
    assert_eq!(shown(&streamed), (findings, documents));
    assert_eq!(counted.counts, one.counts);
    let errors = one.findings.iter().filter(|f| f.severity == Severity::Error).count();
    assert_eq!((one.counts.errors, one.counts.warnings), (errors, one.findings.len() - errors));
    assert_eq!(one.counts.documents(), one.documents.len());
}

/// A repository's folder holds files that are not objects: its kustomizations and Helm charts
/// are not read (the summary counts them), `--exclude` leaves out what it matches, and a file
/// named on the command line is read whatever it is (issue 50).
#[test]
fn a_repository_folder_reads_only_its_objects() {
    let repo = fixture("repo");
    let run = |exclude: &[&str], manifests: Vec<PathBuf>| {
        report(&Request {
            crds: vec![fixture("crds")],
            manifests,
            exclude: exclude.iter().map(|s| s.to_string()).collect(),
            jobs: 1,
            ..Request::default()
        })
    };
    let excluded = run(&["legacy"], vec![repo.clone()]);
    assert_eq!((excluded.files_read, excluded.counts.valid, excluded.counts.errors), (1, 1, 0));
    let mut skipped: Vec<String> = excluded
        .not_objects
        .iter()
        .map(|(p, _)| p.strip_prefix(&repo).unwrap().to_string_lossy().replace('\\', "/"))
        .collect();
    skipped.sort();
    assert_eq!(
        skipped,
        [
            "base/kustomization.yaml",
            "charts/web/Chart.yaml",
            "charts/web/templates/bucket.yaml",
            "charts/web/values.yaml"
        ]
    );
    let summary = kubeskema_codegen::__internal::report::summary(&excluded);
    assert!(
        summary.contains("1 file not read: a kustomization (validate what `kustomize build` renders)"),
        "{summary}"
    );
    assert!(summary.contains("3 files not read: in a Helm chart"), "{summary}");

    let by_name = run(&["*.tmpl.yaml"], vec![repo.clone()]);
    assert_eq!(by_name.files_read, 1);
    let whole_path = run(&["legacy/**"], vec![repo.clone()]);
    assert_eq!(whole_path.files_read, 2, "a pattern with `/` matches the whole path, not its end");
    let everything = run(&[], vec![repo.clone()]);
    assert_eq!((everything.files_read, everything.counts.invalid), (2, 1), "the legacy bucket is read and invalid");
    let named = run(&[], vec![repo.join("base/kustomization.yaml")]);
    assert_eq!((named.files_read, named.not_objects.len()), (1, 0), "a named file is read");
}
