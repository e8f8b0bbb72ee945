//! `CustomResource`: what `#[kubeskema(resource(...))]` says of a root type, as the constant
//! `RESOURCE`, and its CRD (`definition()`, built once from `RESOURCE` and the type's schema).

use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

use crate::model::{Body, Container, Shape};
use kubeskema_attributes::parse::{Ctxt, Item};
use kubeskema_attributes::{Keyword, ResourceKey};

/// The `resource(...)` keys of a container, when it has them.
fn resource<'c>(c: &'c Container) -> Option<&'c [(ResourceKey, LitStr)]> {
    match c.attrs.get(Keyword::Resource) {
        Some(Item::Resource(keys)) => Some(keys),
        _ => None,
    }
}

/// A `resource(...)` root's `apiVersion` and `kind` (the kind defaults to the type's name).
pub fn api_version_and_kind(c: &Container) -> Option<(String, String)> {
    let keys = resource(c)?;
    let one = |k: ResourceKey| keys.iter().find(|(key, _)| *key == k).map(|(_, v)| v.value());
    let (group, version) = (one(ResourceKey::Group).unwrap_or_default(), one(ResourceKey::Version)?);
    let api_version = if group.is_empty() { version } else { format!("{group}/{version}") };
    Some((api_version, one(ResourceKey::Kind).unwrap_or_else(|| c.ident.to_string())))
}

/// What the macro can tell of a `resource(...)` on its own: it stands on a struct and names
/// its version and kind; the scale paths come as a pair.
pub fn check(cx: &Ctxt, c: &Container) {
    let Some(keys) = resource(c) else { return };
    let span =
        c.attrs.items.iter().find(|(_, k, _)| *k == Keyword::Resource).map_or(c.ident.span(), |(i, _, _)| i.span());
    if matches!(c.data, Body::Enum(_) | Body::Union(_) | Body::Transparent(_)) {
        cx.error(span, "`resource(...)` stands on a struct: a resource is a JSON object");
        return;
    }
    let has = |k: ResourceKey| keys.iter().any(|(key, _)| *key == k);
    for (key, example) in [(ResourceKey::Group, "\"example.com\""), (ResourceKey::Version, "\"v1\"")] {
        if !has(key) {
            cx.error(span, format!("`resource(...)` needs `{} = {example}`", key.name()));
        }
    }
    if has(ResourceKey::ScaleSpecReplicasPath) != has(ResourceKey::ScaleStatusReplicasPath) {
        cx.error(span, "the scale subresource needs both `scale_spec_replicas_path` and `scale_status_replicas_path`");
    }
    if let Some((_, scope)) = keys.iter().find(|(k, _)| *k == ResourceKey::Scope)
        && !["Namespaced", "Cluster"].contains(&scope.value().as_str())
    {
        cx.error(scope.span(), "`scope` is \"Namespaced\" or \"Cluster\"");
    }
    if let Some((_, path)) = keys.iter().find(|(k, _)| *k == ResourceKey::CrdJson) {
        if syn::parse_str::<syn::Path>(&path.value()).is_err() {
            cx.error(
                path.span(),
                "`crd_json` names a `&str` constant holding the CRD as JSON: `crd_json = \"WIDGETS_CRD\"`",
            );
        }
        if !keys.iter().any(|(k, v)| *k == ResourceKey::Kube && v.value() == "true") {
            cx.error(path.span(), "`crd_json` is what kube's `crd()` gives back: it needs `kube = true`");
        }
    }
    envelope(cx, keys, c, span);
}

/// The envelope checks of the apiserver (`ValidateCustomResourceDefinition`) that the values
/// alone decide: each a compile error at the value, in the apiserver's terms.
fn envelope(cx: &Ctxt, keys: &[(ResourceKey, LitStr)], c: &Container, span: proc_macro2::Span) {
    let one = |k: ResourceKey| keys.iter().find(|(key, _)| *key == k).map(|(_, v)| v);
    let each = |k: ResourceKey| keys.iter().filter(move |(key, _)| *key == k).map(|(_, v)| v);
    let label = |lit: &LitStr, what: &str, lower: bool| {
        let value = if lower { lit.value().to_lowercase() } else { lit.value() };
        if !is_dns1035_label(&value) {
            let case = if lower { " (it may have mixed case)" } else { "" };
            cx.error(lit.span(), format!("`{what}` must be a DNS-1035 label{case}: lower-case letters, digits and '-', starting with a letter, ending with a letter or digit, at most 63 characters"));
        }
    };
    if let Some(group) = one(ResourceKey::Group) {
        let g = group.value();
        if !is_dns1123_subdomain(&g) {
            cx.error(group.span(), "`group` must be a lower-case DNS subdomain (`example.com`)");
        } else if !g.contains('.') {
            cx.error(group.span(), "`group` must be a domain with at least one dot (`example.com`)");
        }
        let protected =
            g == "k8s.io" || g.ends_with(".k8s.io") || g == "kubernetes.io" || g.ends_with(".kubernetes.io");
        match one(ResourceKey::ApiApproved) {
            None if protected => cx.error(group.span(), format!("the apiserver refuses a CRD of `{g}` without approval: add `api_approved = \"https://...\"` (the review that approved the API) or `api_approved = \"unapproved, <reason>\"`")),
            Some(approved) if !approved.value().starts_with("unapproved") && !is_url(&approved.value()) => {
                cx.error(approved.span(), "`api_approved` is the URL of the review that approved the API, or a reason starting with `unapproved`");
            }
            _ => {}
        }
    }
    if let Some(version) = one(ResourceKey::Version) {
        label(version, "version", false);
    }
    let kind = one(ResourceKey::Kind).map_or_else(|| c.ident.to_string(), LitStr::value);
    match one(ResourceKey::Kind) {
        Some(lit) => label(lit, "kind", true),
        None if !is_dns1035_label(&kind.to_lowercase()) => cx.error(span, format!("the kind `{kind}` (the type's name) must be a DNS-1035 label in lower case: name it with `kind = \"...\"`")),
        None => {}
    }
    if let Some(list_kind) = one(ResourceKey::ListKind) {
        label(list_kind, "list_kind", true);
        if list_kind.value() == kind {
            cx.error(list_kind.span(), "`list_kind` must differ from the kind");
        }
    }
    for (key, what) in [(ResourceKey::Plural, "plural"), (ResourceKey::Singular, "singular")] {
        if let Some(lit) = one(key) {
            label(lit, what, false);
        }
    }
    for (key, what) in [(ResourceKey::ShortName, "short_name"), (ResourceKey::Category, "category")] {
        for lit in each(key) {
            label(lit, what, false);
        }
    }
    if let Some(warning) = one(ResourceKey::DeprecationWarning) {
        let w = warning.value();
        if one(ResourceKey::Deprecated).is_none_or(|d| d.value() != "true") {
            cx.error(warning.span(), "`deprecation_warning` is for a deprecated version: add `deprecated = true`");
        } else if w.is_empty() || w.len() > 256 || w.chars().any(char::is_control) {
            cx.error(warning.span(), "`deprecation_warning` must be 1 to 256 bytes of printable text");
        }
    }
    for (key, under) in [
        (ResourceKey::ScaleSpecReplicasPath, &[".spec."][..]),
        (ResourceKey::ScaleStatusReplicasPath, &[".status."]),
        (ResourceKey::ScaleLabelSelectorPath, &[".spec.", ".status."]),
    ] {
        if let Some(lit) = one(key).filter(|l| !under.iter().any(|u| l.value().starts_with(u))) {
            cx.error(
                lit.span(),
                format!(
                    "`{}` must be a JSON path under {}",
                    key.name(),
                    under.iter().map(|u| u.trim_end_matches('.')).collect::<Vec<_>>().join(" or ")
                ),
            );
        }
    }
    for lit in each(ResourceKey::PrinterColumn) {
        let column: serde_json::Value = serde_json::from_str(&lit.value()).unwrap_or_default();
        let text = |k: &str| column.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        if !["integer", "number", "string", "boolean", "date"].contains(&text("type").as_str()) {
            cx.error(lit.span(), "a printer column's `type` is one of boolean, date, integer, number, string");
        }
        let format = text("format");
        if !format.is_empty()
            && !["int32", "int64", "float", "double", "byte", "date", "date-time", "password"]
                .contains(&format.as_str())
        {
            cx.error(
                lit.span(),
                "a printer column's `format` is one of byte, date, date-time, double, float, int32, int64, password",
            );
        }
        if !text("jsonPath").starts_with('.') || text("name").is_empty() {
            cx.error(lit.span(), "a printer column has a `name`, and a `jsonPath` starting with `.`");
        }
    }
    let mut seen = Vec::new();
    for lit in each(ResourceKey::SelectableField) {
        let path = lit.value();
        if !path.starts_with('.') || path.contains('[') || path.starts_with(".metadata.") || path == ".metadata" {
            cx.error(lit.span(), "a selectable field is a `.`-separated path to a string, boolean or integer field outside `metadata` (no `[...]`)");
        } else if seen.contains(&path) {
            cx.error(lit.span(), "this selectable field is given twice");
        }
        seen.push(path);
    }
    if seen.len() > 8 {
        cx.error(span, "a version has at most 8 selectable fields");
    }
}

/// `IsDNS1035Label`.
fn is_dns1035_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_lowercase()
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[b.len() - 1] != b'-'
}

/// `IsDNS1123Subdomain`.
fn is_dns1123_subdomain(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|l| {
            let b = l.as_bytes();
            !b.is_empty()
                && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
                && b[0] != b'-'
                && b[b.len() - 1] != b'-'
        })
}

/// A URL with a scheme and a host, as the approval annotation needs (`scheme://host...`).
fn is_url(s: &str) -> bool {
    s.split_once("://").is_some_and(|(scheme, rest)| {
        scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
            && !rest.is_empty()
            && !rest.starts_with('/')
    })
}

/// The plural the apiserver's users expect when none is given: the lowercased kind with the
/// English `-s`/`-es`/`-ies` (as kube-derive makes it).
fn plural_of(kind: &str) -> String {
    let lower = kind.to_lowercase();
    if let Some(stem) = lower.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'i', 'o', 'u'])
    {
        return format!("{stem}ies");
    }
    if ["s", "x", "z", "ch", "sh"].iter().any(|e| lower.ends_with(e)) {
        return format!("{lower}es");
    }
    format!("{lower}s")
}

pub fn expand(c: &Container) -> TokenStream {
    let Some(keys) = resource(c) else { return TokenStream::new() };
    if matches!(c.data, Body::Enum(_) | Body::Union(_) | Body::Transparent(_)) {
        return TokenStream::new();
    }
    let ident = c.ident;
    let one = |k: ResourceKey| keys.iter().find(|(key, _)| *key == k).map(|(_, v)| v.value());
    let all = |k: ResourceKey| keys.iter().filter(|(key, _)| *key == k).map(|(_, v)| v.value()).collect::<Vec<_>>();
    let flag = |k: ResourceKey, default: bool| one(k).map_or(default, |v| v == "true");
    let option = |v: Option<String>| match v {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    let kind = one(ResourceKey::Kind).unwrap_or_else(|| ident.to_string());
    let plural = one(ResourceKey::Plural).unwrap_or_else(|| plural_of(&kind));
    let (group, version) = (one(ResourceKey::Group).unwrap_or_default(), one(ResourceKey::Version).unwrap_or_default());
    let namespaced = one(ResourceKey::Scope).is_none_or(|s| s != "Cluster");
    // The singular written as the apiserver would default it (kube-derive writes it too).
    let singular = option(Some(one(ResourceKey::Singular).unwrap_or_else(|| kind.to_lowercase())));
    let list_kind = option(one(ResourceKey::ListKind));
    let (short_names, categories) = (all(ResourceKey::ShortName), all(ResourceKey::Category));
    let (served, storage, deprecated) =
        (flag(ResourceKey::Served, true), flag(ResourceKey::Storage, true), flag(ResourceKey::Deprecated, false));
    let deprecation_warning = option(one(ResourceKey::DeprecationWarning));
    let status = flag(ResourceKey::Status, false);
    let scale = match (one(ResourceKey::ScaleSpecReplicasPath), one(ResourceKey::ScaleStatusReplicasPath)) {
        (Some(spec), Some(status)) => {
            let selector = option(one(ResourceKey::ScaleLabelSelectorPath));
            quote! {
                ::core::option::Option::Some(::kubeskema::resource::Scale {
                    spec_replicas_path: #spec, status_replicas_path: #status, label_selector_path: #selector,
                })
            }
        }
        _ => quote!(::core::option::Option::None),
    };
    let columns = all(ResourceKey::PrinterColumn).into_iter().map(|text| {
        // Checked as JSON with these keys by the attribute parser.
        let column: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let text_of = |k: &str| column.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        let (name, type_, json_path) = (text_of("name"), text_of("type"), text_of("jsonPath"));
        let description = option(column.get("description").and_then(|v| v.as_str()).map(str::to_owned));
        let format = option(column.get("format").and_then(|v| v.as_str()).map(str::to_owned));
        let priority = column.get("priority").and_then(serde_json::Value::as_i64).unwrap_or(0) as i32;
        quote! {
            ::kubeskema::resource::PrinterColumn {
                name: #name, type_: #type_, json_path: #json_path, description: #description, format: #format, priority: #priority,
            }
        }
    });
    let selectable = all(ResourceKey::SelectableField);
    let api_approved = option(one(ResourceKey::ApiApproved));
    let crd_json = one(ResourceKey::CrdJson).and_then(|path| syn::parse_str::<syn::Path>(&path).ok());
    let kube = flag(ResourceKey::Kube, false).then(|| kube_impls(c, namespaced, crd_json.is_some()));
    let api_version = if group.is_empty() { version.clone() } else { format!("{group}/{version}") };
    let crd_name = format!("{plural}.{group}");
    let crd_json = crd_json.map(|path| {
        quote! {
            /// The CustomResourceDefinition this type was generated from, exactly as it was
            /// written (every version), as JSON: what kube's `CustomResourceExt::crd` reads into
            /// k8s-openapi's type (which holds numbers such as `maximum` as floats).
            pub const CRD_JSON: &'static str = #path;
        }
    });
    let resource = quote!(<Self as ::kubeskema::resource::CustomResource>::RESOURCE);
    quote! {
        #kube
        #[automatically_derived]
        impl #ident {
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
            pub const SHORT_NAMES: &'static [&'static str] = #resource.short_names;
            /// Whether the status subresource is on: `status` is written through `/status` only.
            pub const STATUS_SUBRESOURCE: bool = #resource.status_subresource;
            /// The scale subresource, when on.
            pub const SCALE: ::core::option::Option<::kubeskema::resource::Scale> = #resource.scale;
            /// What `kubectl get` shows (`additionalPrinterColumns`).
            pub const PRINTER_COLUMNS: &'static [::kubeskema::resource::PrinterColumn] = #resource.printer_columns;
            #crd_json
        }
        #[automatically_derived]
        impl ::kubeskema::resource::CustomResource for #ident {
            const RESOURCE: ::kubeskema::resource::ResourceInfo = ::kubeskema::resource::ResourceInfo {
                group: #group,
                version: #version,
                kind: #kind,
                plural: #plural,
                singular: #singular,
                list_kind: #list_kind,
                short_names: &[#(#short_names),*],
                categories: &[#(#categories),*],
                namespaced: #namespaced,
                served: #served,
                storage: #storage,
                deprecated: #deprecated,
                deprecation_warning: #deprecation_warning,
                status_subresource: #status,
                scale: #scale,
                printer_columns: &[#(#columns),*],
                selectable_fields: &[#(#selectable),*],
                api_approved: #api_approved,
            };
            fn definition() -> &'static ::kubeskema::resource::CustomResourceDefinition {
                static CRD: ::std::sync::OnceLock<::kubeskema::resource::CustomResourceDefinition> = ::std::sync::OnceLock::new();
                ::kubeskema::resource::CustomResourceDefinition::once::<Self>(&CRD)
            }
        }
    }
}

/// `kube::Resource`, `kube::CustomResourceExt` and `HasSpec`/`HasStatus` (`resource(..., kube =
/// true)`), so that `kube::Api<T>` works, read off the root's constants. The CRD is the one
/// `crd_json` holds, else the derived one, converted into k8s-openapi's type once per call (its
/// numbers become floats, as k8s-openapi holds them). The `metadata` field must be
/// k8s-openapi's `ObjectMeta`; a type error says so at the field.
fn kube_impls(c: &Container, namespaced: bool, crd_json: bool) -> TokenStream {
    let ident = c.ident;
    let kc = quote!(::kubeskema::kube_core);
    let scope = if namespaced { quote!(#kc::NamespaceResourceScope) } else { quote!(#kc::ClusterResourceScope) };
    let fields: &[crate::model::Field] = match &c.data {
        Body::Struct(fields) => fields,
        Body::Enum(_) | Body::Union(_) | Body::Transparent(_) => &[],
    };
    let field = |json: &str| fields.iter().find(|f| f.json_name == json && f.shape != Shape::UnknownFields);
    let meta = field("metadata");
    let Some(meta) = meta else {
        return syn::Error::new(c.ident.span(), "`kube = true` needs a `metadata` field (k8s-openapi's `ObjectMeta`)")
            .to_compile_error();
    };
    let (member, meta_ty) = (meta.ident, meta.value_ty);
    let k8s_meta = quote!(::kubeskema::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta);
    let get = quote::quote_spanned!(syn::spanned::Spanned::span(meta_ty)=> &self.#member);
    let get_mut = quote::quote_spanned!(syn::spanned::Spanned::span(meta_ty)=> &mut self.#member);
    let spec = field("spec").map(|f| {
        let (member, value) = (f.ident, f.value_ty);
        // The field's declared type, from its shape.
        let ty = match f.shape {
            Shape::Optional | Shape::Nullable => quote!(::core::option::Option<#value>),
            Shape::MaybeNull => quote!(::core::option::Option<::core::option::Option<#value>>),
            Shape::Required | Shape::Defaulted | Shape::UnknownFields => quote!(#value),
        };
        quote! {
            #[automatically_derived]
            impl #kc::object::HasSpec for #ident {
                type Spec = #ty;
                fn spec(&self) -> &#ty { &self.#member }
                fn spec_mut(&mut self) -> &mut #ty { &mut self.#member }
            }
        }
    });
    let status = field("status").filter(|f| f.shape == Shape::Optional).map(|f| {
        let (member, ty) = (f.ident, f.value_ty);
        quote! {
            #[automatically_derived]
            impl #kc::object::HasStatus for #ident {
                type Status = #ty;
                fn status(&self) -> ::core::option::Option<&#ty> { self.#member.as_ref() }
                fn status_mut(&mut self) -> &mut ::core::option::Option<#ty> { &mut self.#member }
            }
        }
    });
    // The CRD the type came from when codegen wrote it (`crd_json`), else the derived one.
    let crd = if crd_json {
        quote!(::kubeskema::serde_json::from_str(Self::CRD_JSON).expect("invariant: the CRD was read from this JSON"))
    } else {
        quote!(<Self as ::kubeskema::resource::CustomResource>::definition().to_k8s())
    };
    quote! {
        ::kubeskema::__kube! {
            #spec
            #status
            #[automatically_derived]
            impl #kc::Resource for #ident {
                type DynamicType = ();
                type Scope = #scope;
                fn kind(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(Self::KIND) }
                fn group(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(Self::GROUP) }
                fn version(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(Self::VERSION) }
                fn api_version(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(Self::API_VERSION) }
                fn plural(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(Self::PLURAL) }
                fn meta(&self) -> &#k8s_meta { #get }
                fn meta_mut(&mut self) -> &mut #k8s_meta { #get_mut }
            }
            #[automatically_derived]
            impl #kc::crd::v1::CustomResourceExt for #ident {
                fn crd() -> ::kubeskema::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
                    #crd
                }
                fn crd_name() -> &'static str { Self::CRD_NAME }
                fn api_resource() -> #kc::discovery::ApiResource { #kc::discovery::ApiResource::erase::<Self>(&()) }
                fn shortnames() -> &'static [&'static str] { Self::SHORT_NAMES }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn plurals_follow_english() {
        for (kind, plural) in [
            ("Widget", "widgets"),
            ("Policy", "policies"),
            ("Gateway", "gateways"),
            ("Ingress", "ingresses"),
            ("Box", "boxes"),
        ] {
            assert_eq!(super::plural_of(kind), plural);
        }
    }
}
