//! The CRD checks applied to a CRD derived from Rust types: the one-line test that proves the
//! apiserver will take what `#[derive(kubeskema::Validate)]` emits.

use super::{Crd, check};
use crate::schema::of_types::crd::{CustomResource, CustomResourceDefinition};

/// What the apiserver would say of a derived CRD: its errors and warnings as it prints them,
/// and the notes of what the schema's generation decided (recursion cut, properties widened).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DerivedCheck {
    /// Why the apiserver would refuse it; empty when it would take it.
    pub errors: Vec<String>,
    /// What it would warn about while taking it.
    pub warnings: Vec<String>,
    /// What the generation decided that the types did not say.
    pub notes: Vec<String>,
}

/// Checks a derived CRD as the apiserver checks a CRD it is asked to create.
pub fn check_derived(crd: &CustomResourceDefinition) -> DerivedCheck {
    let (parsed, parse_errors) = Crd::parse(crd.to_json());
    let checked = check(&parsed);
    let mut out = DerivedCheck {
        errors: parse_errors.iter().map(|e| format!("{}: {}", e.pointer, e.message)).collect(),
        notes: crd.notes().iter().map(ToString::to_string).collect(),
        ..DerivedCheck::default()
    };
    for f in &checked.findings {
        if f.warning { &mut out.warnings } else { &mut out.errors }.push(f.text());
    }
    out
}

/// Panics, with the apiserver's messages, when the apiserver would refuse `T`'s CRD: the test
/// a crate with resource types writes once per resource (`#[test] fn crd() {
/// kubeskema::assert_crd_accepted::<Widget>() }`). Warnings and the generation's notes are
/// printed.
pub fn assert_crd_accepted<T: CustomResource>() {
    assert_accepted(T::definition());
}

/// [`assert_crd_accepted`] for any derived CRD, such as several versions merged
/// ([`CustomResourceDefinition::merge`]).
pub fn assert_accepted(crd: &CustomResourceDefinition) {
    let checked = check_derived(crd);
    for w in &checked.warnings {
        eprintln!("warning: {}: {w}", crd.name());
    }
    for n in &checked.notes {
        eprintln!("note: {}: {n}", crd.name());
    }
    if !checked.errors.is_empty() {
        let notes: String = checked.notes.iter().map(|n| format!("\n  note: {n}")).collect();
        panic!("the apiserver would refuse the CRD {}:\n  {}{notes}", crd.name(), checked.errors.join("\n  "));
    }
}
