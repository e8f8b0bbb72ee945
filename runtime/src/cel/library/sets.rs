//! The Kubernetes sets library (`AS pkg/cel/library/sets.go`): `sets.contains`,
//! `sets.equivalent`, `sets.intersects` over lists, by CEL equality.

use cel::common::types::LIST_TYPE;
use cel::{DeclarationError, Env, Value};

use super::args::{Outcome, error, value_fn};
use crate::cel::running::value::deep_equal;

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload("sets.contains", "list_sets_contains_list", vec![LIST_TYPE, LIST_TYPE], value_fn!(contains))?;
    env.add_overload(
        "sets.equivalent",
        "list_sets_equivalent_list",
        vec![LIST_TYPE, LIST_TYPE],
        value_fn!(equivalent),
    )?;
    env.add_overload(
        "sets.intersects",
        "list_sets_intersects_list",
        vec![LIST_TYPE, LIST_TYPE],
        value_fn!(intersects),
    )?;
    Ok(())
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
