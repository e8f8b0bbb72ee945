//! The Kubernetes sets library (`AS pkg/cel/library/sets.go`): `sets.contains`,
//! `sets.equivalent`, `sets.intersects` over lists, by CEL equality.

use cel::Value;

use crate::cel::vocabulary::args::{Outcome, error, value_fn};
use crate::cel::vocabulary::function::{Charge, Cost, NOT_YET_NATIVE, NativeForm, Rows, Run};
use crate::cel::vocabulary::value::deep_equal;

pub(super) fn functions(rows: &mut Rows) {
    let interpreted = NativeForm::Interpreted(NOT_YET_NATIVE);
    let mut add = |signature: &str, f, factor| {
        rows.add(signature, Run::Library(f), Cost::Sets(factor), Charge::Call, interpreted);
    };
    add("sets.contains(list(A), list(A)) -> bool", value_fn!(contains), 1.0);
    add("sets.equivalent(list(A), list(A)) -> bool", value_fn!(equivalent), 2.0);
    add("sets.intersects(list(A), list(A)) -> bool", value_fn!(intersects), 1.0);
}

fn lists<'a>(function: &str, args: &'a [Value]) -> Result<(&'a [Value], &'a [Value]), cel::ExecutionError> {
    match (args.first(), args.get(1)) {
        (Some(Value::List(a)), Some(Value::List(b))) => Ok((a.as_slice(), b.as_slice())),
        _ => Err(error(function, "expected two lists")),
    }
}

fn holds_all(a: &[Value], b: &[Value]) -> bool {
    b.iter().all(|x| a.iter().any(|y| deep_equal(x, y)))
}

fn contains(args: &[Value]) -> Outcome {
    let (a, b) = lists("sets.contains", args)?;
    Ok(Value::Bool(holds_all(a, b)))
}

fn equivalent(args: &[Value]) -> Outcome {
    let (a, b) = lists("sets.equivalent", args)?;
    Ok(Value::Bool(holds_all(a, b) && holds_all(b, a)))
}

fn intersects(args: &[Value]) -> Outcome {
    let (a, b) = lists("sets.intersects", args)?;
    Ok(Value::Bool(b.iter().any(|x| a.iter().any(|y| deep_equal(x, y)))))
}
