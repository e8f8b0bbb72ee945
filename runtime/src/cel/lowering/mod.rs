//! Lowering: the checked tree rewritten into what the `cel` crate runs as cel-go would: set and
//! map lists' `==` and `+` by their checked type (`list_kinds`), two-variable comprehensions
//! (`comprehensions`), integer reads that refuse a float (`int_data`), the operands cel-go's
//! cost trackers read as lists (`list_operands`). The library's table names these rewrites, so
//! lowering sits below it; the meter's calls are added at compile (`crate::cel::compile::instrument`).

pub(crate) mod comprehensions;
pub(crate) mod int_data;
pub(crate) mod list_kinds;
pub(crate) mod list_operands;
