//! The `Validate` trait that `#[derive(kubeskema::Validate)]` implements: typed values check
//! themselves with straight-line calls into [`crate::keywords`], no schema walked at run time.

use std::collections::BTreeMap;

use crate::issue::Issue;
use crate::path::Path;

/// A value that can report the issues the apiserver would find in it.
pub trait Validate {
    /// Appends the issues of this value, which sits at `path`.
    fn validate_at(&self, path: &Path, issues: &mut Vec<Issue>);

    /// Every issue of this value, as the root of an object, in the apiserver's order: value
    /// errors first, list-type uniqueness after them (the apiserver runs that check later).
    fn validate(&self) -> Vec<Issue> {
        let mut issues = Vec::new();
        self.validate_at(&Path::root(), &mut issues);
        let (values, list_types): (Vec<Issue>, Vec<Issue>) =
            issues.into_iter().partition(|i| i.keyword != "x-kubernetes-list-type");
        values.into_iter().chain(list_types).collect()
    }
}

/// Leaves: their constraints are checked by the field that holds them.
macro_rules! leaf {
    ($($t:ty),*) => {
        $(impl Validate for $t {
            fn validate_at(&self, _: &Path, _: &mut Vec<Issue>) {}
        })*
    };
}

leaf!(
    String,
    bool,
    i32,
    i64,
    f64,
    crate::IntOrString,
    crate::EmptyObject,
    crate::ObjectMeta,
    serde_json::Value,
    serde_json::Map<String, serde_json::Value>
);

impl<T: Validate> Validate for Option<T> {
    fn validate_at(&self, path: &Path, issues: &mut Vec<Issue>) {
        if let Some(v) = self {
            v.validate_at(path, issues);
        }
    }
}

impl<T: Validate> Validate for Vec<T> {
    fn validate_at(&self, path: &Path, issues: &mut Vec<Issue>) {
        for (i, v) in self.iter().enumerate() {
            v.validate_at(&path.index(i), issues);
        }
    }
}

impl<T: Validate> Validate for BTreeMap<String, T> {
    fn validate_at(&self, path: &Path, issues: &mut Vec<Issue>) {
        for (k, v) in self {
            v.validate_at(&path.map_key(k), issues);
        }
    }
}
