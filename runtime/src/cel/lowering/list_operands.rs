//! [quirk] cel-go's run-time cost trackers of the lists extension (v3) read some operands as
//! lists without looking: `sort()`'s and `distinct()`'s target, and the keys `sortBy` sorts
//! by. The tracker runs on the call even when that operand failed, and then panics; the
//! apiserver reports the recovered panic, `internal error: interface conversion: *types.Err is
//! not traits.Lister: missing method Add`, in place of the operand's own error.
//!
//! A tracker is found by the overload the checker chose, so it runs only where that is one
//! overload: `distinct()` always, `sort()` and `sortBy` where the list's (the keys') element
//! type is a comparable type, not `dyn`. [`lower`] wraps such operands in `@list_operand`, a
//! non-strict function (it is given a failed operand as a value) that passes a list on and
//! turns a failure into that text.

use std::collections::HashMap;

use cel::common::ast::{CallExpr, Expr, IdedExpr};
use cel::common::value::CowVal;
use cel::objects::Failed;
use cel::{DeclarationError, Env, ExecutionError};

use crate::cel::vocabulary::function::{Charge, Cost, NOT_YET_NATIVE, NativeForm, Rows, Run};
use crate::cel::vocabulary::types::Type;

/// The function [`lower`] wraps an operand in.
pub const LIST_OPERAND: &str = "@list_operand";

/// What the apiserver reports for such an operand that failed.
pub const PANIC: &str = "internal error: interface conversion: *types.Err is not traits.Lister: missing method Add";

/// The row of [`LIST_OPERAND`].
pub(crate) fn functions(rows: &mut Rows) {
    rows.add(
        format!("{LIST_OPERAND}(A) -> A"),
        Run::Library(list_operand),
        Cost::Call,
        Charge::FirstOperand,
        NativeForm::Interpreted(NOT_YET_NATIVE),
    );
}

/// Makes [`LIST_OPERAND`] non-strict in the interpreter's environment.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.set_non_strict(LIST_OPERAND);
    Ok(())
}

fn list_operand<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let operand = args.pop().ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?;
    match operand.downcast_ref::<Failed>() {
        Some(_) => Err(ExecutionError::function_error(LIST_OPERAND, PANIC)),
        None => Ok(operand),
    }
}

/// Wraps the operands whose tracker would panic (see the module's text); `types` are the
/// checker's, by node id.
pub fn lower(e: &mut IdedExpr, types: &HashMap<u64, Type>) {
    for child in crate::cel::vocabulary::depth::children_mut(e) {
        lower(child, types);
    }
    let Expr::Call(call) = &mut e.expr else { return };
    let concrete = |id: u64| match types.get(&id) {
        Some(Type::List(item, _)) => !matches!(**item, Type::Dyn | Type::Error),
        _ => false,
    };
    match (call.func_name.as_str(), call.target.as_deref_mut(), call.args.as_mut_slice()) {
        ("distinct", Some(target), []) => wrap(target),
        ("sort", Some(target), []) if concrete(target.id) => wrap(target),
        ("@sortByAssociatedKeys", Some(_), [keys]) if concrete(keys.id) => wrap(keys),
        _ => {}
    }
}

fn wrap(operand: &mut IdedExpr) {
    let id = operand.id;
    let inner = std::mem::take(operand);
    *operand = IdedExpr {
        id,
        expr: Expr::Call(CallExpr {
            func_name: LIST_OPERAND.to_owned(),
            target: None,
            args: vec![inner],
            ..Default::default()
        }),
    };
}
