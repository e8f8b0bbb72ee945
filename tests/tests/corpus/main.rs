//! The corpus-wide tests (feature `corpus`): every corpus CRD compiled into the test build, run
//! against the shared corpus. One test binary, not one per module: each links the whole
//! corpus's generated code (a 0.9 GB debug binary), and six of them cost CI gigabytes of disk
//! and six links for nothing.
//!
//! `cargo test -p kubeskema-tests --features corpus --test corpus -- --nocapture`; one module's
//! tests by name filter, e.g. `... --test corpus agree:: -- --nocapture`.
#![cfg(feature = "corpus")]

mod agree;
mod cel;
mod check;
mod conversions;
mod derive_compiled;
mod plans;
mod roundtrip;
mod schemas;
mod validate;
mod yaml;
