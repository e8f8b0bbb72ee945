//! What every stage of the CEL compiler speaks, below all of them: cel-go's limits (`limits`),
//! the types of a rule's variables (`types`) and the parser's depth guard (`depth`), the shape of
//! one row of the function table (`function`) and its argument adapters (`args`), CEL values
//! of typed and JSON data (`value`), and the meter that counts cost as a rule runs (`meter`).

pub(crate) mod args;
pub(crate) mod depth;
pub(crate) mod function;
pub(crate) mod json_view;
pub mod limits;
pub mod meter;
pub mod types;
pub(crate) mod value;
