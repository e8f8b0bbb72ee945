//! How many rules run as Rust and why the others are interpreted: one count for both
//! directions, what code generation reports for the types it writes and what
//! [`summary`] reports for a derived type tree.

use std::any::TypeId;
use std::collections::HashSet;

/// How many rules were compiled to Rust, and why the others were not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CelCount {
    /// Rules compiled to Rust.
    pub native: usize,
    /// Rules left to the interpreter: `(type, rule, reason)`.
    pub interpreted: Vec<(String, String, String)>,
    /// Rules the Rust types keep by themselves: those the derive writes into a data-carrying
    /// enum's schema (only one variant's fields, the tag's variant's required fields), which no
    /// value of the enum can break. They run only for the apiserver, and for JSON validated
    /// against the CRD.
    pub kept_by_types: usize,
}

impl CelCount {
    /// The sum of counts (of every module, say).
    pub fn of<'a>(counts: impl IntoIterator<Item = &'a CelCount>) -> CelCount {
        let mut total = CelCount::default();
        for count in counts {
            total.add(count);
        }
        total
    }

    /// `CEL rules: N native, M interpreted`, and `, K kept by the types` when there are such.
    pub fn summary(&self) -> String {
        let kept = match self.kept_by_types {
            0 => String::new(),
            k => format!(", {k} kept by the types"),
        };
        format!("CEL rules: {} native, {} interpreted{kept}", self.native, self.interpreted.len())
    }

    /// Each reason a rule stayed interpreted, with how many did, most first.
    pub fn reasons(&self) -> Vec<(usize, &str)> {
        let mut by: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for (_, _, reason) in &self.interpreted {
            *by.entry(reason.as_str()).or_default() += 1;
        }
        let mut out: Vec<(usize, &str)> = by.into_iter().map(|(r, n)| (n, r)).collect();
        out.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        out
    }

    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &CelCount) {
        self.native += other.native;
        self.interpreted.extend(other.interpreted.iter().cloned());
        self.kept_by_types += other.kept_by_types;
    }
}

/// The walk of `kubeskema::cel::summary` over a type tree (derived `count_cel_rules` calls it).
#[derive(Default)]
pub struct Walk {
    count: CelCount,
    seen: HashSet<TypeId>,
}

impl Walk {
    /// What the walk counted.
    pub(crate) fn into_count(self) -> CelCount {
        self.count
    }

    /// Whether the type is met for the first time (its rules are then counted; a recursive
    /// type is counted once).
    pub fn enter(&mut self, ty: TypeId) -> bool {
        self.seen.insert(ty)
    }

    /// The rules the derive wrote into data-carrying enum `T`'s schema: those at its node
    /// past the `written` ones its own `rule(...)` attributes put there.
    pub fn kept_by<T: crate::schema::of_types::StructuralSchema + 'static>(&mut self, written: usize) {
        let schema = crate::schema::of_types::derived_schema::<T>();
        let rules = schema.get("x-kubernetes-validations").and_then(serde_json::Value::as_array).map_or(0, Vec::len);
        self.count.kept_by_types += rules.saturating_sub(written);
    }

    /// A rule of type `owner`: native, or interpreted for `reason`.
    pub fn rule(&mut self, owner: &str, rule: &str, reason: Option<&str>) {
        match reason {
            None => self.count.native += 1,
            Some(reason) => self.count.interpreted.push((owner.to_owned(), rule.to_owned(), reason.to_owned())),
        }
    }
}
