//! `RemoveItems` and `ExtractItems`: a set of fields removed from, or extracted out of, a value; and the named fields a removal leaves.

use serde_json::{Map, Value};

use super::tofieldset::{field_is_member, to_named_field_set};
use super::*;
use crate::dynamic::apply::path::PathElement;
use crate::dynamic::apply::set::{Entry, FieldSet};
use crate::dynamic::apply::types::{Atom, ListMerge, Ty};

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
            if matches!(kind, ListMerge::Atomic) {
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
            if list.is_empty() || matches!(kind, ListMerge::Atomic) {
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
            if list.is_empty() || matches!(kind, ListMerge::Atomic) {
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
    (kind, items, list): (ListMerge<'_>, Ty<'_>, &[Value]),
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
fn touches_key(kind: ListMerge<'_>, below: &FieldSet) -> bool {
    match kind {
        ListMerge::Map(keys) => keys.iter().any(|key| {
            let (member, under) = below.at(&PathElement::Field(key.as_str().into()));
            member || !under.is_empty()
        }),
        ListMerge::Set | ListMerge::Atomic => false,
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
