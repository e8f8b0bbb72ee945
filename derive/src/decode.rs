//! `kubeskema::decode::Decode`: the validating read, emitted beside `Deserialize` so every type
//! that deserializes also reads with issues recorded (`kubeskema::decode::from_slice`). The
//! emitted code is a field-name `match` and one runtime call per field; absence, `null`,
//! duplicates, unknown keys and defaults are decided in `kubeskema::decode`, once.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use kubeskema_attributes::Keyword;

use crate::model::{Body, Container, Field, Payload, Shape, Tagging, Union, Variant, VariantValue};

pub fn expand(c: &Container) -> TokenStream {
    let ident = c.ident;
    let (method, fields_impl) = match &c.data {
        // A struct is written into its place (it can be large); an enum is returned.
        Body::Struct(fields) => (
            quote! {
                #[inline]
                fn decode_to<'de, __D: _serde::Deserializer<'de>>(
                    __d: __D,
                    __cx: &mut ::kubeskema::decode::Cx<'_>,
                    __at: &::kubeskema::decode::At<'_>,
                    __out: ::kubeskema::decode::Slot<'_, Self>,
                ) -> ::core::result::Result<(), __D::Error> {
                    ::kubeskema::decode::decode_struct(__d, __cx, __at, __out)
                }
            },
            expand_fields(c, fields),
        ),
        Body::Enum(variants) => (decode_method(expand_enum(c, variants)), quote! {}),
        Body::Union(u) => {
            let (decode, variant_structs) = expand_union(c, u);
            (decode_method(decode), variant_structs)
        }
        Body::Transparent(t) => {
            let (ty, member) = (t.ty, &t.member);
            let read = quote! {
                ::core::result::Result::Ok(<#ty as ::kubeskema::decode::Decode>::decode(__d, __cx, __at)?.map(|__v| Self { #member: __v }))
            };
            (decode_method(read), quote! {})
        }
    };
    quote! {
        #fields_impl
        #[automatically_derived]
        impl ::kubeskema::decode::Decode for #ident {
            #method
        }
    }
}

/// `Decode::decode` around `body`, for values returned whole rather than written in place (an
/// enum, a transparent struct).
fn decode_method(body: TokenStream) -> TokenStream {
    quote! {
        fn decode<'de, __D: _serde::Deserializer<'de>>(
            __d: __D,
            __cx: &mut ::kubeskema::decode::Cx<'_>,
            __at: &::kubeskema::decode::At<'_>,
        ) -> ::core::result::Result<::core::option::Option<Self>, __D::Error> {
            #body
        }
    }
}

fn expand_fields(c: &Container, fields: &[Field]) -> TokenStream {
    let ident = c.ident;
    let (named, tags) = locals(fields);
    // One `Seen` local per field, not an array: an index would be a bounds check in every
    // function's MIR, and the corpus crate's memory is mostly MIR.
    let seen: Vec<syn::Ident> = (0..named.len()).map(|i| format_ident!("__s{}", i)).collect();
    let kept = fields.iter().find(|f| f.shape == Shape::UnknownFields);
    // A flattened field reads the keys no other field names, after them.
    let flat = fields.iter().find(|f| f.flatten);
    // A struct is made first, its `Option` fields `None` (most of a CRD's fields), and read
    // into its own fields where it lives: its value is never moved. A field that must have a
    // value is read into a local and moved in at the end; the struct is made with a
    // placeholder there, so this needs one: a struct with a required or defaulted field of
    // another type (a struct, an enum) is read into locals and made at the end.
    let in_place = flat.is_none()
        && named.iter().all(|f| !matches!(f.shape, Shape::Required | Shape::Defaulted) || has_placeholder(f.value_ty));
    // Where each field is read: the struct's own field, or a local `Option` (`__f0`, ...).
    let in_struct: Vec<bool> =
        named.iter().map(|f| in_place && matches!(f.shape, Shape::Optional | Shape::Nullable)).collect();
    let places: Vec<TokenStream> = named
        .iter()
        .zip(&tags)
        .zip(&in_struct)
        .map(|((f, tag), &in_struct)| {
            let member = f.ident;
            if in_struct {
                quote! { __this.#member }
            } else {
                quote! { #tag }
            }
        })
        .collect();
    let local_decls =
        named.iter().zip(&tags).zip(&in_struct).filter(|(_, in_struct)| !**in_struct).map(|((f, tag), _)| {
            let ty = f.value_ty;
            quote! { let mut #tag: ::core::option::Option<#ty> = ::core::option::Option::None; }
        });
    let names: Vec<&str> = named.iter().map(|f| f.json_name.as_str()).collect();
    let indexes = 0..named.len();
    let reads = named.iter().zip(&places).zip(&seen).enumerate().map(|(i, ((f, place), seen))| {
        let name = &f.json_name;
        let (call, format) = match f.attrs.str(Keyword::Format) {
            Some(format) => (quote! { field_with_format }, quote! { , #format }),
            None => (quote! { field }, quote! {}),
        };
        quote! {
            ::kubeskema::decode::FieldKey::Known(#i) =>
                ::kubeskema::decode::#call(&mut __map, __cx, __at, #name, &mut #seen, &mut #place #format),
        }
    });
    let kept_place = match (kept, in_place) {
        (Some(f), true) => {
            let member = f.ident;
            quote! { __this.#member }
        }
        _ => quote! { __kept },
    };
    let new_map = quote! { let mut __kept = ::kubeskema::__private::serde_json::Map::new(); };
    let (kept_local, other) = match (kept, flat) {
        (Some(_), _) => (
            (!in_place).then(|| new_map.clone()),
            quote! { ::kubeskema::decode::kept_field(&mut __map, __cx, __at, __k, &mut #kept_place) },
        ),
        (None, Some(_)) => (
            Some(new_map.clone()),
            quote! { ::kubeskema::decode::kept_field(&mut __map, __cx, __at, __k, &mut __kept) },
        ),
        (None, None) if c.deny_unknown_fields => {
            (None, quote! { ::kubeskema::decode::denied_field(&mut __map, __cx, __at, &__k) })
        }
        (None, None) => (None, quote! { ::kubeskema::decode::unknown_field(&mut __map, __cx, __at, &__k) }),
    };
    // The flattened field, read from the keys kept for it.
    let flat_read = flat.map(|f| {
        let ty = f.value_ty;
        quote! {
            let __flat: ::core::option::Option<#ty> = ::kubeskema::decode::flattened(__kept, __cx, __at)?;
            __usable &= __flat.is_some();
        }
    });
    // Every finisher runs (each records what is missing), then the locals move once.
    let finishes = named.iter().zip(&places).zip(&seen).map(|((f, place), seen)| {
        let name = &f.json_name;
        let default = match &f.default {
            Some(json) => quote! { ::core::option::Option::Some(#json) },
            None => quote! { ::core::option::Option::None },
        };
        let (finisher, default) = match f.shape {
            Shape::Required => match &f.serde_default {
                None => (quote! { required }, quote! {}),
                Some(how) => {
                    let fill = how.fill(ident, f.ident);
                    (quote! { filled }, quote! { , || #fill })
                }
            },
            Shape::Defaulted => {
                let json = f.default.as_deref().unwrap_or("null");
                (quote! { defaulted }, quote! { , #json })
            }
            Shape::Optional => (quote! { optional }, quote! { , #default }),
            Shape::Nullable => (quote! { nullable }, quote! { , #default }),
            Shape::MaybeNull => (quote! { maybe_null }, quote! { , #default }),
            Shape::UnknownFields => unreachable!("invariant: the unknown-fields map is not a named field"),
        };
        quote! { __usable &= ::kubeskema::decode::#finisher(&mut #seen, &mut #place, __cx, __at, #name #default); }
    });
    // Nullable optional fields (`Option<Option<T>>`) are read into a local `Option<T>`.
    let maybe_null = |i: usize, tag: &syn::Ident| {
        let seen = &seen[i];
        quote! { ::kubeskema::decode::null_or_value(#seen, #tag) }
    };
    let read = quote! {
        fn __index(__name: &str) -> ::core::option::Option<usize> {
            match __name {
                #(#names => ::core::option::Option::Some(#indexes),)*
                _ => ::core::option::Option::None,
            }
        }
        #(let mut #seen = ::kubeskema::decode::Seen::Absent;)*
        #(#local_decls)*
        #kept_local
        while let ::core::option::Option::Some(__key) =
            _serde::de::MapAccess::next_key_seed(&mut __map, ::kubeskema::decode::FieldKeySeed(__index))?
        {
            // One `?` for all arms: each would be a branch and a conversion of its own.
            let __read = match __key {
                #(#reads)*
                ::kubeskema::decode::FieldKey::Known(_) => ::kubeskema::decode::ignored_field(&mut __map),
                ::kubeskema::decode::FieldKey::Unknown(__k) => #other,
            };
            __read?;
        }
        let mut __usable = true;
        #(#finishes)*
        #flat_read
    };
    let body = if in_place {
        let empty = fields.iter().map(|f| {
            let member = f.ident;
            match f.shape {
                Shape::UnknownFields => quote! { #member: ::kubeskema::__private::serde_json::Map::new() },
                Shape::Required | Shape::Defaulted => quote! { #member: ::core::default::Default::default() },
                _ => quote! { #member: ::core::option::Option::None },
            }
        });
        let skipped = &c.skipped;
        let assigns = named.iter().zip(&tags).enumerate().filter_map(|(i, (f, tag))| {
            let member = f.ident;
            match f.shape {
                Shape::MaybeNull => {
                    let value = maybe_null(i, tag);
                    Some(quote! { __this.#member = #value; })
                }
                // `None` only when the struct is unusable, and then it is dropped below.
                Shape::Required | Shape::Defaulted => Some(quote! {
                    if let ::core::option::Option::Some(__v) = #tag {
                        __this.#member = __v;
                    }
                }),
                _ => None,
            }
        });
        quote! {
            let __this = __out.make_with(|| #ident { #(#empty,)* #(#skipped: ::core::default::Default::default(),)* });
            #read
            #(#assigns)*
            if !__usable {
                __out.discard();
            }
        }
    } else {
        let values = named.iter().zip(&tags).enumerate().map(|(i, (f, tag))| match f.shape {
            // Checked by the finisher: the `else` is never taken.
            Shape::Required | Shape::Defaulted => quote! {
                let ::core::option::Option::Some(#tag) = #tag else { return ::core::result::Result::Ok(()) };
            },
            Shape::Optional | Shape::Nullable => quote! {},
            Shape::MaybeNull => {
                let value = maybe_null(i, tag);
                quote! { let #tag = #value; }
            }
            Shape::UnknownFields => unreachable!("invariant: the unknown-fields map is not a named field"),
        });
        let inits = inits(fields, &tags, &format_ident!("__kept"));
        let skipped = &c.skipped;
        let flat_value = flat.map(|_| {
            quote! { let ::core::option::Option::Some(__flat) = __flat else { return ::core::result::Result::Ok(()) }; }
        });
        quote! {
            #read
            if !__usable {
                return ::core::result::Result::Ok(());
            }
            #(#values)*
            #flat_value
            __out.make_with(|| #ident { #(#inits,)* #(#skipped: ::core::default::Default::default(),)* });
        }
    };
    quote! {
        #[automatically_derived]
        impl ::kubeskema::decode::DecodeFields for #ident {
            fn decode_fields<'de, __A: _serde::de::MapAccess<'de>>(
                mut __map: __A,
                __cx: &mut ::kubeskema::decode::Cx<'_>,
                __at: &::kubeskema::decode::At<'_>,
                mut __out: ::kubeskema::decode::Slot<'_, Self>,
            ) -> ::core::result::Result<(), __A::Error> {
                #body
                ::core::result::Result::Ok(())
            }
        }
    }
}

/// Whether a required or defaulted field's type has a cheap placeholder (its `Default`, which
/// the struct holds until the value read is moved in): strings, scalars, lists, maps, JSON and
/// metadata, by the last segment of the type's path. A struct or enum has none.
fn has_placeholder(ty: &syn::Type) -> bool {
    const PLACEHOLDERS: [&str; 13] = [
        "String",
        "bool",
        "i32",
        "i64",
        "f64",
        "Vec",
        "BTreeMap",
        "HashMap",
        "BTreeSet",
        "HashSet",
        "Map",
        "Value",
        "ObjectMeta",
    ];
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            p.path.segments.last().is_some_and(|s| PLACEHOLDERS.iter().any(|name| s.ident == name))
        }
        _ => false,
    }
}

/// The fields a struct's object names (all but the unknown-fields map), each with the
/// identifier of the local it is read into when it is not read into the struct (`__f0`, ...).
fn locals<'f, 'a>(fields: &'f [Field<'a>]) -> (Vec<&'f Field<'a>>, Vec<syn::Ident>) {
    let named: Vec<&Field> = fields.iter().filter(|f| f.shape != Shape::UnknownFields && !f.flatten).collect();
    let tags = (0..named.len()).map(|i| format_ident!("__f{}", i)).collect();
    (named, tags)
}

/// The struct literal's initializers: each named field from its local (in [`locals`] order),
/// the unknown-fields map from `rest`.
fn inits(fields: &[Field], tags: &[syn::Ident], rest: &syn::Ident) -> Vec<TokenStream> {
    let mut tags = tags.iter();
    fields
        .iter()
        .map(|f| {
            let member = f.ident;
            if f.shape == Shape::UnknownFields {
                quote! { #member: #rest }
            } else if f.flatten {
                quote! { #member: __flat }
            } else {
                let tag = tags.next().expect("invariant: one local per named field");
                quote! { #member: #tag }
            }
        })
        .collect()
}

fn expand_enum(c: &Container, variants: &[Variant]) -> TokenStream {
    let ident = c.ident;
    let allowed = serde_json::Value::Array(crate::model::supported_values(c, variants)).to_string();
    // No type check where the values have no one type.
    let schema_type = crate::model::enum_type(variants).unwrap_or_default();
    let arms = variants.iter().map(|v| {
        let variant = v.ident;
        let pattern = match &v.value {
            VariantValue::Str(s) => quote! { ::kubeskema::decode::Scalar::Str(#s) },
            VariantValue::Int(i) => quote! { ::kubeskema::decode::Scalar::Int(#i) },
            VariantValue::Bool(b) => quote! { ::kubeskema::decode::Scalar::Bool(#b) },
        };
        quote! { #pattern => ::core::option::Option::Some(#ident::#variant), }
    });
    quote! {
        ::kubeskema::decode::decode_enum(__d, __cx, __at, #schema_type, #allowed, |__v| match __v.whole_as_int() {
            #(#arms)*
            _ => ::core::option::Option::None,
        })
    }
}

/// A data-carrying enum's read: the runtime finds the variant (`decode_union`), the match here
/// reads its payload. A struct variant's fields are read by a struct of the same fields
/// (`__Variant<i>`, deriving the same read, so its fields are read as a struct's are), then moved
/// into the variant.
fn expand_union(c: &Container, u: &Union) -> (TokenStream, TokenStream) {
    let ident = c.ident;
    let enum_name = ident.to_string();
    let decode = quote!(::kubeskema::decode);
    let of_types = quote!(::kubeskema::schema::of_types);
    let tagging = match &u.tagging {
        Tagging::External => quote!(#of_types::Tagging::External),
        Tagging::Internal(tag) => quote!(#of_types::Tagging::Internal { tag: #tag }),
        Tagging::Adjacent(tag, content) => quote!(#of_types::Tagging::Adjacent { tag: #tag, content: #content }),
        Tagging::Untagged => quote!(#of_types::Tagging::Untagged),
    };
    let names = u.variants.iter().map(|v| {
        let (name, unit) = (&v.name, matches!(v.payload, Payload::Unit));
        quote!((#name, #unit))
    });
    let mut structs = TokenStream::new();
    let arms = u.variants.iter().enumerate().map(|(i, v)| {
        let var = v.ident;
        let read = match &v.payload {
            Payload::Unit => quote!(::core::result::Result::Ok(::core::option::Option::Some(#ident::#var))),
            Payload::Newtype(ty) => quote! {
                ::core::result::Result::Ok(#decode::payload::<#ty>(__v, __cx, __at)?.map(#ident::#var))
            },
            Payload::Struct(fields, syn_fields) => {
                let name = format_ident!("__Variant{}", i);
                let rename_all = v.rename_all.as_ref().map(|r| quote!(#[serde(rename_all = #r)]));
                let named = &syn_fields.named;
                structs.extend(quote! {
                    #[derive(::kubeskema::Deserialize)]
                    #rename_all
                    struct #name { #named }
                });
                let members: Vec<&syn::Ident> = fields.iter().map(|f| f.ident).collect();
                quote! {
                    ::core::result::Result::Ok(#decode::payload::<#name>(__v, __cx, __at)?.map(|__s| #ident::#var { #(#members: __s.#members),* }))
                }
            }
        };
        quote!(#i => #read,)
    });
    let body = quote! {
        static __NAMES: &[#decode::VariantName] = &[#(#names),*];
        #decode::decode_union(__d, __cx, __at, #enum_name, #tagging, __NAMES, #of_types::derived_parsed::<Self>, &mut |__i, __v, __cx, __at| match __i {
            #(#arms)*
            _ => ::core::result::Result::Ok(::core::option::Option::None),
        })
    };
    (body, structs)
}
