//! Dynamic validation (feature `dynamic`): a CRD version's schema applied to JSON as the apiserver
//! applies it on create and update. `crd` reads the CRD envelope; `normalize` runs the decode
//! steps in the apiserver's order (`prune`: unknown fields, `default`: null pruning and
//! defaults); `validate` is `ResourceValidator`, the whole pipeline for one CRD version;
//! `apply` is server-side apply, offline; `conversion` answers conversion webhooks as the
//! apiserver expects.

pub mod apply;
pub mod conversion;
pub mod crd;
pub mod default;
pub mod normalize;
pub mod prune;
pub mod validate;
