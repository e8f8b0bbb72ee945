//! Reporting: a problem as the apiserver prints a field error (`issue`: `Issue`, `ErrorType`,
//! `BadValue`, and `printable`, the one escaping of input text for terminals and CI logs), and
//! the path to it in the apiserver's three printed forms (`path`).

pub mod issue;
pub mod path;
