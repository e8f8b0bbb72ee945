//! `Validate`: straight-line calls into `kubeskema::keywords` for every constraint attribute,
//! chosen at run time by the value's kind (as kube-openapi chooses them) and in its order:
//! strings (first failure only), format, numbers, lists, enum, objects; then the value's own
//! `Validate` (nested structs, list items, map values).
//!
//! Junctors (`all_of`, `any_of`, `one_of`, `not`) come from [`crate::junctor`], right after
//! the (typed, so implicit) type check, as kube-openapi orders them.
//!
//! Not yet emitted (parsed and kept): CEL `rule`s, `schema_json`, `embedded_resource`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use syn::Type;

use crate::attr::{Attrs, Item};
use crate::model::{Body, Container, Field, Shape, generic_arg, option_inner};

pub fn expand(c: &Container) -> TokenStream {
    let ident = c.ident;
    let body = match &c.data {
        Body::Struct(fields) => {
            let junctors = crate::junctor::checks(&c.attrs, &quote!(self), &quote!(*__path));
            let props = object_checks(&c.attrs, fields);
            let fields = fields.iter().filter(|f| f.shape != Shape::UnknownFields).map(field_checks);
            quote! { #junctors #props #(#fields)* }
        }
        // A Rust enum holds only its `enum` values: nothing left to check here; the field that
        // holds it checks its other constraints through `Kind`.
        Body::Enum(_) => quote! { let _ = (__path, __issues); },
    };
    let kind = match &c.data {
        Body::Enum(variants) => enum_kind(ident, variants),
        Body::Struct(_) => TokenStream::new(),
    };
    quote! {
        #[automatically_derived]
        impl ::kubeskema::Validate for #ident {
            fn validate_at(&self, __path: &::kubeskema::path::Path, __issues: &mut ::std::vec::Vec<::kubeskema::issue::Issue>) {
                #body
            }
        }
        #kind
    }
}

/// An enum's value as a string or number, for the string and number checks of the field
/// that holds it.
fn enum_kind(ident: &syn::Ident, variants: &[crate::model::Variant]) -> TokenStream {
    use crate::model::VariantValue;
    let strs = variants.iter().map(|v| {
        let var = v.ident;
        match &v.value {
            VariantValue::Str(s) => quote!(#ident::#var => ::core::option::Option::Some(#s),),
            _ => quote!(#ident::#var => ::core::option::Option::None,),
        }
    });
    let nums = variants.iter().map(|v| {
        let var = v.ident;
        match &v.value {
            VariantValue::Int(i) => {
                quote!(#ident::#var => ::core::option::Option::Some(::kubeskema::keywords::Num::Int(#i)),)
            }
            _ => quote!(#ident::#var => ::core::option::Option::None,),
        }
    });
    quote! {
        #[automatically_derived]
        impl ::kubeskema::__private::Kind for #ident {
            fn as_str(&self) -> ::core::option::Option<&str> {
                match self { #(#strs)* }
            }
            fn as_num(&self) -> ::core::option::Option<::kubeskema::keywords::Num> {
                match self { #(#nums)* }
            }
        }
    }
}

/// `min_properties`/`max_properties` of the struct itself: its present fields and unknown keys.
fn object_checks(attrs: &Attrs, fields: &[Field]) -> TokenStream {
    let (min, max) = (count(attrs, "min_properties"), count(attrs, "max_properties"));
    if min.is_none() && max.is_none() {
        return TokenStream::new();
    }
    let present = fields.iter().map(|f| {
        let m = f.ident;
        match f.shape {
            Shape::Required | Shape::Defaulted | Shape::Nullable => quote!(1usize),
            Shape::Optional | Shape::MaybeNull => quote!(usize::from(self.#m.is_some())),
            Shape::UnknownFields => quote!(self.#m.len()),
        }
    });
    let checks = [("min_properties", min), ("max_properties", max)].into_iter().filter_map(|(kw, n)| {
        let n = n?;
        let f = syn::Ident::new(kw, proc_macro2::Span::call_site());
        Some(quote! { __issues.extend(::kubeskema::keywords::#f(__path, __count, #n)); })
    });
    quote! {
        let __count: usize = 0 #(+ #present)*;
        #(#checks)*
    }
}

fn field_checks(f: &Field) -> TokenStream {
    let m = f.ident;
    let name = &f.json_name;
    let access = match f.shape {
        Shape::Required | Shape::Defaulted => quote!(::core::option::Option::Some(&self.#m)),
        Shape::Optional | Shape::Nullable => quote!(self.#m.as_ref()),
        Shape::MaybeNull => quote!(self.#m.as_ref().and_then(|__v| __v.as_ref())),
        Shape::UnknownFields => return TokenStream::new(),
    };
    let checks = value_checks(&f.attrs, f.value_ty, &quote!(__v), &quote!(__p));
    quote! {
        if let ::core::option::Option::Some(__v) = #access {
            let __p = __path.key(#name);
            #checks
            ::kubeskema::Validate::validate_at(__v, &__p, __issues);
        }
    }
}

fn count(attrs: &Attrs, kw: &str) -> Option<Literal> {
    match attrs.get(kw) {
        Some(Item::Count(n)) => Some(Literal::u64_unsuffixed(*n)),
        _ => None,
    }
}

fn number(attrs: &Attrs, kw: &str) -> Option<Literal> {
    match attrs.get(kw) {
        Some(Item::Number(n)) => Some(Literal::f64_unsuffixed(*n)),
        _ => None,
    }
}

/// The checks of every element of a list or map: `header` is the loop that binds `__e`,
/// `path` the element's path (evaluated before `__pe` is bound, so nesting shadows safely).
fn each_element(nested: &Attrs, elem: &Type, header: TokenStream, path: TokenStream) -> TokenStream {
    let (elem, nullable) = match option_inner(elem) {
        Some(inner) => (inner, true),
        None => (elem, false),
    };
    let inner = value_checks(nested, elem, &quote!(__e), &quote!(__pe));
    let bind = if nullable { quote!(if let ::core::option::Option::Some(__e) = __e { #inner }) } else { inner };
    quote! { #header { let __pe = #path; #bind } }
}

/// The checks of one value `v` (an expression of type `&ty`) at path `p`.
fn value_checks(attrs: &Attrs, ty: &Type, v: &TokenStream, p: &TokenStream) -> TokenStream {
    let kind = quote!(::kubeskema::__private::Kind);
    let kw = quote!(::kubeskema::keywords);
    let mut out = crate::junctor::checks(attrs, v, p);

    // Strings: maxLength → minLength → pattern, the first failure only; then format.
    let mut string_checks = Vec::new();
    if let Some(n) = count(attrs, "max_length") {
        string_checks.push(quote!(#kw::max_length(&#p, __s, #n)));
    }
    if let Some(n) = count(attrs, "min_length") {
        string_checks.push(quote!(#kw::min_length(&#p, __s, #n)));
    }
    if let Some(pat) = attrs.str("pattern") {
        string_checks.push(quote!({
            static __PATTERN: ::kubeskema::__private::Pattern = ::kubeskema::__private::Pattern::new(#pat);
            __PATTERN.check(&#p, __s)
        }));
    }
    let format =
        attrs.str("format").map(|f| quote!(__issues.extend(::kubeskema::__private::check_format(&#p, __s, #f));));
    if !string_checks.is_empty() || format.is_some() {
        let first = string_checks.iter().skip(1).fold(
            string_checks.first().cloned().unwrap_or_else(|| quote!(::core::option::Option::None)),
            |acc, next| quote!(#acc.or_else(|| #next)),
        );
        out.extend(quote! {
            if let ::core::option::Option::Some(__s) = #kind::as_str(#v) {
                __issues.extend(#first);
                #format
            }
        });
    }

    // Numbers: multipleOf, maximum, minimum.
    let mut number_checks = Vec::new();
    if let Some(f) = number(attrs, "multiple_of") {
        number_checks.push(quote!(__issues.extend(#kw::multiple_of(&#p, __n, #kw::Bound { value: #f }));));
    }
    if let Some(m) = number(attrs, "maximum") {
        let ex = attrs.flag("exclusive_maximum");
        number_checks.push(quote!(__issues.extend(#kw::maximum(&#p, __n, #kw::Bound { value: #m }, #ex));));
    }
    if let Some(m) = number(attrs, "minimum") {
        let ex = attrs.flag("exclusive_minimum");
        number_checks.push(quote!(__issues.extend(#kw::minimum(&#p, __n, #kw::Bound { value: #m }, #ex));));
    }
    if !number_checks.is_empty() {
        out.extend(quote! { if let ::core::option::Option::Some(__n) = #kind::as_num(#v) { #(#number_checks)* } });
    }

    // Lists: the items' own constraints, then minItems, maxItems, then list-type uniqueness.
    if let (Some(Item::Nested(nested)), Some(elem)) = (attrs.get("items"), generic_arg(ty, "Vec")) {
        out.extend(each_element(
            nested,
            elem,
            quote!(for (__i, __e) in (#v).iter().enumerate()),
            quote!(#p.index(__i)),
        ));
    }
    let (min_items, max_items) = (count(attrs, "min_items"), count(attrs, "max_items"));
    if min_items.is_some() || max_items.is_some() {
        let min = min_items.map(|n| quote!(__issues.extend(#kw::min_items(&#p, __len, #n));));
        let max = max_items.map(|n| quote!(__issues.extend(#kw::max_items(&#p, __len, #n));));
        out.extend(quote! { if let ::core::option::Option::Some(__len) = #kind::items_len(#v) { #min #max } });
    }
    match (attrs.str("list_type").map(syn::LitStr::value).as_deref(), attrs.get("list_map_keys")) {
        (Some("set"), _) => out.extend(quote!(::kubeskema::__private::list_set(&#p, #v, __issues);)),
        (Some("map"), Some(Item::Strs(keys))) => {
            out.extend(quote!(::kubeskema::__private::list_map(&#p, #v, &[#(#keys),*], __issues);));
        }
        _ => {}
    }

    // enum kept as JSON (a Rust enum needs no check).
    if let Some(json) = attrs.str("enum_json") {
        out.extend(quote! {{
            static __ALLOWED: ::kubeskema::__private::Allowed = ::kubeskema::__private::Allowed::new(#json);
            __issues.extend(__ALLOWED.check(&#p, #v));
        }});
    }

    // Objects: minProperties, maxProperties; the map values' own constraints.
    let (min_props, max_props) = (count(attrs, "min_properties"), count(attrs, "max_properties"));
    if min_props.is_some() || max_props.is_some() {
        let min = min_props.map(|n| quote!(__issues.extend(#kw::min_properties(&#p, __len, #n));));
        let max = max_props.map(|n| quote!(__issues.extend(#kw::max_properties(&#p, __len, #n));));
        out.extend(quote! { if let ::core::option::Option::Some(__len) = #kind::props_len(#v) { #min #max } });
    }
    if let (Some(Item::Nested(nested)), Some(value)) = (attrs.get("values"), generic_arg(ty, "BTreeMap")) {
        out.extend(each_element(nested, value, quote!(for (__k, __e) in (#v).iter()), quote!(#p.map_key(__k))));
    }
    out
}
