//! Derive macros of kubeskema, re-exported by the `kubeskema` crate: use them as
//! `#[derive(kubeskema::Schema)]` (or `Serialize`, `Deserialize`, `Validate` one by one, and
//! `ApplyConfiguration`).
//!
//! Each entry point reads the input into the model of `model` (attributes parsed once by
//! `kubeskema_attributes::parse`, errors collected in its `Ctxt`), checks it as a whole
//! (`check`), and hands it to one emitter. The generated code names `::kubeskema` and `::core`
//! paths only; those under `::kubeskema::__private` are not a stable API (ARCHITECTURE.md,
//! Boundaries).

mod apply;
mod cel;
mod check;
mod construct;
mod crd;
mod de;
mod decode;
mod junctor;
mod model;
mod native;
mod reach;
mod schema;
mod ser;
mod serde_attrs;
mod validate;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Serializes a struct as a JSON object (or an enum as its `enum` value) by its
/// `#[kubeskema(...)]` attributes: JSON names, absent versus `null`, unknown fields.
#[proc_macro_derive(Serialize, attributes(kubeskema, serde))]
pub fn derive_serialize(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input, ser::expand).into()
}

/// The usual set in one: what `Serialize`, `Deserialize` and `Validate` derive, from one
/// reading of the attributes (`#[derive(Clone, Debug, kubeskema::Schema)]` in place of three
/// derives; an attribute mistake is reported once, not by each of them).
#[proc_macro_derive(Schema, attributes(kubeskema, serde))]
pub fn derive_schema(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input, |c| {
        let mut tokens = ser::expand(c);
        tokens.extend(deserialize(c));
        tokens.extend(validate(c));
        tokens
    })
    .into()
}

/// Deserializes a struct from a JSON object (or an enum from its `enum` value) as the
/// apiserver decodes it: `null` of a non-nullable field reads as absent, defaults fill absent
/// fields, unknown keys are dropped or kept in the `unknown_fields` map. Also implements
/// `kubeskema::decode::Decode`, the validating read that records issues instead of stopping;
/// a struct's `Deserialize` is that read stopping at its first issue, as its error.
#[proc_macro_derive(Deserialize, attributes(kubeskema, serde))]
pub fn derive_deserialize(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input, deserialize).into()
}

fn deserialize(c: &model::Container) -> proc_macro2::TokenStream {
    let mut tokens = de::expand(c);
    tokens.extend(decode::expand(c));
    tokens
}

/// Checks every `#[kubeskema(...)]` constraint with straight-line calls into
/// `kubeskema::keywords`, with the apiserver's messages and paths: `value.validate()`. Also
/// implements `kubeskema::StructuralSchema`: the schema a CRD needs for the type, from its
/// Rust shape and the same attributes. A `resource(...)` root gets `new(name, ...)`; a struct
/// with `#[kubeskema(constructors)]` gets `Default` or `new(...)` and `with_<field>` setters.
#[proc_macro_derive(Validate, attributes(kubeskema, serde))]
pub fn derive_validate(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input, validate).into()
}

fn validate(c: &model::Container) -> proc_macro2::TokenStream {
    let mut tokens = validate::expand(c);
    tokens.extend(schema::expand(c));
    tokens.extend(crd::expand(c));
    tokens.extend(construct::expand(c));
    tokens
}

/// Beside a struct `Widget`, `WidgetApply`: its server-side apply configuration, every field
/// optional and left out when unset (a nullable one settable to `null`), builders by field
/// name, `From<&Widget>`; on a `resource(...)` root, `new(name)` with apiVersion, kind and
/// `metadata.name` always sent. Field types need `kubeskema::ApplyConfiguration` too (derived
/// on nested types, as `Validate` is); an enum's configuration is itself.
#[proc_macro_derive(ApplyConfiguration, attributes(kubeskema, serde))]
pub fn derive_apply_configuration(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let cx = kubeskema_attributes::parse::Ctxt::new();
    let container = read(&cx, &input);
    if let Err(e) = cx.check() {
        return e.to_compile_error().into();
    }
    let Some(container) = container else {
        return TokenStream::new();
    };
    apply::expand(&container, &input.vis).into()
}

/// The container's model, checked as a whole (errors collected in `cx`).
fn read<'a>(cx: &kubeskema_attributes::parse::Ctxt, input: &'a DeriveInput) -> Option<model::Container<'a>> {
    let container = model::Container::from_ast(cx, input)?;
    check::container(cx, &container);
    Some(container)
}

fn expand(input: &DeriveInput, emit: fn(&model::Container) -> proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let cx = kubeskema_attributes::parse::Ctxt::new();
    let container = read(&cx, input);
    if let Err(e) = cx.check() {
        return e.to_compile_error();
    }
    let Some(container) = container else {
        return proc_macro2::TokenStream::new();
    };
    let body = emit(&container);
    quote::quote! {
        #[doc(hidden)]
        // Expanded into the user's crate under the user's lints: the hidden statics and the generated match arms are not theirs to tune.
        #[allow(non_upper_case_globals, unused_attributes, unused_qualifications, unreachable_patterns, clippy::all)]
        const _: () = {
            use ::kubeskema::__private::serde as _serde;
            #body
        };
    }
}
