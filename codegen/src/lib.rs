//! kubeskema-codegen: Kubernetes CustomResourceDefinitions → Rust types whose
//! `#[kubeskema(...)]` attributes carry every schema constraint, for the `kubeskema` derives.
//!
//! Three programs share the crate. `generate`: `load` (files → CRDs, the only file reading) →
//! `check/` (the apiserver's CRD rules) → `model/` (types, sharing, names) → `emit/` (tokens →
//! source) → `write` (`OUT_DIR` for build.rs, or a whole crate), run in order by `pipeline`.
//! `validate/`: manifests against CRDs, behind `cargo kubeskema validate`. `apply`: what a
//! server-side apply would store, behind `cargo kubeskema apply`. `validate/compat`: what a CRD
//! change does to stored objects, behind `cargo kubeskema compat`. ARCHITECTURE.md walks the
//! rooms.
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

mod apply;
mod check;
pub mod cli;
mod diagnostic;
mod emit;
mod load;
mod model;
mod pipeline;
mod validate;
mod write;

pub use diagnostic::{Code, Diagnostic, Diagnostics, Severity, Subject};
pub use pipeline::{GeneratedModule, Generation};
pub use write::{Config, Dependency};

/// Generates types for the CRDs in `paths` (files or folders) into `OUT_DIR`, for build.rs.
/// Same as `Config::new().crds(paths).generate()`.
pub fn generate<P: AsRef<std::path::Path>>(paths: &[P]) -> Result<(), Diagnostics> {
    Config::new().crds(paths).generate().map(|_| ())
}

/// What the project's own tests, benchmarks and fuzz targets reach beyond the public API: the
/// phases one at a time. Unstable: anything here may change in any release.
#[doc(hidden)]
pub mod __internal {
    #![allow(missing_docs, reason = "the phases re-exported for tests and benches, documented where they are defined")]
    pub mod apply {
        pub use crate::apply::*;
    }
    pub mod check {
        pub use crate::check::*;
    }
    pub mod compat {
        pub use crate::validate::compat::*;
    }
    pub mod emit {
        pub use crate::emit::*;
    }
    pub mod load {
        pub use crate::load::*;
    }
    pub mod manifests {
        pub use crate::validate::manifests::*;
    }
    pub mod native {
        pub use crate::validate::native::*;
    }
    pub mod pipeline {
        pub use crate::pipeline::*;
    }
    pub mod report {
        pub use crate::validate::report::*;
    }
    pub mod write {
        pub use crate::write::*;
    }
}
