//! `cargo kubeskema apply`: the third program. What an apply would store, offline: the CRDs
//! loaded (`load`), the applied configuration and the live object read with positions, the CRD
//! version found by the configuration's apiVersion and kind, then `kubeskema::apply` (the
//! apiserver's field manager) and the stored object printed with its managed fields.

use std::path::{Path, PathBuf};

use kubeskema::apply::{ApplyError, Options, Resource, Subresource};
use kubeskema::crd::Crd;
use kubeskema::issue::printable;
use kubeskema::yaml::Document;
use serde_json::Value;

use crate::diagnostic::{Code, Diagnostic, Severity, Subject};
use crate::load::{self, InputLimits};

/// What `cargo kubeskema apply` was asked.
pub struct Request {
    /// CRD files or folders.
    pub crds: Vec<PathBuf>,
    /// The configuration applied (one object).
    pub applied: PathBuf,
    /// The stored object (`None`: create by apply).
    pub live: Option<PathBuf>,
    /// The field manager.
    pub manager: String,
    /// Take conflicting fields.
    pub force: bool,
    /// The time to stamp (default: now).
    pub now: Option<String>,
    /// The endpoint.
    pub subresource: Subresource,
}

/// The result of an apply: the stored object, or the diagnostics that stop it (conflicts
/// and refusals are `Severity::Error` with their own codes; anything else could not run).
pub fn run(request: &Request) -> Result<Value, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let limits = InputLimits::default();
    let (crds, _) = load::load_crds(&request.crds, true, 0, &limits, &mut diags);
    let applied = one_object(&request.applied, &limits, &mut diags);
    let live = request.live.as_ref().map(|live| one_object(live, &limits, &mut diags));
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    let (Some(applied), live) = (applied, live.flatten()) else { return Err(diags) };
    let api_version = applied.value.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let kind = applied.value.get("kind").and_then(Value::as_str).unwrap_or_default();
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let found: Option<&Crd> = crds.iter().map(|l| &l.crd).find(|crd| crd.group == group && crd.names.kind == kind);
    let subject = Subject::Object {
        document: 0,
        api_version: api_version.to_owned(),
        kind: kind.to_owned(),
        name: name_of(&applied.value).unwrap_or_default(),
    };
    let at = |pointer: &str| Some(applied.nearest_position(pointer));
    let Some(resource) = found.and_then(|crd| Resource::new(crd, version)) else {
        let detail = format!("no CRD given serves {} {}", printable(api_version), printable(kind));
        let d = Diagnostic::new(
            Severity::Error,
            Code::NoSchema,
            &request.applied,
            at("/kind"),
            subject,
            String::new(),
            detail,
        )
        .with_help("give the CRD of the object's kind with --crd (a file or a folder)");
        return Err(vec![d]);
    };
    let now = request.now.clone().unwrap_or_else(now_rfc3339);
    if let Err(e) = kubeskema::go::time::parse_rfc3339(&now) {
        return Err(vec![
            Diagnostic::file_error(
                &request.applied,
                None,
                Code::Config,
                format!("--now {} is not an RFC 3339 time: {}", printable(&now), printable(&e)),
            )
            .with_help("give a time such as 2026-01-01T00:00:00Z"),
        ]);
    }
    let options =
        Options { manager: &request.manager, force: request.force, now: &now, subresource: request.subresource };
    resource.apply(live.as_ref().map(|d| &d.value), &applied.value, &options).map_err(|e| {
        let (code, detail, help) = match &e {
            ApplyError::Conflicts(c) => (
                Code::ApplyConflict,
                c.describe(|field| printable(field).into_owned()),
                "leave these fields out of the configuration, or take them with --force (as `kubectl apply --server-side --force-conflicts`)",
            ),
            // One line: the paths in the message are input.
            ApplyError::Invalid(message) if message.starts_with("PatchOptions.") => (
                Code::Config,
                printable(message).into_owned(),
                "give --manager a name of printable characters, at most 128 bytes",
            ),
            ApplyError::Invalid(message) => (Code::ApplyRefused, printable(message).into_owned(), "fix the configuration as the message says"),
        };
        vec![Diagnostic::new(Severity::Error, code, &request.applied, at(""), subject.clone(), String::new(), detail).with_help(help)]
    })
}

/// The one object a file holds, or a diagnostic.
fn one_object(path: &Path, limits: &InputLimits, diags: &mut Vec<Diagnostic>) -> Option<Document> {
    let mut read_diags = Vec::new();
    let docs: Vec<Document> =
        load::read_each(std::slice::from_ref(&path.to_path_buf()), 1, limits, &mut read_diags, |file, text, diags| {
            load::parse_text(file, &text, diags).unwrap_or_default()
        });
    let failed = read_diags.iter().any(Diagnostic::is_error);
    diags.extend(read_diags);
    if failed {
        return None;
    }
    let mut objects = docs.into_iter().filter(|d| !d.value.is_null());
    match (objects.next(), objects.next()) {
        (Some(doc), None) if doc.value.is_object() => Some(doc),
        (Some(doc), None) => {
            diags.push(
                Diagnostic::file_error(path, Some(doc.start), Code::NotAnObject, "the document is not an object")
                    .with_help("give one Kubernetes object (apiVersion, kind, metadata, ...)"),
            );
            None
        }
        (None, _) => {
            diags.push(
                Diagnostic::file_error(path, None, Code::NotAnObject, "the file holds no object")
                    .with_help("give one Kubernetes object"),
            );
            None
        }
        (Some(_), Some(second)) => {
            diags.push(
                Diagnostic::file_error(
                    path,
                    Some(second.start),
                    Code::NotAnObject,
                    "the file holds more than one object",
                )
                .with_help("apply one object at a time: give a file with one document"),
            );
            None
        }
    }
}

fn name_of(object: &Value) -> Option<String> {
    object.pointer("/metadata/name").and_then(Value::as_str).map(str::to_owned)
}

/// The wall clock as RFC 3339, as the apiserver would stamp it.
fn now_rfc3339() -> String {
    let seconds = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    kubeskema::go::time::rfc3339_utc(i64::try_from(seconds).unwrap_or(i64::MAX))
}
