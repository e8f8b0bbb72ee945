//! What the CRD checks find: a field error as the apiserver prints it, or one of its warnings,
//! placed by a JSON pointer into the CRD document.

use crate::report::issue::{BadValue, ErrorType, field_error_body};

/// One thing the apiserver would say about a CRD when it is created.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// The field path as the apiserver prints it (`spec.validation.openAPIV3Schema.type`),
    /// empty for a warning about no one field.
    pub field: String,
    /// The apiserver's error type; `None` for a warning in its own words (an unrecognized
    /// `format`).
    pub error_type: Option<ErrorType>,
    /// The text after the field path.
    pub detail: String,
    /// Where in the CRD document (relative to the CRD, not to a List holding it).
    pub pointer: String,
    /// The version whose schema it is about, if one.
    pub version: Option<String>,
    /// A warning: the apiserver accepts the CRD and says so.
    pub warning: bool,
    /// What to do about it, when there is a clear fix.
    pub help: Option<&'static str>,
}

impl Finding {
    /// A finding printed as the apiserver prints a field error (`issue::field_error_body`).
    pub(crate) fn new(field: String, error_type: ErrorType, value: BadValue, detail: &str, pointer: String) -> Finding {
        Finding::printed(field, error_type, field_error_body(error_type, &value, detail), pointer)
    }

    /// A field error whose text after the path is already printed.
    pub(crate) fn printed(field: String, error_type: ErrorType, detail: String, pointer: String) -> Finding {
        Finding { field, error_type: Some(error_type), detail, pointer, version: None, warning: false, help: None }
    }

    /// The whole line: `<field>: <detail>`, or the detail alone for a warning about no one
    /// field (the apiserver's `unrecognized format "int32"`).
    pub fn text(&self) -> String {
        if self.field.is_empty() { self.detail.clone() } else { format!("{}: {}", self.field, self.detail) }
    }
}
