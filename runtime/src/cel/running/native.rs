//! What rules compiled to Rust call (issue 15): codegen turns a rule's checked, metered tree
//! into a function over the typed value (`self` a `&T`, `oldSelf` an `Option<&T>`), and
//! [`Cx::evaluate_typed`](crate::cel::Cx::evaluate_typed) runs it in the interpreter's place.
//!
//! The functions here hold the semantics the emitted code must not spell out at every rule:
//! the meter ([`Meter`]: the same charges, at the same places, as the meter's `instrument`
//! puts in the interpreted tree, so cost and cost errors are the interpreter's), the errors
//! in cel-go's words ([`Error`]), the logical operators' error absorption as the `cel` crate
//! evaluates it ([`and`], [`or`], [`Fold`]), checked integer arithmetic, code-point sizes and
//! the string functions. Nothing here allocates unless a rule's own result needs it.
//!
//! Generated code calls this module: it is not a stable API, and changes with the derive and
//! code generator of the same release (ARCHITECTURE.md, Boundaries).

use std::borrow::Cow;

use crate::cel::vocabulary::meter::{self, Cost};

/// The cost meter of one native evaluation: charged as the interpreter's thread-local meter
/// is, stopped past `limit`.
#[derive(Debug)]
pub struct Meter {
    used: u64,
    limit: u64,
    /// The integers under the rule's node that the document wrote as floats (see
    /// [`crate::cel::with_written_as_float`]); almost always none.
    written_as_float: Vec<String>,
}

impl Meter {
    /// A meter stopping past `limit` (the per-call limit).
    #[inline]
    pub fn new(limit: u64) -> Meter {
        Meter { used: 0, limit, written_as_float: Vec::new() }
    }

    /// The meter of a rule over a node whose integers at `places` (pointers relative to it)
    /// were written as floats: made for every native rule run, so inlined, and allocating
    /// only where some integer was (almost never).
    #[inline]
    pub fn with_written_as_float(limit: u64, places: &[String]) -> Meter {
        Meter { used: 0, limit, written_as_float: places.to_vec() }
    }

    /// An integer read at `place` (a pointer relative to the rule's node, made only where some
    /// integer was written as a float; `*` for an index or key the rule computed): fails as
    /// the apiserver's read of a float there fails.
    #[inline]
    pub fn int_read(&self, place: impl FnOnce() -> String) -> Result<()> {
        if self.written_as_float.is_empty()
            || !crate::cel::lowering::int_data::reads_float(&place(), &self.written_as_float)
        {
            Ok(())
        } else {
            Err(Error::Message(Cow::Borrowed(crate::cel::lowering::int_data::FLOAT_READ)))
        }
    }

    /// Charges `units`; fails (and keeps failing) once the limit is passed.
    #[inline]
    pub fn charge(&mut self, units: u64) -> Result<()> {
        self.used = self.used.saturating_add(units);
        if self.used > self.limit { Err(Error::LimitExceeded) } else { Ok(()) }
    }

    /// Charges the traversal of `n` bytes or elements (a tenth of a unit each).
    #[inline]
    pub fn charge_size(&mut self, n: usize) -> Result<()> {
        self.charge(crate::cel::vocabulary::limits::traversal(n as u64))
    }

    /// cel-go's regex cost over a subject of `subject` bytes with a pattern of `pattern` bytes.
    #[inline]
    pub fn charge_regex(&mut self, subject: usize, pattern: usize) -> Result<()> {
        self.charge(meter::regex_cost(subject, pattern))
    }

    /// What the evaluation cost, as [`meter::metered`] reports it.
    pub fn cost(&self) -> Cost {
        let exceeded = self.used > self.limit;
        Cost { actual: if exceeded { self.limit.saturating_add(1) } else { self.used }, exceeded }
    }
}

/// An evaluation error, printed in cel-go's words (as the interpreter prints its own).
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// `no such key: <key>`.
    NoSuchKey(Cow<'static, str>),
    /// `no such overload`.
    NoSuchOverload,
    /// `index out of bounds: <i>`.
    IndexOutOfBounds(i64),
    /// `division by zero`.
    DivisionByZero,
    /// `modulus by zero`.
    ModulusByZero,
    /// `integer overflow`.
    Overflow,
    /// The meter's limit was passed.
    LimitExceeded,
    /// A function's own message.
    Message(Cow<'static, str>),
    /// Code the derive compiled met a value it cannot read natively (see
    /// [`crate::cel::derived`]): the rule is interpreted instead. Never absorbed by `&&`,
    /// `||` or a loop, and never shown.
    Deferred,
}

impl Error {
    /// `no such key: <key>` for a field read where it is absent.
    #[cold]
    pub fn no_such_key(key: &'static str) -> Error {
        Error::NoSuchKey(Cow::Borrowed(key))
    }

    /// A map key that is not there.
    #[cold]
    pub fn no_such_map_key(key: &str) -> Error {
        Error::NoSuchKey(Cow::Owned(key.to_owned()))
    }

    /// The text the apiserver shows (`go_error`'s for the interpreter).
    pub fn text(&self) -> String {
        match self {
            Error::NoSuchKey(k) => format!("no such key: {k}"),
            Error::NoSuchOverload => "no such overload".into(),
            Error::IndexOutOfBounds(i) => format!("index out of bounds: {i}"),
            Error::DivisionByZero => "division by zero".into(),
            Error::ModulusByZero => "modulus by zero".into(),
            Error::Overflow => "integer overflow".into(),
            Error::LimitExceeded => meter::LIMIT_EXCEEDED.into(),
            Error::Message(m) => m.to_string(),
            Error::Deferred => "deferred to the interpreter".into(),
        }
    }

    /// Whether the apiserver reports it as a call that matched no signature.
    pub fn is_no_such_overload(&self) -> bool {
        matches!(self, Error::NoSuchOverload)
    }
}

/// The result of a native expression.
pub type Result<T> = std::result::Result<T, Error>;

/// A compiled expression over `self` (a `T`), `oldSelf` (absent on create: a rule that reads
/// it is not run then, unless its oldSelf is optional) and the meter.
pub type Function<T, R> = fn(&T, Option<&T>, &mut Meter) -> Result<R>;

/// A rule compiled to Rust for values of type `T`: the rule, and its messageExpression.
pub struct Native<T: ?Sized> {
    /// The rule.
    pub rule: Function<T, bool>,
    /// The messageExpression.
    pub message: Option<Function<T, String>>,
    /// Whether the rule reads `oldSelf` (a transition rule): what its compilation would say,
    /// said by codegen, which compiled it, so that a native rule is never compiled at run time.
    pub transition: bool,
    /// Compiled by the derive, without the types of what the rule reads
    /// ([`crate::cel::derived`]): the rule is compiled (type-checked) at run time before this
    /// runs, and where it defers ([`Error::Deferred`], or integers the document wrote as
    /// floats) the interpreter runs it.
    pub defers: bool,
}

impl<T: ?Sized> Clone for Native<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Native<T> {}

/// The value of an enum variant as rules read it (derived for enums): a `&'static str`,
/// an `i64` or a `bool`.
pub trait EnumValue {
    /// The variant's value's type.
    type Value;
    /// The variant's value.
    fn value(&self) -> Self::Value;
}

/// `l && r`, as cel-go's `evalAnd`: `false` on either side decides; otherwise the first
/// error, the left one's before the right one's.
#[inline]
pub fn and<E: Rank>(
    l: std::result::Result<bool, E>,
    r: impl FnOnce() -> std::result::Result<bool, E>,
) -> std::result::Result<bool, E> {
    logical(false, l, r)
}

/// `l || r`, as [`and`] with `true` deciding (cel-go's `evalOr`).
#[inline]
pub fn or<E: Rank>(
    l: std::result::Result<bool, E>,
    r: impl FnOnce() -> std::result::Result<bool, E>,
) -> std::result::Result<bool, E> {
    logical(true, l, r)
}

/// What the logical operators and loops need of an error: whether one outranks another.
/// [`Error`] is one; a rule's plan (`super::plan`), which uses only a rule's holding, keeps
/// nothing but the rank.
pub trait Rank {
    /// Which of two held errors a loop keeps when it must keep one: a value only the
    /// interpreter reads (2: it runs the rule again), then the meter's stop (1), then the
    /// others (0).
    fn rank(&self) -> u8;

    /// What no operator absorbs: the meter's stop, and a value only the interpreter reads.
    #[inline]
    fn stops(&self) -> bool {
        self.rank() > 0
    }
}

impl Rank for Error {
    #[inline]
    fn rank(&self) -> u8 {
        match self {
            Error::Deferred => 2,
            Error::LimitExceeded => 1,
            _ => 0,
        }
    }
}

/// `held`, or `new` where it outranks it ([`Rank::rank`]); of two plain errors, `first`
/// keeps the one held.
#[inline]
fn hold<E: Rank>(held: &mut Option<E>, new: E, first: bool) {
    let replace = match held {
        None => true,
        Some(h) => new.rank() > h.rank() || (new.rank() == h.rank() && !first && h.rank() == 0),
    };
    if replace {
        *held = Some(new);
    }
}

/// `&&` (`deciding` false) and `||` (`deciding` true): the deciding value on either side
/// wins over an error on the other; of two errors, the left one.
#[inline]
fn logical<E: Rank>(
    deciding: bool,
    l: std::result::Result<bool, E>,
    r: impl FnOnce() -> std::result::Result<bool, E>,
) -> std::result::Result<bool, E> {
    match &l {
        Ok(v) if *v == deciding => return l,
        Err(e) if e.stops() => return l,
        _ => {}
    }
    let r = r();
    match (l, r) {
        (_, Ok(v)) if v == deciding => Ok(v),
        (_, Err(e)) if e.stops() => Err(e),
        (Err(e), _) | (Ok(_), Err(e)) => Err(e),
        (Ok(_), Ok(v)) => Ok(v),
    }
}

/// `@not_strictly_false(x)`: anything but `false` (errors included) is true.
#[inline]
pub fn not_strictly_false<E>(x: std::result::Result<bool, E>) -> bool {
    x.unwrap_or(true)
}

/// The accumulator of an `all` or `exists` loop as cel-go folds it: the first step's error
/// is held (`@result && p` keeps its left error) until a later step's absorbing value
/// (`false` for `all`, `true` for `exists`) decides.
pub struct Fold<E = Error> {
    /// The accumulated value.
    pub accu: bool,
    absorbing: bool,
    pending: Option<E>,
}

impl<E: Rank> Fold<E> {
    /// A fold starting at `init`, decided by `absorbing`.
    #[inline]
    pub fn new(init: bool, absorbing: bool) -> Fold<E> {
        Fold { accu: init, absorbing, pending: None }
    }

    /// Feeds one step's result.
    #[inline]
    pub fn step(&mut self, step: std::result::Result<bool, E>) {
        match step {
            Err(e) => hold(&mut self.pending, e, true),
            Ok(v) if v == self.absorbing && !self.pending.as_ref().is_some_and(E::stops) => {
                self.pending = None;
                self.accu = v;
            }
            Ok(_) => {}
        }
    }

    /// The accumulator, or the error still held.
    #[inline]
    pub fn finish(self) -> std::result::Result<bool, E> {
        match self.pending {
            Some(e) => Err(e),
            None => Ok(self.accu),
        }
    }
}

/// The error of an `exists_one` or `filter` loop as cel-go folds it: the step is
/// `p ? ... : @result`, so a failing `p` makes the accumulator that error, and a later
/// failing `p` replaces it; a step that does not fail leaves it. The loop's result is the
/// last error, if any.
#[derive(Default)]
pub struct LastError(Option<Error>);

impl LastError {
    /// Feeds one step's result: its value while no error is held.
    #[inline]
    pub fn step<T>(&mut self, step: Result<T>) -> Option<T> {
        match step {
            Ok(v) if self.0.is_none() => Some(v),
            Ok(_) => None,
            Err(e) => {
                hold(&mut self.0, e, false);
                None
            }
        }
    }

    /// The error held, if any.
    #[inline]
    pub fn finish(self) -> Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// `a + b` of ints.
#[inline]
pub fn add_int(a: i64, b: i64) -> Result<i64> {
    a.checked_add(b).ok_or(Error::Overflow)
}

/// `a - b` of ints.
#[inline]
pub fn sub_int(a: i64, b: i64) -> Result<i64> {
    a.checked_sub(b).ok_or(Error::Overflow)
}

/// `a * b` of ints.
#[inline]
pub fn mul_int(a: i64, b: i64) -> Result<i64> {
    a.checked_mul(b).ok_or(Error::Overflow)
}

/// `a / b` of ints.
#[inline]
pub fn div_int(a: i64, b: i64) -> Result<i64> {
    if b == 0 {
        return Err(Error::DivisionByZero);
    }
    a.checked_div(b).ok_or(Error::Overflow)
}

/// `a % b` of ints.
#[inline]
pub fn rem_int(a: i64, b: i64) -> Result<i64> {
    if b == 0 {
        return Err(Error::ModulusByZero);
    }
    a.checked_rem(b).ok_or(Error::Overflow)
}

/// `-a` of an int.
#[inline]
pub fn neg_int(a: i64) -> Result<i64> {
    a.checked_neg().ok_or(Error::Overflow)
}

/// `size(s)` of a string: its code points.
#[inline]
pub fn size_str(s: &str) -> i64 {
    if s.is_ascii() { s.len() as i64 } else { s.chars().count() as i64 }
}

/// `size(x)` of a list or map.
#[inline]
pub fn size_len(n: usize) -> i64 {
    n as i64
}

/// `a + b` of strings (the meter's `@sized` around it charges the result).
#[inline]
pub fn concat<'a>(a: Cow<'a, str>, b: Cow<'a, str>) -> Cow<'a, str> {
    let mut out = a.into_owned();
    out.push_str(&b);
    Cow::Owned(out)
}

/// A constant pattern of `matches` or `find`, compiled on first use (the rule's check
/// compiled it once already: it cannot fail here).
#[derive(Debug)]
pub struct Pattern {
    source: Cow<'static, str>,
    compiled: std::sync::OnceLock<std::result::Result<regex::Regex, String>>,
}

impl Pattern {
    /// The pattern `source` (Go RE2 syntax).
    pub const fn new(source: &'static str) -> Pattern {
        Pattern { source: Cow::Borrowed(source), compiled: std::sync::OnceLock::new() }
    }

    /// The pattern `source`, held (a rule's plan compiled at run time, `super::plan`).
    pub(crate) fn owned(source: String) -> Pattern {
        Pattern { source: Cow::Owned(source), compiled: std::sync::OnceLock::new() }
    }

    fn regex(&self) -> Result<&regex::Regex> {
        self.compiled
            .get_or_init(|| crate::check::pattern::compile(&self.source).map_err(|e| e.0))
            .as_ref()
            .map_err(|e| Error::Message(Cow::Owned(e.clone())))
    }
}

/// `s.matches(re)`, once cel-go's regex cost is charged.
pub fn matches(m: &mut Meter, s: &str, pattern: &Pattern) -> Result<bool> {
    m.charge_regex(s.len(), pattern.source.len())?;
    Ok(pattern.regex()?.is_match(s))
}

/// `s.find(re)`, once cel-go's regex cost is charged.
pub fn find<'a>(m: &mut Meter, s: Cow<'a, str>, pattern: &Pattern) -> Result<Cow<'a, str>> {
    m.charge_regex(s.len(), pattern.source.len())?;
    let re = pattern.regex()?;
    Ok(match s {
        Cow::Borrowed(b) => Cow::Borrowed(re.find(b).map_or("", |found| found.as_str())),
        Cow::Owned(o) => Cow::Owned(re.find(&o).map_or("", |found| found.as_str()).to_owned()),
    })
}

/// `s.substring(start[, end])` (cel-go's strings extension): by code points.
pub fn substring<'a>(s: Cow<'a, str>, start: i64, end: Option<i64>) -> Result<Cow<'a, str>> {
    let n = size_str(&s);
    // The `cel` crate's order of checks: the range, then each end.
    if let Some(end) = end
        && start > end
    {
        return Err(Error::Message(format!("invalid substring range. start: {start}, end: {end}").into()));
    }
    let end = end.unwrap_or(n);
    if start < 0 || start > n {
        return Err(Error::Message(format!("index out of range: {start}").into()));
    }
    if end > n {
        return Err(Error::Message(format!("index out of range: {end}").into()));
    }
    let byte_at = |i: i64| s.char_indices().nth(i as usize).map_or(s.len(), |(b, _)| b);
    let (from, to) = (byte_at(start), byte_at(end));
    Ok(match s {
        Cow::Borrowed(b) => Cow::Borrowed(&b[from..to]),
        Cow::Owned(o) => Cow::Owned(o[from..to].to_owned()),
    })
}

/// `s.lowerAscii()`.
pub fn lower_ascii(s: Cow<'_, str>) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase()) { Cow::Owned(s.to_ascii_lowercase()) } else { s }
}

/// `s.upperAscii()`.
pub fn upper_ascii(s: Cow<'_, str>) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_lowercase()) { Cow::Owned(s.to_ascii_uppercase()) } else { s }
}

/// `string(i)`.
pub fn int_to_string(i: i64) -> Cow<'static, str> {
    Cow::Owned(i.to_string())
}

/// `int(s)`: cel-go's `strconv.ParseInt(s, 10, 64)`.
pub fn string_to_int(s: &str) -> Result<i64> {
    s.parse::<i64>().map_err(|_| Error::Message("type conversion error from 'string' to 'int'".into()))
}

/// `duration(s)`: Go's `time.ParseDuration`, as nanoseconds.
pub fn string_to_duration(s: &str) -> Result<i64> {
    crate::go::duration::parse_go(s).ok_or(Error::Message(Cow::Borrowed(DURATION_CONVERSION)))
}

pub use crate::cel::library::duration::DURATION_CONVERSION;

/// `list[i]` of a list of `len` items.
#[inline]
pub fn index(i: i64, len: usize) -> Result<usize> {
    usize::try_from(i).ok().filter(|i| *i < len).ok_or(Error::IndexOutOfBounds(i))
}

/// `s.split(sep)` (the strings extension): every part; an empty separator splits between
/// code points.
pub fn split<'a>(s: Cow<'a, str>, sep: &str) -> Vec<Cow<'a, str>> {
    fn parts<'s>(s: &'s str, sep: &str) -> Vec<&'s str> {
        if sep.is_empty() {
            s.char_indices().map(|(i, c)| &s[i..i + c.len_utf8()]).collect()
        } else {
            s.split(sep).collect()
        }
    }
    match s {
        Cow::Borrowed(b) => parts(b, sep).into_iter().map(Cow::Borrowed).collect(),
        Cow::Owned(o) => parts(&o, sep).into_iter().map(|p| Cow::Owned(p.to_owned())).collect(),
    }
}

/// `s.trim()` (the strings extension): Unicode white space off both ends.
pub fn trim(s: Cow<'_, str>) -> Cow<'_, str> {
    match s {
        Cow::Borrowed(b) => Cow::Borrowed(b.trim()),
        Cow::Owned(o) => Cow::Owned(o.trim().to_owned()),
    }
}

/// `isIP(s)` (the Kubernetes IP library).
pub fn is_ip(s: &str) -> bool {
    crate::cel::library::net::parse_ip(s).is_ok()
}

/// `isURL(s)` (the Kubernetes URL library).
pub fn is_url(s: &str) -> bool {
    crate::go::url::parse_request_uri(s).is_ok()
}

/// `url(s)` (the Kubernetes URL library).
pub fn url(s: &str) -> Result<crate::go::url::Url> {
    crate::cel::library::url::parse(s).map_err(|e| Error::Message(Cow::Owned(e)))
}

/// `==` of two set lists: the same length, and every item of `b` in `a`.
pub fn set_equals<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && b.iter().all(|x| a.contains(x))
}

/// `==` of two map lists: the same length, and every item of `b` equal to `a`'s item of the
/// same key (the last of a repeated key, as the interpreter keys them). `hash` hashes an
/// item's key ([`key_hash`]), `same_key` compares two items' keys.
pub fn map_list_equals<T: PartialEq>(
    a: &[T],
    b: &[T],
    hash: impl Fn(&T) -> u64,
    same_key: impl Fn(&T, &T) -> bool,
) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut by_hash: std::collections::HashMap<u64, Vec<&T>> = std::collections::HashMap::with_capacity(a.len());
    for x in a {
        by_hash.entry(hash(x)).or_default().push(x);
    }
    b.iter().all(|x| {
        let mine = by_hash.get(&hash(x)).and_then(|candidates| candidates.iter().rev().find(|m| same_key(m, x)));
        mine.is_some_and(|m| *m == x)
    })
}

/// The hash of a map list item's key ([`map_list_equals`]).
pub fn key_hash<K: std::hash::Hash>(key: &K) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(key)
}
