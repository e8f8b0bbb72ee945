//! Typed validation: the `Validate` trait that `#[derive(kubeskema::Validate)]` implements
//! (typed values check themselves with straight-line calls into the keyword checks, no schema
//! walked at run time), and `validate_in_order`, behind `validate()` and the dynamic validator
//! alike, the one place that orders the steps.

use std::collections::BTreeMap;

use std::ops::ControlFlow;

use crate::check::ratchet::Unchanged;
use crate::report::issue::{BadValue, ErrorType, Issue, PathForm};
use crate::report::path::{At, Path};

/// What [`Validate::validate_at`] finds, kept apart by the pipeline step that reports it, so
/// that the order of the steps is decided in one place (`validate_in_order`): nothing is
/// sorted back into steps by its keyword afterwards.
#[derive(Debug, Default)]
pub struct Phases {
    /// Value validations (OpenAPI keywords, junctors, metadata schemas), in the walk's order.
    pub values: Vec<Issue>,
    /// The checks of embedded resources (`x-kubernetes-embedded-resource`).
    pub embedded: Vec<Issue>,
    /// List-type uniqueness (`x-kubernetes-list-type: set|map`).
    pub list_types: Vec<Issue>,
}

impl Phases {
    /// A value validation.
    pub fn push(&mut self, issue: Issue) {
        self.values.push(issue);
    }
}

/// Value validations.
impl Extend<Issue> for Phases {
    fn extend<I: IntoIterator<Item = Issue>>(&mut self, issues: I) {
        self.values.extend(issues);
    }
}

/// A value that can report the issues the apiserver would find in it.
pub trait Validate {
    /// The schema `type` of values of this type, as evaluation errors print it
    /// (`Invalid value: "object": ...`); empty for int-or-string and untyped values.
    const SCHEMA_TYPE: &'static str;

    /// Appends the issues of this value, which sits at `at`, each to its pipeline step.
    fn validate_at(&self, at: &At<'_>, found: &mut Phases);

    /// What a CEL rule that fails on this value prints as its value: the value itself for a
    /// scalar (`Invalid value: 2147483648: ...`), nothing for an object or a list (1.36).
    fn cel_bad_value(&self) -> BadValue {
        BadValue::Omit
    }

    /// The TypeMeta and root ObjectMeta checks of a resource (types with
    /// `#[kubeskema(resource(...))]`; nothing for others). `Break` when `kind` or `apiVersion`
    /// is wrong: the apiserver then checks nothing else.
    fn validate_meta(&self, issues: &mut Vec<Issue>) -> ControlFlow<()> {
        let _ = issues;
        ControlFlow::Continue(())
    }

    /// [`Validate::validate_meta`] on update: TypeMeta, then the root metadata's update rules
    /// (name, namespace, uid and creationTimestamp may not change).
    fn validate_meta_update(&self, old: &Self, issues: &mut Vec<Issue>) -> ControlFlow<()> {
        let _ = old;
        self.validate_meta(issues)
    }

    /// Records the places under this value (at `path`) that equal `old`'s correlated places, and
    /// says whether the whole value is unchanged (semantics §10). The default knows nothing and
    /// ratchets nothing.
    fn unchanged_at(&self, old: &Self, at: &At<'_>, out: &mut Unchanged) -> bool {
        let _ = (old, at, out);
        false
    }

    /// Evaluates the CEL rules of this value (at `at`, [`At::ROOT`] for a whole object) and of
    /// everything inside it, in the apiserver's order (a node's own rules, then its
    /// children's); `old` is the correlated old value on update. Derived for types with
    /// `rule(...)` attributes; nothing otherwise.
    #[cfg(feature = "cel")]
    fn validate_cel_at(&self, old: Option<&Self>, at: &At<'_>, cx: &mut crate::cel::running::cx::Cx) {
        let _ = (old, at, cx);
    }

    /// Counts the rules of this type and of the types it holds, each type once
    /// ([`crate::cel::summary`]). Derived; containers ask their items' type.
    #[cfg(feature = "cel")]
    #[doc(hidden)]
    fn count_cel_rules(walk: &mut crate::cel::count::Walk) {
        let _ = walk;
    }

    /// Whether this value carries CEL rules anywhere inside: [`Validate::schema_has_rules`]
    /// for a typed value; a value validated by a schema known only at run time (the dynamic
    /// path) says so itself.
    fn has_rules(&self) -> bool {
        false
    }

    /// Whether the schema of this type carries CEL rules (`x-kubernetes-validations`)
    /// anywhere: where the apiserver notes once that blocking errors kept its rules from
    /// running, and what CEL walks skip a value by. A derived type answers from its own rules,
    /// or else from its schema, built once: that also holds the rules the derive writes for a
    /// data-carrying enum, and it is finite where types contain each other (a constant asked
    /// through the fields' types would be a cycle the compiler refuses).
    fn schema_has_rules() -> bool
    where
        Self: Sized,
    {
        false
    }

    /// The list-type issues of this value as the root: on update, list-type errors are skipped
    /// entirely when the old value had any.
    fn list_type_issues(&self) -> Vec<Issue> {
        phases(self).list_types
    }

    /// Every issue of this value on update from `old`, in the apiserver's order, with
    /// ratcheting: value errors about places that did not change are dropped; list-type errors
    /// are skipped entirely when `old` had any.
    fn validate_update(&self, old: &Self) -> Vec<Issue> {
        validate_in_order(self, Some(old)).issues
    }

    /// Every issue of this value, as the root of an object, in the apiserver's order: TypeMeta
    /// and root metadata, values, embedded resources, list-type uniqueness, and the note that
    /// CEL rules were skipped when a blocking error stands.
    fn validate(&self) -> Vec<Issue> {
        validate_in_order(self, None).issues
    }
}

/// What validating one object found: its issues, and the failures of CEL rules that ratcheting
/// turned into warnings (unchanged places on update), which the apiserver returns as warnings.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// The issues, in the apiserver's order.
    pub issues: Vec<Issue>,
    /// Failures of rules about places that did not change on update.
    // Read by the dynamic validator only; typed values' `validate()` returns issues alone.
    #[cfg_attr(not(feature = "dynamic"), allow(dead_code))]
    pub warnings: Vec<Issue>,
}

/// The apiserver's steps for one object, in its order, as create (`old` absent) or update:
/// TypeMeta and root metadata (nothing else when TypeMeta is wrong), value validations
/// (ratcheted on update), embedded resources, list-type uniqueness (skipped on update when the
/// old object had list-type errors), then CEL unless a blocking error stands. The one place the
/// order is written: typed values ([`Validate::validate`]) and JSON with a CRD's schema (the
/// dynamic validator) both run it.
pub(crate) fn validate_in_order<T: Validate + ?Sized>(value: &T, old: Option<&T>) -> Found {
    let mut issues = Vec::new();
    let meta = match old {
        None => value.validate_meta(&mut issues),
        Some(old) => value.validate_meta_update(old, &mut issues),
    };
    if meta.is_break() {
        return Found { issues, warnings: Vec::new() };
    }
    let Phases { mut values, mut embedded, mut list_types } = phases(value);
    if let Some(old) = old {
        let mut unchanged = Unchanged::default();
        value.unchanged_at(old, &At::ROOT, &mut unchanged);
        values.retain(|i| !unchanged.covers(i));
        if !old.list_type_issues().is_empty() {
            list_types.clear();
        }
    }
    // Appended, not chained: most are empty, and an empty append costs nothing.
    for phase in [&mut values, &mut embedded, &mut list_types] {
        issues.append(phase);
    }
    let warnings = cel_phase(value, old, &mut issues);
    Found { issues, warnings }
}

/// The schema's answers for places a validating read could not hold as written (a
/// data-carrying enum with a field of another variant, or none it can read): what the
/// typed value says about those places is left out, and these stand in its steps.
pub(crate) struct Answered<'a> {
    /// Whether an issue is about an answered place.
    pub covers: &'a dyn Fn(&Issue) -> bool,
    /// Value validations.
    pub values: Vec<Issue>,
    /// CEL rules' failures.
    pub cel: Vec<Issue>,
}

/// [`Validate::validate`] of what a validating read made, with the schema's answers in their
/// steps (see [`Answered`]).
pub(crate) fn validate_read<T: Validate + ?Sized>(value: &T, answered: Answered<'_>) -> Vec<Issue> {
    let mut issues = Vec::new();
    if value.validate_meta(&mut issues).is_break() {
        return issues;
    }
    let Phases { mut values, mut embedded, mut list_types } = phases(value);
    for phase in [&mut values, &mut embedded, &mut list_types] {
        phase.retain(|i| !(answered.covers)(i));
    }
    values.extend(answered.values);
    for phase in [&mut values, &mut embedded, &mut list_types] {
        issues.append(phase);
    }
    let blocked = issues.iter().any(|i| i.error_type.blocks_cel());
    let before = issues.len();
    cel_phase(value, None, &mut issues);
    let mut cel = issues.split_off(before);
    cel.retain(|i| (i.keyword == CEL_SKIPPED && i.form == PathForm::Base) || !(answered.covers)(i));
    if !blocked {
        cel.extend(answered.cel);
    }
    issues.append(&mut cel);
    issues
}

/// The issues of `value` as the root, by pipeline step.
fn phases<T: Validate + ?Sized>(value: &T) -> Phases {
    let mut found = Phases::default();
    value.validate_at(&At::ROOT, &mut found);
    found
}

/// The last step: CEL rules run unless a blocking error stands, which the apiserver then
/// notes once. Failures that ratcheting turns into warnings (unchanged places on update) are
/// returned apart.
fn cel_phase<T: Validate + ?Sized>(value: &T, old: Option<&T>, issues: &mut Vec<Issue>) -> Vec<Issue> {
    let blocked = issues.iter().any(|i| i.error_type.blocks_cel());
    #[cfg(feature = "cel")]
    let warnings = if value.has_rules() && !blocked {
        let mut cx = crate::cel::running::cx::Cx::default();
        value.validate_cel_at(old, &At::ROOT, &mut cx);
        issues.extend(cx.issues);
        cx.warnings
    } else {
        Vec::new()
    };
    #[cfg(not(feature = "cel"))]
    let warnings = {
        let _ = old;
        Vec::new()
    };
    if blocked {
        gate_cel(value.has_rules(), issues);
    }
    warnings
}

/// The keyword of the note that CEL rules were skipped.
const CEL_SKIPPED: &str = "x-kubernetes-validations";

/// CEL rules do not run while a blocking error stands; the apiserver says so once (§0 5.7),
/// so issues that already carry the note get no second one.
pub(crate) fn gate_cel(has_rules: bool, issues: &mut Vec<Issue>) {
    let noted = issues.iter().any(|i| i.keyword == CEL_SKIPPED && i.form == PathForm::Base);
    if has_rules && !noted && issues.iter().any(|i| i.error_type.blocks_cel()) {
        issues.push(
            Issue::new(
                ErrorType::Invalid,
                &Path::root(),
                CEL_SKIPPED,
                BadValue::Null,
                "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            )
            .in_form(PathForm::Base),
        );
    }
}

/// Leaves: their constraints are checked by the field that holds them.
macro_rules! leaf {
    ($($t:ty => $schema:literal $(, $bad:expr)?);* $(;)?) => {
        $(impl Validate for $t {
            const SCHEMA_TYPE: &'static str = $schema;
            fn validate_at(&self, _: &At<'_>, _: &mut Phases) {}
            $(fn cel_bad_value(&self) -> BadValue {
                let bad: fn(&Self) -> BadValue = $bad;
                bad(self)
            })?
            fn unchanged_at(&self, old: &Self, at: &At<'_>, out: &mut Unchanged) -> bool {
                let same = self == old;
                if same {
                    out.insert(at);
                }
                same
            }
        })*
    };
}

leaf!(
    String => "string", |s| BadValue::Str(s.clone());
    bool => "boolean", |b| BadValue::Bool(*b);
    i32 => "integer", |i| BadValue::Int((*i).into());
    i64 => "integer", |i| BadValue::Int(*i);
    f64 => "number", |f| BadValue::Float(*f);
    f32 => "number", |f| BadValue::Float(f64::from(*f));
    i8 => "integer", |i| BadValue::Int((*i).into());
    i16 => "integer", |i| BadValue::Int((*i).into());
    u8 => "integer", |i| BadValue::Int((*i).into());
    u16 => "integer", |i| BadValue::Int((*i).into());
    u32 => "integer", |i| BadValue::Int((*i).into());
    u64 => "integer", |i| i64::try_from(*i).map_or(BadValue::Float(*i as f64), BadValue::Int);
    usize => "integer", |i| i64::try_from(*i).map_or(BadValue::Float(*i as f64), BadValue::Int);
    crate::types::int_or_string::IntOrString => "", |v| match v {
        crate::types::int_or_string::IntOrString::Int(i) => BadValue::Int(*i),
        crate::types::int_or_string::IntOrString::String(s) => BadValue::Str(s.clone()),
    };
    crate::types::empty_object::EmptyObject => "object";
    crate::types::meta::ObjectMeta => "object";
    serde_json::Value => "", BadValue::of;
    serde_json::Map<String, serde_json::Value> => "object";
    // Its two parts are within the schema's bounds by their Rust types.
    std::time::Duration => "object";
);

// Root and embedded metadata are checked by the resource that holds them.
#[cfg(feature = "kube")]
leaf!(k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta => "object");

impl<T: Validate> Validate for Option<T> {
    #[cfg(feature = "cel")]
    fn count_cel_rules(walk: &mut crate::cel::count::Walk) {
        T::count_cel_rules(walk);
    }
    #[inline]
    fn schema_has_rules() -> bool {
        T::schema_has_rules()
    }
    fn has_rules(&self) -> bool {
        T::schema_has_rules()
    }
    const SCHEMA_TYPE: &'static str = T::SCHEMA_TYPE;
    fn unchanged_at(&self, old: &Self, at: &At<'_>, out: &mut Unchanged) -> bool {
        match (self, old) {
            (Some(new), Some(old)) => new.unchanged_at(old, at, out),
            (None, None) => true,
            _ => false,
        }
    }
    fn validate_at(&self, at: &At<'_>, found: &mut Phases) {
        if let Some(v) = self {
            v.validate_at(at, found);
        }
    }
    fn cel_bad_value(&self) -> BadValue {
        self.as_ref().map_or(BadValue::Null, T::cel_bad_value)
    }
}

/// Recursive types hold themselves in a `Box`.
impl<T: Validate> Validate for Box<T> {
    #[cfg(feature = "cel")]
    fn count_cel_rules(walk: &mut crate::cel::count::Walk) {
        T::count_cel_rules(walk);
    }
    #[inline]
    fn schema_has_rules() -> bool {
        T::schema_has_rules()
    }
    fn has_rules(&self) -> bool {
        T::schema_has_rules()
    }
    const SCHEMA_TYPE: &'static str = T::SCHEMA_TYPE;
    fn unchanged_at(&self, old: &Self, at: &At<'_>, out: &mut Unchanged) -> bool {
        (**self).unchanged_at(old, at, out)
    }
    fn validate_at(&self, at: &At<'_>, found: &mut Phases) {
        (**self).validate_at(at, found);
    }
    fn cel_bad_value(&self) -> BadValue {
        (**self).cel_bad_value()
    }
    #[cfg(feature = "cel")]
    fn validate_cel_at(&self, old: Option<&Self>, at: &At<'_>, cx: &mut crate::cel::running::cx::Cx) {
        (**self).validate_cel_at(old.map(|o| &**o), at, cx);
    }
}

impl<T: Validate> Validate for Vec<T> {
    #[cfg(feature = "cel")]
    fn count_cel_rules(walk: &mut crate::cel::count::Walk) {
        T::count_cel_rules(walk);
    }
    #[inline]
    fn schema_has_rules() -> bool {
        T::schema_has_rules()
    }
    fn has_rules(&self) -> bool {
        T::schema_has_rules()
    }
    const SCHEMA_TYPE: &'static str = "array";
    /// Items of atomic lists and sets do not correlate: the list is unchanged as a whole or
    /// not at all. (List-map fields correlate their items in derived code, by key.)
    // Index loops, not iterator adapters: these are instantiated for every item type of a
    // generated crate, and each adapter is a function of its own per type in a debug build.
    fn unchanged_at(&self, old: &Self, at: &At<'_>, out: &mut Unchanged) -> bool {
        if self.len() != old.len() {
            return false;
        }
        let mut items = Unchanged::default();
        for i in 0..self.len() {
            if !self[i].unchanged_at(&old[i], &at.index(i), &mut items) {
                return false;
            }
        }
        out.insert(at);
        true
    }
    #[allow(clippy::needless_range_loop, reason = "an index loop, as said above")]
    fn validate_at(&self, at: &At<'_>, found: &mut Phases) {
        for i in 0..self.len() {
            self[i].validate_at(&at.index(i), found);
        }
    }
}

/// Keys in sorted order, as a `BTreeMap`'s: the issues come in one order every run.
impl<T: Validate, S: std::hash::BuildHasher> Validate for std::collections::HashMap<String, T, S> {
    #[cfg(feature = "cel")]
    fn count_cel_rules(walk: &mut crate::cel::count::Walk) {
        T::count_cel_rules(walk);
    }
    #[inline]
    fn schema_has_rules() -> bool {
        T::schema_has_rules()
    }
    fn has_rules(&self) -> bool {
        T::schema_has_rules()
    }
    const SCHEMA_TYPE: &'static str = "object";
    fn unchanged_at(&self, old: &Self, at: &At<'_>, out: &mut Unchanged) -> bool {
        map_unchanged(self.len() == old.len(), self.iter(), &|k| old.get(k), at, out)
    }
    fn validate_at(&self, at: &At<'_>, found: &mut Phases) {
        let mut keys: Vec<&String> = self.keys().collect();
        keys.sort();
        for k in keys {
            self[k].validate_at(&at.key(k), found);
        }
    }
}

/// A set is a `list-type: set` list: its items at their index in the set's order; unchanged
/// when equal.
macro_rules! validate_sets {
    ($($set:ident <T: $($bound:path),*> $(<$h:ident: $hb:path>)?),*) => {$(
        impl<T: Validate $(+ $bound)* $(, $h: $hb)?> Validate for std::collections::$set<T $(, $h)?> {
            #[cfg(feature = "cel")]
            fn count_cel_rules(walk: &mut crate::cel::count::Walk) {
                T::count_cel_rules(walk);
            }
            #[inline]
    fn schema_has_rules() -> bool {
        T::schema_has_rules()
    }
    fn has_rules(&self) -> bool {
        T::schema_has_rules()
    }
            const SCHEMA_TYPE: &'static str = "array";
            fn unchanged_at(&self, old: &Self, at: &At<'_>, out: &mut Unchanged) -> bool {
                equal_at(self == old, at, out)
            }
            fn validate_at(&self, at: &At<'_>, found: &mut Phases) {
                for (i, item) in self.iter().enumerate() {
                    item.validate_at(&at.index(i), found);
                }
            }
        }
    )*};
}
validate_sets!(BTreeSet<T: Ord>, HashSet<T: Eq, std::hash::Hash> <S: std::hash::BuildHasher>);

/// A map is unchanged when it has the same keys, each value unchanged (each one recorded).
fn map_unchanged<'t, 'o, T: Validate + 't + 'o>(
    same_len: bool,
    entries: impl Iterator<Item = (&'t String, &'t T)>,
    old: &dyn Fn(&str) -> Option<&'o T>,
    at: &At<'_>,
    out: &mut Unchanged,
) -> bool {
    let mut same = same_len;
    for (k, v) in entries {
        match old(k) {
            Some(o) => same &= v.unchanged_at(o, &at.key(k), out),
            None => same = false,
        }
    }
    equal_at(same, at, out)
}

fn equal_at(same: bool, at: &At<'_>, out: &mut Unchanged) -> bool {
    if same {
        out.insert(at);
    }
    same
}

impl<T: Validate> Validate for BTreeMap<String, T> {
    #[cfg(feature = "cel")]
    fn count_cel_rules(walk: &mut crate::cel::count::Walk) {
        T::count_cel_rules(walk);
    }
    #[inline]
    fn schema_has_rules() -> bool {
        T::schema_has_rules()
    }
    fn has_rules(&self) -> bool {
        T::schema_has_rules()
    }
    const SCHEMA_TYPE: &'static str = "object";
    fn unchanged_at(&self, old: &Self, at: &At<'_>, out: &mut Unchanged) -> bool {
        map_unchanged(self.len() == old.len(), self.iter(), &|k| old.get(k), at, out)
    }
    fn validate_at(&self, at: &At<'_>, found: &mut Phases) {
        for (k, v) in self {
            v.validate_at(&at.key(k), found);
        }
    }
}
/// The rules of the types in `T` (`T` and every type it holds, each once): compiled to Rust
/// (by code generation, `native = ...`, or by the derive) or interpreted, with the reason.
/// Rules the derive compiled that meet a value their code does not read still run, in the
/// interpreter: [`crate::cel::Cx::derived_runs`] counts those evaluations.
///
/// `summary::<MyResource>().summary()` reads `CEL rules: N native, M interpreted`.
#[cfg(feature = "cel")]
pub fn summary<T: Validate + ?Sized>() -> crate::cel::count::CelCount {
    let mut walk = crate::cel::count::Walk::default();
    T::count_cel_rules(&mut walk);
    walk.into_count()
}

/// Every typed value can have its rules evaluated (`Cx::evaluate_typed`).
#[cfg(feature = "cel")]
impl<T: Validate + ?Sized> crate::cel::running::cx::TypedValue for T {
    fn bad_value(&self) -> BadValue {
        self.cel_bad_value()
    }
    fn unchanged(&self, old: &Self, at: &At<'_>, out: &mut Unchanged) -> bool {
        self.unchanged_at(old, at, out)
    }
}
