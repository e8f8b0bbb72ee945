//! The summaries kube-openapi adds for `allOf`, `anyOf`, `oneOf` and `not` (semantics §7.4),
//! given the issues of each branch. Both the dynamic walk ([`crate::openapi`]) and derived
//! `Validate` code evaluate the branches their own way and hand the results here, so the
//! summary texts and which branch's issues are shown live in one place.
//!
//! \[quirk\] The summaries are reported at path `<nil>` with the value `""`; the path the
//! junctor sits on appears quoted inside the message.
//!
//! Where no branch of `anyOf`/`oneOf` passes, kube-openapi shows the issues of its "best"
//! branch (the one that passed most checks); the branch with the fewest issues stands in
//! for that count here.

use crate::issue::Issue;
use crate::path::Path;

fn summary(path: &Path, what: &str) -> Issue {
    Issue::plain(path, "junctor", format!("{:?} {what}", path.openapi()))
}

/// `allOf`: every failing branch's issues, then the summary.
pub fn all_of(path: &Path, branches: Vec<Vec<Issue>>, out: &mut Vec<Issue>) {
    let failed = branches.iter().filter(|r| !r.is_empty()).count();
    if failed > 0 {
        let none = if failed == branches.len() { ". None validated" } else { "" };
        out.extend(branches.into_iter().flatten());
        out.push(summary(path, &format!("must validate all the schemas (allOf){none}")));
    }
}

/// `anyOf`: when no branch passes, the summary and the best branch's issues.
pub fn any_of(path: &Path, branches: Vec<Vec<Issue>>, out: &mut Vec<Issue>) {
    if branches.iter().all(|r| !r.is_empty()) {
        out.push(summary(path, "must validate at least one schema (anyOf)"));
        out.extend(branches.into_iter().min_by_key(Vec::len).unwrap_or_default());
    }
}

/// `oneOf`: none passing (summary and the best branch's issues) or several passing.
pub fn one_of(path: &Path, branches: Vec<Vec<Issue>>, out: &mut Vec<Issue>) {
    let valid = branches.iter().filter(|r| r.is_empty()).count();
    if valid == 0 {
        out.push(summary(path, "must validate one and only one schema (oneOf). Found none valid"));
        out.extend(branches.into_iter().min_by_key(Vec::len).unwrap_or_default());
    } else if valid > 1 {
        out.push(summary(
            path,
            &format!("must validate one and only one schema (oneOf). Found {valid} valid alternatives"),
        ));
    }
}

/// `not`: the summary when the branch passes.
pub fn not(path: &Path, branch: Vec<Issue>, out: &mut Vec<Issue>) {
    if branch.is_empty() {
        out.push(summary(path, "must not validate the schema (not)"));
    }
}
