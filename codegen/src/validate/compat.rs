//! `cargo kubeskema compat OLD NEW`: what a CRD change does to the objects stored under it
//! (`kubeskema::crd::compat`), each change placed at its line in NEW (OLD for what NEW removed),
//! with its witness, under a policy that says which classes fail the run.

use std::path::{Path, PathBuf};

use kubeskema::crd::compat::{Change, Class, Options, Report, compat};
use serde_json::{Value, json};

use crate::diagnostic::{Code, Diagnostic, Severity, Subject};
use crate::load::{InputLimits, LoadedCrd};

/// Where OLD comes from.
#[derive(Clone, Debug)]
pub enum Old {
    /// Files and folders.
    Files(Vec<PathBuf>),
    /// NEW's files at a git revision.
    GitRef(String),
}

/// Which changes fail the run.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// Classes reported as warnings instead of errors.
    pub allow: Vec<Class>,
    /// Changes acknowledged by `CRD`, `CRD/VERSION` or `CRD/VERSION/FIELD` (a deliberate
    /// break): reported as warnings.
    pub acknowledge: Vec<String>,
}

impl Policy {
    /// Classes that fail a run unless allowed: everything but `compatible`, `cel-cost` and
    /// `needs-migration` (which ask for work, and say what).
    fn fails(&self, class: Class) -> bool {
        class >= Class::Tightens && !self.allow.contains(&class)
    }

    fn acknowledged(&self, change: &Change) -> bool {
        let version = change.version.as_deref().unwrap_or("");
        let ids = [
            change.crd.clone(),
            format!("{}/{version}", change.crd),
            format!("{}/{version}/{}", change.crd, change.place.field.trim_start_matches('.')),
        ];
        self.acknowledge.iter().any(|a| ids.contains(&a.trim_start_matches('/').replace("/.", "/")))
    }

    /// A policy file: YAML or JSON `{allow: [class...], acknowledge: [id...]}`.
    pub fn read(path: &Path) -> Result<Policy, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut docs = Vec::new();
        kubeskema::yaml::parse_each(&text, crate::load::reads_as_json(path, &text), &mut |d| docs.push(d.value))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let doc = docs.into_iter().next().unwrap_or(Value::Null);
        let strings = |key: &str| -> Result<Vec<String>, String> {
            match doc.get(key) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| {
                        i.as_str()
                            .map(str::to_owned)
                            .ok_or_else(|| format!("{}: `{key}` holds strings", path.display()))
                    })
                    .collect(),
                Some(_) => Err(format!("{}: `{key}` is a list of strings", path.display())),
            }
        };
        if let Some(other) = doc.as_object().and_then(|m| m.keys().find(|k| *k != "allow" && *k != "acknowledge")) {
            return Err(format!("{}: unknown key `{other}` (a policy has `allow` and `acknowledge`)", path.display()));
        }
        let allow = strings("allow")?
            .iter()
            .map(|name| Class::from_name(name).ok_or_else(|| unknown_class(name)))
            .collect::<Result<_, _>>()?;
        Ok(Policy { allow, acknowledge: strings("acknowledge")? })
    }
}

/// The message for a class name that is none.
pub fn unknown_class(name: &str) -> String {
    let names: Vec<&str> = Class::ALL.iter().map(|c| c.name()).collect();
    format!("unknown class `{name}`: one of {}", names.join(", "))
}

/// What to compare.
#[derive(Clone, Debug)]
pub struct Request {
    /// OLD.
    pub old: Old,
    /// NEW: files and folders.
    pub new: Vec<PathBuf>,
    /// How to compare.
    pub options: Options,
    /// Which changes fail.
    pub policy: Policy,
    /// The objects stored today (`--objects`: manifests, `kubectl get -o yaml` output), each
    /// validated against NEW as a create and as an update that changes nothing.
    pub objects: Vec<PathBuf>,
}

/// One finding of the run, with the change it reports (none for the CRD update's refusals and
/// for input problems).
#[derive(Clone, Debug)]
pub struct Record {
    /// As every output prints it.
    pub diagnostic: Diagnostic,
    /// The change, for JSON and markdown.
    pub change: Option<Change>,
}

/// What the run found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Input that could not be used: the run could not be done (exit status 2).
    pub problems: Vec<Diagnostic>,
    /// Every finding, CRD by CRD in NEW's order (removed CRDs last).
    pub records: Vec<Record>,
    /// The reports, one per CRD in both.
    pub reports: Vec<Report>,
}

/// Runs the comparison.
pub fn run(request: &Request) -> Outcome {
    let mut out = Outcome::default();
    let limits = InputLimits::default();
    let (new, files) = crate::load::load_crds(&request.new, true, 0, &limits, &mut out.problems);
    let old = match &request.old {
        Old::Files(paths) => crate::load::load_crds(paths, true, 0, &limits, &mut out.problems).0,
        Old::GitRef(rev) => at_revision(rev, &files, &mut out.problems),
    };
    let dedupe = crate::pipeline::dedupe;
    let (old, new) = (dedupe(old, &mut out.problems), dedupe(new, &mut out.problems));
    if out.problems.iter().any(Diagnostic::is_error) {
        return out;
    }
    for n in &new {
        let Some(o) = old.iter().find(|o| o.crd.name == n.crd.name) else {
            let d = n.diagnostic(
                Severity::Warning,
                "",
                Code::Compat(Class::Compatible),
                String::new(),
                "CRD added".to_owned(),
            );
            out.records.push(Record { diagnostic: d, change: None });
            continue;
        };
        let report = crate::pipeline::with_deep_stack(|| compat(&o.crd, &n.crd, &request.options));
        for f in &report.update {
            let severity = if f.warning { Severity::Warning } else { Severity::Error };
            let code = f.error_type.map_or(Code::UnrecognizedFormat, Code::Field);
            let d = n
                .diagnostic(severity, &f.pointer, code, f.field.clone(), f.detail.clone())
                .with_help("the apiserver refuses this CRD update as it stands");
            out.records.push(Record { diagnostic: d, change: None });
        }
        for change in &report.changes {
            let placed_in = if change.place.in_old { o } else { n };
            out.records.push(Record {
                diagnostic: diagnostic(placed_in, change, &request.policy),
                change: Some(change.clone()),
            });
        }
        out.reports.push(report);
    }
    if !request.objects.is_empty() {
        stored_objects(request, &mut out);
    }
    // Each finding shows its line, read again from its file (OLD at a git revision has none
    // on disk: its findings show the place alone).
    let mut texts: std::collections::HashMap<PathBuf, Option<String>> = std::collections::HashMap::new();
    for r in &mut out.records {
        let d = &mut r.diagnostic;
        let from_revision = matches!(request.old, Old::GitRef(_)) && r.change.as_ref().is_some_and(|c| c.place.in_old);
        let (Some(pos), false) = (d.pos, from_revision) else { continue };
        let text = texts.entry(d.file.clone()).or_insert_with(|| std::fs::read_to_string(&d.file).ok());
        d.source_line = text.as_deref().and_then(|t| t.lines().nth(pos.line.saturating_sub(1))).map(str::to_owned);
    }
    for o in old.iter().filter(|o| !new.iter().any(|n| n.crd.name == o.crd.name)) {
        let class = Class::BreaksClients;
        let severity = if request.policy.fails(class) { Severity::Error } else { Severity::Warning };
        let d = o.diagnostic(
            severity,
            "",
            Code::Compat(class),
            String::new(),
            "CRD removed: deleting it deletes every object of its kind".to_owned(),
        );
        out.records.push(Record { diagnostic: d, change: None });
    }
    out
}

/// `--objects` against NEW, by `validate`'s own pipeline: as created (a warning: the object
/// would not be taken again as it is) and as updated without a change (an error: it can no
/// longer be edited, not even its labels).
fn stored_objects(request: &Request, out: &mut Outcome) {
    use crate::validate::manifests::{OldObjects, Policy as Kinds, Request as Validate, validate_request};
    use crate::validate::native::Kubernetes;
    // Only the CRDs' kinds: a native object in the folder is not this change's business.
    let created = Validate {
        crds: request.new.clone(),
        manifests: request.objects.clone(),
        kubernetes: Kubernetes::None,
        policy: Kinds { ignore_missing_schemas: true, ..Kinds::default() },
        ..Validate::default()
    };
    let updated = Validate { old: OldObjects::Files(request.objects.clone()), ..created.clone() };
    for (validate, severity, what) in [
        (&created, Severity::Warning, "NEW refuses it as created: re-applying it as it is fails"),
        (
            &updated,
            Severity::Error,
            "NEW refuses an update of it that changes nothing: it cannot be edited until fixed",
        ),
    ] {
        match validate_request(validate) {
            Ok(report) => {
                out.problems.extend(report.files.into_iter().filter(Diagnostic::is_error));
                for mut d in report.findings.into_iter().filter(|d| d.code != Code::NoSchema) {
                    d.severity = if d.is_error() { severity } else { Severity::Warning };
                    d.note = Some(what.to_owned());
                    out.records.push(Record { diagnostic: d, change: None });
                }
            }
            Err(problems) => out.problems.extend(problems.0),
        }
    }
}

/// NEW's files at `rev`: a file that did not exist then holds no OLD CRD.
fn at_revision(rev: &str, files: &[PathBuf], problems: &mut Vec<Diagnostic>) -> Vec<LoadedCrd> {
    let Some(first) = files.first() else { return Vec::new() };
    if let Some(problem) = crate::load::git_revision_problem(rev, first) {
        problems.push(Diagnostic::file_error(first, None, Code::GitRef, problem));
        return Vec::new();
    }
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let texts = crate::load::read_at_revision(rev, &paths);
    let mut out = Vec::new();
    for (file, text) in files.iter().zip(texts) {
        if let Some(text) = text {
            out.extend(crate::load::crds_of_text(file, &text, problems));
        }
    }
    out
}

fn diagnostic(loaded: &LoadedCrd, change: &Change, policy: &Policy) -> Diagnostic {
    let acknowledged = policy.acknowledged(change);
    let severity = if policy.fails(change.class) && !acknowledged { Severity::Error } else { Severity::Warning };
    let field = change.place.field.trim_start_matches('.').to_owned();
    let detail = format!("{}: {}", change.what, change.class.meaning());
    let mut d = loaded.diagnostic(severity, &change.place.pointer, Code::Compat(change.class), field, detail);
    d.subject = Subject::Crd { name: Some(change.crd.clone()), version: change.version.clone() };
    d.note = Some(match &change.witness {
        Ok(w) => {
            let answer = |messages: &[String]| {
                if messages.is_empty() { "accepted".to_owned() } else { format!("refused: {}", messages.join("; ")) }
            };
            let mut text = format!(
                "witness (OLD accepts it): {}\nNEW on create: {}\nNEW on the update that changes nothing: {}\nNEW on an update of {}: {}",
                w.object,
                answer(&w.create),
                answer(&w.no_op_update),
                w.edit.0.trim_start_matches('.'),
                answer(&w.edit.1)
            );
            if !w.pruned.is_empty() {
                text.push_str(&format!("\nNEW prunes: {}", w.pruned.join(", ")));
            }
            text
        }
        Err(why) => format!("witness: {why}"),
    });
    if acknowledged {
        d.help = Some("acknowledged by the policy".to_owned());
    } else if severity == Severity::Error {
        let id = format!(
            "{}/{}/{}",
            change.crd,
            change.version.as_deref().unwrap_or(""),
            change.place.field.trim_start_matches('.')
        );
        d.help = Some(format!("a deliberate break? acknowledge it: --acknowledge {}", id.trim_end_matches('/')));
    }
    d
}

/// One JSON object per finding.
pub fn to_json(record: &Record) -> Value {
    let d = &record.diagnostic;
    let (crd, version) = match &d.subject {
        Subject::Crd { name, version } => (name.clone(), version.clone()),
        _ => (None, None),
    };
    let mut out = json!({
        "file": d.file.display().to_string(),
        "line": d.pos.map(|p| p.line),
        "column": d.pos.map(|p| p.column),
        "crd": crd,
        "version": version,
        "field": d.field,
        "pointer": d.pointer,
        "type": d.code.name(),
        "level": if d.is_error() { "error" } else { "warning" },
        "message": d.message,
    });
    if let Some(change) = &record.change {
        out["class"] = json!(change.class.name());
        out["servedFrom"] = json!(change.served_from);
        out["change"] = json!(change.what);
        out["witness"] = match &change.witness {
            Ok(w) => json!({
                "object": w.object,
                "create": w.create,
                "noOpUpdate": w.no_op_update,
                "edit": {"field": w.edit.0, "object": w.edited, "messages": w.edit.1},
                "pruned": w.pruned,
            }),
            Err(why) => json!({"none": why}),
        };
    }
    out
}

/// A pull-request comment: a table of the changes, errors first.
pub fn markdown(outcome: &Outcome) -> String {
    let cell = |s: &str| kubeskema::issue::printable(s).replace('|', "\\|").replace('\n', " ");
    let mut out = String::from("| | CRD | version | field | class | change |\n|---|---|---|---|---|---|\n");
    let mut rows: Vec<&Record> = outcome.records.iter().collect();
    rows.sort_by_key(|r| r.diagnostic.severity);
    for r in rows {
        let d = &r.diagnostic;
        let (crd, version) = match &d.subject {
            Subject::Crd { name, version } => (name.clone().unwrap_or_default(), version.clone().unwrap_or_default()),
            _ => (String::new(), String::new()),
        };
        let mark = if d.is_error() { "❌" } else { "⚠️" };
        out.push_str(&format!(
            "| {mark} | {} | {} | `{}` | {} | {} |\n",
            cell(&crd),
            cell(&version),
            cell(&d.field),
            r.change.as_ref().map_or("update", |c| c.class.name()),
            cell(&d.detail)
        ));
    }
    if outcome.records.is_empty() {
        out = "No changes that affect stored objects.\n".to_owned();
    }
    out
}

/// JUnit XML for a CI test report: a test suite per CRD (and one for `--objects`), a test case
/// per finding, failed when it fails the run (its witness in the failure), passed otherwise
/// (its text in `system-out`); a CRD whose change affects nothing is one passing case.
pub fn junit(outcome: &Outcome) -> String {
    use crate::validate::report::xml_text;
    use std::fmt::Write as _;
    let suite_of = |d: &Diagnostic| match &d.subject {
        Subject::Crd { name: Some(name), .. } => name.clone(),
        Subject::Object { .. } => "stored objects (--objects)".to_owned(),
        _ => crate::diagnostic::shown(&d.file),
    };
    let mut suites: Vec<(String, Vec<&Diagnostic>)> =
        outcome.reports.iter().map(|r| (r.crd.clone(), Vec::new())).collect();
    for r in &outcome.records {
        let name = suite_of(&r.diagnostic);
        match suites.iter_mut().find(|(n, _)| *n == name) {
            Some((_, cases)) => cases.push(&r.diagnostic),
            None => suites.push((name, vec![&r.diagnostic])),
        }
    }
    let (mut tests, mut failures, mut body) = (0, 0, String::new());
    for (name, cases) in &suites {
        let suite = xml_text(name);
        let failed = cases.iter().filter(|d| d.is_error()).count();
        let _ = writeln!(
            body,
            "  <testsuite name=\"{suite}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\" skipped=\"0\" time=\"0\">",
            cases.len().max(1)
        );
        if cases.is_empty() {
            let _ = writeln!(
                body,
                "    <testcase classname=\"{suite}\" name=\"no change that affects stored objects\" time=\"0\"/>"
            );
        }
        for d in cases {
            let version = match &d.subject {
                Subject::Crd { version: Some(v), .. } => format!("{v} "),
                _ => String::new(),
            };
            let place = if d.field.is_empty() { "(the CRD)" } else { d.field.as_str() };
            let case = xml_text(&format!("{version}{place}: {}", d.code.name()));
            let text = xml_text(d.human().trim_end());
            let _ = write!(body, "    <testcase classname=\"{suite}\" name=\"{case}\" time=\"0\">\n      ");
            if d.is_error() {
                let _ = write!(
                    body,
                    "<failure message=\"{}\" type=\"{}\">{text}</failure>",
                    xml_text(&d.message),
                    xml_text(d.code.name())
                );
            } else {
                let _ = write!(body, "<system-out>{text}</system-out>");
            }
            body.push_str("\n    </testcase>\n");
        }
        body.push_str("  </testsuite>\n");
        tests += cases.len().max(1);
        failures += failed;
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kubeskema compat\" tests=\"{tests}\" \
         failures=\"{failures}\" errors=\"0\" skipped=\"0\" time=\"0\">\n{body}</testsuites>\n"
    )
}

/// SARIF 2.1.0 for code scanning: a result per finding at its line in NEW (OLD for what NEW
/// removed), with its CRD, version and field as properties.
pub fn sarif(outcome: &Outcome) -> Value {
    let findings: Vec<Diagnostic> = outcome.records.iter().map(|r| r.diagnostic.clone()).collect();
    crate::validate::report::sarif_log(&[], &findings)
}
