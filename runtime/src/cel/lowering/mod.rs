//! Lowering: the checked tree rewritten into what the `cel` crate runs as cel-go would: set and
//! map lists' `==` and `+` by their checked type (`list_kinds`), two-variable comprehensions
//! (`comprehensions`), integer reads that refuse a float (`int_data`), the operands cel-go's
//! cost trackers read as lists (`list_operands`). The library's table names these rewrites, so
//! lowering sits below it; the meter's calls are added at compile (`crate::cel::compile::instrument`).

pub(crate) mod comprehensions;
pub(crate) mod int_data;
pub(crate) mod list_kinds;
pub(crate) mod list_operands;

use cel::common::ast::{EntryExpr, Expr, operators};

/// Whether `e` reads a value of the object's data (a variable, a field, an item), rather than
/// computing one: what the apiserver types by the schema as it reads it. A comprehension's
/// accumulator (`@result`, `__result__`) is the rule's own, and `has()` reads no value. An item
/// of a list or map the rule writes is data where one of its items reads data (`[self.ints][0]`
/// is, `[[1]][0]` is not; which item the index picks is not looked at).
pub(crate) fn reads_data(e: &Expr) -> bool {
    match e {
        Expr::Ident(name) => !matches!(name.as_str(), "@result" | "__result__"),
        Expr::Select(s) => !s.test,
        Expr::Call(c) if c.func_name == operators::INDEX && c.target.is_none() && c.args.len() == 2 => {
            match &c.args[0].expr {
                Expr::List(list) => list.elements.iter().any(|item| reads_data(&item.expr)),
                Expr::Map(map) => map.entries.iter().any(|entry| match &entry.expr {
                    EntryExpr::MapEntry(entry) => reads_data(&entry.value.expr),
                    EntryExpr::StructField(field) => reads_data(&field.value.expr),
                }),
                _ => true,
            }
        }
        _ => false,
    }
}
