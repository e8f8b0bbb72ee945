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
                        quote! { _serde::ser::SerializeMap::serialize_entry(&mut __map, #name, &self.#member)?; }
                    }
                    // Absent stays absent; for `Option<Option<T>>` a `Some(None)` writes `null`.
                    Shape::Optional | Shape::MaybeNull => quote! {
                        if let ::core::option::Option::Some(__v) = &self.#member {
                            _serde::ser::SerializeMap::serialize_entry(&mut __map, #name, __v)?;
                        }
                    },
                    Shape::UnknownFields => quote! {
                        for (__k, __v) in &self.#member {
                            _serde::ser::SerializeMap::serialize_entry(&mut __map, __k, __v)?;
                        }
                    },
                }
            });
            quote! {
                let mut __map = _serde::Serializer::serialize_map(__serializer, ::core::option::Option::None)?;
                #(#entries)*
                _serde::ser::SerializeMap::end(__map)
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
        impl _serde::Serialize for #ident {
            fn serialize<__S: _serde::Serializer>(&self, __serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                #body
            }
        }
    }
}
