//! The changes between two CRDs: the envelope's (versions, names, scope), and each version's
//! schema node by node, keyword by keyword, read from the documents as written so that every
//! keyword and extension is compared, none "unhandled".

use serde_json::{Map, Value};

use super::{Change, Class};
use crate::dynamic::crd::{Crd, CrdVersion};
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

/// The changes of the envelope: the names, scope, versions served, removed and stored, and each
/// version's subresources, printer columns and selectable fields. None has an object to prove
/// it: the class is what the change does to a client of the old API.
pub fn envelope(old: &Crd, new: &Crd, stored: &[String]) -> Vec<Change> {
    let mut out = Vec::new();
    let mut change = |version: Option<&str>, pointer: String, in_old: bool, what: String, class: Class| {
        out.push(Change {
            crd: new.name.clone(),
            version: version.map(str::to_owned),
            place: Place { pointer, in_old, field: String::new() },
            what,
            class,
            witness: Err("a change of the CRD's envelope, not of an object".to_owned()),
            served_from: None,
        });
    };
    if new.scope != old.scope {
        change(None, "/spec/scope".into(), false, format!("scope {} → {}", old.scope, new.scope), Class::BreaksClients);
    }
    // A name a client types or compiles against: what named the resource no longer does. The
    // apiserver's defaults stand in for unset names (singular: the kind in lower case;
    // listKind: the kind and `List`).
    let names = |c: &Crd| {
        [
            ("kind", c.names.kind.clone()),
            ("plural", c.names.plural.clone()),
            ("singular", c.names.singular.clone().unwrap_or_else(|| c.names.kind.to_lowercase())),
            ("listKind", c.names.list_kind.clone().unwrap_or_else(|| format!("{}List", c.names.kind))),
        ]
    };
    for ((key, before), (_, after)) in names(old).into_iter().zip(names(new)) {
        if before != after {
            let what = format!("{key} {before} → {after}: clients that name it {before} no longer find it");
            change(None, format!("/spec/names/{key}"), false, what, Class::BreaksClients);
        }
    }
    for (key, before, after) in [
        ("shortNames", &old.names.short_names, &new.names.short_names),
        ("categories", &old.names.categories, &new.names.categories),
    ] {
        let gone: Vec<&str> = before.iter().filter(|n| !after.contains(n)).map(String::as_str).collect();
        let added: Vec<&str> = after.iter().filter(|n| !before.contains(n)).map(String::as_str).collect();
        if !gone.is_empty() {
            let what =
                format!("{key} {} removed: `kubectl get` by them no longer finds these objects", gone.join(", "));
            change(None, format!("/spec/names/{key}"), false, what, Class::BreaksClients);
        }
        if !added.is_empty() {
            change(
                None,
                format!("/spec/names/{key}"),
                false,
                format!("{key} {} added", added.join(", ")),
                Class::Compatible,
            );
        }
    }
    for (i, v) in old.versions.iter().enumerate() {
        let pointer = format!("/spec/versions/{i}");
        match new.versions.iter().position(|n| n.name == v.name) {
            None if v.served => {
                change(None, pointer, true, format!("served version {} removed", v.name), Class::BreaksClients)
            }
            None => change(None, pointer, true, format!("version {} removed", v.name), Class::Compatible),
            Some(j) => {
                for (pointer, in_old, what, class) in version_changes(v, i, &new.versions[j], j) {
                    change(Some(&v.name), pointer, in_old, what, class);
                }
            }
        }
    }
    for (j, v) in new.versions.iter().enumerate().filter(|(_, v)| old.version(&v.name).is_none()) {
        let what = format!("version {} added{}", v.name, if v.served { ", served" } else { "" });
        change(None, format!("/spec/versions/{j}"), false, what, Class::Compatible);
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
        change(None, format!("/spec/versions/{j}/storage"), false, what, Class::NeedsMigration);
    }
    out
}

/// What changed in one version outside its schema: served, deprecated, the subresources, the
/// printer columns and the selectable fields. Pointers into NEW (`j`), or OLD (`i`) for what
/// NEW no longer has.
fn version_changes(old: &CrdVersion, i: usize, new: &CrdVersion, j: usize) -> Vec<(String, bool, String, Class)> {
    let mut out = Vec::new();
    let (at_old, at_new) =
        (|key: &str| format!("/spec/versions/{i}/{key}"), |key: &str| format!("/spec/versions/{j}/{key}"));
    match (old.served, new.served) {
        (true, false) => {
            out.push((at_new("served"), false, format!("version {} no longer served", new.name), Class::BreaksClients))
        }
        (false, true) => out.push((at_new("served"), false, format!("version {} served", new.name), Class::Compatible)),
        _ => {}
    }
    if !old.deprecated && new.deprecated {
        out.push((at_new("deprecated"), false, "deprecated: clients are warned".to_owned(), Class::Compatible));
    }
    match (old.status_subresource, new.status_subresource) {
        (true, false) => out.push((
            at_old("subresources/status"),
            true,
            "status subresource removed: writes to /status are refused (404), and the main resource now writes status".to_owned(),
            Class::BreaksClients,
        )),
        (false, true) => out.push((
            at_new("subresources/status"),
            false,
            "status subresource added: status written through the main resource is now ignored; it must go through /status".to_owned(),
            Class::BreaksClients,
        )),
        _ => {}
    }
    match (&old.scale, &new.scale) {
        (Some(_), None) => out.push((
            at_old("subresources/scale"),
            true,
            "scale subresource removed: `kubectl scale` and autoscalers fail".to_owned(),
            Class::BreaksClients,
        )),
        (None, Some(_)) => {
            out.push((at_new("subresources/scale"), false, "scale subresource added".to_owned(), Class::Compatible))
        }
        (Some(a), Some(b)) if a != b => out.push((
            at_new("subresources/scale"),
            false,
            format!("scale subresource {a} → {b}: autoscalers read and write other fields"),
            Class::BreaksClients,
        )),
        _ => {}
    }
    if old.printer_columns != new.printer_columns {
        let what = "additionalPrinterColumns changed: `kubectl get` prints other columns; objects are untouched";
        out.push((at_new("additionalPrinterColumns"), false, what.to_owned(), Class::Compatible));
    }
    let gone: Vec<&str> =
        old.selectable_fields.iter().filter(|f| !new.selectable_fields.contains(f)).map(String::as_str).collect();
    let added: Vec<&str> =
        new.selectable_fields.iter().filter(|f| !old.selectable_fields.contains(f)).map(String::as_str).collect();
    if !gone.is_empty() {
        let what = format!("selectableFields {} removed: field selectors on them are refused", gone.join(", "));
        out.push((at_old("selectableFields"), true, what, Class::BreaksClients));
    }
    if !added.is_empty() {
        out.push((
            at_new("selectableFields"),
            false,
            format!("selectableFields {} added", added.join(", ")),
            Class::Compatible,
        ));
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
