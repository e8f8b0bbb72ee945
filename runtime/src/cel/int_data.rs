//! Integer data is read as an integer, or the rule fails as the apiserver's does. The apiserver
//! hands rules the object as decoded JSON, where `1.0` and numbers beyond int64 are float64
//! even in a field of `type: integer`; its `UnstructuredToVal` turns such a value into an error
//! when a rule reads it (`invalid data, expected int, got float64`), and only then: a rule
//! that does not read the field is not affected; `has()` of such a field fails too (the
//! apiserver's `IsSet` converts what it finds). The interpreter gets the same by [`lower`]:
//! every read the checker typed `int` (an identifier, a field, an index) goes through
//! [`INT_DATA`], which passes an integer and refuses anything else, and `has(x.f)` of an `int`
//! field becomes `has(x.f) && INT_PRESENT(x.f)`. A typed value always holds an integer there,
//! so code compiled to Rust reads the value as it is.

use std::collections::HashMap;

use cel::common::ast::{CallExpr, Expr, IdedExpr, operators};
use cel::common::types::DYN_TYPE;
use cel::{DeclarationError, Env, ExecutionError, Value};

use super::library::value_fn;
use super::types::Type;

/// The check every integer read is lowered into.
pub const INT_DATA: &str = "@int_data";
/// The check after `has()` of an integer field: true, or the same error.
pub const INT_PRESENT: &str = "@int_present";

/// Registers [`INT_DATA`] and [`INT_PRESENT`].
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload(INT_DATA, "@int_data_dyn", vec![DYN_TYPE], value_fn!(int_data))?;
    env.add_overload(INT_PRESENT, "@int_present_dyn", vec![DYN_TYPE], value_fn!(int_present))
}

fn int_data(args: &[Value]) -> Result<Value, ExecutionError> {
    match args.first() {
        // JSON numbers that are no int64 are float64 to the apiserver, uint64 ones included.
        Some(Value::Float(_) | Value::UInt(_)) => {
            Err(ExecutionError::function_error(INT_DATA, "invalid data, expected int, got float64"))
        }
        Some(other) => Ok(other.clone()),
        None => Err(ExecutionError::invalid_argument_count(1, 0)),
    }
}

fn int_present(args: &[Value]) -> Result<Value, ExecutionError> {
    int_data(args).map(|_| Value::Bool(true))
}

/// Wraps every read in `e` that `types` (the checker's, by node id) says is an `int`.
pub fn lower(e: &mut IdedExpr, types: &HashMap<u64, Type>) {
    for child in super::depth::children_mut(e) {
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
            expr: Expr::Call(CallExpr { func_name: INT_PRESENT.to_owned(), target: None, args: vec![value] }),
        };
        let has = IdedExpr { id: e.id, expr: std::mem::take(&mut e.expr) };
        e.expr = Expr::Call(CallExpr {
            func_name: operators::LOGICAL_AND.to_owned(),
            target: None,
            args: vec![has, present],
        });
        return;
    }
    let read = match &e.expr {
        // A comprehension's accumulator (`@result`, `__result__`) is the rule's own count.
        Expr::Ident(name) => !matches!(name.as_str(), "@result" | "__result__"),
        Expr::Select(s) => !s.test,
        Expr::Call(c) => c.func_name == operators::INDEX && c.target.is_none() && c.args.len() == 2,
        _ => false,
    };
    if read && types.get(&e.id) == Some(&Type::Int) {
        let inner = IdedExpr { id: e.id, expr: std::mem::take(&mut e.expr) };
        e.expr = Expr::Call(CallExpr { func_name: INT_DATA.to_owned(), target: None, args: vec![inner] });
    }
}

/// Whether field `field` of a value of type `operand` is an `int`.
fn int_field(operand: Option<&Type>, field: &str) -> bool {
    match operand {
        Some(Type::Object(object)) => super::check::field_type(object, field) == Some(&Type::Int),
        Some(Type::Map(_, values)) => **values == Type::Int,
        _ => false,
    }
}
