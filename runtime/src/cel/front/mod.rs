//! The front: a rule's variables typed from the schema (`crate::cel::vocabulary::types`),
//! checked as cel-go checks it (`check`) against the functions of the environment as the
//! library's table declares them (`functions`).

pub mod check;
pub(crate) mod functions;
