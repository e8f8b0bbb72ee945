//! The dynamic validator's CEL walk (semantics §9.5): the rules of every schema node run for
//! every value at that node (each list item, map value, property), nulls skipped, rules of a
//! node before those below it; old values correlated as ratcheting correlates them
//! (properties and map values by key, list-map items by key values, nothing for the items
//! of atomic lists and sets).

use std::collections::HashMap;

use serde_json::Value;

use crate::cel::running::cx::Cx;
use crate::cel::running::rule::{Rule, SelfType};
use crate::report::path::{At, Path};
use crate::schema::{Schema, ValidationRule};

/// The rules of one schema, read once: by the JSON pointer of each node with rules at or
/// below it, the node's own [`Rule`]s (compiled on first use; none where only nodes below
/// have rules). One lookup per node walked.
pub struct SchemaRules {
    /// Hashed with foldhash: a pointer is hashed for every node walked.
    rules: HashMap<String, Vec<Rule>, foldhash::fast::RandomState>,
}

impl SchemaRules {
    /// The rules of `root`, a resource's schema.
    pub fn new(root: &Schema) -> SchemaRules {
        let mut out = SchemaRules { rules: HashMap::default() };
        out.collect(root, true);
        out
    }

    /// The rules of `node`, a node inside a resource (its rules see no resource root).
    pub(crate) fn of_node(node: &Schema) -> SchemaRules {
        let mut out = SchemaRules { rules: HashMap::default() };
        out.collect(node, node.embedded_resource);
        out
    }

    /// Whether the schema has any rule.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// `resource_root`: whether `s` is the root of a resource (its rules see `apiVersion`,
    /// `kind` and `metadata.name`/`generateName`).
    fn collect(&mut self, s: &Schema, resource_root: bool) -> bool {
        // The apiserver's validator omits a node CEL cannot declare, and all below it.
        if !crate::cel::vocabulary::types::declarable(s) {
            return false;
        }
        let mut any = !s.validations.is_empty();
        let children: Vec<&Schema> =
            s.properties.values().chain(s.items.as_deref()).chain(s.additional_properties_schema()).collect();
        for child in children {
            any |= self.collect(child, child.embedded_resource);
        }
        if any {
            let self_type = (!s.validations.is_empty())
                .then(|| crate::cel::vocabulary::types::declare_rule_scope(s, resource_root).map(|d| d.ty))
                .flatten();
            self.rules.insert(s.pointer.clone(), s.validations.iter().map(|r| rule(r, self_type.clone())).collect());
        }
        any
    }

    /// Evaluates every rule over `object` (the pruned, defaulted object; `old` on update).
    pub fn validate(&self, object: &Value, old: Option<&Value>, root: &Schema, cx: &mut Cx) {
        self.validate_node(object, old, root, true, cx);
    }

    /// Evaluates the rules of `schema` and below over `value` standing alone, as the apiserver
    /// checks a `default` when a CRD is written; `is_resource`: whether `schema` is a resource
    /// root (its `metadata` then shows only `name` and `generateName`).
    pub fn validate_node(&self, value: &Value, old: Option<&Value>, schema: &Schema, is_resource: bool, cx: &mut Cx) {
        self.walk(value, old, schema, &At::ROOT, is_resource, cx);
    }

    /// Evaluates the rules of `schema` and below over `value`, which sits at `path` of an
    /// object (what the validating read asks of a node the type cannot hold as written).
    pub(crate) fn validate_at(&self, value: &Value, schema: &Schema, path: &Path, cx: &mut Cx) {
        self.walk(value, None, schema, &At::under(path), schema.embedded_resource, cx);
    }

    /// `at` becomes a [`Path`] only at a node with rules.
    fn walk(&self, v: &Value, old: Option<&Value>, s: &Schema, at: &At<'_>, root: bool, cx: &mut Cx) {
        if v.is_null() || cx.stopped() {
            return;
        }
        let Some(rules) = self.rules.get(&s.pointer) else { return };
        if !rules.is_empty() {
            cx.evaluate_json(rules, at, v, old.filter(|o| !o.is_null()), s, root);
        }
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    let old_child = old.and_then(|o| o.get(k));
                    if let Some((child_schema, child_at)) = s.key_place(k, at) {
                        self.walk(child, old_child, child_schema, &child_at, false, cx);
                    }
                }
            }
            Value::Array(items) => {
                let Some(item_schema) = s.items.as_deref() else { return };
                let old_items = old.and_then(Value::as_array);
                if s.list_type.as_deref() == Some("map") {
                    let keys: Vec<&str> = s.list_map_keys.iter().map(String::as_str).collect();
                    let matched = old_items.map(|o| crate::check::ratchet::correlate_map_items(items, o, &keys));
                    for (i, item) in items.iter().enumerate() {
                        let old_item = matched.as_ref().and_then(|m| m[i]).and_then(|j| old_items?.get(j));
                        self.walk(item, old_item, item_schema, &at.index(i), false, cx);
                    }
                } else {
                    // Items of atomic lists and sets have no old value of their own; they are
                    // unchanged when the whole list is.
                    let previous = cx.enter_uncorrelated(old.is_some_and(|o| o == v));
                    for (i, item) in items.iter().enumerate() {
                        self.walk(item, None, item_schema, &at.index(i), false, cx);
                    }
                    cx.restore_unchanged_above(previous);
                }
            }
            _ => {}
        }
    }
}

/// A schema's rule as a [`Rule`], checked against `self_type`.
fn rule(r: &ValidationRule, self_type: Option<crate::cel::vocabulary::types::Type>) -> Rule {
    Rule {
        self_type: self_type.map(SelfType::Declared),
        message: r.message.clone().map(Into::into),
        message_expression: r.message_expression.clone().map(Into::into),
        reason: r.reason.clone().map(Into::into),
        field_path: r.field_path.clone().map(Into::into),
        optional_old_self: r.optional_old_self == Some(true),
        ..Rule::owned(r.rule.clone())
    }
}
