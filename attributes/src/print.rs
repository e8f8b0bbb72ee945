//! Printing attributes: what code generation writes on the types it generates, for the derive
//! to parse back ([`crate::parse`]).

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{ToTokens, quote};
use serde_json::Value;

use crate::{Attr, Keyword, Rule, RuleKey};

impl ToTokens for Keyword {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        Ident::new(self.name(), Span::call_site()).to_tokens(tokens);
    }
}

impl ToTokens for RuleKey {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        Ident::new(self.name(), Span::call_site()).to_tokens(tokens);
    }
}

/// `#[kubeskema(a, b = ...)]`, or nothing when there are no parts.
pub fn attribute(parts: &[TokenStream]) -> TokenStream {
    if parts.is_empty() { TokenStream::new() } else { quote!(#[kubeskema(#(#parts),*)]) }
}

/// One keyword with its value. A rule is printed as interpreted ([`rule`] adds what it was
/// compiled to).
pub fn attr(a: &Attr) -> TokenStream {
    match a {
        Attr::Flag(k) => quote!(#k),
        Attr::Str(k, v) | Attr::Json(k, v) => quote!(#k = #v),
        Attr::Count(k, v) => {
            let v = Literal::i64_unsuffixed(*v);
            quote!(#k = #v)
        }
        Attr::Number(k, n) => {
            let v = number(n);
            quote!(#k = #v)
        }
        Attr::Strs(k, list) => quote!(#k(#(#list),*)),
        Attr::Rule(r, _) => rule(r, None),
        Attr::Extension(name, value) => {
            let k = Keyword::Extension;
            quote!(#k(name = #name, value = #value))
        }
        Attr::Nested(k, inner) => {
            let inner = inner.iter().map(attr);
            quote!(#k(#(#inner),*))
        }
        Attr::Resource(fields) => {
            let parts = fields.iter().map(|(k, v)| {
                let key = Ident::new(k.name(), Span::call_site());
                // A flag is kept as the text `true`/`false` and written as the literal.
                if k.is_flag() {
                    let on = v == "true";
                    quote!(#key = #on)
                } else {
                    quote!(#key = #v)
                }
            });
            let k = Keyword::Resource;
            quote!(#k(#(#parts),*))
        }
    }
}

/// What a rule was compiled to: its function, its messageExpression's, and whether it reads
/// `oldSelf`.
pub struct Native {
    /// The path of the rule's function.
    pub rule: TokenStream,
    /// The path of its messageExpression's function, when it has one.
    pub message: Option<TokenStream>,
    /// Whether the rule reads `oldSelf`.
    pub transition: bool,
}

/// `rule(rule = "...", ...)`, with `native = ...` where it was compiled to Rust.
pub fn rule(r: &Rule, native: Option<Native>) -> TokenStream {
    let text = &r.rule;
    let key = RuleKey::Rule;
    let mut parts = vec![quote!(#key = #text)];
    for (key, value) in [
        (RuleKey::Message, &r.message),
        (RuleKey::MessageExpression, &r.message_expression),
        (RuleKey::Reason, &r.reason),
        (RuleKey::FieldPath, &r.field_path),
    ] {
        if let Some(v) = value {
            parts.push(quote!(#key = #v));
        }
    }
    if let Some(b) = r.optional_old_self {
        let key = RuleKey::OptionalOldSelf;
        parts.push(quote!(#key = #b));
    }
    if let Some(Native { rule, message, transition }) = native {
        let key = RuleKey::Native;
        parts.push(quote!(#key = #rule));
        if let Some(message) = message {
            let key = RuleKey::NativeMessage;
            parts.push(quote!(#key = #message));
        }
        if transition {
            let key = RuleKey::Transition;
            parts.push(quote!(#key));
        }
    }
    let k = Keyword::Rule;
    quote!(#k(#(#parts),*))
}

/// A JSON number as a Rust literal: floats stay floats (`10.0`, `1e20`), as the int/float
/// distinction matters to the apiserver's bound checks.
pub fn number(n: &serde_json::Number) -> TokenStream {
    let text = n.to_string();
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d.to_owned()),
        None => (false, text.clone()),
    };
    let lit = if n.is_f64() {
        let d = if digits.contains(['.', 'e', 'E']) { digits } else { format!("{digits}.0") };
        Literal::f64_unsuffixed(d.parse::<f64>().unwrap_or_default())
    } else {
        Literal::u64_unsuffixed(digits.parse::<u64>().unwrap_or_default())
    };
    if neg { quote!(-#lit) } else { quote!(#lit) }
}

/// `keyword = <literal>` for a scalar JSON value (`default`, `value`); `None` for anything
/// else.
pub fn literal(keyword: Keyword, v: &Value) -> Option<TokenStream> {
    match v {
        Value::String(s) => Some(quote!(#keyword = #s)),
        Value::Bool(b) => Some(quote!(#keyword = #b)),
        Value::Number(n) => {
            let t = number(n);
            Some(quote!(#keyword = #t))
        }
        _ => None,
    }
}

/// A schema default: scalars as literals (`default = 3`), anything else as JSON text
/// (`default_json = "{...}"`).
pub fn default(v: &Value) -> TokenStream {
    literal(Keyword::Default, v).unwrap_or_else(|| {
        let json = v.to_string();
        let k = Keyword::DefaultJson;
        quote!(#k = #json)
    })
}
