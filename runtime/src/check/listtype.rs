//! `x-kubernetes-list-type` uniqueness (`apiextensions-apiserver/pkg/apiserver/schema/listtype`,
//! semantics §8), over a JSON value and its schema, with field paths (`spec.m[key].l[2]`).
//!
//! - `set`: scalars are compared as Go compares decoded values, so the int `1` and the float
//!   `1.0` differ \[quirk\]; objects and arrays by their canonical JSON, where `1.0` is written
//!   `1`. Only the second occurrence of a value is reported; later ones are silent.
//! - `map`: every element must be an object (or null): the first one that is not is reported
//!   and the list is not checked further. Elements are identified by their key fields, a
//!   missing key being different from a `null` one; again only the second occurrence.
//!
//! Derived code checks typed items ([`check_typed_set`], [`check_typed_map`]): each is
//! identified from the calls its `Serialize` makes, as its JSON would be, without building it.

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::report::issue::{BadValue, ErrorType, Issue, PathForm, go_json};
use crate::report::path::{At, Path, Place};

use crate::schema::Schema;

/// The keyword of every list-type issue (the pipeline reports them after the values).
pub const KEYWORD: &str = "x-kubernetes-list-type";

/// What the serializers below refuse: a composite value where a scalar is identified, an item
/// that is neither a struct, a map nor null where key fields are picked. The caller then goes
/// through the value's JSON.
#[derive(Debug)]
struct Refused;

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a value this serializer takes")
    }
}
impl std::error::Error for Refused {}
impl serde::ser::Error for Refused {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Refused
    }
}

/// Serializer methods that refuse what a serializer does not take, with `$err` (the
/// serializers below identify or pick from only some kinds of values).
macro_rules! refuse {
    ($err:expr => $($name:ident($($arg:ty),*) -> $ok:ty),* $(,)?) => {
        $(fn $name(self, $(_: $arg),*) -> Result<$ok, Self::Error> { Err($err) })*
    };
    (newtype_variant $err:expr => $ok:ty) => {
        fn serialize_newtype_variant<T: serde::Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<$ok, Self::Error> {
            Err($err)
        }
    };
}

/// Every list-type problem of `value` against `schema`, walking properties, map values and
/// list items (lists of lists are checked at every level).
#[cfg(feature = "dynamic")]
pub fn validate(value: &Value, schema: &Schema) -> Vec<Issue> {
    ListTypes::of(schema).validate(value)
}

/// Where a schema's `set` and `map` lists are, worked out once: the walk of an object goes
/// only into the parts that hold one. Walking all of it was an eighth of the dynamic
/// validator's time on a large HTTPRoute (issue 54), whose lists are mostly `atomic`.
#[derive(Clone, Debug)]
pub struct ListTypes<'s>(Option<Node<'s>>);

#[derive(Clone, Debug)]
struct Node<'s> {
    schema: &'s Schema,
    /// The properties with a `set` or `map` list at or below them, by name.
    properties: Vec<(&'s str, Node<'s>)>,
    /// The same for `additionalProperties`, and for `items`.
    additional: Option<Box<Node<'s>>>,
    items: Option<Box<Node<'s>>>,
}

impl<'s> ListTypes<'s> {
    /// The lists of `schema`, the root of the values it validates.
    pub fn of(schema: &'s Schema) -> Self {
        ListTypes(Node::of(schema))
    }

    /// Every list-type problem of `value`, as [`validate`].
    pub fn validate(&self, value: &Value) -> Vec<Issue> {
        let mut out = Vec::new();
        if let Some(root) = &self.0 {
            root.walk(value, &At::ROOT, &mut out);
        }
        out
    }
}

impl<'s> Node<'s> {
    fn of(schema: &'s Schema) -> Option<Self> {
        let properties: Vec<_> =
            schema.properties.iter().filter_map(|(name, p)| Some((name.as_str(), Node::of(p)?))).collect();
        let additional = schema.additional_properties_schema().and_then(Node::of).map(Box::new);
        let items = schema.items.as_deref().and_then(Node::of).map(Box::new);
        let here = matches!(schema.list_type.as_deref(), Some("set" | "map"));
        (here || !properties.is_empty() || additional.is_some() || items.is_some()).then_some(Node {
            schema,
            properties,
            additional,
            items,
        })
    }

    /// `at` becomes a [`Path`] only where a duplicate is found. Keys are visited in the
    /// object's order, so the issues come in the order of a walk of all of it.
    fn walk(&self, value: &Value, at: &At<'_>, out: &mut Vec<Issue>) {
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    match self.properties.binary_search_by(|(name, _)| name.cmp(&k.as_str())) {
                        Ok(n) => self.properties[n].1.walk(v, &at.field(k), out),
                        Err(_) => {
                            if let Some(additional) = &self.additional
                                && !self.schema.properties.contains_key(k)
                            {
                                additional.walk(v, &at.key(k), out);
                            }
                        }
                    }
                }
            }
            Value::Array(items) => {
                check_list(items, self.schema, at, out);
                if let Some(item) = &self.items {
                    for (i, v) in items.iter().enumerate() {
                        item.walk(v, &at.index(i), out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The list-type check of one list: its items by its schema's `set` or `map` (a walk's, or
/// the OpenAPI walk's, which finds these on its way).
pub(crate) fn check_list(items: &[Value], schema: &Schema, at: &dyn Place, out: &mut Vec<Issue>) {
    match schema.list_type.as_deref() {
        Some("set") => check_set(items, at, out),
        Some("map") => check_map(items, &schema.list_map_keys, at, out),
        _ => {}
    }
}

fn duplicate(path: &Path, value: BadValue) -> Issue {
    Issue::new(ErrorType::Duplicate, path, KEYWORD, value, "").in_form(PathForm::Field)
}

/// The identity of a set element: scalars keep their decoded Go type, composites their
/// canonical JSON. Strings of JSON are borrowed: identifying a list of scalars allocates
/// nothing.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Identity<'v> {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(Cow<'v, str>),
    Json(String),
}

impl Identity<'_> {
    fn into_owned(self) -> Identity<'static> {
        match self {
            Identity::Null => Identity::Null,
            Identity::Bool(b) => Identity::Bool(b),
            Identity::Int(i) => Identity::Int(i),
            Identity::Float(f) => Identity::Float(f),
            Identity::Str(s) => Identity::Str(Cow::Owned(s.into_owned())),
            Identity::Json(j) => Identity::Json(j),
        }
    }
}

fn set_identity(v: &Value) -> Identity<'_> {
    match v {
        Value::Null => Identity::Null,
        Value::Bool(b) => Identity::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Identity::Int(i),
            None => Identity::Float(n.as_f64().unwrap_or_default().to_bits()),
        },
        Value::String(s) => Identity::Str(Cow::Borrowed(s)),
        composite => Identity::Json(go_json(composite)),
    }
}

/// `x-kubernetes-list-type: set` over the items of one list at `path`.
pub fn check_set(items: &[Value], path: &dyn Place, out: &mut Vec<Issue>) {
    let ids: Vec<Identity> = items.iter().map(set_identity).collect();
    for i in first_repeats(&ids) {
        out.push(duplicate(&path.to_path().index(i), BadValue::of(&items[i])));
    }
}

/// `x-kubernetes-list-type: map` with these keys over the items of one list at `path`.
pub fn check_map<'v, K: AsRef<str>>(items: &'v [Value], keys: &[K], path: &dyn Place, out: &mut Vec<Issue>) {
    if let Some((i, bad)) = items.iter().enumerate().find(|(_, v)| !(v.is_object() || v.is_null())) {
        out.push(
            Issue::new(
                ErrorType::Invalid,
                &path.to_path().index(i),
                KEYWORD,
                BadValue::of(bad),
                "must be an object for an array of list-type map",
            )
            .in_form(PathForm::Field),
        );
        return;
    }
    let empty = Map::new();
    let object = |item: &'v Value| item.as_object().unwrap_or(&empty);
    // The key tuple: each key's value, or `None`, unspecified (not the same as null).
    let ids: Vec<Vec<Option<Identity>>> = items
        .iter()
        .map(|item| keys.iter().map(|k| object(item).get(k.as_ref()).map(set_identity)).collect())
        .collect();
    for i in first_repeats(&ids) {
        let obj = object(&items[i]);
        let shown: Map<String, Value> =
            keys.iter().filter_map(|k| obj.get(k.as_ref()).map(|v| (k.as_ref().to_owned(), v.clone()))).collect();
        out.push(duplicate(&path.to_path().index(i), BadValue::Json(go_json(&Value::Object(shown)))));
    }
}

/// [`check_set`] over typed items: each identified as the JSON it serializes to would be,
/// without building that JSON (only a duplicate's is built, to report it).
pub fn check_typed_set<T: serde::Serialize>(items: &[T], path: &dyn Place, out: &mut Vec<Issue>) {
    // One item repeats nothing (most lists of a small object hold one).
    if items.len() < 2 {
        return;
    }
    let mut ids = Vec::with_capacity(items.len());
    for item in items {
        ids.push(typed::identity(item));
    }
    for i in first_repeats(&ids) {
        let json = serde_json::to_value(&items[i]).unwrap_or(Value::Null);
        out.push(duplicate(&path.to_path().index(i), BadValue::of(&json)));
    }
}

/// [`check_map`] over typed items: each item's key fields identified while it serializes,
/// without building JSON (only a duplicate's keys are built, to report them). Items that are
/// not structs (hand-written item types) go through [`check_map`] over their JSON.
pub fn check_typed_map<T: serde::Serialize>(items: &[T], keys: &[&str], path: &dyn Place, out: &mut Vec<Issue>) {
    // One item repeats nothing; it can only fail to be an object, which its first serializer
    // call tells (picking its keys serialized all of it: 8% of reading a small HTTPRoute,
    // whose header and query-parameter lists hold one item each).
    if let [item] = items
        && picker::is_object_or_null(item)
    {
        return;
    }
    let mut ids = Vec::with_capacity(items.len());
    for item in items {
        match typed::key_identities(item, keys) {
            Some(id) => ids.push(id),
            None => return check_map(&keys_of_items(items, keys), keys, path, out),
        }
    }
    for i in first_repeats(&ids) {
        // The keys given (none for a null item), as `check_map` shows them.
        let shown = match item_keys(&items[i], keys) {
            Value::Null => Value::Object(Map::new()),
            keys => keys,
        };
        out.push(duplicate(&path.to_path().index(i), BadValue::Json(go_json(&shown))));
    }
}

/// The index of each identity's first repetition, in order: the items to report as duplicates
/// (once per identity, as the apiserver does). Generic over the identity only, so the typed
/// checks' per-item-type code stays the identification loop.
fn first_repeats<K: std::hash::Hash + Eq>(ids: &[K]) -> Vec<usize> {
    // Short lists (most are: schemas bound them to a few dozen items) are scanned pairwise,
    // which is cheaper than hashing every identity.
    const PAIRWISE_UP_TO: usize = 32;
    if ids.len() <= PAIRWISE_UP_TO { first_repeats_pairwise(ids) } else { first_repeats_hashed(ids) }
}

/// [`first_repeats`] by comparing each identity with the earlier ones: an item is a first
/// repetition when exactly one earlier item has its identity.
fn first_repeats_pairwise<K: Eq>(ids: &[K]) -> Vec<usize> {
    let mut repeats = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        if ids[..i].iter().filter(|earlier| *earlier == id).count() == 1 {
            repeats.push(i);
        }
    }
    repeats
}

/// [`first_repeats`] through sets of the identities seen and reported.
fn first_repeats_hashed<K: std::hash::Hash + Eq>(ids: &[K]) -> Vec<usize> {
    let mut seen = HashSet::new();
    let mut reported = HashSet::new();
    let mut repeats = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        if !seen.insert(id) && reported.insert(id) {
            repeats.push(i);
        }
    }
    repeats
}

/// Identities of typed values, from the calls their `Serialize` makes.
mod typed {
    use std::borrow::Cow;

    use serde::ser::{self, Impossible, Serialize};

    use super::{Identity, Refused, set_identity};

    /// The identity of `value`, as [`set_identity`] gives for its JSON.
    pub(super) fn identity<T: Serialize + ?Sized>(value: &T) -> Identity<'static> {
        value.serialize(Scalar).unwrap_or_else(|Refused| {
            let json = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
            set_identity(&json).into_owned()
        })
    }

    /// The identities of an item's `keys` fields (`None` for a key it does not give), or
    /// `None` when the item is not a struct, a map or null.
    pub(super) fn key_identities<T: Serialize + ?Sized>(
        item: &T,
        keys: &[&str],
    ) -> Option<Vec<Option<Identity<'static>>>> {
        item.serialize(super::picker::Picker::<Ids> { keys, keep: std::marker::PhantomData }).ok()
    }

    /// Integers that an int64 holds.
    macro_rules! int {
        ($($name:ident($t:ty)),* $(,)?) => {
            $(fn $name(self, v: $t) -> Result<Identity<'static>, Refused> { Ok(Identity::Int(v.into())) })*
        };
    }

    /// Identifies a scalar; refuses anything composite.
    struct Scalar;

    /// What serde_json makes of a float: a number, or `null` when it is not finite.
    fn float(f: f64) -> Identity<'static> {
        if f.is_finite() { Identity::Float(f.to_bits()) } else { Identity::Null }
    }

    impl ser::Serializer for Scalar {
        type Ok = Identity<'static>;
        type Error = Refused;
        type SerializeSeq = Impossible<Identity<'static>, Refused>;
        type SerializeTuple = Impossible<Identity<'static>, Refused>;
        type SerializeTupleStruct = Impossible<Identity<'static>, Refused>;
        type SerializeTupleVariant = Impossible<Identity<'static>, Refused>;
        type SerializeMap = Impossible<Identity<'static>, Refused>;
        type SerializeStruct = Impossible<Identity<'static>, Refused>;
        type SerializeStructVariant = Impossible<Identity<'static>, Refused>;

        fn serialize_bool(self, v: bool) -> Result<Identity<'static>, Refused> {
            Ok(Identity::Bool(v))
        }
        int!(
            serialize_i8(i8),
            serialize_i16(i16),
            serialize_i32(i32),
            serialize_i64(i64),
            serialize_u8(u8),
            serialize_u16(u16),
            serialize_u32(u32),
        );
        fn serialize_u64(self, v: u64) -> Result<Identity<'static>, Refused> {
            // Beyond int64, serde_json's number has no `as_i64`: a float identity.
            Ok(i64::try_from(v).map_or(Identity::Float((v as f64).to_bits()), Identity::Int))
        }
        fn serialize_f32(self, v: f32) -> Result<Identity<'static>, Refused> {
            Ok(float(v.into()))
        }
        fn serialize_f64(self, v: f64) -> Result<Identity<'static>, Refused> {
            Ok(float(v))
        }
        fn serialize_char(self, v: char) -> Result<Identity<'static>, Refused> {
            Ok(Identity::Str(Cow::Owned(v.to_string())))
        }
        fn serialize_str(self, v: &str) -> Result<Identity<'static>, Refused> {
            Ok(Identity::Str(Cow::Owned(v.to_owned())))
        }
        fn serialize_none(self) -> Result<Identity<'static>, Refused> {
            Ok(Identity::Null)
        }
        fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Identity<'static>, Refused> {
            value.serialize(self)
        }
        fn serialize_unit(self) -> Result<Identity<'static>, Refused> {
            Ok(Identity::Null)
        }
        fn serialize_unit_struct(self, _: &'static str) -> Result<Identity<'static>, Refused> {
            Ok(Identity::Null)
        }
        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            variant: &'static str,
        ) -> Result<Identity<'static>, Refused> {
            Ok(Identity::Str(Cow::Borrowed(variant)))
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            value: &T,
        ) -> Result<Identity<'static>, Refused> {
            value.serialize(self)
        }
        refuse!(Refused =>
            serialize_bytes(&[u8]) -> Identity<'static>,
            serialize_i128(i128) -> Identity<'static>,
            serialize_u128(u128) -> Identity<'static>,
            serialize_map(Option<usize>) -> Self::SerializeMap,
            serialize_struct(&'static str, usize) -> Self::SerializeStruct,
            serialize_seq(Option<usize>) -> Self::SerializeSeq,
            serialize_tuple(usize) -> Self::SerializeTuple,
            serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct,
            serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant,
            serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant,
        );
        refuse!(newtype_variant Refused => Identity<'static>);
    }

    /// The identities of the key fields, by the index of each key.
    pub(super) struct Ids(Vec<Option<Identity<'static>>>);

    impl super::picker::Keep for Ids {
        type Out = Vec<Option<Identity<'static>>>;
        fn new(keys: &[&str]) -> Self {
            Ids(vec![None; keys.len()])
        }
        fn keep<T: Serialize + ?Sized>(&mut self, at: usize, _: &str, value: &T) {
            self.0[at] = Some(identity(value));
        }
        fn finish(self) -> Self::Out {
            self.0
        }
        fn null(keys: &[&str]) -> Self::Out {
            vec![None; keys.len()]
        }
    }
}

/// The key fields of a typed list-map item as a JSON object (`null` for a null item): only
/// they are serialized, not the whole item, for [`check_map`] and correlation by key.
pub fn item_keys<T: serde::Serialize + ?Sized>(item: &T, keys: &[&str]) -> Value {
    match item.serialize(picker::Picker::<picker::Json> { keys, keep: std::marker::PhantomData }) {
        Ok(picked) => picked,
        // Not a struct or map (a hand-written item type): the whole item, its keys kept.
        Err(Refused) => keys_of_json(serde_json::to_value(item).unwrap_or(Value::Null), keys),
    }
}

/// The `keys` entries of an object (anything else as it is). Not generic: in [`item_keys`],
/// the collect into a map was one sort implementation per item type.
fn keys_of_json(json: Value, keys: &[&str]) -> Value {
    match json {
        Value::Object(map) => Value::Object(map.into_iter().filter(|(k, _)| keys.contains(&k.as_str())).collect()),
        other => other,
    }
}

/// For each item of `new`, the index of the item of `old` with the same list-map key values.
pub fn correlate<T: serde::Serialize>(new: &[T], old: &[T], keys: &[&str]) -> Vec<Option<usize>> {
    crate::check::ratchet::correlate_map_items(&keys_of_items(new, keys), &keys_of_items(old, keys), keys)
}

/// [`item_keys`] of each item.
fn keys_of_items<T: serde::Serialize>(items: &[T], keys: &[&str]) -> Vec<Value> {
    let mut picked = Vec::with_capacity(items.len());
    for item in items {
        picked.push(item_keys(item, keys));
    }
    picked
}

/// A serializer that hands the named top-level fields of a struct or map to a [`picker::Keep`]
/// and serializes nothing else: the key fields as JSON ([`item_keys`]) and as identities
/// ([`check_typed_map`]) come from the same calls.
mod picker {
    use std::marker::PhantomData;

    use serde::ser::{self, Impossible, Serialize};
    use serde_json::{Map, Value};

    use super::Refused;

    /// What is made of the key fields of one item.
    pub(super) trait Keep: Sized {
        type Out;
        fn new(keys: &[&str]) -> Self;
        /// The value of key `at` (its index in `keys`), named `key`.
        fn keep<T: Serialize + ?Sized>(&mut self, at: usize, key: &str, value: &T);
        fn finish(self) -> Self::Out;
        /// A null item: no key given.
        fn null(keys: &[&str]) -> Self::Out;
    }

    /// The key fields as a JSON object (a null item as `null`).
    pub(super) struct Json(Map<String, Value>);

    impl Keep for Json {
        type Out = Value;
        fn new(_: &[&str]) -> Self {
            Json(Map::new())
        }
        fn keep<T: Serialize + ?Sized>(&mut self, _: usize, key: &str, value: &T) {
            self.0.insert(key.to_owned(), serde_json::to_value(value).unwrap_or(Value::Null));
        }
        fn finish(self) -> Value {
            Value::Object(self.0)
        }
        fn null(_: &[&str]) -> Value {
            Value::Null
        }
    }

    /// Whether an item serializes as an object (a struct or a map) or as null, which is what
    /// [`Picker`] takes: told by the first call of its `Serialize`, the error that stops it
    /// there carrying the answer, so a struct's fields are not visited.
    pub(super) fn is_object_or_null<T: Serialize + ?Sized>(item: &T) -> bool {
        !matches!(item.serialize(Shape), Err(Seen::Other))
    }

    struct Shape;

    #[derive(Debug)]
    enum Seen {
        Object,
        Other,
    }

    impl std::fmt::Display for Seen {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(match self {
                Seen::Object => "an object",
                Seen::Other => "not an object",
            })
        }
    }
    impl std::error::Error for Seen {}
    impl ser::Error for Seen {
        fn custom<T: std::fmt::Display>(_: T) -> Self {
            Seen::Other
        }
    }

    impl ser::Serializer for Shape {
        type Ok = ();
        type Error = Seen;
        type SerializeSeq = Impossible<(), Seen>;
        type SerializeTuple = Impossible<(), Seen>;
        type SerializeTupleStruct = Impossible<(), Seen>;
        type SerializeTupleVariant = Impossible<(), Seen>;
        type SerializeMap = Impossible<(), Seen>;
        type SerializeStruct = Impossible<(), Seen>;
        type SerializeStructVariant = Impossible<(), Seen>;

        fn serialize_none(self) -> Result<(), Seen> {
            Ok(())
        }
        fn serialize_unit(self) -> Result<(), Seen> {
            Ok(())
        }
        fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Seen> {
            value.serialize(self)
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Seen> {
            value.serialize(self)
        }
        // An object is the answer, given as the error that stops the item's serialization.
        refuse!(Seen::Object =>
            serialize_map(Option<usize>) -> Self::SerializeMap,
            serialize_struct(&'static str, usize) -> Self::SerializeStruct,
        );
        refuse!(Seen::Other =>
            serialize_bool(bool) -> (),
            serialize_i8(i8) -> (),
            serialize_i16(i16) -> (),
            serialize_i32(i32) -> (),
            serialize_i64(i64) -> (),
            serialize_u8(u8) -> (),
            serialize_u16(u16) -> (),
            serialize_u32(u32) -> (),
            serialize_u64(u64) -> (),
            serialize_f32(f32) -> (),
            serialize_f64(f64) -> (),
            serialize_char(char) -> (),
            serialize_str(&str) -> (),
            serialize_bytes(&[u8]) -> (),
            serialize_unit_struct(&'static str) -> (),
            serialize_unit_variant(&'static str, u32, &'static str) -> (),
            serialize_seq(Option<usize>) -> Self::SerializeSeq,
            serialize_tuple(usize) -> Self::SerializeTuple,
            serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct,
            serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant,
            serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant,
        );
        refuse!(newtype_variant Seen::Other => ());
    }

    pub(super) struct Picker<'k, K> {
        pub keys: &'k [&'k str],
        pub keep: PhantomData<K>,
    }

    pub(super) struct Fields<'k, K> {
        keys: &'k [&'k str],
        out: K,
        /// The key just given to a map, when it is one of `keys`, with its index.
        next: Option<(usize, String)>,
    }

    impl<K: Keep> ser::SerializeStruct for Fields<'_, K> {
        type Ok = K::Out;
        type Error = Refused;
        fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Refused> {
            if let Some(at) = self.keys.iter().position(|k| *k == key) {
                self.out.keep(at, key, value);
            }
            Ok(())
        }
        fn end(self) -> Result<K::Out, Refused> {
            Ok(self.out.finish())
        }
    }

    impl<K: Keep> ser::SerializeMap for Fields<'_, K> {
        type Ok = K::Out;
        type Error = Refused;
        fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Refused> {
            self.next = match serde_json::to_value(key) {
                Ok(Value::String(k)) => self.keys.iter().position(|want| *want == k).map(|at| (at, k)),
                _ => None,
            };
            Ok(())
        }
        fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Refused> {
            if let Some((at, k)) = self.next.take() {
                self.out.keep(at, &k, value);
            }
            Ok(())
        }
        fn end(self) -> Result<K::Out, Refused> {
            Ok(self.out.finish())
        }
    }

    impl<'k, K: Keep> ser::Serializer for Picker<'k, K> {
        type Ok = K::Out;
        type Error = Refused;
        type SerializeSeq = Impossible<K::Out, Refused>;
        type SerializeTuple = Impossible<K::Out, Refused>;
        type SerializeTupleStruct = Impossible<K::Out, Refused>;
        type SerializeTupleVariant = Impossible<K::Out, Refused>;
        type SerializeMap = Fields<'k, K>;
        type SerializeStruct = Fields<'k, K>;
        type SerializeStructVariant = Impossible<K::Out, Refused>;

        fn serialize_none(self) -> Result<K::Out, Refused> {
            Ok(K::null(self.keys))
        }
        fn serialize_unit(self) -> Result<K::Out, Refused> {
            Ok(K::null(self.keys))
        }
        fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<K::Out, Refused> {
            value.serialize(self)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Fields<'k, K>, Refused> {
            Ok(Fields { keys: self.keys, out: K::new(self.keys), next: None })
        }
        fn serialize_struct(self, _: &'static str, _: usize) -> Result<Fields<'k, K>, Refused> {
            Ok(Fields { keys: self.keys, out: K::new(self.keys), next: None })
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            value: &T,
        ) -> Result<K::Out, Refused> {
            value.serialize(self)
        }
        refuse!(Refused =>
            serialize_bool(bool) -> K::Out,
            serialize_i8(i8) -> K::Out,
            serialize_i16(i16) -> K::Out,
            serialize_i32(i32) -> K::Out,
            serialize_i64(i64) -> K::Out,
            serialize_u8(u8) -> K::Out,
            serialize_u16(u16) -> K::Out,
            serialize_u32(u32) -> K::Out,
            serialize_u64(u64) -> K::Out,
            serialize_f32(f32) -> K::Out,
            serialize_f64(f64) -> K::Out,
            serialize_char(char) -> K::Out,
            serialize_str(&str) -> K::Out,
            serialize_bytes(&[u8]) -> K::Out,
            serialize_unit_struct(&'static str) -> K::Out,
            serialize_unit_variant(&'static str, u32, &'static str) -> K::Out,
            serialize_seq(Option<usize>) -> Self::SerializeSeq,
            serialize_tuple(usize) -> Self::SerializeTuple,
            serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct,
            serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant,
            serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant,
        );
        refuse!(newtype_variant Refused => K::Out);
    }
}

#[cfg(all(test, feature = "dynamic"))]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    proptest! {
        /// Both ways of finding first repetitions agree (short lists take the pairwise one).
        #[test]
        fn first_repeats_pairwise_and_hashed_agree(ids in proptest::collection::vec(0u8..6, 0..40)) {
            prop_assert_eq!(first_repeats_pairwise(&ids), first_repeats_hashed(&ids));
        }
    }

    fn issues(schema: Value, value: Value) -> Vec<String> {
        let (s, errors) = Schema::parse(&schema, "");
        assert!(errors.is_empty(), "{errors:?}");
        validate(&value, &s).iter().map(ToString::to_string).collect()
    }

    fn set_of(items: Value) -> Value {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "s": {"type": "array", "x-kubernetes-list-type": "set", "items": items}}}}})
    }

    #[test]
    fn sets_report_the_second_occurrence_only() {
        let schema = set_of(json!({"type": "string"}));
        assert!(issues(schema.clone(), json!({"spec": {"s": ["a", "b"]}})).is_empty());
        assert_eq!(
            issues(schema, json!({"spec": {"s": ["a", "b", "a", "a"]}})),
            vec!["spec.s[2]: Duplicate value: \"a\""]
        );
    }

    #[test]
    fn set_identity_follows_go_types() {
        let schema = set_of(json!({"type": "number"}));
        assert!(
            issues(schema.clone(), json!({"spec": {"s": [1, 1.0]}})).is_empty(),
            "[quirk] int 1 and float 1.0 differ"
        );
        let objects = set_of(
            json!({"type": "object", "x-kubernetes-map-type": "atomic", "x-kubernetes-preserve-unknown-fields": true}),
        );
        assert_eq!(
            issues(objects, json!({"spec": {"s": [{"a": 1}, {"a": 1.0}]}})),
            vec!["spec.s[1]: Duplicate value: {\"a\":1}"],
            "objects compare by canonical JSON, where 1.0 is 1"
        );
    }

    #[test]
    fn maps_identify_elements_by_their_keys() {
        let schema = json!({"type": "object", "properties": {"l": {"type": "array",
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "port"],
            "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}}}});
        assert_eq!(
            issues(
                schema.clone(),
                json!({"l": [{"name": "a", "port": 1}, {"name": "a", "port": 2}, {"name": "a", "port": 1, "x": 0}]})
            ),
            vec!["l[2]: Duplicate value: {\"name\":\"a\",\"port\":1}"]
        );
        assert!(
            issues(schema.clone(), json!({"l": [{"name": "a"}, {"name": "a", "port": null}]})).is_empty(),
            "missing differs from null"
        );
        assert_eq!(
            issues(schema.clone(), json!({"l": [{"name": "a"}, {"name": "a"}]})),
            vec!["l[1]: Duplicate value: {\"name\":\"a\"}"]
        );
        assert_eq!(
            issues(schema, json!({"l": ["a", {"name": "a"}, 3, {"name": "a"}]})),
            vec!["l[0]: Invalid value: \"a\": must be an object for an array of list-type map"],
            "the first non-object stops the check"
        );
    }

    #[test]
    fn lists_under_map_values_print_field_paths() {
        let schema = json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties":
            {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}});
        assert_eq!(issues(schema, json!({"m": {"a.b": ["x", "x"]}})), vec!["m[a.b][1]: Duplicate value: \"x\""]);
    }

    #[derive(serde::Serialize)]
    struct Port {
        name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        protocol: Option<String>,
        big: Vec<u64>,
    }

    #[test]
    fn typed_items_serialize_their_keys_only() {
        let port = |name: &str, protocol: Option<&str>| Port {
            name: name.into(),
            protocol: protocol.map(Into::into),
            big: vec![1; 1000],
        };
        assert_eq!(item_keys(&port("a", None), &["name", "protocol"]), json!({"name": "a"}));
        assert_eq!(item_keys(&Some(port("a", Some("TCP"))), &["protocol"]), json!({"protocol": "TCP"}));
        assert_eq!(item_keys(&None::<Port>, &["name"]), Value::Null);
        // A map (`Value` objects serialize as one) and a scalar, which is no object at all.
        assert_eq!(item_keys(&json!({"name": "a", "x": 1}), &["name"]), json!({"name": "a"}));
        assert_eq!(item_keys(&json!(5), &["name"]), json!(5));
        let (new, old) =
            (vec![port("b", None), port("a", None), port("c", None)], vec![port("a", None), port("b", None)]);
        assert_eq!(correlate(&new, &old, &["name"]), [Some(1), Some(0), None]);
        // An absent key is not a null one.
        let (absent, null) = (json!({"name": "a"}), json!({"name": "a", "protocol": null}));
        let keys = ["name", "protocol"];
        assert_eq!(crate::check::ratchet::correlate_map_items(std::slice::from_ref(&absent), &[null], &keys), [None]);
        assert_eq!(
            crate::check::ratchet::correlate_map_items(
                std::slice::from_ref(&absent),
                std::slice::from_ref(&absent),
                &keys
            ),
            [Some(0)]
        );
    }
}

/// The typed checks report what the JSON checks report for the JSON the items serialize to.
#[cfg(test)]
mod typed_tests {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::*;

    #[derive(serde::Serialize, Debug, Clone)]
    struct Item {
        name: Option<String>,
        port: Option<i64>,
        weight: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        protocol: Option<String>,
        tags: Vec<String>,
    }

    fn item() -> impl Strategy<Value = Item> {
        let text = prop::option::of(prop::sample::select(vec!["a".to_owned(), "b".to_owned(), "é".to_owned()]));
        (
            text.clone(),
            prop::option::of(0i64..3),
            prop::option::of(prop::sample::select(vec![1.0, 1.5])),
            text,
            prop::collection::vec("[ab]", 0..2),
        )
            .prop_map(|(name, port, weight, protocol, tags)| Item { name, port, weight, protocol, tags })
    }

    fn texts(issues: &[Issue]) -> Vec<String> {
        issues.iter().map(ToString::to_string).collect()
    }

    proptest! {
        #[test]
        fn typed_map_reports_as_json_map(items in prop::collection::vec(item(), 0..8), keys in prop::sample::subsequence(vec!["name", "port", "weight", "protocol", "tags"], 1..3)) {
            let json: Vec<Value> = items.iter().map(|i| item_keys(i, &keys)).collect();
            let (mut typed, mut plain) = (Vec::new(), Vec::new());
            check_typed_map(&items, &keys, &Path::root().key("l"), &mut typed);
            check_map(&json, &keys, &Path::root().key("l"), &mut plain);
            prop_assert_eq!(texts(&typed), texts(&plain));
        }

        #[test]
        fn typed_set_reports_as_json_set(items in prop::collection::vec(item(), 0..8)) {
            let json: Vec<Value> = items.iter().map(|i| serde_json::to_value(i).unwrap()).collect();
            let (mut typed, mut plain) = (Vec::new(), Vec::new());
            check_typed_set(&items, &Path::root().key("l"), &mut typed);
            check_set(&json, &Path::root().key("l"), &mut plain);
            prop_assert_eq!(texts(&typed), texts(&plain));
            let names: Vec<Option<String>> = items.iter().map(|i| i.name.clone()).collect();
            let names_json: Vec<Value> = names.iter().map(|n| serde_json::to_value(n).unwrap()).collect();
            let (mut typed, mut plain) = (Vec::new(), Vec::new());
            check_typed_set(&names, &Path::root().key("l"), &mut typed);
            check_set(&names_json, &Path::root().key("l"), &mut plain);
            prop_assert_eq!(texts(&typed), texts(&plain));
        }
    }

    /// A list of one item reports what the JSON check reports: nothing for an object or
    /// null, the item for anything else (hand-written item types may be any value).
    #[test]
    fn one_item_is_checked_for_its_shape_only() {
        let shapes = [
            serde_json::json!({"name": "a"}),
            serde_json::json!({}),
            Value::Null,
            serde_json::json!("a"),
            serde_json::json!(1),
            serde_json::json!(true),
            serde_json::json!([{"name": "a"}]),
        ];
        for item in shapes {
            let (mut typed, mut plain) = (Vec::new(), Vec::new());
            check_typed_map(std::slice::from_ref(&item), &["name"], &Path::root().key("l"), &mut typed);
            check_map(std::slice::from_ref(&item), &["name"], &Path::root().key("l"), &mut plain);
            assert_eq!(texts(&typed), texts(&plain), "{item}");
            assert_eq!(typed.is_empty(), item.is_object() || item.is_null(), "{item}");
        }
        let (mut typed, mut plain) = (Vec::new(), Vec::new());
        check_typed_map(
            &[Some(Item { name: None, port: None, weight: None, protocol: None, tags: vec![] })],
            &["name"],
            &Path::root(),
            &mut typed,
        );
        check_typed_map(&[Option::<Item>::None], &["name"], &Path::root(), &mut plain);
        assert!(typed.is_empty() && plain.is_empty());
    }

    #[test]
    fn numbers_keep_their_go_type() {
        let (mut typed, mut plain) = (Vec::new(), Vec::new());
        let items = [Value::from(1), Value::from(1.0), Value::from(1), Value::from(u64::MAX), Value::from(u64::MAX)];
        check_set(&items, &Path::root(), &mut plain);
        check_typed_set(
            &[1i64.into(), 1.0f64.into(), 1i64.into(), u64::MAX.into(), u64::MAX.into()] as &[Num],
            &Path::root(),
            &mut typed,
        );
        assert_eq!(texts(&typed), texts(&plain));
        assert_eq!(plain.len(), 2, "{plain:?}");
    }

    /// A number as serde serializes each kind.
    #[derive(Debug)]
    enum Num {
        Int(i64),
        Float(f64),
        Big(u64),
    }
    impl From<i64> for Num {
        fn from(i: i64) -> Num {
            Num::Int(i)
        }
    }
    impl From<f64> for Num {
        fn from(f: f64) -> Num {
            Num::Float(f)
        }
    }
    impl From<u64> for Num {
        fn from(u: u64) -> Num {
            Num::Big(u)
        }
    }
    impl serde::Serialize for Num {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            match self {
                Num::Int(i) => s.serialize_i64(*i),
                Num::Float(f) => s.serialize_f64(*f),
                Num::Big(u) => s.serialize_u64(*u),
            }
        }
    }
}
