//! The walks structured-merge-diff makes over a value and its type: the set of fields a value
//! sets (`ToFieldSet`), the merge of an applied configuration into a live object (`Merge`),
//! what changed between two objects (`Compare`), and the removal (or extraction) of a set of
//! fields (`RemoveItems`, `ExtractItems`). Each is a port of upstream's walker of that name,
//! case for case; where upstream is subtle the comment says what it does.

use std::collections::HashMap;
use std::hash::Hash;
use std::iter::Peekable;

use serde_json::{Map, Value};

use super::path::{ItemKey, KeyFields, Path, PathElement};
use super::set::{Entry, FieldSet, Gather};
use super::types::{Atom, ListKind, Ty};

static NULL: Value = Value::Null;

/// The path element of a list item, borrowed (made an element only where a set records it):
/// its keys (with the key fields' defaults) in a map list, its value in a set. Upstream's
/// words where the item cannot have one.
pub(crate) fn item_key<'v>(kind: ListKind<'v>, items: Ty<'v>, item: &'v Value) -> Result<ItemKey<'v>, String> {
    match kind {
        ListKind::Atomic => Err("invalid indexing of non-associative list".into()),
        ListKind::Set => match item {
            Value::Object(_) => Err("associative list without keys has an element that's a map type".into()),
            Value::Array(_) => Err("not supported: associative list with lists as elements".into()),
            Value::Null => Err("associative list without keys has an element that's an explicit null".into()),
            v => Ok(ItemKey::Value(v)),
        },
        ListKind::Map(keys) => {
            let Value::Object(map) = item else {
                return Err(match item {
                    Value::Null => "associative list with keys may not have a null element".into(),
                    _ => "associative list with keys may not have non-map elements".into(),
                });
            };
            if let [key] = keys
                && let Some(v) = map.get(key).or_else(|| key_default(items, key))
            {
                return Ok(ItemKey::Key(KeyFields::One([(key.as_str(), v)])));
            }
            let fields: Vec<(&str, &Value)> = keys
                .iter()
                .filter_map(|key| map.get(key).or_else(|| key_default(items, key)).map(|v| (key.as_str(), v)))
                .collect();
            if !keys.is_empty() && fields.is_empty() {
                let quoted: Vec<String> = keys.iter().map(|k| crate::report::issue::go_quote(k)).collect();
                return Err(format!(
                    "associative list with keys has an element that omits all key fields [{}] (and doesn't have default values for any key fields)",
                    quoted.join(" ")
                ));
            }
            Ok(ItemKey::Key(KeyFields::of(fields)))
        }
    }
}

/// A list's items by path element: a few found by a scan, many by a hash with a per-process
/// seed. Nearly every list is short (a list of two tags in each of 45,000 items made a hash
/// table per item per walk, most of a merge's time), and a long one must not be quadratic.
struct ElementMap<K, V> {
    few: Vec<(K, V)>,
    many: Option<HashMap<K, V, foldhash::fast::RandomState>>,
}

impl<K: Eq + Hash, V> ElementMap<K, V> {
    /// Past this many, a scan costs more than a hash.
    const FEW: usize = 16;

    fn with_capacity(n: usize) -> Self {
        if n <= Self::FEW {
            ElementMap { few: Vec::with_capacity(n), many: None }
        } else {
            ElementMap { few: Vec::new(), many: Some(HashMap::with_capacity_and_hasher(n, Default::default())) }
        }
    }

    fn get(&self, key: &K) -> Option<&V> {
        match &self.many {
            Some(many) => many.get(key),
            None => self.few.iter().find(|(k, _)| k == key).map(|(_, v)| v),
        }
    }

    fn contains_key(&self, key: &K) -> bool {
        self.get(key).is_some()
    }

    /// The value at `key`, inserted by `value` first if absent.
    fn get_or_insert_with(&mut self, key: K, value: impl FnOnce() -> V) -> &mut V {
        if self.many.is_none() && self.few.len() >= Self::FEW && !self.few.iter().any(|(k, _)| *k == key) {
            self.many = Some(std::mem::take(&mut self.few).into_iter().collect());
        }
        match &mut self.many {
            Some(many) => many.entry(key).or_insert_with(value),
            None => match self.few.iter().position(|(k, _)| *k == key) {
                Some(at) => &mut self.few[at].1,
                None => {
                    self.few.push((key, value()));
                    &mut self.few.last_mut().expect("invariant: just pushed").1
                }
            },
        }
    }
}

fn key_default<'s>(items: Ty<'s>, key: &str) -> Option<&'s Value> {
    match items {
        Ty::Schema(s) => s.properties.get(key).and_then(|p| p.default.as_ref()),
        Ty::Deduced => None,
    }
}

/// The keys of either map, each once, in order. serde_json's maps iterate in key order (a
/// `BTreeMap`), walked together without a copy; with `preserve_order` (an `IndexMap`, if a
/// dependent turns it on) they are gathered and sorted.
fn union_keys<'m>(l: Option<&'m Map<String, Value>>, r: Option<&'m Map<String, Value>>) -> UnionKeys<'m> {
    let sorted = |m: Option<&Map<String, Value>>| m.is_none_or(|m| m.keys().is_sorted());
    let (l_keys, r_keys) = (l.into_iter().flat_map(Map::keys), r.into_iter().flat_map(Map::keys));
    if !(sorted(l) && sorted(r)) {
        let mut keys: Vec<&String> = l_keys.chain(r_keys).collect();
        keys.sort();
        keys.dedup();
        return UnionKeys::Gathered(keys.into_iter());
    }
    UnionKeys::Walked(l.map(|m| m.keys().peekable()), r.map(|m| m.keys().peekable()))
}

/// [`union_keys`]' keys: two sorted maps' walked together (a merge of a list of 10,000 items
/// gathered them into a vector per item), or gathered and sorted.
enum UnionKeys<'m> {
    Walked(Option<Peekable<serde_json::map::Keys<'m>>>, Option<Peekable<serde_json::map::Keys<'m>>>),
    Gathered(std::vec::IntoIter<&'m String>),
}

impl<'m> Iterator for UnionKeys<'m> {
    type Item = &'m String;

    fn next(&mut self) -> Option<&'m String> {
        let (l, r) = match self {
            UnionKeys::Gathered(keys) => return keys.next(),
            UnionKeys::Walked(l, r) => (l, r),
        };
        let (Some(l), Some(r)) = (l.as_mut(), r.as_mut()) else {
            return l.as_mut().or(r.as_mut()).and_then(Iterator::next);
        };
        match (l.peek(), r.peek()) {
            (Some(a), Some(b)) if a == b => {
                r.next();
                l.next()
            }
            (Some(a), Some(b)) if a < b => l.next(),
            (Some(_), Some(_)) | (None, _) => r.next(),
            (Some(_), None) => l.next(),
        }
    }
}

fn as_list(v: Option<&Value>) -> Option<&[Value]> {
    match v {
        Some(Value::Array(items)) => Some(items),
        _ => None,
    }
}

fn as_map(v: Option<&Value>) -> Option<&Map<String, Value>> {
    match v {
        Some(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// The fields `value` sets (`ToFieldSet`): every leaf; a list item or map key with what is
/// below it; a null or empty map as itself; an atomic list or map as one field. A list's
/// duplicated items are one field each, nothing below.
pub(crate) fn to_field_set(ty: Ty<'_>, value: &Value) -> FieldSet {
    let mut set = Gather::default();
    fields_of(ty, value, false, &mut set);
    set.into_set()
}

/// [`to_field_set`] with [`ensure_named_fields_are_members`] taken in the same walk (what
/// prune asks of every object it compares), rather than the set built twice.
pub(crate) fn to_named_field_set(ty: Ty<'_>, value: &Value) -> FieldSet {
    let mut set = Gather::default();
    fields_of(ty, value, true, &mut set);
    set.into_set()
}

/// Gathers into `below` the fields under `value` (with `named`, a struct field with fields
/// below it a member too); whether `value` itself is a leaf, a field of its own (its parent
/// then records it).
fn fields_of(ty: Ty<'_>, value: &Value, named: bool, below: &mut Gather) -> bool {
    match ty.atom(Some(value)) {
        Atom::Scalar => true,
        Atom::List { kind, items } => {
            if matches!(kind, ListKind::Atomic) {
                return true;
            }
            let Value::Array(list) = value else { return false };
            below.reserve(list.len());
            for item in list {
                let Ok(key) = item_key(kind, items, item) else { continue };
                let mut item_fields = Gather::default();
                fields_of(items, item, named, &mut item_fields);
                below.add(key.to_element(), true, item_fields);
            }
            below.repeated_as_members();
            false
        }
        Atom::Map { atomic, node } => {
            if atomic {
                return true;
            }
            let Value::Object(map) = value else { return false };
            below.reserve(map.len());
            for (key, v) in map {
                let pe = PathElement::Field(key.as_str().into());
                let mut field = Gather::default();
                let leaf = fields_of(node.field_or_deduced(key), v, named, &mut field);
                let bare = leaf || v.is_null() || matches!(v, Value::Object(m) if m.is_empty());
                below.add(pe, field_is_member(bare, node.is_named(key), named, !field.is_empty()), field);
            }
            false
        }
    }
}

/// Whether `fields_of` makes a map's field a member of its parent's level: when it is `bare`
/// (a leaf, a null or an empty map) or a key the schema does not name, and, in a `named` set,
/// when it has fields below it.
fn field_is_member(bare: bool, is_named: bool, named: bool, has_below: bool) -> bool {
    bare || !is_named || (named && has_below)
}

/// The live object with the applied configuration merged in (`Merge`): the configuration's
/// scalars, atomic lists and maps win; granular maps merge key by key; associative lists
/// item by item, in an order that keeps both sides' (see [`merge_lists`]). `None`: absent.
pub(crate) fn merge(ty: Ty<'_>, lhs: Option<&Value>, rhs: Option<&Value>) -> Result<Option<Value>, String> {
    // Upstream runs the handler of the configuration's kind when the kinds differ.
    let atom = ty.atom(rhs.or(lhs));
    let leaf = || Ok(rhs.or(lhs).cloned());
    match atom {
        Atom::Scalar => leaf(),
        Atom::List { kind, items } => {
            let (l, r) = (as_list(lhs), as_list(rhs));
            let empty = l.is_none_or(<[Value]>::is_empty) && r.is_none_or(<[Value]>::is_empty);
            if matches!(kind, ListKind::Atomic) || empty {
                return leaf();
            }
            merge_lists(kind, items, l.unwrap_or_default(), r.unwrap_or_default())
                .map(|out| (!out.is_empty()).then_some(Value::Array(out)))
        }
        Atom::Map { atomic, node } => {
            let (l, r) = (as_map(lhs), as_map(rhs));
            let empty = l.is_none_or(Map::is_empty) && r.is_none_or(Map::is_empty);
            if atomic || empty {
                return leaf();
            }
            let mut out = Map::new();
            for key in union_keys(l, r) {
                let (lv, rv) = (l.and_then(|m| m.get(key)), r.and_then(|m| m.get(key)));
                if let Some(v) = merge(node.field_or_deduced(key), lv, rv).map_err(|e| format!(".{key}{e}"))? {
                    out.insert(key.clone(), v);
                }
            }
            Ok((!out.is_empty()).then_some(Value::Object(out)))
        }
    }
}

/// Each item's element, and each element's value: the first, or null where the element is
/// repeated and `duplicates` are allowed (the live object may hold them; a configuration may
/// not).
type Indexed<'v> = (Vec<ItemKey<'v>>, ElementMap<ItemKey<'v>, &'v Value>);

fn index_items<'v>(
    kind: ListKind<'v>,
    items: Ty<'v>,
    list: &'v [Value],
    duplicates: bool,
) -> Result<Indexed<'v>, String> {
    let mut elements = Vec::with_capacity(list.len());
    let mut observed: ElementMap<ItemKey<'v>, &Value> = ElementMap::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let pe = item_key(kind, items, item).map_err(|e| format!(": element {i}: {e}"))?;
        let mut first = false;
        let seen = observed.get_or_insert_with(pe.clone(), || {
            first = true;
            item
        });
        if !first {
            if !duplicates {
                return Err(format!(": duplicate entries for key {pe}"));
            }
            *seen = &NULL;
        }
        elements.push(pe);
    }
    Ok((elements, observed))
}

/// Upstream's order of a merged associative list: the live items in their order, each item
/// the configuration also has taken where the configuration places it relative to the other
/// shared items, and the configuration's new items placed after the shared item they follow.
fn merge_lists<'v>(
    kind: ListKind<'v>,
    items: Ty<'v>,
    lhs: &'v [Value],
    rhs: &'v [Value],
) -> Result<Vec<Value>, String> {
    let (rhs_pes, observed_rhs) = index_items(kind, items, rhs, false)?;
    let (lhs_pes, observed_lhs) = index_items(kind, items, lhs, true)?;
    let mut shared = rhs_pes.iter().filter(|pe| observed_lhs.contains_key(pe));
    let mut next_shared = shared.next();
    let mut merged_rhs: ElementMap<&ItemKey<'v>, ()> = ElementMap::with_capacity(rhs.len());
    let mut out = Vec::with_capacity(lhs.len().max(rhs.len()));
    let item =
        |pe: &ItemKey<'v>, l: Option<&Value>, r: Option<&Value>| merge(items, l, r).map_err(|e| format!("{pe}{e}"));
    let (mut li, mut ri) = (0, 0);
    while li < lhs_pes.len() || ri < rhs_pes.len() {
        if li < lhs_pes.len() && ri < rhs_pes.len() {
            let pe = &lhs_pes[li];
            if *pe == rhs_pes[ri] {
                merged_rhs.get_or_insert_with(pe, || ());
                out.extend(item(pe, observed_lhs.get(pe).copied(), observed_rhs.get(pe).copied())?);
                li += 1;
                ri += 1;
                next_shared = shared.next();
                continue;
            }
            if observed_rhs.contains_key(pe) && next_shared.is_some_and(|n| n != pe) {
                li += 1;
                continue;
            }
        }
        if li < lhs_pes.len() {
            let pe = &lhs_pes[li];
            if !observed_rhs.contains_key(pe) {
                out.extend(item(pe, Some(&lhs[li]), None)?);
                li += 1;
                continue;
            } else if merged_rhs.contains_key(&pe) {
                li += 1;
            }
        }
        if ri < rhs_pes.len() {
            let pe = &rhs_pes[ri];
            merged_rhs.get_or_insert_with(pe, || ());
            out.extend(item(pe, observed_lhs.get(pe).copied(), observed_rhs.get(pe).copied())?);
            ri += 1;
            if next_shared == Some(pe) {
                next_shared = shared.next();
            }
        }
    }
    Ok(out)
}

/// What changed from `lhs` to `rhs` (`Compare`).
#[derive(Debug, Default)]
pub(crate) struct Comparison {
    pub removed: FieldSet,
    pub modified: FieldSet,
    pub added: FieldSet,
}

pub(crate) fn compare(ty: Ty<'_>, lhs: &Value, rhs: &Value) -> Comparison {
    let below = compare_at(ty, Some(lhs), Some(rhs), None, &mut Changes::default());
    Comparison { removed: below.removed.into_set(), modified: below.modified.into_set(), added: below.added.into_set() }
}

/// A [`Comparison`] being gathered, one level of it.
#[derive(Default)]
struct Changes {
    removed: Gather,
    modified: Gather,
    added: Gather,
}

impl Changes {
    /// What changed below `at`, its element made only if something did.
    fn attach(&mut self, at: &At<'_>, below: Changes) {
        for (here, below) in
            [(&mut self.removed, below.removed), (&mut self.modified, below.modified), (&mut self.added, below.added)]
        {
            if !below.is_empty() {
                here.attach(at.element(), below);
            }
        }
    }
}

/// Where a compared node stands in its parent: a field, or a list item as the walk read it,
/// whose element is made once, the first time a change is recorded at or below it (an
/// unchanged item of a long list makes none).
enum At<'a> {
    Field(PathElement),
    Item(&'a ItemKey<'a>, std::cell::OnceCell<PathElement>),
}

impl At<'_> {
    fn element(&self) -> PathElement {
        match self {
            At::Field(pe) => pe.clone(),
            At::Item(key, made) => made.get_or_init(|| key.to_element()).clone(),
        }
    }
}

/// One node of [`compare`], at element `at` of its parent (`None`: the root): the node itself
/// is recorded in `here`, its parent's level; what changed below it is returned. Where a
/// deduced value changed kind, upstream runs the old kind's handler too (its fields below are
/// then removed) before the new kind's, whose leaf-ness counts.
fn compare_at(
    ty: Ty<'_>,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    at: Option<&At<'_>>,
    here: &mut Changes,
) -> Changes {
    let (old, new) = (ty.atom(lhs), ty.atom(rhs.or(lhs)));
    let mut below = Changes::default();
    if lhs.is_some() && rhs.is_some() && std::mem::discriminant(&old) != std::mem::discriminant(&new) {
        compare_as(old, lhs, rhs, at, here, &mut below);
    }
    let in_leaf = compare_as(new, lhs, rhs, at, here, &mut below);
    if let (false, Some(at)) = (in_leaf, at) {
        match (lhs, rhs) {
            (None, _) => here.added.member(at.element()),
            (_, None) => here.removed.member(at.element()),
            _ => {}
        }
    }
    below
}

/// Compares the node as `atom` says (a value of another kind reads as absent); whether it was
/// a leaf (upstream's `inLeaf`), which keeps its caller from recording it a second time.
fn compare_as(
    atom: Atom<'_>,
    lhs: Option<&Value>,
    rhs: Option<&Value>,
    at: Option<&At<'_>>,
    here: &mut Changes,
    below: &mut Changes,
) -> bool {
    let leaf = |here: &mut Changes| {
        if let Some(at) = at {
            match (lhs, rhs) {
                (None, _) => here.added.member(at.element()),
                (_, None) => here.removed.member(at.element()),
                (Some(l), Some(r)) if !values_equal(l, r) => here.modified.member(at.element()),
                _ => {}
            }
        }
        true
    };
    match atom {
        Atom::Scalar => leaf(here),
        Atom::List { kind, items } => {
            let (l, r) = (as_list(lhs), as_list(rhs));
            let empty = l.is_none_or(<[Value]>::is_empty) && r.is_none_or(<[Value]>::is_empty);
            if matches!(kind, ListKind::Atomic) || empty {
                leaf(here)
            } else {
                compare_lists(kind, items, l.unwrap_or_default(), r.unwrap_or_default(), below);
                false
            }
        }
        Atom::Map { atomic, node } => {
            let (l, r) = (as_map(lhs), as_map(rhs));
            let empty = l.is_none_or(Map::is_empty) && r.is_none_or(Map::is_empty);
            if atomic || empty {
                leaf(here)
            } else {
                for key in union_keys(l, r) {
                    let at = At::Field(PathElement::Field(key.as_str().into()));
                    let (lv, rv) = (l.and_then(|m| m.get(key)), r.and_then(|m| m.get(key)));
                    let changes = compare_at(node.field_or_deduced(key), lv, rv, Some(&at), below);
                    below.attach(&at, changes);
                }
                false
            }
        }
    }
}

/// The items of one side of a list that have one element: the first, then any more (a list
/// without duplicates, nearly every one, allocates nothing here).
#[derive(Default)]
struct Items<'v> {
    first: Option<&'v Value>,
    more: Vec<&'v Value>,
}

impl<'v> Items<'v> {
    fn push(&mut self, item: &'v Value) {
        if self.first.is_none() { self.first = Some(item) } else { self.more.push(item) }
    }

    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.more.len()
    }

    fn iter(&self) -> impl Iterator<Item = &'v Value> + '_ {
        self.first.into_iter().chain(self.more.iter().copied())
    }
}

/// The items of two lists compared, into `below`, the list's level.
fn compare_lists<'v>(kind: ListKind<'v>, items: Ty<'v>, lhs: &'v [Value], rhs: &'v [Value], below: &mut Changes) {
    // Each element with every item that has it, on each side; elements in first-seen order.
    let mut sides: Vec<(ItemKey<'v>, Items<'v>, Items<'v>)> = Vec::with_capacity(lhs.len().max(rhs.len()));
    let mut index: ElementMap<ItemKey<'v>, usize> = ElementMap::with_capacity(lhs.len().max(rhs.len()));
    for (side, list) in [(0, lhs), (1, rhs)] {
        for item in list {
            let Ok(key) = item_key(kind, items, item) else { continue };
            let i = *index.get_or_insert_with(key.clone(), || {
                sides.push((key, Items::default(), Items::default()));
                sides.len() - 1
            });
            if side == 0 { sides[i].1.push(item) } else { sides[i].2.push(item) }
        }
    }
    drop(index);
    for (key, l, r) in &sides {
        let at = At::Item(key, std::cell::OnceCell::new());
        let item = |l: Option<&Value>, r: Option<&Value>, below: &mut Changes| {
            let changes = compare_at(items, l, r, Some(&at), below);
            below.attach(&at, changes);
        };
        match (l.len(), r.len()) {
            (0, 0) => {}
            (0 | 1, 0 | 1) => item(l.first, r.first, below),
            (ln, rn) if ln >= 2 && rn >= 2 => {
                if ln != rn || l.iter().zip(r.iter()).any(|(a, b)| !values_equal(a, b)) {
                    below.modified.member(at.element());
                }
            }
            (ln, _) if ln >= 2 => {
                if let Some(first) = r.first {
                    item(None, Some(first), below);
                }
                below.removed.member(at.element());
            }
            _ => {
                if let Some(first) = l.first {
                    item(Some(first), None, below);
                }
                below.added.member(at.element());
            }
        }
    }
}

/// Values equal as structured-merge-diff compares them: numbers by value (an int and a whole
/// float are equal), maps by their entries.
pub(crate) fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => super::path::compare_values(a, b) == std::cmp::Ordering::Equal,
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| values_equal(p, q)),
        // Without putting the keys in order, as the order of values would.
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(key, p)| y.get(key).is_some_and(|q| values_equal(p, q)))
        }
        _ => a == b,
    }
}

/// `value` without the fields of `set` (`RemoveItems`). A map or list left with nothing
/// becomes null, as upstream leaves it; so does a map or list the set reaches into that is
/// empty or atomic, and a list it reaches into loses the items that have no key.
pub(crate) fn remove_items(ty: Ty<'_>, value: &Value, set: &FieldSet) -> Value {
    let mut value = value.clone();
    remove_items_in_place(ty, &mut value, set);
    value
}

/// [`remove_items`] on the value itself: what the set does not reach is neither copied nor
/// walked (prune's last removal, from a merged object of 50,000 list items, copied it whole).
pub(crate) fn remove_items_in_place(ty: Ty<'_>, value: &mut Value, set: &FieldSet) {
    match ty.atom(Some(value)) {
        Atom::Scalar => {}
        Atom::List { kind, items } => {
            let Value::Array(list) = value else { return *value = Value::Null };
            if matches!(kind, ListKind::Atomic) {
                list.clear();
            }
            let mut lookup = set.lookup();
            list.retain_mut(|item| {
                let Ok(key) = item_key(kind, items, item) else { return false };
                let (exact, below) = lookup.at_item(&key);
                if !exact && !below.is_empty() {
                    remove_items_in_place(items, item, below);
                }
                !exact
            });
            if list.is_empty() {
                *value = Value::Null;
            }
        }
        Atom::Map { atomic, node } => {
            let Value::Object(map) = value else { return *value = Value::Null };
            if atomic {
                map.clear();
            }
            for entry in set.entries() {
                let PathElement::Field(name) = &entry.pe else { continue };
                if entry.member {
                    map.remove(name.as_str());
                } else if let Some(v) = map.get_mut(name.as_str()) {
                    remove_items_in_place(node.field_or_deduced(name), v, &entry.below);
                }
            }
            if map.is_empty() {
                *value = Value::Null;
            }
        }
    }
}

/// `value` with only the fields of `set` (`ExtractItems`): a member's value whole, an empty
/// or atomic map or list the set reaches into as it is.
pub(crate) fn extract_items(ty: Ty<'_>, value: &Value, set: &FieldSet) -> Value {
    match ty.atom(Some(value)) {
        Atom::Scalar => value.clone(),
        Atom::List { kind, items } => {
            let Value::Array(list) = value else { return Value::Null };
            if list.is_empty() || matches!(kind, ListKind::Atomic) {
                return value.clone();
            }
            let mut out = Vec::new();
            let mut lookup = set.lookup();
            for item in list {
                let Ok(key) = item_key(kind, items, item) else { continue };
                let (exact, below) = lookup.at_item(&key);
                if !below.is_empty() {
                    out.push(extract_items(items, item, below));
                } else if exact {
                    out.push(item.clone());
                }
            }
            if out.is_empty() { Value::Null } else { Value::Array(out) }
        }
        Atom::Map { atomic, node } => {
            let Value::Object(map) = value else { return Value::Null };
            if map.is_empty() || atomic {
                return value.clone();
            }
            let mut out = Map::new();
            let mut lookup = set.lookup();
            for (key, v) in map {
                let pe = PathElement::Field(key.as_str().into());
                let field = node.field_or_deduced(key);
                let (exact, below) = lookup.at(&pe);
                if exact {
                    // Upstream passes the whole set down here, not the part below.
                    out.insert(key.clone(), extract_items(field, v, set));
                } else if !below.is_empty() {
                    out.insert(key.clone(), extract_items(field, v, below));
                }
            }
            if out.is_empty() { Value::Null } else { Value::Object(out) }
        }
    }
}

/// What a removal leaves of a value's fields (see [`named_fields_after_removal`]).
enum Left {
    /// The fields are the value's own: nothing they hold was removed.
    Unchanged,
    /// The value becomes null: a map or list left with nothing, as [`remove_items`] leaves it.
    Null,
    /// The fields below what is left of the value.
    Fields(FieldSet),
}

/// [`to_named_field_set`] of [`remove_items`]`(ty, value, removed)`, read off `fields`, the
/// value's own named set, without the object being made: what the removal does not reach is
/// `fields`' own, shared, so the cost is that of what is removed, not of the object. Prune
/// asks for the sets of objects it makes only to read their sets; made and walked whole,
/// they were most of a re-apply's time at 50,000 list items (issue 49). A property test holds
/// the two equal (`fields_after_removal_are_those_of_the_object_left`).
pub(crate) fn named_fields_after_removal(ty: Ty<'_>, value: &Value, fields: &FieldSet, removed: &FieldSet) -> FieldSet {
    match left_after(ty, value, fields, removed) {
        Left::Unchanged => fields.clone(),
        Left::Null => FieldSet::new(),
        Left::Fields(set) => set,
    }
}

/// [`remove_items`]' cases, read as the fields of what is left: an element removed leaves
/// the level; one with paths removed below it is read again below.
fn left_after(ty: Ty<'_>, value: &Value, fields: &FieldSet, removed: &FieldSet) -> Left {
    match ty.atom(Some(value)) {
        Atom::Scalar => Left::Unchanged,
        Atom::List { kind, items } => {
            let Value::Array(list) = value else { return Left::Null };
            if list.is_empty() || matches!(kind, ListKind::Atomic) {
                return Left::Null;
            }
            items_left_after(ty, value, (kind, items, list), fields, removed)
        }
        Atom::Map { atomic, node } => {
            let Value::Object(map) = value else { return Left::Null };
            if map.is_empty() || atomic {
                return Left::Null;
            }
            let (mut edits, mut gone) = (Vec::new(), 0);
            let mut lookup = fields.lookup();
            for entry in removed.entries() {
                let PathElement::Field(name) = &entry.pe else { continue };
                let Some(v) = map.get(name.as_str()) else { continue };
                if entry.member {
                    gone += 1;
                    edits.push((entry.pe.clone(), None));
                    continue;
                }
                // Marked as `fields_of` marks it: what is left is a null, or a map or list
                // with something in it, in a named set.
                let (bare, below) =
                    match left_after(node.field_or_deduced(name), v, lookup.at(&entry.pe).1, &entry.below) {
                        Left::Unchanged => continue,
                        Left::Null => (true, FieldSet::new()),
                        Left::Fields(below) => (false, below),
                    };
                let member = field_is_member(bare, node.is_named(name), true, !below.is_empty());
                edits.push((entry.pe.clone(), Some((member, below))));
            }
            if gone == map.len() {
                Left::Null
            } else if edits.is_empty() {
                Left::Unchanged
            } else {
                Left::Fields(fields.edited(edits))
            }
        }
    }
}

/// [`left_after`] of a keyed list. Each keyed item has one entry in `fields` (a repeated key
/// one for all its items), and the removal treats every item of a key alike, so an item
/// removed is its entry gone, and only the items with paths removed below them are read
/// again. An item whose key fields the removal reaches (its key may change, or fall back to
/// a default) is made and read whole, as are repeated items (`fields` holds nothing below
/// them); one whose key then differs has the whole list read again.
fn items_left_after(
    ty: Ty<'_>,
    value: &Value,
    (kind, items, list): (ListKind<'_>, Ty<'_>, &[Value]),
    fields: &FieldSet,
    removed: &FieldSet,
) -> Left {
    let level = removed.entries();
    let mut edits: Vec<(PathElement, Option<(bool, FieldSet)>)> = Vec::new();
    let (mut gone, mut changed) = (0, false);
    let mut lookup = fields.lookup();
    for entry in level.iter().filter(|e| lookup.entry(&e.pe).is_some_and(|e| e.member)) {
        if entry.member {
            gone += 1;
            edits.push((entry.pe.clone(), None));
        } else {
            changed = true;
        }
    }
    if gone == fields.entries().len() {
        return Left::Null;
    }
    if changed {
        // Each item of a changed key, by its entry in `removed`'s level: grouped, in order.
        let mut lookup = removed.lookup();
        let mut at: Vec<(usize, &Value)> = list
            .iter()
            .filter_map(|item| {
                let key = item_key(kind, items, item).ok()?;
                let found = lookup.item_index(&key)?;
                (!level[found].member).then_some((found, item))
            })
            .collect();
        at.sort_by_key(|(found, _)| *found);
        let mut fields_lookup = fields.lookup();
        for group in at.chunk_by(|a, b| a.0 == b.0) {
            let entry = &level[group[0].0];
            let left = match group {
                [(_, item)] if !touches_key(kind, &entry.below) => {
                    match left_after(items, item, fields_lookup.at(&entry.pe).1, &entry.below) {
                        Left::Unchanged => continue,
                        Left::Null => None,
                        Left::Fields(below) => Some((true, below)),
                    }
                }
                _ => {
                    let mut survivors = Vec::new();
                    for (_, item) in group {
                        let after = remove_items(items, item, &entry.below);
                        match item_key(kind, items, &after) {
                            Ok(key) if key.cmp_element(&entry.pe).is_eq() => survivors.push(after),
                            Ok(_) => return read_again(ty, value, removed),
                            Err(_) => {}
                        }
                    }
                    match survivors.as_slice() {
                        [] => None,
                        [item] => Some((true, to_named_field_set(items, item))),
                        // Repeated: a member, nothing below.
                        _ => Some((true, FieldSet::new())),
                    }
                }
            };
            edits.push((entry.pe.clone(), left));
        }
        edits.sort_by(|a, b| a.0.cmp(&b.0));
    }
    if edits.is_empty() { Left::Unchanged } else { Left::Fields(fields.edited(edits)) }
}

/// Whether removing `below` from a list item can reach its key: a key field of a map list's
/// item. A set's items are scalars, which a removal leaves as they are.
fn touches_key(kind: ListKind<'_>, below: &FieldSet) -> bool {
    match kind {
        ListKind::Map(keys) => keys.iter().any(|key| {
            let (member, under) = below.at(&PathElement::Field(key.as_str().into()));
            member || !under.is_empty()
        }),
        ListKind::Set | ListKind::Atomic => false,
    }
}

/// The fields of what [`remove_items`] leaves of `value`, made and walked.
fn read_again(ty: Ty<'_>, value: &Value, removed: &FieldSet) -> Left {
    match remove_items(ty, value, removed) {
        Value::Null => Left::Null,
        left => Left::Fields(to_named_field_set(ty, &left)),
    }
}

/// The set with each struct field that has fields below it in the set made a member too
/// (`EnsureNamedFieldsAreMembers`), so that removing the set removes the field itself. What
/// does not change is shared, not rebuilt.
pub(crate) fn ensure_named_fields_are_members(ty: Option<Ty<'_>>, set: &FieldSet) -> FieldSet {
    named_members(ty, set).unwrap_or_else(|| set.clone())
}

/// [`ensure_named_fields_are_members`]'s set, `None` where it is `set` itself (below a node
/// of no known type, nothing is added).
fn named_members(ty: Option<Ty<'_>>, set: &FieldSet) -> Option<FieldSet> {
    let atom = ty?.shape();
    let mut changed: Vec<(usize, Entry)> = Vec::new();
    for (at, entry) in set.entries().iter().enumerate() {
        if entry.below.is_empty() {
            continue;
        }
        let (named, child_ty) = match (&entry.pe, atom) {
            (PathElement::Field(name), Atom::Map { node, .. }) => {
                (node.is_named(name), Some(node.field_or_deduced(name)))
            }
            (PathElement::Key(_), Atom::List { items, .. }) => (false, Some(items)),
            _ => (false, None),
        };
        let below = named_members(child_ty, &entry.below);
        if below.is_some() || (named && !entry.member) {
            let below = below.unwrap_or_else(|| entry.below.clone());
            changed.push((at, Entry { pe: entry.pe.clone(), member: entry.member || named, below }));
        }
    }
    if changed.is_empty() {
        return None;
    }
    let mut entries = set.entries().to_vec();
    for (at, entry) in changed {
        entries[at] = entry;
    }
    Some(FieldSet::of(entries))
}

/// `ReconcileFieldSetWithSchema`: a manager's set written when a list or map was granular,
/// read where its type is now atomic (another version, or an older schema): the manager owns
/// the list or map itself and nothing below it. `None` when nothing changes. Deduced maps and
/// fields the type does not declare are left as they are; atomic made granular is too.
pub(crate) fn reconcile_with_schema(ty: Ty<'_>, set: &FieldSet) -> Option<FieldSet> {
    let mut collapsed = FieldSet::new();
    reconcile_at(ty, set, &mut Vec::new(), &mut collapsed);
    (!collapsed.is_empty()).then(|| set.recursive_difference(&collapsed).union(&collapsed))
}

/// A node with paths of `set` below it. Upstream also visits each member with nothing below
/// (its `isAtomic`), which an atomic list or map is already owned as: nothing to collapse
/// there, so the walk leaves them (a manager's leaves, most of its set) alone.
fn reconcile_at(ty: Ty<'_>, set: &FieldSet, path: &mut Path, collapsed: &mut FieldSet) {
    match ty.shape() {
        Atom::Scalar => {}
        Atom::List { kind: ListKind::Atomic, .. } => collapsed.insert(path),
        Atom::List { items, .. } => reconcile_items(set, path, collapsed, |_| Some(items)),
        Atom::Map { node, .. } if node.is_untyped_deduced() => {}
        Atom::Map { atomic: true, .. } => collapsed.insert(path),
        Atom::Map { node, .. } => reconcile_items(set, path, collapsed, |pe| node.element(pe)),
    }
}

/// Each path element of `set` with paths below it, with its type.
fn reconcile_items<'s>(
    set: &FieldSet,
    path: &mut Path,
    collapsed: &mut FieldSet,
    element: impl Fn(&PathElement) -> Option<Ty<'s>>,
) {
    for entry in set.entries().iter().filter(|e| !e.below.is_empty()) {
        let Some(ty) = element(&entry.pe) else { continue };
        path.push(entry.pe.clone());
        reconcile_at(ty, &entry.below, path, collapsed);
        path.pop();
    }
}

/// What the type converter refuses in a value (`ObjectToTyped`'s validation): a field the
/// schema does not declare, a scalar of the wrong kind, a list item without its keys, and (in
/// a configuration, not a live object) a repeated key. Each as `path: message`.
pub(crate) fn validate(ty: Ty<'_>, value: &Value, allow_duplicates: bool) -> Vec<String> {
    let mut errors = Vec::new();
    validate_at(ty, value, allow_duplicates, &mut Vec::new(), &mut errors);
    errors
}

/// One step of the path [`validate`] is at, written out only for an error (writing each
/// item's out as it was passed cost more than the check).
enum Step<'v> {
    Field(&'v str),
    Index(usize),
    Element(ItemKey<'v>),
}

fn path_text(path: &[Step<'_>]) -> String {
    let mut text = String::new();
    for step in path {
        match step {
            Step::Field(name) => {
                text.push('.');
                text.push_str(name);
            }
            Step::Index(i) => text.push_str(&format!("[{i}]")),
            Step::Element(pe) => text.push_str(&pe.to_string()),
        }
    }
    text
}

/// The type converter's errors as its error reads (`ValidationErrors.Error()`): one alone,
/// or `errors:` with each on its own indented line; `None` for none.
pub(crate) fn errors_text(errors: &[String]) -> Option<String> {
    match errors {
        [] => None,
        [one] => Some(one.clone()),
        many => Some(
            std::iter::once("errors:".to_owned())
                .chain(many.iter().map(|e| format!("  {e}")))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    }
}

fn validate_at<'v>(
    ty: Ty<'v>,
    value: &'v Value,
    allow_duplicates: bool,
    path: &mut Vec<Step<'v>>,
    errors: &mut Vec<String>,
) {
    fn error(errors: &mut Vec<String>, path: &[Step<'_>], message: String) {
        errors.push(if path.is_empty() { message } else { format!("{}: {message}", path_text(path)) });
    }
    if value.is_null() {
        return;
    }
    match ty.atom(Some(value)) {
        Atom::Scalar => {
            if let Some(message) = scalar_error(ty, value) {
                error(errors, path, message);
            }
        }
        Atom::List { kind, items } => {
            let Value::Array(list) = value else {
                return error(errors, path, format!("expected list, got &{{{}}}", go_value(value)));
            };
            // Repeated keys are looked for only where they are refused (the live object may
            // hold them: a table of every item of its longest list was built for nothing).
            let atomic = matches!(kind, ListKind::Atomic);
            let mut seen = (!atomic && !allow_duplicates).then(|| ElementMap::with_capacity(list.len()));
            for (i, item) in list.iter().enumerate() {
                if atomic {
                    path.push(Step::Index(i));
                } else {
                    match item_key(kind, items, item) {
                        Ok(pe) => {
                            if let Some(seen) = &mut seen {
                                let mut first = false;
                                seen.get_or_insert_with(pe.clone(), || first = true);
                                if !first {
                                    error(errors, path, format!("duplicate entries for key {pe}"));
                                }
                            }
                            path.push(Step::Element(pe));
                        }
                        Err(e) => return error(errors, path, format!("element {i}: {e}")),
                    }
                }
                validate_at(items, item, allow_duplicates, path, errors);
                path.pop();
            }
        }
        Atom::Map { node, .. } => {
            let Value::Object(map) = value else {
                return error(errors, path, format!("expected map, got &{{{}}}", go_value(value)));
            };
            for (key, v) in map {
                path.push(Step::Field(key));
                match node.field(key) {
                    Some(field) => validate_at(field, v, allow_duplicates, path, errors),
                    None => {
                        errors.push(format!("{}: field not declared in schema", path_text(path)));
                        path.pop();
                        // Upstream stops at the first undeclared key of a map.
                        break;
                    }
                }
                path.pop();
            }
        }
    }
}

/// A scalar of the wrong kind, in upstream's words (which print Go's view of the value).
fn scalar_error(ty: Ty<'_>, value: &Value) -> Option<String> {
    let untyped = || {
        (value.is_array() || value.is_object()).then(|| format!("expected any scalar, got &{{{}}}", go_value(value)))
    };
    let Ty::Schema(s) = ty else { return untyped() };
    // schemaconv's `convertPrimitive`: a string of any format but `byte` is an untyped
    // scalar (`format: date-time` holds a number for the type converter).
    if s.type_str() == Some("string") && !matches!(s.format.as_deref(), None | Some("" | "byte")) {
        return untyped();
    }
    match s.type_str() {
        Some("string") if !value.is_string() => {
            Some(format!("expected string, got &value.valueUnstructured{{Value:{}}}", go_syntax(value)))
        }
        Some("integer" | "number") if !value.is_number() => {
            let go_type = match value {
                Value::String(_) => "string",
                Value::Bool(_) => "bool",
                Value::Array(_) => "[]interface {}",
                _ => "map[string]interface {}",
            };
            Some(format!("expected numeric (int or float), got {go_type}"))
        }
        Some("boolean") if !value.is_boolean() => Some(format!("expected boolean, got &{{{}}}", go_value(value))),
        _ => None,
    }
}

/// A value as Go's `%#v` prints its unstructured form (`[]interface {}{"a", 1}`).
fn go_syntax(value: &Value) -> String {
    match value {
        Value::Null => "interface {}(nil)".into(),
        Value::String(s) => crate::report::issue::go_quote(s),
        Value::Array(items) => {
            format!("[]interface {{}}{{{}}}", items.iter().map(go_syntax).collect::<Vec<_>>().join(", "))
        }
        Value::Object(map) => format!(
            "map[string]interface {{}}{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}:{}", crate::report::issue::go_quote(k), go_syntax(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => go_value(other),
    }
}

/// A value as Go's `%v` prints its unstructured form.
fn go_value(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => crate::report::issue::go_float(f),
            _ => n.to_string(),
        },
        Value::Bool(b) => b.to_string(),
        Value::Array(items) => format!("[{}]", items.iter().map(go_value).collect::<Vec<_>>().join(" ")),
        Value::Object(map) => {
            format!("map[{}]", map.iter().map(|(k, v)| format!("{k}:{}", go_value(v))).collect::<Vec<_>>().join(" "))
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::dynamic::crd::Crd;
    use crate::schema::Schema;

    /// A schema with each kind of node a removal meets: a map list (one key; two keys, one
    /// defaulted), a set, a granular and an atomic map, an atomic list, a struct, a field of
    /// no declared type.
    fn schema() -> Schema {
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
          "names": {"kind": "Thing", "plural": "things"},
          "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
            "type": "object", "properties": {"spec": {"type": "object", "properties": {
              "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "properties": {
                  "name": {"type": "string"}, "value": {"type": "integer"},
                  "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                  "sub": {"type": "object", "properties": {"p": {"type": "string"}, "q": {"type": "string"}}}}}},
              "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
                "items": {"type": "object", "properties": {"port": {"type": "integer"},
                  "protocol": {"type": "string", "default": "TCP"}, "name": {"type": "string"}}}},
              "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
              "labels": {"type": "object", "additionalProperties": {"type": "string"}},
              "whole": {"type": "object", "x-kubernetes-map-type": "atomic", "additionalProperties": {"type": "string"}},
              "atomic": {"type": "array", "items": {"type": "string"}},
              "obj": {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "string"}}},
              "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
            }}}}}}]}});
        Crd::parse(&crd).0.versions[0].schema.clone().expect("a schema")
    }

    fn word() -> impl Strategy<Value = Value> {
        prop_oneof![Just(json!("a")), Just(json!("b")), Just(json!("c"))]
    }

    /// An object with fields present or not, now and then empty, null, repeated or of another
    /// type than declared.
    fn object() -> impl Strategy<Value = Value> {
        let maybe = |v: BoxedStrategy<Value>| proptest::option::of(v);
        let strings = || proptest::collection::vec(word(), 0..3).prop_map(Value::from).boxed();
        let sub = (maybe(word().boxed()), maybe(word().boxed())).prop_map(|(p, q)| {
            let mut map = Map::new();
            map.extend(p.map(|p| ("p".to_owned(), p)));
            map.extend(q.map(|q| ("q".to_owned(), q)));
            Value::Object(map)
        });
        let item = prop_oneof![
            8 => (maybe(word().boxed()), maybe(Just(json!(1)).boxed()), maybe(strings()), maybe(sub.boxed())).prop_map(
                |(name, value, tags, sub)| {
                    let mut map = Map::new();
                    for (k, v) in [("name", name), ("value", value), ("tags", tags), ("sub", sub)] {
                        map.extend(v.map(|v| (k.to_owned(), v)));
                    }
                    Value::Object(map)
                }
            ),
            1 => Just(Value::Null),
        ];
        let port = (
            prop_oneof![Just(json!(1)), Just(json!(2))],
            maybe(prop_oneof![Just(json!("TCP")), Just(json!("UDP"))].boxed()),
            maybe(word().boxed()),
        )
            .prop_map(|(port, protocol, name)| {
                let mut map = Map::new();
                map.insert("port".into(), port);
                map.extend(protocol.map(|p| ("protocol".to_owned(), p)));
                map.extend(name.map(|n| ("name".to_owned(), n)));
                Value::Object(map)
            });
        let labels = proptest::collection::btree_map(
            prop_oneof![Just("a".to_owned()), Just("b".to_owned())],
            prop_oneof![word(), Just(Value::Null)],
            0..3,
        )
        .prop_map(|m| Value::Object(m.into_iter().collect()));
        let obj = prop_oneof![
            (maybe(word().boxed()), maybe(word().boxed())).prop_map(|(x, y)| {
                let mut map = Map::new();
                map.extend(x.map(|x| ("x".to_owned(), x)));
                map.extend(y.map(|y| ("y".to_owned(), y)));
                Value::Object(map)
            }),
            Just(json!("not a map")),
        ];
        let free = prop_oneof![Just(json!({})), Just(json!({"a": {"b": 1}, "c": [1, 2]})), Just(json!({"a": {}}))];
        (
            maybe(proptest::collection::vec(item, 0..4).prop_map(Value::from).boxed()),
            maybe(proptest::collection::vec(port, 0..3).prop_map(Value::from).boxed()),
            maybe(strings()),
            maybe(labels.boxed()),
            maybe(labels_whole().boxed()),
            maybe(strings()),
            maybe(obj.boxed()),
            maybe(free.boxed()),
        )
            .prop_map(|(items, ports, set, labels, whole, atomic, obj, free)| {
                let mut spec = Map::new();
                let fields = [
                    ("items", items),
                    ("ports", ports),
                    ("set", set),
                    ("labels", labels),
                    ("whole", whole),
                    ("atomic", atomic),
                    ("obj", obj),
                    ("free", free),
                ];
                for (k, v) in fields {
                    spec.extend(v.map(|v| (k.to_owned(), v)));
                }
                json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}, "spec": spec})
            })
    }

    fn labels_whole() -> impl Strategy<Value = Value> {
        prop_oneof![Just(json!({})), Just(json!({"a": "b"}))]
    }

    /// A map made for few holds many once they come: each key once, its first value kept.
    #[test]
    fn element_maps_hold_more_than_they_were_made_for() {
        let mut map = ElementMap::with_capacity(2);
        for round in 0..2 {
            for i in 0..40 {
                *map.get_or_insert_with(i, || i * 10 + round) += 0;
            }
        }
        assert!((0..40).all(|i| map.get(&i) == Some(&(i * 10))));
        assert!(!map.contains_key(&40));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Prune reads the fields of what a removal leaves off the object's own set; they are
        /// those of the object the removal makes, whatever is removed: members, paths below
        /// them, paths the object does not have.
        #[test]
        fn fields_after_removal_are_those_of_the_object_left(
            value in object(),
            other in object(),
            picks in proptest::collection::vec((any::<usize>(), any::<usize>()), 0..6),
        ) {
            let schema = schema();
            let ty = Ty::Schema(&schema);
            let fields = to_named_field_set(ty, &value);
            let mut paths = fields.paths();
            paths.extend(to_field_set(ty, &other).paths());
            let mut removed = FieldSet::new();
            if !paths.is_empty() {
                for (which, cut) in picks {
                    let path = &paths[which % paths.len()];
                    removed.insert(&path[..1 + cut % path.len()]);
                }
            }
            let expected = to_named_field_set(ty, &remove_items(ty, &value, &removed));
            prop_assert_eq!(named_fields_after_removal(ty, &value, &fields, &removed), expected);
        }
    }
}
