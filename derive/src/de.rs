//! `Deserialize`: structs read through their `Decode` impl (`kubeskema::decode::deserialize_struct`,
//! the validating read stopping at its first issue), enums through theirs
//! (`kubeskema::decode::deserialize_enum`).

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{Body, Container};

pub fn expand(c: &Container) -> TokenStream {
    let ident = c.ident;
    let body = match &c.data {
        Body::Struct(_) => expand_struct(),
        // A value returned whole, as an enum's is.
        Body::Enum(_) | Body::Union(_) | Body::Transparent(_) => expand_enum(),
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

/// An enum reads through its `Decode` impl too (`kubeskema::decode::deserialize_enum`): one
/// match over its values, in the derived `Decode`.
fn expand_enum() -> TokenStream {
    quote! { ::kubeskema::decode::deserialize_enum(__deserializer) }
}
