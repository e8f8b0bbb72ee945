//! Phase 1, load: files and folders → YAML/JSON documents → CRDs. The only module that reads
//! the file system.
//!
//! A folder is read recursively (`*.yaml`, `*.yml`, `*.json`, sorted by path so the output is
//! deterministic); `-` reads standard input. A document that is not a CRD is an error, or,
//! when asked (`skip_non_crds`: bundles that also hold Namespaces and Deployments), a
//! warning; a file with no CRD at all is always an error, since it is almost always a wrong
//! path.

pub mod glob;
pub mod parallel;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use kubeskema::crd::{self, Crd};
use kubeskema::issue::ErrorType;
use kubeskema::yaml::{self, Document};

use crate::diagnostic::{Code, Diagnostic, Severity, Subject};

/// One CRD document and where it came from.
#[derive(Clone, Debug)]
pub struct LoadedCrd {
    /// The file, as the user named it (relative paths stay relative).
    pub file: PathBuf,
    /// The document as read, for positions: shared by every CRD of a `List` (a copy each made
    /// a List of n CRDs cost n times its size), and by a CRD that is the whole document, whose
    /// schemas are read from it ([`Crd::parse_document`]).
    pub doc: Arc<Document<()>>,
    /// The CRD read from it.
    pub crd: Crd,
    /// Where the CRD sits in the document: `""`, or `/items/3` inside a `List`.
    pub base: String,
}

impl LoadedCrd {
    /// A diagnostic at a JSON pointer of this CRD (relative to the CRD, not its document).
    pub fn diagnostic(
        &self,
        severity: Severity,
        pointer: &str,
        code: Code,
        field: String,
        detail: String,
    ) -> Diagnostic {
        let pos = Some(self.doc.nearest_position(&format!("{}{pointer}", self.base)));
        let subject = Subject::Crd { name: Some(self.crd.name.clone()), version: None };
        Diagnostic {
            pointer: pointer.to_owned(),
            ..Diagnostic::new(severity, code, &self.file, pos, subject, field, detail)
        }
    }
}

/// Expands files and folders into the list of files to read, sorted within each folder.
pub fn expand_paths(paths: &[PathBuf], diags: &mut Vec<Diagnostic>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            out.push(p.clone());
            continue;
        }
        match std::fs::metadata(p) {
            Ok(m) if m.is_file() => out.push(p.clone()),
            Ok(m) if m.is_dir() => {
                let mut found = Vec::new();
                walk(p, &mut found, diags);
                found.sort();
                out.extend(found);
            }
            Ok(_) => diags.push(not_regular(p)),
            Err(_) => diags.push(
                Diagnostic::file_error(p, None, Code::NotFound, "no such file or folder")
                    .with_help("give a file (.yaml, .yml, .json), a folder of them, or - for standard input"),
            ),
        }
    }
    out
}

/// A FIFO, socket or device: reading it could block forever, so it is skipped with a warning.
fn not_regular(p: &Path) -> Diagnostic {
    Diagnostic::file_error(p, None, Code::NotAFile, "not a regular file (a FIFO, socket or device); skipped")
        .as_warning()
}

/// The CRD files of a folder and its subfolders: `.yaml`, `.yml` and `.json` in any case.
/// Subfolders reached through a symbolic link are not entered (a link to an ancestor would
/// never end); linked files are read.
fn walk(dir: &Path, out: &mut Vec<PathBuf>, diags: &mut Vec<Diagnostic>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            diags.push(Diagnostic::file_error(dir, None, Code::Io, format!("cannot read folder: {e}")));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            walk(&path, out, diags);
            continue;
        }
        let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        if !matches!(extension.as_deref(), Some("yaml" | "yml" | "json")) {
            continue;
        }
        match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => out.push(path),
            Ok(m) if m.is_dir() => {}
            Ok(_) => diags.push(not_regular(&path)),
            Err(e) => diags.push(
                Diagnostic::file_error(&path, None, Code::Io, format!("cannot be read ({e}); skipped")).as_warning(),
            ),
        }
    }
}

/// How much input a run reads: each file, and all of them (CRDs, OpenAPI documents,
/// manifests and old objects together). Reading and parsing takes memory in proportion
/// (documents parse to about 10-50 bytes per input byte, by shape): past a limit a file is
/// refused, naming the file and the limit, rather than the process running out of memory.
#[derive(Debug)]
pub struct InputLimits {
    /// The largest file read, in bytes (`--max-file-size`).
    pub per_file: u64,
    /// The most read in all, in bytes (`--max-input-size`).
    pub per_run: u64,
    /// What this run has taken so far.
    taken: std::sync::atomic::AtomicU64,
}

/// The default per-file limit: 32 MiB.
pub const MAX_FILE_BYTES: u64 = 32 << 20;
/// The default per-run limit: 64 MiB. Validation's peak memory is at worst about 280 bytes per
/// input byte (a one-line JSON array of small numbers: `cargo bench -p kubeskema-codegen
/// --bench input_memory`), so a run stays under 18 GiB.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

impl Default for InputLimits {
    fn default() -> Self {
        InputLimits::new(MAX_FILE_BYTES, MAX_INPUT_BYTES)
    }
}

impl InputLimits {
    /// Limits of `per_file` and `per_run` bytes, nothing taken yet.
    pub fn new(per_file: u64, per_run: u64) -> Self {
        InputLimits { per_file, per_run, taken: std::sync::atomic::AtomicU64::new(0) }
    }

    /// Takes `size` bytes of the run's allowance for `file`; the problem when it is past a limit.
    /// `size` is the file's size, or for standard input what was read of it: no more than one
    /// byte past the per-file limit, so its size is not known beyond that.
    fn take(&self, file: &Path, size: u64) -> Option<Diagnostic> {
        use std::sync::atomic::Ordering;
        let mib = |n: u64| {
            if n < 1 << 20 { format!("{n} bytes") } else { format!("{:.1} MiB", n as f64 / f64::from(1 << 20)) }
        };
        if size > self.per_file {
            let message = if file.as_os_str() == "-" {
                format!("standard input holds more than a file may be ({})", mib(self.per_file))
            } else {
                format!("the file is {}, more than a file may be ({})", mib(size), mib(self.per_file))
            };
            return Some(
                Diagnostic::file_error(file, None, Code::TooLarge, message).with_help("raise --max-file-size"),
            );
        }
        let taken = self.taken.fetch_add(size, Ordering::Relaxed) + size;
        if taken > self.per_run {
            self.taken.fetch_sub(size, Ordering::Relaxed);
            let message = format!(
                "reading it takes the run's input to {}, more than a run reads ({})",
                mib(taken),
                mib(self.per_run)
            );
            return Some(
                Diagnostic::file_error(file, None, Code::TooLarge, message).with_help("raise --max-input-size"),
            );
        }
        None
    }
}

/// Reads a file whose size [`read_each`] has taken, or standard input for `-` (no more than
/// the per-file limit allows, its size taken as it is read); a failure is reported to `diags`.
fn read_text(path: &Path, limits: &InputLimits, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let io_error = |e: std::io::Error| Diagnostic::file_error(path, None, Code::Io, format!("cannot read: {e}"));
    let mut text = String::new();
    let problem = if path.as_os_str() == "-" {
        match std::io::stdin().lock().take(limits.per_file.saturating_add(1)).read_to_string(&mut text) {
            Ok(n) => limits.take(path, n as u64),
            Err(e) => Some(io_error(e)),
        }
    } else {
        match std::fs::read_to_string(path) {
            Ok(read) => {
                text = read;
                None
            }
            Err(e) => Some(io_error(e)),
        }
    };
    match problem {
        Some(problem) => {
            diags.push(problem);
            None
        }
        None => Some(text),
    }
}

/// Reads the documents of one text; a syntax error is reported to `diags` with its
/// line:column. A `.json` file, or a text that starts with `{`, is JSON (kubectl's JSON
/// decoder); the rest YAML.
pub fn parse_text(path: &Path, text: &str, diags: &mut Vec<Diagnostic>) -> Option<Vec<Document>> {
    let mut documents = Vec::new();
    parse_text_each(path, text, diags, &mut |doc| documents.push(doc)).then_some(documents)
}

/// Whether a file is read as JSON: a `.json` file, or a text kubectl reads as JSON.
pub fn reads_as_json(path: &Path, text: &str) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) || yaml::looks_like_json(text)
}

/// [`parse_text`] one document at a time: each is handed to `each` as soon as it is read, and
/// none is kept. Returns whether the whole text could be read (a syntax error is in `diags`).
pub fn parse_text_each(path: &Path, text: &str, diags: &mut Vec<Diagnostic>, each: &mut dyn FnMut(Document)) -> bool {
    let json = reads_as_json(path, text);
    yaml::parse_each(text, json, each).map_err(|e| diags.push(not_readable(path, json, &e))).is_ok()
}

/// [`parse_text_each`], each document handed on as read, its value not made
/// ([`yaml::read_each`]): for readers that convert only part of it.
pub fn read_text_each(
    path: &Path,
    text: &str,
    diags: &mut Vec<Diagnostic>,
    each: &mut dyn FnMut(Document<()>),
) -> bool {
    let json = reads_as_json(path, text);
    yaml::read_each(text, json, each).map_err(|e| diags.push(not_readable(path, json, &e))).is_ok()
}

/// A text the reader stopped in: where, and why.
pub fn not_readable(path: &Path, json: bool, error: &yaml::YamlError) -> Diagnostic {
    let detail = format!("not valid {}: {}", if json { "JSON" } else { "YAML" }, error.message);
    Diagnostic::file_error(path, Some(error.pos), Code::YamlSyntax, detail)
}

/// Why `rev` is not a commit of the repository `file` is in, if it is not.
pub fn git_revision_problem(rev: &str, file: &Path) -> Option<String> {
    let repository =
        std::process::Command::new("git").arg("-C").arg(folder_of(file)).args(["rev-parse", "--git-dir"]).output();
    match repository {
        Ok(o) if !o.status.success() => {
            return Some(format!(
                "this file is not in a git repository: --old-ref `{rev}` reads old objects from the repository a manifest is in"
            ));
        }
        Err(e) => return Some(format!("cannot run git to read the old objects at `{rev}`: {e}")),
        Ok(_) => {}
    }
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(folder_of(file))
        .args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
        .arg(format!("{rev}^{{commit}}"))
        .output();
    match output {
        Ok(o) if o.status.success() => None,
        Ok(_) => Some(format!("`{rev}` is not a commit of the git repository this file is in")),
        Err(e) => Some(format!("cannot run git to read the old objects at `{rev}`: {e}")),
    }
}

/// The text of each file at git revision `rev` (`--old-ref`), `None` for one that did not
/// exist there. One `git cat-file --batch` reads every file of the first file's repository (a
/// process per file took seconds for a few thousand); a file outside it gets a `git show` of
/// its own.
pub fn read_at_revision(rev: &str, files: &[&Path]) -> Vec<Option<String>> {
    let Some(first) = files.first() else { return Vec::new() };
    let toplevel = std::process::Command::new("git")
        .arg("-C")
        .arg(folder_of(first))
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| std::fs::canonicalize(String::from_utf8_lossy(&o.stdout).trim_end()).ok());
    // Each file's path in the repository, where it has one the batch protocol can carry.
    let in_repository: Vec<Option<String>> = files
        .iter()
        .map(|file| {
            let relative = std::fs::canonicalize(file).ok()?.strip_prefix(toplevel.as_ref()?).ok()?.to_owned();
            let relative = relative.to_str()?.replace('\\', "/");
            // The batch protocol is line-based, and git trims a line's trailing spaces and CR:
            // a name with a control character goes to `git show` with its bytes as they are.
            (!relative.contains(|c: char| c.is_control())).then_some(relative)
        })
        .collect();
    let requests: Vec<&str> = in_repository.iter().flatten().map(String::as_str).collect();
    let mut batch = match (&toplevel, requests.is_empty()) {
        (Some(toplevel), false) => cat_file_batch(toplevel, rev, &requests).into_iter(),
        _ => Vec::new().into_iter(),
    };
    files
        .iter()
        .zip(&in_repository)
        .map(|(file, relative)| match relative {
            Some(_) => batch.next().flatten(),
            None => show_one(rev, file),
        })
        .collect()
}

/// `git cat-file --batch` in `repository`: each path's text at `rev`, `None` where it is
/// missing (or git failed).
fn cat_file_batch(repository: &Path, rev: &str, paths: &[&str]) -> Vec<Option<String>> {
    use std::io::{BufRead, Read, Write};
    use std::process::{Command, Stdio};
    let child = Command::new("git")
        .arg("-C")
        .arg(repository)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return vec![None; paths.len()] };
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return vec![None; paths.len()];
    };
    let requests: String = paths.iter().map(|p| format!("{rev}:{p}\n")).collect();
    let mut out = Vec::with_capacity(paths.len());
    std::thread::scope(|scope| {
        // Written from another thread: git answers while it reads, and a pipe holds little.
        scope.spawn(move || stdin.write_all(requests.as_bytes()));
        let mut reader = std::io::BufReader::new(stdout);
        for _ in paths {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                break;
            }
            // `<oid> blob <size>`, or `<object> missing`.
            let size = header.trim_end().rsplit(' ').next().and_then(|n| n.parse::<usize>().ok());
            let Some(size) = size.filter(|_| header.split(' ').nth(1) == Some("blob")) else {
                out.push(None);
                continue;
            };
            let mut body = vec![0; size + 1];
            if reader.read_exact(&mut body).is_err() {
                break;
            }
            body.pop();
            out.push(Some(String::from_utf8_lossy(&body).into_owned()));
        }
    });
    let _ = child.wait();
    out.resize(paths.len(), None);
    out
}

/// `git show rev:./name` in the file's folder, the name's bytes as the file system has them.
fn show_one(rev: &str, file: &Path) -> Option<String> {
    let mut object = std::ffi::OsString::from(format!("{rev}:./"));
    object.push(file.file_name()?);
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(folder_of(file))
        .args(["show", "--end-of-options"])
        .arg(object)
        .output()
        .ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

fn folder_of(file: &Path) -> &Path {
    file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// What `read` makes of each file's text, on up to `jobs` threads (0: every core), in file
/// order; the problems each file has are pushed to `diags` in file order too. Every file is
/// read here, within `limits`: the sizes are taken in file order first, so which file a run's
/// limit refuses does not depend on the threads.
pub fn read_each<T: Send, I: IntoIterator<Item = T>>(
    files: &[PathBuf],
    jobs: usize,
    limits: &InputLimits,
    diags: &mut Vec<Diagnostic>,
    read: impl Fn(&Path, String, &mut Vec<Diagnostic>) -> I + Sync,
) -> Vec<T> {
    let mut refused: Vec<Option<Diagnostic>> = Vec::with_capacity(files.len());
    for file in files {
        // Standard input's size is taken as it is read.
        let size = if file.as_os_str() == "-" { Ok(0) } else { std::fs::metadata(file).map(|m| m.len()) };
        refused.push(match size {
            Ok(size) => limits.take(file, size),
            // Reported by the read below.
            Err(_) => None,
        });
    }
    let work: Vec<(&PathBuf, Option<Diagnostic>)> = files.iter().zip(refused).collect();
    let per_file = crate::load::parallel::map(&work, crate::load::parallel::threads(jobs), |(file, refused)| {
        let mut diags = Vec::new();
        if let Some(problem) = refused {
            diags.push(problem.clone());
            return (Vec::new(), diags);
        }
        let items: Vec<T> = match read_text(file, limits, &mut diags) {
            Some(text) => read(file, text, &mut diags).into_iter().collect(),
            None => Vec::new(),
        };
        (items, diags)
    });
    let mut out = Vec::new();
    for (items, file_diags) in per_file {
        out.extend(items);
        diags.extend(file_diags);
    }
    out
}

/// Loads every CRD in the given files and folders, the files read and parsed on up to `jobs`
/// threads (0: every core). Problems are pushed to `diags`; the CRDs that could be read are
/// returned either way, in file order, with the list of files read.
pub fn load_crds(
    paths: &[PathBuf],
    skip_non_crds: bool,
    jobs: usize,
    limits: &InputLimits,
    diags: &mut Vec<Diagnostic>,
) -> (Vec<LoadedCrd>, Vec<PathBuf>) {
    load_crds_then(paths, skip_non_crds, jobs, limits, diags, |loaded, _| loaded)
}

/// [`load_crds`], each CRD passed through `then` on the thread that read it as soon as its file
/// is read, and what `then` returns kept instead: `validate` checks each CRD there and keeps
/// only what validation needs, so that the documents of every CRD file (ten times their text)
/// are never in memory at once.
pub fn load_crds_then<T: Send>(
    paths: &[PathBuf],
    skip_non_crds: bool,
    jobs: usize,
    limits: &InputLimits,
    diags: &mut Vec<Diagnostic>,
    then: impl Fn(LoadedCrd, &mut Vec<Diagnostic>) -> T + Sync,
) -> (Vec<T>, Vec<PathBuf>) {
    let files = expand_paths(paths, diags);
    let out = read_each(&files, jobs, limits, diags, |file, text, diags| {
        let mut out = Vec::new();
        crds_of_file(file, &text, skip_non_crds, diags, &mut |loaded, diags| out.push(then(loaded, diags)));
        out
    });
    // An empty folder (or one of other files) gives nothing to check or generate: say so
    // rather than succeed with nothing.
    if out.is_empty() && !diags.iter().any(Diagnostic::is_error) {
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        let place = paths.first().cloned().unwrap_or_default();
        diags.push(
            Diagnostic::file_error(
                place,
                None,
                Code::NoCrd,
                format!("no CustomResourceDefinition found in {}", shown.join(", ")),
            )
            .with_help("give CRD files (.yaml, .yml, .json) or folders that hold them"),
        );
    }
    (out, files)
}

/// The CRDs of one file's text read elsewhere (at a git revision): other documents are skipped.
pub fn crds_of_text(file: &Path, text: &str, diags: &mut Vec<Diagnostic>) -> Vec<LoadedCrd> {
    let mut out = Vec::new();
    crds_of_file(file, text, true, diags, &mut |loaded, _| out.push(loaded));
    out
}

/// Hands each CRD of the file to `each` as soon as its document is read (a file of many CRDs
/// is never in memory at once), the problems found so far beside it.
fn crds_of_file(
    file: &Path,
    text: &str,
    skip_non_crds: bool,
    diags: &mut Vec<Diagnostic>,
    each: &mut dyn FnMut(LoadedCrd, &mut Vec<Diagnostic>),
) {
    let (mut found, mut syntax) = (0, Vec::new());
    let read = read_text_each(file, text, &mut syntax, &mut |doc| {
        let mut crds = Vec::new();
        crds_of_document(file, doc, skip_non_crds, &mut crds, diags);
        found += crds.len();
        crds.into_iter().for_each(|loaded| each(loaded, diags));
    });
    diags.extend(syntax);
    // With skip_non_crds a file of other objects is expected in a bundle; otherwise a file
    // with no CRD at all is almost always a wrong path.
    if read && found == 0 && !skip_non_crds {
        diags.push(
            Diagnostic::file_error(file, None, Code::NoCrd, "no CustomResourceDefinition in this file")
                .with_help("CRDs have `apiVersion: apiextensions.k8s.io/v1` and `kind: CustomResourceDefinition`"),
        );
    }
}

fn crds_of_document(
    file: &Path,
    doc: Document<()>,
    skip_non_crds: bool,
    out: &mut Vec<LoadedCrd>,
    diags: &mut Vec<Diagnostic>,
) {
    if doc.is_null() {
        return;
    }
    // A `List` (kubectl get -o yaml) holds CRDs in `items`.
    if doc.str_at("/kind") == Some("List") {
        let items = doc.value_at("/items");
        let doc = Arc::new(doc);
        for (i, item) in items.iter().filter_map(|items| items.as_array()).flatten().enumerate() {
            if crd::is_crd(item) {
                let (crd, errors) = Crd::parse(item);
                let loaded =
                    LoadedCrd { file: file.to_owned(), doc: Arc::clone(&doc), crd, base: format!("/items/{i}") };
                report_parse_errors(&loaded, errors, diags);
                out.push(loaded);
            }
        }
        return;
    }
    if !crd::is_crd_type(doc.str_at("/apiVersion"), doc.str_at("/kind")) {
        let kind = doc.str_at("/kind").unwrap_or("<no kind>");
        let d = Diagnostic::file_error(
            file,
            Some(doc.start),
            Code::NotACrd,
            format!("document {} is a {kind}, not a CustomResourceDefinition", doc.index),
        );
        diags.push(match skip_non_crds {
            true => d.map_detail(|detail| format!("{detail}; skipped")).as_warning(),
            false => d.with_help("remove it, or pass --skip-non-crds (Config::skip_non_crds) to skip such documents"),
        });
        return;
    }
    for dup in &doc.duplicates {
        diags.push(
            Diagnostic::file_error(
                file,
                Some(dup.pos),
                Code::DuplicateKey,
                format!(
                    "duplicate key {} (first at {}); the apiserver keeps the last one",
                    pointer_last(&dup.pointer),
                    dup.first
                ),
            )
            .with_help("remove one of the two keys"),
        );
    }
    let doc = Arc::new(doc);
    let (crd, errors) = Crd::parse_document(Arc::clone(&doc));
    let loaded = LoadedCrd { file: file.to_owned(), doc, crd, base: String::new() };
    report_parse_errors(&loaded, errors, diags);
    out.push(loaded);
}

fn pointer_last(pointer: &str) -> String {
    let last = pointer.rsplit('/').next().unwrap_or_default();
    kubeskema::issue::go_quote(&kubeskema::path::unescape_token(last))
}

pub(crate) fn report_parse_errors(
    loaded: &LoadedCrd,
    errors: Vec<kubeskema::schema::ParseError>,
    diags: &mut Vec<Diagnostic>,
) {
    for e in errors {
        let field = e.pointer.trim_start_matches('/').replace('/', ".");
        diags.push(loaded.diagnostic(Severity::Error, &e.pointer, Code::Field(ErrorType::Invalid), field, e.message));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Standard input is read one byte past the per-file limit, so its size is not known:
    /// the message says it holds more, not that it is the limit plus one (issue 49).
    #[test]
    fn standard_input_past_the_limit_is_not_given_a_size() {
        let limits = InputLimits::new(1024, u64::MAX);
        let stdin = limits.take(Path::new("-"), 1025).expect("past the limit");
        assert_eq!(stdin.message, "standard input holds more than a file may be (1024 bytes)");
        let file = limits.take(Path::new("a.yaml"), 4096).expect("past the limit");
        assert_eq!(file.message, "the file is 4096 bytes, more than a file may be (1024 bytes)");
    }

    /// A folder's CRD files are found whatever the case of their extension, and a FIFO among
    /// them (which would block a read forever) is skipped with a warning.
    #[cfg(unix)]
    #[test]
    fn folders_skip_what_is_not_a_regular_file_and_read_any_case() {
        let dir = std::env::temp_dir().join(format!("kubeskema-load-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("upper.YAML"), "a: 1").unwrap();
        std::fs::write(dir.join("sub/lower.Json"), "{}").unwrap();
        std::fs::write(dir.join("notes.txt"), "").unwrap();
        let fifo = dir.join("pipe.yaml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
        std::os::unix::fs::symlink(&dir, dir.join("sub/loop")).unwrap();
        let mut diags = Vec::new();
        let found = expand_paths(std::slice::from_ref(&dir), &mut diags);
        assert_eq!(found, vec![dir.join("sub/lower.Json"), dir.join("upper.YAML")], "the link back is not followed");
        if made {
            assert_eq!(diags.len(), 1, "{diags:?}");
            assert_eq!(diags[0].severity, Severity::Warning);
            assert!(diags[0].message.contains("not a regular file"), "{}", diags[0].message);
            let mut direct = Vec::new();
            assert!(expand_paths(std::slice::from_ref(&fifo), &mut direct).is_empty());
            assert_eq!(direct[0].code, Code::NotAFile);
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    /// The CRDs of a `List` share its document instead of each holding a copy: loading stays
    /// linear in the List's size.
    #[test]
    fn the_crds_of_a_list_share_its_document() {
        let item = |i: usize| {
            format!(
                "- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  metadata: {{name: t{i}s.example.com}}\n  spec:\n    group: example.com\n    names: {{kind: T{i}, plural: t{i}s}}\n    scope: Namespaced\n    versions: [{{name: v1, served: true, storage: true, schema: {{openAPIV3Schema: {{type: object}}}}}}]\n"
            )
        };
        let text = format!("apiVersion: v1\nkind: List\nitems:\n{}", (0..50).map(item).collect::<String>());
        let file = std::env::temp_dir().join(format!("kubeskema-list-{}.yaml", std::process::id()));
        std::fs::write(&file, text).unwrap();
        let mut diags = Vec::new();
        let (crds, _) = load_crds(std::slice::from_ref(&file), false, 1, &InputLimits::default(), &mut diags);
        std::fs::remove_file(&file).ok();
        assert_eq!(crds.len(), 50, "{diags:?}");
        assert!(crds.iter().all(|c| Arc::ptr_eq(&c.doc, &crds[0].doc)), "one document for all");
        assert_eq!(Arc::strong_count(&crds[0].doc), 50);
    }
}
