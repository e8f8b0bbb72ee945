//! Rust tokens for names, types, doc comments and string literals: the pieces every emitted
//! item is made of, escaped so that text from a CRD can only ever be text.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use crate::model::{FieldDef, Keyword, Module, Shape, Ty};

pub(super) fn ident(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

pub(crate) fn ty_tokens(m: &Module, ty: &Ty) -> TokenStream {
    ty_tokens_in(m, ty, &TokenStream::new())
}

/// [`ty_tokens`] for code outside module `m`: its types behind `prefix` (`super::v1::`).
pub(crate) fn ty_tokens_in(m: &Module, ty: &Ty, prefix: &TokenStream) -> TokenStream {
    match ty {
        Ty::String => quote!(String),
        Ty::Bool => quote!(bool),
        Ty::I32 => quote!(i32),
        Ty::I64 => quote!(i64),
        Ty::F64 => quote!(f64),
        Ty::IntOrString => quote!(IntOrString),
        Ty::Value => quote!(Value),
        Ty::JsonMap => quote!(Map<String, Value>),
        Ty::EmptyObject => quote!(EmptyObject),
        Ty::ObjectMeta => quote!(ObjectMeta),
        Ty::Condition => quote!(::kubeskema::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition),
        Ty::ObjectReference => quote!(::kubeskema::k8s_openapi::api::core::v1::ObjectReference),
        Ty::Vec(t) => {
            let t = ty_tokens_in(m, t, prefix);
            quote!(Vec<#t>)
        }
        Ty::Map(t) => {
            let t = ty_tokens_in(m, t, prefix);
            quote!(BTreeMap<String, #t>)
        }
        Ty::Option(t) => {
            let t = ty_tokens_in(m, t, prefix);
            quote!(Option<#t>)
        }
        Ty::Named(id) => {
            let name = ident(m.types[*id].name());
            quote!(#prefix #name)
        }
    }
}

pub(super) fn field_ty(m: &Module, f: &FieldDef) -> TokenStream {
    field_ty_in(m, f, &TokenStream::new())
}

/// [`field_ty`] for code outside module `m`: its types behind `prefix`.
pub(super) fn field_ty_in(m: &Module, f: &FieldDef, prefix: &TokenStream) -> TokenStream {
    let t = ty_tokens_in(m, &f.ty, prefix);
    let t = if f.boxed { quote!(Box<#t>) } else { t };
    match f.shape {
        Shape::Required | Shape::Defaulted | Shape::UnknownFields => t,
        Shape::Optional | Shape::Nullable => quote!(Option<#t>),
        Shape::MaybeNull => quote!(Option<Option<#t>>),
    }
}

/// `#[doc]` attributes for a description, made safe for rustdoc: fenced blocks are marked
/// `text` and lines lose their indentation, so no description ever becomes a doctest. Every
/// doc the generated code carries is written here (text from input reaches no other comment).
pub(crate) fn docs(doc: Option<&str>) -> TokenStream {
    let Some(doc) = doc else {
        return TokenStream::new();
    };
    let lines = sanitize_doc(doc);
    quote! { #(#[doc = #lines])* }
}

/// Doc lines for a description: trimmed, and code fences marked `text` unless they name a
/// language other than Rust (a schema's examples are not doc tests); what rustc refuses in a
/// comment escaped ([`doc_safe`]).
pub fn sanitize_doc(doc: &str) -> Vec<String> {
    let doc = doc_safe(doc);
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in doc.trim_end().lines() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("```") {
            if in_fence {
                out.push(" ```".to_owned());
            } else {
                let lang = rest.trim();
                let lang = if lang.is_empty() || lang == "rust" { "text" } else { lang };
                out.push(format!(" ```{lang}"));
            }
            in_fence = !in_fence;
        } else if in_fence {
            out.push(format!(" {line}"));
        } else {
            out.push(format!(" {}", trimmed.trim_end()));
        }
    }
    if in_fence {
        out.push(" ```".to_owned());
    }
    out
}

/// Text for doc comments, as rustc takes it: the bidi controls its Trojan Source lint refuses
/// (U+202A–U+202E, U+2066–U+2069, and the marks U+200E, U+200F), control characters other than
/// the tab and the line feed (a bare CR, NUL, ESC) and the Unicode line and paragraph
/// separators written as escapes (`\u{202e}`): the text shows what it holds, and the crate builds.
pub fn doc_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let refused = |c: char| {
        (c.is_control() && c != '\t' && c != '\n')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}')
    };
    // `\r\n` is a line break as `lines()` reads it; a CR alone is not.
    let text = if text.contains("\r\n") { std::borrow::Cow::Owned(text.replace("\r\n", "\n")) } else { text.into() };
    if !text.chars().any(refused) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if refused(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The type a rule under `items` or `values` of a node of type `ty` sees: the element, after a
/// null is skipped (as the derive reads it).
pub(super) fn element_ty(key: Keyword, ty: &Ty) -> Ty {
    match (key, ty) {
        (Keyword::Items, Ty::Vec(e)) | (Keyword::Values, Ty::Map(e)) => match &**e {
            Ty::Option(inner) => (**inner).clone(),
            e => e.clone(),
        },
        _ => Ty::Value,
    }
}

/// A string literal for `text`: raw (readable and greppable in the generated file) with one
/// `#` more than the longest run after a `"` in it, found in one pass; escaped where no raw
/// string can hold it (Rust allows at most 255 `#`).
pub(super) fn string_literal(text: &str) -> TokenStream {
    let (mut longest, mut run, mut after_quote) = (0usize, 0usize, false);
    for b in text.bytes() {
        match b {
            b'"' => {
                after_quote = true;
                run = 0;
            }
            b'#' if after_quote => {
                run += 1;
                longest = longest.max(run);
            }
            _ => after_quote = false,
        }
    }
    if longest < 255 {
        let hashes = "#".repeat(longest + 1);
        format!("r{hashes}\"{text}\"{hashes}").parse().expect("invariant: a raw string literal")
    } else {
        let literal = Literal::string(text);
        quote!(#literal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_never_become_doctests() {
        assert_eq!(
            sanitize_doc("Example:\n\n    kubectl apply -f x\n```\nfoo()\n```\n```yaml\na: 1\n"),
            vec![" Example:", " ", " kubectl apply -f x", " ```text", " foo()", " ```", " ```yaml", " a: 1", " ```"]
        );
    }

    /// A raw string needs one `#` more than any run after a `"`; beyond Rust's 255 the text is
    /// escaped instead (it panicked).
    #[test]
    fn embedded_text_is_always_a_literal() {
        let lit = |t: &str| string_literal(t).to_string();
        assert_eq!(lit(r#"{"a":"b"}"#), r###"r#"{"a":"b"}"#"###);
        assert_eq!(lit(r##"x"#y"##), r###"r##"x"#y"##"###);
        let hostile = format!("\"{}", "#".repeat(255));
        let parsed: syn::LitStr = syn::parse_str(&lit(&hostile)).unwrap();
        assert_eq!(parsed.value(), hostile);
    }
}
