//! Schemas of Rust types: the direction Rust → CRD. `#[derive(kubeskema::Validate)]` implements
//! [`StructuralSchema`] from a type's shape and its `#[kubeskema(...)]` attributes; the std,
//! kubeskema and k8s-openapi types have theirs here (`builtin`), as controller-gen writes them.
//!
//! A schema is built as JSON (`serde_json::Map`, keys sorted), the form a CRD carries it in.
//! One [`SchemaGenerator`] walks a whole type tree: it cuts a type that contains itself, and
//! keeps a note of each place it had to decide something the types do not say.
//!
//! ```
//! use kubeskema::StructuralSchema;
//! assert_eq!(Vec::<u8>::schema()["items"]["maximum"], 255);
//! ```

mod builtin;
pub(crate) mod crd;
pub(crate) mod union;
mod yaml;

#[doc(hidden)]
pub use union::{Payload, Tagging, VariantRow};

pub use yaml::to_yaml;

use std::any::TypeId;

use serde_json::{Map, Value};

/// A type whose values a structural schema describes: the schema a CRD needs for them.
pub trait StructuralSchema {
    /// The schema of this type's values, built through `generator` (which cuts recursion and
    /// keeps notes). A type's own description is its doc comment; a field's replaces it.
    fn schema_in(generator: &mut SchemaGenerator) -> Map<String, Value>;

    /// The schema on its own, with descriptions.
    fn schema() -> Value
    where
        Self: Sized,
    {
        let mut generator = SchemaGenerator::new(Docs::All);
        Value::Object(generator.schema_of::<Self>())
    }
}

/// `T`'s derived schema, without descriptions, built on first use and kept for the process
/// (what the CEL typing of derived rules and the validating read's fallbacks read).
pub fn derived_schema<T: StructuralSchema + 'static>() -> std::sync::Arc<Value> {
    derived::<T>().0.clone()
}

/// [`derived_schema`] parsed.
pub fn derived_parsed<T: StructuralSchema + 'static>() -> std::sync::Arc<crate::schema::Schema> {
    derived::<T>().1.clone()
}

/// Whether `T`'s derived schema carries CEL rules anywhere (the schema built once per type).
pub fn derived_schema_has_rules<T: StructuralSchema + 'static>() -> bool {
    derived::<T>().2
}

type Derived = (std::sync::Arc<Value>, std::sync::Arc<crate::schema::Schema>, bool);

fn derived<T: StructuralSchema + 'static>() -> Derived {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock, PoisonError};
    static SCHEMAS: OnceLock<Mutex<HashMap<TypeId, Derived>>> = OnceLock::new();
    let schemas = SCHEMAS.get_or_init(Mutex::default);
    let id = TypeId::of::<T>();
    if let Some(built) = schemas.lock().unwrap_or_else(PoisonError::into_inner).get(&id) {
        return built.clone();
    }
    // Built outside the lock: building asks for other types' schemas; two threads may build one.
    let json = Value::Object(SchemaGenerator::new(Docs::None).schema_of::<T>());
    let (parsed, _) = crate::schema::Schema::parse(&json, "");
    let has_rules = parsed.has_rules();
    let built = (Arc::new(json), Arc::new(parsed), has_rules);
    schemas.lock().unwrap_or_else(PoisonError::into_inner).entry(id).or_insert(built).clone()
}

/// Which descriptions a schema carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Docs {
    /// Every doc comment, as written.
    #[default]
    All,
    /// Doc comments without their code blocks (examples for Rust readers, noise in `kubectl
    /// explain`).
    WithoutCode,
    /// None: the smallest CRD (the apiserver limits a CRD to about 1.5 MB in etcd).
    None,
}

/// Something the generator decided that the Rust types did not say: a type cut where it
/// contains itself, a property widened to hold what two variants give it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaNote {
    /// Where, as a JSON path from the root (`.spec.children[*]`).
    pub path: String,
    /// What was decided, and why.
    pub message: String,
}

impl std::fmt::Display for SchemaNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() { "<root>" } else { &self.path };
        write!(f, "{path}: {}", self.message)
    }
}

/// Builds the schemas of a type tree (see the module docs).
#[derive(Debug, Default)]
pub struct SchemaGenerator {
    docs: Docs,
    /// The named types being built, outermost first: a type met again inside itself is cut.
    building: Vec<TypeId>,
    /// The JSON path to the node being built.
    path: Vec<String>,
    notes: Vec<SchemaNote>,
}

impl SchemaGenerator {
    /// A generator that keeps the descriptions `docs` asks for.
    pub fn new(docs: Docs) -> SchemaGenerator {
        SchemaGenerator { docs, ..SchemaGenerator::default() }
    }

    /// The schema of `T`.
    pub fn schema_of<T: StructuralSchema + ?Sized>(&mut self) -> Map<String, Value> {
        T::schema_in(self)
    }

    /// What was decided along the way.
    pub fn notes(&self) -> &[SchemaNote] {
        &self.notes
    }

    /// Keeps a note at the current place.
    pub fn note(&mut self, message: impl Into<String>) {
        self.notes.push(SchemaNote { path: self.path.concat(), message: message.into() });
    }

    /// The schema of `T`'s items (`at` is how the path shows them: `[*]`, `[key]`).
    pub fn nested<T: StructuralSchema + ?Sized>(&mut self, at: &str) -> Map<String, Value> {
        self.path.push(at.to_owned());
        let schema = T::schema_in(self);
        self.path.pop();
        schema
    }

    /// Builds the schema of the named (derived) type whose `TypeId` is `id` with `build`,
    /// unless that type is being built already: a type that contains itself has no finite
    /// structural schema, so the repeat becomes `{type: object,
    /// x-kubernetes-preserve-unknown-fields: true}` (any object, kept as sent) and a note says so.
    fn named(
        &mut self,
        id: TypeId,
        name: &str,
        type_: Option<&str>,
        build: impl FnOnce(&mut SchemaGenerator) -> Map<String, Value>,
    ) -> Map<String, Value> {
        if self.building.contains(&id) {
            self.note(format!(
                "`{name}` contains itself here: cut with x-kubernetes-preserve-unknown-fields (a structural schema is finite), so values below are kept unchecked by the schema"
            ));
            let mut cut = Map::new();
            if let Some(t) = type_ {
                cut.insert("type".into(), t.into());
            }
            cut.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
            return cut;
        }
        self.building.push(id);
        let schema = build(self);
        self.building.pop();
        schema
    }

    /// The schema of a derived struct `T`: its node (`node`, JSON text the derive wrote: type
    /// and attributes), its doc comment, and its properties, each from the static table the
    /// derive writes (data, not code: one table per type keeps a crate of thousands of types
    /// quick to compile; so is this function, which is not generic: one copy for all types).
    /// `id` is `T`'s `TypeId`; `writes_null`: `T`'s serializer writes a `None` as `null`.
    #[doc(hidden)]
    pub fn object(
        &mut self,
        id: TypeId,
        name: &str,
        node: &str,
        doc: Option<&str>,
        writes_null: bool,
        properties: &[Property],
    ) -> Map<String, Value> {
        self.named(id, name, Some("object"), |g| {
            let mut node = g.node(node, doc);
            g.properties_into(&mut node, properties, writes_null);
            node
        })
    }

    /// Adds a struct's (or a struct variant's) properties to `node`, each flattened one's
    /// merged in.
    fn properties_into(&mut self, node: &mut Map<String, Value>, properties: &[Property], writes_null: bool) {
        for p in properties {
            if p.flatten {
                self.flatten_into(node, p);
            } else {
                let patch = if writes_null { p.patch_if_null.unwrap_or(p.patch) } else { p.patch };
                self.property(node, p, patch);
            }
        }
    }

    /// A `#[serde(flatten)]` field: its type's properties, required fields, rules and junctors
    /// become the object's own (its rules still read `self.x`: the fields are at the same place).
    /// A type that is not an object has nothing to merge: a note says so.
    fn flatten_into(&mut self, node: &mut Map<String, Value>, p: &Property) {
        let inner = (p.of)(self);
        if inner.get("type").and_then(Value::as_str) != Some("object") {
            self.note(format!(
                "the flattened `{}` is not written as an object: serde cannot flatten it, and the schema leaves it out",
                p.name
            ));
            return;
        }
        for (key, value) in inner {
            match (key.as_str(), value) {
                ("properties", Value::Object(props)) => {
                    let own = node.entry("properties").or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(own) = own {
                        for (name, schema) in props {
                            if own.contains_key(&name) {
                                self.note(format!(
                                    "`{name}` is a field here and of the flattened `{}`: the field's schema is kept",
                                    p.name
                                ));
                            } else {
                                own.insert(name, schema);
                            }
                        }
                    }
                }
                ("required" | "x-kubernetes-validations", Value::Array(items)) => {
                    for item in items {
                        push_unique(node, &key, item);
                    }
                }
                ("oneOf" | "anyOf" | "not" | "allOf", junctor) => {
                    if node.contains_key(&key) {
                        push_unique(node, "allOf", serde_json::json!({ key: junctor }));
                    } else {
                        node.insert(key, junctor);
                    }
                }
                ("x-kubernetes-preserve-unknown-fields", keep) => {
                    node.insert(key, keep);
                }
                _ => {}
            }
        }
    }

    /// Adds a property to `node`: the schema of its Rust type, its attributes laid over it
    /// (`patch`), its doc comment, and its name in `required` when it is.
    fn property(&mut self, node: &mut Map<String, Value>, p: &Property, patch: &str) {
        self.path.push(format!(".{}", p.name));
        let mut schema = (p.of)(self);
        self.path.pop();
        overlay(&mut schema, parse_patch(patch));
        if let Some(d) = p.doc.and_then(|d| self.description(d)) {
            schema.insert("description".into(), d.into());
        }
        let properties = node.entry("properties").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(props) = properties {
            props.insert(p.name.to_owned(), Value::Object(schema));
        }
        if p.required {
            push_unique(node, "required", Value::String(p.name.to_owned()));
        }
    }

    /// A node from the derive: its JSON text (type, enum, attributes) with its doc comment.
    #[doc(hidden)]
    pub fn node(&self, json: &str, doc: Option<&str>) -> Map<String, Value> {
        let mut node = parse_patch(json);
        if let Some(d) = doc.and_then(|d| self.description(d)) {
            node.insert("description".into(), d.into());
        }
        node
    }

    /// A doc comment as the description `docs` keeps (`None` when it keeps none).
    pub fn description(&self, doc: &str) -> Option<String> {
        let text = match self.docs {
            Docs::None => return None,
            Docs::All => doc.trim().to_owned(),
            Docs::WithoutCode => without_code_blocks(doc),
        };
        (!text.is_empty()).then_some(text)
    }
}

/// One property of a derived struct, as the derive writes it into a static table.
#[doc(hidden)]
pub struct Property {
    /// The JSON name.
    pub name: &'static str,
    /// Whether the parent lists it in `required`.
    pub required: bool,
    /// The schema of its Rust type.
    pub of: fn(&mut SchemaGenerator) -> Map<String, Value>,
    /// Its attributes as schema JSON.
    pub patch: &'static str,
    /// The patch when the type's serializer writes `None` as `null` (an `Option` field without
    /// `skip_serializing_if` under serde's derive): the same with `nullable: true`.
    pub patch_if_null: Option<&'static str>,
    /// Its doc comment.
    pub doc: Option<&'static str>,
    /// `#[serde(flatten)]`: its type's fields are the parent's (`name` is the Rust field's).
    pub flatten: bool,
}

/// Lays a node's attributes over the schema of its type: each key the attributes give wins,
/// except that `items` and `additionalProperties` merge into the type's, and rules and
/// `required` keys add to the type's. `additionalProperties: true` replaces the type's
/// preservation of unknown fields (a free-form map's): it keeps them differently.
pub fn overlay(schema: &mut Map<String, Value>, patch: Map<String, Value>) {
    if patch.get("additionalProperties") == Some(&Value::Bool(true))
        && !patch.contains_key("x-kubernetes-preserve-unknown-fields")
    {
        schema.remove("x-kubernetes-preserve-unknown-fields");
    }
    for (key, value) in patch {
        match (key.as_str(), schema.get_mut(&key), value) {
            ("items" | "additionalProperties", Some(Value::Object(inner)), Value::Object(p)) => overlay(inner, p),
            ("x-kubernetes-validations" | "required", Some(Value::Array(list)), Value::Array(more)) => {
                for item in more {
                    if !list.contains(&item) {
                        list.push(item);
                    }
                }
            }
            (_, _, value) => {
                schema.insert(key, value);
            }
        }
    }
}

fn push_unique(node: &mut Map<String, Value>, key: &str, item: Value) {
    if let Value::Array(list) = node.entry(key).or_insert_with(|| Value::Array(Vec::new()))
        && !list.contains(&item)
    {
        list.push(item);
    }
}

/// The derive's JSON text. It wrote it from attributes it checked, so it parses; anything else
/// is a bug in the derive, and an empty patch loses less than a panic in `definition()`.
fn parse_patch(json: &str) -> Map<String, Value> {
    match serde_json::from_str(json) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// A doc comment without its fenced code blocks (```` ``` ````), paragraphs kept.
fn without_code_blocks(doc: &str) -> String {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in doc.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if !in_code {
            out.push(line);
        }
    }
    let text = out.join("\n");
    let mut text = text.trim().to_owned();
    while text.contains("\n\n\n") {
        text = text.replace("\n\n\n", "\n\n");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn attributes_win_over_the_type_and_nest_into_items() {
        let mut schema = json!({"type": "array", "items": {"type": "integer", "format": "int32"}});
        let Value::Object(s) = &mut schema else { unreachable!() };
        overlay(
            s,
            parse_patch(r#"{"maxItems": 3, "items": {"minimum": 1}, "x-kubernetes-validations": [{"rule": "true"}]}"#),
        );
        assert_eq!(
            schema,
            json!({"type": "array", "maxItems": 3, "items": {"type": "integer", "format": "int32", "minimum": 1},
                   "x-kubernetes-validations": [{"rule": "true"}]})
        );
    }

    #[test]
    fn code_blocks_leave_descriptions_when_asked() {
        let g = SchemaGenerator::new(Docs::WithoutCode);
        assert_eq!(
            g.description("Replicas.\n\n```\nlet x = 1;\n```\n\nAt most 5.").unwrap(),
            "Replicas.\n\nAt most 5."
        );
        assert_eq!(SchemaGenerator::new(Docs::None).description("Replicas."), None);
    }
}
