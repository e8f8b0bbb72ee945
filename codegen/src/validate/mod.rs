//! The second program: `cargo kubeskema validate`, manifests against CRDs (and native kinds from
//! OpenAPI documents) without a cluster. [`manifests`] reads, matches and validates documents;
//! [`native`] turns OpenAPI documents into CRD-shaped schemas; [`report`] prints what was
//! found in each output format.

pub mod manifests;
pub mod native;
pub mod report;
