//! Structs, IntOrString-style unions and enums, with the `#[kubeskema(...)]` attributes that
//! carry each schema constraint to the derive.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};
use serde_json::Value;

use super::cel::{NativeRule, Natives, Node};
use super::root::emit_root;
use super::tokens::{docs, element_ty, field_ty, ident, ty_tokens};
use kubeskema_attributes::print;

use crate::model::{Attr, EnumDef, FieldDef, Keyword, Module, Shape, StructDef, Ty, TypeDef};

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
            Attr::Rule(r, checked) => {
                let checked = checked.0.map(|id| &m.rules.0[id]);
                let native = natives.compile(m, &Node { ty: ty.clone(), attrs, owner }, r, checked);
                *interpreted |= native.is_none();
                out.push(native);
            }
            Attr::Nested(k, inner) => compile_rules(m, inner, &element_ty(*k, ty), owner, natives, out, interpreted),
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
            Attr::Rule(r, _) => {
                let native = compiled.next().expect("invariant: compile_rules compiled every rule");
                print::rule(
                    r,
                    native.map(|n| print::Native {
                        rule: n.rule.into_token_stream(),
                        message: n.message.map(ToTokens::into_token_stream),
                        transition: n.transition,
                    }),
                )
            }
            Attr::Nested(k, inner) => {
                let inner = attrs_at(m, inner, &element_ty(*k, ty), compiled, reach, false);
                quote!(#k(#(#inner),*))
            }
            a => print::attr(a),
        })
        .collect();
    if !container && attrs.iter().any(|a| matches!(a, Attr::Rule(..))) && !reach.has_cel_value(m, ty) {
        tokens.push(print::attr(&Attr::Flag(Keyword::NoCelValue)));
    }
    tokens
}

/// The rules of a struct and of its fields as compiled, and whether one among them stays
/// interpreted.
pub(super) struct StructRules {
    container: Vec<Option<NativeRule>>,
    fields: Vec<Vec<Option<NativeRule>>>,
    interpreted_container: bool,
    interpreted_fields: Vec<bool>,
}

impl StructRules {
    pub(super) fn of(m: &Module, s: &StructDef, id: usize, natives: &mut Natives) -> StructRules {
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
pub(super) struct CelReach {
    rules_inside: Vec<bool>,
    pub(super) seen_by_rules: Vec<bool>,
}

impl CelReach {
    /// `seen`: types that rules of other modules read (where this module defines them).
    pub(super) fn of(m: &Module, node_attrs: &[Option<StructRules>], interpretable: bool, seen: &[bool]) -> CelReach {
        fn has_rules(attrs: &[Attr]) -> bool {
            attrs.iter().any(|a| match a {
                Attr::Rule(..) => true,
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

/// The key fields of each struct of the module that is the item type of `map` lists (as
/// `apply_keys`, for its apply configuration); a struct used by lists with other keys has none.
pub(super) fn map_list_keys(m: &Module) -> std::collections::HashMap<usize, Vec<String>> {
    let mut keys: std::collections::HashMap<usize, Option<Vec<String>>> = Default::default();
    for t in &m.types {
        let TypeDef::Struct(s) = t else { continue };
        for f in &s.fields {
            let item = match &f.ty {
                Ty::Vec(item) => item,
                Ty::Option(inner) => match inner.as_ref() {
                    Ty::Vec(item) => item,
                    _ => continue,
                },
                _ => continue,
            };
            let (Ty::Named(id), Some(list_keys)) = (
                item.as_ref(),
                f.attrs.iter().find_map(|a| match a {
                    Attr::Strs(Keyword::ListMapKeys, k) => Some(k),
                    _ => None,
                }),
            ) else {
                continue;
            };
            let entry = keys.entry(*id).or_insert_with(|| Some(list_keys.clone()));
            if entry.as_ref() != Some(list_keys) {
                *entry = None;
            }
        }
    }
    keys.into_iter().filter_map(|(id, k)| Some((id, k?))).collect()
}

pub(super) fn emit_struct(
    m: &Module,
    s: &StructDef,
    reach: &CelReach,
    id: usize,
    rules: StructRules,
    apply_keys: Option<&Vec<String>>,
) -> TokenStream {
    let name = ident(&s.name);
    let doc = docs(s.doc.as_deref());
    let mut container_attrs = attrs_at(m, &s.attrs, &Ty::Named(id), &mut rules.container.into_iter(), reach, true);
    if !reach.rules_inside[id] {
        container_attrs.push(print::attr(&Attr::Flag(Keyword::NoCelRules)));
    }
    if !reach.seen_by_rules[id] {
        container_attrs.push(print::attr(&Attr::Flag(Keyword::NoCelValue)));
    }
    container_attrs.push(print::attr(&Attr::Flag(Keyword::Constructors)));
    if let Some(keys) = apply_keys {
        container_attrs.push(print::attr(&Attr::Strs(Keyword::ApplyKeys, keys.clone())));
    }
    let container = print::attribute(&container_attrs);
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
                parts.push(print::attr(&Attr::Flag(Keyword::UnknownFields)));
            } else if f.ident.trim_start_matches("r#") != f.json_name {
                parts.push(print::attr(&Attr::Str(Keyword::Rename, f.json_name.clone())));
            }
            if matches!(f.shape, Shape::Nullable | Shape::MaybeNull) {
                parts.push(print::attr(&Attr::Flag(Keyword::Nullable)));
            }
            if f.shape == Shape::Nullable && f.default.is_none() {
                parts.push(print::attr(&Attr::Flag(Keyword::Required)));
            }
            if let Some(d) = &f.default {
                parts.push(print::default(d));
            }
            parts.extend(attrs_at(m, &f.attrs, &f.ty, &mut field_rules.into_iter(), reach, false));
            let attr = print::attribute(&parts);
            quote! {
                #fdoc
                #attr
                pub #fid: #ty,
            }
        })
        .collect();
    let root_impl = s.root.as_ref().map(|r| emit_root(r));
    let unions = s.unions.iter().map(|u| emit_union(m, s, u));
    let apply = apply_derive(m);
    quote! {
        #doc
        #[derive(Clone, Debug, PartialEq, ::kubeskema::Serialize, ::kubeskema::Deserialize, ::kubeskema::Validate #apply)]
        #container
        pub struct #name {
            #(#fields)*
        }
        #root_impl
        #(#unions)*
    }
}

fn emit_union(m: &Module, s: &StructDef, u: &crate::model::Union) -> TokenStream {
    let name = ident(&s.name);
    let (suffix, method, junctor) = if u.one_of { ("OneOf", "one_of", "oneOf") } else { ("AnyOf", "any_of", "anyOf") };
    let enum_name = format_ident!("{}{}", s.name, suffix);
    let method = format_ident!("{}", method);
    let members: Vec<&FieldDef> =
        u.members.iter().filter_map(|j| s.fields.iter().find(|f| &f.json_name == j)).collect();
    let variant_names =
        crate::model::names::variant_names(&members.iter().map(|f| f.json_name.clone()).collect::<Vec<_>>());
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

/// `, ::kubeskema::ApplyConfiguration` where the module derives apply configurations.
fn apply_derive(m: &Module) -> TokenStream {
    if m.apply_configurations { quote!(, ::kubeskema::ApplyConfiguration) } else { TokenStream::new() }
}

pub(super) fn emit_enum(m: &Module, e: &EnumDef) -> TokenStream {
    let apply = apply_derive(m);
    let name = ident(&e.name);
    let doc = docs(e.doc.as_deref());
    // Variants that keep their own spelling (`head`, `HEAD`) are not UpperCamelCase.
    let needs_allow = e.variants.iter().any(|(v, _)| heck::ToUpperCamelCase::to_upper_camel_case(v.as_str()) != *v);
    let allow =
        // Variants named by the schema's values (`TCP_UDP`) keep their case.
        if needs_allow { quote!(#[allow(non_camel_case_types, clippy::upper_case_acronyms)]) } else { quote!() };
    let variants = e.variants.iter().map(|(v, value)| {
        let vid = ident(v);
        let attr = match value {
            Value::String(s) if s == v => quote!(),
            value => print::attribute(&print::literal(Keyword::Value, value).into_iter().collect::<Vec<_>>()),
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
    let supported = e
        .supported
        .as_ref()
        .map(|list| print::attribute(&[print::attr(&Attr::Json(Keyword::EnumJson, list.to_string()))]));
    quote! {
        #doc
        #allow
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::kubeskema::Serialize, ::kubeskema::Deserialize, ::kubeskema::Validate #apply)]
        #supported
        pub enum #name { #(#variants)* }
    }
}
