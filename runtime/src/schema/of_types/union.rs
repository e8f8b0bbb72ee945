//! The schema of a data-carrying enum, in each of serde's four representations.
//!
//! A structural schema has one type per node and no `oneOf` of types, so a Rust enum whose
//! variants carry data is written as one node that holds every variant:
//!
//! - **externally tagged** (serde's default, `{"Git": {...}}`): an object with one property per
//!   variant and `oneOf` of their `required`, so exactly one is given. Unit variants are written
//!   as bare strings, so an enum that mixes them with data variants takes any value
//!   (`x-kubernetes-preserve-unknown-fields`; its data variants' properties still checked when
//!   the value is an object), and a note says so.
//! - **internally tagged** (`#[serde(tag = "type")]`): one object, the variants' properties
//!   merged, the tag a required string enum; `oneOf` branches select each variant's `required`
//!   fields by its tag value, and a CEL rule per variant refuses the fields of other variants
//!   (what `oneOf` cannot say without repeating every property).
//! - **adjacently tagged** (`tag` and `content`): the tag as above, the payloads merged under
//!   the content key; the same `oneOf` and rules one level down.
//! - **untagged**: the payloads merged; unit variants make it nullable; `anyOf` of the object
//!   variants' `required`.
//!
//! Payloads merge property by property ([`merge`]): equal schemas stay, a string and an integer
//! become an int-or-string (and, where a tag tells the variant, a rule per variant checks the
//! type), anything else takes any value; each widening is a note the CRD check helper prints.

use serde_json::{Map, Value, json};

use super::{Property, SchemaGenerator};
use crate::schema::cel_name::escape;

/// How a data-carrying enum's variants appear in JSON: serde's four representations.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum Tagging {
    /// `{"Variant": payload}`, a unit variant as `"Variant"`.
    External,
    /// `{"<tag>": "Variant", ...payload's fields}`.
    Internal { tag: &'static str },
    /// `{"<tag>": "Variant", "<content>": payload}`.
    Adjacent { tag: &'static str, content: &'static str },
    /// The payload alone (a unit variant as `null`).
    Untagged,
}

/// One variant, as the derive writes it into a static table.
#[doc(hidden)]
pub struct VariantRow {
    /// Its JSON name (the tag value, or the external key).
    pub name: &'static str,
    /// Its doc comment.
    pub doc: Option<&'static str>,
    /// What it carries.
    pub payload: Payload,
}

/// What a variant carries.
#[doc(hidden)]
pub enum Payload {
    /// Nothing.
    Unit,
    /// One value of a type with a schema (`Variant(T)`).
    Newtype(fn(&mut SchemaGenerator) -> Map<String, Value>),
    /// Named fields (`Variant { a: T, ... }`), written like a struct's.
    Struct(&'static [Property]),
}

type Schema = Map<String, Value>;

impl SchemaGenerator {
    /// The schema of a derived data-carrying enum (see the module docs). `node` is the JSON the
    /// derive wrote from the enum's own attributes, laid over the built node.
    #[doc(hidden)]
    #[allow(
        clippy::too_many_arguments,
        reason = "derived code calls it with the enum's rows; a struct would be one more thing the derive writes"
    )]
    pub fn union(
        &mut self,
        id: std::any::TypeId,
        name: &str,
        node: &str,
        doc: Option<&str>,
        writes_null: bool,
        tagging: Tagging,
        variants: &[VariantRow],
    ) -> Schema {
        self.named(id, name, None, |g| {
            let mut built = match tagging {
                Tagging::External => g.external(name, writes_null, variants),
                Tagging::Internal { tag } => g.internal(name, writes_null, tag, variants),
                Tagging::Adjacent { tag, content } => g.adjacent(name, writes_null, tag, content, variants),
                Tagging::Untagged => g.untagged(name, writes_null, variants),
            };
            super::overlay(&mut built, g.node(node, doc));
            built
        })
    }

    /// Each variant's payload schema (`None` for a unit variant), built at `.at` when given.
    fn payloads(&mut self, writes_null: bool, variants: &[VariantRow], at: Option<&str>) -> Vec<Option<Schema>> {
        variants
            .iter()
            .map(|v| {
                let at = at.map_or_else(|| format!(".{}", v.name), |at| format!(".{at}"));
                self.path.push(at);
                let schema = match &v.payload {
                    Payload::Unit => None,
                    Payload::Newtype(of) => Some(of(self)),
                    Payload::Struct(properties) => {
                        let mut node = Schema::new();
                        node.insert("type".into(), "object".into());
                        self.properties_into(&mut node, properties, writes_null);
                        Some(node)
                    }
                };
                self.path.pop();
                schema
            })
            .collect()
    }

    fn external(&mut self, enum_name: &str, writes_null: bool, variants: &[VariantRow]) -> Schema {
        let payloads = self.payloads(writes_null, variants, None);
        let mut properties = Schema::new();
        for (v, payload) in variants.iter().zip(&payloads) {
            if let Some(mut payload) = payload.clone() {
                if let Some(d) = v.doc.and_then(|d| self.description(d)) {
                    payload.insert("description".into(), d.into());
                }
                properties.insert(v.name.to_owned(), Value::Object(payload));
            }
        }
        let units: Vec<&str> =
            variants.iter().zip(&payloads).filter(|(_, p)| p.is_none()).map(|(v, _)| v.name).collect();
        let mut node = Schema::new();
        if units.is_empty() {
            node.insert("type".into(), "object".into());
            let names: Vec<&str> = variants.iter().map(|v| v.name).collect();
            match names[..] {
                [one] => {
                    node.insert("required".into(), json!([one]));
                }
                _ => {
                    let one_of: Vec<Value> = names.iter().map(|n| json!({"required": [n]})).collect();
                    node.insert("oneOf".into(), Value::Array(one_of));
                }
            }
        } else {
            node.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
            self.note(format!(
                "`{enum_name}` is written as a string ({}) or an object (externally tagged): a structural schema has one type per node, so it takes any value; its objects' properties are still checked (use `#[serde(tag = \"...\")]` for a schema that checks every variant)",
                units.iter().map(|u| format!("{u:?}")).collect::<Vec<_>>().join(", ")
            ));
        }
        if !properties.is_empty() {
            node.insert("properties".into(), Value::Object(properties));
        }
        node
    }

    fn internal(&mut self, enum_name: &str, writes_null: bool, tag: &str, variants: &[VariantRow]) -> Schema {
        let payloads = self.payloads(writes_null, variants, Some(""));
        let payloads = self.objects_only(enum_name, variants, payloads);
        let (mut node, widened) = self.merge_objects(&payloads);
        node.insert("type".into(), "object".into());
        let properties = node.entry("properties").or_insert_with(|| Value::Object(Schema::new()));
        if let Value::Object(properties) = properties {
            properties.insert(tag.to_owned(), tag_schema(variants));
        }
        let mut required: Vec<Value> = vec![tag.into()];
        if let Some(Value::Array(common)) = node.remove("required") {
            required.extend(common);
        }
        node.insert("required".into(), Value::Array(required));
        let selector = |name: &str, extra: Option<Value>| {
            let mut branch = json!({"properties": {tag: {"enum": [name]}}});
            if let Some(extra) = extra {
                branch["required"] = extra;
            }
            branch
        };
        tagged_rules(&mut node, variants, &payloads, &widened, tag, ("", ""), selector);
        node
    }

    fn adjacent(
        &mut self,
        enum_name: &str,
        writes_null: bool,
        tag: &str,
        content: &str,
        variants: &[VariantRow],
    ) -> Schema {
        let payloads = self.payloads(writes_null, variants, Some(content));
        let present: Vec<Schema> = payloads.iter().flatten().cloned().collect();
        let mut node = Schema::new();
        node.insert("type".into(), "object".into());
        let mut properties = Schema::new();
        properties.insert(tag.to_owned(), tag_schema(variants));
        let all_objects = present.iter().all(is_object);
        let widened = if present.is_empty() {
            Vec::new()
        } else if all_objects {
            let (mut merged, widened) = self.merge_objects(&payloads);
            merged.insert("type".into(), "object".into());
            // Which fields a variant requires is said by the tag, one level up.
            merged.remove("required");
            properties.insert(content.to_owned(), Value::Object(merged));
            widened
        } else {
            self.path.push(format!(".{content}"));
            let merged = self.merge(enum_name, &present);
            self.path.pop();
            properties.insert(content.to_owned(), Value::Object(merged));
            Vec::new()
        };
        node.insert("properties".into(), Value::Object(properties));
        node.insert("required".into(), json!([tag]));
        let prefix = format!("{}.", escape(content).unwrap_or_default());
        // `has(self.spec.x)` errs where `spec` is absent: each rule first asks for it.
        let guard = format!("!has(self.{}) || ", escape(content).unwrap_or_default());
        let selector = |name: &str, extra: Option<Value>| {
            let mut branch = json!({"properties": {tag: {"enum": [name]}}});
            let data = variants.iter().zip(&payloads).any(|(v, p)| v.name == name && p.is_some());
            if data {
                branch["required"] = json!([content]);
            }
            if let Some(extra) = extra {
                branch["properties"][content] = json!({"required": extra});
            }
            branch
        };
        if all_objects && escape(content).is_some() {
            tagged_rules(&mut node, variants, &payloads, &widened, tag, (&prefix, &guard), selector);
        } else {
            let one_of: Vec<Value> = variants.iter().map(|v| selector(v.name, None)).collect();
            node.insert("oneOf".into(), Value::Array(one_of));
        }
        // A unit variant has no content (serde writes none).
        if let (Some(t), Some(c)) = (escape(tag), escape(content)) {
            for (v, _) in variants.iter().zip(&payloads).filter(|(_, p)| p.is_none()) {
                push_rule(
                    &mut node,
                    format!("self.{t} != {} || !has(self.{c})", cel_string(v.name)),
                    format!("{content:?} must not be set when {tag} is {:?}", v.name),
                );
            }
        }
        node
    }

    fn untagged(&mut self, enum_name: &str, writes_null: bool, variants: &[VariantRow]) -> Schema {
        let payloads = self.payloads(writes_null, variants, Some(""));
        let present: Vec<Schema> = payloads.iter().flatten().cloned().collect();
        let mut node = if present.is_empty() {
            let mut only_null = Schema::new();
            only_null.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
            self.note(format!("`{enum_name}` has only unit variants, untagged: each is written as null"));
            only_null
        } else if present.iter().all(is_object) {
            let (mut merged, _) = self.merge_objects(&payloads);
            merged.insert("type".into(), "object".into());
            // A value must be readable as one of the variants: have one's required fields.
            let sets: Vec<Value> =
                present.iter().map(|p| p.get("required").cloned().unwrap_or_else(|| json!([]))).collect();
            merged.remove("required");
            if sets.iter().all(|s| s.as_array().is_some_and(|a| !a.is_empty())) {
                let common = intersection(&sets);
                if !common.is_empty() {
                    merged.insert("required".into(), Value::Array(common.clone()));
                }
                let any_of: Vec<Value> = sets
                    .iter()
                    .map(|s| {
                        let rest: Vec<Value> =
                            s.as_array().into_iter().flatten().filter(|k| !common.contains(k)).cloned().collect();
                        json!({"required": rest})
                    })
                    .collect();
                if any_of.iter().all(|b| b["required"].as_array().is_some_and(|a| !a.is_empty())) && any_of.len() > 1 {
                    merged.insert("anyOf".into(), dedup(any_of));
                }
            }
            one_variants_fields(&mut merged, &present);
            merged
        } else {
            self.merge(enum_name, &present)
        };
        if payloads.iter().any(Option::is_none) {
            node.insert("nullable".into(), true.into());
        }
        node
    }

    /// The payloads of an internally tagged enum: objects (serde writes the tag among their
    /// fields); a variant holding anything else cannot be written so, and is left out with a note.
    fn objects_only(
        &mut self,
        enum_name: &str,
        variants: &[VariantRow],
        payloads: Vec<Option<Schema>>,
    ) -> Vec<Option<Schema>> {
        payloads
            .into_iter()
            .zip(variants)
            .map(|(p, v)| match p {
                Some(p) if !is_object(&p) => {
                    self.note(format!(
                        "variant `{}` of `{enum_name}` holds a value that is not an object: serde cannot write it internally tagged, so the schema leaves it out",
                        v.name
                    ));
                    None
                }
                p => p,
            })
            .collect()
    }

    /// Objects merged property by property: each property's schemas merged ([`merge`]), the
    /// fields every object requires required. Also returns the properties widened, each with
    /// its schema per payload (for the rules a tag can select).
    fn merge_objects(&mut self, payloads: &[Option<Schema>]) -> (Schema, Vec<Widened>) {
        let objects: Vec<&Schema> = payloads.iter().flatten().collect();
        let mut by_name: Vec<(String, Vec<Schema>)> = Vec::new();
        for o in &objects {
            for (k, v) in o.get("properties").and_then(Value::as_object).into_iter().flatten() {
                let Value::Object(v) = v else { continue };
                match by_name.iter_mut().find(|(n, _)| n == k) {
                    Some((_, list)) => list.push(v.clone()),
                    None => by_name.push((k.clone(), vec![v.clone()])),
                }
            }
        }
        let mut properties = Schema::new();
        let mut widened = Vec::new();
        for (name, schemas) in by_name {
            self.path.push(format!(".{name}"));
            let merged = self.merge(&name, &schemas);
            self.path.pop();
            if merged.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
                && schemas.iter().any(|s| s.get("x-kubernetes-int-or-string").is_none())
            {
                widened.push(Widened { name: name.clone() });
            }
            properties.insert(name, Value::Object(merged));
        }
        let mut node = Schema::new();
        if !properties.is_empty() {
            node.insert("properties".into(), Value::Object(properties));
        }
        // A unit variant requires nothing: a field is required only where every variant has it.
        let sets: Vec<Value> = payloads
            .iter()
            .map(|p| p.as_ref().and_then(|o| o.get("required")).cloned().unwrap_or_else(|| json!([])))
            .collect();
        let common = intersection(&sets);
        if !common.is_empty() {
            node.insert("required".into(), Value::Array(common));
        }
        // What the objects say of themselves beyond properties (their rules, their bounds)
        // holds for the merged node only where every one says it.
        if let Some(first) = objects.first() {
            for (k, v) in first.iter() {
                if matches!(k.as_str(), "properties" | "required" | "type" | "description") {
                    continue;
                }
                if objects.iter().all(|o| o.get(k) == Some(v)) {
                    node.insert(k.clone(), v.clone());
                } else {
                    self.note(format!("`{k}` differs between the variants' objects: left out of the merged schema"));
                }
            }
        }
        (node, widened)
    }

    /// One schema that holds each of `schemas`: the schema itself when they agree (descriptions
    /// aside); objects merged by property; strings and integers an int-or-string; anything else
    /// any value (`x-kubernetes-preserve-unknown-fields`). Each widening is a note.
    fn merge(&mut self, name: &str, schemas: &[Schema]) -> Schema {
        let without_doc = |s: &Schema| {
            let mut s = s.clone();
            s.remove("description");
            s
        };
        let first = without_doc(&schemas[0]);
        if schemas.iter().all(|s| without_doc(s) == first) {
            return schemas[0].clone();
        }
        if schemas.iter().all(is_object) {
            let payloads: Vec<Option<Schema>> = schemas.iter().cloned().map(Some).collect();
            let (mut merged, _) = self.merge_objects(&payloads);
            merged.insert("type".into(), "object".into());
            return merged;
        }
        let kinds: Vec<String> = schemas.iter().map(kind).collect();
        let mut widened = Schema::new();
        if kinds.iter().all(|k| k == "string" || k == "integer" || k == "int-or-string") {
            widened.insert("x-kubernetes-int-or-string".into(), true.into());
            self.note(format!(
                "`{name}` is {} in different variants: widened to x-kubernetes-int-or-string",
                kinds.join(" or ")
            ));
        } else {
            widened.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
            self.note(format!(
                "`{name}` is {} in different variants: a structural schema has one type per node, so it takes any value, unchecked",
                kinds.join(" or ")
            ));
        }
        widened
    }
}

/// A property a merge widened to int-or-string.
struct Widened {
    name: String,
}

/// The `oneOf` that selects each variant's required fields by its tag, and the rules a tag
/// selects: fields of other variants absent, widened properties of the variant's type.
/// `prefix` is the CEL path from the tagged node to the payload's fields (`""` or `"spec."`)
/// and the guard a rule starts with when the payload may be absent;
/// `selector(name, required)` writes the `oneOf` branch of a variant.
fn tagged_rules(
    node: &mut Schema,
    variants: &[VariantRow],
    payloads: &[Option<Schema>],
    widened: &[Widened],
    tag: &str,
    (prefix, guard): (&str, &str),
    selector: impl Fn(&str, Option<Value>) -> Value,
) {
    let common: Vec<Value> = node.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
    let required_of = |p: &Option<Schema>| -> Vec<Value> {
        p.as_ref()
            .and_then(|p| p.get("required"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|k| !common.contains(k))
            .cloned()
            .collect()
    };
    let branches: Vec<Value> = variants
        .iter()
        .zip(payloads)
        .map(|(v, p)| {
            let required = required_of(p);
            selector(v.name, (!required.is_empty()).then_some(Value::Array(required)))
        })
        .collect();
    // Without a required field in any variant, the tag's enum already selects one.
    if branches.iter().any(|b| b.get("required").is_some() || b["properties"].as_object().is_some_and(|p| p.len() > 1))
    {
        node.insert("oneOf".into(), Value::Array(branches));
    }
    let Some(t) = escape(tag) else { return };
    let fields_of = |p: &Option<Schema>| -> Vec<String> {
        p.as_ref()
            .and_then(|p| p.get("properties"))
            .and_then(Value::as_object)
            .map(|props| props.keys().cloned().collect())
            .unwrap_or_default()
    };
    let all: Vec<String> = {
        let mut all: Vec<String> = payloads.iter().flat_map(fields_of).collect();
        all.sort();
        all.dedup();
        all
    };
    for (v, p) in variants.iter().zip(payloads) {
        // A unit variant whose payload sits under a key of its own refuses the whole key.
        if p.is_none() && !prefix.is_empty() {
            continue;
        }
        let own = fields_of(p);
        let tag_is = format!("self.{t} != {}", cel_string(v.name));
        let foreign: Vec<&String> = all.iter().filter(|f| !own.contains(f) && *f != tag).collect();
        let checks: Vec<String> =
            foreign.iter().filter_map(|f| escape(f)).map(|f| format!("!has(self.{prefix}{f})")).collect();
        if !checks.is_empty() {
            let names: Vec<String> = foreign.iter().map(|f| format!("{f:?}")).collect();
            push_rule(
                node,
                format!("{tag_is} || {guard}({})", checks.join(" && ")),
                format!("{} must not be set when {tag} is {:?}", names.join(", "), v.name),
            );
        }
        for w in widened.iter().filter(|w| own.contains(&w.name)) {
            let Some(schema) = p.as_ref().and_then(|p| p.get("properties")).and_then(|ps| ps.get(&w.name)) else {
                continue;
            };
            let Some(f) = escape(&w.name) else { continue };
            let (cel_type, said) = match schema.get("type").and_then(Value::as_str) {
                Some("integer") => ("int", "an integer"),
                Some("string") => ("string", "a string"),
                _ => continue,
            };
            push_rule(
                node,
                format!("{tag_is} || {guard}!has(self.{prefix}{f}) || type(self.{prefix}{f}) == {cel_type}"),
                format!("{:?} must be {said} when {tag} is {:?}", w.name, v.name),
            );
        }
    }
}

/// The tag of a tagged enum: a string naming one of its variants.
fn tag_schema(variants: &[VariantRow]) -> Value {
    let names: Vec<&str> = variants.iter().map(|v| v.name).collect();
    json!({"type": "string", "enum": names})
}

/// An untagged enum's merged object holds the fields of one variant: serde reads the first
/// variant that fits and drops the fields of the others, so a value with fields of two is
/// refused, as the type cannot hold it (no rule where one variant has every field).
fn one_variants_fields(node: &mut Schema, payloads: &[Schema]) {
    let fields_of = |p: &Schema| -> Vec<String> {
        p.get("properties").and_then(Value::as_object).map(|ps| ps.keys().cloned().collect()).unwrap_or_default()
    };
    let mut all: Vec<String> = payloads.iter().flat_map(fields_of).collect();
    all.sort();
    all.dedup();
    let mut disjuncts = Vec::new();
    let mut groups = Vec::new();
    for p in payloads {
        let own = fields_of(p);
        let foreign: Vec<&String> = all.iter().filter(|f| !own.contains(f)).collect();
        if foreign.is_empty() {
            return;
        }
        let Some(checks) =
            foreign.iter().map(|f| escape(f).map(|f| format!("!has(self.{f})"))).collect::<Option<Vec<_>>>()
        else {
            return;
        };
        disjuncts.push(format!("({})", checks.join(" && ")));
        groups.push(own.iter().map(|f| format!("{f:?}")).collect::<Vec<_>>().join(", "));
    }
    groups.dedup();
    push_rule(node, disjuncts.join(" || "), format!("only one variant's fields may be set: {}", groups.join("; or ")));
}

fn push_rule(node: &mut Schema, rule: String, message: String) {
    let rules = node.entry("x-kubernetes-validations").or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(rules) = rules {
        rules.push(json!({"rule": rule, "message": message}));
    }
}

/// A CEL string literal of `s`.
fn cel_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn is_object(s: &Schema) -> bool {
    s.get("type").and_then(Value::as_str) == Some("object")
        && s.get("additionalProperties").is_none()
        && s.get("x-kubernetes-preserve-unknown-fields").is_none()
}

/// A schema's kind, as a note names it.
fn kind(s: &Schema) -> String {
    if s.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return "int-or-string".into();
    }
    match s.get("type").and_then(Value::as_str) {
        Some("object") if s.get("additionalProperties").is_some() => "a map".into(),
        Some(t) => t.into(),
        None => "any value".into(),
    }
}

/// The keys every `required` list of `sets` holds, in the first's order.
fn intersection(sets: &[Value]) -> Vec<Value> {
    let Some(first) = sets.first().and_then(Value::as_array) else { return Vec::new() };
    first.iter().filter(|k| sets.iter().all(|s| s.as_array().is_some_and(|a| a.contains(k)))).cloned().collect()
}

fn dedup(items: Vec<Value>) -> Value {
    let mut out: Vec<Value> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    Value::Array(out)
}
