//! What the type converter refuses in a value (`ObjectToTyped`'s validation).

use serde_json::Value;

use super::*;
use crate::dynamic::apply::path::ItemKey;
use crate::dynamic::apply::types::{Atom, ListMerge, Ty};

/// What the type converter refuses in a value (`ObjectToTyped`'s validation): a field the
/// schema does not declare, a scalar of the wrong kind, a list item without its keys, and (in
/// a configuration, not a live object) a repeated key. Each as `path: message`.
pub(crate) fn validate(ty: Ty<'_>, value: &Value, allow_duplicates: bool) -> Vec<String> {
    let mut errors = Vec::new();
    validate_at(ty, value, allow_duplicates, &mut Vec::new(), &mut errors);
    errors
}

/// One step of the path [`validate`] is at, written out only for an error (writing each
/// item's out as it was passed cost more than the check).
enum Step<'v> {
    Field(&'v str),
    Index(usize),
    Element(ItemKey<'v>),
}

fn path_text(path: &[Step<'_>]) -> String {
    let mut text = String::new();
    for step in path {
        match step {
            Step::Field(name) => {
                text.push('.');
                text.push_str(name);
            }
            Step::Index(i) => text.push_str(&format!("[{i}]")),
            Step::Element(pe) => text.push_str(&pe.to_string()),
        }
    }
    text
}

/// The type converter's errors as its error reads (`ValidationErrors.Error()`): one alone,
/// or `errors:` with each on its own indented line; `None` for none.
pub(crate) fn errors_text(errors: &[String]) -> Option<String> {
    match errors {
        [] => None,
        [one] => Some(one.clone()),
        many => Some(
            std::iter::once("errors:".to_owned())
                .chain(many.iter().map(|e| format!("  {e}")))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    }
}

fn validate_at<'v>(
    ty: Ty<'v>,
    value: &'v Value,
    allow_duplicates: bool,
    path: &mut Vec<Step<'v>>,
    errors: &mut Vec<String>,
) {
    fn error(errors: &mut Vec<String>, path: &[Step<'_>], message: String) {
        errors.push(if path.is_empty() { message } else { format!("{}: {message}", path_text(path)) });
    }
    if value.is_null() {
        return;
    }
    match ty.atom(Some(value)) {
        Atom::Scalar => {
            if let Some(message) = scalar_error(ty, value) {
                error(errors, path, message);
            }
        }
        Atom::List { kind, items } => {
            let Value::Array(list) = value else {
                return error(errors, path, format!("expected list, got &{{{}}}", go_value(value)));
            };
            // Repeated keys are looked for only where they are refused (the live object may
            // hold them: a table of every item of its longest list was built for nothing).
            let atomic = matches!(kind, ListMerge::Atomic);
            let mut seen = (!atomic && !allow_duplicates).then(|| ElementMap::with_capacity(list.len()));
            for (i, item) in list.iter().enumerate() {
                if atomic {
                    path.push(Step::Index(i));
                } else {
                    match item_key(kind, items, item) {
                        Ok(pe) => {
                            if let Some(seen) = &mut seen {
                                let mut first = false;
                                seen.get_or_insert_with(pe.clone(), || first = true);
                                if !first {
                                    error(errors, path, format!("duplicate entries for key {pe}"));
                                }
                            }
                            path.push(Step::Element(pe));
                        }
                        Err(e) => return error(errors, path, format!("element {i}: {e}")),
                    }
                }
                validate_at(items, item, allow_duplicates, path, errors);
                path.pop();
            }
        }
        Atom::Map { node, .. } => {
            let Value::Object(map) = value else {
                return error(errors, path, format!("expected map, got &{{{}}}", go_value(value)));
            };
            for (key, v) in map {
                path.push(Step::Field(key));
                match node.field(key) {
                    Some(field) => validate_at(field, v, allow_duplicates, path, errors),
                    None => {
                        errors.push(format!("{}: field not declared in schema", path_text(path)));
                        path.pop();
                        // Upstream stops at the first undeclared key of a map.
                        break;
                    }
                }
                path.pop();
            }
        }
    }
}

/// A scalar of the wrong kind, in upstream's words (which print Go's view of the value).
fn scalar_error(ty: Ty<'_>, value: &Value) -> Option<String> {
    let untyped = || {
        (value.is_array() || value.is_object()).then(|| format!("expected any scalar, got &{{{}}}", go_value(value)))
    };
    let Ty::Schema(s) = ty else { return untyped() };
    // schemaconv's `convertPrimitive`: a string of any format but `byte` is an untyped
    // scalar (`format: date-time` holds a number for the type converter).
    if s.type_str() == Some("string") && !matches!(s.format.as_deref(), None | Some("" | "byte")) {
        return untyped();
    }
    match s.type_str() {
        Some("string") if !value.is_string() => {
            Some(format!("expected string, got &value.valueUnstructured{{Value:{}}}", go_syntax(value)))
        }
        Some("integer" | "number") if !value.is_number() => {
            let go_type = match value {
                Value::String(_) => "string",
                Value::Bool(_) => "bool",
                Value::Array(_) => "[]interface {}",
                _ => "map[string]interface {}",
            };
            Some(format!("expected numeric (int or float), got {go_type}"))
        }
        Some("boolean") if !value.is_boolean() => Some(format!("expected boolean, got &{{{}}}", go_value(value))),
        _ => None,
    }
}

/// A value as Go's `%#v` prints its unstructured form (`[]interface {}{"a", 1}`).
fn go_syntax(value: &Value) -> String {
    match value {
        Value::Null => "interface {}(nil)".into(),
        Value::String(s) => crate::report::issue::go_quote(s),
        Value::Array(items) => {
            format!("[]interface {{}}{{{}}}", items.iter().map(go_syntax).collect::<Vec<_>>().join(", "))
        }
        Value::Object(map) => format!(
            "map[string]interface {{}}{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}:{}", crate::report::issue::go_quote(k), go_syntax(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => go_value(other),
    }
}

/// A value as Go's `%v` prints its unstructured form.
fn go_value(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => crate::report::issue::go_float(f),
            _ => n.to_string(),
        },
        Value::Bool(b) => b.to_string(),
        Value::Array(items) => format!("[{}]", items.iter().map(go_value).collect::<Vec<_>>().join(" ")),
        Value::Object(map) => {
            format!("map[{}]", map.iter().map(|(k, v)| format!("{k}:{}", go_value(v))).collect::<Vec<_>>().join(" "))
        }
    }
}
