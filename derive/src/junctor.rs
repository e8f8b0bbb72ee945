//! `all_of`/`any_of`/`one_of`/`not`: each branch (a schema of value validations only, JSON
//! in the attribute) is checked here when the derive expands, and at run time by the
//! runtime's schema walk over the value serialized to JSON, which adds the apiserver's
//! summaries. Nothing is walked by emitted code.
//!
//! Branches may not declare types (structural schemas forbid it), so they run on the JSON
//! form rather than the Rust type: a struct with a `oneOf` of `required` lists, say, is
//! serialized once and each branch reads the keys it names.

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Map, Value};

use crate::attr::Attrs;

/// The junctor keywords as attributes, and their JSON names.
const JUNCTORS: [(&str, &str); 4] = [("all_of", "allOf"), ("any_of", "anyOf"), ("one_of", "oneOf"), ("not", "not")];

/// What a branch may say: value validations, nested places, further junctors. The apiserver
/// refuses anything else inside a junctor (types only in the int-or-string idioms).
const BRANCH_KEYS: &[&str] = &[
    "type",
    "format",
    "enum",
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "multipleOf",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxProperties",
    "minProperties",
    "required",
    "properties",
    "items",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "externalDocs",
    "example",
];

/// Checks a junctor attribute's JSON: `not` holds one branch, the others a list of branches.
pub fn check(name: &str, json: &Value) -> Result<(), String> {
    match (name, json) {
        ("not", Value::Object(branch)) => check_branch(branch, "not"),
        ("not", _) => Err("`not` must be one schema (a JSON object)".into()),
        (_, Value::Array(list)) => list.iter().enumerate().try_for_each(|(i, b)| match b {
            Value::Object(branch) => check_branch(branch, &format!("{name}[{i}]")),
            _ => Err(format!("`{name}[{i}]` must be a schema (a JSON object)")),
        }),
        _ => Err(format!("`{name}` must be a list of schemas (a JSON array)")),
    }
}

fn check_branch(branch: &Map<String, Value>, at: &str) -> Result<(), String> {
    for (k, v) in branch {
        if !BRANCH_KEYS.contains(&k.as_str()) {
            return Err(format!("`{at}` may not use `{k}`: junctors hold value validations only (structural schemas)"));
        }
        let nested = |v: &Value, at: &str| match v {
            Value::Object(b) => check_branch(b, at),
            _ => Err(format!("`{at}` must be a schema (a JSON object)")),
        };
        match k.as_str() {
            "properties" => {
                let Value::Object(props) = v else { return Err(format!("`{at}.properties` must be an object")) };
                props.iter().try_for_each(|(p, s)| nested(s, &format!("{at}.properties.{p}")))?;
            }
            "items" => nested(v, &format!("{at}.items"))?,
            "not" => nested(v, &format!("{at}.not"))?,
            "allOf" | "anyOf" | "oneOf" => {
                let Value::Array(list) = v else { return Err(format!("`{at}.{k}` must be a list of schemas")) };
                list.iter().enumerate().try_for_each(|(i, b)| nested(b, &format!("{at}.{k}[{i}]")))?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// The checks of a node that read its value as JSON: its junctors and `schema_json` (the
/// `metadata` schema an `ObjectMeta` cannot carry) as one schema node, parsed once into a
/// `static` and checked by the runtime's schema walk (`kubeskema::openapi`), which orders
/// them as kube-openapi does (junctors, then the object's properties). `v` is an expression
/// of a serializable type, `p` an `At` expression; the value is serialized once, and not at
/// all when the node has neither.
pub fn checks(attrs: &Attrs, v: &TokenStream, p: &TokenStream) -> TokenStream {
    let mut node = match attrs.str("schema_json").and_then(|lit| serde_json::from_str(&lit.value()).ok()) {
        Some(Value::Object(schema)) => schema,
        _ => Map::new(),
    };
    for (name, json_name) in JUNCTORS {
        let Some(lit) = attrs.str(name) else { continue };
        let Ok(json) = serde_json::from_str::<Value>(&lit.value()) else { continue };
        // An IntOrString is always an integer or a string: its idiom can never fail.
        if attrs.flag("int_or_string") && name == "any_of" && is_int_or_string_idiom(&json) {
            continue;
        }
        node.insert(json_name.to_owned(), json);
    }
    if node.is_empty() {
        return TokenStream::new();
    }
    let json = Value::Object(node).to_string();
    quote! {{
        static __SCHEMA: ::kubeskema::openapi::StaticSchema = ::kubeskema::openapi::StaticSchema::new(#json);
        __SCHEMA.check(&::kubeskema::__private::to_json(#v), &::kubeskema::path::Place::to_path(&#p), &mut __issues.values);
    }}
}

fn is_int_or_string_idiom(json: &Value) -> bool {
    *json == serde_json::json!([{"type": "integer"}, {"type": "string"}])
}
