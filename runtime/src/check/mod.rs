//! Checking: one check per schema keyword (`keywords`), string formats (`format`), patterns
//! (`pattern`, `shapes`), list types (`listtype`), junctors (`junctor`), metadata
//! (`objectmeta`), ratcheting (`ratchet`), and the validator of an OpenAPI schema that runs them
//! over a JSON value (`openapi`). Typed values call them from straight-line code (`crate::typed`).

pub mod format;
pub mod junctor;
pub mod keywords;
pub mod listtype;
pub mod objectmeta;
pub mod openapi;
pub mod pattern;
pub mod ratchet;
pub(crate) mod shapes;
