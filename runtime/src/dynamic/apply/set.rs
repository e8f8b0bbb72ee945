//! A set of field paths (structured-merge-diff's `fieldpath.Set`): what one manager owns,
//! what a comparison found changed. Members are the paths in the set; children hold the sets
//! below a path element, whether or not the element is itself a member. Both stay sorted in
//! [`PathElement`]'s order, which is also the order FieldsV1 is written in.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::path::{FieldPath, ItemKey, PathElement};

/// A set of paths, as a tree: at each level, the elements in order, each a member (the path
/// to it is in the set), with paths below it, or both. One allocation a level, shared, not
/// owned: a set's operations keep what one side alone has as it is, and a copy of a subtree
/// is then a count (a set of 45,000 list items was three allocations an item, and as many to
/// free, issue 49). The empty set is `None`, and no entry is neither member nor parent.
#[derive(Clone, Default)]
pub struct FieldSet(Option<Arc<[Entry]>>);

/// Looks up one level's elements one after another, each search starting where the last one
/// found its element: a walk reads a list's items or a map's fields mostly in the level's own
/// order (a map's keys always, a list kept in key order, a set's entries in theirs), and a
/// lookup is then one comparison, not a binary search over thousands (issue 49). Any order
/// is still found, by a search of the part before or after.
pub(crate) struct Lookup<'s> {
    entries: &'s [Entry],
    next: usize,
}

impl<'s> Lookup<'s> {
    /// The index of the entry that `order` finds equal, or where it would be; `order(pe)` is
    /// the sought element's order against `pe`.
    fn find(&mut self, order: impl Fn(&PathElement) -> std::cmp::Ordering) -> Result<usize, usize> {
        use std::cmp::Ordering::*;
        let search = |part: &[Entry], offset: usize| {
            part.binary_search_by(|e| order(&e.pe).reverse()).map(|i| i + offset).map_err(|i| i + offset)
        };
        let next = self.next;
        let found = match self.entries.get(next).map(|e| order(&e.pe)) {
            Some(Equal) => Ok(next),
            Some(Greater) => search(&self.entries[next + 1..], next + 1),
            Some(Less) | None => search(&self.entries[..next], 0),
        };
        self.next = match found {
            Ok(at) => at + 1,
            Err(at) => at,
        };
        found
    }

    /// The entry of `pe`, if any.
    pub(crate) fn entry(&mut self, pe: &PathElement) -> Option<&'s Entry> {
        self.find(|e| pe.cmp(e)).ok().map(|at| &self.entries[at])
    }

    /// Whether `pe` is a member, and the paths below it.
    pub(crate) fn at(&mut self, pe: &PathElement) -> (bool, &'s FieldSet) {
        static EMPTY: FieldSet = FieldSet(None);
        self.entry(pe).map_or((false, &EMPTY), |e| (e.member, &e.below))
    }

    /// The index of a list item's entry, as a walk reads the item, without making its element.
    pub(crate) fn item_index(&mut self, key: &ItemKey<'_>) -> Option<usize> {
        self.find(|e| key.cmp_element(e)).ok()
    }

    /// [`Lookup::at`] for a list item as a walk reads it.
    pub(crate) fn at_item(&mut self, key: &ItemKey<'_>) -> (bool, &'s FieldSet) {
        static EMPTY: FieldSet = FieldSet(None);
        self.item_index(key).map_or((false, &EMPTY), |at| (self.entries[at].member, &self.entries[at].below))
    }
}

/// One element of a level of a [`FieldSet`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub pe: PathElement,
    /// The path to the element is in the set.
    pub member: bool,
    /// The paths below the element.
    pub below: FieldSet,
}

impl Entry {
    fn keep(self) -> Option<Entry> {
        (self.member || !self.below.is_empty()).then_some(self)
    }
}

impl FieldSet {
    /// The empty set.
    pub fn new() -> Self {
        FieldSet(None)
    }

    /// The set of `entries` (sorted, each element once, each a member or with paths below).
    pub(crate) fn of(entries: Vec<Entry>) -> FieldSet {
        debug_assert!(entries.windows(2).all(|w| w[0].pe < w[1].pe));
        debug_assert!(entries.iter().all(|e| e.member || !e.below.is_empty()));
        if entries.is_empty() { FieldSet(None) } else { FieldSet(Some(entries.into())) }
    }

    /// This level's entries, in order.
    pub(crate) fn entries(&self) -> &[Entry] {
        self.0.as_deref().unwrap_or_default()
    }

    fn same(&self, other: &FieldSet) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }

    fn entry(&self, pe: &PathElement) -> Option<&Entry> {
        let entries = self.entries();
        entries.binary_search_by(|e| e.pe.cmp(pe)).ok().map(|at| &entries[at])
    }

    /// Whether no path is in the set.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// Adds `path` (an empty path adds nothing). The level is copied: for a few paths (a
    /// walk gathers a large set and sorts it once).
    pub fn insert(&mut self, path: &[PathElement]) {
        let Some((first, rest)) = path.split_first() else { return };
        let mut entries = self.entries().to_vec();
        let at = match entries.binary_search_by(|e| e.pe.cmp(first)) {
            Ok(at) => at,
            Err(at) => {
                entries.insert(at, Entry { pe: first.clone(), member: false, below: FieldSet::new() });
                at
            }
        };
        if rest.is_empty() {
            entries[at].member = true;
        } else {
            entries[at].below.insert(rest);
        }
        *self = FieldSet::of(entries);
    }

    /// Whether `path` is in the set.
    pub fn has(&self, path: &[PathElement]) -> bool {
        match path {
            [] => false,
            [last] => self.has_member(last),
            [first, rest @ ..] => self.child(first).is_some_and(|c| c.has(rest)),
        }
    }

    /// The set below `pe`, if any.
    pub fn child(&self, pe: &PathElement) -> Option<&FieldSet> {
        self.entry(pe).map(|e| &e.below).filter(|below| !below.is_empty())
    }

    /// Whether `pe` itself is a member.
    pub fn has_member(&self, pe: &PathElement) -> bool {
        self.entry(pe).is_some_and(|e| e.member)
    }

    /// The paths below `pe` (structured-merge-diff's `WithPrefix`), relative to it: borrowed,
    /// as a walk down a set reads it at every level.
    pub fn with_prefix(&self, pe: &PathElement) -> &FieldSet {
        static EMPTY: FieldSet = FieldSet(None);
        self.entry(pe).map_or(&EMPTY, |e| &e.below)
    }

    /// Whether `pe` is a member, and the paths below it: one search for both.
    pub(crate) fn at(&self, pe: &PathElement) -> (bool, &FieldSet) {
        static EMPTY: FieldSet = FieldSet(None);
        self.entry(pe).map_or((false, &EMPTY), |e| (e.member, &e.below))
    }

    /// A [`Lookup`] of this level's elements.
    pub(crate) fn lookup(&self) -> Lookup<'_> {
        Lookup { entries: self.entries(), next: 0 }
    }

    /// This level with each edited element replaced (`Some((member, below))`, dropped if it
    /// is then neither) or removed (`None`), edits in element order; the rest shared.
    pub(crate) fn edited(&self, edits: impl IntoIterator<Item = (PathElement, Option<(bool, FieldSet)>)>) -> FieldSet {
        let mut entries = Vec::with_capacity(self.entries().len());
        let mut rest = self.entries().iter().peekable();
        for (pe, replacement) in edits {
            while let Some(entry) = rest.next_if(|e| e.pe < pe) {
                entries.push(entry.clone());
            }
            rest.next_if(|e| e.pe == pe);
            if let Some((member, below)) = replacement {
                entries.extend(Entry { pe, member, below }.keep());
            }
        }
        entries.extend(rest.cloned());
        FieldSet::of(entries)
    }

    /// The members directly here (not below).
    pub fn members(&self) -> impl Iterator<Item = &PathElement> {
        self.entries().iter().filter(|e| e.member).map(|e| &e.pe)
    }

    /// The children: each path element with the set below it.
    pub fn children(&self) -> impl Iterator<Item = (&PathElement, &FieldSet)> {
        self.entries().iter().filter(|e| !e.below.is_empty()).map(|e| (&e.pe, &e.below))
    }

    /// Every path in `self` or `other`.
    pub fn union(&self, other: &FieldSet) -> FieldSet {
        if other.is_empty() || self.same(other) {
            return self.clone();
        }
        if self.is_empty() {
            return other.clone();
        }
        self.combine(
            other,
            |a, b| Some(Entry { pe: a.pe.clone(), member: a.member || b.member, below: a.below.union(&b.below) }),
            true,
            true,
        )
    }

    /// Every path in both.
    pub fn intersection(&self, other: &FieldSet) -> FieldSet {
        if self.same(other) {
            return self.clone();
        }
        if self.is_empty() || other.is_empty() {
            return FieldSet::new();
        }
        self.combine(
            other,
            |a, b| {
                Entry { pe: a.pe.clone(), member: a.member && b.member, below: a.below.intersection(&b.below) }.keep()
            },
            false,
            false,
        )
    }

    /// Every path of `self` not in `other` (a member of `other` removes only itself).
    pub fn difference(&self, other: &FieldSet) -> FieldSet {
        self.subtract(other, |a, b| {
            Entry { pe: a.pe.clone(), member: a.member && !b.member, below: a.below.difference(&b.below) }.keep()
        })
    }

    /// Every path of `self` not in `other` and not below a member of `other`.
    pub fn recursive_difference(&self, other: &FieldSet) -> FieldSet {
        self.subtract(other, |a, b| {
            if b.member {
                return None;
            }
            Entry { pe: a.pe.clone(), member: a.member, below: a.below.recursive_difference(&b.below) }.keep()
        })
    }

    /// What is left of `self` once `other` is taken out, an element in both as `both` says:
    /// the two differences, with their shortcuts written once.
    fn subtract(&self, other: &FieldSet, both: impl Fn(&Entry, &Entry) -> Option<Entry>) -> FieldSet {
        if self.same(other) {
            return FieldSet::new();
        }
        if self.is_empty() || other.is_empty() {
            return self.clone();
        }
        self.combine(other, both, true, false)
    }

    /// Walks both levels together: `both` for an element in both, and each side's own
    /// entries kept (shared) where `left`/`right` say so. A level that comes out as this
    /// one's is this one, shared, not copied: most of an update's differences and unions
    /// change a few items of a long list, and copying every level cost more than the rest.
    fn combine(
        &self,
        other: &FieldSet,
        both: impl Fn(&Entry, &Entry) -> Option<Entry>,
        left: bool,
        right: bool,
    ) -> FieldSet {
        let (a, b) = (self.entries(), other.entries());
        // `None` while the result is `a[..i]`; the result from the first difference on.
        let mut out: Option<Vec<Entry>> = None;
        let diverge = |out: &mut Option<Vec<Entry>>, i: usize| {
            out.get_or_insert_with(|| {
                let mut kept = Vec::with_capacity(a.len().max(b.len()));
                kept.extend_from_slice(&a[..i]);
                kept
            });
        };
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let order = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) => x.pe.cmp(&y.pe),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match order {
                std::cmp::Ordering::Less => {
                    if !left {
                        diverge(&mut out, i);
                    } else if let Some(out) = &mut out {
                        out.push(a[i].clone());
                    }
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    if right {
                        diverge(&mut out, i);
                        out.as_mut().expect("invariant: diverged").push(b[j].clone());
                    }
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let entry = both(&a[i], &b[j]);
                    let unchanged =
                        entry.as_ref().is_some_and(|e| e.member == a[i].member && e.below.same(&a[i].below));
                    if !unchanged || out.is_some() {
                        diverge(&mut out, i);
                        out.as_mut().expect("invariant: diverged").extend(entry);
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        match out {
            None => self.clone(),
            Some(entries) => FieldSet::of(entries),
        }
    }

    /// The paths with nothing below them in the set.
    pub fn leaves(&self) -> FieldSet {
        let entries = self.entries().iter().filter_map(|e| {
            Entry { pe: e.pe.clone(), member: e.member && e.below.is_empty(), below: e.below.leaves() }.keep()
        });
        FieldSet::of(entries.collect())
    }

    /// Each path, members before the paths below them, in order (the order conflicts are listed).
    pub fn paths(&self) -> Vec<FieldPath> {
        let mut out = Vec::new();
        self.each_path(&mut Vec::new(), &mut out);
        out
    }

    fn each_path(&self, prefix: &mut FieldPath, out: &mut Vec<FieldPath>) {
        for m in self.members() {
            let mut p = prefix.clone();
            p.push(m.clone());
            out.push(p);
        }
        for (pe, set) in self.children() {
            prefix.push(pe.clone());
            set.each_path(prefix, out);
            prefix.pop();
        }
    }

    /// The set as FieldsV1 JSON text, byte for byte as the apiserver writes it: keys in path
    /// element order, `{}` for a member, `"."` first where a member also has children.
    pub fn to_fields_v1(&self) -> String {
        let mut out = String::from("{");
        self.write_fields_v1(false, &mut out);
        out.push('}');
        out
    }

    fn write_fields_v1(&self, include_self: bool, out: &mut String) {
        let mut first = true;
        self.fields_v1_entries(include_self, |pe, below| {
            if !std::mem::take(&mut first) {
                out.push(',');
            }
            match pe {
                None => out.push_str("\".\""),
                Some(pe) => crate::report::issue::push_go_json_string(out, &pe.fields_v1_key()),
            }
            out.push_str(":{");
            if let Some((below, member)) = below {
                below.write_fields_v1(member, out);
            }
            out.push('}');
        });
    }

    /// FieldsV1's entries at this level, in the apiserver's order: `"."` (`None`) first where
    /// the parent element is a member with children here (`include_self`), then each element
    /// with, for a child, the set below it and whether the element is also a member.
    fn fields_v1_entries<'s>(
        &'s self,
        include_self: bool,
        mut entry: impl FnMut(Option<&'s PathElement>, Option<(&'s FieldSet, bool)>),
    ) {
        if include_self && !self.is_empty() {
            entry(None, None);
        }
        for e in self.entries() {
            let below = (!e.below.is_empty()).then_some((&e.below, e.member));
            entry(Some(&e.pe), below);
        }
    }

    /// The set as `fieldsV1` stands in a custom resource: a JSON object, whose keys the
    /// apiserver writes sorted (an unstructured object's maps are Go maps).
    pub fn to_fields_v1_value(&self) -> Value {
        Value::Object(self.fields_v1_map(false))
    }

    /// [`FieldSet::to_fields_v1`]'s object, built as a value rather than written and read:
    /// a long level's keys sorted once and the map built from them, a short one's inserted.
    fn fields_v1_map(&self, include_self: bool) -> Map<String, Value> {
        const SHORT: usize = 16;
        let value = |below: Option<(&FieldSet, bool)>| {
            Value::Object(below.map(|(below, member)| below.fields_v1_map(member)).unwrap_or_default())
        };
        let key = |pe: Option<&PathElement>| pe.map_or_else(|| ".".to_owned(), PathElement::fields_v1_key);
        if self.entries().len() < SHORT {
            let mut map = Map::new();
            self.fields_v1_entries(include_self, |pe, below| {
                map.insert(key(pe), value(below));
            });
            return map;
        }
        let mut entries = Vec::with_capacity(self.entries().len() + 1);
        self.fields_v1_entries(include_self, |pe, below| entries.push((key(pe), value(below))));
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        entries.into_iter().collect()
    }

    /// Reads FieldsV1 (as `metadata.managedFields[].fieldsV1` holds it). A key of a kind this
    /// version does not know is dropped, as upstream drops it.
    pub fn from_fields_v1(value: &Value) -> Result<FieldSet, String> {
        let Value::Object(map) = value else {
            return Err("FieldsV1 must be a JSON object".into());
        };
        Ok(read_fields_v1(map)?.0.into_set())
    }
}

impl PartialEq for FieldSet {
    fn eq(&self, other: &Self) -> bool {
        self.same(other) || self.0 == other.0
    }
}

impl std::fmt::Debug for FieldSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.entries()).finish()
    }
}

/// A set gathered by a walk in any order, made a [`FieldSet`] at the end with its level sorted
/// once (already in order, nearly always: then only checked). The walk hands each node's
/// elements to its parent's level, made a set as they come, so no path is cloned whole:
/// inserting each leaf's full path cloned its prefix per leaf and sorted whole paths, seconds
/// for a list of 10,000 items (issue 49).
#[derive(Debug, Default)]
pub(crate) struct Gather {
    /// Each element as it was reached (an element reached twice is merged at the end).
    entries: Vec<Entry>,
}

impl Gather {
    /// Room for `n` elements: a level's size is known before its walk.
    pub(crate) fn with_capacity(n: usize) -> Self {
        Gather { entries: Vec::with_capacity(n) }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Room for `n` more elements.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.entries.reserve(n);
    }

    /// `pe` is a member at this level.
    pub(crate) fn member(&mut self, pe: PathElement) {
        self.entries.push(Entry { pe, member: true, below: FieldSet::new() });
    }

    /// What was gathered below `pe` (nothing if it is empty).
    pub(crate) fn attach(&mut self, pe: PathElement, below: Gather) {
        self.add(pe, false, below);
    }

    /// `pe`, a member or not, with what was gathered below it: one entry where
    /// [`Gather::member`] and [`Gather::attach`] would make two.
    pub(crate) fn add(&mut self, pe: PathElement, member: bool, below: Gather) {
        if member || !below.is_empty() {
            self.entries.push(Entry { pe, member, below: below.into_set() });
        }
    }

    /// A list's level, as upstream records a repeated item: an element reached more than once
    /// is one member with nothing below. Found by order (a list in key order is only checked)
    /// rather than by a hash table per list.
    pub(crate) fn repeated_as_members(&mut self) {
        self.merge_repeats(|kept, _| {
            kept.member = true;
            kept.below = FieldSet::new();
        });
    }

    /// An element reached twice (a member and a parent; a value compared as two kinds) is one
    /// entry with both.
    pub(crate) fn into_set(mut self) -> FieldSet {
        self.merge_repeats(|kept, again| {
            kept.member |= again.member;
            kept.below = kept.below.union(&again.below);
        });
        FieldSet::of(self.entries)
    }

    /// Sorts the level (stably; in order already, it is only checked) and makes each run of
    /// one element a single entry, `merge` folding each later one into the first.
    fn merge_repeats(&mut self, merge: impl Fn(&mut Entry, &Entry)) {
        if self.entries.is_sorted_by(|a, b| a.pe < b.pe) {
            return;
        }
        self.entries.sort_by(|a, b| a.pe.cmp(&b.pe));
        self.entries.dedup_by(|later, kept| {
            let same = later.pe == kept.pe;
            if same {
                merge(kept, later);
            }
            same
        });
    }
}

/// The set a FieldsV1 object holds, and whether its parent element is a member (it is when
/// the object is empty or has `"."`). Gathered and sorted once: keys come in text order, not
/// path element order (`v:10` before `v:2`), and inserting each in place was quadratic. Two
/// keys for one element (`v:1`, `v:1.0`) are one, read into as upstream's `Descend` does.
fn read_fields_v1(map: &Map<String, Value>) -> Result<(Gather, bool), String> {
    let mut set = Gather::with_capacity(map.len());
    let mut member = map.is_empty();
    for (key, below) in map {
        if key == "." {
            member = true;
            continue;
        }
        let Some(pe) = PathElement::from_fields_v1_key(key)? else { continue };
        let Value::Object(below) = below else {
            return Err(format!("{}: expected a JSON object", crate::report::issue::echo(key)));
        };
        let (children, is_member) = read_fields_v1(below)?;
        set.add(pe, is_member, children);
    }
    Ok((set, member))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn f(name: &str) -> PathElement {
        PathElement::Field(name.into())
    }

    /// A bad key is echoed in its error up to 256 bytes, with how many were left out: a deep
    /// or long key made a 200 KB line (issue 49).
    #[test]
    fn a_long_bad_key_is_echoed_cut() {
        let deep = format!("k:{}", "[".repeat(200_000));
        let long = format!("f:{}", "é".repeat(100_000));
        for (key, below) in [(deep, json!({})), (long, json!(1))] {
            let err = FieldSet::from_fields_v1(&json!({ key.clone(): below })).unwrap_err();
            assert!(err.len() < 400, "{} bytes: {}", err.len(), &err[..400.min(err.len())]);
            assert!(err.contains("more bytes)"), "{err}");
        }
        let short = FieldSet::from_fields_v1(&json!({"k:[": {}})).unwrap_err();
        assert!(short.starts_with("k:[: "), "short keys whole: {short}");
    }

    /// What the apiserver writes: path element order (fields, keys, values, indexes), `"."`
    /// first where a member has children, Go's escapes in keys and, escaped once more as part
    /// of the key, in the values within them (`v:"<b>"` is `v:"\u003cb\u003e"`).
    #[test]
    fn fields_v1_is_written_as_the_apiserver_writes_it() {
        let mut set = FieldSet::new();
        set.insert(&[f("spec"), f("tags"), PathElement::Value(json!("<b>").into())]);
        set.insert(&[f("spec"), f("tags"), PathElement::Value(json!(2).into())]);
        let item =
            PathElement::Key(vec![("name".into(), json!("a\"b").into()), ("port".into(), json!(80).into())].into());
        set.insert(&[f("spec"), f("ports"), item.clone()]);
        set.insert(&[f("spec"), f("ports"), item, f("name")]);
        set.insert(&[f("metadata"), f("labels"), f("a&b")]);
        assert_eq!(
            set.to_fields_v1(),
            r#"{"f:metadata":{"f:labels":{"f:a\u0026b":{}}},"f:spec":{"f:ports":{"k:{\"name\":\"a\\\"b\",\"port\":80}":{".":{},"f:name":{}}},"f:tags":{"v:2":{},"v:\"\\u003cb\\u003e\"":{}}}}"#
        );
        assert_eq!(FieldSet::from_fields_v1(&set.to_fields_v1_value()).unwrap(), set);
    }

    /// A `k:` key reads as a JSON object does: a name given twice is the last one's, and an
    /// escaped name is its text (both read apart from the usual, unescaped, unrepeated key).
    #[test]
    fn key_elements_read_as_json_objects_read() {
        let key = |text: &str| PathElement::from_fields_v1_key(text).unwrap().unwrap();
        let expected = PathElement::Key(vec![("a".into(), json!(2).into()), ("b".into(), json!("x").into())].into());
        assert_eq!(key(r#"k:{"b":"x","a":1,"a":2}"#), expected);
        assert_eq!(key(r#"k:{"\u0061":2,"b":"x"}"#), expected);
        assert_eq!(key(r#"k:{"a":2.0,"b":"x"}"#), expected);
        assert_eq!(key(r#"k:{"a":2,"b":"x"}"#).fields_v1_key(), r#"k:{"a":2,"b":"x"}"#);
        assert!(PathElement::from_fields_v1_key(r#"k:{"a":1} x"#).unwrap_err().contains("trailing characters"));
    }

    #[test]
    fn unknown_element_kinds_are_dropped_and_bad_ones_refused() {
        let set = FieldSet::from_fields_v1(&json!({"f:a": {}, "x:future": {}})).unwrap();
        assert!(set.has(&[f("a")]) && set.paths().len() == 1);
        assert!(FieldSet::from_fields_v1(&json!({"fa": {}})).is_err());
        assert!(FieldSet::from_fields_v1(&json!({"k:[1]": {}})).is_err());
        assert!(FieldSet::from_fields_v1(&json!([])).is_err());
    }

    #[test]
    fn difference_keeps_what_is_below_a_removed_member_recursive_difference_does_not() {
        let mut a = FieldSet::new();
        a.insert(&[f("spec")]);
        a.insert(&[f("spec"), f("x")]);
        let mut b = FieldSet::new();
        b.insert(&[f("spec")]);
        assert_eq!(a.difference(&b).paths(), vec![vec![f("spec"), f("x")]]);
        assert!(a.recursive_difference(&b).is_empty());
        assert_eq!(a.leaves().paths(), vec![vec![f("spec"), f("x")]]);
    }

    fn element() -> impl Strategy<Value = PathElement> {
        prop_oneof![
            "[a-c<\"&é]{0,3}".prop_map(|s: String| PathElement::Field(s.into())),
            (any::<i64>(), "[a-z\"]{0,3}").prop_map(|(n, s)| PathElement::Key(
                vec![("a".into(), json!(n).into()), ("b".into(), json!(s).into())].into()
            )),
            any::<bool>().prop_map(|b| PathElement::Value(json!(b).into())),
            "[x-z\\\\]{0,2}".prop_map(|s| PathElement::Value(json!(s).into())),
            (0usize..5).prop_map(PathElement::Index),
        ]
    }

    proptest! {
        /// Any set written as FieldsV1 reads back as itself, through the text and through the
        /// JSON value a custom resource holds.
        #[test]
        fn fields_v1_round_trips(paths in proptest::collection::vec(proptest::collection::vec(element(), 1..4), 0..12)) {
            let mut set = FieldSet::new();
            for path in &paths {
                set.insert(path);
            }
            let text: Value = serde_json::from_str(&set.to_fields_v1()).unwrap();
            prop_assert_eq!(&FieldSet::from_fields_v1(&text).unwrap(), &set);
            prop_assert_eq!(&FieldSet::from_fields_v1(&set.to_fields_v1_value()).unwrap(), &set);
            for path in &paths {
                prop_assert!(set.has(path));
            }
            prop_assert_eq!(set.union(&set).paths(), set.paths());
            prop_assert!(set.difference(&set).is_empty());
        }

        /// Each operation is what it is on the sets as plain sets of paths: the tree, its
        /// sharing and its shortcuts change nothing. Elements from a small alphabet, so that
        /// the two sets share prefixes and members.
        #[test]
        fn operations_are_those_of_sets_of_paths(
            a in proptest::collection::vec(proptest::collection::vec(small(), 1..4), 0..10),
            b in proptest::collection::vec(proptest::collection::vec(small(), 1..4), 0..10),
        ) {
            use std::collections::BTreeSet;
            let build = |paths: &[FieldPath]| {
                let mut set = FieldSet::new();
                paths.iter().for_each(|p| set.insert(p));
                set
            };
            let (x, y) = (build(&a), build(&b));
            let (pa, pb): (BTreeSet<FieldPath>, BTreeSet<FieldPath>) = (a.into_iter().collect(), b.into_iter().collect());
            let model = |set: &FieldSet| set.paths().into_iter().collect::<BTreeSet<FieldPath>>();
            prop_assert_eq!(model(&x.union(&y)), &pa | &pb);
            prop_assert_eq!(model(&x.intersection(&y)), &pa & &pb);
            prop_assert_eq!(model(&x.difference(&y)), &pa - &pb);
            let under_b = |p: &FieldPath| (1..=p.len()).any(|n| pb.contains(&p[..n]));
            prop_assert_eq!(model(&x.recursive_difference(&y)), pa.iter().filter(|p| !under_b(p)).cloned().collect::<BTreeSet<_>>());
            let extended = |p: &FieldPath| pa.iter().any(|q| q.len() > p.len() && q.starts_with(p));
            prop_assert_eq!(model(&x.leaves()), pa.iter().filter(|p| !extended(p)).cloned().collect::<BTreeSet<_>>());
            for p in &pa {
                prop_assert!(x.has(p));
            }
            // An empty result is the empty set, whichever operation made it.
            for set in [x.union(&y), x.intersection(&y), x.difference(&y), x.recursive_difference(&y), x.leaves()] {
                prop_assert_eq!(set.is_empty(), set.paths().is_empty());
            }
        }
    }

    fn small() -> impl Strategy<Value = PathElement> {
        prop_oneof![
            "[ab]".prop_map(|s: String| PathElement::Field(s.into())),
            (0i64..2).prop_map(|n| PathElement::Key(vec![("k".into(), json!(n).into())].into())),
            (0i64..2).prop_map(|n| PathElement::Value(json!(n).into())),
        ]
    }
}
