//! [kubeskema] What a call site calls, worked out once.
//!
//! Which function a call names depends only on the environment (its functions, their
//! namespaces, its container) and on the functions added to the evaluating context: the
//! operator, the global function under the container, or whether `a.b.f(x)` calls the
//! function `a.b.f` rather than `f` on `a.b`. The interpreter worked that out on every
//! evaluation of every call (string matches, a hashed lookup of the function, the container's
//! candidates); [`Env::resolve_calls`] works it out once per call site and keeps the answer in
//! the call ([`CallExpr::resolved`]). Which overload a call takes still depends on its
//! arguments' runtime types, and is chosen on each evaluation.
//!
//! An answer is read only in the state of the environment it was worked out against
//! ([`Env`]'s id changes with every change to it), and only in a context without functions
//! of its own (which could name other functions): anywhere else the call is resolved as it
//! is evaluated, by the same [`Resolved::of`].

use std::borrow::Cow;

use crate::common::ast::{operators, CallExpr, EntryExpr, Expr, LiteralValue};
use crate::magic::FunctionRegistry;
use crate::parser::Expression;
use crate::Env;

/// An operator the interpreter evaluates itself, short-circuiting or over its operands'
/// values, rather than by calling an overload.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Conditional,
    /// `_||_` or `_&&_`.
    Logical,
    Equals,
    NotEquals,
    Index,
    OptIndex,
    OptSelect,
    Add,
    Subtract,
    Divide,
    Multiply,
    Modulo,
    Less,
    LessEquals,
    Greater,
    GreaterEquals,
    In,
    Not,
    Negate,
    NotStrictlyFalse,
    /// `name(k, e)` of [`Env::set_charge`]: `e`, once `k` is charged by the environment's
    /// charge.
    Charge(u64, crate::env::Charge),
}

impl Op {
    /// The operator a call of `name` with `arity` arguments is, if it is one.
    pub(crate) fn of(name: &str, arity: usize) -> Option<Op> {
        Some(match (arity, name) {
            (3, operators::CONDITIONAL) => Op::Conditional,
            (2, operators::LOGICAL_OR | operators::LOGICAL_AND) => Op::Logical,
            (2, operators::EQUALS) => Op::Equals,
            (2, operators::NOT_EQUALS) => Op::NotEquals,
            (2, operators::INDEX) => Op::Index,
            (2, operators::OPT_INDEX) => Op::OptIndex,
            (2, operators::OPT_SELECT) => Op::OptSelect,
            (2, operators::ADD) => Op::Add,
            (2, operators::SUBSTRACT) => Op::Subtract,
            (2, operators::DIVIDE) => Op::Divide,
            (2, operators::MULTIPLY) => Op::Multiply,
            (2, operators::MODULO) => Op::Modulo,
            (2, operators::LESS) => Op::Less,
            (2, operators::LESS_EQUALS) => Op::LessEquals,
            (2, operators::GREATER) => Op::Greater,
            (2, operators::GREATER_EQUALS) => Op::GreaterEquals,
            (2, operators::IN) => Op::In,
            (1, operators::LOGICAL_NOT) => Op::Not,
            (1, operators::NEGATE) => Op::Negate,
            (1, operators::NOT_STRICTLY_FALSE) => Op::NotStrictlyFalse,
            _ => return None,
        })
    }
}

/// What a call calls.
#[derive(Clone, Debug)]
pub(crate) enum Resolved {
    /// An operator.
    Operator(Op),
    /// A global function: `name` (the call's own, unless the container made it another),
    /// its declaration in the environment (an index, [`Env::function_at`]), and whether it
    /// is non-strict ([`Env::set_non_strict`]).
    Global {
        name: Option<String>,
        function: Option<usize>,
        non_strict: bool,
    },
    /// A call on a qualified name that, with the function's, names a function: `a.b.f(x)`
    /// calls `a.b.f` with `x` (cel-go's `resolveFunction`).
    Qualified {
        name: String,
        function: Option<usize>,
    },
    /// A member function, called with its target as the first operand.
    Member { function: Option<usize> },
}

impl Resolved {
    /// What `call` calls where `names` are the functions in reach.
    pub(crate) fn of(call: &CallExpr, names: &Names<'_>) -> Resolved {
        if let Some(op) = Op::of(&call.func_name, call.args.len()) {
            return Resolved::Operator(op);
        }
        let env = names.env;
        if let (None, Some(charge), [k, _]) = (
            &call.target,
            env.charge_named(&call.func_name),
            call.args.as_slice(),
        ) {
            if let Expr::Literal(LiteralValue::Int(k)) = &k.expr {
                let units = u64::try_from(*k.inner()).unwrap_or(0);
                return Resolved::Operator(Op::Charge(units, charge));
            }
        }
        match &call.target {
            None => {
                let name = names.global(&call.func_name);
                Resolved::Global {
                    function: env.function_index(&name),
                    non_strict: env.is_non_strict(&call.func_name),
                    name: match name {
                        Cow::Borrowed(_) => None,
                        Cow::Owned(name) => Some(name),
                    },
                }
            }
            Some(target) => match names.qualified(target, &call.func_name) {
                Some(name) => Resolved::Qualified {
                    function: env.function_index(&name),
                    name,
                },
                None => Resolved::Member {
                    function: env.function_index(&call.func_name),
                },
            },
        }
    }
}

/// A call site's [`Resolved`], kept with the state of the environment it holds for.
#[derive(Clone, Default)]
pub struct Resolution(Option<(u64, Resolved)>);

impl Resolution {
    /// Whether the call was resolved in `env` as it is now: an evaluation in a context of
    /// it without functions of its own reads the answer.
    pub fn is_resolved_in(&self, env: &Env) -> bool {
        matches!(&self.0, Some((id, _)) if *id == env.id())
    }

    /// The answer, where it holds for `names`.
    pub(crate) fn get(&self, names: &Names<'_>) -> Option<&Resolved> {
        match &self.0 {
            Some((env, resolved)) if *env == names.env.id() && names.context.is_none() => {
                Some(resolved)
            }
            _ => None,
        }
    }
}

/// Not part of what the expression says: expressions compare equal resolved or not.
impl PartialEq for Resolution {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for Resolution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            None => f.write_str("Unresolved"),
            Some((_, resolved)) => resolved.fmt(f),
        }
    }
}

/// The functions a call can name: the environment's, and those added to the evaluating
/// context (`None` where it has none).
pub(crate) struct Names<'a> {
    pub(crate) env: &'a Env,
    pub(crate) context: Option<&'a FunctionRegistry>,
}

impl Names<'_> {
    fn has_function(&self, name: &str) -> bool {
        self.env.has_overload(name) || self.context.is_some_and(|f| f.get(name).is_some())
    }

    /// Whether a function named `namespace.…` is declared.
    pub(crate) fn has_namespace(&self, namespace: &str) -> bool {
        self.env.has_namespace(namespace)
            || self.context.is_some_and(|f| f.has_namespace(namespace))
    }

    /// The global function a call to `name` calls under the container: the first candidate
    /// that is declared, else the plain name, which then reports itself undeclared. The plain
    /// name, the only candidate without a container, is not checked here: the call does that.
    fn global<'n>(&self, name: &'n str) -> Cow<'n, str> {
        let mut candidates = self.env.container().candidates(name).peekable();
        while let Some(candidate) = candidates.next() {
            if candidates.peek().is_none() || self.has_function(&candidate) {
                return candidate;
            }
        }
        Cow::Borrowed(name)
    }

    /// The name of the function a call on `target` names when `target` spells a qualified
    /// name that, with `func_name`, names a declared function: `a.b.f()` calls the function
    /// `a.b.f`, rather than `f` on `a.b`, under the container too. Mirrors cel-go's
    /// `resolveFunction`, deciding on the name alone: a target whose first segment is no
    /// function's namespace, as most are, is told apart without allocating.
    fn qualified(&self, target: &Expression, func_name: &str) -> Option<String> {
        let container = self.env.container();
        let root = target.expr.qualified_name_root()?;
        if !container
            .candidates(root)
            .any(|c| self.has_namespace(c.split('.').next().unwrap_or_default()))
        {
            return None;
        }
        let segments = target.expr.qualified_name_segments()?;
        let name = format!("{}.{func_name}", segments.join("."));
        let found = container
            .candidates(&name)
            .find(|candidate| self.has_function(candidate))
            .map(Cow::into_owned);
        found
    }
}

impl Env {
    /// Works out, once, what each call in `expr` calls in this environment (see
    /// [`crate::resolve`]): an evaluation in a context of this environment without
    /// functions of its own then reads the answer instead of working it out again. Changing
    /// the environment afterwards leaves the answers unread; evaluating is the same either
    /// way. Recurses over the expression: give a deep one a stack to match.
    pub fn resolve_calls(&self, expr: &mut Expression) {
        let names = Names {
            env: self,
            context: None,
        };
        resolve(expr, &names, self.id());
    }
}

fn resolve(expr: &mut Expression, names: &Names<'_>, env: u64) {
    match &mut expr.expr {
        Expr::Call(call) => {
            call.resolved = Resolution(Some((env, Resolved::of(call, names))));
            if let Some(target) = &mut call.target {
                resolve(target, names, env);
            }
            for arg in &mut call.args {
                resolve(arg, names, env);
            }
        }
        Expr::Select(select) => resolve(&mut select.operand, names, env),
        Expr::List(list) => {
            for element in &mut list.elements {
                resolve(element, names, env);
            }
        }
        Expr::Map(map) => {
            for entry in &mut map.entries {
                match &mut entry.expr {
                    EntryExpr::MapEntry(entry) => {
                        resolve(&mut entry.key, names, env);
                        resolve(&mut entry.value, names, env);
                    }
                    EntryExpr::StructField(field) => resolve(&mut field.value, names, env),
                }
            }
        }
        Expr::Struct(s) => {
            for entry in &mut s.entries {
                match &mut entry.expr {
                    EntryExpr::MapEntry(entry) => {
                        resolve(&mut entry.key, names, env);
                        resolve(&mut entry.value, names, env);
                    }
                    EntryExpr::StructField(field) => resolve(&mut field.value, names, env),
                }
            }
        }
        Expr::Comprehension(c) => {
            resolve(&mut c.iter_range, names, env);
            resolve(&mut c.accu_init, names, env);
            resolve(&mut c.loop_cond, names, env);
            resolve(&mut c.loop_step, names, env);
            resolve(&mut c.result, names, env);
        }
        Expr::Literal(_) | Expr::Ident(_) | Expr::Unspecified => {}
    }
}
