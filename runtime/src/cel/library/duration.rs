//! cel-go's `duration()` and its conversions, which the `cel` crate lacks or reads otherwise.

use cel::{DeclarationError, Env, Value};

use super::args::{Outcome, error, string_arg, value_fn};

/// Registers `int(duration)`, `duration(int)` and cel-go's `duration(string)`.
pub(crate) fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload("int", "duration_to_int64", vec![cel::common::types::DURATION_TYPE], value_fn!(duration_to_int))?;
    env.add_overload("duration", "int64_to_duration", vec![cel::common::types::INT_TYPE], value_fn!(int_to_duration))?;
    env.add_overload(GO_DURATION, "@duration_string", vec![cel::common::types::STRING_TYPE], value_fn!(go_duration))?;
    env.add_overload(GO_DURATION, "@duration_int", vec![cel::common::types::INT_TYPE], value_fn!(int_to_duration))?;
    env.add_overload(GO_DURATION, "@duration_duration", vec![cel::common::types::DURATION_TYPE], value_fn!(same))?;
    Ok(())
}

/// cel-go's `duration()`: of a string, Go's `time.ParseDuration`. The `cel` crate's own
/// accepts what Go refuses (`1hxyz`) and words its errors in nom's debug form, and an overload
/// of the same signature cannot replace it, so [`lower`] renames every call to this one.
pub const GO_DURATION: &str = "@duration";

pub(crate) fn rename_duration(e: &mut cel::IdedExpr) {
    for child in crate::cel::front::depth::children_mut(e) {
        rename_duration(child);
    }
    if let cel::common::ast::Expr::Call(call) = &mut e.expr
        && call.func_name == "duration"
        && call.target.is_none()
        && call.args.len() == 1
    {
        call.func_name = GO_DURATION.to_owned();
    }
}

/// `duration(string)` as cel-go reads it.
fn go_duration(args: &[Value]) -> Outcome {
    let s = string_arg("duration", args, 0)?;
    crate::go::duration::parse_go(s)
        .map(|ns| Value::Duration(chrono::Duration::nanoseconds(ns)))
        .ok_or_else(|| error("duration", crate::cel::running::native::DURATION_CONVERSION))
}

/// `duration(duration)`.
fn same(args: &[Value]) -> Outcome {
    args.first().cloned().ok_or_else(|| error("duration", "expected a duration"))
}

/// `int(duration)`: its nanoseconds.
fn duration_to_int(args: &[Value]) -> Outcome {
    match args.first() {
        Some(Value::Duration(d)) => d.num_nanoseconds().map(Value::Int).ok_or_else(|| error("int", "integer overflow")),
        _ => Err(error("int", "expected a duration")),
    }
}

/// `duration(int)`: that many nanoseconds.
fn int_to_duration(args: &[Value]) -> Outcome {
    match args.first() {
        Some(Value::Int(n)) => Ok(Value::Duration(chrono::Duration::nanoseconds(*n))),
        _ => Err(error("duration", "expected an int")),
    }
}
