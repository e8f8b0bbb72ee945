//! Validating manifests against CRDs without a cluster: what `cargo kubeskema validate` does.
//!
//! The phases: the CRDs are loaded and checked once (a refused CRD stops everything); the
//! manifests are read and parsed, and the old objects when updates are asked for; then every
//! document is matched to a CRD version by `apiVersion` and `kind` and validated as the
//! apiserver validates it on create, or on update when an old object with the same
//! `apiVersion`, `kind`, namespace and name was given. The validators the documents need are
//! compiled first, then the documents validated, each phase on every core;
//! the findings come out in input order all the same, each placed at the line and column it
//! came from. [`crate::validate::report`] renders them.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use kubeskema::objectmeta::NameRule;
use kubeskema::validate::{Outcome, ResourceValidator};
use kubeskema::yaml::{Document, Pos};
use serde_json::Value;

use crate::diagnostic::{Code, Diagnostic, Diagnostics, Severity, Subject};
use crate::load::{InputLimits, expand_paths, load_crds_then, parse_text};
use crate::validate::native::{Kubernetes, NativeKind};

/// What to validate and how: the CLI's arguments, as a value.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// CRD files or folders.
    pub crds: Vec<PathBuf>,
    /// OpenAPI v3 documents (files or folders) with the schemas of native kinds.
    pub schemas: Vec<PathBuf>,
    /// Where the native kinds no `schemas` document has come from.
    pub kubernetes: Kubernetes,
    /// Manifest files or folders (`-` reads standard input).
    pub manifests: Vec<PathBuf>,
    /// Manifest paths not to read (`--exclude`, [`crate::load::glob`]).
    pub exclude: Vec<String>,
    /// Where the old objects come from, when documents are validated as updates.
    pub old: OldObjects,
    /// What counts as an error.
    pub policy: Policy,
    /// Threads to validate on; 0 takes every core.
    pub jobs: usize,
    /// How much input is read (each file, and all of them).
    pub limits: Limits,
}

/// How much input a run reads, in bytes (see [`InputLimits`]).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The largest file (`--max-file-size`).
    pub per_file: u64,
    /// All the files of the run together (`--max-input-size`).
    pub per_run: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { per_file: crate::load::MAX_FILE_BYTES, per_run: crate::load::MAX_INPUT_BYTES }
    }
}

/// Where the stored versions of the manifests' objects come from.
#[derive(Clone, Debug, Default)]
pub enum OldObjects {
    /// Every document is a create.
    #[default]
    None,
    /// Manifest files or folders holding the old objects (`--old`).
    Files(Vec<PathBuf>),
    /// The same manifest files at a git revision (`--old-ref`); a file that did not exist
    /// there holds no old objects.
    GitRef(String),
}

/// What counts as an error, beyond what the apiserver refuses (the CLI's policy flags).
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// Unknown and duplicate fields are errors, as with `kubectl --validate=strict` (the
    /// apiserver's `fieldValidation=Strict`), not warnings.
    pub strict: bool,
    /// Kinds not validated at all: `Kind` or `apiVersion/Kind` (`Secret`, `apps/v1/Deployment`).
    pub skip_kinds: Vec<String>,
    /// Kinds that must not appear: each document of one is an error.
    pub reject_kinds: Vec<String>,
    /// A document no schema is given for is skipped, not an error.
    pub ignore_missing_schemas: bool,
}

impl Policy {
    fn lists(list: &[String], api_version: &str, kind: &str) -> bool {
        list.iter().any(|k| {
            k == kind || k.strip_suffix(kind).and_then(|v| v.strip_suffix('/')).is_some_and(|v| v == api_version)
        })
    }
}

/// What happened to one document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No error (warnings are possible).
    Valid,
    /// At least one error.
    Invalid,
    /// Not validated: its kind is skipped, or no schema is given for it and that is allowed.
    Skipped,
    /// Not read: the reader stopped in it (nested too deep, aliased too much, a collection for
    /// a key), and the rest of its file was not read. The run exits 2, as for a file that is
    /// not YAML.
    Unreadable,
}

/// One document and what became of it: what JUnit's test cases and the summary count.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    /// The manifest file.
    pub file: PathBuf,
    /// 0-based document index in the file.
    pub document: usize,
    /// Where the document starts.
    pub start: Pos,
    /// The object's `apiVersion`, `kind` and `metadata.name`.
    pub api_version: String,
    /// See `api_version`.
    pub kind: String,
    /// See `api_version`.
    pub name: String,
    /// Valid, invalid or skipped.
    pub verdict: Verdict,
    /// Why a skipped document was skipped.
    pub skipped_because: Option<String>,
    /// Whether it was validated as an update of an old object.
    pub update: bool,
    /// Whether its schema is a native kind's, from an OpenAPI document.
    pub native: bool,
}

/// Said once per run, with the first finding about a native kind.
pub const NATIVE_KINDS_NOTE: &str = "native kinds are validated against their OpenAPI schema only: the \
    apiserver also runs hand-written checks for them (a Deployment's selector must match its template's \
    labels, ...) that no OpenAPI document carries";

/// What [`validate`] found.
#[derive(Debug, Default)]
pub struct Report {
    /// The findings of every document of every manifest that could be read, in input order.
    pub findings: Vec<Diagnostic>,
    /// Every document read, in input order.
    pub documents: Vec<Checked>,
    /// The manifests (and old objects) that could not be read (missing, unreadable, not YAML:
    /// errors) or were skipped (not a regular file: warnings), each with its place and reason.
    /// The others are validated all the same.
    pub files: Vec<Diagnostic>,
    /// How many manifest files were read.
    pub files_read: usize,
    /// Files a folder held that are not Kubernetes objects (kustomize's, a Helm chart's) and
    /// were not read, with what they are: the `--summary` line counts them.
    pub not_objects: Vec<(PathBuf, &'static str)>,
    /// The threads the documents were validated on.
    pub jobs: usize,
    /// From the first CRD read to the last document validated.
    pub elapsed: Duration,
    /// The part of `elapsed` spent reading and checking the CRDs (their validators are built
    /// when a document first needs one, and counted with the documents).
    pub loading_crds: Duration,
    /// The documents by verdict and the findings by level: what the summary says, also when
    /// [`validate_each`] handed them on instead of keeping them.
    pub counts: Counts,
}

impl Report {
    /// Whether a finding at `severity` was reported.
    pub fn any(&self, severity: Severity) -> bool {
        match severity {
            Severity::Error => self.counts.errors > 0,
            Severity::Warning => self.counts.warnings > 0,
        }
    }
}

/// How many documents a run validated, by verdict, and how many findings, by level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Findings at [`Severity::Error`].
    pub errors: usize,
    /// Findings at [`Severity::Warning`].
    pub warnings: usize,
    /// Documents found valid.
    pub valid: usize,
    /// Documents found invalid.
    pub invalid: usize,
    /// Documents skipped.
    pub skipped: usize,
    /// Documents the reader stopped in.
    pub unreadable: usize,
}

impl Counts {
    /// Every document.
    pub fn documents(&self) -> usize {
        self.valid + self.invalid + self.skipped + self.unreadable
    }

    fn add(&mut self, validated: &Validated) {
        for f in &validated.findings {
            match f.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
            }
        }
        match validated.checked.verdict {
            Verdict::Valid => self.valid += 1,
            Verdict::Invalid => self.invalid += 1,
            Verdict::Skipped => self.skipped += 1,
            Verdict::Unreadable => self.unreadable += 1,
        }
    }
}

/// One document's findings and verdict, as [`validate_each`] hands them on.
#[derive(Debug)]
pub struct Validated {
    /// Its findings, in the order the apiserver reports them.
    pub findings: Vec<Diagnostic>,
    /// The document and its verdict.
    pub checked: Checked,
}

/// Validates every manifest against the CRDs as creates. `Err` when the CRDs cannot be used
/// (unreadable, or refused by the apiserver's checks); per-document problems are findings,
/// per-file ones are reported beside them.
pub fn validate(crd_paths: &[PathBuf], manifests: &[PathBuf]) -> Result<Report, Diagnostics> {
    validate_request(&Request {
        crds: crd_paths.to_vec(),
        manifests: manifests.to_vec(),
        jobs: 1,
        ..Request::default()
    })
}

/// Validates as `request` asks; see [`validate`].
pub fn validate_request(request: &Request) -> Result<Report, Diagnostics> {
    validate_with_progress(request, &|_, _| {})
}

/// [`validate_request`], calling `progress(done, total)` after each document (from whichever
/// thread validated it).
pub fn validate_with_progress(
    request: &Request,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Report, Diagnostics> {
    let (mut findings, mut documents) = (Vec::new(), Vec::new());
    let mut report = validate_each(request, progress, &mut |validated| {
        findings.extend(validated.findings);
        documents.push(validated.checked);
    })?;
    (report.findings, report.documents) = (findings, documents);
    Ok(report)
}

/// [`validate_with_progress`], each document's findings and verdict handed to `each` in input
/// order as soon as the documents before it are done, and not kept: the report then has its
/// [`Counts`] but no findings or documents, and a run's memory does not grow with them (what
/// the CLI's human and JSON outputs print as they go).
pub fn validate_each(
    request: &Request,
    progress: &(dyn Fn(usize, usize) + Sync),
    each: &mut dyn FnMut(Validated),
) -> Result<Report, Diagnostics> {
    let started = Instant::now();
    let jobs = crate::load::parallel::threads(request.jobs);
    let mut diags = Vec::new();
    let limits = InputLimits::new(request.limits.per_file, request.limits.per_run);
    // The manifests first: the types they name are all of the CRDs and native kinds that is
    // kept.
    let mut files = Vec::new();
    let read_started = Instant::now();
    let mut needed = HashSet::new();
    let mut paths = expand_paths(&request.manifests, &mut files);
    paths.retain(|p| !request.exclude.iter().any(|pattern| crate::load::glob::excludes(pattern, p)));
    let not_objects = not_objects(&request.manifests, &mut paths);
    let manifests = read_manifests(&paths, jobs, &limits, &mut needed, &mut files);
    let reading_manifests = read_started.elapsed();
    let mut native_diags = Vec::new();
    // CRDs among the manifests are checked as CRDs, not against apiextensions' OpenAPI.
    needed.remove(&(CRD_API_VERSION.to_owned(), CRD_KIND.to_owned()));
    let mut natives = crate::validate::native::load(&request.schemas, jobs, &limits, &needed, &mut native_diags);
    // Kubernetes' own schemas for the kinds the documents given do not have (they win).
    let given: HashSet<_> = natives.iter().map(NativeKind::api_version_kind).collect();
    let not_given: HashSet<_> = needed.difference(&given).cloned().collect();
    let mut kubernetes = match &request.kubernetes {
        _ if not_given.is_empty() => Vec::new(),
        Kubernetes::Builtin => crate::validate::native::builtin(&not_given, &mut native_diags),
        Kubernetes::Spec(spec) => {
            crate::validate::native::load(std::slice::from_ref(spec), jobs, &limits, &not_given, &mut native_diags)
        }
        Kubernetes::None => Vec::new(),
    };
    kubernetes.append(&mut natives);
    let natives = kubernetes;
    // The OpenAPI documents' warnings (a schema cut short) are the report's; their errors stop it.
    let (native_errors, native_warnings): (Vec<_>, Vec<_>) = native_diags.into_iter().partition(Diagnostic::is_error);
    diags.extend(native_errors);
    files.splice(0..0, native_warnings);
    // Native kinds alone need no CRD (and `load_crds` rightly refuses to find none).
    let crds = match request.crds.is_empty() {
        true => Vec::new(),
        false => served_crds(&request.crds, &needed, jobs, &limits, &mut diags),
    };
    if diags.iter().any(Diagnostic::is_error) {
        return Err(Diagnostics(diags.into_iter().filter(Diagnostic::is_error).collect()));
    }
    let schemas = Schemas::new(&crds, &natives);
    let loading_crds = started.elapsed() - reading_manifests;
    let old = read_old_objects(&request.old, &manifests, jobs, &limits, &mut files);
    schemas.compile_for(&needed, jobs);
    let total = manifests.iter().map(|m| m.documents).sum();
    let validate = |manifest: &Manifest, read: Read| {
        let Validated { mut findings, checked } = match read {
            Ok(doc) => {
                let (findings, checked) = validate_document(&manifest.file, doc, &schemas, &old, &request.policy);
                Validated { findings, checked }
            }
            Err(unreadable) => unreadable.validated(&manifest.file),
        };
        for f in &mut findings {
            let line = f.pos.and_then(|p| manifest.line(p.line));
            // A long line (a one-line JSON manifest) is not shown: copied into each of its
            // findings, it made many findings quadratic.
            f.source_line = line.filter(|l| l.len() <= MAX_SHOWN_LINE).map(str::to_owned);
        }
        Validated { findings, checked }
    };
    let mut report =
        Report { files, files_read: manifests.len(), not_objects, jobs, loading_crds, ..Report::default() };
    let (mut native_noted, mut done) = (false, 0);
    each_document(&manifests, jobs, validate, &mut |mut validated: Validated| {
        if let (true, false, Some(first)) = (validated.checked.native, native_noted, validated.findings.first_mut()) {
            first.note = Some(match first.note.take() {
                Some(note) => format!("{note}; {NATIVE_KINDS_NOTE}"),
                None => NATIVE_KINDS_NOTE.to_owned(),
            });
            native_noted = true;
        }
        report.counts.add(&validated);
        each(validated);
        done += 1;
        // Here, on the thread that hands documents on in order: a progress line is drawn
        // between findings printed, never across one.
        progress(done, total);
    });
    report.elapsed = started.elapsed();
    Ok(report)
}

/// The longest source line shown under a finding.
const MAX_SHOWN_LINE: usize = 500;

/// The schemas documents are validated against, by `apiVersion` and `kind`: the CRD versions
/// the apiserver would serve, and the native kinds of the OpenAPI documents given (a CRD wins
/// over a native kind of the same name). Each is compiled into a validator the first time a
/// document needs it, and shared by every thread.
struct Schemas<'c> {
    by_type: HashMap<(String, String), usize>,
    versions: Vec<SchemaVersion<'c>>,
    validators: Vec<OnceLock<ResourceValidator<'c>>>,
}

struct SchemaVersion<'c> {
    crd: &'c kubeskema::crd::Crd,
    version: usize,
    native: bool,
    /// Why a native kind's schema was cut short, when it was.
    cut: Option<&'c str>,
    /// What `metadata.name` must be.
    names: NameRule,
}

impl<'c> Schemas<'c> {
    fn new(crds: &'c [ServedCrd], natives: &'c [NativeKind]) -> Self {
        let mut schemas = Schemas { by_type: HashMap::new(), versions: Vec::new(), validators: Vec::new() };
        for native in natives {
            let cut = native.cut.as_deref();
            schemas.add(SchemaVersion { crd: &native.crd, version: 0, native: true, cut, names: native.names });
        }
        for served in crds {
            for (version, _) in served.served.iter().enumerate().filter(|(_, ok)| **ok) {
                let names = NameRule::Subdomain;
                schemas.add(SchemaVersion { crd: &served.crd, version, native: false, cut: None, names });
            }
        }
        schemas
    }

    fn add(&mut self, version: SchemaVersion<'c>) {
        let api_version = kubeskema::crd::api_version(&version.crd.group, &version.crd.versions[version.version].name);
        self.by_type.insert((api_version, version.crd.names.kind.clone()), self.versions.len());
        self.versions.push(version);
        self.validators.push(OnceLock::new());
    }

    /// Builds the validators of the `needed` types (`apiVersion`, `kind`), on `jobs` threads:
    /// each compiles its CEL rules, which takes longer than validating most documents, and
    /// threads that met at the first document of a kind would wait for one another.
    fn compile_for(&self, needed: &HashSet<(String, String)>, jobs: usize) {
        let mut indices: Vec<usize> = needed.iter().filter_map(|t| self.by_type.get(t).copied()).collect();
        indices.sort_unstable();
        crate::load::parallel::map(&indices, jobs, |&i| {
            self.compiled(i);
        });
    }

    fn compiled(&self, i: usize) -> &ResourceValidator<'c> {
        let SchemaVersion { crd, version, names, .. } = self.versions[i];
        self.validators[i].get_or_init(|| ResourceValidator::new(crd, &crd.versions[version]).with_names(names))
    }

    /// The validator of `apiVersion` `kind`, and whether it is a native kind's.
    fn validator(&self, api_version: &str, kind: &str) -> Option<(&ResourceValidator<'c>, &SchemaVersion<'c>)> {
        let i = *self.by_type.get(&(api_version.to_owned(), kind.to_owned()))?;
        Some((self.compiled(i), &self.versions[i]))
    }
}

/// A CRD as validation keeps it: checked when it was read, without the document it came from
/// or its JSON (validators need neither, and the two took most of a run's memory).
struct ServedCrd {
    crd: kubeskema::crd::Crd,
    /// Per version: whether the apiserver would serve it (it passed the CRD checks).
    served: Vec<bool>,
}

/// The CRDs in `paths`, each checked on the thread that read it; those that serve none of the
/// `needed` types (`apiVersion`, `kind`) are checked and dropped. A refused CRD is an error in
/// `diags` whether a document needs it or not, as `check` would say.
fn served_crds(
    paths: &[PathBuf],
    needed: &HashSet<(String, String)>,
    jobs: usize,
    limits: &InputLimits,
    diags: &mut Vec<Diagnostic>,
) -> Vec<ServedCrd> {
    let (crds, _) = load_crds_then(paths, true, jobs, limits, diags, |loaded, diags| {
        let served = crate::pipeline::with_deep_stack(|| crate::check::check_crd(&loaded, diags));
        let mut crd = loaded.crd;
        let serves_a_needed_type = crd.versions.iter().zip(&served).any(|(version, ok)| {
            *ok && needed.contains(&(kubeskema::crd::api_version(&crd.group, &version.name), crd.names.kind.clone()))
        });
        serves_a_needed_type.then(|| {
            crd.forget_raw();
            ServedCrd { crd, served }
        })
    });
    crds.into_iter().flatten().collect()
}

/// One manifest file: its text, where its lines are, and the types its documents name. Its
/// documents are read twice, once here for their types (the CRDs a run keeps) and once, one at
/// a time, as they are validated ([`map_documents`]): parsed, a document takes tens of times its
/// text, and a run's memory is then its largest documents', not all of its input's.
struct Manifest {
    file: PathBuf,
    text: String,
    /// Where each line of `text` starts (found once: a file's documents are validated apart).
    line_starts: Vec<usize>,
    /// How many documents are not empty.
    documents: usize,
}

impl Manifest {
    fn new(file: &Path, text: String, documents: usize) -> Self {
        let line_starts =
            kubeskema::yaml::lines(&text).map(|line| line.as_ptr() as usize - text.as_ptr() as usize).collect();
        Manifest { file: file.to_path_buf(), text, line_starts, documents }
    }

    /// Line `n` (1-based), without its line break.
    fn line(&self, n: usize) -> Option<&str> {
        let start = *self.line_starts.get(n.checked_sub(1)?)?;
        let end = self.line_starts.get(n).copied().unwrap_or(self.text.len());
        let line = &self.text[start..end];
        Some(line.strip_suffix("\r\n").or_else(|| line.strip_suffix(['\n', '\r'])).unwrap_or(line))
    }

    /// Hands each document that is not empty to `each`, as it is read; then the document the
    /// reader stopped in, if it stopped. [`read_manifests`] found the text's syntax sound, but
    /// not always by reading it whole ([`kubeskema::yaml::scan_types`] reads its events only):
    /// a document nested too deep, aliased too much or with a collection for a key is found
    /// here, and is a finding, not the silent end of its file.
    fn each_document(&self, each: &mut dyn FnMut(Read)) {
        let json = crate::load::reads_as_json(&self.file, &self.text);
        let mut next = 0;
        let read = kubeskema::yaml::read_each(&self.text, json, &mut |doc| {
            next = doc.index + 1;
            if !doc.is_null() {
                each(Ok(doc));
            }
        });
        if let Err(error) = read {
            each(Err(Unreadable { document: next, json, error }));
        }
    }
}

/// A document as read (its value made as its validator prunes it), or the one its file's
/// reading stopped in.
type Read = Result<Document<()>, Unreadable>;

/// The document a file's reading stopped in (as kubectl's reader stops at a document it
/// cannot read): the documents after it are not read.
struct Unreadable {
    /// 0-based document index in the file.
    document: usize,
    /// Whether the file was read as JSON.
    json: bool,
    error: kubeskema::yaml::YamlError,
}

impl Unreadable {
    /// The document's one finding and its verdict.
    fn validated(&self, file: &Path) -> Validated {
        let finding = crate::load::not_readable(file, self.json, &self.error);
        let subject = Subject::Object {
            document: self.document,
            api_version: String::new(),
            kind: String::new(),
            name: String::new(),
        };
        let finding = Diagnostic { subject, ..finding }
            .with_help("make this document readable: the documents after it in this file were not read");
        let checked = Checked {
            file: file.to_owned(),
            document: self.document,
            start: self.error.pos,
            api_version: String::new(),
            kind: String::new(),
            name: String::new(),
            verdict: Verdict::Unreadable,
            skipped_because: None,
            update: false,
            native: false,
        };
        Validated { findings: vec![finding], checked }
    }
}

/// Reads the files on `jobs` threads, and the types (`apiVersion`, `kind`) their documents
/// name into `types`; a file that cannot be read or parsed is reported to `diags` and left out.
/// The declared field one edit from an unknown one (a character added, dropped, changed or two
/// swapped: `dnsName` for `dnsNames`, `imagePullPolcy` for `imagePullPolicy`), where exactly
/// one is.
fn one_edit_from(schema: Option<&kubeskema::schema::Schema>, unknown: &kubeskema::path::Path) -> Option<String> {
    use kubeskema::path::Segment;
    use kubeskema::schema::AdditionalProperties;
    let segments = unknown.segments();
    let Segment::Property(name) = segments.last()? else { return None };
    let mut node = schema?;
    for segment in &segments[..segments.len() - 1] {
        node = match segment {
            Segment::Property(p) => node.properties.get(p)?,
            Segment::Index(_) => node.items.as_deref()?,
            Segment::Key(_) | Segment::RuleKey(_) => match &node.additional_properties {
                Some(AdditionalProperties::Schema(s)) => s,
                _ => return None,
            },
        };
    }
    let mut near = node.properties.keys().filter(|declared| one_edit(name, declared));
    let first = near.next()?;
    near.next().is_none().then(|| first.to_owned())
}

/// Whether `a` becomes `b` by one character added, dropped or changed, or two neighbours swapped.
fn one_edit(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (a_mid, b_mid) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    match (a_mid.len(), b_mid.len()) {
        (0, 0) => false,
        (1, 0) | (0, 1) | (1, 1) => true,
        (2, 2) => a_mid[0] == b_mid[1] && a_mid[1] == b_mid[0],
        _ => false,
    }
}

/// Takes out of `paths` the files a folder walk found that are not Kubernetes objects: a
/// kustomization (`kustomize build` renders the objects), and everything in a Helm chart (a
/// folder with a `Chart.yaml`: its templates are not YAML until `helm template` renders them).
/// A file named on the command line is read whatever it is.
fn not_objects(given: &[PathBuf], paths: &mut Vec<PathBuf>) -> Vec<(PathBuf, &'static str)> {
    const KUSTOMIZE: &str = "a kustomization (validate what `kustomize build` renders)";
    const HELM: &str = "in a Helm chart (validate what `helm template` renders)";
    let mut is_chart: HashMap<PathBuf, bool> = HashMap::new();
    let mut in_chart = |path: &Path| {
        let root = given.iter().filter(|g| path.starts_with(g)).max_by_key(|g| g.as_os_str().len());
        path.ancestors()
            .skip(1)
            .take_while(|a| root.is_some_and(|r| a.starts_with(r)))
            .any(|folder| *is_chart.entry(folder.to_owned()).or_insert_with(|| folder.join("Chart.yaml").is_file()))
    };
    let mut out = Vec::new();
    paths.retain(|path| {
        if given.contains(path) {
            return true;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let what = match name {
            "kustomization.yaml" | "kustomization.yml" | "Kustomization" => Some(KUSTOMIZE),
            _ if in_chart(path) => Some(HELM),
            _ => None,
        };
        out.extend(what.map(|w| (path.clone(), w)));
        what.is_none()
    });
    out
}

fn read_manifests(
    files: &[PathBuf],
    jobs: usize,
    limits: &InputLimits,
    types: &mut HashSet<(String, String)>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Manifest> {
    let read = crate::load::read_each(files, jobs, limits, diags, |file, text, diags| {
        // YAML's types are read from its events alone where they can be (half a parse).
        let scanned = (!crate::load::reads_as_json(file, &text)).then(|| kubeskema::yaml::scan_types(&text)).flatten();
        if let Some(scanned) = scanned {
            return Some((Manifest::new(file, text, scanned.documents), scanned.types));
        }
        // Read, not converted: a document's value is made when it is validated, pruned.
        let mut parsed = kubeskema::yaml::ScannedTypes::default();
        let read = crate::load::read_text_each(file, &text, diags, &mut |doc| {
            if !doc.is_null() {
                let (api_version, kind, _, _) = key_of(|p| doc.str_at(p));
                parsed.add(api_version, kind);
            }
        });
        read.then(|| (Manifest::new(file, text, parsed.documents), parsed.types))
    });
    read.into_iter()
        .map(|(manifest, file_types)| {
            types.extend(file_types);
            manifest
        })
        .collect()
}

/// Documents waiting to be validated, numbered in input order, shared by the threads that take
/// them.
type Queue<'m> = Arc<Mutex<std::sync::mpsc::Receiver<(usize, &'m Manifest, Read)>>>;

/// Hands `f` of every document that is not empty to `each`, in file and document order, `f`
/// run on `jobs` threads. The documents are parsed on one thread as they are needed, and at
/// most a few per thread are parsed, waiting or done but not yet handed on: what is in memory
/// at once is a few documents, whatever the input's size. One job parses and validates on this
/// thread alone.
fn each_document<R: Send>(
    manifests: &[Manifest],
    jobs: usize,
    f: impl Fn(&Manifest, Read) -> R + Sync,
    each: &mut dyn FnMut(R),
) {
    let on_this_thread = |each: &mut dyn FnMut(R)| {
        for manifest in manifests {
            manifest.each_document(&mut |doc| each(f(manifest, doc)));
        }
    };
    if jobs <= 1 {
        return on_this_thread(each);
    }
    // Documents parsed but not yet handed on: a ticket each, returned when it is handed on.
    let window = 64 * jobs;
    let (tickets, ticket) = std::sync::mpsc::sync_channel(window);
    (0..window).for_each(|_| tickets.send(()).unwrap_or_default());
    let (send, receive) = std::sync::mpsc::sync_channel(window);
    let receive: Queue<'_> = Arc::new(Mutex::new(receive));
    let (results, result) = std::sync::mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        let f = &f;
        // The main thread's stack size, as `parallel::map` gives its helpers.
        let workers: Vec<_> = (0..jobs)
            .filter_map(|_| {
                let (receive, results) = (Arc::clone(&receive), results.clone());
                let work = move || {
                    // The lock is held while waiting: the next document goes to whichever
                    // thread asked first.
                    while let Some((i, manifest, doc)) = receive.lock().ok().and_then(|r| r.recv().ok()) {
                        if results.send((i, f(manifest, doc))).is_err() {
                            return;
                        }
                    }
                };
                std::thread::Builder::new().stack_size(8 << 20).spawn_scoped(scope, work).ok()
            })
            .collect();
        // The workers alone hold the queue's receiving end and the results' sending end: when
        // none is left, the parser's sends and this thread's receives fail instead of waiting.
        drop((receive, results));
        if workers.is_empty() {
            return on_this_thread(each);
        }
        scope.spawn(move || {
            let mut i = 0;
            for manifest in manifests {
                manifest.each_document(&mut |doc| {
                    // A failed receive or send: the workers or this thread are gone; the
                    // documents left are not wanted.
                    if ticket.recv().is_ok() && send.send((i, manifest, doc)).is_ok() {
                        i += 1;
                    }
                });
            }
        });
        // Results come in the order threads finish them, and are handed on in input order.
        let mut waiting = std::collections::BTreeMap::new();
        let mut next = 0;
        for (i, r) in result.iter() {
            waiting.insert(i, r);
            while let Some(r) = waiting.remove(&next) {
                each(r);
                next += 1;
                let _ = tickets.send(());
            }
        }
        drop(tickets);
        for worker in workers {
            if let Err(panic) = worker.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}

/// What identifies an object in a cluster: `apiVersion`, `kind`, namespace and name (an
/// absent namespace is the empty one on both sides).
type ObjectKey = (String, String, String, String);

fn object_key(object: &Value) -> ObjectKey {
    key_of(|p| object.pointer(p).and_then(Value::as_str))
}

/// The key of the object whose string at a JSON pointer is `at`'s.
fn key_of<'v>(at: impl Fn(&str) -> Option<&'v str>) -> ObjectKey {
    let text = |p: &str| at(p).unwrap_or_default().to_owned();
    (text("/apiVersion"), text("/kind"), text("/metadata/namespace"), text("/metadata/name"))
}

/// The old objects by [`ObjectKey`]; the first of two with the same key wins.
fn read_old_objects(
    old: &OldObjects,
    manifests: &[Manifest],
    jobs: usize,
    limits: &InputLimits,
    diags: &mut Vec<Diagnostic>,
) -> HashMap<ObjectKey, Value> {
    let documents: Vec<Document> = match old {
        OldObjects::None => Vec::new(),
        OldObjects::Files(paths) => {
            crate::load::read_each(&expand_paths(paths, diags), jobs, limits, diags, |file, text, diags| {
                parse_text(file, &text, diags).unwrap_or_default()
            })
        }
        OldObjects::GitRef(rev) => {
            let files: Vec<&Path> =
                manifests.iter().map(|m| m.file.as_path()).filter(|f| f.as_os_str() != "-").collect();
            match files.first().map(|f| crate::load::git_revision_problem(rev, f)) {
                Some(Some(problem)) => {
                    diags.push(
                        Diagnostic::file_error(files[0], None, Code::GitRef, problem)
                            .with_help("give a commit, branch or tag of the repository the manifests are in"),
                    );
                    Vec::new()
                }
                _ => crate::load::read_at_revision(rev, &files)
                    .into_iter()
                    .zip(&files)
                    .filter_map(|(text, file)| {
                        let mut parse_diags = Vec::new();
                        let documents = parse_text(file, text.as_deref()?, &mut parse_diags);
                        // An old version that does not parse has no objects to compare with;
                        // its documents are validated as creates.
                        diags.extend(parse_diags.into_iter().map(|d| {
                            d.map_detail(|detail| format!("at {rev}: {detail}"))
                                .as_warning()
                                .with_help("its documents are validated as creates")
                        }));
                        documents
                    })
                    .flatten()
                    .collect(),
            }
        }
    };
    let mut objects = HashMap::new();
    for doc in documents {
        if doc.value.is_object() {
            objects.entry(object_key(&doc.value)).or_insert(doc.value);
        }
    }
    objects
}

/// A CRD's `apiVersion` and `kind`, as the apiserver 1.36 serves them.
const CRD_API_VERSION: &str = "apiextensions.k8s.io/v1";
const CRD_KIND: &str = "CustomResourceDefinition";

/// A CRD among the manifests, checked as the apiserver checks a CRD it is sent (what `check`
/// runs), not against apiextensions' OpenAPI schema, which passes CRDs the apiserver refuses
/// (a schema that is not structural, a CEL rule that does not compile).
fn crd_findings(file: &Path, doc: Document, mut checked: Checked) -> (Vec<Diagnostic>, Checked) {
    let (value, doc) = doc.take_value();
    let (crd, errors) = kubeskema::crd::Crd::parse_owned(value);
    let loaded = crate::load::LoadedCrd { file: file.to_owned(), doc: Arc::new(doc), crd, base: String::new() };
    let mut findings = Vec::new();
    crate::load::report_parse_errors(&loaded, errors, &mut findings);
    crate::pipeline::with_deep_stack(|| crate::check::check_crd(&loaded, &mut findings));
    let subject = Subject::Object {
        document: checked.document,
        api_version: checked.api_version.clone(),
        kind: checked.kind.clone(),
        name: checked.name.clone(),
    };
    for finding in &mut findings {
        finding.subject = subject.clone();
    }
    checked.verdict = if findings.iter().any(Diagnostic::is_error) { Verdict::Invalid } else { Verdict::Valid };
    (findings, checked)
}

fn validate_document(
    file: &Path,
    doc: Document<()>,
    schemas: &Schemas<'_>,
    old: &HashMap<ObjectKey, Value>,
    policy: &Policy,
) -> (Vec<Diagnostic>, Checked) {
    let key = key_of(|p| doc.str_at(p));
    let (api_version, kind, _, name) = &key;
    let doc = &doc;
    let mut findings = Vec::new();
    let finding = |severity, pointer: &str, field: String, code, detail: String, message: String| Diagnostic {
        severity,
        code,
        file: file.to_owned(),
        pos: Some(doc.nearest_position(pointer)),
        subject: Subject::Object {
            document: doc.index,
            api_version: api_version.clone(),
            kind: kind.clone(),
            name: name.clone(),
        },
        field,
        pointer: pointer.to_owned(),
        detail,
        message,
        help: None,
        note: None,
        source_line: None,
    };
    let of_issue = |severity, issue: &kubeskema::issue::Issue| {
        let pointer = issue.path.pointer();
        let code = Code::Field(issue.error_type);
        finding(severity, &pointer, issue.field(), code, issue.body(), issue.to_string())
    };
    let mut checked = Checked {
        file: file.to_owned(),
        document: doc.index,
        start: doc.start,
        api_version: api_version.clone(),
        kind: kind.clone(),
        name: name.clone(),
        verdict: Verdict::Invalid,
        skipped_because: None,
        update: false,
        native: false,
    };
    let skip = |mut checked: Checked, because: String| {
        checked.verdict = Verdict::Skipped;
        checked.skipped_because = Some(because);
        (Vec::new(), checked)
    };
    if api_version.is_empty() || kind.is_empty() {
        let missing = match (api_version.is_empty(), kind.is_empty()) {
            (true, true) => "apiVersion and kind",
            (true, false) => "apiVersion",
            _ => "kind",
        };
        let message = format!("not a Kubernetes object: no {missing}");
        findings.push(finding(Severity::Error, "", String::new(), Code::NotAnObject, message.clone(), message));
        return (findings, checked);
    }
    if Policy::lists(&policy.skip_kinds, api_version, kind) {
        return skip(checked, format!("{kind} is skipped (--skip-kinds)"));
    }
    if Policy::lists(&policy.reject_kinds, api_version, kind) {
        let message = format!("{api_version} {kind} is not allowed here (--reject-kinds)");
        findings.push(finding(Severity::Error, "/kind", "kind".into(), Code::RejectedKind, message.clone(), message));
        return (findings, checked);
    }
    // A CRD is checked as the apiserver checks one, which needs its document whole.
    if api_version == CRD_API_VERSION && kind == CRD_KIND {
        return crd_findings(file, doc.clone().converted(), checked);
    }
    let Some((validator, schema)) = schemas.validator(api_version, kind) else {
        let message = format!("no CRD or OpenAPI schema given for {api_version} {kind}");
        if policy.ignore_missing_schemas {
            return skip(checked, format!("{message} (--ignore-missing-schemas)"));
        }
        let help = "give its CRD (--crd); a native kind of another Kubernetes release than 1.36 needs that release's \
            OpenAPI (--kubernetes-version with its api/openapi-spec/v3 folder, or --schemas with what `kubectl get --raw \
            /openapi/v3/apis/apps/v1` prints); or skip such documents (--ignore-missing-schemas, --skip-kinds)";
        findings.push(Diagnostic {
            help: Some(help.into()),
            ..finding(Severity::Error, "", String::new(), Code::NoSchema, message.clone(), message)
        });
        return (findings, checked);
    };
    checked.native = schema.native;
    // A schema cut short passes what lies below the cut: the document says so, every time.
    if let Some(cut) = schema.cut {
        let message = format!("validated against a schema cut short ({cut}): values below the cut were not checked");
        findings.push(finding(Severity::Warning, "", String::new(), Code::SchemaTooLarge, message.clone(), message));
    }
    // Unknown and duplicate fields: under the apiserver's default `fieldValidation=Warn` a
    // warning each, in its words; under `Strict` its error, whose text each finding carries
    // (the apiserver then answers 400 with all of them joined, and validates nothing more; a
    // linter goes on, so that one run shows every problem).
    let (strict, prefix) =
        if policy.strict { (Severity::Error, "strict decoding error: ") } else { (Severity::Warning, "") };
    for dup in &doc.duplicates {
        let issue = kubeskema::decode::duplicate_issue(&dup.pointer);
        let dotted = issue.path.openapi();
        let message = format!("{prefix}{}", issue.detail);
        findings.push(Diagnostic {
            pos: Some(dup.pos),
            ..finding(strict, &dup.pointer, dotted, Code::DuplicateField, issue.detail, message)
        });
    }
    let version_schema = schema.crd.versions.get(schema.version).and_then(|v| v.schema.as_ref());
    let previous = old.get(&key);
    checked.update = previous.is_some();
    let outcome: Outcome = match previous {
        Some(previous) => validator.validate_update_read(doc, previous),
        None => validator.validate_create_read(doc),
    };
    for unknown in &outcome.pruned {
        let detail = kubeskema::decode::strict_issue(unknown.clone(), "unknown").detail;
        let message = format!("{prefix}{detail}");
        let help = one_edit_from(version_schema, unknown).map(|name| format!("did you mean `{name}`?"));
        findings.push(Diagnostic {
            help,
            ..finding(strict, &unknown.pointer(), unknown.openapi(), Code::UnknownField, detail, message)
        });
    }
    for issue in &outcome.issues {
        let pointer = issue.path.pointer();
        // YAML reads `1e400` as the string "1e400" (go-yaml does, so the apiserver sees a
        // string too): say so beside the type error that calls it "string".
        let note = doc.out_of_range.contains(&pointer).then(|| {
            format!(
                "{} does not fit a float64, so YAML reads it as a string (as kubectl does); write a number in range",
                outcome
                    .object
                    .pointer(&pointer)
                    .and_then(Value::as_str)
                    .map(|v| v.chars().take(40).collect::<String>())
                    .unwrap_or_default()
            )
        });
        findings.push(Diagnostic { note, ..of_issue(Severity::Error, issue) });
    }
    for issue in &outcome.warnings {
        findings.push(Diagnostic {
            note: Some(
                "ratcheted: the old object fails this rule too and this place did not change, so the apiserver \
                 warns and stores the update"
                    .into(),
            ),
            ..of_issue(Severity::Warning, issue)
        });
    }
    if !findings.iter().any(|f| f.severity == Severity::Error) {
        checked.verdict = Verdict::Valid;
    }
    (findings, checked)
}

#[cfg(test)]
mod tests {
    use super::one_edit;

    #[test]
    fn one_edit_is_one_character_added_dropped_changed_or_two_swapped() {
        for (a, b) in
            [("dnsName", "dnsNames"), ("imagePullPolcy", "imagePullPolicy"), ("relpicas", "replicas"), ("x", "y")]
        {
            assert!(one_edit(a, b) && one_edit(b, a), "{a} / {b}");
        }
        for (a, b) in [("same", "same"), ("replicas", "replica_s_"), ("abc", "cba"), ("", "ab"), ("spec", "status")] {
            assert!(!one_edit(a, b), "{a} / {b}");
        }
    }
}
