//! The changes between two CRDs: the envelope's (versions, names, scope), and each version's
//! schema node by node, keyword by keyword, read from the documents as written so that every
//! keyword and extension is compared, none "unhandled".

use serde_json::{Map, Value};

use super::{Change, Class};
use crate::dynamic::crd::Crd;
use crate::schema::Schema;

/// Where a change is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    /// A JSON pointer into NEW's document (OLD's for what NEW removed).
    pub pointer: String,
    /// Whether the pointer is into OLD's document.
    pub in_old: bool,
    /// The object's field path (`.spec.items[*].name`), empty for the envelope.
    pub field: String,
}

/// One step from an object's root to a schema node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A property.
    Property(String),
    /// A list's items.
    Item,
    /// A map's values (`additionalProperties`).
    Value,
}

/// A schema node that changed.
pub struct Found<'a> {
    pub place: Place,
    pub steps: Vec<Step>,
    pub what: String,
    pub documentation_only: bool,
    pub old: Option<&'a Schema>,
    pub new: Option<&'a Schema>,
    /// The keywords (and extensions) that differ.
    pub keys: Vec<String>,
}

/// What only describes: a change of these alone is compatible.
const DOCUMENTATION: [&str; 4] = ["description", "title", "example", "externalDocs"];

/// The changes of the envelope: versions served, removed and stored, and the names.
pub fn envelope(old: &Crd, new: &Crd, stored: &[String]) -> Vec<Change> {
    let mut out = Vec::new();
    let mut change =
        |pointer: &str, in_old: bool, what: String, class: Class, witness: Result<super::Witness, String>| {
            out.push(Change {
                crd: new.name.clone(),
                version: None,
                place: Place { pointer: pointer.to_owned(), in_old, field: String::new() },
                what,
                class,
                witness,
                served_from: None,
            });
        };
    let not_object = || Err("a change of the CRD's envelope, not of an object".to_owned());
    if new.scope != old.scope {
        change(
            "/spec/scope",
            false,
            format!("scope {} → {}", old.scope, new.scope),
            Class::BreaksClients,
            not_object(),
        );
    }
    if new.names.kind != old.names.kind {
        let what = format!("kind {} → {}", old.names.kind, new.names.kind);
        change("/spec/names/kind", false, what, Class::BreaksClients, not_object());
    }
    if new.names.plural != old.names.plural {
        let what = format!("plural {} → {}", old.names.plural, new.names.plural);
        change("/spec/names/plural", false, what, Class::BreaksClients, not_object());
    }
    for (i, v) in old.versions.iter().enumerate() {
        let pointer = format!("/spec/versions/{i}");
        match new.versions.iter().position(|n| n.name == v.name) {
            None if v.served => {
                change(&pointer, true, format!("served version {} removed", v.name), Class::BreaksClients, not_object())
            }
            None => change(&pointer, true, format!("version {} removed", v.name), Class::Compatible, not_object()),
            Some(j) if v.served && !new.versions[j].served => {
                let what = format!("version {} no longer served", v.name);
                change(&format!("/spec/versions/{j}/served"), false, what, Class::BreaksClients, not_object())
            }
            Some(_) => {}
        }
    }
    let storage = |c: &Crd| c.versions.iter().find(|v| v.storage).map(|v| v.name.clone());
    if let (Some(before), Some(after)) = (storage(old), storage(new))
        && before != after
    {
        let j = new.versions.iter().position(|v| v.name == after).unwrap_or_default();
        let migrate: Vec<&str> = stored.iter().filter(|s| **s != after).map(String::as_str).collect();
        let what = format!(
            "storage version {before} → {after}: objects stored in {} stay there until migrated (a storage migration, then `status.storedVersions` without them)",
            migrate.join(", ")
        );
        change(&format!("/spec/versions/{j}/storage"), false, what, Class::NeedsMigration, not_object());
    }
    out
}

/// Every schema node of one version that differs between OLD and NEW, parents first.
pub fn schemas<'a>(
    old: Option<&'a Schema>,
    new: Option<&'a Schema>,
    old_doc: &Value,
    new_doc: &Value,
) -> Vec<Found<'a>> {
    let mut out = Vec::new();
    walk(old, new, old_doc, new_doc, &mut Vec::new(), &mut out);
    out
}

fn walk<'a>(
    old: Option<&'a Schema>,
    new: Option<&'a Schema>,
    old_doc: &Value,
    new_doc: &Value,
    steps: &mut Vec<Step>,
    out: &mut Vec<Found<'a>>,
) {
    let field = field_path(steps);
    match (old, new) {
        (None, None) => {}
        (Some(o), None) => out.push(Found {
            place: Place { pointer: o.pointer.clone(), in_old: true, field },
            steps: steps.clone(),
            what: "removed".to_owned(),
            documentation_only: false,
            old,
            new,
            keys: vec!["properties".to_owned()],
        }),
        (None, Some(n)) => out.push(Found {
            place: Place { pointer: n.pointer.clone(), in_old: false, field },
            steps: steps.clone(),
            what: "added".to_owned(),
            documentation_only: false,
            old,
            new,
            keys: vec!["properties".to_owned()],
        }),
        (Some(o), Some(n)) => {
            let (a, b) = (own_keywords(old_doc.pointer(&o.pointer)), own_keywords(new_doc.pointer(&n.pointer)));
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            let changed: Vec<&String> = keys.into_iter().filter(|k| a.get(*k) != b.get(*k)).collect();
            if !changed.is_empty() {
                let what = changed
                    .iter()
                    .map(|k| format!("{k} {} → {}", shown(a.get(*k)), shown(b.get(*k))))
                    .collect::<Vec<_>>()
                    .join("; ");
                out.push(Found {
                    place: Place { pointer: n.pointer.clone(), in_old: false, field },
                    steps: steps.clone(),
                    what,
                    documentation_only: changed.iter().all(|k| DOCUMENTATION.contains(&k.as_str())),
                    old,
                    new,
                    keys: changed.into_iter().cloned().collect(),
                });
            }
            let mut names: Vec<&String> = o.properties.keys().chain(n.properties.keys()).collect();
            names.sort();
            names.dedup();
            for name in names {
                steps.push(Step::Property(name.clone()));
                walk(o.properties.get(name), n.properties.get(name), old_doc, new_doc, steps, out);
                steps.pop();
            }
            if o.items.is_some() || n.items.is_some() {
                steps.push(Step::Item);
                walk(o.items.as_deref(), n.items.as_deref(), old_doc, new_doc, steps, out);
                steps.pop();
            }
            let (oa, na) = (o.additional_properties_schema(), n.additional_properties_schema());
            if oa.is_some() || na.is_some() {
                steps.push(Step::Value);
                walk(oa, na, old_doc, new_doc, steps, out);
                steps.pop();
            }
        }
    }
}

/// A node's keywords without its children's schemas (a boolean `additionalProperties` is the
/// node's own).
fn own_keywords(node: Option<&Value>) -> Map<String, Value> {
    let mut map = node.and_then(Value::as_object).cloned().unwrap_or_default();
    map.remove("properties");
    map.remove("items");
    if map.get("additionalProperties").is_some_and(Value::is_object) {
        map.remove("additionalProperties");
    }
    map
}

fn shown(v: Option<&Value>) -> String {
    match v {
        None => "(none)".to_owned(),
        Some(v) => {
            let text = v.to_string();
            if text.chars().count() > 80 { format!("{}…", text.chars().take(80).collect::<String>()) } else { text }
        }
    }
}

/// `.spec.items[*].name`, as a reader of the object names a field.
pub fn field_path(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Property(name) => {
                out.push('.');
                out.push_str(name);
            }
            Step::Item => out.push_str("[*]"),
            Step::Value => out.push_str("[*]"),
        }
    }
    out
}
