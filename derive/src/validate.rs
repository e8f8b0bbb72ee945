//! `Validate`: straight-line calls into `kubeskema::keywords` for every constraint attribute,
//! chosen at run time by the value's kind (as kube-openapi chooses them) and in its order:
//! strings (first failure only), format, numbers, lists, enum, objects; then the value's own
//! `Validate` (nested structs, list items, map values).
//!
//! Junctors (`all_of`, `any_of`, `one_of`, `not`) are checked by the runtime's schema walk
//! ([`crate::junctor`]), right after the (typed, so implicit) type check, as kube-openapi
//! orders them.
//!
//! Resources (`resource(...)`) check TypeMeta and root ObjectMeta in `validate_meta`;
//! `embedded_resource` structs check their own kind, apiVersion and metadata. A type with CEL
//! `rule`s anywhere inside says so in `schema_has_rules`, for the apiserver's CEL-skipped note
//! and the CEL walks.
//!
//! `schema_json` (metadata restrictions) goes to the same walk, in the same schema node.
//!
//! CEL `rule`s are evaluated by `validate_cel_at` and read values through `ToCel`, both from
//! [`crate::cel`].

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use syn::Type;

use crate::model::{
    Body, Container, Field, Payload, Shape, generic_arg, holds_primitives, list_map_keys, map_value, option_inner,
};
use crate::reach::{Recv, access, access_in, payload_path, variant_pattern};
use kubeskema_attributes::parse::{Attrs, Item};
use kubeskema_attributes::{Keyword, ResourceKey};

pub fn expand(c: &Container) -> TokenStream {
    let ident = c.ident;
    let body = match &c.data {
        Body::Struct(fields) => {
            let junctors = crate::junctor::checks(&c.attrs, &quote!(self), &quote!(*__path));
            let props = object_checks(&c.attrs, fields);
            let embedded = c.attrs.flag(Keyword::EmbeddedResource).then(|| {
                let [kind, api_version, meta] = resource_parts(fields, &quote!(self));
                quote!(::kubeskema::__private::embedded(#kind, #api_version, #meta, __path, __issues);)
            });
            let fields =
                fields.iter().filter(|f| f.shape != Shape::UnknownFields).map(|f| field_checks(f, Recv::SelfValue));
            quote! { #junctors #props #(#fields)* #embedded }
        }
        // The variant's fields, where its payload sits. That the value has the variant's shape
        // (its tag, its required fields) the type itself says.
        Body::Union(u) => {
            let junctors = crate::junctor::checks(&c.attrs, &quote!(self), &quote!(*__path));
            let arms = u.variants.iter().map(|v| {
                let pattern = variant_pattern(c.ident, v, "__n_");
                let at = payload_path(&u.tagging, &v.name, &quote!(__path));
                let checks = match &v.payload {
                    Payload::Unit => TokenStream::new(),
                    Payload::Newtype(ty) if holds_primitives(ty) => TokenStream::new(),
                    Payload::Newtype(_) => quote!(::kubeskema::Validate::validate_at(__n, __path, __issues);),
                    Payload::Struct(fields, _) => fields.iter().map(|f| field_checks(f, Recv::Bound("__n_"))).collect(),
                };
                quote!(#pattern => { #at #checks })
            });
            quote! {
                #junctors
                // An arm may not check every field it binds.
                #[allow(unused_variables)]
                match self { #(#arms)* }
            }
        }
        // A Rust enum holds only its `enum` values: nothing left to check here; the field that
        // holds it checks its other constraints through `Kind`.
        Body::Enum(_) => quote! { let _ = (__path, __issues); },
        // The field's checks, at the struct's own place.
        Body::Transparent(t) => {
            let member = &t.member;
            let checks = value_checks(&t.attrs, t.ty, &quote!((&self.#member)), &quote!((*__path)));
            let inner = (!holds_primitives(t.ty))
                .then(|| quote!(::kubeskema::Validate::validate_at(&self.#member, __path, __issues);));
            quote! { #checks #inner }
        }
    };
    let (kind, bad_value) = match &c.data {
        Body::Enum(variants) => (
            enum_kind(ident, variants),
            quote! {
                fn cel_bad_value(&self) -> ::kubeskema::issue::BadValue {
                    ::kubeskema::__private::kind_bad_value(self)
                }
            },
        ),
        // Its value is its field's: read as a string or a number through it.
        Body::Transparent(t) => {
            let (member, ty) = (&t.member, t.ty);
            let kind = quote!(::kubeskema::__private::Kind);
            let kind_impl = holds_primitives(ty).then(|| {
                quote! {
                    #[automatically_derived]
                    impl #kind for #ident {
                        const NUMBER_TYPE: ::core::option::Option<&'static str> = <#ty as #kind>::NUMBER_TYPE;
                        fn as_str(&self) -> ::core::option::Option<&str> { #kind::as_str(&self.#member) }
                        fn as_num(&self) -> ::core::option::Option<::kubeskema::keywords::Num> { #kind::as_num(&self.#member) }
                        fn items_len(&self) -> ::core::option::Option<usize> { #kind::items_len(&self.#member) }
                        fn props_len(&self) -> ::core::option::Option<usize> { #kind::props_len(&self.#member) }
                    }
                }
            });
            let bad_value = quote! {
                fn cel_bad_value(&self) -> ::kubeskema::issue::BadValue {
                    ::kubeskema::Validate::cel_bad_value(&self.#member)
                }
            };
            (kind_impl.unwrap_or_default(), bad_value)
        }
        Body::Struct(_) | Body::Union(_) => (TokenStream::new(), TokenStream::new()),
    };
    let unchanged = unchanged(c);
    let has_rules = has_rules(c);
    // A mixed enum (hand-written) prints as its first variant's kind.
    let schema_type = match &c.data {
        Body::Struct(_) | Body::Union(_) => quote!("object"),
        Body::Enum(variants) => {
            let kind = variants.first().map_or("string", |v| v.value.kind());
            quote!(#kind)
        }
        Body::Transparent(t) => {
            let ty = t.ty;
            quote!(<#ty as ::kubeskema::Validate>::SCHEMA_TYPE)
        }
    };
    let cel_walk = crate::cel::validate_cel_at(c);
    let cel_count = crate::cel::count_cel_rules(c);
    let to_cel = crate::cel::to_cel_impl(c);
    let meta = match (&c.data, c.attrs.get(Keyword::Resource)) {
        (Body::Struct(fields), Some(Item::Resource(resource))) => resource_meta(c.ident, fields, resource),
        _ => TokenStream::new(),
    };
    quote! {
        #[automatically_derived]
        impl ::kubeskema::Validate for #ident {
            const SCHEMA_TYPE: &'static str = #schema_type;
            fn has_rules(&self) -> bool {
                <Self as ::kubeskema::Validate>::schema_has_rules()
            }
            #[inline]
            fn schema_has_rules() -> bool {
                #has_rules
            }
            #meta
            #unchanged
            #cel_walk
            #cel_count
            #bad_value
            fn validate_at(&self, __path: &::kubeskema::path::At<'_>, __issues: &mut ::kubeskema::Phases) {
                #body
            }
        }
        #kind
        #to_cel
    }
}

/// `unchanged_at` (ratcheting): a struct correlates its fields by name (list-map fields their
/// items by key); an enum is unchanged when it is the same variant.
fn unchanged(c: &Container) -> TokenStream {
    let body = match &c.data {
        Body::Enum(_) => quote!(::core::mem::discriminant(self) == ::core::mem::discriminant(__old)),
        Body::Transparent(t) => {
            let member = &t.member;
            quote!(::kubeskema::Validate::unchanged_at(&self.#member, &__old.#member, __path, __out))
        }
        // The same variant with its payload unchanged.
        Body::Union(u) => {
            let arms = u.variants.iter().map(|v| {
                let (new, old) = (variant_pattern(c.ident, v, "__n_"), variant_pattern(c.ident, v, "__o_"));
                let at = payload_path(&u.tagging, &v.name, &quote!(__path));
                let same = match &v.payload {
                    Payload::Unit => quote!(true),
                    Payload::Newtype(_) => quote!(::kubeskema::Validate::unchanged_at(__n, __o, __path, __out)),
                    Payload::Struct(fields, _) => {
                        let each = fields.iter().map(|f| {
                            let (n, o) = (Recv::Bound("__n_").place(f), Recv::Bound("__o_").place(f));
                            let name = &f.json_name;
                            quote!(__same &= ::kubeskema::__private::unchanged_field(&#n, &#o, __path, #name, __out);)
                        });
                        quote!({ let mut __same = true; #(#each)* __same })
                    }
                };
                quote!((#new, #old) => { #at #same })
            });
            quote! {
                // An arm may not compare every field it binds.
                #[allow(unused_variables)]
                let __same = match (self, __old) {
                    #(#arms)*
                    _ => false,
                };
                if __same {
                    __out.insert(__path);
                }
                __same
            }
        }
        Body::Struct(fields) => {
            let resource = c.attrs.get(Keyword::Resource).is_some();
            let each = fields.iter().map(|f| {
                let m = f.ident;
                let name = &f.json_name;
                if f.shape == Shape::UnknownFields {
                    return quote!(__same &= self.#m == __old.#m;);
                }
                if f.flatten {
                    return quote!(__same &= ::kubeskema::Validate::unchanged_at(&self.#m, &__old.#m, __path, __out););
                }
                // The root's apiVersion and kind are never correlated.
                let out = if resource && (name == "apiVersion" || name == "kind") {
                    quote!(&mut ::kubeskema::ratchet::Unchanged::default())
                } else {
                    quote!(__out)
                };
                match list_map_keys(&f.attrs) {
                    Some(keys) => {
                        let (new, old) = (access(f, &quote!(self)), access(f, &quote!(__old)));
                        quote!(__same &= ::kubeskema::__private::unchanged_map_list(#new, #old, &[#(#keys),*], &__path.property(#name), #out);)
                    }
                    None => quote!(__same &= ::kubeskema::__private::unchanged_field(&self.#m, &__old.#m, __path, #name, #out);),
                }
            });
            quote! {
                let mut __same = true;
                #(#each)*
                if __same {
                    __out.insert(__path);
                }
                __same
            }
        }
    };
    quote! {
        fn unchanged_at(&self, __old: &Self, __path: &::kubeskema::path::At<'_>, __out: &mut ::kubeskema::ratchet::Unchanged) -> bool {
            #body
        }
    }
}

/// The body of `schema_has_rules`: `false` where code generation found no rules at or below
/// the type, `true` for rules of its own (at any depth of its attributes), otherwise what its
/// schema says, built once (see `Validate::schema_has_rules`).
fn has_rules(c: &Container) -> TokenStream {
    if c.attrs.flag(Keyword::NoCelRules) {
        return quote!(false);
    }
    let own = crate::cel::has_own_rules;
    let fields: Vec<&Field> = match &c.data {
        Body::Struct(fields) => fields.iter().collect(),
        Body::Union(u) => u.fields().collect(),
        Body::Enum(_) | Body::Transparent(_) => Vec::new(),
    };
    let transparent = matches!(&c.data, Body::Transparent(t) if own(&t.attrs));
    if own(&c.attrs) || transparent || fields.iter().any(|f| f.shape != Shape::UnknownFields && own(&f.attrs)) {
        return quote!(true);
    }
    quote! {
        static __HAS: ::std::sync::OnceLock<bool> = ::std::sync::OnceLock::new();
        *__HAS.get_or_init(::kubeskema::__private::derived_has_rules::<Self>)
    }
}

/// `kind`, `apiVersion` (each an `Option<&str>`) and `metadata` (an `Option<&M>`, `M` a
/// `kubeskema::objectmeta::MetaView`) of a resource, read in place from the fields that hold
/// them or from the unknown-fields map: what TypeMeta and ObjectMeta checks see.
fn resource_parts(fields: &[Field], receiver: &TokenStream) -> [TokenStream; 3] {
    let unknown = fields.iter().find(|f| f.shape == Shape::UnknownFields).map(|f| f.ident);
    let field = |key: &str| fields.iter().find(|f| f.json_name == key && f.shape != Shape::UnknownFields);
    let json = quote!(::kubeskema::serde_json::Value);
    let text = |key: &str| match (field(key).and_then(|f| access(f, receiver)), unknown) {
        (Some(access), _) => quote!(#access.and_then(::kubeskema::__private::Kind::as_str)),
        (None, Some(u)) => quote!(#receiver.#u.get(#key).and_then(#json::as_str)),
        (None, None) => quote!(::core::option::Option::<&str>::None),
    };
    let meta = match (field("metadata").and_then(|f| access(f, receiver)), unknown) {
        (Some(access), _) => access,
        (None, Some(u)) => quote!(#receiver.#u.get("metadata")),
        (None, None) => quote!(::core::option::Option::<&#json>::None),
    };
    [text("kind"), text("apiVersion"), meta]
}

/// `validate_meta` of a `resource(...)` root: TypeMeta against its group, version and kind,
/// then root ObjectMeta by its scope.
fn resource_meta(ident: &syn::Ident, fields: &[Field], resource: &[(ResourceKey, syn::LitStr)]) -> TokenStream {
    let get = |k: ResourceKey| resource.iter().find(|(key, _)| *key == k).map(|(_, v)| v.value());
    // The kind is the type's name unless given (as `crd::expand` says it).
    let (group, version, kind) = (
        get(ResourceKey::Group).unwrap_or_default(),
        get(ResourceKey::Version),
        get(ResourceKey::Kind).or_else(|| Some(ident.to_string())),
    );
    let (Some(version), Some(kind)) = (version, kind) else { return TokenStream::new() };
    let api_version = if group.is_empty() { version } else { format!("{group}/{version}") };
    let namespaced = get(ResourceKey::Scope).is_none_or(|s| s != "Cluster");
    let [got_kind, got_api_version, meta] = resource_parts(fields, &quote!(self));
    let [_, _, old_meta] = resource_parts(fields, &quote!(__old));
    quote! {
        fn validate_meta(&self, __issues: &mut ::std::vec::Vec<::kubeskema::issue::Issue>) -> ::core::ops::ControlFlow<()> {
            ::kubeskema::__private::resource_meta(#got_kind, #got_api_version, #meta, ::core::option::Option::None, #kind, #api_version, #namespaced, __issues)
        }
        fn validate_meta_update(&self, __old: &Self, __issues: &mut ::std::vec::Vec<::kubeskema::issue::Issue>) -> ::core::ops::ControlFlow<()> {
            ::kubeskema::__private::resource_meta(#got_kind, #got_api_version, #meta, ::core::option::Option::Some(#old_meta), #kind, #api_version, #namespaced, __issues)
        }
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
    let (min, max) = (count_literal(attrs, Keyword::MinProperties), count_literal(attrs, Keyword::MaxProperties));
    if min.is_none() && max.is_none() {
        return TokenStream::new();
    }
    let present = fields.iter().map(|f| {
        let m = f.ident;
        match f.shape {
            // A flattened value's keys are its own type's to count.
            _ if f.flatten => quote!(0usize),
            Shape::Required | Shape::Defaulted | Shape::Nullable => quote!(1usize),
            Shape::Optional | Shape::MaybeNull => quote!(usize::from(self.#m.is_some())),
            Shape::UnknownFields => quote!(self.#m.len()),
        }
    });
    // The runtime's check of each is named for its keyword.
    let checks = [(Keyword::MinProperties, min), (Keyword::MaxProperties, max)].into_iter().filter_map(|(kw, n)| {
        let n = n?;
        let f = syn::Ident::new(kw.name(), proc_macro2::Span::call_site());
        Some(quote! { __issues.extend(::kubeskema::keywords::#f(__path, __count, #n)); })
    });
    quote! {
        let __count: usize = 0 #(+ #present)*;
        #(#checks)*
    }
}

fn field_checks(f: &Field, recv: Recv) -> TokenStream {
    if f.flatten {
        // Its fields are this object's: checked at its place.
        let place = recv.place(f);
        return quote!(::kubeskema::Validate::validate_at(&#place, __path, __issues););
    }
    let name = &f.json_name;
    let Some(access) = access_in(f, recv) else { return TokenStream::new() };
    let place = recv.place(f);
    let checks = value_checks(&f.attrs, f.value_ty, &quote!(__v), &quote!(__p));
    // [quirk] An explicit null gets only the type and enum checks, and matches no enum (not
    // even one listing null): a nullable field with an enum refuses it.
    let is_null = match f.shape {
        Shape::Nullable => Some(quote!(#place.is_none())),
        Shape::MaybeNull => {
            Some(quote!(::core::matches!(#place, ::core::option::Option::Some(::core::option::Option::None))))
        }
        _ => None,
    };
    let null_enum = is_null.zip(f.attrs.str(Keyword::EnumJson)).map(|(is_null, json)| {
        let check =
            enum_check(&json.value(), &quote!(&__path.property(#name)), &quote!(&::kubeskema::serde_json::Value::Null));
        quote!(if #is_null #check)
    });
    // A primitive's own `validate_at` does nothing: it is not called, and a field of one with
    // no constraints expands to nothing (most fields of a generated type are such strings and
    // numbers).
    let primitive = holds_primitives(f.value_ty);
    if checks.is_empty() && null_enum.is_none() && primitive {
        return TokenStream::new();
    }
    let inner = (!primitive).then(|| quote!(::kubeskema::Validate::validate_at(__v, &__p, __issues);));
    quote! {
        #null_enum
        if let ::core::option::Option::Some(__v) = #access {
            let __p = __path.property(#name);
            #checks
            #inner
        }
    }
}

/// A node's numeric keywords, from its attributes.
struct Numbers {
    multiple_of: Option<f64>,
    maximum: Option<f64>,
    exclusive_maximum: bool,
    minimum: Option<f64>,
    exclusive_minimum: bool,
    format: String,
}

impl Numbers {
    fn of(attrs: &Attrs) -> Numbers {
        let get = |keyword| match attrs.get(keyword) {
            Some(Item::Number(n)) => n.as_f64(),
            _ => None,
        };
        Numbers {
            multiple_of: get(Keyword::MultipleOf),
            maximum: get(Keyword::Maximum),
            exclusive_maximum: attrs.flag(Keyword::ExclusiveMaximum),
            minimum: get(Keyword::Minimum),
            exclusive_minimum: attrs.flag(Keyword::ExclusiveMinimum),
            format: attrs.str(Keyword::Format).map(syn::LitStr::value).unwrap_or_default(),
        }
    }

    /// A `NumberRules` expression when there is a bound, or a format whose range a value of
    /// its type may leave (`int32`, `float`); `number_type` is the node's numeric type.
    fn rules(&self, number_type: TokenStream) -> Option<TokenStream> {
        let kw = quote!(::kubeskema::keywords);
        let some = |n: Option<f64>| match n.map(Literal::f64_unsuffixed) {
            Some(n) => quote!(::core::option::Option::Some(#n)),
            None => quote!(::core::option::Option::None),
        };
        let bounded = self.multiple_of.is_some() || self.maximum.is_some() || self.minimum.is_some();
        if !bounded && self.format != "int32" && self.format != "float" {
            return None;
        }
        let (multiple_of, maximum, minimum) = (some(self.multiple_of), some(self.maximum), some(self.minimum));
        let (ex_max, ex_min, format) = (self.exclusive_maximum, self.exclusive_minimum, &self.format);
        Some(quote!(#kw::NumberRules {
            number_type: #kw::NumberType::of(#number_type, #format),
            multiple_of: #multiple_of,
            maximum: #maximum,
            exclusive_maximum: #ex_max,
            minimum: #minimum,
            exclusive_minimum: #ex_min,
        }))
    }
}

fn count(attrs: &Attrs, keyword: Keyword) -> Option<i64> {
    match attrs.get(keyword) {
        Some(Item::Count(n)) => Some(*n),
        _ => None,
    }
}

fn count_literal(attrs: &Attrs, keyword: Keyword) -> Option<Literal> {
    count(attrs, keyword).map(Literal::i64_unsuffixed)
}

/// A string node's `StringRules` (maxLength, minLength, pattern, format), when it has any:
/// checked by one runtime call, in kube-openapi's order.
fn string_rules(attrs: &Attrs) -> Option<TokenStream> {
    let some = |t: Option<TokenStream>| match t {
        Some(t) => quote!(::core::option::Option::Some(#t)),
        None => quote!(::core::option::Option::None),
    };
    let max = count(attrs, Keyword::MaxLength).map(Literal::i64_unsuffixed);
    let min = count(attrs, Keyword::MinLength).map(Literal::i64_unsuffixed);
    let pattern = attrs.str(Keyword::Pattern).map(|p| quote!(::kubeskema::__private::Pattern::new(#p)));
    let format = attrs.str(Keyword::Format).map(|f| quote!(#f));
    if max.is_none() && min.is_none() && pattern.is_none() && format.is_none() {
        return None;
    }
    let (max, min, pattern, format) =
        (some(max.map(|n| quote!(#n))), some(min.map(|n| quote!(#n))), some(pattern), some(format));
    Some(
        quote!(::kubeskema::__private::StringRules { max_length: #max, min_length: #min, pattern: #pattern, format: #format }),
    )
}

/// The `enum` check of `value` at `path` (a `&At` expression) against allowed values
/// given as JSON, parsed once.
fn enum_check(json: &str, path: &TokenStream, value: &TokenStream) -> TokenStream {
    quote! {{
        static __ALLOWED: ::kubeskema::__private::Allowed = ::kubeskema::__private::Allowed::new(#json);
        __issues.extend(__ALLOWED.check(#path, #value));
    }}
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
    if let Some(rules) = string_rules(attrs) {
        out.extend(quote! {
            if let ::core::option::Option::Some(__s) = #kind::as_str(#v) {
                static __STRING: ::kubeskema::__private::StringRules = #rules;
                __STRING.check(&#p, __s, &mut __issues.values);
            }
        });
    }

    // Numbers: the range of the type's format, multipleOf, maximum, minimum.
    if let Some(rules) = Numbers::of(attrs).rules(quote!(<#ty as #kind>::NUMBER_TYPE)) {
        out.extend(quote! {
            if let ::core::option::Option::Some(__n) = #kind::as_num(#v) {
                static __RULES: #kw::NumberRules = #rules;
                #kw::number_checks(&#p, __n, &__RULES, &mut __issues.values);
            }
        });
    }

    // Lists: the items' own constraints, then minItems, maxItems, then list-type uniqueness.
    if let (Some(Item::Nested(nested)), Some(elem)) = (attrs.get(Keyword::Items), generic_arg(ty, "Vec")) {
        out.extend(each_element(
            nested,
            elem,
            quote!(for (__i, __e) in (#v).iter().enumerate()),
            quote!(#p.index(__i)),
        ));
    }
    let (min_items, max_items) = (count_literal(attrs, Keyword::MinItems), count_literal(attrs, Keyword::MaxItems));
    if min_items.is_some() || max_items.is_some() {
        let min = min_items.map(|n| quote!(__issues.extend(#kw::min_items(&#p, __len, #n));));
        let max = max_items.map(|n| quote!(__issues.extend(#kw::max_items(&#p, __len, #n));));
        out.extend(quote! { if let ::core::option::Option::Some(__len) = #kind::items_len(#v) { #min #max } });
    }
    if let Some(keys) = list_map_keys(attrs) {
        out.extend(quote!(::kubeskema::__private::list_map(&#p, #v, &[#(#keys),*], __issues);));
    } else if attrs.str(Keyword::ListType).is_some_and(|t| t.value() == "set") {
        out.extend(quote!(::kubeskema::__private::list_set(&#p, #v, __issues);));
    }

    // enum kept as JSON (a Rust enum needs no check).
    if let Some(json) = attrs.str(Keyword::EnumJson) {
        out.extend(enum_check(&json.value(), &quote!(&#p), v));
    }

    // Objects: minProperties, maxProperties; the map values' own constraints.
    let (min_props, max_props) =
        (count_literal(attrs, Keyword::MinProperties), count_literal(attrs, Keyword::MaxProperties));
    if min_props.is_some() || max_props.is_some() {
        let min = min_props.map(|n| quote!(__issues.extend(#kw::min_properties(&#p, __len, #n));));
        let max = max_props.map(|n| quote!(__issues.extend(#kw::max_properties(&#p, __len, #n));));
        out.extend(quote! { if let ::core::option::Option::Some(__len) = #kind::props_len(#v) { #min #max } });
    }
    if let (Some(Item::Nested(nested)), Some(value)) = (attrs.get(Keyword::Values), map_value(ty)) {
        out.extend(each_element(nested, value, quote!(for (__k, __e) in (#v).iter()), quote!(#p.key(__k))));
    }
    out
}
