//! The evaluation of one object's rules: messages, reasons, `fieldPath`, transition rules,
//! ratcheting into warnings, the per-object budget; rules compiled to Rust run in place of the
//! interpreter where they were compiled.

use cel::common::types::CelOptional;
use cel::common::value::Val;
use cel::parser::Expression;
use cel::{Context, ExecutionError, Value};

use crate::cel::compile::env::env;
use crate::cel::compile::{Compiled, FieldPathStep};
use crate::cel::library::words::go_error;
use crate::cel::lowering::int_data;
use crate::cel::running::rule::Rule;
use crate::cel::running::{native, plan};
use crate::cel::vocabulary::json_view::{self, Typing};
use crate::cel::vocabulary::meter;
use crate::cel::vocabulary::value::{deep_equal, from_json_with, to_json, with_format};
use crate::cel::vocabulary::{depth, limits};
use crate::report::issue::{BadValue, ErrorType, Issue, PathForm};
use crate::report::path::{At, Path, Place};
use crate::schema::Schema;

/// What evaluating a typed value's rules asks of its type: what a failing rule prints, and the
/// places equal to the old value's (for ratcheting). Every `Validate` type has it
/// (`crate::typed`), which stands above CEL and so cannot be named here.
pub trait TypedValue {
    /// What a rule that fails on the value prints as its value (`Validate::cel_bad_value`).
    fn bad_value(&self) -> BadValue;
    /// Records the places under the value equal to `old`'s, and says whether all of it is
    /// (`Validate::unchanged_at`).
    fn unchanged(
        &self,
        old: &Self,
        at: &crate::report::path::At<'_>,
        out: &mut crate::check::ratchet::Unchanged,
    ) -> bool;
}

/// The evaluation of the rules of one object: issues, the cost budget, ratcheting.
#[derive(Debug)]
pub struct Cx {
    /// What the rules reported, in evaluation order.
    pub issues: Vec<Issue>,
    /// Failures of rules about unchanged places on update: the apiserver returns them as
    /// warnings, not errors (§10).
    pub warnings: Vec<Issue>,
    /// The cost left of the per-object budget.
    budget: u64,
    /// Set when the budget ran out or a call cost too much: no rule runs after that.
    stopped: bool,
    /// Whether the nearest correlatable place above the values now walked is unchanged
    /// (values under atomic lists and sets have no old value of their own).
    unchanged_above: bool,
    /// Whether rules compiled to Rust run natively (else every rule is interpreted: what
    /// the differential tests compare against).
    native: bool,
    /// Set when an interpreted evaluation met rules it could not interpret: their types
    /// have no CEL values (codegen's `interpretable` option was off).
    uninterpretable: bool,
    /// How many evaluations of rules the derive compiled ran natively, and how many deferred
    /// to the interpreter (`cel::derived`).
    derived_runs: DerivedRuns,
    /// How many rules of JSON values held by their plans, without the interpreter.
    planned: usize,
}

/// How evaluations of rules the derive compiled ran: [`Cx::derived_runs`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DerivedRuns {
    /// Run natively to the end.
    pub native: usize,
    /// Deferred to the interpreter: their code met a value it does not read natively.
    pub deferred: usize,
}

impl Default for Cx {
    fn default() -> Self {
        Cx {
            issues: Vec::new(),
            warnings: Vec::new(),
            budget: limits::RUNTIME_BUDGET,
            stopped: false,
            unchanged_above: false,
            native: true,
            uninterpretable: false,
            derived_runs: DerivedRuns::default(),
            planned: 0,
        }
    }
}

impl Cx {
    /// An evaluation that interprets every rule, those compiled to Rust too: the reference
    /// the native code is tested against.
    pub fn interpreted() -> Cx {
        Cx { native: false, ..Cx::default() }
    }

    /// How evaluations of rules the derive compiled ran (natively, or deferred).
    pub fn derived_runs(&self) -> DerivedRuns {
        self.derived_runs
    }

    /// How many rules of JSON values (the dynamic validator's) held by their plans, compiled
    /// once into operations over the JSON, without the interpreter (an [`Cx::interpreted`]
    /// evaluation runs none).
    pub fn planned(&self) -> usize {
        self.planned
    }

    /// The cost left of the object's budget: what the differential tests compare, as the
    /// plans and native code must charge what the interpreter charges.
    #[doc(hidden)]
    pub fn budget_left(&self) -> u64 {
        self.budget
    }

    /// Whether an [`Cx::interpreted`] evaluation ran rules natively, for want of CEL values.
    pub fn uninterpretable(&self) -> bool {
        self.uninterpretable
    }

    /// Whether evaluation has stopped (budget or per-call limit).
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Marks the values about to be walked as uncorrelated, under an unchanged (or changed)
    /// place; returns the previous mark for [`Cx::restore_unchanged_above`].
    pub fn enter_uncorrelated(&mut self, unchanged: bool) -> bool {
        let previous = self.unchanged_above;
        self.unchanged_above = previous || unchanged;
        previous
    }

    /// Undoes [`Cx::enter_uncorrelated`].
    pub fn restore_unchanged_above(&mut self, previous: bool) {
        self.unchanged_above = previous;
    }

    /// Charges an evaluation's cost to the object's budget; when it does not fit, reports
    /// `<what> due to running out of cost budget` and stops evaluation (the apiserver's order:
    /// the budget is looked at before the evaluation's error).
    fn out_of_budget(&mut self, path: &dyn Place, schema_type: &str, cost: meter::Cost, what: &str) -> bool {
        if self.charge(cost) {
            return false;
        }
        let detail = format!("{what} due to running out of cost budget, no further validation rules will be run");
        self.issues.push(invalid(path, BadValue::Str(schema_type.to_owned()), detail));
        self.stopped = true;
        true
    }

    /// Takes `cost` from the object's budget when it fits; whether it did.
    #[inline]
    fn charge(&mut self, cost: meter::Cost) -> bool {
        let fits = cost.actual <= self.budget;
        if fits {
            self.budget -= cost.actual;
        }
        fits
    }

    /// A messageExpression stopped at the per-call limit: reported as running out of budget.
    fn call_limit_in_message(&mut self, path: &dyn Place, schema_type: &str, cost: meter::Cost) -> bool {
        if !cost.exceeded {
            return false;
        }
        let detail = "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run";
        self.issues.push(invalid(path, BadValue::Str(schema_type.to_owned()), detail.to_owned()));
        self.stopped = true;
        true
    }

    /// Evaluates `rules` for the value at `path`: `value` is `self` (CEL), `old` the
    /// correlated old value (update), `format` the node's string format, `schema_type` its
    /// `type` for the messages.
    pub fn evaluate(
        &mut self,
        rules: &[Rule],
        path: &Path,
        value: Value,
        old: Option<Value>,
        format: Option<&str>,
        schema_type: &str,
    ) {
        if self.stopped || rules.is_empty() {
            return;
        }
        let unchanged_above = self.unchanged_above;
        // Made before `format` turns the value into what rules read.
        let bad = failure_value(schema_type, || bad_value_of(&value));
        let mut runs = Interpreted::new(value, old, format, unchanged_above);
        self.run_rules(rules, path, schema_type, &|| bad.clone(), &mut runs);
    }

    /// [`Cx::evaluate`] of a node of a JSON object, typed by `schema` as
    /// [`from_json_with`] types it (`root`: the resource's root), without converting it: rules
    /// read it through a view, level by level, as far as they read.
    #[allow(
        clippy::too_many_arguments,
        reason = "the dynamic walk calls it once per node with rules; a struct would be built per node"
    )]
    pub(crate) fn evaluate_json(
        &mut self,
        rules: &[Rule],
        path: &At<'_>,
        value: &serde_json::Value,
        old: Option<&serde_json::Value>,
        schema: &Schema,
        root: bool,
    ) {
        let schema_type = schema.type_str().unwrap_or("");
        if self.stopped || rules.is_empty() {
            return;
        }
        let unchanged_above = self.unchanged_above;
        // A formatted string prints as written, not as the value its format reads.
        let bad = || {
            failure_value(schema_type, || match value {
                serde_json::Value::String(s) => BadValue::Str(s.clone()),
                _ => bad_value_of(&from_json_with(value, schema, root)),
            })
        };
        let bound = |json| Bound::Json { json, schema, root };
        // Each rule runs by its plan where it has one; the interpreter (made once, for the
        // first rule that needs it) runs the others, and those whose plan does not say they
        // hold, in their place in the order.
        let input = plan::Input { value, old, schema, root };
        // Made where it is used, not moved there: a frame holds its rules' locals.
        let mut frame = plan::Frame::new(input);
        let mut runs = None;
        for (i, rule) in rules.iter().enumerate() {
            if self.stopped {
                return;
            }
            if self.native && self.plan_holds(rule, input, &mut frame) {
                continue;
            }
            let runs = runs.get_or_insert_with(|| Interpreted::bound(bound(value), old.map(bound), unchanged_above));
            self.run_rules(&rules[i..=i], path, schema_type, &bad, runs);
        }
    }

    /// Whether `rule` has a plan ([`plan::Plan`]) that says it holds for `input` (or it is not
    /// run: blank, or a transition rule without an old value), its cost charged to the
    /// budget. Anything else (no plan, a failure, an error, a deferral, a cost that does not
    /// fit) is `false`, charging nothing: the interpreter runs the rule then. A plan is a pure
    /// function of its input: what it says is what the interpreter would say.
    /// `frame`: the node's plan frame.
    fn plan_holds<'a>(&mut self, rule: &'a Rule, input: plan::Input<'a>, frame: &mut plan::Frame<'a>) -> bool {
        // A blank rule does not compile (and is not run): asked only of one that did not.
        let Ok(compiled) = rule.compiled() else { return blank(rule) };
        let Some(plan) = rule.plan(compiled, input.schema) else { return false };
        if skipped(rule, compiled.transition, input.old.is_some()) {
            return true;
        }
        let (holds, cost) = depth::with_stack(compiled.depth, || plan.holds(frame));
        let held = holds && !cost.exceeded && self.charge(cost);
        self.planned += usize::from(held);
        held
    }

    /// Evaluates `rules` for the typed value at `path`, each natively where it has a
    /// [`native::Native`] (`natives[i]` for `rules[i]`), else interpreted over `to_cel` of the
    /// value (converted only when a rule needs it). The issues, warnings and costs are those
    /// [`Cx::evaluate`] gives.
    ///
    /// `to_cel` is `None` where every rule runs natively (messageExpression included): then
    /// the value's type need not have a CEL value at all, and the rules run natively even in
    /// an [`Cx::interpreted`] evaluation.
    #[allow(
        clippy::too_many_arguments,
        reason = "derived code calls it once per node with rules, natives and the value; a struct would be built per node"
    )]
    pub fn evaluate_typed<T: TypedValue>(
        &mut self,
        rules: &[Rule],
        natives: &[Option<native::Native<T>>],
        path: &At<'_>,
        value: &T,
        old: Option<&T>,
        to_cel: Option<fn(&T) -> Value>,
        format: Option<&str>,
        schema_type: &str,
    ) {
        if self.stopped || rules.is_empty() {
            return;
        }
        let unchanged_above = self.unchanged_above;
        self.uninterpretable |= !self.native && to_cel.is_none();
        let natives = if self.native || to_cel.is_none() { natives } else { &[] };
        let written_as_float = int_data::written_as_float_under(path);
        let start = if written_as_float.is_empty() { self.holding_natives(rules, natives, value, old) } else { 0 };
        // `holding_natives` ran at most as many rules as there are natives.
        let (rules, natives) = (&rules[start..], &natives[start.min(natives.len())..]);
        if rules.is_empty() {
            return;
        }
        let mut runs = Typed {
            value,
            old,
            natives,
            to_cel,
            format,
            unchanged_above,
            written_as_float,
            interpreted: None,
            derived_runs: DerivedRuns::default(),
        };
        self.run_rules(rules, path, schema_type, &|| failure_value(schema_type, || value.bad_value()), &mut runs);
        self.derived_runs.native += runs.derived_runs.native;
        self.derived_runs.deferred += runs.derived_runs.deferred;
    }

    /// The rules compiled to Rust at the start of `rules` that hold, run while they do: the
    /// common case, spared [`Cx::run_rules`]'s general loop (a call through `dyn Runs` and a
    /// result that can carry an error text, per rule). Returns how many it ran (or skipped:
    /// transition rules without an old value); the first rule that needs more (it fails, errs,
    /// costs past the budget or the per-call limit, may defer, or is interpreted) and those
    /// after it are `run_rules`'s. A native rule is a pure function of its values: run again
    /// there, it gives the same result and cost.
    #[inline]
    fn holding_natives<T>(
        &mut self,
        rules: &[Rule],
        natives: &[Option<native::Native<T>>],
        value: &T,
        old: Option<&T>,
    ) -> usize {
        let mut ran = 0;
        for (rule, native) in rules.iter().zip(natives) {
            let Some(native) = native.filter(|n| !n.defers) else { break };
            if !skipped(rule, native.transition, old.is_some()) {
                let mut meter = native::Meter::new(limits::PER_CALL_LIMIT);
                let holds = (native.rule)(value, old, &mut meter) == Ok(true);
                let cost = meter.cost();
                // Not charged unless it holds: `run_rules` runs it again.
                if !holds || cost.exceeded || !self.charge(cost) {
                    break;
                }
            }
            ran += 1;
        }
        ran
    }

    /// The one loop over a node's rules, however they run: compile errors, transition rules
    /// without an old value skipped, the cost budget and the per-call limit, errors in the
    /// apiserver's words, messages, `fieldPath`, reasons and ratcheting.
    ///
    /// `path` and `bad` are made only when a rule fails: most nodes pass every rule.
    fn run_rules(
        &mut self,
        rules: &[Rule],
        path: &dyn Place,
        schema_type: &str,
        bad: &dyn Fn() -> BadValue,
        runs: &mut dyn Runs,
    ) {
        // A rule that fails prints `bad` (see `failure_value`); a rule that cannot run prints
        // the node's schema type (`Invalid value: "object": ... evaluating rule: ...`).
        // Whether the place is unchanged (ratcheting), asked only when a rule fails.
        let mut unchanged = None;
        for (i, rule) in rules.iter().enumerate() {
            if self.stopped {
                return;
            }
            let way = match runs.way(i, rule) {
                Ok(Some(way)) => way,
                Ok(None) => continue,
                Err(e) => {
                    let detail = format!("rule compile error: {e}");
                    self.issues.push(invalid(path, BadValue::Str(schema_type.to_owned()), detail));
                    continue;
                }
            };
            if skipped(rule, way.transition(), runs.has_old()) {
                continue;
            }
            let (result, cost) = runs.rule(i, rule, way);
            if self.out_of_budget(path, schema_type, cost, "validation failed") {
                return;
            }
            if cost.exceeded {
                self.issues.push(invalid(
                    path,
                    BadValue::Str(schema_type.to_owned()),
                    format!(
                        "'{}': no further validation rules will be run due to call cost exceeds limit for rule: {}",
                        meter::LIMIT_EXCEEDED,
                        rule.error_string()
                    ),
                ));
                self.stopped = true;
                return;
            }
            match result {
                Ok(true) => continue,
                Ok(false) => {}
                Err(e) => {
                    let detail = if e.no_such_overload {
                        format!(
                            "'{}': call arguments did not match a supported operator, function or macro signature for rule: {}",
                            e.text,
                            rule.error_string()
                        )
                    } else {
                        format!("{} evaluating rule: {}", e.text, rule.error_string())
                    };
                    self.issues.push(invalid(path, BadValue::Str(schema_type.to_owned()), detail));
                    continue;
                }
            }
            let message = if rule.message_expression.as_deref().is_some_and(|m| !m.is_empty()) {
                let (result, cost) = runs.message(i, rule, way);
                // Running out of budget (or past the per-call limit) in a messageExpression
                // stops everything, in its own words.
                if self.out_of_budget(path, schema_type, cost, "messageExpression evaluation failed")
                    || self.call_limit_in_message(path, schema_type, cost)
                {
                    return;
                }
                result.and_then(|s| {
                    let s = s.trim();
                    (!s.is_empty() && s.len() <= limits::MAX_MESSAGE_EXPRESSION_BYTES && !s.contains('\n'))
                        .then(|| s.to_owned())
                })
            } else {
                None
            };
            let detail = message.unwrap_or_else(|| rule.message_or_default());
            // The fieldPath, normalized as the apiserver appends it: one child, so a map key
            // first prints after a dot.
            let steps = if way.keeps_field_path() { rule.field_path_steps() } else { &[] };
            let at = steps.iter().enumerate().fold(path.to_path(), |p, (i, step)| match step {
                FieldPathStep::Property(name) => p.key(name),
                FieldPathStep::Key(key) if i == 0 => p.rule_key(key),
                FieldPathStep::Key(key) => p.map_key(key),
            });
            let issue = match rule.reason.as_deref() {
                Some("FieldValueForbidden") => Issue::new(ErrorType::Forbidden, &at, KEYWORD, BadValue::Omit, detail),
                Some("FieldValueRequired") => Issue::new(ErrorType::Required, &at, KEYWORD, BadValue::Omit, detail),
                // [quirk] The message is dropped for Duplicate.
                Some("FieldValueDuplicate") => Issue::new(ErrorType::Duplicate, &at, KEYWORD, bad(), ""),
                _ => Issue::new(ErrorType::Invalid, &at, KEYWORD, bad(), detail),
            }
            .in_form(PathForm::Field);
            // Ratcheting: a non-transition rule failing on an unchanged place is a warning.
            if !way.transition() && *unchanged.get_or_insert_with(|| runs.unchanged()) {
                self.warnings.push(issue);
            } else {
                self.issues.push(issue);
            }
        }
    }
}

/// Whether `rule` is not run: a transition rule needs an old value, unless it is optional.
fn skipped(rule: &Rule, transition: bool, has_old: bool) -> bool {
    transition && !has_old && !rule.optional_old_self
}

/// A rule's evaluation error: its text, and whether it is a call that matched no signature.
struct RunError {
    text: String,
    no_such_overload: bool,
}

/// How one rule runs.
#[derive(Clone, Copy)]
enum Way<'r> {
    /// Compiled to Rust: nothing is compiled at run time.
    Native { transition: bool },
    /// Interpreted: its programs, compiled on first use.
    Interpreted(&'r Compiled),
}

impl Way<'_> {
    /// Whether a failure is reported below the rule's node by its `fieldPath`: not where the
    /// messageExpression did not compile (the apiserver reads the fieldPath after it).
    fn keeps_field_path(self) -> bool {
        match self {
            Way::Native { .. } => true,
            Way::Interpreted(compiled) => !compiled.message_refused,
        }
    }

    /// Whether the rule reads `oldSelf`.
    fn transition(self) -> bool {
        match self {
            Way::Native { transition } => transition,
            Way::Interpreted(compiled) => compiled.transition,
        }
    }
}

/// How a rule runs interpreted: `None` for a blank rule, which has no program and no error
/// (`compileRule`) and never runs. Asked here rather than per run: a rule compiled to Rust is
/// never blank, and its runs should not pay for the question.
fn interpreted_way(rule: &Rule) -> Result<Option<Way<'_>>, &str> {
    if blank(rule) {
        return Ok(None);
    }
    rule.compiled().map(|c| Some(Way::Interpreted(c)))
}

/// Whether the rule is blank (`compileRule` trims it).
fn blank(rule: &Rule) -> bool {
    rule.rule.trim().is_empty()
}

/// How one node's rules run ([`Cx::run_rules`]).
trait Runs {
    /// Whether there is an old value.
    fn has_old(&self) -> bool;
    /// How rule `i` runs (`None`: it never runs, see [`interpreted_way`]), or why it does not
    /// compile.
    fn way<'r>(&self, i: usize, rule: &'r Rule) -> Result<Option<Way<'r>>, &'r str>;
    /// Runs rule `i`: whether it holds (a non-bool result does not), and its cost.
    fn rule(&mut self, i: usize, rule: &Rule, way: Way<'_>) -> (Result<bool, RunError>, meter::Cost);
    /// Runs rule `i`'s messageExpression: its string, if it gave one, and its cost.
    fn message(&mut self, i: usize, rule: &Rule, way: Way<'_>) -> (Option<String>, meter::Cost);
    /// Whether the value equals the old value (or, without one, the place above it is
    /// unchanged): a failure there is a warning on update.
    fn unchanged(&mut self) -> bool;
}

/// What a failing rule prints as its value (1.36): nothing for an object or a list node, the
/// value itself for any other (`Invalid value: 2147483648: port must be ...`).
fn failure_value(schema_type: &str, value: impl FnOnce() -> BadValue) -> BadValue {
    match schema_type {
        "object" | "array" => BadValue::Omit,
        _ => value(),
    }
}

/// A CEL value as the apiserver holds it in the object it validates (the string of a
/// formatted string, JSON for what a typeless node holds).
fn bad_value_of(v: &Value) -> BadValue {
    match v {
        Value::Int(i) => BadValue::Int(*i),
        Value::UInt(u) => BadValue::Uint(*u),
        Value::Float(f) => BadValue::Float(*f),
        Value::String(s) => BadValue::Str(s.to_string()),
        Value::Bool(b) => BadValue::Bool(*b),
        Value::Null => BadValue::Null,
        other => BadValue::Json(crate::report::issue::go_json(&to_json(other))),
    }
}

/// A node's value as rules see it: a CEL value (a typed value's `to_cel`), or a node of the
/// JSON object with its schema, read by rules through a view ([`json_view`]) and made a CEL
/// value only where a failure prints it or ratcheting compares it.
enum Bound<'v> {
    Value(Value),
    Json { json: &'v serde_json::Value, schema: &'v Schema, root: bool },
}

impl<'v> Bound<'v> {
    /// The value as the interpreter binds it.
    fn val(&self) -> Box<dyn Val + 'v> {
        match self {
            // Only opaque values can fail to convert, and no value of a node is one.
            Bound::Value(v) => {
                let converted: Result<Box<dyn Val + 'v>, _> = v.clone().try_into();
                converted.unwrap_or_else(|_| Box::new(cel::common::types::CelNull))
            }
            Bound::Json { json, schema, root } => json_view::value(json, Typing::Typed { schema, root: *root }),
        }
    }

    /// The value as a CEL value (`from_json_with` for a node of the JSON).
    fn value(&self) -> Value {
        match self {
            Bound::Value(v) => v.clone(),
            Bound::Json { json, schema, root } => from_json_with(json, schema, *root),
        }
    }
}

/// Rules interpreted over CEL values.
struct Interpreted<'v> {
    value: Bound<'v>,
    old: Option<Bound<'v>>,
    unchanged_above: bool,
    root: Context<'v, 'v>,
}

impl<'v> Interpreted<'v> {
    fn new(value: Value, old: Option<Value>, format: Option<&str>, unchanged_above: bool) -> Interpreted<'v> {
        let (value, old) = match format {
            Some(f) => (with_format(value, f), old.map(|o| with_format(o, f))),
            None => (value, old),
        };
        Interpreted::bound(Bound::Value(value), old.map(Bound::Value), unchanged_above)
    }

    fn bound(value: Bound<'v>, old: Option<Bound<'v>>, unchanged_above: bool) -> Interpreted<'v> {
        let mut root = Context::with_env(env().clone());
        root.add_variable_as_val("self", value.val());
        Interpreted { value, old, unchanged_above, root }
    }

    /// Runs `expr` of the rule, with `oldSelf` bound when the rule reads it.
    fn run(&self, rule: &Rule, compiled: &Compiled, expr: &Expression) -> (Result<Value, ExecutionError>, meter::Cost) {
        let mut scope = self.root.new_inner_scope();
        if compiled.transition {
            let old_self: Box<dyn Val + 'v> = match (&self.old, rule.optional_old_self) {
                (Some(o), true) => Box::new(CelOptional::of(o.val())),
                (None, true) => Box::new(CelOptional::none()),
                (Some(o), false) => o.val(),
                (None, false) => unreachable!("invariant: run_rules skips transition rules without an old value"),
            };
            scope.add_variable_as_val("oldSelf", old_self);
        }
        compiled.run(expr, &scope)
    }
}

impl Runs for Interpreted<'_> {
    fn has_old(&self) -> bool {
        self.old.is_some()
    }

    fn way<'r>(&self, _: usize, rule: &'r Rule) -> Result<Option<Way<'r>>, &'r str> {
        interpreted_way(rule)
    }

    fn rule(&mut self, _: usize, rule: &Rule, way: Way<'_>) -> (Result<bool, RunError>, meter::Cost) {
        let Way::Interpreted(compiled) = way else {
            unreachable!("invariant: Interpreted::way gives interpreted ways only")
        };
        let (result, cost) = self.run(rule, compiled, &compiled.metered);
        let result = match result {
            Ok(v) => Ok(v == Value::Bool(true)),
            Err(e) => {
                let text = go_error(&e);
                let no_such_overload =
                    matches!(e, ExecutionError::NoSuchOverload(_)) || text.starts_with("no such overload");
                Err(RunError { text, no_such_overload })
            }
        };
        (result, cost)
    }

    fn message(&mut self, _: usize, rule: &Rule, way: Way<'_>) -> (Option<String>, meter::Cost) {
        let Way::Interpreted(compiled) = way else {
            unreachable!("invariant: Interpreted::way gives interpreted ways only")
        };
        let Some(m) = &compiled.message_expression else { return (None, meter::Cost { actual: 0, exceeded: false }) };
        let (result, cost) = self.run(rule, compiled, m);
        match result {
            Ok(Value::String(s)) => (Some(s.to_string()), cost),
            _ => (None, cost),
        }
    }

    fn unchanged(&mut self) -> bool {
        match &self.old {
            Some(o) => deep_equal(&o.value(), &self.value.value()),
            None => self.unchanged_above,
        }
    }
}

/// Rules over a typed value: native where compiled to Rust, else interpreted over its CEL
/// value, made on first need.
struct Typed<'a, T> {
    value: &'a T,
    old: Option<&'a T>,
    natives: &'a [Option<native::Native<T>>],
    to_cel: Option<fn(&T) -> Value>,
    format: Option<&'a str>,
    unchanged_above: bool,
    /// The integers under the node the document wrote as floats (relative pointers; almost
    /// always none): see [`with_written_as_float`].
    written_as_float: Vec<String>,
    interpreted: Option<Interpreted<'static>>,
    derived_runs: DerivedRuns,
}

impl<T> Typed<'_, T> {
    fn native(&self, i: usize) -> Option<native::Native<T>> {
        self.natives.get(i).copied().flatten()
    }

    fn interpreted(&mut self) -> &mut Interpreted<'static> {
        let (value, old, format, above) = (self.value, self.old, self.format, self.unchanged_above);
        let to_cel = self.to_cel.expect("invariant: `way` and `message` interpret only where there is to_cel");
        let floats = &self.written_as_float;
        self.interpreted.get_or_insert_with(|| {
            let value = if floats.is_empty() { to_cel(value) } else { int_data::as_written(to_cel(value), floats) };
            Interpreted::new(value, old.map(to_cel), format, above)
        })
    }
}

impl<T: TypedValue> Runs for Typed<'_, T> {
    fn has_old(&self) -> bool {
        self.old.is_some()
    }

    fn way<'r>(&self, i: usize, rule: &'r Rule) -> Result<Option<Way<'r>>, &'r str> {
        match self.native(i) {
            // Compiled by the derive without the types it reads: it runs once the rule
            // type-checks against them (an ill-typed rule is reported as the apiserver does).
            Some(native) if native.defers => rule.compiled().map(|c| Some(Way::Native { transition: c.transition })),
            // Compiled, so not blank.
            Some(native) => Ok(Some(Way::Native { transition: native.transition })),
            // Derived code never asks this (a value without CEL values has native rules only).
            None if self.to_cel.is_none() && !blank(rule) => {
                Err("the value has no CEL value to interpret the rule over")
            }
            None => interpreted_way(rule),
        }
    }

    fn rule(&mut self, i: usize, rule: &Rule, way: Way<'_>) -> (Result<bool, RunError>, meter::Cost) {
        let Some(native) = self.native(i) else {
            return self.interpreted().rule(i, rule, way);
        };
        // What the derive's code cannot read, the interpreter reads (see `cel::derived`).
        let interpret = |runs: &mut Self| match rule.compiled() {
            Ok(compiled) => runs.interpreted().rule(i, rule, Way::Interpreted(compiled)),
            Err(_) => unreachable!("invariant: `way` compiled the rule before it ran"),
        };
        if native.defers && !self.written_as_float.is_empty() {
            self.derived_runs.deferred += 1;
            return interpret(self);
        }
        let mut meter = native::Meter::with_written_as_float(limits::PER_CALL_LIMIT, &self.written_as_float);
        let result = (native.rule)(self.value, self.old, &mut meter);
        if native.defers {
            if result == Err(native::Error::Deferred) {
                self.derived_runs.deferred += 1;
                return interpret(self);
            }
            self.derived_runs.native += 1;
        }
        let result = result.map_err(|e| RunError { text: e.text(), no_such_overload: e.is_no_such_overload() });
        (result, meter.cost())
    }

    fn message(&mut self, i: usize, rule: &Rule, way: Way<'_>) -> (Option<String>, meter::Cost) {
        let Some(message) = self.native(i).and_then(|n| n.message) else {
            // A native rule with an interpreted messageExpression (hand-written attributes):
            // the message compiles now.
            let way = match (way, rule.compiled()) {
                (Way::Native { .. }, Ok(compiled)) if self.to_cel.is_some() => Way::Interpreted(compiled),
                (Way::Native { .. }, _) => return (None, meter::Cost { actual: 0, exceeded: false }),
                (way, _) => way,
            };
            return self.interpreted().message(i, rule, way);
        };
        let mut meter = native::Meter::with_written_as_float(limits::PER_CALL_LIMIT, &self.written_as_float);
        let result = message(self.value, self.old, &mut meter);
        (result.ok(), meter.cost())
    }

    /// The typed values compared, as the apiserver compares the stored objects (not their
    /// CEL values: two texts of one time are different values to it).
    fn unchanged(&mut self) -> bool {
        match self.old {
            Some(old) => self.value.unchanged(
                old,
                &crate::report::path::At::ROOT,
                &mut crate::check::ratchet::Unchanged::default(),
            ),
            None => self.unchanged_above,
        }
    }
}

/// The keyword of CEL issues.
pub const KEYWORD: &str = "x-kubernetes-validations";

fn invalid(path: &dyn Place, value: BadValue, detail: String) -> Issue {
    Issue::new(ErrorType::Invalid, &path.to_path(), KEYWORD, value, detail).in_form(PathForm::Field)
}
