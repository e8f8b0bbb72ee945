//! The typed model of a derive input: what the emitters read. Built from `syn` plus the
//! parsed attributes; all checks that need the whole container live in [`check`].

use syn::{Data, DeriveInput, Fields, GenericArgument, PathArguments, Type};

pub use kubeskema_attributes::Shape;
use kubeskema_attributes::parse::{self as attr, Attrs, Ctxt, Literal};
use kubeskema_attributes::{Keyword, Place};

use crate::serde_attrs::{self, SerdeDefault};

pub struct Container<'a> {
    pub ident: &'a syn::Ident,
    /// Fields with `#[serde(skip)]`: never read nor written, made with their `Default`.
    pub skipped: Vec<&'a syn::Ident>,
    /// `#[serde(deny_unknown_fields)]`: a key no field names is an error when read.
    pub deny_unknown_fields: bool,
    /// Its doc comment: the description of its schema.
    pub doc: Option<String>,
    pub attrs: Attrs,
    pub data: Body<'a>,
}

pub enum Body<'a> {
    Struct(Vec<Field<'a>>),
    /// An enum of values (unit variants, externally tagged): a string, integer or boolean.
    Enum(Vec<Variant<'a>>),
    /// An enum whose variants carry data, or that serde writes tagged or untagged.
    Union(Union<'a>),
    /// `#[serde(transparent)]`: a struct of one field, written as that field's value.
    Transparent(Transparent<'a>),
}

/// The one field of a `#[serde(transparent)]` struct: its attributes stand on the struct's node.
pub struct Transparent<'a> {
    pub member: syn::Member,
    pub ty: &'a Type,
    pub attrs: Attrs,
}

/// A data-carrying enum: its variants and how serde writes them.
pub struct Union<'a> {
    pub tagging: Tagging,
    pub variants: Vec<DataVariant<'a>>,
}

/// serde's four representations of an enum.
#[derive(Clone, Debug, PartialEq)]
pub enum Tagging {
    /// `{"Variant": payload}` (serde's default).
    External,
    /// `#[serde(tag = "t")]`: `{"t": "Variant", ...fields}`.
    Internal(String),
    /// `#[serde(tag = "t", content = "c")]`: `{"t": "Variant", "c": payload}`.
    Adjacent(String, String),
    /// `#[serde(untagged)]`: the payload alone.
    Untagged,
}

pub struct DataVariant<'a> {
    pub ident: &'a syn::Ident,
    /// Its JSON name: the tag value or the external key.
    pub name: String,
    pub doc: Option<String>,
    pub payload: Payload<'a>,
    /// Its own `#[serde(rename_all)]` (for its fields), to pass on where its fields are read.
    pub rename_all: Option<String>,
}

/// What a variant of a [`Union`] carries.
pub enum Payload<'a> {
    Unit,
    /// `Variant(T)`.
    Newtype(&'a Type),
    /// `Variant { a: T, ... }`: fields as a struct's, read from `syn_fields`.
    Struct(Vec<Field<'a>>, &'a syn::FieldsNamed),
}

impl Union<'_> {
    /// The fields of every struct variant.
    pub fn fields(&self) -> impl Iterator<Item = &Field<'_>> {
        self.variants.iter().flat_map(|v| match &v.payload {
            Payload::Struct(fields, _) => fields.as_slice(),
            _ => &[],
        })
    }
}

pub struct Field<'a> {
    pub ident: &'a syn::Ident,
    pub json_name: String,
    pub shape: Shape,
    /// The type that one present, non-null value deserializes into.
    pub value_ty: &'a Type,
    /// The schema default, as JSON text.
    pub default: Option<String>,
    /// Its doc comment: the description of its property.
    pub doc: Option<String>,
    /// `#[serde(default)]` on the field or its struct: on a field that is not an `Option`,
    /// absence (and `null`) reads as the Rust default, as serde reads it, so the schema does
    /// not require the field. On an `Option` it changes nothing.
    pub serde_default: Option<SerdeDefault>,
    /// `#[serde(skip_serializing_if = ...)]`: serde's derive leaves the value out when it says.
    pub skip_serializing_if: bool,
    /// `#[serde(flatten)]`: the value's own fields sit in this object (its name is not a key).
    pub flatten: bool,
    pub attrs: Attrs,
}

pub struct Variant<'a> {
    pub ident: &'a syn::Ident,
    pub value: VariantValue,
}

/// The JSON value an enum variant stands for.
#[derive(Clone, Debug, PartialEq)]
pub enum VariantValue {
    Str(String),
    Int(i64),
    Bool(bool),
}

impl VariantValue {
    /// The schema type of the value.
    pub fn kind(&self) -> &'static str {
        match self {
            VariantValue::Str(_) => "string",
            VariantValue::Int(_) => "integer",
            VariantValue::Bool(_) => "boolean",
        }
    }
}

/// The kinds of an enum's values, each once, sorted.
pub fn enum_kinds(variants: &[Variant]) -> Vec<&'static str> {
    let kinds: std::collections::BTreeSet<&'static str> = variants.iter().map(|v| v.value.kind()).collect();
    kinds.into_iter().collect()
}

/// An enum's schema type: its values' kind, when they have one (values of several kinds have
/// no one type).
pub fn enum_type(variants: &[Variant]) -> Option<&'static str> {
    match enum_kinds(variants)[..] {
        [one] => Some(one),
        _ => None,
    }
}

/// The values an enum's `Unsupported value` error lists, as the apiserver lists them: the
/// schema's `enum` as written (`enum_json` on the enum: nulls and repeats kept), else the
/// variants' values in declaration order.
pub fn supported_values(c: &Container, variants: &[Variant]) -> Vec<serde_json::Value> {
    let written = c.attrs.str(Keyword::EnumJson).and_then(|l| serde_json::from_str(&l.value()).ok());
    written.unwrap_or_else(|| {
        variants
            .iter()
            .map(|v| match &v.value {
                VariantValue::Str(s) => s.clone().into(),
                VariantValue::Int(i) => (*i).into(),
                VariantValue::Bool(b) => (*b).into(),
            })
            .collect()
    })
}

impl VariantValue {
    pub fn describe(&self) -> String {
        match self {
            VariantValue::Str(s) => format!("{s:?}"),
            VariantValue::Int(i) => i.to_string(),
            VariantValue::Bool(b) => b.to_string(),
        }
    }
}

/// `Some(T)` when `ty` is `Option<T>` (by its last path segment, as serde_derive decides).
/// `Some(T)` for `Vec<T>` / `BTreeMap<String, T>` (by the last path segment).
pub fn generic_arg<'a>(ty: &'a Type, container: &str) -> Option<&'a Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != container {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    args.args.iter().rev().find_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// The value type of a `BTreeMap<String, T>` or `HashMap<String, T[, S]>` (its second type
/// argument, by the last path segment).
pub fn map_value(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "BTreeMap" && last.ident != "HashMap" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    args.args
        .iter()
        .filter_map(|a| match a {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .nth(1)
}

/// The list and map keywords of one node against its Rust type: each must have the
/// collection it describes, or the check it asks for could not run.
fn check_node(cx: &Ctxt, attrs: &attr::Attrs, ty: &Type, span: proc_macro2::Span) {
    let elem = generic_arg(ty, "Vec");
    let list_type = attrs.str(Keyword::ListType);
    match list_type.map(syn::LitStr::value).as_deref() {
        None | Some("atomic") => {}
        Some("set" | "map") if elem.is_none() => {
            cx.error(span, "`list_type = \"set\"` and `\"map\"` describe a list: the field needs a `Vec<T>`");
        }
        Some("set") => {}
        Some("map") if attrs.get(Keyword::ListMapKeys).is_none() => {
            cx.error(span, "`list_type = \"map\"` needs `list_map_keys(...)`: the keys that identify an item");
        }
        Some("map") => {}
        Some(other) => cx.error(
            list_type.map_or(span, syn::LitStr::span),
            format!("unknown list type `{other}`: expected \"atomic\", \"set\" or \"map\""),
        ),
    }
    if attrs.flag(Keyword::UniqueItems) {
        cx.error(
            span,
            "`unique_items` is refused by the apiserver (its cost is quadratic): use `list_type = \"set\"` for unique items",
        );
    }
    if attrs.get(Keyword::ListMapKeys).is_some() && list_type.map(syn::LitStr::value).as_deref() != Some("map") {
        cx.error(span, "`list_map_keys(...)` belongs to `list_type = \"map\"`");
    }
    if let Some(attr::Item::Nested(nested)) = attrs.get(Keyword::Items) {
        match elem {
            Some(elem) => check_node(cx, nested, option_inner(elem).unwrap_or(elem), span),
            None => cx.error(span, "`items(...)` constrains list items: the field needs a `Vec<T>`"),
        }
    }
    if let Some(attr::Item::Nested(nested)) = attrs.get(Keyword::Values) {
        match map_value(ty) {
            Some(value) => check_node(cx, nested, option_inner(value).unwrap_or(value), span),
            None => cx.error(
                span,
                "`values(...)` constrains map values: the field needs a `BTreeMap<String, T>` or `HashMap<String, T>`",
            ),
        }
    }
}

/// A `default` of another type than a string, number or boolean field's: the apiserver refuses
/// the CRD (`default: Invalid value: "x": ... in body must be of type integer: "string"`) and
/// every read of an object without the field would fail.
fn check_default(cx: &Ctxt, attrs: &Attrs, ty: &Type, default: Option<&str>) {
    let Some(value) = default.and_then(|text| serde_json::from_str::<serde_json::Value>(text).ok()) else { return };
    let Type::Path(p) = ty else { return };
    let Some(name) = p.path.segments.last().map(|last| last.ident.to_string()) else { return };
    let wanted = match name.as_str() {
        "String" => "string",
        "bool" => "boolean",
        other => match kubeskema_attributes::number::rust_number(other) {
            Some((schema_type, _)) => schema_type,
            None => return,
        },
    };
    let given = match &value {
        serde_json::Value::String(_) => "string",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(n) if n.is_f64() && n.as_f64().is_some_and(|f| f.fract() != 0.0) => "number",
        serde_json::Value::Number(_) => "integer",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
        serde_json::Value::Null => "null",
    };
    if given == wanted || (wanted == "number" && given == "integer") {
        return;
    }
    let span = match (attrs.literal(Keyword::Default), attrs.str(Keyword::DefaultJson)) {
        (Some(Literal::Str(l)), _) => l.span(),
        (Some(Literal::Int(l)), _) => l.span(),
        (Some(Literal::Float(l)), _) => l.span(),
        (Some(Literal::Bool(l)), _) => l.span(),
        (None, Some(l)) => l.span(),
        (None, None) => return,
    };
    cx.error(
        span,
        format!(
            "the default {value} is of type {given}, and the field (`{name}`) is of type {wanted}: the apiserver refuses the CRD \
             (`default: Invalid value: {value}: ... in body must be of type {wanted}: \"{given}\"`); give a default of type {wanted}"
        ),
    );
}

pub fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(t) if args.args.len() == 1 => Some(t),
        _ => None,
    }
}

/// A doc comment as a description: the lines of a paragraph joined by spaces (rustdoc wraps
/// them; `kubectl explain` wraps again), paragraphs and code blocks kept as written.
pub fn doc_comment(attrs: &[syn::Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| {
            text.lines().map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end().to_owned()).collect::<Vec<_>>()
        })
        .collect();
    let mut out = String::new();
    let mut in_code = false;
    let mut previous_blank = true;
    for line in &lines {
        let fence = line.trim_start().starts_with("```");
        if in_code || fence {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(line);
            out.push('\n');
            in_code ^= fence;
            previous_blank = false;
        } else if line.trim().is_empty() {
            if !out.is_empty() && !previous_blank {
                out.push_str(if out.ends_with('\n') { "\n" } else { "\n\n" });
            }
            previous_blank = true;
        } else {
            if !previous_blank && !out.ends_with('\n') {
                out.push(' ');
            }
            out.push_str(line.trim());
            previous_blank = false;
        }
    }
    let out = out.trim().to_owned();
    (!out.is_empty()).then_some(out)
}

/// The JSON name of a field written without `rename`: its identifier without `r#`.
fn default_json_name(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

impl<'a> Container<'a> {
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Container<'a>> {
        let attrs = attr::parse(cx, &input.attrs, Place::Container);
        let serde = serde_attrs::parse(cx, &input.attrs);
        let rename_all = serde.rename_all.as_ref().and_then(|rule| {
            let known = serde_attrs::rename_all(&rule.value(), "x", false).is_some();
            if !known {
                cx.error(rule.span(), "unknown `rename_all` rule: expected one of lowercase, UPPERCASE, PascalCase, camelCase, snake_case, SCREAMING_SNAKE_CASE, kebab-case, SCREAMING-KEBAB-CASE");
            }
            known.then(|| rule.value())
        });
        let rename_all = rename_all.as_deref();
        let root = matches!(attrs.get(Keyword::Resource), Some(attr::Item::Resource(_)));
        let mut skipped = Vec::new();
        if !input.generics.params.is_empty() {
            cx.error_spanned(&input.generics, "kubeskema derives do not support generic types");
        }
        let data = match &input.data {
            Data::Struct(s) if serde.transparent.is_some() => transparent(cx, &s.fields, serde.transparent.as_ref()?)?,
            Data::Struct(s) => match &s.fields {
                Fields::Named(named) => {
                    let mut fields: Vec<Field> =
                        named.named.iter().filter_map(|f| field(cx, f, rename_all, root, &mut skipped)).collect();
                    // serde fills a field the struct-level `default` covers from the struct's
                    // `Default`, unless the field names its own.
                    if serde.default.is_some() {
                        for f in fields.iter_mut().filter(|f| f.shape == Shape::Required) {
                            f.serde_default.get_or_insert(SerdeDefault::Container);
                        }
                    }
                    Body::Struct(fields)
                }
                Fields::Unit => Body::Struct(Vec::new()),
                Fields::Unnamed(u) => {
                    cx.error_spanned(u, "kubeskema derives need named fields: a JSON object has keys");
                    return None;
                }
            },
            Data::Enum(e) => {
                if e.variants.is_empty() {
                    cx.error(
                        input.ident.span(),
                        "an enum needs at least one variant: an empty `enum` accepts no value",
                    );
                }
                let tagging = tagging(cx, &serde);
                let carries_data = e.variants.iter().any(|v| !matches!(v.fields, Fields::Unit));
                if carries_data || tagging != Tagging::External {
                    let variants = e.variants.iter().filter_map(|v| data_variant(cx, v, rename_all)).collect();
                    Body::Union(Union { tagging, variants })
                } else {
                    Body::Enum(e.variants.iter().filter_map(|v| variant(cx, v, rename_all)).collect())
                }
            }
            Data::Union(u) => {
                cx.error_spanned(u.union_token, "kubeskema derives do not support unions");
                return None;
            }
        };
        let container = Container {
            ident: &input.ident,
            skipped,
            deny_unknown_fields: serde.deny_unknown_fields,
            doc: doc_comment(&input.attrs),
            attrs,
            data,
        };
        Some(container)
    }
}

/// The JSON name from `#[kubeskema(rename)]`, `#[serde(rename)]` or the container's
/// `#[serde(rename_all)]`, in that order; the two `rename`s must agree.
fn json_name(
    cx: &Ctxt,
    ours: Option<&syn::LitStr>,
    serde: &serde_attrs::SerdeAttrs,
    rust: String,
    rename_all: Option<&str>,
    variant: bool,
) -> String {
    if let (Some(ours), Some(theirs)) = (ours, &serde.rename)
        && ours.value() != theirs.value()
    {
        cx.error(ours.span(), format!("`#[serde(rename = {:?})]` names it differently: give one name", theirs.value()));
    }
    ours.or(serde.rename.as_ref())
        .map(syn::LitStr::value)
        .or_else(|| rename_all.and_then(|rule| serde_attrs::rename_all(rule, &rust, variant)))
        .unwrap_or(rust)
}

/// A named field; `None` when it is not one (a skipped field goes to `skipped`).
fn field<'a>(
    cx: &Ctxt,
    f: &'a syn::Field,
    rename_all: Option<&str>,
    root: bool,
    skipped: &mut Vec<&'a syn::Ident>,
) -> Option<Field<'a>> {
    let ident = f.ident.as_ref()?;
    let attrs = attr::parse(cx, &f.attrs, Place::Field);
    let serde = serde_attrs::parse(cx, &f.attrs);
    if let Some(skip) = &serde.skip {
        if !attrs.items.is_empty() {
            cx.error_spanned(skip, "a skipped field is neither read nor written: it takes no `#[kubeskema(...)]`");
        }
        skipped.push(ident);
        return None;
    }
    // A resource root's `api_version` is `apiVersion`, and its `metadata` is `{}` when absent
    // (as the apiserver reads an object without one): no attribute needed for either.
    let (rust_name, rename_all) = match default_json_name(ident) {
        name if root && name == "api_version" => ("apiVersion".to_owned(), None),
        name => (name, rename_all),
    };
    let json_name = json_name(cx, attrs.str(Keyword::Rename), &serde, rust_name, rename_all, false);
    let root_metadata = root && json_name == "metadata" && option_inner(&f.ty).is_none();
    let default = match (attrs.literal(Keyword::Default), attrs.str(Keyword::DefaultJson)) {
        (Some(_), Some(s)) => {
            cx.error(s.span(), "give either `default` or `default_json`, not both");
            None
        }
        (Some(lit), None) => Some(lit.to_json()),
        (None, Some(s)) => Some(s.value()),
        (None, None) if root_metadata && !attrs.flag(Keyword::Required) => Some("{}".to_owned()),
        (None, None) => None,
    };
    let nullable = attrs.flag(Keyword::Nullable);
    let required = attrs.flag(Keyword::Required);
    let outer = option_inner(&f.ty);
    let inner = outer.and_then(option_inner);
    let span = ident.span();
    if required && default.is_some() {
        cx.error(span, "a field is either `required` or has a `default`, not both");
    }
    let (shape, value_ty) = if attrs.flag(Keyword::UnknownFields) {
        if attrs.items.len() > 1 {
            cx.error(span, "`unknown_fields` stands alone: it collects the keys no other field names");
        }
        (Shape::UnknownFields, &f.ty)
    } else if nullable {
        match (outer, inner) {
            (Some(_), Some(t)) => (Shape::MaybeNull, t),
            (Some(t), None) if required || default.is_some() => (Shape::Nullable, t),
            (Some(_), None) => {
                cx.error(
                    span,
                    "a nullable field that may be absent needs `Option<Option<T>>` to tell `null` (Some(None)) from absent (None); \
                     or mark it `required` or give it a `default`",
                );
                return None;
            }
            (None, _) => {
                cx.error(span, "a nullable field needs an `Option<T>` type: `None` stands for `null`");
                return None;
            }
        }
    } else {
        match outer {
            Some(_) if required => {
                cx.error(
                    span,
                    "a required field that is not nullable is a plain `T`: `null` and absence are both missing values",
                );
                return None;
            }
            Some(t) => (Shape::Optional, t),
            None if default.is_some() => (Shape::Defaulted, &f.ty),
            None => (Shape::Required, &f.ty),
        }
    };
    if shape != Shape::UnknownFields {
        check_node(cx, &attrs, value_ty, span);
        check_default(cx, &attrs, value_ty, default.as_deref());
    }
    // On an `Option` (absent is `None` already) and beside a schema default (which fills
    // first), serde's `default` changes nothing.
    let serde_default = serde.default.filter(|_| shape == Shape::Required);
    let skip_serializing_if = serde.skip_serializing_if;
    if let Some(flatten) = &serde.flatten {
        if shape != Shape::Required {
            cx.error_spanned(flatten, "a flattened field is a plain `T` (a struct, or an enum written as an object): its fields are this object's");
        }
        if !attrs.items.is_empty() {
            cx.error_spanned(
                flatten,
                "a flattened field takes no `#[kubeskema(...)]`: put the constraints on the fields of its type",
            );
        }
    }
    Some(Field {
        ident,
        json_name,
        shape,
        value_ty,
        default,
        doc: doc_comment(&f.attrs),
        serde_default,
        skip_serializing_if,
        flatten: serde.flatten.is_some(),
        attrs,
    })
}

/// A `#[serde(transparent)]` struct's one field (its `Option` not allowed: the value is the
/// field's, present).
fn transparent<'a>(cx: &Ctxt, fields: &'a Fields, at: &syn::Path) -> Option<Body<'a>> {
    let mut all = fields.iter();
    let (Some(only), None) = (all.next(), all.next()) else {
        cx.error_spanned(at, "`transparent` is for a struct of exactly one field");
        return None;
    };
    if option_inner(&only.ty).is_some() {
        cx.error_spanned(&only.ty, "a transparent struct's field is a plain `T`: its value is the struct's");
        return None;
    }
    let attrs = attr::parse(cx, &only.attrs, Place::Field);
    let member = match &only.ident {
        Some(ident) => syn::Member::Named(ident.clone()),
        None => syn::Member::Unnamed(0.into()),
    };
    check_node(cx, &attrs, &only.ty, syn::spanned::Spanned::span(&only.ty));
    Some(Body::Transparent(Transparent { member, ty: &only.ty, attrs }))
}

/// An enum's representation from `#[serde(tag, content, untagged)]`.
fn tagging(cx: &Ctxt, serde: &serde_attrs::SerdeAttrs) -> Tagging {
    match (&serde.tag, &serde.content, &serde.untagged) {
        (None, None, None) => Tagging::External,
        (Some(tag), None, None) => Tagging::Internal(tag.value()),
        (Some(tag), Some(content), None) => {
            if tag.value() == content.value() {
                cx.error(content.span(), "`content` needs a key of its own: it is the tag's now");
            }
            Tagging::Adjacent(tag.value(), content.value())
        }
        (None, Some(content), _) => {
            cx.error(content.span(), "`content` goes with `tag`: `#[serde(tag = \"type\", content = \"value\")]`");
            Tagging::External
        }
        (_, _, Some(untagged)) => {
            if serde.tag.is_some() {
                cx.error_spanned(untagged, "an enum is either `untagged` or tagged, not both");
            }
            Tagging::Untagged
        }
    }
}

/// A variant of a data-carrying enum: unit, one value, or named fields.
fn data_variant<'a>(cx: &Ctxt, v: &'a syn::Variant, rename_all: Option<&str>) -> Option<DataVariant<'a>> {
    let attrs = attr::parse(cx, &v.attrs, Place::Variant);
    let serde = serde_attrs::parse(cx, &v.attrs);
    if let Some((ident, _, _)) = attrs.items.first() {
        cx.error(ident.span(), "a variant of an enum that carries data (or is tagged) takes no `#[kubeskema(...)]`: it is named by serde (`#[serde(rename)]`), and its fields carry the constraints");
    }
    let name = json_name(cx, None, &serde, v.ident.to_string().trim_start_matches("r#").to_owned(), rename_all, true);
    let own_rename_all = serde.rename_all.as_ref().map(syn::LitStr::value);
    if let Some(rule) = &serde.rename_all
        && serde_attrs::rename_all(&rule.value(), "x", false).is_none()
    {
        cx.error(rule.span(), "unknown `rename_all` rule");
    }
    let payload = match &v.fields {
        Fields::Unit => Payload::Unit,
        Fields::Unnamed(u) if u.unnamed.len() == 1 => {
            let only = &u.unnamed[0];
            if only.attrs.iter().any(|a| a.path().is_ident("kubeskema") || a.path().is_ident("serde")) {
                cx.error_spanned(only, "attributes on a variant's one value are not read: put them on the type it holds, or give the variant named fields");
            }
            Payload::Newtype(&only.ty)
        }
        Fields::Unnamed(u) => {
            cx.error_spanned(
                u,
                "a variant with several unnamed values is a JSON array of mixed types, which a structural schema cannot describe: give it named fields",
            );
            return None;
        }
        Fields::Named(named) => {
            let mut skipped = Vec::new();
            let fields: Vec<Field> = named
                .named
                .iter()
                .filter_map(|f| field(cx, f, own_rename_all.as_deref(), false, &mut skipped))
                .collect();
            for (span, what) in skipped
                .iter()
                .map(|s| (s.span(), "skip"))
                .chain(fields.iter().filter(|f| f.flatten).map(|f| (f.ident.span(), "flatten")))
            {
                cx.error(span, format!("`#[serde({what})]` is not followed in an enum variant yet: give the variant a struct with this field (`Variant(Struct)`)"));
            }
            for f in &fields {
                if f.shape == Shape::UnknownFields {
                    cx.error(
                        f.ident.span(),
                        "a variant's fields do not collect `unknown_fields`: give the variant a struct that does",
                    );
                }
            }
            for (i, f) in fields.iter().enumerate() {
                if let Some(first) = fields[..i].iter().find(|g| g.json_name == f.json_name) {
                    cx.error(
                        f.ident.span(),
                        format!("JSON name \"{}\" is already used by field `{}`", f.json_name, first.ident),
                    );
                }
            }
            Payload::Struct(fields, named)
        }
    };
    Some(DataVariant { ident: &v.ident, name, doc: doc_comment(&v.attrs), payload, rename_all: own_rename_all })
}

fn variant<'a>(cx: &Ctxt, v: &'a syn::Variant, rename_all: Option<&str>) -> Option<Variant<'a>> {
    let attrs = attr::parse(cx, &v.attrs, Place::Variant);
    let serde = serde_attrs::parse(cx, &v.attrs);
    if !matches!(v.fields, Fields::Unit) {
        cx.error_spanned(&v.fields, "kubeskema enums stand for `enum` values: variants carry no data");
        return None;
    }
    let value = match attrs.literal(Keyword::Value) {
        None => VariantValue::Str(json_name(
            cx,
            None,
            &serde,
            v.ident.to_string().trim_start_matches("r#").to_owned(),
            rename_all,
            true,
        )),
        Some(Literal::Str(s)) => VariantValue::Str(s.value()),
        Some(Literal::Bool(b)) => VariantValue::Bool(b.value),
        Some(Literal::Int(i)) => match i.base10_parse::<i64>() {
            Ok(n) => VariantValue::Int(n),
            Err(e) => {
                cx.push(e);
                return None;
            }
        },
        Some(Literal::Float(f)) => {
            cx.error(f.span(), "enum values are strings, integers or booleans");
            return None;
        }
    };
    Some(Variant { ident: &v.ident, value })
}

/// Whether `ty` is a primitive (`String`, `bool`, `i32`, `i64`, `f64`) or a `Vec`, `Option`
/// or map of them: a value whose `Validate` finds nothing by itself.
pub fn holds_primitives(ty: &Type) -> bool {
    let Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else { return false };
    if p.qself.is_some() {
        return false;
    }
    match &last.arguments {
        syn::PathArguments::None => ["String", "bool", "i32", "i64", "f64"].iter().any(|t| last.ident == t),
        syn::PathArguments::AngleBracketed(_) => {
            ["Vec", "Option", "BTreeSet", "HashSet"].iter().any(|c| last.ident == c)
                && generic_arg(ty, &last.ident.to_string()).is_some_and(holds_primitives)
                || map_value(ty).is_some_and(holds_primitives)
        }
        syn::PathArguments::Parenthesized(_) => false,
    }
}

/// The keys of a `list_type = "map"` node.
pub fn list_map_keys(attrs: &Attrs) -> Option<&[syn::LitStr]> {
    match (attrs.str(Keyword::ListType).map(syn::LitStr::value).as_deref(), attrs.get(Keyword::ListMapKeys)) {
        (Some("map"), Some(kubeskema_attributes::parse::Item::Strs(keys))) => Some(keys),
        _ => None,
    }
}
