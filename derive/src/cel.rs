//! CEL for `Validate`: the `kubeskema::cel::ToCel` impl (a value as rules see it: fields
//! under their escaped JSON names, absent fields left out, formats read) and
//! `validate_cel_at`, which evaluates the container's `rule`s, then each field's: its own
//! rules, its items' and map values' (correlated with the old value by key where the
//! apiserver correlates), then the rules of the types inside; a rule that names a function
//! compiled to Rust (`native = ...`, what codegen writes) runs natively, the others are
//! interpreted (`Cx::evaluate_typed`). Enums also get `EnumValue`, their value as native
//! rules read it. All are wrapped in
//! `kubeskema::__cel!`, so they vanish when the runtime's `cel` feature is off.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::Type;

use crate::model::{
    Body, Container, Field, Payload, Shape, Tagging, Transparent, Union, VariantValue, generic_arg, holds_primitives,
    list_map_keys, map_value, option_inner,
};
use crate::reach::{Recv, access, access_in, mentions, payload_path, variant_pattern};
use kubeskema_attributes::Keyword;
use kubeskema_attributes::parse::{Attrs, Item, Rule};

/// The `ToCel` impl of the container (outside the `Validate` impl).
pub fn to_cel_impl(c: &Container) -> TokenStream {
    if c.attrs.flag(Keyword::NoCelValue) {
        return TokenStream::new();
    }
    let ident = c.ident;
    let cel = quote!(::kubeskema::cel);
    let body = match &c.data {
        Body::Struct(fields) => {
            let entries = fields.iter().filter(|f| !f.flatten).filter_map(|f| {
                let name = &f.json_name;
                let access = access(f, &quote!(self))?;
                let value = cel_value(&f.attrs, &quote!(__v));
                Some(quote!((#name, match #access { ::core::option::Option::Some(__v) => ::core::option::Option::Some(#value), ::core::option::Option::None => ::core::option::Option::None })))
            });
            // The keys no field names: the unknown-fields map's, or a flattened value's.
            let unknown = match fields.iter().find(|f| f.shape == Shape::UnknownFields || f.flatten) {
                Some(f) => {
                    let m = f.ident;
                    quote!(::core::option::Option::Some(#cel::ToCel::to_cel(&self.#m)))
                }
                None => quote!(::core::option::Option::None),
            };
            quote!(#cel::struct_value([#(#entries),*], #unknown))
        }
        Body::Enum(variants) => {
            let arms = variants.iter().map(|v| {
                let var = v.ident;
                match &v.value {
                    VariantValue::Str(s) => quote!(#ident::#var => #cel::Value::from(#s),),
                    VariantValue::Int(i) => quote!(#ident::#var => #cel::Value::Int(#i),),
                    VariantValue::Bool(b) => quote!(#ident::#var => #cel::Value::Bool(#b),),
                }
            });
            quote!(match self { #(#arms)* })
        }
        // The value as serde writes it.
        Body::Union(u) => {
            let arms = u.variants.iter().map(|v| {
                let pattern = variant_pattern(ident, v, "__n_");
                let payload = match &v.payload {
                    Payload::Unit => None,
                    Payload::Newtype(_) => Some(quote!(#cel::ToCel::to_cel(__n))),
                    Payload::Struct(fields, _) => {
                        let entries = fields.iter().filter_map(|f| {
                            let name = &f.json_name;
                            let access = access_in(f, Recv::Bound("__n_"))?;
                            let value = cel_value(&f.attrs, &quote!(__v));
                            Some(quote!((#name, match #access { ::core::option::Option::Some(__v) => ::core::option::Option::Some(#value), ::core::option::Option::None => ::core::option::Option::None })))
                        });
                        Some(quote!(#cel::struct_value([#(#entries),*], ::core::option::Option::None)))
                    }
                };
                let name = &v.name;
                let some = |t: TokenStream| quote!(::core::option::Option::Some(#t));
                let none = quote!(::core::option::Option::None);
                let tag_value = some(quote!(#cel::Value::from(#name)));
                let value = match (&u.tagging, payload) {
                    (Tagging::External, None) => quote!(#cel::Value::from(#name)),
                    (Tagging::External, Some(p)) => {
                        let p = some(p);
                        quote!(#cel::struct_value([(#name, #p)], #none))
                    }
                    // The payload's fields beside the tag (`struct_value` merges a map given last).
                    (Tagging::Internal(tag), p) => {
                        let p = p.map_or(none.clone(), some);
                        quote!(#cel::struct_value([(#tag, #tag_value)], #p))
                    }
                    (Tagging::Adjacent(tag, content), p) => {
                        let p = p.map_or(none.clone(), some);
                        quote!(#cel::struct_value([(#tag, #tag_value), (#content, #p)], #none))
                    }
                    (Tagging::Untagged, None) => quote!(#cel::Value::Null),
                    (Tagging::Untagged, Some(p)) => p,
                };
                quote!(#pattern => #value,)
            });
            // An arm may not read every field it binds.
            quote!(#[allow(unused_variables)] match self { #(#arms)* })
        }
        Body::Transparent(t) => {
            let member = &t.member;
            cel_value(&t.attrs, &quote!((&self.#member)))
        }
    };
    // What rules compiled to Rust read of an enum: its value, without a `cel::Value`. Only
    // where every variant's value is of one kind (a hand-written enum may mix them; codegen
    // writes none such, and compiles no rule against one).
    let kind = |v: &VariantValue| std::mem::discriminant(v);
    let enum_value = match &c.data {
        Body::Enum(variants) if variants.windows(2).any(|w| kind(&w[0].value) != kind(&w[1].value)) => {
            TokenStream::new()
        }
        Body::Enum(variants) => {
            let arms = variants.iter().map(|v| {
                let var = v.ident;
                match &v.value {
                    VariantValue::Str(s) => quote!(#ident::#var => #s,),
                    VariantValue::Int(i) => quote!(#ident::#var => #i,),
                    VariantValue::Bool(b) => quote!(#ident::#var => #b,),
                }
            });
            let value = match variants.first().map(|v| &v.value) {
                Some(VariantValue::Int(_)) => quote!(i64),
                Some(VariantValue::Bool(_)) => quote!(bool),
                _ => quote!(&'static str),
            };
            quote! {
                #[automatically_derived]
                impl #cel::native::EnumValue for #ident {
                    type Value = #value;
                    fn value(&self) -> #value {
                        match self { #(#arms)* }
                    }
                }
            }
        }
        Body::Struct(_) | Body::Union(_) | Body::Transparent(_) => TokenStream::new(),
    };
    let reads = reads(c);
    quote! {
        ::kubeskema::__cel! {
            #reads
            #[automatically_derived]
            impl #cel::ToCel for #ident {
                fn to_cel(&self) -> #cel::Value {
                    #body
                }
            }
            #enum_value
        }
    }
}

/// How rules compiled by the derive read the type (`kubeskema::cel::derived`): a struct by
/// reference, each field by its CEL name (`Field`, keyed by `field_key` of its JSON name); an
/// enum of values by its value.
fn reads(c: &Container) -> TokenStream {
    let ident = c.ident;
    let d = quote!(::kubeskema::cel::derived);
    match &c.data {
        Body::Struct(fields) => {
            let fields = fields.iter().filter(|f| !f.flatten).filter_map(|f| {
                let access = access(f, &quote!(self))?;
                Some(field_impl(ident, &f.json_name, &f.value_ty.to_token_stream(), access))
            });
            let read = read_by_reference(ident);
            quote! {
                #read
                #(#fields)*
            }
        }
        Body::Enum(variants) => {
            let kind = |v: &VariantValue| std::mem::discriminant(v);
            if variants.windows(2).any(|w| kind(&w[0].value) != kind(&w[1].value)) {
                return TokenStream::new();
            }
            let value = quote!(::kubeskema::cel::native::EnumValue::value(self));
            let (out, value) = match variants.first().map(|v| &v.value) {
                Some(VariantValue::Int(_)) => (quote!(i64), value),
                Some(VariantValue::Bool(_)) => (quote!(bool), value),
                _ => (quote!(::std::borrow::Cow<'static, str>), quote!(::std::borrow::Cow::Borrowed(#value))),
            };
            quote! {
                #[automatically_derived]
                impl #d::Read for #ident {
                    type Out<'a> = #out;
                    #[inline(always)]
                    fn read(&self) -> #out {
                        #value
                    }
                }
            }
        }
        Body::Union(u) => union_reads(c, u),
        // Read as its field, where the field's type is one the runtime reads (a `Read` bound
        // on another type could fail to hold, and rustc would point into expanded code).
        Body::Transparent(t) if reads_natively(t.ty) => {
            let (member, ty) = (&t.member, t.ty);
            quote! {
                #[automatically_derived]
                impl #d::Read for #ident {
                    type Out<'a> = <#ty as #d::Read>::Out<'a>;
                    #[inline(always)]
                    fn read(&self) -> <#ty as #d::Read>::Out<'_> {
                        #d::Read::read(&self.#member)
                    }
                }
            }
        }
        // Read by the interpreter (its rules defer).
        Body::Transparent(_) => TokenStream::new(),
    }
}

/// Whether the runtime reads values of `ty` in rules compiled to Rust whatever its parameters
/// (`kubeskema::cel::derived::Read`).
fn reads_natively(ty: &Type) -> bool {
    let Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else { return false };
    let name = last.ident.to_string();
    match name.as_str() {
        "String" | "i64" | "i32" | "f64" | "bool" => matches!(last.arguments, syn::PathArguments::None),
        "Vec" => generic_arg(ty, "Vec").is_some(),
        "BTreeMap" => map_value(ty).is_some(),
        _ => false,
    }
}

/// The reads of a data-carrying enum whose variants' fields are the node's properties
/// (internally tagged: with the tag; untagged): each property present only in the variants
/// that carry it, so `has(self.x)` is true only there. A property two variants give different
/// Rust types, and the payloads of newtype variants (whose fields the macro does not see),
/// have no `Field`: rules reading them defer to the interpreter. Externally tagged enums:
/// [`external_reads`]; adjacently tagged ones are read by the interpreter.
fn union_reads(c: &Container, u: &Union) -> TokenStream {
    let ident = c.ident;
    match u.tagging {
        Tagging::External => return external_reads(c, u),
        Tagging::Adjacent(..) => return TokenStream::new(),
        Tagging::Internal(_) | Tagging::Untagged => {}
    }
    // Each property: its type and the arms that read it.
    let mut properties: Vec<(String, &Type, Vec<TokenStream>)> = Vec::new();
    let mut mixed: Vec<String> = Vec::new();
    for v in &u.variants {
        let Payload::Struct(fields, _) = &v.payload else { continue };
        for f in fields.iter().filter(|f| !f.flatten) {
            let Some(access) = access_in(f, Recv::Bound("__n_")) else { continue };
            let pattern = variant_pattern(ident, v, "__n_");
            let arm = quote!(#pattern => #access,);
            let ty = f.value_ty;
            match properties.iter_mut().find(|(name, _, _)| *name == f.json_name) {
                Some((_, known, arms)) if quote!(#known).to_string() == quote!(#ty).to_string() => arms.push(arm),
                Some(_) => mixed.push(f.json_name.clone()),
                None => properties.push((f.json_name.clone(), ty, vec![arm])),
            }
        }
    }
    let fields = properties.iter().filter(|(name, _, _)| !mixed.contains(name)).map(|(name, ty, arms)| {
        let body = quote!(match self {
            #(#arms)*
            // The catch-all is unreachable when every variant has an arm.
            #[allow(unreachable_patterns)]
            _ => ::core::option::Option::None,
        });
        field_impl(ident, name, &ty.to_token_stream(), body)
    });
    let tag = match &u.tagging {
        Tagging::Internal(tag) if !properties.iter().any(|(name, _, _)| name == tag) => {
            let arms = u.variants.iter().map(|v| {
                let pattern = variant_pattern(ident, v, "__n_");
                let name = &v.name;
                quote!(#pattern => #name,)
            });
            let body = quote!(::core::option::Option::Some(match self { #(#arms)* }));
            field_impl(ident, tag, &quote!(str), body)
        }
        _ => TokenStream::new(),
    };
    let read = read_by_reference(ident);
    quote! {
        #read
        #tag
        #(#fields)*
    }
}

/// The reads of an externally tagged enum (`{"git": {...}}`): each newtype variant's name a
/// property holding its payload, present only in that variant (`has(self.git)`). A struct
/// variant's payload has no type of its own to read it through, so rules reading it defer;
/// where a unit variant makes the value a string, nothing is read natively.
fn external_reads(c: &Container, u: &Union) -> TokenStream {
    let ident = c.ident;
    if u.variants.iter().any(|v| matches!(v.payload, Payload::Unit)) {
        return TokenStream::new();
    }
    let fields = u.variants.iter().filter_map(|v| {
        let Payload::Newtype(ty) = &v.payload else { return None };
        let pattern = variant_pattern(ident, v, "__n_");
        let body = quote!(match self {
            #pattern => ::core::option::Option::Some(__n),
            // The catch-all is unreachable for a one-variant enum.
            #[allow(unreachable_patterns)]
            _ => ::core::option::Option::None,
        });
        Some(field_impl(ident, &v.name, &ty.to_token_stream(), body))
    });
    let read = read_by_reference(ident);
    quote! {
        #read
        #(#fields)*
    }
}

/// `Read` of a struct or enum whose fields rules select: by reference.
fn read_by_reference(ident: &syn::Ident) -> TokenStream {
    let d = quote!(::kubeskema::cel::derived);
    quote! {
        #[automatically_derived]
        impl #d::Read for #ident {
            type Out<'a> = &'a #ident;
            #[inline(always)]
            fn read(&self) -> &#ident {
                self
            }
        }
    }
}

/// `Field` of the property `name` (of Rust type `ty`), read by `body` (an `Option<&ty>`).
fn field_impl(ident: &syn::Ident, name: &str, ty: &TokenStream, body: TokenStream) -> TokenStream {
    let d = quote!(::kubeskema::cel::derived);
    quote! {
        #[automatically_derived]
        impl #d::Field<{ #d::field_key(#name) }> for #ident {
            type Value = #ty;
            #[inline(always)]
            // A field read through a binding may not use it in every variant.
            #[allow(unused_variables)]
            fn field(&self) -> ::core::option::Option<&#ty> {
                #body
            }
        }
    }
}

/// `validate_cel_at` (inside the `Validate` impl).
pub fn validate_cel_at(c: &Container) -> TokenStream {
    if c.attrs.flag(Keyword::NoCelRules) {
        return TokenStream::new();
    }
    let fields = match &c.data {
        Body::Struct(fields) => fields,
        Body::Union(u) => return validate_cel_union(c, u),
        Body::Transparent(t) => return validate_cel_transparent(c, t),
        Body::Enum(_) => return TokenStream::new(),
    };
    let root = Place::root(c);
    let own = rules_check(&c.attrs, &quote!(self), &quote!(__old), &quote!(__path), None, &root);
    let known = known_fields(c, fields);
    let fields = fields.iter().filter_map(|f| {
        let name = &f.json_name;
        if f.flatten {
            let (m, ty) = (f.ident, f.value_ty);
            return Some(quote! {
                if <#ty as ::kubeskema::Validate>::schema_has_rules() {
                    ::kubeskema::Validate::validate_cel_at(&self.#m, __old.map(|__o| &__o.#m), __path, __cx);
                }
            });
        }
        let new = access(f, &quote!(self))?;
        let old = access(f, &quote!(__o))?;
        let at = root.child(&["properties", name]);
        let walk = walk(&f.attrs, f.value_ty, &quote!(__v), &quote!(__ov), &quote!(__p), &at)?;
        Some(quote! {
            if let ::core::option::Option::Some(__v) = #new {
                let __p = __path.property(#name);
                let __ov = match __old { ::core::option::Option::Some(__o) => #old, ::core::option::Option::None => ::core::option::Option::None };
                #walk
            }
        })
    });
    quote! {
        ::kubeskema::__cel! {
            fn validate_cel_at(&self, __old: ::core::option::Option<&Self>, __path: &::kubeskema::path::At<'_>, __cx: &mut ::kubeskema::cel::Cx) {
                #known
                #own
                #(#fields)*
            }
        }
    }
}

/// A compile error on a container rule that selects a field the struct does not have
/// (`self.x`): the one type check the macro can make itself, as a `const` assertion spanned on
/// the rule (the names compared by `field_key`, the one escaping; a reserved word is also
/// reachable as it is, `self.namespace`, since the 1.31 environment). Not where unknown or
/// flattened fields, or an embedded resource's, make other keys possible, nor on rules code
/// generation wrote.
fn known_fields(c: &Container, fields: &[Field]) -> TokenStream {
    // An embedded resource's apiVersion, kind and metadata are there whether declared or not.
    if fields.iter().any(|f| f.flatten || f.shape == Shape::UnknownFields)
        || c.attrs.flag(Keyword::NoCelValue)
        || c.attrs.flag(Keyword::EmbeddedResource)
    {
        return TokenStream::new();
    }
    let d = quote!(::kubeskema::cel::derived);
    let names: Vec<&str> = fields.iter().map(|f| f.json_name.as_str()).collect();
    let listed = names.join(", ");
    let mut checks = Vec::new();
    for r in c.attrs.rules().filter(|r| r.native.is_none()) {
        let Some(rule) = &r.rule else { continue };
        let Some(selected) = crate::native::self_fields(&rule.value()) else { continue };
        for name in selected {
            let message =
                format!("the rule reads `self.{name}`, and `{}` has no such field (its fields: {listed})", c.ident);
            checks.push(quote::quote_spanned! {rule.span()=>
                const _: () = ::core::assert!(#d::has_key(&[#(#d::field_key(#names), #d::name_hash(#names)),*], #d::name_hash(#name)), #message);
            });
        }
    }
    quote!(#(#checks)*)
}

/// `validate_cel_at` of a transparent struct: its own rules and its field's, at its place.
fn validate_cel_transparent(c: &Container, t: &Transparent) -> TokenStream {
    let root = Place::root(c);
    let own = rules_check(&c.attrs, &quote!(self), &quote!(__old), &quote!(__path), None, &root);
    let member = &t.member;
    let walk = walk(
        &t.attrs,
        t.ty,
        &quote!((&self.#member)),
        &quote!(__old.map(|__o| &__o.#member)),
        &quote!((*__path)),
        &root,
    );
    quote! {
        ::kubeskema::__cel! {
            fn validate_cel_at(&self, __old: ::core::option::Option<&Self>, __path: &::kubeskema::path::At<'_>, __cx: &mut ::kubeskema::cel::Cx) {
                #own
                #walk
            }
        }
    }
}

/// `validate_cel_at` of a data-carrying enum: its own rules, then the fields of the variant it
/// holds (correlated with the old value's when that is the same variant).
fn validate_cel_union(c: &Container, u: &Union) -> TokenStream {
    let ident = c.ident;
    let root = Place::root(c);
    let own = rules_check(&c.attrs, &quote!(self), &quote!(__old), &quote!(__path), None, &root);
    let empty = Attrs::default();
    let arms = u.variants.iter().map(|v| {
        let (new, old) = (variant_pattern(ident, v, "__n_"), variant_pattern(ident, v, "__o_"));
        let at = payload_path(&u.tagging, &v.name, &quote!(__path));
        // Where the variant's fields are in the merged schema (`schema::of_types::union`).
        let payload = match &u.tagging {
            Tagging::External => root.child(&["properties", &v.name]),
            Tagging::Adjacent(_, content) => root.child(&["properties", content]),
            Tagging::Internal(_) | Tagging::Untagged => root.clone(),
        };
        let none = quote!(::core::option::Option::None);
        let body = match &v.payload {
            Payload::Unit => TokenStream::new(),
            Payload::Newtype(ty) => {
                let walk = walk(&empty, ty, &quote!(__n), &quote!(__ov), &quote!((*__path)), &payload);
                walk.map(|walk| {
                    quote! {
                        let __ov = match __old { ::core::option::Option::Some(#old) => ::core::option::Option::Some(__o), _ => #none };
                        #walk
                    }
                })
                .unwrap_or_default()
            }
            Payload::Struct(fields, _) => fields
                .iter()
                .filter_map(|f| {
                    let name = &f.json_name;
                    let new_value = access_in(f, Recv::Bound("__n_"))?;
                    let old_value = access_in(f, Recv::Bound("__o_"))?;
                    let field = payload.child(&["properties", name]);
                    let walk = walk(&f.attrs, f.value_ty, &quote!(__v), &quote!(__ov), &quote!(__p), &field)?;
                    Some(quote! {
                        if let ::core::option::Option::Some(__v) = #new_value {
                            let __p = __path.property(#name);
                            let __ov = match __old { ::core::option::Option::Some(#old) => #old_value, _ => #none };
                            #walk
                        }
                    })
                })
                .collect(),
        };
        quote!(#new => { #at #body })
    });
    quote! {
        ::kubeskema::__cel! {
            // A type without rules of its own does not read its arguments.
            #[allow(unused_variables)]
            fn validate_cel_at(&self, __old: ::core::option::Option<&Self>, __path: &::kubeskema::path::At<'_>, __cx: &mut ::kubeskema::cel::Cx) {
                #own
                match self { #(#arms)* }
            }
        }
    }
}

/// Whether `attrs` (or the attributes nested in them) hold rules.
pub fn has_own_rules(attrs: &Attrs) -> bool {
    attrs.items.iter().any(|(_, _, item)| match item {
        Item::Rule(_) => true,
        Item::Nested(nested) => has_own_rules(nested),
        _ => false,
    })
}

/// The CEL evaluation at one value `v: &ty` (old value `o: Option<&ty>`) at path `p`;
/// `None` when nothing there can have rules.
fn walk(
    attrs: &Attrs,
    ty: &Type,
    v: &TokenStream,
    o: &TokenStream,
    p: &TokenStream,
    at: &Place,
) -> Option<TokenStream> {
    let own = rules_check(attrs, v, o, p, Some(ty), at);
    let cel = quote!(::kubeskema::cel);
    let nested = |keyword| attrs.nested(keyword);
    let empty = Attrs::default();
    let inner = if let Some(elem) = generic_arg(ty, "Vec") {
        let item_attrs = nested(Keyword::Items).unwrap_or(&empty);
        let elem_full = elem;
        let (elem, nullable) = option_inner(elem).map_or((elem, false), |i| (i, true));
        // Items without rules (primitives, say) are not walked; the list's own rules still run.
        let body = walk(item_attrs, elem, &quote!(__e), &quote!(__oe), &quote!(__pe), &at.child(&["items"]))
            .map(|body| nullable_element(body, nullable));
        match (body, list_map_keys(attrs)) {
            (None, _) => TokenStream::new(),
            (Some(body), Some(keys)) => quote! {
                let __matched = match #o { ::core::option::Option::Some(__ol) => ::core::option::Option::Some(#cel::correlate(#v, __ol, &[#(#keys),*])), ::core::option::Option::None => ::core::option::Option::None };
                for (__i, __e) in #v.iter().enumerate() {
                    let __pe = #p.index(__i);
                    let __oe = match (&__matched, #o) { (::core::option::Option::Some(__m), ::core::option::Option::Some(__ol)) => match __m[__i] { ::core::option::Option::Some(__j) => __ol.get(__j), ::core::option::Option::None => ::core::option::Option::None }, _ => ::core::option::Option::None };
                    #body
                }
            },
            (Some(body), None) => quote! {
                let __same = match #o { ::core::option::Option::Some(__ol) => ::kubeskema::Validate::unchanged_at(#v, __ol, &::kubeskema::path::At::ROOT, &mut ::core::default::Default::default()), ::core::option::Option::None => false };
                let __prev = __cx.enter_uncorrelated(__same);
                for (__i, __e) in #v.iter().enumerate() {
                    let __pe = #p.index(__i);
                    let __oe: ::core::option::Option<&#elem_full> = ::core::option::Option::None;
                    #body
                }
                __cx.restore_unchanged_above(__prev);
            },
        }
    } else if let Some(value) = map_value(ty) {
        let value_attrs = nested(Keyword::Values).unwrap_or(&empty);
        let (value, nullable) = option_inner(value).map_or((value, false), |i| (i, true));
        match walk(value_attrs, value, &quote!(__e), &quote!(__oe), &quote!(__pe), &at.child(&["additionalProperties"]))
        {
            None => TokenStream::new(),
            Some(body) => {
                let body = nullable_element(body, nullable);
                quote! {
                    for (__k, __e) in #v.iter() {
                        let __pe = #p.key(__k);
                        let __oe = match #o { ::core::option::Option::Some(__om) => __om.get(__k), ::core::option::Option::None => ::core::option::Option::None };
                        #body
                    }
                }
            }
        }
    } else if holds_primitives(ty) {
        // No rules inside a primitive: nothing to walk (and nothing to expand, per field).
        TokenStream::new()
    } else if has_own_rules(attrs) || mentions(quote!(#ty), at.container) {
        quote!(::kubeskema::Validate::validate_cel_at(#v, #o, &#p, __cx);)
    } else {
        quote! {
            if <#ty as ::kubeskema::Validate>::schema_has_rules() {
                ::kubeskema::Validate::validate_cel_at(#v, #o, &#p, __cx);
            }
        }
    };
    // `None`: nothing here or inside can have rules.
    if own.is_empty() && inner.is_empty() {
        return None;
    }
    Some(quote! { #own #inner })
}

/// An element's walk `body`; a nullable element (`Option<E>`) is walked when not null.
fn nullable_element(body: TokenStream, nullable: bool) -> TokenStream {
    if !nullable {
        return body;
    }
    quote!(if let ::core::option::Option::Some(__e) = __e { let __oe = match __oe { ::core::option::Option::Some(__x) => __x.as_ref(), ::core::option::Option::None => ::core::option::Option::None }; #body })
}

/// Where a node's rules sit in their container's derived schema: what their `self` is
/// declared from (`kubeskema::cel::types::derived_declaration`), so that a rule is typed, and
/// its cost estimated, against the node it has in the CRD.
#[derive(Clone)]
struct Place<'a> {
    container: &'a syn::Ident,
    /// A JSON pointer into the container's schema.
    pointer: String,
    /// The container is a resource, and this its root.
    resource_root: bool,
}

impl<'a> Place<'a> {
    fn root(c: &'a Container) -> Place<'a> {
        Place { container: c.ident, pointer: String::new(), resource_root: c.attrs.get(Keyword::Resource).is_some() }
    }

    /// The node `steps` below (each escaped as a JSON pointer token).
    fn child(&self, steps: &[&str]) -> Place<'a> {
        let mut pointer = self.pointer.clone();
        for step in steps {
            pointer.push('/');
            pointer.push_str(&kubeskema_attributes::pointer::escape_token(step));
        }
        Place { container: self.container, pointer, resource_root: false }
    }
}

/// The `kubeskema::cel::Cx::evaluate_typed` call for the rules directly in `attrs`, at value
/// `v` of type `ty` (`Self` without one), at `at` in the container's schema (what `self` is
/// declared from). Where the value has no CEL value (`no_cel_value`), every rule there must be
/// compiled to Rust.
fn rules_check(
    attrs: &Attrs,
    v: &TokenStream,
    o: &TokenStream,
    p: &TokenStream,
    ty: Option<&Type>,
    at: &Place,
) -> TokenStream {
    let rules: Vec<&Rule> = attrs.rules().collect();
    if rules.is_empty() {
        return TokenStream::new();
    }
    let cel = quote!(::kubeskema::cel);
    let fully_native =
        rules.iter().all(|r| r.native.is_some() && (r.message_expression.is_none() || r.native_message.is_some()));
    let interpretable = !attrs.flag(Keyword::NoCelValue);
    if !interpretable && !fully_native {
        let span = rules.iter().find_map(|r| r.rule.as_ref()).map_or_else(proc_macro2::Span::call_site, |r| r.span());
        return syn::Error::new(
            span,
            "`no_cel_value`: every rule here must be compiled to Rust (`native`, and `native_message` for a messageExpression)",
        )
        .to_compile_error();
    }
    let (declared_type, type_fn) = if interpretable {
        let (container, pointer, resource_root) = (at.container, &at.pointer, at.resource_root);
        let declare = quote! {
            fn __self_type() -> ::core::option::Option<#cel::types::Declaration> {
                #cel::types::derived_declaration::<#container>(#pointer, #resource_root)
            }
        };
        (quote!(::core::option::Option::Some(__self_type)), declare)
    } else {
        (quote!(::core::option::Option::None), TokenStream::new())
    };
    let opt = |s: &Option<syn::LitStr>| match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    };
    let each = rules.iter().map(|r| {
        let rule = r.rule.as_ref().expect("invariant: attr parsing requires rule");
        let (message, expr, reason, field_path) =
            (opt(&r.message), opt(&r.message_expression), opt(&r.reason), opt(&r.field_path));
        let optional = r.optional_old_self.unwrap_or(false);
        quote!(#cel::Rule::declared(#rule, #message, #expr, #reason, #field_path, #optional, #declared_type))
    });
    let n = rules.len();
    let format = match attrs.str(Keyword::Format) {
        Some(f) => quote!(::core::option::Option::Some(#f)),
        None => quote!(::core::option::Option::None),
    };
    let schema_type = match ty {
        Some(ty) => quote!(<#ty as ::kubeskema::Validate>::SCHEMA_TYPE),
        None => quote!(<Self as ::kubeskema::Validate>::SCHEMA_TYPE),
    };
    let value_ty = match ty {
        Some(ty) => quote!(#ty),
        None => quote!(Self),
    };
    let natives = rules.iter().map(|r| match way(r, interpretable, &value_ty) {
        Way::Given(rule) => {
            let message = match &r.native_message {
                Some(m) => quote!(::core::option::Option::Some(#m)),
                None => quote!(::core::option::Option::None),
            };
            let transition = r.transition;
            quote!(::core::option::Option::Some(#cel::native::Native { rule: #rule, message: #message, transition: #transition, defers: false }))
        }
        Way::Compiled(compiled) => {
            let (code, transition) = (compiled.code, compiled.transition);
            quote!(::core::option::Option::Some(#cel::native::Native { rule: #code, message: ::core::option::Option::None, transition: #transition, defers: true }))
        }
        Way::Interpreted(_) => quote!(::core::option::Option::None),
    });
    // The CEL value and type, for the rules not compiled to Rust (and for the differential
    // tests, which interpret every rule where the types have CEL values).
    let to_cel = items_formatted(attrs, &quote!(__x));
    let to_cel_fn = if interpretable {
        quote!(::core::option::Option::Some(|__x| #to_cel))
    } else {
        quote!(::core::option::Option::None)
    };
    quote! {{
        #type_fn
        static __RULES: [#cel::Rule; #n] = [#(#each),*];
        __cx.evaluate_typed(&__RULES, &[#(#natives),*], &#p, #v, #o, #to_cel_fn, #format, #schema_type);
    }}
}

/// How a rule runs.
enum Way<'r> {
    /// Through the function code generation compiled (`native = ...`).
    Given(&'r syn::Path),
    /// Through the code compiled here (`crate::native`).
    Compiled(crate::native::Compiled),
    /// In the interpreter, for this reason.
    Interpreted(String),
}

/// How rule `r` on a value of type `value_ty` runs: codegen's function if it names one, else
/// compiled here where the value can also be interpreted (what the compiled code does not
/// read defers to the interpreter).
fn way<'r>(r: &'r Rule, interpretable: bool, value_ty: &TokenStream) -> Way<'r> {
    if let Some(given) = &r.native {
        return Way::Given(given);
    }
    if !interpretable {
        return Way::Interpreted("the value has no CEL value (`no_cel_value`)".into());
    }
    let text = r.rule.as_ref().expect("invariant: attr parsing requires rule").value();
    match crate::native::compile(&text, value_ty, r.optional_old_self.unwrap_or(false)) {
        Ok(compiled) => Way::Compiled(compiled),
        Err(reason) => Way::Interpreted(reason),
    }
}

/// `count_cel_rules` (inside the `Validate` impl): the container's rules and its fields'
/// (native or interpreted, with the reason), then the types it holds.
pub fn count_cel_rules(c: &Container) -> TokenStream {
    if c.attrs.flag(Keyword::NoCelRules) {
        return TokenStream::new();
    }
    let owner = c.ident.to_string();
    let mut counted = Vec::new();
    count_rules(&c.attrs, &owner, &mut counted);
    let written = counted.len();
    let mut count = |attrs: &Attrs| count_rules(attrs, &owner, &mut counted);
    // A data-carrying enum's schema also holds the rules the derive writes for its variants.
    let kept = matches!(c.data, Body::Union(_)).then(|| quote!(__walk.kept_by::<Self>(#written);));
    let mut held: Vec<&Type> = Vec::new();
    match &c.data {
        Body::Struct(fields) => {
            for f in fields {
                count(&f.attrs);
                held.push(f.value_ty);
            }
        }
        Body::Union(u) => {
            for v in &u.variants {
                match &v.payload {
                    Payload::Unit => {}
                    Payload::Newtype(ty) => held.push(ty),
                    Payload::Struct(fields, _) => {
                        for f in fields {
                            count(&f.attrs);
                            held.push(f.value_ty);
                        }
                    }
                }
            }
        }
        Body::Transparent(t) => {
            count(&t.attrs);
            held.push(t.ty);
        }
        Body::Enum(_) => {}
    }
    let held = held.iter().filter(|ty| !holds_primitives(ty));
    quote! {
        ::kubeskema::__cel! {
            fn count_cel_rules(__walk: &mut ::kubeskema::cel::Walk) {
                if !__walk.enter(::core::any::TypeId::of::<Self>()) {
                    return;
                }
                #(#counted)*
                #kept
                #(<#held as ::kubeskema::Validate>::count_cel_rules(__walk);)*
            }
        }
    }
}

/// The `Walk::rule` calls for the rules in `attrs` (and nested in its items' and values').
fn count_rules(attrs: &Attrs, owner: &str, out: &mut Vec<TokenStream>) {
    let interpretable = !attrs.flag(Keyword::NoCelValue);
    for r in attrs.rules() {
        let text = r.rule.as_ref().expect("invariant: attr parsing requires rule").value();
        let reason = match way(r, interpretable, &quote!(Self)) {
            Way::Given(_) | Way::Compiled(_) => quote!(::core::option::Option::None),
            Way::Interpreted(reason) => quote!(::core::option::Option::Some(#reason)),
        };
        out.push(quote!(__walk.rule(#owner, #text, #reason);));
    }
    for (_, _, item) in &attrs.items {
        if let Item::Nested(nested) = item {
            count_rules(nested, owner, out);
        }
    }
}

/// The CEL value of `v` at a node with `attrs`: its own format is applied by `evaluate`;
/// a list's or map's element format here.
fn items_formatted(attrs: &Attrs, v: &TokenStream) -> TokenStream {
    let cel = quote!(::kubeskema::cel);
    for keyword in [Keyword::Items, Keyword::Values] {
        if let Some(n) = attrs.nested(keyword)
            && let Some(f) = n.str(Keyword::Format)
        {
            return quote!(#cel::with_format_each(#cel::ToCel::to_cel(#v), #f));
        }
    }
    quote!(#cel::ToCel::to_cel(#v))
}

/// A field's CEL value inside its struct: with its format (and its elements').
fn cel_value(attrs: &Attrs, v: &TokenStream) -> TokenStream {
    let base = items_formatted(attrs, v);
    match attrs.str(Keyword::Format) {
        Some(f) => quote!(::kubeskema::cel::with_format(#base, #f)),
        None => base,
    }
}
