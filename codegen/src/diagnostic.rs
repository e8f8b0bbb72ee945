//! What codegen reports: one [`Diagnostic`] per problem, with its [`Code`], the file and the
//! line:column it came from, what it is about (a file, a CRD version, an object), the
//! apiserver's field path and message. `generate`, `check` and `validate` all report it, and
//! every output format prints it.

use std::fmt;
use std::path::{Path, PathBuf};

use kubeskema::crd::compat::Class;
use kubeskema::issue::{ErrorType, printable, printable_lines};
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

/// What a problem is: one of the apiserver's field error types, or one of ours. Printed by
/// [`Code::name`] (the JSON `type`, the SARIF rule id, the JUnit failure type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    /// An apiserver field error (`FieldValueInvalid`, `FieldValueRequired`, ...).
    Field(ErrorType),
    /// A field the schema does not have (the apiserver prunes it, and warns).
    UnknownField,
    /// A key twice in one mapping of an object (the apiserver warns).
    DuplicateField,
    /// A key twice in one mapping of a CRD.
    DuplicateKey,
    /// No CRD or OpenAPI schema for the object's apiVersion and kind.
    NoSchema,
    /// A document without apiVersion or kind.
    NotAnObject,
    /// A kind listed in `--reject-kinds`.
    RejectedKind,
    /// Not valid YAML or JSON.
    YamlSyntax,
    /// A schema cut short at a depth or size limit.
    SchemaTooLarge,
    /// Not an OpenAPI v3 document.
    NotOpenApi,
    /// A file that cannot be read or written.
    Io,
    /// No such file or folder.
    NotFound,
    /// Not a regular file (a FIFO, socket or device).
    NotAFile,
    /// A file or a run past the input limits.
    TooLarge,
    /// A file with no CRD in it.
    NoCrd,
    /// A document that is not a CRD where one was expected.
    NotACrd,
    /// A setting missing (`OUT_DIR` outside build.rs).
    Config,
    /// A git revision that cannot be read (`--old-ref`).
    GitRef,
    /// Two CRDs that would define one type.
    Conflict,
    /// A `format` the apiserver does not know.
    UnrecognizedFormat,
    /// An apply would change fields other managers own (the apiserver's 409).
    ApplyConflict,
    /// An apply the apiserver refuses (a field not in the schema, a key missing, ...).
    ApplyRefused,
    /// A CRD change and what it does to stored objects (`compat`).
    Compat(kubeskema::crd::compat::Class),
}

impl Code {
    /// Every code, in the order `docs/diagnostics.md` explains them.
    pub const ALL: [Code; 41] = [
        Code::Field(ErrorType::Invalid),
        Code::Field(ErrorType::TypeInvalid),
        Code::Field(ErrorType::Required),
        Code::Field(ErrorType::NotSupported),
        Code::Field(ErrorType::Duplicate),
        Code::Field(ErrorType::Forbidden),
        Code::Field(ErrorType::TooLong),
        Code::Field(ErrorType::TooMany),
        Code::Field(ErrorType::TooShort),
        Code::Field(ErrorType::NotFound),
        Code::Field(ErrorType::Internal),
        Code::Field(ErrorType::Strict),
        Code::Field(ErrorType::Malformed),
        Code::UnknownField,
        Code::DuplicateField,
        Code::DuplicateKey,
        Code::NoSchema,
        Code::NotAnObject,
        Code::RejectedKind,
        Code::YamlSyntax,
        Code::SchemaTooLarge,
        Code::NotOpenApi,
        Code::Io,
        Code::NotFound,
        Code::NotAFile,
        Code::TooLarge,
        Code::NoCrd,
        Code::NotACrd,
        Code::Config,
        Code::GitRef,
        Code::Conflict,
        Code::UnrecognizedFormat,
        Code::ApplyConflict,
        Code::ApplyRefused,
        Code::Compat(Class::Compatible),
        Code::Compat(Class::CelCost),
        Code::Compat(Class::NeedsMigration),
        Code::Compat(Class::Tightens),
        Code::Compat(Class::BlocksUpdates),
        Code::Compat(Class::DropsData),
        Code::Compat(Class::BreaksClients),
    ];

    /// Where `docs/diagnostics.md` explains the code (SARIF's `helpUri`).
    pub fn help_uri(self) -> String {
        format!("{}/blob/main/docs/diagnostics.md#{}", env!("CARGO_PKG_REPOSITORY"), self.name().to_lowercase())
    }

    /// The code as printed: the apiserver's reason for its field errors, ours by name.
    pub fn name(self) -> &'static str {
        match self {
            Code::Field(error_type) => error_type.reason(),
            Code::UnknownField => "UnknownField",
            Code::DuplicateField => "DuplicateField",
            Code::DuplicateKey => "DuplicateKey",
            Code::NoSchema => "NoSchema",
            Code::NotAnObject => "NotAnObject",
            Code::RejectedKind => "RejectedKind",
            Code::YamlSyntax => "YamlSyntax",
            Code::SchemaTooLarge => "SchemaTooLarge",
            Code::NotOpenApi => "NotOpenApi",
            Code::Io => "Io",
            Code::NotFound => "NotFound",
            Code::NotAFile => "NotAFile",
            Code::TooLarge => "TooLarge",
            Code::NoCrd => "NoCrd",
            Code::NotACrd => "NotACrd",
            Code::Config => "Config",
            Code::GitRef => "GitRef",
            Code::Conflict => "Conflict",
            Code::UnrecognizedFormat => "UnrecognizedFormat",
            Code::ApplyConflict => "ApplyConflict",
            Code::ApplyRefused => "ApplyRefused",
            Code::Compat(Class::Compatible) => "Compatible",
            Code::Compat(Class::CelCost) => "CelCost",
            Code::Compat(Class::NeedsMigration) => "NeedsMigration",
            Code::Compat(Class::Tightens) => "Tightens",
            Code::Compat(Class::BlocksUpdates) => "BlocksUpdates",
            Code::Compat(Class::DropsData) => "DropsData",
            Code::Compat(Class::BreaksClients) => "BreaksClients",
        }
    }

    /// What the code means, in a line (SARIF's rule descriptions); the name where there is
    /// nothing more to say.
    pub fn description(self) -> &'static str {
        match self {
            Code::Field(ErrorType::Invalid) => "Invalid value: the value breaks a rule of the schema",
            Code::Field(ErrorType::TypeInvalid) => "Invalid value: the value has the wrong type",
            Code::Field(ErrorType::Required) => "Required value: a required field is missing",
            Code::Field(ErrorType::NotSupported) => "Unsupported value: not one of the values the schema allows",
            Code::Field(ErrorType::Duplicate) => {
                "Duplicate value: a list item repeats a key or value that must be unique"
            }
            Code::Field(ErrorType::Forbidden) => "Forbidden: the field or value is not allowed here",
            Code::Field(ErrorType::TooLong) => "Too long: the value is longer than the schema allows",
            Code::Field(ErrorType::TooMany) => "Too many: the list or map has more items than the schema allows",
            Code::Field(ErrorType::TooShort) => "Too short: the value is shorter than the schema allows",
            Code::Field(ErrorType::NotFound) => "Not found",
            Code::Field(ErrorType::Internal) => "Internal error: a rule could not be evaluated",
            Code::Field(ErrorType::Malformed) => "The object cannot be decoded",
            Code::UnknownField => "Unknown field: the schema has no such field (pruned by the apiserver)",
            Code::DuplicateField => "Duplicate field: a key appears twice in one mapping",
            Code::NoSchema => "No schema: no CRD or OpenAPI document was given for the object's apiVersion and kind",
            Code::NotAnObject => "Not a Kubernetes object: the document has no apiVersion or kind",
            Code::RejectedKind => "Rejected kind: the kind is listed in --reject-kinds",
            Code::YamlSyntax => "The file is not valid YAML or JSON",
            Code::SchemaTooLarge => {
                "The schema was cut short at a depth or size limit: values below the cut were not checked"
            }
            Code::NotOpenApi => "The file is not an OpenAPI v3 document",
            Code::Io => "The file cannot be read",
            Code::NotFound => "No such file or folder",
            Code::ApplyConflict => "Apply conflict: other managers own fields the apply would change",
            Code::ApplyRefused => "The apiserver would refuse the apply",
            Code::Compat(class) => class.meaning(),
            other => other.name(),
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a problem is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A file as a whole (unreadable, not YAML, past a limit, ...).
    File,
    /// A CRD (`metadata.name`, when known), or one of its versions.
    Crd {
        /// The CRD's `metadata.name`.
        name: Option<String>,
        /// The version the problem belongs to, if one.
        version: Option<String>,
    },
    /// One document of a manifest file, validated as an object.
    Object {
        /// 0-based document index in the file.
        document: usize,
        /// The object's `apiVersion`.
        api_version: String,
        /// The object's `kind`.
        kind: String,
        /// The object's `metadata.name`.
        name: String,
    },
}

/// One problem found in the input, located: what `generate`, `check` and `validate` report,
/// and what every output format prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// What kind of problem.
    pub code: Code,
    /// The file the problem is in (`-` for standard input).
    pub file: PathBuf,
    /// Where in the file, when known.
    pub pos: Option<Pos>,
    /// The file, CRD or object it is about.
    pub subject: Subject,
    /// The field path as the apiserver prints it (`spec.validation.openAPIV3Schema.type`),
    /// empty when the problem is not about a field.
    pub field: String,
    /// The JSON pointer of the field, where one is known.
    pub pointer: String,
    /// The text after the field path, in the apiserver's words where it has words for it.
    pub detail: String,
    /// The whole message as printed: the apiserver's, or the field path and the detail.
    pub message: String,
    /// What to do about it, when there is a clear fix.
    pub help: Option<String>,
    /// Why the problem is what it is, where the message alone would mislead (a number YAML
    /// read as a string).
    pub note: Option<String>,
    /// The text of the line the problem points at, for the human rendering of objects.
    pub source_line: Option<String>,
}

impl Diagnostic {
    /// A problem whose message is its field path and detail.
    pub fn new(
        severity: Severity,
        code: Code,
        file: impl Into<PathBuf>,
        pos: Option<Pos>,
        subject: Subject,
        field: String,
        detail: impl Into<String>,
    ) -> Self {
        let detail = detail.into();
        let message = whole_message(&field, &detail);
        Diagnostic {
            severity,
            code,
            file: file.into(),
            pos,
            subject,
            field,
            pointer: String::new(),
            detail,
            message,
            help: None,
            note: None,
            source_line: None,
        }
    }

    /// An error about a whole file (unreadable, not YAML, ...).
    pub fn file_error(file: impl Into<PathBuf>, pos: Option<Pos>, code: Code, detail: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Error, code, file, pos, Subject::File, String::new(), detail)
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

    /// The same problem with its detail rewritten (the message follows).
    pub fn map_detail(mut self, rewrite: impl FnOnce(&str) -> String) -> Self {
        self.detail = rewrite(&self.detail);
        self.message = whole_message(&self.field, &self.detail);
        self
    }

    /// The same problem, about one version of its CRD.
    pub fn in_version(mut self, version: &str) -> Self {
        if let Subject::Crd { version: v, .. } = &mut self.subject {
            *v = Some(version.to_owned());
        }
        self
    }

    /// The document of the file the problem is in, for an object.
    pub fn document(&self) -> Option<usize> {
        match self.subject {
            Subject::Object { document, .. } => Some(document),
            _ => None,
        }
    }

    /// Whether this stops generation.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The whole line as the apiserver prints a field error: `<field>: <detail>`, or the detail alone.
fn whole_message(field: &str, detail: &str) -> String {
    if field.is_empty() { detail.to_owned() } else { format!("{field}: {detail}") }
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
        match &self.subject {
            Subject::Crd { name: Some(c), version: Some(v) } => write!(f, "{}/{}: ", printable(c), printable(v))?,
            Subject::Crd { name: Some(c), version: None } => write!(f, "{}: ", printable(c))?,
            Subject::Object { kind, name, .. } => write!(f, "{}/{}: ", printable(kind), printable(name))?,
            _ => {}
        }
        if !self.field.is_empty() {
            write!(f, "{}: ", printable(&self.field))?;
        }
        f.write_str(&printable_lines(&self.detail))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `Code::ALL` holds every code once, and `docs/diagnostics.md` (SARIF's `helpUri`)
    /// explains each under a heading of its name, and nothing else.
    #[test]
    fn every_code_is_listed_and_explained() {
        // Exhaustive: a new code does not compile here until it is listed.
        let listed = |code: Code| match code {
            Code::Field(_)
            | Code::UnknownField
            | Code::DuplicateField
            | Code::DuplicateKey
            | Code::NoSchema
            | Code::NotAnObject
            | Code::RejectedKind
            | Code::YamlSyntax
            | Code::SchemaTooLarge
            | Code::NotOpenApi
            | Code::Io
            | Code::NotFound
            | Code::NotAFile
            | Code::TooLarge
            | Code::NoCrd
            | Code::NotACrd
            | Code::Config
            | Code::GitRef
            | Code::Conflict
            | Code::UnrecognizedFormat
            | Code::ApplyConflict
            | Code::ApplyRefused
            | Code::Compat(_) => Code::ALL.contains(&code),
        };
        assert!(Code::ALL.iter().all(|&c| listed(c)));
        let names: Vec<&str> = Code::ALL.iter().map(|c| c.name()).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "each code once");
        let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/diagnostics.md")).unwrap();
        let headings: Vec<&str> = docs.lines().filter_map(|l| l.strip_prefix("## ")).collect();
        assert_eq!(headings, names, "docs/diagnostics.md: a section per code, in `Code::ALL`'s order");
        assert!(Code::NoSchema.help_uri().ends_with("/docs/diagnostics.md#noschema"));
    }
}
