//! Constructors. A `resource(...)` root gets `new(name, ...)`: its `apiVersion` and `kind`
//! from the attribute, `metadata.name` set. A struct that asks (`#[kubeskema(constructors)]`,
//! which code generation writes on every struct) gets `Default` when no field must be given,
//! else `new(...)` taking those that must, and a `with_<field>` setter for each of the others.
//!
//! A field the caller does not give is made as the validating read fills its absence (`None`,
//! the schema default, serde's `default`), so a constructed value is the value read from an
//! object holding only what was given.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use kubeskema_attributes::Keyword;

use crate::model::{Body, Container, Field, Shape};

pub fn expand(c: &Container) -> TokenStream {
    let asked = c.attrs.flag(Keyword::Constructors);
    let Body::Struct(fields) = &c.data else {
        return match asked {
            true => syn::Error::new(
                c.ident.span(),
                "`constructors` makes a struct's `Default`, `new` and setters: an enum is built by its variants",
            )
            .to_compile_error(),
            false => TokenStream::new(),
        };
    };
    let root = crate::crd::api_version_and_kind(c);
    if root.is_none() && !asked {
        return TokenStream::new();
    }
    let ident = c.ident;
    let mut params = Vec::new();
    let mut inits = Vec::new();
    let mut setters = Vec::new();
    for f in fields {
        let member = f.ident;
        let root_value = root.as_ref().and_then(|(api_version, kind)| match f.json_name.as_str() {
            "apiVersion" => Some(quote!(::core::convert::From::from(#api_version))),
            "kind" => Some(quote!(::core::convert::From::from(#kind))),
            "metadata" => {
                let ty = f.value_ty;
                Some(quote! {{
                    let mut __meta: #ty = ::core::default::Default::default();
                    __meta.name = ::core::option::Option::Some(::core::convert::Into::into(name));
                    __meta
                }})
            }
            _ => None,
        });
        if let Some(value) = root_value {
            let value = present(f.shape, value);
            inits.push(quote!(#member: #value));
            continue;
        }
        // A root's `spec` is given, optional or not (`new(name, spec)`, as kube-derive has it).
        if root.is_some() && f.json_name == "spec" && f.shape != Shape::UnknownFields {
            let ty = f.value_ty;
            params.push(quote!(#member: impl ::core::convert::Into<#ty>));
            let value = present(f.shape, quote!(::core::convert::Into::into(#member)));
            inits.push(quote!(#member: #value));
            continue;
        }
        match absent(c, f) {
            Some(value) => {
                inits.push(quote!(#member: #value));
                if asked {
                    setters.extend(setter(f));
                }
            }
            None => {
                let ty = given_ty(f);
                params.push(quote!(#member: impl ::core::convert::Into<#ty>));
                inits.push(quote!(#member: ::core::convert::Into::into(#member)));
            }
        }
    }
    let skipped = &c.skipped;
    let body = quote! {
        Self { #(#inits,)* #(#skipped: ::core::default::Default::default(),)* }
    };
    let made = match &root {
        Some((api_version, kind)) => {
            let doc = format!(
                "The {kind} `name` (apiVersion `{api_version}`), with the fields given here; each \
                 other field as reading the object without it makes it (`None`, or its default)."
            );
            quote! {
                #[doc = #doc]
                pub fn new(name: impl ::core::convert::Into<::std::string::String>, #(#params),*) -> Self {
                    #body
                }
            }
        }
        None if params.is_empty() => TokenStream::new(),
        None => quote! {
            /// The value with the fields that must be given; each other field as reading an
            /// object without it makes it (`None`, or its default). Set those with `with_...`.
            pub fn new(#(#params),*) -> Self {
                #body
            }
        },
    };
    let default = (root.is_none() && params.is_empty()).then(|| {
        quote! {
            #[automatically_derived]
            impl ::core::default::Default for #ident {
                /// Each field as reading `{}` makes it (`None`, or its default).
                fn default() -> Self {
                    #body
                }
            }
        }
    });
    quote! {
        #default
        #[automatically_derived]
        impl #ident {
            #made
            #(#setters)*
        }
    }
}

/// What a field holds when the object does not give it, as the read fills it; `None` for a
/// field that must be given.
fn absent(c: &Container, f: &Field) -> Option<TokenStream> {
    let (name, ty) = (&f.json_name, f.value_ty);
    let schema_default = |ty: TokenStream| {
        f.default.as_deref().map(|json| quote!(::kubeskema::__private::schema_default::<#ty>(#name, #json)))
    };
    match f.shape {
        Shape::Optional | Shape::MaybeNull => Some(quote!(::core::option::Option::None)),
        Shape::UnknownFields => Some(quote!(::core::default::Default::default())),
        Shape::Defaulted => schema_default(quote!(#ty)),
        Shape::Nullable => schema_default(quote!(::core::option::Option<#ty>)),
        Shape::Required => f.serde_default.as_ref().map(|how| how.fill(c.ident, f.ident)),
    }
}

/// The type a caller gives for a field that must be given: its value, or for a nullable one
/// its `Option` (`None` is `null`).
fn given_ty(f: &Field) -> TokenStream {
    let ty = f.value_ty;
    match f.shape {
        Shape::Nullable => quote!(::core::option::Option<#ty>),
        _ => quote!(#ty),
    }
}

/// A field of shape `shape` holding `value` (present, not `null`).
fn present(shape: Shape, value: TokenStream) -> TokenStream {
    match shape {
        Shape::Optional | Shape::Nullable => quote!(::core::option::Option::Some(#value)),
        Shape::MaybeNull => quote!(::core::option::Option::Some(::core::option::Option::Some(#value))),
        Shape::Required | Shape::Defaulted | Shape::UnknownFields => value,
    }
}

/// `with_<field>(value)`: the field set to a value (not `null`: set that on the field itself).
fn setter(f: &Field) -> Option<TokenStream> {
    let (member, ty) = (f.ident, f.value_ty);
    if f.shape == Shape::UnknownFields {
        return None;
    }
    let set = present(f.shape, quote!(::core::convert::Into::into(value)));
    let name = format_ident!("with_{}", member.to_string().trim_start_matches("r#"));
    let doc = format!("Sets `{}`.", f.json_name);
    Some(quote! {
        #[doc = #doc]
        #[must_use]
        pub fn #name(mut self, value: impl ::core::convert::Into<#ty>) -> Self {
            self.#member = #set;
            self
        }
    })
}
