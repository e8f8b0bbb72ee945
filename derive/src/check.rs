//! The checks of a whole container, after the model is read: what no single attribute shows.

use kubeskema_attributes::Keyword;
use kubeskema_attributes::parse::Ctxt;

use crate::model::{Body, Container, Shape, Tagging};

/// Rules that need the whole container, run once its model is built (serde_derive's
/// `check.rs`): each layer's own (`schema`, `crd`) and the ones below. Each says why it exists.
pub fn container(cx: &Ctxt, c: &Container) {
    crate::schema::check(cx, c);
    crate::crd::check(cx, c);
    match &c.data {
        Body::Struct(fields) => {
            // Two fields with one JSON name would make the second unreachable on input and
            // write the key twice on output.
            for (i, f) in fields.iter().enumerate() {
                if f.flatten {
                    continue;
                }
                if let Some(first) = fields[..i]
                    .iter()
                    .find(|g| g.json_name == f.json_name && f.shape != Shape::UnknownFields && !g.flatten)
                {
                    cx.error(
                        f.ident.span(),
                        format!("JSON name \"{}\" is already used by field `{}`", f.json_name, first.ident),
                    );
                }
            }
            // Unknown keys can only go to one place.
            let bags: Vec<_> = fields.iter().filter(|f| f.shape == Shape::UnknownFields || f.flatten).collect();
            for extra in bags.iter().skip(1) {
                cx.error(
                    extra.ident.span(),
                    "only one field may take the keys no other field names (`unknown_fields`, or one `#[serde(flatten)]`)",
                );
            }
            if c.attrs.flag(Keyword::PreserveUnknownFields) && bags.is_empty() && !fields.is_empty() {
                cx.error(
                    c.ident.span(),
                    "`preserve_unknown_fields` on a struct needs a field marked `unknown_fields` to keep them in",
                );
            }
        }
        Body::Transparent(_) => {}
        Body::Union(u) => {
            // Each name must map back to exactly one variant.
            for (i, v) in u.variants.iter().enumerate() {
                if let Some(first) = u.variants[..i].iter().find(|w| w.name == v.name) {
                    cx.error(
                        v.ident.span(),
                        format!("name \"{}\" is already the name of variant `{}`", v.name, first.ident),
                    );
                }
            }
            // A field named as the tag would be written twice.
            if let Tagging::Internal(tag) = &u.tagging
                && let Some(f) = u.fields().find(|f| &f.json_name == tag)
            {
                cx.error(
                    f.ident.span(),
                    format!("\"{tag}\" is the enum's tag: a field of that name would be written twice"),
                );
            }
        }
        Body::Enum(variants) => {
            // Each JSON value must map back to exactly one variant.
            for (i, v) in variants.iter().enumerate() {
                if let Some(first) = variants[..i].iter().find(|w| w.value == v.value) {
                    cx.error(
                        v.ident.span(),
                        format!("value {} is already the value of variant `{}`", v.value.describe(), first.ident),
                    );
                }
            }
        }
    }
}
