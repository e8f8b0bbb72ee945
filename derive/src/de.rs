//! `Deserialize`: structs read through their `Decode` impl (`kubeskema::decode::deserialize_struct`,
//! the validating read stopping at its first issue), enums with a value visitor.

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{Body, Container, Variant, VariantValue};

pub fn expand(c: &Container) -> TokenStream {
    let ident = c.ident;
    let body = match &c.data {
        Body::Struct(_) => expand_struct(),
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

/// A struct reads through its `Decode` impl, stopping at the first issue: one reader for
/// plain and validating reads.
fn expand_struct() -> TokenStream {
    quote! { ::kubeskema::decode::deserialize_struct(__deserializer) }
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
