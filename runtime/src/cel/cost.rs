//! CEL cost (semantics §9.7, §9.8): the apiserver's limits, and the estimate it makes of each
//! rule at CRD time: cel-go's static estimator (`checker/cost.go`, v0.26) over the checked
//! tree ([`Checked`]: each node's type, each call's overloads), with the lists and sets
//! extensions' estimates, the Kubernetes libraries' (`AS pkg/cel/library/cost.go`, v0.36) and
//! the sizes the schema allows (`sizeEstimator` over [`Declaration`]).
//!
//! Every number here is the apiserver's: the estimate decides which CRDs it accepts, so an
//! estimate cheaper or dearer than its own would accept or refuse other CRDs. Where cel-go's
//! arithmetic wraps (`max * 4` of an unknown size) it wraps here too. At run time cost is
//! counted, not estimated ([`crate::cel::vocabulary::meter`]).

use std::collections::HashMap;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

use crate::cel::front::check::Checked;
use crate::cel::front::functions::Overload;
use crate::cel::vocabulary::function::{Cost, LIST_CREATE};
use crate::cel::vocabulary::types::{Declaration, Type};

/// cel-go's unit costs (`common/cost.go`).
const SELECT_AND_IDENT: u64 = 1;
const CONST: u64 = 0;
const MAP_CREATE: u64 = 30;
const STRUCT_CREATE: u64 = 40;
const STRING_TRAVERSAL: f64 = 0.1;
const REGEX_STRING_LENGTH: f64 = 0.25;
/// `MaxNameFormatRegexSize`: the longest pattern of a named format (`format.dns1123Label()`).
const MAX_NAME_FORMAT_REGEX: f64 = 128.0;
/// `MaxFormatSize`.
const MAX_FORMAT: u64 = 64;
/// cel-go's accumulator names (`__result__`, and `@result`, the one macros use).
const ACCUMULATORS: [&str; 2] = ["__result__", "@result"];

/// A range of sizes or costs (cel-go's `SizeEstimate` and `CostEstimate`), saturating at
/// `u64::MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// The least.
    pub min: u64,
    /// The most.
    pub max: u64,
}

/// A size nothing is known of.
const UNKNOWN: Estimate = Estimate { min: 0, max: u64::MAX };

impl Estimate {
    /// Exactly `n`.
    pub const fn fixed(n: u64) -> Estimate {
        Estimate { min: n, max: n }
    }

    fn add(self, o: Estimate) -> Estimate {
        Estimate { min: self.min.saturating_add(o.min), max: self.max.saturating_add(o.max) }
    }

    fn multiply(self, o: Estimate) -> Estimate {
        Estimate { min: self.min.saturating_mul(o.min), max: self.max.saturating_mul(o.max) }
    }

    /// Times a cost factor, rounded up (`MultiplyByCostFactor`).
    fn times(self, factor: f64) -> Estimate {
        Estimate { min: by_factor(self.min, factor), max: by_factor(self.max, factor) }
    }

    fn union(self, o: Estimate) -> Estimate {
        Estimate { min: self.min.min(o.min), max: self.max.max(o.max) }
    }
}

/// cel-go's `multiplyByCostFactor`.
fn by_factor(x: u64, factor: f64) -> u64 {
    let x = x as f64;
    if x > 0.0 && factor > 0.0 && x > u64::MAX as f64 / factor {
        return u64::MAX;
    }
    let ceil = (x * factor).ceil();
    if ceil >= 18_446_744_073_709_551_616.0 { u64::MAX } else { ceil as u64 }
}

/// What `expr` can cost (cel-go's `Cost`, with the apiserver's `PresenceTestHasCost(false)`;
/// the apiserver holds rules to the most), `self` and `oldSelf` sized by `root`.
pub fn estimate(expr: &IdedExpr, checked: &Checked, root: &Declaration) -> Estimate {
    let mut coster = Coster {
        checked,
        root,
        paths: HashMap::new(),
        locals: HashMap::new(),
        sizes: HashMap::new(),
        entries: HashMap::new(),
    };
    coster.cost(expr)
}

/// A field path from a variable: field names, `@items`, `@values`, `@keys`, `@indices`.
type Path = Vec<String>;

/// What is known of a local variable (a comprehension's).
#[derive(Clone)]
struct Local {
    path: Path,
    size: Option<Estimate>,
    entry: Option<EntrySize>,
}

/// The sizes of a list's or a map's entries (`entrySizeEstimate`).
#[derive(Clone, Copy)]
struct EntrySize {
    list: bool,
    key: Estimate,
    val: Estimate,
}

fn union_entries(a: Option<EntrySize>, b: Option<EntrySize>) -> Option<EntrySize> {
    let (a, b) = (a?, b?);
    Some(EntrySize { list: a.list, key: a.key.union(b.key), val: a.val.union(b.val) })
}

/// A node as the function estimators see it (`AstNode`): its path, type, expression and the
/// size computed for it. A list's items (`itemsNode`) have no expression.
struct Node<'e> {
    path: Path,
    ty: Type,
    expr: Option<&'e IdedExpr>,
    computed: Option<Estimate>,
}

/// A call's cost and the size of its result (`CallEstimate`).
struct CallEstimate {
    cost: Estimate,
    result: Option<Estimate>,
}

impl CallEstimate {
    fn cost(cost: Estimate) -> Option<CallEstimate> {
        Some(CallEstimate { cost, result: None })
    }

    fn sized(cost: Estimate, result: Estimate) -> Option<CallEstimate> {
        Some(CallEstimate { cost, result: Some(result) })
    }
}

/// cel-go's `coster`.
struct Coster<'a> {
    checked: &'a Checked,
    root: &'a Declaration,
    /// Each node's field path, by id (`exprPaths`).
    paths: HashMap<u64, Path>,
    /// Local variables, innermost last.
    locals: HashMap<String, Vec<Local>>,
    /// Sizes computed for nodes, by id.
    sizes: HashMap<u64, Estimate>,
    /// Entry sizes of lists and maps built, by id.
    entries: HashMap<u64, EntrySize>,
}

impl<'a> Coster<'a> {
    fn cost(&mut self, e: &IdedExpr) -> Estimate {
        match &e.expr {
            Expr::Literal(_) => Estimate::fixed(CONST),
            Expr::Ident(name) => {
                let path = match self.local(name) {
                    Some(v) => v.path.clone(),
                    None => vec![name.clone()],
                };
                self.paths.insert(e.id, path);
                Estimate::fixed(SELECT_AND_IDENT)
            }
            // A qualified type identifier (`net.IP`) is one identifier to cel-go's checker.
            Expr::Select(s)
                if !s.test
                    && matches!(self.type_of(e), Type::Type(Some(_)))
                    && let Some(name) = crate::cel::front::check::qualified_name(e) =>
            {
                self.paths.insert(e.id, vec![name]);
                Estimate::fixed(SELECT_AND_IDENT)
            }
            Expr::Select(s) => {
                // A presence test costs nothing of its own (`PresenceTestHasCost(false)`).
                if s.test {
                    return self.cost(&s.operand);
                }
                let mut sum = self.cost(&s.operand);
                if matches!(self.type_of(&s.operand), Type::Map(..) | Type::Object(_) | Type::Param(_)) {
                    sum = sum.add(Estimate::fixed(SELECT_AND_IDENT));
                }
                let mut path = self.path(&s.operand);
                path.push(s.field.clone());
                self.paths.insert(e.id, path);
                sum
            }
            Expr::Call(_) => self.call(e),
            Expr::List(list) => {
                let mut sum = Estimate::fixed(0);
                let mut items = Estimate { min: if list.elements.is_empty() { 0 } else { u64::MAX }, max: 0 };
                for el in &list.elements {
                    sum = sum.add(self.cost(el));
                    items = items.union(self.size_or_unknown(el));
                }
                self.entries.insert(e.id, EntrySize { list: true, key: Estimate::fixed(1), val: items });
                sum.add(Estimate::fixed(LIST_CREATE))
            }
            Expr::Map(map) => {
                let mut sum = Estimate::fixed(0);
                let least = if map.entries.is_empty() { 0 } else { u64::MAX };
                let (mut keys, mut values) = (Estimate { min: least, max: 0 }, Estimate { min: least, max: 0 });
                for entry in &map.entries {
                    let EntryExpr::MapEntry(entry) = &entry.expr else { continue };
                    sum = sum.add(self.cost(&entry.key)).add(self.cost(&entry.value));
                    keys = keys.union(self.size_or_unknown(&entry.key));
                    values = values.union(self.size_or_unknown(&entry.value));
                }
                self.entries.insert(e.id, EntrySize { list: false, key: keys, val: values });
                sum.add(Estimate::fixed(MAP_CREATE))
            }
            Expr::Struct(s) => {
                let mut sum = Estimate::fixed(0);
                for entry in &s.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        sum = sum.add(self.cost(&f.value));
                    }
                }
                sum.add(Estimate::fixed(STRUCT_CREATE))
            }
            Expr::Comprehension(_) if is_bind(e) => self.bind(e),
            Expr::Comprehension(_) => self.comprehension(e),
            Expr::Unspecified => Estimate::fixed(0),
        }
    }

    fn comprehension(&mut self, e: &IdedExpr) -> Estimate {
        let Expr::Comprehension(c) = &e.expr else { return Estimate::fixed(0) };
        let mut sum = self.cost(&c.iter_range).add(self.cost(&c.accu_init));
        self.push_local(&c.accu_var, &c.accu_init);
        match &c.iter_var2 {
            Some(v2) => {
                self.push_iter(&c.iter_var, &c.iter_range, Iterated::Keys);
                self.push_iter(v2, &c.iter_range, Iterated::Values);
            }
            None => self.push_iter(&c.iter_var, &c.iter_range, Iterated::Single),
        }
        let cond = self.cost(&c.loop_cond);
        let step = self.cost(&c.loop_step);
        self.pop_local(&c.iter_var);
        if let Some(v2) = &c.iter_var2 {
            self.pop_local(v2);
        }
        sum = sum.add(self.cost(&c.result));
        self.pop_local(&c.accu_var);
        let range = self.size_or_unknown(&c.iter_range);
        sum = sum.add(range.multiply(step.add(cond)));
        match &c.accu_init.expr {
            Expr::Literal(_) => {
                let size = self.compute_size(&c.accu_init);
                self.set_size(e, size);
            }
            Expr::List(_) | Expr::Map(_) => {
                self.set_size(e, Some(range));
                // A step that builds a list or map has entry sizes.
                if let Some(entry) = self.entry_size(&c.loop_step) {
                    self.entries.insert(e.id, entry);
                }
            }
            _ => {}
        }
        sum
    }

    /// A block binding a variable (`sortBy`'s): its value is computed once.
    fn bind(&mut self, e: &IdedExpr) -> Estimate {
        let Expr::Comprehension(c) = &e.expr else { return Estimate::fixed(0) };
        let mut sum = self.cost(&c.iter_range).add(self.cost(&c.accu_init));
        self.push_local(&c.accu_var, &c.accu_init);
        sum = sum.add(self.cost(&c.result));
        self.pop_local(&c.accu_var);
        self.copy_sizes(e, &c.result);
        sum
    }

    fn call(&mut self, e: &IdedExpr) -> Estimate {
        let Expr::Call(call) = &e.expr else { return Estimate::fixed(0) };
        let checked = self.checked;
        let Some(overloads) = checked.overloads.get(&e.id).filter(|o| !o.is_empty()) else {
            for a in &call.args {
                self.cost(a);
            }
            return Estimate::fixed(0);
        };
        // `dyn(x)` only turns checking off: it costs 1 and has `x`'s sizes.
        if overloads[0].function.cost == Cost::Transparent
            && let [arg] = call.args.as_slice()
        {
            let arg_cost = self.cost(arg);
            self.copy_sizes(e, arg);
            return Estimate::fixed(1).add(arg_cost);
        }
        let mut arg_costs = Vec::with_capacity(call.args.len());
        let mut args = Vec::with_capacity(call.args.len());
        for a in &call.args {
            arg_costs.push(self.cost(a));
            args.push(self.node(a));
        }
        let mut sum = Estimate::fixed(0);
        // A namespaced function (`sets.contains(a, b)`) is global: cel-go's checker drops the
        // namespace the tree has as the call's target.
        let target = match call.target.as_deref() {
            Some(t) if overloads[0].member => {
                sum = sum.add(self.cost(t));
                Some(self.node(t))
            }
            _ => None,
        };
        let mut fn_cost = Estimate { min: u64::MAX, max: 0 };
        let mut result: Option<Estimate> = None;
        for overload in overloads {
            let estimate = self.function_cost(e, overload, target.as_ref(), &args, &arg_costs);
            fn_cost = fn_cost.union(estimate.cost);
            if let Some(r) = estimate.result {
                result = Some(result.map_or(r, |s| s.union(r)));
            }
            // Indexing continues the operand's path.
            let step = match overload.function.cost {
                Cost::IndexList => Some("@items"),
                Cost::IndexMap => Some("@values"),
                _ => None,
            };
            if let (Some(step), Some(operand)) = (step, call.args.first()) {
                result = self.entry_size(operand).map(|s| s.val);
                let mut path = self.path(operand);
                path.push(step.to_owned());
                self.paths.insert(e.id, path);
            }
            if result.is_none() {
                result = self.compute_size(e);
            }
        }
        self.set_size(e, result);
        sum.add(fn_cost)
    }

    /// One overload's cost (`functionCost`) by its row's rule: the extensions' and the
    /// Kubernetes libraries' estimators first, then cel-go's own.
    fn function_cost(
        &mut self,
        e: &IdedExpr,
        overload: &Overload,
        target: Option<&Node>,
        args: &[Node],
        arg_costs: &[Estimate],
    ) -> CallEstimate {
        let arg_sum = arg_costs.iter().fold(Estimate::fixed(0), |sum, c| sum.add(*c));
        if let Some(est) = self.library_cost(overload, target, args) {
            return CallEstimate { cost: est.cost.add(arg_sum), result: est.result };
        }
        let size = |n: &Node| n.computed.unwrap_or(UNKNOWN);
        let traversed = |n: &Node| size(n).times(STRING_TRAVERSAL).add(arg_sum);
        match (overload.function.cost, target, args) {
            (Cost::Format, Some(t), _) => {
                return CallEstimate { cost: traversed(t), result: None };
            }
            (Cost::ToBytes, _, [a]) => {
                let sz = size(a);
                // At most four bytes a character.
                let result = Estimate { min: sz.min, max: sz.max.wrapping_mul(4) };
                return CallEstimate { cost: traversed(a), result: Some(result) };
            }
            (Cost::FromBytes, _, [a]) => {
                let sz = size(a);
                return CallEstimate { cost: traversed(a), result: Some(Estimate { min: sz.min / 4, max: sz.max }) };
            }
            (Cost::Quote, _, [a]) => {
                let sz = size(a);
                // Each character escaped at most, and the quotes.
                let result = Estimate { min: sz.min.wrapping_add(2), max: sz.max.wrapping_mul(2).wrapping_add(2) };
                return CallEstimate { cost: traversed(a), result: Some(result) };
            }
            (Cost::Affix, _, [a]) => {
                return CallEstimate { cost: traversed(a), result: None };
            }
            // Containment in a list is taken as linear, even of constants.
            (Cost::InList, _, [_, list]) => {
                return CallEstimate { cost: size(list).times(1.0).add(arg_sum), result: None };
            }
            (Cost::Matches, Some(t), [pattern]) => {
                // The subject's length plus one, so that an empty subject still costs; each
                // pattern element taken to be four characters long.
                let subject = size(t).add(Estimate::fixed(1)).times(STRING_TRAVERSAL);
                let pattern = size(pattern).times(REGEX_STRING_LENGTH);
                return CallEstimate { cost: subject.multiply(pattern).add(arg_sum), result: None };
            }
            (Cost::Contains, Some(t), [sub]) => {
                let cost = size(t).times(STRING_TRAVERSAL).multiply(size(sub).times(STRING_TRAVERSAL));
                return CallEstimate { cost: cost.add(arg_sum), result: None };
            }
            (Cost::ShortCircuit, _, _) => {
                // At least the left operand, short-circuiting; at most both.
                let (lhs, rhs) = (arg_costs[0], arg_costs[1]);
                return CallEstimate { cost: Estimate { min: lhs.min, max: lhs.add(rhs).max }, result: None };
            }
            (Cost::Conditional, _, [_, yes, no]) => {
                let result = size(yes).union(size(no));
                let entry =
                    union_entries(yes.expr.and_then(|x| self.entry_size(x)), no.expr.and_then(|x| self.entry_size(x)));
                if let Some(entry) = entry {
                    self.entries.insert(e.id, entry);
                }
                let cost = arg_costs[0].add(arg_costs[1].union(arg_costs[2]));
                return CallEstimate { cost, result: Some(result) };
            }
            (rule @ (Cost::ConcatCopy | Cost::ConcatList), _, [lhs, rhs]) => {
                let result = size(lhs).add(size(rhs));
                let entry =
                    union_entries(lhs.expr.and_then(|x| self.entry_size(x)), rhs.expr.and_then(|x| self.entry_size(x)));
                if let Some(entry) = entry {
                    self.entries.insert(e.id, entry);
                }
                // Joining lists is constant; joining strings and bytes copies them.
                let cost = if rule == Cost::ConcatList {
                    Estimate::fixed(1).add(arg_sum)
                } else {
                    result.times(STRING_TRAVERSAL).add(arg_sum)
                };
                return CallEstimate { cost, result: Some(result) };
            }
            (Cost::Equality | Cost::CompareTraversing, _, [lhs, rhs]) => {
                let smallest = size(lhs).max.min(size(rhs).max);
                let cost = Estimate { min: u64::from(smallest > 0), max: smallest }.times(STRING_TRAVERSAL);
                return CallEstimate { cost: cost.add(arg_sum), result: None };
            }
            _ => {}
        }
        CallEstimate { cost: Estimate::fixed(1).add(arg_sum), result: None }
    }

    /// The lists (v3) and sets extensions' estimators (`ext/lists.go`, `ext/sets.go`) and the
    /// Kubernetes libraries' (`CostEstimator.EstimateCallCost`; the authorizer and selector
    /// functions are not in a CRD rule's environment), by the row's rule.
    fn library_cost(&self, overload: &Overload, target: Option<&Node>, args: &[Node]) -> Option<CallEstimate> {
        let size = |n: &Node| self.estimate_size(n);
        let one = Estimate::fixed(1);
        match (overload.function.cost, target, args) {
            (Cost::Sets(factor), None, [a, b]) => {
                CallEstimate::cost(size(a).multiply(size(b)).times(factor).add(Estimate::fixed(1)))
            }
            (Cost::Slice, Some(t), [start, end]) => {
                let (start, end) = (int_literal(start, 0), int_literal(end, size(t).max));
                allocating(1.0, Estimate::fixed(end.wrapping_sub(start)))
            }
            (Cost::Flatten, Some(t), []) => allocating(1.0, size(t)),
            (Cost::Flatten, Some(t), [depth]) => allocating(int_literal(depth, u64::MAX) as f64, size(t)),
            (Cost::Range, None, [n]) => allocating(1.0, Estimate::fixed(int_literal(n, u64::MAX))),
            (Cost::Reverse, Some(t), []) => allocating(1.0, size(t)),
            (Cost::Distinct, Some(t), []) => {
                let size = size(t);
                allocating(2.0, size.multiply(size))
            }
            // Sorting compares every element with every other: by the list sorted, or by its
            // keys.
            (Cost::Sort, Some(t), []) => sort_cost(size(t), &overload.params[0]),
            (Cost::SortByKeys, Some(_), [keys]) => sort_cost(size(keys), &overload.params[1]),
            (Cost::ListScan, Some(t), _) => match self.list_element(t) {
                Some(elem) => {
                    // Comparing each element; strings and bytes are traversed to compare.
                    let mut each = one;
                    if matches!(elem.ty, Type::String | Type::Bytes) {
                        each = each.add(size(&elem).times(STRING_TRAVERSAL));
                    }
                    CallEstimate::cost(size(t).multiply(each))
                }
                // `indexOf` of a string.
                None => CallEstimate::cost(size(t).times(STRING_TRAVERSAL)),
            },
            (Cost::ParseUrl, _, [a]) => CallEstimate::sized(size(a).times(STRING_TRAVERSAL), size(a)),
            (Cost::CopyTarget, Some(t), _) => {
                let sz = size(t);
                CallEstimate::sized(sz.times(STRING_TRAVERSAL), sz)
            }
            (Cost::Replace, Some(t), [old, new, ..]) => {
                let (sz, old, new) = (size(t), size(old), size(new));
                // The longest result replaces the shortest `old` with the longest `new`; the
                // shortest, the longest `old` with the shortest `new`.
                let (most, most_kept) = replacements(sz.max, old.min, new.max <= old.min);
                let (least, least_kept) = replacements(sz.min, old.max, old.max <= new.min);
                let (count, retained) =
                    (Estimate { min: least, max: most }, Estimate { min: least_kept, max: most_kept });
                let result = count.multiply(new).add(retained);
                CallEstimate::sized(sz.times(2.0 * STRING_TRAVERSAL), result)
            }
            (Cost::Split, Some(t), _) => {
                let sz = size(t);
                // At most one item a character, or the limit given.
                let most = match args.get(1).and_then(|n| n.expr).map(|x| &x.expr) {
                    Some(Expr::Literal(LiteralValue::Int(i))) => **i as u64,
                    _ => sz.max,
                };
                CallEstimate::sized(sz.times(2.0 * STRING_TRAVERSAL), Estimate { min: 0, max: most })
            }
            (Cost::Join, Some(t), _) => {
                let items = size(t);
                let mut sz = Estimate::fixed(0);
                if let Some(elem) = self.list_element(t) {
                    sz = items.multiply(size(&elem));
                }
                if let Some(separator) = args.first() {
                    let separators = Estimate { min: items.min.saturating_sub(1), max: items.max.saturating_sub(1) };
                    sz = sz.add(size(separator).multiply(separators));
                }
                CallEstimate::sized(sz.times(STRING_TRAVERSAL), sz)
            }
            (Cost::Find, Some(t), [pattern, ..]) => {
                let sz = size(t);
                let subject = sz.add(one).times(STRING_TRAVERSAL);
                let pattern = size(pattern).times(REGEX_STRING_LENGTH);
                // At most one match a character.
                CallEstimate::sized(subject.multiply(pattern), Estimate { min: 0, max: sz.max })
            }
            (Cost::ParseArgument, _, [a, ..]) => CallEstimate::cost(size(a).times(STRING_TRAVERSAL)),
            // Parsed, then compared with the text.
            (Cost::IpCanonical, _, [a, ..]) => CallEstimate::cost(size(a).times(2.0 * STRING_TRAVERSAL)),
            (Cost::ContainsAddress, _, [a, ..]) => {
                // Two addresses of 4 or 16 bytes compared; a CIDR is masked first; a string
                // is parsed first.
                let address = Estimate { min: 4, max: 16 };
                let mut cost = address.add(address).times(STRING_TRAVERSAL);
                if overload.name == "containsCIDR" {
                    cost = cost.add(address.times(STRING_TRAVERSAL)).add(one);
                }
                if matches!(overload.params.get(1), Some(Type::String)) {
                    cost = cost.add(size(a).times(STRING_TRAVERSAL));
                }
                CallEstimate::cost(cost)
            }
            (Cost::ValidateFormat, _, [a, ..]) => {
                CallEstimate::cost(size(a).times(STRING_TRAVERSAL).times(MAX_NAME_FORMAT_REGEX * REGEX_STRING_LENGTH))
            }
            (Cost::Equality, _, [lhs, rhs]) => {
                if !same_type(&lhs.ty, &rhs.ty) {
                    return None;
                }
                match type_name(&lhs.ty)? {
                    "net.IP" | "net.CIDR" | "kubernetes.Quantity" | "kubernetes.Semver" => CallEstimate::cost(one),
                    "kubernetes.NamedFormat" => {
                        CallEstimate::cost(Estimate { min: 1, max: MAX_FORMAT }.times(STRING_TRAVERSAL))
                    }
                    "kubernetes.URL" => {
                        // (The library reads the right operand's size for both.)
                        let sz = rhs.computed.map_or(one, |r| r.union(r));
                        CallEstimate::cost(Estimate { min: 1, max: sz.max }.times(STRING_TRAVERSAL))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn list_element(&self, list: &Node) -> Option<Node<'static>> {
        let ty = list.ty.parameters().first().map(|t| (*t).clone())?;
        let path = if list.path.is_empty() {
            Vec::new()
        } else {
            let mut p = list.path.clone();
            p.push("@items".to_owned());
            p
        };
        Some(Node { path, ty, expr: None, computed: None })
    }

    /// A node's size: computed, or from the schema, or unknown (`sizeEstimate`).
    fn estimate_size(&self, n: &Node) -> Estimate {
        n.computed.or_else(|| self.declared_size(&n.path)).unwrap_or(UNKNOWN)
    }

    /// The size the schema allows at `path` (`sizeEstimator.EstimateSize`): the path's first
    /// step is the variable, `self` or `oldSelf`, which the root declaration stands for.
    fn declared_size(&self, path: &[String]) -> Option<Estimate> {
        let (_, steps) = path.split_first()?;
        let node = self.root.at(steps.iter().map(String::as_str))?;
        Some(Estimate { min: 0, max: node.max_elements })
    }

    fn node<'e>(&mut self, e: &'e IdedExpr) -> Node<'e> {
        let mut path = self.path(e);
        // Only paths from declared variables are given; not from accumulators.
        if path.first().is_some_and(|v| ACCUMULATORS.contains(&v.as_str())) {
            path = Vec::new();
        }
        let computed = self.compute_size(e);
        Node { path, ty: self.type_of(e).clone(), expr: Some(e), computed }
    }

    fn type_of(&self, e: &IdedExpr) -> &'a Type {
        static DYN: Type = Type::Dyn;
        self.checked.types.get(&e.id).unwrap_or(&DYN)
    }

    fn path(&self, e: &IdedExpr) -> Path {
        if let Expr::Ident(name) = &e.expr
            && let Some(v) = self.local(name)
        {
            return v.path.clone();
        }
        self.paths.get(&e.id).cloned().unwrap_or_default()
    }

    fn local(&self, name: &str) -> Option<&Local> {
        self.locals.get(name).and_then(|stack| stack.last())
    }

    fn push_local(&mut self, name: &str, e: &IdedExpr) {
        let path = self.path(e);
        let entry = self.entry_size(e);
        let size = self.compute_size(e);
        self.locals.entry(name.to_owned()).or_default().push(Local { path, size, entry });
    }

    /// A comprehension's variable over `range`: a list's indices or items, a map's keys or
    /// values.
    fn push_iter(&mut self, name: &str, range: &IdedExpr, iterated: Iterated) {
        let entry = self.entry_size(range);
        let list = entry.map_or_else(|| matches!(self.type_of(range), Type::List(..)), |e| e.list);
        let (size, step) = match (iterated, list) {
            (Iterated::Keys, true) => (entry.map(|e| e.key), "@indices"),
            (Iterated::Keys | Iterated::Single, false) => (entry.map(|e| e.key), "@keys"),
            (Iterated::Values | Iterated::Single, true) => (entry.map(|e| e.val), "@items"),
            (Iterated::Values, false) => (entry.map(|e| e.val), "@values"),
        };
        let mut path = self.path(range);
        path.push(step.to_owned());
        self.locals.entry(name.to_owned()).or_default().push(Local { path, size, entry: None });
    }

    fn pop_local(&mut self, name: &str) {
        if let Some(stack) = self.locals.get_mut(name) {
            stack.pop();
        }
    }

    fn set_size(&mut self, e: &IdedExpr, size: Option<Estimate>) {
        if let Some(size) = size {
            self.sizes.insert(e.id, size);
        }
    }

    fn copy_sizes(&mut self, to: &IdedExpr, from: &IdedExpr) {
        let size = self.compute_size(from);
        self.set_size(to, size);
        if let Some(entry) = self.entry_size(from) {
            self.entries.insert(to.id, entry);
        }
    }

    fn size_or_unknown(&mut self, e: &IdedExpr) -> Estimate {
        self.compute_size(e).unwrap_or(UNKNOWN)
    }

    /// `computeSize`: computed before, or a literal's, or the schema's, or a scalar's, or a
    /// local variable's.
    fn compute_size(&mut self, e: &IdedExpr) -> Option<Estimate> {
        if let Some(size) = self.sizes.get(&e.id) {
            return Some(*size);
        }
        if let Some(size) = literal_size(e) {
            return Some(size);
        }
        if let Some(size) = self.declared_size(&self.path(e)) {
            self.sizes.insert(e.id, size);
            return Some(size);
        }
        if is_scalar(self.type_of(e)) {
            return Some(Estimate::fixed(1));
        }
        match &e.expr {
            Expr::Ident(name) => self.local(name).and_then(|v| v.size),
            _ => None,
        }
    }

    fn entry_size(&self, e: &IdedExpr) -> Option<EntrySize> {
        if let Some(entry) = self.entries.get(&e.id) {
            return Some(*entry);
        }
        match &e.expr {
            Expr::Ident(name) => self.local(name).and_then(|v| v.entry),
            _ => None,
        }
    }
}

/// Which of a range's parts a comprehension variable iterates.
#[derive(Clone, Copy)]
enum Iterated {
    /// The one variable: a list's items, a map's keys.
    Single,
    /// The first of two: a list's indices, a map's keys.
    Keys,
    /// The second of two: a list's items, a map's values.
    Values,
}

/// `cel.bind`'s shape (`sortBy` expands to it): an empty range, a false condition, and an
/// accumulator that is not a macro's.
fn is_bind(e: &IdedExpr) -> bool {
    let Expr::Comprehension(c) = &e.expr else { return false };
    matches!(&c.iter_range.expr, Expr::List(l) if l.elements.is_empty())
        && matches!(&c.loop_cond.expr, Expr::Literal(LiteralValue::Boolean(b)) if !**b)
        && c.accu_var != ACCUMULATORS[0]
}

/// The size of a literal: characters of a string, bytes, list items, map entries; 1 for any
/// other constant.
fn literal_size(e: &IdedExpr) -> Option<Estimate> {
    let n = match &e.expr {
        Expr::Literal(LiteralValue::String(s)) => s.inner().chars().count() as u64,
        Expr::Literal(LiteralValue::Bytes(b)) => b.len() as u64,
        Expr::Literal(_) => 1,
        Expr::List(l) => l.elements.len() as u64,
        Expr::Map(m) => m.entries.len() as u64,
        _ => return None,
    };
    Some(Estimate::fixed(n))
}

/// Types whose values have one size (`isScalar`).
fn is_scalar(t: &Type) -> bool {
    match t {
        Type::Bool | Type::Double | Type::Duration | Type::Int | Type::Timestamp | Type::Uint => true,
        Type::Opaque(name, params) if &**name == "optional_type" => params.first().is_some_and(is_scalar),
        _ => false,
    }
}

/// How often `replace` replaces, and how much of the subject it keeps, at one extreme: a
/// `length`-character subject, `replaced` characters replaced each time (`keeps_length`: the
/// replacement is no longer, or no shorter, than that). An empty string replaced surrounds
/// every character; else it is replaced as often as it fits.
fn replacements(length: u64, replaced: u64, keeps_length: bool) -> (u64, u64) {
    if replaced == 0 {
        (length.saturating_add(1), length)
    } else if keeps_length {
        (0, length)
    } else {
        ((length as f64 / replaced as f64).ceil() as u64, 0)
    }
}

/// An allocating list call's estimate (`estimateAllocatingListCall`): the result's size
/// times the factor, the call, and the list made.
fn allocating(factor: f64, size: Estimate) -> Option<CallEstimate> {
    let cost = size.times(factor).add(Estimate::fixed(1)).add(Estimate::fixed(LIST_CREATE));
    CallEstimate::sized(cost, size)
}

/// Sorting `size` items of the list type `list`: every pair compared, strings and bytes
/// dearer.
fn sort_cost(size: Estimate, list: &Type) -> Option<CallEstimate> {
    let mut factor = 2.0;
    if matches!(list.parameters().first(), Some(Type::String | Type::Bytes)) {
        factor += STRING_TRAVERSAL;
    }
    allocating(factor, size.multiply(size))
}

/// A constant `int` argument, negative as 0; `default` for anything else.
fn int_literal(n: &Node, default: u64) -> u64 {
    match n.expr.map(|e| &e.expr) {
        Some(Expr::Literal(LiteralValue::Int(i))) => u64::try_from(**i).unwrap_or(0),
        _ => default,
    }
}

/// Whether two types are the same (`Type.Equal`; a list's kind is not part of its type).
fn same_type(a: &Type, b: &Type) -> bool {
    a.to_string() == b.to_string()
}

/// The name of a library's object or opaque type.
fn type_name(t: &Type) -> Option<&str> {
    match t {
        Type::Object(o) => Some(&o.name),
        Type::Opaque(name, _) => Some(name),
        _ => None,
    }
}
