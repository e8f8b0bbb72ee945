//! `ApplyConfiguration`: beside a struct `Widget`, the struct `WidgetApply` that a server-side
//! apply sends: each field an `Option` of the field type's own configuration
//! (`kubeskema::ApplyConfiguration::Apply`), left out when `None`; a nullable field an
//! `Option<Option<_>>` whose `Some(None)` sends `null`; a `resource(...)` root's `apiVersion` and
//! `kind` filled in and its `metadata` always sent (`new(name)`); the item type of `map` lists
//! (`apply_keys(...)`, written by codegen) made by `new(keys...)`. Builders by field name
//! (`WidgetApply::new("w").namespace("ns").spec(WidgetSpecApply::default().replicas(3))`),
//! `From<&Widget>`, `Clone` and `Serialize`. Enums, unions and transparent newtypes are applied
//! whole: their configuration is themselves.
//!
//! A resource's configuration is `Debug` (kube's `Api::patch` asks for it) by its apiVersion,
//! kind and metadata. No configuration is `PartialEq` nor prints whole: compare and print its
//! JSON. Either, on any type, makes the compiler build a comparer or printer for every type
//! below it (all 5,499 corpus types: 8.64 GB peak with them, 8.36 GB without, 6.18 GB without
//! configurations).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use kubeskema_attributes::Keyword;
use kubeskema_attributes::parse::Item;

use crate::model::{Body, Container, Field, Shape};

/// The configuration struct and its impls, or the impl that makes a type its own configuration.
pub fn expand(c: &Container, vis: &syn::Visibility) -> TokenStream {
    // Generic types are refused by the model, as for every kubeskema derive.
    let ident = c.ident;
    let ac = quote!(::kubeskema::ApplyConfiguration);
    let Body::Struct(fields) = &c.data else {
        return quote! {
            #[doc(hidden)]
            const _: () = {
                #[automatically_derived]
                impl #ac for #ident {
                    type Apply = #ident;
                    fn apply_configuration(&self) -> #ident {
                        ::core::clone::Clone::clone(self)
                    }
                }
            };
        };
    };
    let name = format_ident!("{}Apply", ident);
    let root = crate::crd::api_version_and_kind(c);
    let meta_field = fields.iter().find(|f| f.json_name == "metadata" && f.shape != Shape::UnknownFields);
    if root.is_some() && meta_field.is_none_or(|f| f.shape.options() != 0) {
        return syn::Error::new(
            ident.span(),
            "an apply configuration of a `resource(...)` needs a `metadata` field that is not an `Option`",
        )
        .to_compile_error();
    }
    // The key fields (without a default) of a `map` list's item type: required, set by `new`.
    let keys: Vec<syn::LitStr> = match c.attrs.get(Keyword::ApplyKeys) {
        Some(Item::Strs(keys)) => keys.clone(),
        _ => Vec::new(),
    };
    for key in &keys {
        if root.is_some() {
            return syn::Error::new(
                key.span(),
                "`apply_keys` names the key fields of a `map` list's item type, not of a resource",
            )
            .to_compile_error();
        }
        if !fields.iter().any(|f| f.json_name == key.value()) {
            return syn::Error::new(key.span(), format!("`apply_keys`: no field is named `{}`", key.value()))
                .to_compile_error();
        }
    }
    let is_key = |f: &Field| f.shape == Shape::Required && keys.iter().any(|k| k.value() == f.json_name);
    // A root's TypeMeta and metadata are written by the configuration itself.
    let type_meta = |f: &Field| root.is_some() && ["apiVersion", "kind", "metadata"].contains(&f.json_name.as_str());
    let own: Vec<&Field> = fields.iter().filter(|f| !type_meta(f)).collect();

    // Each field's type has a configuration, or the error stands at the type.
    let asserts = own.iter().filter(|f| f.shape != Shape::UnknownFields).map(|f| {
        let ty = f.value_ty;
        quote_spanned!(ty.span()=> __has_configuration::<#ty>();)
    });
    let mut members = Vec::new();
    let mut entries = Vec::new();
    let mut builders = Vec::new();
    let mut from = Vec::new();
    let (mut key_params, mut key_inits) = (Vec::new(), Vec::new());
    if let (Some((api_version, kind)), Some(meta)) = (&root, meta_field) {
        let (member, ty) = (meta.ident, meta.value_ty);
        members.push(quote! {
            /// Always sent: the resource's group and version.
            pub api_version: ::std::string::String,
            /// Always sent: the resource's kind.
            pub kind: ::std::string::String,
            /// Always sent: the object's name (and namespace).
            pub #member: <#ty as #ac>::Apply,
        });
        entries.push(quote! {
            __map.entry("apiVersion", &self.api_version);
            __map.entry("kind", &self.kind);
            __map.entry("metadata", &self.#member);
        });
        builders.push(quote! {
            /// The configuration of the object `name`: its apiVersion and kind, its name, and
            /// nothing else yet.
            pub fn new(name: impl ::core::convert::Into<::std::string::String>) -> Self {
                #name {
                    api_version: ::std::string::String::from(#api_version),
                    kind: ::std::string::String::from(#kind),
                    #member: ::kubeskema::ApplyMeta::named(name.into()),
                    ..::core::default::Default::default()
                }
            }
            /// Sets `metadata.namespace`.
            pub fn namespace(mut self, namespace: impl ::core::convert::Into<::std::string::String>) -> Self {
                ::kubeskema::ApplyMeta::set_namespace(&mut self.#member, namespace.into());
                self
            }
        });
        from.push(quote! {
            api_version: ::std::string::String::from(#api_version),
            kind: ::std::string::String::from(#kind),
            #member: #ac::apply_configuration(&__value.#member),
        });
    }
    for f in &own {
        let (member, ty, json) = (f.ident, f.value_ty, &f.json_name);
        // A root's `new` and `namespace` are its own: a field of that name is set directly.
        let builder = !(root.is_some() && ["new", "namespace"].contains(&member.unraw().to_string().as_str()));
        // Spanned at the field's type: a type without a configuration is an error there.
        let apply = quote_spanned!(ty.span()=> <#ty as ::kubeskema::ApplyConfiguration>::Apply);
        let doc = f.doc.as_deref().map(|d| quote!(#[doc = #d]));
        let setter_doc = format!("Sets `{json}`.");
        match f.shape {
            Shape::UnknownFields => {
                if !keys.is_empty() {
                    key_inits.push(quote!(#member: ::core::default::Default::default(),));
                }
                members.push(quote!(#doc pub #member: ::kubeskema::serde_json::Map<::std::string::String, ::kubeskema::serde_json::Value>,));
                entries.push(quote!(__map.kept(&self.#member);));
                from.push(quote!(#member: ::core::clone::Clone::clone(&__value.#member),));
            }
            Shape::Nullable | Shape::MaybeNull => {
                if !keys.is_empty() {
                    key_inits.push(quote!(#member: ::core::option::Option::None,));
                }
                members.push(quote!(#doc pub #member: ::core::option::Option<::core::option::Option<#apply>>,));
                entries.push(quote!(__map.optional(#json, &self.#member);));
                let null = format_ident!("{}_null", member.unraw());
                let null_doc = format!("Sets `{json}` to `null`.");
                builders.extend(builder.then(|| {
                    quote! {
                        #[doc = #setter_doc]
                        pub fn #member(mut self, value: impl ::core::convert::Into<#apply>) -> Self {
                            self.#member = ::core::option::Option::Some(::core::option::Option::Some(value.into()));
                            self
                        }
                        #[doc = #null_doc]
                        pub fn #null(mut self) -> Self {
                            self.#member = ::core::option::Option::Some(::core::option::Option::None);
                            self
                        }
                    }
                }));
                let value = if f.shape == Shape::Nullable {
                    quote!(::core::option::Option::Some(__value.#member.as_ref().map(#ac::apply_configuration)))
                } else {
                    quote!(__value.#member.as_ref().map(|__v| __v.as_ref().map(#ac::apply_configuration)))
                };
                from.push(quote!(#member: #value,));
            }
            Shape::Required if is_key(f) => {
                members.push(quote!(#doc pub #member: #apply,));
                entries.push(quote!(__map.entry(#json, &self.#member);));
                key_params.push(quote!(#member: impl ::core::convert::Into<#apply>));
                key_inits.push(quote!(#member: #member.into(),));
                from.push(quote!(#member: #ac::apply_configuration(&__value.#member),));
            }
            Shape::Required | Shape::Defaulted | Shape::Optional => {
                if !keys.is_empty() {
                    key_inits.push(quote!(#member: ::core::option::Option::None,));
                }
                members.push(quote!(#doc pub #member: ::core::option::Option<#apply>,));
                entries.push(if f.flatten {
                    quote!(if let ::core::option::Option::Some(__v) = &self.#member { __map.flattened(__v); })
                } else {
                    quote!(__map.optional(#json, &self.#member);)
                });
                builders.extend(builder.then(|| {
                    quote! {
                        #[doc = #setter_doc]
                        pub fn #member(mut self, value: impl ::core::convert::Into<#apply>) -> Self {
                            self.#member = ::core::option::Option::Some(value.into());
                            self
                        }
                    }
                }));
                let value = if f.shape == Shape::Optional {
                    quote!(__value.#member.as_ref().map(#ac::apply_configuration))
                } else {
                    quote!(::core::option::Option::Some(#ac::apply_configuration(&__value.#member)))
                };
                from.push(quote!(#member: #value,));
            }
        }
    }
    let doc = format!(
        "The server-side apply configuration of [`{ident}`]: what is set is sent, and owned by the \
         applier; what is not is left out. Its checks need the merged object (`kubeskema::apply`)."
    );
    // An item with required keys has no `Default`: it is made by `new(keys...)`.
    let default = key_params.is_empty().then(|| quote!(::core::default::Default,));
    // Without `apply_keys` (a hand-written item type does not know the list that holds it),
    // `new` takes the fields the type requires, which a `map` list's keys are, and the rest
    // start unset as `Default` leaves them.
    // (Not where a field's own setter is `new`.)
    let setter_named_new = own.iter().any(|f| f.ident.unraw() == "new");
    let required: Vec<&Field> = if keys.is_empty() && root.is_none() && !setter_named_new {
        own.iter().copied().filter(|f| f.shape == Shape::Required && f.serde_default.is_none() && !f.flatten).collect()
    } else {
        Vec::new()
    };
    if !required.is_empty() {
        let params = required.iter().map(|f| {
            let (member, ty) = (f.ident, f.value_ty);
            quote!(#member: impl ::core::convert::Into<<#ty as ::kubeskema::ApplyConfiguration>::Apply>)
        });
        let inits = required.iter().map(|f| {
            let member = f.ident;
            quote!(#member: ::core::option::Option::Some(#member.into()),)
        });
        builders.insert(
            0,
            quote! {
                /// The configuration with the fields the type requires (the keys, when it is a
                /// `map` list's item type), and nothing else yet.
                pub fn new(#(#params),*) -> Self {
                    #name { #(#inits)* ..::core::default::Default::default() }
                }
            },
        );
    }
    if !key_params.is_empty() {
        builders.insert(
            0,
            quote! {
                /// The configuration of the item these keys name, and nothing else yet.
                pub fn new(#(#key_params),*) -> Self {
                    #name { #(#key_inits)* }
                }
            },
        );
    }
    // A resource's configuration is `Debug` (kube's `Api::patch` asks for it) by what names the
    // object: printing it all, as JSON or field by field, compiles a printer for every type
    // below it (the corpus crate: 8.64 GB peak instead of 8.36).
    let debug = root.as_ref().zip(meta_field).map(|(_, meta)| {
        let (member, shown) = (meta.ident, name.to_string());
        quote! {
            #[automatically_derived]
            impl ::core::fmt::Debug for #name {
                fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    __f.debug_struct(#shown)
                        .field("apiVersion", &self.api_version)
                        .field("kind", &self.kind)
                        .field("metadata", &self.#member)
                        .finish_non_exhaustive()
                }
            }
        }
    });
    quote! {
        #[doc(hidden)]
        const _: fn() = || {
            fn __has_configuration<__T: ::kubeskema::ApplyConfiguration + ?::core::marker::Sized>() {}
            #(#asserts)*
        };
        #[doc = #doc]
        #[derive(::core::clone::Clone, #default)]
        #vis struct #name {
            #(#members)*
        }
        impl #name {
            #(#builders)*
        }
        #[doc(hidden)]
        #[allow(clippy::all)]
        const _: () = {
            use ::kubeskema::__private::serde as _serde;
            #[automatically_derived]
            impl _serde::Serialize for #name {
                fn serialize<__S: _serde::Serializer>(&self, __serializer: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                    let mut __map = ::kubeskema::__private::MapWriter::start(__serializer)?;
                    #(#entries)*
                    __map.end()
                }
            }
            #[automatically_derived]
            impl ::core::convert::From<&#ident> for #name {
                // Inline: code only where it is used (the corpus crate's build memory).
                #[inline]
                fn from(__value: &#ident) -> Self {
                    #name { #(#from)* }
                }
            }
            #debug
            #[automatically_derived]
            impl ::kubeskema::AppliesTo for #name {
                type Full = #ident;
            }
            #[automatically_derived]
            impl #ac for #ident {
                type Apply = #name;
                #[inline]
                fn apply_configuration(&self) -> #name {
                    // Qualified: a field named `from` has a builder of that name.
                    <#name as ::core::convert::From<&#ident>>::from(self)
                }
            }
        };
    }
}
