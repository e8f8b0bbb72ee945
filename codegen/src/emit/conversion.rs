//! Conversions between a CRD's versions (planned in `model::conversion`): in each spoke's
//! module, `<kind>_conversion` with the trait `Conversion` (a method per place generated code
//! cannot convert), `to_hub` and `from_hub`; in the hub's module, `<kind>_conversion::Converter`,
//! every version converted through the hub for a conversion webhook.
//!
//! A trait without methods is implemented for every type: a CRD whose versions differ only in
//! what generated code converts needs no user code (`Converter(())`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::tokens::{field_ty_in, ident, ty_tokens_in};
use crate::model::conversion::{Container, Conv, Conversion, FieldMap, Method, PairBody, SpokePlan, Way};
use crate::model::{Module, TypeDef};

/// The items a module gets for the conversions it takes part in: `(module index, items)`.
pub(super) fn conversion_items(
    modules: &[Module],
    paths: &[Vec<String>],
    conversions: &[Conversion],
) -> Vec<(usize, TokenStream)> {
    let mut out = Vec::new();
    for c in conversions {
        for spoke in &c.spokes {
            out.push((spoke.side.module, spoke_module(modules, paths, c, spoke)));
        }
        out.push((c.hub.module, hub_module(modules, paths, c)));
    }
    out
}

/// `super::super::<group>::<version>::`: from inside a conversion module of module `from`
/// (one level below it) to module `to`.
fn prefix_to(from: &[String], to: &[String]) -> TokenStream {
    let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    let ups = (common..=from.len()).map(|_| parent());
    let downs = to[common..].iter().map(|segment| {
        let s = ident(segment);
        quote!(#s::)
    });
    quote!(#(#ups)* #(#downs)*)
}

/// The conversion module's name in a version's module (`widget_conversion`).
pub fn module_of(kind: &str) -> String {
    let snake = crate::model::names::field_ident(kind);
    format!("{}_conversion", snake.trim_start_matches("r#"))
}

/// A doc comment of this module's own text, in lines of at most 96 characters (fenced blocks
/// left as they are).
fn docs(text: Option<&str>) -> TokenStream {
    let Some(text) = text else { return TokenStream::new() };
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if fenced || line.starts_with("```") || line.len() <= 96 {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let mut width = 0;
        for word in line.split(' ') {
            if width > 0 && width + 1 + word.len() > 96 {
                out.push('\n');
                width = 0;
            } else if width > 0 {
                out.push(' ');
                width += 1;
            }
            out.push_str(word);
            width += word.len();
        }
        out.push('\n');
    }
    super::tokens::docs(Some(&out))
}

/// `super::`, the path from a conversion module to the version's module it sits in (spelled
/// as tokens: the generated code's `super` is not an import of this module's).
fn parent() -> TokenStream {
    let up = proc_macro2::Ident::new("super", proc_macro2::Span::call_site());
    quote!(#up::)
}

/// The `apiVersion` of `version` of the CRD: the runtime's one spelling of it.
fn api_version(c: &Conversion, version: &str) -> String {
    kubeskema::crd::api_version(&c.group, version)
}

fn spoke_module(modules: &[Module], paths: &[Vec<String>], c: &Conversion, plan: &SpokePlan) -> TokenStream {
    let (sm, hm) = (&modules[plan.side.module], &modules[c.hub.module]);
    let spoke = parent();
    let up_one = parent();
    let hub = prefix_to(&paths[plan.side.module], &paths[c.hub.module]);
    let module = ident(&module_of(&c.kind));
    let (sv, hv) = (&plan.side.version, &c.hub.version);
    let kind = &c.kind;

    // In the order of their places, spoke to hub first.
    let mut sorted: Vec<&Method> = plan.methods.iter().collect();
    sorted.sort_by(|a, b| (&a.path, !a.up).cmp(&(&b.path, !b.up)));
    let methods = sorted.into_iter().map(|m| method_sig(sm, hm, plan, m, &spoke, &hub, sv, hv));
    let trait_doc = docs(Some(&format!(
        "What converting `{kind}` between `{sv}` and the hub `{hv}` needs written by hand: one method per \
         field generated code cannot convert, named after its place, in each direction that needs it ({} in \
         all).{}",
        plan.methods.len(),
        if plan.methods.is_empty() {
            " Nothing here: every type implements it."
        } else {
            " Each returns the field's value from the struct on the other side; fields it cannot know \
             (added in the hub) are restored from `kubeskema::conversion::DATA_ANNOTATION` when the \
             object went down and comes back."
        }
    )));
    let blanket = plan.methods.is_empty().then(|| {
        quote!(
            impl<T: ?Sized> Conversion for T {}
        )
    });

    let fns = plan.pairs.iter().enumerate().flat_map(|(i, _)| {
        [pair_fn(sm, hm, plan, i, true, &spoke, &hub, c), pair_fn(sm, hm, plan, i, false, &spoke, &hub, c)]
    });
    let root_s = ident(sm.types[plan.side.root].name());
    let root_h = ident(hm.types[c.hub.root].name());
    let (up, down) = (format_ident!("{}", plan.pairs[0].fns.0), format_ident!("{}", plan.pairs[0].fns.1));
    let has_meta = |m: &Module, id| {
        matches!(&m.types[id], TypeDef::Struct(s) if s.fields.iter().any(|f| f.json_name == "metadata"
            && f.ty == crate::model::Ty::ObjectMeta && f.shape.options() == 0 && !f.boxed))
    };
    let (to_hub_body, from_hub_body) = if has_meta(sm, plan.side.root) && has_meta(hm, c.hub.root) {
        (
            quote! {
                ::kubeskema::__private::conversion::up_restoring(
                    from, |s| #up(c, s), |h| #down(c, h),
                    |s: &mut #spoke #root_s| &mut s.metadata, |h: &mut #hub #root_h| &mut h.metadata,
                )
            },
            quote! {
                ::kubeskema::__private::conversion::down_keeping(
                    from, |h| #down(c, h), |s| #up(c, s),
                    |h: &mut #hub #root_h| &mut h.metadata, |s: &mut #spoke #root_s| &mut s.metadata,
                )
            },
        )
    } else {
        (quote!(#up(c, from)), quote!(#down(c, from)))
    };
    let module_doc = docs(Some(&format!(
        "Conversions of `{kind}` between `{sv}` (this version) and the hub `{hv}`: [`to_hub`], [`from_hub`], and \
         [`Conversion`], what they need written by hand."
    )));
    let to_doc = docs(Some(&format!(
        "`{kind}` of `{sv}` up to the hub `{hv}`, with what it could not hold restored from \
         `kubeskema::conversion::DATA_ANNOTATION` (taken off)."
    )));
    let from_doc = docs(Some(&format!(
        "`{kind}` of the hub `{hv}` down to `{sv}`; when `{sv}` cannot hold all of it, the hub object is kept in \
         `kubeskema::conversion::DATA_ANNOTATION`."
    )));
    let mut lost = Vec::new();
    not_in_hub(sm, plan, 0, &mut Vec::new(), &mut vec![0], &mut lost);
    let lost = lost.iter().map(|path| quote!(&[#(#path),*]));
    let lost_doc = docs(Some(&format!(
        "The fields of `{sv}` with no field of their name in the hub `{hv}`, as JSON keys (`[]` every item \
         of a list, `[*]` every value of a map): `to_hub` reads them only through `Conversion`'s methods. \
         Those removed (not renamed) are what the round-trip test (`kubeskema::testing::round_trip`) \
         must not compare."
    )));
    // Under `strategy: None`, what the apiserver itself does between the versions.
    let relabel = (!c.webhook).then(|| {
        let (hub_api, spoke_api) = (api_version(c, hv), api_version(c, sv));
        let doc = docs(Some(&format!(
            "What the apiserver serves between `{sv}` and `{hv}` under the CRD's `strategy: None`: the object with \
             `apiVersion` changed and nothing else, read as the other version's type. [`to_hub`] is what a \
             conversion webhook would do instead."
        )));
        quote! {
            #doc
            pub fn relabel_to_hub(from: &#spoke #root_s) -> ::std::result::Result<#hub #root_h, ::std::string::String> {
                ::kubeskema::__private::conversion::relabel(from, #hub_api)
            }

            #doc
            pub fn relabel_from_hub(from: &#hub #root_h) -> ::std::result::Result<#spoke #root_s, ::std::string::String> {
                ::kubeskema::__private::conversion::relabel(from, #spoke_api)
            }
        }
    });
    quote! {
        #module_doc
        // Generated for every field, whatever the user's methods read or the conversion uses.
        #[allow(dead_code, unused_variables, unused_mut, clippy::redundant_closure, clippy::let_and_return, reason = "generated: a function per pair and direction, used or not")]
        pub mod #module {
            // The scalar types' names (`String`, `Value`, `IntOrString`, ...); generated types
            // are named by path.
            #[allow(unused_imports)]
            use #up_one *;

            #lost_doc
            pub const NOT_IN_HUB: &[&[&str]] = &[#(#lost),*];

            #trait_doc
            pub trait Conversion {
                #(#methods)*
            }
            #blanket

            #to_doc
            pub fn to_hub<C: Conversion + ?Sized>(c: &C, from: #spoke #root_s) -> #hub #root_h {
                #to_hub_body
            }

            #from_doc
            pub fn from_hub<C: Conversion + ?Sized>(c: &C, from: #hub #root_h) -> #spoke #root_s {
                #from_hub_body
            }

            #relabel

            #(#fns)*
        }
    }
}

/// The spoke's fields going up nowhere, under pair `i` reached at `at` (`stack`: the pairs
/// being walked, so that a recursive type is walked once).
fn not_in_hub(
    sm: &Module,
    plan: &SpokePlan,
    i: usize,
    at: &mut Vec<String>,
    stack: &mut Vec<usize>,
    out: &mut Vec<Vec<String>>,
) {
    let (PairBody::Struct(maps), TypeDef::Struct(spoke)) = (&plan.pairs[i].body, &sm.types[plan.pairs[i].spoke]) else {
        return;
    };
    for map in maps {
        let Some(f) = map.spoke.map(|f| &spoke.fields[f]) else { continue };
        // The keys a preserving struct keeps are not one place.
        if f.json_name.is_empty() {
            continue;
        }
        at.push(f.json_name.clone());
        match &map.up {
            Way::Lost => out.push(at.clone()),
            Way::Convert(conv) => {
                let mut conv = conv;
                let depth = at.len();
                loop {
                    match conv {
                        Conv::Each(container, inner) => {
                            match container {
                                Container::Vec => at.push("[]".into()),
                                Container::Map => at.push("[*]".into()),
                                Container::Option => {}
                            }
                            conv = inner;
                        }
                        Conv::Some(inner) | Conv::Boxed { inner, .. } => conv = inner,
                        Conv::Pair(p) => {
                            if !stack.contains(p) {
                                stack.push(*p);
                                not_in_hub(sm, plan, *p, at, stack, out);
                                stack.pop();
                            }
                            break;
                        }
                        _ => break,
                    }
                }
                at.truncate(depth);
            }
            Way::Method(_) => {}
        }
        at.pop();
    }
}

#[allow(clippy::too_many_arguments, reason = "both sides' modules, prefixes and versions")]
fn method_sig(
    sm: &Module,
    hm: &Module,
    plan: &SpokePlan,
    m: &Method,
    spoke: &TokenStream,
    hub: &TokenStream,
    sv: &str,
    hv: &str,
) -> TokenStream {
    let pair = &plan.pairs[m.pair];
    let (from_m, from_id, from_prefix, to_m, to_id, to_prefix, (from_v, to_v)) = if m.up {
        (sm, pair.spoke, spoke, hm, pair.hub, hub, (sv, hv))
    } else {
        (hm, pair.hub, hub, sm, pair.spoke, spoke, (hv, sv))
    };
    let TypeDef::Struct(target) = &to_m.types[to_id] else { unreachable!("invariant: methods write struct fields") };
    let ret = field_ty_in(to_m, &target.fields[m.field], to_prefix);
    let from_ty = ty_tokens_in(from_m, &crate::model::Ty::Named(from_id), from_prefix);
    let schema = |v: &str, s: &Option<String>| match s {
        Some(json) => {
            let json = if json.len() > 2000 {
                let cut = (0..=2000).rev().find(|&i| json.is_char_boundary(i)).unwrap_or(0);
                format!("{} … ({} more bytes)", &json[..cut], json.len() - cut)
            } else {
                json.clone()
            };
            format!("\n\n`{v}`:\n```json\n{json}\n```")
        }
        None => format!("\n\n`{v}`: no such field."),
    };
    let doc = format!(
        "`{}` from `{from_v}` to `{to_v}` ({}): the field's value in `{to_v}`, from the struct in `{from_v}`.{}{}",
        m.path,
        m.why,
        schema(sv, &m.schemas.0),
        schema(hv, &m.schemas.1)
    );
    let name = ident(&m.name);
    let Some(_) = &m.converted else {
        let doc = docs(Some(&doc));
        return quote! {
            #doc
            fn #name(&self, from: &#from_ty) -> #ret;
        };
    };
    // The target's value type inside the source field's options.
    let TypeDef::Struct(source) = &from_m.types[from_id] else { unreachable!("invariant: methods read struct fields") };
    let target_field = &target.fields[m.field];
    let value = ty_tokens_in(to_m, &target_field.ty, to_prefix);
    let value = if target_field.boxed { quote!(Box<#value>) } else { value };
    let options = source.fields.iter().find(|f| f.json_name == target_field.json_name).map_or(1, |f| f.shape.options());
    let converted = (0..options).fold(value, |t, _| quote!(Option<#t>));
    let doc = docs(Some(&format!(
        "{doc}\n\n`converted` is the field's value in `{from_v}` converted, taken out of `from`: what absence becomes is \
         this method's to say."
    )));
    quote! {
        #doc
        fn #name(&self, from: &#from_ty, converted: #converted) -> #ret;
    }
}

/// The function converting pair `i` up (spoke to hub) or down.
#[allow(clippy::too_many_arguments, reason = "both sides' modules and prefixes, and the pair")]
fn pair_fn(
    sm: &Module,
    hm: &Module,
    plan: &SpokePlan,
    i: usize,
    up: bool,
    spoke: &TokenStream,
    hub: &TokenStream,
    c: &Conversion,
) -> TokenStream {
    let pair = &plan.pairs[i];
    let name = format_ident!("{}", if up { &pair.fns.0 } else { &pair.fns.1 });
    let (from_m, from_id, from_prefix, to_m, to_id, to_prefix) =
        if up { (sm, pair.spoke, spoke, hm, pair.hub, hub) } else { (hm, pair.hub, hub, sm, pair.spoke, spoke) };
    let from_ty = ty_tokens_in(from_m, &crate::model::Ty::Named(from_id), from_prefix);
    let to_ty = ty_tokens_in(to_m, &crate::model::Ty::Named(to_id), to_prefix);
    let target_version = if up { &c.hub.version } else { &plan.side.version };
    let body = match &pair.body {
        PairBody::Enum { up: u, down: d } => {
            let Some(map) = (if up { u } else { d }) else { return TokenStream::new() };
            let (TypeDef::Enum(se), TypeDef::Enum(he)) = (&sm.types[pair.spoke], &hm.types[pair.hub]) else {
                unreachable!("invariant: an enum pair is two enums")
            };
            let arms = map.iter().map(|&(s, h)| {
                let (sv, hv) = (ident(&se.variants[s].0), ident(&he.variants[h].0));
                if up { quote!(#from_ty::#sv => #to_ty::#hv,) } else { quote!(#from_ty::#hv => #to_ty::#sv,) }
            });
            quote!(match from { #(#arms)* })
        }
        PairBody::Struct(maps) => {
            let (TypeDef::Struct(from_s), TypeDef::Struct(to_s)) = (&from_m.types[from_id], &to_m.types[to_id]) else {
                unreachable!("invariant: a struct pair is two structs")
            };
            let (mut lets, mut inits) = (Vec::new(), Vec::new());
            for map in maps {
                let FieldMap { spoke: si, hub: hi, up: u, down: d } = map;
                let (from_f, to_f, way) = if up { (si, hi, u) } else { (hi, si, d) };
                let Some(to_f) = to_f else { continue };
                let target = &to_s.fields[*to_f];
                let field = ident(&target.ident);
                match way {
                    Way::Method(mi) => {
                        let method = ident(&plan.methods[*mi].name);
                        let local = format_ident!("m_{}", target.ident.trim_start_matches("r#"));
                        match (&plan.methods[*mi].converted, from_f) {
                            (Some(conv), Some(f)) => {
                                // Taken out first: the method sees the struct without it.
                                let source = ident(&from_s.fields[*f].ident);
                                let taken = conv_expr(plan, conv, quote!(from.#source.take()), up);
                                let value = format_ident!("c_{}", target.ident.trim_start_matches("r#"));
                                lets.push(quote!(let #value = #taken;));
                                lets.push(quote!(let #local = c.#method(&from, #value);));
                            }
                            _ => lets.push(quote!(let #local = c.#method(&from);)),
                        }
                        inits.push(quote!(#field: #local,));
                    }
                    Way::Convert(Conv::ApiVersion) => {
                        let value = api_version(c, target_version);
                        let value = quote!(::std::string::String::from(#value));
                        inits.push(if target.shape.options() == 0 {
                            quote!(#field: #value,)
                        } else {
                            quote!(#field: Some(#value),)
                        });
                    }
                    Way::Convert(conv) => {
                        let source =
                            from_f.map(|f| ident(&from_s.fields[f].ident)).expect("invariant: converted from a field");
                        let expr = conv_expr(plan, conv, quote!(from.#source), up);
                        inits.push(quote!(#field: #expr,));
                    }
                    Way::Lost => unreachable!("invariant: a field with a target is never lost"),
                }
            }
            quote! {
                #(#lets)*
                #to_ty { #(#inits)* }
            }
        }
    };
    quote! {
        fn #name<C: Conversion + ?Sized>(c: &C, mut from: #from_ty) -> #to_ty {
            #body
        }
    }
}

/// `input` converted by `conv`.
fn conv_expr(plan: &SpokePlan, conv: &Conv, input: TokenStream, up: bool) -> TokenStream {
    match conv {
        Conv::Move => input,
        Conv::Widen => quote!(i64::from(#input)),
        Conv::Pair(i) => {
            let pair = &plan.pairs[*i];
            let name = format_ident!("{}", if up { &pair.fns.0 } else { &pair.fns.1 });
            quote!(#name(c, #input))
        }
        Conv::Each(container, inner) => {
            let inner = conv_expr(plan, inner, quote!(v), up);
            match container {
                Container::Vec => quote!(#input.into_iter().map(|v| #inner).collect()),
                Container::Map => quote!(#input.into_iter().map(|(k, v)| (k, #inner)).collect()),
                Container::Option => quote!(#input.map(|v| #inner)),
            }
        }
        Conv::Some(inner) => {
            let inner = conv_expr(plan, inner, input, up);
            quote!(Some(#inner))
        }
        Conv::Boxed { unbox, rebox, inner } => {
            // Only struct values are boxed: the inner conversion is a call or a move.
            let input = if *unbox { quote!(*#input) } else { input };
            let inner = conv_expr(plan, inner, input, up);
            if *rebox { quote!(Box::new(#inner)) } else { inner }
        }
        Conv::ApiVersion => unreachable!("invariant: apiVersion is written by the struct's function"),
    }
}

/// The hub's `<kind>_conversion::Converter`: every version through the hub.
fn hub_module(modules: &[Module], paths: &[Vec<String>], c: &Conversion) -> TokenStream {
    let up_one = parent();
    let hm = &modules[c.hub.module];
    let module = ident(&module_of(&c.kind));
    let root_h = ident(hm.types[c.hub.root].name());
    let hv = api_version(c, &c.hub.version);
    let conv_mod = ident(&module_of(&c.kind));
    let spokes: Vec<(TokenStream, TokenStream, String)> = c
        .spokes
        .iter()
        .map(|s| {
            let prefix = prefix_to(&paths[c.hub.module], &paths[s.side.module]);
            let root = ident(modules[s.side.module].types[s.side.root].name());
            (quote!(#prefix #conv_mod), quote!(#prefix #root), api_version(c, &s.side.version))
        })
        .collect();
    let bounds = spokes.iter().map(|(m, _, _)| quote!(#m::Conversion));
    let reads = spokes.iter().map(|(m, root, v)| quote!(Some(#v) => #m::to_hub(&self.0, read::<#root>(object)?),));
    let writes = spokes.iter().map(|(m, _, v)| quote!(#v => write(&#m::from_hub(&self.0, hub)),));
    let (group, kind) = (&c.group, &c.kind);
    let doc = docs(Some(&format!(
        "Every version of `{kind}` converted through the hub `{}`: the converter of a conversion webhook \
         (`kubeskema::conversion::review`). `C` writes what generated code cannot (each spoke's \
         `Conversion`); `Converter(())` where no spoke needs anything.",
        c.hub.version
    )));
    let module_doc = docs(Some(&format!("Conversions of `{kind}` through this version, the hub.")));
    quote! {
        #module_doc
        pub mod #module {
            #doc
            #[derive(Clone, Copy, Debug, Default)]
            pub struct Converter<C = ()>(pub C);

            impl<C: #(#bounds)+*> ::kubeskema::conversion::Converter for Converter<C> {
                fn convert(&self, object: ::kubeskema::serde_json::Value, desired_api_version: &str)
                    -> ::std::result::Result<::kubeskema::serde_json::Value, ::std::string::String>
                {
                    use ::kubeskema::__private::conversion::{read, write};
                    let hub: #up_one #root_h = match object.get("apiVersion").and_then(|v| v.as_str()) {
                        Some(#hv) => read(object)?,
                        #(#reads)*
                        other => return Err(format!("cannot convert from apiVersion {other:?}: not a version of {}", #kind)),
                    };
                    match desired_api_version {
                        #hv => write(&hub),
                        #(#writes)*
                        other => Err(format!("cannot convert to apiVersion {other:?}: not a version of {}", #kind)),
                    }
                }

                fn kind(&self) -> Option<(&str, &str)> {
                    Some((#group, #kind))
                }
            }
        }
    }
}
