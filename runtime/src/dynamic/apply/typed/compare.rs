//! `Compare`: what changed between two objects.

use serde_json::{Map, Value};

use super::*;
use crate::dynamic::apply::path::{ItemKey, PathElement};
use crate::dynamic::apply::set::{FieldSet, Gather};
use crate::dynamic::apply::types::{Atom, ListMerge, Ty};

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
            if matches!(kind, ListMerge::Atomic) || empty {
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
fn compare_lists<'v>(kind: ListMerge<'v>, items: Ty<'v>, lhs: &'v [Value], rhs: &'v [Value], below: &mut Changes) {
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
        (Value::Number(_), Value::Number(_)) => {
            crate::dynamic::apply::path::compare_values(a, b) == std::cmp::Ordering::Equal
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| values_equal(p, q)),
        // Without putting the keys in order, as the order of values would.
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(key, p)| y.get(key).is_some_and(|q| values_equal(p, q)))
        }
        _ => a == b,
    }
}
