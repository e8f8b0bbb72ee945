//! What the cost meter charges at least for a rule's expression, computed once for both
//! compilers that write the meter's calls: the runtime's `instrument` (over the lowered tree)
//! and the derive's native compiler (over the parsed one). Feature `cel`.
//!
//! cel-go charges 1 per identifier, selection and call. The spine of an expression is what
//! evaluating it always charges: the operands that are always evaluated, comprehensions
//! without their iterations (each iteration charges [`loop_units`]). A call that evaluates
//! only its first operand for sure (`&&`, `||`, `?:`) charges only that one's spine: the
//! caller says which calls those are, from the function table's rows.

use cel::common::ast::{ComprehensionExpr, EntryExpr, Expr, IdedEntryExpr};
use cel::parser::Expression;

/// The calls whose rows charge only their first operand (`Charge::FirstOperand` in the
/// runtime's function table, which a test holds equal to this list): what the derive, which
/// cannot read the table, passes as `first_operand_only`. `@int_data` and `@list_operand` are
/// the lowering's wrappers, met only in the lowered tree.
pub const FIRST_OPERAND_CALLS: [&str; 6] =
    ["_&&_", "_||_", "_?_:_", "@not_strictly_false", "@int_data", "@list_operand"];

/// What evaluating `expr` charges at least (see the module's text).
pub fn spine(expr: &Expression, first_operand_only: &dyn Fn(&str) -> bool) -> u64 {
    let spine = |e: &Expression| spine(e, first_operand_only);
    match &expr.expr {
        Expr::Literal(_) | Expr::Unspecified => 0,
        Expr::Ident(_) => 1,
        Expr::Select(s) => 1 + spine(&s.operand),
        Expr::Call(c) if first_operand_only(&c.func_name) => c.args.first().map_or(0, spine),
        Expr::Call(c) => c.target.as_deref().map_or(0, spine) + c.args.iter().map(spine).sum::<u64>() + 1,
        Expr::List(l) => l.elements.iter().map(spine).sum(),
        Expr::Map(m) => entries(&m.entries, &spine),
        Expr::Struct(s) => entries(&s.entries, &spine),
        Expr::Comprehension(c) => spine(&c.iter_range) + spine(&c.accu_init) + spine(&c.result),
    }
}

fn entries(entries: &[IdedEntryExpr], spine: &dyn Fn(&Expression) -> u64) -> u64 {
    entries
        .iter()
        .map(|e| match &e.expr {
            EntryExpr::MapEntry(entry) => spine(&entry.key) + spine(&entry.value),
            EntryExpr::StructField(f) => spine(&f.value),
        })
        .sum()
}

/// What one iteration of `c` charges: the condition's spine, and the step's own operand where
/// it folds into the accumulator (`@result && p`, `@result + [e]`: the fold or append is one
/// call), else the step's spine. At least 1.
pub fn loop_units(c: &ComprehensionExpr, first_operand_only: &dyn Fn(&str) -> bool) -> u64 {
    let spine = |e: &Expression| spine(e, first_operand_only);
    let accu = c.accu_var.as_str();
    let is_accu = |e: &Expression| matches!(&e.expr, Expr::Ident(n) if n == accu);
    let step = match &c.loop_step.expr {
        Expr::Call(s)
            if matches!(s.func_name.as_str(), "_&&_" | "_||_" | "_+_") && s.args.first().is_some_and(is_accu) =>
        {
            1 + s.args.get(1).map_or(0, spine)
        }
        Expr::Call(s) if s.func_name == "_?_:_" => 1 + s.args.first().map_or(0, spine),
        _ => spine(&c.loop_step),
    };
    (spine(&c.loop_cond) + step).max(1)
}
