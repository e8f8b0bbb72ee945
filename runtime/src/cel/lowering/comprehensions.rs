//! Two-variable comprehensions (cel-go's `ext.TwoVarComprehensions`, in the 1.32
//! environment): `all(k, v, p)`, `exists`, `existsOne`/`exists_one`, `transformList`,
//! `transformMap` and `transformMapEntry`, expanded as cel-go expands them, into comprehensions
//! with a second iteration variable, which the checker types as cel-go does.
//!
//! The interpreter iterates with one variable, so before an expression runs,
//! [`two_variables`] turns each such loop into a one-variable loop over `@pairs(range)`
//! (`[index, element]` or `[key, value]` pairs) with both variables read from the pair.

use std::collections::HashMap;
use std::sync::Arc;

use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, IdedExpr, ListExpr, LiteralValue, MapExpr, operators};
use cel::objects::{Key, Map};
use cel::parser::{Macro, MacroExprHelper, ParseError};
use cel::{DeclarationError, Env, ExecutionError, Value};

use crate::cel::vocabulary::args::value_fn;
use crate::cel::vocabulary::depth;
use crate::cel::vocabulary::function::{Charge, Cost, NOT_YET_NATIVE, NativeForm, Rows, Run};

const RESULT: &str = "@result";
const MAP_INSERT: &str = "cel.@mapInsert";
const PAIRS: &str = "@pairs";

/// Registers the macros (their expansions call the functions of [`functions`]).
pub fn register_macros(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_macro(Macro::receiver("all", 3, all))?;
    env.add_macro(Macro::receiver("exists", 3, exists))?;
    env.add_macro(Macro::receiver("existsOne", 3, exists_one))?;
    env.add_macro(Macro::receiver("exists_one", 3, exists_one))?;
    for arity in [3, 4] {
        env.add_macro(Macro::receiver("transformList", arity, transform_list))?;
        env.add_macro(Macro::receiver("transformMap", arity, transform_map))?;
        env.add_macro(Macro::receiver("transformMapEntry", arity, transform_map_entry))?;
    }
    Ok(())
}

/// The rows of the functions the expansions call.
pub(crate) fn functions(rows: &mut Rows) {
    let interpreted = NativeForm::Interpreted(NOT_YET_NATIVE);
    let mut add = |signature: &str, f| rows.add(signature, Run::Library(f), Cost::Call, Charge::Call, interpreted);
    add(&format!("{MAP_INSERT}(map(K, V), K, V) -> map(K, V)"), value_fn!(map_insert));
    add(&format!("{MAP_INSERT}(map(K, V), map(K, V)) -> map(K, V)"), value_fn!(map_insert));
    add(&format!("{PAIRS}(list(A)) -> list(dyn)"), value_fn!(pairs));
    add(&format!("{PAIRS}(map(K, V)) -> list(dyn)"), value_fn!(pairs));
}

type Expansion = Result<Option<IdedExpr>, ParseError>;

fn call(h: &mut MacroExprHelper<'_>, name: &str, args: Vec<IdedExpr>) -> IdedExpr {
    h.next_expr(Expr::Call(CallExpr { func_name: name.to_owned(), target: None, args, ..Default::default() }))
}

fn result(h: &mut MacroExprHelper<'_>) -> IdedExpr {
    h.next_expr(Expr::Ident(RESULT.to_owned()))
}

fn literal(h: &mut MacroExprHelper<'_>, v: LiteralValue) -> IdedExpr {
    h.next_expr(Expr::Literal(v))
}

/// The two iteration variables (cel-go's `extractIterVars`).
fn variables(h: &MacroExprHelper<'_>, args: &[IdedExpr]) -> Result<(String, String), ParseError> {
    let name = |e: &IdedExpr| match &e.expr {
        Expr::Ident(n) => Ok(n.clone()),
        _ => Err(h.new_error(e.id, "argument must be a simple name")),
    };
    let (k, v) = (name(&args[0])?, name(&args[1])?);
    if k == v {
        return Err(h.new_error(args[1].id, format!("duplicate variable name: {v}")));
    }
    if k == RESULT || v == RESULT {
        return Err(h.new_error(args[0].id, "iteration variable overwrites accumulator variable"));
    }
    Ok((k, v))
}

#[allow(
    clippy::too_many_arguments,
    reason = "one argument per part of the fold cel-go's macro builds, named as upstream names them"
)]
fn fold(
    h: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    k: String,
    v: String,
    init: IdedExpr,
    cond: IdedExpr,
    step: IdedExpr,
    result: IdedExpr,
) -> IdedExpr {
    let range = target.take().expect("invariant: a receiver macro has a target");
    h.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: range,
        iter_var: k,
        iter_var2: Some(v),
        accu_var: RESULT.to_owned(),
        accu_init: init,
        loop_cond: cond,
        loop_step: step,
        result,
    })))
}

fn all(h: &mut MacroExprHelper<'_>, target: &mut Option<IdedExpr>, args: &mut Vec<IdedExpr>) -> Expansion {
    let (k, v) = variables(h, args)?;
    let predicate = args.remove(2);
    let init = literal(h, LiteralValue::Boolean(true.into()));
    let accu = result(h);
    let cond = call(h, operators::NOT_STRICTLY_FALSE, vec![accu]);
    let accu = result(h);
    let step = call(h, operators::LOGICAL_AND, vec![accu, predicate]);
    let out = result(h);
    Ok(Some(fold(h, target, k, v, init, cond, step, out)))
}

fn exists(h: &mut MacroExprHelper<'_>, target: &mut Option<IdedExpr>, args: &mut Vec<IdedExpr>) -> Expansion {
    let (k, v) = variables(h, args)?;
    let predicate = args.remove(2);
    let init = literal(h, LiteralValue::Boolean(false.into()));
    let accu = result(h);
    let not = call(h, operators::LOGICAL_NOT, vec![accu]);
    let cond = call(h, operators::NOT_STRICTLY_FALSE, vec![not]);
    let accu = result(h);
    let step = call(h, operators::LOGICAL_OR, vec![accu, predicate]);
    let out = result(h);
    Ok(Some(fold(h, target, k, v, init, cond, step, out)))
}

fn exists_one(h: &mut MacroExprHelper<'_>, target: &mut Option<IdedExpr>, args: &mut Vec<IdedExpr>) -> Expansion {
    let (k, v) = variables(h, args)?;
    let predicate = args.remove(2);
    let init = literal(h, LiteralValue::Int(0.into()));
    let cond = literal(h, LiteralValue::Boolean(true.into()));
    let (accu, one) = (result(h), literal(h, LiteralValue::Int(1.into())));
    let plus = call(h, operators::ADD, vec![accu, one]);
    let accu = result(h);
    let step = call(h, operators::CONDITIONAL, vec![predicate, plus, accu]);
    let (accu, one) = (result(h), literal(h, LiteralValue::Int(1.into())));
    let out = call(h, operators::EQUALS, vec![accu, one]);
    Ok(Some(fold(h, target, k, v, init, cond, step, out)))
}

/// `filter ? step : @result` when a filter is given (the four-argument forms).
fn filtered(h: &mut MacroExprHelper<'_>, filter: Option<IdedExpr>, step: IdedExpr) -> IdedExpr {
    match filter {
        Some(filter) => {
            let accu = result(h);
            call(h, operators::CONDITIONAL, vec![filter, step, accu])
        }
        None => step,
    }
}

/// The transform's expression and its optional filter.
fn transform_args(args: &mut Vec<IdedExpr>) -> (IdedExpr, Option<IdedExpr>) {
    let expr = args.pop().expect("invariant: the macro's arity has its expression");
    let filter = (args.len() == 3).then(|| args.remove(2));
    (expr, filter)
}

fn transform_list(h: &mut MacroExprHelper<'_>, target: &mut Option<IdedExpr>, args: &mut Vec<IdedExpr>) -> Expansion {
    let (k, v) = variables(h, args)?;
    let (expr, filter) = transform_args(args);
    let init = h.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let cond = literal(h, LiteralValue::Boolean(true.into()));
    let accu = result(h);
    let one = h.next_expr(Expr::List(ListExpr::new(vec![expr])));
    let step = call(h, operators::ADD, vec![accu, one]);
    let step = filtered(h, filter, step);
    let out = result(h);
    Ok(Some(fold(h, target, k, v, init, cond, step, out)))
}

fn transform_map(h: &mut MacroExprHelper<'_>, target: &mut Option<IdedExpr>, args: &mut Vec<IdedExpr>) -> Expansion {
    let (k, v) = variables(h, args)?;
    let (expr, filter) = transform_args(args);
    let init = h.next_expr(Expr::Map(MapExpr::default()));
    let cond = literal(h, LiteralValue::Boolean(true.into()));
    let (accu, key) = (result(h), h.next_expr(Expr::Ident(k.clone())));
    let step = call(h, MAP_INSERT, vec![accu, key, expr]);
    let step = filtered(h, filter, step);
    let out = result(h);
    Ok(Some(fold(h, target, k, v, init, cond, step, out)))
}

fn transform_map_entry(
    h: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
) -> Expansion {
    let (k, v) = variables(h, args)?;
    let (expr, filter) = transform_args(args);
    let init = h.next_expr(Expr::Map(MapExpr::default()));
    let cond = literal(h, LiteralValue::Boolean(true.into()));
    let accu = result(h);
    let step = call(h, MAP_INSERT, vec![accu, expr]);
    let step = filtered(h, filter, step);
    let out = result(h);
    Ok(Some(fold(h, target, k, v, init, cond, step, out)))
}

/// `cel.@mapInsert(m, k, v)` and `cel.@mapInsert(m, other)`: a key already there is an error,
/// as cel-go's `InsertMapKeyValue` has it.
fn map_insert(args: &[Value]) -> Result<Value, ExecutionError> {
    let Some(Value::Map(m)) = args.first() else {
        return Err(ExecutionError::function_error(MAP_INSERT, "expected a map"));
    };
    let mut out: HashMap<Key, Value> = (*m.map).clone();
    let mut insert = |k: &Value, v: &Value| -> Result<(), ExecutionError> {
        let key: Key = k.clone().try_into().map_err(|k: Value| {
            ExecutionError::function_error(MAP_INSERT, format!("unsupported key type: {}", k.type_of()))
        })?;
        if out.contains_key(&key) {
            return Err(ExecutionError::function_error(
                MAP_INSERT,
                format!("insert failed: key {} already exists", crate::cel::vocabulary::value::plain(k)),
            ));
        }
        out.insert(key, v.clone());
        Ok(())
    };
    match &args[1..] {
        [Value::Map(other)] => {
            for (k, v) in other.map.iter() {
                insert(&Value::from(k), v)?;
            }
        }
        [k, v] => insert(k, v)?,
        _ => return Err(ExecutionError::function_error(MAP_INSERT, "expected a map, or a key and a value")),
    }
    Ok(Value::Map(Map { map: Arc::new(out) }))
}

/// `@pairs(list)`: `[index, element]` pairs; `@pairs(map)`: `[key, value]` pairs.
fn pairs(args: &[Value]) -> Result<Value, ExecutionError> {
    let pair = |a: Value, b: Value| Value::List(Arc::new(vec![a, b]));
    let out: Vec<Value> = match args.first() {
        Some(Value::List(items)) => {
            items.iter().enumerate().map(|(i, v)| pair(Value::Int(i as i64), v.clone())).collect()
        }
        Some(Value::Map(m)) => m.map.iter().map(|(k, v)| pair(Value::from(k), v.clone())).collect(),
        _ => return Err(ExecutionError::function_error(PAIRS, "expected a list or a map")),
    };
    Ok(Value::List(Arc::new(out)))
}

/// Turns every two-variable comprehension in `e` into a one-variable one over
/// `@pairs(range)`, the two variables read from the pair (`@it<id>[0]`, `@it<id>[1]`).
pub fn two_variables(e: &mut IdedExpr) {
    if let Expr::Comprehension(c) = &mut e.expr
        && let Some(v2) = c.iter_var2.take()
    {
        let pair = format!("@it{}", e.id);
        let k = std::mem::replace(&mut c.iter_var, pair.clone());
        let range = std::mem::take(&mut c.iter_range);
        c.iter_range = IdedExpr {
            id: range.id,
            expr: Expr::Call(CallExpr {
                func_name: PAIRS.to_owned(),
                target: None,
                args: vec![range],
                ..Default::default()
            }),
        };
        for (name, index) in [(&k, 0), (&v2, 1)] {
            if *name != c.accu_var {
                substitute(&mut c.loop_cond, name, &pair, index);
                substitute(&mut c.loop_step, name, &pair, index);
            }
        }
    }
    for child in depth::children_mut(e) {
        two_variables(child);
    }
}

/// Replaces the free identifier `name` in `e` by `pair[index]`.
fn substitute(e: &mut IdedExpr, name: &str, pair: &str, index: i64) {
    match &mut e.expr {
        Expr::Ident(n) if n == name => {
            let element = IdedExpr { id: e.id, expr: Expr::Ident(pair.to_owned()) };
            let at = IdedExpr { id: e.id, expr: Expr::Literal(LiteralValue::Int(index.into())) };
            e.expr = Expr::Call(CallExpr {
                func_name: operators::INDEX.to_owned(),
                target: None,
                args: vec![element, at],
                ..Default::default()
            });
        }
        Expr::Comprehension(c) => {
            substitute(&mut c.iter_range, name, pair, index);
            substitute(&mut c.accu_init, name, pair, index);
            let binds = |n: &str| c.iter_var == n || c.iter_var2.as_deref() == Some(n) || c.accu_var == n;
            if !binds(name) {
                substitute(&mut c.loop_cond, name, pair, index);
                substitute(&mut c.loop_step, name, pair, index);
            }
            if c.accu_var != name {
                substitute(&mut c.result, name, pair, index);
            }
        }
        _ => {
            for child in depth::children_mut(e) {
                substitute(child, name, pair, index);
            }
        }
    }
}
