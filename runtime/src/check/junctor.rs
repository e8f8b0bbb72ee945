//! The summaries kube-openapi adds for `allOf`, `anyOf`, `oneOf` and `not` (semantics §7.4),
//! given the issues of each branch. The schema walk ([`crate::openapi`]), which derived code
//! calls for its junctors too, evaluates the branches and hands the results here.
//!
//! \[quirk\] The summaries are reported at path `<nil>` with the value `""`; the path the
//! junctor sits on appears quoted inside the message.
//!
//! Where no branch of `anyOf`/`oneOf` passes, kube-openapi shows the issues of its "best"
//! branch: the one with the highest `MatchCount`, the first on a tie. [`match_count`] counts
//! as kube-openapi does (every validator that *applies* to the value's kind, passing or not,
//! and those of the nested nodes it visits).

use serde_json::Value;

use crate::report::issue::Issue;
use crate::report::path::Path;
use crate::schema::Schema;

/// kube-openapi's `MatchCount` of `value` against `s` (`SchemaValidator.Validate`): for a
/// value, one for the node, two for the type validator (when the node has a type or format),
/// two for the junctor validator plus what its junctors merge (every `allOf` branch, the best
/// `anyOf`/`oneOf` branch), one each for the string and format validators on strings, two for
/// the number validator on numbers, one plus the items' counts for arrays, one for the enum
/// validator, one plus the counts of the visited properties for objects; `null` counts one.
/// Simplification: nested `anyOf`/`oneOf` merge their highest count whether or not a branch
/// passes (kube-openapi merges the first passing branch's).
pub fn match_count(s: &Schema, value: &Value) -> usize {
    if value.is_null() {
        return 1;
    }
    let mut count = 1 + 1; // the node, the enum validator
    // An int-or-string node is validated with the types `integer,string`.
    let typed = s.int_or_string
        || s.type_str().is_some_and(|t| !t.is_empty())
        || s.format.as_deref().is_some_and(|f| !f.is_empty());
    if typed {
        count += 2;
    }
    let best = |list: &[Schema]| list.iter().map(|b| match_count(b, value)).max().unwrap_or(0);
    count += 2 + s.all_of().iter().map(|b| match_count(b, value)).sum::<usize>() + best(s.any_of()) + best(s.one_of());
    match value {
        Value::String(_) => {
            count += 1;
            if s.format.as_deref().is_some_and(|f| crate::check::format::supported("string", f).is_some()) {
                count += 1;
            }
        }
        Value::Number(_) => count += 2,
        Value::Array(items) => {
            count += 2 + s.items.as_deref().map_or(0, |i| items.iter().map(|v| match_count(i, v)).sum());
        }
        Value::Object(map) => {
            count += 1;
            for (k, v) in map {
                if let Some(p) = s.properties.get(k).or_else(|| s.additional_properties_schema()) {
                    count += match_count(p, v);
                }
            }
        }
        _ => {}
    }
    count
}

/// The best failing branch: the highest count, the first on a tie.
fn best(branches: Vec<Vec<Issue>>, counts: Vec<usize>) -> Vec<Issue> {
    let mut best: Option<(usize, Vec<Issue>)> = None;
    for (i, issues) in branches.into_iter().enumerate() {
        let count = counts.get(i).copied().unwrap_or(0);
        if best.as_ref().is_none_or(|(c, _)| count > *c) {
            best = Some((count, issues));
        }
    }
    best.map(|(_, issues)| issues).unwrap_or_default()
}

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

/// `anyOf`: when no branch passes, the summary and the best branch's issues (`counts`: each
/// branch's [`match_count`], asked only then).
pub fn any_of(path: &Path, branches: Vec<Vec<Issue>>, counts: impl FnOnce() -> Vec<usize>, out: &mut Vec<Issue>) {
    if branches.iter().all(|r| !r.is_empty()) {
        out.push(summary(path, "must validate at least one schema (anyOf)"));
        out.extend(best(branches, counts()));
    }
}

/// `oneOf`: none passing (summary and the best branch's issues) or several passing.
pub fn one_of(path: &Path, branches: Vec<Vec<Issue>>, counts: impl FnOnce() -> Vec<usize>, out: &mut Vec<Issue>) {
    let valid = branches.iter().filter(|r| r.is_empty()).count();
    if valid == 0 {
        out.push(summary(path, "must validate one and only one schema (oneOf). Found none valid"));
        out.extend(best(branches, counts()));
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn count(schema: Value, value: Value) -> usize {
        match_count(&Schema::parse(&schema, "").0, &value)
    }

    /// kube-openapi counts validators that apply to the value's kind, passing or failing.
    #[test]
    fn match_count_counts_what_applies_not_what_passes() {
        // node 1 + type 2 + junctor validator 2 + number 2 + enum 1.
        assert_eq!(count(json!({"type": "integer"}), json!(1e20)), 8);
        assert_eq!(count(json!({"type": "string"}), json!(1e20)), 8, "the number validator applies by kind");
        // node 1 + type 2 + junctors 2 + string 1 + format 1 + enum 1.
        assert_eq!(count(json!({"type": "string", "format": "date"}), json!("x")), 8);
        assert_eq!(count(json!({"format": "no-such-format"}), json!("x")), 7, "an unknown format has no validator");
        assert_eq!(count(json!({"type": "string"}), json!(null)), 1);
        // Objects add what their visited properties count; arrays their items'.
        let object = json!({"properties": {"a": {"type": "string"}, "b": {"type": "string"}}});
        assert_eq!(count(object.clone(), json!({})), 5);
        assert_eq!(count(object, json!({"a": "x", "c": 1})), 5 + 7);
        assert_eq!(count(json!({"items": {"minLength": 1}}), json!(["", ""])), 6 + 2 * 5);
        // allOf merges every branch, anyOf/oneOf their best.
        let union = json!({"allOf": [{"minimum": 1}, {"maximum": 2}], "anyOf": [{"required": ["a"]}, {"properties": {"a": {}}}]});
        assert_eq!(count(union, json!(5)), 6 + 2 * 6 + 6);
    }

    /// The branch shown is the one with the highest count, the first on a tie.
    #[test]
    fn the_best_branch_is_the_highest_count_then_the_first() {
        let issue = |d: &str| Issue::plain(&Path::root(), "test", d);
        let pick = |counts: Vec<usize>| {
            let mut out = Vec::new();
            any_of(
                &Path::root(),
                vec![vec![issue("a")], vec![issue("b"), issue("b2")], vec![issue("c")]],
                || counts,
                &mut out,
            );
            out.iter().skip(1).map(|i| i.detail.clone()).collect::<Vec<_>>()
        };
        assert_eq!(pick(vec![3, 3, 3]), ["a"]);
        assert_eq!(pick(vec![3, 4, 3]), ["b", "b2"]);
        assert_eq!(pick(vec![3, 4, 5]), ["c"]);
    }
}
