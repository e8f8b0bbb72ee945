//! The apiserver's checks of a CRD at create time, with its field paths and messages: what
//! `cargo kubeskema check` reports, what generation refuses, and what a user's test (or the
//! Rust → CRD direction) can ask of any [`Crd`] without the code generator.
//!
//! - Structural rules (`apiextensions-apiserver/pkg/apiserver/schema/validation.go`,
//!   `complete.go`, `convert.go`): every node has a type, junctors carry only value
//!   validations, root and embedded-resource metadata rules (`structural`).
//! - The envelope (`envelope`): `metadata.name`, group, scope, versions and their storage
//!   flags, names, printer columns, selectable fields, scale paths, deprecation warnings,
//!   conversion, the approval annotation of protected groups.
//! - Per-node CRD rules (`pkg/apis/apiextensions/validation/validation.go`): type values,
//!   list-type/map-type/list-map-keys, uniqueItems, properties next to additionalProperties
//!   (`structural`); every `default` pruned and valid against its node (`defaults`); every CEL
//!   rule type-checked, correlatable where it reads `oldSelf`, and under the cost limits
//!   (`rules`). Internal structs the apiserver puts in messages print as Go's JSON (`go_dump`).
//!
//! Paths read `spec.validation.openAPIV3Schema...` when every version carries the same schema
//! (the apiserver moves such a schema to the top level before validating: a quirk kept here)
//! and `spec.versions[i].schema.openAPIV3Schema...` otherwise.
//!
//! ```
//! let crd: serde_json::Value = serde_json::json!({
//!     "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
//!     "metadata": {"name": "widgets.example.com"},
//!     "spec": {"group": "example.com", "scope": "Namespaced",
//!              "names": {"kind": "Widget", "plural": "widgets"},
//!              "versions": [{"name": "v1", "served": true, "storage": true,
//!                            "schema": {"openAPIV3Schema": {"type": "object",
//!                                "properties": {"spec": {"properties": {"a": {"type": "string"}}}}}}}]}});
//! let (crd, errors) = kubeskema::crd::Crd::parse(&crd);
//! assert!(errors.is_empty());
//! let checked = kubeskema::crd::check::check(&crd);
//! assert_eq!(checked.accepted, [false]);
//! assert_eq!(
//!     checked.findings[0].text(),
//!     "spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields"
//! );
//! ```

mod defaults;
mod derived;
mod envelope;
pub(crate) mod finding;
mod go_dump;
mod rules;
mod structural;

pub use derived::{DerivedCheck, assert_accepted, assert_crd_accepted, check_derived};
pub use finding::Finding;

use super::{Crd, CrdVersion};
use crate::report::issue::go_quote;
use crate::schema::{AdditionalProperties, Schema};
use structural::{check_schema, unrecognized_formats};

/// What the apiserver says of a CRD, and which versions it would take.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// Errors and warnings, version by version, in the order the apiserver reports them.
    pub findings: Vec<Finding>,
    /// Per version (in the CRD's order): whether its schema passes (a version without one
    /// does; nothing can be generated for it, and a warning says so).
    pub accepted: Vec<bool>,
}

/// Checks every version of a CRD as the apiserver does when it is created.
pub fn check(crd: &Crd) -> Checked {
    check_with(crd, None, &Relaxed::default())
}

/// [`check`] with the rules an update no longer holds NEW to (`Relaxed::for_update`).
pub fn check_relaxed(crd: &Crd, relaxed: &Relaxed) -> Checked {
    check_with(crd, None, relaxed)
}

/// What an update of a CRD no longer requires of NEW because OLD already breaks it
/// (`ValidateCustomResourceDefinitionUpdate`'s options): a CRD stored before a rule existed
/// stays updatable. A create relaxes nothing (the default).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Relaxed {
    /// `!requireAtomicSetType`: OLD has a set whose items are not atomic.
    pub set_items: bool,
    /// `!requireMapListKeysMapSetValidation`: OLD has a set or map list with nullable items, or
    /// a map key that is nullable, or neither required nor defaulted.
    pub list_keys: bool,
    /// `!requireValidPropertyType`: OLD has a type OpenAPI v3 does not know.
    pub property_types: bool,
    /// `!requirePrunedDefaults`: OLD has a default that pruning changes.
    pub pruned_defaults: bool,
    /// `!requireRecognizedConversionReviewVersion`: OLD lists conversion review versions, none
    /// of them known.
    pub review_versions: bool,
    /// `allowTooManySelectableFields`: the versions (`""` for the spec's) that had more
    /// selectable fields than allowed in OLD and keep them unchanged in NEW.
    pub too_many_selectable: Vec<String>,
}

impl Relaxed {
    /// What updating `old` to `new` relaxes.
    pub fn for_update(old: &Crd, new: &Crd) -> Relaxed {
        let any = |pred: &dyn Fn(&Schema) -> bool| {
            old.versions.iter().filter_map(|v| v.schema.as_ref()).any(|s| has(s, pred))
        };
        let selectable = |c: &Crd, name: &str| c.version(name).map(|v| v.selectable_fields.clone());
        let review = old
            .envelope()
            .pointer("/spec/conversion/webhook/conversionReviewVersions")
            .and_then(serde_json::Value::as_array)
            .filter(|r| !r.is_empty());
        Relaxed {
            set_items: any(&structural::non_atomic_set),
            list_keys: any(&structural::invalid_list_keys),
            property_types: any(&structural::invalid_type),
            pruned_defaults: any(&defaults::unpruned),
            review_versions: review.is_some_and(|r| !r.iter().any(|v| v == "v1" || v == "v1beta1")),
            too_many_selectable: old
                .versions
                .iter()
                .filter(|v| v.selectable_fields.len() > envelope::MAX_SELECTABLE_FIELDS)
                .filter(|v| selectable(new, &v.name) == Some(v.selectable_fields.clone()))
                .map(|v| v.name.clone())
                .collect(),
        }
    }
}

/// Whether `pred` holds at any node of `s`.
fn has(s: &Schema, pred: &dyn Fn(&Schema) -> bool) -> bool {
    pred(s) || s.children().any(|c| has(c, pred))
}

/// One rule's estimated cost, as the CRD check weighs it against the limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleCost {
    /// The version whose schema holds the rule.
    pub version: String,
    /// The field path as the apiserver prints it (`...x-kubernetes-validations[0].rule`).
    pub field: String,
    /// The JSON pointer of the rule (or messageExpression) in the CRD's document.
    pub pointer: String,
    /// cel-go's estimate times the node's cardinality.
    pub cost: u64,
}

/// Every rule's estimated cost, version by version (a version without a schema has none).
pub fn rule_costs(crd: &Crd) -> Vec<RuleCost> {
    let mut out = Vec::new();
    for version in &crd.versions {
        let Some(schema) = &version.schema else { continue };
        for (cost, field, pointer) in rules::costs(schema, "openAPIV3Schema") {
            out.push(RuleCost { version: version.name.clone(), field, pointer, cost });
        }
    }
    out
}

/// The checked, lowered trees of a CRD's rules, by the JSON pointer of each rule in the CRD's
/// document (`.../x-kubernetes-validations/0`).
pub type LoweredRules = std::collections::HashMap<String, crate::cel::compile::Lowered>;

/// [`check`], keeping the trees of every rule that compiles: what code generation compiles to
/// Rust, so that each rule is compiled once per generation.
pub fn check_keeping_rules(crd: &Crd) -> (Checked, LoweredRules) {
    let mut rules = LoweredRules::new();
    let checked = check_with(crd, Some(&mut rules), &Relaxed::default());
    (checked, rules)
}

fn check_with(crd: &Crd, mut rules: Option<&mut LoweredRules>, relaxed: &Relaxed) -> Checked {
    let same_schema = crd.versions.windows(2).all(|w| w[0].schema == w[1].schema || strip(&w[0]) == strip(&w[1]));
    let schemas: Vec<Option<&Schema>> = crd.versions.iter().map(|v| v.schema.as_ref()).collect();
    let envelope = envelope::check(crd, &schemas, relaxed);
    let mut out = Checked::default();
    out.findings.extend(envelope.before);
    let mut shared_findings = Vec::new();
    let mut reported_shared = false;
    let mut per_version = envelope.versions.into_iter();
    for (i, version) in crd.versions.iter().enumerate() {
        let in_version = |f: Finding| Finding { version: Some(version.name.clone()), ..f };
        out.findings.extend(per_version.next().unwrap_or_default().into_iter().map(in_version));
        let base = if same_schema || version.schema.as_ref().is_some_and(|s| s.pointer.starts_with("/spec/validation"))
        {
            "spec.validation.openAPIV3Schema".to_owned()
        } else {
            format!("spec.versions[{i}].schema.openAPIV3Schema")
        };
        // A version without a schema: the envelope's error says so; nothing to check here.
        let Some(schema) = &version.schema else {
            out.accepted.push(false);
            continue;
        };
        let findings = check_schema(schema, crd, &base, version.status_subresource, rules.as_deref_mut(), relaxed);
        let accepted = findings.is_empty();
        out.accepted.push(accepted);
        // A schema shared by every version is one schema to the apiserver: warned about once.
        if i == 0 || !same_schema {
            unrecognized_formats(schema, &mut |node, format| {
                out.findings.push(Finding {
                    field: String::new(),
                    error_type: None,
                    detail: format!("unrecognized format {}", go_quote(format)),
                    pointer: format!("{}/format", node.pointer),
                    version: Some(version.name.clone()),
                    warning: true,
                    help: Some("the apiserver does not validate this format; remove it or use one it knows"),
                })
            });
        }
        if same_schema {
            // One shared schema is one set of errors, checked after the names (spec.validation).
            if !accepted && !reported_shared {
                shared_findings.extend(findings.into_iter().map(in_version));
            }
            reported_shared |= !accepted;
        } else {
            out.findings.extend(findings.into_iter().map(in_version));
        }
    }
    out.findings.extend(envelope.names);
    out.findings.extend(shared_findings);
    out.findings.extend(envelope.after);
    // The apiserver takes a CRD whole or not at all: an error of the envelope refuses every
    // version.
    if out.findings.iter().any(|f| !f.warning && f.version.is_none()) {
        out.accepted.iter_mut().for_each(|a| *a = false);
    }
    out
}

fn strip(v: &CrdVersion) -> Option<String> {
    // Schemas equal up to their source position count as the same schema.
    v.schema.as_ref().map(|s| {
        let mut s = s.clone();
        clear_pointers(&mut s);
        format!("{s:?}")
    })
}

fn clear_pointers(s: &mut Schema) {
    s.pointer.clear();
    s.properties.values_mut().for_each(clear_pointers);
    if let Some(i) = s.items.as_deref_mut() {
        clear_pointers(i);
    }
    if let Some(AdditionalProperties::Schema(a)) = s.additional_properties.as_mut() {
        clear_pointers(a);
    }
    if let Some(junctors) = s.seldom.written_mut() {
        junctors.all_of.iter_mut().chain(&mut junctors.any_of).chain(&mut junctors.one_of).for_each(clear_pointers);
        if let Some(n) = junctors.not.as_deref_mut() {
            clear_pointers(n);
        }
    }
}
