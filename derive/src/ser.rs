//! `Serialize`: a struct as a map of its present fields (plus its unknown ones), an enum as
//! its value.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{Body, Container, Field, Payload, Shape, Tagging, Union, VariantValue};
use crate::reach::{Recv, variant_pattern};

/// One field's entry in a map being written (`__map`), its value at `place`.
fn entry(f: &Field, place: TokenStream) -> TokenStream {
    let name = &f.json_name;
    match f.shape {
        _ if f.flatten => quote! { __map.flattened(&#place); },
        // Always written: required and defaulted values are always there, and a nullable
        // never-absent field writes `None` as `null`.
        Shape::Required | Shape::Defaulted | Shape::Nullable => quote! { __map.entry(#name, &#place); },
        // Absent stays absent; for `Option<Option<T>>` a `Some(None)` writes `null`.
        Shape::Optional | Shape::MaybeNull => quote! { __map.optional(#name, &#place); },
        Shape::UnknownFields => quote! { __map.kept(&#place); },
    }
}

/// A data-carrying enum as serde writes it in its representation. A struct variant's fields
/// are written by `__Fields`, a view of the enum that writes the fields of the variant it holds
/// as a map (after the tag, when it is given), so that each representation can place them.
fn expand_union(c: &Container, u: &Union) -> TokenStream {
    let ident = c.ident;
    let start = quote!(let mut __map = ::kubeskema::__private::MapWriter::start(__serializer)?;);
    let fields_of = |tag: Option<(&str, &str)>| {
        let tag = match tag {
            Some((k, v)) => quote!(::core::option::Option::Some((#k, #v))),
            None => quote!(::core::option::Option::None),
        };
        quote!(__Fields { value: self, tag: #tag })
    };
    let arms = u.variants.iter().map(|v| {
        let pattern = variant_pattern(ident, v, "__n_");
        let name = &v.name;
        let write = match (&v.payload, &u.tagging) {
            (Payload::Unit, Tagging::External) => quote!(_serde::Serializer::serialize_str(__serializer, #name)),
            (Payload::Unit, Tagging::Internal(tag) | Tagging::Adjacent(tag, _)) => {
                quote!({ #start __map.entry(#tag, #name); __map.end() })
            }
            (Payload::Unit, Tagging::Untagged) => quote!(_serde::Serializer::serialize_unit(__serializer)),
            (Payload::Newtype(_), Tagging::External) => quote!({ #start __map.entry(#name, __n); __map.end() }),
            (Payload::Newtype(_), Tagging::Internal(tag)) => {
                quote!(::kubeskema::__private::serialize_tagged(__serializer, #tag, #name, __n))
            }
            (Payload::Newtype(_), Tagging::Adjacent(tag, content)) => {
                quote!({ #start __map.entry(#tag, #name); __map.entry(#content, __n); __map.end() })
            }
            (Payload::Newtype(_), Tagging::Untagged) => quote!(_serde::Serialize::serialize(__n, __serializer)),
            (Payload::Struct(..), Tagging::External) => {
                let fields = fields_of(None);
                quote!({ #start __map.entry(#name, &#fields); __map.end() })
            }
            (Payload::Struct(..), Tagging::Internal(tag)) => {
                let fields = fields_of(Some((tag, name)));
                quote!(_serde::Serialize::serialize(&#fields, __serializer))
            }
            (Payload::Struct(..), Tagging::Adjacent(tag, content)) => {
                let fields = fields_of(None);
                quote!({ #start __map.entry(#tag, #name); __map.entry(#content, &#fields); __map.end() })
            }
            (Payload::Struct(..), Tagging::Untagged) => {
                let fields = fields_of(None);
                quote!(_serde::Serialize::serialize(&#fields, __serializer))
            }
        };
        quote!(#pattern => #write,)
    });
    let field_arms = u.variants.iter().filter_map(|v| {
        let Payload::Struct(fields, _) = &v.payload else { return None };
        let pattern = variant_pattern(ident, v, "__n_");
        let entries = fields.iter().map(|f| entry(f, Recv::Bound("__n_").place(f)));
        Some(quote!(#pattern => { #(#entries)* }))
    });
    quote! {
        #[automatically_derived]
        impl ::kubeskema::__private::SkipsAbsent for #ident {}
        struct __Fields<'a> {
            value: &'a #ident,
            tag: ::core::option::Option<(&'static str, &'static str)>,
        }
        impl _serde::Serialize for __Fields<'_> {
            fn serialize<__S: _serde::Serializer>(&self, __serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                #start
                if let ::core::option::Option::Some((__k, __v)) = self.tag {
                    __map.entry(__k, __v);
                }
                // An arm may not write every field it binds.
                #[allow(unused_variables)]
                match self.value {
                    #(#field_arms)*
                    _ => {}
                }
                __map.end()
            }
        }
        #[automatically_derived]
        impl _serde::Serialize for #ident {
            fn serialize<__S: _serde::Serializer>(&self, __serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                // An arm may not write every field it binds.
                #[allow(unused_variables)]
                match self { #(#arms)* }
            }
        }
    }
}

pub fn expand(c: &Container) -> TokenStream {
    let ident = c.ident;
    let body = match &c.data {
        Body::Struct(fields) => {
            let entries = fields.iter().map(|f| entry(f, Recv::SelfValue.place(f)));
            // One call per field, no `?` (see `MapWriter`).
            quote! {
                let mut __map = ::kubeskema::__private::MapWriter::start(__serializer)?;
                #(#entries)*
                __map.end()
            }
        }
        Body::Enum(variants) => {
            let arms = variants.iter().map(|v| {
                let var = v.ident;
                let write = match &v.value {
                    VariantValue::Str(s) => {
                        quote! { _serde::Serializer::serialize_str(__serializer, #s) }
                    }
                    VariantValue::Int(i) => {
                        quote! { _serde::Serializer::serialize_i64(__serializer, #i) }
                    }
                    VariantValue::Bool(b) => {
                        quote! { _serde::Serializer::serialize_bool(__serializer, #b) }
                    }
                };
                quote! { #ident::#var => #write, }
            });
            quote! { match self { #(#arms)* } }
        }
        Body::Union(u) => return expand_union(c, u),
        Body::Transparent(t) => {
            let member = &t.member;
            quote!(_serde::Serialize::serialize(&self.#member, __serializer))
        }
    };
    quote! {
        #[automatically_derived]
        impl ::kubeskema::__private::SkipsAbsent for #ident {}
        #[automatically_derived]
        impl _serde::Serialize for #ident {
            fn serialize<__S: _serde::Serializer>(&self, __serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                #body
            }
        }
    }
}
