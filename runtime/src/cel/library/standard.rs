//! cel-go's standard library (`checker/decls`, `common/stdlib`) and optional types (1.28), as
//! the `cel` crate implements them.

use std::sync::LazyLock;

use cel::common::types::{CelDouble, CelString};
use cel::common::value::CowVal;
use cel::{Env, ExecutionError};

use crate::cel::vocabulary::function::{Charge, Cost, NO_RUST_TYPE, NativeForm as N, Rows, Run};

pub(super) fn functions(rows: &mut Rows) {
    let mut add = |signature: &str, cost: Cost, charge: Charge, native: N| {
        rows.add(signature, Run::Cel, cost, charge, native);
    };
    let interpreted = N::Interpreted(NO_RUST_TYPE);
    use Charge::{Call, FirstOperand};
    add("_?_:_(bool, A, A) -> A", Cost::Conditional, FirstOperand, N::Conditional);
    add("_&&_(bool, bool) -> bool", Cost::ShortCircuit, FirstOperand, N::And);
    add("_||_(bool, bool) -> bool", Cost::ShortCircuit, FirstOperand, N::Or);
    add("!_(bool) -> bool", Cost::Call, Call, N::Not);
    add("@not_strictly_false(bool) -> bool", Cost::Call, FirstOperand, N::NotStrictlyFalse);
    add("-_(int) -> int", Cost::Call, Call, N::Negate);
    add("-_(double) -> double", Cost::Call, Call, N::Negate);
    add("_==_(A, A) -> bool", Cost::Equality, Call, N::Equal);
    add("_!=_(A, A) -> bool", Cost::CompareTraversing, Call, N::NotEqual);
    add("_+_(int, int) -> int", Cost::Call, Charge::Sized, N::Add);
    add("_+_(uint, uint) -> uint", Cost::Call, Charge::Sized, N::Add);
    add("_+_(double, double) -> double", Cost::Call, Charge::Sized, N::Add);
    add("_+_(string, string) -> string", Cost::ConcatCopy, Charge::Sized, N::Add);
    add("_+_(bytes, bytes) -> bytes", Cost::ConcatCopy, Charge::Sized, N::Add);
    add("_+_(list(A), list(A)) -> list(A)", Cost::ConcatList, Charge::Sized, N::Add);
    add("_+_(timestamp, duration) -> timestamp", Cost::Call, Charge::Sized, N::Add);
    add("_+_(duration, timestamp) -> timestamp", Cost::Call, Charge::Sized, N::Add);
    add("_+_(duration, duration) -> duration", Cost::Call, Charge::Sized, N::Add);
    for (op, helper) in [("_-_", "sub_int"), ("_*_", "mul_int"), ("_/_", "div_int"), ("_%_", "rem_int")] {
        let form = N::Arithmetic(helper);
        add(&format!("{op}(int, int) -> int"), Cost::Call, Call, form);
        add(&format!("{op}(uint, uint) -> uint"), Cost::Call, Call, form);
        if op != "_%_" {
            add(&format!("{op}(double, double) -> double"), Cost::Call, Call, form);
        }
    }
    add("_-_(timestamp, timestamp) -> duration", Cost::Call, Call, interpreted);
    add("_-_(timestamp, duration) -> timestamp", Cost::Call, Call, interpreted);
    add("_-_(duration, duration) -> duration", Cost::Call, Call, interpreted);
    add("_[_](list(A), int) -> A", Cost::IndexList, Call, N::Index);
    add("_[_](map(A, B), A) -> B", Cost::IndexMap, Call, N::Index);
    add("@in(A, list(A)) -> bool", Cost::InList, Call, N::In);
    add("@in(A, map(A, B)) -> bool", Cost::Call, Call, N::In);
    for t in ["string", "bytes", "list(A)", "map(A, B)"] {
        add(&format!("size({t}) -> int"), Cost::Call, Call, N::Size);
    }
    for t in ["string", "bytes", "list(A)", "map(A, B)"] {
        add(&format!("{t}.size() -> int"), Cost::Call, Call, N::Size);
    }
    add("type(A) -> type(A)", Cost::Call, Call, interpreted);
    add("dyn(A) -> dyn", Cost::Transparent, Call, interpreted);
    // `int(duration)` is the library's (`duration.rs`).
    for (signature, cost, native) in [
        ("int(int) -> int", Cost::Call, N::ToInt),
        ("int(uint) -> int", Cost::Call, interpreted),
        ("int(double) -> int", Cost::Call, interpreted),
        ("int(string) -> int", Cost::Call, N::ToInt),
        ("int(timestamp) -> int", Cost::Call, interpreted),
        ("uint(uint) -> uint", Cost::Call, interpreted),
        ("uint(int) -> uint", Cost::Call, interpreted),
        ("uint(double) -> uint", Cost::Call, interpreted),
        ("uint(string) -> uint", Cost::Call, interpreted),
        ("double(double) -> double", Cost::Call, interpreted),
        ("double(int) -> double", Cost::Call, interpreted),
        ("double(uint) -> double", Cost::Call, interpreted),
        ("double(string) -> double", Cost::Call, interpreted),
        ("bytes(bytes) -> bytes", Cost::Call, interpreted),
        ("bytes(string) -> bytes", Cost::ToBytes, interpreted),
        ("bool(bool) -> bool", Cost::Call, interpreted),
        ("bool(string) -> bool", Cost::Call, interpreted),
        ("timestamp(timestamp) -> timestamp", Cost::Call, interpreted),
        ("timestamp(string) -> timestamp", Cost::Call, interpreted),
        ("timestamp(int) -> timestamp", Cost::Call, interpreted),
    ] {
        add(signature, cost, Call, native);
    }
    // `matches` is the regex library's (`regex.rs`).
    add("string.contains(string) -> bool", Cost::Contains, Call, N::StrPredicate("contains"));
    add("string.startsWith(string) -> bool", Cost::Affix, Call, N::StrPredicate("starts_with"));
    add("string.endsWith(string) -> bool", Cost::Affix, Call, N::StrPredicate("ends_with"));
    for (op, rust) in [("_<_", "<"), ("_<=_", "<="), ("_>_", ">"), ("_>=_", ">=")] {
        for t in ["bool", "string", "bytes", "timestamp", "duration"] {
            let cost = if matches!(t, "string" | "bytes") { Cost::CompareTraversing } else { Cost::Call };
            add(&format!("{op}({t}, {t}) -> bool"), cost, Call, N::Ordering(rust));
        }
        // Cross-type numeric comparisons (1.28).
        for a in ["int", "uint", "double"] {
            for b in ["int", "uint", "double"] {
                add(&format!("{op}({a}, {b}) -> bool"), Cost::Call, Call, N::Ordering(rust));
            }
        }
    }
    for getter in [
        "getFullYear",
        "getMonth",
        "getDayOfYear",
        "getDayOfMonth",
        "getDate",
        "getDayOfWeek",
        "getHours",
        "getMinutes",
        "getSeconds",
        "getMilliseconds",
    ] {
        add(&format!("timestamp.{getter}() -> int"), Cost::Call, Call, interpreted);
        add(&format!("timestamp.{getter}(string) -> int"), Cost::Call, Call, interpreted);
    }
    for getter in ["getHours", "getMinutes", "getSeconds", "getMilliseconds"] {
        add(&format!("duration.{getter}() -> int"), Cost::Call, Call, interpreted);
    }
    // Optional types (1.28).
    add("optional.of(A) -> optional_type(A)", Cost::Call, Call, interpreted);
    add("optional.ofNonZeroValue(A) -> optional_type(A)", Cost::Call, Call, interpreted);
    add("optional.none() -> optional_type(A)", Cost::Call, Call, interpreted);
    add("optional_type(A).value() -> A", Cost::Call, Call, N::Value);
    add("optional_type(A).hasValue() -> bool", Cost::Call, Call, N::HasValue);
    add("optional_type(A).or(optional_type(A)) -> optional_type(A)", Cost::Call, Call, interpreted);
    add("optional_type(A).orValue(A) -> A", Cost::Call, Call, interpreted);
    add("_[?_](list(A), int) -> optional_type(A)", Cost::Call, Call, interpreted);
    add("_[?_](map(A, B), A) -> optional_type(B)", Cost::Call, Call, interpreted);
    add("_[?_](optional_type(list(A)), int) -> optional_type(A)", Cost::Call, Call, interpreted);
    add("_[?_](optional_type(map(A, B)), A) -> optional_type(B)", Cost::Call, Call, interpreted);
    add("_[_](optional_type(list(A)), int) -> optional_type(A)", Cost::Call, Call, interpreted);
    add("_[_](optional_type(map(A, B)), A) -> optional_type(B)", Cost::Call, Call, interpreted);
    // Optional types, version 2 (the apiserver enables the latest).
    add("list(A).first() -> optional_type(A)", Cost::Call, Call, interpreted);
    add("list(A).last() -> optional_type(A)", Cost::Call, Call, interpreted);
    add("optional.unwrap(list(optional_type(A))) -> list(A)", Cost::Call, Call, interpreted);
    add("list(optional_type(A)).unwrapOpt() -> list(A)", Cost::Call, Call, interpreted);
    // `a.?b` (the checker types it as a field selection; cel-go's `select_optional_field`).
    add("_?._(dyn, string) -> dyn", Cost::Call, Call, interpreted);
    for (signature, cost, native) in [
        ("string(string) -> string", Cost::Call, N::ToString),
        ("string(int) -> string", Cost::Call, N::ToString),
        ("string(uint) -> string", Cost::Call, interpreted),
        ("string(double) -> string", Cost::Call, interpreted),
        ("string(bool) -> string", Cost::Call, interpreted),
        ("string(bytes) -> string", Cost::FromBytes, interpreted),
        ("string(timestamp) -> string", Cost::Call, interpreted),
        ("string(duration) -> string", Cost::Call, interpreted),
    ] {
        rows.add(signature, Run::Renamed(GO_STRING, go_string), cost, Call, native);
    }
}

/// cel-go's `string()`: of a double, Go's `%g` (`1e+08`, `2.5e-07`, `+Inf`), where the `cel`
/// crate writes Rust's (`100000000`, `0.00000025`, `inf`); of anything else, the `cel` crate's
/// own conversion, found in its standard library. An overload of the same signature cannot
/// replace the crate's, so the lowering renames every `string(x)` to this one.
pub const GO_STRING: &str = "@string";

fn go_string<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    if let [value] = args.as_slice()
        && let Some(double) = value.downcast_ref::<CelDouble>()
    {
        return Ok(CowVal::owned(CelString::from(crate::report::issue::go_float(*double.inner()))));
    }
    static STANDARD: LazyLock<Env> = LazyLock::new(Env::stdlib);
    let conversion = STANDARD.find_overload("string", &args).ok_or_else(|| {
        ExecutionError::no_such_overload("string", args.iter().map(|a| a.get_type().name().to_owned()).collect())
    })?;
    conversion(args)
}
