//! The runtime of kubeskema: what code generated from CustomResourceDefinitions (and
//! hand-written types with `#[derive(kubeskema::Deserialize)]`) calls at run time.
//!
//! - [`IntOrString`], [`ObjectMeta`]: the value types generated structs use.
//! - `schema`, `crd`, `prune`, `default` (feature `dynamic`): the structural schema model of a
//!   CRD version and the apiserver's pruning and defaulting over `serde_json::Value`.
//! - `yaml` (feature `yaml`): YAML and JSON documents with positions, read as kubectl reads them.
//! - [`issue`], [`path`], [`keywords`]: the apiserver's field errors, paths in its three forms,
//!   and one check function per schema keyword with the apiserver's messages.
//! - [`pattern`]: Go RE2 `pattern`s translated to Rust `regex` syntax with the same matches.
//!
//! ```
//! use kubeskema::IntOrString;
//! let port: IntOrString = serde_json::from_str("\"http\"").unwrap();
//! assert_eq!(port, IntOrString::String("http".into()));
//! ```
#![deny(missing_docs)]

// The layers, one folder each (ARCHITECTURE.md): the value types, reading, checking, reporting,
// the schema model, Go ports, CEL, dynamic validation. Each module keeps the public path it has
// always had (`kubeskema::keywords`, `kubeskema::yaml`, ...) through the re-exports below.
mod check;
#[cfg(feature = "dynamic")]
mod dynamic;
mod read;
mod report;
pub mod schema;
mod types;

#[doc(hidden)]
pub mod __private;
#[cfg(feature = "cel")]
pub mod cel;
pub mod go;
#[cfg(feature = "kube")]
pub mod kube;

pub use check::{format, junctor, keywords, listtype, objectmeta, pattern, ratchet};
#[cfg(feature = "dynamic")]
pub use dynamic::{apply, crd, default, normalize, prune, validate};
pub use read::decode;
#[cfg(feature = "yaml")]
pub use read::yaml;
pub use report::{issue, path};
pub use schema::openapi;
pub use types::resource;

use check::shapes;

/// k8s-openapi, re-exported for types generated in kube-rs mode (feature `kube`).
#[cfg(feature = "kube")]
pub use k8s_openapi;
/// kube-core (what `kube::Resource` and `kube::CustomResourceExt` are), re-exported for types
/// generated in kube-rs mode (feature `kube`).
#[cfg(feature = "kube")]
pub use kube_core;

pub use check::{Phases, Validate};
/// Panics with the apiserver's messages when it would refuse a derived resource's CRD.
#[cfg(all(feature = "dynamic", feature = "cel"))]
pub use dynamic::crd::check::assert_crd_accepted;
pub use kubeskema_derive::{ApplyConfiguration, Deserialize, Schema, Serialize, Validate};
pub use schema::of_types::StructuralSchema;
/// The JSON crate whose `Value` and `Map` generated types use for free-form data.
pub use serde_json;
#[cfg(feature = "dynamic")]
pub use types::apply_configuration::ValidateApply;
pub use types::apply_configuration::{AppliesTo, ApplyConfiguration, ApplyMeta};
pub use types::empty_object::EmptyObject;
pub use types::int_or_string::IntOrString;
pub use types::meta::{ManagedFieldsEntry, ObjectMeta, OwnerReference};

/// Derived code's kube-rs items (`resource(..., kube = true)`): kept with the `kube` feature,
/// a compile error that names it otherwise.
#[cfg(feature = "kube")]
#[doc(hidden)]
#[macro_export]
macro_rules! __kube {
    ($($t:tt)*) => { $($t)* };
}

/// Derived code's kube-rs items, without the `kube` feature: an error that says so.
#[cfg(not(feature = "kube"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __kube {
    ($($t:tt)*) => {
        ::core::compile_error!(
            "`resource(..., kube = true)` implements kube's traits: turn on kubeskema's `kube` feature"
        );
    };
}

/// Derived code's CEL items: kept when the `cel` feature is on, dropped otherwise (derived
/// code cannot see this crate's features).
#[cfg(feature = "cel")]
#[doc(hidden)]
#[macro_export]
macro_rules! __cel {
    ($($t:tt)*) => { $($t)* };
}

/// Derived code's CEL items: kept when the `cel` feature is on, dropped otherwise.
#[cfg(not(feature = "cel"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __cel {
    ($($t:tt)*) => {};
}
