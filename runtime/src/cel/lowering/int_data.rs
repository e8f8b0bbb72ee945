//! Integer data is read as an integer, or the rule fails as the apiserver's does (any other
//! JSON type too: a string stored before the CRD retyped the field reaches a rule once
//! ratcheting drops the schema's error, `invalid data, expected int, got string`). The apiserver
//! hands rules the object as decoded JSON, where `1.0` and numbers beyond int64 are float64
//! even in a field of `type: integer`; its `UnstructuredToVal` turns such a value into an error
//! when a rule reads it (`invalid data, expected int, got float64`), and only then: a rule
//! that does not read the field is not affected; `has()` of such a field fails too (the
//! apiserver's `IsSet` converts what it finds). The interpreter gets the same by [`lower`]:
//! every read the checker typed `int` (an identifier, a field, an index) goes through
//! [`INT_DATA`], which passes an integer and refuses anything else, and `has(x.f)` of an `int`
//! field becomes `has(x.f) && INT_PRESENT(x.f)`.
//!
//! A typed value holds an `i64` there, however the document wrote it. The validating read
//! ([`crate::decode`]) records the integers it read from a whole float (`1.0`), and validates
//! the value inside [`with_written_as_float`]: there a node's CEL value has those places as
//! floats again, and code compiled to Rust checks each integer read against them
//! ([`crate::cel::running::native::Meter::int_read`]). A value built in Rust, or read by plain
//! `Deserialize`, has none: its rules read its integers.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use cel::common::ast::{CallExpr, Expr, IdedExpr, operators};
use cel::{ExecutionError, Value};

use crate::cel::vocabulary::args::value_fn;
use crate::cel::vocabulary::function::{Charge, Cost, NativeForm, Rows, Run};
use crate::cel::vocabulary::types::Type;

/// The check every integer read is lowered into.
pub const INT_DATA: &str = "@int_data";
/// The check after `has()` of an integer field: true, or the same error.
pub const INT_PRESENT: &str = "@int_present";

/// The rows of [`INT_DATA`] and [`INT_PRESENT`].
pub(crate) fn functions(rows: &mut Rows) {
    let run = |f| Run::Library(f);
    rows.add(
        format!("{INT_DATA}(A) -> A"),
        run(value_fn!(int_data)),
        Cost::Call,
        Charge::FirstOperand,
        NativeForm::IntData,
    );
    rows.add(
        format!("{INT_PRESENT}(A) -> bool"),
        run(value_fn!(int_present)),
        Cost::Call,
        Charge::Call,
        NativeForm::IntPresent,
    );
}

/// What a rule that reads a float where the schema says integer fails with.
pub const FLOAT_READ: &str = "invalid data, expected int, got float64";

/// The error of a float read where the schema says integer.
pub(crate) fn float_read() -> ExecutionError {
    ExecutionError::function_error(INT_DATA, FLOAT_READ)
}

/// The error of a read of `v` where the schema says integer, if `v` is no integer: the
/// apiserver's `UnstructuredToVal` words it with Go's `%T` of the decoded JSON. Data of another
/// type than its schema's reaches a rule only where ratcheting dropped the schema's own error
/// (an unchanged field the CRD retyped).
pub(crate) fn not_int(v: &Value) -> Option<ExecutionError> {
    let go_type = match v {
        // JSON numbers that are no int64 are float64 to the apiserver, uint64 ones included.
        Value::Float(_) | Value::UInt(_) => return Some(float_read()),
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        Value::List(_) => "[]interface {}",
        Value::Map(_) => "map[string]interface {}",
        _ => return None,
    };
    Some(ExecutionError::function_error(INT_DATA, format!("invalid data, expected int, got {go_type}")))
}

fn int_data(args: &[Value]) -> Result<Value, ExecutionError> {
    match args.first() {
        Some(other) => not_int(other).map_or_else(|| Ok(other.clone()), Err),
        None => Err(ExecutionError::invalid_argument_count(1, 0)),
    }
}

fn int_present(args: &[Value]) -> Result<Value, ExecutionError> {
    int_data(args).map(|_| Value::Bool(true))
}

/// Wraps every read in `e` that `types` (the checker's, by node id) says is an `int`.
pub fn lower(e: &mut IdedExpr, types: &HashMap<u64, Type>) {
    for child in crate::cel::vocabulary::depth::children_mut(e) {
        lower(child, types);
    }
    if let Expr::Select(s) = &e.expr
        && s.test
        && int_field(types.get(&s.operand.id), &s.field)
    {
        let mut read = s.clone();
        read.test = false;
        let value = IdedExpr { id: e.id, expr: Expr::Select(read) };
        let present = IdedExpr {
            id: e.id,
            expr: Expr::Call(CallExpr {
                func_name: INT_PRESENT.to_owned(),
                target: None,
                args: vec![value],
                ..Default::default()
            }),
        };
        let has = IdedExpr { id: e.id, expr: std::mem::take(&mut e.expr) };
        e.expr = Expr::Call(CallExpr {
            func_name: operators::LOGICAL_AND.to_owned(),
            target: None,
            args: vec![has, present],
            ..Default::default()
        });
        return;
    }
    if super::reads_data(&e.expr) && types.get(&e.id) == Some(&Type::Int) {
        let inner = IdedExpr { id: e.id, expr: std::mem::take(&mut e.expr) };
        e.expr = Expr::Call(CallExpr {
            func_name: INT_DATA.to_owned(),
            target: None,
            args: vec![inner],
            ..Default::default()
        });
    }
}

/// Whether field `field` of a value of type `operand` is an `int`.
fn int_field(operand: Option<&Type>, field: &str) -> bool {
    match operand {
        Some(Type::Object(object)) => object.field(field) == Some(&Type::Int),
        Some(Type::Map(_, values)) => **values == Type::Int,
        _ => false,
    }
}

thread_local! {
    /// The places (JSON pointers from the root) of the value being validated whose integers
    /// were written as floats; empty outside [`with_written_as_float`].
    static WRITTEN_AS_FLOAT: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Runs `validate` (a typed value's validation, on this thread) knowing that the integers at
/// `places` (JSON pointers from the root, as [`crate::decode::Decoded::written_as_float`]
/// records them) were written as floats in the document: a rule that reads one fails as the
/// apiserver's does (`invalid data, expected int, got float64`), natively and interpreted.
pub fn with_written_as_float<R>(places: Vec<String>, validate: impl FnOnce() -> R) -> R {
    struct Restore(Vec<String>);
    impl Drop for Restore {
        fn drop(&mut self) {
            WRITTEN_AS_FLOAT.with(|w| *w.borrow_mut() = std::mem::take(&mut self.0));
        }
    }
    let _restore = Restore(WRITTEN_AS_FLOAT.with(|w| std::mem::replace(&mut *w.borrow_mut(), places)));
    validate()
}

/// The places under `node` written as floats, relative to it (`/ports/3/port`); empty unless
/// inside [`with_written_as_float`].
pub(crate) fn written_as_float_under(node: &dyn crate::report::path::Place) -> Vec<String> {
    WRITTEN_AS_FLOAT.with(|w| {
        let w = w.borrow();
        if w.is_empty() {
            return Vec::new();
        }
        let base = node.to_path().pointer();
        w.iter().filter_map(|p| crate::report::path::below(p, &base)).map(str::to_owned).collect()
    })
}

/// Whether a read at `pattern` (a pointer with `*` for any list index or map key, as code
/// compiled to Rust names its integer reads) is one of the `places` written as floats.
pub(crate) fn reads_float(pattern: &str, places: &[String]) -> bool {
    places.iter().any(|place| {
        let (mut want, mut have) = (pattern.split('/'), place.split('/'));
        loop {
            match (want.next(), have.next()) {
                (None, None) => return true,
                (Some(w), Some(h)) if w == "*" || w == h => {}
                _ => return false,
            }
        }
    })
}

/// `value` (a node's CEL value, `places` relative to it) with the integers at `places` as the
/// floats the document wrote.
pub(crate) fn as_written(value: Value, places: &[String]) -> Value {
    places.iter().fold(value, |v, place| float_at(v, &place.split('/').skip(1).collect::<Vec<_>>()))
}

fn float_at(value: Value, place: &[&str]) -> Value {
    let Some((segment, place)) = place.split_first() else {
        return match value {
            Value::Int(i) => Value::Float(i as f64),
            other => other,
        };
    };
    match value {
        Value::List(mut items) => {
            if let Ok(i) = segment.parse::<usize>()
                && i < items.len()
            {
                let items = Arc::make_mut(&mut items);
                let item = std::mem::replace(&mut items[i], Value::Null);
                items[i] = float_at(item, place);
            }
            Value::List(items)
        }
        Value::Map(mut map) => {
            // A map's keys are as written; an object's properties under their escaped names
            // (a reserved word under both).
            let name = crate::report::path::unescape_token(segment).into_owned();
            let escaped = crate::schema::cel_name::escape(&name).filter(|e| *e != name);
            let entries = Arc::make_mut(&mut map.map);
            for key in std::iter::once(name).chain(escaped) {
                let key = cel::objects::Key::String(Arc::new(key));
                if let Some(v) = entries.remove(&key) {
                    let v = float_at(v, place);
                    entries.insert(key, v);
                }
            }
            Value::Map(map)
        }
        other => other,
    }
}
