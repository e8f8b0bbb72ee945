//! The validating deserializer: JSON read once into a typed value, with every problem recorded
//! as an [`Issue`] instead of ending the read. A wrongly typed field is an issue and the rest
//! of the document is still read and checked; duplicate keys, unknown fields, nulls and
//! defaults are handled as [`Options`] say (the apiserver's decoding step, semantics §0.1,
//! §2, §5 and §11); then the typed value validates itself ([`Validate`]).
//!
//! ```
//! use kubeskema::decode::{from_slice, Options};
//!
//! #[derive(kubeskema::Deserialize, kubeskema::Validate, Debug)]
//! struct Spec {
//!     #[kubeskema(maximum = 10)]
//!     replicas: Option<i64>,
//!     image: String,
//! }
//!
//! let read = from_slice::<Spec>(br#"{"replicas": "three", "extra": 1}"#, &Options::strict());
//! let messages: Vec<String> = read.issues.iter().map(|i| i.to_string()).collect();
//! assert_eq!(messages, [
//!     r#"replicas: Invalid value: "string": replicas in body must be of type integer: "string""#,
//!     r#"strict decoding error: unknown field "extra""#,
//!     "image: Required value",
//! ]);
//! assert!(read.value.is_none()); // `image` is required: no usable value
//! ```
//!
//! Derived code implements [`Decode`] (through `#[derive(kubeskema::Deserialize)]`); the
//! runtime implements it for the leaf and container types generated code uses. A field whose
//! value is unusable (wrong type) reads as absent when the field is an `Option`, so its parent
//! still validates; otherwise the parent is unusable too, up to the nearest `Option`.
//!
//! Places are tracked as a borrowed chain on the stack ([`At`]) and turned into a [`Path`]
//! only when an issue is made: reading a valid document allocates nothing for paths.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize as _;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::check::keywords::{self, Num, NumberType};
use crate::report::issue::{BadValue, ErrorType, Issue, PathForm};
pub use crate::report::path::At;

mod union;
use crate::report::path::Path;
use crate::typed::Validate;
use crate::types::empty_object::EmptyObject;
use crate::types::int_or_string::IntOrString;
use crate::types::meta::ObjectMeta;
#[doc(hidden)]
pub use union::{ReadVariant, VariantName, decode_union, payload};

/// What to do with a key that appears twice in one JSON object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DuplicateKeys {
    /// Report `duplicate field "spec.a"` and keep the last value (the apiserver's strict and
    /// warn modes).
    #[default]
    Error,
    /// Keep the first value silently.
    FirstWins,
    /// Keep the last value silently (the apiserver's `fieldValidation=Ignore`).
    LastWins,
}

/// What to do with a key the schema does not name (where no
/// `x-kubernetes-preserve-unknown-fields` keeps it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnknownFields {
    /// Drop it silently, as the apiserver's pruning does.
    #[default]
    Prune,
    /// Report `unknown field "spec.x"` (the apiserver's `fieldValidation=Strict`) and drop it.
    Strict,
    /// Keep it beside the typed value, in [`Decoded::unknown`], so no data is lost.
    Preserve,
}

/// What to do with schema defaults of absent (or non-nullable `null`) fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Defaults {
    /// Write them into the value, as the apiserver does.
    #[default]
    Apply,
    /// Write them, and record each in [`Decoded::presence`] as [`Presence::Defaulted`].
    Annotate,
    /// Leave optional fields empty. A field whose Rust type needs a value (a defaulted
    /// non-`Option` field) still gets its default, recorded as [`Presence::Defaulted`].
    Ignore,
}

/// How [`from_slice`] and [`from_value`] read a document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Keys that appear twice in one object.
    pub duplicate_keys: DuplicateKeys,
    /// Keys the schema does not name.
    pub unknown_fields: UnknownFields,
    /// Schema defaults.
    pub defaults: Defaults,
    /// Record every declared field that was absent or `null` in [`Decoded::presence`]
    /// (defaults applied are recorded whenever this is on or defaults are annotated).
    pub presence: bool,
}

impl Options {
    /// The apiserver's `fieldValidation=Strict`: duplicate keys and unknown fields reported.
    pub fn strict() -> Options {
        Options { unknown_fields: UnknownFields::Strict, ..Options::default() }
    }
}

/// How a declared field appeared in the document, when it was not simply given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Presence {
    /// Given with a value.
    Given,
    /// Not in the document.
    Missing,
    /// Given as `null`.
    Null,
    /// Absent or `null`, and filled with the schema default (its JSON text).
    Defaulted(String),
}

/// The result of a validating read.
#[derive(Debug)]
pub struct Decoded<T> {
    /// The typed value, when the document had one: `None` when the document is not JSON or a
    /// value that the type needs was missing or of the wrong type (each is in `issues`).
    pub value: Option<T>,
    /// Every problem: decoding issues (types, duplicates, unknown fields, required fields)
    /// first, then the value's validation issues in the apiserver's order.
    pub issues: Vec<Issue>,
    /// Under [`UnknownFields::Preserve`], the keys no field of the type holds, with their values.
    pub unknown: Vec<(Path, Value)>,
    /// Declared fields that were absent, `null` or defaulted, by JSON pointer (see [`Options::presence`]).
    pub presence: BTreeMap<String, Presence>,
    /// Integer fields the document wrote as whole floats (`1.0`), by JSON pointer. The value
    /// holds the integer; the apiserver's CEL rules see the float, and a rule that reads it
    /// fails (`invalid data, expected int, got float64`). The read's own validation reports
    /// that; to validate the value again as the apiserver would (an update), validate it
    /// inside `kubeskema::cel::with_written_as_float` with these places.
    pub written_as_float: Vec<String>,
}

impl<T> Decoded<T> {
    /// Nothing read yet: the place a read writes its value into, and then its findings.
    fn unread() -> Decoded<T> {
        Decoded {
            value: None,
            issues: Vec::new(),
            unknown: Vec::new(),
            presence: BTreeMap::new(),
            written_as_float: Vec::new(),
        }
    }

    /// How the field at `pointer` appeared: recorded absence, `null` or default, absence of
    /// a parent, or else [`Presence::Given`].
    pub fn presence_of(&self, pointer: &str) -> Presence {
        if let Some(p) = self.presence.get(pointer) {
            return p.clone();
        }
        let mut prefix = pointer;
        while let Some(cut) = prefix.rfind('/') {
            prefix = &prefix[..cut];
            match self.presence.get(prefix) {
                Some(Presence::Missing | Presence::Null) => return Presence::Missing,
                Some(_) => break,
                None => {}
            }
        }
        Presence::Given
    }
}

/// Reads JSON text into `T`, recording every problem, then validates the value (on create).
/// Bytes that are not UTF-8 are not JSON text: one [`ErrorType::Malformed`] issue, no value.
pub fn from_slice<T: Decode + Validate>(bytes: &[u8], options: &Options) -> Decoded<T> {
    let mut cx = Cx::new(options);
    // Read where the result keeps it: a resource's value can be kilobytes.
    let mut decoded = Decoded::unread();
    // The text's UTF-8 is checked once, up front, and the read then sees text. Checking each
    // string as it is read (what `Deserializer::from_slice` does) was 4% of reading a small
    // Workflow; with one pass over the whole text, that read is 7% faster.
    let read = match std::str::from_utf8(bytes) {
        Ok(text) => {
            let mut de = serde_json::Deserializer::from_str(text);
            T::decode_into(&mut de, &mut cx, &At::ROOT, &mut decoded.value).and_then(|()| de.end())
        }
        Err(e) => Err(not_utf8(bytes, e)),
    };
    finish(&mut decoded, read, cx);
    decoded
}

/// Why `bytes`, which are not UTF-8, are not JSON (RFC 8259 §8.1): the parser's own error at
/// its line and column, the bad bytes being an invalid code point in a string or a syntax error
/// outside one. Not read as `T`: a second reader type would compile every `Decode` twice.
fn not_utf8(bytes: &[u8], e: std::str::Utf8Error) -> serde_json::Error {
    match serde_json::from_slice::<Value>(bytes) {
        Err(parsed) => parsed,
        // Not reached: every string of a `Value` is checked.
        Ok(_) => de::Error::custom(format_args!("invalid UTF-8 after byte {}", e.valid_up_to())),
    }
}

/// Reads a parsed document (for example one from [`crate::yaml`]) into `T`, as [`from_slice`].
pub fn from_value<T: Decode + Validate>(value: &Value, options: &Options) -> Decoded<T> {
    let mut cx = Cx::new(options);
    let mut decoded = Decoded::unread();
    let read = T::decode_into(value, &mut cx, &At::ROOT, &mut decoded.value);
    finish(&mut decoded, read, cx);
    decoded
}

/// Validates what was read into `decoded.value`, and moves the read's findings into `decoded`.
fn finish<T: Validate>(decoded: &mut Decoded<T>, read: Result<(), serde_json::Error>, mut cx: Cx<'_>) {
    if let Err(e) = read {
        let issue = Issue::new(ErrorType::Malformed, &Path::root(), "json", BadValue::Omit, e.to_string());
        cx.issues.push(issue.in_form(PathForm::Detached));
        decoded.value = None;
    }
    // The schema's answers for enums the type could not hold as written stand for what the
    // typed value would say there (union.rs).
    let answers = std::mem::take(&mut cx.answers);
    let covered = |i: &Issue| answers.iter().any(|a| a.covers(i));
    if let Some(v) = &decoded.value {
        // A place that could not be read reads as absent; what its ancestors' checks say
        // about their contents (property counts, junctors over their JSON) is then not about
        // the document, so those issues are dropped: issues at an ancestor, and `required`
        // issues beside it (derived validation reports `required` only from junctor branches,
        // which the object holding the unread place evaluates).
        let mut unread: Vec<String> =
            cx.issues.iter().filter(|i| i.error_type != ErrorType::Strict).map(|i| i.path.pointer()).collect();
        unread.append(&mut cx.unread);
        unread.extend(answers.iter().filter(|a| !a.held).map(|a| a.path.pointer()));
        let under = |p: &str, prefix: &str| {
            p.len() > prefix.len() && p.starts_with(prefix) && p.as_bytes()[prefix.len()] == b'/'
        };
        let about_unread = |i: &Issue| {
            if unread.is_empty() {
                return false;
            }
            let at = i.path.pointer();
            unread.iter().any(|u| {
                let holder = &u[..u.rfind('/').unwrap_or(0)];
                under(u, &at) || (i.keyword == "required" && under(&at, holder))
            })
        };
        let answered = crate::typed::Answered {
            covers: &covered,
            values: answers.iter().flat_map(|a| a.values.iter().cloned()).collect(),
            cel: answers.iter().flat_map(|a| a.cel.iter().cloned()).collect(),
        };
        #[cfg(feature = "cel")]
        let validated = crate::cel::lowering::int_data::with_written_as_float(cx.written_as_float.clone(), || {
            crate::typed::validate_read(v, answered)
        });
        #[cfg(not(feature = "cel"))]
        let validated = crate::typed::validate_read(v, answered);
        // What the answers say is about the document as written, never about an unread place.
        cx.issues.extend(validated.into_iter().filter(|i| covered(i) || !about_unread(i)));
    } else {
        // No value to validate: the answers' value validations are what can be said.
        cx.issues.extend(answers.iter().flat_map(|a| a.values.iter().cloned()));
    }
    if cx.issues.iter().any(|i| i.error_type.blocks_cel()) {
        crate::typed::gate_cel(T::schema_has_rules(), &mut cx.issues);
    }
    (decoded.issues, decoded.unknown, decoded.presence, decoded.written_as_float) =
        (cx.issues, cx.unknown, cx.presence, cx.written_as_float);
}

/// The state of one read: the options and what has been found.
pub struct Cx<'o> {
    options: &'o Options,
    /// Stop at the first issue, as an error (plain `Deserialize`).
    fail_fast: bool,
    /// The `format` of the field being read, for the apiserver's format-named type errors.
    format: Option<&'static str>,
    /// Pointers of `Option` fields left empty because their value could not be read.
    unread: Vec<String>,
    issues: Vec<Issue>,
    unknown: Vec<(Path, Value)>,
    presence: BTreeMap<String, Presence>,
    /// Pointers of integers read from whole floats.
    written_as_float: Vec<String>,
    /// The data-carrying enums being read, innermost last.
    union_frames: Vec<union::Frame>,
    /// The schema's answers for enums the type could not hold as written.
    answers: Vec<union::Answer>,
}

impl<'o> Cx<'o> {
    fn new(options: &'o Options) -> Self {
        Cx {
            options,
            fail_fast: false,
            format: None,
            unread: Vec::new(),
            issues: Vec::new(),
            unknown: Vec::new(),
            presence: BTreeMap::new(),
            written_as_float: Vec::new(),
            union_frames: Vec::new(),
            answers: Vec::new(),
        }
    }

    /// A key no field names, under the unknown-fields option.
    #[cfg(feature = "kube")]
    pub(crate) fn unknown_key(&mut self, at: &At<'_>, key: &str, value: Value) {
        unknown_key(self, at, key, value);
    }

    /// Issues found by a reader of its own (a type standing for a known schema).
    #[cfg(feature = "kube")]
    pub(crate) fn extend_issues(&mut self, issues: impl IntoIterator<Item = Issue>) {
        self.issues.extend(issues);
    }

    fn strict(&mut self, at: &At<'_>, what: &str) {
        self.issues.push(strict_issue(at.to_path(), what));
    }

    fn type_mismatch(&mut self, at: &At<'_>, actual: &str, expected: &str) {
        let issue = if at.is_root() {
            // The apiserver cannot even find the kind of a body that is not an object (400).
            let detail = format!("the document is of type {actual}, not {expected}");
            Issue::new(ErrorType::Malformed, &Path::root(), "decode", BadValue::Omit, detail)
                .in_form(PathForm::Detached)
        } else {
            let path = at.to_path();
            self.format_named(&path, &representative(actual), expected)
                .unwrap_or_else(|| keywords::type_mismatch(&path, actual, expected))
        };
        self.issues.push(issue);
    }

    /// \[quirk\] The type error of a field with a format names the format (and a Go kind), as
    /// the apiserver's type check does; `None` without a format or where it has no say.
    fn format_named(&self, path: &Path, value: &Value, expected: &str) -> Option<Issue> {
        // Enum values have no schema type to name.
        let format = self.format.filter(|_| !expected.contains(' '))?;
        let types: Vec<&str> = expected.split(',').collect();
        keywords::type_check(path, value, &types, Some(format), false)
    }

    /// A key seen again at `at`: reports it when duplicates are errors; whether the new value
    /// replaces the first.
    fn take_duplicate(&mut self, at: &At<'_>) -> bool {
        match self.options.duplicate_keys {
            DuplicateKeys::Error => {
                self.strict(at, "duplicate");
                true
            }
            DuplicateKeys::LastWins => true,
            DuplicateKeys::FirstWins => false,
        }
    }

    fn record(&mut self, at: &At<'_>, presence: Presence) {
        self.presence.insert(at.to_path().pointer(), presence);
    }

    /// Under plain `Deserialize`, the first issue as the read's error, raised where the read
    /// is (so a deserializer that tracks positions gives the issue's line and column).
    #[inline]
    fn stop<E: de::Error>(&self) -> Result<(), E> {
        match self.fail_fast.then(|| self.issues.first()).flatten() {
            // A value read alone (an enum) has no path to name.
            Some(issue) if issue.path.is_root() => Err(E::custom(issue.body())),
            Some(issue) => Err(E::custom(issue)),
            None => Ok(()),
        }
    }
}

/// `Deserialize` of derived structs: the validating read with the default [`Options`] (the
/// apiserver's decoding), stopping at the first problem with the apiserver's words for it.
/// One reader for both: what plain `Deserialize` accepts is what the validating read reads
/// without a decoding issue.
#[doc(hidden)]
pub fn deserialize_struct<'de, D: Deserializer<'de>, T: DecodeFields>(d: D) -> Result<T, D::Error> {
    deserialize_value(d, |d, cx, out| decode_struct(d, cx, &At::ROOT, Slot::Option(out)))
}

/// `Deserialize` of derived enums, as [`deserialize_struct`] for structs: their `Decode`, so
/// plain and validating reads accept the same values and refuse the rest in the same words.
#[doc(hidden)]
pub fn deserialize_enum<'de, D: Deserializer<'de>, T: Decode>(d: D) -> Result<T, D::Error> {
    deserialize_value(d, |d, cx, out| T::decode_into(d, cx, &At::ROOT, out))
}

/// Runs `read` with the default [`Options`], stopping at the first issue as an error.
#[inline]
fn deserialize_value<'de, D: Deserializer<'de>, T>(
    d: D,
    read: impl FnOnce(D, &mut Cx<'_>, &mut Option<T>) -> Result<(), D::Error>,
) -> Result<T, D::Error> {
    let options = Options::default();
    let mut cx = Cx::new(&options);
    cx.fail_fast = true;
    let mut out = None;
    read(d, &mut cx, &mut out)?;
    cx.stop()?;
    // Invariant: an unusable value has an issue saying why, and the read stopped at it.
    out.ok_or_else(|| de::Error::custom("the value could not be read"))
}

/// A value of a JSON kind, standing in for the value the type check saw.
fn representative(kind: &str) -> Value {
    match kind {
        "boolean" => Value::Bool(false),
        "integer" => 0.into(),
        "number" => 0.5.into(),
        "string" => Value::String(String::new()),
        "array" => Value::Array(Vec::new()),
        "object" => Value::Object(Map::new()),
        _ => Value::Null,
    }
}

/// `unknown field "spec.x"` / `duplicate field "spec.a"` (`what`: `unknown` or `duplicate`):
/// the path dotted, `[i]` for indexes. The one wording of strict decoding warnings.
pub fn strict_issue(path: Path, what: &str) -> Issue {
    let detail = format!("{what} field {}", crate::report::issue::go_quote(&path.openapi()));
    Issue::new(ErrorType::Strict, &path, "decode", BadValue::Omit, detail).in_form(PathForm::Detached)
}

/// The strict error of a mapping key repeated at a JSON pointer (from a loader that found it).
/// Numeric tokens before the last are taken as list indexes.
pub fn duplicate_issue(pointer: &str) -> Issue {
    let mut path = Path::root();
    let tokens: Vec<String> =
        pointer.split('/').skip(1).map(|t| crate::report::path::unescape_token(t).into_owned()).collect();
    for (n, token) in tokens.iter().enumerate() {
        path = match token.parse::<usize>() {
            Ok(i) if n + 1 < tokens.len() => path.index(i),
            _ => path.key(token),
        };
    }
    strict_issue(path, "duplicate")
}

/// A type that reads itself from any serde [`Deserializer`], recording problems in `cx`.
/// `Ok(None)`: the value is unusable and an issue says why. `Err`: the input itself is broken
/// (not JSON), and reading stops.
///
/// Implement one of the first two methods: leaves return their value ([`Decode::decode`]);
/// structs write theirs into the caller's place ([`Decode::decode_to`]: an `Option`, a box,
/// the end of a list), so a large struct is built where it is kept instead of being moved
/// through every layer of the read on its way up.
pub trait Decode: Sized {
    /// Reads one value sitting at `at`.
    #[inline]
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        let mut out = None;
        Self::decode_to(d, cx, at, Slot::Option(&mut out))?;
        Ok(out)
    }

    /// Reads one value sitting at `at` into `slot`, which gets nothing when the value is
    /// unusable. (A struct is made in its slot before its fields are read: after an error,
    /// which ends the read, the slot may hold part of a value.)
    #[inline]
    fn decode_to<'de, D: Deserializer<'de>>(
        d: D,
        cx: &mut Cx<'_>,
        at: &At<'_>,
        mut slot: Slot<'_, Self>,
    ) -> Result<(), D::Error> {
        if let Some(value) = Self::decode(d, cx, at)? {
            slot.make(value);
        }
        Ok(())
    }

    /// [`Decode::decode_to`] into `out`, which is `None` when called.
    #[inline]
    fn decode_into<'de, D: Deserializer<'de>>(
        d: D,
        cx: &mut Cx<'_>,
        at: &At<'_>,
        out: &mut Option<Self>,
    ) -> Result<(), D::Error> {
        Self::decode_to(d, cx, at, Slot::Option(out))
    }

    /// What a map's `null` value is where this type is the map's values: nothing by default,
    /// the entry gone, as the apiserver's null pruning deletes a `null` whose schema is not
    /// nullable (semantics §5.1); a type that holds `null` keeps it (`Option`, and JSON values,
    /// whose maps are the unknown fields a schema keeps, where nulls are not pruned).
    #[inline]
    fn null_map_value() -> Option<Self> {
        None
    }
}

/// Where a value being read is kept: an `Option` (a field, a local, the result), a box, or a
/// new last item of a list. A struct is made there first and its fields are read in place,
/// so a large struct is never copied from the stack into a box or a list.
#[doc(hidden)]
pub enum Slot<'s, T> {
    /// An `Option`, `None` when the read starts.
    Option(&'s mut Option<T>),
    /// A boxed `Option`, `None` when the read starts.
    Boxed(&'s mut Option<Box<T>>),
    /// After the last item of a list.
    Push(&'s mut Vec<T>),
}

impl<T> Slot<'_, T> {
    /// Puts `value` in its place, and gives it back there.
    #[inline]
    pub fn make(&mut self, value: T) -> &mut T {
        self.make_with(|| value)
    }

    /// Puts the value `make` gives in its place, and gives it back there. The value is made
    /// once the place is known, so a struct literal can be written there directly, where a
    /// value passed in is made on the stack and copied (1.7 KB for an Argo template).
    #[inline(always)]
    pub fn make_with(&mut self, make: impl FnOnce() -> T) -> &mut T {
        match self {
            Slot::Option(out) => out.insert(make()),
            Slot::Boxed(out) => out.insert(Box::new(make())),
            Slot::Push(items) => {
                // Grown here, for an item that is there: before reading one, the list may
                // have ended.
                if items.len() == items.capacity() {
                    grow(items);
                }
                items.push(make());
                let last = items.len() - 1;
                &mut items[last]
            }
        }
    }

    /// Takes back the value made: it turned out unusable.
    #[inline]
    pub fn discard(&mut self) {
        match self {
            Slot::Option(out) => **out = None,
            Slot::Boxed(out) => **out = None,
            Slot::Push(items) => drop(items.pop()),
        }
    }
}

/// Makes room for one more item in a list being read. A list's first buffer is at most 1 KiB
/// (where the vector's own first step is four items of any size): most lists of large items
/// hold one or two, and the system allocator serves blocks above 1 KiB on a slower path.
/// Later buffers double, as the vector's own growth does.
#[inline]
fn grow<T>(items: &mut Vec<T>) {
    let first = (1024 / size_of::<T>().max(1)).clamp(1, 4);
    items.reserve_exact(items.capacity().max(first));
}

/// A [`DeserializeSeed`] carrying the read's state to a [`Decode`] type and the [`Slot`] its
/// value goes to.
pub struct Seed<'c, 'o, 'a, 'b, 's, T> {
    cx: &'c mut Cx<'o>,
    at: &'b At<'a>,
    slot: Slot<'s, T>,
}

impl<'de, T: Decode> DeserializeSeed<'de> for Seed<'_, '_, '_, '_, '_, T> {
    type Value = ();
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        T::decode_to(d, self.cx, self.at, self.slot)
    }
}

/// Visitor methods that take what a visitor does not want: a type error naming the JSON kind
/// given (as the apiserver's type errors name it) and the expected type; maps and lists are
/// drained so that reading goes on after them. Every visitor using it has `cx` and `at`.
macro_rules! refuse {
    ($expected:literal; $($kind:ident)*) => { $(refuse!(@$kind $expected);)* };
    (@bool $e:literal) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            self.cx.type_mismatch(self.at, "boolean", $e);
            Ok(Default::default())
        }
    };
    (@int $e:literal) => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            self.cx.type_mismatch(self.at, "integer", $e);
            Ok(Default::default())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            self.cx.type_mismatch(self.at, "integer", $e);
            Ok(Default::default())
        }
    };
    (@float $e:literal) => {
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            self.cx.type_mismatch(self.at, Scalar::Float(v).kind(), $e);
            Ok(Default::default())
        }
    };
    (@str $e:literal) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            self.cx.type_mismatch(self.at, "string", $e);
            Ok(Default::default())
        }
    };
    (@null $e:literal) => {
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            self.cx.type_mismatch(self.at, "null", $e);
            Ok(Default::default())
        }
    };
    (@seq $e:literal) => {
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            self.cx.type_mismatch(self.at, "array", $e);
            Ok(Default::default())
        }
    };
    (@map $e:literal) => {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            self.cx.type_mismatch(self.at, "object", $e);
            Ok(Default::default())
        }
    };
}

/// A scalar the visitor was given.
#[derive(Clone, Copy, Debug)]
pub enum Scalar<'s> {
    /// A boolean.
    Bool(bool),
    /// An integer within int64.
    Int(i64),
    /// An unsigned integer beyond int64.
    Uint(u64),
    /// A number with a fraction or exponent.
    Float(f64),
    /// A string.
    Str(&'s str),
}

impl<'s> Scalar<'s> {
    /// A whole float as the integer it is (`3.0` → `3`), as enum values compare.
    pub fn whole_as_int(self) -> Scalar<'s> {
        match self {
            Scalar::Float(f) => crate::types::int_or_string::whole_f64_to_i64(f).map_or(self, Scalar::Int),
            other => other,
        }
    }

    fn kind(self) -> &'static str {
        match self {
            Scalar::Bool(_) => "boolean",
            Scalar::Int(_) | Scalar::Uint(_) => "integer",
            // A whole float passes the apiserver's integer type check.
            Scalar::Float(f) if keywords::is_json_integer(f) => "integer",
            Scalar::Float(_) => "number",
            Scalar::Str(_) => "string",
        }
    }

    fn to_value(self) -> Value {
        match self {
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Int(i) => i.into(),
            Scalar::Uint(u) => u.into(),
            Scalar::Float(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
            Scalar::Str(s) => Value::String(s.to_owned()),
        }
    }
}

/// Reads a scalar and turns it into `T` with `convert`; what it cannot convert gets the
/// issues `refuse` makes, anything not scalar a type error naming `expected` (the schema's
/// type) and, for an enum (`allowed`: its values as JSON), its `Unsupported value` error too.
struct ScalarVisitor<'c, 'o, 'a, 'b, F, R> {
    cx: &'c mut Cx<'o>,
    at: &'b At<'a>,
    expected: &'static str,
    allowed: Option<&'static str>,
    convert: F,
    refuse: R,
}

impl<'de, T, F, R> Visitor<'de> for ScalarVisitor<'_, '_, '_, '_, F, R>
where
    F: FnOnce(Scalar<'_>) -> Option<T>,
    R: FnOnce(&Path, Scalar<'_>, &mut Vec<Issue>),
{
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a value of type {}", self.expected)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        self.scalar(Scalar::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        self.scalar(Scalar::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        self.scalar(i64::try_from(v).map_or(Scalar::Uint(v), Scalar::Int))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        self.scalar(Scalar::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.scalar(Scalar::Str(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.other("null", || Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // An enum prints the list it refuses; anything else only names its kind.
        let mut items = Vec::new();
        if self.allowed.is_some() {
            while let Some(item) = seq.next_element::<Value>()? {
                items.push(pruned_without_schema(item));
            }
        } else {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
        }
        self.other("array", || Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        // Pruning leaves none of an object's keys where the schema declares no properties.
        self.other("object", || Value::Object(Map::new()))
    }
}

impl<T, F, R> ScalarVisitor<'_, '_, '_, '_, F, R>
where
    F: FnOnce(Scalar<'_>) -> Option<T>,
    R: FnOnce(&Path, Scalar<'_>, &mut Vec<Issue>),
{
    // Under plain `Deserialize` an issue is raised here, inside the deserializer's call, so
    // one that tracks positions gives the value's line and column.
    fn scalar<E: de::Error>(self, v: Scalar<'_>) -> Result<Option<T>, E> {
        let converted = (self.convert)(v);
        if let (Scalar::Float(_), Some(_), "integer") = (v, &converted, self.expected) {
            self.cx.written_as_float.push(self.at.to_path().pointer());
        }
        if converted.is_none() {
            let path = self.at.to_path();
            match self.cx.format_named(&path, &v.to_value(), self.expected) {
                Some(issue) => self.cx.issues.push(issue),
                None => (self.refuse)(&path, v, &mut self.cx.issues),
            }
            self.cx.stop()?;
        }
        Ok(converted)
    }

    /// A value that is no scalar (`kind`); `value` is what an enum's error prints.
    fn other<E: de::Error>(self, kind: &str, value: impl FnOnce() -> Value) -> Result<Option<T>, E> {
        if self.at.is_root() {
            // A document that is no object: the apiserver cannot even find its kind.
            let expected = if self.allowed.is_some() { "an enum value" } else { self.expected };
            self.cx.type_mismatch(self.at, kind, expected);
        } else {
            // An enum whose values have no one type has no type check.
            if !self.expected.is_empty() {
                self.cx.type_mismatch(self.at, kind, self.expected);
            }
            if let Some(allowed) = self.allowed {
                self.cx.issues.extend(keywords::enumeration(&self.at.to_path(), &value(), &enum_values(allowed)));
            }
        }
        self.cx.stop()?;
        Ok(None)
    }
}

/// A value as pruning leaves it under a schema with no properties and no items: every object
/// in it emptied (the dynamic path's `prune` under no schema, which this layer cannot call).
fn pruned_without_schema(v: Value) -> Value {
    match v {
        Value::Object(_) => Value::Object(Map::new()),
        Value::Array(items) => Value::Array(items.into_iter().map(pruned_without_schema).collect()),
        scalar => scalar,
    }
}

/// Reads a scalar leaf: `convert` takes the scalars the type holds; anything else is the
/// apiserver's type error for `expected`.
fn decode_scalar<'de, D, T>(
    d: D,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    expected: &'static str,
    convert: impl FnOnce(Scalar<'_>) -> Option<T>,
) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
{
    let refuse = move |path: &Path, v: Scalar<'_>, issues: &mut Vec<Issue>| {
        issues.push(keywords::type_mismatch(path, v.kind(), expected));
    };
    d.deserialize_any(ScalarVisitor { cx, at, expected, allowed: None, convert, refuse })
}

/// Reads the value of a generated enum of `schema_type`: `convert` picks the variant; anything
/// else is the apiserver's `Unsupported value` error listing `allowed` (the variants' values as
/// JSON), after its type error where the value is not of `schema_type`.
#[doc(hidden)]
pub fn decode_enum<'de, D, T>(
    d: D,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    schema_type: &'static str,
    allowed: &'static str,
    convert: impl FnOnce(Scalar<'_>) -> Option<T>,
) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
{
    // The schema's type check, then its enum check. [quirk] A value of another type may still
    // be one of the enum's (`97` is `"a"`): then the type error is the only one.
    let refuse = move |path: &Path, v: Scalar<'_>, issues: &mut Vec<Issue>| {
        let (value, types) = (v.whole_as_int().to_value(), [schema_type]);
        let types: &[&str] = if schema_type.is_empty() { &[] } else { &types };
        issues.extend(keywords::type_check(path, &value, types, None, false));
        issues.extend(keywords::enumeration(path, &value, &enum_values(allowed)));
    };
    d.deserialize_any(ScalarVisitor { cx, at, expected: schema_type, allowed: Some(allowed), convert, refuse })
}

/// An enum's values, from the JSON its derive writes.
fn enum_values(allowed: &str) -> Vec<Value> {
    serde_json::from_str(allowed).unwrap_or_default()
}

impl Decode for String {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        decode_scalar(d, cx, at, "string", |v| match v {
            Scalar::Str(s) => Some(s.to_owned()),
            _ => None,
        })
    }
}

impl Decode for bool {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        decode_scalar(d, cx, at, "boolean", |v| match v {
            Scalar::Bool(b) => Some(b),
            _ => None,
        })
    }
}

fn whole(v: Scalar<'_>) -> Option<i64> {
    match v {
        Scalar::Int(i) => Some(i),
        Scalar::Float(f) => crate::types::int_or_string::whole_f64_to_i64(f),
        _ => None,
    }
}

impl Decode for i64 {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        // An integer beyond int64 passes the type check but not the range check of its format.
        let refuse = |path: &Path, v: Scalar<'_>, issues: &mut Vec<Issue>| {
            issues.push(match v {
                Scalar::Uint(u) => out_of_range(path, "", Num::Float(u as f64)),
                Scalar::Float(f) if keywords::is_json_integer(f) => out_of_range(path, "", Num::Float(f)),
                other => keywords::type_mismatch(path, other.kind(), "integer"),
            });
        };
        d.deserialize_any(ScalarVisitor { cx, at, expected: "integer", allowed: None, convert: whole, refuse })
    }
}

impl Decode for i32 {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        let refuse = |path: &Path, v: Scalar<'_>, issues: &mut Vec<Issue>| {
            issues.push(match v {
                Scalar::Int(i) => out_of_range(path, "int32", Num::Int(i)),
                Scalar::Uint(u) => out_of_range(path, "int32", Num::Float(u as f64)),
                Scalar::Float(f) if keywords::is_json_integer(f) => out_of_range(path, "int32", Num::Float(f)),
                other => keywords::type_mismatch(path, other.kind(), "integer"),
            });
        };
        let convert = |v: Scalar<'_>| whole(v).and_then(|i| i32::try_from(i).ok());
        d.deserialize_any(ScalarVisitor { cx, at, expected: "integer", allowed: None, convert, refuse })
    }
}

/// Integers of hand-written types other than i32/i64: their schema bounds them to the Rust
/// type's range (`u8`: `minimum: 0, maximum: 255`), so a value outside it reads as the
/// apiserver reports that bound.
macro_rules! bounded_integer {
    ($($t:ty),*) => {$(
        impl Decode for $t {
            fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
                let issue = |path: &Path, v: Scalar<'_>| {
                    let n = match v {
                        Scalar::Int(i) => Num::Int(i),
                        Scalar::Uint(u) => Num::Float(u as f64),
                        Scalar::Float(f) if keywords::is_json_integer(f) => Num::Float(f),
                        other => return keywords::type_mismatch(path, other.kind(), "integer"),
                    };
                    let bound = |b: i128| keywords::Bound::of(&serde_json::Number::from_f64(b as f64).unwrap_or_else(|| 0.into()));
                    keywords::maximum(path, n, bound(<$t>::MAX as i128), false)
                        .or_else(|| keywords::minimum(path, n, bound(<$t>::MIN as i128), false))
                        .unwrap_or_else(|| keywords::type_mismatch(path, "number", "integer"))
                };
                let refuse = |path: &Path, v: Scalar<'_>, issues: &mut Vec<Issue>| issues.push(issue(path, v));
                let convert = |v: Scalar<'_>| match v {
                    Scalar::Uint(u) => <$t>::try_from(u).ok(),
                    other => whole(other).and_then(|i| <$t>::try_from(i).ok()),
                };
                d.deserialize_any(ScalarVisitor { cx, at, expected: "integer", allowed: None, convert, refuse })
            }
        }
    )*};
}
bounded_integer!(i8, i16, u8, u16, u32, u64, usize);

impl Decode for f32 {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        decode_scalar(d, cx, at, "number", |v| match v {
            Scalar::Int(i) => Some(i as f32),
            Scalar::Uint(u) => Some(u as f32),
            Scalar::Float(f) => Some(f as f32),
            _ => None,
        })
    }
}

/// [ver 1.36+] an integer that its Rust type (the schema's format) cannot hold: the range
/// check's error, which the dynamic validator reports for the same value.
fn out_of_range(path: &Path, format: &str, n: Num) -> Issue {
    NumberType::new("integer", format)
        .range_issue(path, "Checked", n)
        .unwrap_or_else(|| keywords::type_mismatch(path, "number", "integer"))
}

impl Decode for f64 {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        decode_scalar(d, cx, at, "number", |v| match v {
            Scalar::Int(i) => Some(i as f64),
            Scalar::Uint(u) => Some(u as f64),
            Scalar::Float(f) => Some(f),
            _ => None,
        })
    }
}

impl Decode for IntOrString {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        decode_scalar(d, cx, at, "integer,string", |v| match v {
            Scalar::Str(s) => Some(IntOrString::String(s.to_owned())),
            other => whole(other).map(IntOrString::Int),
        })
    }
}

impl Decode for Value {
    fn decode<'de, D: Deserializer<'de>>(d: D, _: &mut Cx<'_>, _: &At<'_>) -> Result<Option<Self>, D::Error> {
        serde::Deserialize::deserialize(d).map(Some)
    }

    /// Unknown fields a schema keeps have no schema, so their nulls are not pruned.
    fn null_map_value() -> Option<Self> {
        Some(Value::Null)
    }
}

impl Decode for Map<String, Value> {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        Ok(BTreeMap::<String, Value>::decode(d, cx, at)?.map(|m| m.into_iter().collect()))
    }
}

impl Decode for EmptyObject {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        // Every key is pruned; in strict mode each is an unknown field.
        let keys = BTreeMap::<String, IgnoredAnyDecode>::decode(d, cx, at)?;
        if let Some(keys) = &keys {
            for k in keys.keys() {
                unknown_key(cx, at, k, Value::Null);
            }
        }
        Ok(keys.map(|_| EmptyObject {}))
    }
}

/// A value read and thrown away.
struct IgnoredAnyDecode;

impl Decode for IgnoredAnyDecode {
    fn decode<'de, D: Deserializer<'de>>(d: D, _: &mut Cx<'_>, _: &At<'_>) -> Result<Option<Self>, D::Error> {
        IgnoredAny::deserialize(d).map(|_| Some(IgnoredAnyDecode))
    }

    /// A key without a schema keeps its `null` (and is an unknown field).
    fn null_map_value() -> Option<Self> {
        Some(IgnoredAnyDecode)
    }
}

/// The keys of `metadata` that Go's `ObjectMeta` knows; others are dropped by its round trip.
const OBJECT_META_KEYS: &[&str] = &[
    "annotations",
    "creationTimestamp",
    "deletionGracePeriodSeconds",
    "deletionTimestamp",
    "finalizers",
    "generateName",
    "generation",
    "labels",
    "managedFields",
    "name",
    "namespace",
    "ownerReferences",
    "resourceVersion",
    "selfLink",
    "uid",
];

impl Decode for ObjectMeta {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        // The apiserver round-trips metadata through Go's ObjectMeta: unknown keys are dropped
        // (unknown fields in strict mode); a wrongly typed known key fails the whole request
        // (400), as it ends this read.
        if cx.options.unknown_fields == UnknownFields::Prune {
            return ObjectMeta::deserialize(d).map(Some);
        }
        let value = Value::deserialize(d)?;
        if let Value::Object(m) = &value {
            for (k, v) in m {
                if !OBJECT_META_KEYS.contains(&k.as_str()) {
                    unknown_key(cx, at, k, v.clone());
                }
            }
        }
        ObjectMeta::deserialize(value).map(Some).map_err(|e| de::Error::custom(format_args!("metadata: {e}")))
    }
}

impl<T: Decode> Decode for Box<T> {
    #[inline]
    fn decode_to<'de, D: Deserializer<'de>>(
        d: D,
        cx: &mut Cx<'_>,
        at: &At<'_>,
        mut slot: Slot<'_, Self>,
    ) -> Result<(), D::Error> {
        match slot {
            // A boxed field's place: the value is made in its box.
            Slot::Option(out) => T::decode_to(d, cx, at, Slot::Boxed(out)),
            _ => {
                let mut boxed = None;
                T::decode_to(d, cx, at, Slot::Boxed(&mut boxed))?;
                if let Some(boxed) = boxed {
                    slot.make(boxed);
                }
                Ok(())
            }
        }
    }

    #[inline]
    fn null_map_value() -> Option<Self> {
        T::null_map_value().map(Box::new)
    }
}

/// `null` is `Some(None)`; anything else is read as `T`.
impl<T: Decode> Decode for Option<T> {
    #[inline]
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        // Read as a field's value is, telling `null` from a value; an unusable value (the
        // only way a read has neither) makes the option unusable.
        let (mut seen, mut value) = (Seen::Absent, None);
        FieldSeed { cx, at, seen: &mut seen, value: &mut value }.deserialize(d)?;
        Ok(null_or_value(seen, value))
    }

    /// A nullable map value keeps its `null`.
    #[inline]
    fn null_map_value() -> Option<Self> {
        Some(None)
    }
}

impl<T: Decode> Decode for Vec<T> {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        struct ListVisitor<'c, 'o, 'a, 'b, T> {
            cx: &'c mut Cx<'o>,
            at: &'b At<'a>,
            ty: PhantomData<T>,
        }
        impl<'de, T: Decode> Visitor<'de> for ListVisitor<'_, '_, '_, '_, T> {
            type Value = Option<Vec<T>>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                let mut usable = true;
                for i in 0.. {
                    let here = self.at.index(i);
                    let before = items.len();
                    // Each item is read where the list keeps it.
                    let seed = Seed { cx: &mut *self.cx, at: &here, slot: Slot::Push(&mut items) };
                    if seq.next_element_seed(seed)?.is_none() {
                        break;
                    }
                    self.cx.stop()?;
                    // One unusable item makes the list unusable; the rest is still read and
                    // checked.
                    usable &= items.len() > before;
                }
                Ok(usable.then_some(items))
            }
            refuse!("array"; bool int float str null map);
        }
        d.deserialize_any(ListVisitor { cx, at, ty: PhantomData })
    }
}

impl<T: Decode> Decode for BTreeMap<String, T> {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        struct MapVisitor<'c, 'o, 'a, 'b, T> {
            cx: &'c mut Cx<'o>,
            at: &'b At<'a>,
            ty: PhantomData<T>,
        }
        impl<'de, T: Decode> Visitor<'de> for MapVisitor<'_, '_, '_, '_, T> {
            type Value = Option<BTreeMap<String, T>>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = BTreeMap::new();
                // The keys whose `null` was pruned (almost always none): still keys seen, for
                // a duplicate that follows. A set: a map can hold many.
                let mut pruned = std::collections::BTreeSet::new();
                let mut usable = true;
                while let Some(key) = map.next_key::<String>()? {
                    let here = self.at.key(&key);
                    if (out.contains_key(&key) || pruned.contains(&key)) && !self.cx.take_duplicate(&here) {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    }
                    let (mut seen, mut value) = (Seen::Absent, None);
                    map.next_value_seed(FieldSeed {
                        cx: &mut *self.cx,
                        at: &here,
                        seen: &mut seen,
                        value: &mut value,
                    })?;
                    self.cx.stop()?;
                    match (value, seen) {
                        (Some(v), _) => {
                            out.insert(key, v);
                        }
                        (None, Seen::Null) => match T::null_map_value() {
                            Some(null) => {
                                out.insert(key, null);
                            }
                            // A later duplicate's `null` prunes the earlier value too.
                            None => {
                                out.remove(&key);
                                pruned.insert(key);
                            }
                        },
                        (None, _) => usable = false,
                    }
                }
                Ok(usable.then_some(out))
            }
            refuse!("object"; bool int float str null seq);
        }
        d.deserialize_any(MapVisitor { cx, at, ty: PhantomData })
    }
}

/// What serde writes for a `std::time::Duration`: `{"secs": .., "nanos": ..}`, both required
/// and within the bounds its schema gives them.
impl Decode for std::time::Duration {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        let Some(parts) = BTreeMap::<String, i64>::decode(d, cx, at)? else { return Ok(None) };
        let secs = duration_part(cx, at, &parts, "secs", i64::MAX);
        let nanos = duration_part(cx, at, &parts, "nanos", 999_999_999);
        cx.stop()?;
        Ok(secs.zip(nanos).map(|(s, n)| std::time::Duration::new(s.unsigned_abs(), n as u32)))
    }
}

/// One part of a `Duration`: given, and from 0 to `max`.
fn duration_part(
    cx: &mut Cx<'_>,
    at: &At<'_>,
    parts: &BTreeMap<String, i64>,
    name: &'static str,
    max: i64,
) -> Option<i64> {
    let Some(&value) = parts.get(name) else {
        cx.issues.push(keywords::required(&at.to_path(), name));
        return None;
    };
    let here = at.property(name);
    let bounds = [
        keywords::minimum(&here, Num::Int(value), keywords::Bound::of(&0.into()), false),
        keywords::maximum(&here, Num::Int(value), keywords::Bound::of(&max.into()), false),
    ];
    let within = bounds.iter().all(Option::is_none);
    cx.issues.extend(bounds.into_iter().flatten());
    within.then_some(value)
}

/// A `HashMap` reads as a `BTreeMap` does.
impl<T: Decode, S: std::hash::BuildHasher + Default> Decode for std::collections::HashMap<String, T, S> {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        Ok(BTreeMap::<String, T>::decode(d, cx, at)?.map(|m| m.into_iter().collect()))
    }
}

/// A set reads as a list whose repeated items are the apiserver's `Duplicate value` (its
/// schema is a `set` list): a repeat is reported, not silently dropped.
macro_rules! decode_sets {
    ($($set:ident <T: $($bound:path),*> $(<$h:ident: $hb:path>)?),*) => {$(
        impl<T: Decode + serde::Serialize $(+ $bound)* $(, $h: $hb + Default)?> Decode for std::collections::$set<T $(, $h)?> {
            fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
                let Some(items) = Vec::<T>::decode(d, cx, at)? else { return Ok(None) };
                let before = cx.issues.len();
                crate::check::listtype::check_typed_set(&items, &at.to_path(), &mut cx.issues);
                let unique = cx.issues.len() == before;
                cx.stop()?;
                Ok(unique.then(|| items.into_iter().collect()))
            }
        }
    )*};
}
decode_sets!(BTreeSet<T: Ord>, HashSet<T: Eq, std::hash::Hash> <S: std::hash::BuildHasher>);

/// A key no field names, under the unknown-fields option.
fn unknown_key(cx: &mut Cx<'_>, at: &At<'_>, key: &str, value: Value) {
    let here = at.key(key);
    // A field of another variant of the enum being read: declared in the CRD (no unknown
    // field), but more than the variant holds; the schema answers for the enum's node.
    if !cx.union_frames.is_empty() && union::other_variants_field(cx, at, key) {
        if cx.options.unknown_fields == UnknownFields::Preserve {
            cx.unknown.push((here.to_path(), value));
        }
        return;
    }
    match cx.options.unknown_fields {
        UnknownFields::Prune => {}
        UnknownFields::Strict => cx.strict(&here, "unknown"),
        UnknownFields::Preserve => cx.unknown.push((here.to_path(), value)),
    }
}

// ---- What derived code calls for structs. ----

/// A struct's side of decoding: its fields read from a JSON object.
#[doc(hidden)]
pub trait DecodeFields: Sized {
    /// Reads the fields and, when the struct is usable, leaves it in `out`.
    fn decode_fields<'de, A: MapAccess<'de>>(
        map: A,
        cx: &mut Cx<'_>,
        at: &At<'_>,
        out: Slot<'_, Self>,
    ) -> Result<(), A::Error>;
}

/// Reads a struct: an object goes to its fields, anything else is a type error.
#[doc(hidden)]
#[inline]
pub fn decode_struct<'de, D: Deserializer<'de>, T: DecodeFields>(
    d: D,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    out: Slot<'_, T>,
) -> Result<(), D::Error> {
    struct StructVisitor<'c, 'o, 'a, 'b, 's, T> {
        cx: &'c mut Cx<'o>,
        at: &'b At<'a>,
        out: Slot<'s, T>,
    }
    impl<'de, T: DecodeFields> Visitor<'de> for StructVisitor<'_, '_, '_, '_, '_, T> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        #[inline]
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
            T::decode_fields(map, self.cx, self.at, self.out)?;
            // Required fields are known missing at the object's end.
            self.cx.stop()
        }
        refuse!("object"; bool int float str null seq);
    }
    d.deserialize_any(StructVisitor { cx, at, out })
}

/// One key of a struct's object: a field's index, or a name no field has.
#[doc(hidden)]
pub enum FieldKey {
    /// The index of the field in the struct's name table.
    Known(usize),
    /// Any other key.
    Unknown(String),
}

/// Reads a key and looks it up with the struct's compiled `match` (a function item, so the
/// lookup is inlined as serde_derive's field visitor is).
#[doc(hidden)]
pub struct FieldKeySeed<F>(pub F);

impl<'de, F: Fn(&str) -> Option<usize>> DeserializeSeed<'de> for FieldKeySeed<F> {
    type Value = FieldKey;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<FieldKey, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, F: Fn(&str) -> Option<usize>> Visitor<'de> for FieldKeySeed<F> {
    type Value = FieldKey;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<FieldKey, E> {
        Ok((self.0)(v).map_or_else(|| FieldKey::Unknown(v.to_owned()), FieldKey::Known))
    }
}

/// How a field's key was seen while its object is read. Generated code keeps one per field
/// beside the field's value place (`&mut Option<T>`): the struct's own field when it is an
/// `Option` (the struct is then read where it lives, and never moved), a local otherwise.
#[doc(hidden)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Not seen.
    Absent,
    /// Seen as `null`.
    Null,
    /// Seen with a usable value.
    Value,
    /// Seen with an unusable value (an issue says why).
    Bad,
}

/// Reads a field's value (or `null`) into its place.
struct FieldSeed<'c, 'o, 'a, 'b, 's, T> {
    cx: &'c mut Cx<'o>,
    at: &'b At<'a>,
    seen: &'s mut Seen,
    value: &'s mut Option<T>,
}

impl<'de, T: Decode> DeserializeSeed<'de> for FieldSeed<'_, '_, '_, '_, '_, T> {
    type Value = ();
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de, T: Decode> Visitor<'de> for FieldSeed<'_, '_, '_, '_, '_, T> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value or null")
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        *self.seen = Seen::Null;
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        *self.seen = Seen::Null;
        Ok(())
    }
    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        T::decode_into(d, self.cx, self.at, self.value)?;
        *self.seen = if self.value.is_some() { Seen::Value } else { Seen::Bad };
        Ok(())
    }
}

/// Reads the value of field `name` into its place (`None` when called), minding duplicate keys.
#[doc(hidden)]
#[inline]
pub fn field<'de, A: MapAccess<'de>, T: Decode>(
    map: &mut A,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    name: &'static str,
    seen: &mut Seen,
    value: &mut Option<T>,
) -> Result<(), A::Error> {
    let here = at.property(name);
    if *seen != Seen::Absent {
        if !cx.take_duplicate(&here) {
            map.next_value::<IgnoredAny>()?;
            return Ok(());
        }
        (*seen, *value) = (Seen::Absent, None);
    }
    map.next_value_seed(FieldSeed { cx: &mut *cx, at: &here, seen, value })?;
    cx.stop()
}

/// [`field`] for a field with a `format`: its type errors name the format, as the apiserver's do.
#[doc(hidden)]
pub fn field_with_format<'de, A: MapAccess<'de>, T: Decode>(
    map: &mut A,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    name: &'static str,
    seen: &mut Seen,
    value: &mut Option<T>,
    format: &'static str,
) -> Result<(), A::Error> {
    cx.format = Some(format);
    let read = field(map, cx, at, name, seen, value);
    cx.format = None;
    read
}

/// The value of a key whose index no field has (the struct's own name table never gives
/// one; the arm makes the generated `match` exhaustive): skipped.
#[doc(hidden)]
pub fn ignored_field<'de, A: MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
    map.next_value::<IgnoredAny>().map(drop)
}

/// A key the struct has no field for: pruned, reported or preserved, as the options say.
#[doc(hidden)]
pub fn unknown_field<'de, A: MapAccess<'de>>(
    map: &mut A,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    key: &str,
) -> Result<(), A::Error> {
    if cx.options.unknown_fields == UnknownFields::Preserve {
        let value: Value = map.next_value()?;
        unknown_key(cx, at, key, value);
    } else {
        map.next_value::<IgnoredAny>()?;
        unknown_key(cx, at, key, Value::Null);
    }
    Ok(())
}

/// A key no field names in a struct with `#[serde(deny_unknown_fields)]`: an error, as serde's
/// derive makes it (the apiserver would prune it; the type refuses to).
#[doc(hidden)]
pub fn denied_field<'de, A: MapAccess<'de>>(
    map: &mut A,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    key: &str,
) -> Result<(), A::Error> {
    map.next_value::<IgnoredAny>()?;
    cx.strict(&at.key(key), "unknown");
    cx.stop()
}

/// Reads a `#[serde(flatten)]` field from the keys its struct's other fields do not name, at
/// the struct's own place.
#[doc(hidden)]
pub fn flattened<T: Decode, E: de::Error>(
    rest: Map<String, Value>,
    cx: &mut Cx<'_>,
    at: &At<'_>,
) -> Result<Option<T>, E> {
    let read = T::decode(Value::Object(rest), cx, at).map_err(E::custom)?;
    cx.stop()?;
    Ok(read)
}

/// A key kept by `x-kubernetes-preserve-unknown-fields` in the struct's own map.
#[doc(hidden)]
pub fn kept_field<'de, A: MapAccess<'de>>(
    map: &mut A,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    key: String,
    kept: &mut Map<String, Value>,
) -> Result<(), A::Error> {
    if kept.contains_key(&key) && !cx.take_duplicate(&at.key(&key)) {
        map.next_value::<IgnoredAny>()?;
        return Ok(());
    }
    let value: Value = map.next_value()?;
    kept.insert(key, value);
    Ok(())
}

/// What a field without a usable value saw.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Missing {
    Absent,
    Null,
    Bad,
}

impl Seen {
    /// What was seen instead of a value (when there is none).
    fn missing(self) -> Missing {
        match self {
            Seen::Null => Missing::Null,
            Seen::Bad => Missing::Bad,
            Seen::Absent | Seen::Value => Missing::Absent,
        }
    }
}

/// The finished value of a nullable optional field: `None` absent, `Some(None)` null.
#[doc(hidden)]
#[inline]
pub fn null_or_value<T>(seen: Seen, value: Option<T>) -> Option<Option<T>> {
    match (value, seen) {
        (Some(v), _) => Some(Some(v)),
        (None, Seen::Null) => Some(None),
        (None, _) => None,
    }
}

// Finishing a struct's read: each field's finisher below looks at the field's place: it
// records what is missing, fills defaults, and says whether the struct is still usable. Then
// the values held in locals (fields that are not an `Option`) are moved, once, into the
// struct. The finishers are inlined with only the given-value case; the rest (issues,
// defaults, presence) is outlined and cold.

/// A field that must be given (`null` reads as absent, as after null pruning).
/// `false`: the struct is unusable.
#[doc(hidden)]
#[inline]
pub fn required<T>(seen: &mut Seen, value: &mut Option<T>, cx: &mut Cx<'_>, at: &At<'_>, name: &'static str) -> bool {
    value.is_some() || required_missing(seen.missing(), cx, at, name)
}

#[cold]
#[inline(never)]
fn required_missing(missing: Missing, cx: &mut Cx<'_>, at: &At<'_>, name: &'static str) -> bool {
    if missing != Missing::Bad {
        record_absence(cx, at, name, missing);
        cx.issues.push(keywords::required(&at.to_path(), name));
    }
    false
}

/// The default of field `name` for a place where it applies.
#[cold]
#[inline(never)]
fn default_of<T: serde::de::DeserializeOwned>(
    cx: &mut Cx<'_>,
    at: &At<'_>,
    name: &'static str,
    json: &str,
) -> Option<T> {
    let here = at.property(name);
    if cx.options.presence || cx.options.defaults != Defaults::Apply {
        cx.record(&here, Presence::Defaulted(json.to_owned()));
    }
    match parse_default(json) {
        Ok(v) => Some(v),
        Err(e) => {
            let detail = format!("the default {json} does not fit the field's type: {e}");
            cx.issues.push(Issue::new(ErrorType::Internal, &here.to_path(), "default", BadValue::Omit, detail));
            None
        }
    }
}

/// A schema default's JSON text (as the `default` attribute carries it) read into `T`. Going
/// through the type's own `Deserialize` makes defaults nest as the apiserver's do: a default
/// `{}` for an object gets that object's own property defaults filled in. Defaults are read
/// each time a field is absent, so the common literals (integers, booleans, strings without
/// escapes) go straight to `T`'s visitor; anything else is parsed as JSON.
fn parse_default<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, serde_json::Error> {
    let literal = match json.as_bytes() {
        b"true" => Some(Literal::Bool(true)),
        b"false" => Some(Literal::Bool(false)),
        [b'"', inner @ .., b'"'] if !inner.iter().any(|&b| b == b'\\' || b == b'"' || b < 0x20) => {
            // The text is a `&str` and the quotes are ASCII, so the inside is UTF-8 too.
            std::str::from_utf8(inner).ok().map(Literal::Str)
        }
        _ => json.parse::<i64>().ok().map(Literal::Int),
    };
    match literal {
        Some(literal) => T::deserialize(literal),
        None => serde_json::from_str(json),
    }
}

/// A JSON literal, deserialized as serde_json would deserialize its text.
#[derive(Clone, Copy)]
enum Literal<'a> {
    Bool(bool),
    Int(i64),
    Str(&'a str),
}

impl<'de> serde::Deserializer<'de> for Literal<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        match self {
            Literal::Bool(b) => visitor.visit_bool(b),
            // serde_json gives non-negative integers as `u64`.
            Literal::Int(i) => match u64::try_from(i) {
                Ok(u) => visitor.visit_u64(u),
                Err(_) => visitor.visit_i64(i),
            },
            Literal::Str(s) => visitor.visit_borrowed_str(s),
        }
    }

    /// A literal is never `null`.
    fn deserialize_option<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        match self {
            Literal::Str(s) => serde::de::IntoDeserializer::<serde_json::Error>::into_deserializer(s)
                .deserialize_enum(name, variants, visitor),
            _ => self.deserialize_any(visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

fn record_absence(cx: &mut Cx<'_>, at: &At<'_>, name: &'static str, missing: Missing) {
    if cx.options.presence {
        let p = if missing == Missing::Null { Presence::Null } else { Presence::Missing };
        cx.record(&at.property(name), p);
    }
}

/// A non-`Option` field that serde's `default` covers (`#[serde(default)]` on it or on its
/// struct): absent and `null` read as what `fill` makes, as serde's own derive reads absence.
/// It is not a schema default: the apiserver leaves the field absent, and the schema does
/// not require it.
#[doc(hidden)]
#[inline]
pub fn filled<T>(
    seen: &mut Seen,
    value: &mut Option<T>,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    name: &'static str,
    fill: impl FnOnce() -> T,
) -> bool {
    if value.is_some() {
        return true;
    }
    let missing = seen.missing();
    if missing == Missing::Bad {
        return false;
    }
    record_absence(cx, at, name, missing);
    *value = Some(fill());
    true
}

/// A non-`Option` field with a default: absent and `null` take it (whatever the defaults
/// option: the type needs a value).
#[doc(hidden)]
#[inline]
pub fn defaulted<T: serde::de::DeserializeOwned>(
    seen: &mut Seen,
    value: &mut Option<T>,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    name: &'static str,
    default: &str,
) -> bool {
    if value.is_some() {
        return true;
    }
    if seen.missing() == Missing::Bad {
        return false;
    }
    *value = default_of(cx, at, name, default);
    value.is_some()
}

/// An `Option` field: absent, `null` and unusable read as `None`, or as the default when it
/// has one and defaults apply.
#[doc(hidden)]
#[inline]
pub fn optional<T: serde::de::DeserializeOwned>(
    seen: &mut Seen,
    value: &mut Option<T>,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    name: &'static str,
    default: Option<&str>,
) -> bool {
    let plainly_absent = *seen == Seen::Absent && default.is_none() && !cx.options.presence;
    value.is_some() || plainly_absent || optional_missing(*seen, value, cx, at, name, default)
}

#[cold]
#[inline(never)]
fn optional_missing<T: serde::de::DeserializeOwned>(
    seen: Seen,
    value: &mut Option<T>,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    name: &'static str,
    default: Option<&str>,
) -> bool {
    match (seen.missing(), default) {
        (Missing::Bad, _) => {
            cx.unread.push(at.property(name).to_path().pointer());
            true
        }
        (_, Some(json)) if cx.options.defaults != Defaults::Ignore => {
            *value = default_of(cx, at, name, json);
            value.is_some()
        }
        (missing, _) => {
            record_absence(cx, at, name, missing);
            true
        }
    }
}

/// A nullable field that is required or defaulted (`Option<T>`, never absent): `null` is
/// `None`; otherwise it reads as a required or defaulted field of type `Option<T>`.
#[doc(hidden)]
pub fn nullable<T: serde::de::DeserializeOwned>(
    seen: &mut Seen,
    value: &mut Option<T>,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    name: &'static str,
    default: Option<&str>,
) -> bool {
    finish_nullable(seen, value, cx, at, name, default, false)
}

/// A nullable optional field (`Option<Option<T>>`, finished by [`null_or_value`]): `None`
/// absent, `Some(None)` null; otherwise it reads as an optional field of type `Option<T>`.
#[doc(hidden)]
pub fn maybe_null<T: serde::de::DeserializeOwned>(
    seen: &mut Seen,
    value: &mut Option<T>,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    name: &'static str,
    default: Option<&str>,
) -> bool {
    finish_nullable(seen, value, cx, at, name, default, true)
}

/// [`nullable`] and [`maybe_null`]: `null` is a value; the rest is as a required (or
/// defaulted) field or, when `optional`, as an optional one.
#[allow(clippy::too_many_arguments, reason = "the read's context, passed on from the field readers as they came")]
fn finish_nullable<T: serde::de::DeserializeOwned>(
    seen: &mut Seen,
    value: &mut Option<T>,
    cx: &mut Cx<'_>,
    at: &At<'_>,
    name: &'static str,
    default: Option<&str>,
    optional: bool,
) -> bool {
    if value.is_some() {
        return true;
    }
    // A required field takes its default whatever the option: its type needs a value.
    let default = default.filter(|_| !optional || cx.options.defaults != Defaults::Ignore);
    match (seen.missing(), default) {
        (Missing::Null, _) => {
            record_absence(cx, at, name, Missing::Null);
            true
        }
        (Missing::Bad, _) if optional => {
            cx.unread.push(at.property(name).to_path().pointer());
            true
        }
        (Missing::Bad, _) => false,
        (Missing::Absent, Some(json)) => {
            match default_of::<Option<T>>(cx, at, name, json) {
                Some(Some(v)) => *value = Some(v),
                // A `null` default.
                Some(None) => *seen = Seen::Null,
                None => return false,
            }
            true
        }
        (Missing::Absent, None) if optional => {
            record_absence(cx, at, name, Missing::Absent);
            true
        }
        (Missing::Absent, None) => required_missing(Missing::Absent, cx, at, name),
    }
}

#[cfg(test)]
mod default_tests {
    use std::collections::BTreeMap;

    use super::parse_default;
    use crate::types::int_or_string::IntOrString;

    /// The literal fast path reads what serde_json reads, and refuses what it refuses.
    #[test]
    fn defaults_read_as_serde_json_reads_them() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        enum Mode {
            Fast,
        }
        fn same<T: serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(json: &str) {
            let fast = parse_default::<T>(json).map_err(|e| e.to_string().split(" at line").next().map(str::to_owned));
            let slow =
                serde_json::from_str::<T>(json).map_err(|e| e.to_string().split(" at line").next().map(str::to_owned));
            assert_eq!(fast.is_ok(), slow.is_ok(), "{json} as {}: {fast:?} vs {slow:?}", std::any::type_name::<T>());
            if let (Ok(a), Ok(b)) = (fast, slow) {
                assert_eq!(a, b, "{json}");
            }
        }
        for json in ["0", "1", "-3", "9223372036854775807", "true", "false", r#""""#, r#""a b""#, r#""Fast""#, r#""é""#]
        {
            same::<i32>(json);
            same::<i64>(json);
            same::<u8>(json);
            same::<f64>(json);
            same::<bool>(json);
            same::<String>(json);
            same::<Option<i64>>(json);
            same::<Option<String>>(json);
            same::<Box<Option<bool>>>(json);
            same::<IntOrString>(json);
            same::<Mode>(json);
            same::<serde_json::Value>(json);
            same::<Vec<i64>>(json);
            same::<BTreeMap<String, i64>>(json);
        }
        // Not literals of the fast path: read by serde_json.
        assert_eq!(parse_default::<String>(r#""a\"b""#).unwrap(), "a\"b");
        assert_eq!(parse_default::<f64>("1.5").unwrap(), 1.5);
        assert_eq!(parse_default::<Vec<i64>>("[1]").unwrap(), [1]);
    }
}

#[cfg(test)]
mod grow_tests {
    /// An item of `N` bytes.
    struct Big<const N: usize>([u8; N]);

    impl<const N: usize> Default for Big<N> {
        fn default() -> Self {
            Big([0; N])
        }
    }

    /// The capacities a list read item by item goes through, as each item is made at its end.
    fn capacities<T: Default>(items: usize) -> Vec<usize> {
        let mut list: Vec<T> = Vec::new();
        let mut seen = Vec::new();
        for _ in 0..items {
            super::Slot::Push(&mut list).make(T::default());
            if seen.last() != Some(&list.capacity()) {
                seen.push(list.capacity());
            }
        }
        seen
    }

    #[test]
    fn a_lists_first_buffer_is_at_most_one_kib_then_doubles() {
        assert_eq!(capacities::<Big<1760>>(9), [1, 2, 4, 8, 16]);
        assert_eq!(capacities::<Big<384>>(9), [2, 4, 8, 16]);
        assert_eq!(capacities::<Big<24>>(9), [4, 8, 16]);
        assert_eq!(capacities::<()>(9), [usize::MAX], "a list of nothing never allocates");
    }

    #[test]
    fn a_full_list_is_not_grown_for_an_item_that_does_not_come() {
        assert_eq!(capacities::<Big<1760>>(1), [1]);
        assert_eq!(capacities::<Big<24>>(4), [4]);
        let read = super::from_slice::<Vec<i64>>(b"[1, 2, 3, 4]", &super::Options::default());
        assert_eq!(read.value.map(|list| list.capacity()), Some(4));
    }
}
