//! `ReconcileFieldSetWithSchema`: a manager's set read where the schema changed what is atomic.

use crate::dynamic::apply::path::{FieldPath, PathElement};
use crate::dynamic::apply::set::FieldSet;
use crate::dynamic::apply::types::{Atom, ListMerge, Ty};

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
fn reconcile_at(ty: Ty<'_>, set: &FieldSet, path: &mut FieldPath, collapsed: &mut FieldSet) {
    match ty.shape() {
        Atom::Scalar => {}
        Atom::List { kind: ListMerge::Atomic, .. } => collapsed.insert(path),
        Atom::List { items, .. } => reconcile_items(set, path, collapsed, |_| Some(items)),
        Atom::Map { node, .. } if node.is_untyped_deduced() => {}
        Atom::Map { atomic: true, .. } => collapsed.insert(path),
        Atom::Map { node, .. } => reconcile_items(set, path, collapsed, |pe| node.element(pe)),
    }
}

/// Each path element of `set` with paths below it, with its type.
fn reconcile_items<'s>(
    set: &FieldSet,
    path: &mut FieldPath,
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
