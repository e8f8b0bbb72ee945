//! The type checker: cel-go's `checker` over the `cel` crate's parsed tree, with the
//! declarations of the 1.36 environment's functions (module `functions`) and the type of
//! `self` from [`types`](crate::cel::vocabulary::types). It gives each expression its type and reports, in cel-go's words
//! and at cel-go's places, what the apiserver refuses at CRD time: undeclared references,
//! undefined fields, calls no overload accepts, and then (the 1.29 AST validators) mixed
//! list and map literals and constant `duration`/`timestamp`/`matches` arguments that do not
//! parse.
//!
//! Type inference follows cel-go (`checker/checker.go`, `checker/types.go`) step by step:
//! overloads are tried in declaration order with fresh type variables, the first match gives
//! the type, and a second match of another type makes it `dyn`.

use std::collections::HashMap;
use std::sync::Arc;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue, SourceInfo};

use crate::cel::front::functions::{self, Overload};
use crate::cel::vocabulary::types::{ListKind, Type};

/// A checked expression: the type of each node by id, and the problems found.
#[derive(Debug, Default)]
pub struct Checked {
    /// The type of each node, by id.
    pub types: HashMap<u64, Type>,
    /// The declared variables the expression reads (`self`, `oldSelf`), not counting
    /// comprehension variables that shadow them.
    pub references: Vec<String>,
    /// The overloads each call matched (cel-go's reference map), by the call's id: what the
    /// cost estimator prices. A namespaced call (`sets.contains(a, b)`) resolves to a global
    /// function although the tree has it as a member call on `sets`.
    pub(crate) overloads: HashMap<u64, Vec<&'static Overload>>,
    /// `(source offset, message)`, in the order found.
    pub errors: Vec<(Option<u32>, String)>,
}

impl Checked {
    /// The type of the whole expression, type variables bound or `dyn`.
    pub fn result(&self, expr: &IdedExpr) -> Type {
        self.types.get(&expr.id).cloned().unwrap_or(Type::Dyn)
    }

    /// The errors as cel-go prints them (`ERROR: <input>:1:6: undefined field 'x'` with the
    /// line and a caret), sorted by place, one per line.
    pub fn render(&self, source: &str) -> String {
        render_errors(source, &self.errors)
    }
}

/// cel-go's `Errors.ToDisplayString`.
pub(crate) fn render_errors(source: &str, errors: &[(Option<u32>, String)]) -> String {
    let mut placed: Vec<(usize, usize, &str)> = errors
        .iter()
        .map(|(offset, message)| {
            let (line, column) = offset.map_or((0, 0), |o| line_column(source, o as usize));
            (line, column, message.as_str())
        })
        .collect();
    placed.sort_by_key(|(l, c, _)| (*l, *c));
    let mut out = Vec::new();
    for (line, column, message) in placed {
        if line == 0 {
            out.push(format!("ERROR: <input>:-1:0: {message}"));
            continue;
        }
        let mut text = format!("ERROR: <input>:{line}:{}: {message}", column + 1);
        if let Some(snippet) = source.split('\n').nth(line - 1) {
            let snippet = snippet.replace('\t', " ");
            text.push_str("\n | ");
            text.push_str(&snippet);
            text.push_str("\n | ");
            let mut chars = snippet.chars();
            for _ in 0..column {
                match chars.next() {
                    Some(c) if c.len_utf8() > 1 => text.push('\u{ff0e}'),
                    Some(_) => text.push('.'),
                    None => break,
                }
            }
            text.push(if chars.next().is_some_and(|c| c.len_utf8() > 1) { '\u{ff3e}' } else { '^' });
        }
        out.push(text);
    }
    out.join("\n")
}

/// 1-based line and 0-based column (in code points) of a code-point offset.
fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let (mut line, mut column) = (1, 0);
    for c in source.chars().take(offset) {
        if c == '\n' {
            line += 1;
            column = 0;
        } else {
            column += 1;
        }
    }
    (line, column)
}

/// Checks `expr` with the variables `vars` (besides the type identifiers every expression
/// sees). It recurses as deep as the tree: [`check_rule`](crate::cel::check_rule) calls it on a
/// stack sized for that.
pub fn check(expr: &IdedExpr, source: &SourceInfo, vars: &[(&str, Type)]) -> Checked {
    let mut c = Checker {
        source,
        scopes: vars.iter().map(|(n, t)| ((*n).to_owned(), t.clone())).collect(),
        mapping: Mapping::default(),
        out: Checked::default(),
        next_var: 0,
        place: None,
        declared: vars.len(),
    };
    c.check(expr);
    // Type variables left free become `dyn`.
    let types = std::mem::take(&mut c.out.types);
    c.out.types = types.into_iter().map(|(id, t)| (id, substitute(&c.mapping, &t, true))).collect();
    if c.out.errors.is_empty() {
        validate_literals(expr, &c.out.types, source, &mut c.out.errors, None, false);
    }
    c.out
}

/// The type identifiers (`int`, `list`, `null_type`, ...), declared in every scope.
fn type_identifier(name: &str) -> Option<Type> {
    Some(Type::type_of(match name {
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "bool" => Type::Bool,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "list" => Type::list(Type::Dyn),
        "map" => Type::map(Type::Dyn, Type::Dyn),
        "null_type" => Type::Null,
        "type" => Type::Type(None),
        "optional_type" => Type::optional(Type::Dyn),
        "google.protobuf.Timestamp" => Type::Timestamp,
        "google.protobuf.Duration" => Type::Duration,
        // [quirk] These check, and then fail when the program is made (`reference to
        // undefined type`): see `compile_one`.
        "timestamp" => Type::Timestamp,
        "duration" => Type::Duration,
        // The 1.36 libraries declare these two types; the others (`kubernetes.URL`, ...) are
        // not identifiers.
        "net.IP" | "net.CIDR" => crate::cel::vocabulary::types::parse(name),
        _ => return None,
    }))
}

/// Type-variable bindings (cel-go's `mapping`).
#[derive(Clone, Debug, Default)]
struct Mapping(HashMap<Arc<str>, Type>);

impl Mapping {
    fn find(&self, t: &Type) -> Option<&Type> {
        match t {
            Type::Param(name) => self.0.get(name),
            _ => None,
        }
    }
}

struct Checker<'a> {
    source: &'a SourceInfo,
    /// Variables, innermost last.
    scopes: Vec<(String, Type)>,
    mapping: Mapping,
    out: Checked,
    next_var: usize,
    /// The offset of the nearest checked node that has one (macro-made nodes have none).
    place: Option<u32>,
    /// How many of the scopes are the declared variables (the rest are comprehensions').
    declared: usize,
}

impl Checker<'_> {
    fn check(&mut self, e: &IdedExpr) {
        let outer = self.place;
        if let Some((start, _)) = self.source.offset_for(e.id) {
            self.place = Some(start);
        }
        self.check_kind(e);
        self.place = outer;
    }

    fn check_kind(&mut self, e: &IdedExpr) {
        match &e.expr {
            Expr::Literal(l) => {
                let t = match l {
                    LiteralValue::Boolean(_) => Type::Bool,
                    LiteralValue::Bytes(_) => Type::Bytes,
                    LiteralValue::Double(_) => Type::Double,
                    LiteralValue::Int(_) => Type::Int,
                    LiteralValue::Null => Type::Null,
                    LiteralValue::String(_) => Type::String,
                    LiteralValue::UInt(_) => Type::Uint,
                };
                self.set(e, t);
            }
            Expr::Ident(name) => {
                let found = self.scopes.iter().rposition(|(n, _)| n == name);
                if let Some(i) = found
                    && i < self.declared
                    && !self.out.references.contains(name)
                {
                    self.out.references.push(name.clone());
                }
                match found.map(|i| self.scopes[i].1.clone()).or_else(|| type_identifier(name)) {
                    Some(t) => self.set(e, t),
                    None => {
                        self.error(e, format!("undeclared reference to '{name}' (in container '')"));
                        self.set(e, Type::Error);
                    }
                }
            }
            // A qualified type identifier (`net.IP`), unless its first part is a variable.
            Expr::Select(s)
                if !s.test
                    && let Some(t) = qualified_name(e)
                        .filter(|q| !self.scopes.iter().any(|(n, _)| q.split('.').next() == Some(n.as_str())))
                        .and_then(|q| type_identifier(&q)) =>
            {
                self.set(e, t);
            }
            Expr::Select(s) => {
                let mut t = self.select_field(e, &s.operand, &s.field, false);
                if s.test {
                    t = Type::Bool;
                }
                let t = substitute(&self.mapping, &t, false);
                self.set(e, t);
            }
            Expr::Call(call) => self.call(e, call),
            Expr::List(list) => {
                let mut elems: Option<Type> = None;
                for (i, el) in list.elements.iter().enumerate() {
                    self.check(el);
                    let mut t = self.type_of(el);
                    if list.optional_indices.contains(&i) {
                        match t.optional_value() {
                            Some(v) => t = v.clone(),
                            None if !t.is_dyn_or_error() => {
                                self.error(el, mismatch(&Type::optional(t.clone()), &t));
                            }
                            None => {}
                        }
                    }
                    elems = Some(self.join(elems, t));
                }
                let elems = elems.unwrap_or_else(|| self.new_var());
                self.set(e, Type::list(elems));
            }
            Expr::Map(map) => {
                let (mut keys, mut values): (Option<Type>, Option<Type>) = (None, None);
                for entry in &map.entries {
                    let EntryExpr::MapEntry(entry) = &entry.expr else { continue };
                    self.check(&entry.key);
                    let k = self.type_of(&entry.key);
                    keys = Some(self.join(keys, k));
                    self.check(&entry.value);
                    let mut v = self.type_of(&entry.value);
                    if entry.optional {
                        match v.optional_value() {
                            Some(inner) => v = inner.clone(),
                            None if !v.is_dyn_or_error() => {
                                self.error(&entry.value, mismatch(&Type::optional(v.clone()), &v));
                            }
                            None => {}
                        }
                    }
                    values = Some(self.join(values, v));
                }
                let (k, v) = match (keys, values) {
                    (Some(k), Some(v)) => (k, v),
                    _ => (self.new_var(), self.new_var()),
                };
                self.set(e, Type::map(k, v));
            }
            Expr::Struct(s) => {
                // No message types are declared in the apiserver's environment.
                self.error(e, format!("undeclared reference to '{}' (in container '')", s.type_name));
                for entry in &s.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        self.check(&f.value);
                    }
                }
                self.set(e, Type::Error);
            }
            Expr::Comprehension(c) => {
                self.check(&c.iter_range);
                self.check(&c.accu_init);
                let range = substitute(&self.mapping, &self.type_of(&c.iter_range), false);
                let accu = self.type_of(&c.accu_init);
                let (var, var2) = match &range {
                    Type::List(elem, _) if c.iter_var2.is_some() => (Type::Int, Type::clone(elem)),
                    Type::List(elem, _) => (Type::clone(elem), Type::Dyn),
                    Type::Map(k, v) => (Type::clone(k), Type::clone(v)),
                    Type::Dyn | Type::Error | Type::Param(_) => {
                        self.assignable(&Type::Dyn, &range);
                        (Type::Dyn, Type::Dyn)
                    }
                    other => {
                        self.error(
                            &c.iter_range,
                            format!(
                                "expression of type '{other}' cannot be range of a comprehension (must be list, map, or dynamic)"
                            ),
                        );
                        (Type::Error, Type::Error)
                    }
                };
                let outer = self.scopes.len();
                self.scopes.push((c.accu_var.clone(), accu.clone()));
                let loop_scope = self.scopes.len();
                self.scopes.push((c.iter_var.clone(), var));
                if let Some(v2) = &c.iter_var2 {
                    self.scopes.push((v2.clone(), var2));
                }
                self.check(&c.loop_cond);
                self.assert_type(&c.loop_cond, &Type::Bool);
                self.check(&c.loop_step);
                self.assert_type(&c.loop_step, &accu);
                self.scopes.truncate(loop_scope);
                self.check(&c.result);
                self.scopes.truncate(outer);
                let t = substitute(&self.mapping, &self.type_of(&c.result), false);
                self.set(e, t);
            }
            Expr::Unspecified => self.set(e, Type::Error),
        }
    }

    fn call(&mut self, e: &IdedExpr, call: &cel::common::ast::CallExpr) {
        let name = call.func_name.as_str();
        if name == "_?._" {
            return self.optional_select(e, call);
        }
        for a in &call.args {
            self.check(a);
        }
        let Some(target) = call.target.as_deref() else {
            return match functions::lookup(name) {
                Some(overloads) => self.resolve(e, name, overloads, None, &call.args),
                None => {
                    self.error(e, format!("undeclared reference to '{name}' (in container '')"));
                    self.set(e, Type::Error);
                }
            };
        };
        // `a.b.f()` is the function `a.b.f` when there is one (`optional.none()`).
        if let Some(qualified) = qualified_name(target)
            && !self.scopes.iter().any(|(n, _)| qualified.split('.').next() == Some(n.as_str()))
            && let Some(overloads) = functions::lookup(&format!("{qualified}.{name}"))
        {
            return self.resolve(e, &format!("{qualified}.{name}"), overloads, None, &call.args);
        }
        self.check(target);
        match functions::lookup(name) {
            Some(overloads) => self.resolve(e, name, overloads, Some(target), &call.args),
            None => {
                self.set(e, Type::Error);
                self.error(e, format!("undeclared reference to '{name}' (in container '')"));
            }
        }
    }

    /// cel-go's `resolveOverload`.
    fn resolve(
        &mut self,
        e: &IdedExpr,
        name: &str,
        overloads: &'static [Overload],
        target: Option<&IdedExpr>,
        args: &[IdedExpr],
    ) {
        let mut arg_types: Vec<Type> = target.iter().map(|t| self.type_of(t)).collect();
        arg_types.extend(args.iter().map(|a| self.type_of(a)));
        if name == "_&&_" || name == "_||_" {
            self.out.overloads.insert(e.id, overloads.iter().collect());
            let mut ok = true;
            for (a, t) in args.iter().zip(&arg_types) {
                if !self.assignable(t, &Type::Bool) {
                    self.error(a, mismatch(&Type::Bool, t));
                    ok = false;
                }
            }
            return self.set(e, if ok { Type::Bool } else { Type::Error });
        }
        let mut result: Option<Type> = None;
        for overload in overloads.iter().filter(|o| o.member == target.is_some()) {
            if overload.params.len() != arg_types.len() {
                continue;
            }
            let (params, ret) = self.instantiate(overload);
            if let Some(m) = assignable_list(&self.mapping, &arg_types, &params) {
                self.mapping = m;
                self.out.overloads.entry(e.id).or_default().push(overload);
                let ret = substitute(&self.mapping, &ret, false);
                result = Some(match result {
                    None => ret,
                    Some(Type::Dyn) => Type::Dyn,
                    Some(r) if r == ret => r,
                    Some(_) => Type::Dyn,
                });
            }
        }
        // A set or map list added to stays one (its `+` is a union or a merge).
        if let (Some(Type::List(elem, _)), "_+_", Some(Type::List(_, kind @ (ListKind::Set | ListKind::Map(_))))) =
            (&result, name, arg_types.first())
        {
            result = Some(Type::List(elem.clone(), kind.clone()));
        }
        match result {
            Some(t) => self.set(e, t),
            None => {
                let shown: Vec<String> =
                    arg_types.iter().map(|t| substitute(&self.mapping, t, true).to_string()).collect();
                let signature = match target {
                    Some(_) => format!("{}.({})", shown[0], shown[1..].join(", ")),
                    None => format!("({})", shown.join(", ")),
                };
                self.error(e, format!("found no matching overload for '{name}' applied to '{signature}'"));
                self.set(e, Type::Error);
            }
        }
    }

    /// The overload's parameter and result types with fresh type variables for its
    /// parameters.
    fn instantiate(&mut self, o: &Overload) -> (Vec<Type>, Type) {
        let mut fresh = Mapping::default();
        let mut collect = |t: &Type, this: &mut Self| collect_params(t, &mut fresh, this);
        for p in &o.params {
            collect(p, self);
        }
        collect(&o.result, self);
        (o.params.iter().map(|p| substitute(&fresh, p, false)).collect(), substitute(&fresh, &o.result, false))
    }

    /// `a.?b`: a field selection giving an optional.
    fn optional_select(&mut self, e: &IdedExpr, call: &cel::common::ast::CallExpr) {
        let (Some(operand), Some(field)) = (call.args.first(), call.args.get(1)) else {
            return self.set(e, Type::Error);
        };
        let Expr::Literal(LiteralValue::String(name)) = &field.expr else {
            self.error(field, "unsupported optional field selection".to_owned());
            return self.set(e, Type::Error);
        };
        let t = self.select_field(e, operand, name.inner(), true);
        let t = substitute(&self.mapping, &t, false);
        self.set(e, t);
        if let Some(o) = functions::lookup("_?._") {
            self.out.overloads.insert(e.id, o.iter().collect());
        }
    }

    /// cel-go's `checkSelectField`.
    fn select_field(&mut self, e: &IdedExpr, operand: &IdedExpr, field: &str, optional: bool) -> Type {
        self.check(operand);
        let operand_type = substitute(&self.mapping, &self.type_of(operand), false);
        let (target, was_optional) = match operand_type.optional_value() {
            Some(inner) => (inner.clone(), true),
            None => (operand_type.clone(), false),
        };
        let result = match &target {
            Type::Map(_, v) => Type::clone(v),
            Type::Object(object) => match object.field(field) {
                Some(t) => t.clone(),
                None => {
                    self.error(e, format!("undefined field '{field}'"));
                    Type::Error
                }
            },
            Type::Param(_) => {
                self.assignable(&Type::Dyn, &target);
                Type::Dyn
            }
            t => {
                if !t.is_dyn_or_error() {
                    self.error(e, format!("type '{t}' does not support field selection"));
                }
                Type::Dyn
            }
        };
        if was_optional || optional { Type::optional(result) } else { result }
    }

    /// cel-go's `joinTypes` with dynamic aggregate literals (the homogeneity of literals is
    /// checked afterwards, as the 1.29 validator does).
    fn join(&mut self, previous: Option<Type>, current: Type) -> Type {
        match previous {
            None => current,
            Some(p) if self.assignable(&p, &current) => most_general(p, current),
            Some(_) => Type::Dyn,
        }
    }

    fn assert_type(&mut self, e: &IdedExpr, t: &Type) {
        let actual = self.type_of(e);
        if !self.assignable(t, &actual) {
            self.error(e, mismatch(t, &actual));
        }
    }

    fn assignable(&mut self, t1: &Type, t2: &Type) -> bool {
        let mut m = self.mapping.clone();
        if is_assignable(&mut m, t1, t2) {
            self.mapping = m;
            true
        } else {
            false
        }
    }

    fn new_var(&mut self) -> Type {
        let t = Type::Param(format!("_var{}", self.next_var).into());
        self.next_var += 1;
        t
    }

    fn set(&mut self, e: &IdedExpr, t: Type) {
        self.out.types.insert(e.id, t);
    }

    fn type_of(&self, e: &IdedExpr) -> Type {
        self.out.types.get(&e.id).cloned().unwrap_or(Type::Error)
    }

    fn error(&mut self, e: &IdedExpr, message: String) {
        let offset = self.source.offset_for(e.id).map(|(start, _)| start).or(self.place);
        self.out.errors.push((offset, message));
    }
}

fn mismatch(expected: &Type, actual: &Type) -> String {
    format!("expected type '{expected}' but found '{actual}'")
}

/// `a.b.c` when `e` is a chain of selections ending in an identifier.
pub(crate) fn qualified_name(e: &IdedExpr) -> Option<String> {
    match &e.expr {
        Expr::Ident(name) => Some(name.clone()),
        Expr::Select(s) if !s.test => Some(format!("{}.{}", qualified_name(&s.operand)?, s.field)),
        _ => None,
    }
}

/// Fresh variables for the type parameters in `t`.
fn collect_params(t: &Type, fresh: &mut Mapping, c: &mut Checker<'_>) {
    match t {
        Type::Param(name) if !fresh.0.contains_key(name) => {
            let v = c.new_var();
            fresh.0.insert(name.clone(), v);
        }
        _ => {
            for p in t.parameters() {
                collect_params(p, fresh, c);
            }
        }
    }
}

fn is_dyn(t: &Type) -> bool {
    matches!(t, Type::Dyn)
}

/// cel-go's `isEqualOrLessSpecific`.
fn equal_or_less_specific(t1: &Type, t2: &Type) -> bool {
    if is_dyn(t1) || matches!(t1, Type::Param(_)) {
        return true;
    }
    if is_dyn(t2) || matches!(t2, Type::Param(_)) {
        return false;
    }
    if t1.kind() != t2.kind() {
        return false;
    }
    match (t1, t2) {
        (Type::Opaque(a, p), Type::Opaque(b, q)) => {
            a == b && p.len() == q.len() && p.iter().zip(q.iter()).all(|(x, y)| equal_or_less_specific(x, y))
        }
        (Type::List(a, _), Type::List(b, _)) => equal_or_less_specific(a, b),
        (Type::Map(a, b), Type::Map(c, d)) => equal_or_less_specific(a, c) && equal_or_less_specific(b, d),
        (Type::Type(_), Type::Type(_)) => true,
        _ => t1 == t2,
    }
}

fn most_general(t1: Type, t2: Type) -> Type {
    if equal_or_less_specific(&t1, &t2) { t1 } else { t2 }
}

/// cel-go's `internalIsAssignable`: whether a `t2` may be used where a `t1` is expected,
/// binding type variables in `m`.
fn is_assignable(m: &mut Mapping, t1: &Type, t2: &Type) -> bool {
    if matches!(t2, Type::Param(_)) {
        let (valid, has_sub) = valid_substitution(m, t1, t2);
        if valid {
            return true;
        }
        if has_sub {
            return false;
        }
    }
    if matches!(t1, Type::Param(_)) {
        return valid_substitution(m, t2, t1).0;
    }
    if t1.is_dyn_or_error() || t2.is_dyn_or_error() {
        return true;
    }
    if matches!(t1, Type::Null) {
        return assignable_null(t2);
    }
    if matches!(t2, Type::Null) {
        return assignable_null(t1);
    }
    match (t1, t2) {
        (Type::Type(_), other) => matches!(other, Type::Type(_)),
        (Type::Opaque(a, p), Type::Opaque(b, q)) => a == b && assignable_params(m, p, q),
        (Type::List(a, _), Type::List(b, _)) => is_assignable(m, a, b),
        (Type::Map(a, b), Type::Map(c, d)) => is_assignable(m, a, c) && is_assignable(m, b, d),
        (Type::Opaque(..) | Type::List(..) | Type::Map(..), _) => false,
        _ => t1 == t2,
    }
}

fn assignable_params(m: &mut Mapping, p: &[Type], q: &[Type]) -> bool {
    p.len() == q.len() && p.iter().zip(q).all(|(a, b)| is_assignable(m, a, b))
}

fn assignable_list(m: &Mapping, l1: &[Type], l2: &[Type]) -> Option<Mapping> {
    let mut copy = m.clone();
    assignable_params(&mut copy, l1, l2).then_some(copy)
}

/// `null` is assignable to objects, opaque types, durations and timestamps (cel-go's legacy
/// nullables), and to itself.
fn assignable_null(t: &Type) -> bool {
    matches!(t, Type::Null | Type::Object(_) | Type::Opaque(..) | Type::Duration | Type::Timestamp)
}

/// cel-go's `isValidTypeSubstitution`.
fn valid_substitution(m: &mut Mapping, t1: &Type, t2: &Type) -> (bool, bool) {
    if t1 == t2 {
        return (true, true);
    }
    if let Some(sub) = m.find(t2).cloned() {
        if t1 == &sub {
            return (true, true);
        }
        if is_assignable(m, t1, &sub) {
            let general = most_general(t1.clone(), sub);
            if not_referenced_in(m, t2, &general) {
                bind(m, t2, general);
            }
            return (true, true);
        }
        return (false, true);
    }
    if not_referenced_in(m, t2, t1) {
        bind(m, t2, t1.clone());
        return (true, false);
    }
    (false, false)
}

fn bind(m: &mut Mapping, param: &Type, t: Type) {
    if let Type::Param(name) = param {
        m.0.insert(name.clone(), t);
    }
}

fn not_referenced_in(m: &Mapping, t: &Type, within: &Type) -> bool {
    if t == within {
        return false;
    }
    match within {
        Type::Param(_) => m.find(within).is_none_or(|sub| not_referenced_in(m, t, sub)),
        Type::Opaque(..) | Type::List(..) | Type::Map(..) | Type::Type(_) => {
            within.parameters().into_iter().all(|p| not_referenced_in(m, t, p))
        }
        _ => true,
    }
}

/// cel-go's `substitute`: bound variables replaced, free ones by `dyn` when `to_dyn`.
fn substitute(m: &Mapping, t: &Type, to_dyn: bool) -> Type {
    if let Some(sub) = m.find(t) {
        return substitute(m, sub, to_dyn);
    }
    match t {
        Type::Param(_) if to_dyn => Type::Dyn,
        Type::Opaque(name, ps) => Type::Opaque(name.clone(), ps.iter().map(|p| substitute(m, p, to_dyn)).collect()),
        Type::List(e, kind) => Type::List(Arc::new(substitute(m, e, to_dyn)), kind.clone()),
        Type::Map(k, v) => Type::map(substitute(m, k, to_dyn), substitute(m, v, to_dyn)),
        Type::Type(Some(p)) => Type::type_of(substitute(m, p, to_dyn)),
        t => t.clone(),
    }
}

/// cel-go's AST validators as 1.29 enables them, run on a checked expression: list and map
/// literals are homogeneous, except anywhere inside a call of `format` (the strings
/// extension's exemption: its argument list mixes types), constant `duration`,
/// `timestamp` and `matches` arguments are valid, and a literal format over a list literal
/// takes its arguments' types (the strings extension's validator).
fn validate_literals(
    e: &IdedExpr,
    types: &HashMap<u64, Type>,
    source: &SourceInfo,
    errors: &mut Vec<(Option<u32>, String)>,
    place: Option<u32>,
    in_format: bool,
) {
    let place = source.offset_for(e.id).map(|(s, _)| s).or(place);
    let at = |e: &IdedExpr| source.offset_for(e.id).map(|(s, _)| s).or(place);
    let type_of = |e: &IdedExpr| types.get(&e.id).cloned().unwrap_or(Type::Dyn);
    let in_format = in_format || matches!(&e.expr, Expr::Call(call) if call.func_name == "format");
    match &e.expr {
        Expr::List(_) | Expr::Map(_) if in_format => {}
        Expr::List(list) => {
            let mut first: Option<Type> = None;
            for (i, el) in list.elements.iter().enumerate() {
                let mut t = type_of(el);
                if list.optional_indices.contains(&i) {
                    t = t.optional_value().cloned().unwrap_or(t);
                }
                match &first {
                    None => first = Some(t),
                    Some(f) if *f != t => {
                        errors.push((at(el), mismatch(f, &t)));
                        break;
                    }
                    Some(_) => {}
                }
            }
        }
        Expr::Map(map) => {
            let mut first: Option<(Type, Type)> = None;
            for entry in &map.entries {
                let EntryExpr::MapEntry(entry) = &entry.expr else { continue };
                let k = type_of(&entry.key);
                let mut v = type_of(&entry.value);
                if entry.optional {
                    v = v.optional_value().cloned().unwrap_or(v);
                }
                match &first {
                    None => first = Some((k, v)),
                    Some((fk, fv)) => {
                        if *fk != k {
                            errors.push((at(&entry.key), mismatch(fk, &k)));
                        }
                        if *fv != v {
                            errors.push((at(&entry.value), mismatch(fv, &v)));
                        }
                    }
                }
            }
        }
        Expr::Call(call) => {
            // cel-go's `stringFormatValidator`: a literal format over a list literal.
            if call.func_name == "format"
                && let Some(Expr::Literal(LiteralValue::String(format))) = call.target.as_deref().map(|t| &t.expr)
                && let [arg] = call.args.as_slice()
                && let Expr::List(list) = &arg.expr
                && let Err((node, message)) =
                    crate::cel::library::format::check_literal_call(format.inner(), &list.elements, &type_of)
            {
                let at_node = node.and_then(|id| source.offset_for(id).map(|(s, _)| s)).or_else(|| at(e));
                errors.push((at_node, message));
            }
            // cel-go evaluates the call over its literal argument: `duration(3)` fails as it
            // would at run time (an int is no duration).
            if let Some(Expr::Literal(arg)) = call.args.first().map(|a| &a.expr) {
                let bad = match (call.func_name.as_str(), call.target.is_some(), arg) {
                    ("duration", false, LiteralValue::String(s)) => crate::go::duration::parse_go(s.inner()).is_none(),
                    ("duration", false, _) => true,
                    ("timestamp", false, LiteralValue::String(s)) => {
                        !converts(&format!("timestamp({})", crate::report::issue::go_quote(s.inner())))
                    }
                    ("timestamp", false, LiteralValue::Int(i)) => !converts(&format!("timestamp({})", i.inner())),
                    ("matches", _, LiteralValue::String(s)) => crate::check::pattern::compile(s.inner()).is_err(),
                    _ => false,
                };
                if bad {
                    errors.push((at(&call.args[0]), format!("invalid {} argument", call.func_name)));
                }
            }
        }
        _ => {}
    }
    for child in crate::cel::vocabulary::depth::children(e) {
        validate_literals(child, types, source, errors, place, in_format);
    }
}

/// Whether the interpreter runs `call`, a conversion of a literal, without an error: the
/// conversions are the standard library's, so its environment alone runs them (the checker
/// sits below the running layer).
fn converts(call: &str) -> bool {
    static STANDARD: std::sync::LazyLock<std::sync::Arc<cel::Env>> =
        std::sync::LazyLock::new(|| std::sync::Arc::new(cel::Env::stdlib()));
    STANDARD.compile(call).is_ok_and(|program| program.execute(&cel::Context::with_env(STANDARD.clone())).is_ok())
}

#[cfg(test)]
mod tests {
    use crate::cel::{Scope, check_rule};

    /// The checker's message for `rule` with `self` of type `self_type` (a cel-go signature).
    fn refused(rule: &str, self_type: &str) -> String {
        let scope = Scope::typed(crate::cel::vocabulary::types::parse(self_type), false);
        match check_rule(rule, None, &scope) {
            Ok(_) => panic!("{rule} should not check"),
            Err(e) => e.join("\n"),
        }
    }

    fn accepted(rule: &str, self_type: &str) {
        let scope = Scope::typed(crate::cel::vocabulary::types::parse(self_type), false);
        if let Err(e) = check_rule(rule, None, &scope) {
            panic!("{rule}: {e:?}");
        }
    }

    #[test]
    fn messages_read_as_cel_go_writes_them() {
        let first_line = |s: String| s.lines().next().unwrap().to_owned();
        for (rule, t, message) in [
            ("1 == 1.0", "dyn", "ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, double)'"),
            ("self.a == 1", "int", "ERROR: <input>:1:5: type 'int' does not support field selection"),
            (
                "self.all(x, x)",
                "int",
                "ERROR: <input>:1:1: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)",
            ),
            ("{1: 'a', 'b': 'c'}.size() == 2", "dyn", "ERROR: <input>:1:10: expected type 'int' but found 'string'"),
            (
                "self.startsWith(1)",
                "string",
                "ERROR: <input>:1:16: found no matching overload for 'startsWith' applied to 'string.(int)'",
            ),
            ("timestamp('yesterday') < self", "timestamp", "ERROR: <input>:1:11: invalid timestamp argument"),
            (
                "self.x.y > 0 && self.z",
                "map(string, int)",
                "ERROR: <input>:1:7: type 'int' does not support field selection",
            ),
        ] {
            let got = refused(rule, t);
            assert_eq!(first_line(got.trim_start_matches("compilation failed: ").to_owned()), message, "{rule}");
        }
        // Several problems: each, sorted by place.
        let both = refused("self.b == 1 || self.a.size() == 'x'", "map(string, string)");
        let places: Vec<&str> =
            both.lines().filter_map(|l| l.split(": found").next().filter(|_| l.contains("ERROR"))).collect();
        assert_eq!(places, ["compilation failed: ERROR: <input>:1:8", "ERROR: <input>:1:30"], "{both}");
    }

    #[test]
    fn inference_follows_cel_go() {
        // Empty literals take their type from use; `dyn` accepts anything; `null` compares with
        // objects, optionals, timestamps and durations but not with strings or lists.
        accepted("[] + self == self && {}.size() == 0", "list(string)");
        accepted("self.x.y.z == 1 && self[0] == 'a'", "dyn");
        accepted("self.ts != null && self.opt != null", "map(string, timestamp)");
        assert!(refused("self == null", "list(int)").contains("'_==_' applied to '(list(int), null)'"));
        // Cross-type numeric comparisons, but no cross-type equality.
        accepted("1 < 1.5 && 2u > 1 && 1.0 <= 1", "dyn");
        // A comprehension over a map binds keys; two variables bind keys and values.
        accepted("self.all(k, k.startsWith('a')) && self.all(k, v, v > 0)", "map(string, int)");
        accepted("self.all(i, v, i >= 0 && v.size() > 0)", "list(string)");
        assert!(refused("self.all(k, v, v.size() > 0)", "map(string, int)").contains("'size' applied to 'int.()'"));
        // The result type: a rule is a bool, a dyn rule is refused as the apiserver does.
        assert_eq!(refused("self[0]", "list(dyn)"), "cel expression must evaluate to a bool");
    }
}
