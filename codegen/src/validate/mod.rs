//! The validating programs. `cargo kubeskema validate`: manifests against CRDs (and native kinds
//! from OpenAPI documents) without a cluster: [`manifests`] reads, matches and validates
//! documents; [`native`] turns OpenAPI documents into CRD-shaped schemas; [`report`] prints what
//! was found in each output format. `cargo kubeskema compat`: a CRD change against the objects
//! stored under it ([`compat`]).

pub mod compat;
pub mod manifests;
pub mod native;
pub mod report;
