//! `metadata.managedFields` as the apiserver reads and writes it: each entry's manager
//! identifier (`BuildManagerIdentifier`), decoding with its checks, the fields no manager
//! owns (`stripmeta`), encoding in the apiserver's order, and conflicts in its words.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::path::{PathElement, path_text};
use super::set::FieldSet;
use super::updater::{ConflictSets, Managers, Owned};

/// The manager the apiserver gives the fields of an object that had no managed fields when it
/// was first applied to.
pub const BEFORE_FIRST_APPLY: &str = "before-first-apply";

/// One manager's identity: an entry without its fields and time (and, for an apply, without
/// its API version), as JSON in the field order of Go's `ManagedFieldsEntry` (`manager`
/// left out when empty: a stored entry's `""` stays `""`).
pub(crate) fn identifier(manager: &str, operation: &str, api_version: &str, subresource: &str) -> String {
    // The fields Go's `json.Marshal` writes (omitempty), in its struct's declaration order.
    let fields = [
        (!manager.is_empty()).then_some(("manager", manager)),
        (!operation.is_empty()).then_some(("operation", operation)),
        (operation != "Apply" && !api_version.is_empty()).then_some(("apiVersion", api_version)),
        (!subresource.is_empty()).then_some(("subresource", subresource)),
    ];
    let written: Vec<String> = fields
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("\"{k}\":{}", crate::report::issue::go_json(&json!(v))))
        .collect();
    format!("{{{}}}", written.join(","))
}

/// An identifier's parts.
pub(crate) struct Identity {
    pub manager: String,
    pub operation: String,
    pub api_version: String,
    pub subresource: String,
}

pub(crate) fn identity(id: &str) -> Identity {
    let v: Value = serde_json::from_str(id).unwrap_or_default();
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    Identity {
        manager: s("manager"),
        operation: s("operation"),
        api_version: s("apiVersion"),
        subresource: s("subresource"),
    }
}

/// The live object's entries as `GetManagedFields` reads them: none at all where Go's
/// converter cannot read every one (the list is not a list, an entry not a map, a field not a
/// string, a time `time.Parse` refuses); the type converter then refuses what the schema of
/// `metadata.managedFields` does not allow.
fn entries(live: &Value) -> &[Value] {
    let Some(Value::Array(entries)) = live.pointer("/metadata/managedFields") else { return &[] };
    let readable = |entry: &Value| {
        let Value::Object(entry) = entry else { return false };
        let string = |k: &str| matches!(entry.get(k), None | Some(Value::Null | Value::String(_)));
        ["manager", "operation", "apiVersion", "fieldsType", "subresource"].into_iter().all(string)
            && match entry.get("time") {
                None | Some(Value::Null) => true,
                Some(Value::String(t)) => crate::go::time::parse_rfc3339(t).is_ok(),
                Some(_) => false,
            }
    };
    if entries.iter().all(readable) { entries } else { &[] }
}

/// The live object's managers and their times (as `metav1.Time` writes a time back: in UTC,
/// to the second), read as `DecodeManagedFields` reads them.
pub(crate) fn decode(live: &Value) -> Result<(Managers, BTreeMap<String, Value>), String> {
    let mut managers = Managers::new();
    let mut times = BTreeMap::new();
    for (i, entry) in entries(live).iter().enumerate() {
        let s = |k: &str| entry.get(k).and_then(Value::as_str).unwrap_or_default();
        let operation = s("operation");
        if operation != "Apply" && operation != "Update" {
            return Err("operation must be `Apply` or `Update`".into());
        }
        if s("apiVersion").is_empty() {
            return Err("apiVersion must not be empty".into());
        }
        match s("fieldsType") {
            "FieldsV1" => {}
            "" => return Err(format!("missing fieldsType in managed fields entry {i}")),
            other => {
                return Err(format!(
                    "invalid fieldsType {} in managed fields entry {i}",
                    crate::report::issue::go_quote(other)
                ));
            }
        }
        let id = identifier(s("manager"), operation, s("apiVersion"), s("subresource"));
        let set = match entry.get("fieldsV1") {
            None | Some(Value::Null) => FieldSet::new(),
            Some(fields) => FieldSet::from_fields_v1(fields).map_err(|e| {
                // Go's `%v` of the entry: its fields in order, a time as its pointer (`<nil>`
                // when absent; an address otherwise, which nobody can reproduce).
                let time = if entry.get("time").is_some_and(|t| !t.is_null()) { "<time>" } else { "<nil>" };
                format!(
                    "error decoding versioned set from {{{} {operation} {} {time} FieldsV1 {} {}}}: error decoding set: parsing key as path element: {e}",
                    s("manager"),
                    s("apiVersion"),
                    crate::report::issue::go_json(fields),
                    s("subresource"),
                )
            })?,
        };
        managers
            .insert(id.clone(), Owned { set, api_version: s("apiVersion").to_owned(), applied: operation == "Apply" });
        if let Some(seconds) = entry.get("time").and_then(Value::as_str).and_then(crate::go::time::unix_seconds) {
            times.insert(id, json!(crate::go::time::rfc3339_utc(seconds)));
        } else {
            times.remove(&id);
        }
    }
    Ok((managers, times))
}

/// The fields no manager owns: the type, and the metadata the apiserver sets (`stripmeta`).
pub(crate) fn strip(set: &FieldSet) -> FieldSet {
    let mut stripped = FieldSet::new();
    let f = |name: &str| PathElement::Field(name.into());
    stripped.insert(&[f("apiVersion")]);
    stripped.insert(&[f("kind")]);
    stripped.insert(&[f("metadata")]);
    for name in [
        "name",
        "namespace",
        "creationTimestamp",
        "selfLink",
        "uid",
        "clusterName",
        "generation",
        "managedFields",
        "resourceVersion",
    ] {
        stripped.insert(&[f("metadata"), f(name)]);
    }
    set.difference(&stripped)
}

/// The entries, sorted as the apiserver sorts them: by operation, time (in seconds), manager,
/// API version, subresource. The apiserver stamps the wall clock, so an entry stamped by this
/// operation (`stamped`) is newer than every entry of the same second written before it.
pub(crate) fn encode(managers: &Managers, times: &BTreeMap<String, Value>, stamped: &[String]) -> Vec<Value> {
    let mut entries: Vec<(Identity, Option<Value>, bool, Value)> = managers
        .iter()
        .map(|(id, owned)| {
            let who = identity(id);
            let operation = if owned.applied { "Apply" } else { who.operation.as_str() };
            let mut entry = Map::new();
            if !who.manager.is_empty() {
                entry.insert("manager".into(), json!(who.manager));
            }
            entry.insert("operation".into(), json!(operation));
            entry.insert("apiVersion".into(), json!(owned.api_version));
            let time = times.get(id).cloned();
            if let Some(time) = &time {
                entry.insert("time".into(), time.clone());
            }
            entry.insert("fieldsType".into(), json!("FieldsV1"));
            entry.insert("fieldsV1".into(), owned.set.to_fields_v1_value());
            if !who.subresource.is_empty() {
                entry.insert("subresource".into(), json!(who.subresource));
            }
            let who = Identity { operation: operation.to_owned(), api_version: owned.api_version.clone(), ..who };
            (who, time, stamped.contains(id), Value::Object(entry))
        })
        .collect();
    let seconds =
        |t: &Option<Value>| t.as_ref().and_then(Value::as_str).and_then(crate::go::time::unix_seconds).unwrap_or(0);
    entries.sort_by(|(p, pt, pnew, _), (q, qt, qnew, _)| {
        p.operation
            .cmp(&q.operation)
            .then_with(|| seconds(pt).cmp(&seconds(qt)))
            .then_with(|| pnew.cmp(qnew))
            .then_with(|| p.manager.cmp(&q.manager))
            .then_with(|| p.api_version.cmp(&q.api_version))
            .then_with(|| p.subresource.cmp(&q.subresource))
    });
    entries.into_iter().map(|(_, _, _, e)| e).collect()
}

/// One field another manager owns that the apply would change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The manager's name.
    pub manager: String,
    /// The field (`.spec.replicas`, `.spec.ports[name="http",protocol="TCP"]`).
    pub field: String,
    /// The status cause's message (`conflict with "kubectl" using apps/v1`).
    pub message: String,
}

/// An apply's conflicts, and the 409's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflicts {
    /// Each conflicting field, by manager identifier then field order.
    pub conflicts: Vec<Conflict>,
    /// `Apply failed with N conflicts: ...`, as the apiserver words it.
    pub message: String,
}

/// A manager as conflicts print it (`printManager`).
fn print_manager(id: &str) -> String {
    let who = identity(id);
    let mut out = crate::report::issue::go_quote(&who.manager);
    if !who.subresource.is_empty() {
        out = format!("{out} with subresource {}", crate::report::issue::go_quote(&who.subresource));
    }
    if who.operation == "Update" {
        out = format!("{out} using {}", who.api_version);
    }
    out
}

pub(crate) fn conflicts(sets: &ConflictSets) -> Conflicts {
    let conflicts: Vec<Conflict> = sets
        .iter()
        .flat_map(|(id, set)| set.paths().into_iter().map(move |path| (id, path)))
        .map(|(id, path)| Conflict {
            manager: identity(id).manager,
            field: path_text(&path),
            message: format!("conflict with {}", print_manager(id)),
        })
        .collect();
    let mut out = Conflicts { conflicts, message: String::new() };
    out.message = out.describe(str::to_owned);
    out
}

impl Conflicts {
    /// The 409's message (`getConflictMessage`), each field written by `field`: as it is for
    /// the apiserver's words, made printable for a terminal (a field is input: a map key may
    /// hold a line break).
    pub fn describe(&self, field: impl Fn(&str) -> String) -> String {
        if let [one] = self.conflicts.as_slice() {
            return format!("Apply failed with 1 conflict: {}: {}", one.message, field(&one.field));
        }
        // The conflicts come grouped by manager, managers in the order of their identifiers.
        let mut lines = Vec::new();
        let mut last: Option<&str> = None;
        for c in &self.conflicts {
            if last != Some(c.message.as_str()) {
                lines.push(format!("conflicts with {}:", &c.message["conflict with ".len()..]));
                last = Some(&c.message);
            }
            lines.push(format!("- {}", field(&c.field)));
        }
        format!("Apply failed with {} conflicts: {}", self.conflicts.len(), lines.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn live(entry: Value) -> Value {
        json!({"metadata": {"managedFields": [entry]}})
    }

    /// A stored object's managed fields are input too: each malformed entry is refused with the
    /// apiserver's words, never read wrong.
    #[test]
    fn malformed_entries_are_refused_as_the_apiserver_refuses_them() {
        let ok = json!({"manager": "m", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:a": {}}});
        assert!(decode(&live(ok.clone())).is_ok());
        let with = |key: &str, value: Value| {
            let mut e = ok.clone();
            e[key] = value;
            decode(&live(e)).unwrap_err()
        };
        assert_eq!(with("operation", json!("Patch")), "operation must be `Apply` or `Update`");
        assert_eq!(with("apiVersion", json!("")), "apiVersion must not be empty");
        assert_eq!(with("fieldsType", json!("")), "missing fieldsType in managed fields entry 0");
        assert_eq!(with("fieldsType", json!("FieldsV2")), r#"invalid fieldsType "FieldsV2" in managed fields entry 0"#);
        assert!(with("fieldsV1", json!({"k:[1]": {}})).starts_with(
            r#"error decoding versioned set from {m Apply v1 <nil> FieldsV1 {"k:[1]":{}} }: error decoding set: parsing key as path element: "#
        ));
        assert!(with("fieldsV1", json!({"f": {}})).contains("error decoding set: "));
        // What Go's converter cannot read is no entries at all (the type converter refuses it
        // later, where the schema of managedFields does not allow it).
        for unreadable in
            [json!({}), json!([ok, 5]), json!([ok, {"manager": 5}]), json!([{"time": "2026-02-30T00:00:00Z"}])]
        {
            assert!(decode(&json!({"metadata": {"managedFields": unreadable}})).unwrap().0.is_empty());
        }
        // A time as metav1.Time writes it back.
        let (_, times) =
            decode(&live(json!({"manager": "m", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1", "time": "2026-01-01T01:00:00.5+01:00"}))).unwrap();
        assert_eq!(times.into_values().collect::<Vec<_>>(), [json!("2026-01-01T00:00:00Z")]);
    }

    #[test]
    fn identifiers_are_the_apiservers() {
        assert_eq!(identifier("ci", "Apply", "example.com/v1", ""), r#"{"manager":"ci","operation":"Apply"}"#);
        assert_eq!(
            identifier("", "Update", "example.com/v1", "status"),
            r#"{"operation":"Update","apiVersion":"example.com/v1","subresource":"status"}"#
        );
        assert_eq!(
            print_manager(&identifier("c\n", "Update", "v1", "status")),
            r#""c\n" with subresource "status" using v1"#
        );
    }
}
