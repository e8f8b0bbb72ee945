//! A rule's plan (issue 54): the dynamic validator's rules compiled once into a tree of
//! operations over the object's JSON, typed by its schema as the interpreter's view types it
//! (`crate::cel::vocabulary::json_view`), with variables in slots and no CEL value built.
//!
//! A plan is written from the tree the interpreter runs (set and map lists lowered, the
//! meter's charges in), node by node as code generation writes a rule's Rust
//! (`codegen/src/emit/cel.rs`), calling the same helpers ([`super::native`]): it charges what
//! the interpreter charges, at the same places, and its logical operators and loops absorb
//! errors as the interpreter's do. Where it meets what it does not compute (a value the
//! schema leaves open, a formatted string, equality of objects, a number written as a float
//! where the schema says integer, ...) it defers ([`Error::Deferred`], never absorbed).
//!
//! Only one of its answers is used: that a rule holds, with its cost
//! ([`crate::cel::Cx`]'s fast loop over a node's rules). Any other (the rule fails, errs,
//! defers, or its cost does not fit) runs the rule again in the interpreter, which gives the
//! issue in the apiserver's words. So a plan must be exact where it says `true` and may be
//! slow elsewhere; a rule with a node it has no operation for keeps no plan at all.

use std::borrow::Cow;

use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, LiteralValue};
use cel::parser::Expression;
use serde_json::Value as Json;

use super::native::{self as n, Error, Fold, Meter, Pattern, Result};
use crate::cel::library::native_form;
use crate::cel::vocabulary::function::NativeForm as N;
use crate::cel::vocabulary::value::format_read;
use crate::schema::Schema;

/// A rule compiled to operations over JSON.
pub(crate) struct Plan {
    root: Op,
    /// How many local variables (loop items and accumulators) it binds at most at once.
    slots: usize,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Plan({} slots)", self.slots)
    }
}

/// The JSON a rule reads: the node's value (and its old value), typed by the node's schema.
#[derive(Clone, Copy)]
pub(crate) struct Input<'a> {
    pub value: &'a Json,
    pub old: Option<&'a Json>,
    pub schema: &'a Schema,
    /// Whether the node is a resource's root (its `metadata` shows `name` and
    /// `generateName` only).
    pub root: bool,
}

impl Plan {
    /// The plan of a rule's metered tree, or `None` where a node has no operation here.
    pub(crate) fn compile(metered: &Expression) -> Option<Plan> {
        let mut c = Compiler { locals: Vec::new(), slots: 0 };
        let root = c.op(metered)?;
        Some(Plan { root, slots: c.slots })
    }

    /// Whether the rule holds for `input`, charging `meter` as the interpreter's meter is
    /// charged.
    pub(crate) fn holds<'a>(&'a self, input: Input<'a>, meter: &mut Meter) -> Result<bool> {
        // Most rules bind a few locals at most: those are kept on the stack.
        let mut few: [V<'a>; 4] = std::array::from_fn(|_| V::Null);
        let mut many = Vec::new();
        let slots = if self.slots <= few.len() {
            &mut few[..self.slots]
        } else {
            many.resize(self.slots, V::Null);
            &mut many[..]
        };
        let mut frame = Frame { input, slots, meter };
        boolean(frame.eval(&self.root)?)
    }
}

/// A node of the plan.
enum Op {
    Literal(Scalar),
    Constants(Vec<Scalar>),
    List(Vec<Op>),
    SelfValue,
    OldSelf,
    Local(usize),
    Select(Box<Op>, Field),
    Has(Box<Op>, Field),
    Charge(u64, Box<Op>),
    Sized(Box<Op>),
    ChargeSized(u64, Box<Op>),
    IntData(Box<Op>),
    IntPresent(Box<Op>),
    And(Box<Op>, Box<Op>),
    Or(Box<Op>, Box<Op>),
    NotStrictlyFalse(Box<Op>),
    Not(Box<Op>),
    Negate(Box<Op>),
    Conditional(Box<[Op; 3]>),
    Equal(Box<Op>, Box<Op>, bool),
    Ordering(Box<Op>, Box<Op>, Order),
    Arithmetic(Box<Op>, Box<Op>, Arith),
    Index(Box<Op>, Box<Op>),
    In(Box<Op>, Box<Op>),
    Size(Box<Op>),
    StrPredicate(Box<Op>, Box<Op>, StrPredicate),
    Matches(Box<Op>, Pattern),
    StrMap(Box<Op>, StrMap),
    ToInt(Box<Op>),
    ToString(Box<Op>),
    ToDuration(Box<Op>),
    Loop(Box<Loop>),
}

/// A literal scalar.
#[derive(Clone)]
enum Scalar {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(String),
}

impl Scalar {
    fn value(&self) -> V<'_> {
        match self {
            Scalar::Null => V::Null,
            Scalar::Bool(b) => V::Bool(*b),
            Scalar::Int(i) => V::Int(*i),
            Scalar::Uint(u) => V::Uint(*u),
            Scalar::Double(d) => V::Double(*d),
            Scalar::Str(s) => V::Str(Cow::Borrowed(s)),
        }
    }
}

/// A field a rule selects: its CEL name, and the JSON property of an object it reads.
struct Field {
    cel: String,
    property: String,
}

#[derive(Clone, Copy)]
enum Order {
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
}

#[derive(Clone, Copy)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

#[derive(Clone, Copy)]
enum StrPredicate {
    Contains,
    StartsWith,
    EndsWith,
}

#[derive(Clone, Copy)]
enum StrMap {
    Lower,
    Upper,
    Trim,
}

/// A comprehension, in the three shapes the macros write (as code generation reads them).
struct Loop {
    range: Op,
    item: usize,
    kind: LoopKind,
}

enum LoopKind {
    /// `all`, `exists`: `@result && p` / `@result || p` from a bool, errors held by [`Fold`].
    Fold { init: Op, accu: usize, absorbing: bool, cond: Op, step: Op, result: Op },
    /// `map`, `filter`: `@result + [e]`, maybe guarded, from an empty list.
    Collect { guard: Option<Op>, value: Op },
    /// A scalar accumulator (`exists_one`).
    Scalar { init: Op, accu: usize, cond: Op, step: Op, result: Op },
}

struct Compiler {
    /// The names of the locals in scope, by slot.
    locals: Vec<String>,
    slots: usize,
}

impl Compiler {
    fn bind(&mut self, name: &str) -> usize {
        self.locals.push(name.to_owned());
        self.slots = self.slots.max(self.locals.len());
        self.locals.len() - 1
    }

    fn boxed(&mut self, e: &Expression) -> Option<Box<Op>> {
        self.op(e).map(Box::new)
    }

    fn op(&mut self, e: &Expression) -> Option<Op> {
        Some(match &e.expr {
            Expr::Literal(l) => Op::Literal(literal(l)?),
            Expr::Ident(name) => match self.locals.iter().rposition(|l| l == name) {
                Some(slot) => Op::Local(slot),
                None if name == "self" => Op::SelfValue,
                None if name == "oldSelf" => Op::OldSelf,
                None => return None,
            },
            Expr::Select(s) if s.test => Op::Has(self.boxed(&s.operand)?, field(&s.field)?),
            Expr::Select(s) => Op::Select(self.boxed(&s.operand)?, field(&s.field)?),
            Expr::Call(c) => self.call(c)?,
            Expr::Comprehension(c) => self.comprehension(c)?,
            // A list of literals (`x in ['a', 'b']`): its items held, not built at each run.
            Expr::List(l)
                if l.optional_indices.is_empty() && l.elements.iter().all(|e| matches!(e.expr, Expr::Literal(_))) =>
            {
                Op::Constants(
                    l.elements
                        .iter()
                        .map(|e| match &e.expr {
                            Expr::Literal(l) => literal(l),
                            _ => None,
                        })
                        .collect::<Option<_>>()?,
                )
            }
            Expr::List(l) if l.optional_indices.is_empty() => {
                Op::List(l.elements.iter().map(|item| self.op(item)).collect::<Option<_>>()?)
            }
            Expr::List(_) | Expr::Map(_) | Expr::Struct(_) | Expr::Unspecified => return None,
        })
    }

    fn call(&mut self, c: &CallExpr) -> Option<Op> {
        let form = native_form(&c.func_name, c.target.is_some(), c.args.len())?;
        let operands: Vec<&Expression> = c.target.as_deref().into_iter().chain(&c.args).collect();
        let mut one = |i: usize| -> Option<Box<Op>> { self.boxed(operands[i]) };
        Some(match form {
            N::Charge => Op::Charge(units(operands[0])?, one(1)?),
            N::ChargeSized => Op::ChargeSized(units(operands[0])?, one(1)?),
            N::Sized => Op::Sized(one(0)?),
            N::IntData => Op::IntData(one(0)?),
            N::IntPresent => Op::IntPresent(one(0)?),
            N::And => Op::And(one(0)?, one(1)?),
            N::Or => Op::Or(one(0)?, one(1)?),
            N::NotStrictlyFalse => Op::NotStrictlyFalse(one(0)?),
            N::Not => Op::Not(one(0)?),
            N::Negate => Op::Negate(one(0)?),
            N::Conditional => Op::Conditional(Box::new([*one(0)?, *one(1)?, *one(2)?])),
            N::Equal => Op::Equal(one(0)?, one(1)?, true),
            N::NotEqual => Op::Equal(one(0)?, one(1)?, false),
            N::Ordering(op) => {
                let order = match op {
                    "<" => Order::Less,
                    "<=" => Order::LessEqual,
                    ">" => Order::Greater,
                    ">=" => Order::GreaterEqual,
                    _ => return None,
                };
                Op::Ordering(one(0)?, one(1)?, order)
            }
            N::Add => Op::Arithmetic(one(0)?, one(1)?, Arith::Add),
            N::Arithmetic(helper) => {
                let arith = match helper {
                    "sub_int" => Arith::Sub,
                    "mul_int" => Arith::Mul,
                    "div_int" => Arith::Div,
                    "rem_int" => Arith::Rem,
                    _ => return None,
                };
                Op::Arithmetic(one(0)?, one(1)?, arith)
            }
            N::Index => Op::Index(one(0)?, one(1)?),
            N::In => Op::In(one(0)?, one(1)?),
            N::Size => Op::Size(one(0)?),
            N::StrPredicate(method) => {
                let predicate = match method {
                    "contains" => StrPredicate::Contains,
                    "starts_with" => StrPredicate::StartsWith,
                    "ends_with" => StrPredicate::EndsWith,
                    _ => return None,
                };
                Op::StrPredicate(one(0)?, one(1)?, predicate)
            }
            N::Matches => {
                let Expr::Literal(LiteralValue::String(p)) = &operands[1].expr else { return None };
                Op::Matches(one(0)?, Pattern::owned(p.inner().to_owned()))
            }
            N::StrMap(helper) => {
                let map = match helper {
                    "lower_ascii" => StrMap::Lower,
                    "upper_ascii" => StrMap::Upper,
                    "trim" => StrMap::Trim,
                    _ => return None,
                };
                Op::StrMap(one(0)?, map)
            }
            N::ToInt => Op::ToInt(one(0)?),
            N::ToString => Op::ToString(one(0)?),
            N::ToDuration => Op::ToDuration(one(0)?),
            // Rare in the corpus: left to the interpreter.
            N::SchemaEquals
            | N::SchemaNotEquals
            | N::Find
            | N::Split
            | N::StrTest(_)
            | N::Url
            | N::UrlPart(_)
            | N::Substring
            | N::HasValue
            | N::Value
            | N::Interpreted(_) => return None,
        })
    }

    fn comprehension(&mut self, c: &ComprehensionExpr) -> Option<Op> {
        if c.iter_var2.is_some() {
            return None;
        }
        let accu_var = c.accu_var.as_str();
        let is_accu = |e: &Expression| matches!(&e.expr, Expr::Ident(n) if n == accu_var);
        // The `cel` crate evaluates the accumulator's start before the range.
        let init = match &c.accu_init.expr {
            Expr::List(l) if l.elements.is_empty() => None,
            _ => Some(self.op(&c.accu_init)?),
        };
        let range = self.op(&c.iter_range)?;
        let item = self.bind(&c.iter_var);
        let kind = self.loop_kind(c, init, &is_accu);
        self.locals.pop();
        Some(Op::Loop(Box::new(Loop { range, item, kind: kind? })))
    }

    fn loop_kind(
        &mut self,
        c: &ComprehensionExpr,
        init: Option<Op>,
        is_accu: &dyn Fn(&Expression) -> bool,
    ) -> Option<LoopKind> {
        if let Expr::Call(step) = &c.loop_step.expr
            && matches!(step.func_name.as_str(), "_&&_" | "_||_")
            && step.args.first().is_some_and(is_accu)
            && let Some(init) = init
        {
            let accu = self.bind(&c.accu_var);
            let (cond, step_op, result) = (self.op(&c.loop_cond), self.op(&c.loop_step), self.op(&c.result));
            self.locals.pop();
            let absorbing = step.func_name == "_||_";
            return Some(LoopKind::Fold { init, accu, absorbing, cond: cond?, step: step_op?, result: result? });
        }
        if init.is_none() && matches!(c.loop_cond.expr, Expr::Literal(_)) && is_accu(&c.result) {
            let (guard, appended) = match &c.loop_step.expr {
                Expr::Call(k) if k.func_name == "_?_:_" && k.args.len() == 3 && is_accu(&k.args[2]) => {
                    (Some(&k.args[0]), &k.args[1])
                }
                _ => (None, &c.loop_step),
            };
            let Expr::Call(add) = &appended.expr else { return None };
            let [lhs, rhs] = add.args.as_slice() else { return None };
            let Expr::List(items) = &rhs.expr else { return None };
            if add.func_name != "_+_"
                || !is_accu(lhs)
                || items.elements.len() != 1
                || !items.optional_indices.is_empty()
            {
                return None;
            }
            let guard = match guard {
                Some(g) => Some(self.op(g)?),
                None => None,
            };
            return Some(LoopKind::Collect { guard, value: self.op(&items.elements[0])? });
        }
        let init = init?;
        let accu = self.bind(&c.accu_var);
        let (cond, step, result) = (self.op(&c.loop_cond), self.op(&c.loop_step), self.op(&c.result));
        self.locals.pop();
        Some(LoopKind::Scalar { init, accu, cond: cond?, step: step?, result: result? })
    }
}

/// The units of a charge (a literal).
fn units(e: &Expression) -> Option<u64> {
    match &e.expr {
        Expr::Literal(LiteralValue::Int(i)) => u64::try_from(*i.inner()).ok(),
        _ => None,
    }
}

fn literal(l: &LiteralValue) -> Option<Scalar> {
    Some(match l {
        LiteralValue::Boolean(b) => Scalar::Bool(*b.inner()),
        LiteralValue::Int(i) => Scalar::Int(*i.inner()),
        LiteralValue::UInt(u) => Scalar::Uint(*u.inner()),
        LiteralValue::Double(d) => Scalar::Double(*d.inner()),
        LiteralValue::String(s) => Scalar::Str(s.inner().to_owned()),
        LiteralValue::Null => Scalar::Null,
        LiteralValue::Bytes(_) => return None,
    })
}

/// A field selection: the property its CEL name reads. A plain name (letters and digits, not
/// a reserved word) is its own property and no other's (every escape writes `_`); a reserved
/// word's escape (`__namespace__`) is that word's; other escapes stay interpreted.
fn field(cel: &str) -> Option<Field> {
    let property = if crate::schema::cel_name::is_own_cel_name(cel.as_bytes()) {
        cel.to_owned()
    } else {
        let word = cel.strip_prefix("__")?.strip_suffix("__")?;
        if !crate::schema::cel_name::reserved(word.as_bytes()) {
            return None;
        }
        word.to_owned()
    };
    Some(Field { cel: cel.to_owned(), property })
}

/// A value during evaluation.
#[derive(Clone)]
enum V<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(Cow<'a, str>),
    /// Nanoseconds.
    Duration(i64),
    /// An object or a list of the JSON, typed by its schema node (`None`: what the schema
    /// leaves open, which only the interpreter reads).
    Json {
        json: &'a Json,
        schema: Option<&'a Schema>,
        root: bool,
    },
    /// The root's `metadata`: `name` and `generateName`.
    Metadata(&'a Json),
    /// A list the rule built.
    List(Vec<V<'a>>),
}

const DEFER: Error = Error::Deferred;

fn boolean(v: V<'_>) -> Result<bool> {
    match v {
        V::Bool(b) => Ok(b),
        _ => Err(DEFER),
    }
}

/// A JSON value as the interpreter's view types it by `schema` ([`crate::cel::from_json_with`]).
fn typed<'a>(json: &'a Json, schema: Option<&'a Schema>) -> Result<V<'a>> {
    Ok(match json {
        Json::Null => V::Null,
        Json::Bool(b) => V::Bool(*b),
        Json::Number(number) => match schema.and_then(Schema::type_str) {
            Some("number") => V::Double(number.as_f64().unwrap_or_default()),
            _ => match (number.as_i64(), number.as_u64()) {
                (Some(i), _) => V::Int(i),
                (None, Some(u)) => V::Uint(u),
                _ => V::Double(number.as_f64().unwrap_or_default()),
            },
        },
        Json::String(s) => match schema {
            // `date-time`, `date`, `duration` and `byte` read as other types where they parse.
            Some(schema)
                if schema.type_str() == Some("string") && schema.format.as_deref().and_then(format_read).is_some() =>
            {
                return Err(DEFER);
            }
            _ => V::Str(Cow::Borrowed(s)),
        },
        Json::Object(_) | Json::Array(_) => V::Json { json, schema, root: false },
    })
}

/// Whether an object typed by `schema` is a map of its `additionalProperties` (keys as
/// written, null values kept) rather than an object of properties.
fn is_map(schema: &Schema) -> bool {
    schema.properties.is_empty() && schema.additional_properties_schema().is_some()
}

/// CEL `==` of two values this plan compares: scalars of one kind.
fn equal(a: &V<'_>, b: &V<'_>) -> Result<bool> {
    Ok(match (a, b) {
        (V::Str(x), V::Str(y)) => x == y,
        (V::Int(x), V::Int(y)) | (V::Duration(x), V::Duration(y)) => x == y,
        (V::Uint(x), V::Uint(y)) => x == y,
        (V::Bool(x), V::Bool(y)) => x == y,
        (V::Double(x), V::Double(y)) => x == y,
        (V::Null, V::Null) => true,
        _ => return Err(DEFER),
    })
}

struct Frame<'a, 's> {
    input: Input<'a>,
    slots: &'s mut [V<'a>],
    meter: &'s mut Meter,
}

impl<'a> Frame<'a, '_> {
    fn eval(&mut self, op: &'a Op) -> Result<V<'a>> {
        Ok(match op {
            Op::Literal(s) => s.value(),
            Op::Constants(items) => V::List(items.iter().map(Scalar::value).collect()),
            Op::List(items) => V::List(items.iter().map(|i| self.eval(i)).collect::<Result<_>>()?),
            Op::SelfValue => self.node(self.input.value)?,
            Op::OldSelf => match self.input.old {
                Some(old) => self.node(old)?,
                None => return Err(DEFER),
            },
            Op::Local(slot) => self.slots[*slot].clone(),
            Op::Select(operand, f) => {
                let v = self.eval(operand)?;
                self.select(v, f)?
            }
            Op::Has(operand, f) => {
                let v = self.eval(operand)?;
                V::Bool(has(&v, f)?)
            }
            Op::Charge(units, x) => {
                self.meter.charge(*units)?;
                self.eval(x)?
            }
            Op::Sized(x) => {
                let v = self.eval(x)?;
                self.meter.charge_size(charged_size(&v)?)?;
                v
            }
            Op::ChargeSized(units, x) => {
                self.meter.charge(*units)?;
                let v = self.eval(x)?;
                self.meter.charge_size(charged_size(&v)?)?;
                v
            }
            // An integer the document wrote as a float reads as a double here: the
            // interpreter fails that read.
            Op::IntData(x) => match self.eval(x)? {
                v @ V::Int(_) => v,
                _ => return Err(DEFER),
            },
            Op::IntPresent(x) => match self.eval(x)? {
                V::Int(_) => V::Bool(true),
                _ => return Err(DEFER),
            },
            Op::And(l, r) => {
                let l = self.eval(l).and_then(boolean);
                V::Bool(n::and(l, || self.eval(r).and_then(boolean))?)
            }
            Op::Or(l, r) => {
                let l = self.eval(l).and_then(boolean);
                V::Bool(n::or(l, || self.eval(r).and_then(boolean))?)
            }
            Op::NotStrictlyFalse(x) => {
                let x = self.eval(x).and_then(boolean);
                if matches!(x, Err(Error::Deferred)) {
                    return Err(DEFER);
                }
                V::Bool(n::not_strictly_false(x))
            }
            Op::Not(x) => V::Bool(!boolean(self.eval(x)?)?),
            Op::Negate(x) => match self.eval(x)? {
                V::Int(i) => V::Int(n::neg_int(i)?),
                V::Double(d) => V::Double(-d),
                _ => return Err(DEFER),
            },
            Op::Conditional(ops) => {
                let [cond, yes, no] = &**ops;
                if boolean(self.eval(cond)?)? { self.eval(yes)? } else { self.eval(no)? }
            }
            Op::Equal(a, b, want) => {
                let (a, b) = (self.eval(a)?, self.eval(b)?);
                V::Bool(equal(&a, &b)? == *want)
            }
            Op::Ordering(a, b, order) => {
                let (a, b) = (self.eval(a)?, self.eval(b)?);
                let ordering = match (&a, &b) {
                    (V::Int(x), V::Int(y)) | (V::Duration(x), V::Duration(y)) => x.partial_cmp(y),
                    (V::Uint(x), V::Uint(y)) => x.partial_cmp(y),
                    (V::Double(x), V::Double(y)) => x.partial_cmp(y),
                    (V::Bool(x), V::Bool(y)) => x.partial_cmp(y),
                    (V::Str(x), V::Str(y)) => x.partial_cmp(y),
                    _ => return Err(DEFER),
                };
                // A NaN compares as no ordering: the interpreter's answer is left to it.
                let ordering = ordering.ok_or(DEFER)?;
                V::Bool(match order {
                    Order::Less => ordering.is_lt(),
                    Order::LessEqual => ordering.is_le(),
                    Order::Greater => ordering.is_gt(),
                    Order::GreaterEqual => ordering.is_ge(),
                })
            }
            Op::Arithmetic(a, b, arith) => {
                let (a, b) = (self.eval(a)?, self.eval(b)?);
                match (a, b, arith) {
                    (V::Int(x), V::Int(y), Arith::Add) => V::Int(n::add_int(x, y)?),
                    (V::Int(x), V::Int(y), Arith::Sub) => V::Int(n::sub_int(x, y)?),
                    (V::Int(x), V::Int(y), Arith::Mul) => V::Int(n::mul_int(x, y)?),
                    (V::Int(x), V::Int(y), Arith::Div) => V::Int(n::div_int(x, y)?),
                    (V::Int(x), V::Int(y), Arith::Rem) => V::Int(n::rem_int(x, y)?),
                    (V::Str(x), V::Str(y), Arith::Add) => V::Str(n::concat(x, y)),
                    _ => return Err(DEFER),
                }
            }
            Op::Index(a, i) => {
                let (a, i) = (self.eval(a)?, self.eval(i)?);
                match (a, i) {
                    (V::Json { json: Json::Array(items), schema: Some(schema), .. }, V::Int(i)) => {
                        let item = &items[n::index(i, items.len())?];
                        typed(item, schema.items.as_deref())?
                    }
                    (V::Json { json: Json::Object(map), schema: Some(schema), .. }, V::Str(k)) if is_map(schema) => {
                        match map.get(&*k) {
                            Some(v) => typed(v, schema.additional_properties_schema())?,
                            None => return Err(Error::no_such_map_key(&k)),
                        }
                    }
                    (V::List(mut items), V::Int(i)) => {
                        let i = n::index(i, items.len())?;
                        items.swap_remove(i)
                    }
                    _ => return Err(DEFER),
                }
            }
            Op::In(x, collection) if let Op::Constants(items) = &**collection => {
                let x = self.eval(x)?;
                let mut found = false;
                for item in items {
                    found |= equal(&x, &item.value())?;
                }
                V::Bool(found)
            }
            Op::In(x, collection) => {
                let (x, collection) = (self.eval(x)?, self.eval(collection)?);
                let found = match collection {
                    V::List(items) => {
                        let mut found = false;
                        for item in &items {
                            found |= equal(&x, item)?;
                        }
                        found
                    }
                    V::Json { json: Json::Array(items), schema: Some(schema), .. } => {
                        let mut found = false;
                        for item in items {
                            found |= equal(&x, &typed(item, schema.items.as_deref())?)?;
                        }
                        found
                    }
                    V::Json { json: Json::Object(map), schema: Some(schema), .. } if is_map(schema) => match &x {
                        V::Str(k) => map.contains_key(&**k),
                        _ => return Err(DEFER),
                    },
                    _ => return Err(DEFER),
                };
                V::Bool(found)
            }
            Op::Size(x) => V::Int(size(&self.eval(x)?)?),
            Op::StrPredicate(s, x, predicate) => match (self.eval(s)?, self.eval(x)?) {
                (V::Str(s), V::Str(x)) => V::Bool(match predicate {
                    StrPredicate::Contains => s.contains(&*x),
                    StrPredicate::StartsWith => s.starts_with(&*x),
                    StrPredicate::EndsWith => s.ends_with(&*x),
                }),
                _ => return Err(DEFER),
            },
            Op::Matches(s, pattern) => match self.eval(s)? {
                V::Str(s) => V::Bool(n::matches(self.meter, &s, pattern)?),
                _ => return Err(DEFER),
            },
            Op::StrMap(s, map) => match self.eval(s)? {
                V::Str(s) => V::Str(match map {
                    StrMap::Lower => n::lower_ascii(s),
                    StrMap::Upper => n::upper_ascii(s),
                    StrMap::Trim => n::trim(s),
                }),
                _ => return Err(DEFER),
            },
            Op::ToInt(x) => match self.eval(x)? {
                V::Int(i) => V::Int(i),
                V::Str(s) => V::Int(n::string_to_int(&s)?),
                _ => return Err(DEFER),
            },
            Op::ToString(x) => match self.eval(x)? {
                v @ V::Str(_) => v,
                V::Int(i) => V::Str(n::int_to_string(i)),
                _ => return Err(DEFER),
            },
            Op::ToDuration(x) => match self.eval(x)? {
                V::Str(s) => V::Duration(n::string_to_duration(&s)?),
                // `duration(int)` is a conversion error to the interpreter, as to cel-go.
                V::Duration(d) => V::Duration(d),
                _ => return Err(DEFER),
            },
            Op::Loop(l) => self.run_loop(l)?,
        })
    }

    /// `self` or `oldSelf`: the node's value, typed by its schema.
    fn node(&self, json: &'a Json) -> Result<V<'a>> {
        Ok(match typed(json, Some(self.input.schema))? {
            V::Json { json, schema, .. } => V::Json { json, schema, root: self.input.root },
            v => v,
        })
    }

    fn select(&self, v: V<'a>, f: &Field) -> Result<V<'a>> {
        match v {
            V::Json { json: Json::Object(map), schema: Some(schema), root } => {
                if is_map(schema) {
                    return match map.get(&f.cel) {
                        Some(v) => typed(v, schema.additional_properties_schema()),
                        None => Err(Error::no_such_map_key(&f.cel)),
                    };
                }
                let value = map.get(&f.property).filter(|v| !v.is_null());
                let Some(value) = value else { return Err(Error::no_such_map_key(&f.cel)) };
                match schema.properties.get(&f.property) {
                    Some(_) if root && f.property == "metadata" => Ok(V::Metadata(value)),
                    property => typed(value, property),
                }
            }
            V::Metadata(meta) => match meta.get(&f.property).and_then(Json::as_str) {
                Some(s) if matches!(f.cel.as_str(), "name" | "generateName") => Ok(V::Str(Cow::Borrowed(s))),
                _ => Err(Error::no_such_map_key(&f.cel)),
            },
            _ => Err(DEFER),
        }
    }

    fn run_loop(&mut self, l: &'a Loop) -> Result<V<'a>> {
        // The `cel` crate evaluates the accumulator's start before the range.
        let init = match &l.kind {
            LoopKind::Fold { init, .. } | LoopKind::Scalar { init, .. } => Some(self.eval(init)?),
            LoopKind::Collect { .. } => None,
        };
        let range = self.eval(&l.range)?;
        let items = self.items(&range)?;
        match &l.kind {
            LoopKind::Fold { accu, absorbing, cond, step, result, .. } => {
                let mut fold = Fold::new(boolean(init.unwrap_or(V::Null))?, *absorbing);
                for item in items {
                    self.slots[l.item] = item?;
                    self.slots[*accu] = V::Bool(fold.accu);
                    if !boolean(self.eval(cond)?)? {
                        break;
                    }
                    let step = self.eval(step).and_then(boolean);
                    fold.step(step);
                }
                self.slots[*accu] = V::Bool(fold.finish()?);
                self.eval(result)
            }
            // An error in a step of these loops becomes their accumulator, and the steps after
            // it go on with it (`p ? @result + [e] : @result`): what the interpreter charges
            // then is its own, so an error defers (valid objects rarely meet one).
            LoopKind::Collect { guard, value } => {
                let mut out = Vec::new();
                for item in items {
                    self.slots[l.item] = item?;
                    if let Some(guard) = guard
                        && !boolean(self.eval(guard).map_err(|_| DEFER)?)?
                    {
                        continue;
                    }
                    out.push(self.eval(value).map_err(|_| DEFER)?);
                }
                Ok(V::List(out))
            }
            LoopKind::Scalar { accu, cond, step, result, .. } => {
                self.slots[*accu] = init.unwrap_or(V::Null);
                if !matches!(self.slots[*accu], V::Bool(_) | V::Int(_)) {
                    return Err(DEFER);
                }
                for item in items {
                    self.slots[l.item] = item?;
                    if !boolean(self.eval(cond)?)? {
                        break;
                    }
                    self.slots[*accu] = self.eval(step).map_err(|_| DEFER)?;
                }
                self.eval(result)
            }
        }
    }

    /// What a loop ranges over: a list's items, a map's keys.
    fn items(&self, range: &V<'a>) -> Result<Box<dyn Iterator<Item = Result<V<'a>>> + 'a>> {
        Ok(match range {
            V::Json { json: Json::Array(items), schema: Some(schema), .. } => {
                let item_schema = schema.items.as_deref();
                Box::new(items.iter().map(move |i| typed(i, item_schema)))
            }
            V::Json { json: Json::Object(map), schema: Some(schema), .. } if is_map(schema) => {
                Box::new(map.keys().map(|k| Ok(V::Str(Cow::Borrowed(k.as_str())))))
            }
            V::List(items) => Box::new(items.clone().into_iter().map(Ok)),
            _ => return Err(DEFER),
        })
    }
}

/// `has(v.f)`.
fn has(v: &V<'_>, f: &Field) -> Result<bool> {
    match v {
        V::Json { json: Json::Object(map), schema: Some(schema), .. } => Ok(if is_map(schema) {
            map.contains_key(&f.cel)
        } else {
            map.get(&f.property).is_some_and(|v| !v.is_null())
        }),
        V::Metadata(meta) => {
            Ok(matches!(f.cel.as_str(), "name" | "generateName") && meta.get(&f.property).is_some_and(Json::is_string))
        }
        _ => Err(DEFER),
    }
}

/// `size(v)`.
fn size(v: &V<'_>) -> Result<i64> {
    Ok(match v {
        V::Str(s) => n::size_str(s),
        V::Json { json: Json::Array(items), schema: Some(_), .. } => n::size_len(items.len()),
        V::Json { json: Json::Object(map), schema: Some(schema), .. } if is_map(schema) => n::size_len(map.len()),
        V::List(items) => n::size_len(items.len()),
        _ => return Err(DEFER),
    })
}

/// What the meter's `@sized` charges for `v`: its size, nothing for what has none.
fn charged_size(v: &V<'_>) -> Result<usize> {
    Ok(match v {
        V::Null | V::Bool(_) | V::Int(_) | V::Uint(_) | V::Double(_) | V::Duration(_) => 0,
        other => usize::try_from(size(other)?).unwrap_or(usize::MAX),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::cel::running::cx::Cx;
    use crate::cel::running::walk::SchemaRules;
    use crate::schema::Schema;

    /// The rules of `schema` over `object` (updated from `old`) with plans and interpreted:
    /// issues, warnings, stop and cost must be the same. Returns how many rules plans held.
    fn agree(schema: &Value, object: &Value, old: Option<&Value>) -> usize {
        let schema = Schema::parse(schema, "").0;
        let rules = SchemaRules::new(&schema);
        let run = |mut cx: Cx| {
            rules.validate(object, old, &mut cx);
            let show =
                |issues: &[crate::report::issue::Issue]| issues.iter().map(ToString::to_string).collect::<Vec<_>>();
            ((show(&cx.issues), show(&cx.warnings), cx.stopped(), cx.budget_left()), cx.planned())
        };
        let ((planned, held), (interpreted, none)) = (run(Cx::default()), run(Cx::interpreted()));
        assert_eq!(none, 0, "an interpreted evaluation ran a plan");
        assert_eq!(planned, interpreted, "{object}");
        held
    }

    fn object(properties: Value, rules: &[&str]) -> Value {
        let rules: Vec<Value> = rules.iter().map(|r| json!({"rule": r})).collect();
        json!({"type": "object", "properties": properties, "x-kubernetes-validations": rules})
    }

    #[test]
    fn rules_held_by_plans_answer_and_cost_as_interpreted() {
        let schema = object(
            json!({
                "type": {"type": "string"},
                "value": {"type": "string"},
                "n": {"type": "integer"},
                "d": {"type": "number"},
                "namespace": {"type": "string"},
                "items": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"}, "port": {"type": "integer"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "when": {"type": "string", "format": "date-time"},
                "open": {"x-kubernetes-int-or-string": true},
            }),
            &[
                "(self.type in ['Exact','PathPrefix']) ? !self.value.contains('//') : true",
                "self.value.startsWith('/') && !self.value.endsWith('/..')",
                "self.value.matches('^/[a-z/]*$')",
                "!has(self.__namespace__) || self.__namespace__ != ''",
                "self.items.all(i, self.items.exists_one(j, i.name == j.name))",
                "self.items.filter(i, i.port > 80).size() <= 1",
                "self.items.map(i, i.name).size() == size(self.items)",
                "(has(self.n) ? 1 : 0) + (has(self.d) ? 1 : 0) <= 2",
                "self.n <= 100 && self.d < 2.5",
                "size(self.items) > 0 ? self.items[0].port > 0 : true",
                "!has(self.labels) || self.labels.all(k, k.size() < 64 && self.labels[k] != '')",
                "!('x' in self.labels) || self.labels.x == 'y'",
                "self.items.exists(i, i.port == 443) || self.items[5].port == 1",
                "has(self.when)",
                "self.open == 1 || self.open == 'a'",
                "self.value.lowerAscii() == self.value || self.value.upperAscii() != ''",
                "string(self.n) != '' && int('7') == 7",
            ],
        );
        let good = json!({
            "type": "Exact", "value": "/a/b", "n": 8, "d": 1.5, "namespace": "ns",
            "items": [{"name": "a", "port": 80}, {"name": "b", "port": 443}],
            "labels": {"x": "y", "z": "w"}, "when": "2024-01-01T00:00:00Z", "open": 1,
        });
        let held = agree(&schema, &good, None);
        assert!(held >= 15, "plans held {held} rules");
        // Failing, erring and deferring values, each a place where the interpreter answers.
        let variants = [
            json!({"type": "Exact", "value": "//x", "items": [], "labels": {}, "open": "a"}),
            json!({"type": "Other", "value": "/a/..", "n": 1.0, "d": 3, "items": [{"name": "a"}, {"name": "a"}]}),
            json!({"value": "x", "namespace": "", "items": [{"port": 90}, {"port": 91}], "labels": {"x": "n"}}),
            json!({"type": null, "value": "/É", "n": 101, "items": [{"name": null}], "open": 2.5}),
            json!({"value": "/a", "n": 9223372036854775807_i64, "items": [{"name": "a", "port": 443}], "open": true}),
        ];
        for v in &variants {
            agree(&schema, v, None);
            agree(&schema, v, Some(&good));
        }
    }

    #[test]
    fn the_root_metadata_reads_name_and_generate_name_only() {
        let schema = json!({"type": "object", "properties": {
            "apiVersion": {"type": "string"}, "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {"a": {"type": "string"}}},
        }, "x-kubernetes-validations": [
            {"rule": "self.metadata.name.startsWith('x')"},
            {"rule": "self.metadata.name != 'forbidden'"},
            {"rule": "has(self.metadata.generateName) || self.metadata.name.size() > 0"},
        ]});
        let held = agree(&schema, &json!({"metadata": {"name": "xy", "labels": {"a": "b"}}, "spec": {}}), None);
        assert_eq!(held, 3);
        agree(&schema, &json!({"metadata": {"generateName": "x-"}}), None);
        agree(&schema, &json!({"metadata": {"name": 5}}), None);
        agree(&schema, &json!({"metadata": null}), None);
    }

    #[test]
    fn transition_rules_read_the_old_value() {
        let schema = object(
            json!({"a": {"type": "string"}, "n": {"type": "integer"}}),
            &["self.a == oldSelf.a", "self.n >= oldSelf.n"],
        );
        let old = json!({"a": "x", "n": 1});
        assert_eq!(agree(&schema, &json!({"a": "x", "n": 2}), Some(&old)), 2);
        agree(&schema, &json!({"a": "y", "n": 0}), Some(&old));
        agree(&schema, &json!({"a": "x"}), Some(&old));
        agree(&schema, &json!({"a": "x", "n": 2}), None);
    }

    #[test]
    fn what_a_plan_does_not_read_is_left_to_the_interpreter() {
        // A date-time reads as a timestamp; a number written as a float where the schema says
        // integer fails the interpreter's read; equality of objects: no plan answers these.
        let schema = object(
            json!({"when": {"type": "string", "format": "date-time"}, "n": {"type": "integer"},
                   "o": {"type": "object", "properties": {"a": {"type": "string"}}}}),
            &["self.when == self.when", "self.n == 1", "self.o == self.o"],
        );
        assert_eq!(agree(&schema, &json!({"when": "2024-01-01T00:00:00Z", "n": 1.0, "o": {"a": "b"}}), None), 0);
        assert_eq!(agree(&schema, &json!({"when": "2024-01-01T00:00:00Z", "n": 1, "o": {"a": "b"}}), None), 1);
    }
}
