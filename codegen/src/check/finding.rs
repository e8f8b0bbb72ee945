//! A CRD check's finding before it is placed in a file.

use kubeskema::issue::{BadValue, ErrorType, field_error_body};

/// One finding, before it is placed in a file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Finding {
    pub(crate) field: String,
    pub(crate) error_type: ErrorType,
    pub(crate) body: String,
    pub(crate) pointer: String,
}

impl Finding {
    /// A finding printed as the apiserver prints a field error (`issue::field_error_body`).
    pub(crate) fn new(field: String, error_type: ErrorType, value: BadValue, detail: &str, pointer: String) -> Finding {
        Finding { field, error_type, body: field_error_body(error_type, &value, detail), pointer }
    }

    pub(crate) fn text(&self) -> String {
        format!("{}: {}", self.field, self.body)
    }
}
