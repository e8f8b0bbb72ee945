//! How kube-apiserver 1.36 prints the internal CRD types it puts in field errors as values:
//! `field.Error` marshals them with Go's `encoding/json`, and the internal types have no JSON
//! tags, so the keys are the Go field names in declaration order, every field present (`null`
//! for nil pointers, slices and maps, `false` and `""` for zero values). Numbers went through
//! `float64` (the v1 → internal conversion decodes `default`, `enum` and `example` with the
//! standard decoder).

use crate::report::issue::go_json;
use crate::schema::ValidationRule;
use serde_json::Value;

/// A `ValidationRule` (`{"Rule":"...","Message":"",...}`).
pub fn rule(r: &ValidationRule) -> String {
    let s = |v: &str| go_json(&Value::String(v.to_owned()));
    let opt = |v: &Option<String>| s(v.as_deref().unwrap_or_default());
    format!(
        "{{\"Rule\":{},\"Message\":{},\"MessageExpression\":{},\"Reason\":{},\"FieldPath\":{},\"OptionalOldSelf\":{}}}",
        s(&r.rule),
        opt(&r.message),
        opt(&r.message_expression),
        r.reason.as_deref().map_or("null".to_owned(), s),
        opt(&r.field_path),
        r.optional_old_self.map_or("null".to_owned(), |b| b.to_string()),
    )
}

/// A `JSONSchemaProps`, from the schema as written (v1 JSON).
pub fn schema(v: &Value) -> String {
    let mut out = String::new();
    write_schema(v, &mut out);
    out
}

/// A `JSONSchemaPropsOrArray` (an `items` value): `{"Schema":...,"JSONSchemas":[...]}`.
pub fn schema_or_array(v: &Value) -> String {
    let mut out = String::new();
    write_schema_or_array(v, &mut out);
    out
}

fn write_schema_or_array(v: &Value, out: &mut String) {
    match v {
        Value::Array(items) => {
            out.push_str("{\"Schema\":null,\"JSONSchemas\":");
            write_list(items, out, write_schema);
            out.push('}');
        }
        other => {
            out.push_str("{\"Schema\":");
            write_schema(other, out);
            out.push_str(",\"JSONSchemas\":null}");
        }
    }
}

fn write_list(items: &[Value], out: &mut String, each: fn(&Value, &mut String)) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        each(item, out);
    }
    out.push(']');
}

fn write_map(map: &serde_json::Map<String, Value>, out: &mut String, each: fn(&Value, &mut String)) {
    out.push('{');
    // serde_json's map is sorted by key, as Go sorts map keys.
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&go_json(&Value::String(k.clone())));
        out.push(':');
        each(v, out);
    }
    out.push('}');
}

/// A JSON value as the internal type holds it: decoded by Go into `interface{}` (numbers as
/// `float64`) and marshalled again.
fn write_any(v: &Value, out: &mut String) {
    out.push_str(&go_json(&as_float64(v)));
}

fn as_float64(v: &Value) -> Value {
    match v {
        Value::Number(n) => n.as_f64().and_then(serde_json::Number::from_f64).map_or(Value::Null, Value::Number),
        Value::Array(items) => Value::Array(items.iter().map(as_float64).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), as_float64(v))).collect()),
        other => other.clone(),
    }
}

/// The declared fields of the internal `JSONSchemaProps`, in order, with the v1 key each is
/// read from and how it prints.
const FIELDS: &[(&str, &str, Kind)] = &[
    ("ID", "id", Kind::Str),
    ("Schema", "$schema", Kind::Str),
    ("Ref", "$ref", Kind::OptStr),
    ("Description", "description", Kind::Str),
    ("Type", "type", Kind::Str),
    ("Nullable", "nullable", Kind::Bool),
    ("Format", "format", Kind::Str),
    ("Title", "title", Kind::Str),
    ("Default", "default", Kind::Any),
    ("Maximum", "maximum", Kind::Any),
    ("ExclusiveMaximum", "exclusiveMaximum", Kind::Bool),
    ("Minimum", "minimum", Kind::Any),
    ("ExclusiveMinimum", "exclusiveMinimum", Kind::Bool),
    ("MaxLength", "maxLength", Kind::Int),
    ("MinLength", "minLength", Kind::Int),
    ("Pattern", "pattern", Kind::Str),
    ("MaxItems", "maxItems", Kind::Int),
    ("MinItems", "minItems", Kind::Int),
    ("UniqueItems", "uniqueItems", Kind::Bool),
    ("MultipleOf", "multipleOf", Kind::Any),
    ("Enum", "enum", Kind::AnyList),
    ("MaxProperties", "maxProperties", Kind::Int),
    ("MinProperties", "minProperties", Kind::Int),
    ("Required", "required", Kind::AnyList),
    ("Items", "items", Kind::SchemaOrArray),
    ("AllOf", "allOf", Kind::SchemaList),
    ("OneOf", "oneOf", Kind::SchemaList),
    ("AnyOf", "anyOf", Kind::SchemaList),
    ("Not", "not", Kind::Schema),
    ("Properties", "properties", Kind::SchemaMap),
    ("AdditionalProperties", "additionalProperties", Kind::SchemaOrBool),
    ("PatternProperties", "patternProperties", Kind::SchemaMap),
    ("Dependencies", "dependencies", Kind::Dependencies),
    ("AdditionalItems", "additionalItems", Kind::SchemaOrBool),
    ("Definitions", "definitions", Kind::SchemaMap),
    ("ExternalDocs", "externalDocs", Kind::Docs),
    ("Example", "example", Kind::Any),
    ("XPreserveUnknownFields", "x-kubernetes-preserve-unknown-fields", Kind::OptBool),
    ("XEmbeddedResource", "x-kubernetes-embedded-resource", Kind::Bool),
    ("XIntOrString", "x-kubernetes-int-or-string", Kind::Bool),
    ("XListMapKeys", "x-kubernetes-list-map-keys", Kind::AnyList),
    ("XListType", "x-kubernetes-list-type", Kind::OptStr),
    ("XMapType", "x-kubernetes-map-type", Kind::OptStr),
    ("XValidations", "x-kubernetes-validations", Kind::Rules),
];

/// The v1 keys of the internal struct's fields, in its order.
pub const FIELD_KEYS: [&str; 44] = {
    let mut keys = [""; 44];
    let mut i = 0;
    while i < FIELDS.len() {
        keys[i] = FIELDS[i].1;
        i += 1;
    }
    keys
};

/// Whether the v1 value of `key` converts to the internal field's zero value: absent, or
/// `false` and `""` where the field is a plain bool or string (a pointer to `false`, an
/// empty list or map is not zero).
pub fn is_zero(key: &str, v: &Value) -> bool {
    let plain =
        FIELDS.iter().find(|(_, k, _)| *k == key).is_some_and(|(_, _, kind)| matches!(kind, Kind::Str | Kind::Bool));
    v.is_null() || (plain && (matches!(v, Value::Bool(false)) || v.as_str().is_some_and(str::is_empty)))
}

#[derive(Clone, Copy)]
enum Kind {
    Str,
    OptStr,
    Bool,
    OptBool,
    Int,
    Any,
    AnyList,
    Schema,
    SchemaList,
    SchemaMap,
    SchemaOrArray,
    SchemaOrBool,
    Dependencies,
    Docs,
    Rules,
}

fn write_schema(v: &Value, out: &mut String) {
    out.push('{');
    for (i, (name, key, kind)) in FIELDS.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        out.push_str(name);
        out.push_str("\":");
        write_field(v.get(*key).filter(|x| !x.is_null()), *kind, out);
    }
    out.push('}');
}

fn write_field(v: Option<&Value>, kind: Kind, out: &mut String) {
    let text = |v: Option<&Value>| go_json(&Value::String(v.and_then(Value::as_str).unwrap_or_default().to_owned()));
    match (kind, v) {
        (Kind::Str, v) => out.push_str(&text(v)),
        (Kind::Bool, v) => out.push_str(if v.and_then(Value::as_bool).unwrap_or(false) { "true" } else { "false" }),
        (_, None) => out.push_str("null"),
        (Kind::OptStr, v) => out.push_str(&text(v)),
        (Kind::OptBool, Some(v)) => out.push_str(if v.as_bool().unwrap_or(false) { "true" } else { "false" }),
        (Kind::Int, Some(v)) => out.push_str(&v.as_i64().map_or("null".to_owned(), |i| i.to_string())),
        (Kind::Any, Some(v)) => write_any(v, out),
        (Kind::AnyList, Some(Value::Array(items))) => write_list(items, out, write_any),
        (Kind::Schema, Some(v)) => write_schema(v, out),
        (Kind::SchemaList, Some(Value::Array(items))) => write_list(items, out, write_schema),
        (Kind::SchemaMap, Some(Value::Object(map))) => write_map(map, out, write_schema),
        (Kind::SchemaOrArray, Some(v)) => write_schema_or_array(v, out),
        (Kind::SchemaOrBool, Some(Value::Bool(b))) => out.push_str(&format!("{{\"Allows\":{b},\"Schema\":null}}")),
        (Kind::SchemaOrBool, Some(v)) => {
            out.push_str("{\"Allows\":true,\"Schema\":");
            write_schema(v, out);
            out.push('}');
        }
        (Kind::Dependencies, Some(Value::Object(map))) => write_map(map, out, |d, out| match d {
            Value::Array(names) => {
                out.push_str("{\"Schema\":null,\"Property\":");
                write_list(names, out, write_any);
                out.push('}');
            }
            schema => {
                out.push_str("{\"Schema\":");
                write_schema(schema, out);
                out.push_str(",\"Property\":null}");
            }
        }),
        (Kind::Docs, Some(d)) => {
            let s = |k: &str| go_json(&Value::String(d.get(k).and_then(Value::as_str).unwrap_or_default().to_owned()));
            out.push_str(&format!("{{\"Description\":{},\"URL\":{}}}", s("description"), s("url")));
        }
        (Kind::Rules, Some(Value::Array(rules))) => write_list(rules, out, |r, out| {
            let text = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_owned);
            out.push_str(&rule(&ValidationRule {
                rule: text("rule").unwrap_or_default(),
                message: text("message"),
                message_expression: text("messageExpression"),
                reason: text("reason"),
                field_path: text("fieldPath"),
                optional_old_self: r.get("optionalOldSelf").and_then(Value::as_bool),
            }));
        }),
        // A value of the wrong JSON type does not get here: the CRD would not decode.
        (_, Some(_)) => out.push_str("null"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Recorded from kube-apiserver 1.36.3 (`items` given as a list under a list-map).
    #[test]
    fn a_schema_prints_as_the_internal_struct() {
        let item = json!({"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}});
        let want = r#"{"Schema":null,"JSONSchemas":[{"ID":"","Schema":"","Ref":null,"Description":"","Type":"object","Nullable":false,"Format":"","Title":"","Default":null,"Maximum":null,"ExclusiveMaximum":false,"Minimum":null,"ExclusiveMinimum":false,"MaxLength":null,"MinLength":null,"Pattern":"","MaxItems":null,"MinItems":null,"UniqueItems":false,"MultipleOf":null,"Enum":null,"MaxProperties":null,"MinProperties":null,"Required":["name"],"Items":null,"AllOf":null,"OneOf":null,"AnyOf":null,"Not":null,"Properties":{"name":{"ID":"","Schema":"","Ref":null,"Description":"","Type":"string","Nullable":false,"Format":"","Title":"","Default":null,"Maximum":null,"ExclusiveMaximum":false,"Minimum":null,"ExclusiveMinimum":false,"MaxLength":null,"MinLength":null,"Pattern":"","MaxItems":null,"MinItems":null,"UniqueItems":false,"MultipleOf":null,"Enum":null,"MaxProperties":null,"MinProperties":null,"Required":null,"Items":null,"AllOf":null,"OneOf":null,"AnyOf":null,"Not":null,"Properties":null,"AdditionalProperties":null,"PatternProperties":null,"Dependencies":null,"AdditionalItems":null,"Definitions":null,"ExternalDocs":null,"Example":null,"XPreserveUnknownFields":null,"XEmbeddedResource":false,"XIntOrString":false,"XListMapKeys":null,"XListType":null,"XMapType":null,"XValidations":null}},"AdditionalProperties":null,"PatternProperties":null,"Dependencies":null,"AdditionalItems":null,"Definitions":null,"ExternalDocs":null,"Example":null,"XPreserveUnknownFields":null,"XEmbeddedResource":false,"XIntOrString":false,"XListMapKeys":null,"XListType":null,"XMapType":null,"XValidations":null}]}"#;
        assert_eq!(schema_or_array(&json!([item])), want);
    }
}
