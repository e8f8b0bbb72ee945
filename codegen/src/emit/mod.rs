//! Phase 4, emit: the model of a module → Rust source, through `quote` and `prettyplease`:
//! [`types`] (structs, unions, enums and their attributes), [`root`] (the root type's impls),
//! [`cel`] (rules compiled to Rust), [`tokens`] (names, types, docs, literals).
//!
//! Generated items are declarations with attributes; the behaviour lives in the derives of
//! `kubeskema-derive` (the prost split). Output is byte-identical for the same input.

mod cel;
mod cel_types;
mod conversion;
mod root;
mod tokens;
mod types;

use proc_macro2::TokenStream;
use quote::quote;

pub use cel::CelCount;
use cel::Natives;
pub use conversion::module_of as conversion_module;
use tokens::ident;
use types::{CelReach, StructRules, emit_enum, emit_struct};

use crate::model::conversion::Conversion;
use crate::model::{Module, TypeDef};

/// Rust source of each module of a generation (without the header comment), after
/// `model::share_types`. `interpretable`: every type a rule sees keeps its CEL value,
/// so that rules compiled to Rust can be interpreted too (see
/// [`crate::pipeline::Options::interpretable`]). `native_cel` off, no rule is compiled here
/// ([`crate::pipeline::Options::native_cel`]).
pub fn emit_modules(
    modules: &[Module],
    paths: &[Vec<String>],
    conversions: &[Conversion],
    interpretable: bool,
    native_cel: bool,
) -> Vec<(String, CelCount)> {
    // Rules compile first, in emission order (their functions are numbered): the ones that
    // stay interpreted decide which types need CEL values. A shared type's rules compile where
    // it is defined; elsewhere they are compiled only to learn what they read.
    let mut compiled: Vec<(Natives, Vec<Option<StructRules>>)> = modules
        .iter()
        .map(|m| {
            let mut natives = Natives { off: !native_cel, ..Natives::default() };
            let mut rules: Vec<Option<StructRules>> = (0..m.types.len()).map(|_| None).collect();
            for &id in &m.order {
                if let TypeDef::Struct(s) = &m.types[id] {
                    let target = if m.shared[id].is_some() {
                        &mut Natives { off: !native_cel, ..Natives::default() }
                    } else {
                        &mut natives
                    };
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
    let mut converting: Vec<Vec<TokenStream>> = modules.iter().map(|_| Vec::new()).collect();
    for (mi, items) in conversion::conversion_items(modules, paths, conversions) {
        converting[mi].push(items);
    }
    compiled
        .iter_mut()
        .zip(reach)
        .zip(converting)
        .enumerate()
        .map(|(mi, (((natives, rules), reach), converting))| {
            let reach = reach.expect("invariant: every module's reach was computed");
            emit_module(mi, modules, paths, natives, rules, &reach, converting)
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
    conversions: Vec<TokenStream>,
) -> (String, CelCount) {
    let m = &modules[mi];
    let apply_keys = if m.apply_configurations { types::map_list_keys(m) } else { Default::default() };
    let items: Vec<TokenStream> = m
        .order
        .iter()
        .map(|&id| match (&m.types[id], rules[id].take(), &m.shared[id]) {
            (_, _, Some(shared)) => {
                let there = &modules[shared.module];
                let (name, local) = (there.types[shared.id].name(), m.types[id].name());
                let mut items = reexport(&paths[mi], &paths[shared.module], name, local);
                // A shared struct's apply configuration goes with it.
                if m.apply_configurations && matches!(m.types[id], TypeDef::Struct(_)) {
                    items.extend(reexport(
                        &paths[mi],
                        &paths[shared.module],
                        &format!("{name}Apply"),
                        &format!("{local}Apply"),
                    ));
                }
                items
            }
            (TypeDef::Struct(s), Some(rules), None) => emit_struct(m, s, reach, id, rules, apply_keys.get(&id)),
            (TypeDef::Enum(e), _, None) => emit_enum(m, e),
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
        // A module uses these only when its schemas hold them.
        #[allow(unused_imports)]
        use ::kubeskema::{EmptyObject, IntOrString};
        #[allow(unused_imports)]
        #meta
        // As above: used only when the schemas hold these.
        #[allow(unused_imports)]
        use ::kubeskema::serde_json::{Map, Value};
        #[allow(unused_imports)]
        use ::std::collections::BTreeMap;
        #(#items)*
        #(#conversions)*
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
    quote! {
        // Every type of the module's schemas is there by its name, used here or not.
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
