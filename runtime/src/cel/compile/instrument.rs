//! The meter's calls written into a rule's expression, once, at compile time: what the run-time
//! meter ([`crate::cel::vocabulary::meter`], whose text says what each call charges) counts with.

use cel::common::ast::{CallExpr, ComprehensionExpr, EntryExpr, Expr, ListExpr, LiteralValue};
use cel::parser::Expression;

use kubeskema_attributes::meter as meter_spine;

use crate::cel::front::functions;
use crate::cel::vocabulary::function::Charge;
use crate::cel::vocabulary::meter;

/// The expression with the meter's calls in (see the module's text). Run it inside
/// a stack grown to fit (`depth::with_stack`): it recurses over the expression.
pub fn instrument(expr: &Expression) -> Expression {
    let body = rewrite(expr);
    charged(spine(expr), body)
}

fn node(expr: Expr) -> Expression {
    Expression { id: 0, expr }
}

fn call(func_name: &str, args: Vec<Expression>) -> Expression {
    node(Expr::Call(CallExpr { func_name: func_name.to_owned(), target: None, args, ..Default::default() }))
}

fn charged(units: u64, expr: Expression) -> Expression {
    charged_with(meter::CHARGE, units, expr)
}

/// What a call of `name` charges, by its rows ([`Charge::Call`] for what the table does not
/// declare: the lowering's renamed calls charge by their implementations).
fn charge(name: &str) -> Charge {
    functions::lookup(name).and_then(|overloads| overloads.first()).map_or(Charge::Call, |o| o.function.charge)
}

fn charged_with(function: &str, units: u64, expr: Expression) -> Expression {
    let units = i64::try_from(units.max(1)).unwrap_or(i64::MAX);
    call(function, vec![node(Expr::Literal(LiteralValue::Int(units.into()))), expr])
}

fn is_ident(expr: &Expression, name: &str) -> bool {
    matches!(&expr.expr, Expr::Ident(n) if n == name)
}

/// What evaluating `expr` charges at least (`kubeskema_attributes::meter::spine`, shared with
/// the derive's compiler), the calls that charge only their first operand read off the rows.
fn spine(expr: &Expression) -> u64 {
    meter_spine::spine(expr, &first_operand_only)
}

fn first_operand_only(name: &str) -> bool {
    charge(name) == Charge::FirstOperand
}

fn rewrite(expr: &Expression) -> Expression {
    let id = expr.id;
    let rewritten = match &expr.expr {
        Expr::Literal(_) | Expr::Ident(_) | Expr::Unspecified => return expr.clone(),
        Expr::Select(s) => {
            let mut s = s.clone();
            s.operand = Box::new(rewrite(&s.operand));
            Expr::Select(s)
        }
        Expr::Call(c) => return rewrite_call(id, c),
        Expr::List(l) => Expr::List(ListExpr {
            elements: l.elements.iter().map(rewrite).collect(),
            optional_indices: l.optional_indices.clone(),
        }),
        Expr::Map(m) => {
            let mut m = m.clone();
            for e in &mut m.entries {
                match &mut e.expr {
                    EntryExpr::MapEntry(entry) => {
                        entry.key = rewrite(&entry.key);
                        entry.value = rewrite(&entry.value);
                    }
                    EntryExpr::StructField(f) => f.value = rewrite(&f.value),
                }
            }
            Expr::Map(m)
        }
        Expr::Struct(s) => {
            let mut s = s.clone();
            for e in &mut s.entries {
                if let EntryExpr::StructField(f) = &mut e.expr {
                    f.value = rewrite(&f.value);
                }
            }
            Expr::Struct(s)
        }
        Expr::Comprehension(c) => Expr::Comprehension(Box::new(rewrite_comprehension(c))),
    };
    Expression { id, expr: rewritten }
}

fn rewrite_call(id: u64, c: &CallExpr) -> Expression {
    let args: Vec<Expression> = c.args.iter().map(rewrite).collect();
    let target = c.target.as_deref().map(rewrite);
    // `lists.range(n)`: the namespace is a target in the tree.
    let name = match &target {
        Some(t) if is_ident(t, "lists") => format!("lists.{}", c.func_name),
        _ => c.func_name.clone(),
    };
    let args =
        if charge(&name) == Charge::RangeSize && args.len() == 1 { vec![call(meter::RANGE, args)] } else { args };
    let out = Expression {
        id,
        expr: Expr::Call(CallExpr {
            func_name: c.func_name.clone(),
            target: target.map(Box::new),
            args,
            ..Default::default()
        }),
    };
    // `+` of strings and lists holds the sizes of both; the accumulator of `map` and
    // `filter` (`@result + [e]`) is charged by its loop instead.
    let appends_to_accumulator =
        c.args.first().is_some_and(|a| matches!(&a.expr, Expr::Ident(n) if n.starts_with('@')));
    if charge(&c.func_name) == Charge::Sized && !appends_to_accumulator { call(meter::SIZED, vec![out]) } else { out }
}

fn rewrite_comprehension(c: &ComprehensionExpr) -> ComprehensionExpr {
    let accu = c.accu_var.as_str();
    let mut out = ComprehensionExpr {
        iter_range: rewrite(&c.iter_range),
        iter_var: c.iter_var.clone(),
        iter_var2: c.iter_var2.clone(),
        accu_var: c.accu_var.clone(),
        accu_init: rewrite(&c.accu_init),
        loop_cond: rewrite(&c.loop_cond),
        loop_step: rewrite(&c.loop_step),
        result: rewrite(&c.result),
    };
    // What one iteration evaluates at least (`kubeskema_attributes::meter::loop_units`).
    let units = meter_spine::loop_units(c, &first_operand_only);
    // Charge where an error stops the loop at once: the condition when there is one (the
    // step's errors of `all` and `exists` wait for a later element), else the step, keeping
    // the shape `@result + [e]` the interpreter builds `map` and `filter` lists in place by.
    if !matches!(c.loop_cond.expr, Expr::Literal(_)) {
        out.loop_cond = charged(units, out.loop_cond);
        return out;
    }
    let appended = |step: &mut Expression| -> bool {
        if let Expr::Call(add) = &mut step.expr
            && add.func_name == "_+_"
            && add.args.first().is_some_and(|a| is_ident(a, accu))
            && let Some(Expr::List(list)) = add.args.get_mut(1).map(|a| &mut a.expr)
            && let Some(first) = list.elements.first_mut()
        {
            *first = charged_with(meter::CHARGE_SIZED, units, std::mem::take(first));
            return true;
        }
        false
    };
    if appended(&mut out.loop_step) {
        return out;
    }
    if let Expr::Call(cond) = &mut out.loop_step.expr
        && cond.func_name == "_?_:_"
        && let Some(guard) = cond.args.first_mut()
    {
        *guard = charged(units, std::mem::take(guard));
        return out;
    }
    out.loop_step = charged(units, out.loop_step);
    out
}
