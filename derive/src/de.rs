//! `Deserialize`: a map visitor with a field-identifier enum (no `flatten`, no `untagged`:
//! both buffer the input and lose positions), and a value visitor for enums.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::{Body, Container, Field, Shape, Variant, VariantValue};

pub fn expand(c: &Container) -> TokenStream {
    let ident = c.ident;
    let body = match &c.data {
        Body::Struct(fields) => expand_struct(c, fields),
        Body::Enum(variants) => expand_enum(c, variants),
    };
    quote! {
        #[automatically_derived]
        impl<'de> _serde::Deserialize<'de> for #ident {
            fn deserialize<__D: _serde::Deserializer<'de>>(__deserializer: __D) -> ::core::result::Result<Self, __D::Error> {
                #body
            }
        }
    }
}

fn expand_struct(c: &Container, fields: &[Field]) -> TokenStream {
    let ident = c.ident;
    let expecting = format!("an object ({ident})");
    let (named, tags) = slots(fields);
    let bag = fields.iter().find(|f| f.shape == Shape::UnknownFields);
    let names: Vec<&str> = named.iter().map(|f| f.json_name.as_str()).collect();

    let (other_variant, other_arm, other_handling) = if bag.is_some() {
        (
            quote! { __other(::std::string::String) },
            quote! { _ => __Field::__other(::std::borrow::ToOwned::to_owned(__value)) },
            quote! {
                __Field::__other(__k) => {
                    let __v: ::kubeskema::__private::serde_json::Value = _serde::de::MapAccess::next_value(&mut __map)?;
                    if __extra.insert(__k, __v).is_some() {
                        return ::core::result::Result::Err(_serde::de::Error::custom("duplicate field"));
                    }
                }
            },
        )
    } else {
        (
            quote! { __ignore },
            quote! { _ => __Field::__ignore },
            // Pruned, as the apiserver prunes fields its schema does not name.
            quote! { __Field::__ignore => { let _ = _serde::de::MapAccess::next_value::<_serde::de::IgnoredAny>(&mut __map)?; } },
        )
    };

    let slots = named.iter().zip(&tags).map(|(f, tag)| {
        let ty = f.value_ty;
        quote! { let mut #tag: ::core::option::Option<::core::option::Option<#ty>> = ::core::option::Option::None; }
    });
    let bag_slot = bag.map(|_| quote! { let mut __extra = ::kubeskema::__private::serde_json::Map::new(); });
    let reads = named.iter().zip(&tags).map(|(f, tag)| {
        let ty = f.value_ty;
        let name = &f.json_name;
        quote! {
            __Field::#tag => {
                if #tag.is_some() {
                    return ::core::result::Result::Err(<__A::Error as _serde::de::Error>::duplicate_field(#name));
                }
                #tag = ::core::option::Option::Some(_serde::de::MapAccess::next_value::<::core::option::Option<#ty>>(&mut __map)?);
            }
        }
    });
    let finishes = named.iter().zip(&tags).map(|(f, tag)| finish(f, tag));
    let inits = inits(fields, &tags, &format_ident!("__extra"));

    quote! {
        #[allow(non_camel_case_types)]
        enum __Field { #(#tags,)* #other_variant }
        struct __FieldVisitor;
        impl<'de> _serde::de::Visitor<'de> for __FieldVisitor {
            type Value = __Field;
            fn expecting(&self, __f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
                ::core::fmt::Formatter::write_str(__f, "a field name")
            }
            fn visit_str<__E: _serde::de::Error>(self, __value: &str) -> ::core::result::Result<__Field, __E> {
                ::core::result::Result::Ok(match __value { #(#names => __Field::#tags,)* #other_arm })
            }
        }
        impl<'de> _serde::Deserialize<'de> for __Field {
            fn deserialize<__D: _serde::Deserializer<'de>>(__d: __D) -> ::core::result::Result<Self, __D::Error> {
                _serde::Deserializer::deserialize_identifier(__d, __FieldVisitor)
            }
        }
        struct __Visitor;
        impl<'de> _serde::de::Visitor<'de> for __Visitor {
            type Value = #ident;
            fn expecting(&self, __f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
                ::core::fmt::Formatter::write_str(__f, #expecting)
            }
            fn visit_map<__A: _serde::de::MapAccess<'de>>(self, mut __map: __A) -> ::core::result::Result<#ident, __A::Error> {
                #(#slots)*
                #bag_slot
                while let ::core::option::Option::Some(__key) = _serde::de::MapAccess::next_key::<__Field>(&mut __map)? {
                    match __key {
                        #(#reads)*
                        #other_handling
                    }
                }
                #(#finishes)*
                ::core::result::Result::Ok(#ident { #(#inits,)* })
            }
        }
        _serde::Deserializer::deserialize_map(__deserializer, __Visitor)
    }
}

/// The fields a struct's object names (all but the unknown-fields map), each with the
/// identifier of the local slot it is read into (`__f0`, `__f1`, ...).
pub(crate) fn slots<'f, 'a>(fields: &'f [Field<'a>]) -> (Vec<&'f Field<'a>>, Vec<syn::Ident>) {
    let named: Vec<&Field> = fields.iter().filter(|f| f.shape != Shape::UnknownFields).collect();
    let tags = (0..named.len()).map(|i| format_ident!("__f{}", i)).collect();
    (named, tags)
}

/// The struct literal's initializers: each named field from its slot (in [`slots`] order),
/// the unknown-fields map from `rest`.
pub(crate) fn inits(fields: &[Field], tags: &[syn::Ident], rest: &syn::Ident) -> Vec<TokenStream> {
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

/// Turns a field's slot (`None` absent, `Some(None)` null, `Some(Some(v))` a value) into the
/// field's value, by its shape.
fn finish(f: &Field, tag: &syn::Ident) -> TokenStream {
    let name = &f.json_name;
    let missing = quote! {
        return ::core::result::Result::Err(<__A::Error as _serde::de::Error>::missing_field(#name))
    };
    let default = |ty: &syn::Type| {
        let json = f.default.as_deref().unwrap_or("null");
        quote! { ::kubeskema::__private::default_from_json::<#ty, __A::Error>(#name, #json)? }
    };
    let value = match f.shape {
        // `null` of a non-nullable field is pruned by the apiserver before validation, so it
        // reads as absent.
        Shape::Required => quote! {
            match #tag { ::core::option::Option::Some(::core::option::Option::Some(__v)) => __v, _ => #missing }
        },
        Shape::Defaulted => {
            let d = default(f.ty);
            quote! {
                match #tag { ::core::option::Option::Some(::core::option::Option::Some(__v)) => __v, _ => #d }
            }
        }
        Shape::Optional => match &f.default {
            None => quote! { #tag.flatten() },
            Some(_) => {
                let d = default(f.ty);
                quote! {
                    match #tag {
                        ::core::option::Option::Some(::core::option::Option::Some(__v)) => ::core::option::Option::Some(__v),
                        _ => #d,
                    }
                }
            }
        },
        Shape::Nullable => match &f.default {
            None => {
                quote! { match #tag { ::core::option::Option::Some(__v) => __v, ::core::option::Option::None => #missing } }
            }
            Some(_) => {
                let d = default(f.ty);
                quote! { match #tag { ::core::option::Option::Some(__v) => __v, ::core::option::Option::None => #d } }
            }
        },
        Shape::MaybeNull => match &f.default {
            None => quote! { #tag },
            Some(_) => {
                let d = default(f.ty);
                quote! { match #tag { ::core::option::Option::Some(__v) => ::core::option::Option::Some(__v), ::core::option::Option::None => #d } }
            }
        },
        Shape::UnknownFields => unreachable!("invariant: the unknown-fields map has no slot"),
    };
    quote! { let #tag = #value; }
}

fn expand_enum(c: &Container, variants: &[Variant]) -> TokenStream {
    let ident = c.ident;
    // The values as the apiserver lists them (Go-quoted, numbers JSON-encoded first).
    let labels: Vec<String> = crate::model::supported_values(c, variants)
        .into_iter()
        .map(|v| match v {
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        })
        .collect();
    let supported = quote! { ::kubeskema::issue::supported_values(&[#(#labels),*]) };
    let expecting = format!("one of the values of {ident}: {}", labels.join(", "));
    // The variants by the JSON type of their value, one visitor method each.
    let (mut strs, mut ints, mut bools) = (Vec::new(), Vec::new(), Vec::new());
    for v in variants {
        match &v.value {
            VariantValue::Str(s) => strs.push((s.clone(), v.ident)),
            VariantValue::Int(i) => ints.push((*i, v.ident)),
            VariantValue::Bool(b) => bools.push((*b, v.ident)),
        }
    }
    // The apiserver's words: `Unsupported value: "x": supported values: "a", "b"`.
    let unsupported = |shown: TokenStream| {
        quote! {
            ::core::result::Result::Err(__E::custom(::core::format_args!(
                "Unsupported value: {}: {}", #shown, #supported
            )))
        }
    };
    let str_fail = unsupported(quote! { ::kubeskema::issue::go_quote(__v) });
    let int_fail = unsupported(quote! { __v });
    let bool_fail = unsupported(quote! { __v });
    let (str_vals, str_idents): (Vec<_>, Vec<_>) = strs.into_iter().unzip();
    let (int_vals, int_idents): (Vec<_>, Vec<_>) = ints.into_iter().unzip();
    let (bool_vals, bool_idents): (Vec<_>, Vec<_>) = bools.into_iter().unzip();
    quote! {
        struct __Visitor;
        impl<'de> _serde::de::Visitor<'de> for __Visitor {
            type Value = #ident;
            fn expecting(&self, __f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
                ::core::fmt::Formatter::write_str(__f, #expecting)
            }
            fn visit_str<__E: _serde::de::Error>(self, __v: &str) -> ::core::result::Result<#ident, __E> {
                match __v {
                    #(#str_vals => ::core::result::Result::Ok(#ident::#str_idents),)*
                    _ => #str_fail,
                }
            }
            fn visit_i64<__E: _serde::de::Error>(self, __v: i64) -> ::core::result::Result<#ident, __E> {
                match __v {
                    #(#int_vals => ::core::result::Result::Ok(#ident::#int_idents),)*
                    _ => #int_fail,
                }
            }
            fn visit_u64<__E: _serde::de::Error>(self, __v: u64) -> ::core::result::Result<#ident, __E> {
                match i64::try_from(__v) {
                    ::core::result::Result::Ok(__i) => self.visit_i64(__i),
                    ::core::result::Result::Err(_) => #int_fail,
                }
            }
            fn visit_f64<__E: _serde::de::Error>(self, __v: f64) -> ::core::result::Result<#ident, __E> {
                match ::kubeskema::__private::whole_f64_to_i64(__v) {
                    ::core::option::Option::Some(__i) => self.visit_i64(__i),
                    ::core::option::Option::None => #int_fail,
                }
            }
            fn visit_bool<__E: _serde::de::Error>(self, __v: bool) -> ::core::result::Result<#ident, __E> {
                match __v {
                    #(#bool_vals => ::core::result::Result::Ok(#ident::#bool_idents),)*
                    _ => #bool_fail,
                }
            }
        }
        _serde::Deserializer::deserialize_any(__deserializer, __Visitor)
    }
}
