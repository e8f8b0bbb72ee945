//! Running: a rule compiled once per process (`rule`), one object's evaluation (`cx`), what
//! rules compiled to Rust call (`native`; `derived`, what the derive's compiled rules call), the
//! dynamic validator's rules compiled once into operations over JSON (`plan`), and
//! the schema walk that finds a JSON value's rules (`walk`: the dynamic validator's, and the
//! validating read's for an enum the type cannot hold as written).

pub(crate) mod cx;
pub mod derived;
pub mod native;
pub(crate) mod plan;
pub(crate) mod rule;
pub(crate) mod walk;
