//! Phase 4, emit: the model of a module → Rust source, through `quote` and `prettyplease`.
//!
//! Generated items are declarations with attributes; the behaviour lives in the derives of
//! `kubeskema-derive` (the prost split). Output is byte-identical for the same input.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;

use crate::emit_cel::{CelCount, NativeRule, Natives, Node};
use crate::model::{Attr, CrdJson, EnumDef, FieldDef, Module, RootInfo, Shape, StructDef, Ty, TypeDef};

fn ident(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

/// Rust source of each module of a generation (without the header comment), after
/// [`crate::model::share_types`]. `interpretable`: every type a rule sees keeps its CEL value,
/// so that rules compiled to Rust can be interpreted too (see
/// [`crate::pipeline::Options::interpretable`]).
pub fn emit_modules(modules: &[Module], paths: &[Vec<String>], interpretable: bool) -> Vec<(String, CelCount)> {
    // Rules compile first, in emission order (their functions are numbered): the ones that
    // stay interpreted decide which types need CEL values. A shared type's rules compile where
    // it is defined; elsewhere they are compiled only to learn what they read.
    let mut compiled: Vec<(Natives, Vec<Option<StructRules>>)> = modules
        .iter()
        .map(|m| {
            let mut natives = Natives::default();
            let mut rules: Vec<Option<StructRules>> = (0..m.types.len()).map(|_| None).collect();
            for &id in &m.order {
                if let TypeDef::Struct(s) = &m.types[id] {
                    let target = if m.shared[id].is_some() { &mut Natives::default() } else { &mut natives };
                    rules[id] = Some(StructRules::of(m, s, id, target));
                }
            }
            (natives, rules)
        })
        .collect();
    // A type that rules of any module read has a CEL value where it is defined.
    let mut seen: Vec<Vec<bool>> = modules.iter().map(|m| vec![false; m.types.len()]).collect();
    let mut reach: Vec<Option<CelReach>> = modules.iter().map(|_| None).collect();
    let mut dirty = vec![true; modules.len()];
    while let Some(mi) = dirty.iter().position(|&d| d) {
        dirty[mi] = false;
        let r = CelReach::of(&modules[mi], &compiled[mi].1, interpretable, &seen[mi]);
        for (id, shared) in modules[mi].shared.iter().enumerate() {
            if let Some(shared) = shared
                && r.seen_by_rules[id]
                && !seen[shared.module][shared.id]
            {
                seen[shared.module][shared.id] = true;
                dirty[shared.module] = true;
            }
        }
        reach[mi] = Some(r);
    }
    compiled
        .iter_mut()
        .zip(reach)
        .enumerate()
        .map(|(mi, ((natives, rules), reach))| {
            let reach = reach.expect("invariant: every module's reach was computed");
            emit_module(mi, modules, paths, natives, rules, &reach)
        })
        .collect()
}

/// The source of module `mi` of the generation, its types' rules compiled and their CEL reach
/// known.
fn emit_module(
    mi: usize,
    modules: &[Module],
    paths: &[Vec<String>],
    natives: &mut Natives,
    rules: &mut [Option<StructRules>],
    reach: &CelReach,
) -> (String, CelCount) {
    let m = &modules[mi];
    let items: Vec<TokenStream> = m
        .order
        .iter()
        .map(|&id| match (&m.types[id], rules[id].take(), &m.shared[id]) {
            (_, _, Some(shared)) => {
                let there = &modules[shared.module];
                reexport(&paths[mi], &paths[shared.module], there.types[shared.id].name(), m.types[id].name())
            }
            (TypeDef::Struct(s), Some(rules), None) => emit_struct(m, s, reach, id, rules),
            (TypeDef::Enum(e), _, None) => emit_enum(e),
            (TypeDef::Struct(_), None, None) => unreachable!("invariant: every struct's rules were compiled above"),
        })
        .collect();
    let native_fns = &natives.items;
    let meta = if m.kube {
        quote!(
            use ::kubeskema::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
        )
    } else {
        quote!(
            use ::kubeskema::ObjectMeta;
        )
    };
    let file = quote! {
        #[allow(unused_imports)]
        use ::kubeskema::{EmptyObject, IntOrString};
        #[allow(unused_imports)]
        #meta
        #[allow(unused_imports)]
        use ::kubeskema::serde_json::{Map, Value};
        #[allow(unused_imports)]
        use ::std::collections::BTreeMap;
        #(#items)*
    };
    let parsed: syn::File = syn::parse2(file).expect("invariant: generated tokens parse as a file");
    let mut source = space_items(&prettyplease::unparse(&parsed));
    if !native_fns.is_empty() {
        // The rules compiled to Rust call `kubeskema::cel`, which the runtime has only with its
        // `cel` feature: they sit in `__cel!`, which drops them without it. Formatted as items
        // first, since a formatter leaves a macro's body on one line.
        let fns: syn::File = syn::parse2(quote!(#(#native_fns)*)).expect("invariant: native rules parse as items");
        let body = space_items(&prettyplease::unparse(&fns));
        source.push_str("\n::kubeskema::__cel! {\n");
        for line in body.lines() {
            if !line.is_empty() {
                source.push_str("    ");
            }
            source.push_str(line);
            source.push('\n');
        }
        source.push_str("}\n");
    }
    (source, std::mem::take(&mut natives.count))
}

/// `pub use super::super::<group>::<version>::Name as Local;`: a type another module defines,
/// under this module's name for it. Modules sit at the same depth of one tree.
fn reexport(from: &[String], to: &[String], name: &str, local: &str) -> TokenStream {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    let ups = (common..from.len()).map(|_| quote!(super));
    let downs = to[common..].iter().map(|segment| ident(segment));
    let (name, local) = (ident(name), ident(local));
    let alias = (name != local).then(|| quote!(as #local));
    // Every type of the module's schemas is there by its name, used here or not.
    quote! {
        #[allow(unused_imports)]
        pub use #(#ups::)* #(#downs::)* #name #alias;
    }
}

/// prettyplease puts top-level items edge to edge; a blank line between them reads better.
fn space_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len() + code.len() / 20);
    let mut previous_closed = false;
    for line in code.lines() {
        let starts_item = ["///", "#[", "pub ", "impl "].iter().any(|p| line.starts_with(p));
        if previous_closed && starts_item {
            out.push('\n');
        }
        previous_closed = line == "}" || (line.ends_with(';') && !line.starts_with(' '));
        out.push_str(line);
        out.push('\n');
    }
    out
}

pub(crate) fn ty_tokens(m: &Module, ty: &Ty) -> TokenStream {
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
            let t = ty_tokens(m, t);
            quote!(Vec<#t>)
        }
        Ty::Map(t) => {
            let t = ty_tokens(m, t);
            quote!(BTreeMap<String, #t>)
        }
        Ty::Option(t) => {
            let t = ty_tokens(m, t);
            quote!(Option<#t>)
        }
        Ty::Named(id) => {
            let name = ident(m.types[*id].name());
            quote!(#name)
        }
    }
}

fn field_ty(m: &Module, f: &FieldDef) -> TokenStream {
    let t = ty_tokens(m, &f.ty);
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
fn element_ty(key: &str, ty: &Ty) -> Ty {
    match (key, ty) {
        ("items", Ty::Vec(e)) | ("values", Ty::Map(e)) => match &**e {
            Ty::Option(inner) => (**inner).clone(),
            e => e.clone(),
        },
        _ => Ty::Value,
    }
}

/// Compiles the rules of a node of Rust type `ty` (a rule's `self`) and of the nodes nested in
/// it, in the order [`attrs_at`] reads them back; `interpreted` is set when one stays
/// interpreted.
fn compile_rules(
    m: &Module,
    attrs: &[Attr],
    ty: &Ty,
    owner: &str,
    natives: &mut Natives,
    out: &mut Vec<Option<NativeRule>>,
    interpreted: &mut bool,
) {
    for a in attrs {
        match a {
            Attr::Rule(r) => {
                let native = natives.compile(m, &Node { ty: ty.clone(), attrs, owner }, r);
                *interpreted |= native.is_none();
                out.push(native);
            }
            Attr::Nested(k, inner) => compile_rules(m, inner, &element_ty(k, ty), owner, natives, out, interpreted),
            _ => {}
        }
    }
}

/// The attributes of a node of Rust type `ty`, its rules with what [`compile_rules`] made of
/// them (`native = ...`), and `no_cel_value` where rules sit on a value without a CEL value
/// (only rules compiled to Rust read it; a struct's own flag is [`emit_struct`]'s, as it also
/// says that the struct has no `ToCel`).
fn attrs_at(
    m: &Module,
    attrs: &[Attr],
    ty: &Ty,
    compiled: &mut std::vec::IntoIter<Option<NativeRule>>,
    reach: &CelReach,
    container: bool,
) -> Vec<TokenStream> {
    let mut tokens: Vec<TokenStream> = attrs
        .iter()
        .map(|a| match a {
            Attr::Rule(r) => rule_tokens(r, compiled.next().expect("invariant: compile_rules compiled every rule")),
            Attr::Nested(k, inner) => {
                let inner = attrs_at(m, inner, &element_ty(k, ty), compiled, reach, false);
                let k = format_ident!("{}", k);
                quote!(#k(#(#inner),*))
            }
            a => attr_tokens(a),
        })
        .collect();
    if !container && attrs.iter().any(|a| matches!(a, Attr::Rule(_))) && !reach.has_cel_value(m, ty) {
        tokens.push(quote!(no_cel_value));
    }
    tokens
}

fn rule_tokens(r: &kubeskema::schema::ValidationRule, native: Option<NativeRule>) -> TokenStream {
    let mut parts = vec![{
        let rule = &r.rule;
        quote!(rule = #rule)
    }];
    for (k, v) in [
        ("message", &r.message),
        ("message_expression", &r.message_expression),
        ("reason", &r.reason),
        ("field_path", &r.field_path),
    ] {
        if let Some(v) = v {
            let k = format_ident!("{}", k);
            parts.push(quote!(#k = #v));
        }
    }
    if let Some(b) = r.optional_old_self {
        parts.push(quote!(optional_old_self = #b));
    }
    if let Some(NativeRule { rule, message, transition }) = native {
        parts.push(quote!(native = #rule));
        if let Some(message) = message {
            parts.push(quote!(native_message = #message));
        }
        if transition {
            parts.push(quote!(transition));
        }
    }
    quote!(rule(#(#parts),*))
}

fn attr_tokens(a: &Attr) -> TokenStream {
    match a {
        Attr::Flag(k) => {
            let k = format_ident!("{}", k);
            quote!(#k)
        }
        Attr::Str(k, v) | Attr::Json(k, v) => {
            let k = format_ident!("{}", k);
            quote!(#k = #v)
        }
        Attr::Count(k, v) => {
            let k = format_ident!("{}", k);
            let v = Literal::i64_unsuffixed(*v);
            quote!(#k = #v)
        }
        Attr::Number(k, n) => {
            let k = format_ident!("{}", k);
            let v = number_tokens(n);
            quote!(#k = #v)
        }
        Attr::Strs(k, list) => {
            let k = format_ident!("{}", k);
            quote!(#k(#(#list),*))
        }
        Attr::Rule(r) => rule_tokens(r, None),
        Attr::Extension(name, value) => quote!(extension(name = #name, value = #value)),
        Attr::Nested(k, inner) => {
            let k = format_ident!("{}", k);
            let inner = inner.iter().map(attr_tokens);
            quote!(#k(#(#inner),*))
        }
        Attr::Resource(fields) => {
            let parts = fields.iter().map(|(k, v)| {
                let k = format_ident!("{}", k);
                quote!(#k = #v)
            });
            quote!(resource(#(#parts),*))
        }
    }
}

fn number_tokens(n: &serde_json::Number) -> TokenStream {
    let text = n.to_string();
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d.to_owned()),
        None => (false, text.clone()),
    };
    let lit = if n.is_f64() {
        // Keep floats floats (`10.0`, `1e20` → `1e20`): the int/float distinction matters to
        // the apiserver's bound checks.
        let d = if digits.contains(['.', 'e', 'E']) { digits } else { format!("{digits}.0") };
        Literal::f64_unsuffixed(d.parse::<f64>().unwrap_or_default())
    } else {
        Literal::u64_unsuffixed(digits.parse::<u64>().unwrap_or_default())
    };
    if neg { quote!(-#lit) } else { quote!(#lit) }
}

/// A schema default as an attribute: scalars as literals, anything else as JSON text.
fn default_attr(v: &Value) -> TokenStream {
    match v {
        Value::String(s) => quote!(default = #s),
        Value::Bool(b) => quote!(default = #b),
        Value::Number(n) => {
            let t = number_tokens(n);
            quote!(default = #t)
        }
        other => {
            let json = other.to_string();
            quote!(default_json = #json)
        }
    }
}

/// The rules of a struct and of its fields as compiled, and whether one among them stays
/// interpreted.
struct StructRules {
    container: Vec<Option<NativeRule>>,
    fields: Vec<Vec<Option<NativeRule>>>,
    interpreted_container: bool,
    interpreted_fields: Vec<bool>,
}

impl StructRules {
    fn of(m: &Module, s: &StructDef, id: usize, natives: &mut Natives) -> StructRules {
        let (mut container, mut interpreted_container) = (Vec::new(), false);
        compile_rules(m, &s.attrs, &Ty::Named(id), &s.name, natives, &mut container, &mut interpreted_container);
        let mut interpreted_fields = Vec::with_capacity(s.fields.len());
        let fields = s
            .fields
            .iter()
            .map(|f| {
                let (mut rules, mut interpreted) = (Vec::new(), false);
                compile_rules(m, &f.attrs, &f.ty, &s.name, natives, &mut rules, &mut interpreted);
                interpreted_fields.push(interpreted);
                rules
            })
            .collect();
        StructRules { container, fields, interpreted_container, interpreted_fields }
    }
}

/// Which types CEL rules concern, so the derive emits CEL code only for them (the rest would
/// be dead code that every whole-corpus build pays for): types with rules at or below them
/// (`validate_cel_at`), and types an interpreted rule at or above them reads (`ToCel`; with
/// `interpretable`, any rule). Rules compiled to Rust read the typed fields.
struct CelReach {
    rules_inside: Vec<bool>,
    seen_by_rules: Vec<bool>,
}

impl CelReach {
    /// `seen`: types that rules of other modules read (where this module defines them).
    fn of(m: &Module, node_attrs: &[Option<StructRules>], interpretable: bool, seen: &[bool]) -> CelReach {
        fn has_rules(attrs: &[Attr]) -> bool {
            attrs.iter().any(|a| match a {
                Attr::Rule(_) => true,
                Attr::Nested(_, inner) => has_rules(inner),
                _ => false,
            })
        }
        fn named(t: &Ty, out: &mut Vec<usize>) {
            match t {
                Ty::Vec(inner) | Ty::Map(inner) | Ty::Option(inner) => named(inner, out),
                Ty::Named(id) => out.push(*id),
                _ => {}
            }
        }
        let n = m.types.len();
        let own = |id: usize| matches!(&m.types[id], TypeDef::Struct(s) if has_rules(&s.attrs));
        // Whether a rule that reads CEL values sits on the type itself, or on field `k`.
        let reads_own = |id: usize| match &node_attrs[id] {
            Some(a) if !interpretable => a.interpreted_container,
            _ => own(id),
        };
        let reads_field = |id: usize, k: usize, rules: bool| match &node_attrs[id] {
            Some(a) if !interpretable => a.interpreted_fields[k],
            _ => rules,
        };
        // Per field: rules on it, rules on it that read CEL values, the types inside it.
        let fields = |id: usize| match &m.types[id] {
            TypeDef::Struct(s) => s
                .fields
                .iter()
                .enumerate()
                .map(|(k, f)| {
                    let mut inner = Vec::new();
                    named(&f.ty, &mut inner);
                    let rules = has_rules(&f.attrs);
                    (rules, reads_field(id, k, rules), inner)
                })
                .collect(),
            TypeDef::Enum(_) => Vec::new(),
        };
        let fields: Vec<Vec<(bool, bool, Vec<usize>)>> = (0..n).map(fields).collect();
        // Fixpoints: recursive types reach themselves.
        let mut rules_inside: Vec<bool> = (0..n).map(own).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for id in 0..n {
                let inside =
                    fields[id].iter().any(|(rules, _, inner)| *rules || inner.iter().any(|&i| rules_inside[i]));
                if inside && !rules_inside[id] {
                    rules_inside[id] = true;
                    changed = true;
                }
            }
        }
        let mut seen_by_rules: Vec<bool> = (0..n).map(|id| seen[id] || reads_own(id)).collect();
        changed = true;
        while changed {
            changed = false;
            for id in 0..n {
                for (_, reads, inner) in &fields[id] {
                    for &i in inner {
                        if !seen_by_rules[i] && (seen_by_rules[id] || *reads) {
                            seen_by_rules[i] = true;
                            changed = true;
                        }
                    }
                }
            }
        }
        CelReach { rules_inside, seen_by_rules }
    }

    /// Whether values of `ty` have a CEL value (`ToCel`): scalars and enums always, structs
    /// where a rule that may be interpreted reads them.
    fn has_cel_value(&self, m: &Module, ty: &Ty) -> bool {
        match ty {
            Ty::Vec(inner) | Ty::Map(inner) | Ty::Option(inner) => self.has_cel_value(m, inner),
            Ty::Named(id) => matches!(m.types[*id], TypeDef::Enum(_)) || self.seen_by_rules[*id],
            _ => true,
        }
    }
}

fn emit_struct(m: &Module, s: &StructDef, reach: &CelReach, id: usize, rules: StructRules) -> TokenStream {
    let name = ident(&s.name);
    let doc = docs(s.doc.as_deref());
    let mut container_attrs = attrs_at(m, &s.attrs, &Ty::Named(id), &mut rules.container.into_iter(), reach, true);
    if !reach.rules_inside[id] {
        container_attrs.push(quote!(no_cel_rules));
    }
    if !reach.seen_by_rules[id] {
        container_attrs.push(quote!(no_cel_value));
    }
    let container = if container_attrs.is_empty() { quote!() } else { quote!(#[kubeskema(#(#container_attrs),*)]) };
    let fields: Vec<TokenStream> = s
        .fields
        .iter()
        .zip(rules.fields)
        .map(|(f, field_rules)| {
            let fdoc = docs(f.doc.as_deref());
            let fid = ident(&f.ident);
            let ty = field_ty(m, f);
            let mut parts = Vec::new();
            if f.shape == Shape::UnknownFields {
                parts.push(quote!(unknown_fields));
            } else if f.ident.trim_start_matches("r#") != f.json_name {
                let json = &f.json_name;
                parts.push(quote!(rename = #json));
            }
            if matches!(f.shape, Shape::Nullable | Shape::MaybeNull) {
                parts.push(quote!(nullable));
            }
            if f.shape == Shape::Nullable && f.default.is_none() {
                parts.push(quote!(required));
            }
            if let Some(d) = &f.default {
                parts.push(default_attr(d));
            }
            parts.extend(attrs_at(m, &f.attrs, &f.ty, &mut field_rules.into_iter(), reach, false));
            let attr = if parts.is_empty() { quote!() } else { quote!(#[kubeskema(#(#parts),*)]) };
            quote! {
                #fdoc
                #attr
                pub #fid: #ty,
            }
        })
        .collect();
    let root_impl = s.root.as_ref().map(|r| emit_root(m, s, r));
    let unions = s.unions.iter().map(|u| emit_union(m, s, u));
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, ::kubeskema::Serialize, ::kubeskema::Deserialize, ::kubeskema::Validate)]
        #container
        pub struct #name {
            #(#fields)*
        }
        #root_impl
        #(#unions)*
    }
}

/// What a root type says of its resource: constants always; in kube-rs mode also
/// `kube::Resource`, `kube::CustomResourceExt`, `HasSpec`/`HasStatus` and `new`.
fn emit_root(m: &Module, s: &StructDef, r: &RootInfo) -> TokenStream {
    let name = ident(&s.name);
    let api_version = kubeskema::crd::api_version(&r.group, &r.version);
    let (group, version, kind, plural, crd_name) = (&r.group, &r.version, &r.kind, &r.plural, &r.crd_name);
    let (namespaced, status_subresource, short_names) = (r.namespaced, r.status_subresource, &r.short_names);
    let option = |v: &Option<String>| match v {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    let columns = r.printer_columns.iter().map(|c| {
        let (cname, ty, path, priority) = (&c.name, &c.type_, &c.json_path, c.priority);
        let (description, format) = (option(&c.description), option(&c.format));
        quote! {
            ::kubeskema::resource::PrinterColumn {
                name: #cname, type_: #ty, json_path: #path, description: #description, format: #format, priority: #priority,
            }
        }
    });
    let scale = match &r.scale {
        Some(sc) => {
            let (spec, status, selector) =
                (&sc.spec_replicas_path, &sc.status_replicas_path, option(&sc.label_selector_path));
            quote! {
                ::core::option::Option::Some(::kubeskema::resource::Scale {
                    spec_replicas_path: #spec, status_replicas_path: #status, label_selector_path: #selector,
                })
            }
        }
        None => quote!(::core::option::Option::None),
    };
    let consts = quote! {
        impl #name {
            /// The `apiVersion` of this resource.
            pub const API_VERSION: &'static str = #api_version;
            /// The API group.
            pub const GROUP: &'static str = #group;
            /// The version within the group.
            pub const VERSION: &'static str = #version;
            /// The `kind`.
            pub const KIND: &'static str = #kind;
            /// The plural resource name (the path segment in the API).
            pub const PLURAL: &'static str = #plural;
            /// Whether objects live in a namespace.
            pub const NAMESPACED: bool = #namespaced;
            /// The CRD's name.
            pub const CRD_NAME: &'static str = #crd_name;
            /// Short names (`kubectl get <short name>`).
            pub const SHORT_NAMES: &'static [&'static str] = &[#(#short_names),*];
            /// Whether the status subresource is on: `status` is written through `/status` only.
            pub const STATUS_SUBRESOURCE: bool = #status_subresource;
            /// The scale subresource, when on.
            pub const SCALE: ::core::option::Option<::kubeskema::resource::Scale> = #scale;
            /// What `kubectl get` shows (`additionalPrinterColumns`).
            pub const PRINTER_COLUMNS: &'static [::kubeskema::resource::PrinterColumn] = &[#(#columns),*];
        }
    };
    if !m.kube {
        return consts;
    }
    let kube = quote!(::kubeskema::kube_core);
    let scope = if namespaced { quote!(#kube::NamespaceResourceScope) } else { quote!(#kube::ClusterResourceScope) };
    let field = |json: &str| s.fields.iter().find(|f| f.json_name == json);
    let spec = field("spec").map(|f| {
        let (fid, ty) = (ident(&f.ident), field_ty(m, f));
        quote! {
            impl #kube::object::HasSpec for #name {
                type Spec = #ty;
                fn spec(&self) -> &#ty { &self.#fid }
                fn spec_mut(&mut self) -> &mut #ty { &mut self.#fid }
            }
        }
    });
    let status = field("status").filter(|f| f.shape == Shape::Optional).map(|f| {
        let (fid, ty) = (ident(&f.ident), ty_tokens(m, &f.ty));
        quote! {
            impl #kube::object::HasStatus for #name {
                type Status = #ty;
                fn status(&self) -> ::core::option::Option<&#ty> { self.#fid.as_ref() }
                fn status_mut(&mut self) -> &mut ::core::option::Option<#ty> { &mut self.#fid }
            }
        }
    });
    // `new(name, spec)` where every other field can start empty, as kube-derive offers it.
    let rest: Vec<&FieldDef> = s
        .fields
        .iter()
        .filter(|f| !["apiVersion", "kind", "metadata", "spec"].contains(&f.json_name.as_str()))
        .collect();
    let others_empty = rest.iter().all(|f| matches!(f.shape, Shape::Optional | Shape::UnknownFields));
    let constructor = field("spec").filter(|_| others_empty).and_then(|f| {
        let fid = ident(&f.ident);
        let (ty, value) = match f.shape {
            Shape::Required | Shape::Defaulted => (ty_tokens(m, &f.ty), quote!(#fid)),
            Shape::Optional => (ty_tokens(m, &f.ty), quote!(::core::option::Option::Some(#fid))),
            _ => return None,
        };
        let rest = rest.iter().map(|o| {
            let oid = ident(&o.ident);
            quote!(#oid: ::core::default::Default::default(),)
        });
        Some(quote! {
            impl #name {
                /// A new object named `name` with `spec`; `apiVersion` and `kind` set, the rest empty.
                pub fn new(name: &str, #fid: #ty) -> Self {
                    #name {
                        api_version: ::std::borrow::ToOwned::to_owned(Self::API_VERSION),
                        kind: ::std::borrow::ToOwned::to_owned(Self::KIND),
                        metadata: ObjectMeta { name: ::core::option::Option::Some(::std::borrow::ToOwned::to_owned(name)), ..::core::default::Default::default() },
                        #fid: #value,
                        #(#rest)*
                    }
                }
            }
        })
    });
    // The CRD's JSON: declared here once, or the constant of the version module that has it.
    let (crd_json_const, crd_json) = match &r.crd_json {
        Some(CrdJson::Here { name, json }) => {
            let (name, json) = (ident(name), string_literal(json));
            (
                Some(quote! {
                    #[doc(hidden)]
                    pub const #name: &str = #json;
                }),
                quote!(#name),
            )
        }
        Some(CrdJson::There { module, name }) => {
            let (module, name) = (ident(module), ident(name));
            (None, quote!(super::#module::#name))
        }
        None => (None, quote!("")),
    };
    quote! {
        #consts
        #crd_json_const
        impl #name {
            /// The CustomResourceDefinition this type was generated from, exactly as it was
            /// written (every version), as JSON. [`CustomResourceExt::crd`] reads it into
            /// k8s-openapi's type (which holds numbers such as `maximum` as floats).
            ///
            /// [`CustomResourceExt::crd`]: ::kubeskema::kube_core::crd::v1::CustomResourceExt::crd
            pub const CRD_JSON: &'static str = #crd_json;
        }
        #constructor
        impl #kube::Resource for #name {
            type DynamicType = ();
            type Scope = #scope;
            fn kind(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#kind) }
            fn group(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#group) }
            fn version(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#version) }
            fn api_version(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#api_version) }
            fn plural(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#plural) }
            fn meta(&self) -> &ObjectMeta { &self.metadata }
            fn meta_mut(&mut self) -> &mut ObjectMeta { &mut self.metadata }
        }
        impl #kube::crd::v1::CustomResourceExt for #name {
            /// The CustomResourceDefinition this type was generated from (every version).
            fn crd() -> ::kubeskema::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
                ::kubeskema::serde_json::from_str(Self::CRD_JSON).expect("invariant: the CRD was read from this JSON")
            }
            fn crd_name() -> &'static str { #crd_name }
            fn api_resource() -> #kube::discovery::ApiResource { #kube::discovery::ApiResource::erase::<Self>(&()) }
            fn shortnames() -> &'static [&'static str] { Self::SHORT_NAMES }
        }
        #spec
        #status
    }
}

fn emit_union(m: &Module, s: &StructDef, u: &crate::model::Union) -> TokenStream {
    let name = ident(&s.name);
    let (suffix, method, junctor) = if u.one_of { ("OneOf", "one_of", "oneOf") } else { ("AnyOf", "any_of", "anyOf") };
    let enum_name = format_ident!("{}{}", s.name, suffix);
    let method = format_ident!("{}", method);
    let members: Vec<&FieldDef> =
        u.members.iter().filter_map(|j| s.fields.iter().find(|f| &f.json_name == j)).collect();
    let variant_names = crate::names::variant_names(&members.iter().map(|f| f.json_name.clone()).collect::<Vec<_>>());
    let variants = members.iter().zip(&variant_names).map(|(f, v)| {
        let v = ident(v);
        let inner = match f.shape {
            Shape::MaybeNull | Shape::Nullable => {
                let t = ty_tokens(m, &f.ty);
                quote!(Option<#t>)
            }
            _ => ty_tokens(m, &f.ty),
        };
        let doc = docs(Some(&format!("`{}` is set.", f.json_name)));
        quote! { #doc #v(&'a #inner), }
    });
    let checks = members.iter().zip(&variant_names).map(|(f, v)| {
        let v = ident(v);
        let fid = ident(&f.ident);
        match f.shape {
            Shape::Optional | Shape::MaybeNull => quote! {
                if let Some(value) = &self.#fid { found.push(#enum_name::#v(value)); }
            },
            _ => quote! { found.push(#enum_name::#v(&self.#fid)); },
        }
    });
    let listed = u.members.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ");
    let enum_doc = docs(Some(&format!("Which of {listed} is set: the typed view of the schema's `{junctor}`.")));
    let body = if u.one_of {
        quote! {
            let mut found = Vec::new();
            #(#checks)*
            if found.len() == 1 { found.pop() } else { None }
        }
    } else {
        quote! {
            let mut found = Vec::new();
            #(#checks)*
            found
        }
    };
    let (ret, method_doc) = if u.one_of {
        (
            quote!(Option<#enum_name<'_>>),
            docs(Some(&format!(
                "The member of the `oneOf` that is set ({listed}), or `None` when none or several are."
            ))),
        )
    } else {
        (quote!(Vec<#enum_name<'_>>), docs(Some(&format!("The members of the `anyOf` that are set ({listed})."))))
    };
    quote! {
        #enum_doc
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum #enum_name<'a> { #(#variants)* }
        impl #name {
            #method_doc
            pub fn #method(&self) -> #ret { #body }
        }
    }
}

fn emit_enum(e: &EnumDef) -> TokenStream {
    let name = ident(&e.name);
    let doc = docs(e.doc.as_deref());
    // Variants that keep their own spelling (`head`, `HEAD`) are not UpperCamelCase.
    let needs_allow = e.variants.iter().any(|(v, _)| heck::ToUpperCamelCase::to_upper_camel_case(v.as_str()) != *v);
    let allow =
        if needs_allow { quote!(#[allow(non_camel_case_types, clippy::upper_case_acronyms)]) } else { quote!() };
    let variants = e.variants.iter().map(|(v, value)| {
        let vid = ident(v);
        let attr = match value {
            Value::String(s) if s == v => quote!(),
            Value::String(s) => quote!(#[kubeskema(value = #s)]),
            Value::Bool(b) => quote!(#[kubeskema(value = #b)]),
            Value::Number(n) => {
                let t = number_tokens(n);
                quote!(#[kubeskema(value = #t)])
            }
            _ => quote!(),
        };
        let vdoc = docs(Some(&format!(
            "`{}`",
            match value {
                Value::String(s) => format!("{s:?}"),
                other => other.to_string(),
            }
        )));
        quote! { #vdoc #attr #vid, }
    });
    // The schema's whole list, for the apiserver's `supported values` (nulls, repeats).
    let supported = e.supported.as_ref().map(|list| {
        let text = list.to_string();
        quote!(#[kubeskema(enum_json = #text)])
    });
    quote! {
        #doc
        #allow
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::kubeskema::Serialize, ::kubeskema::Deserialize, ::kubeskema::Validate)]
        #supported
        pub enum #name { #(#variants)* }
    }
}

/// A string literal for `text`: raw (readable and greppable in the generated file) with one
/// `#` more than the longest run after a `"` in it, found in one pass; escaped where no raw
/// string can hold it (Rust allows at most 255 `#`).
fn string_literal(text: &str) -> TokenStream {
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
