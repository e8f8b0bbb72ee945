//! What rules compiled by the derive call (issue 36). Code generation compiles a rule knowing
//! every type of the module ([`super::native`]); the derive sees one type at a time, so the
//! code it writes leaves the types of what a rule reads to Rust's trait system:
//!
//! - a field is read by its CEL name through [`Field`], which the derive implements for each
//!   field of each type, keyed by [`field_key`] of its JSON name, which is the [`name_hash`] of
//!   the escaped name a rule writes (stable Rust has no `&str` const generics; two names of
//!   one type with one key are conflicting impls, a compile error);
//! - a value is turned into what the rule computes with by [`Read`]: strings as `Cow<str>`
//!   borrowed from the object, integers as `i64`, lists as slices, structs as references;
//! - each operation is a trait implemented for the operand types where CEL defines it the way
//!   this code computes it.
//!
//! Where an operation has no implementation for its operands (a field the type lacks, a
//! shape read here by no impl, an ill-typed rule), the call still compiles: each is called
//! by autoref specialization (the typed impl is on the wrapper, the fallback on a reference
//! to it, so method resolution prefers the typed one), and the fallback returns
//! [`Error::Deferred`]. A rule is compiled and type-checked at run time before its native code
//! first runs (an ill-typed one is reported, never run), and a deferred result runs the
//! interpreter instead ([`crate::cel::Cx::evaluate_typed`]), so a shape not covered here is
//! slower, never wrong. `Deferred` is never absorbed by `&&`, `||` or a loop.
//!
//! Everything is generic and `#[inline]`: after monomorphization a rule reads fields at fixed
//! offsets, as the code generator's functions do.
//!
//! Generated code calls this module: it is not a stable API, and changes with the derive and
//! code generator of the same release (ARCHITECTURE.md, Boundaries).

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::native::{self as n};
pub use super::native::{Error, Fold, LastError, Meter, Pattern, Result, add_int, and, not_strictly_false, or};

pub use crate::schema::cel_name::{field_key, name_hash};

/// Whether `key` is among `keys`: the derive's compile-time check of the fields a rule selects
/// on `self`.
pub const fn has_key(keys: &[u64], key: u64) -> bool {
    let mut i = 0;
    while i < keys.len() {
        if keys[i] == key {
            return true;
        }
        i += 1;
    }
    false
}

/// The field whose CEL name hashes to `NAME` ([`name_hash`]; derived for each field, keyed by
/// [`field_key`]).
pub trait Field<const NAME: u64> {
    /// The field's Rust type (inside its `Option`).
    type Value: ?Sized;
    /// The field's value, `None` where it is absent (or null).
    fn field(&self) -> Option<&Self::Value>;
}

/// A boxed value's fields (code generation boxes large structs).
impl<X: Field<NAME> + ?Sized, const NAME: u64> Field<NAME> for Box<X> {
    type Value = X::Value;
    #[inline(always)]
    fn field(&self) -> Option<&X::Value> {
        (**self).field()
    }
}

/// How a rule reads a value of this type: derived for structs (a reference) and enums of
/// values (the value), implemented here for scalars, strings, lists and maps.
pub trait Read {
    /// What rules compute with.
    type Out<'a>
    where
        Self: 'a;
    /// The value as rules compute with it.
    fn read(&self) -> Self::Out<'_>;
}

/// What the fallbacks give: a value no operation reads natively.
#[derive(Clone, Copy, Debug)]
pub struct Unreadable;

/// The fallback of every operation: run the interpreter.
#[cold]
#[inline(never)]
pub fn deferred<T>() -> Result<T> {
    Err(Error::Deferred)
}

macro_rules! read_as {
    ($($t:ty => $out:ty, |$v:ident| $e:expr;)*) => {$(
        impl Read for $t {
            type Out<'a> = $out;
            #[inline(always)]
            fn read(&self) -> $out {
                let $v = self;
                $e
            }
        }
    )*};
}

read_as! {
    i64 => i64, |v| *v;
    i32 => i64, |v| i64::from(*v);
    f64 => f64, |v| *v;
    bool => bool, |v| *v;
}

impl Read for String {
    type Out<'a> = Cow<'a, str>;
    #[inline(always)]
    fn read(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.as_str())
    }
}

/// An internally tagged enum's tag.
impl Read for str {
    type Out<'a> = Cow<'a, str>;
    #[inline(always)]
    fn read(&self) -> Cow<'_, str> {
        Cow::Borrowed(self)
    }
}

impl<T> Read for Vec<T> {
    type Out<'a>
        = &'a [T]
    where
        T: 'a;
    #[inline(always)]
    fn read(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> Read for BTreeMap<String, T> {
    type Out<'a>
        = &'a BTreeMap<String, T>
    where
        T: 'a;
    #[inline(always)]
    fn read(&self) -> &BTreeMap<String, T> {
        self
    }
}

impl<T: Read> Read for Box<T> {
    type Out<'a>
        = T::Out<'a>
    where
        T: 'a;
    #[inline(always)]
    fn read(&self) -> T::Out<'_> {
        (**self).read()
    }
}

/// `x.f` and `has(x.f)`: the field `NAME` (`f`, its hash) of the value `x` refers to, or
/// the key `f` of a map.
pub struct Select<X, const NAME: u64>(pub X, pub &'static str);

/// [`Select`] where the type has the field.
pub trait SelectTyped {
    /// A reference to the field's value.
    type Value;
    /// `x.f`: `no such key` where absent.
    fn get(self) -> Result<Self::Value>;
    /// `has(x.f)`.
    fn has(self) -> Result<bool>;
}

impl<'a, X: Field<NAME> + ?Sized, const NAME: u64> SelectTyped for Select<&'a X, NAME>
where
    X::Value: 'a,
{
    type Value = &'a X::Value;
    #[inline(always)]
    fn get(self) -> Result<&'a X::Value> {
        // The name as the rule writes it (`__namespace__` or `namespace`), as the apiserver's
        // error names it.
        self.0.field().ok_or_else(|| Error::no_such_key(self.1))
    }
    #[inline(always)]
    fn has(self) -> Result<bool> {
        Ok(self.0.field().is_some())
    }
}

/// [`Select`] where it has not.
pub trait SelectDeferred {
    /// Deferred.
    fn get(self) -> Result<&'static Unreadable>;
    /// Deferred.
    fn has(self) -> Result<bool>;
}

impl<'a, T, const NAME: u64> SelectTyped for Select<&'a BTreeMap<String, T>, NAME> {
    type Value = &'a T;
    #[inline(always)]
    fn get(self) -> Result<&'a T> {
        self.0.get(self.1).ok_or_else(|| Error::no_such_map_key(self.1))
    }
    #[inline(always)]
    fn has(self) -> Result<bool> {
        Ok(self.0.contains_key(self.1))
    }
}

impl<X, const NAME: u64> SelectDeferred for &Select<X, NAME> {
    #[inline(always)]
    fn get(self) -> Result<&'static Unreadable> {
        deferred()
    }
    #[inline(always)]
    fn has(self) -> Result<bool> {
        deferred()
    }
}

/// A value's [`Read`].
pub struct Reading<X>(pub X);

/// [`Reading`] of a type with [`Read`].
pub trait ReadTyped {
    /// What rules compute with.
    type Out;
    /// The value.
    fn read(self) -> Result<Self::Out>;
}

impl<'a, X: Read + ?Sized> ReadTyped for Reading<&'a X> {
    type Out = X::Out<'a>;
    #[inline(always)]
    fn read(self) -> Result<X::Out<'a>> {
        Ok(self.0.read())
    }
}

/// [`Reading`] of any other.
pub trait ReadDeferred {
    /// Deferred.
    fn read(self) -> Result<Unreadable>;
}

impl<X> ReadDeferred for &Reading<X> {
    #[inline(always)]
    fn read(self) -> Result<Unreadable> {
        deferred()
    }
}

/// The operands of a binary operation.
pub struct Pair<A, B>(pub A, pub B);

/// One operand of a unary operation.
pub struct One<A>(pub A);

/// Declares an operation: its typed trait (implemented below per operand types), the
/// deferring fallback on a reference to the operands (`One` or `Pair`), and the method both
/// name.
macro_rules! operation {
    ($wrapper:ident<$($g:ident),*>: $typed:ident, $fallback:ident, $method:ident ($($arg:ident: $argty:ty),*) -> $out:ty) => {
        #[doc = concat!("`", stringify!($method), "` where the operands have it.")]
        pub trait $typed {
            /// The result.
            type Out;
            #[doc = concat!("`", stringify!($method), "`.")]
            fn $method(self $(, $arg: $argty)*) -> Result<Self::Out>;
        }
        #[doc = concat!("`", stringify!($method), "` where they have not: deferred.")]
        pub trait $fallback {
            #[doc = concat!("`", stringify!($method), "`: deferred.")]
            fn $method(self $(, $arg: $argty)*) -> Result<$out>;
        }
        impl<$($g),*> $fallback for &$wrapper<$($g),*> {
            #[inline(always)]
            fn $method(self $(, $arg: $argty)*) -> Result<$out> {
                $(let _ = $arg;)*
                deferred()
            }
        }
    };
}

operation!(Pair<A, B>: EqTyped, EqDeferred, cel_eq() -> bool);
operation!(Pair<A, B>: OrdTyped, OrdDeferred, cel_cmp() -> std::cmp::Ordering);
operation!(Pair<A, B>: ArithTyped, ArithDeferred, cel_arith(op: Arith, m: &mut Meter) -> Unreadable);
operation!(Pair<A, B>: InTyped, InDeferred, cel_in() -> bool);
operation!(Pair<A, B>: StrTyped, StrDeferred, cel_str(op: StrOp) -> bool);
operation!(Pair<A, B>: PickTyped, PickDeferred, cel_pick() -> Unreadable);
operation!(Pair<A, B>: IndexTyped, IndexDeferred, cel_index() -> &'static Unreadable);
operation!(Pair<A, B>: MatchesTyped, MatchesDeferred, cel_matches(m: &mut Meter) -> bool);
operation!(One<A>: SizeTyped, SizeDeferred, cel_size() -> i64);
operation!(One<A>: NegTyped, NegDeferred, cel_neg() -> Unreadable);
operation!(One<A>: NotTyped, NotDeferred, cel_not() -> bool);
operation!(One<A>: BoolTyped, BoolDeferred, cel_bool() -> bool);
operation!(One<A>: StrMapTyped, StrMapDeferred, cel_str_map(op: StrMap) -> Unreadable);
operation!(One<A>: StrTestTyped, StrTestDeferred, cel_str_test(op: StrTest) -> bool);
operation!(One<A>: ToIntTyped, ToIntDeferred, cel_to_int() -> i64);
operation!(One<A>: ToDurationTyped, ToDurationDeferred, cel_to_duration() -> Duration);
operation!(One<A>: ToStringTyped, ToStringDeferred, cel_to_string() -> Unreadable);
operation!(Pair<A, B>: SplitTyped, SplitDeferred, cel_split() -> Unreadable);
operation!(Pair<A, B>: SubstringTyped, SubstringDeferred, cel_substring(end: Option<i64>) -> Unreadable);
operation!(Pair<A, B>: FindTyped, FindDeferred, cel_find(m: &mut Meter) -> Unreadable);
operation!(One<A>: IterTyped, IterDeferred, cel_iter() -> std::iter::Empty<&'static Unreadable>);

/// The arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
}

/// The string predicates of one string argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrOp {
    /// `startsWith`
    StartsWith,
    /// `endsWith`
    EndsWith,
    /// `contains`
    Contains,
}

/// The string functions from a string to a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrMap {
    /// `lowerAscii`
    LowerAscii,
    /// `upperAscii`
    UpperAscii,
    /// `trim`
    Trim,
}

/// The string tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrTest {
    /// `isURL`
    IsUrl,
    /// `isIP`
    IsIp,
}

/// A duration (`duration(s)`), in nanoseconds: its own type, so that no integer operation
/// takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Duration(pub i64);

/// Scalars CEL compares by value and orders, as Rust does.
macro_rules! scalar_ops {
    ($($t:ty),*) => {$(
        impl EqTyped for Pair<$t, $t> {
            type Out = bool;
            #[inline(always)]
            fn cel_eq(self) -> Result<bool> {
                Ok(self.0 == self.1)
            }
        }
    )*};
}
scalar_ops!(i64, u64, bool, f64, Duration);

impl<'a, 'b> EqTyped for Pair<Cow<'a, str>, Cow<'b, str>> {
    type Out = bool;
    #[inline(always)]
    fn cel_eq(self) -> Result<bool> {
        Ok(self.0 == self.1)
    }
}

macro_rules! ordered {
    ($($t:ty),*) => {$(
        impl OrdTyped for Pair<$t, $t> {
            type Out = std::cmp::Ordering;
            #[inline(always)]
            fn cel_cmp(self) -> Result<std::cmp::Ordering> {
                Ok(self.0.cmp(&self.1))
            }
        }
    )*};
}
ordered!(i64, u64, bool, Duration);

impl<'a, 'b> OrdTyped for Pair<Cow<'a, str>, Cow<'b, str>> {
    type Out = std::cmp::Ordering;
    #[inline(always)]
    fn cel_cmp(self) -> Result<std::cmp::Ordering> {
        Ok((*self.0).cmp(&*self.1))
    }
}

impl OrdTyped for Pair<f64, f64> {
    type Out = std::cmp::Ordering;
    #[inline(always)]
    fn cel_cmp(self) -> Result<std::cmp::Ordering> {
        // NaN is ordered with nothing: the interpreter says what a comparison with it gives.
        self.0.partial_cmp(&self.1).map_or_else(deferred, Ok)
    }
}

impl ArithTyped for Pair<i64, i64> {
    type Out = i64;
    #[inline(always)]
    fn cel_arith(self, op: Arith, _: &mut Meter) -> Result<i64> {
        let Pair(a, b) = self;
        match op {
            Arith::Add => n::add_int(a, b),
            Arith::Sub => n::sub_int(a, b),
            Arith::Mul => n::mul_int(a, b),
            Arith::Div => n::div_int(a, b),
            Arith::Rem => n::rem_int(a, b),
        }
    }
}

impl<'a> ArithTyped for Pair<Cow<'a, str>, Cow<'a, str>> {
    type Out = Cow<'a, str>;
    #[inline]
    fn cel_arith(self, op: Arith, m: &mut Meter) -> Result<Cow<'a, str>> {
        if op != Arith::Add {
            return deferred();
        }
        // `@sized`: the joined string's size, as the interpreter's meter charges it.
        let joined = n::concat(self.0, self.1);
        m.charge_size(n::size_str(&joined) as usize)?;
        Ok(joined)
    }
}

impl NegTyped for One<i64> {
    type Out = i64;
    #[inline(always)]
    fn cel_neg(self) -> Result<i64> {
        n::neg_int(self.0)
    }
}

impl NotTyped for One<bool> {
    type Out = bool;
    #[inline(always)]
    fn cel_not(self) -> Result<bool> {
        Ok(!self.0)
    }
}

impl BoolTyped for One<bool> {
    type Out = bool;
    #[inline(always)]
    fn cel_bool(self) -> Result<bool> {
        Ok(self.0)
    }
}

impl SizeTyped for One<Cow<'_, str>> {
    type Out = i64;
    #[inline(always)]
    fn cel_size(self) -> Result<i64> {
        Ok(n::size_str(&self.0))
    }
}

impl<T> SizeTyped for One<&[T]> {
    type Out = i64;
    #[inline(always)]
    fn cel_size(self) -> Result<i64> {
        Ok(n::size_len(self.0.len()))
    }
}

impl<T> SizeTyped for One<Vec<T>> {
    type Out = i64;
    #[inline(always)]
    fn cel_size(self) -> Result<i64> {
        Ok(n::size_len(self.0.len()))
    }
}

impl<T> SizeTyped for One<&BTreeMap<String, T>> {
    type Out = i64;
    #[inline(always)]
    fn cel_size(self) -> Result<i64> {
        Ok(n::size_len(self.0.len()))
    }
}

impl StrTyped for Pair<Cow<'_, str>, Cow<'_, str>> {
    type Out = bool;
    #[inline(always)]
    fn cel_str(self, op: StrOp) -> Result<bool> {
        let Pair(s, x) = self;
        Ok(match op {
            StrOp::StartsWith => s.starts_with(&*x),
            StrOp::EndsWith => s.ends_with(&*x),
            StrOp::Contains => s.contains(&*x),
        })
    }
}

impl MatchesTyped for Pair<Cow<'_, str>, &Pattern> {
    type Out = bool;
    #[inline(always)]
    fn cel_matches(self, m: &mut Meter) -> Result<bool> {
        n::matches(m, &self.0, self.1)
    }
}

/// `s in list` of strings, `k in map`.
impl InTyped for Pair<Cow<'_, str>, &[String]> {
    type Out = bool;
    #[inline(always)]
    fn cel_in(self) -> Result<bool> {
        Ok(self.1.iter().any(|s| *s == *self.0))
    }
}

impl InTyped for Pair<i64, &[i64]> {
    type Out = bool;
    #[inline(always)]
    fn cel_in(self) -> Result<bool> {
        Ok(self.1.contains(&self.0))
    }
}

impl<T> InTyped for Pair<Cow<'_, str>, &BTreeMap<String, T>> {
    type Out = bool;
    #[inline(always)]
    fn cel_in(self) -> Result<bool> {
        Ok(self.1.contains_key(&*self.0))
    }
}

/// `list[i]`: a reference to the item.
impl<'a, T> IndexTyped for Pair<&'a [T], i64> {
    type Out = &'a T;
    #[inline(always)]
    fn cel_index(self) -> Result<&'a T> {
        let Pair(list, i) = self;
        Ok(&list[n::index(i, list.len())?])
    }
}

/// `map[k]`.
impl<'a, T> IndexTyped for Pair<&'a BTreeMap<String, T>, Cow<'_, str>> {
    type Out = &'a T;
    #[inline(always)]
    fn cel_index(self) -> Result<&'a T> {
        let Pair(map, k) = self;
        map.get(&*k).ok_or_else(|| Error::no_such_map_key(&k))
    }
}

/// A loop over a list: its items.
impl<'a, T> IterTyped for One<&'a [T]> {
    type Out = std::slice::Iter<'a, T>;
    #[inline(always)]
    fn cel_iter(self) -> Result<std::slice::Iter<'a, T>> {
        Ok(self.0.iter())
    }
}

/// A loop over a map: its keys.
impl<'a, T> IterTyped for One<&'a BTreeMap<String, T>> {
    type Out = std::collections::btree_map::Keys<'a, String, T>;
    #[inline(always)]
    fn cel_iter(self) -> Result<std::collections::btree_map::Keys<'a, String, T>> {
        Ok(self.0.keys())
    }
}

/// A loop over what `filter` kept.
impl<'a, T> IterTyped for One<&'a Vec<&'a T>> {
    type Out = std::iter::Copied<std::slice::Iter<'a, &'a T>>;
    #[inline(always)]
    fn cel_iter(self) -> Result<Self::Out> {
        Ok(self.0.iter().copied())
    }
}

/// `c ? a : b`, the branch taken: each was evaluated (or not) in a statement of its own, so
/// that branches of two Rust types compile; of one type, the value.
impl<T> PickTyped for Pair<Option<Result<T>>, Option<Result<T>>> {
    type Out = T;
    #[inline(always)]
    fn cel_pick(self) -> Result<T> {
        match self {
            Pair(Some(a), _) => a,
            Pair(None, Some(b)) => b,
            Pair(None, None) => deferred(),
        }
    }
}

impl<'a> StrMapTyped for One<Cow<'a, str>> {
    type Out = Cow<'a, str>;
    #[inline]
    fn cel_str_map(self, op: StrMap) -> Result<Cow<'a, str>> {
        Ok(match op {
            StrMap::LowerAscii => n::lower_ascii(self.0),
            StrMap::UpperAscii => n::upper_ascii(self.0),
            StrMap::Trim => n::trim(self.0),
        })
    }
}

impl StrTestTyped for One<Cow<'_, str>> {
    type Out = bool;
    #[inline]
    fn cel_str_test(self, op: StrTest) -> Result<bool> {
        Ok(match op {
            StrTest::IsUrl => n::is_url(&self.0),
            StrTest::IsIp => n::is_ip(&self.0),
        })
    }
}

/// `int(s)`, `int(i)`.
impl ToIntTyped for One<Cow<'_, str>> {
    type Out = i64;
    #[inline]
    fn cel_to_int(self) -> Result<i64> {
        n::string_to_int(&self.0)
    }
}

impl ToIntTyped for One<i64> {
    type Out = i64;
    #[inline(always)]
    fn cel_to_int(self) -> Result<i64> {
        Ok(self.0)
    }
}

/// `string(i)`, `string(s)`.
impl ToStringTyped for One<i64> {
    type Out = Cow<'static, str>;
    #[inline]
    fn cel_to_string(self) -> Result<Cow<'static, str>> {
        Ok(n::int_to_string(self.0))
    }
}

impl<'a> ToStringTyped for One<Cow<'a, str>> {
    type Out = Cow<'a, str>;
    #[inline(always)]
    fn cel_to_string(self) -> Result<Cow<'a, str>> {
        Ok(self.0)
    }
}

/// `s.split(sep)`.
impl<'a> SplitTyped for Pair<Cow<'a, str>, Cow<'_, str>> {
    type Out = Vec<Cow<'a, str>>;
    #[inline]
    fn cel_split(self) -> Result<Vec<Cow<'a, str>>> {
        Ok(n::split(self.0, &self.1))
    }
}

/// `s.substring(start[, end])`.
impl<'a> SubstringTyped for Pair<Cow<'a, str>, i64> {
    type Out = Cow<'a, str>;
    #[inline]
    fn cel_substring(self, end: Option<i64>) -> Result<Cow<'a, str>> {
        n::substring(self.0, self.1, end)
    }
}

/// `s.find(re)`.
impl<'a> FindTyped for Pair<Cow<'a, str>, &Pattern> {
    type Out = Cow<'a, str>;
    #[inline]
    fn cel_find(self, m: &mut Meter) -> Result<Cow<'a, str>> {
        n::find(m, self.0, self.1)
    }
}

/// `duration(s)`.
impl ToDurationTyped for One<Cow<'_, str>> {
    type Out = Duration;
    #[inline]
    fn cel_to_duration(self) -> Result<Duration> {
        n::string_to_duration(&self.0).map(Duration)
    }
}
