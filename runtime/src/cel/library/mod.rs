//! The Kubernetes CEL libraries (semantics §9.2) as overloads on a `cel::Env`: lists, regex,
//! URLs, quantities, IPs and CIDRs, named formats, semantic versions and sets. cel 0.15
//! brings the standard library, the strings extension (v2) and cel-go's lists extension (v3);
//! what Kubernetes adds is here, one file per library, written against `cel::Value` and
//! adapted to the overload signature by [`value_fn!`].

use std::sync::Arc;

use cel::common::types::Type;
use cel::objects::{Opaque, OptionalValue};
use cel::{DeclarationError, Env, ExecutionError, Value};

pub(crate) mod format;
pub(crate) mod formats;
mod lists;
pub(crate) mod net;
mod quantity;
mod regex;
mod semver;
mod sets;
pub(crate) mod url;

/// What a library function returns.
type Outcome = Result<Value, ExecutionError>;

/// Turns `fn(&[Value]) -> Outcome` into a `cel` overload (a plain `fn` over `CowVal`s).
macro_rules! value_fn {
    ($f:path) => {{
        fn wrapper<'b, 'v>(
            args: Vec<cel::common::value::CowVal<'b, 'v>>,
        ) -> Result<cel::common::value::CowVal<'b, 'v>, cel::ExecutionError> {
            let values =
                args.iter().map(|a| cel::Value::try_from(a.as_ref())).collect::<Result<Vec<cel::Value>, _>>()?;
            let out: Box<dyn cel::common::value::Val> = $f(&values)?.try_into()?;
            Ok(cel::common::value::CowVal::Owned(out))
        }
        wrapper as cel::common::functions::Function
    }};
}
pub(crate) use value_fn;

/// Registers every Kubernetes library on `env`.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    format::register(env)?;
    lists::register(env)?;
    regex::register(env)?;
    url::register(env)?;
    quantity::register(env)?;
    net::register(env)?;
    formats::register(env)?;
    semver::register(env)?;
    sets::register(env)?;
    // Conversions of cel-go's standard library that the `cel` crate lacks.
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

/// Renames `duration(x)` to [`GO_DURATION`] throughout `e`, and `s.format(args)` to cel-go
/// v2's formatter ([`format::lower`]).
pub(crate) fn lower(e: &mut cel::IdedExpr) {
    format::lower(e);
    rename_duration(e);
}

fn rename_duration(e: &mut cel::IdedExpr) {
    for child in super::depth::children_mut(e) {
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
        .ok_or_else(|| error("duration", crate::cel::native::DURATION_CONVERSION))
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

/// A function's own error, as cel-go words them (`<function>: <message>` is cel's form).
fn error(function: &str, message: impl Into<String>) -> ExecutionError {
    ExecutionError::function_error(function, message.into())
}

/// The argument `i` as a string.
fn string_arg<'a>(function: &str, args: &'a [Value], i: usize) -> Result<&'a str, ExecutionError> {
    match args.get(i) {
        Some(Value::String(s)) => Ok(s.as_str()),
        Some(other) => Err(error(function, format!("expected a string, got {}", other.type_of()))),
        None => Err(ExecutionError::invalid_argument_count(i + 1, args.len())),
    }
}

/// The argument `i` as an opaque value of type `T`.
fn opaque_arg<'a, T: Opaque>(function: &str, args: &'a [Value], i: usize) -> Result<&'a T, ExecutionError> {
    match args.get(i) {
        Some(Value::Opaque(o)) => o
            .downcast_ref::<T>()
            .ok_or_else(|| error(function, format!("no such overload for argument of type {}", o.runtime_type_name()))),
        Some(other) => Err(ExecutionError::no_such_overload(function, vec![other.type_of().to_string()])),
        None => Err(ExecutionError::invalid_argument_count(i + 1, args.len())),
    }
}

/// An opaque value.
fn opaque(v: impl Opaque) -> Value {
    Value::Opaque(Arc::new(v))
}

/// `optional.of(v)`.
fn some(v: Value) -> Value {
    Value::Opaque(Arc::new(OptionalValue::of(v)))
}

/// `optional.none()`.
fn none() -> Value {
    Value::Opaque(Arc::new(OptionalValue::none()))
}

/// The type of an opaque library value, for overload signatures.
fn opaque_type(name: &'static str) -> Type {
    Type::new_opaque_type(name)
}
