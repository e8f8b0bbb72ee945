//! `kubeskema::decode::Decode`: the validating read, emitted beside `Deserialize` so every type
//! that deserializes also reads with issues recorded (`kubeskema::decode::from_slice`). The
//! emitted code is a field-name `match` and one runtime call per field; absence, `null`,
//! duplicates, unknown keys and defaults are decided in `kubeskema::decode`, once.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::{Body, Container, Field, Shape, Variant, VariantValue};

pub fn expand(c: &Container) -> TokenStream {
    let ident = c.ident;
    let (method, fields_impl) = match &c.data {
        // A struct is written into its place (it can be large); an enum is returned.
        Body::Struct(fields) => (
            quote! {
                #[inline]
                fn decode_into<'de, __D: _serde::Deserializer<'de>>(
                    __d: __D,
                    __cx: &mut ::kubeskema::decode::Cx<'_>,
                    __at: &::kubeskema::decode::At<'_>,
                    __out: &mut ::core::option::Option<Self>,
                ) -> ::core::result::Result<(), __D::Error> {
                    ::kubeskema::decode::decode_struct(__d, __cx, __at, __out)
                }
            },
            expand_fields(c, fields),
        ),
        Body::Enum(variants) => {
            let decode = expand_enum(c, variants);
            let method = quote! {
                fn decode<'de, __D: _serde::Deserializer<'de>>(
                    __d: __D,
                    __cx: &mut ::kubeskema::decode::Cx<'_>,
                    __at: &::kubeskema::decode::At<'_>,
                ) -> ::core::result::Result<::core::option::Option<Self>, __D::Error> {
                    #decode
                }
            };
            (method, quote! {})
        }
    };
    quote! {
        #fields_impl
        #[automatically_derived]
        impl ::kubeskema::decode::Decode for #ident {
            #method
        }
    }
}

fn expand_fields(c: &Container, fields: &[Field]) -> TokenStream {
    let ident = c.ident;
    let (named, tags) = slots(fields);
    let kept = fields.iter().find(|f| f.shape == Shape::UnknownFields);
    let names: Vec<&str> = named.iter().map(|f| f.json_name.as_str()).collect();
    let indexes = 0..named.len();
    let slots = named.iter().zip(&tags).map(|(f, tag)| {
        let ty = f.value_ty;
        quote! { let mut #tag: ::kubeskema::decode::Slot<#ty> = ::kubeskema::decode::Slot::ABSENT; }
    });
    let reads = named.iter().zip(&tags).enumerate().map(|(i, (f, tag))| {
        let name = &f.json_name;
        match f.attrs.str("format") {
            Some(format) => quote! {
                ::kubeskema::decode::FieldKey::Known(#i) =>
                    ::kubeskema::decode::field_with_format(&mut __map, __cx, __at, #name, &mut #tag, #format),
            },
            None => quote! {
                ::kubeskema::decode::FieldKey::Known(#i) => ::kubeskema::decode::field(&mut __map, __cx, __at, #name, &mut #tag),
            },
        }
    });
    let (kept_slot, other) = match kept {
        Some(_) => (
            quote! { let mut __kept = ::kubeskema::__private::serde_json::Map::new(); },
            quote! { ::kubeskema::decode::kept_field(&mut __map, __cx, __at, __k, &mut __kept) },
        ),
        None => (quote! {}, quote! { ::kubeskema::decode::unknown_field(&mut __map, __cx, __at, &__k) }),
    };
    // Every finisher runs (each records what is missing), then the values move once.
    let finishes = named.iter().zip(&tags).map(|(f, tag)| {
        let name = &f.json_name;
        let default = match &f.default {
            Some(json) => quote! { ::core::option::Option::Some(#json) },
            None => quote! { ::core::option::Option::None },
        };
        let call = match f.shape {
            Shape::Required => quote! { ::kubeskema::decode::required(&mut #tag, __cx, __at, #name) },
            Shape::Defaulted => {
                let json = f.default.as_deref().unwrap_or("null");
                quote! { ::kubeskema::decode::defaulted(&mut #tag, __cx, __at, #name, #json) }
            }
            Shape::Optional => quote! { ::kubeskema::decode::optional(&mut #tag, __cx, __at, #name, #default) },
            Shape::Nullable => quote! { ::kubeskema::decode::nullable(&mut #tag, __cx, __at, #name, #default) },
            Shape::MaybeNull => quote! { ::kubeskema::decode::maybe_null(&mut #tag, __cx, __at, #name, #default) },
            Shape::UnknownFields => unreachable!("invariant: the unknown-fields map has no slot"),
        };
        quote! { __usable &= #call; }
    });
    let values = named.iter().zip(&tags).map(|(f, tag)| match f.shape {
        // Checked by the finisher: the `else` is never taken.
        Shape::Required | Shape::Defaulted => quote! {
            let ::core::option::Option::Some(#tag) = #tag.value else { return ::core::result::Result::Ok(()) };
        },
        Shape::Optional | Shape::Nullable => quote! { let #tag = #tag.value; },
        Shape::MaybeNull => quote! { let #tag = #tag.maybe_null(); },
        Shape::UnknownFields => unreachable!("invariant: the unknown-fields map has no slot"),
    });
    let inits = inits(fields, &tags, &format_ident!("__kept"));
    quote! {
        #[automatically_derived]
        impl ::kubeskema::decode::DecodeFields for #ident {
            fn decode_fields<'de, __A: _serde::de::MapAccess<'de>>(
                mut __map: __A,
                __cx: &mut ::kubeskema::decode::Cx<'_>,
                __at: &::kubeskema::decode::At<'_>,
                __out: &mut ::core::option::Option<Self>,
            ) -> ::core::result::Result<(), __A::Error> {
                fn __index(__name: &str) -> ::core::option::Option<usize> {
                    match __name {
                        #(#names => ::core::option::Option::Some(#indexes),)*
                        _ => ::core::option::Option::None,
                    }
                }
                #(#slots)*
                #kept_slot
                while let ::core::option::Option::Some(__key) =
                    _serde::de::MapAccess::next_key_seed(&mut __map, ::kubeskema::decode::FieldKeySeed(__index))?
                {
                    // One `?` for all arms: each would be a branch and a conversion of its own.
                    let __read = match __key {
                        #(#reads)*
                        ::kubeskema::decode::FieldKey::Known(_) => ::kubeskema::decode::ignored_field(&mut __map),
                        ::kubeskema::decode::FieldKey::Unknown(__k) => #other,
                    };
                    __read?;
                }
                let mut __usable = true;
                #(#finishes)*
                if !__usable {
                    return ::core::result::Result::Ok(());
                }
                #(#values)*
                *__out = ::core::option::Option::Some(#ident { #(#inits,)* });
                ::core::result::Result::Ok(())
            }
        }
    }
}

/// The fields a struct's object names (all but the unknown-fields map), each with the
/// identifier of the local slot it is read into (`__f0`, `__f1`, ...).
fn slots<'f, 'a>(fields: &'f [Field<'a>]) -> (Vec<&'f Field<'a>>, Vec<syn::Ident>) {
    let named: Vec<&Field> = fields.iter().filter(|f| f.shape != Shape::UnknownFields).collect();
    let tags = (0..named.len()).map(|i| format_ident!("__f{}", i)).collect();
    (named, tags)
}

/// The struct literal's initializers: each named field from its slot (in [`slots`] order),
/// the unknown-fields map from `rest`.
fn inits(fields: &[Field], tags: &[syn::Ident], rest: &syn::Ident) -> Vec<TokenStream> {
    let mut tags = tags.iter();
    fields
        .iter()
        .map(|f| {
            let member = f.ident;
            if f.shape == Shape::UnknownFields {
                quote! { #member: #rest }
            } else {
                let tag = tags.next().expect("invariant: one slot per named field");
                quote! { #member: #tag }
            }
        })
        .collect()
}

fn expand_enum(c: &Container, variants: &[Variant]) -> TokenStream {
    let ident = c.ident;
    let allowed = serde_json::Value::Array(crate::model::supported_values(c, variants)).to_string();
    let arms = variants.iter().map(|v| {
        let variant = v.ident;
        let pattern = match &v.value {
            VariantValue::Str(s) => quote! { ::kubeskema::decode::Scalar::Str(#s) },
            VariantValue::Int(i) => quote! { ::kubeskema::decode::Scalar::Int(#i) },
            VariantValue::Bool(b) => quote! { ::kubeskema::decode::Scalar::Bool(#b) },
        };
        quote! { #pattern => ::core::option::Option::Some(#ident::#variant), }
    });
    quote! {
        ::kubeskema::decode::decode_enum(__d, __cx, __at, #allowed, |__v| match __v.whole_as_int() {
            #(#arms)*
            _ => ::core::option::Option::None,
        })
    }
}
