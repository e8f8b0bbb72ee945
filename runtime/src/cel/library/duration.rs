//! cel-go's `duration()` and its conversions, which the `cel` crate lacks or reads otherwise.

use cel::Value;

use crate::cel::vocabulary::args::{Outcome, error, string_arg, value_fn};
use crate::cel::vocabulary::function::{Charge, Cost, NativeForm, Rows, Run};

/// `int(duration)`, which the `cel` crate lacks, and `duration()`, which it reads otherwise.
pub(super) fn functions(rows: &mut Rows) {
    rows.add(
        "int(duration) -> int",
        Run::Library(value_fn!(duration_to_int)),
        Cost::Call,
        Charge::Call,
        NativeForm::ToInt,
    );
    for (signature, f) in [
        ("duration(duration) -> duration", value_fn!(same)),
        ("duration(string) -> duration", value_fn!(go_duration)),
        ("duration(int) -> duration", value_fn!(int_to_duration)),
    ] {
        rows.add(signature, Run::Renamed(GO_DURATION, f), Cost::Call, Charge::Call, NativeForm::ToDuration);
    }
}

/// cel-go's `duration()`: of a string, Go's `time.ParseDuration`. The `cel` crate's own
/// accepts what Go refuses (`1hxyz`) and words its errors in nom's debug form, and an overload
/// of the same signature cannot replace it, so the lowering renames every call to this one.
pub const GO_DURATION: &str = "@duration";

/// What cel-go says of a string `duration()` cannot read.
pub const DURATION_CONVERSION: &str = "type conversion error from 'string' to 'google.protobuf.Duration'";

/// `duration(string)` as cel-go reads it.
fn go_duration(args: &[Value]) -> Outcome {
    let s = string_arg("duration", args, 0)?;
    crate::go::duration::parse_go(s)
        .map(|ns| Value::Duration(chrono::Duration::nanoseconds(ns)))
        .ok_or_else(|| error("duration", DURATION_CONVERSION))
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

/// `duration(int)`: declared, but cel-go v0.26 converts no int to a duration.
fn int_to_duration(_: &[Value]) -> Outcome {
    Err(error("duration", "type conversion error from 'int' to 'google.protobuf.Duration'"))
}
