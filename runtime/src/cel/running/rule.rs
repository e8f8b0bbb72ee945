//! A rule as generated code and the dynamic validator hold it: its texts, compiled once per
//! process on first use, and run with the meter.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use cel::{Context, Value};

use crate::cel::compile::env::env;
use crate::cel::compile::{
    Compiled, Expecting, FieldPathStep, Scope, check_rule, compile_one, field_path_steps, parse_field_path,
};
use crate::cel::library::words::go_error;
use crate::cel::running::plan::Plan;
use crate::cel::vocabulary::meter;
use crate::cel::vocabulary::types::{Declaration, Type};
use crate::cel::vocabulary::{depth, limits};
use crate::schema::Schema;

/// Compiles and runs one expression of any type with `self` bound (as `dyn`, and nothing
/// else), in [`env()`]: for trying a rule out, and for tests.
///
/// ```
/// use kubeskema::cel::{Value, eval, from_json};
/// let v = eval("self.ports.all(p, p < 1024)", from_json(&serde_json::json!({"ports": [80, 443]})));
/// assert_eq!(v, Ok(Value::Bool(true)));
/// ```
pub fn eval(source: &str, self_value: Value) -> Result<Value, String> {
    let compiled = compile_any(source)?;
    let mut cx = Context::with_env(env().clone());
    cx.add_variable_from_value("self", self_value);
    match compiled.run(&compiled.metered, &cx) {
        (_, cost) if cost.exceeded => Err(meter::LIMIT_EXCEEDED.to_owned()),
        (result, _) => result.map_err(|e| go_error(&e)),
    }
}

/// An expression of any type compiled with `self` declared `dyn`, or why not.
fn compile_any(source: &str) -> Result<Compiled, String> {
    let mut errors = Vec::new();
    let parsed =
        compile_one(source, &Scope::untyped(false), Expecting::Any, &mut errors).ok_or_else(|| errors.join("; "))?;
    Ok(Compiled {
        message_refused: false,
        max_cost: None,
        message_max_cost: None,
        metered: parsed.metered,
        message_expression: None,
        depth: parsed.depth,
        transition: parsed.reads_old_self,
    })
}

/// What the apiserver says of the rules of a node CEL cannot declare
/// ([`crate::cel::types::declarable`]) when it admits the CRD.
pub const NO_TYPE_INFORMATION: &str = "internal error: failed to construct type information for \
     x-kubernetes-validations rules: unable to convert structural schema to CEL declarations";

/// One `x-kubernetes-validations` entry.
#[derive(Debug)]
pub struct Rule {
    /// `rule`: a CEL expression that must be `true`.
    pub rule: Cow<'static, str>,
    /// `message`.
    pub message: Option<Cow<'static, str>>,
    /// `messageExpression`: a CEL expression giving the message.
    pub message_expression: Option<Cow<'static, str>>,
    /// `reason`: `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired`
    /// or `FieldValueDuplicate`.
    pub reason: Option<Cow<'static, str>>,
    /// `fieldPath`, relative to the rule's node.
    pub field_path: Option<Cow<'static, str>>,
    /// `optionalOldSelf`.
    pub optional_old_self: bool,
    /// The type of `self` the rule is checked against; `dyn` when `None`.
    pub self_type: Option<SelfType>,
    pub(crate) compiled: OnceLock<Result<Compiled, String>>,
    /// `fieldPath` resolved in `self`'s type, once.
    pub(crate) field_path_steps: OnceLock<Vec<FieldPathStep>>,
    /// The rule's plan over JSON (`super::plan`), made on first use: `None` where it has none.
    pub(crate) plan: OnceLock<Option<Plan>>,
}

/// Where the type of a rule's `self` comes from.
#[derive(Clone, Debug)]
pub enum SelfType {
    /// Declared from the schema ([`crate::cel::types::declare_rule_scope`]).
    Declared(Type),
    /// The declaration of the rule's node in the derived type's schema
    /// ([`crate::cel::types::derived_declaration`]; `None`: not declarable, `dyn`): a function,
    /// as a declaration cannot be built in a `static`. Costs are then estimated too.
    Derived(fn() -> Option<Declaration>),
}

impl Rule {
    /// A rule with nothing but its expression (usable in a `static`).
    pub const fn new(rule: &'static str) -> Rule {
        Rule {
            rule: Cow::Borrowed(rule),
            message: None,
            message_expression: None,
            reason: None,
            field_path: None,
            optional_old_self: false,
            self_type: None,
            compiled: OnceLock::new(),
            field_path_steps: OnceLock::new(),
            plan: OnceLock::new(),
        }
    }

    /// A rule read at run time (the dynamic validator).
    pub fn owned(rule: String) -> Rule {
        Rule { rule: Cow::Owned(rule), ..Rule::new("") }
    }

    /// A rule with every field, checked against `self` as `self_type_of` declares it
    /// ([`SelfType::Derived`]; `dyn` without it). Usable in a `static`: what derived code
    /// writes.
    #[allow(
        clippy::too_many_arguments,
        reason = "a const fn derived code calls in statics: one argument per rule field, as the attribute writes them"
    )]
    pub const fn declared(
        rule: &'static str,
        message: Option<&'static str>,
        message_expression: Option<&'static str>,
        reason: Option<&'static str>,
        field_path: Option<&'static str>,
        optional_old_self: bool,
        self_type_of: Option<fn() -> Option<Declaration>>,
    ) -> Rule {
        Rule {
            rule: Cow::Borrowed(rule),
            message: borrowed(message),
            message_expression: borrowed(message_expression),
            reason: borrowed(reason),
            field_path: borrowed(field_path),
            optional_old_self,
            self_type: match self_type_of {
                Some(of) => Some(SelfType::Derived(of)),
                None => None,
            },
            compiled: OnceLock::new(),
            field_path_steps: OnceLock::new(),
            plan: OnceLock::new(),
        }
    }

    /// The compiled rule, compiled on first use and kept for the process. A derived type's
    /// rule is also refused where its estimated cost alone is past the apiserver's limit for
    /// one rule (the CRD check also multiplies it by how many values the node can have), and
    /// its messageExpression left out where that is.
    pub fn compiled(&self) -> Result<&Compiled, &str> {
        self.compiled
            .get_or_init(|| {
                let optional = self.optional_old_self;
                let scope = match &self.self_type {
                    Some(SelfType::Declared(t)) => Scope::typed(t.clone(), optional),
                    Some(SelfType::Derived(of)) => match of() {
                        Some(declaration) => Scope::declared(Arc::new(declaration), optional),
                        // The apiserver refuses the rules of a node CEL cannot declare.
                        None => return Err(NO_TYPE_INFORMATION.to_owned()),
                    },
                    None => Scope::untyped(optional),
                };
                let over = |cost: Option<u64>| cost.filter(|&c| c > limits::STATIC_RULE_LIMIT);
                let compile = |message: Option<&str>| check_rule(&self.rule, message, &scope);
                // A messageExpression that does not compile, or is estimated over the budget, is
                // left out: the rule still runs, and a failure says `message` (the apiserver's
                // validator does so; the CRD check reports the expression).
                let compiled = match compile(self.message_expression.as_deref()) {
                    Ok(c) if over(c.message_max_cost).is_some() => compile(None),
                    Err(errors) if errors.iter().all(|e| e.starts_with("messageExpression")) => {
                        compile(None).map(|mut c| {
                            c.message_refused = true;
                            c
                        })
                    }
                    compiled => compiled,
                }
                .map_err(|errors| errors.join("; "))?;
                // A rule the apiserver would not admit for its cost does not run.
                match over(compiled.max_cost) {
                    Some(cost) => Err(limits::over_budget("estimated rule cost", cost, limits::STATIC_RULE_LIMIT)),
                    None => Ok(compiled),
                }
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// The rule's plan over JSON, made on first use from `compiled` (this rule's): none for a
    /// rule with a node the plan has no operation for, or that reads an optional `oldSelf`.
    pub(crate) fn plan(&self, compiled: &Compiled, schema: &Schema) -> Option<&Plan> {
        self.plan
            .get_or_init(|| {
                if self.optional_old_self {
                    return None;
                }
                depth::with_stack(compiled.depth, || Plan::compile(&compiled.metered, schema))
            })
            .as_ref()
    }

    /// Where a failure of the rule is reported, below its node: `fieldPath` as the apiserver
    /// normalizes it in the schema of the rule's node (properties and map keys; nothing where
    /// it leads nowhere). Where `self`'s type says nothing (`dyn`), each step is a property.
    pub(crate) fn field_path_steps(&self) -> &[FieldPathStep] {
        self.field_path_steps.get_or_init(|| {
            let Some(path) = self.field_path.as_deref() else { return Vec::new() };
            let self_type = match &self.self_type {
                Some(SelfType::Declared(t)) => Some(t.clone()),
                Some(SelfType::Derived(of)) => of().map(|d| d.ty),
                None => None,
            };
            match self_type {
                Some(t) if t != Type::Dyn => field_path_steps(path, &t).unwrap_or_default(),
                _ => parse_field_path(path).unwrap_or_default().into_iter().map(FieldPathStep::Property).collect(),
            }
        })
    }

    /// `message` trimmed, else the rule trimmed (`ruleErrorString`).
    pub(crate) fn error_string(&self) -> &str {
        match self.message.as_deref().map(str::trim) {
            Some(m) if !m.is_empty() => m,
            _ => self.rule.trim(),
        }
    }

    /// The failure's detail without a message expression (`ruleMessageOrDefault`).
    pub(crate) fn message_or_default(&self) -> String {
        match self.message.as_deref().map(str::trim) {
            Some(m) if !m.is_empty() => m.to_owned(),
            _ => format!("failed rule: {}", self.rule.trim()),
        }
    }
}

const fn borrowed(s: Option<&'static str>) -> Option<Cow<'static, str>> {
    match s {
        Some(s) => Some(Cow::Borrowed(s)),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use cel::common::ast::Expr;
    use cel::parser::Expression;

    use super::*;
    use crate::cel::vocabulary::depth;

    /// The expression with every call's resolution forgotten: evaluated, each call is worked
    /// out as it is reached.
    fn unresolved(e: &Expression) -> Expression {
        let mut e = e.clone();
        forget(&mut e);
        e
    }

    fn forget(e: &mut Expression) {
        if let Expr::Call(call) = &mut e.expr {
            call.resolved = Default::default();
        }
        for child in depth::children_mut(e) {
            forget(child);
        }
    }

    /// Whether every call of `e` was resolved in the environment rules run in.
    fn all_resolved(e: &Expression) -> bool {
        let resolved = match &e.expr {
            Expr::Call(call) => call.resolved.is_resolved_in(env()),
            _ => true,
        };
        resolved && depth::children(e).into_iter().all(all_resolved)
    }

    /// What running `expr` gives: its value or its error as the apiserver words it, and its
    /// cost.
    fn run(compiled: &Compiled, expr: &Expression, self_value: &Value) -> (Result<Value, String>, meter::Cost) {
        let mut cx = Context::with_env(env().clone());
        cx.add_variable_from_value("self", self_value.clone());
        let (result, cost) = compiled.run(expr, &cx);
        (result.map_err(|e| go_error(&e)), cost)
    }

    /// Calls resolved when a rule is compiled (`cel::Env::resolve_calls`) answer as the same
    /// calls worked out as they are evaluated: every kind of call (each operator, global,
    /// non-strict, qualified and member functions) and their failures.
    #[test]
    fn resolved_calls_answer_as_calls_worked_out_on_evaluation() {
        let self_value = crate::cel::from_json(&serde_json::json!({
            "a": [1, 2, 3], "s": "abc", "m": {"k": 1}, "d": "1h", "q": "1Gi"
        }));
        let sources = [
            "self.a.size() > 2 ? 1 + 2 * 3 - 4 / 2 % 3 : 0",
            "self.a[0] == 1 && self.a[1] != 1 || false",
            "!(1 in self.a) || 'k' in self.m",
            "-self.a[0] <= 3 && 2 >= 1 && 1 < 2 && 3.0 > 2.5",
            "self.m[?'k'].orValue(0) + self.?m.?k.orValue(7) + self.m[?'x'].orValue(5)",
            "size(self.s) == 3 && int('5') + 1 == 6 && string(1) == '1' && type(self.s) == string",
            "dyn(1u) in ([3u, 1u] + []) && [1, 2] + [3] == self.a",
            "optional.of(1).value() + (optional.none().hasValue() ? 1 : 0)",
            "strings.quote(self.s) + ',' + string(lists.range(3).size()) + ['a', 'b'].join(',')",
            "sets.contains(self.a, [1, 2]) && sets.equivalent([1], [1, 1])",
            "self.s.startsWith('a') && self.s.matches('^a.c$') && self.s.find('b') == 'b'",
            "self.a.all(x, x > 0) && self.a.exists_one(x, x == 2) && self.a.map(x, x * 2)[2] == 6",
            "self.a.filter(x, x > 1).size() + self.a.transformList(i, x, i + x)[2]",
            "duration(self.d) > duration('30m') && quantity(self.q).isGreaterThan(quantity('1Mi'))",
            "isURL('https://example.com') && url('https://example.com/p').getEscapedPath() == '/p'",
            // failures: no overload at run time, division by zero, a missing key, an index
            "dyn(self.s) + 1 == 2",
            "dyn(1).startsWith('a')",
            "1 / (self.a.size() - 3) == 0",
            "self.m.x == 1",
            "self.a[5] == 1",
            "self.a.all(x, x / (x - 2) > 0)",
            "int(self.s) == 1 || self.s.charAt(10) == ''",
        ];
        for source in sources {
            let compiled = compile_any(source).unwrap_or_else(|e| panic!("{source}: {e}"));
            assert!(all_resolved(&compiled.metered), "{source}: a call left to be worked out as it runs");
            let worked_out = unresolved(&compiled.metered);
            let resolved = run(&compiled, &compiled.metered, &self_value);
            assert_eq!(resolved, run(&compiled, &worked_out, &self_value), "{source}");
            depth::drop_tree(worked_out);
        }
    }

    /// A resolution is read only by the environment, unchanged, it was made in, and not in a
    /// context with functions of its own: `f` declared after `f(1)` was resolved is called,
    /// and a context's own `a.b.g` is what `a.b.g(1)` calls.
    #[test]
    fn a_resolution_is_not_read_where_it_may_not_hold() {
        let mut env = cel::Env::stdlib();
        let mut call_f = env.parser().parse("f(1)").expect("parses");
        let mut call_g = env.parser().parse("a.b.g(1)").expect("parses");
        env.resolve_calls(&mut call_f);
        env.add_overload("f", "f_int", vec![cel::common::types::INT_TYPE], |args| Ok(args[0].clone()))
            .expect("declares");
        env.resolve_calls(&mut call_g);
        let env = Arc::new(env);
        let cx = Context::with_env(env.clone());
        assert_eq!(cel::objects::Value::resolve(&call_f, &cx), Ok(Value::Int(1)));

        let mut cx = Context::with_env(env);
        cx.add_function("a.b.g", |i: i64| i + 1).expect("adds");
        assert_eq!(cel::objects::Value::resolve(&call_g, &cx), Ok(Value::Int(2)));
    }
}
