//! CEL cost (semantics §9.7, §9.8): the apiserver's limits, and the estimator of what a rule
//! costs over a [`Shape`] — the sizes of the data it reads — at CRD time: the schema's worst
//! case ([`Shape::of_schema`], feature `dynamic`), multiplied by the node's cardinality, as
//! cel-go's estimator does. At run time cost is counted, not estimated ([`super::meter`]).
//!
//! The model follows cel-go's: 1 per identifier, selection and call, string and list
//! operations a tenth of a unit per byte or element they traverse, comprehensions the cost
//! of their step times the range's size. cel 0.15 has no cost tracking of its own, so the
//! numbers approximate cel-go's rather than copy them; the limits are the apiserver's.

use std::collections::HashMap;

use cel::common::ast::{EntryExpr, Expr};
use cel::parser::Expression;

/// The most one evaluation may cost (`PerCallLimit`).
pub const PER_CALL_LIMIT: u64 = 1_000_000;
/// The most all rules of one object may cost together (`RuntimeCELCostBudget`).
pub const RUNTIME_BUDGET: u64 = 10_000_000;
/// The most one rule's estimate may be (`StaticEstimatedCostLimit`).
pub const STATIC_RULE_LIMIT: u64 = 10_000_000;
/// The most the estimates of one schema's rules may sum to (`StaticEstimatedCRDCostLimit`).
pub const STATIC_CRD_LIMIT: u64 = 100_000_000;
/// The request size that bounds unbounded strings, lists and maps (`MaxRequestSizeBytes`).
pub const MAX_REQUEST_BYTES: u64 = 3 * 1024 * 1024;
/// The longest evaluated messageExpression.
pub const MAX_MESSAGE_EXPRESSION_BYTES: usize = 5120;

/// The sizes of data a rule reads.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A number, boolean, timestamp, ...
    Scalar,
    /// A string or bytes of at most this many bytes.
    Str(u64),
    /// A list of at most this many items.
    List(u64, Box<Shape>),
    /// A map of at most this many entries.
    Map(u64, Box<Shape>),
    /// An object with these (escaped) fields.
    Object(HashMap<String, Shape>),
}

impl Shape {
    fn len(&self) -> u64 {
        match self {
            Shape::List(n, _) | Shape::Map(n, _) => *n,
            Shape::Str(n) => *n,
            Shape::Object(f) => f.len() as u64,
            Shape::Scalar => 1,
        }
    }

    /// The larger of two shapes, field by field.
    fn join(self, other: Shape) -> Shape {
        match (self, other) {
            (Shape::Str(a), Shape::Str(b)) => Shape::Str(a.max(b)),
            (Shape::List(a, x), Shape::List(b, y)) => Shape::List(a.max(b), Box::new(x.join(*y))),
            (Shape::Map(a, x), Shape::Map(b, y)) => Shape::Map(a.max(b), Box::new(x.join(*y))),
            (Shape::Object(mut a), Shape::Object(b)) => {
                for (k, v) in b {
                    let joined = match a.remove(&k) {
                        Some(mine) => mine.join(v),
                        None => v,
                    };
                    a.insert(k, joined);
                }
                Shape::Object(a)
            }
            (a, Shape::Scalar) => a,
            (_, b) => b,
        }
    }

    fn element(&self) -> Shape {
        match self {
            Shape::List(_, item) | Shape::Map(_, item) => (**item).clone(),
            Shape::Str(_) => Shape::Str(1),
            _ => Shape::Scalar,
        }
    }

    /// The worst case a schema node allows (§9.8): bounded strings `maxLength * 4` bytes (or
    /// the longest enum value), lists `maxItems`, maps `maxProperties`; unbounded ones what a
    /// 3 MiB request can hold.
    #[cfg(feature = "dynamic")]
    pub fn of_schema(schema: &crate::schema::Schema) -> Shape {
        match schema.type_str() {
            Some("string") => {
                let longest_enum = schema
                    .enum_
                    .as_ref()
                    .and_then(|e| e.iter().filter_map(|v| v.as_str()).map(|s| s.len() as u64).max());
                Shape::Str(schema.max_length.map(|n| n.saturating_mul(4)).or(longest_enum).unwrap_or(MAX_REQUEST_BYTES))
            }
            Some("array") => {
                let item = schema.items.as_deref().map_or(Shape::Scalar, Shape::of_schema);
                let n = schema
                    .max_items
                    .unwrap_or(MAX_REQUEST_BYTES / min_serialized(schema.items.as_deref()).saturating_add(1));
                Shape::List(n, Box::new(item))
            }
            Some("object") if schema.properties.is_empty() && schema.additional_properties_schema().is_some() => {
                let values = schema.additional_properties_schema();
                let n = schema.max_properties.unwrap_or(MAX_REQUEST_BYTES / min_serialized(values).saturating_add(6));
                Shape::Map(n, Box::new(values.map_or(Shape::Scalar, Shape::of_schema)))
            }
            Some("object") => Shape::Object(
                schema.properties.iter().filter_map(|(k, v)| Some((super::escape(k)?, Shape::of_schema(v)))).collect(),
            ),
            _ => Shape::Scalar,
        }
    }
}

/// The smallest JSON text a value of the node can have, as the apiserver's size estimator
/// takes it: `""` plus minLength, `[]`, `{}` plus the required properties, `true`, `0`.
#[cfg(feature = "dynamic")]
pub fn min_serialized(schema: Option<&crate::schema::Schema>) -> u64 {
    let Some(s) = schema else { return 1 };
    match s.type_str() {
        Some("string") => s.min_length.unwrap_or(0).saturating_add(2),
        Some("array") => 2,
        Some("object") => {
            let required = s.required.iter().fold(0u64, |sum, k| {
                sum.saturating_add(k.len() as u64 + 3).saturating_add(min_serialized(s.properties.get(k)))
            });
            required.saturating_add(2).saturating_add((s.required.len() as u64).saturating_sub(1))
        }
        Some("boolean") => 4,
        _ => 1,
    }
}

/// The estimated cost of `expr` with `self` of shape `self_shape`.
pub fn estimate(expr: &Expression, self_shape: &Shape) -> u64 {
    let mut vars = HashMap::new();
    vars.insert("self".to_owned(), self_shape.clone());
    vars.insert("oldSelf".to_owned(), self_shape.clone());
    super::depth::with_stack(super::depth::tree_depth(expr), || walk(expr, &mut vars).0)
}

/// A tenth of a unit per byte or element traversed, rounded up (cel-go's traversal factor):
/// the estimate's and the meter's.
pub(crate) fn traversal(n: u64) -> u64 {
    n.div_ceil(10)
}

/// The cost of `expr` and the shape of its result.
fn walk(expr: &Expression, vars: &mut HashMap<String, Shape>) -> (u64, Shape) {
    match &expr.expr {
        Expr::Unspecified => (0, Shape::Scalar),
        Expr::Literal(l) => (
            0,
            match l {
                cel::common::ast::LiteralValue::String(s) => Shape::Str(s.inner().len() as u64),
                _ => Shape::Scalar,
            },
        ),
        Expr::Ident(name) => (1, vars.get(name).cloned().unwrap_or(Shape::Scalar)),
        Expr::Select(s) => {
            let (c, operand) = walk(&s.operand, vars);
            // `has(x.f)`: a presence test, a boolean; cel-go charges only its operand.
            if s.test {
                return (c, Shape::Scalar);
            }
            let field = match &operand {
                Shape::Object(fields) => fields.get(&s.field).cloned().unwrap_or(Shape::Scalar),
                Shape::Map(_, v) => (**v).clone(),
                _ => Shape::Scalar,
            };
            (c.saturating_add(1), field)
        }
        Expr::List(l) => {
            let mut cost = 10;
            let mut item = Shape::Scalar;
            for e in &l.elements {
                let (c, s) = walk(e, vars);
                cost = c.saturating_add(cost);
                item = item.join(s);
            }
            (cost, Shape::List(l.elements.len() as u64, Box::new(item)))
        }
        Expr::Map(m) => {
            let mut cost: u64 = 30;
            for e in &m.entries {
                if let EntryExpr::MapEntry(entry) = &e.expr {
                    cost = cost.saturating_add(walk(&entry.key, vars).0).saturating_add(walk(&entry.value, vars).0);
                }
            }
            (cost, Shape::Map(m.entries.len() as u64, Box::new(Shape::Scalar)))
        }
        Expr::Struct(s) => {
            let mut cost: u64 = 40;
            for e in &s.entries {
                if let EntryExpr::StructField(f) = &e.expr {
                    cost = cost.saturating_add(walk(&f.value, vars).0);
                }
            }
            (cost, Shape::Scalar)
        }
        Expr::Comprehension(c) => {
            let (range_cost, range) = walk(&c.iter_range, vars);
            let (init_cost, _) = walk(&c.accu_init, vars);
            let element = range.element();
            let saved: Vec<(String, Option<Shape>)> = [&c.iter_var, &c.accu_var]
                .into_iter()
                .chain(c.iter_var2.as_ref())
                .map(|v| (v.clone(), vars.get(v).cloned()))
                .collect();
            vars.insert(c.iter_var.clone(), element);
            if let Some(v2) = &c.iter_var2 {
                vars.insert(v2.clone(), Shape::Scalar);
            }
            vars.insert(c.accu_var.clone(), Shape::Scalar);
            let (cond, _) = walk(&c.loop_cond, vars);
            let (step, step_shape) = walk(&c.loop_step, vars);
            // What a `map`/`filter` builds up has the range's length.
            vars.insert(
                c.accu_var.clone(),
                match step_shape {
                    Shape::List(_, item) => Shape::List(range.len(), item),
                    other => other,
                },
            );
            let (result, result_shape) = walk(&c.result, vars);
            for (name, previous) in saved {
                match previous {
                    Some(p) => vars.insert(name, p),
                    None => vars.remove(&name),
                };
            }
            let iterations = range.len();
            let cost = range_cost
                .saturating_add(init_cost)
                .saturating_add(iterations.saturating_mul(cond.saturating_add(step)))
                .saturating_add(result);
            (cost, result_shape)
        }
        // Logical operators and the conditional cost what their operands cost (the
        // conditional: its condition and the dearer branch).
        Expr::Call(call) if matches!(call.func_name.as_str(), "_&&_" | "_||_" | "@not_strictly_false") => {
            call.args.iter().map(|a| walk(a, vars).0).fold((0, Shape::Scalar), |(sum, s), c| (sum.saturating_add(c), s))
        }
        Expr::Call(call) if call.func_name == "_?_:_" && call.args.len() == 3 => {
            let (cond, _) = walk(&call.args[0], vars);
            let (then, then_shape) = walk(&call.args[1], vars);
            let (otherwise, else_shape) = walk(&call.args[2], vars);
            (cond.saturating_add(then.max(otherwise)), then_shape.join(else_shape))
        }
        Expr::Call(call) => {
            let mut cost: u64 = 1;
            let mut shapes = Vec::new();
            if let Some(t) = &call.target {
                let (c, s) = walk(t, vars);
                cost = cost.saturating_add(c);
                shapes.push(s);
            }
            for a in &call.args {
                let (c, s) = walk(a, vars);
                cost = cost.saturating_add(c);
                shapes.push(s);
            }
            let size = |i: usize| shapes.get(i).map_or(0, Shape::len);
            let (extra, out) = match call.func_name.as_str() {
                // Comparing or joining strings and lists traverses them.
                "_==_" | "_!=_" | "_<_" | "_<=_" | "_>_" | "_>=_" => {
                    let traversed = match (shapes.first(), shapes.get(1)) {
                        (Some(a @ (Shape::Str(_) | Shape::List(..))), Some(b @ (Shape::Str(_) | Shape::List(..)))) => {
                            traversal(a.len().min(b.len()))
                        }
                        _ => 0,
                    };
                    (traversed, Shape::Scalar)
                }
                "_+_" => match (shapes.first(), shapes.get(1)) {
                    (Some(Shape::Str(a)), Some(Shape::Str(b))) => {
                        (traversal(a.saturating_add(*b)), Shape::Str(a.saturating_add(*b)))
                    }
                    (Some(Shape::List(a, x)), Some(Shape::List(b, y))) => (
                        traversal(a.saturating_add(*b)),
                        Shape::List(a.saturating_add(*b), Box::new((**x).clone().join((**y).clone()))),
                    ),
                    _ => (0, Shape::Scalar),
                },
                "@in" => (size(1), Shape::Scalar),
                // cel-go: the prefix or suffix is traversed; `contains` compares both.
                "startsWith" | "endsWith" => (traversal(size(1)), Shape::Scalar),
                "contains" if matches!(shapes.first(), Some(Shape::Str(_))) => {
                    (traversal(size(0)).saturating_mul(traversal(size(1)).max(1)), Shape::Scalar)
                }
                "contains" | "indexOf" | "lastIndexOf" | "lowerAscii" | "upperAscii" | "trim" | "replace" | "split"
                | "substring" | "charAt" | "join" | "reverse" | "isSorted" | "sum" | "min" | "max" | "distinct"
                | "flatten" | "slice" | "string" | "base64.encode" | "base64.decode" => (
                    traversal(size(0)).saturating_add(traversal(size(1))),
                    shapes.first().cloned().unwrap_or(Shape::Scalar),
                ),
                // Regular expressions: the pattern's size times the subject's (cel-go's
                // estimate for RE2).
                "matches" | "find" | "findAll" => (
                    traversal(size(0)).saturating_mul(size(1).div_ceil(4).max(1)),
                    if call.func_name == "findAll" {
                        Shape::List(size(0), Box::new(Shape::Str(size(0))))
                    } else {
                        Shape::Str(size(0))
                    },
                ),
                "sort" | "sortBy" => (
                    traversal(size(0)).saturating_mul(64 - size(0).leading_zeros() as u64),
                    shapes.first().cloned().unwrap_or(Shape::Scalar),
                ),
                "url" | "ip" | "cidr" | "quantity" | "semver" | "isURL" | "isIP" | "isCIDR" | "isQuantity"
                | "isSemver" | "validate" | "format" => {
                    (traversal(size(0)).saturating_add(traversal(size(1))), Shape::Scalar)
                }
                "sets.contains" | "sets.equivalent" | "sets.intersects" => {
                    (size(0).saturating_mul(size(1)), Shape::Scalar)
                }
                "_[_]" => (0, shapes.first().map_or(Shape::Scalar, Shape::element)),
                "size" | "has" => (0, Shape::Scalar),
                _ => (0, Shape::Scalar),
            };
            (cost.saturating_add(extra), out)
        }
    }
}
