//! The CRD's versions as the field manager converts between them: each manager's entry
//! records the version it was written at, and its fields are compared, pruned and reconciled
//! in that version (`versionConverter` over the custom-resource converter).
//!
//! A conversion under strategy `None` changes the apiVersion and keeps every field; the
//! value is then read again with the target version's type (`ObjectToTyped`, repeated keys
//! refused), which is where a field one version declares and another does not is refused.
//! Where the target is not one of the CRD's versions the converter refuses in its words; no
//! manager is ever dropped as of a missing version (every CRD version has a type). A
//! `Webhook` CRD is converted the same way, the webhook being out of reach offline, and a
//! refusal then says so.

use std::collections::BTreeMap;

use serde_json::Value;

use super::typed;
use super::types::Ty;
use crate::schema::Schema;

/// An apiVersion's group and version, as `schema.ParseGroupVersion` splits it.
pub(crate) fn parse_group_version(text: &str) -> Result<(&str, &str), String> {
    match text.matches('/').count() {
        _ if text == "/" => Ok(("", "")),
        0 => Ok(("", text)),
        1 => Ok(text.split_once('/').expect("invariant: one slash")),
        _ => Err(format!("unexpected GroupVersion string: {text}")),
    }
}

/// `GroupVersion.String()`: the version alone in the core group.
fn group_version_text((group, version): (&str, &str)) -> String {
    if group.is_empty() { version.to_owned() } else { format!("{group}/{version}") }
}

/// Every version of one CRD, typed, and the version the request is made at (the hub every
/// conversion passes through: the apiserver's hub for a custom resource is the request's
/// version).
pub(crate) struct Versions<'r> {
    pub group: &'r str,
    pub kind: &'r str,
    /// Each version's root type, by apiVersion.
    pub roots: &'r BTreeMap<String, Schema>,
    /// The request's apiVersion.
    pub hub: &'r str,
    /// Whether the CRD converts by webhook (read as `None` here).
    pub webhook: bool,
}

impl<'r> Versions<'r> {
    /// The request version's type.
    pub fn hub_ty(&self) -> Ty<'r> {
        Ty::Schema(&self.roots[self.hub])
    }

    /// `Convert`: `value`, typed at apiVersion `from`, as the type converter reads it at `to`
    /// (`from` is always one of the CRD's versions: the hub or a version converted to
    /// before). The type at `to`, or the converter's refusal in its words.
    pub fn convert(&self, value: &Value, from: &str, to: &str) -> Result<Ty<'r>, String> {
        let target = parse_group_version(to)?;
        if parse_group_version(from).is_ok_and(|from| from == target) {
            return Ok(Ty::Schema(&self.roots[from]));
        }
        // To the hub first: a CRD version of the hub's group, always valid. Then to `to`.
        let target_text = group_version_text(target);
        if target.0 != self.group {
            return Err(format!(
                "{}, Kind={} is unstructured and is not suitable for converting to {}",
                self.hub,
                self.kind,
                crate::report::issue::go_quote(&target_text)
            ));
        }
        let Some(root) = self.roots.get(&target_text) else {
            return Err(format!("request to convert CR to an invalid group/version: {target_text}"));
        };
        let errors = typed::validate::validate(Ty::Schema(root), value, false);
        match typed::validate::errors_text(&errors) {
            None => Ok(Ty::Schema(root)),
            Some(text) if self.webhook => Err(format!(
                "{text} (read at {to} as conversion strategy None reads it: kubeskema does not run this CRD's conversion webhook)"
            )),
            Some(text) => Err(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_versions_parse_as_go_parses_them() {
        assert_eq!(parse_group_version("example.com/v1"), Ok(("example.com", "v1")));
        assert_eq!(parse_group_version("v1"), Ok(("", "v1")));
        assert_eq!(parse_group_version("/"), Ok(("", "")));
        assert_eq!(parse_group_version(""), Ok(("", "")));
        assert_eq!(parse_group_version("a/b/c"), Err("unexpected GroupVersion string: a/b/c".into()));
    }
}
