//! One small function per schema keyword, each returning the issue the apiserver reports
//! (kube-openapi's `validate` package as the apiextensions-apiserver wraps its results). The
//! derive's generated code and the dynamic validator both call these: one semantics.
//!
//! Messages follow kube-openapi's templates, `<path> in body <phrase>`, where `<path>` is the
//! dotted OpenAPI path (empty at the root, leaving a leading space: a quirk kept).
//! Target: Kubernetes 1.36, range-of-format checks included ([`number_checks`]).

use kubeskema_attributes::number::FormatRange;
use serde_json::{Number, Value};

use crate::report::issue::{BadValue, ErrorType, Issue, go_float, go_quote};
use crate::report::path::Place;

/// A numeric bound from the schema (`maximum: 10`, `minimum: 0.5`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    /// The bound as a float (kube-openapi keeps bounds as float64).
    pub value: f64,
}

impl Bound {
    /// A bound from the schema's JSON number.
    pub fn of(n: &Number) -> Bound {
        Bound { value: n.as_f64().unwrap_or_default() }
    }

    /// Whether `value` is above this bound as a `maximum` (kube-openapi's comparison).
    #[inline]
    fn exceeded_by(self, value: Num, exclusive: bool) -> bool {
        match value {
            Num::Int(v) => {
                let m = self.truncated();
                if exclusive { v >= m } else { v > m }
            }
            Num::Float(v) => {
                if exclusive {
                    v >= self.value
                } else {
                    v > self.value
                }
            }
        }
    }

    /// Whether `value` is below this bound as a `minimum` (kube-openapi's comparison).
    #[inline]
    fn undercut_by(self, value: Num, exclusive: bool) -> bool {
        match value {
            Num::Int(v) => {
                let m = self.truncated();
                if exclusive { v <= m } else { v < m }
            }
            Num::Float(v) => {
                if exclusive {
                    v <= self.value
                } else {
                    v < self.value
                }
            }
        }
    }

    /// \[quirk\] For an int64 value, kube-openapi truncates the bound to int64 before comparing
    /// and printing (`maximum: 1.5` reads as `1` against `2`).
    fn truncated(self) -> i64 {
        self.value as i64
    }
}

/// A number as the apiserver decoded it: int64 when the JSON literal had no fraction or
/// exponent and fits, float64 otherwise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// An int64.
    Int(i64),
    /// A float64 (`1.0`, `1e3`, or an integer beyond int64).
    Float(f64),
}

impl Num {
    /// The number as the apiserver decodes a JSON number.
    pub fn of(n: &Number) -> Num {
        match n.as_i64() {
            Some(i) => Num::Int(i),
            None => Num::Float(n.as_f64().unwrap_or_default()),
        }
    }

    fn bad_value(self) -> BadValue {
        match self {
            Num::Int(i) => BadValue::Int(i),
            Num::Float(f) => BadValue::Float(f),
        }
    }

    /// A bound as an issue about this value writes it: truncated for an int64, as compared.
    fn show_bound(self, bound: Bound) -> String {
        match self {
            Num::Int(_) => bound.truncated().to_string(),
            Num::Float(_) => go_float(bound.value),
        }
    }
}

fn in_body(path: &dyn Place) -> String {
    format!("{} in body", path.openapi())
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `required`: a key that is absent (a present `null` satisfies `required`).
pub fn required(parent: &dyn Place, key: &str) -> Issue {
    Issue::new(ErrorType::Required, &parent.to_path().key(key), "required", BadValue::Omit, "")
}

/// The runes (Unicode scalar values) of a string. A string has no more runes than bytes, so
/// the length checks count them only when the byte length does not decide.
fn runes(value: &str) -> u64 {
    value.chars().count() as u64
}

/// `maxLength`, counted in runes (Unicode scalar values), reported in bytes' words as the
/// apiserver does.
pub fn max_length(path: &dyn Place, value: &str, max: i64) -> Option<Issue> {
    (value.len() as i64 > max && runes(value) as i64 > max).then(|| {
        // Go's `field.TooLong` words a negative limit differently.
        let detail = match u64::try_from(max) {
            Ok(max) => format!("may not be more than {}", plural(max, "byte", "bytes")),
            Err(_) => "value is too long".to_owned(),
        };
        Issue::new(ErrorType::TooLong, path, "maxLength", BadValue::Str(value.to_owned()), detail)
    })
}

/// `minLength`, counted in runes.
pub fn min_length(path: &dyn Place, value: &str, min: i64) -> Option<Issue> {
    // Four bytes at most per rune: a string of 4·min bytes has min runes.
    let len = value.len() as i64;
    (len < min || (len < min.saturating_mul(4) && (runes(value) as i64) < min)).then(|| {
        Issue::new(
            ErrorType::Invalid,
            path,
            "minLength",
            BadValue::Str(value.to_owned()),
            format!("{} should be at least {min} chars long", in_body(path)),
        )
    })
}

/// `maxLength`, then `minLength`, then `pattern` (asked only when both lengths pass): the
/// first failure alone, as kube-openapi's string validator reports a string.
pub fn first_string_failure(
    path: &dyn Place,
    value: &str,
    max: Option<i64>,
    min: Option<i64>,
    pattern: impl FnOnce() -> Option<Issue>,
) -> Option<Issue> {
    max.and_then(|n| max_length(path, value, n))
        .or_else(|| min.and_then(|n| min_length(path, value, n)))
        .or_else(pattern)
}

/// `pattern`: the (already translated) regular expression must match somewhere in the value.
/// `source` is the pattern as the schema wrote it, for the message.
pub fn pattern(path: &dyn Place, value: &str, re: &crate::check::pattern::Matcher, source: &str) -> Option<Issue> {
    (!re.is_match(value)).then(|| {
        Issue::new(
            ErrorType::Invalid,
            path,
            "pattern",
            BadValue::Str(value.to_owned()),
            format!("{} should match '{source}'", in_body(path)),
        )
    })
}

/// `pattern` with the schema's pattern as compiled: a pattern that does not compile (only
/// reachable for schemas that skipped the structural check) fails every string, in
/// kube-openapi's words.
pub fn compiled_pattern(
    path: &dyn Place,
    value: &str,
    compiled: &Result<crate::check::pattern::Matcher, crate::check::pattern::PatternError>,
    source: &str,
) -> Option<Issue> {
    match compiled {
        Ok(re) => pattern(path, value, re, source),
        Err(e) => Some(Issue::new(
            ErrorType::Invalid,
            path,
            "pattern",
            BadValue::Str(value.to_owned()),
            format!("{} should match '{source}, but pattern is invalid: {e}'", in_body(path)),
        )),
    }
}

// The count checks run on every list and map that has one, and nearly always pass: the
// comparison is inlined into the caller, the issue is built out of line.

/// `maxItems`.
#[inline]
pub fn max_items(path: &dyn Place, len: usize, max: i64) -> Option<Issue> {
    (len as i64 > max).then(|| too_many(path, "maxItems", len, max))
}

/// `maxProperties` (reported with the word "items", as the apiserver does).
#[inline]
pub fn max_properties(path: &dyn Place, len: usize, max: i64) -> Option<Issue> {
    (len as i64 > max).then(|| too_many(path, "maxProperties", len, max))
}

#[cold]
#[inline(never)]
fn too_many(path: &dyn Place, keyword: &'static str, len: usize, max: i64) -> Issue {
    // Go's `field.TooMany` words a negative limit differently.
    let detail = match u64::try_from(max) {
        Ok(max) => format!("must have at most {}", plural(max, "item", "items")),
        Err(_) => "has too many items".to_owned(),
    };
    Issue::new(ErrorType::TooMany, path, keyword, BadValue::Int(len as i64), detail)
}

/// `minItems`.
#[inline]
pub fn min_items(path: &dyn Place, len: usize, min: i64) -> Option<Issue> {
    ((len as i64) < min).then(|| too_few(path, "minItems", len, min, "items"))
}

/// `minProperties`.
#[inline]
pub fn min_properties(path: &dyn Place, len: usize, min: i64) -> Option<Issue> {
    ((len as i64) < min).then(|| too_few(path, "minProperties", len, min, "properties"))
}

#[cold]
#[inline(never)]
fn too_few(path: &dyn Place, keyword: &'static str, len: usize, min: i64, what: &str) -> Issue {
    Issue::new(
        ErrorType::Invalid,
        path,
        keyword,
        BadValue::Int(len as i64),
        format!("{} should have at least {min} {what}", in_body(path)),
    )
}

/// `maximum` with `exclusiveMaximum`.
pub fn maximum(path: &dyn Place, value: Num, max: Bound, exclusive: bool) -> Option<Issue> {
    let phrase = if exclusive { "less than" } else { "less than or equal to" };
    max.exceeded_by(value, exclusive).then(|| {
        let shown = value.show_bound(max);
        Issue::new(
            ErrorType::Invalid,
            path,
            "maximum",
            value.bad_value(),
            format!("{} should be {phrase} {shown}", in_body(path)),
        )
    })
}

/// `minimum` with `exclusiveMinimum`.
pub fn minimum(path: &dyn Place, value: Num, min: Bound, exclusive: bool) -> Option<Issue> {
    let phrase = if exclusive { "greater than" } else { "greater than or equal to" };
    min.undercut_by(value, exclusive).then(|| {
        let shown = value.show_bound(min);
        Issue::new(
            ErrorType::Invalid,
            path,
            "minimum",
            value.bad_value(),
            format!("{} should be {phrase} {shown}", in_body(path)),
        )
    })
}

/// A schema node's single numeric type and its format as written (`""` when none): what the
/// range-of-format checks hold values and bounds to. Nodes with no single numeric type
/// (untyped, int-or-string) have none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NumberType<'a> {
    /// `integer` or `number`.
    pub type_: &'a str,
    /// The format as the schema wrote it.
    pub format: &'a str,
    /// The range `type_` and `format` bound, decided once (the check runs on every number).
    range: FormatRange,
}

impl<'a> NumberType<'a> {
    /// The number type `type_` (`integer` or `number`) with `format` as written.
    pub const fn new(type_: &'a str, format: &'a str) -> NumberType<'a> {
        NumberType { type_, format, range: FormatRange::of(type_, format) }
    }

    /// The number type of a node typed `type_` (when that is `integer` or `number`).
    pub const fn of(type_: Option<&'a str>, format: &'a str) -> Option<NumberType<'a>> {
        match type_ {
            Some(t) => Some(NumberType::new(t, format)),
            None => None,
        }
    }

    /// The format the apiserver keeps for this type (`""` when it erases it).
    fn surviving_format(self) -> &'a str {
        if kept_format(self.format, &[self.type_]) { self.format } else { "" }
    }

    /// [ver 1.36+] go-openapi's `IsValueValidAgainstRange`: whether the number, written out
    /// in decimal, parses as the type and (surviving) format: an int64 by default, an int32,
    /// or a float32 for `number` + `float`.
    #[inline]
    fn holds(self, n: Num) -> bool {
        match n {
            Num::Int(i) => self.range.holds_int(i),
            Num::Float(f) => self.range.holds_float(f),
        }
    }

    /// The plain error when `n` is out of range; `what` names the checked number. Inlined
    /// down to `holds`: it runs on every number and on every bound.
    #[inline]
    pub(crate) fn range_issue(self, path: &dyn Place, what: &str, n: Num) -> Option<Issue> {
        if self.holds(n) { None } else { self.out_of_range(path, what) }
    }

    #[cold]
    #[inline(never)]
    fn out_of_range(self, path: &dyn Place, what: &str) -> Option<Issue> {
        let of_type = match self.surviving_format() {
            "" => format!("{} (default format)", self.type_),
            f => format!("{} with format {f}", self.type_),
        };
        Some(Issue::plain(path, "format", format!("{what} value must be of type {of_type} in {}", path.openapi())))
    }
}

/// The numeric keywords of one schema node.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NumberRules<'a> {
    /// The node's single numeric type, if it has one.
    pub number_type: Option<NumberType<'a>>,
    /// `multipleOf`.
    pub multiple_of: Option<f64>,
    /// `maximum`.
    pub maximum: Option<f64>,
    /// `exclusiveMaximum`.
    pub exclusive_maximum: bool,
    /// `minimum`.
    pub minimum: Option<f64>,
    /// `exclusiveMinimum`.
    pub exclusive_minimum: bool,
}

/// The number checks of one node, in kube-openapi's order: [ver 1.36+] the value's range for
/// its type and format, then multipleOf, maximum, minimum. A bound the type cannot hold (a
/// fractional `maximum` of an integer) is reported itself, on every value **\[quirk\]**, and
/// compared in float math instead of the int64 truncation.
#[inline]
pub fn number_checks(path: &dyn Place, value: Num, rules: &NumberRules, out: &mut Vec<Issue>) {
    if !rules.plainly_held_by(value) {
        number_issues(path, value, rules, out);
    }
}

impl NumberRules<'_> {
    /// Whether `value` passes every check and no bound is out of its type's range: what
    /// nearly every number is told, answered inline without a call (this runs on every
    /// number). `multipleOf` is left to the full checks.
    #[inline]
    fn plainly_held_by(&self, value: Num) -> bool {
        let holds = |n: Num| self.number_type.is_none_or(|t| t.holds(n));
        self.multiple_of.is_none()
            && holds(value)
            && self
                .maximum
                .is_none_or(|m| holds(Num::Float(m)) && !Bound { value: m }.exceeded_by(value, self.exclusive_maximum))
            && self
                .minimum
                .is_none_or(|m| holds(Num::Float(m)) && !Bound { value: m }.undercut_by(value, self.exclusive_minimum))
    }
}

/// [`number_checks`]' issues, in their order.
#[cold]
#[inline(never)]
fn number_issues(path: &dyn Place, value: Num, rules: &NumberRules, out: &mut Vec<Issue>) {
    out.extend(rules.number_type.and_then(|t| t.range_issue(path, "Checked", value)));
    if let Some(f) = rules.multiple_of {
        let v = compared(path, value, rules, "MultipleOf", f, out);
        out.extend(multiple_of(path, v, Bound { value: f }));
    }
    if let Some(m) = rules.maximum {
        let v = compared(path, value, rules, "Maximum boundary", m, out);
        out.extend(maximum(path, v, Bound { value: m }, rules.exclusive_maximum));
    }
    if let Some(m) = rules.minimum {
        let v = compared(path, value, rules, "Minimum boundary", m, out);
        out.extend(minimum(path, v, Bound { value: m }, rules.exclusive_minimum));
    }
}

/// `value` as compared with `bound`: itself when the bound holds in the node's type;
/// otherwise the bound's range issue is reported and an int64 value compared as a float.
/// A function rather than a closure so that it is inlined: it runs on every bound of every
/// number.
#[inline(always)]
fn compared(path: &dyn Place, value: Num, rules: &NumberRules, what: &str, bound: f64, out: &mut Vec<Issue>) -> Num {
    let Some(issue) = rules.number_type.and_then(|t| t.range_issue(path, what, Num::Float(bound))) else {
        return value;
    };
    out.push(issue);
    match value {
        Num::Int(i) => Num::Float(i as f64),
        float => float,
    }
}

/// go-openapi's `IsFloat64AJSONInteger`: a float that is an integer within float precision.
pub fn is_json_integer(f: f64) -> bool {
    if f.is_nan() || f.is_infinite() || f.abs() > 9_007_199_254_740_991.0 {
        return false;
    }
    let r = f.round();
    f == r || (f - r).abs() < 1e-9 * r.abs()
}

/// `MultipleOfMustBePositive`: a factor that is not positive refuses every value, at the
/// value's place, the factor (as compared: truncated for an integer) as the bad value.
fn not_positive(path: &dyn Place, factor: BadValue, written: &str) -> Issue {
    let detail = format!("factor MultipleOf declared for {} must be positive: {written}", path.openapi());
    Issue::new(ErrorType::Invalid, path, "multipleOf", factor, detail)
}

/// `multipleOf`.
pub fn multiple_of(path: &dyn Place, value: Num, factor: Bound) -> Option<Issue> {
    match value {
        Num::Int(v) => {
            // [quirk] the factor is truncated to int64 for an int64 value; a fractional factor
            // becomes 0, which kube-openapi reports as not positive (untyped nodes; a typed node
            // reports the factor's range instead, see `number_checks`).
            let f = factor.truncated();
            if f <= 0 {
                return Some(not_positive(path, BadValue::Int(f), &f.to_string()));
            }
            (v % f != 0).then(|| {
                Issue::new(
                    ErrorType::Invalid,
                    path,
                    "multipleOf",
                    value.bad_value(),
                    format!("{} should be a multiple of {f}", in_body(path)),
                )
            })
        }
        Num::Float(_) if factor.value <= 0.0 => {
            Some(not_positive(path, BadValue::Float(factor.value), &go_float(factor.value)))
        }
        Num::Float(v) => {
            let q = if factor.value < 1.0 { v * (1.0 / factor.value) } else { v / factor.value };
            (!is_json_integer(q)).then(|| {
                Issue::new(
                    ErrorType::Invalid,
                    path,
                    "multipleOf",
                    value.bad_value(),
                    format!("{} should be a multiple of {}", in_body(path), go_float(factor.value)),
                )
            })
        }
    }
}

/// The JSON type name of a value, as kube-openapi names it in type errors.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        // [quirk] the apiserver's decoder keeps int64 and reads any other number as float64,
        // so a whole number beyond int64 (`9223372036854775808`) is a "number".
        Value::Number(n) if n.as_i64().is_none() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The type check (§7.3) of `value` against the schema's `types` (empty: untyped) and
/// `format` as written, with the format-named pre-check and the format short-cut for strings
/// and arrays.
pub fn type_check(
    path: &dyn Place,
    value: &Value,
    types: &[&str],
    format: Option<&str>,
    nullable: bool,
) -> Option<Issue> {
    let kept_format = format.filter(|f| kept_format(f, types));
    if types.is_empty() && kept_format.is_none() {
        return None;
    }
    let kind = json_type(value);
    if value.is_null() {
        return (!types.is_empty() && !nullable).then(|| type_mismatch(path, "null", &types.join(",")));
    }
    let whole_float = matches!(value, Value::Number(n) if n.is_f64() && n.as_f64().is_some_and(is_json_integer));
    let fits = |t: &&str| match *t {
        "integer" => kind == "integer" || whole_float,
        "number" => kind == "integer" || kind == "number",
        other => other == kind,
    };
    if let Some(f) = kept_format {
        let string_or_array = matches!(value, Value::String(_) | Value::Array(_));
        if !string_or_array && !types.iter().any(fits) {
            // [quirk] the error names the format and a Go kind.
            let go_kind = match value {
                Value::Number(_) if kind == "integer" => "int64",
                Value::Number(_) => "float64",
                _ => "",
            };
            let mut issue = type_mismatch(path, go_kind, f);
            issue.keyword = "format";
            return Some(issue);
        }
        if string_or_array && !types.iter().any(|t| *t == "integer" || *t == "number") {
            // [quirk] a string format accepts arrays without a type error.
            return None;
        }
    }
    (!types.iter().any(fits)).then(|| type_mismatch(path, kind, &types.join(",")))
}

/// Whether a format survives the apiserver's post-processing for these types.
pub(crate) fn kept_format(f: &str, types: &[&str]) -> bool {
    let single = if types.len() == 1 { types[0] } else { "" };
    let numeric = match single {
        "integer" => ["int32", "int64"].contains(&f),
        "number" => ["float", "double"].contains(&f),
        _ => false,
    };
    numeric
        || (types.len() <= 1 && crate::check::format::supported(single, f).is_some())
        || (types.len() > 1 && crate::check::format::supported("", f).is_some())
}

/// A value of the wrong JSON type: `spec.x: Invalid value: "string": spec.x in body must be
/// of type integer: "string"`. `types` is the schema's type list (`integer,string` for
/// int-or-string).
pub fn type_mismatch(path: &dyn Place, actual: &str, types: &str) -> Issue {
    Issue::new(
        ErrorType::TypeInvalid,
        path,
        "type",
        BadValue::Str(actual.to_owned()),
        format!("{} must be of type {types}: {}", in_body(path), go_quote(actual)),
    )
}

/// Whether `value` equals an allowed `enum` value as kube-openapi compares them: deep
/// equality, or equality after converting the value to the allowed value's Go type
/// (\[quirk\]: `1.7` matches `1`; an integer `97` matches `"a"`). `null` never matches.
pub fn enum_matches(value: &Value, allowed: &Value) -> bool {
    match (value, allowed) {
        (Value::Null, _) => false,
        (a, b) if a == b => true,
        (Value::Number(v), Value::Number(a)) => match (Num::of(v), Num::of(a)) {
            (Num::Float(f), Num::Int(i)) => f as i64 == i,
            (Num::Int(i), Num::Float(f)) => i as f64 == f,
            (Num::Int(x), Num::Int(y)) => x == y,
            (Num::Float(x), Num::Float(y)) => x == y,
        },
        (Value::Number(v), Value::String(s)) => {
            // Go's string(rune(i)) conversion.
            v.as_i64().and_then(|i| u32::try_from(i).ok()).and_then(char::from_u32).is_some_and(|c| {
                let mut buf = [0u8; 4];
                c.encode_utf8(&mut buf) == s
            })
        }
        _ => false,
    }
}

/// `enum`: `spec.x: Unsupported value: "v": supported values: "a", "b"` (every allowed value
/// quoted, numbers included).
pub fn enumeration(path: &dyn Place, value: &Value, allowed: &[Value]) -> Option<Issue> {
    if allowed.iter().any(|a| enum_matches(value, a)) {
        return None;
    }
    let supported: Vec<String> = allowed
        .iter()
        .map(|a| match a {
            Value::String(s) => s.clone(),
            // Go JSON-encodes the others first (`1.0` → `"1"`).
            other => crate::report::issue::go_json(other),
        })
        .collect();
    Some(Issue::new(
        ErrorType::NotSupported,
        path,
        "enum",
        BadValue::of(value),
        crate::report::issue::supported_values(&supported),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::path::Path;
    use serde_json::json;

    fn at(p: &str) -> Path {
        p.split('.').fold(Path::root(), |acc, k| acc.key(k))
    }

    fn text(i: Option<Issue>) -> String {
        i.map(|i| i.to_string()).unwrap_or_default()
    }

    #[test]
    fn strings_pass_and_fail_with_apiserver_messages() {
        let p = at("spec.name");
        assert_eq!(text(max_length(&p, "abcd", 3)), "spec.name: Too long: may not be more than 3 bytes");
        assert_eq!(text(max_length(&p, "ab", 1)), "spec.name: Too long: may not be more than 1 byte");
        assert!(max_length(&p, "héé", 3).is_none(), "runes, not bytes");
        assert_eq!(
            text(min_length(&p, "ab", 3)),
            "spec.name: Invalid value: \"ab\": spec.name in body should be at least 3 chars long"
        );
        assert!(min_length(&p, "abc", 3).is_none());
        let re = crate::check::pattern::Matcher::compile("^[a-z]+$").unwrap();
        assert_eq!(
            text(pattern(&p, "ABC", &re, "^[a-z]+$")),
            "spec.name: Invalid value: \"ABC\": spec.name in body should match '^[a-z]+$'"
        );
        assert!(pattern(&p, "abc", &re, "^[a-z]+$").is_none());
    }

    #[test]
    fn counts_pass_and_fail_with_apiserver_messages() {
        let p = at("spec.l");
        assert_eq!(text(max_items(&p, 3, 2)), "spec.l: Too many: 3: must have at most 2 items");
        assert_eq!(text(max_properties(&p, 2, 1)), "spec.l: Too many: 2: must have at most 1 item");
        assert_eq!(text(min_items(&p, 1, 2)), "spec.l: Invalid value: 1: spec.l in body should have at least 2 items");
        assert_eq!(
            text(min_properties(&p, 1, 2)),
            "spec.l: Invalid value: 1: spec.l in body should have at least 2 properties"
        );
        assert!(max_items(&p, 2, 2).is_none() && min_items(&p, 2, 2).is_none());
        assert_eq!(required(&at("spec"), "foo").to_string(), "spec.foo: Required value");
    }

    #[test]
    fn bounds_follow_the_apiservers_int_and_float_rules() {
        let p = at("spec.x");
        let b = |f: f64| Bound { value: f };
        assert_eq!(
            text(maximum(&p, Num::Int(11), b(10.0), false)),
            "spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10"
        );
        assert_eq!(
            text(maximum(&p, Num::Int(10), b(10.0), true)),
            "spec.x: Invalid value: 10: spec.x in body should be less than 10"
        );
        assert!(maximum(&p, Num::Int(10), b(10.0), false).is_none());
        // [quirk] int values compare against the truncated bound.
        assert_eq!(
            text(maximum(&p, Num::Int(2), b(1.5), false)),
            "spec.x: Invalid value: 2: spec.x in body should be less than or equal to 1"
        );
        assert!(maximum(&p, Num::Int(1), b(1.5), true).is_some(), "exclusiveMaximum 1.5 rejects 1");
        assert!(minimum(&p, Num::Int(0), b(0.5), false).is_none(), "minimum 0.5 accepts 0");
        assert_eq!(
            text(minimum(&p, Num::Float(0.25), b(0.5), false)),
            "spec.x: Invalid value: 0.25: spec.x in body should be greater than or equal to 0.5"
        );
        assert_eq!(
            text(minimum(&p, Num::Int(1), b(1.0), true)),
            "spec.x: Invalid value: 1: spec.x in body should be greater than 1"
        );
        assert_eq!(
            text(maximum(&p, Num::Float(2e6), b(1e6), false)),
            "spec.x: Invalid value: 2e+06: spec.x in body should be less than or equal to 1e+06"
        );
    }

    #[test]
    fn range_of_format_checks_values_and_bounds() {
        let p = at("spec.x");
        let run = |rules: NumberRules, v: Num| -> Vec<String> {
            let mut out = Vec::new();
            number_checks(&p, v, &rules, &mut out);
            out.iter().map(ToString::to_string).collect()
        };
        let integer = Some(NumberType::new("integer", ""));
        let int32 = Some(NumberType::new("integer", "int32"));
        let float = Some(NumberType::new("number", "float"));
        assert!(run(NumberRules { number_type: integer, ..Default::default() }, Num::Float(3.0)).is_empty());
        assert_eq!(
            run(NumberRules { number_type: integer, ..Default::default() }, Num::Float(1.0000000001)),
            vec!["<nil>: Invalid value: \"\": Checked value must be of type integer (default format) in spec.x"]
        );
        // [quirk] -2^63 is an int64, but go-openapi writes the float as -9223372036854776000
        // (kube-apiserver 1.36.3 refuses `-9223372036854775809` and `-9223372036854775808.0`
        // so; `fixtures/oracle/targeted.jsonl`, class `beyond-int64-written`).
        let int64 = NumberRules { number_type: integer, ..Default::default() };
        assert_eq!(
            run(int64, Num::Float(-9_223_372_036_854_775_808.0)),
            vec!["<nil>: Invalid value: \"\": Checked value must be of type integer (default format) in spec.x"]
        );
        assert!(
            run(int64, Num::Float(-9_223_372_036_854_774_784.0)).is_empty(),
            "the next float up is written exactly"
        );
        assert!(run(int64, Num::Float(9_223_372_036_854_774_784.0)).is_empty());
        assert_eq!(run(int64, Num::Float(1e300)).len(), 1);
        assert_eq!(
            run(NumberRules { number_type: int32, ..Default::default() }, Num::Int(1 << 31)),
            vec!["<nil>: Invalid value: \"\": Checked value must be of type integer with format int32 in spec.x"]
        );
        assert_eq!(
            run(NumberRules { number_type: float, ..Default::default() }, Num::Float(1e39)),
            vec!["<nil>: Invalid value: \"\": Checked value must be of type number with format float in spec.x"]
        );
        // [quirk] a fractional bound of an integer is an error on every value, compared as floats.
        let fractional = NumberRules { number_type: integer, maximum: Some(1.5), ..Default::default() };
        assert_eq!(
            run(fractional, Num::Int(1)),
            vec![
                "<nil>: Invalid value: \"\": Maximum boundary value must be of type integer (default format) in spec.x"
            ]
        );
        assert_eq!(
            run(fractional, Num::Int(2))[1],
            "spec.x: Invalid value: 2: spec.x in body should be less than or equal to 1.5"
        );
        let factor = NumberRules { number_type: integer, multiple_of: Some(0.5), ..Default::default() };
        assert_eq!(
            run(factor, Num::Int(3)),
            vec!["<nil>: Invalid value: \"\": MultipleOf value must be of type integer (default format) in spec.x"],
            "3 is a multiple of 0.5 in float math"
        );
        // Untyped nodes keep the int64 truncation.
        let untyped = NumberRules { maximum: Some(1.5), ..Default::default() };
        assert_eq!(
            run(untyped, Num::Int(2)),
            vec!["spec.x: Invalid value: 2: spec.x in body should be less than or equal to 1"]
        );
    }

    #[test]
    fn multiple_of_uses_the_json_integer_tolerance() {
        let p = at("spec.x");
        let b = |f: f64| Bound { value: f };
        assert_eq!(
            text(multiple_of(&p, Num::Int(7), b(5.0))),
            "spec.x: Invalid value: 7: spec.x in body should be a multiple of 5"
        );
        assert!(multiple_of(&p, Num::Int(10), b(5.0)).is_none());
        assert!(multiple_of(&p, Num::Float(0.3), b(0.1)).is_none(), "0.3 is a multiple of 0.1");
        assert_eq!(
            text(multiple_of(&p, Num::Float(0.35), b(0.1))),
            "spec.x: Invalid value: 0.35: spec.x in body should be a multiple of 0.1"
        );
        // A factor that is not positive, as kube-apiserver 1.36.3 words it (the factor truncated
        // where the value is an integer).
        assert_eq!(
            text(multiple_of(&p, Num::Int(3), b(0.5))),
            "spec.x: Invalid value: 0: factor MultipleOf declared for spec.x must be positive: 0"
        );
        assert_eq!(
            text(multiple_of(&p, Num::Int(3), b(-2.5))),
            "spec.x: Invalid value: -2: factor MultipleOf declared for spec.x must be positive: -2"
        );
        assert_eq!(
            text(multiple_of(&p, Num::Float(2.5), b(-2.5))),
            "spec.x: Invalid value: -2.5: factor MultipleOf declared for spec.x must be positive: -2.5"
        );
        assert_eq!(
            text(multiple_of(&p, Num::Float(2.5), b(0.0))),
            "spec.x: Invalid value: 0: factor MultipleOf declared for spec.x must be positive: 0"
        );
        assert!(is_json_integer(1.0000000001) && !is_json_integer(0.5) && !is_json_integer(1e20));
    }

    #[test]
    fn types_and_enums_with_apiserver_messages() {
        let p = at("spec.replicas");
        assert_eq!(
            type_mismatch(&p, "string", "integer").to_string(),
            "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\""
        );
        assert_eq!(json_type(&json!(1.0)), "number");
        assert_eq!(
            text(enumeration(&p, &json!("c"), &[json!("a"), json!("b")])),
            "spec.replicas: Unsupported value: \"c\": supported values: \"a\", \"b\""
        );
        assert_eq!(
            text(enumeration(&p, &json!(3), &[json!(1), json!(2)])),
            "spec.replicas: Unsupported value: 3: supported values: \"1\", \"2\""
        );
        assert!(enumeration(&p, &json!(1.7), &[json!(1)]).is_none(), "[quirk] 1.7 matches 1");
        assert!(enumeration(&p, &json!(97), &[json!("a")]).is_none(), "[quirk] 97 matches \"a\"");
        assert!(enumeration(&p, &json!(null), &[json!(null)]).is_some(), "null never matches");
        assert_eq!(text(max_length(&Path::root(), "ab", 1)), ": Too long: may not be more than 1 byte");
        assert_eq!(
            text(min_length(&Path::root(), "", 1)),
            ": Invalid value: \"\":  in body should be at least 1 chars long"
        );
    }
}

#[cfg(test)]
mod negative_counts {
    use super::*;
    use crate::report::path::Path;

    /// kube-apiserver 1.36.3 takes negative counts: a maximum fails every value, in Go's
    /// words for a negative limit; a minimum fails none.
    #[test]
    fn a_negative_maximum_fails_everything_and_a_negative_minimum_nothing() {
        let p = Path::root().property("spec").property("x");
        let text = |i: Option<Issue>| i.map(|i| i.to_string());
        assert_eq!(text(max_length(&p, "", -1)).as_deref(), Some("spec.x: Too long: value is too long"));
        assert_eq!(text(max_items(&p, 1, -1)).as_deref(), Some("spec.x: Too many: 1: has too many items"));
        assert_eq!(text(max_properties(&p, 0, -1)).as_deref(), Some("spec.x: Too many: 0: has too many items"));
        assert!(
            min_length(&p, "", -1).is_none() && min_items(&p, 0, -1).is_none() && min_properties(&p, 0, -1).is_none()
        );
    }
}

/// The inline answer of `number_checks` never passes what its full checks refuse.
#[cfg(test)]
mod inline_numbers {
    use super::*;
    use crate::report::path::Path;
    use proptest::prelude::*;

    fn bound() -> impl Strategy<Value = f64> {
        prop_oneof![0.0f64..256.0, -1e19f64..1e19, (0i32..256).prop_map(f64::from), Just(2f64.powi(63))]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn agrees_with_the_full_checks(
            int in prop_oneof![-3i64..300, any::<i64>()],
            float in prop_oneof![-3.0f64..300.0, any::<f64>()],
            is_int: bool,
            typing in 0usize..6,
            maximum in proptest::option::of(bound()),
            minimum in proptest::option::of(bound()),
            multiple_of in proptest::option::of(prop_oneof![0.5f64..4.0, (1i32..4).prop_map(f64::from)]),
            exclusive_maximum: bool,
            exclusive_minimum: bool,
        ) {
            let types = [
                None,
                Some(("integer", "")),
                Some(("integer", "int32")),
                Some(("number", "")),
                Some(("number", "float")),
                Some(("integer", "int64")),
            ];
            let rules = NumberRules {
                number_type: types[typing].map(|(t, f)| NumberType::new(t, f)),
                multiple_of,
                maximum,
                exclusive_maximum,
                minimum,
                exclusive_minimum,
            };
            let value = if is_int { Num::Int(int) } else { Num::Float(float) };
            let mut full = Vec::new();
            number_issues(&Path::root(), value, &rules, &mut full);
            if rules.plainly_held_by(value) {
                prop_assert!(full.is_empty(), "{:?} {:?}: {:?}", value, rules, full);
            }
        }
    }
}
