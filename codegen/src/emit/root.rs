//! The root type's impls: `Resource`, the CRD it came from, and what kube needs.

use proc_macro2::TokenStream;
use quote::quote;

use super::tokens::{field_ty, ident, string_literal, ty_tokens};
use crate::model::{CrdJson, Module, RootInfo, Shape, StructDef};

/// What a root type says of its resource: constants always; in kube-rs mode also
/// `kube::Resource`, `kube::CustomResourceExt`, `HasSpec`/`HasStatus` and `new`.
pub(super) fn emit_root(m: &Module, s: &StructDef, r: &RootInfo) -> TokenStream {
    let name = ident(&s.name);
    let api_version = kubeskema::crd::api_version(&r.group, &r.version);
    let (group, version, kind, plural, crd_name) = (&r.group, &r.version, &r.kind, &r.plural, &r.crd_name);
    let (namespaced, status_subresource, short_names) = (r.namespaced, r.status_subresource, &r.short_names);
    let option = |v: &Option<String>| match v {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    let columns = r.printer_columns.iter().map(|c| {
        let (cname, ty, path, priority) = (&c.name, &c.type_, &c.json_path, c.priority);
        let (description, format) = (option(&c.description), option(&c.format));
        quote! {
            ::kubeskema::resource::PrinterColumn {
                name: #cname, type_: #ty, json_path: #path, description: #description, format: #format, priority: #priority,
            }
        }
    });
    let scale = match &r.scale {
        Some(sc) => {
            let (spec, status, selector) =
                (&sc.spec_replicas_path, &sc.status_replicas_path, option(&sc.label_selector_path));
            quote! {
                ::core::option::Option::Some(::kubeskema::resource::Scale {
                    spec_replicas_path: #spec, status_replicas_path: #status, label_selector_path: #selector,
                })
            }
        }
        None => quote!(::core::option::Option::None),
    };
    let consts = quote! {
        impl #name {
            /// The `apiVersion` of this resource.
            pub const API_VERSION: &'static str = #api_version;
            /// The API group.
            pub const GROUP: &'static str = #group;
            /// The version within the group.
            pub const VERSION: &'static str = #version;
            /// The `kind`.
            pub const KIND: &'static str = #kind;
            /// The plural resource name (the path segment in the API).
            pub const PLURAL: &'static str = #plural;
            /// Whether objects live in a namespace.
            pub const NAMESPACED: bool = #namespaced;
            /// The CRD's name.
            pub const CRD_NAME: &'static str = #crd_name;
            /// Short names (`kubectl get <short name>`).
            pub const SHORT_NAMES: &'static [&'static str] = &[#(#short_names),*];
            /// Whether the status subresource is on: `status` is written through `/status` only.
            pub const STATUS_SUBRESOURCE: bool = #status_subresource;
            /// The scale subresource, when on.
            pub const SCALE: ::core::option::Option<::kubeskema::resource::Scale> = #scale;
            /// What `kubectl get` shows (`additionalPrinterColumns`).
            pub const PRINTER_COLUMNS: &'static [::kubeskema::resource::PrinterColumn] = &[#(#columns),*];
        }
    };
    if !m.kube {
        return consts;
    }
    let kube = quote!(::kubeskema::kube_core);
    let scope = if namespaced { quote!(#kube::NamespaceResourceScope) } else { quote!(#kube::ClusterResourceScope) };
    let field = |json: &str| s.fields.iter().find(|f| f.json_name == json);
    let spec = field("spec").map(|f| {
        let (fid, ty) = (ident(&f.ident), field_ty(m, f));
        quote! {
            impl #kube::object::HasSpec for #name {
                type Spec = #ty;
                fn spec(&self) -> &#ty { &self.#fid }
                fn spec_mut(&mut self) -> &mut #ty { &mut self.#fid }
            }
        }
    });
    let status = field("status").filter(|f| f.shape == Shape::Optional).map(|f| {
        let (fid, ty) = (ident(&f.ident), ty_tokens(m, &f.ty));
        quote! {
            impl #kube::object::HasStatus for #name {
                type Status = #ty;
                fn status(&self) -> ::core::option::Option<&#ty> { self.#fid.as_ref() }
                fn status_mut(&mut self) -> &mut ::core::option::Option<#ty> { &mut self.#fid }
            }
        }
    });
    // The CRD's JSON: declared here once, or the constant of the version module that has it.
    let (crd_json_const, crd_json) = match &r.crd_json {
        Some(CrdJson::Here { name, json }) => {
            let (name, json) = (ident(name), string_literal(json));
            (
                Some(quote! {
                    #[doc(hidden)]
                    pub const #name: &str = #json;
                }),
                quote!(#name),
            )
        }
        Some(CrdJson::There { module, name }) => {
            let (module, name) = (ident(module), ident(name));
            (None, quote!(super::#module::#name))
        }
        None => (None, quote!("")),
    };
    quote! {
        #consts
        #crd_json_const
        impl #name {
            /// The CustomResourceDefinition this type was generated from, exactly as it was
            /// written (every version), as JSON. [`CustomResourceExt::crd`] reads it into
            /// k8s-openapi's type (which holds numbers such as `maximum` as floats).
            ///
            /// [`CustomResourceExt::crd`]: ::kubeskema::kube_core::crd::v1::CustomResourceExt::crd
            pub const CRD_JSON: &'static str = #crd_json;
        }
        impl #kube::Resource for #name {
            type DynamicType = ();
            type Scope = #scope;
            fn kind(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#kind) }
            fn group(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#group) }
            fn version(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#version) }
            fn api_version(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#api_version) }
            fn plural(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#plural) }
            fn meta(&self) -> &ObjectMeta { &self.metadata }
            fn meta_mut(&mut self) -> &mut ObjectMeta { &mut self.metadata }
        }
        impl #kube::crd::v1::CustomResourceExt for #name {
            /// The CustomResourceDefinition this type was generated from (every version).
            fn crd() -> ::kubeskema::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
                ::kubeskema::serde_json::from_str(Self::CRD_JSON).expect("invariant: the CRD was read from this JSON")
            }
            fn crd_name() -> &'static str { #crd_name }
            fn api_resource() -> #kube::discovery::ApiResource { #kube::discovery::ApiResource::erase::<Self>(&()) }
            fn shortnames() -> &'static [&'static str] { Self::SHORT_NAMES }
        }
        #spec
        #status
    }
}
