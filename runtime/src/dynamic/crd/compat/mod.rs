//! What a change of a CRD does to the objects already stored under it (issue 52): the update
//! of the CRD itself as the apiserver judges it (`update`), then every change of its
//! envelope and schemas (`diff`), each classified by what the apiserver would do with an
//! object that proves it: a witness OLD accepts, run through NEW's create, its no-op update and
//! an update that edits a field beside the violating one (`witness`).
//!
//! The classes are defined by those answers, not by a list of keywords, and the answers come
//! from this crate's validator (which the recorded oracle fixtures hold to kube-apiserver's).

mod diff;
mod update;
mod witness;

use serde_json::Value;

use super::Crd;
use super::check::finding::Finding;

pub use diff::Place;
pub use update::check_update;

/// What a change does, worst last: the order [`Report::worst`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Every object OLD accepts, NEW accepts unchanged.
    Compatible,
    /// A rule's estimated cost changed (NEW over a limit is the CRD update's refusal too).
    CelCost,
    /// The storage version changed: the stored versions to migrate are named.
    NeedsMigration,
    /// Some object OLD accepts is refused by NEW on create, but a stored one stays editable.
    Tightens,
    /// Some object OLD accepts is refused by NEW on create, and a stored one cannot be edited
    /// (an edit beside the violating field is refused) until it is fixed.
    BlocksUpdates,
    /// Stored values disappear at the next write (pruned), or their type changed.
    DropsData,
    /// A served version is gone, or the scope, kind or plural changed.
    BreaksClients,
}

impl Class {
    /// The name the CLI, the JSON and a policy use.
    pub fn name(self) -> &'static str {
        match self {
            Class::Compatible => "compatible",
            Class::CelCost => "cel-cost",
            Class::NeedsMigration => "needs-migration",
            Class::Tightens => "tightens",
            Class::BlocksUpdates => "blocks-updates",
            Class::DropsData => "drops-data",
            Class::BreaksClients => "breaks-clients",
        }
    }

    /// What the class means for stored objects, in a clause.
    pub fn meaning(self) -> &'static str {
        match self {
            Class::Compatible => "compatible",
            Class::CelCost => "rule cost estimates changed",
            Class::NeedsMigration => "stored objects need a storage migration",
            Class::Tightens => "NEW refuses objects OLD accepts; stored ones stay editable",
            Class::BlocksUpdates => "NEW refuses objects OLD accepts, and stored ones cannot be edited until fixed",
            Class::DropsData => "stored values are dropped or changed at the next write",
            Class::BreaksClients => "clients of the old API break",
        }
    }

    /// Every class, in order.
    pub const ALL: [Class; 7] = [
        Class::Compatible,
        Class::CelCost,
        Class::NeedsMigration,
        Class::Tightens,
        Class::BlocksUpdates,
        Class::DropsData,
        Class::BreaksClients,
    ];

    /// The class named `name`.
    pub fn from_name(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// One change between OLD and NEW.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The CRD's name.
    pub crd: String,
    /// The version whose schema changed (`None` for the envelope).
    pub version: Option<String>,
    /// Where: a JSON pointer into NEW's document (OLD's for what NEW removed), and the object's
    /// field path (`.spec.replicas`), empty for the envelope.
    pub place: Place,
    /// What changed, in words (`maxLength 10 → 3`).
    pub what: String,
    /// What the change does.
    pub class: Class,
    /// The proof, for a change that is not compatible: or why none was built.
    pub witness: Result<Witness, String>,
    /// The version the objects come from when it is not OLD's version of the same name: the
    /// storage version, for a served version compared with it under conversion `None`.
    pub served_from: Option<String>,
}

/// An object that proves a change's class, with NEW's answers.
#[derive(Clone, Debug, PartialEq)]
pub struct Witness {
    /// The object, as stored under OLD (OLD accepts it on create).
    pub object: Value,
    /// NEW's answer on create: the apiserver's messages, empty when accepted.
    pub create: Vec<String>,
    /// NEW's answer to an update that changes nothing.
    pub no_op_update: Vec<String>,
    /// The update beside the violation: the field it sets, and NEW's answer to it.
    pub edit: (String, Vec<String>),
    /// The object that update sends.
    pub edited: Value,
    /// Fields NEW prunes from the object (`drops-data`).
    pub pruned: Vec<String>,
}

/// How to compare.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The versions objects are stored in (`status.storedVersions` of the live CRD); default:
    /// OLD's `status.storedVersions`, else its storage version.
    pub stored_versions: Option<Vec<String>>,
    /// Report description-only changes too (as `compatible`).
    pub verbose: bool,
}

/// What a CRD change does.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The CRD's name.
    pub crd: String,
    /// The apiserver's refusal of the CRD update itself (empty: it accepts the update).
    pub update: Vec<Finding>,
    /// Every change, in the CRD's order: envelope first, then each version's schema by path.
    pub changes: Vec<Change>,
}

impl Report {
    /// The worst class among the changes (`Compatible` when there are none).
    pub fn worst(&self) -> Class {
        self.changes.iter().map(|c| c.class).max().unwrap_or(Class::Compatible)
    }

    /// Whether the apiserver refuses the update or a change is worse than compatible.
    pub fn breaks(&self) -> bool {
        self.update.iter().any(|f| !f.warning) || self.worst() > Class::Compatible
    }
}

/// Compares `old` with `new` (the same CRD, by name): see the module's text.
pub fn compat(old: &Crd, new: &Crd, options: &Options) -> Report {
    let stored = stored_versions(old, options);
    let update = check_update(old, new, &stored);
    let mut changes = diff::envelope(old, new, &stored);
    let (old_raw, new_raw) = (old.raw(), new.raw());
    for new_version in &new.versions {
        let Some(old_version) = old.version(&new_version.name) else { continue };
        for found in diff::schemas(old_version.schema.as_ref(), new_version.schema.as_ref(), &old_raw, &new_raw) {
            if found.documentation_only && !options.verbose {
                continue;
            }
            let (class, witness) = if found.documentation_only {
                (Class::Compatible, Err("documentation only".to_owned()))
            } else {
                witness::classify(old, old_version, new, new_version, &found)
            };
            changes.push(Change {
                crd: new.name.clone(),
                version: Some(new_version.name.clone()),
                place: found.place.clone(),
                what: found.what.clone(),
                class,
                witness,
                served_from: None,
            });
        }
    }
    changes.extend(cost_changes(old, new));
    changes.extend(between_served_versions(new, options));
    Report { crd: new.name.clone(), update, changes }
}

/// Under `conversion: None` one stored object is served at every version with only its
/// `apiVersion` changed, and a write at a served version is validated by that version's
/// schema: each served version compared with the storage version, as a change from it.
fn between_served_versions(new: &Crd, options: &Options) -> Vec<Change> {
    let strategy = new.envelope().pointer("/spec/conversion/strategy").and_then(Value::as_str).unwrap_or("None");
    let Some(j) = new.versions.iter().position(|v| v.storage).filter(|_| strategy == "None") else { return Vec::new() };
    let storage = &new.versions[j];
    let mut out = Vec::new();
    let new_raw = new.raw();
    for (i, served) in new.versions.iter().enumerate().filter(|(i, v)| v.served && *i != j) {
        // NEW with the served version holding the storage version's schema: what is stored.
        let mut raw = new_raw.clone().into_owned();
        let Some(stored_schema) = raw.pointer(&format!("/spec/versions/{j}/schema")).cloned() else { continue };
        let Some(slot) = raw.pointer_mut(&format!("/spec/versions/{i}/schema")) else { continue };
        *slot = stored_schema;
        let as_stored = Crd::parse(&raw).0;
        let Some(stored_version) = as_stored.version(&served.name) else { continue };
        let found = diff::schemas(stored_version.schema.as_ref(), served.schema.as_ref(), &as_stored.raw(), &new_raw);
        for found in found.iter().filter(|f| !f.documentation_only) {
            let (class, witness) = witness::classify(&as_stored, stored_version, new, served, found);
            if class == Class::Compatible && !options.verbose {
                continue;
            }
            // What only the storage version has is placed there, in NEW's file.
            let mut place = found.place.clone();
            if place.in_old {
                place.pointer =
                    place.pointer.replacen(&format!("/spec/versions/{i}/"), &format!("/spec/versions/{j}/"), 1);
                place.in_old = false;
            }
            out.push(Change {
                crd: new.name.clone(),
                version: Some(served.name.clone()),
                place,
                what: format!("served from storage version {} (conversion None): {}", storage.name, found.what),
                class,
                witness,
                served_from: Some(storage.name.clone()),
            });
        }
    }
    out
}

/// Rules whose estimated cost changed (a rule in both, by its place in its version's schema),
/// with the limit it is held to: `cel-cost`. A rule over the limit is the update's refusal.
fn cost_changes(old: &Crd, new: &Crd) -> Vec<Change> {
    use super::check::rule_costs;
    // A rule's place within its version's schema: the same rule in both even where versions moved.
    let key = |c: &super::check::RuleCost| {
        let within = c.pointer.split_once("/openAPIV3Schema").map_or(c.pointer.as_str(), |(_, rest)| rest).to_owned();
        (c.version.clone(), within)
    };
    let before: std::collections::HashMap<(String, String), u64> =
        rule_costs(old).iter().map(|c| (key(c), c.cost)).collect();
    let mut out = Vec::new();
    for c in rule_costs(new) {
        let Some(&was) = before.get(&key(&c)) else { continue };
        if was == c.cost {
            continue;
        }
        let limit = crate::cel::vocabulary::limits::STATIC_RULE_LIMIT;
        let field = c.field.trim_start_matches("openAPIV3Schema.").to_owned();
        out.push(Change {
            crd: new.name.clone(),
            version: Some(c.version.clone()),
            place: Place { pointer: c.pointer.clone(), in_old: false, field },
            what: format!("estimated cost {was} → {} (the per-rule limit is {limit})", c.cost),
            class: Class::CelCost,
            witness: Err("a cost estimate, not a value".to_owned()),
            served_from: None,
        });
    }
    out
}

/// The versions stored objects are in: the option, else OLD's `status.storedVersions`, else
/// its storage version (what its create stored).
pub fn stored_versions(old: &Crd, options: &Options) -> Vec<String> {
    if let Some(given) = &options.stored_versions {
        return given.clone();
    }
    let status = old.envelope().pointer("/status/storedVersions").and_then(Value::as_array);
    let listed: Vec<String> = status.into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect();
    if !listed.is_empty() {
        return listed;
    }
    old.versions.iter().filter(|v| v.storage).take(1).map(|v| v.name.clone()).collect()
}

impl Report {
    /// One line per refusal and per change worse than compatible, with its witness's answers:
    /// what [`assert_crd_compatible`] panics with.
    pub fn breaking_lines(&self) -> Vec<String> {
        let mut out: Vec<String> =
            self.update.iter().filter(|f| !f.warning).map(|f| format!("the update: {}", f.text())).collect();
        for c in self.changes.iter().filter(|c| c.class > Class::Compatible) {
            let place = format!("{}{}", c.version.as_deref().map_or(String::new(), |v| format!("{v} ")), c.place.field);
            let mut line = format!("{} {}: {}", c.class.name(), place.trim_end(), c.what);
            match &c.witness {
                Ok(w) => {
                    line.push_str(&format!("\n    witness: {}", w.object));
                    if !w.create.is_empty() {
                        line.push_str(&format!("\n    NEW on create: {}", w.create.join("; ")));
                    }
                    if !w.pruned.is_empty() {
                        line.push_str(&format!("\n    NEW prunes: {}", w.pruned.join(", ")));
                    }
                }
                Err(why) => line.push_str(&format!("\n    witness: {why}")),
            }
            out.push(line);
        }
        out
    }
}

/// Panics when `crd` (a derived CRD, `Widget::definition()`) would break objects stored under
/// `released` (the CRD as last released, YAML or JSON: `include_str!("../crds/released.yaml")`):
/// a refused update, or any change worse than compatible, each with its witness. The test that
/// makes a change of a derived type that breaks stored objects fail `cargo test`. A change
/// needing a storage migration or changing cost estimates fails it too: release it deliberately
/// by updating `released`. Feature `yaml`.
#[cfg(feature = "yaml")]
pub fn assert_crd_compatible(released: &str, crd: &crate::schema::of_types::crd::CustomResourceDefinition) {
    let mut docs = Vec::new();
    let json = crate::read::yaml::looks_like_json(released);
    if let Err(e) = crate::read::yaml::parse_each(released, json, &mut |d| docs.push(d.value)) {
        panic!("the released CRD does not read: {e}");
    }
    let Some(old) = docs.iter().find(|d| d.pointer("/metadata/name").and_then(Value::as_str) == Some(crd.name()))
    else {
        panic!("the released text holds no CRD named {}", crd.name());
    };
    let (old, new) = (Crd::parse(old).0, Crd::parse(crd.to_json()).0);
    let report = compat(&old, &new, &Options::default());
    let lines = report.breaking_lines();
    if !lines.is_empty() {
        panic!("{} breaks objects stored under the released CRD:\n  {}", crd.name(), lines.join("\n  "));
    }
}
