//! The CRD update as the apiserver judges it (`ValidateCustomResourceDefinitionUpdate` after
//! the strategy's `PrepareForUpdate`): NEW's own checks, the fields that cannot change, and
//! the stored versions NEW must keep listing.

use serde_json::Value;

use crate::dynamic::crd::Crd;
use crate::dynamic::crd::check::finding::Finding;
use crate::dynamic::crd::check::{Relaxed, check, check_relaxed};
use crate::report::issue::{BadValue, ErrorType};

const STORED: &str = "status.storedVersions";
const APPROVAL: &str = "metadata.annotations[api-approved.kubernetes.io]";

/// What the apiserver says of updating `old` to `new` with objects stored in `stored`.
///
/// NEW is checked as on create, except:
/// - its stored versions are OLD's (the strategy keeps the status), with NEW's storage
///   version added;
/// - a version whose schema did not change is not held to the per-rule cost limit
///   (`suppressPerExpressionCost`; the schema's total still is);
/// - only warnings OLD did not have are given;
/// - `spec.group` and `spec.names.plural` cannot change, nor `spec.scope` and
///   `spec.names.kind` once OLD is established (a CRD read from a cluster).
///
/// - a rule OLD already breaks somewhere is not required of NEW ([`Relaxed`]: non-atomic set
///   items, map keys neither required nor defaulted, unknown types, unpruned defaults,
///   unknown conversion review versions, too many selectable fields kept as they were), as
///   CRDs stored before those rules existed need.
pub fn check_update(old: &Crd, new: &Crd, stored: &[String]) -> Vec<Finding> {
    let unchanged: Vec<&str> = new
        .versions
        .iter()
        .filter(|v| {
            old.version(&v.name).is_some_and(|o| o.schema.is_some() && schema_json(old, o) == schema_json(new, v))
        })
        .map(|v| v.name.as_str())
        .collect();
    let per_rule_cost = |f: &Finding| {
        f.detail.starts_with("Forbidden: estimated rule cost exceeds budget")
            || f.detail.starts_with("Forbidden: estimated messageExpression cost exceeds budget")
    };
    // `WarningsOnUpdate`: only what OLD was not already warned about.
    let warned: Vec<String> = check(old).findings.into_iter().filter(|f| f.warning).map(|f| f.text()).collect();
    let mut findings: Vec<Finding> = check_relaxed(new, &Relaxed::for_update(old, new))
        .findings
        .into_iter()
        .filter(|f| f.field != STORED && !(f.warning && warned.contains(&f.text())))
        .filter(|f| !(per_rule_cost(f) && f.version.as_deref().is_some_and(|v| unchanged.contains(&v))))
        .collect();
    // The spec's findings end where the status's would begin: before the approval and
    // `preserveUnknownFields`, which the update checks last as the create does.
    let tail =
        findings.iter().rev().take_while(|f| f.field == APPROVAL || f.field == "spec.preserveUnknownFields").count();
    let at = findings.len() - tail;
    let mut inserted = immutables(old, new);
    inserted.extend(stored_versions(new, stored));
    findings.splice(at..at, inserted);
    findings
}

/// A version's schema as written (`GetSchemaForVersion`: its own, or the CRD's shared one).
fn schema_json<'c>(crd: &'c Crd, version: &crate::dynamic::crd::CrdVersion) -> Option<std::borrow::Cow<'c, Value>> {
    crd.raw_at(&version.schema.as_ref()?.pointer)
}

fn immutables(old: &Crd, new: &Crd) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut immutable = |field: &str, new_value: &str, old_value: &str, pointer: &str| {
        if new_value != old_value {
            out.push(Finding::new(
                field.to_owned(),
                ErrorType::Invalid,
                BadValue::Str(new_value.to_owned()),
                "field is immutable",
                pointer.to_owned(),
            ));
        }
    };
    if established(old) {
        immutable("spec.scope", &new.scope, &old.scope, "/spec/scope");
        immutable("spec.names.kind", &new.names.kind, &old.names.kind, "/spec/names/kind");
    }
    immutable("spec.group", &new.group, &old.group, "/spec/group");
    immutable("spec.names.plural", &new.names.plural, &old.names.plural, "/spec/names/plural");
    out
}

/// `status.conditions` holds `Established: True`.
fn established(crd: &Crd) -> bool {
    let conditions = crd.envelope().pointer("/status/conditions").and_then(Value::as_array);
    conditions.into_iter().flatten().any(|c| {
        c.get("type").and_then(Value::as_str) == Some("Established")
            && c.get("status").and_then(Value::as_str) == Some("True")
    })
}

/// `ValidateCustomResourceDefinitionStoredVersions` of NEW's stored versions: OLD's, with NEW's
/// storage version added (`PrepareForUpdate`). Go reports the missing ones in a map's order;
/// here in the list's.
fn stored_versions(new: &Crd, stored: &[String]) -> Vec<Finding> {
    let mut listed: Vec<String> = stored.to_vec();
    if let Some(storage) = new.versions.iter().find(|v| v.storage)
        && !listed.contains(&storage.name)
    {
        listed.push(storage.name.clone());
    }
    if listed.is_empty() {
        return vec![Finding::new(
            STORED.to_owned(),
            ErrorType::Invalid,
            BadValue::Null,
            "must have at least one stored version",
            "/spec/versions".to_owned(),
        )];
    }
    let mut out = Vec::new();
    for (i, name) in listed.iter().enumerate() {
        if new.version(name).is_none() {
            let detail = format!(
                "missing from spec.versions; {name} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in {name} and removes {name} from status.storedVersions"
            );
            out.push(Finding::new(
                format!("{STORED}[{i}]"),
                ErrorType::Invalid,
                BadValue::Str(name.clone()),
                &detail,
                "/spec/versions".to_owned(),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::check_update;
    use crate::dynamic::crd::Crd;
    use crate::dynamic::crd::check::check;

    /// A CRD whose `spec` has `props`, and a description (what NEW changes).
    fn crd(props: Value, description: &str, extra: Value) -> Crd {
        let schema = json!({"type": "object", "description": description,
                            "properties": {"spec": {"type": "object", "properties": props}}});
        let mut doc = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "things.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "things", "kind": "Thing"},
                     "versions": [{"name": "v1", "served": true, "storage": true,
                                   "schema": {"openAPIV3Schema": schema}}]}
        });
        if let (Some(spec), Some(extra)) = (doc["spec"].as_object_mut(), extra.as_object()) {
            spec.extend(extra.clone());
        }
        Crd::parse(&doc).0
    }

    /// Each rule a CRD written before it was checked may break: refused on create, not
    /// required of an update whose OLD already breaks it (anywhere: NEW may break it again
    /// elsewhere), required of one whose OLD does not. As kube-apiserver 1.36.3 answers
    /// (`apiserver.py check --old`).
    #[test]
    fn a_rule_old_already_breaks_is_not_required_of_new() {
        let set = json!({"type": "array", "x-kubernetes-list-type": "set",
                         "items": {"type": "object", "properties": {"a": {"type": "string"}}}});
        let map = json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                         "items": {"type": "object", "properties": {"name": {"type": "string"}}}});
        let default = json!({"type": "object", "properties": {"a": {"type": "integer"}}, "default": {"a": 1, "b": 2}});
        let review = json!({"conversion": {"strategy": "Webhook", "webhook": {
            "conversionReviewVersions": ["v2"], "clientConfig": {"url": "https://example.com/convert"}}}});
        let stored = ["v1".to_owned()];
        for (what, broken, extra) in [
            ("a set of granular objects", json!({"tags": set.clone()}), json!({})),
            ("a map key neither required nor defaulted", json!({"ports": map}), json!({})),
            ("a default with an unknown field", json!({"d": default}), json!({})),
            ("a type OpenAPI does not know", json!({"weird": {"type": "foo"}}), json!({})),
            ("no conversion review version known", json!({}), review),
        ] {
            let old = crd(broken.clone(), "old", extra.clone());
            assert!(!check(&old).findings.is_empty(), "{what}: refused on create");
            let new = crd(broken.clone(), "new", extra.clone());
            assert_eq!(check_update(&old, &new, &stored), [], "{what}: an update keeping it");
            let clean = crd(json!({}), "old", json!({}));
            assert!(!check_update(&clean, &new, &stored).is_empty(), "{what}: an update bringing it");
        }
        // Class-wide: OLD's one set relaxes a second.
        let old = crd(json!({"tags": set.clone()}), "old", json!({}));
        let new = crd(json!({"tags": set.clone(), "more": set}), "new", json!({}));
        assert_eq!(check_update(&old, &new, &stored), []);
    }
}
