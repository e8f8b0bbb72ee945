//! Phase 2, check: every `default` of a structural schema is validated as the apiserver does
//! when a CRD is written (`apiextensions-apiserver/pkg/apiserver/schema/defaulting/
//! validation.go`, `ValidateDefaults`; semantics §5.3). It runs only on a schema that passed
//! the structural checks, and a failure keeps the CEL rules from being compiled.
//!
//! For each node with a default (following `properties` and `items`, never
//! `additionalProperties`, where defaults outside resource meta are allowed but not checked
//! \[quirk\]):
//! - outside resource meta: the default must already be pruned against the node's own schema;
//!   then, each step only if the one before found nothing, the embedded resources in it are
//!   checked, it is validated against the node's own schema (not its parents'), and the node's
//!   CEL rules run on it with `oldSelf` = the default (and, if they pass, with no `oldSelf`);
//! - inside the `apiVersion`/`kind`/`metadata` of a resource: the default is placed in a
//!   synthetic object (`validation/v1`, `Validation`) and that object's metadata must be valid
//!   (`must result in valid metadata: ...`); then the schema and CEL steps as above.
//!
//! The default is validated as written: nested defaults are not applied first.

use crate::report::issue::{BadValue, ErrorType, Issue, PathForm};
use crate::report::path::Path;
use crate::schema::Schema;
use serde_json::{Map, Value};

use super::finding::Finding;

/// The findings about the defaults under `root` (a CRD version's root schema at `base`);
/// `require_pruned`: a default must already be pruned (not required of an update whose OLD
/// had one that was not).
pub(crate) fn check(root: &Schema, base: &str, out: &mut Vec<Finding>, require_pruned: bool) {
    let mut walk = Walk { out, cel: crate::cel::running::cx::Cx::default(), require_pruned };
    // The root of a custom resource counts as an embedded resource.
    walk.node(root, base, root, &[], false, true);
}

/// Whether pruning `default` against its node `s` leaves it as it is.
fn is_pruned(s: &Schema, default: &Value) -> bool {
    let mut pruned = default.clone();
    crate::dynamic::prune::prune_value(&mut pruned, s);
    pruned == *default
}

/// Whether a default at `s` is one pruning changes (`schemaHasUnprunedDefaults`, node by node).
pub(super) fn unpruned(s: &Schema) -> bool {
    s.default.as_ref().is_some_and(|d| !is_pruned(s, d))
}

/// One step from the nearest resource root down to a node: where the synthetic object of a
/// default inside resource meta puts it.
#[derive(Clone)]
enum Step<'a> {
    Key(&'a str),
    Item,
}

struct Walk<'o> {
    out: &'o mut Vec<Finding>,
    /// One evaluation context for every default: the apiserver shares one runtime cost budget.
    cel: crate::cel::running::cx::Cx,
    require_pruned: bool,
}

impl Walk<'_> {
    /// `resource`: the nearest resource root; `steps`: the way from it to `s`.
    fn node<'s>(
        &mut self,
        s: &'s Schema,
        p: &str,
        mut resource: &'s Schema,
        steps: &[Step<'s>],
        mut inside_meta: bool,
        is_root: bool,
    ) {
        let mut steps = steps.to_vec();
        if s.embedded_resource || is_root {
            inside_meta = false;
            steps.clear();
            resource = s;
        }
        if let Some(default) = &s.default {
            let at = format!("{p}.default");
            let pointer = format!("{}/default", s.pointer);
            if inside_meta {
                self.inside_meta(s, default, &at, &pointer, resource, &steps);
            } else {
                self.outside_meta(s, default, &at, &pointer, is_root);
            }
        }
        if let Some(items) = s.items.as_deref() {
            let mut child = steps.clone();
            child.push(Step::Item);
            self.node(items, &format!("{p}.items"), resource, &child, inside_meta, false);
        }
        for (name, prop) in &s.properties {
            let meta = (s.embedded_resource || is_root)
                && crate::check::objectmeta::RESOURCE_META_FIELDS.contains(&name.as_str());
            let mut child = steps.clone();
            child.push(Step::Key(name));
            self.node(prop, &format!("{p}.properties[{name}]"), resource, &child, inside_meta || meta, false);
        }
    }

    fn outside_meta(&mut self, s: &Schema, default: &Value, at: &str, pointer: &str, is_root: bool) {
        if self.require_pruned && !is_pruned(s, default) {
            self.push(at, pointer, invalid(default, "must not have unknown fields"));
        }
        let is_resource = s.embedded_resource || is_root;
        if let Some(issue) = crate::check::objectmeta::coerce_error(default, s, is_resource, &Path::root()) {
            self.push_all(at, pointer, vec![issue]);
            return;
        }
        let mut meta = Vec::new();
        if is_resource && default.is_object() {
            meta.extend(crate::check::objectmeta::validate_embedded(default, &Path::root()));
        }
        meta.extend(crate::check::objectmeta::validate_embedded_resources(default, s));
        if !meta.is_empty() {
            self.push_all(at, pointer, meta);
            return;
        }
        self.values_and_rules(s, default, at, pointer, is_resource);
    }

    fn inside_meta(&mut self, s: &Schema, default: &Value, at: &str, pointer: &str, resource: &Schema, steps: &[Step]) {
        let object = surrounding_object(default, steps);
        if let Some(issue) = crate::check::objectmeta::coerce_error(&object, resource, true, &Path::root()) {
            self.push(at, pointer, invalid(default, &format!("must result in valid metadata: {issue}")));
            return;
        }
        let mut errors = crate::check::objectmeta::validate_embedded(&object, &Path::root());
        errors.extend(crate::check::objectmeta::validate_embedded_resources(&object, resource));
        if !errors.is_empty() {
            let texts: Vec<String> = errors.iter().map(ToString::to_string).collect();
            // Go's `ErrorList.ToAggregate()`: one error as it is, several in brackets.
            let aggregate = match texts.as_slice() {
                [one] => one.clone(),
                _ => format!("[{}]", texts.join(", ")),
            };
            self.push(at, pointer, invalid(default, &format!("must result in valid metadata: {aggregate}")));
            return;
        }
        self.values_and_rules(s, default, at, pointer, false);
    }

    /// The node's own schema, then (if that passed) its CEL rules.
    fn values_and_rules(&mut self, s: &Schema, default: &Value, at: &str, pointer: &str, is_resource: bool) {
        let values = crate::check::openapi::OpenApiValidator::new(s).validate(default);
        if !values.is_empty() {
            self.push_all(at, pointer, values);
            return;
        }
        self.rules(s, default, at, pointer, is_resource);
    }

    /// The rules of the node and below on the default, `oldSelf` being the default itself;
    /// if they pass, again as a create (so `optionalOldSelf` rules see no old value). No
    /// ratcheting: a failure is an error even though old and new are equal.
    fn rules(&mut self, s: &Schema, default: &Value, at: &str, pointer: &str, is_resource: bool) {
        let rules = crate::cel::running::walk::SchemaRules::new(s);
        if rules.is_empty() {
            return;
        }
        let mut failed = self.evaluate(&rules, default, Some(default), is_resource);
        if failed.is_empty() {
            failed = self.evaluate(&rules, default, None, is_resource);
        }
        self.push_all(at, pointer, failed);
    }

    fn evaluate(
        &mut self,
        rules: &crate::cel::running::walk::SchemaRules,
        value: &Value,
        old: Option<&Value>,
        is_resource: bool,
    ) -> Vec<Issue> {
        rules.validate_node(value, old, is_resource, &mut self.cel);
        let mut failed = std::mem::take(&mut self.cel.issues);
        failed.append(&mut self.cel.warnings);
        failed
    }

    fn push_all(&mut self, at: &str, pointer: &str, issues: Vec<Issue>) {
        for issue in issues {
            self.push(at, pointer, issue);
        }
    }

    /// An issue about the default (its path relative to the default) as a CRD finding at
    /// `<node>.default`: value errors append kube-openapi's dotted path as one child, field
    /// errors their field path, plain errors stay at the default itself.
    fn push(&mut self, at: &str, pointer: &str, issue: Issue) {
        let (below, one_child) = match issue.form {
            PathForm::Base => (String::new(), false),
            PathForm::OpenApi | PathForm::Detached => (issue.path.openapi(), true),
            PathForm::Field => (issue.path.field(), false),
        };
        // kube-openapi's path is one `Child` (`default.[0].type` for a list default); a field
        // path continues the default's (`default[0]`).
        let field = match below.as_str() {
            "" => at.to_owned(),
            b if b.starts_with('.') || (b.starts_with('[') && !one_child) => format!("{at}{b}"),
            b => format!("{at}.{b}"),
        };
        self.out.push(Finding::printed(field, issue.error_type, issue.body(), pointer.to_owned()));
    }
}

/// `field.Invalid(path, default, detail)`: the default printed as Go prints a value.
fn invalid(default: &Value, detail: &str) -> Issue {
    Issue::new(ErrorType::Invalid, &Path::root(), "default", BadValue::of(default), detail)
}

/// The apiserver's `SurroundingObjectFunc`: the default placed at its place under a resource
/// root of `apiVersion: validation/v1, kind: Validation` (lists hold it as their one item).
fn surrounding_object(default: &Value, steps: &[Step]) -> Value {
    let mut value = default.clone();
    for step in steps.iter().rev() {
        value = match step {
            Step::Key(k) => Value::Object(Map::from_iter([((*k).to_owned(), value)])),
            Step::Item => Value::Array(vec![value]),
        };
    }
    let mut root = Map::from_iter([
        ("apiVersion".to_owned(), Value::from("validation/v1")),
        ("kind".to_owned(), Value::from("Validation")),
    ]);
    if let Value::Object(fields) = value {
        root.extend(fields);
    }
    Value::Object(root)
}
