//! CEL rules (`x-kubernetes-validations`) evaluated as the apiserver evaluates them
//! (semantics §9), on the `cel` crate (feature `cel`, on by default) with the Kubernetes
//! libraries of [`library`](self) added.
//!
//! - [`Rule`]: one rule with its message, reason, fieldPath and optionalOldSelf; compiled once
//!   per process, on first use ([`Rule::compiled`]).
//! - [`ToCel`]: a typed value as CEL sees it (`self`): integers as `int`, formats as
//!   timestamps, durations and bytes, property names escaped ([`escape`]); implemented by
//!   `#[derive(kubeskema::Validate)]` and here for the runtime's types.
//! - [`Cx`]: the evaluation of one object: the per-object cost budget, ratcheting of
//!   unchanged places on update, and the issues in the apiserver's words; rules compiled to
//!   Rust ([`native`]) run there beside interpreted ones ([`Cx::evaluate_typed`]).
//! - [`lower`]: a rule's checked, lowered and metered tree, what codegen compiles to Rust.
//! - [`check_rule`]: what code generation asks of a rule before writing it (it parses, it uses
//!   only `self` and, for transition rules, `oldSelf`, its functions exist).
//!
//! ```
//! use kubeskema::cel::{Cx, Rule};
//! use kubeskema::path::Path;
//! static RULES: [Rule; 1] = [Rule::declared("self.min <= self.max", Some("min above max"), None, None, None, false, None)];
//! let spec = kubeskema::serde_json::json!({"min": 3, "max": 1});
//! let mut cx = Cx::default();
//! cx.evaluate(&RULES, &Path::root().key("spec"), kubeskema::cel::from_json(&spec), None, None, "object");
//! assert_eq!(cx.issues[0].to_string(), "spec: Invalid value: min above max");
//! ```

use std::borrow::Cow;
use std::sync::{Arc, LazyLock, OnceLock};

use cel::common::ast::{Expr, LiteralValue};
use cel::parser::Expression;
use cel::{Context, Env, ExecutionError};

pub use cel::Value;

use crate::issue::{BadValue, ErrorType, Issue, PathForm};
use crate::path::Path;

pub mod check;
mod comprehensions;
pub mod cost;
mod depth;
mod functions;
mod int_data;
mod library;
mod list_kinds;
pub mod meter;
pub mod native;
pub mod types;
mod value;
#[cfg(feature = "dynamic")]
mod walk;

pub use int_data::with_written_as_float;
pub use types::Type;

pub use crate::listtype::correlate;
#[cfg(feature = "dynamic")]
pub use value::from_json_with;
pub use value::{ToCel, deep_equal, escape, from_json, object, struct_value, with_format, with_format_each};
#[cfg(feature = "dynamic")]
pub use walk::SchemaRules;

/// The environment every rule compiles and runs in: the standard library, the strings
/// (v2) and lists (v3) extensions, and the Kubernetes libraries.
pub fn env() -> &'static Arc<Env> {
    static ENV: LazyLock<Arc<Env>> = LazyLock::new(|| {
        let mut env = Env::stdlib();
        // cel-go keeps the last entry of a map literal with a repeated key.
        env.set_error_on_duplicate_map_keys(false);
        env.add_extension(cel::extensions::strings).expect("invariant: the strings extension declares once");
        env.add_extension(cel::extensions::lists).expect("invariant: the lists extension declares once");
        library::register(&mut env).expect("invariant: the Kubernetes libraries declare each overload once");
        comprehensions::register(&mut env).expect("invariant: the two-variable comprehensions declare once");
        list_kinds::register(&mut env).expect("invariant: the set and map list functions declare once");
        int_data::register(&mut env).expect("invariant: the integer read check declares once");
        meter::register(&mut env).expect("invariant: the meter's functions declare once");
        Arc::new(env)
    });
    &ENV
}

/// What an expression of any type costs at most and at least, as the apiserver estimates it
/// over `scope`'s sizes (`Env.EstimateCost`); `None` when the scope has none.
///
/// ```
/// use kubeskema::cel::{Scope, estimate_cost, types::{Declaration, Type}};
/// let scope = Scope::declared(Declaration::simple(Type::Dyn, 1, 0).into(), false);
/// let cost = estimate_cost("self.startsWith('a')", &scope).unwrap().unwrap();
/// assert_eq!((cost.min, cost.max), (2, 2));
/// ```
pub fn estimate_cost(source: &str, scope: &Scope) -> Result<Option<cost::Estimate>, String> {
    let mut errors = Vec::new();
    let parsed = compile_one(source, scope, Expecting::Any, &mut errors).ok_or_else(|| errors.join("; "))?;
    depth::drop_tree(parsed.metered);
    Ok(parsed.cost)
}

/// Compiles and runs one expression of any type with `self` bound (as `dyn`, and nothing
/// else), in [`env()`]: for trying a rule out, and for tests.
///
/// ```
/// use kubeskema::cel::{Value, eval, from_json};
/// let v = eval("self.ports.all(p, p < 1024)", from_json(&serde_json::json!({"ports": [80, 443]})));
/// assert_eq!(v, Ok(Value::Bool(true)));
/// ```
pub fn eval(source: &str, self_value: Value) -> Result<Value, String> {
    let mut errors = Vec::new();
    let parsed =
        compile_one(source, &Scope::untyped(false), Expecting::Any, &mut errors).ok_or_else(|| errors.join("; "))?;
    let compiled = Compiled {
        max_cost: None,
        message_max_cost: None,
        metered: parsed.metered,
        message_expression: None,
        depth: parsed.depth,
        transition: parsed.reads_old_self,
    };
    let mut cx = Context::with_env(env().clone());
    cx.add_variable_from_value("self", self_value);
    match compiled.run(&compiled.metered, &cx) {
        (_, cost) if cost.exceeded => Err(meter::LIMIT_EXCEEDED.to_owned()),
        (result, _) => result.map_err(|e| go_error(&e)),
    }
}

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
    compiled: OnceLock<Result<Compiled, String>>,
}

/// Where the type of a rule's `self` comes from.
#[derive(Clone, Debug)]
pub enum SelfType {
    /// Declared from the schema ([`types::declare_rule_scope`], feature `dynamic`).
    Declared(Type),
    /// Given by the derived Rust type ([`ToCel::cel_type`]): a function, as a `Type` cannot
    /// be built in a `static`.
    Derived(fn() -> Type),
}

/// A rule's programs.
#[derive(Debug)]
pub struct Compiled {
    /// The most the rule can cost, as the apiserver estimates it over the scope's sizes
    /// (`MaxCost`); `None` where the scope has none.
    pub max_cost: Option<u64>,
    /// The most the messageExpression can cost (`MessageExpressionMaxCost`).
    pub message_max_cost: Option<u64>,
    /// The rule with the meter's calls ([`meter::instrument`]): what runs.
    metered: Expression,
    /// The messageExpression, metered.
    message_expression: Option<Expression>,
    /// The deeper of the two trees (the stack their walks need).
    depth: usize,
    /// Whether the rule reads `oldSelf` (a transition rule).
    pub transition: bool,
}

/// The trees are dropped without recursion, as a derived drop would recurse over them.
impl Drop for Compiled {
    fn drop(&mut self) {
        depth::drop_tree(std::mem::take(&mut self.metered));
        if let Some(m) = self.message_expression.take() {
            depth::drop_tree(m);
        }
    }
}

impl Compiled {
    /// Whether the rule has a messageExpression.
    pub fn has_message_expression(&self) -> bool {
        self.message_expression.is_some()
    }

    /// Runs one of the rule's metered expressions, stopped past the per-call limit, on a
    /// stack deep enough for it.
    fn run(&self, expr: &Expression, scope: &Context) -> (Result<Value, ExecutionError>, meter::Cost) {
        depth::with_stack(self.depth, || meter::metered(cost::PER_CALL_LIMIT, || Value::resolve(expr, scope)))
    }
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
        }
    }

    /// A rule read at run time (the dynamic validator).
    pub fn owned(rule: String) -> Rule {
        Rule { rule: Cow::Owned(rule), ..Rule::new("") }
    }

    /// A rule with every field, checked against `self` of the type `self_type_of` gives
    /// ([`SelfType::Derived`]; `dyn` without it). Usable in a `static`: what derived code
    /// writes.
    #[allow(clippy::too_many_arguments)]
    pub const fn declared(
        rule: &'static str,
        message: Option<&'static str>,
        message_expression: Option<&'static str>,
        reason: Option<&'static str>,
        field_path: Option<&'static str>,
        optional_old_self: bool,
        self_type_of: Option<fn() -> Type>,
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
        }
    }

    /// The compiled rule, compiled on first use and kept for the process.
    pub fn compiled(&self) -> Result<&Compiled, &str> {
        self.compiled
            .get_or_init(|| {
                let self_type = match &self.self_type {
                    Some(SelfType::Declared(t)) => t.clone(),
                    Some(SelfType::Derived(of)) => of(),
                    None => Type::Dyn,
                };
                let scope = Scope::typed(self_type, self.optional_old_self);
                let field_path = self.field_path.as_deref();
                check_rule(&self.rule, self.message_expression.as_deref(), field_path, &scope)
                    .or_else(|errors| {
                        // A messageExpression that does not compile is left out: the rule still
                        // runs, and a failure says `message` (the apiserver's validator does so;
                        // the CRD check reports the expression).
                        let only_message = errors.iter().all(|e| e.starts_with("messageExpression"));
                        if only_message { check_rule(&self.rule, None, field_path, &scope) } else { Err(errors) }
                    })
                    .map_err(|errors| errors.join("; "))
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// `message` trimmed, else the rule trimmed (`ruleErrorString`).
    fn error_string(&self) -> &str {
        match self.message.as_deref().map(str::trim) {
            Some(m) if !m.is_empty() => m,
            _ => self.rule.trim(),
        }
    }

    /// The failure's detail without a message expression (`ruleMessageOrDefault`).
    fn message_or_default(&self) -> String {
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

/// What a rule's variables are: the type of `self` (and of `oldSelf`, the same, or an
/// optional of it with `optionalOldSelf`), and, at CRD time, the sizes the schema allows.
#[derive(Clone, Debug)]
pub struct Scope {
    /// The type of `self`: from the schema ([`types::declare_rule_scope`]), or `dyn` where
    /// there is none (rules on hand-written types).
    pub self_type: Type,
    /// `optionalOldSelf: true`: `oldSelf` is `optional_type(<self's type>)`.
    pub optional_old_self: bool,
    /// `self`'s declaration with its sizes: given, [`check_rule`] estimates what each
    /// expression costs ([`Compiled::max_cost`]), as the apiserver does when it admits a CRD.
    pub sizes: Option<Arc<types::Declaration>>,
}

impl Scope {
    /// `self` as `dyn`: every field selection is checked at run time.
    pub fn untyped(optional_old_self: bool) -> Scope {
        Scope { self_type: Type::Dyn, optional_old_self, sizes: None }
    }

    /// `self` as declared, costs estimated over the declaration's sizes.
    pub fn declared(declaration: Arc<types::Declaration>, optional_old_self: bool) -> Scope {
        Scope { self_type: declaration.ty.clone(), optional_old_self, sizes: Some(declaration) }
    }

    /// `self` of the type `self_type`, costs not estimated.
    pub fn typed(self_type: Type, optional_old_self: bool) -> Scope {
        Scope { self_type, optional_old_self, sizes: None }
    }

    fn variables(&self) -> [(&'static str, Type); 2] {
        let old = if self.optional_old_self { Type::optional(self.self_type.clone()) } else { self.self_type.clone() };
        [("self", self.self_type.clone()), ("oldSelf", old)]
    }
}

/// Compiles a rule (and its message expression and field path) as the apiserver does at CRD
/// time: it parses, it type-checks against `scope` with the 1.36 environment's declarations
/// (see [`check`]), the rule is a `bool` and the message expression a `string`, constant
/// arguments are valid, and the `fieldPath` parses. Every problem is returned, in the
/// apiserver's words.
pub fn check_rule(
    rule: &str,
    message_expression: Option<&str>,
    field_path: Option<&str>,
    scope: &Scope,
) -> Result<Compiled, Vec<String>> {
    let mut errors = Vec::new();
    let program = compile_one(rule, scope, Expecting::Rule, &mut errors);
    let message_expression = message_expression.and_then(|m| compile_one(m, scope, Expecting::Message, &mut errors));
    if let Some(Err(e)) = field_path.map(parse_field_path) {
        errors.push(e);
    }
    match program {
        Some(rule) if errors.is_empty() => Ok(Compiled {
            max_cost: rule.cost.map(|c| c.max),
            message_max_cost: message_expression.as_ref().and_then(|m| m.cost).map(|c| c.max),
            metered: rule.metered,
            depth: rule.depth.max(message_expression.as_ref().map_or(0, |m| m.depth)),
            message_expression: message_expression.map(|m| m.metered),
            transition: rule.reads_old_self,
        }),
        _ => Err(errors),
    }
}

/// A rule as codegen compiles it to Rust ([`native`]): the trees the interpreter runs
/// (lowered and metered, [`meter::instrument`]), with the checked type of each node that
/// came from the source (by id; the meter's and the lowering's own nodes have none).
pub struct Lowered {
    /// The rule's tree.
    pub rule: Expression,
    /// The types of the rule's nodes.
    pub rule_types: std::collections::HashMap<u64, Type>,
    /// The messageExpression's tree and types.
    pub message: Option<(Expression, std::collections::HashMap<u64, Type>)>,
    /// Whether the rule reads `oldSelf` (a transition rule).
    pub transition: bool,
}

impl Drop for Lowered {
    fn drop(&mut self) {
        depth::drop_tree(std::mem::take(&mut self.rule));
        if let Some((m, _)) = self.message.take() {
            depth::drop_tree(m);
        }
    }
}

/// [`check_rule`], keeping the trees and their types for [`Lowered`].
pub fn lower(rule: &str, message_expression: Option<&str>, scope: &Scope) -> Result<Lowered, Vec<String>> {
    let mut errors = Vec::new();
    let program = compile_one(rule, scope, Expecting::Rule, &mut errors);
    let message = message_expression.and_then(|m| compile_one(m, scope, Expecting::Message, &mut errors));
    match program {
        Some(p) if errors.is_empty() => {
            let transition = p.reads_old_self;
            Ok(Lowered {
                rule: p.metered,
                rule_types: p.types,
                message: message.map(|m| (m.metered, m.types)),
                transition,
            })
        }
        _ => Err(errors),
    }
}

/// One expression, compiled.
struct Parsed {
    /// The estimate of its cost, where the scope has sizes.
    cost: Option<cost::Estimate>,
    metered: Expression,
    depth: usize,
    reads_old_self: bool,
    /// The checked type of each node of the source tree, by id.
    types: std::collections::HashMap<u64, Type>,
}

/// Which of a rule's expressions is compiled, and so the type it must have.
#[derive(Clone, Copy, PartialEq)]
enum Expecting {
    Rule,
    Message,
    /// Any type ([`eval`]).
    Any,
}

/// Compiles one expression and reports what the apiserver would refuse in it. Parsing and
/// the walks over the tree run on a stack sized for them.
fn compile_one(source: &str, scope: &Scope, expecting: Expecting, errors: &mut Vec<String>) -> Option<Parsed> {
    let what = match expecting {
        Expecting::Rule => "compilation failed",
        Expecting::Message => "messageExpression compilation failed",
        Expecting::Any => "compilation failed",
    };
    let code_points = source.chars().count();
    if code_points > depth::MAX_CODE_POINTS {
        errors.push(format!(
            "{what}: ERROR: <input>:-1:0: expression code point size exceeds limit: size: {code_points}, limit {}",
            depth::MAX_CODE_POINTS
        ));
        return None;
    }
    let parser = env().parser().max_recursion_depth(depth::MAX_DEPTH as u16);
    let (expression, source_info) = match depth::parsing(source, || parser.parse_with_source_info(source)) {
        Ok(parsed) => parsed,
        Err(e) => {
            // cel-go indents the source snippet under its message by one space; the crate
            // does not.
            let text = e.to_string().replace("\n| ", "\n | ");
            // The crate's grammar stops at its own recursion limit with a debug dump: say it
            // in cel-go's words, at the place it gives.
            if text.contains("Recursion limit of") {
                let place = text.split_once(": Syntax error").map_or("ERROR: <input>", |(p, _)| p);
                errors.push(format!("{what}: {place}: expression recursion limit exceeded: {}", depth::MAX_DEPTH));
            } else {
                errors.push(format!("{what}: {text}"));
            }
            return None;
        }
    };
    // A tree deeper than the parser's limit (a chain of many operators) is refused too: the
    // interpreter recurses over it.
    let depth = depth::tree_depth(&expression);
    if depth > depth::MAX_DEPTH {
        depth::drop_tree(expression);
        errors.push(format!(
            "{what}: ERROR: <input>:1:1: expression recursion limit exceeded: {} (the expression nests {depth} levels, \
             a chain of that many operators; split it into parts or rules)",
            depth::MAX_DEPTH
        ));
        return None;
    }
    depth::with_stack(depth, || {
        let checked = check::check(&expression, &source_info, &scope.variables());
        if !checked.errors.is_empty() {
            errors.push(format!("{what}: {}", checked.render(source)));
            depth::drop_tree(expression);
            return None;
        }
        let wanted = match expecting {
            Expecting::Rule => Some((Type::Bool, "cel expression must evaluate to a bool")),
            Expecting::Message => Some((Type::String, "messageExpression must evaluate to a string")),
            Expecting::Any => None,
        };
        if let Some((wanted, refused)) = wanted
            && checked.result(&expression) != wanted
        {
            errors.push(refused.to_owned());
            depth::drop_tree(expression);
            return None;
        }
        // Constant patterns of `find` and `findAll` are compiled when the program is made.
        let mut bad_pattern = false;
        visit(&expression, &mut |e| {
            // [quirk] `timestamp` and `duration` name types to the checker, but the planner
            // knows no such types.
            if let Expr::Ident(name) = &e.expr
                && matches!(name.as_str(), "timestamp" | "duration")
                && matches!(checked.types.get(&e.id), Some(Type::Type(Some(_))))
            {
                errors.push(format!("program instantiation failed: reference to undefined type: {name}"));
                bad_pattern = true;
            }
            if let Expr::Call(call) = &e.expr
                && matches!(call.func_name.as_str(), "find" | "findAll")
                && let Some(Expr::Literal(LiteralValue::String(pattern))) = call.args.first().map(|a| &a.expr)
                && let Err(e) = crate::pattern::compile(pattern.inner())
            {
                errors.push(format!("program instantiation failed: {}", e.0));
                bad_pattern = true;
            }
        });
        if bad_pattern {
            depth::drop_tree(expression);
            return None;
        }
        let cost = scope.sizes.as_deref().map(|sizes| cost::estimate(&expression, &checked, sizes));
        // What runs: set and map lists' operators lowered (by the checked types), cel-go's
        // `duration()` and v2 `format()`, then two-variable loops, then the meter's charges.
        let mut lowered = expression;
        list_kinds::lower(&mut lowered, &checked.types);
        library::lower(&mut lowered);
        int_data::lower(&mut lowered, &checked.types);
        comprehensions::two_variables(&mut lowered);
        let metered = meter::instrument(&lowered);
        depth::drop_tree(lowered);
        let reads_old_self = checked.references.iter().any(|r| r == "oldSelf");
        Some(Parsed { cost, metered, depth, reads_old_self, types: checked.types })
    })
}

/// Calls `f` on every node of `e`, parents first.
fn visit(e: &Expression, f: &mut impl FnMut(&Expression)) {
    f(e);
    for child in depth::children(e) {
        visit(child, f);
    }
}

/// `cel.ValidFieldPath`, as the CRD check runs it: `path` (`.a['b'].c`) tokenized as the
/// apiserver's scanner does, each step a declared property of the node reached, or a key of
/// its `additionalProperties`.
#[cfg(feature = "dynamic")]
pub fn valid_field_path(path: &str, schema: &crate::schema::Schema) -> bool {
    let tokens = field_path_tokens(path);
    let mut tokens = tokens.iter().map(String::as_str);
    let mut node = schema;
    let step = |node: &mut &crate::schema::Schema, name: &str| -> bool {
        if !node.properties.is_empty() {
            match node.properties.get(name) {
                Some(child) => {
                    *node = child;
                    true
                }
                None => false,
            }
        } else if let Some(values) = node.additional_properties_schema() {
            *node = values;
            true
        } else {
            false
        }
    };
    while let Some(token) = tokens.next() {
        match token {
            "[" => {
                let Some(quoted) = tokens.next().filter(|t| t.len() >= 2 && t.starts_with('\'') && t.ends_with('\''))
                else {
                    return false;
                };
                let name = quoted[1..quoted.len() - 1].replace("\\'", "'");
                if !step(&mut node, &name) || tokens.next() != Some("]") {
                    return false;
                }
            }
            "." => match tokens.next() {
                Some(name) if step(&mut node, name) => {}
                _ => return false,
            },
            _ => return false,
        }
    }
    true
}

/// The apiserver's field path scanner: `.`, `[` and `]` alone, a single-quoted string whole
/// (delimiters inside it kept), any other run of text up to the next delimiter.
#[cfg(feature = "dynamic")]
fn field_path_tokens(path: &str) -> Vec<String> {
    let bytes = path.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let data = &bytes[start..];
        let len = if data[0] == b'\'' {
            (1..data.len()).find(|&i| data[i] == b'\'' && data[i - 1] != b'\\').map_or(data.len(), |i| i + 1)
        } else if matches!(data[0], b'.' | b'[' | b']') {
            1
        } else {
            data.iter().position(|b| matches!(b, b'.' | b'[' | b']')).unwrap_or(data.len())
        };
        out.push(String::from_utf8_lossy(&data[..len]).into_owned());
        start += len;
    }
    out
}

/// `fieldPath` (§9.6): `.name` and `['quoted']` steps from the rule's node.
pub fn parse_field_path(path: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut rest = path;
    if rest.is_empty() {
        return Ok(out);
    }
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return Err(format!("fieldPath: Invalid value: {path:?}: expected name at position"));
            }
            out.push(after[..end].to_owned());
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix("['") {
            let mut name = String::new();
            let mut chars = after.char_indices();
            let mut end = None;
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => match chars.next() {
                        Some((_, 'n')) => name.push('\n'),
                        Some((_, 't')) => name.push('\t'),
                        Some((_, e)) => name.push(e),
                        None => break,
                    },
                    '\'' => {
                        end = Some(i);
                        break;
                    }
                    c => name.push(c),
                }
            }
            let Some(end) = end.filter(|e| after[e + 1..].starts_with(']')) else {
                return Err(format!("fieldPath: Invalid value: {path:?}: unterminated string"));
            };
            out.push(name);
            rest = &after[end + 2..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let found: String = after.chars().take_while(|c| *c != ']').collect();
            return Err(format!("fieldPath: Invalid value: {path:?}: expected single quoted string but got {found}"));
        } else {
            return Err(format!("fieldPath: Invalid value: {path:?}: expected [ or . at the beginning"));
        }
    }
    Ok(out)
}

/// The evaluation of the rules of one object: issues, the cost budget, ratcheting.
#[derive(Debug)]
pub struct Cx {
    /// What the rules reported, in evaluation order.
    pub issues: Vec<Issue>,
    /// Failures of rules about unchanged places on update: the apiserver returns them as
    /// warnings, not errors (§10).
    pub warnings: Vec<Issue>,
    /// The cost left of the per-object budget.
    budget: u64,
    /// Set when the budget ran out or a call cost too much: no rule runs after that.
    stopped: bool,
    /// Whether the nearest correlatable place above the values now walked is unchanged
    /// (values under atomic lists and sets have no old value of their own).
    unchanged_above: bool,
    /// Whether rules compiled to Rust run natively (else every rule is interpreted: what
    /// the differential tests compare against).
    native: bool,
    /// Set when an interpreted evaluation met rules it could not interpret: their types
    /// have no CEL values (codegen's `interpretable` option was off).
    uninterpretable: bool,
}

impl Default for Cx {
    fn default() -> Self {
        Cx {
            issues: Vec::new(),
            warnings: Vec::new(),
            budget: cost::RUNTIME_BUDGET,
            stopped: false,
            unchanged_above: false,
            native: true,
            uninterpretable: false,
        }
    }
}

impl Cx {
    /// An evaluation that interprets every rule, those compiled to Rust too: the reference
    /// the native code is tested against.
    pub fn interpreted() -> Cx {
        Cx { native: false, ..Cx::default() }
    }

    /// Whether an [`Cx::interpreted`] evaluation ran rules natively, for want of CEL values.
    pub fn uninterpretable(&self) -> bool {
        self.uninterpretable
    }

    /// Whether evaluation has stopped (budget or per-call limit).
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Marks the values about to be walked as uncorrelated, under an unchanged (or changed)
    /// place; returns the previous mark for [`Cx::restore_unchanged_above`].
    pub fn enter_uncorrelated(&mut self, unchanged: bool) -> bool {
        let previous = self.unchanged_above;
        self.unchanged_above = previous || unchanged;
        previous
    }

    /// Undoes [`Cx::enter_uncorrelated`].
    pub fn restore_unchanged_above(&mut self, previous: bool) {
        self.unchanged_above = previous;
    }

    /// Charges an evaluation's cost to the object's budget; when it does not fit, reports
    /// `<what> due to running out of cost budget` and stops evaluation (the apiserver's order:
    /// the budget is looked at before the evaluation's error).
    fn out_of_budget(&mut self, path: &Path, schema_type: &str, cost: meter::Cost, what: &str) -> bool {
        if cost.actual <= self.budget {
            self.budget -= cost.actual;
            return false;
        }
        let detail = format!("{what} due to running out of cost budget, no further validation rules will be run");
        self.issues.push(invalid(path, BadValue::Str(schema_type.to_owned()), detail));
        self.stopped = true;
        true
    }

    /// A messageExpression stopped at the per-call limit: reported as running out of budget.
    fn call_limit_in_message(&mut self, path: &Path, schema_type: &str, cost: meter::Cost) -> bool {
        if !cost.exceeded {
            return false;
        }
        let detail = "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run";
        self.issues.push(invalid(path, BadValue::Str(schema_type.to_owned()), detail.to_owned()));
        self.stopped = true;
        true
    }

    /// Evaluates `rules` for the value at `path`: `value` is `self` (CEL), `old` the
    /// correlated old value (update), `format` the node's string format, `schema_type` its
    /// `type` for the messages.
    pub fn evaluate(
        &mut self,
        rules: &[Rule],
        path: &Path,
        value: Value,
        old: Option<Value>,
        format: Option<&str>,
        schema_type: &str,
    ) {
        if self.stopped || rules.is_empty() {
            return;
        }
        let unchanged_above = self.unchanged_above;
        let bad = failure_value(schema_type, || bad_value_of(&value));
        let mut runs = Interpreted::new(value, old, format, unchanged_above);
        self.run_rules(rules, path, schema_type, bad, &mut runs);
    }

    /// Evaluates `rules` for the typed value at `path`, each natively where it has a
    /// [`native::Native`] (`natives[i]` for `rules[i]`), else interpreted over `to_cel` of the
    /// value (converted only when a rule needs it). The issues, warnings and costs are those
    /// [`Cx::evaluate`] gives.
    ///
    /// `to_cel` is `None` where every rule runs natively (messageExpression included): then
    /// the value's type need not have a CEL value at all, and the rules run natively even in
    /// an [`Cx::interpreted`] evaluation.
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate_typed<T: crate::Validate>(
        &mut self,
        rules: &[Rule],
        natives: &[Option<native::Native<T>>],
        path: &Path,
        value: &T,
        old: Option<&T>,
        to_cel: Option<fn(&T) -> Value>,
        format: Option<&str>,
        schema_type: &str,
    ) {
        if self.stopped || rules.is_empty() {
            return;
        }
        let unchanged_above = self.unchanged_above;
        self.uninterpretable |= !self.native && to_cel.is_none();
        let natives = if self.native || to_cel.is_none() { natives } else { &[] };
        let bad = failure_value(schema_type, || value.cel_bad_value());
        let written_as_float = int_data::written_as_float_under(path);
        let mut runs =
            Typed { value, old, natives, to_cel, format, unchanged_above, written_as_float, interpreted: None };
        self.run_rules(rules, path, schema_type, bad, &mut runs);
    }

    /// The one loop over a node's rules, however they run: compile errors, transition rules
    /// without an old value skipped, the cost budget and the per-call limit, errors in the
    /// apiserver's words, messages, `fieldPath`, reasons and ratcheting.
    fn run_rules(&mut self, rules: &[Rule], path: &Path, schema_type: &str, bad: BadValue, runs: &mut dyn Runs) {
        // A rule that fails prints `bad` (see `failure_value`); a rule that cannot run prints
        // the node's schema type (`Invalid value: "object": ... evaluating rule: ...`).
        // Whether the place is unchanged (ratcheting), asked only when a rule fails.
        let mut unchanged = None;
        for (i, rule) in rules.iter().enumerate() {
            if self.stopped {
                return;
            }
            let way = match runs.way(i, rule) {
                Ok(way) => way,
                Err(e) => {
                    let detail = format!("rule compile error: {e}");
                    self.issues.push(invalid(path, BadValue::Str(schema_type.to_owned()), detail));
                    continue;
                }
            };
            // Transition rules need an old value, unless it is optional.
            if way.transition() && !runs.has_old() && !rule.optional_old_self {
                continue;
            }
            let (result, cost) = runs.rule(i, rule, way);
            if self.out_of_budget(path, schema_type, cost, "validation failed") {
                return;
            }
            if cost.exceeded {
                self.issues.push(invalid(
                    path,
                    BadValue::Str(schema_type.to_owned()),
                    format!(
                        "'{}': no further validation rules will be run due to call cost exceeds limit for rule: {}",
                        meter::LIMIT_EXCEEDED,
                        rule.error_string()
                    ),
                ));
                self.stopped = true;
                return;
            }
            match result {
                Ok(true) => continue,
                Ok(false) => {}
                Err(e) => {
                    let detail = if e.no_such_overload {
                        format!(
                            "'{}': call arguments did not match a supported operator, function or macro signature for rule: {}",
                            e.text,
                            rule.error_string()
                        )
                    } else {
                        format!("{} evaluating rule: {}", e.text, rule.error_string())
                    };
                    self.issues.push(invalid(path, BadValue::Str(schema_type.to_owned()), detail));
                    continue;
                }
            }
            let message = if rule.message_expression.is_some() {
                let (result, cost) = runs.message(i, rule, way);
                // Running out of budget (or past the per-call limit) in a messageExpression
                // stops everything, in its own words.
                if self.out_of_budget(path, schema_type, cost, "messageExpression evaluation failed")
                    || self.call_limit_in_message(path, schema_type, cost)
                {
                    return;
                }
                result.and_then(|s| {
                    let s = s.trim();
                    (!s.is_empty() && s.len() <= cost::MAX_MESSAGE_EXPRESSION_BYTES && !s.contains('\n'))
                        .then(|| s.to_owned())
                })
            } else {
                None
            };
            let detail = message.unwrap_or_else(|| rule.message_or_default());
            // A fieldPath that does not parse kept the rule from compiling (codegen compiled
            // the native ones).
            let steps = rule.field_path.as_deref().and_then(|f| parse_field_path(f).ok()).unwrap_or_default();
            let at = steps.iter().fold(path.clone(), |p, step| p.key(step));
            let issue = match rule.reason.as_deref() {
                Some("FieldValueForbidden") => Issue::new(ErrorType::Forbidden, &at, KEYWORD, BadValue::Omit, detail),
                Some("FieldValueRequired") => Issue::new(ErrorType::Required, &at, KEYWORD, BadValue::Omit, detail),
                // [quirk] The message is dropped for Duplicate.
                Some("FieldValueDuplicate") => Issue::new(ErrorType::Duplicate, &at, KEYWORD, bad.clone(), ""),
                _ => Issue::new(ErrorType::Invalid, &at, KEYWORD, bad.clone(), detail),
            }
            .in_form(PathForm::Field);
            // Ratcheting: a non-transition rule failing on an unchanged place is a warning.
            if !way.transition() && *unchanged.get_or_insert_with(|| runs.unchanged()) {
                self.warnings.push(issue);
            } else {
                self.issues.push(issue);
            }
        }
    }
}

/// A rule's evaluation error: its text, and whether it is a call that matched no signature.
struct RunError {
    text: String,
    no_such_overload: bool,
}

/// How one rule runs.
#[derive(Clone, Copy)]
enum Way<'r> {
    /// Compiled to Rust: nothing is compiled at run time.
    Native { transition: bool },
    /// Interpreted: its programs, compiled on first use.
    Interpreted(&'r Compiled),
}

impl Way<'_> {
    /// Whether the rule reads `oldSelf`.
    fn transition(self) -> bool {
        match self {
            Way::Native { transition } => transition,
            Way::Interpreted(compiled) => compiled.transition,
        }
    }
}

/// How one node's rules run ([`Cx::run_rules`]).
trait Runs {
    /// Whether there is an old value.
    fn has_old(&self) -> bool;
    /// How rule `i` runs, or why it does not compile.
    fn way<'r>(&self, i: usize, rule: &'r Rule) -> Result<Way<'r>, &'r str>;
    /// Runs rule `i`: whether it holds (a non-bool result does not), and its cost.
    fn rule(&mut self, i: usize, rule: &Rule, way: Way<'_>) -> (Result<bool, RunError>, meter::Cost);
    /// Runs rule `i`'s messageExpression: its string, if it gave one, and its cost.
    fn message(&mut self, i: usize, rule: &Rule, way: Way<'_>) -> (Option<String>, meter::Cost);
    /// Whether the value equals the old value (or, without one, the place above it is
    /// unchanged): a failure there is a warning on update.
    fn unchanged(&mut self) -> bool;
}

/// What a failing rule prints as its value (1.36): nothing for an object or a list node, the
/// value itself for any other (`Invalid value: 2147483648: port must be ...`).
fn failure_value(schema_type: &str, value: impl FnOnce() -> BadValue) -> BadValue {
    match schema_type {
        "object" | "array" => BadValue::Omit,
        _ => value(),
    }
}

/// A CEL value as the apiserver holds it in the object it validates (the string of a
/// formatted string, JSON for what a typeless node holds).
fn bad_value_of(v: &Value) -> BadValue {
    match v {
        Value::Int(i) => BadValue::Int(*i),
        Value::UInt(u) => BadValue::Uint(*u),
        Value::Float(f) => BadValue::Float(*f),
        Value::String(s) => BadValue::Str(s.to_string()),
        Value::Bool(b) => BadValue::Bool(*b),
        Value::Null => BadValue::Null,
        other => BadValue::Json(crate::issue::go_json(&value::to_json(other))),
    }
}

/// Rules interpreted over CEL values.
struct Interpreted {
    value: Value,
    old: Option<Value>,
    unchanged_above: bool,
    root: Context<'static, 'static>,
}

impl Interpreted {
    fn new(value: Value, old: Option<Value>, format: Option<&str>, unchanged_above: bool) -> Interpreted {
        let (value, old) = match format {
            Some(f) => (with_format(value, f), old.map(|o| with_format(o, f))),
            None => (value, old),
        };
        let mut root = Context::with_env(env().clone());
        root.add_variable_from_value("self", value.clone());
        Interpreted { value, old, unchanged_above, root }
    }

    /// Runs `expr` of the rule, with `oldSelf` bound when the rule reads it.
    fn run(&self, rule: &Rule, compiled: &Compiled, expr: &Expression) -> (Result<Value, ExecutionError>, meter::Cost) {
        let mut scope = self.root.new_inner_scope();
        if compiled.transition {
            let old_self = match (&self.old, rule.optional_old_self) {
                (o, true) => optional(o.clone()),
                (Some(o), false) => o.clone(),
                (None, false) => unreachable!("invariant: run_rules skips transition rules without an old value"),
            };
            scope.add_variable_from_value("oldSelf", old_self);
        }
        compiled.run(expr, &scope)
    }
}

impl Runs for Interpreted {
    fn has_old(&self) -> bool {
        self.old.is_some()
    }

    fn way<'r>(&self, _: usize, rule: &'r Rule) -> Result<Way<'r>, &'r str> {
        rule.compiled().map(Way::Interpreted)
    }

    fn rule(&mut self, _: usize, rule: &Rule, way: Way<'_>) -> (Result<bool, RunError>, meter::Cost) {
        let Way::Interpreted(compiled) = way else {
            unreachable!("invariant: Interpreted::way gives interpreted ways only")
        };
        let (result, cost) = self.run(rule, compiled, &compiled.metered);
        let result = match result {
            Ok(v) => Ok(v == Value::Bool(true)),
            Err(e) => {
                let text = go_error(&e);
                let no_such_overload =
                    matches!(e, ExecutionError::NoSuchOverload(_)) || text.starts_with("no such overload");
                Err(RunError { text, no_such_overload })
            }
        };
        (result, cost)
    }

    fn message(&mut self, _: usize, rule: &Rule, way: Way<'_>) -> (Option<String>, meter::Cost) {
        let Way::Interpreted(compiled) = way else {
            unreachable!("invariant: Interpreted::way gives interpreted ways only")
        };
        let Some(m) = &compiled.message_expression else { return (None, meter::Cost { actual: 0, exceeded: false }) };
        let (result, cost) = self.run(rule, compiled, m);
        match result {
            Ok(Value::String(s)) => (Some(s.to_string()), cost),
            _ => (None, cost),
        }
    }

    fn unchanged(&mut self) -> bool {
        match &self.old {
            Some(o) => deep_equal(o, &self.value),
            None => self.unchanged_above,
        }
    }
}

/// Rules over a typed value: native where compiled to Rust, else interpreted over its CEL
/// value, made on first need.
struct Typed<'a, T> {
    value: &'a T,
    old: Option<&'a T>,
    natives: &'a [Option<native::Native<T>>],
    to_cel: Option<fn(&T) -> Value>,
    format: Option<&'a str>,
    unchanged_above: bool,
    /// The integers under the node the document wrote as floats (relative pointers; almost
    /// always none): see [`with_written_as_float`].
    written_as_float: Vec<String>,
    interpreted: Option<Interpreted>,
}

impl<T> Typed<'_, T> {
    fn native(&self, i: usize) -> Option<native::Native<T>> {
        self.natives.get(i).copied().flatten()
    }

    fn interpreted(&mut self) -> &mut Interpreted {
        let (value, old, format, above) = (self.value, self.old, self.format, self.unchanged_above);
        let to_cel = self.to_cel.expect("invariant: `way` and `message` interpret only where there is to_cel");
        let floats = &self.written_as_float;
        self.interpreted.get_or_insert_with(|| {
            let value = if floats.is_empty() { to_cel(value) } else { int_data::as_written(to_cel(value), floats) };
            Interpreted::new(value, old.map(to_cel), format, above)
        })
    }
}

impl<T: crate::Validate> Runs for Typed<'_, T> {
    fn has_old(&self) -> bool {
        self.old.is_some()
    }

    fn way<'r>(&self, i: usize, rule: &'r Rule) -> Result<Way<'r>, &'r str> {
        match self.native(i) {
            Some(native) => Ok(Way::Native { transition: native.transition }),
            // Derived code never asks this (a value without CEL values has native rules only).
            None if self.to_cel.is_none() => Err("the value has no CEL value to interpret the rule over"),
            None => rule.compiled().map(Way::Interpreted),
        }
    }

    fn rule(&mut self, i: usize, rule: &Rule, way: Way<'_>) -> (Result<bool, RunError>, meter::Cost) {
        let Some(native) = self.native(i) else {
            return self.interpreted().rule(i, rule, way);
        };
        let mut meter = native::Meter::new(cost::PER_CALL_LIMIT).written_as_float(self.written_as_float.clone());
        let result = (native.rule)(self.value, self.old, &mut meter);
        let result = result.map_err(|e| RunError { text: e.text(), no_such_overload: e.is_no_such_overload() });
        (result, meter.cost())
    }

    fn message(&mut self, i: usize, rule: &Rule, way: Way<'_>) -> (Option<String>, meter::Cost) {
        let Some(message) = self.native(i).and_then(|n| n.message) else {
            // A native rule with an interpreted messageExpression (hand-written attributes):
            // the message compiles now.
            let way = match (way, rule.compiled()) {
                (Way::Native { .. }, Ok(compiled)) if self.to_cel.is_some() => Way::Interpreted(compiled),
                (Way::Native { .. }, _) => return (None, meter::Cost { actual: 0, exceeded: false }),
                (way, _) => way,
            };
            return self.interpreted().message(i, rule, way);
        };
        let mut meter = native::Meter::new(cost::PER_CALL_LIMIT).written_as_float(self.written_as_float.clone());
        let result = message(self.value, self.old, &mut meter);
        (result.ok(), meter.cost())
    }

    /// The typed values compared, as the apiserver compares the stored objects (not their
    /// CEL values: two texts of one time are different values to it).
    fn unchanged(&mut self) -> bool {
        match self.old {
            Some(old) => {
                self.value.unchanged_at(old, &crate::path::At::ROOT, &mut crate::ratchet::Unchanged::default())
            }
            None => self.unchanged_above,
        }
    }
}

/// The keyword of CEL issues.
pub const KEYWORD: &str = "x-kubernetes-validations";

fn invalid(path: &Path, value: BadValue, detail: String) -> Issue {
    Issue::new(ErrorType::Invalid, path, KEYWORD, value, detail).in_form(PathForm::Field)
}

fn optional(v: Option<Value>) -> Value {
    let o = match v {
        Some(v) => cel::objects::OptionalValue::of(v),
        None => cel::objects::OptionalValue::none(),
    };
    Value::Opaque(Arc::new(o))
}

/// An evaluation error in cel-go's words (`no such key: x`, `index out of bounds: 3`, ...).
fn go_error(e: &ExecutionError) -> String {
    match e {
        ExecutionError::NoSuchKey(k) => format!("no such key: {k}"),
        ExecutionError::NoSuchOverload(_) | ExecutionError::UnsupportedBinaryOperator(..) => "no such overload".into(),
        ExecutionError::IndexOutOfBounds(i) => format!("index out of bounds: {}", plain(i)),
        ExecutionError::DivisionByZero(_) => "division by zero".into(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".into(),
        ExecutionError::Overflow(..) => "integer overflow".into(),
        // Conversions: cel-go's words for a string that is not a number.
        ExecutionError::FunctionError { function, message } if message.starts_with("string parse error") => {
            format!("type conversion error from 'string' to '{function}'")
        }
        ExecutionError::FunctionError { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

fn plain(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::String(s) => s.to_string(),
        Value::Bool(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}
