//! The cost of an evaluation counted while it runs (semantics §9.7), as cel-go's cost tracker
//! counts it, so that no rule runs past the apiserver's limits whatever the data: a per-call
//! limit of 1,000,000 and a per-object budget of 10,000,000, messageExpressions included.
//!
//! The `cel` crate counts nothing, so the lowering stage's `instrument` rewrites a rule's expression once, at
//! compile time, with calls that charge a thread-local meter:
//! - `@charge(k, e)`: `e`, after charging `k`. Every comprehension charges once per iteration
//!   what its step evaluates at least (its spine: the operands always evaluated), so nested loops over a million items
//!   stop after a million steps instead of running for hours; the whole expression charges
//!   its own spine once.
//! - `@sized(e)`: `e`, after charging a tenth of a unit per byte or element it holds (cel-go's
//!   traversal factor), on `+` of strings and lists.
//! - `matches`, `find` and `findAll` charge cel-go's regex cost themselves.
//! - `@replace`, `@join`, `@flatten` and `@range` stand in for `replace`, `join`, `flatten`
//!   and `lists.range`, whose results can be far larger than their inputs: they charge the
//!   size of the result before they build it, so `'x'.replace('', s)` is refused instead of
//!   allocating gigabytes.
//!
//! What is charged does not exceed cel-go's count (a short-circuited operand, a list literal's
//! base cost are not charged), so a rule the apiserver runs is not stopped here, with one
//! exception: what `map` and `filter` collect is also charged by its size, as this interpreter
//! copies each value it collects where cel-go shares it (`self.items.map(x, self.items)` would
//! otherwise take gigabytes). What the meter bounds is the work and the memory of a hostile
//! rule or object.

use std::cell::Cell;

use cel::ExecutionError;
use cel::common::functions::Function as Implementation;
use cel::common::types::{CelInt, CelList, CelString, Kind};
use cel::common::value::{CowVal, Val};

use crate::cel::vocabulary::function::{Charge, Cost as CostRule, NOT_YET_NATIVE, NativeForm, Rows, Run};

/// What cel-go's interrupted evaluation says.
pub const LIMIT_EXCEEDED: &str = "operation cancelled: actual cost limit exceeded";

#[derive(Clone, Copy, Default)]
struct Meter {
    used: u64,
    limit: u64,
    /// Whether an evaluation is being metered (functions called outside one charge nothing).
    active: bool,
}

thread_local! {
    static METER: Cell<Meter> = const { Cell::new(Meter { used: 0, limit: 0, active: false }) };
}

/// What one metered evaluation cost, and whether it was stopped at the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    /// The cost counted (one past the limit when it was exceeded).
    pub actual: u64,
    /// Whether the limit was exceeded: the result is then an error, whatever it says.
    pub exceeded: bool,
}

/// Runs `evaluate` with a meter that stops it once it has cost more than `limit`.
pub fn metered<T>(limit: u64, evaluate: impl FnOnce() -> T) -> (T, Cost) {
    let outer = METER.with(|m| m.replace(Meter { used: 0, limit, active: true }));
    let result = evaluate();
    let meter = METER.with(|m| m.replace(outer));
    // cel-go interrupts the evaluation as its count passes the limit: what it reports is just
    // past the limit, however large the charge that passed it (the work is never done here).
    let exceeded = meter.used > limit;
    (result, Cost { actual: if exceeded { limit.saturating_add(1) } else { meter.used }, exceeded })
}

/// Charges `units`; fails (and keeps failing) once the limit is passed. Library functions
/// whose work grows with their arguments' sizes (regular expressions) charge it themselves.
pub(crate) fn charge(units: u64) -> Result<(), ExecutionError> {
    METER.with(|m| {
        let mut meter = m.get();
        if !meter.active {
            return Ok(());
        }
        meter.used = meter.used.saturating_add(units);
        m.set(meter);
        if meter.used > meter.limit { Err(ExecutionError::Interrupted(LIMIT_EXCEEDED.to_owned())) } else { Ok(()) }
    })
}

/// cel-go's cost of a regular expression over a string: the string's traversal times a
/// quarter unit per byte of the pattern (`RegexStringLengthCostFactor`).
pub(crate) fn regex_cost(subject: usize, pattern: usize) -> u64 {
    traversal(subject).max(1).saturating_mul((pattern as u64).div_ceil(4).max(1))
}

/// [`crate::cel::vocabulary::limits::traversal`] of a byte or element count.
fn traversal(n: usize) -> u64 {
    crate::cel::vocabulary::limits::traversal(n as u64)
}

/// `@charge(k, e)`: `e`, once `k` is charged (the meter's calls are written into a rule by
/// the lowering's `instrument`).
pub const CHARGE: &str = "@charge";
/// `@sized(e)`: `e`, once its size is charged.
pub const SIZED: &str = "@sized";
/// `@charge_sized(k, e)`: both.
pub const CHARGE_SIZED: &str = "@charge_sized";
/// `lists.range(n)`'s argument, charged as the size of the list it builds.
pub const RANGE: &str = "@range";
/// What the lowering renames `replace` to: this module's implementation, which charges the
/// size of its result before it builds it.
pub const REPLACE: &str = "@replace";
/// What the lowering renames `join` to (charged likewise).
pub const JOIN: &str = "@join";
/// What the lowering renames `flatten` to (charged likewise).
pub const FLATTEN: &str = "@flatten";

/// The rows of the meter's calls.
pub(crate) fn functions(rows: &mut Rows) {
    let mut add = |signature: &str, f: Implementation, native: NativeForm| {
        rows.add(signature, Run::Library(f), CostRule::Call, Charge::Meter, native);
    };
    add(&format!("{CHARGE}(int, A) -> A"), charge_then, NativeForm::Charge);
    add(&format!("{SIZED}(A) -> A"), sized, NativeForm::Sized);
    add(&format!("{CHARGE_SIZED}(int, A) -> A"), charge_sized, NativeForm::ChargeSized);
    add(&format!("{RANGE}(int) -> int"), range_charge, NativeForm::Interpreted(NOT_YET_NATIVE));
}

/// `@charge(k, e)`: `e`, once `k` is charged. Works on the value as it is (no conversion).
fn charge_then<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let value = args.pop().ok_or_else(|| ExecutionError::invalid_argument_count(2, 0))?;
    let units = args.first().and_then(|k| k.downcast_ref::<CelInt>()).map_or(1, |k| *k.inner());
    charge(u64::try_from(units).unwrap_or(0))?;
    Ok(value)
}

/// `@charge_sized(k, e)`: `e`, once `k` and its size are charged.
fn charge_sized<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let value = charge_then(args)?;
    sized(vec![value])
}

/// `@sized(e)`: `e`, once its size is charged.
fn sized<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let value = args.pop().ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?;
    let size = value.as_sizer().map_or(0, |s| usize::try_from(*s.size().inner()).unwrap_or(usize::MAX));
    charge(traversal(size))?;
    Ok(value)
}

/// `@range(n)`: `n`, once the list `lists.range(n)` builds is charged as cel-go's tracker
/// charges it (`trackListOutputSize`: a unit per element and a list's creation; the call's
/// own unit is the spine's).
fn range_charge<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let n = args.first().and_then(|k| k.downcast_ref::<CelInt>()).map_or(0, |k| *k.inner());
    charge(u64::try_from(n).unwrap_or(0).saturating_add(crate::cel::vocabulary::function::LIST_CREATE))?;
    Ok(args.into_iter().next().expect("invariant: one argument, read above"))
}

/// The result of a function over the interpreter's own values: they are read where they
/// are, as converting a large argument would cost what the charge is there to prevent.
type Raw<'b, 'v> = Result<CowVal<'b, 'v>, ExecutionError>;

fn unexpected(value: &dyn Val, want: &str) -> ExecutionError {
    ExecutionError::UnexpectedType { got: value.get_type().name().to_owned(), want: want.to_owned() }
}

fn text<'a>(args: &'a [CowVal<'_, '_>], i: usize) -> Result<&'a str, ExecutionError> {
    let arg = args.get(i).ok_or_else(|| ExecutionError::invalid_argument_count(i + 1, args.len()))?;
    arg.downcast_ref::<CelString>().map(|s| s.inner()).ok_or_else(|| unexpected(arg.as_ref(), "string"))
}

fn int(args: &[CowVal<'_, '_>], i: usize) -> Result<Option<i64>, ExecutionError> {
    match args.get(i) {
        None => Ok(None),
        Some(arg) => {
            arg.downcast_ref::<CelInt>().map(|n| Some(*n.inner())).ok_or_else(|| unexpected(arg.as_ref(), "int"))
        }
    }
}

/// The elements of a list, borrowed.
fn elements<'a, 'v>(list: &'a (dyn Val + 'v)) -> Result<Vec<&'a (dyn Val + 'v)>, ExecutionError> {
    let mut items = list.as_iterable().ok_or_else(|| unexpected(list, "list"))?.iter();
    let mut out = Vec::new();
    while let Some(item) = items.next() {
        out.push(item);
    }
    Ok(out)
}

/// `s.replace(from, to[, n])` (cel-go's strings extension: `n < 0` replaces all).
pub(crate) fn replace<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Raw<'b, 'v> {
    let (s, from, to) = (text(&args, 0)?, text(&args, 1)?, text(&args, 2)?);
    let limit = int(&args, 3)?.and_then(|n| usize::try_from(n).ok());
    // An empty `from` matches before every character and at the end.
    let found = if from.is_empty() { s.chars().count() + 1 } else { s.matches(from).count() };
    let count = limit.map_or(found, |n| n.min(found));
    let size = s.len().saturating_add(count.saturating_mul(to.len())).saturating_sub(count * from.len());
    charge(traversal(size))?;
    let out = match limit {
        Some(n) => s.replacen(from, to, n),
        None => s.replace(from, to),
    };
    Ok(CowVal::owned(CelString::from(out)))
}

/// `list.join([sep])`: every element must be a string.
pub(crate) fn join<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Raw<'b, 'v> {
    let list = args.first().ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?;
    let sep = if args.len() > 1 { text(&args, 1)? } else { "" };
    let mut parts = Vec::new();
    for item in elements(list.as_ref())? {
        // A list of other items: cel-go's dispatch finds no `list(string).join()` for it.
        let no_overload =
            || ExecutionError::no_such_overload(JOIN, args.iter().map(|a| a.get_type().name().to_owned()).collect());
        parts.push(item.downcast_ref::<CelString>().map(|s| s.inner()).ok_or_else(no_overload)?);
    }
    let size = parts.iter().map(|p| p.len()).sum::<usize>().saturating_add(sep.len().saturating_mul(parts.len()));
    charge(traversal(size))?;
    Ok(CowVal::owned(CelString::from(parts.join(sep))))
}

/// `list.flatten([depth])`: nested lists spliced in, `depth` levels deep (one by default).
pub(crate) fn flatten<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Raw<'b, 'v> {
    let list = args.first().ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?;
    let depth = match int(&args, 1)? {
        None => 1,
        Some(d) => {
            u64::try_from(d).map_err(|_| ExecutionError::function_error("flatten", "level must be non-negative"))?
        }
    };
    fn is_list(v: &dyn Val) -> bool {
        v.get_type().kind() == Kind::List
    }
    fn count(list: &dyn Val, depth: u64) -> Result<usize, ExecutionError> {
        elements(list)?.into_iter().try_fold(0usize, |n, item| {
            Ok(n.saturating_add(if depth > 0 && is_list(item) { count(item, depth - 1)? } else { 1 }))
        })
    }
    fn splice<'v>(list: &(dyn Val + 'v), depth: u64, out: &mut Vec<Box<dyn Val + 'v>>) -> Result<(), ExecutionError> {
        for item in elements(list)? {
            if depth > 0 && is_list(item) {
                splice(item, depth - 1, out)?;
            } else {
                out.push(item.clone_as_boxed());
            }
        }
        Ok(())
    }
    // Values nest no deeper than an expression may (lists in literals) or the read (JSON).
    let depth = depth.min(crate::cel::vocabulary::limits::MAX_DEPTH as u64);
    let size = count(list.as_ref(), depth)?;
    charge(traversal(size))?;
    let mut out = Vec::with_capacity(size);
    splice(list.as_ref(), depth, &mut out)?;
    Ok(CowVal::owned(CelList::from(out)))
}
