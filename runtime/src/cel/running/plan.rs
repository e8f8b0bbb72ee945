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
//!
//! What keeps it fast (measured on HTTPRoute, whose 38 rules an object all hold by plans):
//! a bool is evaluated apart from other values ([`Frame::test`], its result in registers), and
//! so is an integer the plan knows is one ([`Frame::int`]: sums and comparisons of sizes);
//! a value is copied, never dropped (what a rule makes lives in the frame); a leaf (`self`,
//! a local, a literal, a property of either) is read without a call; a property of a node
//! the plan knew when it was made ([`Prop`]) is found by position and typed as worked out
//! then; and the rules of one node share a [`Frame`], with `self` and the properties of it
//! they read, read once.

use std::borrow::Cow;

use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, LiteralValue};
use cel::parser::Expression;
use serde_json::Value as Json;

use super::native::{self as n, Error, Fold, Meter, Pattern, Rank};
use crate::cel::library::native_form;
use crate::cel::vocabulary::function::NativeForm as N;
use crate::cel::vocabulary::limits;
use crate::cel::vocabulary::meter::Cost;
use crate::cel::vocabulary::value::format_read;
use crate::schema::Schema;

/// A rule compiled to operations over JSON.
pub(crate) struct Plan {
    /// What the rule charges before anything else (the metered tree's outermost charge).
    charge: u64,
    root: Op,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Plan(charge {})", self.charge)
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
    /// The plan of a rule's metered tree over values of `schema` (the rule's node), or
    /// `None` where a node has no operation here.
    pub(crate) fn compile(metered: &Expression, schema: &Schema) -> Option<Plan> {
        let mut c = Compiler { locals: Vec::new(), slots: 0, schema };
        let (charge, root) = match c.op(metered)? {
            Op::Charge(units, root) => (units, *root),
            root => (0, root),
        };
        // Locals live in the frame's fixed slots: a rule nesting its loops deeper than they
        // hold is the interpreter's.
        (c.slots <= SLOTS).then_some(Plan { charge, root })
    }

    /// Whether the rule holds for the frame's node, and what it cost as the interpreter's
    /// meter counts (`false`: it fails, errs, or only the interpreter can say).
    pub(crate) fn holds<'a>(&'a self, frame: &mut Frame<'a>) -> (bool, Cost) {
        frame.meter = Meter::new(limits::PER_CALL_LIMIT);
        frame.strings.clear();
        frame.lists.clear();
        let holds = frame.meter.charge(self.charge).is_ok() && frame.cond(&self.root) == Ok(true);
        (holds, frame.meter.cost())
    }
}

/// A node of the plan. A tag of its own (`repr(u8)`) makes the dispatch at every node one
/// load, where the compiler's packing of the tag into a literal's string took eight
/// instructions.
#[derive(Debug)]
#[repr(u8)]
enum Op {
    Literal(Scalar),
    Constants(Vec<Scalar>),
    List(Vec<Op>),
    SelfValue,
    OldSelf,
    Local(usize),
    Select(Box<Op>, Field),
    /// A property of an object whose schema node the plan knew when it was made.
    Prop(Box<Op>, Box<Prop>),
    Has(Box<Op>, Field),
    /// `has()` of a [`Prop`].
    HasProp(Box<Op>, Box<Prop>),
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
    /// `==`, `!=` or an ordering of two operations the plan knows give integers ([`is_int`]),
    /// read by [`Frame::int`].
    IntCompare(Box<Op>, Box<Op>, Compare),
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
#[derive(Clone, Debug)]
#[repr(u8)]
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
            Scalar::Str(s) => V::Str(s),
        }
    }
}

/// A property read where the plan knew the object's schema node when it was made: where
/// the value's node is that one (the same address), its property's schema is found by
/// position and its scalars read as worked out then; anywhere else it is an [`Op::Select`].
#[derive(Debug)]
struct Prop {
    field: Field,
    /// The address of the object's schema node: it outlives the plan (a rule belongs to its
    /// node, [`super::walk::SchemaRules`]).
    parent: usize,
    position: usize,
    reading: Reading,
}

impl Prop {
    /// The read of `field` of objects of `parent`, where it is a property of them known
    /// when the plan is made.
    fn resolve(parent: &Schema, field: Field) -> Result<Prop, Field> {
        match known_position(parent, &field.property) {
            Some(position) => Ok(Prop {
                field,
                parent: std::ptr::from_ref(parent) as usize,
                position,
                reading: Reading::of(parent.properties.at(position)),
            }),
            None => Err(field),
        }
    }

    /// Whether it reads objects of `schema` (the node it was made against).
    #[inline]
    fn of(&self, schema: &Schema) -> bool {
        std::ptr::from_ref(schema) as usize == self.parent
    }
}

/// Where `property` is among `parent`'s properties; none for a map (its keys are data), or
/// the root's `metadata` (which shows two of its fields).
fn known_position(parent: &Schema, property: &str) -> Option<usize> {
    if is_map(parent) || property == "metadata" {
        return None;
    }
    parent.properties.position(property)
}

/// How the scalars of a schema node read ([`typed`]), worked out once where a plan knows
/// the node.
#[derive(Clone, Copy, Debug)]
struct Reading {
    /// `type: number`: every number is a double.
    doubles: bool,
    /// A string `format` CEL reads as another type (`date-time`, `duration`, ...): the
    /// interpreter reads those.
    formatted: bool,
}

impl Reading {
    fn of(schema: Option<&Schema>) -> Reading {
        let Some(schema) = schema else { return Reading { doubles: false, formatted: false } };
        let ty = schema.type_str();
        Reading {
            doubles: ty == Some("number"),
            formatted: ty == Some("string") && schema.format.as_deref().and_then(format_read).is_some(),
        }
    }
}

/// A field a rule selects: its CEL name, and the JSON property of an object it reads.
#[derive(Debug)]
struct Field {
    cel: String,
    property: String,
}

#[derive(Clone, Copy, Debug)]
enum Order {
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
}

impl Order {
    #[inline]
    fn holds(self, ordering: std::cmp::Ordering) -> bool {
        match self {
            Order::Less => ordering.is_lt(),
            Order::LessEqual => ordering.is_le(),
            Order::Greater => ordering.is_gt(),
            Order::GreaterEqual => ordering.is_ge(),
        }
    }
}

/// How [`Op::IntCompare`] compares.
#[derive(Clone, Copy, Debug)]
enum Compare {
    Equal(bool),
    Order(Order),
}

#[derive(Clone, Copy, Debug)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl Arith {
    /// The operation on two integers, as the interpreter's `int` overloads answer it.
    #[inline]
    fn ints(self, a: i64, b: i64) -> n::Result<i64> {
        match self {
            Arith::Add => n::add_int(a, b),
            Arith::Sub => n::sub_int(a, b),
            Arith::Mul => n::mul_int(a, b),
            Arith::Div => n::div_int(a, b),
            Arith::Rem => n::rem_int(a, b),
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum StrPredicate {
    Contains,
    StartsWith,
    EndsWith,
}

#[derive(Clone, Copy, Debug)]
enum StrMap {
    Lower,
    Upper,
    Trim,
}

impl StrMap {
    fn apply(self, s: Cow<'_, str>) -> Cow<'_, str> {
        match self {
            StrMap::Lower => n::lower_ascii(s),
            StrMap::Upper => n::upper_ascii(s),
            StrMap::Trim => n::trim(s),
        }
    }
}

/// A comprehension, in the three shapes the macros write (as code generation reads them).
#[derive(Debug)]
struct Loop {
    range: Op,
    item: usize,
    kind: LoopKind,
}

#[derive(Debug)]
enum LoopKind {
    /// `all`, `exists`: `@result && p` / `@result || p` from a bool, errors held by [`Fold`].
    Fold { init: Op, accu: usize, absorbing: bool, cond: Op, step: Op, result: Op },
    /// `map`, `filter`: `@result + [e]`, maybe guarded, from an empty list.
    Collect { guard: Option<Op>, value: Op },
    /// A scalar accumulator (`exists_one`).
    Scalar { init: Op, accu: usize, cond: Op, step: Op, result: Op },
}

struct Compiler<'s> {
    /// The names of the locals in scope, by slot, and the schema node of each that is a
    /// loop's item of a JSON list.
    locals: Vec<(String, Option<&'s Schema>)>,
    slots: usize,
    /// The rule's node.
    schema: &'s Schema,
}

impl<'s> Compiler<'s> {
    fn bind(&mut self, name: &str, schema: Option<&'s Schema>) -> usize {
        self.locals.push((name.to_owned(), schema));
        self.slots = self.slots.max(self.locals.len());
        self.locals.len() - 1
    }

    fn boxed(&mut self, e: &Expression) -> Option<Box<Op>> {
        self.op(e).map(Box::new)
    }

    fn op(&mut self, e: &Expression) -> Option<Op> {
        Some(match &e.expr {
            Expr::Literal(l) => Op::Literal(literal(l)?),
            Expr::Ident(name) => match self.locals.iter().rposition(|(l, _)| l == name) {
                Some(slot) => Op::Local(slot),
                None if name == "self" => Op::SelfValue,
                None if name == "oldSelf" => Op::OldSelf,
                None => return None,
            },
            Expr::Select(s) => {
                let field = field(&s.field)?;
                let operand = self.boxed(&s.operand)?;
                let resolved = match self.schema_of(&s.operand) {
                    Some(parent) => Prop::resolve(parent, field),
                    None => Err(field),
                };
                match (resolved, s.test) {
                    (Ok(prop), false) => Op::Prop(operand, Box::new(prop)),
                    (Ok(prop), true) => Op::HasProp(operand, Box::new(prop)),
                    (Err(field), false) => Op::Select(operand, field),
                    (Err(field), true) => Op::Has(operand, field),
                }
            }
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
            N::Equal | N::NotEqual => {
                let (a, b, want) = (one(0)?, one(1)?, matches!(form, N::Equal));
                if is_int(&a) && is_int(&b) {
                    Op::IntCompare(a, b, Compare::Equal(want))
                } else {
                    Op::Equal(a, b, want)
                }
            }
            N::Ordering(op) => {
                let order = match op {
                    "<" => Order::Less,
                    "<=" => Order::LessEqual,
                    ">" => Order::Greater,
                    ">=" => Order::GreaterEqual,
                    _ => return None,
                };
                let (a, b) = (one(0)?, one(1)?);
                if is_int(&a) && is_int(&b) {
                    Op::IntCompare(a, b, Compare::Order(order))
                } else {
                    Op::Ordering(a, b, order)
                }
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
        let item_schema = self.schema_of(&c.iter_range).filter(|s| s.type_str() == Some("array"));
        let item = self.bind(&c.iter_var, item_schema.and_then(|s| s.items.as_deref()));
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
            let accu = self.bind(&c.accu_var, None);
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
        let accu = self.bind(&c.accu_var, None);
        let (cond, step, result) = (self.op(&c.loop_cond), self.op(&c.loop_step), self.op(&c.result));
        self.locals.pop();
        Some(LoopKind::Scalar { init, accu, cond: cond?, step: step?, result: result? })
    }

    /// The schema node of what `e` reads where it is a node of the JSON known when the plan
    /// is made: `self`, a loop's item of a JSON list, their properties and items.
    fn schema_of(&self, e: &Expression) -> Option<&'s Schema> {
        match &e.expr {
            Expr::Ident(name) => match self.locals.iter().rposition(|(l, _)| l == name) {
                Some(slot) => self.locals[slot].1,
                None if name == "self" => Some(self.schema),
                None => None,
            },
            Expr::Select(s) if !s.test => {
                let parent = self.schema_of(&s.operand)?;
                parent.properties.at(known_position(parent, &field(&s.field)?.property)?)
            }
            Expr::Call(c) => match native_form(&c.func_name, c.target.is_some(), c.args.len())? {
                N::Charge | N::ChargeSized => self.schema_of(c.args.get(1)?),
                N::Sized => self.schema_of(c.args.first()?),
                N::Index => {
                    let list = self.schema_of(c.args.first()?)?;
                    if list.type_str() == Some("array") { list.items.as_deref() } else { None }
                }
                _ => None,
            },
            _ => None,
        }
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

/// Why a plan gives no value: an error CEL may absorb (`false || x.y` where `x` has no `y`),
/// the meter's stop, or what only the interpreter reads. A plan's one used answer is that a
/// rule holds, so an error's words do not matter; which one a loop or `||` keeps does
/// ([`Rank`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fail {
    Error,
    Limit,
    Defer,
}

impl Rank for Fail {
    #[inline]
    fn rank(&self) -> u8 {
        match self {
            Fail::Error => 0,
            Fail::Limit => 1,
            Fail::Defer => 2,
        }
    }
}

impl From<Error> for Fail {
    #[inline]
    fn from(e: Error) -> Fail {
        match e {
            Error::Deferred => Fail::Defer,
            Error::LimitExceeded => Fail::Limit,
            _ => Fail::Error,
        }
    }
}

type R<T> = std::result::Result<T, Fail>;

const DEFER: Fail = Fail::Defer;

/// A value during evaluation: borrowed from the input or the plan, or what the rule made
/// held by the frame (so a value is copied, never dropped).
#[derive(Clone, Copy)]
enum V<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(&'a str),
    /// A string the rule made: [`Frame::strings`]`[i]`.
    Made(u32),
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
    /// A list the rule built: [`Frame::lists`]`[i]`.
    List(u32),
}

fn boolean(v: V<'_>) -> R<bool> {
    match v {
        V::Bool(b) => Ok(b),
        _ => Err(DEFER),
    }
}

/// A JSON value as the interpreter's view types it by `schema` ([`crate::cel::from_json_with`]).
fn typed<'a>(json: &'a Json, schema: Option<&'a Schema>) -> R<V<'a>> {
    typed_as(json, schema, Reading::of(schema))
}

/// [`typed`], its scalars read as `reading` (`schema`'s).
#[inline]
fn typed_as<'a>(json: &'a Json, schema: Option<&'a Schema>, reading: Reading) -> R<V<'a>> {
    Ok(match json {
        Json::Null => V::Null,
        Json::Bool(b) => V::Bool(*b),
        Json::Number(number) if reading.doubles => V::Double(number.as_f64().unwrap_or_default()),
        Json::Number(number) => match (number.as_i64(), number.as_u64()) {
            (Some(i), _) => V::Int(i),
            (None, Some(u)) => V::Uint(u),
            _ => V::Double(number.as_f64().unwrap_or_default()),
        },
        Json::String(_) if reading.formatted => return Err(DEFER),
        Json::String(s) => V::Str(s),
        Json::Object(_) | Json::Array(_) => V::Json { json, schema, root: false },
    })
}

/// Whether `op` gives an integer whenever it gives a value (then [`Frame::int`] reads it): a
/// size, an integer literal, `int()`, and the arithmetic, choices and charges of those.
fn is_int(op: &Op) -> bool {
    match op {
        Op::Literal(Scalar::Int(_)) | Op::Size(_) | Op::IntData(_) | Op::ToInt(_) => true,
        Op::Arithmetic(a, b, _) => is_int(a) && is_int(b),
        Op::Conditional(ops) => is_int(&ops[1]) && is_int(&ops[2]),
        Op::Sized(x) | Op::Charge(_, x) | Op::ChargeSized(_, x) | Op::Negate(x) => is_int(x),
        _ => false,
    }
}

/// Whether an object typed by `schema` is a map of its `additionalProperties` (keys as
/// written, null values kept) rather than an object of properties.
fn is_map(schema: &Schema) -> bool {
    schema.properties.is_empty() && schema.additional_properties_schema().is_some()
}

/// What a loop ranges over, one item at a time.
enum Items<'a> {
    Array(std::slice::Iter<'a, Json>, Option<&'a Schema>, Reading),
    Keys(serde_json::map::Keys<'a>),
    /// [`Frame::lists`]`[list]`, from `next`.
    Made {
        list: u32,
        next: usize,
    },
}

/// What the rules of one node share while they run, one after another: `self`, typed once,
/// and the properties of it they read (HTTPRoute's path matches have eleven rules, each
/// reading `self.type` and most `self.value`); and each rule's locals, meter and made values.
pub(crate) struct Frame<'a> {
    input: Input<'a>,
    /// `self`.
    this: R<V<'a>>,
    /// The first properties of `self` (by position) as read, where a rule has read them.
    props: [Option<R<V<'a>>>; CACHED_PROPS],
    /// The running rule's locals (loop items, accumulators), by slot: each is set before it
    /// is read, so a rule never sees the one before's. Held in the frame, not allocated: a
    /// vector here was an allocation for every node with rules (48 an HTTPRoute).
    slots: [V<'a>; SLOTS],
    /// The running rule's meter, new for each.
    meter: Meter,
    /// The strings the rule made ([`V::Made`]); none for most rules.
    strings: Vec<String>,
    /// The lists the rule built ([`V::List`]).
    lists: Vec<Vec<V<'a>>>,
}

const CACHED_PROPS: usize = 8;

/// The locals a plan binds at most at once: an item and an accumulator for each of eight
/// nested loops.
const SLOTS: usize = 16;

impl<'a> Frame<'a> {
    /// The frame of the rules of `input`'s node.
    #[inline]
    pub(crate) fn new(input: Input<'a>) -> Frame<'a> {
        Frame {
            input,
            this: node(input.value, input),
            props: [None; CACHED_PROPS],
            slots: [V::Null; SLOTS],
            meter: Meter::new(limits::PER_CALL_LIMIT),
            strings: Vec::new(),
            lists: Vec::new(),
        }
    }

    /// `self.f`, read once for all the node's rules.
    #[inline]
    fn self_prop(&mut self, p: &Prop) -> R<V<'a>> {
        let cached = p.of(self.input.schema) && p.position < CACHED_PROPS;
        if cached && let Some(v) = self.props[p.position] {
            return v;
        }
        let v = prop(self.this?, p);
        if cached {
            self.props[p.position] = Some(v);
        }
        v
    }

    /// `has(self.f)`: whether `self.f` reads as present, read once for all the node's rules
    /// as [`Frame::self_prop`] reads it.
    #[inline]
    fn self_has(&mut self, p: &Prop) -> R<bool> {
        match self.this? {
            V::Json { json: Json::Object(_), schema: Some(schema), .. } if p.of(schema) => {
                Ok(present(self.self_prop(p)))
            }
            v => has(v, &p.field),
        }
    }

    /// A value. The operations that give a bool are [`Frame::test`]'s.
    fn eval(&mut self, op: &'a Op) -> R<V<'a>> {
        Ok(match op {
            Op::Literal(s) => s.value(),
            Op::Constants(items) => {
                let items = items.iter().map(Scalar::value).collect();
                self.list(items)
            }
            Op::List(items) => {
                let items = items.iter().map(|i| self.operand(i)).collect::<R<_>>()?;
                self.list(items)
            }
            Op::SelfValue => self.this?,
            Op::OldSelf => match self.input.old {
                Some(old) => node(old, self.input)?,
                None => return Err(DEFER),
            },
            Op::Local(slot) => self.slots[*slot],
            Op::Select(operand, f) => {
                let v = self.operand(operand)?;
                select(v, f)?
            }
            Op::Prop(operand, p) => {
                let v = self.operand(operand)?;
                prop(v, p)?
            }
            Op::Charge(units, x) => {
                self.meter.charge(*units)?;
                self.operand(x)?
            }
            Op::Sized(x) => {
                let v = self.operand(x)?;
                self.meter.charge_size(self.charged_size(v)?)?;
                v
            }
            Op::ChargeSized(units, x) => {
                self.meter.charge(*units)?;
                let v = self.operand(x)?;
                self.meter.charge_size(self.charged_size(v)?)?;
                v
            }
            // An integer the document wrote as a float reads as a double here: the
            // interpreter fails that read.
            Op::IntData(x) => match self.operand(x)? {
                v @ V::Int(_) => v,
                _ => return Err(DEFER),
            },
            Op::Negate(x) => match self.operand(x)? {
                V::Int(i) => V::Int(n::neg_int(i)?),
                V::Double(d) => V::Double(-d),
                _ => return Err(DEFER),
            },
            Op::Conditional(ops) => {
                let [cond, yes, no] = &**ops;
                if self.cond(cond)? { self.operand(yes)? } else { self.operand(no)? }
            }
            Op::Arithmetic(a, b, arith) => {
                let (a, b) = (self.operand(a)?, self.operand(b)?);
                match (a, b, arith) {
                    (V::Int(x), V::Int(y), arith) => V::Int(arith.ints(x, y)?),
                    (x, y, Arith::Add) => match (self.text(&x), self.text(&y)) {
                        (Some(x), Some(y)) => {
                            let joined = n::concat(Cow::Borrowed(x), Cow::Borrowed(y)).into_owned();
                            self.made(joined)
                        }
                        _ => return Err(DEFER),
                    },
                    _ => return Err(DEFER),
                }
            }
            Op::Index(a, i) => {
                let (a, i) = (self.operand(a)?, self.operand(i)?);
                match (a, i) {
                    (V::Json { json: Json::Array(items), schema: Some(schema), .. }, V::Int(i)) => {
                        let item = &items[n::index(i, items.len())?];
                        typed(item, schema.items.as_deref())?
                    }
                    (V::Json { json: Json::Object(map), schema: Some(schema), .. }, k) if is_map(schema) => {
                        let Some(k) = self.text(&k) else { return Err(DEFER) };
                        match map.get(k) {
                            Some(v) => typed(v, schema.additional_properties_schema())?,
                            None => return Err(Fail::Error),
                        }
                    }
                    (V::List(list), V::Int(i)) => {
                        let items = &self.lists[list as usize];
                        items[n::index(i, items.len())?]
                    }
                    _ => return Err(DEFER),
                }
            }
            Op::Size(x) => {
                let v = self.operand(x)?;
                V::Int(self.size(v)?)
            }
            Op::StrMap(s, map) => match self.operand(s)? {
                V::Str(s) => match map.apply(Cow::Borrowed(s)) {
                    Cow::Borrowed(s) => V::Str(s),
                    Cow::Owned(s) => self.made(s),
                },
                V::Made(i) => {
                    let s = map.apply(Cow::Borrowed(&self.strings[i as usize])).into_owned();
                    self.made(s)
                }
                _ => return Err(DEFER),
            },
            Op::ToInt(x) => match self.operand(x)? {
                V::Int(i) => V::Int(i),
                v => match self.text(&v) {
                    Some(s) => V::Int(n::string_to_int(s)?),
                    None => return Err(DEFER),
                },
            },
            Op::ToString(x) => match self.operand(x)? {
                v @ (V::Str(_) | V::Made(_)) => v,
                V::Int(i) => self.made(n::int_to_string(i).into_owned()),
                _ => return Err(DEFER),
            },
            Op::ToDuration(x) => match self.operand(x)? {
                // `duration(int)` is a conversion error to the interpreter, as to cel-go.
                V::Duration(d) => V::Duration(d),
                v => match self.text(&v) {
                    Some(s) => V::Duration(n::string_to_duration(s)?),
                    None => return Err(DEFER),
                },
            },
            Op::Loop(l) => self.run_loop(l)?,
            Op::Has(..)
            | Op::HasProp(..)
            | Op::IntPresent(_)
            | Op::And(..)
            | Op::Or(..)
            | Op::NotStrictlyFalse(_)
            | Op::Not(_)
            | Op::Equal(..)
            | Op::Ordering(..)
            | Op::IntCompare(..)
            | Op::In(..)
            | Op::StrPredicate(..)
            | Op::Matches(..) => V::Bool(self.test(op)?),
        })
    }

    /// A bool: what most of a rule's operations give, kept out of [`V`].
    fn test(&mut self, op: &'a Op) -> R<bool> {
        match op {
            Op::Has(operand, f) => {
                let v = self.operand(operand)?;
                has(v, f)
            }
            Op::HasProp(operand, p) => {
                let v = self.operand(operand)?;
                has_prop(v, p)
            }
            Op::Charge(units, x) => {
                self.meter.charge(*units)?;
                self.cond(x)
            }
            Op::IntPresent(x) => match self.operand(x)? {
                V::Int(_) => Ok(true),
                _ => Err(DEFER),
            },
            Op::And(l, r) => {
                let l = self.cond(l);
                n::and(l, || self.cond(r))
            }
            Op::Or(l, r) => {
                let l = self.cond(l);
                n::or(l, || self.cond(r))
            }
            Op::NotStrictlyFalse(x) => match self.cond(x) {
                Err(Fail::Defer) => Err(DEFER),
                x => Ok(n::not_strictly_false(x)),
            },
            Op::Not(x) => Ok(!self.cond(x)?),
            Op::Conditional(ops) => {
                let [cond, yes, no] = &**ops;
                if self.cond(cond)? { self.cond(yes) } else { self.cond(no) }
            }
            Op::Equal(a, b, want) => {
                let (a, b) = (self.operand(a)?, self.operand(b)?);
                Ok(self.equal(&a, &b)? == *want)
            }
            Op::Ordering(a, b, order) => {
                let (a, b) = (self.operand(a)?, self.operand(b)?);
                let ordering = match (a, b) {
                    (V::Int(x), V::Int(y)) | (V::Duration(x), V::Duration(y)) => x.partial_cmp(&y),
                    (V::Uint(x), V::Uint(y)) => x.partial_cmp(&y),
                    (V::Double(x), V::Double(y)) => x.partial_cmp(&y),
                    (V::Bool(x), V::Bool(y)) => x.partial_cmp(&y),
                    (x, y) => match (self.text(&x), self.text(&y)) {
                        (Some(x), Some(y)) => x.partial_cmp(y),
                        _ => return Err(DEFER),
                    },
                };
                // A NaN compares as no ordering: the interpreter's answer is left to it.
                Ok(order.holds(ordering.ok_or(DEFER)?))
            }
            Op::IntCompare(a, b, compare) => {
                let (a, b) = (self.int_operand(a)?, self.int_operand(b)?);
                Ok(match compare {
                    Compare::Equal(want) => (a == b) == *want,
                    Compare::Order(order) => order.holds(a.cmp(&b)),
                })
            }
            Op::In(x, collection) if let Op::Constants(items) = &**collection => {
                let x = self.operand(x)?;
                if let V::Str(x) = x {
                    // A string among strings (`self.type in ['Exact', 'PathPrefix']`).
                    let mut found = false;
                    for item in items {
                        let Scalar::Str(item) = item else { return Err(DEFER) };
                        found |= item == x;
                    }
                    return Ok(found);
                }
                let mut found = false;
                for item in items {
                    found |= self.equal(&x, &item.value())?;
                }
                Ok(found)
            }
            Op::In(x, collection) => {
                let (x, collection) = (self.operand(x)?, self.operand(collection)?);
                match collection {
                    V::Json { json: Json::Object(map), schema: Some(schema), .. } if is_map(schema) => {
                        match self.text(&x) {
                            Some(k) => Ok(map.contains_key(k)),
                            None => Err(DEFER),
                        }
                    }
                    range => {
                        let mut items = self.items(range)?;
                        let mut found = false;
                        while let Some(item) = self.next(&mut items) {
                            found |= self.equal(&x, &item?)?;
                        }
                        Ok(found)
                    }
                }
            }
            Op::StrPredicate(s, x, predicate) => {
                let (s, x) = (self.operand(s)?, self.operand(x)?);
                let (Some(s), Some(x)) = (self.text(&s), self.text(&x)) else { return Err(DEFER) };
                Ok(match predicate {
                    StrPredicate::Contains => s.contains(x),
                    StrPredicate::StartsWith => s.starts_with(x),
                    StrPredicate::EndsWith => s.ends_with(x),
                })
            }
            Op::Matches(s, pattern) => {
                let v = self.operand(s)?;
                // The frame's strings and its meter, borrowed apart.
                let Some(s) = text(&self.strings, &v) else { return Err(DEFER) };
                Ok(n::matches(&mut self.meter, s, pattern)?)
            }
            Op::Loop(l) if let LoopKind::Fold { .. } = l.kind => self.fold(l),
            _ => boolean(self.eval(op)?),
        }
    }

    /// An integer, where the plan knows one comes ([`is_int`]): sums and comparisons of sizes
    /// and literals (HTTPRoute's sixteen-term sum), kept out of [`V`] as bools are. Each
    /// operation charges and fails as [`Frame::eval`]'s does.
    fn int(&mut self, op: &'a Op) -> R<i64> {
        match op {
            Op::Size(x) => {
                let v = self.operand(x)?;
                self.size(v)
            }
            Op::Arithmetic(a, b, arith) => {
                let (a, b) = (self.int_operand(a)?, self.int_operand(b)?);
                Ok(arith.ints(a, b)?)
            }
            Op::Conditional(ops) => {
                let [cond, yes, no] = &**ops;
                if self.cond(cond)? { self.int_operand(yes) } else { self.int_operand(no) }
            }
            Op::Charge(units, x) => {
                self.meter.charge(*units)?;
                self.int_operand(x)
            }
            Op::ChargeSized(units, x) => {
                self.meter.charge(*units)?;
                let i = self.int_operand(x)?;
                self.meter.charge_size(0)?;
                Ok(i)
            }
            Op::Negate(x) => Ok(n::neg_int(self.int_operand(x)?)?),
            _ => match self.eval(op)? {
                V::Int(i) => Ok(i),
                _ => Err(DEFER),
            },
        }
    }

    /// [`Frame::int`], without a call for a literal, `size(self)` or the `@sized` around each
    /// term of a sum (an integer has no size to charge: `charge_size(0)`, which still stops a
    /// meter past its limit as `eval`'s `@sized` does).
    #[inline(always)]
    fn int_operand(&mut self, op: &'a Op) -> R<i64> {
        match op {
            Op::Literal(Scalar::Int(i)) => Ok(*i),
            Op::Size(of) if let Op::SelfValue = **of => self.size(self.this?),
            Op::Sized(x) => {
                let i = self.int(x)?;
                self.meter.charge_size(0)?;
                Ok(i)
            }
            _ => self.int(op),
        }
    }

    /// A bool, without a call for a leaf (a literal, a local, `has()` of a leaf) or for the
    /// `!` of one: a call is an indirect jump the processor mispredicts, and a rule's bools
    /// are mostly these (HTTPRoute's: 94 of the 386 calls an object).
    #[inline(always)]
    fn cond(&mut self, op: &'a Op) -> R<bool> {
        match op {
            Op::Literal(Scalar::Bool(b)) => Ok(*b),
            Op::Local(slot) => boolean(self.slots[*slot]),
            Op::Has(of, f) if matches!(**of, Op::SelfValue | Op::Local(_)) => {
                let v = self.operand(of)?;
                has(v, f)
            }
            Op::HasProp(of, p) if let Op::SelfValue = **of => self.self_has(p),
            Op::HasProp(of, p) if let Op::Local(slot) = **of => has_prop(self.slots[slot], p),
            Op::Not(x) => Ok(!self.test(x)?),
            _ => self.test(op),
        }
    }

    /// An operation's value, without a call for a leaf (`self`, a local, a literal).
    #[inline(always)]
    fn operand(&mut self, op: &'a Op) -> R<V<'a>> {
        match op {
            Op::SelfValue => self.this,
            Op::Local(slot) => Ok(self.slots[*slot]),
            Op::Literal(s) => Ok(s.value()),
            // The most common read of all: a property of `self` or of a loop's item.
            Op::Prop(of, p) if let Op::SelfValue = **of => self.self_prop(p),
            Op::Prop(of, p) if let Op::Local(slot) = **of => prop(self.slots[slot], p),
            Op::Size(of) if let Op::SelfValue = **of => Ok(V::Int(self.size(self.this?)?)),
            _ => self.eval(op),
        }
    }

    fn made(&mut self, s: String) -> V<'a> {
        self.strings.push(s);
        V::Made(self.strings.len() as u32 - 1)
    }

    fn list(&mut self, items: Vec<V<'a>>) -> V<'a> {
        self.lists.push(items);
        V::List(self.lists.len() as u32 - 1)
    }

    /// A string value's text.
    fn text<'f>(&'f self, v: &V<'a>) -> Option<&'f str> {
        text(&self.strings, v)
    }

    /// CEL `==` of two values this plan compares: scalars of one kind.
    fn equal(&self, a: &V<'a>, b: &V<'a>) -> R<bool> {
        Ok(match (*a, *b) {
            (V::Str(x), V::Str(y)) => x == y,
            (V::Int(x), V::Int(y)) | (V::Duration(x), V::Duration(y)) => x == y,
            (V::Uint(x), V::Uint(y)) => x == y,
            (V::Bool(x), V::Bool(y)) => x == y,
            (V::Double(x), V::Double(y)) => x == y,
            (V::Null, V::Null) => true,
            (x, y) => match (self.text(&x), self.text(&y)) {
                (Some(x), Some(y)) => x == y,
                _ => return Err(DEFER),
            },
        })
    }

    /// `size(v)`.
    fn size(&self, v: V<'a>) -> R<i64> {
        Ok(match v {
            V::Str(s) => n::size_str(s),
            V::Made(i) => n::size_str(&self.strings[i as usize]),
            V::Json { json: Json::Array(items), schema: Some(_), .. } => n::size_len(items.len()),
            V::Json { json: Json::Object(map), schema: Some(schema), .. } if is_map(schema) => n::size_len(map.len()),
            V::List(list) => n::size_len(self.lists[list as usize].len()),
            _ => return Err(DEFER),
        })
    }

    /// What the meter's `@sized` charges for `v`: its size, nothing for what has none.
    fn charged_size(&self, v: V<'a>) -> R<usize> {
        Ok(match v {
            V::Null | V::Bool(_) | V::Int(_) | V::Uint(_) | V::Double(_) | V::Duration(_) => 0,
            other => usize::try_from(self.size(other)?).unwrap_or(usize::MAX),
        })
    }

    /// `all` and `exists`: `@result && p` / `@result || p` from a bool, errors held by
    /// [`Fold`].
    fn fold(&mut self, l: &'a Loop) -> R<bool> {
        let LoopKind::Fold { init, accu, absorbing, cond, step, result } = &l.kind else { return Err(DEFER) };
        // The `cel` crate evaluates the accumulator's start before the range.
        let init = self.cond(init)?;
        let range = self.operand(&l.range)?;
        let mut items = self.items(range)?;
        let mut fold = Fold::new(init, *absorbing);
        while let Some(item) = self.next(&mut items) {
            self.slots[l.item] = item?;
            self.slots[*accu] = V::Bool(fold.accu);
            if !self.cond(cond)? {
                break;
            }
            let step = self.cond(step);
            fold.step(step);
        }
        self.slots[*accu] = V::Bool(fold.finish()?);
        self.cond(result)
    }

    fn run_loop(&mut self, l: &'a Loop) -> R<V<'a>> {
        match &l.kind {
            LoopKind::Fold { .. } => Ok(V::Bool(self.fold(l)?)),
            // An error in a step of these loops becomes their accumulator, and the steps after
            // it go on with it (`p ? @result + [e] : @result`): what the interpreter charges
            // then is its own, so an error defers (valid objects rarely meet one).
            LoopKind::Collect { guard, value } => {
                let range = self.operand(&l.range)?;
                let mut items = self.items(range)?;
                let mut out = Vec::new();
                while let Some(item) = self.next(&mut items) {
                    self.slots[l.item] = item?;
                    if let Some(guard) = guard
                        && !self.cond(guard).map_err(|_| DEFER)?
                    {
                        continue;
                    }
                    out.push(self.operand(value).map_err(|_| DEFER)?);
                }
                Ok(self.list(out))
            }
            LoopKind::Scalar { init, accu, cond, step, result } => {
                let init = self.operand(init)?;
                if !matches!(init, V::Bool(_) | V::Int(_)) {
                    return Err(DEFER);
                }
                let range = self.operand(&l.range)?;
                let mut items = self.items(range)?;
                self.slots[*accu] = init;
                while let Some(item) = self.next(&mut items) {
                    self.slots[l.item] = item?;
                    if !self.cond(cond)? {
                        break;
                    }
                    self.slots[*accu] = self.operand(step).map_err(|_| DEFER)?;
                }
                self.operand(result)
            }
        }
    }

    /// What a loop ranges over: a list's items, a map's keys.
    fn items(&self, range: V<'a>) -> R<Items<'a>> {
        Ok(match range {
            V::Json { json: Json::Array(items), schema: Some(schema), .. } => {
                let schema = schema.items.as_deref();
                Items::Array(items.iter(), schema, Reading::of(schema))
            }
            V::Json { json: Json::Object(map), schema: Some(schema), .. } if is_map(schema) => Items::Keys(map.keys()),
            V::List(list) => Items::Made { list, next: 0 },
            _ => return Err(DEFER),
        })
    }

    fn next(&self, items: &mut Items<'a>) -> Option<R<V<'a>>> {
        match items {
            Items::Array(iter, schema, reading) => iter.next().map(|i| typed_as(i, *schema, *reading)),
            Items::Keys(keys) => keys.next().map(|k| Ok(V::Str(k))),
            Items::Made { list, next } => {
                let item = *self.lists[*list as usize].get(*next)?;
                *next += 1;
                Some(Ok(item))
            }
        }
    }
}

/// A string value's text (`strings`: the frame's, [`V::Made`]).
fn text<'f>(strings: &'f [String], v: &V<'f>) -> Option<&'f str> {
    match *v {
        V::Str(s) => Some(s),
        V::Made(i) => Some(&strings[i as usize]),
        _ => None,
    }
}

/// `self` or `oldSelf` (`json`): the node's value, typed by its schema.
fn node<'a>(json: &'a Json, input: Input<'a>) -> R<V<'a>> {
    Ok(match typed(json, Some(input.schema))? {
        V::Json { json, schema, .. } => V::Json { json, schema, root: input.root },
        v => v,
    })
}

/// `v.f` of a [`Prop`].
#[inline]
fn prop<'a>(v: V<'a>, p: &Prop) -> R<V<'a>> {
    match v {
        V::Json { json: Json::Object(map), schema: Some(schema), .. } if p.of(schema) => {
            match map.get(&p.field.property) {
                Some(value) if !value.is_null() => typed_as(value, schema.properties.at(p.position), p.reading),
                _ => Err(Fail::Error),
            }
        }
        v => select(v, &p.field),
    }
}

/// `v.f`.
fn select<'a>(v: V<'a>, f: &Field) -> R<V<'a>> {
    match v {
        V::Json { json: Json::Object(map), schema: Some(schema), root } => {
            if is_map(schema) {
                return match map.get(&f.cel) {
                    Some(v) => typed(v, schema.additional_properties_schema()),
                    None => Err(Fail::Error),
                };
            }
            let value = map.get(&f.property).filter(|v| !v.is_null());
            let Some(value) = value else { return Err(Fail::Error) };
            match schema.properties.get(&f.property) {
                Some(_) if root && f.property == "metadata" => Ok(V::Metadata(value)),
                property => typed(value, property),
            }
        }
        V::Metadata(meta) => match meta.get(&f.property).and_then(Json::as_str) {
            Some(s) if matches!(f.cel.as_str(), "name" | "generateName") => Ok(V::Str(s)),
            _ => Err(Fail::Error),
        },
        _ => Err(DEFER),
    }
}

/// `has(v.f)` of a [`Prop`]: what [`has`] answers, as [`prop`] finds it.
#[inline]
fn has_prop(v: V<'_>, p: &Prop) -> R<bool> {
    match v {
        V::Json { json: Json::Object(_), schema: Some(schema), .. } if p.of(schema) => Ok(present(prop(v, p))),
        v => has(v, &p.field),
    }
}

/// Whether a [`prop`] of an object of its schema node found a value: absent and `null` are
/// its only errors; a formatted string it leaves to the interpreter is there.
#[inline]
fn present(read: R<V<'_>>) -> bool {
    !matches!(read, Err(Fail::Error))
}

/// `has(v.f)`.
fn has(v: V<'_>, f: &Field) -> R<bool> {
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
                // Integers read apart (`Frame::int`): sums of sizes, overflow, division by zero.
                "(size(self.items) > 0 ? size(self.items[0].name) : 0) + (size(self.items) > 5 ? 1 : 0) <= 8",
                "size(self.items) * 9223372036854775807 > 0 || -size(self.value) < 0",
                "size(self.items) != 3 && self.n / (size(self.items) - 2) >= 0",
                "int(self.n) - 1 == 7 || self.n % 2 == 0",
            ],
        );
        let good = json!({
            "type": "Exact", "value": "/a/b", "n": 8, "d": 1.5, "namespace": "ns",
            "items": [{"name": "a", "port": 80}, {"name": "b", "port": 443}],
            "labels": {"x": "y", "z": "w"}, "when": "2024-01-01T00:00:00Z", "open": 1,
        });
        let held = agree(&schema, &good, None);
        assert!(held >= 19, "plans held {held} rules");
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
    fn the_rules_of_a_node_read_its_properties_once_as_each_would() {
        // One frame for the node's rules: a property read by one rule (a number, a formatted
        // string that defers, an absent one) reads the same for the next.
        let schema = object(
            json!({"d": {"type": "number"}, "n": {"type": "integer"},
                   "when": {"type": "string", "format": "date-time"},
                   "items": {"type": "array", "items": {"type": "object", "properties": {"d": {"type": "number"}}}}}),
            &[
                "self.d > 1.0",
                "self.d < 3.0 && self.n == 2",
                "self.when != ''",
                "has(self.when) && !has(self.absent)",
                "!has(self.absent) || self.absent == 1",
                "self.items.all(i, i.d >= self.d)",
            ],
        );
        let schema = {
            let mut s = schema;
            s["properties"]["absent"] = json!({"type": "integer"});
            s
        };
        let held =
            agree(&schema, &json!({"d": 2, "n": 2, "when": "2024-01-01T00:00:00Z", "items": [{"d": 2.5}]}), None);
        assert_eq!(held, 5, "all but the formatted string's comparison");
        agree(&schema, &json!({"d": 0.5, "n": 2.0, "items": [{"d": 0}]}), None);
        agree(&schema, &json!({"d": 4, "absent": 2, "when": "x"}), None);
    }

    #[test]
    fn has_of_a_known_property_answers_as_the_read_of_it_finds_it() {
        // `has()` of `self`'s and a loop item's known properties, read once for the node's
        // rules: null, absent, a formatted string the plan leaves to the interpreter, a map's
        // key (its keys are data, not properties).
        let schema = object(
            json!({"a": {"type": "string"}, "n": {"type": "integer", "nullable": true},
                   "when": {"type": "string", "format": "date-time"},
                   "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                   "items": {"type": "array", "items": {"type": "object", "properties": {
                       "name": {"type": "string"}, "when": {"type": "string", "format": "date-time"}}}}}),
            &[
                "has(self.a) ? self.a != '' : true",
                "!has(self.n) || self.n >= 0",
                "has(self.when) == has(self.a)",
                "!has(self.labels) || !has(self.labels.x) || self.labels.x != ''",
                "self.items.all(i, has(i.name) || !has(i.when))",
                "self.items.exists_one(i, has(i.when))",
            ],
        );
        let held = agree(
            &schema,
            &json!({"a": "x", "n": 1, "when": "2024-01-01T00:00:00Z", "labels": {"x": "y"},
                    "items": [{"name": "a"}, {"when": "2024-01-01T00:00:00Z", "name": "b"}]}),
            None,
        );
        assert_eq!(held, 6);
        agree(&schema, &json!({"n": null, "labels": {}, "items": [{"when": "x"}, {"when": "y"}]}), None);
        agree(&schema, &json!({"a": "", "when": null, "items": [{"name": null, "when": null}]}), None);
    }

    #[test]
    fn a_rule_binding_more_locals_than_a_frame_holds_is_interpreted() {
        // Nine nested loops bind eighteen locals: the interpreter's, with the same answer.
        let nested = (0..9).fold("true".to_owned(), |inner, i| format!("self.items.all(x{i}, {inner})"));
        let schema = object(json!({"items": {"type": "array", "items": {"type": "integer"}}}), &[&nested]);
        assert_eq!(agree(&schema, &json!({"items": [1, 2]}), None), 0);
        let eight = (0..8).fold("true".to_owned(), |inner, i| format!("self.items.all(x{i}, {inner})"));
        let schema = object(json!({"items": {"type": "array", "items": {"type": "integer"}}}), &[&eight]);
        assert_eq!(agree(&schema, &json!({"items": [1, 2]}), None), 1);
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
