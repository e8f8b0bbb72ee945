//! Running: the environment (`env`), a rule compiled once per process (`rule`), one object's
//! evaluation (`cx`), typed values as CEL sees them (`value`), the meter that counts cost as it
//! runs (`meter`), what rules compiled to Rust call (`native`; `derived`, what the derive's compiled rules call), and with `dynamic` the schema walk
//! that finds a JSON object's rules (`walk`).

pub(crate) mod cx;
pub mod derived;
pub(crate) mod env;
pub mod meter;
pub mod native;
pub(crate) mod rule;
pub(crate) mod value;
#[cfg(feature = "dynamic")]
pub(crate) mod walk;
