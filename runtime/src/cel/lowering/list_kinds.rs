//! Set and map lists (`x-kubernetes-list-type: set | map`) compare and add as the apiserver's
//! `unstructuredSetList` and `unstructuredMapList` do (semantics §9.4): `==` ignores order
//! (a map list matches items by their key), `+` is a union (a merge by key). The interpreter
//! has one kind of list, so [`lower`] turns each `==`, `!=` and `+` whose left side the checker
//! typed as such a list into a call of the function here; atomic lists keep CEL's own.
//! Like the apiserver's, the semantics follow the left operand: `[1, 2] == self.set` is
//! ordered.

use std::collections::HashMap;
use std::sync::Arc;

use cel::common::ast::{CallExpr, Expr, IdedExpr, ListExpr, LiteralValue, operators};
use cel::{ExecutionError, Value};

use crate::cel::front::types::{ListKind, Type};
use crate::cel::library::args::value_fn;
use crate::cel::library::function::{Charge, Cost, NOT_YET_NATIVE, NativeForm, Rows, Run};
use crate::cel::running::value::deep_equal;

pub const SET_EQUALS: &str = "@set_equals";
pub const SET_UNION: &str = "@set_union";
pub const MAP_LIST_EQUALS: &str = "@map_list_equals";
pub const MAP_LIST_MERGE: &str = "@map_list_merge";

/// The rows of the functions [`lower`] calls.
pub(crate) fn functions(rows: &mut Rows) {
    let mut add = |signature: &str, f, native| rows.add(signature, Run::Library(f), Cost::Call, Charge::Call, native);
    add(&format!("{SET_EQUALS}(list(A), list(A)) -> bool"), value_fn!(set_equals), NativeForm::SetEquals);
    add(
        &format!("{SET_UNION}(list(A), list(A)) -> list(A)"),
        value_fn!(set_union),
        NativeForm::Interpreted(NOT_YET_NATIVE),
    );
    add(
        &format!("{MAP_LIST_EQUALS}(list(A), list(A), list(string)) -> bool"),
        value_fn!(map_list_equals),
        NativeForm::MapListEquals,
    );
    add(
        &format!("{MAP_LIST_MERGE}(list(A), list(A), list(string)) -> list(A)"),
        value_fn!(map_list_merge),
        NativeForm::Interpreted(NOT_YET_NATIVE),
    );
}

/// Makes the set and map lists' `==`, `!=` and `+` in `e` calls of their own functions;
/// `types` are the checker's, by node id.
pub fn lower(e: &mut IdedExpr, types: &HashMap<u64, Type>) {
    for child in crate::cel::front::depth::children_mut(e) {
        lower(child, types);
    }
    let Expr::Call(call) = &mut e.expr else { return };
    let (name, negate) = match call.func_name.as_str() {
        operators::EQUALS => ("equals", false),
        operators::NOT_EQUALS => ("equals", true),
        operators::ADD => ("add", false),
        _ => return,
    };
    if call.target.is_some() || call.args.len() != 2 {
        return;
    }
    let Some(Type::List(_, kind)) = types.get(&call.args[0].id) else { return };
    let (function, keys) = match (kind, name) {
        (ListKind::Set, "equals") => (SET_EQUALS, None),
        (ListKind::Set, _) => (SET_UNION, None),
        (ListKind::Map(keys), "equals") => (MAP_LIST_EQUALS, Some(keys.clone())),
        (ListKind::Map(keys), _) => (MAP_LIST_MERGE, Some(keys.clone())),
        (ListKind::Atomic, _) => return,
    };
    let mut args = std::mem::take(&mut call.args);
    if let Some(keys) = keys {
        let names = keys
            .iter()
            .map(|k| IdedExpr { id: e.id, expr: Expr::Literal(LiteralValue::String(k.to_string().into())) })
            .collect();
        args.push(IdedExpr { id: e.id, expr: Expr::List(ListExpr::new(names)) });
    }
    let lowered = Expr::Call(CallExpr { func_name: function.to_owned(), target: None, args });
    e.expr = if negate {
        let inner = IdedExpr { id: e.id, expr: lowered };
        Expr::Call(CallExpr { func_name: operators::LOGICAL_NOT.to_owned(), target: None, args: vec![inner] })
    } else {
        lowered
    };
}

fn lists<'a>(function: &str, args: &'a [Value]) -> Result<(&'a [Value], &'a [Value]), ExecutionError> {
    match (args.first(), args.get(1)) {
        (Some(Value::List(a)), Some(Value::List(b))) => Ok((a.as_slice(), b.as_slice())),
        (_, Some(other)) => Err(ExecutionError::no_such_overload(function, vec![other.type_of().to_string()])),
        _ => Err(ExecutionError::invalid_argument_count(2, args.len())),
    }
}

/// A set item as the apiserver keys it: its Go value, so `1` and `1.0` differ. Items that are
/// lists or maps cannot be keyed.
fn set_key(v: &Value) -> Result<String, ExecutionError> {
    match v {
        Value::List(_) | Value::Map(_) => Err(ExecutionError::function_error(
            "listSet",
            "listSet operations are only supported on lists of scalar values",
        )),
        scalar => Ok(format!("{scalar:?}")),
    }
}

fn set_equals(args: &[Value]) -> Result<Value, ExecutionError> {
    let (a, b) = lists(SET_EQUALS, args)?;
    if a.len() != b.len() {
        return Ok(Value::Bool(false));
    }
    let set: std::collections::HashSet<String> = a.iter().map(set_key).collect::<Result<_, _>>()?;
    for item in b {
        if !set.contains(&set_key(item)?) {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

fn set_union(args: &[Value]) -> Result<Value, ExecutionError> {
    let (a, b) = lists(SET_UNION, args)?;
    let mut set: std::collections::HashSet<String> = a.iter().map(set_key).collect::<Result<_, _>>()?;
    let mut out = a.to_vec();
    for item in b {
        if set.insert(set_key(item)?) {
            out.push(item.clone());
        }
    }
    Ok(Value::List(Arc::new(out)))
}

/// The key names of a map list (the third argument).
fn key_names(args: &[Value]) -> Vec<String> {
    match args.get(2) {
        Some(Value::List(names)) => {
            names.iter().filter_map(|n| if let Value::String(s) = n { Some(s.to_string()) } else { None }).collect()
        }
        _ => Vec::new(),
    }
}

/// An item's key: its key properties' values (absent ones as null), as the apiserver's
/// `toMapKey`.
fn map_key(item: &Value, names: &[String]) -> Result<String, ExecutionError> {
    let Value::Map(m) = item else {
        return Err(ExecutionError::function_error(
            "listMap",
            format!("unexpected data format for element of array with x-kubernetes-list-type=map: {}", item.type_of()),
        ));
    };
    let values: Vec<String> = names
        .iter()
        .map(|n| {
            let key = cel::objects::Key::String(Arc::new(n.clone()));
            format!("{:?}", m.map.get(&key).unwrap_or(&Value::Null))
        })
        .collect();
    Ok(values.join("\u{0}"))
}

fn map_list_equals(args: &[Value]) -> Result<Value, ExecutionError> {
    let (a, b) = lists(MAP_LIST_EQUALS, args)?;
    if a.len() != b.len() {
        return Ok(Value::Bool(false));
    }
    let names = key_names(args);
    let mut by_key = HashMap::with_capacity(a.len());
    for item in a {
        by_key.insert(map_key(item, &names)?, item);
    }
    for item in b {
        match by_key.get(&map_key(item, &names)?) {
            Some(mine) if deep_equal(mine, item) => {}
            _ => return Ok(Value::Bool(false)),
        }
    }
    Ok(Value::Bool(true))
}

fn map_list_merge(args: &[Value]) -> Result<Value, ExecutionError> {
    let (a, b) = lists(MAP_LIST_MERGE, args)?;
    let names = key_names(args);
    let mut out = a.to_vec();
    let mut position = HashMap::with_capacity(a.len());
    for (i, item) in a.iter().enumerate() {
        position.insert(map_key(item, &names)?, i);
    }
    for item in b {
        let key = map_key(item, &names)?;
        // Only the left side's keys are replaced; the right side's items are all kept.
        match position.get(&key) {
            Some(&i) => out[i] = item.clone(),
            None => out.push(item.clone()),
        }
    }
    Ok(Value::List(Arc::new(out)))
}
