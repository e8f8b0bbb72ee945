//! What every library file is written with: the adapter from `fn(&[Value]) -> Outcome` to a
//! `cel` overload ([`value_fn!`]), arguments read by type, errors in cel-go's words, and opaque
//! and optional values.

use std::sync::Arc;

use cel::objects::{Opaque, OptionalValue};
use cel::{ExecutionError, Value};

/// What a library function returns.
pub(crate) type Outcome = Result<Value, ExecutionError>;

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

/// What cel-go says of a call no overload takes, and what a library function says where
/// cel-go's does (`containsIP` of a string that is no IP).
pub(crate) const NO_SUCH_OVERLOAD: &str = "no such overload";

/// A function's own error, as cel-go words them (`<function>: <message>` is cel's form).
pub(crate) fn error(function: &str, message: impl Into<String>) -> ExecutionError {
    ExecutionError::function_error(function, message.into())
}

/// The argument `i` as a string.
pub(crate) fn string_arg<'a>(function: &str, args: &'a [Value], i: usize) -> Result<&'a str, ExecutionError> {
    match args.get(i) {
        Some(Value::String(s)) => Ok(s.as_str()),
        Some(other) => Err(error(function, format!("expected a string, got {}", other.type_of()))),
        None => Err(ExecutionError::invalid_argument_count(i + 1, args.len())),
    }
}

/// The argument `i` as an opaque value of type `T`.
pub(crate) fn opaque_arg<'a, T: Opaque>(function: &str, args: &'a [Value], i: usize) -> Result<&'a T, ExecutionError> {
    match args.get(i) {
        Some(Value::Opaque(o)) => o
            .downcast_ref::<T>()
            .ok_or_else(|| error(function, format!("no such overload for argument of type {}", o.runtime_type_name()))),
        Some(other) => Err(ExecutionError::no_such_overload(function, vec![other.type_of().to_string()])),
        None => Err(ExecutionError::invalid_argument_count(i + 1, args.len())),
    }
}

/// An opaque value.
pub(crate) fn opaque(v: impl Opaque) -> Value {
    Value::Opaque(Arc::new(v))
}

/// `optional.of(v)`.
pub(crate) fn some(v: Value) -> Value {
    Value::Opaque(Arc::new(OptionalValue::of(v)))
}

/// `optional.none()`.
pub(crate) fn none() -> Value {
    Value::Opaque(Arc::new(OptionalValue::none()))
}
