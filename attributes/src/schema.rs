//! Attributes back into a schema: the direction the derive takes (`#[kubeskema(minimum = 1)]`
//! → `{"minimum": 1}`), by the schema key of each [`Keyword`]. Code generation takes the other
//! direction from the same table.

use serde_json::{Map, Value};

use crate::{Attr, Keyword, Rule};

/// The schema keys a node's attributes write, as a JSON object to lay over the schema of the
/// node's Rust type. `items(...)` and `values(...)` give nested objects under `items` and
/// `additionalProperties`; `rule(...)`s collect under `x-kubernetes-validations`. Keywords with
/// no schema key (`rename`, `required`, ...) write nothing: their meaning is the parent's (a
/// `required` list) or Rust's.
pub fn patch(attrs: &[Attr]) -> Map<String, Value> {
    let mut out = Map::new();
    for a in attrs {
        let keyword = a.keyword();
        let Some(key) = keyword.schema_key() else {
            if let Attr::Extension(name, json) = a {
                out.insert(name.clone(), json_or_string(json));
            }
            continue;
        };
        let value = match a {
            Attr::Flag(Keyword::NoAdditionalProperties) => Value::Bool(false),
            Attr::Flag(_) => Value::Bool(true),
            Attr::Str(_, s) => Value::String(s.clone()),
            Attr::Count(_, n) => Value::from(*n),
            Attr::Number(_, n) => Value::Number(n.clone()),
            Attr::Json(_, text) => json_or_string(text),
            Attr::Strs(_, list) => Value::Array(list.iter().cloned().map(Value::String).collect()),
            Attr::Nested(_, inner) => Value::Object(patch(inner)),
            Attr::Rule(rule, _) => {
                push(&mut out, key, rule_json(rule));
                continue;
            }
            Attr::Extension(..) | Attr::Resource(_) => continue,
        };
        match (keyword, value) {
            // `required_keys` adds to the `required` the fields give.
            (Keyword::RequiredKeys, Value::Array(keys)) => keys.into_iter().for_each(|k| push(&mut out, key, k)),
            (_, value) => {
                out.insert(key.to_owned(), value);
            }
        }
    }
    out
}

/// A rule as `x-kubernetes-validations` writes it.
pub fn rule_json(r: &Rule) -> Value {
    let mut m = Map::new();
    m.insert("rule".into(), Value::String(r.rule.clone()));
    for (key, value) in [
        ("message", &r.message),
        ("messageExpression", &r.message_expression),
        ("reason", &r.reason),
        ("fieldPath", &r.field_path),
    ] {
        if let Some(v) = value {
            m.insert(key.into(), Value::String(v.clone()));
        }
    }
    if let Some(b) = r.optional_old_self {
        m.insert("optionalOldSelf".into(), Value::Bool(b));
    }
    Value::Object(m)
}

fn push(out: &mut Map<String, Value>, key: &str, item: Value) {
    match out.entry(key).or_insert_with(|| Value::Array(Vec::new())) {
        Value::Array(list) => list.push(item),
        other => *other = Value::Array(vec![item]),
    }
}

/// JSON text as its value. The parser checked it, so text that is not JSON can only come from
/// a caller that built the attribute by hand; it stays a string rather than vanish.
fn json_or_string(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Trees;

    #[test]
    fn attributes_write_their_schema_keys() {
        let attrs = vec![
            Attr::Count(Keyword::MaxLength, 5),
            Attr::Flag(Keyword::NoAdditionalProperties),
            Attr::Strs(Keyword::ListMapKeys, vec!["name".into()]),
            Attr::Nested(Keyword::Items, vec![Attr::Str(Keyword::Format, "date".into())]),
            Attr::Rule(Rule { rule: "self > 1".into(), ..Rule::default() }, Trees(None)),
            Attr::Extension("x-kubernetes-patch-strategy".into(), "\"merge\"".into()),
            Attr::Str(Keyword::Rename, "other".into()),
        ];
        assert_eq!(
            Value::Object(patch(&attrs)),
            serde_json::json!({
                "maxLength": 5,
                "additionalProperties": false,
                "x-kubernetes-list-map-keys": ["name"],
                "items": {"format": "date"},
                "x-kubernetes-validations": [{"rule": "self > 1"}],
                "x-kubernetes-patch-strategy": "merge",
            })
        );
    }

    #[test]
    fn every_schema_keyword_has_a_key_and_the_rest_none() {
        for k in Keyword::ALL {
            let rust_only = matches!(
                k,
                Keyword::Rename
                    | Keyword::Required
                    | Keyword::UnknownFields
                    | Keyword::Value
                    | Keyword::Resource
                    | Keyword::NoCelRules
                    | Keyword::NoCelValue
                    | Keyword::Constructors
                    | Keyword::RefusesEveryValue
                    | Keyword::SchemaJson
                    | Keyword::ApplyKeys
                    | Keyword::Extension
            );
            assert_eq!(k.schema_key().is_none(), rust_only, "{k:?}");
        }
    }
}
