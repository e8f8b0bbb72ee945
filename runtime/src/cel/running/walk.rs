//! The dynamic validator's CEL walk (semantics §9.5): the rules of every schema node run for
//! every value at that node (each list item, map value, property), nulls skipped, rules of a
//! node before those below it; old values correlated as ratcheting correlates them
//! (properties and map values by key, list-map items by key values, nothing for the items
//! of atomic lists and sets).

use serde_json::Value;

use crate::cel::running::cx::Cx;
use crate::cel::running::rule::{Rule, SelfType};
use crate::report::path::{At, Path};
use crate::schema::Schema;

/// The rules of one schema, read once: a tree of the nodes with rules at or below them,
/// mirroring the schema's children, each with its own [`Rule`]s (compiled on first use; none
/// where only nodes below have rules). The walk follows it without looking a node up (it
/// hashed each node's JSON pointer, a long string deep in a schema).
pub struct SchemaRules<'s> {
    /// `None`: no node has a rule CEL can run.
    root: Option<RulesNode<'s>>,
}

struct RulesNode<'s> {
    schema: &'s Schema,
    rules: Vec<Rule>,
    /// By [`crate::schema::Properties::position`]; empty where no property has rules below.
    properties: Box<[Option<RulesNode<'s>>]>,
    items: Option<Box<RulesNode<'s>>>,
    additional: Option<Box<RulesNode<'s>>>,
}

impl<'s> SchemaRules<'s> {
    /// The rules of `root`, a resource's schema.
    pub fn new(root: &'s Schema) -> SchemaRules<'s> {
        SchemaRules { root: collect(root, true) }
    }

    /// The rules of `node`, a node inside a resource (its rules see no resource root).
    pub(crate) fn of_node(node: &'s Schema) -> SchemaRules<'s> {
        SchemaRules { root: collect(node, node.embedded_resource) }
    }

    /// Whether the schema has any rule.
    pub fn is_empty(&self) -> bool {
        self.root.is_none()
    }

    /// Evaluates every rule over `object` (the pruned, defaulted object; `old` on update).
    pub fn validate(&self, object: &Value, old: Option<&Value>, cx: &mut Cx) {
        self.validate_node(object, old, true, cx);
    }

    /// Evaluates the rules of the schema over `value` standing alone, as the apiserver checks
    /// a `default` when a CRD is written; `is_resource`: whether the schema is a resource root
    /// (its `metadata` then shows only `name` and `generateName`).
    pub fn validate_node(&self, value: &Value, old: Option<&Value>, is_resource: bool, cx: &mut Cx) {
        if let Some(root) = &self.root {
            walk(root, value, old, &At::ROOT, is_resource, cx);
        }
    }

    /// Evaluates the rules of the schema over `value`, which sits at `path` of an object
    /// (what the validating read asks of a node the type cannot hold as written).
    pub(crate) fn validate_at(&self, value: &Value, path: &Path, cx: &mut Cx) {
        if let Some(root) = &self.root {
            walk(root, value, None, &At::under(path), root.schema.embedded_resource, cx);
        }
    }
}

/// `resource_root`: whether `s` is the root of a resource (its rules see `apiVersion`,
/// `kind` and `metadata.name`/`generateName`).
fn collect<'s>(s: &'s Schema, resource_root: bool) -> Option<RulesNode<'s>> {
    // The apiserver's validator omits a node CEL cannot declare, and all below it.
    if !crate::cel::vocabulary::types::declarable(s) {
        return None;
    }
    let below = |child: &'s Schema| collect(child, child.embedded_resource);
    let mut properties: Box<[Option<RulesNode>]> = s.properties.values().map(below).collect();
    if properties.iter().all(Option::is_none) {
        properties = Box::default();
    }
    let items = s.items.as_deref().and_then(below).map(Box::new);
    let additional = s.additional_properties_schema().and_then(below).map(Box::new);
    if s.validations.is_empty() && properties.is_empty() && items.is_none() && additional.is_none() {
        return None;
    }
    let self_type = (!s.validations.is_empty())
        .then(|| crate::cel::vocabulary::types::declare_rule_scope(s, resource_root).map(|d| d.ty))
        .flatten();
    let rules = s.validations.iter().map(|r| rule(r, self_type.clone())).collect();
    Some(RulesNode { schema: s, rules, properties, items, additional })
}

/// `at` becomes a [`Path`] only at a node with rules.
fn walk(n: &RulesNode<'_>, v: &Value, old: Option<&Value>, at: &At<'_>, root: bool, cx: &mut Cx) {
    if v.is_null() || cx.stopped() {
        return;
    }
    let s = n.schema;
    if !n.rules.is_empty() {
        cx.evaluate_json(&n.rules, at, v, old.filter(|o| !o.is_null()), s, root);
    }
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                let (below, child_at) = match s.properties.position(k) {
                    Some(i) => (n.properties.get(i).and_then(Option::as_ref), at.field(k)),
                    None => (n.additional.as_deref(), at.key(k)),
                };
                if let Some(below) = below {
                    walk(below, child, old.and_then(|o| o.get(k)), &child_at, false, cx);
                }
            }
        }
        Value::Array(items) => {
            let Some(item) = n.items.as_deref() else { return };
            let old_items = old.and_then(Value::as_array);
            if s.list_type.as_deref() == Some("map") {
                let keys: Vec<&str> = s.list_map_keys.iter().map(String::as_str).collect();
                let matched = old_items.map(|o| crate::check::ratchet::correlate_map_items(items, o, &keys));
                for (i, value) in items.iter().enumerate() {
                    let old_item = matched.as_ref().and_then(|m| m[i]).and_then(|j| old_items?.get(j));
                    walk(item, value, old_item, &at.index(i), false, cx);
                }
            } else {
                // Items of atomic lists and sets have no old value of their own; they are
                // unchanged when the whole list is.
                let previous = cx.enter_uncorrelated(old.is_some_and(|o| o == v));
                for (i, value) in items.iter().enumerate() {
                    walk(item, value, None, &at.index(i), false, cx);
                }
                cx.restore_unchanged_above(previous);
            }
        }
        _ => {}
    }
}

/// A schema's rule as a [`Rule`], checked against `self_type`.
fn rule(r: &crate::schema::ValidationRule, self_type: Option<crate::cel::vocabulary::types::Type>) -> Rule {
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
