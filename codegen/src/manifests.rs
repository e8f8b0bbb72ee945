//! Validating manifests against CRDs without a cluster: what `cargo kubeskema validate` does.
//! Every document of every manifest file is matched to a CRD version by `apiVersion` and
//! `kind` and validated as the apiserver validates it on create; each issue is placed at the
//! line and column it came from.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use kubeskema::validate::ResourceValidator;
use kubeskema::yaml::Pos;
use serde_json::Value;

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::load::{LoadedCrd, expand_paths, load_crds, parse_text, read_text};

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// The apiserver would refuse the object.
    Error,
    /// The apiserver would accept the object and warn (unknown or duplicate fields, with its
    /// default `fieldValidation=Warn`).
    Warning,
}

/// One finding about one document.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// Error or warning.
    pub level: Level,
    /// The manifest file.
    pub file: PathBuf,
    /// 0-based document index in the file.
    pub document: usize,
    /// Where, when known.
    pub pos: Option<Pos>,
    /// The object's `apiVersion`.
    pub api_version: String,
    /// The object's `kind`.
    pub kind: String,
    /// The object's `metadata.name`.
    pub name: String,
    /// The field path as the apiserver prints it.
    pub field: String,
    /// The JSON pointer.
    pub pointer: String,
    /// The apiserver's error type (`FieldValueInvalid`), or `NoSchema`, `UnknownField`,
    /// `DuplicateField`.
    pub kind_of_issue: String,
    /// The text after the path.
    pub detail: String,
    /// The whole message as the apiserver prints it.
    pub message: String,
    /// The text of the line the finding points at, for the human rendering.
    pub source_line: Option<String>,
    /// Why the finding is what it is, where the message alone would mislead (a number YAML
    /// read as a string).
    pub note: Option<String>,
}

impl Finding {
    /// The finding as one JSON object (the `--output json` contract).
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "file": self.file.display().to_string(),
            "document": self.document,
            "line": self.pos.map(|p| p.line),
            "column": self.pos.map(|p| p.column),
            "apiVersion": self.api_version,
            "kind": self.kind,
            "name": self.name,
            "field": self.field,
            "pointer": self.pointer,
            "type": self.kind_of_issue,
            "detail": self.detail,
            "message": self.message,
            "level": match self.level { Level::Error => "error", Level::Warning => "warning" },
            "note": self.note,
        })
    }

    /// The finding as a compiler diagnostic: the apiserver's message, `--> file:line:column`,
    /// and the source line with the place marked.
    pub fn human(&self) -> String {
        use annotate_snippets::{AnnotationKind, Level as Severity, Renderer, Snippet};
        let level = match self.level {
            Level::Error => Severity::ERROR,
            Level::Warning => Severity::WARNING,
        };
        let path = self.file.display().to_string();
        let label = format!("{}/{}", self.kind, self.name);
        let title = level.primary_title(&self.message);
        let report = match (self.pos, &self.source_line) {
            (Some(pos), Some(line)) => {
                let span = token_span(line, pos.column);
                title.element(
                    Snippet::source(line.as_str())
                        .line_start(pos.line)
                        .path(path.as_str())
                        .annotation(AnnotationKind::Primary.span(span).label(label.as_str())),
                )
            }
            // No line to show: the place goes with the path.
            (Some(pos), None) => {
                let place = format!("{path}:{pos}");
                title.element(Snippet::<annotate_snippets::Annotation<'_>>::source("").path(place))
            }
            (None, _) => title.element(Snippet::<annotate_snippets::Annotation<'_>>::source("").path(path.as_str())),
        };
        let report = match &self.note {
            Some(note) => report.element(Severity::NOTE.message(note.as_str())),
            None => report,
        };
        Renderer::plain().render(&[report]).to_string()
    }
}

/// The longest source line shown under a finding.
const MAX_SHOWN_LINE: usize = 500;

/// The bytes of the key or value that starts at 1-based character `column` of `line`: up to a
/// `:` followed by a space (a key) or the end of the line.
fn token_span(line: &str, column: usize) -> std::ops::Range<usize> {
    let start = line.char_indices().nth(column.saturating_sub(1)).map_or(line.len(), |(i, _)| i);
    let rest = &line[start..];
    let end = rest.find(": ").or_else(|| rest.strip_suffix(':').map(str::len)).unwrap_or(rest.trim_end().len());
    start..start + end.max(1).min(rest.len())
}

/// What [`validate`] found.
#[derive(Debug, Default)]
pub struct Report {
    /// The findings of every document of every manifest that could be read.
    pub findings: Vec<Finding>,
    /// The manifests that could not be read (missing, unreadable, not YAML: errors) or were
    /// skipped (not a regular file: warnings), each with its place and reason. The others are
    /// validated all the same.
    pub files: Vec<Diagnostic>,
}

/// Validates every manifest against the CRDs. `Err` when the CRDs cannot be used (unreadable,
/// or refused by the apiserver's checks); per-document problems are findings, per-file ones
/// are reported beside them.
pub fn validate(crd_paths: &[PathBuf], manifests: &[PathBuf]) -> Result<Report, Diagnostics> {
    let mut diags = Vec::new();
    let (crds, _) = load_crds(crd_paths, true, &mut diags);
    let mut usable: HashMap<(String, String), (usize, usize)> = HashMap::new();
    for (ci, loaded) in crds.iter().enumerate() {
        let ok = crate::check::check_crd(loaded, &mut diags);
        for (vi, v) in loaded.crd.versions.iter().enumerate() {
            if ok[vi] {
                usable.insert((format!("{}/{}", loaded.crd.group, v.name), loaded.crd.names.kind.clone()), (ci, vi));
            }
        }
    }
    if diags.iter().any(Diagnostic::is_error) {
        return Err(Diagnostics(diags.into_iter().filter(Diagnostic::is_error).collect()));
    }
    let mut validators: HashMap<(usize, usize), ResourceValidator> = HashMap::new();
    let mut findings = Vec::new();
    let mut io = Vec::new();
    for file in expand_paths(manifests, &mut io) {
        let Some(text) = read_text(&file, &mut io) else { continue };
        let Some(docs) = parse_text(&file, &text, &mut io) else { continue };
        let lines = kubeskema::yaml::lines(&text);
        for doc in docs.iter().filter(|d| !d.value.is_null()) {
            let before = findings.len();
            validate_document(&file, doc, &crds, &usable, &mut validators, &mut findings);
            for f in &mut findings[before..] {
                let line = f.pos.and_then(|p| lines.get(p.line.checked_sub(1)?));
                // A long line (a one-line JSON manifest) is not shown: copied into each of its
                // findings, it made many findings quadratic.
                f.source_line = line.filter(|l| l.len() <= MAX_SHOWN_LINE).map(|l| (*l).to_owned());
            }
        }
    }
    Ok(Report { findings, files: io })
}

fn validate_document<'c>(
    file: &Path,
    doc: &kubeskema::yaml::Document,
    crds: &'c [LoadedCrd],
    usable: &HashMap<(String, String), (usize, usize)>,
    validators: &mut HashMap<(usize, usize), ResourceValidator<'c>>,
    findings: &mut Vec<Finding>,
) {
    let text = |p: &str| doc.value.pointer(p).and_then(Value::as_str).unwrap_or_default().to_owned();
    let (api_version, kind, name) = (text("/apiVersion"), text("/kind"), text("/metadata/name"));
    let finding = |level, pointer: &str, field: String, kind_of_issue: &str, detail: String, message: String| Finding {
        level,
        file: file.to_owned(),
        document: doc.index,
        pos: Some(doc.nearest_position(pointer)),
        api_version: api_version.clone(),
        kind: kind.clone(),
        name: name.clone(),
        field,
        pointer: pointer.to_owned(),
        kind_of_issue: kind_of_issue.to_owned(),
        detail,
        message,
        source_line: None,
        note: None,
    };
    if api_version.is_empty() || kind.is_empty() {
        let missing = match (api_version.is_empty(), kind.is_empty()) {
            (true, true) => "apiVersion and kind",
            (true, false) => "apiVersion",
            _ => "kind",
        };
        let message = format!("not a Kubernetes object: no {missing}");
        findings.push(finding(Level::Error, "", String::new(), "NotAnObject", message.clone(), message));
        return;
    }
    let Some(&(ci, vi)) = usable.get(&(api_version.clone(), kind.clone())) else {
        let message = format!("no CRD given for {api_version} {kind}");
        findings.push(finding(Level::Error, "", String::new(), "NoSchema", message.clone(), message));
        return;
    };
    for dup in &doc.duplicates {
        let issue = kubeskema::decode::duplicate_issue(&dup.pointer);
        let dotted = issue.path.openapi();
        // The apiserver's warning text (its Strict-mode error prefixes `strict decoding error: `).
        let message = issue.detail;
        findings.push(Finding {
            pos: Some(dup.pos),
            ..finding(Level::Warning, &dup.pointer, dotted, "DuplicateField", message.clone(), message)
        });
    }
    let validator =
        validators.entry((ci, vi)).or_insert_with(|| ResourceValidator::new(&crds[ci].crd, &crds[ci].crd.versions[vi]));
    let outcome = validator.validate_create(&doc.value);
    for unknown in &outcome.pruned {
        let message = kubeskema::decode::strict_issue(unknown.clone(), "unknown").detail;
        findings.push(finding(
            Level::Warning,
            &unknown.pointer(),
            unknown.openapi(),
            "UnknownField",
            message.clone(),
            message,
        ));
    }
    for issue in &outcome.issues {
        let pointer = issue.path.pointer();
        // YAML reads `1e400` as the string "1e400" (go-yaml does, so the apiserver sees a
        // string too): say so beside the type error that calls it "string".
        let note = doc.out_of_range.contains(&pointer).then(|| {
            format!(
                "{} does not fit a float64, so YAML reads it as a string (as kubectl does); write a number in range",
                doc.value
                    .pointer(&pointer)
                    .and_then(Value::as_str)
                    .map(|v| v.chars().take(40).collect::<String>())
                    .unwrap_or_default()
            )
        });
        findings.push(Finding {
            note,
            ..finding(Level::Error, &pointer, issue.field(), issue.error_type.reason(), issue.body(), issue.to_string())
        });
    }
}
