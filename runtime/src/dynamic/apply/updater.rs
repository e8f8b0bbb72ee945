//! structured-merge-diff's `Updater` for one API version: an update (who changed what), an
//! apply (merge, prune what the applier stopped sending, conflicts), as `merge/update.go` does
//! them. Managers are keyed by their identifier (see [`super::managed`]).

use std::collections::BTreeMap;

use serde_json::Value;

use super::set::FieldSet;
use super::typed::{self, Comparison, ensure_named_fields_are_members as named};
use super::types::Ty;

/// What one manager owns.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Owned {
    pub set: FieldSet,
    pub api_version: String,
    /// Owned by an apply (else by an update).
    pub applied: bool,
}

/// Each manager's fields, by identifier.
pub(crate) type Managers = BTreeMap<String, Owned>;

/// The fields each conflicting manager owns that the operation would change.
pub(crate) type ConflictSets = BTreeMap<String, FieldSet>;

/// The type and version the updater works in, and the fields it ignores (reset fields: the
/// status of a resource with a status subresource).
pub(crate) struct Updater<'s> {
    pub root: Ty<'s>,
    pub api_version: String,
    pub ignored: FieldSet,
}

impl Updater<'_> {
    fn filtered(&self, set: FieldSet) -> FieldSet {
        if self.ignored.is_empty() { set } else { set.recursive_difference(&self.ignored) }
    }

    /// `update`: takes from the other managers what changed, and reports as conflicts what
    /// they owned of it (unless `force`).
    fn update(
        &self,
        old: &Value,
        new: &Value,
        managers: &mut Managers,
        workflow: &str,
        force: bool,
    ) -> Result<Comparison, ConflictSets> {
        let compare = typed::compare(self.root, old, new);
        let compare = Comparison {
            removed: self.filtered(compare.removed),
            modified: self.filtered(compare.modified),
            added: self.filtered(compare.added),
        };
        let changed = compare.modified.union(&compare.added);
        let mut conflicts = ConflictSets::new();
        for (manager, owned) in managers.iter() {
            if manager == workflow {
                continue;
            }
            let conflict = owned.set.intersection(&changed);
            if !conflict.is_empty() {
                conflicts.insert(manager.clone(), conflict);
            }
        }
        if !force && !conflicts.is_empty() {
            return Err(conflicts);
        }
        for (manager, owned) in managers.iter_mut() {
            if manager == workflow {
                continue;
            }
            if let Some(conflict) = conflicts.get(manager) {
                owned.set = owned.set.difference(conflict);
            }
            if !compare.removed.is_empty() {
                owned.set = owned.set.difference(&compare.removed);
            }
        }
        managers.retain(|_, owned| !owned.set.is_empty());
        Ok(compare)
    }

    /// `Update`: the manager now owns what it changed.
    pub(crate) fn record_update(&self, live: &Value, new: &Value, managers: &mut Managers, manager: &str) {
        let compare = self.update(live, new, managers, manager, true).unwrap_or_default();
        let previous = managers.get(manager).map(|o| o.set.clone()).unwrap_or_default();
        let set = previous.difference(&compare.removed).union(&compare.modified).union(&compare.added);
        let set = self.filtered(set);
        if set.is_empty() {
            managers.remove(manager);
        } else {
            managers.insert(manager.to_owned(), Owned { set, api_version: self.api_version.clone(), applied: false });
        }
    }

    /// `Apply`: the merged object (`None`: the apply changes nothing), the managers after it,
    /// or the conflicts.
    pub(crate) fn apply(
        &self,
        live: &Value,
        config: &Value,
        managers: &mut Managers,
        manager: &str,
        force: bool,
    ) -> Result<Option<Value>, ApplyFailure> {
        let merged =
            typed::merge(self.root, Some(live), Some(config)).map_err(ApplyFailure::Merge)?.unwrap_or(Value::Null);
        let last = managers.get(manager).map(|o| o.set.clone());
        let set = self.filtered(typed::to_field_set(self.root, config));
        managers.insert(manager.to_owned(), Owned { set, api_version: self.api_version.clone(), applied: true });
        let merged = match last {
            Some(last) if !last.is_empty() => self.prune(&merged, managers, &last),
            _ => merged,
        };
        self.update(live, &merged, managers, manager, force).map_err(ApplyFailure::Conflicts)?;
        Ok((!typed::values_equal(live, &merged)).then_some(merged))
    }

    /// `prune`: removes what the applier applied last time and not this time, unless another
    /// manager (or the applier's new configuration) owns it.
    fn prune(&self, merged: &Value, managers: &Managers, last: &FieldSet) -> Value {
        let root = Some(self.root);
        let pruned = typed::remove_items(self.root, merged, &named(root, last), false);
        // addBackOwnedItems
        let managed = managers.values().fold(FieldSet::new(), |all, o| all.union(&o.set));
        let merged_set = named(root, &typed::to_field_set(self.root, merged));
        let pruned_set = named(root, &typed::to_field_set(self.root, &pruned));
        let pruned = typed::remove_items(
            self.root,
            merged,
            &merged_set.difference(&pruned_set.union(&named(root, &managed))),
            false,
        );
        // addBackDanglingItems
        let pruned_set = named(root, &typed::to_field_set(self.root, &pruned));
        let dangling = merged_set.difference(&pruned_set).intersection(&named(root, last));
        typed::remove_items(self.root, merged, &dangling, false)
    }
}

/// Why an apply failed inside the updater.
#[derive(Debug)]
pub(crate) enum ApplyFailure {
    Merge(String),
    Conflicts(ConflictSets),
}
