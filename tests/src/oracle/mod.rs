//! The differential harness against kube-apiserver 1.36.3 itself (`../shared/oracle/`).
//!
//! A [`Case`] is one request the apiserver could get: a CRD to create (`check`), or an object
//! of a CRD to create or update. Inputs are written as a source plus a patch, so that cases
//! built from the shared corpus keep only the corpus path and what the mutator changed (the
//! corpus itself is never copied into the repository). [`ours`] answers a case with this
//! project's code (the `cargo kubeskema check` pipeline, and the `ResourceValidator` behind
//! `cargo kubeskema validate`); [`compare`] sets that beside the apiserver's answer as
//! multisets of (field, type, message).
//!
//! Recorded cases (`fixtures/oracle/*.jsonl`) carry the apiserver's answer, so CI replays them
//! without the oracle; `cargo run -p kubeskema-tests --bin oracle-diff` asks the oracle live and
//! re-records them (see `docs/apiserver-1.36-messages.md`).

pub mod compat;
pub mod evolve;
pub mod mutate;
pub mod rng;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::corpus_dir;

/// Where an input comes from, and what was changed in it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Source {
    /// A file of the shared corpus (relative to it) ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corpus: Option<String>,
    /// ... and the document's index in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<usize>,
    /// Or the input itself (the project's own targeted cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline: Option<Value>,
    /// JSON-patch operations (`add`, `replace`, `remove`) applied to it, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub patch: Vec<Value>,
}

impl Source {
    /// The corpus document `doc` of `file`.
    pub fn corpus(file: &str, doc: usize) -> Source {
        Source { corpus: Some(file.to_owned()), doc: Some(doc), inline: None, patch: Vec::new() }
    }

    /// The same source with `patch` applied after its own.
    pub fn patched(&self, patch: Vec<Value>) -> Source {
        let mut s = self.clone();
        s.patch.extend(patch);
        s
    }

    /// The input, patched.
    pub fn resolve(&self, docs: &mut Documents) -> Result<Value, String> {
        let mut v = match (&self.inline, &self.corpus, self.doc) {
            (Some(v), _, _) => v.clone(),
            (None, Some(file), Some(doc)) => docs.get(file, doc)?,
            _ => return Err("a source needs `inline`, or `corpus` and `doc`".into()),
        };
        for op in &self.patch {
            apply_op(&mut v, op)?;
        }
        Ok(v)
    }
}

/// Applies one JSON-patch operation (`add` appends to a list at `-`).
pub fn apply_op(root: &mut Value, op: &Value) -> Result<(), String> {
    let kind = op["op"].as_str().unwrap_or_default();
    let path = op["path"].as_str().ok_or("a patch operation needs a path")?;
    let value = op.get("value").cloned().unwrap_or(Value::Null);
    if path.is_empty() {
        *root = value;
        return Ok(());
    }
    let (parent, last) = path.rsplit_once('/').ok_or_else(|| format!("bad pointer {path}"))?;
    let last = kubeskema::path::unescape_token(last).into_owned();
    let target = root.pointer_mut(parent).ok_or_else(|| format!("no {parent} to patch"))?;
    match (kind, target) {
        ("remove", Value::Object(m)) => m.remove(&last).map(drop).ok_or_else(|| format!("no {path} to remove")),
        ("remove", Value::Array(a)) => {
            let i: usize = last.parse().map_err(|_| format!("bad index {path}"))?;
            (i < a.len()).then(|| drop(a.remove(i))).ok_or_else(|| format!("no {path} to remove"))
        }
        ("add" | "replace", Value::Object(m)) => {
            m.insert(last, value);
            Ok(())
        }
        ("add", Value::Array(a)) if last == "-" => {
            a.push(value);
            Ok(())
        }
        ("add" | "replace", Value::Array(a)) => {
            let i: usize = last.parse().map_err(|_| format!("bad index {path}"))?;
            match (kind, i < a.len()) {
                ("replace", true) => a[i] = value,
                ("add", _) if i <= a.len() => a.insert(i, value),
                _ => return Err(format!("no {path} to replace")),
            }
            Ok(())
        }
        _ => Err(format!("cannot {kind} at {path}")),
    }
}

/// Corpus documents as JSON, each file read once.
#[derive(Default)]
pub struct Documents(BTreeMap<String, Vec<Value>>);

impl Documents {
    /// Document `doc` of the corpus file `file`.
    pub fn get(&mut self, file: &str, doc: usize) -> Result<Value, String> {
        if !self.0.contains_key(file) {
            let path = corpus_dir().join(file);
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let docs = kubeskema::yaml::parse_documents(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            self.0.insert(file.to_owned(), docs.into_iter().map(|d| d.value).collect());
        }
        self.0[file].get(doc).cloned().ok_or_else(|| format!("{file} has no document {doc}"))
    }
}

/// What a case asks.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Create the CRD (`ValidateCustomResourceDefinition`).
    Check,
    /// Create an object of the CRD.
    Create,
    /// Update `old` to `object`.
    Update,
}

/// One request, and what kube-apiserver 1.36.3 answered.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Case {
    /// A name, unique in its file.
    pub id: String,
    /// The class of input (the mutator's name, or the targeted class).
    pub class: String,
    /// What is asked.
    pub op: Op,
    /// The CRD.
    pub crd: Source,
    /// The object (create, update).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Source>,
    /// The stored object (update).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<Source>,
    /// What the apiserver answered (absent before it is asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apiserver: Option<Answer>,
}

/// An answer: errors as (field, type, message), and warnings' texts.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Answer {
    /// Field errors, in the order given (compared as a multiset).
    pub errors: Vec<Finding>,
    /// Warnings' texts (compared as a multiset).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// A failure that is no verdict (the oracle's recovered panic, a protocol error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One field error.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Finding {
    /// The field path as the apiserver prints it.
    pub field: String,
    /// `FieldValueInvalid`, ...
    #[serde(rename = "type")]
    pub type_: String,
    /// `field.Error.Error()`: `<field>: <detail>`.
    pub message: String,
}

/// The inputs of a case, resolved.
pub struct Inputs {
    /// The CRD.
    pub crd: Value,
    /// The version an object is of.
    pub version: String,
    /// The object.
    pub object: Option<Value>,
    /// The stored object.
    pub old: Option<Value>,
}

impl Case {
    /// Resolves the case's sources.
    pub fn inputs(&self, docs: &mut Documents) -> Result<Inputs, String> {
        let crd = self.crd.resolve(docs)?;
        let object = self.object.as_ref().map(|s| s.resolve(docs)).transpose()?;
        let old = self.old.as_ref().map(|s| s.resolve(docs)).transpose()?;
        // The version asked for is the one the object was written for, whatever a mutator did
        // to its apiVersion.
        let unpatched = match &self.object {
            Some(s) => Some(Source { patch: Vec::new(), ..s.clone() }.resolve(docs)?),
            None => None,
        };
        let version = unpatched
            .as_ref()
            .and_then(|o| o["apiVersion"].as_str())
            .map(|a| a.rsplit('/').next().unwrap_or(a).to_owned())
            .unwrap_or_default();
        Ok(Inputs { crd, version, object, old })
    }
}

/// The oracle's request for a case (`prune`: the request handler's decoding, as a real create
/// or update; the namespace is the oracle's default, `default`).
pub fn request(id: usize, op: Op, inputs: &Inputs) -> Value {
    match op {
        Op::Check => json!({"id": id, "op": "check", "crd": inputs.crd}),
        Op::Create | Op::Update => {
            let mut r = json!({"id": id, "op": "validate", "crd": inputs.crd, "version": inputs.version,
                               "object": inputs.object, "prune": true});
            if let (Op::Update, Some(old)) = (op, &inputs.old) {
                r["old"] = old.clone();
            }
            r
        }
    }
}

/// The oracle's answer line, as an [`Answer`].
pub fn answer_of(line: &Value) -> Answer {
    let errors = line["errors"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| Finding {
                    field: e["field"].as_str().unwrap_or_default().to_owned(),
                    type_: e["type"].as_str().unwrap_or_default().to_owned(),
                    message: e["message"].as_str().unwrap_or_default().to_owned(),
                })
                .collect()
        })
        .unwrap_or_default();
    let warnings = line["warnings"]
        .as_array()
        .map(|a| a.iter().filter_map(|w| w.as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    let error = line["error"].as_str().filter(|e| !e.is_empty()).map(str::to_owned);
    Answer { errors, warnings, error }
}

/// The oracle binary: `$ORACLE_BIN`, else `../oracle/bin/apiserver-oracle` (a writable copy of
/// `../shared/oracle` built there), else `../shared/oracle/bin/apiserver-oracle`.
pub fn oracle_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("ORACLE_BIN") {
        return PathBuf::from(p);
    }
    let local = crate::repo_dir().join("../oracle/bin/apiserver-oracle");
    if local.exists() { local } else { crate::corpus_dir().join("../oracle/bin/apiserver-oracle") }
}

/// The running oracle binary: one request line in, one answer line out.
pub struct Oracle {
    bin: PathBuf,
}

impl Oracle {
    /// The oracle at `bin` (`ORACLE_BIN`, or `../oracle/bin/apiserver-oracle` beside the shared one).
    pub fn new(bin: PathBuf) -> Oracle {
        Oracle { bin }
    }

    /// Answers every request, in order (one process for all of them).
    pub fn ask(&self, requests: &[Value]) -> Result<Vec<Value>, String> {
        let mut child = Command::new(&self.bin)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", self.bin.display()))?;
        let mut stdin = child.stdin.take().expect("piped");
        let lines: Vec<String> = requests.iter().map(|r| r.to_string()).collect();
        let writer = std::thread::spawn(move || {
            for l in lines {
                if writeln!(stdin, "{l}").is_err() {
                    break;
                }
            }
        });
        let mut out = vec![Value::Null; requests.len()];
        for line in BufReader::new(child.stdout.take().expect("piped")).lines() {
            let line = line.map_err(|e| e.to_string())?;
            let v: Value = serde_json::from_str(&line).map_err(|e| format!("oracle answered {line}: {e}"))?;
            if let Some(i) = v["id"].as_u64().map(|i| i as usize).filter(|i| *i < out.len()) {
                out[i] = v;
            }
        }
        let _ = writer.join();
        let _ = child.wait();
        Ok(out)
    }
}

/// This project's answer to a case: `cargo kubeskema check`'s diagnostics for a CRD (errors
/// and warnings), or the `ResourceValidator` behind `cargo kubeskema validate` for an object.
pub fn ours(op: Op, inputs: &Inputs, scratch: &Path) -> Answer {
    match op {
        Op::Check => ours_check(&inputs.crd, scratch),
        Op::Create | Op::Update => ours_validate(op, inputs),
    }
}

fn ours_check(crd: &Value, scratch: &Path) -> Answer {
    let file = scratch.join(format!("crd-{:?}.json", std::thread::current().id()).replace(['(', ')'], ""));
    std::fs::write(&file, crd.to_string()).expect("the scratch folder is writable");
    let diags = kubeskema_codegen::__internal::pipeline::check(&[file], false);
    let mut answer = Answer::default();
    for d in diags {
        let message = d.message.clone();
        if d.is_error() {
            answer.errors.push(Finding { field: d.field, type_: d.code.name().to_owned(), message });
        } else {
            answer.warnings.push(message);
        }
    }
    answer
}

fn ours_validate(op: Op, inputs: &Inputs) -> Answer {
    let (crd, errors) = kubeskema::crd::Crd::parse(&inputs.crd);
    if !errors.is_empty() {
        return Answer { error: Some(format!("the CRD does not parse: {}", errors[0].message)), ..Answer::default() };
    }
    let Some(version) = crd.version(&inputs.version) else {
        return Answer { error: Some(format!("the CRD has no version {}", inputs.version)), ..Answer::default() };
    };
    let validator = kubeskema::validate::ResourceValidator::new(&crd, version);
    let object = inputs.object.as_ref().expect("an object to validate");
    let outcome = match (op, &inputs.old) {
        (Op::Update, Some(old)) => validator.validate_update(object, old),
        _ => validator.validate_create(object),
    };
    let errors = outcome
        .issues
        .iter()
        .map(|i| Finding { field: i.field(), type_: i.error_type.reason().to_owned(), message: i.to_string() })
        .collect();
    Answer { errors, warnings: Vec::new(), error: None }
}

/// How two answers compare.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// The same (field, type) multiset.
    pub same_findings: bool,
    /// The same (field, type, message) multiset, and the same warnings.
    pub same_messages: bool,
    /// Findings only the apiserver gave.
    pub only_apiserver: Vec<Finding>,
    /// Findings only we gave.
    pub only_ours: Vec<Finding>,
    /// Warnings only the apiserver gave, and only we gave.
    pub warnings: (Vec<String>, Vec<String>),
}

/// Compares as multisets. Warnings are compared for CRD checks only: the oracle's create and
/// update drop the CEL validator's warnings (`err, _ := celValidator.Validate(...)`), and the
/// decoder's unknown-field warnings are not part of its validate path.
pub fn compare(op: Op, apiserver: &Answer, ours: &Answer) -> Comparison {
    compare_with(op, apiserver, ours, normalized)
}

/// [`compare`] without [`normalized`]'s allowances: what the apiserver left to chance must
/// match too (which rules tie for the most expensive, `selfType` names).
pub fn compare_exact(op: Op, apiserver: &Answer, ours: &Answer) -> Comparison {
    compare_with(op, apiserver, ours, Finding::clone)
}

fn compare_with(op: Op, apiserver: &Answer, ours: &Answer, normalize: fn(&Finding) -> Finding) -> Comparison {
    let (theirs, mine): (Vec<Finding>, Vec<Finding>) =
        (apiserver.errors.iter().map(normalize).collect(), ours.errors.iter().map(normalize).collect());
    let key = |f: &Finding| (f.field.clone(), f.type_.clone());
    let mut a: Vec<_> = theirs.iter().map(key).collect();
    let mut b: Vec<_> = mine.iter().map(key).collect();
    a.sort();
    b.sort();
    let only_apiserver = minus(&theirs, &mine);
    let only_ours = minus(&mine, &theirs);
    let warnings = if op == Op::Check {
        (minus(&apiserver.warnings, &ours.warnings), minus(&ours.warnings, &apiserver.warnings))
    } else {
        Default::default()
    };
    Comparison {
        same_findings: a == b,
        same_messages: only_apiserver.is_empty()
            && only_ours.is_empty()
            && warnings.0.is_empty()
            && warnings.1.is_empty(),
        only_apiserver,
        only_ours,
        warnings,
    }
}

/// What the apiserver leaves to chance, made one text on both sides:
/// - the name of `self`'s object type in CEL messages is `selfType` and the clock's
///   nanoseconds (`generateUniqueSelfTypeName`);
/// - of rules that tie for the four most expensive, which are named as contributing to a
///   schema over its cost limit depends on Go's map order (the schema walk visits
///   properties in it): the count of such findings is compared, not which rules.
pub fn normalized(f: &Finding) -> Finding {
    const CONTRIBUTED: &str =
        "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema";
    if f.message.ends_with(CONTRIBUTED) {
        return Finding {
            field: "<one of the most expensive rules>".into(),
            type_: f.type_.clone(),
            message: CONTRIBUTED.into(),
        };
    }
    let mut message = String::with_capacity(f.message.len());
    let mut rest = f.message.as_str();
    while let Some(i) = rest.find("selfType") {
        message.push_str(&rest[..i + "selfType".len()]);
        rest = rest[i + "selfType".len()..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    message.push_str(rest);
    Finding { message, ..f.clone() }
}

/// `a` less one of each element of `b` (multisets).
fn minus<T: Clone + PartialEq>(a: &[T], b: &[T]) -> Vec<T> {
    let mut left: Vec<Option<&T>> = b.iter().map(Some).collect();
    a.iter()
        .filter(|x| match left.iter_mut().find(|y| y.is_some_and(|y| y == *x)) {
            Some(slot) => {
                *slot = None;
                false
            }
            None => true,
        })
        .cloned()
        .collect()
}

/// The first line of a fixture file: where its answers came from and how to record them again.
pub fn provenance(command: &str) -> Value {
    json!({
        "recorded_from": "kube-apiserver 1.36.3 (its own code, built by ../shared/oracle/build-apiserver.sh)",
        "rerecord": command,
    })
}

/// Reads a fixture file: its provenance line, then one case per line.
pub fn read_fixture(path: &Path) -> Result<Vec<Case>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, l)) if l.contains("kube-apiserver 1.36.3") => {}
        _ => {
            return Err(format!(
                "{}: the first line must say the answers came from kube-apiserver 1.36.3",
                path.display()
            ));
        }
    }
    lines
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| serde_json::from_str(l).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1)))
        .collect()
}

/// Writes a fixture file.
pub fn write_fixture(path: &Path, command: &str, cases: &[Case]) -> std::io::Result<()> {
    let mut out = String::new();
    out.push_str(&provenance(command).to_string());
    out.push('\n');
    for c in cases {
        out.push_str(&serde_json::to_string(c).expect("a case serializes"));
        out.push('\n');
    }
    std::fs::write(path, out)
}

/// The corpus's v1 CRDs: (file, document index, CRD).
pub fn corpus_crds(docs: &mut Documents) -> Vec<(String, usize, Value)> {
    let mut files = Vec::new();
    let root = corpus_dir().join("crds");
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml" || x == "json") {
                files.push(p.strip_prefix(corpus_dir()).expect("below the corpus").to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for f in files {
        for i in 0.. {
            let Ok(d) = docs.get(&f, i) else { break };
            if d["apiVersion"] == "apiextensions.k8s.io/v1" && d["kind"] == "CustomResourceDefinition" {
                out.push((f.clone(), i, d));
            }
        }
    }
    out
}

/// The file that lists the recorded cases known to differ, with why: `id<TAB>reason` lines.
pub fn known_differences(path: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t').map(|(id, why)| (id.to_owned(), why.to_owned())))
        .collect()
}
