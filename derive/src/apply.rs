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
    let Body::Struct(fields) = &c.data else {
        return its_own_configuration(c.ident);
    };
    let config = match Configuration::of(c, fields) {
        Ok(config) => config,
        Err(e) => return e.to_compile_error(),
    };
    let mut parts = Parts::default();
    if let Some(root) = &config.root {
        parts.root(&config, root);
    }
    for f in &config.own {
        parts.field(&config, f);
    }
    parts.constructors(&config);
    assemble(c.ident, vis, &config, parts)
}

/// Enums, unions and transparent newtypes are applied whole.
fn its_own_configuration(ident: &syn::Ident) -> TokenStream {
    quote! {
        #[doc(hidden)]
        const _: () = {
            #[automatically_derived]
            impl ::kubeskema::ApplyConfiguration for #ident {
                type Apply = #ident;
                fn apply_configuration(&self) -> #ident {
                    ::core::clone::Clone::clone(self)
                }
            }
        };
    }
}

/// A resource root's TypeMeta (from `resource(...)`) and its `metadata` field.
struct Root<'a> {
    api_version: String,
    kind: String,
    meta: &'a Field<'a>,
}

/// What the configuration of a struct is made from, its attributes checked.
struct Configuration<'a> {
    /// `WidgetApply`.
    name: syn::Ident,
    root: Option<Root<'a>>,
    /// The key fields (without a default) of a `map` list's item type (`apply_keys`):
    /// required, set by `new`.
    keys: Vec<syn::LitStr>,
    /// The fields the configuration sets field by field (a root's TypeMeta and metadata are
    /// written by the configuration itself).
    own: Vec<&'a Field<'a>>,
}

impl<'a> Configuration<'a> {
    fn of(c: &'a Container<'a>, fields: &'a [Field<'a>]) -> syn::Result<Self> {
        let ident = c.ident;
        let meta_field = fields.iter().find(|f| f.json_name == "metadata" && f.shape != Shape::UnknownFields);
        let root = match (crate::crd::api_version_and_kind(c), meta_field) {
            (None, _) => None,
            (Some((api_version, kind)), Some(meta)) if meta.shape.options() == 0 => {
                Some(Root { api_version, kind, meta })
            }
            (Some(_), _) => {
                return Err(syn::Error::new(
                    ident.span(),
                    "an apply configuration of a `resource(...)` needs a `metadata` field that is not an `Option`",
                ));
            }
        };
        let keys: Vec<syn::LitStr> = match c.attrs.get(Keyword::ApplyKeys) {
            Some(Item::Strs(keys)) => keys.clone(),
            _ => Vec::new(),
        };
        for key in &keys {
            if root.is_some() {
                return Err(syn::Error::new(
                    key.span(),
                    "`apply_keys` names the key fields of a `map` list's item type, not of a resource",
                ));
            }
            if !fields.iter().any(|f| f.json_name == key.value()) {
                return Err(syn::Error::new(key.span(), format!("`apply_keys`: no field is named `{}`", key.value())));
            }
        }
        let type_meta =
            |f: &Field| root.is_some() && ["apiVersion", "kind", "metadata"].contains(&f.json_name.as_str());
        let own = fields.iter().filter(|f| !type_meta(f)).collect();
        Ok(Configuration { name: format_ident!("{}Apply", ident), root, keys, own })
    }

    fn is_key(&self, f: &Field) -> bool {
        f.shape == Shape::Required && self.keys.iter().any(|k| k.value() == f.json_name)
    }
}

/// The configuration's code, gathered field by field.
#[derive(Default)]
struct Parts {
    /// The struct's fields.
    members: Vec<TokenStream>,
    /// `Serialize`'s entries, in field order.
    entries: Vec<TokenStream>,
    /// `new`, setters.
    builders: Vec<TokenStream>,
    /// `From<&Widget>`'s field initializers.
    from: Vec<TokenStream>,
    /// A `map` list item's `new(keys...)`: its parameters, and every field's initializer.
    key_params: Vec<TokenStream>,
    key_inits: Vec<TokenStream>,
}

impl Parts {
    /// A root's apiVersion, kind and metadata, always sent; `new(name)` and `namespace`.
    fn root(&mut self, config: &Configuration<'_>, root: &Root<'_>) {
        let (name, ac) = (&config.name, quote!(::kubeskema::ApplyConfiguration));
        let (api_version, kind) = (&root.api_version, &root.kind);
        let (member, ty) = (root.meta.ident, root.meta.value_ty);
        self.members.push(quote! {
            /// Always sent: the resource's group and version.
            pub api_version: ::std::string::String,
            /// Always sent: the resource's kind.
            pub kind: ::std::string::String,
            /// Always sent: the object's name (and namespace).
            pub #member: <#ty as #ac>::Apply,
        });
        self.entries.push(quote! {
            __map.entry("apiVersion", &self.api_version);
            __map.entry("kind", &self.kind);
            __map.entry("metadata", &self.#member);
        });
        self.builders.push(quote! {
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
        self.from.push(quote! {
            api_version: ::std::string::String::from(#api_version),
            kind: ::std::string::String::from(#kind),
            #member: #ac::apply_configuration(&__value.#member),
        });
    }

    /// One field: its member, entry, setter (and `_null` setter), and place in `From`.
    fn field(&mut self, config: &Configuration<'_>, f: &Field<'_>) {
        let ac = quote!(::kubeskema::ApplyConfiguration);
        let (member, ty, json) = (f.ident, f.value_ty, &f.json_name);
        let keyed = !config.keys.is_empty();
        // A root's `new` and `namespace` are its own: a field of that name is set directly.
        let builder = !(config.root.is_some() && ["new", "namespace"].contains(&member.unraw().to_string().as_str()));
        // Spanned at the field's type: a type without a configuration is an error there.
        let apply = quote_spanned!(ty.span()=> <#ty as ::kubeskema::ApplyConfiguration>::Apply);
        let doc = f.doc.as_deref().map(|d| quote!(#[doc = #d]));
        let setter_doc = format!("Sets `{json}`.");
        match f.shape {
            Shape::UnknownFields => {
                if keyed {
                    self.key_inits.push(quote!(#member: ::core::default::Default::default(),));
                }
                self.members.push(quote!(#doc pub #member: ::kubeskema::serde_json::Map<::std::string::String, ::kubeskema::serde_json::Value>,));
                self.entries.push(quote!(__map.kept(&self.#member);));
                self.from.push(quote!(#member: ::core::clone::Clone::clone(&__value.#member),));
            }
            Shape::Nullable | Shape::MaybeNull => {
                if keyed {
                    self.key_inits.push(quote!(#member: ::core::option::Option::None,));
                }
                self.members.push(quote!(#doc pub #member: ::core::option::Option<::core::option::Option<#apply>>,));
                self.entries.push(quote!(__map.optional(#json, &self.#member);));
                let null = format_ident!("{}_null", member.unraw());
                let null_doc = format!("Sets `{json}` to `null`.");
                self.builders.extend(builder.then(|| {
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
                self.from.push(quote!(#member: #value,));
            }
            Shape::Required if config.is_key(f) => {
                self.members.push(quote!(#doc pub #member: #apply,));
                self.entries.push(quote!(__map.entry(#json, &self.#member);));
                self.key_params.push(quote!(#member: impl ::core::convert::Into<#apply>));
                self.key_inits.push(quote!(#member: #member.into(),));
                self.from.push(quote!(#member: #ac::apply_configuration(&__value.#member),));
            }
            Shape::Required | Shape::Defaulted | Shape::Optional => {
                if keyed {
                    self.key_inits.push(quote!(#member: ::core::option::Option::None,));
                }
                self.members.push(quote!(#doc pub #member: ::core::option::Option<#apply>,));
                self.entries.push(if f.flatten {
                    quote!(if let ::core::option::Option::Some(__v) = &self.#member { __map.flattened(__v); })
                } else {
                    quote!(__map.optional(#json, &self.#member);)
                });
                self.builders.extend(builder.then(|| {
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
                self.from.push(quote!(#member: #value,));
            }
        }
    }

    /// `new(keys...)` for a `map` list's item type; else, on a type that is neither a root nor
    /// keyed, `new` with the fields it requires.
    fn constructors(&mut self, config: &Configuration<'_>) {
        let name = &config.name;
        // Without `apply_keys` (a hand-written item type does not know the list that holds it),
        // `new` takes the fields the type requires, which a `map` list's keys are, and the rest
        // start unset as `Default` leaves them. (Not where a field's own setter is `new`.)
        let setter_named_new = config.own.iter().any(|f| f.ident.unraw() == "new");
        let required: Vec<&Field> = if config.keys.is_empty() && config.root.is_none() && !setter_named_new {
            config
                .own
                .iter()
                .copied()
                .filter(|f| f.shape == Shape::Required && f.serde_default.is_none() && !f.flatten)
                .collect()
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
            self.builders.insert(
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
        if !self.key_params.is_empty() {
            let (params, inits) = (&self.key_params, &self.key_inits);
            let new = quote! {
                /// The configuration of the item these keys name, and nothing else yet.
                pub fn new(#(#params),*) -> Self {
                    #name { #(#inits)* }
                }
            };
            self.builders.insert(0, new);
        }
    }
}

/// The struct, its builders, and its impls: `Serialize`, `From<&Widget>`, a root's `Debug`,
/// `AppliesTo`, and the full type's `ApplyConfiguration`.
fn assemble(ident: &syn::Ident, vis: &syn::Visibility, config: &Configuration<'_>, parts: Parts) -> TokenStream {
    let (name, ac) = (&config.name, quote!(::kubeskema::ApplyConfiguration));
    let Parts { members, entries, builders, from, key_params, .. } = parts;
    // Each field's type has a configuration, or the error stands at the type.
    let asserts = config.own.iter().filter(|f| f.shape != Shape::UnknownFields).map(|f| {
        let ty = f.value_ty;
        quote_spanned!(ty.span()=> __has_configuration::<#ty>();)
    });
    let doc = format!(
        "The server-side apply configuration of [`{ident}`]: what is set is sent, and owned by the \
         applier; what is not is left out. Its checks need the merged object (`kubeskema::apply`)."
    );
    // An item with required keys has no `Default`: it is made by `new(keys...)`.
    let default = key_params.is_empty().then(|| quote!(::core::default::Default,));
    // A resource's configuration is `Debug` (kube's `Api::patch` asks for it) by what names the
    // object: printing it all, as JSON or field by field, compiles a printer for every type
    // below it (the corpus crate: 8.64 GB peak instead of 8.36).
    let debug = config.root.as_ref().map(|root| {
        let (member, shown) = (root.meta.ident, name.to_string());
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
        // Expanded into the user's crate: its lints are not the generated impls' to follow.
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
