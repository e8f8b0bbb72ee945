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

mod empty_object;
mod int_or_string;
mod meta;
mod shapes;
mod validate_trait;

#[cfg(feature = "dynamic")]
pub mod crd;
#[cfg(feature = "dynamic")]
pub mod default;
pub mod listtype;
#[cfg(feature = "dynamic")]
pub mod normalize;
pub mod objectmeta;
pub mod openapi;
pub mod pattern;
#[cfg(feature = "dynamic")]
pub mod prune;
pub mod schema;
#[cfg(feature = "dynamic")]
pub mod validate;
#[cfg(feature = "yaml")]
pub mod yaml;

#[doc(hidden)]
pub mod __private;
#[cfg(feature = "cel")]
pub mod cel;
pub mod decode;
pub mod format;
pub mod go;
pub mod issue;
pub mod junctor;
pub mod keywords;
#[cfg(feature = "kube")]
pub mod kube;
pub mod path;
pub mod ratchet;
pub mod resource;

/// k8s-openapi, re-exported for types generated in kube-rs mode (feature `kube`).
#[cfg(feature = "kube")]
pub use k8s_openapi;
/// kube-core (what `kube::Resource` and `kube::CustomResourceExt` are), re-exported for types
/// generated in kube-rs mode (feature `kube`).
#[cfg(feature = "kube")]
pub use kube_core;

pub use empty_object::EmptyObject;
pub use int_or_string::IntOrString;
pub use kubeskema_derive::{Deserialize, Serialize, Validate};
pub use meta::{ManagedFieldsEntry, ObjectMeta, OwnerReference};
/// The JSON crate whose `Value` and `Map` generated types use for free-form data.
pub use serde_json;
pub use validate_trait::{Phases, Validate};

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
