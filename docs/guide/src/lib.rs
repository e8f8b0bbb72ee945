//! The guide's pages (`docs/*.md`), each a module here so that every Rust example in them is a
//! doc test: compiled, and run unless it needs a cluster. The examples use the types this
//! crate generates from `fixtures/crds/widgets.yaml`, named as a user's crate names them
//! (`my_crds::example_com::v1::Widget`).

include!(concat!(env!("OUT_DIR"), "/kubeskema.rs"));

/// `docs/generated-code.md`.
#[doc = include_str!("../../generated-code.md")]
pub mod generated_code {}

/// `docs/validation.md`.
#[doc = include_str!("../../validation.md")]
pub mod validation {}

/// `docs/cli.md`.
#[doc = include_str!("../../cli.md")]
pub mod cli {}

/// `docs/compat.md`.
#[doc = include_str!("../../compat.md")]
pub mod compat {}

/// `docs/conversion.md`.
#[doc = include_str!("../../conversion.md")]
pub mod conversion {}

/// `docs/apply.md`.
#[doc = include_str!("../../apply.md")]
pub mod apply {}

/// `docs/rust-to-crd.md`.
#[doc = include_str!("../../rust-to-crd.md")]
pub mod rust_to_crd {}

/// `docs/benchmarks.md`.
#[doc = include_str!("../../benchmarks.md")]
pub mod benchmarks {}

/// `README.md`, whose examples are held to the same rule.
#[doc = include_str!("../../../README.md")]
pub mod readme {}
