//! CEL rules (`x-kubernetes-validations`) evaluated as the apiserver evaluates them
//! (semantics §9), on the `cel` crate (feature `cel`, on by default) with the Kubernetes
//! libraries of [`library`](self) added.
//!
//! - [`Rule`]: one rule with its message, reason, fieldPath and optionalOldSelf; compiled once
//!   per process, on first use ([`Rule::compiled`]).
//! - [`ToCel`]: a typed value as CEL sees it (`self`): integers as `int`, formats as
//!   timestamps, durations and bytes, property names escaped ([`escape`]); implemented by
//!   `#[derive(kubeskema::Validate)]` and here for the runtime's types.
//! - [`Cx`]: the evaluation of one object: the per-object cost budget, ratcheting of
//!   unchanged places on update, and the issues in the apiserver's words; rules compiled to
//!   Rust ([`native`]) run there beside interpreted ones ([`Cx::evaluate_typed`]).
//! - [`lower`]: a rule's checked, lowered and metered tree, what codegen compiles to Rust.
//! - [`check_rule`]: what code generation asks of a rule before writing it (it parses, it uses
//!   only `self` and, for transition rules, `oldSelf`, its functions exist).
//!
//! ```
//! use kubeskema::cel::{Cx, Rule};
//! use kubeskema::path::Path;
//! static RULES: [Rule; 1] = [Rule::declared("self.min <= self.max", Some("min above max"), None, None, None, false, None)];
//! let spec = kubeskema::serde_json::json!({"min": 3, "max": 1});
//! let mut cx = Cx::default();
//! cx.evaluate(&RULES, &Path::root().key("spec"), kubeskema::cel::from_json(&spec), None, None, "object");
//! assert_eq!(cx.issues[0].to_string(), "spec: Invalid value: min above max");
//! ```

pub use cel::Value;

// The stages, lowest first (ARCHITECTURE.md, Invariants): each imports only those before it.
pub(crate) mod compile;
pub mod cost;
pub(crate) mod count;
pub(crate) mod front;
pub(crate) mod library;
pub(crate) mod lowering;
pub(crate) mod running;
pub(crate) mod vocabulary;

pub use compile::env::env;
pub use compile::{
    CheckedRule, Compiled, Lowered, RefusedRule, Scope, check_and_lower, check_rule, compile_count, estimate_cost,
    lower, parse_field_path,
};
#[cfg(feature = "dynamic")]
pub use compile::{FieldPathStep, field_path_schema, valid_field_path};
pub use count::{CelCount, Walk};
pub use front::check;
pub use library::native_form;
pub use lowering::int_data::with_written_as_float;
pub use lowering::list_kinds::Shape;
pub use running::cx::{Cx, DerivedRuns, KEYWORD};
pub use running::rule::{NO_TYPE_INFORMATION, Rule, SelfType, eval};
pub use running::{derived, native};
pub use vocabulary::function::NativeForm;
pub use vocabulary::types::{Type, escape};
pub use vocabulary::value::{
    ToCel, deep_equal, from_json, from_json_with, object, struct_value, with_format, with_format_each,
};
pub use vocabulary::{limits, meter, types};

pub use crate::check::listtype::correlate;
pub use crate::typed::summary;
pub use running::walk::SchemaRules;
