//! Evaluation errors in cel-go's words (`no such key: x`, `index out of bounds: 3`, `no such
//! overload: join(int)`): what a rule's failure says, and a constant's at compile time.

use cel::{ExecutionError, OverloadError, Value};

use crate::cel::vocabulary::args::NO_SUCH_OVERLOAD;
use crate::cel::vocabulary::function::{Run, signature_shape};
use crate::cel::vocabulary::meter;
use crate::cel::vocabulary::value::plain;

/// An evaluation error in cel-go's words.
pub(crate) fn go_error(e: &ExecutionError) -> String {
    match e {
        ExecutionError::NoSuchKey(k) => format!("no such key: {k}"),
        ExecutionError::NoSuchOverload(o) => no_such_overload(o),
        ExecutionError::UnsupportedBinaryOperator(..) => NO_SUCH_OVERLOAD.into(),
        ExecutionError::IndexOutOfBounds(i) => format!("index out of bounds: {}", plain(i)),
        ExecutionError::ListIndexValue(i) => format!("unsupported index value {} in list", plain(i)),
        ExecutionError::DivisionByZero(_) => "division by zero".into(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".into(),
        // cel-go's words by the operands: a `uint`'s, a timestamp moved by a duration.
        ExecutionError::Overflow(_, lhs, rhs) => match (lhs, rhs) {
            (Value::UInt(_), _) | (_, Value::UInt(_)) => "unsigned integer overflow".into(),
            (Value::Timestamp(_), Value::Duration(_)) | (Value::Duration(_), Value::Timestamp(_)) => {
                "timestamp overflow".into()
            }
            _ => "integer overflow".into(),
        },
        // Conversions: cel-go's words for a string that is not a number.
        ExecutionError::FunctionError { function, message } if message.starts_with("string parse error") => {
            format!("type conversion error from 'string' to '{function}'")
        }
        ExecutionError::FunctionError { message, .. } => message.clone(),
        // A comprehension over what is no list or map: Go's `%T` of the value.
        ExecutionError::UnexpectedType { got, want } if want == "iterable" => {
            format!("got '{}', expected iterable type", go_value_type(got))
        }
        other => other.to_string(),
    }
}

/// The Go type (`%T`) of a cel-go value of the type named `name` (`int`: `types.Int`).
fn go_value_type(name: &str) -> &str {
    match name {
        "int" => "types.Int",
        "uint" => "types.Uint",
        "double" => "types.Double",
        "bool" => "types.Bool",
        "string" => "types.String",
        "bytes" => "types.Bytes",
        "null_type" => "types.Null",
        "google.protobuf.Duration" => "types.Duration",
        "google.protobuf.Timestamp" => "types.Timestamp",
        "optional_type" => "*types.Optional",
        "type" => "*types.Type",
        other => other,
    }
}

/// A call no overload takes, as kube-apiserver 1.36.3 words it (class `cel-overload-words`):
/// cel-go's dispatch among a function's overloads names the function, as the rule wrote it,
/// and the runtime types of its arguments, the receiver first (`no such overload: join(int)`,
/// `no such overload: sets.contains(int, list)`); the operators (`_+_`, `@in`, `_[_]`) and the
/// string predicates it plans with a guard of their operand's type (`contains`, `startsWith`,
/// `endsWith`, `matches` of a literal pattern) say `no such overload`; `size` and `sort`, the
/// function alone.
///
/// A string receiver answers for itself (cel-go's strings take the calls of their own
/// functions), so `'a'.sort()` says `no such overload` where `{}.sort()` says its name.
/// `matches` of another receiver names itself where its pattern is no string (a string
/// pattern kubeskema takes for the literal cel-go compiles ahead, which says `no such
/// overload`). `flatten` names the receiver's type and its arguments (`string.flatten()`,
/// `int.flatten(int)`).
fn no_such_overload(o: &OverloadError) -> String {
    let called = o.function();
    let written = if called.starts_with('@') { renamed_from(called) } else { Some(called) };
    let types = o.argument_types();
    let receiver = types.first().map(String::as_str);
    match written {
        Some("size" | "sort" | "matches") if receiver == Some("string") => NO_SUCH_OVERLOAD.into(),
        Some(name @ ("size" | "sort")) => format!("{NO_SUCH_OVERLOAD}: {name}"),
        Some("matches") if types.get(1).is_some_and(|t| t != "string") => format!("{NO_SUCH_OVERLOAD}: matches"),
        Some("flatten") => match receiver {
            Some(t) => {
                let t = if t == "map" { "map(dyn, dyn)" } else { t };
                format!("{NO_SUCH_OVERLOAD}: {t}.flatten({})", types[1..].join(", "))
            }
            None => NO_SUCH_OVERLOAD.into(),
        },
        Some("contains" | "startsWith" | "endsWith" | "matches") | None => NO_SUCH_OVERLOAD.into(),
        Some(name) if name.starts_with(['_', '!', '-']) => NO_SUCH_OVERLOAD.into(),
        Some(name) => format!("{NO_SUCH_OVERLOAD}: {name}({})", types.join(", ")),
    }
}

/// The function a call renamed by the lowering ([`Run::Renamed`]) was written as (`@string`:
/// `string`); `None` for the lowering's and the meter's own functions (`@in`, `@int_data`).
fn renamed_from(called: &str) -> Option<&'static str> {
    // The meter's charge for `lists.range(n)` takes `n` first.
    if called == meter::RANGE {
        return Some("lists.range");
    }
    super::rows().iter().find_map(|row| match row.run {
        Run::Renamed(to, _) if to == called => Some(signature_shape(&row.signature).0),
        _ => None,
    })
}
