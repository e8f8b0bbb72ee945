//! How `cargo kubeskema validate` prints what it found: `human` (compiler-style diagnostics),
//! `json` (one object per finding per line), `sarif` (SARIF 2.1.0, for GitHub code scanning)
//! and `junit` (one test case per document, for CI test reports), and the `--summary` line.
//! Each machine format is a contract that tests hold it to.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};

use crate::diagnostic::{Code, Diagnostic, Subject};
use crate::validate::manifests::{Checked, Report, Verdict};

/// The output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Compiler-style diagnostics with the source line (standard output), counts on standard error.
    Human,
    /// One JSON object per finding per line.
    Json,
    /// One SARIF 2.1.0 log (GitHub code scanning).
    Sarif,
    /// GitHub Actions workflow commands (`::error file=..,line=..,col=..::message`): each finding
    /// an annotation on the file, for repositories without code scanning.
    Github,
    /// One JUnit XML report: a test suite per file, a test case per document.
    Junit,
}

impl Diagnostic {
    /// The problem as one JSON object: for an object, the `validate --output json` contract;
    /// for a CRD or a file, the `check --output json` one.
    pub fn to_json(&self) -> Value {
        let level = level_name(self.severity);
        match &self.subject {
            Subject::Object { document, api_version, kind, name } => json!({
                "file": self.file.display().to_string(),
                "document": document,
                "line": self.pos.map(|p| p.line),
                "column": self.pos.map(|p| p.column),
                "apiVersion": api_version,
                "kind": kind,
                "name": name,
                "field": self.field,
                "pointer": self.pointer,
                "type": self.code.name(),
                "detail": self.detail,
                "message": self.message,
                "level": level,
                "note": self.note,
            }),
            Subject::Crd { name, version } => self.crd_json(name.as_deref(), version.as_deref(), level),
            Subject::File => self.crd_json(None, None, level),
        }
    }

    fn crd_json(&self, crd: Option<&str>, version: Option<&str>, level: &str) -> Value {
        json!({
            "file": self.file.display().to_string(),
            "line": self.pos.map(|p| p.line),
            "column": self.pos.map(|p| p.column),
            "crd": crd, "version": version, "field": self.field,
            "type": self.code.name(), "detail": self.detail, "message": self.message,
            "level": level,
        })
    }

    /// The finding as a GitHub Actions workflow command: `::error file=F,line=L,col=C,title=T::`
    /// and its message (with its help or note). Text from input is made printable, then escaped
    /// as the Actions toolkit escapes (`%`, CR and LF everywhere; `:` and `,` in the
    /// properties too), so that it can neither end the command nor start another.
    pub fn github(&self) -> String {
        use kubeskema::issue::{printable, printable_lines};
        let data = |s: &str| printable_lines(s).replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
        let property = |s: &str| printable(s).replace('%', "%25").replace(':', "%3A").replace(',', "%2C");
        let mut properties = vec![format!("file={}", property(&crate::diagnostic::shown(&self.file)))];
        if let Some(pos) = self.pos {
            properties.push(format!("line={},col={}", pos.line.max(1), pos.column.max(1)));
        }
        let title = match &self.subject {
            Subject::Object { kind, name, .. } => format!("{kind}/{name}: {}", self.code.name()),
            _ => self.code.name().to_owned(),
        };
        properties.push(format!("title={}", property(&title)));
        let mut message = self.message.clone();
        for extra in [&self.note, &self.help].into_iter().flatten() {
            message.push_str(" (");
            message.push_str(extra);
            message.push(')');
        }
        format!("::{} {}::{}", level_name(self.severity), properties.join(","), data(&message))
    }

    /// The finding as a compiler diagnostic: the apiserver's message, `--> file:line:column`,
    /// and the source line with the place marked.
    pub fn human(&self) -> String {
        self.human_in_color(false)
    }

    /// [`Diagnostic::human`], coloured as rustc colours its diagnostics when `color` (a
    /// terminal; input text is made printable first, so it carries no escape of its own).
    pub fn human_in_color(&self, color: bool) -> String {
        use annotate_snippets::{AnnotationKind, Level as Severity, Renderer, Snippet};
        let level = match self.severity {
            crate::diagnostic::Severity::Error => Severity::ERROR,
            crate::diagnostic::Severity::Warning => Severity::WARNING,
        };
        // Everything from input is made printable (`kubeskema::issue::printable`).
        use kubeskema::issue::{printable, printable_lines};
        let path = crate::diagnostic::shown(&self.file);
        let label = match &self.subject {
            // A document that is no object (or could not be read) has neither.
            Subject::Object { kind, name, .. } if !(kind.is_empty() && name.is_empty()) => {
                format!("{}/{}", printable(kind), printable(name))
            }
            _ => String::new(),
        };
        let message = printable_lines(&self.message);
        let title = level.primary_title(message.as_ref());
        let source_line = self.source_line.as_deref().map(printable);
        let report = match (self.pos, &source_line) {
            (Some(pos), Some(line)) => {
                let line: &str = line;
                let span = token_span(line, pos.column);
                title.element(
                    Snippet::source(line)
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
        let note = self.note.as_deref().map(printable_lines);
        let report = match &note {
            Some(note) => report.element(Severity::NOTE.message(note.as_ref())),
            None => report,
        };
        let help = self.help.as_deref().map(printable_lines);
        let report = match &help {
            Some(help) => report.element(Severity::HELP.message(help.as_ref())),
            None => report,
        };
        let renderer = if color { Renderer::styled() } else { Renderer::plain() };
        renderer.render(&[report]).to_string()
    }
}

/// JSON text as printed (`--output json`, SARIF): serde_json's, with what JSON lets through
/// raw but a terminal acts on (DEL, C1 controls, bidi controls, line separators: what Go's
/// `strconv.IsPrint` refuses) written as `\uXXXX`. A JSON reader reads the same value.
pub fn json_text(value: &Value, pretty: bool) -> String {
    let text = if pretty { serde_json::to_string_pretty(value) } else { serde_json::to_string(value) };
    let text = text.unwrap_or_default();
    // Outside its strings, JSON text is ASCII; serde_json escapes the ASCII controls in them.
    if text.chars().all(|c| c != '\x7f' && (c.is_ascii() || kubeskema::issue::go_is_print(c))) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if c != '\x7f' && (c.is_ascii() || kubeskema::issue::go_is_print(c)) {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
    out
}

fn level_name(severity: crate::diagnostic::Severity) -> &'static str {
    match severity {
        crate::diagnostic::Severity::Error => "error",
        crate::diagnostic::Severity::Warning => "warning",
    }
}

/// The bytes of the key or value that starts at 1-based character `column` of `line`: up to a
/// `:` followed by a space (a key) or the end of the line.
fn token_span(line: &str, column: usize) -> std::ops::Range<usize> {
    let start = line.char_indices().nth(column.saturating_sub(1)).map_or(line.len(), |(i, _)| i);
    let rest = &line[start..];
    let end = rest.find(": ").or_else(|| rest.strip_suffix(':').map(str::len)).unwrap_or(rest.trim_end().len());
    start..start + end.max(1).min(rest.len())
}

/// `n things`, or `1 thing`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// `3 errors, 1 warning`: what human output ends with.
pub fn tally(report: &Report) -> String {
    format!("{}, {}", count(report.counts.errors, "error"), count(report.counts.warnings, "warning"))
}

/// The `--summary` line: files read (and those that could not be), documents by verdict,
/// findings, time; a run that validated nothing says so.
pub fn summary(report: &Report) -> String {
    let counts = &report.counts;
    let seconds = report.elapsed.as_secs_f64();
    let unreadable = report.files.iter().filter(|d| d.is_error()).count();
    let files = match unreadable {
        0 => count(report.files_read, "file"),
        n => format!("{} ({n} could not be read)", count(report.files_read + n, "file")),
    };
    let nothing = if counts.valid + counts.invalid == 0 { "; nothing was validated" } else { "" };
    // Each kind of file left unread once, with how many.
    let mut not_objects: Vec<(&str, usize)> = Vec::new();
    for (_, what) in &report.not_objects {
        match not_objects.iter_mut().find(|(w, _)| w == what) {
            Some((_, n)) => *n += 1,
            None => not_objects.push((what, 1)),
        }
    }
    let not_objects: String =
        not_objects.iter().map(|(what, n)| format!("; {} not read: {what}", count(*n, "file"))).collect();
    let unreadable = match counts.unreadable {
        0 => String::new(),
        n => format!(", {n} unreadable"),
    };
    format!(
        "summary: {files}, {}: {} valid, {} invalid, {} skipped{unreadable}; {}{nothing}{not_objects}; {seconds:.2}s ({:.0} documents/s on {})",
        count(counts.documents(), "document"),
        counts.valid,
        counts.invalid,
        counts.skipped,
        tally(report),
        counts.documents() as f64 / seconds.max(1e-9),
        count(report.jobs, "thread"),
    )
}

/// A progress line on a terminal for runs longer than a second: `validated 1200/5000
/// documents`, redrawn at most ten times a second and erased at the end.
pub struct Progress {
    started: std::time::Instant,
    last_drawn: std::sync::Mutex<Option<std::time::Instant>>,
}

impl Progress {
    /// A progress line, if standard error is a terminal.
    pub fn on_terminal() -> Option<Self> {
        use std::io::IsTerminal;
        std::io::stderr()
            .is_terminal()
            .then(|| Progress { started: std::time::Instant::now(), last_drawn: std::sync::Mutex::new(None) })
    }

    /// After each document; cheap when there is nothing to draw (another thread drawing is
    /// not waited for).
    pub fn update(&self, done: usize, total: usize) {
        let now = std::time::Instant::now();
        if now - self.started < std::time::Duration::from_secs(1) {
            return;
        }
        let Ok(mut last) = self.last_drawn.try_lock() else { return };
        if last.is_some_and(|t| now - t < std::time::Duration::from_millis(100)) {
            return;
        }
        *last = Some(now);
        eprint!("\r\x1b[2Kvalidated {done}/{total} documents");
    }

    /// Erases the line, if one was drawn.
    pub fn finish(&self) {
        if self.last_drawn.lock().is_ok_and(|last| last.is_some()) {
            eprint!("\r\x1b[2K");
        }
    }
}

/// The `uriBaseId` of relative artifact URIs: the working directory, given in the run's
/// `originalUriBaseIds`.
const SRCROOT: &str = "%SRCROOT%";

/// A path's bytes, as the file system has them (a name that is not UTF-8 keeps its bytes).
fn path_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        std::borrow::Cow::Borrowed(std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()))
    }
    #[cfg(not(unix))]
    {
        std::borrow::Cow::Owned(path.to_string_lossy().replace('\\', "/").into_bytes())
    }
}

/// RFC 3986 percent-encoding of a path's bytes: unreserved characters and `/` as they are,
/// everything else (a `:` too, which in a relative reference's first segment would read as a
/// scheme) as `%XX`.
fn percent_encoded(bytes: &[u8]) -> String {
    let mut uri = String::with_capacity(bytes.len());
    for &byte in bytes {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => uri.push(byte as char),
            _ => {
                let _ = write!(uri, "%{byte:02X}");
            }
        }
    }
    uri
}

/// A path as a SARIF `artifactLocation`: a relative path, or an absolute one under `root` (the
/// working directory), as a relative URI with `uriBaseId` [`SRCROOT`]; any other absolute path
/// as a `file://` URI.
fn artifact_location(path: &Path, root: Option<&Path>) -> Value {
    let relative = if path.is_absolute() { root.and_then(|r| path.strip_prefix(r).ok()) } else { Some(path) };
    match relative {
        Some(rel) => {
            let rel = rel.strip_prefix(".").unwrap_or(rel);
            json!({"uri": percent_encoded(&path_bytes(rel)), "uriBaseId": SRCROOT})
        }
        None => json!({"uri": format!("file://{}", percent_encoded(&path_bytes(path)))}),
    }
}

/// The working directory as the base of relative URIs (`file:///.../`).
fn srcroot(root: &Path) -> String {
    let mut uri = format!("file://{}", percent_encoded(&path_bytes(root)));
    if !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

/// The report as one SARIF 2.1.0 log: a rule per error type found, a result per finding and
/// per file that could not be read, each with its physical location (columns count Unicode
/// code points, as the YAML reader does).
pub fn sarif(report: &Report) -> Value {
    sarif_log(&report.files, &report.findings)
}

/// One SARIF 2.1.0 log of `files` (input that could not be used) and `findings`: `validate`'s
/// and `compat`'s.
pub fn sarif_log(files: &[Diagnostic], findings: &[Diagnostic]) -> Value {
    let mut rule_ids: Vec<Code> = findings.iter().chain(files).map(|d| d.code).collect();
    rule_ids.sort_unstable_by_key(|code| code.name());
    rule_ids.dedup();
    let rules: Vec<Value> = rule_ids
        .iter()
        .map(|code| {
            json!({
                "id": code.name(),
                "shortDescription": {"text": code.description()},
                "fullDescription": {"text": format!("{}. See {}.", code.description(), code.help_uri())},
                "helpUri": code.help_uri(),
            })
        })
        .collect();
    let root = std::env::current_dir().ok();
    // Every result has a region (GitHub's upload needs one): a problem with no place is the
    // file's first line.
    let location = |file: &Path, pos: Option<kubeskema::yaml::Pos>| {
        let region = match pos {
            Some(pos) => json!({"startLine": pos.line.max(1), "startColumn": pos.column.max(1)}),
            None => json!({"startLine": 1}),
        };
        json!({"physicalLocation": {"artifactLocation": artifact_location(file, root.as_deref()), "region": region}})
    };
    let rule_index = |code: Code| rule_ids.binary_search_by_key(&code.name(), |c| c.name()).ok();
    let mut results: Vec<Value> = files
        .iter()
        .map(|d: &Diagnostic| {
            let text = match &d.help {
                Some(help) => format!("{}; {help}", d.message),
                None => d.message.clone(),
            };
            json!({
                "ruleId": d.code.name(), "ruleIndex": rule_index(d.code),
                "level": if d.is_error() { "error" } else { "warning" },
                "message": {"text": text},
                "locations": [location(&d.file, d.pos)],
            })
        })
        .collect();
    results.extend(findings.iter().map(|f| {
        let text = match &f.note {
            Some(note) => format!("{} ({note})", f.message),
            None => f.message.clone(),
        };
        let properties = match &f.subject {
            Subject::Object { document, api_version, kind, name } => json!({
                "document": document, "apiVersion": api_version, "kind": kind, "name": name,
                "field": f.field, "pointer": f.pointer,
            }),
            Subject::Crd { name, version } => json!({
                "crd": name, "version": version, "field": f.field, "pointer": f.pointer,
            }),
            _ => json!({}),
        };
        json!({
            "ruleId": f.code.name(), "ruleIndex": rule_index(f.code),
            "level": level_name(f.severity),
            "message": {"text": text},
            "locations": [location(&f.file, f.pos)],
            "properties": properties,
        })
    }));
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "kubeskema",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {SRCROOT: {"uri": root.as_deref().map(srcroot)}},
            "results": results,
        }],
    })
}

/// Text made safe for XML 1.0 and for the CI log the document may be printed to: made
/// printable (`kubeskema::issue::printable_lines`: control characters escaped, no line that
/// reads as a workflow command), then markup characters escaped; what XML still cannot carry
/// is replaced by U+FFFD.
pub fn xml_text(text: &str) -> String {
    let text = kubeskema::issue::printable_lines(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'.. => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
    out
}

/// The report as JUnit XML: a test suite per manifest file, a test case per document (failed
/// with its errors, skipped, or passed; warnings go to its `system-out`), and an erroring test
/// case per file that could not be read.
pub fn junit(report: &Report) -> String {
    let mut suites: Vec<(&Path, Vec<&Checked>)> = Vec::new();
    for checked in &report.documents {
        match suites.last_mut() {
            Some((file, cases)) if *file == checked.file.as_path() => cases.push(checked),
            _ => suites.push((&checked.file, vec![checked])),
        }
    }
    let mut findings = report.findings.iter().peekable();
    let mut body = String::new();
    let (mut tests, mut failures, mut skipped) = (0, 0, 0);
    for (file, cases) in &suites {
        let file_name = xml_text(&crate::diagnostic::shown(file));
        let mut suite = String::new();
        let (mut suite_failures, mut suite_skipped) = (0, 0);
        for case in cases {
            let mut errors = Vec::new();
            let mut warnings = Vec::new();
            while let Some(f) = findings.next_if(|f| f.file == case.file && f.document() == Some(case.document)) {
                match f.severity {
                    crate::diagnostic::Severity::Error => errors.push(f),
                    crate::diagnostic::Severity::Warning => warnings.push(f),
                }
            }
            let name =
                xml_text(&format!("{} {}/{} (document {})", case.api_version, case.kind, case.name, case.document));
            let _ = write!(suite, "    <testcase classname=\"{file_name}\" name=\"{name}\" time=\"0\">");
            let place = |f: &Diagnostic| match f.pos {
                Some(pos) => format!("{}:{pos}: {}", crate::diagnostic::shown(&f.file), f.message),
                None => format!("{}: {}", crate::diagnostic::shown(&f.file), f.message),
            };
            if let Some(first) = errors.first() {
                suite_failures += 1;
                let text: Vec<String> = errors.iter().map(|f| place(f)).collect();
                let _ = write!(
                    suite,
                    "\n      <failure message=\"{}\" type=\"{}\">{}</failure>",
                    xml_text(&first.message),
                    xml_text(first.code.name()),
                    xml_text(&text.join("\n"))
                );
            } else if case.verdict == Verdict::Skipped {
                suite_skipped += 1;
                let because = case.skipped_because.as_deref().unwrap_or("skipped");
                let _ = write!(suite, "\n      <skipped message=\"{}\"/>", xml_text(because));
            }
            if !warnings.is_empty() {
                let text: Vec<String> = warnings.iter().map(|f| format!("warning: {}", place(f))).collect();
                let _ = write!(suite, "\n      <system-out>{}</system-out>", xml_text(&text.join("\n")));
            }
            suite.push_str(if errors.is_empty() && warnings.is_empty() && case.verdict != Verdict::Skipped {
                "</testcase>\n"
            } else {
                "\n    </testcase>\n"
            });
        }
        tests += cases.len();
        failures += suite_failures;
        skipped += suite_skipped;
        let _ = write!(
            body,
            "  <testsuite name=\"{file_name}\" tests=\"{}\" failures=\"{suite_failures}\" errors=\"0\" \
             skipped=\"{suite_skipped}\" time=\"0\">\n{suite}  </testsuite>\n",
            cases.len()
        );
    }
    let unreadable: Vec<&Diagnostic> = report.files.iter().filter(|d| d.is_error()).collect();
    if !unreadable.is_empty() {
        let _ = writeln!(
            body,
            "  <testsuite name=\"files that could not be read\" tests=\"{0}\" failures=\"0\" errors=\"{0}\" \
             skipped=\"0\" time=\"0\">",
            unreadable.len()
        );
        for d in &unreadable {
            let _ = writeln!(
                body,
                "    <testcase classname=\"{0}\" name=\"{0}\" time=\"0\">\n      <error message=\"{1}\" type=\"{2}\">{3}</error>\n    </testcase>",
                xml_text(&crate::diagnostic::shown(&d.file)),
                xml_text(&d.detail),
                xml_text(d.code.name()),
                xml_text(&d.to_string())
            );
        }
        body.push_str("  </testsuite>\n");
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"kubeskema validate\" tests=\"{}\" \
         failures=\"{failures}\" errors=\"{}\" skipped=\"{skipped}\" time=\"{:.3}\">\n{body}</testsuites>\n",
        tests + unreadable.len(),
        unreadable.len(),
        report.elapsed.as_secs_f64(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Relative paths, and absolute ones under the working directory, are relative URIs on
    /// `%SRCROOT%`; a `:` is encoded (a first segment with one would read as a scheme); a name
    /// that is not UTF-8 keeps its bytes.
    #[test]
    fn artifact_uris_are_relative_on_srcroot_and_percent_encoded() {
        let uri = |p: &str, root: Option<&str>| artifact_location(Path::new(p), root.map(Path::new));
        assert_eq!(
            uri("./deploy/app one.yaml", None),
            json!({"uri": "deploy/app%20one.yaml", "uriBaseId": "%SRCROOT%"})
        );
        assert_eq!(uri("c:d/x.yaml", None), json!({"uri": "c%3Ad/x.yaml", "uriBaseId": "%SRCROOT%"}));
        assert_eq!(uri("/work/repo/a.yaml", Some("/work/repo")), json!({"uri": "a.yaml", "uriBaseId": "%SRCROOT%"}));
        assert_eq!(uri("/abs/x#1.yaml", Some("/work/repo")), json!({"uri": "file:///abs/x%231.yaml"}));
        assert_eq!(srcroot(Path::new("/work/my repo")), "file:///work/my%20repo/");
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let raw = Path::new(std::ffi::OsStr::from_bytes(b"a\xffb.yaml"));
            assert_eq!(artifact_location(raw, None)["uri"], "a%FFb.yaml");
        }
    }

    /// Markup is escaped; a control character XML cannot carry is written as its escape (it was
    /// made printable first); a line that would start with `::` loses its line break.
    #[test]
    fn xml_text_escapes_markup_and_control_characters() {
        assert_eq!(xml_text("a<b & \"c\" 'd'>\u{1}\te"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;\\x01\te");
        assert_eq!(xml_text("x\n::error::y\nz"), "x\\n::error::y\nz");
    }
}
