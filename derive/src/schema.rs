//! `StructuralSchema`: the schema of a derived type, for the CRD (the direction Rust → CRD).
//! What the macro knows it writes as JSON text at expansion time (the type, the enum, each
//! node's attributes by their schema keys, `kubeskema_attributes::schema::patch`); what only
//! Rust's trait system knows, the schemas of the fields' types, the generated code asks for
//! through `<T as StructuralSchema>`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use serde_json::{Map, Value};
use syn::Type;

use crate::model::{
    Body, Container, Field, Payload, Shape, Tagging, Union, Variant, generic_arg, map_value, option_inner,
    supported_values,
};
use kubeskema_attributes::number::{self, FormatRange};
use kubeskema_attributes::parse::{Attrs, Ctxt, Item};
use kubeskema_attributes::{Keyword, schema};

pub fn expand(c: &Container) -> TokenStream {
    let ident = c.ident;
    let name = ident.to_string();
    let doc = option_str(c.doc.as_deref());
    let body = match &c.data {
        Body::Struct(fields) => {
            let mut node = schema::patch(&c.attrs.data());
            node.insert("type".into(), "object".into());
            if fields.iter().any(|f| f.shape == Shape::UnknownFields) && !c.attrs.flag(Keyword::AdditionalProperties) {
                // The type keeps the keys no field names: the apiserver must keep them too.
                node.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
            }
            let node = Value::Object(node).to_string();
            let resource = c.attrs.get(Keyword::Resource).is_some();
            let properties = fields.iter().filter(|f| f.shape != Shape::UnknownFields).map(|f| property(f, resource));
            quote! {
                // The probes are used only by fields whose shape needs them.
                #[allow(unused_imports)]
                use ::kubeskema::__private::{SkipsAbsentProbe as _, WritesNullProbe as _};
                static __PROPERTIES: &[::kubeskema::schema::of_types::Property] = &[#(#properties),*];
                // serde's derive writes a `None` as `null`; kubeskema's leaves it out.
                let __writes_null = (&&::kubeskema::__private::WritesNull::<Self>::PROBE).writes_null();
                __g.object(::core::any::TypeId::of::<Self>(), #name, #node, #doc, __writes_null, __PROPERTIES)
            }
        }
        Body::Enum(variants) => {
            let node = Value::Object(enum_node(c, variants)).to_string();
            quote!(__g.node(#node, #doc))
        }
        Body::Union(u) => union(c, u, &name, &doc),
        // The field's type's schema, the field's and the struct's attributes over it.
        Body::Transparent(t) => {
            let mut patch = schema::patch(&t.attrs.data());
            patch.extend(schema::patch(&c.attrs.data()));
            let patch = Value::Object(patch).to_string();
            let ty = t.ty;
            let of =
                quote_spanned!(syn::spanned::Spanned::span(ty)=> <#ty as ::kubeskema::StructuralSchema>::schema_in);
            quote! {
                let mut __s = #of(__g);
                ::kubeskema::schema::of_types::overlay(&mut __s, __g.node(#patch, #doc));
                __s
            }
        }
    };
    quote! {
        #[automatically_derived]
        impl ::kubeskema::StructuralSchema for #ident {
            fn schema_in(__g: &mut ::kubeskema::schema::of_types::SchemaGenerator) -> ::kubeskema::serde_json::Map<::std::string::String, ::kubeskema::serde_json::Value> {
                #body
            }
        }
    }
}

/// A data-carrying enum: a table of its variants (each struct variant's properties in a table of
/// their own) for the runtime, which merges them by the enum's representation
/// (`SchemaGenerator::union`): what two variants give one property is known only there.
fn union(c: &Container, u: &Union, name: &str, doc: &TokenStream) -> TokenStream {
    let of_types = quote!(::kubeskema::schema::of_types);
    let node = Value::Object(schema::patch(&c.attrs.data())).to_string();
    let tagging = match &u.tagging {
        Tagging::External => quote!(#of_types::Tagging::External),
        Tagging::Internal(tag) => quote!(#of_types::Tagging::Internal { tag: #tag }),
        Tagging::Adjacent(tag, content) => quote!(#of_types::Tagging::Adjacent { tag: #tag, content: #content }),
        Tagging::Untagged => quote!(#of_types::Tagging::Untagged),
    };
    let mut tables = Vec::new();
    let rows: Vec<TokenStream> = u
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let payload = match &v.payload {
                Payload::Unit => quote!(#of_types::Payload::Unit),
                Payload::Newtype(ty) => {
                    let of = quote_spanned!(syn::spanned::Spanned::span(ty)=> <#ty as ::kubeskema::StructuralSchema>::schema_in);
                    quote!(#of_types::Payload::Newtype(#of))
                }
                Payload::Struct(fields, _) => {
                    let table = quote::format_ident!("__VARIANT_{}", i);
                    let properties = fields.iter().map(|f| property(f, false));
                    tables.push(quote!(static #table: &[#of_types::Property] = &[#(#properties),*];));
                    quote!(#of_types::Payload::Struct(#table))
                }
            };
            let (variant, doc) = (&v.name, option_str(v.doc.as_deref()));
            quote!(#of_types::VariantRow { name: #variant, doc: #doc, payload: #payload })
        })
        .collect();
    quote! {
        // The probes are used only by fields whose shape needs them.
        #[allow(unused_imports)]
        use ::kubeskema::__private::{SkipsAbsentProbe as _, WritesNullProbe as _};
        #(#tables)*
        static __VARIANTS: &[#of_types::VariantRow] = &[#(#rows),*];
        let __writes_null = (&&::kubeskema::__private::WritesNull::<Self>::PROBE).writes_null();
        __g.union(::core::any::TypeId::of::<Self>(), #name, #node, #doc, __writes_null, #tagging, __VARIANTS)
    }
}

/// An enum of values: `type` by its values' kind, `enum` as written (`enum_json`) or its
/// values in declaration order. Values of several kinds have no one type: strings and integers
/// make an int-or-string, anything else a node that takes any value (its `enum` still checks).
fn enum_node(c: &Container, variants: &[Variant]) -> Map<String, Value> {
    let mut node = schema::patch(&c.attrs.data());
    match crate::model::enum_kinds(variants)[..] {
        [one] => {
            node.insert("type".into(), one.into());
        }
        ["integer", "string"] => {
            node.insert("x-kubernetes-int-or-string".into(), true.into());
        }
        _ => {
            node.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
        }
    }
    node.insert("enum".into(), Value::Array(supported_values(c, variants)));
    node
}

/// One row of the type's property table: the field's type's schema, with its attributes over it.
///
/// A resource's `apiVersion`, `kind` and `metadata` are the apiserver's: it sets them on every
/// object and refuses a default under `metadata`, so the root never requires them nor gives
/// them a default (the Rust type may, to read an object without them).
fn property(f: &Field, resource: bool) -> TokenStream {
    if f.flatten {
        let name = f.ident.to_string();
        let ty = f.value_ty;
        let of = quote_spanned!(syn::spanned::Spanned::span(ty)=> <#ty as ::kubeskema::StructuralSchema>::schema_in);
        return quote! {
            ::kubeskema::schema::of_types::Property {
                name: #name, required: false, of: #of, patch: "{}", patch_if_null: ::core::option::Option::None,
                doc: ::core::option::Option::None, flatten: true,
            }
        };
    }
    let name = &f.json_name;
    let type_meta = resource && ["apiVersion", "kind", "metadata"].contains(&name.as_str());
    let required = !type_meta
        && f.serde_default.is_none()
        && (f.shape == Shape::Required || (f.attrs.flag(Keyword::Required) && f.default.is_none()));
    let mut patch = schema::patch(&f.attrs.data());
    patch.remove("default");
    if let Some(default) = f.default.as_deref().and_then(|d| serde_json::from_str::<Value>(d).ok())
        && !type_meta
    {
        patch.insert("default".into(), default);
    }
    if let Some(Value::Object(extra)) =
        f.attrs.str(Keyword::SchemaJson).and_then(|s| serde_json::from_str(&s.value()).ok())
    {
        patch.extend(extra);
    }
    // An `Option` that serde's derive writes as `null` (no `skip_serializing_if`) must let
    // `null` through; kubeskema's `Serialize` leaves `None` out.
    let patch_if_null = (f.shape == Shape::Optional && !f.skip_serializing_if).then(|| {
        let mut nullable = patch.clone();
        nullable.insert("nullable".into(), true.into());
        Value::Object(nullable).to_string()
    });
    let patch_if_null = option_str(patch_if_null.as_deref());
    let patch = Value::Object(patch).to_string();
    let ty = f.value_ty;
    let doc = option_str(f.doc.as_deref());
    // Spanned at the type: a type without a schema is reported there.
    let of = quote_spanned!(syn::spanned::Spanned::span(ty)=> <#ty as ::kubeskema::StructuralSchema>::schema_in);
    quote! {
        ::kubeskema::schema::of_types::Property {
            name: #name, required: #required, of: #of, patch: #patch, patch_if_null: #patch_if_null, doc: #doc,
            flatten: false,
        }
    }
}

fn option_str(s: Option<&str>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

/// What the schema cannot say for a Rust type, found where the macro sees it: integers wider
/// than the apiserver's int64, numeric bounds the field's format cannot hold, and rules and
/// patterns the apiserver would refuse to compile.
pub fn check(cx: &Ctxt, c: &Container) {
    check_expressions(cx, &c.attrs);
    match &c.data {
        Body::Struct(fields) => {
            for f in fields.iter().filter(|f| f.shape != Shape::UnknownFields) {
                check_numbers(cx, &f.attrs, f.value_ty);
                check_expressions(cx, &f.attrs);
            }
        }
        Body::Union(u) => {
            for f in u.fields() {
                check_numbers(cx, &f.attrs, f.value_ty);
                check_expressions(cx, &f.attrs);
            }
        }
        Body::Transparent(t) => {
            check_numbers(cx, &t.attrs, t.ty);
            check_expressions(cx, &t.attrs);
        }
        Body::Enum(_) => {}
    }
}

/// Each rule and `pattern` here and in `items(...)` and `values(...)`: a pattern as Go's
/// `regexp` parses it, a rule as far as the macro can judge it ([`crate::native::refusal`]);
/// rules compiled by the code generator (`native`) were judged there.
fn check_expressions(cx: &Ctxt, attrs: &Attrs) {
    if let Some(pattern) = attrs.str(Keyword::Pattern)
        && let Some(e) = kubeskema_attributes::go_regexp::parse_error(&pattern.value())
    {
        cx.error(
            pattern.span(),
            format!("the apiserver refuses this pattern (`must be a valid regular expression, but isn't: {e}`)"),
        );
    }
    for r in attrs.rules().filter(|r| r.native.is_none()) {
        let texts = [(&r.rule, false), (&r.message_expression, true)];
        for (text, message) in texts.iter().filter_map(|(t, m)| Some(((*t).as_ref()?, *m))) {
            if let Some(why) = crate::native::refusal(&text.value(), message) {
                let what = if message { "messageExpression" } else { "rule" };
                cx.error(text.span(), format!("the apiserver refuses this {what}: {why}"));
            }
        }
    }
    for keyword in [Keyword::Items, Keyword::Values] {
        if let Some(nested) = attrs.nested(keyword) {
            check_expressions(cx, nested);
        }
    }
}

/// The largest `maximum` a `u64` or `usize` may say: the last float64 below 2^63, as the
/// apiserver reads a bound (2^63 - 1 reads as 2^63, which no int64 holds).
const U64_MAXIMUM: &str = "9223372036854774784";

/// Numbers under `ty` (through `Option`, lists and maps, with their `items(...)` and
/// `values(...)`): `u64` and `usize` need an explicit `maximum` within int64, the 128-bit
/// integers are refused, and each bound must be a number the field's type and format hold
/// ([ver 1.36+] the apiserver otherwise refuses every value, `Maximum boundary value must be of
/// type integer with format int64`).
fn check_numbers(cx: &Ctxt, attrs: &Attrs, ty: &Type) {
    let ty = option_inner(ty).unwrap_or(ty);
    for (list, keyword) in [
        ("Vec", Keyword::Items),
        ("BTreeSet", Keyword::Items),
        ("HashSet", Keyword::Items),
        ("BTreeMap", Keyword::Values),
        ("HashMap", Keyword::Values),
    ] {
        let inner = if keyword == Keyword::Values {
            map_value(ty).filter(|_| generic_arg(ty, list).is_some())
        } else {
            generic_arg(ty, list)
        };
        if let Some(inner) = inner {
            let empty = Attrs::default();
            return check_numbers(cx, attrs.nested(keyword).unwrap_or(&empty), inner);
        }
    }
    let Type::Path(p) = ty else { return };
    let Some(last) = p.path.segments.last() else { return };
    let name = last.ident.to_string();
    let span = syn::spanned::Spanned::span(ty);
    match name.as_str() {
        "u128" | "i128" => cx.error(
            span,
            format!(
                "the apiserver stores integers as int64: a 128-bit integer has no schema; use i64 (or u64 with `maximum = {U64_MAXIMUM}`)"
            ),
        ),
        "u64" | "usize" if attrs.get(Keyword::Maximum).is_none() => cx.error(
            span,
            format!(
                "the apiserver stores integers as int64: `{name}` needs a `maximum` to say so (at most `maximum = {U64_MAXIMUM}`), or use i64"
            ),
        ),
        _ => {}
    }
    // Generated from a CRD that says so: kept, as the apiserver keeps it.
    if attrs.flag(Keyword::RefusesEveryValue) {
        return;
    }
    let Some((schema_type, default_format)) = number::rust_number(&name) else { return };
    let format = attrs.str(Keyword::Format).map(syn::LitStr::value).unwrap_or_else(|| default_format.to_owned());
    let range = FormatRange::of(schema_type, &format);
    for (ident, keyword, item) in &attrs.items {
        let (Keyword::Maximum | Keyword::Minimum | Keyword::MultipleOf, Item::Number(n)) = (keyword, item) else {
            continue;
        };
        let Some(bound) = n.as_f64().filter(|b| range.refuses_bound(*b, *keyword == Keyword::MultipleOf)) else {
            continue;
        };
        if *keyword == Keyword::MultipleOf && bound <= 0.0 {
            cx.error(
                ident.span(),
                format!(
                    "`{ident} = {n}` makes the apiserver refuse every object (`factor MultipleOf declared for ... must be positive: {n}`): write a positive factor"
                ),
            );
            continue;
        }
        let of_type = if format.is_empty() {
            format!("{schema_type} (default format)")
        } else {
            format!("{schema_type} with format {format}")
        };
        let shown = if bound.abs() < 1e16 { bound.to_string() } else { format!("{bound:e}") };
        let what = match keyword {
            Keyword::Maximum => "Maximum boundary",
            Keyword::Minimum => "Minimum boundary",
            _ => "MultipleOf",
        };
        let fix = match (keyword, range.widest()) {
            _ if bound.is_finite() && bound.fract() != 0.0 => "write a whole number".to_owned(),
            (Keyword::Minimum, Some((least, _))) => format!("the least that works is `{ident} = {least}`"),
            (_, Some((_, largest))) => format!("the largest that works is `{ident} = {largest}`"),
            (_, None) => "write a smaller number".to_owned(),
        };
        cx.error(
            ident.span(),
            format!(
                "`{ident} = {n}` makes the apiserver refuse every object: it reads the bound as the float64 {shown}, which a field of type `{name}` cannot hold (`{what} value must be of type {of_type}`); {fix}"
            ),
        );
    }
}
