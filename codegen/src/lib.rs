//! kubeskema-codegen: Kubernetes CustomResourceDefinitions → Rust types whose
//! `#[kubeskema(...)]` attributes carry every schema constraint, for the `kubeskema` derives.
//!
//! The phases, one module each: [`load`] (files → CRDs, the only file reading) → [`check`]
//! (the apiserver's structural rules) → [`model`] (types, sharing, names) → [`emit`] (tokens
//! → source) → [`write`](mod@write) (`OUT_DIR` for build.rs, or a whole crate).
//!
//! From build.rs, the one-line form:
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     kubeskema_codegen::generate(&["crds/"])?;
//!     Ok(())
//! }
//! // src/lib.rs: include!(concat!(env!("OUT_DIR"), "/kubeskema.rs"));
//! ```
#![deny(missing_docs)]

pub mod check;
mod check_defaults;
mod check_rules;
pub mod cli;
pub mod diagnostic;
pub mod emit;
pub mod emit_cel;
pub mod load;
pub mod manifests;
pub mod model;
mod names;
pub mod native;
pub mod parallel;
pub mod pipeline;
pub mod report;
pub mod write;

pub use diagnostic::{Diagnostic, Diagnostics, Severity};
pub use pipeline::{GeneratedModule, Generation};
pub use write::{Config, Dependency};

/// Generates types for the CRDs in `paths` (files or folders) into `OUT_DIR`, for build.rs.
/// Same as `Config::new().crds(paths).generate()`.
pub fn generate<P: AsRef<std::path::Path>>(paths: &[P]) -> Result<(), Diagnostics> {
    Config::new().crds(paths).generate().map(|_| ())
}
