//! Where a field set points: path elements as structured-merge-diff spells them (`f:` a field,
//! `k:` a list-map item by its keys, `v:` a set item by its value, `i:` a list index), their
//! total order (the order of FieldsV1 and of conflict lists), and their printed forms.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde_json::Value;

use crate::report::issue::{go_float, go_json, go_quote, push_go_json_string};

/// One step of a path. Shared, not owned: a field set's operations copy elements by the
/// thousand, and a copy is then a count, not an allocation (issue 49). Equal as ordered (an
/// int and a whole float are one value), and hashed alike, so that a list's items are found
/// by hashing rather than by a search over thousands.
#[derive(Clone, Debug)]
pub enum PathElement {
    /// A field of a struct or a key of a map: `f:name`.
    Field(Name),
    /// An item of a `map` list, by its key fields (sorted by name): `k:{"name":"a"}`.
    Key(Arc<[(Name, ItemValue)]>),
    /// An item of a `set` list, by its value: `v:"a"`.
    Value(ItemValue),
    /// An item of a list by position: `i:0` (read, never written by this apply).
    Index(usize),
}

/// A path from the object's root.
pub type FieldPath = Vec<PathElement>;

/// A key field's or a set item's value, as an element holds it: a string as a [`Name`]
/// (inline up to [`Name::INLINE`] bytes: nearly every key and set member), an integer as it
/// is, anything else shared. Held as a `Value`, an element made from a list item was two
/// allocations and two to free, in every set that records the item (issue 49).
///
/// One value has one form: a JSON string is always `String`, a number Go reads as an int64
/// always `Int`, so that forms compare and hash as the values do.
#[derive(Clone, Debug)]
pub enum ItemValue {
    /// A string.
    String(Name),
    /// An integer that fits an int64.
    Int(i64),
    /// Any other value (a float, a boolean, null, a list, a map).
    Other(Arc<Value>),
}

impl ItemValue {
    /// The value as JSON.
    pub fn to_value(&self) -> Value {
        match self {
            ItemValue::String(s) => Value::String(s.as_str().to_owned()),
            ItemValue::Int(i) => Value::from(*i),
            ItemValue::Other(v) => (**v).clone(),
        }
    }

    fn as_ref(&self) -> ValueRef<'_> {
        match self {
            ItemValue::String(s) => ValueRef::Str(s.as_bytes()),
            ItemValue::Int(i) => ValueRef::Int(*i),
            ItemValue::Other(v) => ValueRef::Any(v),
        }
    }
}

impl From<&Value> for ItemValue {
    fn from(value: &Value) -> Self {
        match ValueRef::of(value) {
            ValueRef::Str(_) => ItemValue::String(value.as_str().unwrap_or_default().into()),
            ValueRef::Int(i) => ItemValue::Int(i),
            ValueRef::Any(v) => ItemValue::Other(Arc::new(v.clone())),
        }
    }
}

impl From<Value> for ItemValue {
    fn from(value: Value) -> Self {
        match value {
            Value::String(s) => ItemValue::String(s.into()),
            other => match other.as_i64() {
                Some(i) if other.is_number() => ItemValue::Int(i),
                _ => ItemValue::Other(Arc::new(other)),
            },
        }
    }
}

/// A value borrowed in one form whichever side it comes from (an item's `Value`, an element's
/// [`ItemValue`]), for comparing and hashing the two alike.
#[derive(Clone, Copy)]
enum ValueRef<'a> {
    /// A string's bytes (UTF-8 orders as its text; a `Name`'s text is not checked again).
    Str(&'a [u8]),
    Int(i64),
    /// Never a string nor an int64.
    Any(&'a Value),
}

impl<'a> ValueRef<'a> {
    fn of(value: &'a Value) -> Self {
        match value {
            Value::String(s) => ValueRef::Str(s.as_bytes()),
            Value::Number(n) => n.as_i64().map_or(ValueRef::Any(value), ValueRef::Int),
            other => ValueRef::Any(other),
        }
    }

    /// [`compare_values`] on the two, without making either a `Value`.
    fn cmp(self, other: ValueRef<'_>) -> Ordering {
        match (self, other) {
            (ValueRef::Str(a), ValueRef::Str(b)) => a.cmp(b),
            (ValueRef::Int(a), ValueRef::Int(b)) => a.cmp(&b),
            (ValueRef::Any(a), ValueRef::Any(b)) => compare_values(a, b),
            // An int64 against a float: compared as floats, as `compare_values` compares them.
            (ValueRef::Int(a), ValueRef::Any(Value::Number(b))) => {
                (a as f64).partial_cmp(&b.as_f64().unwrap_or(f64::NAN)).unwrap_or(Ordering::Equal)
            }
            (ValueRef::Any(Value::Number(a)), ValueRef::Int(b)) => {
                a.as_f64().unwrap_or(f64::NAN).partial_cmp(&(b as f64)).unwrap_or(Ordering::Equal)
            }
            _ => self.rank().cmp(&other.rank()),
        }
    }

    fn rank(self) -> u8 {
        match self {
            ValueRef::Int(_) => 0,
            ValueRef::Str(_) => 1,
            ValueRef::Any(v) => value_rank(v),
        }
    }

    /// A hash equal for values [`ValueRef::cmp`] finds equal.
    fn hash<H: Hasher>(self, state: &mut H) {
        match self {
            ValueRef::Str(s) => (1u8, s).hash(state),
            ValueRef::Int(i) => (0u8, (i as f64 + 0.0).to_bits()).hash(state),
            ValueRef::Any(v) => hash_value(v, state),
        }
    }
}

/// An [`ItemValue`] read from JSON: a string without an escape straight into its name, with
/// no `String` between.
struct ItemValueSeed(ItemValue);

impl<'de> serde::Deserialize<'de> for ItemValueSeed {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = ItemValue;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_str<E>(self, v: &str) -> Result<ItemValue, E> {
                Ok(ItemValue::String(v.into()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<ItemValue, E> {
                Ok(ItemValue::Int(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<ItemValue, E> {
                Ok(i64::try_from(v).map_or_else(|_| ItemValue::Other(Arc::new(v.into())), ItemValue::Int))
            }
            fn visit_f64<E>(self, v: f64) -> Result<ItemValue, E> {
                Ok(ItemValue::Other(Arc::new(v.into())))
            }
            fn visit_bool<E>(self, v: bool) -> Result<ItemValue, E> {
                Ok(ItemValue::Other(Arc::new(v.into())))
            }
            fn visit_unit<E>(self) -> Result<ItemValue, E> {
                Ok(ItemValue::Other(Arc::new(Value::Null)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<ItemValue, A::Error> {
                Ok(ItemValue::Other(Arc::new(serde::Deserialize::deserialize(SeqAccessDeserializer::new(seq))?)))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<ItemValue, A::Error> {
                Ok(ItemValue::Other(Arc::new(serde::Deserialize::deserialize(MapAccessDeserializer::new(map))?)))
            }
        }
        deserializer.deserialize_any(Visitor).map(ItemValueSeed)
    }
}

/// The fields of a `k:` key's JSON object, read without a map between (a managed fields
/// entry has a `k:` key per list item it owns): `None` for any other text (a name with an
/// escape included), which the caller reads whole.
fn read_key_fields(text: &str) -> Option<Vec<(Name, ItemValue)>> {
    struct Fields;
    impl<'de> serde::de::Visitor<'de> for Fields {
        type Value = Vec<(Name, ItemValue)>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut fields = Vec::with_capacity(map.size_hint().unwrap_or(1));
            while let Some((name, value)) = map.next_entry::<&'de str, ItemValueSeed>()? {
                fields.push((Name::from(name), value.0));
            }
            Ok(fields)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let fields = serde::Deserializer::deserialize_map(&mut de, Fields).ok()?;
    de.end().ok()?;
    Some(fields)
}

/// A field's name, held inline up to [`Name::INLINE`] bytes (nearly every name) and shared
/// beyond: a walk of a list of 10,000 items made each item's field names anew, an allocation
/// each, a third of an apply's time in the allocator (issue 49).
#[derive(Clone)]
pub struct Name(NameRepr);

#[derive(Clone)]
enum NameRepr {
    Inline { len: u8, bytes: [u8; Name::INLINE] },
    Shared(Arc<str>),
}

impl Name {
    /// The longest name held inline.
    pub const INLINE: usize = 22;

    /// The name as text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).expect("invariant: copied from a str")
    }

    /// The name's bytes, compared and hashed as they are (UTF-8 orders as its text does).
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            NameRepr::Inline { len, bytes } => &bytes[..usize::from(*len)],
            NameRepr::Shared(name) => name.as_bytes(),
        }
    }
}

impl From<&str> for Name {
    fn from(name: &str) -> Self {
        if name.len() <= Name::INLINE {
            let mut bytes = [0; Name::INLINE];
            bytes[..name.len()].copy_from_slice(name.as_bytes());
            Name(NameRepr::Inline { len: name.len() as u8, bytes })
        } else {
            Name(NameRepr::Shared(name.into()))
        }
    }
}

impl From<String> for Name {
    fn from(name: String) -> Self {
        Name::from(name.as_str())
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Name {}

impl Ord for Name {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PathElement {
    /// The key of this element in FieldsV1 (`f:spec`, `k:{"name":"a"}`, `v:1`, `i:0`), values
    /// written as Go's JSON writes them.
    pub fn fields_v1_key(&self) -> String {
        // Written into one buffer: a FieldsV1 entry has a key per owned field.
        let push_json = |key: &mut String, value: &ItemValue| match value {
            ItemValue::String(s) => push_go_json_string(key, s),
            ItemValue::Int(i) => {
                use std::fmt::Write;
                let _ = write!(key, "{i}");
            }
            ItemValue::Other(other) => key.push_str(&go_json(other)),
        };
        match self {
            PathElement::Field(name) => {
                let mut key = String::with_capacity(name.len() + 2);
                key.push_str("f:");
                key.push_str(name);
                key
            }
            PathElement::Key(fields) => {
                let mut key = String::with_capacity(32);
                key.push_str("k:{");
                for (i, (name, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        key.push(',');
                    }
                    push_go_json_string(&mut key, name);
                    key.push(':');
                    push_json(&mut key, value);
                }
                key.push('}');
                key
            }
            PathElement::Value(value) => {
                let mut key = String::with_capacity(16);
                key.push_str("v:");
                push_json(&mut key, value);
                key
            }
            PathElement::Index(i) => format!("i:{i}"),
        }
    }

    /// Reads a FieldsV1 key; `Ok(None)` for a kind this version does not know (upstream drops
    /// those rather than fail).
    pub fn from_fields_v1_key(full_key: &str) -> Result<Option<PathElement>, String> {
        // Echoed (cut) only in an error: a managed fields entry has a key per owned field.
        let key = || crate::report::issue::echo(full_key);
        let Some((kind, rest)) = full_key.split_at_checked(2) else {
            return Err(format!("key must be 2 characters long: {}", key()));
        };
        if !kind.ends_with(':') {
            return Err(format!("missing colon: {}", key()));
        }
        let json = |text: &str| serde_json::from_str::<Value>(text).map_err(|e| format!("{}: {e}", key()));
        Ok(Some(match &kind[..1] {
            "f" => PathElement::Field(rest.into()),
            "v" => PathElement::Value(
                serde_json::from_str::<ItemValueSeed>(rest).map_err(|e| format!("{}: {e}", key()))?.0,
            ),
            "k" => {
                let mut fields = match read_key_fields(rest) {
                    Some(fields) => fields,
                    // Anything else is read whole, for the parser's own words on it.
                    None => match json(rest)? {
                        Value::Object(map) => map.into_iter().map(|(k, v)| (k.into(), v.into())).collect(),
                        _ => return Err(format!("{}: the keys of a k: element are a JSON object", key())),
                    },
                };
                // A name given twice is the last one's, as a JSON object reads it.
                fields.sort_by(|a, b| a.0.cmp(&b.0));
                fields.dedup_by(|later, earlier| {
                    let same = later.0 == earlier.0;
                    if same {
                        std::mem::swap(later, earlier);
                    }
                    same
                });
                PathElement::Key(fields.into())
            }
            "i" => PathElement::Index(rest.parse().map_err(|e| format!("{}: {e}", key()))?),
            _ => return Ok(None),
        }))
    }
}

impl PartialEq for PathElement {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for PathElement {}

impl Hash for PathElement {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            PathElement::Field(name) => (0u8, name).hash(state),
            PathElement::Key(fields) => {
                (1u8, fields.len()).hash(state);
                for (name, value) in fields.iter() {
                    name.hash(state);
                    value.as_ref().hash(state);
                }
            }
            PathElement::Value(value) => {
                2u8.hash(state);
                value.as_ref().hash(state);
            }
            PathElement::Index(i) => (3u8, i).hash(state),
        }
    }
}

/// A hash of a value that [`compare_values`] finds equal to another's: numbers by their
/// float value (an int and a whole float compare equal), maps by their size alone (their
/// keys' order is not theirs to give).
fn hash_value<H: Hasher>(value: &Value, state: &mut H) {
    match value {
        Value::Number(n) => (0u8, (n.as_f64().unwrap_or_default() + 0.0).to_bits()).hash(state),
        Value::String(s) => (1u8, s).hash(state),
        Value::Bool(b) => (2u8, b).hash(state),
        Value::Array(items) => {
            (3u8, items.len()).hash(state);
            for item in items {
                hash_value(item, state);
            }
        }
        Value::Object(map) => (4u8, map.len()).hash(state),
        Value::Null => 5u8.hash(state),
    }
}

impl PathElement {
    /// The kind's place in the order: fields, keys, values, indexes.
    fn rank(&self) -> u8 {
        match self {
            PathElement::Field(_) => 0,
            PathElement::Key(_) => 1,
            PathElement::Value(_) => 2,
            PathElement::Index(_) => 3,
        }
    }
}

impl Ord for PathElement {
    /// structured-merge-diff's order: fields (by name), then keys, then values, then indexes.
    fn cmp(&self, other: &Self) -> Ordering {
        use PathElement::*;
        match (self, other) {
            // A set's operations compare an element with its own copies, shared.
            (Key(a), Key(b)) if Arc::ptr_eq(a, b) => Ordering::Equal,
            (Field(a), Field(b)) => a.cmp(b),
            (Key(a), Key(b)) => compare_key_fields(
                a.iter().map(|(name, value)| (name.as_bytes(), value.as_ref())),
                b.iter().map(|(name, value)| (name.as_bytes(), value.as_ref())),
            ),
            (Value(a), Value(b)) => a.as_ref().cmp(b.as_ref()),
            (Index(a), Index(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

/// Two key elements' order: field by field (name, then value), then the fewer first.
fn compare_key_fields<'a, 'b>(
    a: impl ExactSizeIterator<Item = (&'a [u8], ValueRef<'a>)>,
    b: impl ExactSizeIterator<Item = (&'b [u8], ValueRef<'b>)>,
) -> Ordering {
    let (a_len, b_len) = (a.len(), b.len());
    for ((a_name, a_value), (b_name, b_value)) in a.zip(b) {
        let c = a_name.cmp(b_name).then_with(|| a_value.cmp(b_value));
        if c != Ordering::Equal {
            return c;
        }
    }
    a_len.cmp(&b_len)
}

/// A list item's element as a walk reads it, borrowed from the item (and its schema's key
/// defaults): ordered, hashed and printed as the [`PathElement`] it stands for, which is made
/// only where a set records it. Made owned on every walk, an element was two allocations per
/// item per walk, most of a merge's and a comparison's (issue 49).
#[derive(Clone, Debug)]
pub(crate) enum ItemKey<'v> {
    /// A `map` list item's key fields, sorted by name.
    Key(KeyFields<'v>),
    /// A `set` list item's value.
    Value(&'v Value),
}

/// The key fields of an item: one (nearly every map list) without an allocation.
#[derive(Clone, Debug)]
pub(crate) enum KeyFields<'v> {
    One([(&'v str, &'v Value); 1]),
    Many(Vec<(&'v str, &'v Value)>),
}

impl<'v> KeyFields<'v> {
    /// The fields, sorted by name.
    pub(crate) fn of(mut fields: Vec<(&'v str, &'v Value)>) -> Self {
        match fields.as_slice() {
            [one] => KeyFields::One([*one]),
            _ => {
                fields.sort_by(|a, b| a.0.cmp(b.0));
                KeyFields::Many(fields)
            }
        }
    }

    fn as_slice(&self) -> &[(&'v str, &'v Value)] {
        match self {
            KeyFields::One(one) => one,
            KeyFields::Many(many) => many,
        }
    }
}

impl ItemKey<'_> {
    /// The element it stands for.
    pub(crate) fn to_element(&self) -> PathElement {
        match self {
            ItemKey::Value(value) => PathElement::Value(ItemValue::from(*value)),
            ItemKey::Key(fields) => PathElement::Key(
                fields.as_slice().iter().map(|(name, value)| (Name::from(*name), ItemValue::from(*value))).collect(),
            ),
        }
    }

    /// Its order against a set's element, the order of the element it stands for.
    pub(crate) fn cmp_element(&self, element: &PathElement) -> Ordering {
        match (self, element) {
            (ItemKey::Key(a), PathElement::Key(b)) => compare_key_fields(
                a.as_slice().iter().map(|(name, value)| (name.as_bytes(), ValueRef::of(value))),
                b.iter().map(|(name, value)| (name.as_bytes(), value.as_ref())),
            ),
            (ItemKey::Value(a), PathElement::Value(b)) => ValueRef::of(a).cmp(b.as_ref()),
            (ItemKey::Key(_), _) => 1.cmp(&element.rank()),
            (ItemKey::Value(_), _) => 2.cmp(&element.rank()),
        }
    }
}

impl Ord for ItemKey<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (ItemKey::Key(a), ItemKey::Key(b)) => compare_key_fields(
                a.as_slice().iter().map(|(name, value)| (name.as_bytes(), ValueRef::of(value))),
                b.as_slice().iter().map(|(name, value)| (name.as_bytes(), ValueRef::of(value))),
            ),
            (ItemKey::Value(a), ItemKey::Value(b)) => ValueRef::of(a).cmp(ValueRef::of(b)),
            (ItemKey::Key(_), ItemKey::Value(_)) => Ordering::Less,
            (ItemKey::Value(_), ItemKey::Key(_)) => Ordering::Greater,
        }
    }
}

impl PartialOrd for ItemKey<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for ItemKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for ItemKey<'_> {}

impl Hash for ItemKey<'_> {
    /// As the element it stands for hashes.
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            ItemKey::Key(fields) => {
                (1u8, fields.as_slice().len()).hash(state);
                for (name, value) in fields.as_slice() {
                    name.as_bytes().hash(state);
                    ValueRef::of(value).hash(state);
                }
            }
            ItemKey::Value(value) => {
                2u8.hash(state);
                ValueRef::of(value).hash(state);
            }
        }
    }
}

impl std::fmt::Display for ItemKey<'_> {
    /// As the element it stands for prints (only ever in an error).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.to_element().fmt(f)
    }
}

impl PartialOrd for PathElement {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// structured-merge-diff's total order of values: numbers (ints and floats compared as
/// numbers), strings, booleans, lists, maps, null.
pub fn compare_values(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => {
                let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
                x.partial_cmp(&y).unwrap_or(Ordering::Equal)
            }
        },
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Array(x), Value::Array(y)) => {
            for (p, q) in x.iter().zip(y) {
                let c = compare_values(p, q);
                if c != Ordering::Equal {
                    return c;
                }
            }
            x.len().cmp(&y.len())
        }
        (Value::Object(x), Value::Object(y)) => {
            // Keys in lexical order; a key only one side has makes that side the greater.
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let c = match (x.get(key), y.get(key)) {
                    (Some(p), Some(q)) => compare_values(p, q),
                    (None, _) => Ordering::Greater,
                    (_, None) => Ordering::Less,
                };
                if c != Ordering::Equal {
                    return c;
                }
            }
            x.len().cmp(&y.len())
        }
        _ => value_rank(a).cmp(&value_rank(b)),
    }
}

/// A value's kind's place in [`compare_values`]'s order.
fn value_rank(v: &Value) -> u8 {
    match v {
        Value::Number(_) => 0,
        Value::String(_) => 1,
        Value::Bool(_) => 2,
        Value::Array(_) => 3,
        Value::Object(_) => 4,
        Value::Null => 5,
    }
}

/// A value as structured-merge-diff prints it in a path (`value.ToString`): strings quoted as
/// Go's `%q`, numbers and booleans as `%v`.
fn value_text(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.to_string(),
            (_, Some(u)) => u.to_string(),
            _ => go_float(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => go_quote(s),
        Value::Bool(b) => b.to_string(),
        Value::Array(items) => format!("[{}]", items.iter().map(value_text).collect::<Vec<_>>().join(",")),
        Value::Object(map) => map.iter().map(|(k, v)| format!("{k}={}", value_text(v))).collect(),
    }
}

fn item_value_text(v: &ItemValue) -> String {
    match v {
        ItemValue::String(s) => go_quote(s),
        ItemValue::Int(i) => i.to_string(),
        ItemValue::Other(v) => value_text(v),
    }
}

impl std::fmt::Display for PathElement {
    /// As a conflict names it: `.spec`, `[name="a",port=80]`, `[="x"]`, `[0]`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathElement::Field(name) => write!(f, ".{name}"),
            PathElement::Key(fields) => {
                let parts: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={}", item_value_text(v))).collect();
                write!(f, "[{}]", parts.join(","))
            }
            PathElement::Value(v) => write!(f, "[={}]", item_value_text(v)),
            PathElement::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// A path as a conflict names it: its elements' printed forms, joined.
pub fn path_text(path: &[PathElement]) -> String {
    path.iter().map(ToString::to_string).collect()
}

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher;

    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;

    /// Values whose forms an element may hold differently: ints, whole and other floats,
    /// large unsigned numbers, short and long strings, and the rest.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            (-3i64..3).prop_map(Value::from),
            (-3i64..3).prop_map(|n| json!(n as f64)),
            Just(json!(0.5)),
            Just(json!(u64::MAX)),
            Just(json!(i64::MIN)),
            "[ab]{0,2}".prop_map(Value::from),
            Just(json!("a".repeat(Name::INLINE + 1))),
            any::<bool>().prop_map(Value::from),
            Just(Value::Null),
        ];
        // Mostly leaves: two of a kind, the pairs whose forms differ, are then common.
        let nested = leaf.clone().prop_recursive(2, 6, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
                proptest::collection::btree_map("[ab]", inner, 0..2).prop_map(|m| json!(m)),
            ]
        });
        prop_oneof![6 => leaf, 1 => nested]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// An element's value orders and hashes as the JSON value it was made from, whether
        /// compared with another element or with an item's value.
        #[test]
        fn item_values_order_and_hash_as_values(a in value(), b in value()) {
            let expected = compare_values(&a, &b);
            let (x, y) = (PathElement::Value((&a).into()), PathElement::Value(b.clone().into()));
            prop_assert_eq!(x.cmp(&y), expected);
            prop_assert_eq!(ItemKey::Value(&a).cmp_element(&y), expected);
            prop_assert_eq!(ItemKey::Value(&a).cmp(&ItemKey::Value(&b)), expected);
            let key = |v: &Value| PathElement::Key(vec![("k".into(), v.into())].into());
            prop_assert_eq!(key(&a).cmp(&key(&b)), expected);
            prop_assert_eq!(PathElement::from_fields_v1_key(&x.fields_v1_key()).unwrap(), Some(x.clone()));
            if expected == Ordering::Equal {
                let state = std::hash::RandomState::new();
                prop_assert_eq!(state.hash_one(&x), state.hash_one(&y));
                prop_assert_eq!(state.hash_one(&x), state.hash_one(ItemKey::Value(&b)));
            }
        }
    }
}
