//! What codegen reports: one [`Diagnostic`] per problem, with the file, the line:column it
//! came from, the CRD and version, the apiserver's field path and message.

use std::fmt;
use std::path::{Path, PathBuf};

use kubeskema::issue::{printable, printable_lines};
use kubeskema::yaml::Pos;

/// A file's path as printed anywhere: [`printable`], and never starting with `:` (a line
/// that starts with a path must not read as a GitHub Actions workflow command).
pub fn shown(path: &Path) -> String {
    let text = path.to_string_lossy();
    let text = printable(&text);
    if text.starts_with(':') { format!("./{text}") } else { text.into_owned() }
}

/// How bad a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Stops generation (the apiserver would refuse the CRD, or the input cannot be read).
    Error,
    /// Generation goes on (the apiserver would warn, or we drop something it drops too).
    Warning,
}

/// One problem found in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The file the problem is in (`-` for standard input).
    pub file: PathBuf,
    /// Where in the file, when known.
    pub pos: Option<Pos>,
    /// The CRD's `metadata.name`, when known.
    pub crd: Option<String>,
    /// The CRD version, when the problem belongs to one.
    pub version: Option<String>,
    /// The field path as the apiserver prints it (`spec.validation.openAPIV3Schema.type`),
    /// empty when the problem is not about a field.
    pub field: String,
    /// The apiserver's error type (`FieldValueRequired`, ...) or our own code (`YamlSyntax`).
    pub kind: String,
    /// The message, in the apiserver's words where it has words for it.
    pub message: String,
    /// What to do about it, when there is a clear fix.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error about a whole file (unreadable, not YAML, ...).
    pub fn file_error(file: impl Into<PathBuf>, pos: Option<Pos>, kind: &str, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            file: file.into(),
            pos,
            crd: None,
            version: None,
            field: String::new(),
            kind: kind.to_owned(),
            message: message.into(),
            help: None,
        }
    }

    /// The same problem as a warning (reported; generation goes on).
    pub fn as_warning(mut self) -> Self {
        self.severity = Severity::Warning;
        self
    }

    /// Adds a suggested fix.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Whether this stops generation.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Everything from input is made printable (`kubeskema::issue::printable`).
        f.write_str(&shown(&self.file))?;
        if let Some(pos) = self.pos {
            write!(f, ":{pos}")?;
        }
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, ": {level}: ")?;
        match (&self.crd, &self.version) {
            (Some(c), Some(v)) => write!(f, "{}/{}: ", printable(c), printable(v))?,
            (Some(c), None) => write!(f, "{}: ", printable(c))?,
            _ => {}
        }
        if !self.field.is_empty() {
            write!(f, "{}: ", printable(&self.field))?;
        }
        f.write_str(&printable_lines(&self.message))?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {}", printable_lines(help))?;
        }
        Ok(())
    }
}

/// Every problem of a failed run, errors first.
#[derive(Debug)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
