//! The `#[serde(...)]` attributes a type already carries, read so that a type moved from serde
//! and kube-derive keeps its JSON names: `rename`, `rename_all` (with serde's case rules),
//! `default`, `skip_serializing_if`, and an enum's representation (`tag`, `content`,
//! `untagged`), `flatten`, `skip`, `deny_unknown_fields` and `transparent`. Those that change the JSON's shape in ways the derives do
//! not follow yet (`with`, `from`, ...) are compile errors that say so,
//! rather than a schema that would not describe what serde reads. serde itself checks its
//! attributes; what it accepts and this does not need is skipped.

use kubeskema_attributes::parse::Ctxt;
use syn::{Attribute, LitStr};

/// What `#[serde(...)]` says on one item.
#[derive(Default)]
pub struct SerdeAttrs {
    pub rename: Option<LitStr>,
    pub rename_all: Option<LitStr>,
    /// `default` or `default = "path"`: absence reads as the Rust default, or as what the
    /// function at the path returns.
    pub default: Option<SerdeDefault>,
    /// `skip_serializing_if = "..."`.
    pub skip_serializing_if: bool,
    /// `tag = "..."`: an enum written internally tagged (or adjacently, with `content`).
    pub tag: Option<LitStr>,
    /// `content = "..."`: the key of an adjacently tagged enum's payload.
    pub content: Option<LitStr>,
    /// `untagged`: an enum written as its payload alone.
    pub untagged: Option<syn::Path>,
    /// `flatten`: the field's own fields sit in this object.
    pub flatten: Option<syn::Path>,
    /// `skip`: the field is neither read nor written (it holds its `Default`).
    pub skip: Option<syn::Path>,
    /// `deny_unknown_fields`: a key no field names is an error.
    pub deny_unknown_fields: bool,
    /// `transparent`: a struct of one field is that field's value.
    pub transparent: Option<syn::Path>,
}

/// What fills a field serde's `default` names when it is absent.
#[derive(Clone)]
pub enum SerdeDefault {
    /// `default` on a field: `Default::default()`.
    Trait,
    /// `default = "path"` on a field: `path()`.
    Path(syn::ExprPath),
    /// `default` on the struct: the field of `<Self as Default>::default()`.
    Container,
}

impl SerdeDefault {
    /// The value it fills field `member` of struct `container` with: for the read's finisher
    /// and the constructors alike.
    pub fn fill(&self, container: &syn::Ident, member: &syn::Ident) -> proc_macro2::TokenStream {
        match self {
            // Spanned on the field: a type without `Default` is named there.
            SerdeDefault::Trait => quote::quote_spanned! {member.span()=> ::core::default::Default::default() },
            SerdeDefault::Path(path) => quote::quote! { #path() },
            SerdeDefault::Container => quote::quote! { <#container as ::core::default::Default>::default().#member },
        }
    }
}

/// The serde keys that change what JSON a type reads or writes beyond names, which the
/// kubeskema derives do not follow, and what to write instead.
const NOT_FOLLOWED: &[(&str, &str)] = &[
    ("rename_all_fields", "give each variant its own `#[serde(rename_all = \"...\")]`"),
    ("skip_deserializing", "a field written but never read has no one schema: use `skip`, or keep it with `Option<T>`"),
    ("skip_serializing", "a field read but never written has no one schema: use `skip`, or keep it with `Option<T>`"),
    ("with", "use a type whose serialization is the one you want"),
    ("deserialize_with", "use a type whose serialization is the one you want"),
    ("serialize_with", "use a type whose serialization is the one you want"),
    ("from", "use the type serde converts from"),
    ("try_from", "use the type serde converts from"),
    ("into", "use the type serde converts into"),
    ("remote", "derive on the type itself"),
];

pub fn parse(cx: &Ctxt, attrs: &[Attribute]) -> SerdeAttrs {
    let mut out = SerdeAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let result = attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            match key.as_str() {
                "rename" => out.rename = one_name(&meta)?,
                "rename_all" => out.rename_all = one_name(&meta)?,
                "default" if meta.input.peek(syn::Token![=]) => {
                    let path: LitStr = meta.value()?.parse()?;
                    out.default = Some(SerdeDefault::Path(path.parse()?));
                }
                "default" => out.default = Some(SerdeDefault::Trait),
                "tag" => out.tag = Some(meta.value()?.parse()?),
                "content" => out.content = Some(meta.value()?.parse()?),
                "untagged" => out.untagged = Some(meta.path.clone()),
                "flatten" => out.flatten = Some(meta.path.clone()),
                "skip" => out.skip = Some(meta.path.clone()),
                "deny_unknown_fields" => out.deny_unknown_fields = true,
                "transparent" => out.transparent = Some(meta.path.clone()),
                "skip_serializing_if" => {
                    out.skip_serializing_if = true;
                    skip_value(&meta)?;
                }
                other => {
                    if let Some((_, instead)) = NOT_FOLLOWED.iter().find(|(k, _)| *k == other) {
                        cx.error_spanned(
                            &meta.path,
                            format!("kubeskema derives do not follow `#[serde({other})]` (the schema would not describe what serde reads): {instead}"),
                        );
                    }
                    skip_value(&meta)?;
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    out
}

/// `rename = "x"`, or `rename(serialize = "x", deserialize = "x")` with one name: a JSON name
/// that differs by direction has no one schema.
fn one_name(meta: &syn::meta::ParseNestedMeta) -> syn::Result<Option<LitStr>> {
    if meta.input.peek(syn::Token![=]) {
        return Ok(Some(meta.value()?.parse()?));
    }
    let mut names: Vec<LitStr> = Vec::new();
    meta.parse_nested_meta(|inner| {
        names.push(inner.value()?.parse()?);
        Ok(())
    })?;
    match &names[..] {
        [] => Ok(None),
        [one] => Ok(Some(one.clone())),
        [a, b] if a.value() == b.value() => Ok(Some(a.clone())),
        [_, b, ..] => Err(syn::Error::new(
            b.span(),
            "a name that differs between serializing and deserializing has no one schema: give one name",
        )),
    }
}

fn skip_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}

/// A field's (`variant == false`, snake_case in Rust) or a variant's (PascalCase) name under
/// `rename_all`, as serde_derive's `case.rs` changes it; `None` for a rule serde does not have.
pub fn rename_all(rule: &str, name: &str, variant: bool) -> Option<String> {
    let snake = if variant {
        let mut s = String::new();
        for (i, ch) in name.char_indices() {
            if i > 0 && ch.is_uppercase() {
                s.push('_');
            }
            s.push(ch.to_ascii_lowercase());
        }
        s
    } else {
        name.to_owned()
    };
    let pascal = |s: &str| -> String {
        let mut out = String::new();
        let mut capitalize = true;
        for ch in s.chars() {
            if ch == '_' {
                capitalize = true;
            } else if capitalize {
                out.push(ch.to_ascii_uppercase());
                capitalize = false;
            } else {
                out.push(ch);
            }
        }
        out
    };
    Some(match rule {
        "lowercase" if variant => name.to_ascii_lowercase(),
        "lowercase" | "snake_case" => snake,
        "UPPERCASE" if variant => name.to_ascii_uppercase(),
        "UPPERCASE" | "SCREAMING_SNAKE_CASE" => snake.to_ascii_uppercase(),
        "PascalCase" if variant => name.to_owned(),
        "PascalCase" => pascal(name),
        "camelCase" => {
            let p = if variant { name.to_owned() } else { pascal(name) };
            let mut chars = p.chars();
            chars.next().map(|c| c.to_ascii_lowercase().to_string() + chars.as_str()).unwrap_or_default()
        }
        "kebab-case" => snake.replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => snake.to_ascii_uppercase().replace('_', "-"),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::rename_all;

    #[test]
    fn names_change_as_serde_changes_them() {
        assert_eq!(rename_all("camelCase", "max_surge_count", false).unwrap(), "maxSurgeCount");
        assert_eq!(rename_all("PascalCase", "max_surge", false).unwrap(), "MaxSurge");
        assert_eq!(rename_all("kebab-case", "max_surge", false).unwrap(), "max-surge");
        assert_eq!(rename_all("SCREAMING_SNAKE_CASE", "max_surge", false).unwrap(), "MAX_SURGE");
        assert_eq!(rename_all("camelCase", "RollingUpdate", true).unwrap(), "rollingUpdate");
        assert_eq!(rename_all("snake_case", "RollingUpdate", true).unwrap(), "rolling_update");
        assert_eq!(rename_all("lowercase", "RollingUpdate", true).unwrap(), "rollingupdate");
        assert_eq!(rename_all("SCREAMING-KEBAB-CASE", "RollingUpdate", true).unwrap(), "ROLLING-UPDATE");
        assert_eq!(rename_all("Title Case", "x", false), None);
    }
}
