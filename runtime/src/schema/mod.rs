//! The schema of one CRD version (`openAPIV3Schema`) as a typed tree: the fields of the
//! apiserver's `JSONSchemaProps`, each node knowing the JSON pointer it was read from.
//!
//! Reading never stops at the first problem: [`Schema::parse`] returns the tree together with
//! every field it could not read (wrong JSON type, items given as an array, ...). Keywords the
//! structural rules forbid (`$ref`, `patternProperties`, ...) are kept in
//! [`Schema::unsupported`] so the structural check can report them with the apiserver's words.

pub(crate) mod cel_name;
pub mod of_types;
pub mod resource;

use std::collections::BTreeMap;

use serde_json::{Map, Number, Value};

use crate::report::path::{At, Path};

/// One node of a CRD schema.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schema {
    /// JSON pointer of this node in the document it was read from.
    pub pointer: String,
    /// `type`, as written (may be any string; the checks report unknown ones).
    pub type_: Option<Box<str>>,
    /// `format`.
    pub format: Option<Box<str>>,
    /// `description`.
    pub description: Option<Box<str>>,
    /// `default`.
    pub default: Option<Value>,
    /// `nullable`.
    pub nullable: bool,
    /// `enum`.
    pub enum_: Option<Box<[Value]>>,
    /// `maximum`.
    pub maximum: Option<Number>,
    /// `minimum`.
    pub minimum: Option<Number>,
    /// `maxLength` (in runes).
    pub max_length: Option<i64>,
    /// `minLength` (in runes).
    pub min_length: Option<i64>,
    /// `pattern` (Go RE2 syntax, matched unanchored).
    pub pattern: Option<Box<str>>,
    /// `maxItems`.
    pub max_items: Option<i64>,
    /// `minItems`.
    pub min_items: Option<i64>,
    /// `required`.
    pub required: Box<[String]>,
    /// `items` (a single schema; an array form is reported by [`Schema::parse`]).
    pub items: Option<Box<Schema>>,
    /// `properties`, sorted by name (as the apiserver's Go map iterates them).
    pub properties: Properties,
    /// `additionalProperties`.
    pub additional_properties: Option<AdditionalProperties>,
    /// `x-kubernetes-preserve-unknown-fields` as written (`Some(false)` is a CRD error).
    pub preserve_unknown_fields: Option<bool>,
    /// `x-kubernetes-embedded-resource`.
    pub embedded_resource: bool,
    /// `x-kubernetes-int-or-string`.
    pub int_or_string: bool,
    /// `x-kubernetes-list-type`.
    pub list_type: Option<Box<str>>,
    /// `x-kubernetes-list-map-keys`.
    pub list_map_keys: Box<[String]>,
    /// `x-kubernetes-validations`.
    pub validations: Box<[ValidationRule]>,
    /// `title`, `example`, `externalDocs`, `exclusiveMaximum`, `exclusiveMinimum`,
    /// `multipleOf`, `uniqueItems`, `maxProperties`, `minProperties`,
    /// `x-kubernetes-map-type`, the junctors, other `x-*` keys, and what the apiserver refuses
    /// or drops: read by a getter each ([`Schema::all_of`], ...), written through
    /// [`Schema::seldom_mut`].
    pub seldom: SeldomBox,
}

// A CRD holds one node per schema it writes (100,000 for a CRD of 100,000 properties): what a
// field adds here, every node pays.
const _: () = assert!(size_of::<Schema>() <= 344);

/// The keywords few schemas write, kept behind one box ([`Schema::seldom_mut`] to write them,
/// a getter on [`Schema`] each to read them): a CRD of 100,000 properties is a [`Schema`] each,
/// and these took 240 of its 760 bytes; the rare numeric and map keywords 72 of the 528 left.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Seldom {
    /// `title`.
    pub title: Option<Box<str>>,
    /// `example` (kept for completeness; never validated).
    pub example: Option<Value>,
    /// `externalDocs`.
    pub external_docs: Option<Value>,
    /// `exclusiveMaximum` (a boolean in OpenAPI v3.0).
    pub exclusive_maximum: bool,
    /// `exclusiveMinimum`.
    pub exclusive_minimum: bool,
    /// `multipleOf`.
    pub multiple_of: Option<Number>,
    /// `uniqueItems`.
    pub unique_items: bool,
    /// `maxProperties`.
    pub max_properties: Option<i64>,
    /// `minProperties`.
    pub min_properties: Option<i64>,
    /// `x-kubernetes-map-type`.
    pub map_type: Option<Box<str>>,
    /// `allOf`.
    pub all_of: Vec<Schema>,
    /// `anyOf`.
    pub any_of: Vec<Schema>,
    /// `oneOf`.
    pub one_of: Vec<Schema>,
    /// `not`.
    pub not: Option<Box<Schema>>,
    /// Other `x-*` keys (such as `x-kubernetes-patch-merge-key`), kept as written.
    pub extensions: BTreeMap<String, Value>,
    /// Keywords the apiserver refuses in CRD schemas (`$ref`, `definitions`, ...), as written.
    pub unsupported: Vec<String>,
    /// Keys that are not part of `JSONSchemaProps` at all; the apiserver drops them on decode.
    pub unknown_keys: Vec<String>,
}

/// What a schema that writes none of the seldom keywords reads.
static NO_SELDOM: Seldom = Seldom {
    title: None,
    example: None,
    external_docs: None,
    exclusive_maximum: false,
    exclusive_minimum: false,
    multiple_of: None,
    unique_items: false,
    max_properties: None,
    min_properties: None,
    map_type: None,
    all_of: Vec::new(),
    any_of: Vec::new(),
    one_of: Vec::new(),
    not: None,
    extensions: BTreeMap::new(),
    unsupported: Vec::new(),
    unknown_keys: Vec::new(),
};

/// [`Seldom`] boxed only when written: equal to another when what it reads is, boxed or not.
#[derive(Clone, Debug, Default)]
pub struct SeldomBox(Option<Box<Seldom>>);

impl SeldomBox {
    /// The keywords, empty where none was written.
    pub fn get(&self) -> &Seldom {
        self.0.as_deref().unwrap_or(&NO_SELDOM)
    }

    /// The keywords to change, if any was written (nothing is boxed for a change of none).
    pub fn written_mut(&mut self) -> Option<&mut Seldom> {
        self.0.as_deref_mut()
    }
}

impl PartialEq for SeldomBox {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

/// An object's `properties`, sorted by name (as the apiserver's Go map iterates them).
///
/// Each schema is boxed: whole [`Schema`]s side by side made the corpus's 313 CRDs take 300 MB
/// where 130 MB hold them.
///
/// Every walk of an object looks each of its keys up here, several walks an object: in a
/// B-tree that was 46% of the dynamic validator's time on a large HTTPRoute (issue 54), a
/// string comparison per key of a node. A hash index of the names finds one with one hash and
/// one comparison.
///
/// Most nodes have none: a node without properties holds no index (`None`), one word where the
/// index's fields were six (a CRD of 100,000 properties is 100,000 such nodes).
#[derive(Clone, Debug, Default)]
pub struct Properties(Option<Box<Indexed>>);

// The point of the box: a node without properties pays one word for them.
const _: () = assert!(size_of::<Properties>() == size_of::<usize>());

/// Properties and the hash index of their names.
#[derive(Clone, Debug)]
struct Indexed {
    /// By name, each name once.
    entries: Vec<(String, Box<Schema>)>,
    /// Open addressing into `entries`, at most half full; [`EMPTY_SLOT`] where none is.
    slots: Box<[u32]>,
    /// Seeded per process, so that no CRD can choose names that share slots.
    hasher: foldhash::fast::RandomState,
}

const EMPTY_SLOT: u32 = u32::MAX;

impl PartialEq for Properties {
    fn eq(&self, other: &Self) -> bool {
        self.entries() == other.entries()
    }
}

impl Indexed {
    fn new(entries: Vec<(String, Box<Schema>)>) -> Self {
        let mut indexed = Indexed { entries, slots: Box::default(), hasher: Default::default() };
        indexed.reindex();
        indexed
    }

    fn reindex(&mut self) {
        let mask = (self.entries.len() * 2).next_power_of_two() - 1;
        let mut slots = vec![EMPTY_SLOT; mask + 1];
        for (n, (name, _)) in self.entries.iter().enumerate() {
            let mut slot = self.home(name, mask);
            while slots[slot] != EMPTY_SLOT {
                slot = (slot + 1) & mask;
            }
            // More than four billion properties cannot be read into memory to get here.
            slots[slot] = u32::try_from(n).unwrap_or(EMPTY_SLOT);
        }
        self.slots = slots.into_boxed_slice();
    }

    fn home(&self, name: &str, mask: usize) -> usize {
        std::hash::BuildHasher::hash_one(&self.hasher, name) as usize & mask
    }

    fn position(&self, name: &str) -> Option<usize> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut slot = self.home(name, mask);
        loop {
            let n = self.slots[slot] as usize;
            if self.entries.get(n)?.0 == name {
                return Some(n);
            }
            slot = (slot + 1) & mask;
        }
    }
}

impl Properties {
    fn from_entries(mut entries: Vec<(String, Box<Schema>)>) -> Self {
        // Read from a map, names come sorted, each once: a stable sort's buffer (half the
        // entries) is spared.
        if !entries.windows(2).all(|w| w[0].0 < w[1].0) {
            // The last of a name given twice wins, as a map's insert does.
            entries.reverse();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            entries.dedup_by(|later, first| later.0 == first.0);
        }
        Properties((!entries.is_empty()).then(|| Box::new(Indexed::new(entries))))
    }

    /// The entries, by name.
    fn entries(&self) -> &[(String, Box<Schema>)] {
        self.0.as_deref().map_or(&[], |indexed| &indexed.entries)
    }

    /// The schema of property `name`.
    pub fn get(&self, name: &str) -> Option<&Schema> {
        self.position(name).and_then(|n| self.at(n))
    }

    /// Where property `name` is in [`Properties::iter`]'s order: what a structure built
    /// alongside the schema indexes its own per-property data by.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.0.as_deref()?.position(name)
    }

    /// The schema of the property at `position` ([`Properties::position`]).
    pub fn at(&self, position: usize) -> Option<&Schema> {
        self.entries().get(position).map(|(_, schema)| schema.as_ref())
    }

    /// Whether `name` is a property.
    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Adds (or replaces) property `name`. Each call indexes the names anew: build many at
    /// once with `collect`.
    pub fn insert(&mut self, name: String, schema: Schema) {
        let Some(indexed) = self.0.as_deref_mut() else {
            *self = Properties::from_entries(vec![(name, Box::new(schema))]);
            return;
        };
        match indexed.entries.binary_search_by(|(n, _)| n.as_str().cmp(&name)) {
            Ok(n) => *indexed.entries[n].1 = schema,
            Err(n) => {
                indexed.entries.insert(n, (name, Box::new(schema)));
                indexed.reindex();
            }
        }
    }

    /// How many properties there are.
    pub fn len(&self) -> usize {
        self.entries().len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }

    /// The names and schemas, by name.
    pub fn iter(&self) -> <&Properties as IntoIterator>::IntoIter {
        self.into_iter()
    }

    /// The names, sorted.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries().iter().map(|(name, _)| name)
    }

    /// The schemas, by name.
    pub fn values(&self) -> impl Iterator<Item = &Schema> {
        self.entries().iter().map(|(_, schema)| schema.as_ref())
    }

    /// The schemas, by name, to change.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Schema> {
        let entries: &mut [(String, Box<Schema>)] =
            self.0.as_deref_mut().map_or(&mut [], |indexed| indexed.entries.as_mut_slice());
        entries.iter_mut().map(|(_, schema)| schema.as_mut())
    }
}

impl<'a> IntoIterator for &'a Properties {
    type Item = (&'a String, &'a Schema);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, Box<Schema>)>,
        fn(&'a (String, Box<Schema>)) -> (&'a String, &'a Schema),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries().iter().map(|(name, schema)| (name, schema.as_ref()))
    }
}

impl std::ops::Index<&str> for Properties {
    type Output = Schema;

    fn index(&self, name: &str) -> &Schema {
        self.get(name).unwrap_or_else(|| panic!("no property {name}"))
    }
}

impl FromIterator<(String, Schema)> for Properties {
    fn from_iter<I: IntoIterator<Item = (String, Schema)>>(iter: I) -> Self {
        Properties::from_entries(iter.into_iter().map(|(name, schema)| (name, Box::new(schema))).collect())
    }
}

/// `additionalProperties`: a boolean or a schema.
#[derive(Clone, Debug, PartialEq)]
pub enum AdditionalProperties {
    /// `true` or `false`.
    Bool(bool),
    /// A schema for every key not in `properties`.
    Schema(Box<Schema>),
}

impl AdditionalProperties {
    /// The schema of every other key, when given as a schema (`true`/`false` have none).
    pub fn schema(&self) -> Option<&Schema> {
        match self {
            AdditionalProperties::Schema(s) => Some(s),
            AdditionalProperties::Bool(_) => None,
        }
    }
}

/// One `x-kubernetes-validations` entry: the rule the attributes of generated types carry too.
pub use kubeskema_attributes::Rule as ValidationRule;

/// A field of the schema that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// JSON pointer of the offending value.
    pub pointer: String,
    /// What is wrong, in the words of Go's JSON decoder where it has words for it.
    pub message: String,
}

impl Schema {
    /// `title`.
    pub fn title(&self) -> Option<&str> {
        self.seldom.get().title.as_deref()
    }

    /// `example`.
    pub fn example(&self) -> Option<&Value> {
        self.seldom.get().example.as_ref()
    }

    /// `externalDocs`.
    pub fn external_docs(&self) -> Option<&Value> {
        self.seldom.get().external_docs.as_ref()
    }

    /// `exclusiveMaximum`.
    pub fn exclusive_maximum(&self) -> bool {
        self.seldom.get().exclusive_maximum
    }

    /// `exclusiveMinimum`.
    pub fn exclusive_minimum(&self) -> bool {
        self.seldom.get().exclusive_minimum
    }

    /// `multipleOf`.
    pub fn multiple_of(&self) -> Option<&Number> {
        self.seldom.get().multiple_of.as_ref()
    }

    /// `uniqueItems`.
    pub fn unique_items(&self) -> bool {
        self.seldom.get().unique_items
    }

    /// `maxProperties`.
    pub fn max_properties(&self) -> Option<i64> {
        self.seldom.get().max_properties
    }

    /// `minProperties`.
    pub fn min_properties(&self) -> Option<i64> {
        self.seldom.get().min_properties
    }

    /// `x-kubernetes-map-type`.
    pub fn map_type(&self) -> Option<&str> {
        self.seldom.get().map_type.as_deref()
    }

    /// `allOf`.
    pub fn all_of(&self) -> &[Schema] {
        &self.seldom.get().all_of
    }

    /// `anyOf`.
    pub fn any_of(&self) -> &[Schema] {
        &self.seldom.get().any_of
    }

    /// `oneOf`.
    pub fn one_of(&self) -> &[Schema] {
        &self.seldom.get().one_of
    }

    /// `not`.
    pub fn not(&self) -> Option<&Schema> {
        self.seldom.get().not.as_deref()
    }

    /// Other `x-*` keys (such as `x-kubernetes-patch-merge-key`), kept as written.
    pub fn extensions(&self) -> &BTreeMap<String, Value> {
        &self.seldom.get().extensions
    }

    /// Keywords the apiserver refuses in CRD schemas (`$ref`, `definitions`, ...), as written.
    pub fn unsupported(&self) -> &[String] {
        &self.seldom.get().unsupported
    }

    /// Keys that are not part of `JSONSchemaProps` at all; the apiserver drops them on decode.
    pub fn unknown_keys(&self) -> &[String] {
        &self.seldom.get().unknown_keys
    }

    /// The seldom keywords to write, boxed from now on.
    pub fn seldom_mut(&mut self) -> &mut Seldom {
        self.seldom.0.get_or_insert_default()
    }

    /// Reads a schema node from JSON; `pointer` is where `value` sits in its document.
    pub fn parse(value: &Value, pointer: &str) -> (Schema, Vec<ParseError>) {
        Schema::parse_from(value, pointer)
    }

    /// [`Schema::parse`] of a node of any [`Source`].
    pub(crate) fn parse_from<'a>(node: impl Source<'a>, pointer: &str) -> (Schema, Vec<ParseError>) {
        let mut errors = Vec::new();
        let schema = parse_node(node, pointer, &mut errors);
        (schema, errors)
    }

    /// The single type of this node, if it has one.
    pub fn type_str(&self) -> Option<&str> {
        self.type_.as_deref()
    }

    /// Whether `x-kubernetes-preserve-unknown-fields: true` is set.
    pub fn preserves_unknown_fields(&self) -> bool {
        self.preserve_unknown_fields == Some(true)
    }

    /// The schema of `additionalProperties`, when it is a schema.
    pub fn additional_properties_schema(&self) -> Option<&Schema> {
        self.additional_properties.as_ref().and_then(AdditionalProperties::schema)
    }

    /// The schema of an object's `key`: its property, else the `additionalProperties` schema.
    pub fn schema_of_key(&self, key: &str) -> Option<&Schema> {
        self.properties.get(key).or_else(|| self.additional_properties_schema())
    }

    /// [`Schema::schema_of_key`] with the key's place under `path`: a property, or a map key
    /// (the two print differently in the apiserver's paths).
    pub fn key_child(&self, key: &str, path: &Path) -> Option<(&Schema, Path)> {
        self.key_place(key, &At::under(path)).map(|(child, at)| (child, at.to_path()))
    }

    /// [`Schema::key_child`] for a walk that makes a [`Path`] only where it reports (`at`).
    pub fn key_place<'s, 'a>(&'s self, key: &'a str, at: &'a At<'a>) -> Option<(&'s Schema, At<'a>)> {
        match self.properties.get(key) {
            Some(p) => Some((p, at.field(key))),
            None => self.additional_properties_schema().map(|a| (a, at.key(key))),
        }
    }

    /// Whether this node or any node under it carries `x-kubernetes-validations` rules.
    pub fn has_rules(&self) -> bool {
        self.any(&|s| !s.validations.is_empty())
    }

    /// Whether this node or any node under it (its [`Schema::children`], down) is `such`.
    pub fn any(&self, such: &dyn Fn(&Schema) -> bool) -> bool {
        such(self) || self.children().any(|child| child.any(such))
    }

    /// Whether two schemas are one as the apiserver compares decoded `JSONSchemaProps`
    /// (`apiequality.Semantic.DeepEqual`, as the v1 → internal conversion asks whether every
    /// version has the same schema): where each was read from, keys Go's decoder drops and an
    /// empty string against none make no difference.
    pub fn same_as_decoded(&self, other: &Schema) -> bool {
        fn decoded(s: &Schema) -> Schema {
            let mut s = s.clone();
            forget_reading(&mut s);
            s
        }
        fn forget_reading(s: &mut Schema) {
            s.pointer.clear();
            let mut seldom = s.seldom.written_mut();
            if let Some(seldom) = seldom.as_deref_mut() {
                seldom.unknown_keys.clear();
                seldom.all_of.iter_mut().chain(&mut seldom.any_of).chain(&mut seldom.one_of).for_each(forget_reading);
                seldom.not.as_deref_mut().into_iter().for_each(forget_reading);
            }
            let texts = [&mut s.type_, &mut s.format, &mut s.description, &mut s.pattern, &mut s.list_type];
            let seldom_texts = seldom.into_iter().flat_map(|seldom| [&mut seldom.title, &mut seldom.map_type]);
            for text in texts.into_iter().chain(seldom_texts) {
                if text.as_deref() == Some("") {
                    *text = None;
                }
            }
            s.properties.values_mut().for_each(forget_reading);
            s.items.as_deref_mut().into_iter().for_each(forget_reading);
            if let Some(AdditionalProperties::Schema(a)) = &mut s.additional_properties {
                forget_reading(a);
            }
        }
        decoded(self) == decoded(other)
    }

    /// Every direct child node with the token that leads to it: `properties`, `items`,
    /// `additionalProperties`, then the junctors.
    pub fn children(&self) -> impl Iterator<Item = &Schema> {
        self.properties
            .values()
            .chain(self.items.as_deref())
            .chain(self.additional_properties_schema())
            .chain(self.all_of())
            .chain(self.any_of())
            .chain(self.one_of())
            .chain(self.not())
    }
}

fn child_pointer(parent: &str, tokens: &[&str]) -> String {
    let mut p = parent.to_owned();
    for t in tokens {
        p.push('/');
        p.push_str(&crate::report::path::escape_token(t));
    }
    p
}

fn json_kind(v: &Value) -> &'static str {
    JsonKind::of(v).name()
}

/// A node's JSON type, as its value would have it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JsonKind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

impl JsonKind {
    fn of(v: &Value) -> JsonKind {
        match v {
            Value::Null => JsonKind::Null,
            Value::Bool(_) => JsonKind::Bool,
            Value::Number(_) => JsonKind::Number,
            Value::String(_) => JsonKind::String,
            Value::Array(_) => JsonKind::Array,
            Value::Object(_) => JsonKind::Object,
        }
    }

    fn name(self) -> &'static str {
        match self {
            JsonKind::Null => "null",
            JsonKind::Bool => "bool",
            JsonKind::Number => "number",
            JsonKind::String => "string",
            JsonKind::Array => "array",
            JsonKind::Object => "object",
        }
    }
}

/// What a schema is read from ([`Schema::parse`]): a JSON value, or a node of a document as
/// read, whose schema then never becomes a JSON value whole (a CRD's schema as a value took
/// more memory than the [`Schema`] made of it: `yaml::Document`'s nodes). Each keyword's value
/// is made a value on its own; the schemas below it are read from their nodes.
pub(crate) trait Source<'a>: Copy {
    /// The node's JSON type.
    fn kind(self) -> JsonKind;
    /// A mapping's entries as its value holds them: each key once, sorted.
    fn entries(self) -> impl Iterator<Item = (&'a str, Self)>;
    /// A sequence's items.
    fn items(self) -> Vec<Self>;
    /// The node's value.
    fn value(self) -> std::borrow::Cow<'a, Value>;
}

impl<'a> Source<'a> for &'a Value {
    fn kind(self) -> JsonKind {
        JsonKind::of(self)
    }
    fn entries(self) -> impl Iterator<Item = (&'a str, Self)> {
        self.as_object().into_iter().flatten().map(|(k, v)| (k.as_str(), v))
    }
    fn items(self) -> Vec<Self> {
        self.as_array().map(|items| items.iter().collect()).unwrap_or_default()
    }
    fn value(self) -> std::borrow::Cow<'a, Value> {
        std::borrow::Cow::Borrowed(self)
    }
}

struct Reader<'a> {
    pointer: &'a str,
    errors: &'a mut Vec<ParseError>,
}

impl Reader<'_> {
    fn fail(&mut self, key: &str, v: &Value, want: &str) {
        self.fail_kind(key, JsonKind::of(v), want);
    }

    fn fail_kind(&mut self, key: &str, kind: JsonKind, want: &str) {
        self.errors.push(ParseError {
            pointer: child_pointer(self.pointer, &[key]),
            message: format!("cannot unmarshal {} into field {key} of type {want}", kind.name()),
        });
    }

    fn string(&mut self, key: &str, v: &Value) -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            _ => {
                self.fail(key, v, "string");
                None
            }
        }
    }

    /// A text keyword, held as read (a `Box<str>`: a node's strings are never changed).
    fn text(&mut self, key: &str, v: &Value) -> Option<Box<str>> {
        self.string(key, v).map(String::into_boxed_str)
    }

    fn bool(&mut self, key: &str, v: &Value) -> Option<bool> {
        match v {
            Value::Bool(b) => Some(*b),
            Value::Null => None,
            _ => {
                self.fail(key, v, "bool");
                None
            }
        }
    }

    fn number(&mut self, key: &str, v: &Value) -> Option<Number> {
        match v {
            Value::Number(n) => Some(n.clone()),
            Value::Null => None,
            _ => {
                self.fail(key, v, "float64");
                None
            }
        }
    }

    /// A count keyword: any int64, as the apiserver takes it (a negative maximum fails every
    /// value, a negative minimum none).
    fn count(&mut self, key: &str, v: &Value) -> Option<i64> {
        match v {
            Value::Number(n) if n.as_i64().is_some() => n.as_i64(),
            Value::Null => None,
            _ => {
                self.fail(key, v, "int64");
                None
            }
        }
    }

    fn strings(&mut self, key: &str, v: &Value) -> Vec<String> {
        match v {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| match item {
                    Value::String(s) => Some(s.clone()),
                    _ => {
                        self.errors.push(ParseError {
                            pointer: child_pointer(self.pointer, &[key, &i.to_string()]),
                            message: format!("cannot unmarshal {} into field {key} of type string", json_kind(item)),
                        });
                        None
                    }
                })
                .collect(),
            Value::Null => Vec::new(),
            _ => {
                self.fail(key, v, "[]string");
                Vec::new()
            }
        }
    }
}

fn parse_node<'a>(node: impl Source<'a>, pointer: &str, errors: &mut Vec<ParseError>) -> Schema {
    let mut s = Schema { pointer: pointer.to_owned(), ..Schema::default() };
    if node.kind() != JsonKind::Object {
        errors.push(ParseError {
            pointer: pointer.to_owned(),
            message: format!("cannot unmarshal {} into a schema object", node.kind().name()),
        });
        return s;
    }
    let mut r = Reader { pointer, errors };
    for (k, node) in node.entries() {
        // The keywords that hold schemas are read from their nodes; any other, as a value.
        match (k, node.kind()) {
            (_, JsonKind::Null) if SCHEMA_KEYWORDS.contains(&k) => {}
            // An empty list converts to no items at all (`JSONSchemas` empty).
            ("items", JsonKind::Array) if node.items().is_empty() => {}
            ("items", JsonKind::Array) => s.seldom_mut().unsupported.push("items-array".into()),
            ("items", _) => s.items = Some(Box::new(parse_node(node, &child_pointer(pointer, &[k]), r.errors))),
            ("properties", JsonKind::Object) => {
                s.properties = node
                    .entries()
                    .map(|(name, p)| (name.to_owned(), parse_node(p, &child_pointer(pointer, &[k, name]), r.errors)))
                    .collect();
            }
            ("properties", kind) => r.fail_kind(k, kind, "map[string]JSONSchemaProps"),
            ("additionalProperties", JsonKind::Bool) => {
                s.additional_properties = node.value().as_bool().map(AdditionalProperties::Bool);
            }
            ("additionalProperties", JsonKind::Object) => {
                let child = parse_node(node, &child_pointer(pointer, &[k]), r.errors);
                s.additional_properties = Some(AdditionalProperties::Schema(Box::new(child)));
            }
            ("additionalProperties", kind) => r.fail_kind(k, kind, "JSONSchemaPropsOrBool"),
            ("allOf" | "anyOf" | "oneOf", kind) => {
                let list = match kind {
                    JsonKind::Array => node
                        .items()
                        .into_iter()
                        .enumerate()
                        .map(|(i, item)| parse_node(item, &child_pointer(pointer, &[k, &i.to_string()]), r.errors))
                        .collect(),
                    _ => {
                        r.fail_kind(k, kind, "[]JSONSchemaProps");
                        Vec::new()
                    }
                };
                let seldom = s.seldom_mut();
                match k {
                    "allOf" => seldom.all_of = list,
                    "anyOf" => seldom.any_of = list,
                    _ => seldom.one_of = list,
                }
            }
            ("not", _) => {
                s.seldom_mut().not = Some(Box::new(parse_node(node, &child_pointer(pointer, &[k]), r.errors)))
            }
            _ => keyword(&mut s, k, &node.value(), &mut r),
        }
    }
    s
}

/// The keywords whose values are schemas (or lists or maps of them): read from their nodes by
/// [`parse_node`], a `null` being none.
const SCHEMA_KEYWORDS: [&str; 7] = ["items", "properties", "additionalProperties", "allOf", "anyOf", "oneOf", "not"];

/// Reads one keyword that holds no schema.
fn keyword(s: &mut Schema, k: &str, v: &Value, r: &mut Reader<'_>) {
    match k {
        "type" => s.type_ = r.text(k, v),
        "format" => s.format = r.text(k, v),
        "title" => s.seldom_mut().title = r.text(k, v),
        "description" => s.description = r.text(k, v),
        // [quirk] `null` is Go's nil `*JSON`: no default at all.
        "default" => s.default = (!v.is_null()).then(|| v.clone()),
        "nullable" => s.nullable = r.bool(k, v).unwrap_or(false),
        "example" => s.seldom_mut().example = (!v.is_null()).then(|| v.clone()),
        "externalDocs" => s.seldom_mut().external_docs = (!v.is_null()).then(|| v.clone()),
        "enum" => match v {
            Value::Array(items) => s.enum_ = Some(items.as_slice().into()),
            Value::Null => {}
            _ => r.fail(k, v, "[]JSON"),
        },
        "maximum" => s.maximum = r.number(k, v),
        "exclusiveMaximum" => s.seldom_mut().exclusive_maximum = r.bool(k, v).unwrap_or(false),
        "minimum" => s.minimum = r.number(k, v),
        "exclusiveMinimum" => s.seldom_mut().exclusive_minimum = r.bool(k, v).unwrap_or(false),
        "multipleOf" => s.seldom_mut().multiple_of = r.number(k, v),
        "maxLength" => s.max_length = r.count(k, v),
        "minLength" => s.min_length = r.count(k, v),
        "pattern" => s.pattern = r.text(k, v),
        "maxItems" => s.max_items = r.count(k, v),
        "minItems" => s.min_items = r.count(k, v),
        "uniqueItems" => s.seldom_mut().unique_items = r.bool(k, v).unwrap_or(false),
        "maxProperties" => s.seldom_mut().max_properties = r.count(k, v),
        "minProperties" => s.seldom_mut().min_properties = r.count(k, v),
        "required" => s.required = r.strings(k, v).into(),
        "x-kubernetes-preserve-unknown-fields" => s.preserve_unknown_fields = r.bool(k, v),
        "x-kubernetes-embedded-resource" => s.embedded_resource = r.bool(k, v).unwrap_or(false),
        "x-kubernetes-int-or-string" => s.int_or_string = r.bool(k, v).unwrap_or(false),
        "x-kubernetes-list-type" => s.list_type = r.text(k, v),
        "x-kubernetes-list-map-keys" => s.list_map_keys = r.strings(k, v).into(),
        "x-kubernetes-map-type" => s.seldom_mut().map_type = r.text(k, v),
        "x-kubernetes-validations" => s.validations = parse_rules(v, &child_pointer(r.pointer, &[k]), r.errors).into(),
        // What the structural model cannot hold, where Go's decoding leaves it set: a
        // string or map not empty, a pointer not nil (`null` is nil).
        "id" | "$schema" | "patternProperties" | "definitions" => {
            let set = match v {
                Value::String(text) => !text.is_empty(),
                Value::Object(map) => !map.is_empty(),
                Value::Null => false,
                _ => true,
            };
            if set {
                s.seldom_mut().unsupported.push(k.to_owned());
            }
        }
        "$ref" | "dependencies" | "additionalItems" => {
            if !v.is_null() {
                s.seldom_mut().unsupported.push(k.to_owned());
            }
        }
        _ if k.starts_with("x-") => {
            s.seldom_mut().extensions.insert(k.to_owned(), v.clone());
        }
        _ => s.seldom_mut().unknown_keys.push(k.to_owned()),
    }
}

fn parse_rules(value: &Value, pointer: &str, errors: &mut Vec<ParseError>) -> Vec<ValidationRule> {
    let Value::Array(items) = value else {
        if !value.is_null() {
            errors.push(ParseError {
                pointer: pointer.to_owned(),
                message: format!(
                    "cannot unmarshal {} into field x-kubernetes-validations of type ValidationRules",
                    json_kind(value)
                ),
            });
        }
        return Vec::new();
    };
    let mut rules = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_pointer = child_pointer(pointer, &[&i.to_string()]);
        let empty = Map::new();
        let map = match item {
            Value::Object(m) => m,
            _ => {
                errors.push(ParseError {
                    pointer: item_pointer.clone(),
                    message: format!("cannot unmarshal {} into a ValidationRule", json_kind(item)),
                });
                &empty
            }
        };
        let mut r = Reader { pointer: &item_pointer, errors };
        let mut rule = ValidationRule::default();
        for (k, v) in map {
            match k.as_str() {
                "rule" => rule.rule = r.string(k, v).unwrap_or_default(),
                "message" => rule.message = r.string(k, v),
                "messageExpression" => rule.message_expression = r.string(k, v),
                "reason" => rule.reason = r.string(k, v),
                "fieldPath" => rule.field_path = r.string(k, v),
                "optionalOldSelf" => rule.optional_old_self = r.bool(k, v),
                _ => {}
            }
        }
        rules.push(rule);
    }
    rules
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    proptest::proptest! {
        /// The hash index finds what a sorted map finds, for names given in any order, twice
        /// or more, added at once or one by one.
        #[test]
        fn properties_find_what_a_sorted_map_finds(
            names in proptest::collection::vec("[a-c]{0,3}", 0..40),
            asked in proptest::collection::vec("[a-c]{0,3}", 0..20),
        ) {
            let with_title = |n: usize| {
                let mut s = Schema::default();
                s.seldom_mut().title = Some(n.to_string().into());
                s
            };
            let expected: BTreeMap<&str, usize> = names.iter().enumerate().map(|(n, name)| (name.as_str(), n)).collect();
            let collected: Properties = names.iter().enumerate().map(|(n, name)| (name.clone(), with_title(n))).collect();
            let mut inserted = Properties::default();
            for (n, name) in names.iter().enumerate() {
                inserted.insert(name.clone(), with_title(n));
            }
            for properties in [&collected, &inserted] {
                proptest::prop_assert!(properties.keys().map(String::as_str).eq(expected.keys().copied()));
                for name in names.iter().chain(&asked) {
                    let found = properties.get(name).and_then(|s| s.title().map(str::to_owned));
                    proptest::prop_assert_eq!(found, expected.get(name.as_str()).map(usize::to_string));
                }
            }
        }
    }

    #[test]
    fn reads_every_field_and_keeps_pointers() {
        let (s, errors) = Schema::parse(
            &json!({
                "type": "object",
                "required": ["a"],
                "properties": {
                    "a": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 1.5, "default": 1},
                    "l": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                    "m": {"type": "object", "additionalProperties": {"type": "string"}},
                    "x/y": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}
                },
                "x-kubernetes-validations": [{"rule": "self.a > 0", "message": "positive"}],
                "x-kubernetes-patch-merge-key": "name"
            }),
            "/spec",
        );
        assert_eq!(errors, vec![]);
        assert_eq!(*s.required, ["a"]);
        let a = &s.properties["a"];
        assert_eq!(a.pointer, "/spec/properties/a");
        assert_eq!(a.minimum, Some(0.into()));
        assert_eq!(a.maximum.as_ref().and_then(Number::as_f64), Some(1.5));
        assert_eq!(s.properties["l"].items.as_ref().unwrap().pointer, "/spec/properties/l/items");
        assert_eq!(s.properties["m"].additional_properties_schema().unwrap().type_str(), Some("string"));
        assert_eq!(s.properties["x/y"].any_of()[1].pointer, "/spec/properties/x~1y/anyOf/1");
        assert_eq!(s.validations[0].message.as_deref(), Some("positive"));
        assert_eq!(s.extensions()["x-kubernetes-patch-merge-key"], json!("name"));
    }

    #[test]
    fn collects_every_misfit_instead_of_stopping() {
        let (s, errors) = Schema::parse(
            &json!({"type": 1, "properties": {"a": {"maxLength": "x"}}, "items": [{}], "$ref": "#/x", "bogus": 1}),
            "",
        );
        let pointers: Vec<_> = errors.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(pointers, vec!["/properties/a/maxLength", "/type"]);
        assert_eq!(s.unsupported(), vec!["$ref", "items-array"]);
        assert_eq!(s.unknown_keys(), vec!["bogus"]);
    }

    /// A node that writes none of the seldom keywords boxes nothing (most of a wide CRD's
    /// nodes), and a box emptied again reads as none: equality is of what is written.
    #[test]
    fn seldom_keywords_are_boxed_only_when_written() {
        let (plain, _) =
            Schema::parse(&json!({"type": "object", "properties": {"p": {"type": "string", "maxLength": 8}}}), "");
        assert!(plain.seldom.0.is_none() && plain.properties["p"].seldom.0.is_none());
        let (titled, _) = Schema::parse(&json!({"type": "object", "title": "T", "anyOf": [{"required": ["a"]}]}), "");
        assert_eq!((titled.title(), titled.any_of().len()), (Some("T"), 1));
        let mut emptied = titled.clone();
        *emptied.seldom_mut() = Seldom::default();
        let (bare, _) = Schema::parse(&json!({"type": "object"}), "");
        assert!(emptied.seldom.0.is_some() && emptied == bare);
        let (unknown, _) = Schema::parse(&json!({"type": "object", "bogus": 1, "title": ""}), "");
        assert!(unknown != bare && unknown.same_as_decoded(&bare), "Go's decoder drops both");
    }
}
