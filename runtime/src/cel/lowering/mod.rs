//! Lowering: the checked tree rewritten into what the `cel` crate runs as cel-go would: set and
//! map lists' `==` and `+` by their checked type (`list_kinds`), two-variable comprehensions
//! (`comprehensions`), integer reads that refuse a float (`int_data`), the operands cel-go's
//! cost trackers read as lists (`list_operands`). The library's table names these rewrites, so
//! lowering sits below it; the meter's calls are added at compile (`crate::cel::compile::instrument`).

pub(crate) mod comprehensions;
pub(crate) mod int_data;
pub(crate) mod list_kinds;
pub(crate) mod list_operands;

use cel::common::ast::{Expr, operators};

/// Whether `e` reads a value of the object's data (a variable, a field, an item), rather than
/// computing one: what the apiserver types by the schema as it reads it. A comprehension's
/// accumulator (`@result`, `__result__`) is the rule's own, and `has()` reads no value.
pub(crate) fn reads_data(e: &Expr) -> bool {
    match e {
        Expr::Ident(name) => !matches!(name.as_str(), "@result" | "__result__"),
        Expr::Select(s) => !s.test,
        Expr::Call(c) => c.func_name == operators::INDEX && c.target.is_none() && c.args.len() == 2,
        _ => false,
    }
}
