//! The Kubernetes lists library (`AS pkg/cel/library/lists.go`): `isSorted`, `sum`, `min`,
//! `max`, `indexOf`, `lastIndexOf` on lists.

use std::cmp::Ordering;

use cel::{ExecutionError, Value};

use crate::cel::vocabulary::args::{Outcome, error, value_fn};
use crate::cel::vocabulary::function::{Charge, Cost, NOT_YET_NATIVE, NativeForm, Rows, Run};

pub(super) fn functions(rows: &mut Rows) {
    let interpreted = NativeForm::Interpreted(NOT_YET_NATIVE);
    let mut add = |signature: &str, f| rows.add(signature, Run::Library(f), Cost::ListScan, Charge::Call, interpreted);
    add("list(A).indexOf(A) -> int", value_fn!(index_of));
    add("list(A).lastIndexOf(A) -> int", value_fn!(last_index_of));
    for t in super::extensions::COMPARABLE {
        add(&format!("list({t}).isSorted() -> bool"), value_fn!(is_sorted));
        add(&format!("list({t}).max() -> {t}"), value_fn!(max));
        add(&format!("list({t}).min() -> {t}"), value_fn!(min));
    }
    for t in ["int", "uint", "double", "duration"] {
        add(&format!("list({t}).sum() -> {t}"), value_fn!(sum));
    }
}

fn items<'a>(function: &str, args: &'a [Value]) -> Result<&'a [Value], ExecutionError> {
    match args.first() {
        Some(Value::List(l)) => Ok(l.as_slice()),
        _ => Err(error(function, "expected a list")),
    }
}

/// CEL's ordering of two comparable values (numbers across types, strings, bools, bytes,
/// durations, timestamps); anything else cannot be ordered.
pub(super) fn compare(function: &str, a: &Value, b: &Value) -> Result<Ordering, ExecutionError> {
    let num = |v: &Value| match v {
        Value::Int(i) => Some(*i as f64),
        Value::UInt(u) => Some(*u as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    };
    let ordering = match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::UInt(x), Value::UInt(y)) => Some(x.cmp(y)),
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        (Value::Bytes(x), Value::Bytes(y)) => Some(x.cmp(y)),
        (Value::Duration(x), Value::Duration(y)) => Some(x.cmp(y)),
        (Value::Timestamp(x), Value::Timestamp(y)) => Some(x.cmp(y)),
        (Value::Opaque(_), Value::Opaque(_)) => {
            super::quantity::compare_values(a, b).or_else(|| super::semver::compare_values(a, b))
        }
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => None,
        },
    };
    ordering.ok_or_else(|| {
        ExecutionError::no_such_overload(function, vec![a.type_of().to_string(), b.type_of().to_string()])
    })
}

fn is_sorted(args: &[Value]) -> Outcome {
    let items = items("isSorted", args)?;
    for pair in items.windows(2) {
        if compare("isSorted", &pair[0], &pair[1])? == Ordering::Greater {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

/// The sum of ints, uints, doubles or durations; `0` for an empty list (cel-go gives the zero
/// of the element type, which an untyped empty list does not have: int).
fn sum(args: &[Value]) -> Outcome {
    let items = items("sum", args)?;
    let Some(first) = items.first() else {
        return Ok(Value::Int(0));
    };
    let overflow = || ExecutionError::function_error("sum", "integer overflow");
    let mut total = match first {
        Value::Int(_) => Value::Int(0),
        Value::UInt(_) => Value::UInt(0),
        Value::Float(_) => Value::Float(0.0),
        Value::Duration(_) => Value::Duration(chrono::Duration::zero()),
        _ => return Err(ExecutionError::no_such_overload("sum", vec!["list".into()])),
    };
    for item in items {
        total = match (&total, item) {
            (Value::Int(a), Value::Int(b)) => Value::Int(a.checked_add(*b).ok_or_else(overflow)?),
            (Value::UInt(a), Value::UInt(b)) => Value::UInt(a.checked_add(*b).ok_or_else(overflow)?),
            (Value::Float(a), Value::Float(b)) => Value::Float(a + b),
            (Value::Duration(a), Value::Duration(b)) => Value::Duration(a.checked_add(b).ok_or_else(overflow)?),
            _ => return Err(ExecutionError::no_such_overload("sum", vec!["list".into()])),
        };
    }
    Ok(total)
}

fn extreme(function: &str, args: &[Value], keep: Ordering) -> Outcome {
    let items = items(function, args)?;
    let Some(mut best) = items.first() else {
        return Err(error(function, format!("{function} called on empty list")));
    };
    for item in &items[1..] {
        if compare(function, item, best)? == keep {
            best = item;
        }
    }
    Ok(best.clone())
}

fn min(args: &[Value]) -> Outcome {
    extreme("min", args, Ordering::Less)
}

fn max(args: &[Value]) -> Outcome {
    extreme("max", args, Ordering::Greater)
}

fn index_of(args: &[Value]) -> Outcome {
    let items = items("indexOf", args)?;
    let needle = &args[1];
    Ok(Value::Int(
        items.iter().position(|v| crate::cel::vocabulary::value::deep_equal(v, needle)).map_or(-1, |i| i as i64),
    ))
}

fn last_index_of(args: &[Value]) -> Outcome {
    let items = items("lastIndexOf", args)?;
    let needle = &args[1];
    Ok(Value::Int(
        items.iter().rposition(|v| crate::cel::vocabulary::value::deep_equal(v, needle)).map_or(-1, |i| i as i64),
    ))
}
