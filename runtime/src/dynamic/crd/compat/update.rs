//! The CRD update as the apiserver judges it (`ValidateCustomResourceDefinitionUpdate` after
//! the strategy's `PrepareForUpdate`): NEW's own checks, the fields that cannot change, and
//! the stored versions NEW must keep listing.

use serde_json::Value;

use crate::dynamic::crd::Crd;
use crate::dynamic::crd::check::{Finding, check};
use crate::report::issue::{BadValue, ErrorType};

const STORED: &str = "status.storedVersions";
const APPROVAL: &str = "metadata.annotations[api-approved.kubernetes.io]";

/// What the apiserver says of updating `old` to `new` with objects stored in `stored`.
///
/// NEW is checked as on create, except:
/// - its stored versions are OLD's (the strategy keeps the status), with NEW's storage
///   version added;
/// - what OLD already had wrong is not held against NEW: the update's options relax each check
///   OLD failed (unchanged schemas, pre-existing rules), approximated here as the findings OLD's
///   own check has too;
/// - `spec.group` and `spec.names.plural` cannot change, nor `spec.scope` and
///   `spec.names.kind` once OLD is established (a CRD read from a cluster).
pub fn check_update(old: &Crd, new: &Crd, stored: &[String]) -> Vec<Finding> {
    let before: Vec<(String, String)> = check(old).findings.into_iter().map(|f| (f.field, f.detail)).collect();
    let mut findings: Vec<Finding> = check(new)
        .findings
        .into_iter()
        .filter(|f| f.field != STORED && !before.contains(&(f.field.clone(), f.detail.clone())))
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
    let conditions = crd.raw.pointer("/status/conditions").and_then(Value::as_array);
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
