//! How CEL calls run as Rust: the forms both native compilers write, and which call shapes
//! have one. The code generator's emitter (`kubeskema-codegen`, over the type-checked,
//! lowered tree) and the derive's compiler (`kubeskema-derive`, over the rule as parsed, with
//! no types) both match on [`NativeForm`] without a catch-all, so a new form does not compile
//! until each of them writes it or says why it stays interpreted.
//!
//! The runtime's function table gives every overload its form (or the reason it is
//! interpreted); [`CALLS`] is that table's view by call shape, the one the derive reads since
//! it cannot depend on the runtime. A runtime test holds the two equal, so a row added with a
//! native form is compiled by both, and a row added as interpreted is interpreted by both.

/// How generated code runs an overload natively, or why it stays interpreted. The emitters
/// fall back to the interpreter for a whole rule when a form does not fit the operands' Rust
/// types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NativeForm {
    /// `@charge(k, e)`: the meter charged, then `e`.
    Charge,
    /// `@sized(e)`: `e`, its size charged.
    Sized,
    /// `@charge_sized(k, e)`: both.
    ChargeSized,
    /// `@int_data(x)`: the read checked against where the document wrote a float.
    IntData,
    /// `@int_present(x)`, after `has(x) &&`: the same check.
    IntPresent,
    /// `&&`: Rust's where the left cannot fail, else the runtime's `and`.
    And,
    /// `||`, likewise.
    Or,
    /// A comprehension's loop condition: errors read as true.
    NotStrictlyFalse,
    /// `!`.
    Not,
    /// `-x`: checked for integers.
    Negate,
    /// `c ? a : b`: Rust's `if`.
    Conditional,
    /// `==`: `PartialEq` where it is CEL's equality.
    Equal,
    /// `!=`.
    NotEqual,
    /// A comparison, as this Rust operator.
    Ordering(&'static str),
    /// `+`: of integers (checked) and strings.
    Add,
    /// Integer arithmetic through this checked helper of the runtime's.
    Arithmetic(&'static str),
    /// `==` of a value whose type holds set or map lists (the lowering's `list_kinds`):
    /// natively where it is a set of scalars, or a map list of items that compare plainly.
    SchemaEquals,
    /// `!=` of such a value (true where `==` fails), natively where `==` is.
    SchemaNotEquals,
    /// `list[i]`, `map[k]`.
    Index,
    /// `x in list`, `k in map`.
    In,
    /// `size(x)`, `x.size()`.
    Size,
    /// A `str` method of one string argument (`starts_with`).
    StrPredicate(&'static str),
    /// `s.matches(re)`: the pattern compiled once.
    Matches,
    /// `s.find(re)`.
    Find,
    /// `s.split(sep)`.
    Split,
    /// A helper from a string to a bool (`is_ip`).
    StrTest(&'static str),
    /// A helper from a string to a string (`trim`).
    StrMap(&'static str),
    /// `s.substring(i[, j])`.
    Substring,
    /// `url(s)`: Go's `url.ParseRequestURI`.
    Url,
    /// A field of a parsed URL.
    UrlPart(&'static str),
    /// `int(x)` of an int, a string or a duration.
    ToInt,
    /// `string(x)` of a string or an int.
    ToString,
    /// `duration(x)` of a string, an int or a duration.
    ToDuration,
    /// `optional.hasValue()`.
    HasValue,
    /// `optional.value()`.
    Value,
    /// Not compiled to Rust, and why.
    Interpreted(&'static str),
}

/// A call shape with a native form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    /// The function's name as a rule writes it (the lowering's own functions as the lowering
    /// writes them).
    pub name: &'static str,
    /// Whether it is called as a member (`s.size()`).
    pub member: bool,
    /// Its arguments besides the target.
    pub arity: usize,
    /// How it runs natively.
    pub form: NativeForm,
}

const fn call(name: &'static str, member: bool, arity: usize, form: NativeForm) -> Call {
    Call { name, member, arity, form }
}

use NativeForm as F;

/// Every call shape some overload of which runs natively, with its form: the runtime's
/// function table by shape (a runtime test holds them equal).
pub const CALLS: &[Call] = &[
    call("_?_:_", false, 3, F::Conditional),
    call("_&&_", false, 2, F::And),
    call("_||_", false, 2, F::Or),
    call("!_", false, 1, F::Not),
    call("@not_strictly_false", false, 1, F::NotStrictlyFalse),
    call("-_", false, 1, F::Negate),
    call("_==_", false, 2, F::Equal),
    call("_!=_", false, 2, F::NotEqual),
    call("_+_", false, 2, F::Add),
    call("_-_", false, 2, F::Arithmetic("sub_int")),
    call("_*_", false, 2, F::Arithmetic("mul_int")),
    call("_/_", false, 2, F::Arithmetic("div_int")),
    call("_%_", false, 2, F::Arithmetic("rem_int")),
    call("_[_]", false, 2, F::Index),
    call("@in", false, 2, F::In),
    call("size", false, 1, F::Size),
    call("size", true, 0, F::Size),
    call("int", false, 1, F::ToInt),
    call("string", false, 1, F::ToString),
    call("contains", true, 1, F::StrPredicate("contains")),
    call("startsWith", true, 1, F::StrPredicate("starts_with")),
    call("endsWith", true, 1, F::StrPredicate("ends_with")),
    call("_<_", false, 2, F::Ordering("<")),
    call("_<=_", false, 2, F::Ordering("<=")),
    call("_>_", false, 2, F::Ordering(">")),
    call("_>=_", false, 2, F::Ordering(">=")),
    call("value", true, 0, F::Value),
    call("hasValue", true, 0, F::HasValue),
    call("lowerAscii", true, 0, F::StrMap("lower_ascii")),
    call("upperAscii", true, 0, F::StrMap("upper_ascii")),
    call("split", true, 1, F::Split),
    call("substring", true, 1, F::Substring),
    call("substring", true, 2, F::Substring),
    call("trim", true, 0, F::StrMap("trim")),
    call("matches", false, 2, F::Matches),
    call("matches", true, 1, F::Matches),
    call("find", true, 1, F::Find),
    call("url", false, 1, F::Url),
    call("isURL", false, 1, F::StrTest("is_url")),
    call("getScheme", true, 0, F::UrlPart("scheme")),
    call("getHost", true, 0, F::UrlPart("host")),
    call("isIP", false, 1, F::StrTest("is_ip")),
    call("duration", false, 1, F::ToDuration),
    call("@schema_equals", false, 3, F::SchemaEquals),
    call("@schema_not_equals", false, 3, F::SchemaNotEquals),
    call("@int_data", false, 1, F::IntData),
    call("@int_present", false, 1, F::IntPresent),
    call("@charge", false, 2, F::Charge),
    call("@sized", false, 1, F::Sized),
    call("@charge_sized", false, 2, F::ChargeSized),
];

/// The native form of a call of `name` (a member call when `member`) with `arity` arguments
/// besides the target, or `None` when every overload of it is interpreted.
pub fn form_of(name: &str, member: bool, arity: usize) -> Option<NativeForm> {
    CALLS.iter().find(|c| c.name == name && c.member == member && c.arity == arity).map(|c| c.form)
}
