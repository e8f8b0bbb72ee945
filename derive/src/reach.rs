//! How generated code reaches a value: a field's place in a struct value or a match arm's
//! binding (`Recv`), as an `Option<&T>` (`access`), a variant's pattern and where its payload
//! sits. Shared by the derives that walk values (`validate`, `cel`, `ser`).

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::{DataVariant, Field, Payload, Shape, Tagging};

/// Whether `tokens` name `ident` anywhere.
pub(crate) fn mentions(tokens: TokenStream, ident: &syn::Ident) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == *ident,
        proc_macro2::TokenTree::Group(g) => mentions(g.stream(), ident),
        _ => false,
    })
}

/// Where a field's value is: a member of a struct value, or the binding a match arm gave a
/// variant's field.
#[derive(Clone, Copy)]
pub(crate) enum Recv<'t> {
    /// `self.<field>`.
    SelfValue,
    /// `<receiver>.<field>`.
    Member(&'t TokenStream),
    /// `(*<prefix><field>)`: bound by reference in a variant's pattern ([`variant_pattern`]).
    Bound(&'static str),
}

impl Recv<'_> {
    /// The field's place (an expression of the field's type).
    pub(crate) fn place(self, f: &Field) -> TokenStream {
        let m = f.ident;
        match self {
            Recv::Member(receiver) => quote!(#receiver.#m),
            Recv::SelfValue => quote!(self.#m),
            Recv::Bound(prefix) => {
                let bound = binding(prefix, m);
                quote!((*#bound))
            }
        }
    }
}

fn binding(prefix: &str, member: &syn::Ident) -> syn::Ident {
    use syn::ext::IdentExt;
    quote::format_ident!("{}{}", prefix, member.unraw())
}

/// The pattern of a data-carrying variant that binds its value (`__n`, by the prefix) or each
/// of its fields (`<prefix><field>`), by reference.
pub(crate) fn variant_pattern(ident: &syn::Ident, v: &DataVariant, prefix: &str) -> TokenStream {
    let var = v.ident;
    match &v.payload {
        Payload::Unit => quote!(#ident::#var),
        Payload::Newtype(_) => {
            let bound = quote::format_ident!("{}", prefix.trim_end_matches('_'));
            quote!(#ident::#var(#bound))
        }
        Payload::Struct(fields, _) => {
            let members = fields.iter().map(|f| f.ident);
            let bound = fields.iter().map(|f| binding(prefix, f.ident));
            quote!(#ident::#var { #(#members: #bound),* })
        }
    }
}

/// Rebinds `path` (an `&At` or `&Path`) to where a variant's payload sits: under its name
/// (externally tagged), under the content key (adjacently tagged), or at the enum's own place.
pub(crate) fn payload_path(tagging: &Tagging, name: &str, path: &TokenStream) -> TokenStream {
    match tagging {
        Tagging::External => quote!(let #path = &#path.property(#name);),
        Tagging::Adjacent(_, content) => quote!(let #path = &#path.property(#content);),
        Tagging::Internal(_) | Tagging::Untagged => TokenStream::new(),
    }
}

/// The field's value as an `Option<&T>` of `receiver` (`None` when absent or null).
pub(crate) fn access(f: &Field, receiver: &TokenStream) -> Option<TokenStream> {
    access_in(f, Recv::Member(receiver))
}

/// [`access`] at any [`Recv`].
pub(crate) fn access_in(f: &Field, recv: Recv) -> Option<TokenStream> {
    let place = recv.place(f);
    Some(match f.shape {
        Shape::Required | Shape::Defaulted => quote!(::core::option::Option::Some(&#place)),
        Shape::Optional | Shape::Nullable => quote!(#place.as_ref()),
        Shape::MaybeNull => {
            quote!(::core::option::Option::and_then(#place.as_ref(), ::core::option::Option::as_ref))
        }
        Shape::UnknownFields => return None,
    })
}
