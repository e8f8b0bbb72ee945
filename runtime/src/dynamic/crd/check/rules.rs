//! Phase 2, check (CEL): every `x-kubernetes-validations` rule as the apiserver checks it at
//! CRD time (`cel_validation.go`, semantics §3.3, §9.8), before anything is generated:
//! the rule, its `messageExpression` and `fieldPath` compile; `message` has no line break;
//! `oldSelf` is used only where an old value can be correlated; each rule's estimated cost
//! ([`crate::cel::cost::estimate`], cel-go's estimator) times its node's cardinality, and each
//! messageExpression's, stays under the per-rule limit, and all of them together under the
//! schema-wide limit.

use crate::cel::compile::Scope;
use crate::cel::vocabulary::{limits, types};
use crate::report::issue::{BadValue, ErrorType};
use crate::schema::{Schema, ValidationRule};

use super::LoweredRules;
use super::finding::Finding;

/// The findings of every rule under `root`, whose field path is `base`.
/// A node for which `has_schema_errors` holds has its rules skipped, as the apiserver skips
/// them where its schema rules reported anything at the node or below.
/// With `lowered`, each rule's checked trees are kept there by the rule's pointer.
pub(crate) fn check(
    root: &Schema,
    base: &str,
    has_schema_errors: &dyn Fn(&Schema) -> bool,
    out: &mut Vec<Finding>,
    lowered: Option<&mut LoweredRules>,
) {
    let mut walk = Walk { out, costs: Vec::new(), has_schema_errors, lowered };
    walk.node(root, base, None, Some(1), true, TypeInfo::default());
    let total = walk.costs.iter().fold(0u64, |sum, (c, _, _)| sum.saturating_add(*c));
    if total > limits::STATIC_CRD_LIMIT {
        let mut costs = std::mem::take(&mut walk.costs);
        costs.sort_by_key(|(c, _, _)| std::cmp::Reverse(*c));
        for (_, field, pointer) in costs.into_iter().take(4).filter(|(c, _, _)| *c >= 1_000_000) {
            walk.out.push(Finding::new(
                field,
                ErrorType::Forbidden,
                BadValue::Omit,
                "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
                pointer,
            ));
        }
        walk.out.push(Finding::new(
            base.to_owned(),
            ErrorType::Forbidden,
            BadValue::Omit,
            &limits::over_budget(
                "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                total,
                limits::STATIC_CRD_LIMIT,
            ),
            root.pointer.clone(),
        ));
    }
}

/// Each rule's (and messageExpression's) estimated cost times its node's cardinality, with its
/// field and pointer: what the limits above are checked against, for `compat` to compare.
pub(crate) fn costs(root: &Schema, base: &str) -> Vec<(u64, String, String)> {
    let mut scratch = Vec::new();
    let mut walk = Walk { out: &mut scratch, costs: Vec::new(), has_schema_errors: &|_| false, lowered: None };
    walk.node(root, base, None, Some(1), true, TypeInfo::default());
    walk.costs
}

/// Where the apiserver's CEL type information stands at a node (`CELSchemaContext`): a node
/// is in scope once it or a node above has rules; in scope, its type information comes from
/// the node above (whose failure it inherits) or from its own schema, which fails where the
/// node cannot be declared ([`types::declarable`]).
#[derive(Clone, Copy, Default)]
struct TypeInfo {
    in_scope: bool,
    failed: bool,
}

impl TypeInfo {
    fn child(self, s: &Schema) -> TypeInfo {
        let in_scope = self.in_scope || !s.validations.is_empty();
        TypeInfo { in_scope, failed: in_scope && ((self.in_scope && self.failed) || !types::declarable(s)) }
    }
}

struct Walk<'a> {
    out: &'a mut Vec<Finding>,
    lowered: Option<&'a mut LoweredRules>,
    has_schema_errors: &'a dyn Fn(&Schema) -> bool,
    /// Each rule's estimated cost with its field and pointer.
    costs: Vec<(u64, String, String)>,
}

impl Walk<'_> {
    /// `uncorrelatable_within`: the highest list above this node whose items have no old
    /// values (an atomic list or a set), if any; `cardinality`: how many values this node can have in one object, the
    /// product of the enclosing lists' and maps' bounds (`None` when one is unbounded).
    /// `resource_root`: the root of the resource or of an embedded one, whose rules also
    /// see `apiVersion`, `kind` and `metadata.name`/`generateName`.
    fn node(
        &mut self,
        s: &Schema,
        p: &str,
        uncorrelatable_within: Option<&str>,
        cardinality: Option<u64>,
        resource_root: bool,
        parent: TypeInfo,
    ) {
        let type_info = parent.child(s);
        if !s.validations.is_empty() && !(self.has_schema_errors)(s) && type_info.failed {
            self.out.push(Finding::new(
                format!("{p}.x-kubernetes-validations"),
                ErrorType::Internal,
                BadValue::Omit,
                crate::cel::running::rule::NO_TYPE_INFORMATION,
                format!("{}/x-kubernetes-validations", s.pointer),
            ));
        } else if !s.validations.is_empty() && !(self.has_schema_errors)(s) {
            let declaration = types::declare_rule_scope(s, resource_root);
            // Under an unbounded list or map, as many values as a request can hold (§9.8).
            let times = cardinality.unwrap_or_else(|| {
                limits::MAX_REQUEST_BYTES / (declaration.as_ref().map_or(0, |d| d.min_serialized_size) + 1)
            });
            let declaration = declaration.map(std::sync::Arc::new);
            for (i, rule) in s.validations.iter().enumerate() {
                let optional_old_self = rule.optional_old_self == Some(true);
                let scope = match &declaration {
                    Some(d) => Scope::declared(d.clone(), optional_old_self),
                    None => Scope::untyped(optional_old_self),
                };
                self.rule(
                    &scope,
                    rule,
                    &format!("{p}.x-kubernetes-validations[{i}]"),
                    &format!("{}/x-kubernetes-validations/{i}", s.pointer),
                    uncorrelatable_within,
                    times,
                );
            }
        }
        // Properties correlate by name, under a map type the apiserver knows.
        let properties_within = match s.map_type() {
            None | Some("granular" | "atomic") => uncorrelatable_within,
            _ => uncorrelatable_within.or(Some(p)),
        };
        for (name, child) in &s.properties {
            let path = format!("{p}.properties[{name}]");
            self.node(child, &path, properties_within, cardinality, child.embedded_resource, type_info);
        }
        if let Some(items) = &s.items {
            let keyed = s.list_type.as_deref() == Some("map");
            let within = if keyed { uncorrelatable_within } else { uncorrelatable_within.or(Some(p)) };
            let n = cardinality.zip(s.max_items).map(|(c, n)| c.saturating_mul(n.max(0).unsigned_abs()));
            self.node(items, &format!("{p}.items"), within, n, items.embedded_resource, type_info);
        }
        if let Some(values) = s.additional_properties_schema() {
            let n = cardinality.zip(s.max_properties()).map(|(c, n)| c.saturating_mul(n.max(0).unsigned_abs()));
            let path = format!("{p}.additionalProperties");
            self.node(values, &path, uncorrelatable_within, n, values.embedded_resource, type_info);
        }
    }

    fn rule(
        &mut self,
        scope: &Scope,
        rule: &ValidationRule,
        p: &str,
        pointer: &str,
        uncorrelatable_within: Option<&str>,
        cardinality: u64,
    ) {
        // The rule object as Go's JSON prints the internal type (1.36).
        let shown = BadValue::Json(super::go_dump::rule(rule));
        // Empty rules and bad messages are schema errors (`check::validation_rules`): this
        // runs only where there are none.
        let compiled = match crate::cel::compile::check_and_lower(&rule.rule, rule.message_expression.as_deref(), scope)
        {
            Ok(c) => Some(c),
            Err(refused) => {
                // The rule's own cost and reading of oldSelf stand where only its
                // messageExpression or fieldPath failed (the apiserver's CompilationResult).
                if let Some(max_cost) = refused.max_cost {
                    self.rule_cost(max_cost.saturating_mul(cardinality), p, pointer);
                }
                let mut push = |field: String, error_type: ErrorType, value: BadValue, detail: &str, at: String| {
                    self.out.push(Finding::new(field, error_type, value, detail, at));
                };
                for e in refused.errors {
                    let (field, at) = if e.starts_with("messageExpression") {
                        (format!("{p}.messageExpression"), format!("{pointer}/messageExpression"))
                    } else if e.starts_with("fieldPath") {
                        (format!("{p}.fieldPath"), format!("{pointer}/fieldPath"))
                    } else {
                        (format!("{p}.rule"), format!("{pointer}/rule"))
                    };
                    let e = e.strip_prefix("fieldPath: ").unwrap_or(&e);
                    push(field, ErrorType::Invalid, shown.clone(), e, at);
                }
                // As the apiserver orders them: the rule's errors, then its oldSelf.
                if refused.transition {
                    self.old_self(rule, p, pointer, uncorrelatable_within);
                }
                None
            }
        };
        // The apiserver reports a rule over budget first, then a messageExpression over
        // budget (its estimate not multiplied by the cardinality), then misuses of oldSelf.
        if let Some(max_cost) = compiled.as_ref().and_then(|c| c.max_cost) {
            self.rule_cost(max_cost.saturating_mul(cardinality), p, pointer);
        }
        let mut push = |field: String, error_type: ErrorType, value: BadValue, detail: &str, at: String| {
            self.out.push(Finding::new(field, error_type, value, detail, at));
        };
        if let Some(estimate) = compiled.as_ref().and_then(|c| c.message_max_cost) {
            if estimate > limits::STATIC_RULE_LIMIT {
                let detail =
                    limits::over_budget("estimated messageExpression cost", estimate, limits::STATIC_RULE_LIMIT);
                let (field, at) = (format!("{p}.messageExpression"), format!("{pointer}/messageExpression"));
                push(field, ErrorType::Forbidden, BadValue::Omit, &detail, at);
            }
            self.costs.push((estimate, format!("{p}.messageExpression"), format!("{pointer}/messageExpression")));
        }
        // A rule that does not compile does not use oldSelf, as far as the apiserver knows.
        let uses_old_self = compiled.as_ref().is_some_and(|c| c.lowered.transition);
        if uses_old_self {
            self.old_self(rule, p, pointer, uncorrelatable_within);
        }
        let mut push = |field: String, error_type: ErrorType, value: BadValue, detail: &str, at: String| {
            self.out.push(Finding::new(field, error_type, value, detail, at));
        };
        if !uses_old_self && let Some(optional) = rule.optional_old_self {
            push(
                format!("{p}.optionalOldSelf"),
                ErrorType::Invalid,
                BadValue::Bool(optional),
                "may not be set if oldSelf is not used in rule",
                format!("{pointer}/optionalOldSelf"),
            );
        }
        if let (Some(compiled), Some(kept)) = (compiled, self.lowered.as_deref_mut()) {
            kept.insert(pointer.to_owned(), compiled.lowered);
        }
    }

    /// A rule's estimate (times its node's cardinality): over the per-rule limit it is
    /// refused, and it counts toward the schema's total.
    fn rule_cost(&mut self, estimate: u64, p: &str, pointer: &str) {
        if estimate > limits::STATIC_RULE_LIMIT {
            let detail = limits::over_budget("estimated rule cost", estimate, limits::STATIC_RULE_LIMIT);
            self.out.push(Finding::new(
                format!("{p}.rule"),
                ErrorType::Forbidden,
                BadValue::Omit,
                &detail,
                format!("{pointer}/rule"),
            ));
        }
        self.costs.push((estimate, format!("{p}.rule"), format!("{pointer}/rule")));
    }

    /// A rule reading `oldSelf` where no old value can be correlated.
    fn old_self(&mut self, rule: &ValidationRule, p: &str, pointer: &str, uncorrelatable_within: Option<&str>) {
        if let Some(within) = uncorrelatable_within {
            self.out.push(Finding::new(
                format!("{p}.rule"),
                ErrorType::Invalid,
                BadValue::Str(rule.rule.clone()),
                &format!("oldSelf cannot be used on the uncorrelatable portion of the schema within {within}"),
                format!("{pointer}/rule"),
            ));
        }
    }
}
