//! `ToFieldSet`: the set of fields a value sets.

use serde_json::Value;

use super::*;
use crate::dynamic::apply::path::PathElement;
use crate::dynamic::apply::set::{FieldSet, Gather};
use crate::dynamic::apply::types::{Atom, ListMerge, Ty};

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
            if matches!(kind, ListMerge::Atomic) {
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
pub(super) fn field_is_member(bare: bool, is_named: bool, named: bool, has_below: bool) -> bool {
    bare || !is_named || (named && has_below)
}
