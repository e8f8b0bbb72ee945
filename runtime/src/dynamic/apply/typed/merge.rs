//! `Merge`: an applied configuration merged into a live object.

use serde_json::{Map, Value};

use super::*;
use crate::dynamic::apply::path::ItemKey;
use crate::dynamic::apply::types::{Atom, ListMerge, Ty};

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
            if matches!(kind, ListMerge::Atomic) || empty {
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
    kind: ListMerge<'v>,
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
    kind: ListMerge<'v>,
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
