//! `Serialize`: a struct as a map of its present fields (plus its unknown ones), an enum as
//! its value.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{Body, Container, Shape, VariantValue};

pub fn expand(c: &Container) -> TokenStream {
    let ident = c.ident;
    let body = match &c.data {
        Body::Struct(fields) => {
            let entries = fields.iter().map(|f| {
                let member = f.ident;
                let name = &f.json_name;
                match f.shape {
                    // Always written: required and defaulted values are always there, and a
                    // nullable never-absent field writes `None` as `null`.
                    Shape::Required | Shape::Defaulted | Shape::Nullable => {
                        quote! { __map.entry(#name, &self.#member); }
                    }
                    // Absent stays absent; for `Option<Option<T>>` a `Some(None)` writes `null`.
                    Shape::Optional | Shape::MaybeNull => quote! { __map.optional(#name, &self.#member); },
                    Shape::UnknownFields => quote! { __map.kept(&self.#member); },
                }
            });
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
