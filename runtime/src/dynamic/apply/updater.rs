//! structured-merge-diff's `Updater`: an update (who changed what), an apply (merge, prune
//! what the applier stopped sending, conflicts), as `merge/update.go` does them. Managers are
//! keyed by their identifier (see [`super::managed`]); each manager's fields are read in the
//! version its entry records, the objects converted there ([`super::versions`]).

use std::collections::BTreeMap;

use serde_json::Value;

use super::set::FieldSet;
use super::typed;
use super::typed::compare::Comparison;
use super::typed::remove::ensure_named_fields_are_members as named;
use super::types::Ty;
use super::versions::Versions;

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

/// Why an operation failed inside the updater.
#[derive(Debug)]
pub(crate) enum ApplyFailure {
    /// The apiserver's error, in its words.
    Refused(String),
    Conflicts(ConflictSets),
}

/// The versions the updater works in (objects come and go at the hub, the request's
/// version), and the fields it ignores there (reset fields: the status of a resource with a
/// status subresource; the apiserver resets them at the request's version only).
pub(crate) struct Updater<'s> {
    pub versions: Versions<'s>,
    pub ignored: FieldSet,
}

impl<'s> Updater<'s> {
    fn root(&self) -> Ty<'s> {
        self.versions.hub_ty()
    }

    fn filtered(&self, set: FieldSet) -> FieldSet {
        if self.ignored.is_empty() { set } else { set.recursive_difference(&self.ignored) }
    }

    /// `update`: takes from the other managers what changed (compared in each manager's
    /// version), and reports as conflicts what they owned of it (unless `force`).
    fn update(
        &self,
        old: &Value,
        new: &Value,
        managers: &mut Managers,
        workflow: &str,
        force: bool,
    ) -> Result<Comparison, ApplyFailure> {
        let compare = typed::compare::compare(self.root(), old, new);
        let compare = Comparison {
            removed: self.filtered(compare.removed),
            modified: self.filtered(compare.modified),
            added: self.filtered(compare.added),
        };
        let hub = self.versions.hub;
        // What the operation changes, at the hub: the same for every manager there.
        let hub_changed = compare.modified.union(&compare.added);
        let mut by_version: BTreeMap<&str, Comparison> = BTreeMap::new();
        let mut conflicts = ConflictSets::new();
        let mut removed = ConflictSets::new();
        for (manager, owned) in managers.iter() {
            if manager == workflow {
                continue;
            }
            let version = owned.api_version.as_str();
            let at_version = if version == hub {
                &compare
            } else {
                if !by_version.contains_key(version) {
                    let refused =
                        |what: &str, e: String| ApplyFailure::Refused(format!("failed to convert {what}: {e}"));
                    let ty = self.versions.convert(old, hub, version).map_err(|e| refused("old object", e))?;
                    self.versions.convert(new, hub, version).map_err(|e| refused("new object", e))?;
                    by_version.insert(version, typed::compare::compare(ty, old, new));
                }
                &by_version[version]
            };
            let conflict = if version == hub {
                owned.set.intersection(&hub_changed)
            } else {
                owned.set.intersection(&at_version.modified.union(&at_version.added))
            };
            if !conflict.is_empty() {
                conflicts.insert(manager.clone(), conflict);
            }
            if !at_version.removed.is_empty() {
                removed.insert(manager.clone(), at_version.removed.clone());
            }
        }
        if !force && !conflicts.is_empty() {
            return Err(ApplyFailure::Conflicts(conflicts));
        }
        for (manager, owned) in managers.iter_mut() {
            if let Some(conflict) = conflicts.get(manager) {
                owned.set = owned.set.difference(conflict);
            }
            if let Some(removed) = removed.get(manager) {
                owned.set = owned.set.difference(removed);
            }
        }
        managers.retain(|_, owned| !owned.set.is_empty());
        Ok(compare)
    }

    /// `reconcileManagedFieldsWithSchemaChanges`: each manager's set read against its
    /// version's type as the live object has it there.
    fn reconcile(&self, live: &Value, managers: &mut Managers) -> Result<(), ApplyFailure> {
        for owned in managers.values_mut() {
            let ty =
                self.versions.convert(live, self.versions.hub, &owned.api_version).map_err(ApplyFailure::Refused)?;
            if let Some(set) = typed::reconcile::reconcile_with_schema(ty, &owned.set) {
                owned.set = set;
            }
        }
        Ok(())
    }

    /// `Update`: the manager now owns what it changed.
    pub(crate) fn record_update(
        &self,
        live: &Value,
        new: &Value,
        managers: &mut Managers,
        manager: &str,
    ) -> Result<(), ApplyFailure> {
        self.reconcile(live, managers)?;
        let compare = self.update(live, new, managers, manager, true)?;
        let previous = managers.get(manager).map(|o| o.set.clone()).unwrap_or_default();
        let set = previous.difference(&compare.removed).union(&compare.modified).union(&compare.added);
        let set = self.filtered(set);
        if set.is_empty() {
            managers.remove(manager);
        } else {
            let api_version = self.versions.hub.to_owned();
            managers.insert(manager.to_owned(), Owned { set, api_version, applied: false });
        }
        Ok(())
    }

    /// `Apply`: the merged object (`None`: the apply changes nothing), the managers after it,
    /// or the refusal.
    pub(crate) fn apply(
        &self,
        live: &Value,
        config: &Value,
        managers: &mut Managers,
        manager: &str,
        force: bool,
    ) -> Result<Option<Value>, ApplyFailure> {
        self.reconcile(live, managers)?;
        let merged = typed::merge::merge(self.root(), Some(live), Some(config))
            .map_err(|e| ApplyFailure::Refused(format!("failed to merge config: {e}")))?
            .unwrap_or(Value::Null);
        let last = managers.get(manager).cloned();
        let set = self.filtered(typed::tofieldset::to_field_set(self.root(), config));
        let api_version = self.versions.hub.to_owned();
        managers.insert(manager.to_owned(), Owned { set, api_version, applied: true });
        let merged = match last {
            Some(last) if !last.set.is_empty() => self
                .prune(merged, managers, &last)
                .map_err(|e| ApplyFailure::Refused(format!("failed to prune fields: {e}")))?,
            _ => merged,
        };
        self.update(live, &merged, managers, manager, force)?;
        Ok((!typed::compare::values_equal(live, &merged)).then_some(merged))
    }

    /// `prune`: removes what the applier applied last time (in the version it applied it at)
    /// and not this time, unless another manager (or the applier's new configuration) owns it.
    fn prune(&self, merged: Value, managers: &Managers, last: &Owned) -> Result<Value, String> {
        let (hub, at) = (self.versions.hub, last.api_version.as_str());
        let ty = self
            .versions
            .convert(&merged, hub, at)
            .map_err(|e| format!("failed to convert merged object to last applied version: {e}"))?;
        let last_named = named(Some(ty), &last.set);
        let pruned = Pruned { version: at, ty, removed: last_named.clone() };
        // The merged object's fields in the last applied version: add-back reads them first.
        let merged_set = typed::tofieldset::to_named_field_set(ty, &merged);
        let pruned = self
            .add_back_owned_items(&merged, (at, &merged_set), pruned, managers)
            .map_err(|e| format!("failed add back owned items: {e}"))?;
        // addBackDanglingItems: in the last applied version.
        let pruned_set = pruned.fields_at(self, &merged, (at, ty, &merged_set)).map_err(|e| {
            format!("failed add back dangling items: failed to convert pruned object to last applied version: {e}")
        })?;
        let dangling = merged_set.difference(&pruned_set).intersection(&last_named);
        // Usually little or nothing dangles (a configuration applied again, or one that
        // stopped sending only what another manager owns): removed in place, not copied.
        let mut pruned = merged;
        typed::remove::remove_items_in_place(ty, &mut pruned, &dangling);
        self.versions.convert(&pruned, at, hub)?;
        Ok(pruned)
    }

    /// `addBackOwnedItems`: what prune removed and some manager owns comes back, version by
    /// version (the pruned version first; then in apiVersion order, where upstream takes Go's
    /// map order: the result is the same unless two versions both refuse the object).
    fn add_back_owned_items<'v>(
        &self,
        merged: &Value,
        (merged_set_at, merged_set_there): (&str, &FieldSet),
        mut pruned: Pruned<'v, 's>,
        managers: &'v Managers,
    ) -> Result<Pruned<'v, 's>, String> {
        let mut managed_at: BTreeMap<&str, FieldSet> = BTreeMap::new();
        for owned in managers.values() {
            let all = managed_at.entry(&owned.api_version).or_default();
            *all = all.union(&owned.set);
        }
        // The merged object does not change here: its set at a version is read once.
        let mut order: Vec<(&str, FieldSet)> = managed_at.remove_entry(pruned.version).into_iter().collect();
        order.extend(managed_at);
        let mut merged_at = pruned.version;
        for (version, managed) in order {
            let ty = self
                .versions
                .convert(merged, merged_at, version)
                .map_err(|e| format!("failed to convert merged object at version {version}: {e}"))?;
            merged_at = version;
            let merged_set = if version == merged_set_at {
                merged_set_there.clone()
            } else {
                typed::tofieldset::to_named_field_set(ty, merged)
            };
            let pruned_set = pruned
                .fields_at(self, merged, (version, ty, &merged_set))
                .map_err(|e| format!("failed to convert pruned object at version {version}: {e}"))?;
            let kept = pruned_set.union(&named(Some(ty), &managed));
            pruned = Pruned { version, ty, removed: merged_set.difference(&kept) };
        }
        Ok(pruned)
    }
}

/// An object prune makes on its way: the merged object without `removed`, at `version`
/// (`RemoveItems` there). Prune reads only its set, so it is made only when a conversion to
/// another version must read it; at its own version its set is read off the merged object's.
struct Pruned<'v, 's> {
    version: &'v str,
    ty: Ty<'s>,
    removed: FieldSet,
}

impl<'s> Pruned<'_, 's> {
    /// Its named field set at `version` (of type `ty`, where the merged object's is
    /// `merged_set`), converted there first as upstream converts it.
    fn fields_at(
        &self,
        updater: &Updater<'s>,
        merged: &Value,
        (version, ty, merged_set): (&str, Ty<'s>, &FieldSet),
    ) -> Result<FieldSet, String> {
        if version == self.version {
            return Ok(typed::remove::named_fields_after_removal(ty, merged, merged_set, &self.removed));
        }
        let object = typed::remove::remove_items(self.ty, merged, &self.removed);
        updater.versions.convert(&object, self.version, version)?;
        Ok(typed::tofieldset::to_named_field_set(ty, &object))
    }
}
