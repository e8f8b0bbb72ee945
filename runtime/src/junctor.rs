//! The summaries kube-openapi adds for `allOf`, `anyOf`, `oneOf` and `not` (semantics §7.4),
//! given the issues of each branch. Both the dynamic walk ([`crate::openapi`]) and derived
//! `Validate` code evaluate the branches their own way and hand the results here, so the
//! summary texts and which branch's issues are shown live in one place.
//!
//! \[quirk\] The summaries are reported at path `<nil>` with the value `""`; the path the
//! junctor sits on appears quoted inside the message.
//!
//! Where no branch of `anyOf`/`oneOf` passes, kube-openapi shows the issues of its "best"
//! branch: the one with the highest `MatchCount`, the first on a tie. [`match_count`] counts
//! as kube-openapi does (every validator that *applies* to the value's kind, passing or not,
//! and those of the nested nodes it visits), over any [`BranchSchema`]: the dynamic walk's
//! `Schema` and derived code's branch JSON alike.

use serde_json::{Map, Value};

use crate::issue::Issue;
use crate::path::Path;

/// What [`match_count`] reads of a schema node.
pub trait BranchSchema {
    /// Whether the node declares a `type` or a `format` (kube-openapi's type validator applies).
    fn typed(&self) -> bool;
    /// The node's `format`.
    fn format(&self) -> Option<&str>;
    /// The schema of a declared property.
    fn property(&self, name: &str) -> Option<&Self>;
    /// The `additionalProperties` schema.
    fn additional(&self) -> Option<&Self>;
    /// The `items` schema.
    fn items(&self) -> Option<&Self>;
    /// The branches of `allOf`, `anyOf` and `oneOf`.
    fn junctors(&self) -> [Vec<&Self>; 3];
}

impl BranchSchema for Map<String, Value> {
    fn typed(&self) -> bool {
        self.get("type").and_then(Value::as_str).is_some_and(|t| !t.is_empty())
            || self.get("format").and_then(Value::as_str).is_some_and(|f| !f.is_empty())
    }
    fn format(&self) -> Option<&str> {
        self.get("format").and_then(Value::as_str)
    }
    fn property(&self, name: &str) -> Option<&Self> {
        self.get("properties")?.get(name)?.as_object()
    }
    fn additional(&self) -> Option<&Self> {
        self.get("additionalProperties")?.as_object()
    }
    fn items(&self) -> Option<&Self> {
        self.get("items")?.as_object()
    }
    fn junctors(&self) -> [Vec<&Self>; 3] {
        let list = |k: &str| -> Vec<&Self> {
            self.get(k).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object).collect()
        };
        [list("allOf"), list("anyOf"), list("oneOf")]
    }
}

#[cfg(feature = "dynamic")]
impl BranchSchema for crate::schema::Schema {
    fn typed(&self) -> bool {
        // An int-or-string node is validated with the types `integer,string`.
        self.int_or_string
            || self.type_str().is_some_and(|t| !t.is_empty())
            || self.format.as_deref().is_some_and(|f| !f.is_empty())
    }
    fn format(&self) -> Option<&str> {
        self.format.as_deref()
    }
    fn property(&self, name: &str) -> Option<&Self> {
        self.properties.get(name)
    }
    fn additional(&self) -> Option<&Self> {
        self.additional_properties_schema()
    }
    fn items(&self) -> Option<&Self> {
        self.items.as_deref()
    }
    fn junctors(&self) -> [Vec<&Self>; 3] {
        [self.all_of.iter().collect(), self.any_of.iter().collect(), self.one_of.iter().collect()]
    }
}

/// kube-openapi's `MatchCount` of `value` against `s` (`SchemaValidator.Validate`): for a
/// value, one for the node, two for the type validator (when the node has a type or format),
/// two for the junctor validator plus what its junctors merge (every `allOf` branch, the best
/// `anyOf`/`oneOf` branch), one each for the string and format validators on strings, two for
/// the number validator on numbers, one plus the items' counts for arrays, one for the enum
/// validator, one plus the counts of the visited properties for objects; `null` counts one.
/// Simplification: nested `anyOf`/`oneOf` merge their highest count whether or not a branch
/// passes (kube-openapi merges the first passing branch's).
pub fn match_count<S: BranchSchema>(s: &S, value: &Value) -> usize {
    if value.is_null() {
        return 1;
    }
    let mut count = 1 + 1; // the node, the enum validator
    if s.typed() {
        count += 2;
    }
    let [all, any, one] = s.junctors();
    let best = |list: &[&S]| list.iter().map(|b| match_count(*b, value)).max().unwrap_or(0);
    count += 2 + all.iter().map(|b| match_count(*b, value)).sum::<usize>() + best(&any) + best(&one);
    match value {
        Value::String(_) => {
            count += 1;
            if s.format().is_some_and(|f| crate::format::supported("string", f).is_some()) {
                count += 1;
            }
        }
        Value::Number(_) => count += 2,
        Value::Array(items) => {
            count += 2 + s.items().map_or(0, |i| items.iter().map(|v| match_count(i, v)).sum());
        }
        Value::Object(map) => {
            count += 1;
            for (k, v) in map {
                if let Some(p) = s.property(k).or_else(|| s.additional()) {
                    count += match_count(p, v);
                }
            }
        }
        _ => {}
    }
    count
}

/// The counts of a junctor's branches given as JSON text (derived code's attribute), over
/// `value`; asked only when no branch passes.
pub fn match_counts_json(branches: &str, value: &Value) -> Vec<usize> {
    let branches: Vec<Map<String, Value>> = serde_json::from_str(branches).unwrap_or_default();
    branches.iter().map(|b| match_count(b, value)).collect()
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
        match_count(schema.as_object().unwrap(), &value)
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
