//! The front: a rule parsed within cel-go's limits (`depth`), its variables typed from the schema
//! (`types`), checked as cel-go checks it against the functions of the environment
//! (`functions`, `check`), and `compile`, which runs the whole front and hands the tree on to
//! lowering.

pub mod check;
pub(crate) mod compile;
pub(crate) mod depth;
pub(crate) mod functions;
pub mod types;
