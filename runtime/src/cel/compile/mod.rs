//! Compiling a rule, the pipeline over every stage below: parsed, checked against its scope
//! (`crate::cel::front`), lowered, metered (`instrument`), its cost estimated
//! (`crate::cel::cost`), and run in the environment of the library's functions (`env`); and the
//! `fieldPath` of a rule read as the apiserver reads it.

pub(crate) mod env;
pub(crate) mod instrument;

use std::sync::Arc;

use cel::common::ast::{EntryExpr, Expr, LiteralValue};
use cel::parser::Expression;
use cel::{Context, ExecutionError, Value};

use crate::cel::front::check;
use crate::cel::lowering::{comprehensions, int_data, list_kinds, list_operands};
use crate::cel::vocabulary::types::{self, Type};
use crate::cel::vocabulary::{depth, limits, meter};
use crate::cel::{cost, library};
use env::env;

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

/// Compiles a rule (and its message expression) as the apiserver does at CRD time: it parses,
/// it type-checks against `scope` with the 1.36 environment's declarations (see [`check`]),
/// the rule is a `bool` and the message expression a `string`, constant arguments are valid.
/// Every problem is returned, in the apiserver's words. (A `fieldPath` is no part of it: the
/// apiserver's compilation normalizes it where it can and never fails on it; the CRD check
/// says where it is no valid path.)
pub fn check_rule(rule: &str, message_expression: Option<&str>, scope: &Scope) -> Result<Compiled, Vec<String>> {
    let (rule, message_expression) = compile_rule(rule, message_expression, scope).map_err(|refused| refused.errors)?;
    Ok(Compiled {
        message_refused: false,
        max_cost: rule.cost.map(|c| c.max),
        message_max_cost: message_expression.as_ref().and_then(|m| m.cost).map(|c| c.max),
        metered: rule.metered,
        depth: rule.depth.max(message_expression.as_ref().map_or(0, |m| m.depth)),
        message_expression: message_expression.map(|m| m.metered),
        transition: rule.reads_old_self,
    })
}

/// A rule, its messageExpression and its fieldPath, each checked: the two compiled
/// expressions, or every problem found in any of the three (with what the rule itself gave,
/// where only its messageExpression or fieldPath failed).
fn compile_rule(
    rule: &str,
    message_expression: Option<&str>,
    scope: &Scope,
) -> Result<(Parsed, Option<Parsed>), RefusedRule> {
    let mut errors = Vec::new();
    let program = compile_one(rule, scope, Expecting::Rule, &mut errors);
    // The apiserver compiles the messageExpression only once the rule has compiled, and an
    // empty one is none.
    let message = message_expression
        .filter(|m| program.is_some() && !m.is_empty())
        .and_then(|m| compile_one(m, scope, Expecting::Message, &mut errors));
    match program {
        Some(program) if errors.is_empty() => Ok((program, message)),
        program => {
            if let Some(m) = message {
                depth::drop_tree(m.metered);
            }
            Err(RefusedRule::of(errors, program))
        }
    }
}

/// A rule the apiserver refuses: every problem found, and what its compilation still gives
/// where the rule itself compiled (its messageExpression or fieldPath failed): the rule's
/// estimated cost counts toward the schema's total, and its use of `oldSelf` is checked.
pub struct RefusedRule {
    /// The problems, in the order found.
    pub errors: Vec<String>,
    /// The rule's own estimated cost, where it compiled and the scope has sizes.
    pub max_cost: Option<u64>,
    /// Whether the rule, compiled, reads `oldSelf`.
    pub transition: bool,
}

impl RefusedRule {
    fn of(errors: Vec<String>, program: Option<Parsed>) -> RefusedRule {
        let (max_cost, transition) = program.map_or((None, false), |p| {
            let out = (p.cost.map(|c| c.max), p.reads_old_self);
            depth::drop_tree(p.metered);
            out
        });
        RefusedRule { errors, max_cost, transition }
    }
}

/// A rule as codegen compiles it to Rust ([`crate::cel::native`]): the trees the interpreter runs
/// (lowered and metered, the lowering stage's `instrument`), with the checked type of each node that
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

/// A rule the apiserver accepts, checked once for both uses: its estimated costs, as
/// [`check_rule`] reports them, and its trees for code generation ([`Lowered`]).
pub struct CheckedRule {
    /// The most the rule can cost (`MaxCost`), where the scope has sizes.
    pub max_cost: Option<u64>,
    /// The most the messageExpression can cost.
    pub message_max_cost: Option<u64>,
    /// The checked, lowered and metered trees.
    pub lowered: Lowered,
}

/// [`check_rule`], keeping the trees and their types ([`CheckedRule`]): what the CRD checks
/// call, so that code generation compiles each rule once.
pub fn check_and_lower(
    rule: &str,
    message_expression: Option<&str>,
    scope: &Scope,
) -> Result<CheckedRule, RefusedRule> {
    let (p, message) = compile_rule(rule, message_expression, scope)?;
    Ok(CheckedRule {
        max_cost: p.cost.map(|c| c.max),
        message_max_cost: message.as_ref().and_then(|m| m.cost).map(|c| c.max),
        lowered: Lowered {
            transition: p.reads_old_self,
            rule: p.metered,
            rule_types: p.types,
            message: message.map(|m| (m.metered, m.types)),
        },
    })
}

/// [`check_and_lower`] of a rule and its messageExpression alone: the trees for [`Lowered`].
pub fn lower(rule: &str, message_expression: Option<&str>, scope: &Scope) -> Result<Lowered, Vec<String>> {
    check_and_lower(rule, message_expression, scope).map(|c| c.lowered).map_err(|r| r.errors)
}

/// How many expressions [`compile_one`] has compiled in this process: what a test of "each rule
/// is compiled once per generation" counts.
#[doc(hidden)]
pub fn compile_count() -> usize {
    COMPILES.load(std::sync::atomic::Ordering::Relaxed)
}

static COMPILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// One expression, compiled.
pub(crate) struct Parsed {
    /// The estimate of its cost, where the scope has sizes.
    pub(crate) cost: Option<cost::Estimate>,
    pub(crate) metered: Expression,
    pub(crate) depth: usize,
    pub(crate) reads_old_self: bool,
    /// The checked type of each node of the source tree, by id.
    types: std::collections::HashMap<u64, Type>,
}

/// Which of a rule's expressions is compiled, and so the type it must have.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Expecting {
    Rule,
    Message,
    /// Any type ([`eval`]).
    Any,
}

/// Compiles one expression and reports what the apiserver would refuse in it. Parsing and
/// the walks over the tree run on a stack sized for them.
pub(crate) fn compile_one(
    source: &str,
    scope: &Scope,
    expecting: Expecting,
    errors: &mut Vec<String>,
) -> Option<Parsed> {
    COMPILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let what = match expecting {
        Expecting::Rule => "compilation failed",
        Expecting::Message => "messageExpression compilation failed",
        Expecting::Any => "compilation failed",
    };
    let code_points = source.chars().count();
    if code_points > limits::MAX_CODE_POINTS {
        errors.push(format!(
            "{what}: ERROR: <input>:-1:0: expression code point size exceeds limit: size: {code_points}, limit {}",
            limits::MAX_CODE_POINTS
        ));
        return None;
    }
    let parser = env().parser().max_recursion_depth(limits::MAX_DEPTH as u16);
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
                errors.push(format!("{what}: {place}: expression recursion limit exceeded: {}", limits::MAX_DEPTH));
            } else {
                errors.push(format!("{what}: {text}"));
            }
            return None;
        }
    };
    // A tree deeper than the parser's limit (a chain of many operators) is refused too: the
    // interpreter recurses over it.
    let depth = depth::tree_depth(&expression);
    if depth > limits::MAX_DEPTH {
        depth::drop_tree(expression);
        errors.push(format!(
            "{what}: ERROR: <input>:1:1: expression recursion limit exceeded: {} (the expression nests {depth} levels, \
             a chain of that many operators; split it into parts or rules)",
            limits::MAX_DEPTH
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
                && let Err(e) = crate::check::pattern::compile(pattern.inner())
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
        // `duration()` and v2 `format()`, then two-variable loops, then the meter's charges; then
        // the calls resolved.
        let mut lowered = expression;
        list_kinds::lower(&mut lowered, &checked.types);
        library::lower(&mut lowered);
        if let Err(e) = constant(&lowered) {
            errors.push(format!("program instantiation failed: {e}"));
            depth::drop_tree(lowered);
            return None;
        }
        int_data::lower(&mut lowered, &checked.types);
        list_operands::lower(&mut lowered, &checked.types);
        comprehensions::two_variables(&mut lowered);
        let mut metered = instrument::instrument(&lowered);
        depth::drop_tree(lowered);
        // What each call calls, worked out once rather than on every evaluation.
        env().resolve_calls(&mut metered);
        let reads_old_self = checked.references.iter().any(|r| r == "oldSelf");
        Some(Parsed { cost, metered, depth, reads_old_self, types: checked.types })
    })
}

/// Whether `e` is a constant to cel-go's planner (`decOptimize`): a literal, a list or map
/// literal of constants, or a type conversion of a constant, which the planner evaluates when
/// it makes the program. A conversion that fails there fails the program (`int('x')`, even
/// where `||` would never evaluate it): the error is returned. Run on the tree the interpreter
/// runs, before the meter's calls.
fn constant(e: &Expression) -> Result<bool, String> {
    const CONVERSIONS: [&str; 12] = [
        "bool",
        "bytes",
        "double",
        "duration",
        "dyn",
        "int",
        "string",
        "timestamp",
        "type",
        "uint",
        library::duration::GO_DURATION,
        library::standard::GO_STRING,
    ];
    let mut all = true;
    for child in depth::children(e) {
        all &= constant(child)?;
    }
    Ok(match &e.expr {
        Expr::Literal(_) => true,
        Expr::List(l) => all && l.optional_indices.is_empty(),
        Expr::Map(m) => {
            all && m.entries.iter().all(|entry| matches!(&entry.expr, EntryExpr::MapEntry(m) if !m.optional))
        }
        Expr::Call(c)
            if all && c.target.is_none() && c.args.len() == 1 && CONVERSIONS.contains(&c.func_name.as_str()) =>
        {
            let cx = cel::Context::with_env(env().clone());
            cel::objects::Value::resolve(e, &cx).map_err(|e| library::words::go_error(&e))?;
            true
        }
        _ => false,
    })
}

/// Calls `f` on every node of `e`, parents first.
fn visit(e: &Expression, f: &mut impl FnMut(&Expression)) {
    f(e);
    for child in depth::children(e) {
        visit(child, f);
    }
}

/// One step of a rule's `fieldPath` as the apiserver normalizes it (`ValidFieldPath`): a
/// property of an object, or a key of a map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldPathStep {
    /// A declared property (`.a`, `['a']` on an object).
    Property(String),
    /// A key of `additionalProperties` (`.k`, `['k']` on a map).
    Key(String),
}

/// What a node of the tree a `fieldPath` is resolved in offers its next step.
pub(crate) enum FieldPathNode<N> {
    /// Declared properties (`properties`), by name.
    Properties(N),
    /// Values of any key (`additionalProperties`).
    Values(N),
    /// Neither: no step leads on.
    Leaf,
}

/// `cel.ValidFieldPath`: `path` (`.a['b'].c`) tokenized as the apiserver's scanner does, each
/// step a declared property of the node reached, or a key of its `additionalProperties`;
/// `node` says what a node offers and `child` finds a property. The steps, or why not.
pub(crate) fn resolve_field_path<'n, N: 'n>(
    path: &str,
    root: &'n N,
    node: impl Fn(&'n N) -> FieldPathNode<&'n N>,
    child: impl Fn(&'n N, &str) -> Option<&'n N>,
) -> Result<(Vec<FieldPathStep>, &'n N), String> {
    let tokens = field_path_tokens(path);
    let mut tokens = tokens.iter().map(String::as_str);
    let mut at = root;
    let mut steps = Vec::new();
    let mut step = |at: &mut &'n N, name: String| -> Result<(), String> {
        match node(at) {
            FieldPathNode::Properties(n) => {
                *at = child(n, &name).ok_or("does not refer to a valid field")?;
                steps.push(FieldPathStep::Property(name));
            }
            FieldPathNode::Values(values) => {
                *at = values;
                steps.push(FieldPathStep::Key(name));
            }
            FieldPathNode::Leaf => return Err("does not refer to a valid field".to_owned()),
        }
        Ok(())
    };
    while let Some(token) = tokens.next() {
        match token {
            "[" => {
                let quoted = tokens.next().ok_or("unexpected end of JSON path")?;
                if quoted.len() < 2 || !quoted.starts_with('\'') || !quoted.ends_with('\'') {
                    return Err(format!("expected single quoted string but got {quoted}"));
                }
                let name = unescape_single_quote(&quoted[1..quoted.len() - 1])?;
                step(&mut at, name)?;
                match tokens.next() {
                    Some("]") => {}
                    Some(t) => return Err(format!("expected ] but got {t}")),
                    None => return Err("unexpected end of JSON path".to_owned()),
                }
            }
            "." => step(&mut at, tokens.next().ok_or("unexpected end of JSON path")?.to_owned())?,
            t => return Err(format!("expected [ or . but got: {t}")),
        }
    }
    Ok((steps, at))
}

/// The apiserver's `unescapeSingleQuote`: `\a \b \f \n \r \t \v \' \\`, anything else
/// escaped an error.
fn unescape_single_quote(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('v') => out.push('\u{b}'),
            Some('\'') => out.push('\''),
            Some('\\') => out.push('\\'),
            // Go's `\\.` does not match a backslash before a line break (or at the end).
            Some('\n') => out.push_str("\\\n"),
            None => out.push('\\'),
            Some(e) => return Err(format!("invalid string literal: invalid escape char \\{e}")),
        }
    }
    Ok(out)
}

/// `cel.ValidFieldPath` over a structural schema, as the CRD check runs it.
#[cfg(feature = "dynamic")]
pub fn valid_field_path(path: &str, schema: &crate::schema::Schema) -> bool {
    field_path_schema(path, schema, true).is_ok()
}

/// `cel.ValidFieldPath` over a structural schema: the path's steps and the node it leads to,
/// or why it leads nowhere, in the apiserver's words. `brackets`: whether `['key']` steps are
/// allowed (`WithFieldPathAllowArrayNotation`; selectable fields allow none).
#[cfg(feature = "dynamic")]
pub fn field_path_schema<'s>(
    path: &str,
    schema: &'s crate::schema::Schema,
    brackets: bool,
) -> Result<(Vec<FieldPathStep>, &'s crate::schema::Schema), String> {
    if !brackets && field_path_tokens(path).iter().any(|t| t == "[") {
        // The scanner meets a `[` before anything after it counts.
        let before = &path[..path.find('[').unwrap_or(0)];
        field_path_schema(before, schema, true)?;
        return Err("array notation is not allowed".into());
    }
    use crate::schema::Schema;
    fn node(s: &Schema) -> FieldPathNode<&Schema> {
        if !s.properties.is_empty() {
            FieldPathNode::Properties(s)
        } else if let Some(values) = s.additional_properties_schema() {
            FieldPathNode::Values(values)
        } else {
            FieldPathNode::Leaf
        }
    }
    fn child<'s>(s: &'s Schema, name: &str) -> Option<&'s Schema> {
        s.properties.get(name)
    }
    resolve_field_path(path, schema, node, child)
}

/// A rule's `fieldPath` resolved in the type of its node, as the apiserver resolves it in the
/// schema when it compiles the rule: `None` where it leads nowhere (or the type says too little:
/// `dyn`), and the rule's errors stay at its node.
pub fn field_path_steps(path: &str, self_type: &Type) -> Option<Vec<FieldPathStep>> {
    fn node(t: &Type) -> FieldPathNode<&Type> {
        match t {
            Type::Object(_) => FieldPathNode::Properties(t),
            Type::Map(_, values) => FieldPathNode::Values(values),
            _ => FieldPathNode::Leaf,
        }
    }
    fn child<'t>(t: &'t Type, name: &str) -> Option<&'t Type> {
        match t {
            Type::Object(o) => crate::schema::cel_name::escape(name).and_then(|e| o.fields.get(&e)),
            _ => None,
        }
    }
    resolve_field_path(path, self_type, node, child).ok().map(|(steps, _)| steps)
}

/// The apiserver's field path scanner: `.`, `[` and `]` alone, a single-quoted string whole
/// (delimiters inside it kept), any other run of text up to the next delimiter.
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

/// A rule's programs.
#[derive(Debug)]
pub struct Compiled {
    /// The most the rule can cost, as the apiserver estimates it over the scope's sizes
    /// (`MaxCost`); `None` where the scope has none.
    pub max_cost: Option<u64>,
    /// The most the messageExpression can cost (`MessageExpressionMaxCost`).
    pub message_max_cost: Option<u64>,
    /// The rule with the meter's calls ([`instrument::instrument`]): what runs.
    pub(crate) metered: Expression,
    /// The messageExpression, metered.
    pub(crate) message_expression: Option<Expression>,
    /// Whether the rule's messageExpression did not compile and was left out: the apiserver's
    /// compilation stops there, before it reads the rule's `fieldPath`, so a failure is
    /// reported at the rule's node.
    pub(crate) message_refused: bool,
    /// The deeper of the two trees (the stack their walks need).
    pub(crate) depth: usize,
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
    pub(crate) fn run(&self, expr: &Expression, scope: &Context) -> (Result<Value, ExecutionError>, meter::Cost) {
        depth::with_stack(self.depth, || meter::metered(limits::PER_CALL_LIMIT, || Value::resolve(expr, scope)))
    }
}
