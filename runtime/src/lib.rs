//! The runtime of kubeskema: what types generated from CustomResourceDefinitions, and
//! hand-written types with `#[derive(kubeskema::Schema)]`, call at run time.
//!
//! - [`Validate`]: a value checked as kube-apiserver checks it, with its messages and in its
//!   order; the derives ([`Schema`], or [`Serialize`], [`Deserialize`] and [`Validate`]).
//! - [`decode`]: the validating read; [`IntOrString`], [`ObjectMeta`]: the value types.
//! - [`cel`] (feature `cel`, default): `x-kubernetes-validations`, interpreted or compiled to Rust.
//! - [`issue`], [`path`], [`keywords`]: the apiserver's field errors, paths in its three forms,
//!   and one check per schema keyword.
//! - `crd`, `validate`, `apply`, `prune`, `default` (feature `dynamic`): the apiserver's CRD
//!   checks, JSON validated against a CRD version, server-side apply, pruning and defaulting.
//! - `yaml` (feature `yaml`): YAML and JSON documents with positions, read as kubectl reads them.
//!
//! ```
//! use kubeskema::IntOrString;
//! let port: IntOrString = serde_json::from_str("\"http\"").unwrap();
//! assert_eq!(port, IntOrString::String("http".into()));
//! ```
#![deny(missing_docs)]

// The layers, lowest first; each imports only those before it, by real paths (ARCHITECTURE.md,
// Invariants; `tests/tests/house.rs` holds it): types < report < go < schema < check < cel <
// typed < read < dynamic < testing < __private < kube. The public paths users name
// (`kubeskema::keywords`, `kubeskema::yaml`, ...) are the re-exports below.
mod check;
#[cfg(feature = "dynamic")]
mod dynamic;
mod read;
mod report;
pub mod schema;
mod typed;
mod types;

#[doc(hidden)]
pub mod __private;
#[cfg(feature = "cel")]
pub mod cel;
pub mod go;
#[cfg(feature = "kube")]
pub mod kube;
#[cfg(feature = "testing")]
pub mod testing;

pub use check::{format, junctor, keywords, listtype, objectmeta, openapi, pattern, ratchet};
#[cfg(feature = "dynamic")]
pub use dynamic::{apply, crd, default, normalize, prune, validate};
/// Converting a resource between its CRD's versions: the [`conversion::Converter`] generated
/// conversions implement (codegen writes one per multi-version CRD, through the hub), the
/// lossless round trip through [`conversion::DATA_ANNOTATION`], and, with the `dynamic`
/// feature, a conversion webhook's answer ([`conversion::review`]) and the apiserver's side of
/// it ([`conversion::apiserver`]). Guide: `docs/conversion.md`.
pub mod conversion {
    #[cfg(feature = "dynamic")]
    pub use crate::dynamic::conversion::{BadReview, ForKind, REVIEW_VERSIONS, apiserver, for_kind, review};
    pub use crate::types::conversion::{
        Annotations, Converter, DATA_ANNOTATION, down_keeping, merge3, relabel, up_restoring,
    };
}
pub use read::decode;
#[cfg(feature = "yaml")]
pub use read::yaml;
pub use report::{issue, path};
pub use schema::resource;

/// k8s-openapi, re-exported for types generated in kube-rs mode (feature `kube`).
#[cfg(feature = "kube")]
pub use k8s_openapi;
/// kube-core (what `kube::Resource` and `kube::CustomResourceExt` are), re-exported for types
/// generated in kube-rs mode (feature `kube`).
#[cfg(feature = "kube")]
pub use kube_core;

#[cfg(feature = "dynamic")]
pub use dynamic::apply::validate_apply::ValidateApply;
/// Panics with the apiserver's messages when it would refuse a derived resource's CRD.
#[cfg(all(feature = "dynamic", feature = "cel"))]
pub use dynamic::crd::check::assert_crd_accepted;
/// Panics with the witnesses when a derived CRD would break objects stored under a released one.
#[cfg(all(feature = "dynamic", feature = "cel", feature = "yaml"))]
pub use dynamic::crd::compat::assert_crd_compatible;
pub use kubeskema_derive::{ApplyConfiguration, Deserialize, Schema, Serialize, Validate};
pub use schema::of_types::StructuralSchema;
/// The JSON crate whose `Value` and `Map` generated types use for free-form data.
pub use serde_json;
pub use typed::{Phases, Validate};
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
