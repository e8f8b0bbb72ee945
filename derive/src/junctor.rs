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

use kubeskema_attributes::Keyword;
use kubeskema_attributes::parse::Attrs;

/// The junctor keywords, and their JSON names.
const JUNCTORS: [(Keyword, &str); 4] =
    [(Keyword::AllOf, "allOf"), (Keyword::AnyOf, "anyOf"), (Keyword::OneOf, "oneOf"), (Keyword::Not, "not")];

/// The checks of a node that read its value as JSON: its junctors and `schema_json` (the
/// `metadata` schema an `ObjectMeta` cannot carry) as one schema node, parsed once into a
/// `static` and checked by the runtime's schema walk (`kubeskema::openapi`), which orders
/// them as kube-openapi does (junctors, then the object's properties). `v` is an expression
/// of a serializable type, `p` an `At` expression; the value is serialized once, and not at
/// all when the node has neither.
pub fn checks(attrs: &Attrs, v: &TokenStream, p: &TokenStream) -> TokenStream {
    let mut node = match attrs.str(Keyword::SchemaJson).and_then(|lit| serde_json::from_str(&lit.value()).ok()) {
        Some(Value::Object(schema)) => schema,
        _ => Map::new(),
    };
    for (name, json_name) in JUNCTORS {
        let Some(lit) = attrs.str(name) else { continue };
        let Ok(json) = serde_json::from_str::<Value>(&lit.value()) else { continue };
        // An IntOrString is always an integer or a string: its idiom can never fail.
        if attrs.flag(Keyword::IntOrString) && name == Keyword::AnyOf && is_int_or_string_idiom(&json) {
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
