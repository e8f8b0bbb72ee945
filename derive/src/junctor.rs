//! `all_of`/`any_of`/`one_of`/`not`: each branch (a schema of value validations only, JSON
//! in the attribute) becomes straight-line checks over the value serialized to JSON, in
//! kube-openapi's per-node order; `kubeskema::junctor` then adds the apiserver's summaries.
//!
//! Branches may not declare types (structural schemas forbid it), so they run on the JSON
//! form rather than the Rust type: a struct with a `oneOf` of `required` lists, say, is
//! serialized once and each branch reads the keys it names.

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Map, Value};

use crate::attr::Attrs;

/// The junctor keywords as attributes, their JSON names, and the runtime summary each calls.
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

/// The checks of a node that read its value as JSON: `schema_json` (root `metadata`
/// restrictions on `name`/`generateName`, in the node order of junctor branches), then the
/// junctors. `v` is an expression of a serializable type, `p` a `Path` expression; the value
/// is serialized once, and not at all when the node has neither.
pub fn checks(attrs: &Attrs, v: &TokenStream, p: &TokenStream) -> TokenStream {
    let schema = match attrs.str("schema_json").and_then(|lit| serde_json::from_str(&lit.value()).ok()) {
        Some(Value::Object(schema)) => node(schema),
        _ => TokenStream::new(),
    };
    let mut junctors = Vec::new();
    for (name, _) in JUNCTORS {
        let Some(lit) = attrs.str(name) else { continue };
        let Ok(json) = serde_json::from_str::<Value>(&lit.value()) else { continue };
        // An IntOrString is always an integer or a string: its idiom can never fail.
        if attrs.flag("int_or_string") && name == "any_of" && is_int_or_string_idiom(&json) {
            continue;
        }
        junctors.push(junctor(name, &json));
    }
    if schema.is_empty() && junctors.is_empty() {
        return TokenStream::new();
    }
    quote! {{
        let __jv = &::kubeskema::__private::to_json(#v);
        let __jp: &::kubeskema::path::Path = &#p;
        #schema
        #(#junctors)*
    }}
}

fn is_int_or_string_idiom(json: &Value) -> bool {
    *json == serde_json::json!([{"type": "integer"}, {"type": "string"}])
}

/// One junctor over `__jv` at `__jp`: each branch's issues collected apart, then the summary.
fn junctor(name: &str, json: &Value) -> TokenStream {
    let summary = syn::Ident::new(name, proc_macro2::Span::call_site());
    let branches: Vec<TokenStream> = match json {
        Value::Array(list) => list.iter().map(branch_issues).collect(),
        other => vec![branch_issues(other)],
    };
    let collected = if name == "not" { quote!(#(#branches)*) } else { quote!(::std::vec![#(#branches),*]) };
    // anyOf/oneOf pick the branch to show by kube-openapi's MatchCount, counted over the
    // branches' JSON only when none passes.
    let counts = matches!(name, "any_of" | "one_of").then(|| {
        let text = json.to_string();
        quote!(|| ::kubeskema::junctor::match_counts_json(#text, __jv),)
    });
    quote!(::kubeskema::junctor::#summary(__jp, #collected, #counts __issues);)
}

/// A block evaluating to the issues of one branch.
fn branch_issues(branch: &Value) -> TokenStream {
    let body = node(branch.as_object().cloned().unwrap_or_default());
    quote!({
        let mut __branch = ::std::vec::Vec::new();
        {
            let __issues = &mut __branch;
            #body
        }
        __branch
    })
}

/// The checks of one branch node over `__jv: &Value` at `__jp: &Path`, in kube-openapi's
/// order (semantics §7.2): type, junctors, string, format, number, array, enum, object.
fn node(s: Map<String, Value>) -> TokenStream {
    let kw = quote!(::kubeskema::keywords);
    let count = |k: &str| s.get(k).and_then(Value::as_u64);
    let number = |k: &str| s.get(k).and_then(Value::as_f64);
    let flag = |k: &str| s.get(k).and_then(Value::as_bool).unwrap_or(false);

    let types: Vec<&str> = s.get("type").and_then(Value::as_str).into_iter().collect();
    let format = s.get("format").and_then(Value::as_str);
    let format_arg = match format {
        Some(f) => quote!(::core::option::Option::Some(#f)),
        None => quote!(::core::option::Option::None),
    };
    let type_check = (!types.is_empty() || format.is_some())
        .then(|| quote!(__issues.extend(#kw::type_check(__jp, __jv, &[#(#types),*], #format_arg, false));));

    let nested_junctors = JUNCTORS.iter().filter_map(|(name, json_name)| Some(junctor(name, s.get(*json_name)?)));

    let pattern = s.get("pattern").and_then(Value::as_str);
    let first_string =
        crate::validate::first_string_failure(count("maxLength"), count("minLength"), pattern, &quote!(__jp))
            .map(|first| quote!(__issues.extend(#first);));
    let string_format = format.map(|f| quote!(__issues.extend(::kubeskema::__private::check_format(__jp, __s, #f));));

    let items = s.get("items").and_then(Value::as_object).map(|i| {
        let inner = node(i.clone());
        quote!(for (__i, __jv) in __a.iter().enumerate() { let __jp = &__jp.index(__i); #inner })
    });
    let min_items = count("minItems").map(|n| quote!(__issues.extend(#kw::min_items(__jp, __a.len(), #n));));
    let max_items = count("maxItems").map(|n| quote!(__issues.extend(#kw::max_items(__jp, __a.len(), #n));));

    let enumeration =
        s.get("enum").map(|allowed| crate::validate::enum_check(&allowed.to_string(), &quote!(__jp), &quote!(__jv)));

    let min_props = count("minProperties").map(|n| quote!(__issues.extend(#kw::min_properties(__jp, __o.len(), #n));));
    let max_props = count("maxProperties").map(|n| quote!(__issues.extend(#kw::max_properties(__jp, __o.len(), #n));));
    let properties = s.get("properties").and_then(Value::as_object).into_iter().flatten().map(|(k, child)| {
        let inner = node(child.as_object().cloned().unwrap_or_default());
        quote!(if let ::core::option::Option::Some(__jv) = __o.get(#k) { let __jp = &__jp.property(#k); #inner })
    });
    let required = s
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|k| quote!(if !__o.contains_key(#k) { __issues.push(#kw::required(__jp, #k)); }));

    let string = (first_string.is_some() || string_format.is_some())
        .then(|| quote!(if let ::core::option::Option::Some(__s) = __jv.as_str() { #first_string #string_format }));
    // Branches have no type: bounds compare as kube-openapi compares them for untyped nodes.
    let numbers = crate::validate::Numbers {
        multiple_of: number("multipleOf"),
        maximum: number("maximum"),
        exclusive_maximum: flag("exclusiveMaximum"),
        minimum: number("minimum"),
        exclusive_minimum: flag("exclusiveMinimum"),
        format: String::new(),
    };
    let numeric = numbers.rules(quote!(::core::option::Option::None)).map(|rules| {
        quote!(if let ::kubeskema::serde_json::Value::Number(__n) = __jv {
            static __RULES: #kw::NumberRules = #rules;
            #kw::number_checks(__jp, #kw::Num::of(__n), &__RULES, __issues);
        })
    });
    let array = (items.is_some() || min_items.is_some() || max_items.is_some())
        .then(|| quote!(if let ::core::option::Option::Some(__a) = __jv.as_array() { #items #min_items #max_items }));
    let object = quote!(if let ::core::option::Option::Some(__o) = __jv.as_object() {
        #min_props #max_props #(#properties)* #(#required)*
    });
    quote! {
        #type_check
        if !__jv.is_null() {
            #(#nested_junctors)*
            #string
            #numeric
            #array
        }
        #enumeration
        #object
    }
}
