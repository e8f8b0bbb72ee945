//! Parsing `#[kubeskema(...)]` attributes into typed values, once: what the derive reads
//! instead of a raw `syn::Attribute`.
//!
//! Every keyword is in [`Keyword`]'s table with where it may stand and what value it takes, so
//! "unknown keyword", "not allowed here", "duplicate" and "wrong literal" errors are reported
//! the same way for every keyword, with the keyword's span.

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Lit, LitStr};

use crate::{Arg, Attr, Keyword, Place, REASONS, ResourceKey, RuleKey, check_junctor};

/// Collects errors; like serde_derive's `Ctxt`, it panics if dropped unchecked so no error
/// can be forgotten.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    /// A context with no error yet; [`Ctxt::check`] must be called before it is dropped.
    pub fn new() -> Self {
        Ctxt { errors: RefCell::new(Some(Vec::new())) }
    }

    /// Records an error at `span`.
    pub fn error(&self, span: Span, msg: impl Display) {
        self.push(syn::Error::new(span, msg));
    }

    /// Records an error spanning `tokens`.
    pub fn error_spanned(&self, tokens: impl ToTokens, msg: impl Display) {
        self.push(syn::Error::new_spanned(tokens, msg));
    }

    /// Records `e`.
    pub fn push(&self, e: syn::Error) {
        self.errors.borrow_mut().as_mut().expect("invariant: Ctxt used after check").push(e);
    }

    /// Every error recorded, combined into one (each keeps its span), or `Ok`.
    pub fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.borrow_mut().take().expect("invariant: Ctxt checked twice").into_iter();
        let Some(mut first) = errors.next() else {
            return Ok(());
        };
        for e in errors {
            first.combine(e);
        }
        Err(first)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("invariant: Ctxt dropped without check()");
        }
    }
}

/// A literal value from an attribute (a default or an enum variant's value).
#[derive(Clone)]
pub enum Literal {
    /// `"text"`.
    Str(LitStr),
    /// `1`.
    Int(syn::LitInt),
    /// `1.5`.
    Float(syn::LitFloat),
    /// `true`.
    Bool(syn::LitBool),
}

impl Literal {
    /// The literal as JSON text.
    pub fn to_json(&self) -> String {
        match self {
            Literal::Str(s) => serde_json::Value::String(s.value()).to_string(),
            Literal::Int(i) => i.base10_digits().to_owned(),
            Literal::Float(f) => f.base10_digits().to_owned(),
            Literal::Bool(b) => b.value.to_string(),
        }
    }
}

/// One `x-kubernetes-validations` rule.
#[derive(Clone, Default)]
pub struct Rule {
    /// `rule`: the CEL expression.
    pub rule: Option<LitStr>,
    /// `message`.
    pub message: Option<LitStr>,
    /// `messageExpression`.
    pub message_expression: Option<LitStr>,
    /// `reason` (`FieldValueInvalid`, ...).
    pub reason: Option<LitStr>,
    /// `fieldPath`.
    pub field_path: Option<LitStr>,
    /// `optionalOldSelf`.
    pub optional_old_self: Option<bool>,
    /// The rule compiled to Rust: a function `fn(&T, Option<&T>, &mut Meter) ->
    /// Result<bool>` over the node's value (what codegen writes beside the type).
    pub native: Option<syn::Path>,
    /// The messageExpression compiled to Rust (`-> Result<String>`).
    pub native_message: Option<syn::Path>,
    /// With `native`: the rule reads `oldSelf` (what codegen's compilation found).
    pub transition: bool,
}

/// A parsed keyword with its value.
#[derive(Clone)]
pub enum Item {
    /// A keyword alone (`nullable`).
    Flag,
    /// `keyword = "text"`.
    Str(LitStr),
    /// `keyword = 3`: a count (`max_items`).
    Count(i64),
    /// As written: an integer literal stays an integer (`minimum = 1` is `1`, not `1.0`).
    Number(serde_json::Number),
    /// A literal of any JSON scalar type (a default, an enum value).
    Literal(Literal),
    /// `keyword("a", "b")`.
    Strs(Vec<LitStr>),
    /// `items(...)` or `values(...)`.
    Nested(Attrs),
    /// `rule(...)`.
    Rule(Rule),
    /// `extension(name = "x-...", value = "...")`.
    Extension {
        /// The extension's key.
        name: LitStr,
        /// Its value, as JSON text.
        value: LitStr,
    },
    /// `resource(...)`'s keys and values.
    Resource(Vec<(ResourceKey, LitStr)>),
}

/// The keywords of one attribute list, in the order written.
#[derive(Clone, Default)]
pub struct Attrs {
    /// Each keyword as written (its identifier, for spans), which keyword it is, its value.
    pub items: Vec<(syn::Ident, Keyword, Item)>,
}

impl Attrs {
    /// The value of `keyword`, when it is given.
    pub fn get(&self, keyword: Keyword) -> Option<&Item> {
        self.items.iter().find(|(_, k, _)| *k == keyword).map(|(_, _, v)| v)
    }

    /// Whether `keyword` is given.
    pub fn flag(&self, keyword: Keyword) -> bool {
        self.get(keyword).is_some()
    }

    /// The string `keyword` is given.
    pub fn str(&self, keyword: Keyword) -> Option<&LitStr> {
        match self.get(keyword) {
            Some(Item::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// The literal `keyword` is given.
    pub fn literal(&self, keyword: Keyword) -> Option<&Literal> {
        match self.get(keyword) {
            Some(Item::Literal(l)) => Some(l),
            _ => None,
        }
    }

    /// The constraints inside `items(...)` or `values(...)`.
    pub fn nested(&self, keyword: Keyword) -> Option<&Attrs> {
        match self.get(keyword) {
            Some(Item::Nested(n)) => Some(n),
            _ => None,
        }
    }

    /// The `rule(...)`s, in order.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.items.iter().filter_map(|(_, _, item)| match item {
            Item::Rule(r) => Some(r),
            _ => None,
        })
    }

    /// The same keywords as data, without their spans: what the functions of the core read.
    pub fn data(&self) -> Vec<Attr> {
        self.items
            .iter()
            .map(|(_, k, item)| match item {
                Item::Flag => Attr::Flag(*k),
                Item::Str(s) if k.arg() == Arg::Json => Attr::Json(*k, s.value()),
                Item::Str(s) => Attr::Str(*k, s.value()),
                Item::Count(n) => Attr::Count(*k, *n),
                Item::Number(n) => Attr::Number(*k, n.clone()),
                Item::Literal(l) => Attr::Json(*k, l.to_json()),
                Item::Strs(list) => Attr::Strs(*k, list.iter().map(LitStr::value).collect()),
                Item::Nested(n) => Attr::Nested(*k, n.data()),
                Item::Rule(r) => Attr::Rule(
                    crate::Rule {
                        rule: r.rule.as_ref().map(LitStr::value).unwrap_or_default(),
                        message: r.message.as_ref().map(LitStr::value),
                        message_expression: r.message_expression.as_ref().map(LitStr::value),
                        reason: r.reason.as_ref().map(LitStr::value),
                        field_path: r.field_path.as_ref().map(LitStr::value),
                        optional_old_self: r.optional_old_self,
                    },
                    crate::Trees(None),
                ),
                Item::Extension { name, value } => Attr::Extension(name.value(), value.value()),
                Item::Resource(fields) => Attr::Resource(fields.iter().map(|(k, v)| (*k, v.value())).collect()),
            })
            .collect()
    }
}

/// Parses every `#[kubeskema(...)]` among `attrs` for the given place.
pub fn parse(cx: &Ctxt, attrs: &[Attribute], place: Place) -> Attrs {
    let mut out = Attrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("kubeskema")) {
        if let Err(e) = attr.parse_nested_meta(|meta| parse_keyword(cx, &meta, place, &mut out)) {
            cx.push(e);
        }
    }
    out
}

/// Levenshtein distance, for "did you mean" hints.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn parse_keyword(cx: &Ctxt, meta: &ParseNestedMeta, place: Place, out: &mut Attrs) -> syn::Result<()> {
    let ident = meta.path.get_ident().cloned().ok_or_else(|| meta.error("expected a kubeskema keyword"))?;
    let name = ident.to_string();
    let Some(keyword) = Keyword::from_name(&name) else {
        let known: Vec<_> = Keyword::ALL.iter().filter(|k| k.allowed(place)).map(|k| k.name()).collect();
        let hint = match known.iter().min_by_key(|k| edit_distance(k, &name)) {
            Some(k) if edit_distance(k, &name) <= 2 => format!("did you mean `{k}`? "),
            _ => String::new(),
        };
        return Err(
            meta.error(format!("unknown kubeskema keyword `{name}`; {hint}expected one of: {}", known.join(", ")))
        );
    };
    let arg = keyword.arg();
    if !keyword.allowed(place) {
        // Consume the value so parsing can go on to report further errors.
        skip_value(meta)?;
        cx.error(ident.span(), format!("`{name}` is not allowed {}", place.describe()));
        return Ok(());
    }
    if !keyword.repeats() && out.get(keyword).is_some() {
        skip_value(meta)?;
        cx.error(ident.span(), format!("duplicate kubeskema keyword `{name}`"));
        return Ok(());
    }
    let item = match arg {
        Arg::Flag => {
            if meta.input.peek(syn::Token![=]) {
                return Err(meta.error(format!("`{name}` takes no value: write `{name}`")));
            }
            Item::Flag
        }
        Arg::Str => Item::Str(meta.value()?.parse()?),
        Arg::Json => {
            let s: LitStr = meta.value()?.parse()?;
            match serde_json::from_str::<serde_json::Value>(&s.value()) {
                Err(e) => cx.error(s.span(), format!("`{name}` must be JSON text: {e}")),
                Ok(json) if keyword.is_junctor() => {
                    if let Err(e) = check_junctor(&name, &json) {
                        cx.error(s.span(), e);
                    }
                }
                Ok(_) => {}
            }
            Item::Str(s)
        }
        // Any int64, as the apiserver takes counts (a negative maximum refuses every value).
        Arg::Count => {
            let value = meta.value()?;
            let negative = value.parse::<Option<syn::Token![-]>>()?.is_some();
            let n: i64 = value.parse::<syn::LitInt>()?.base10_parse()?;
            Item::Count(if negative { -n } else { n })
        }
        Arg::Number => Item::Number(parse_number(meta)?),
        Arg::Literal => Item::Literal(parse_literal(meta)?),
        Arg::Strs => return parse_strs(meta, ident, keyword, out),
        Arg::Nested => {
            let mut nested = Attrs::default();
            meta.parse_nested_meta(|m| parse_keyword(cx, &m, Place::Nested, &mut nested))?;
            Item::Nested(nested)
        }
        Arg::Rule => Item::Rule(parse_rule(meta)?),
        Arg::Extension => {
            let mut name_lit = None;
            let mut value = None;
            meta.parse_nested_meta(|m| {
                if m.path.is_ident("name") {
                    name_lit = Some(m.value()?.parse::<LitStr>()?);
                } else if m.path.is_ident("value") {
                    value = Some(m.value()?.parse::<LitStr>()?);
                } else {
                    return Err(m.error("expected `name = \"x-...\"` or `value = \"<JSON>\"`"));
                }
                Ok(())
            })?;
            match (name_lit, value) {
                (Some(name), Some(value)) => Item::Extension { name, value },
                _ => return Err(meta.error("`extension` needs both `name` and `value`")),
            }
        }
        Arg::Resource => {
            let mut fields = Vec::new();
            meta.parse_nested_meta(|m| {
                let key = m.path.get_ident().map(ToString::to_string).unwrap_or_default();
                let Some(key) = ResourceKey::from_name(&key) else {
                    return Err(m.error(ResourceKey::expected()));
                };
                if !key.repeats() && fields.iter().any(|(k, _)| *k == key) {
                    return Err(m.error(format!("`{}` is given twice", key.name())));
                }
                // A flag's value is kept as the text `true`/`false`, so every key reads alike.
                let value = match m.value()?.parse::<Lit>()? {
                    Lit::Str(s) if !key.is_flag() => s,
                    Lit::Bool(b) if key.is_flag() => LitStr::new(&b.value.to_string(), b.span),
                    other if key.is_flag() => {
                        return Err(syn::Error::new(other.span(), format!("`{}` takes `true` or `false`", key.name())));
                    }
                    other => return Err(syn::Error::new(other.span(), format!("`{}` takes a string", key.name()))),
                };
                if key == ResourceKey::PrinterColumn {
                    check_printer_column(&value)?;
                }
                fields.push((key, value));
                Ok(())
            })?;
            Item::Resource(fields)
        }
    };
    out.items.push((ident, keyword, item));
    Ok(())
}

/// A printer column is JSON text with the keys of `additionalPrinterColumns[]`, as kube-derive's
/// `printcolumn` takes it.
fn check_printer_column(text: &LitStr) -> syn::Result<()> {
    let fail = |msg: String| Err(syn::Error::new(text.span(), msg));
    let Ok(serde_json::Value::Object(column)) = serde_json::from_str::<serde_json::Value>(&text.value()) else {
        return fail(
            r##"a printer column is a JSON object: `printer_column = r#"{"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}"#`"##
                .to_owned(),
        );
    };
    for key in ["name", "type", "jsonPath"] {
        if !column.get(key).is_some_and(serde_json::Value::is_string) {
            return fail(format!("a printer column needs `{key}` (a string)"));
        }
    }
    const KEYS: [&str; 6] = ["name", "type", "jsonPath", "description", "format", "priority"];
    if let Some(other) = column.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return fail(format!("a printer column has no `{other}`: expected one of {}", KEYS.join(", ")));
    }
    Ok(())
}

fn parse_strs(meta: &ParseNestedMeta, ident: syn::Ident, keyword: Keyword, out: &mut Attrs) -> syn::Result<()> {
    let content;
    syn::parenthesized!(content in meta.input);
    let list = content.parse_terminated(|input: syn::parse::ParseStream| input.parse::<LitStr>(), syn::Token![,])?;
    out.items.push((ident, keyword, Item::Strs(list.into_iter().collect())));
    Ok(())
}

fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}

fn parse_number(meta: &ParseNestedMeta) -> syn::Result<serde_json::Number> {
    let input = meta.value()?;
    let negative = input.peek(syn::Token![-]);
    if negative {
        input.parse::<syn::Token![-]>()?;
    }
    let lit: Lit = input.parse()?;
    let sign = if negative { "-" } else { "" };
    let (digits, span) = match &lit {
        Lit::Int(i) => (format!("{sign}{}", i.base10_digits()), i.span()),
        Lit::Float(f) => (format!("{sign}{}", f.base10_digits()), f.span()),
        other => return Err(syn::Error::new(other.span(), "expected a number")),
    };
    // An integer literal stays an integer, as the schema writes it; a float is read as the
    // apiserver reads schema numbers, a float64: one beyond it (`1e400`) is no bound it could
    // hold, and an infinite one would have no literal to emit.
    let integer = match &lit {
        Lit::Int(_) => digits
            .parse::<i64>()
            .ok()
            .map(serde_json::Number::from)
            .or_else(|| digits.parse::<u64>().ok().map(serde_json::Number::from)),
        _ => None,
    };
    integer.or_else(|| digits.parse::<f64>().ok().and_then(serde_json::Number::from_f64)).ok_or_else(|| {
        syn::Error::new(
            span,
            "number out of range: the apiserver reads schema numbers as 64-bit floats (at most about 1.8e308)",
        )
    })
}

fn parse_literal(meta: &ParseNestedMeta) -> syn::Result<Literal> {
    let input = meta.value()?;
    if input.peek(syn::Token![-]) {
        input.parse::<syn::Token![-]>()?;
        return match input.parse::<Lit>()? {
            Lit::Int(i) => Ok(Literal::Int(syn::LitInt::new(&format!("-{}", i.base10_digits()), i.span()))),
            Lit::Float(f) => Ok(Literal::Float(syn::LitFloat::new(&format!("-{}", f.base10_digits()), f.span()))),
            other => Err(syn::Error::new(other.span(), "expected a number after `-`")),
        };
    }
    match input.parse::<Lit>()? {
        Lit::Str(s) => Ok(Literal::Str(s)),
        Lit::Int(i) => Ok(Literal::Int(i)),
        Lit::Float(f) => Ok(Literal::Float(f)),
        Lit::Bool(b) => Ok(Literal::Bool(b)),
        other => Err(syn::Error::new(other.span(), "expected a string, integer, float or bool literal")),
    }
}

fn parse_rule(meta: &ParseNestedMeta) -> syn::Result<Rule> {
    let mut rule = Rule::default();
    meta.parse_nested_meta(|m| {
        let key = m.path.get_ident().map(ToString::to_string).unwrap_or_default();
        let Some(key) = RuleKey::from_name(&key) else {
            return Err(m.error(RuleKey::expected()));
        };
        match key {
            RuleKey::Rule => rule.rule = Some(m.value()?.parse()?),
            RuleKey::Message => rule.message = Some(m.value()?.parse()?),
            RuleKey::MessageExpression => rule.message_expression = Some(m.value()?.parse()?),
            RuleKey::Reason => {
                let reason: LitStr = m.value()?.parse()?;
                if !REASONS.contains(&reason.value().as_str()) {
                    return Err(syn::Error::new(
                        reason.span(),
                        format!("`reason` must be one of: {}", REASONS.join(", ")),
                    ));
                }
                rule.reason = Some(reason);
            }
            RuleKey::FieldPath => rule.field_path = Some(m.value()?.parse()?),
            RuleKey::OptionalOldSelf => rule.optional_old_self = Some(m.value()?.parse::<syn::LitBool>()?.value),
            RuleKey::Native => rule.native = Some(m.value()?.parse()?),
            RuleKey::NativeMessage => rule.native_message = Some(m.value()?.parse()?),
            RuleKey::Transition => rule.transition = true,
        }
        Ok(())
    })?;
    if rule.rule.is_none() {
        return Err(meta.error("`rule(...)` needs `rule = \"<CEL expression>\"`"));
    }
    if rule.native.is_none() && (rule.native_message.is_some() || rule.transition) {
        return Err(meta.error("`native_message` and `transition` describe a `native` rule: add `native = <function>`"));
    }
    Ok(rule)
}
