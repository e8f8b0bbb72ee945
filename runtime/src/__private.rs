//! Helpers that derived code calls. Not a stable API: anything here may change in any release.

pub use serde;
pub use serde_json;

pub use crate::types::int_or_string::whole_f64_to_i64;

/// What generated conversions between a CRD's versions call.
pub mod conversion {
    pub use crate::types::conversion::{down_keeping, read, relabel, up_restoring, write};
}

/// Whether `T`'s derived schema carries CEL rules anywhere, those the derive writes for a
/// data-carrying enum included: where the apiserver notes that blocking errors kept its rules
/// from running. The rules written on the types are found by walking them (each once), and
/// the schema is built only when there are none.
pub fn derived_has_rules<T: crate::schema::of_types::StructuralSchema + crate::typed::Validate + 'static>() -> bool {
    #[cfg(feature = "cel")]
    {
        let written = crate::typed::summary::<T>();
        if written.native > 0 || !written.interpreted.is_empty() {
            return true;
        }
    }
    crate::schema::of_types::derived_schema_has_rules::<T>()
}

use crate::check::keywords::Num;

/// What kind of JSON value a typed value is, so derived checks are chosen by the value's
/// kind as kube-openapi chooses them (a string check never runs on a number).
pub trait Kind {
    /// The schema type a number of this Rust type stands for (`integer`, `number`), for the
    /// range-of-format checks; `None` for types that are not only numbers.
    const NUMBER_TYPE: Option<&'static str> = None;
    /// The string, when the value is one.
    fn as_str(&self) -> Option<&str> {
        None
    }
    /// The number, when the value is one.
    fn as_num(&self) -> Option<Num> {
        None
    }
    /// The element count, when the value is a list.
    fn items_len(&self) -> Option<usize> {
        None
    }
    /// The key count, when the value is an object.
    fn props_len(&self) -> Option<usize> {
        None
    }
}

impl Kind for String {
    fn as_str(&self) -> Option<&str> {
        Some(self)
    }
}
impl Kind for i32 {
    const NUMBER_TYPE: Option<&'static str> = Some("integer");
    fn as_num(&self) -> Option<Num> {
        Some(Num::Int((*self).into()))
    }
}
impl Kind for i64 {
    const NUMBER_TYPE: Option<&'static str> = Some("integer");
    fn as_num(&self) -> Option<Num> {
        Some(Num::Int(*self))
    }
}
impl Kind for f64 {
    const NUMBER_TYPE: Option<&'static str> = Some("number");
    fn as_num(&self) -> Option<Num> {
        Some(Num::Float(*self))
    }
}
/// Integers other than i32/i64 (hand-written types): their value as the apiserver's int64,
/// or a float beyond it.
macro_rules! integer_kind {
    ($($t:ty),*) => {$(
        impl Kind for $t {
            const NUMBER_TYPE: Option<&'static str> = Some("integer");
            fn as_num(&self) -> Option<Num> {
                Some(i64::try_from(*self).map_or(Num::Float(*self as f64), Num::Int))
            }
        }
    )*};
}
integer_kind!(i8, i16, u8, u16, u32, u64, usize);
impl Kind for f32 {
    const NUMBER_TYPE: Option<&'static str> = Some("number");
    fn as_num(&self) -> Option<Num> {
        Some(Num::Float(f64::from(*self)))
    }
}
impl Kind for bool {}
impl Kind for crate::types::int_or_string::IntOrString {
    fn as_str(&self) -> Option<&str> {
        match self {
            crate::types::int_or_string::IntOrString::String(s) => Some(s),
            crate::types::int_or_string::IntOrString::Int(_) => None,
        }
    }
    fn as_num(&self) -> Option<Num> {
        match self {
            crate::types::int_or_string::IntOrString::Int(i) => Some(Num::Int(*i)),
            crate::types::int_or_string::IntOrString::String(_) => None,
        }
    }
}
impl<T> Kind for Vec<T> {
    fn items_len(&self) -> Option<usize> {
        Some(self.len())
    }
}
impl<T> Kind for std::collections::BTreeMap<String, T> {
    fn props_len(&self) -> Option<usize> {
        Some(self.len())
    }
}
impl<T, S> Kind for std::collections::HashMap<String, T, S> {
    fn props_len(&self) -> Option<usize> {
        Some(self.len())
    }
}
impl<T> Kind for std::collections::BTreeSet<T> {
    fn items_len(&self) -> Option<usize> {
        Some(self.len())
    }
}
impl<T, S> Kind for std::collections::HashSet<T, S> {
    fn items_len(&self) -> Option<usize> {
        Some(self.len())
    }
}
impl Kind for serde_json::Map<String, serde_json::Value> {
    fn props_len(&self) -> Option<usize> {
        Some(self.len())
    }
}
impl Kind for serde_json::Value {
    fn as_str(&self) -> Option<&str> {
        self.as_str()
    }
    fn as_num(&self) -> Option<Num> {
        match self {
            serde_json::Value::Number(n) => Some(Num::of(n)),
            _ => None,
        }
    }
    fn items_len(&self) -> Option<usize> {
        self.as_array().map(Vec::len)
    }
    fn props_len(&self) -> Option<usize> {
        self.as_object().map(serde_json::Map::len)
    }
}

/// A compiled `pattern` for derived code: translated once, kept for the process.
pub struct Pattern {
    source: &'static str,
    compiled: std::sync::OnceLock<Result<crate::check::pattern::Matcher, crate::check::pattern::PatternError>>,
}

impl Pattern {
    /// A pattern compiled on first use.
    pub const fn new(source: &'static str) -> Pattern {
        Pattern { source, compiled: std::sync::OnceLock::new() }
    }

    /// The `pattern` check of a string.
    pub fn check(&self, path: &dyn crate::report::path::Place, value: &str) -> Option<crate::report::issue::Issue> {
        crate::check::keywords::compiled_pattern(path, value, self.compiled(), self.source)
    }

    /// Whether a string matches (never, when the pattern does not compile).
    #[inline]
    pub fn matches(&self, value: &str) -> bool {
        self.compiled().as_ref().is_ok_and(|m| m.is_match(value))
    }

    fn compiled(&self) -> &Result<crate::check::pattern::Matcher, crate::check::pattern::PatternError> {
        self.compiled.get_or_init(|| crate::check::pattern::Matcher::compile(self.source))
    }
}

/// A string node's checks for derived code: `maxLength`, `minLength` and `pattern`, of which
/// only the first failure is reported (as kube-openapi's string validator does), then `format`.
/// One call per string with the rules in a `static`, rather than a call and a closure per
/// keyword: generated code stays small to compile.
pub struct StringRules {
    /// `maxLength`.
    pub max_length: Option<i64>,
    /// `minLength`.
    pub min_length: Option<i64>,
    /// `pattern`.
    pub pattern: Option<Pattern>,
    /// `format`, as the schema wrote it.
    pub format: Option<&'static str>,
}

impl StringRules {
    /// The checks of one string value at `path`. Inlined down to the length test that passes
    /// most strings without a call (runes are at most four bytes, so a string of at most `max`
    /// bytes and at least `4 * min` bytes fits both); the rest is one call.
    #[inline]
    pub fn check(
        &self,
        path: &dyn crate::report::path::Place,
        value: &str,
        out: &mut Vec<crate::report::issue::Issue>,
    ) {
        if !self.lengths_fit(value) || self.pattern.is_some() || self.format.is_some() {
            self.check_all(path, value, out);
        }
    }

    /// Whether `value` certainly fits both lengths, by its bytes.
    #[inline]
    fn lengths_fit(&self, value: &str) -> bool {
        let len = value.len() as i64;
        self.max_length.is_none_or(|max| len <= max) && self.min_length.is_none_or(|min| len >= min.saturating_mul(4))
    }

    #[inline(never)]
    fn check_all(
        &self,
        path: &dyn crate::report::path::Place,
        value: &str,
        out: &mut Vec<crate::report::issue::Issue>,
    ) {
        // Most strings pass: that is answered here, and only a failing one is looked at again
        // for its issue.
        let passes = self.lengths_fit(value) && self.pattern.as_ref().is_none_or(|p| p.matches(value));
        if !passes {
            out.extend(crate::check::keywords::first_string_failure(
                path,
                value,
                self.max_length,
                self.min_length,
                || self.pattern.as_ref().and_then(|p| p.check(path, value)),
            ));
        }
        if let Some(written) = self.format {
            out.extend(check_format(path, value, written));
        }
    }
}

/// An `enum` kept as JSON (values of several types): parsed once.
pub struct Allowed {
    json: &'static str,
    parsed: std::sync::OnceLock<Vec<serde_json::Value>>,
}

impl Allowed {
    /// Allowed values from their JSON text.
    pub const fn new(json: &'static str) -> Allowed {
        Allowed { json, parsed: std::sync::OnceLock::new() }
    }

    /// The `enum` check of any serializable value.
    pub fn check<T: serde::Serialize>(
        &self,
        path: &dyn crate::report::path::Place,
        value: &T,
    ) -> Option<crate::report::issue::Issue> {
        let allowed = self.parsed.get_or_init(|| serde_json::from_str(self.json).unwrap_or_default());
        let v = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
        crate::check::keywords::enumeration(path, &v, allowed)
    }
}

/// The `format` check of a string, for a format name as the schema wrote it.
pub fn check_format(
    path: &dyn crate::report::path::Place,
    value: &str,
    written: &str,
) -> Option<crate::report::issue::Issue> {
    crate::check::format::supported("string", written)
        .and_then(|f| crate::check::format::check(path, value, f, written))
}

/// `x-kubernetes-list-type: set` over typed items (identified as the JSON they serialize to).
pub fn list_set<T: serde::Serialize>(
    path: &dyn crate::report::path::Place,
    items: &[T],
    found: &mut crate::typed::Phases,
) {
    crate::check::listtype::check_typed_set(items, path, &mut found.list_types);
}

/// `x-kubernetes-list-type: map` with these keys over typed items (their key fields only).
pub fn list_map<T: serde::Serialize>(
    path: &dyn crate::report::path::Place,
    items: &[T],
    keys: &[&str],
    found: &mut crate::typed::Phases,
) {
    crate::check::listtype::check_typed_map(items, keys, path, &mut found.list_types);
}

/// A struct written as a map, one call per field. The derived `Serialize` calls it instead of
/// a `?` per field: each `?` is a branch, a conversion and an unwind edge in every struct's
/// MIR, and the whole corpus's generated crate spends most of its memory on MIR. After the
/// first error no more entries are written, and [`MapWriter::end`] returns that error.
pub struct MapWriter<M: serde::ser::SerializeMap> {
    map: M,
    error: Option<M::Error>,
}

impl<M: serde::ser::SerializeMap> MapWriter<M> {
    /// Starts the map.
    #[inline]
    pub fn start<S>(serializer: S) -> Result<Self, S::Error>
    where
        S: serde::Serializer<SerializeMap = M, Error = M::Error>,
    {
        Ok(MapWriter { map: serializer.serialize_map(None)?, error: None })
    }

    /// Writes one entry (a field that is always written).
    #[inline]
    pub fn entry<T: serde::Serialize + ?Sized>(&mut self, key: &str, value: &T) {
        if self.error.is_none()
            && let Err(e) = self.map.serialize_entry(key, value)
        {
            self.error = Some(e);
        }
    }

    /// Writes an entry when the field has a value (absent stays absent).
    #[inline]
    pub fn optional<T: serde::Serialize>(&mut self, key: &str, value: &Option<T>) {
        if let Some(value) = value {
            self.entry(key, value);
        }
    }

    /// Writes the kept unknown fields.
    #[inline]
    pub fn kept(&mut self, fields: &serde_json::Map<String, serde_json::Value>) {
        for (key, value) in fields {
            self.entry(key, value);
        }
    }

    /// Writes a `#[serde(flatten)]` field: its value's entries in this map (it must be written
    /// as an object, as serde requires).
    pub fn flattened<T: serde::Serialize>(&mut self, value: &T) {
        if self.error.is_some() {
            return;
        }
        match serde_json::to_value(value) {
            Ok(serde_json::Value::Object(fields)) => self.kept(&fields),
            Ok(other) => {
                self.error = Some(serde::ser::Error::custom(format_args!(
                    "can only flatten structs and maps (got {})",
                    crate::check::keywords::json_type(&other)
                )));
            }
            Err(e) => self.error = Some(serde::ser::Error::custom(e)),
        }
    }

    /// Ends the map, or returns the first error.
    #[inline]
    pub fn end(self) -> Result<M::Ok, M::Error> {
        match self.error {
            None => self.map.end(),
            Some(e) => Err(e),
        }
    }
}

/// A newtype variant of an internally tagged enum, as serde writes it: its value's fields
/// after the tag (`{"type": "Git", "url": ...}`); a value that is not an object cannot be.
pub fn serialize_tagged<S: serde::Serializer, T: serde::Serialize + ?Sized>(
    serializer: S,
    tag: &'static str,
    variant: &'static str,
    value: &T,
) -> Result<S::Ok, S::Error> {
    use serde::ser::{Error, SerializeMap};
    let fields = match serde_json::to_value(value) {
        Ok(serde_json::Value::Object(fields)) => fields,
        Ok(other) => {
            return Err(S::Error::custom(format_args!(
                "cannot serialize tagged newtype variant {variant} containing {}",
                crate::check::keywords::json_type(&other)
            )));
        }
        Err(e) => return Err(S::Error::custom(e)),
    };
    let mut map = serializer.serialize_map(Some(fields.len() + 1))?;
    map.serialize_entry(tag, variant)?;
    for (k, v) in &fields {
        map.serialize_entry(k, v)?;
    }
    map.end()
}

/// A value as the JSON it serializes to (what junctor branches of derived code read).
pub fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

/// TypeMeta, then (when it is right) root ObjectMeta of a resource: on create, or on update
/// from the `old` metadata. `kind` and `api_version` are the values read, `want_*` the CRD's.
#[allow(
    clippy::too_many_arguments,
    reason = "derived code passes what it read in place; a struct would be built on every validate()"
)]
pub fn resource_meta<M: crate::check::objectmeta::MetaView>(
    kind: Option<&str>,
    api_version: Option<&str>,
    meta: Option<&M>,
    old: Option<Option<&M>>,
    want_kind: &str,
    want_api_version: &str,
    namespaced: bool,
    issues: &mut Vec<crate::report::issue::Issue>,
) -> std::ops::ControlFlow<()> {
    let type_meta = crate::check::objectmeta::type_meta(kind, api_version, want_kind, want_api_version);
    if !type_meta.is_empty() {
        issues.extend(type_meta);
        return std::ops::ControlFlow::Break(());
    }
    issues.extend(crate::check::objectmeta::root_meta(
        meta,
        old,
        namespaced,
        crate::check::objectmeta::NameRule::Subdomain,
    ));
    std::ops::ControlFlow::Continue(())
}

/// The checks of an `x-kubernetes-embedded-resource` object at `path`, from its fields.
pub fn embedded<M: crate::check::objectmeta::MetaView>(
    kind: Option<&str>,
    api_version: Option<&str>,
    meta: Option<&M>,
    path: &dyn crate::report::path::Place,
    found: &mut crate::typed::Phases,
) {
    found.embedded.extend(crate::check::objectmeta::embedded(kind, api_version, meta, &path.to_path()));
}

/// `unchanged_at` of a struct's field: one call per field in derived code, where the path
/// step and the call would be two.
#[inline]
pub fn unchanged_field<T: crate::typed::Validate + ?Sized>(
    new: &T,
    old: &T,
    path: &crate::report::path::At<'_>,
    name: &'static str,
    out: &mut crate::check::ratchet::Unchanged,
) -> bool {
    new.unchanged_at(old, &path.property(name), out)
}

/// `unchanged_at` of a list-map field: items correlate by their key values.
pub fn unchanged_map_list<T: crate::typed::Validate + serde::Serialize>(
    new: Option<&Vec<T>>,
    old: Option<&Vec<T>>,
    keys: &[&str],
    path: &crate::report::path::At<'_>,
    out: &mut crate::check::ratchet::Unchanged,
) -> bool {
    let (new, old) = match (new, old) {
        (Some(n), Some(o)) => (n, o),
        (None, None) => return true,
        _ => return false,
    };
    let mut same = new.len() == old.len();
    let matched = crate::check::listtype::correlate(new, old, keys);
    for i in 0..matched.len() {
        match matched[i] {
            Some(j) => same &= new[i].unchanged_at(&old[j], &path.index(i), out) && i == j,
            None => same = false,
        }
    }
    if same {
        out.insert(path);
    }
    same
}

/// The most [`growth_ratio`] may be for growth to count as linear: 10x the input takes ~10x
/// the time when linear and ~100x when quadratic; the room between is for a busy machine
/// (tests run in parallel, and on two cores).
pub const LINEAR_GROWTH: f64 = 30.0;

/// How much longer `run(10 * n)` takes than `run(n)`: the tests of hostile-input classes
/// assert linear growth with it (below [`LINEAR_GROWTH`] for 10x the input). Each size is timed as the
/// best of seven trials, since other work on the machine only ever adds time; a ratio of two
/// sizes in one run, never an absolute time.
pub fn growth_ratio(n: usize, mut run: impl FnMut(usize)) -> f64 {
    let mut best = |size: usize| {
        (0..7)
            .map(|_| {
                let started = std::time::Instant::now();
                run(size);
                started.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
    };
    let small = best(n).max(1e-4);
    best(10 * n) / small
}

/// The CEL rules of `value` (updated from `old`) run twice: natively where they were compiled
/// to Rust, and all interpreted. `Err` says how the two differ (issues, warnings, or where
/// evaluation stopped): the differential test of the native code.
#[cfg(feature = "cel")]
pub fn cel_differential<T: crate::typed::Validate + ?Sized>(value: &T, old: Option<&T>) -> Result<(), String> {
    if !value.has_rules() {
        return Ok(());
    }
    let run = |mut cx: crate::cel::running::cx::Cx| {
        value.validate_cel_at(old, &crate::report::path::At::ROOT, &mut cx);
        let show = |issues: &[crate::report::issue::Issue]| issues.iter().map(ToString::to_string).collect::<Vec<_>>();
        ((show(&cx.issues), show(&cx.warnings), cx.stopped()), cx.uninterpretable())
    };
    let ((native, _), (interpreted, uninterpretable)) =
        (run(crate::cel::running::cx::Cx::default()), run(crate::cel::running::cx::Cx::interpreted()));
    if uninterpretable {
        return Err("rules ran natively in the interpreted run: their types have no CEL values (generate with codegen's `interpretable` option)".to_owned());
    }
    if native == interpreted { Ok(()) } else { Err(format!("native: {native:?}\ninterpreted: {interpreted:?}")) }
}

/// What a failing CEL rule prints for a derived enum's value: its string or number.
pub fn kind_bad_value<K: Kind>(value: &K) -> crate::report::issue::BadValue {
    use crate::report::issue::BadValue;
    match (value.as_str(), value.as_num()) {
        (Some(s), _) => BadValue::Str(s.to_owned()),
        (None, Some(Num::Int(i))) => BadValue::Int(i),
        (None, Some(Num::Float(f))) => BadValue::Float(f),
        (None, None) => BadValue::Omit,
    }
}

/// Written by kubeskema's `Serialize` derive: the type leaves an `Option` field out when it is
/// `None`. A type serialized by serde's derive writes `null` there (unless
/// `skip_serializing_if` says otherwise), and its schema must let `null` through, or
/// server-side apply refuses the object.
pub trait SkipsAbsent {}

/// Which of the two a derived type is, asked by its schema: `(&&WritesNull::<T>::PROBE).writes_null()`
/// is `false` for a [`SkipsAbsent`] type and `true` for any other (autoref specialization:
/// the derive asks for a concrete type, so the choice is made at compile time).
pub struct WritesNull<T: ?Sized>(std::marker::PhantomData<T>);

impl<T: ?Sized> WritesNull<T> {
    /// The probe.
    pub const PROBE: WritesNull<T> = WritesNull(std::marker::PhantomData);
}

/// Chosen for [`SkipsAbsent`] types (the receiver matches one reference earlier).
pub trait SkipsAbsentProbe {
    /// `false`: `None` is left out.
    fn writes_null(&self) -> bool {
        false
    }
}
impl<T: SkipsAbsent + ?Sized> SkipsAbsentProbe for &WritesNull<T> {}

/// Chosen for every other type.
pub trait WritesNullProbe {
    /// `true`: serde's derive writes `None` as `null`.
    fn writes_null(&self) -> bool {
        true
    }
}
impl<T: ?Sized> WritesNullProbe for WritesNull<T> {}

/// A field's schema default (`default_json`, its JSON text) as a value of its type, read as
/// the validating read fills an absent field: for constructors (`new`, `Default`), which
/// make what reading `{}` would make.
///
/// # Panics
///
/// When the default is not a value of the type (`default_json = "\"x\""` on an `i64`): every
/// read of an object without the field fails the same way, so such a type is refused by the
/// derive where it can tell (a scalar default) and by the CRD check (the apiserver's
/// `default` check) elsewhere.
pub fn schema_default<T: serde::de::DeserializeOwned>(field: &str, json: &str) -> T {
    serde_json::from_str(json)
        .unwrap_or_else(|e| panic!("the default of `{field}` ({json}) is not a value of its type: {e}"))
}
