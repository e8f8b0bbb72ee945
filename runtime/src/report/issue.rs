//! The issue model: one problem the apiserver would report, with its error type, field path,
//! JSON pointer, keyword, bad value and message, printed exactly as the apiserver prints a
//! field error (`apimachinery/pkg/util/validation/field/errors.go`):
//! `<path>: <type string>[: <value>][: <detail>]`.

use std::fmt;

use crate::report::path::{Path, Place};

/// The apiserver's field error types (`field.ErrorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorType {
    /// `FieldValueNotFound`.
    NotFound,
    /// `FieldValueRequired`.
    Required,
    /// `FieldValueDuplicate`.
    Duplicate,
    /// `FieldValueInvalid`.
    Invalid,
    /// `FieldValueNotSupported` (a value outside an `enum`).
    NotSupported,
    /// `FieldValueForbidden`.
    Forbidden,
    /// `FieldValueTooLong`.
    TooLong,
    /// `FieldValueTooMany`.
    TooMany,
    /// `InternalError`.
    Internal,
    /// `FieldValueTypeInvalid` (printed as `Invalid value`).
    TypeInvalid,
    /// `FieldValueTooShort`.
    TooShort,
    /// A strict decoding error (`unknown field "spec.x"`, `duplicate field "spec.a"`): the
    /// apiserver refuses the request (400) under `fieldValidation=Strict`, warns under `Warn`.
    Strict,
    /// The body cannot be decoded at all (not JSON, or metadata Go's `ObjectMeta` cannot hold):
    /// the apiserver refuses the request (400) before validating.
    Malformed,
}

impl ErrorType {
    /// The reason string of the error type (`FieldValueRequired`), as in `details.causes[].reason`.
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::Internal => "InternalError",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
            ErrorType::TooShort => "FieldValueTooShort",
            ErrorType::Strict => "StrictDecodingError",
            ErrorType::Malformed => "BadRequest",
        }
    }

    /// The words the apiserver prints for the type (`Required value`, `Invalid value`, ...).
    pub fn type_string(self) -> &'static str {
        match self {
            ErrorType::NotFound => "Not found",
            ErrorType::Required => "Required value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::Internal => "Internal error",
            ErrorType::TooShort => "Too short",
            ErrorType::Strict => "strict decoding error",
            ErrorType::Malformed => "cannot be decoded",
        }
    }

    /// Whether an error of this type keeps CEL rules from running (apiserver §0 step 5.7).
    pub fn blocks_cel(self) -> bool {
        matches!(
            self,
            ErrorType::NotSupported
                | ErrorType::Required
                | ErrorType::TooLong
                | ErrorType::TooMany
                | ErrorType::TypeInvalid
        )
    }

    /// Whether the apiserver prints the bad value for this type.
    fn prints_value(self) -> bool {
        !matches!(
            self,
            ErrorType::Required
                | ErrorType::Forbidden
                | ErrorType::TooLong
                | ErrorType::TooShort
                | ErrorType::Internal
                | ErrorType::Strict
                | ErrorType::Malformed
        )
    }
}

/// The bad value of an issue, printed as the apiserver prints it.
#[derive(Clone, Debug, PartialEq)]
pub enum BadValue {
    /// Not printed at all (the apiserver's "omit value" marker).
    Omit,
    /// `null` (also what Go prints for nil maps and slices).
    Null,
    /// A boolean (`true`).
    Bool(bool),
    /// An integer (`11`).
    Int(i64),
    /// A large unsigned integer.
    Uint(u64),
    /// A float, printed as Go's `%v` (`1.5`, `10`, `1e+06`).
    Float(f64),
    /// A string, printed quoted (`"abc"`).
    Str(String),
    /// Anything else, printed as its JSON text.
    Json(String),
}

impl BadValue {
    /// The bad value for a JSON value.
    pub fn of(v: &serde_json::Value) -> BadValue {
        use serde_json::Value;
        match v {
            Value::Null => BadValue::Null,
            Value::Bool(b) => BadValue::Bool(*b),
            // Beyond int64 the apiserver holds a float64 (`9.223372036854776e+18`).
            Value::Number(n) => match n.as_i64() {
                Some(i) => BadValue::Int(i),
                None => BadValue::Float(n.as_f64().unwrap_or_default()),
            },
            Value::String(s) => BadValue::Str(s.clone()),
            other => BadValue::Json(go_json(other)),
        }
    }
}

/// JSON as Go's `encoding/json` writes it: keys sorted, whole floats without a fraction
/// (`1.0` → `1`), exponents for very large or small magnitudes.
pub fn go_json(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or_default();
            let abs = f.abs();
            if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
                let s = format!("{f:e}");
                let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
                let e: i32 = e.parse().unwrap_or(0);
                format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
            } else {
                let s = format!("{f}");
                s.strip_suffix(".0").map(str::to_owned).unwrap_or(s)
            }
        }
        Value::Array(items) => format!("[{}]", items.iter().map(go_json).collect::<Vec<_>>().join(",")),
        Value::Object(map) => {
            // serde_json's map is sorted by key already.
            let fields: Vec<String> =
                map.iter().map(|(k, v)| format!("{}:{}", go_json_string(k), go_json(v))).collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::String(s) => go_json_string(s),
        other => other.to_string(),
    }
}

/// A JSON string as Go's `encoding/json` writes it: `"` and `\\` escaped, `\n`, `\r` and `\t` as
/// such, every other control character, HTML's `<`, `>` and `&` and the line and paragraph
/// separators as `\u00XX` (`\u003c`).
fn go_json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_go_json_string(&mut out, s);
    out
}

/// [`go_json_string`], written at the end of `out`.
pub(crate) fn push_go_json_string(out: &mut String, s: &str) {
    push_double_quoted(out, s, |c| c < ' ' || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}'));
}

/// Warnings as the apiserver's warning recorder passes them on
/// (`k8s.io/apiserver/pkg/endpoints/filters/warning.go`): repeats dropped; once they pass
/// 4,096 characters in all, each is cut to 256 characters and those past 4,096 more are left
/// out. One last warning then says how many were left out (the apiserver logs it instead), so
/// that a response stays small whatever the object holds (200,000 unknown fields made 6.5 MB).
pub fn cap_warnings(warnings: impl IntoIterator<Item = String>) -> Vec<String> {
    const TOTAL: usize = 4 * 1024;
    const ITEM: usize = 256;
    let cut = |w: &str| match w.char_indices().nth(ITEM) {
        Some((at, _)) => w[..at].to_owned(),
        None => w.to_owned(),
    };
    let (mut seen, mut out) = (std::collections::HashSet::new(), Vec::new());
    let (mut written, mut truncating, mut left_out) = (0usize, false, 0usize);
    for w in warnings {
        if w.is_empty() || seen.contains(&w) {
            continue;
        }
        if truncating && written >= TOTAL {
            left_out += 1;
            continue;
        }
        seen.insert(w.clone());
        let runes = w.chars().count();
        if truncating || written + runes <= TOTAL {
            let w = if truncating { cut(&w) } else { w };
            written += w.chars().count();
            out.push(w);
            continue;
        }
        // Past the total for the first time: every warning so far is cut, and so is this one.
        truncating = true;
        out.push(w);
        out = out.iter().map(|w| cut(w)).collect();
        written = out.iter().map(|w| w.chars().count()).sum();
    }
    if left_out > 0 {
        out.push(format!("{left_out} more warnings left out (the apiserver passes on about 4 KB of warnings)"));
    }
    out
}

/// Input a message echoes (a FieldsV1 key, say): whole up to 256 bytes; past that, its start
/// and how many bytes were left out, so that one bad key does not make a 200 KB line.
pub fn echo(text: &str) -> std::borrow::Cow<'_, str> {
    const KEPT: usize = 256;
    if text.len() <= KEPT {
        return std::borrow::Cow::Borrowed(text);
    }
    let cut = text.floor_char_boundary(KEPT);
    std::borrow::Cow::Owned(format!("{}... ({} more bytes)", &text[..cut], text.len() - cut))
}

/// `s` in double quotes as JSON, YAML and TOML all read them: `"` and `\\` escaped, `\n`, `\r`
/// and `\t` as such, and each other character `escape` names as `\uXXXX` (beyond U+FFFF, as
/// the pair of surrogates JSON writes; callers escape only characters below it).
pub fn double_quoted(s: &str, escape: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_double_quoted(&mut out, s, escape);
    out
}

/// [`double_quoted`], written at the end of `out`.
pub(crate) fn push_double_quoted(out: &mut String, s: &str, escape: impl Fn(char) -> bool) {
    use std::fmt::Write;
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if escape(c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl fmt::Display for BadValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadValue::Omit => Ok(()),
            BadValue::Null => f.write_str("null"),
            BadValue::Bool(b) => write!(f, "{b}"),
            BadValue::Int(i) => write!(f, "{i}"),
            BadValue::Uint(u) => write!(f, "{u}"),
            BadValue::Float(x) => f.write_str(&go_float(*x)),
            BadValue::Str(s) => f.write_str(&go_quote(s)),
            BadValue::Json(j) => f.write_str(j),
        }
    }
}

/// Go's `%v` of a float64: shortest digits, `%e` form (two-digit exponent) when the decimal
/// exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`), plain otherwise (`10`, `0.001`).
pub fn go_float(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // Rust's `{:e}` gives the shortest round-tripping digits: `1.234e6`.
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').expect("invariant: {:e} has an exponent");
    let exp: i32 = exp.parse().expect("invariant: exponent is an integer");
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    // Plain form: Rust's Display is the shortest round-tripping decimal, as Go's.
    let s = format!("{x}");
    s.strip_suffix(".0").map(str::to_owned).unwrap_or(s)
}

/// Go's `%q` of a string (`strconv.Quote`): double quotes, `"` and `\\` escaped, and every
/// rune Go's `strconv.IsPrint` refuses escaped (`\n`, `\x00`, `"1m\u00a0"` for a no-break
/// space, `\U000e0001`); printable non-ASCII stays as it is (`"é"`).
pub fn go_quote(s: &str) -> String {
    go_quote_bytes(s.as_bytes())
}

/// [`go_quote`] of bytes that may not be UTF-8: each byte of an invalid sequence is `\xff`.
pub fn go_quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            push_escaped(&mut out, c);
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out.push('"');
    out
}

/// Text from input made safe to print on a terminal or in a CI log: every character Go's
/// `strconv.IsPrint` refuses (control characters, ANSI escape sequences' `ESC`, bidi controls,
/// line and paragraph separators, a bare CR) escaped as [`go_quote`] escapes it (`\n`,
/// `\x1b`, `\u202e`), the tab and everything printable as it is. One line, always: a name
/// cannot start a line of its own (GitHub Actions reads `::error ...::` at a line's start as a
/// workflow command) nor move the cursor.
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().all(|c| c == '\t' || go_is_print(c)) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '"' | '\\' | '\t' => out.push(c),
            c => push_escaped(&mut out, c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// [`printable`] for a message that may run over several lines (a CEL compile error's
/// snippet): each line is made printable, and a line break is kept unless the next line would
/// start, after spaces, with `::` (a workflow command), where it is escaped as `\n`.
pub fn printable_lines(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('\n') {
        return printable(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push_str(if line.trim_start().starts_with("::") { "\\n" } else { "\n" });
        }
        out.push_str(&printable(line));
    }
    std::borrow::Cow::Owned(out)
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        c if go_is_print(c) => out.push(c),
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
        c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
        c => out.push_str(&format!("\\U{:08x}", c as u32)),
    }
}

/// Go's `strconv.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space.
pub fn go_is_print(c: char) -> bool {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    !matches!(
        get_general_category(c),
        G::Control
            | G::Format
            | G::LineSeparator
            | G::ParagraphSeparator
            | G::PrivateUse
            | G::SpaceSeparator
            | G::Surrogate
            | G::Unassigned
    )
}

/// How an issue's path prints, by the apiserver subsystem that reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathForm {
    /// OpenAPI value errors: kube-openapi's dotted path (`spec.m.key`).
    OpenApi,
    /// List-type, CEL and metadata errors: the field path (`spec.m[key]`).
    Field,
    /// \[quirk\] Combinator and range errors print the validator's base path: `<nil>`.
    Base,
    /// Decoding errors stand alone, their path inside the text (`strict decoding error:
    /// unknown field "spec.x"`); `field()` is the dotted path.
    Detached,
}

/// One problem, as the apiserver would report it.
#[derive(Clone, Debug, PartialEq)]
pub struct Issue {
    /// The apiserver's error type.
    pub error_type: ErrorType,
    /// Where: the field path as the reporting subsystem prints it, the JSON pointer.
    pub path: Path,
    /// How the path prints: each apiserver subsystem has its own form.
    pub form: PathForm,
    /// The schema keyword (or pipeline step) that found it: `maximum`, `required`, `list-type`.
    pub keyword: &'static str,
    /// The bad value.
    pub value: BadValue,
    /// The text after the value.
    pub detail: String,
}

impl Issue {
    /// An issue at a path.
    pub fn new(
        error_type: ErrorType,
        path: &dyn Place,
        keyword: &'static str,
        value: BadValue,
        detail: impl Into<String>,
    ) -> Self {
        Issue { error_type, path: path.to_path(), form: PathForm::OpenApi, keyword, value, detail: detail.into() }
    }

    /// \[quirk\] A plain (non-field) error of kube-openapi: junctor summaries, range-of-format
    /// errors. The apiserver renders them at its base path (`<nil>`) with the value `""`; the
    /// node's path appears only inside `detail`.
    pub fn plain(path: &dyn Place, keyword: &'static str, detail: impl Into<String>) -> Issue {
        Issue::new(ErrorType::Invalid, path, keyword, BadValue::Str(String::new()), detail).in_form(PathForm::Base)
    }

    /// The same issue printed in another path form.
    pub fn in_form(mut self, form: PathForm) -> Issue {
        self.form = form;
        self
    }

    /// The field path as printed.
    pub fn field(&self) -> String {
        match self.form {
            PathForm::OpenApi | PathForm::Detached => self.path.openapi(),
            // A field path that is no path at all (a rule on the root) prints as Go's nil
            // `*field.Path` does.
            PathForm::Field if self.path.is_root() => "<nil>".into(),
            PathForm::Field => self.path.field(),
            PathForm::Base => "<nil>".into(),
        }
    }

    /// The message without the path: `Invalid value: 11: spec.x in body should be ...`.
    pub fn body(&self) -> String {
        field_error_body(self.error_type, &self.value, &self.detail)
    }
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.form {
            PathForm::Detached => f.write_str(&self.body()),
            _ => write!(f, "{}: {}", self.field(), self.body()),
        }
    }
}

/// A field error's text after its path (Go's `field.Error.ErrorBody`):
/// `<type string>[: <value>][: <detail>]`, the value only for the types that print one.
pub fn field_error_body(error_type: ErrorType, value: &BadValue, detail: &str) -> String {
    let mut s = error_type.type_string().to_owned();
    if error_type.prints_value() && *value != BadValue::Omit {
        s.push_str(": ");
        s.push_str(&value.to_string());
    }
    if !detail.is_empty() {
        s.push_str(": ");
        s.push_str(detail);
    }
    s
}

/// The detail of a `NotSupported` error (`field.NotSupported`): `supported values: "a", "b"`,
/// each Go-quoted, in the order given (the caller's: an `enum`'s, or the Go source's).
pub fn supported_values<S: AsRef<str>>(values: &[S]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| go_quote(v.as_ref())).collect();
    format!("supported values: {}", quoted.join(", "))
}

/// The message of the apiserver's 422 `Invalid` response (semantics §0.6):
/// `<Kind>.<group> "<name>" is invalid: <issue>` for one issue, `... is invalid: [<i1>, <i2>]`
/// for several (identical texts once). What an admission webhook answers when it denies.
///
/// ```
/// use kubeskema::issue::{invalid_message, BadValue, ErrorType, Issue};
/// use kubeskema::path::Path;
/// let at = Path::root().property("spec").property("replicas");
/// let issue = Issue::new(ErrorType::Invalid, &at, "maximum", BadValue::of(&11.into()), "too many");
/// assert_eq!(
///     invalid_message("Widget.example.com", "w", &[issue]),
///     r#"Widget.example.com "w" is invalid: spec.replicas: Invalid value: 11: too many"#
/// );
/// ```
pub fn invalid_message(kind_group: &str, name: &str, issues: &[Issue]) -> String {
    let mut texts: Vec<String> = Vec::new();
    for text in issues.iter().map(ToString::to_string) {
        if !texts.contains(&text) {
            texts.push(text);
        }
    }
    match texts.as_slice() {
        [one] => format!("{kind_group} \"{name}\" is invalid: {one}"),
        _ => format!("{kind_group} \"{name}\" is invalid: [{}]", texts.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 200,000 unknown fields are at most about 4 KB of warnings, with a note of the rest; a
    /// few short ones pass whole, once each (issue 49).
    #[test]
    fn warnings_are_capped_as_the_apiserver_caps_them() {
        let few = cap_warnings(["a".to_owned(), "b".to_owned(), "a".to_owned(), String::new()]);
        assert_eq!(few, ["a", "b"]);
        let many = cap_warnings((0..200_000).map(|i| format!("unknown field \"spec.f{i}\"")));
        let chars: usize = many.iter().map(|w| w.chars().count()).sum();
        assert!(chars < 4 * 1024 + 400, "{chars} characters");
        let last = many.last().unwrap();
        assert!(last.starts_with(&format!("{} more warnings left out", 200_000 - (many.len() - 1))), "{last}");
        // Past the total, each is cut to 256 characters, those before it too.
        let long = cap_warnings((0..20).map(|i| format!("{i}{}", "x".repeat(1000))));
        assert!(long.iter().take(long.len() - 1).all(|w| w.chars().count() == 256), "{:?}", long.len());
    }

    #[test]
    fn go_json_writes_floats_as_go_does() {
        assert_eq!(
            go_json(&serde_json::json!({"b": 1.0, "a": [2.5, 1e21, 0.0000001]})),
            r#"{"a":[2.5,1e+21,1e-07],"b":1}"#
        );
    }

    #[test]
    fn floats_print_as_go_prints_them() {
        for (x, go) in [
            (10.0, "10"),
            (1.5, "1.5"),
            (-0.25, "-0.25"),
            (123456.0, "123456"),
            (1e6, "1e+06"),
            (1234567.0, "1.234567e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e21, "1e+21"),
            (0.1 + 0.2, "0.30000000000000004"),
        ] {
            assert_eq!(go_float(x), go, "{x}");
        }
    }

    #[test]
    fn values_are_printed_only_for_the_types_that_print_them() {
        let path = Path::root().key("spec").key("replicas");
        let invalid = Issue::new(
            ErrorType::Invalid,
            &path,
            "maximum",
            BadValue::Int(11),
            "spec.replicas in body should be less than or equal to 10",
        );
        assert_eq!(
            invalid.to_string(),
            "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"
        );
        let required = Issue::new(ErrorType::Required, &path, "required", BadValue::Int(11), "");
        assert_eq!(required.to_string(), "spec.replicas: Required value");
        let too_long = Issue::new(
            ErrorType::TooLong,
            &path,
            "maxLength",
            BadValue::Str("abc".into()),
            "may not be more than 2 bytes",
        );
        assert_eq!(too_long.to_string(), "spec.replicas: Too long: may not be more than 2 bytes");
        let combinator = Issue::new(
            ErrorType::Invalid,
            &path,
            "anyOf",
            BadValue::Str(String::new()),
            "\"spec.replicas\" must validate at least one schema (anyOf)",
        )
        .in_form(PathForm::Base);
        assert_eq!(
            combinator.to_string(),
            "<nil>: Invalid value: \"\": \"spec.replicas\" must validate at least one schema (anyOf)"
        );
        assert_eq!(BadValue::Str("a\"b\n".into()).to_string(), r#""a\"b\n""#);
        assert_eq!(BadValue::of(&serde_json::json!({"a": [1]})).to_string(), r#"{"a":[1]}"#);
    }

    /// Go's `strconv` `quotetests` and the apiserver's printing of non-printable values.
    #[test]
    fn strings_quote_as_go_quotes_them() {
        for (s, go) in [
            ("\u{7}\u{8}\u{c}\r\n\t\u{b}", r#""\a\b\f\r\n\t\v""#),
            ("\\", r#""\\""#),
            ("abc\u{ff}def", r#""abcÿdef""#),
            ("\u{263a}", r#""☺""#),
            ("\u{10ffff}", r#""\U0010ffff""#),
            ("\u{4}", r#""\x04""#),
            ("!\u{00a0}!\u{2000}!\u{3000}!", r#""!\u00a0!\u2000!\u3000!""#),
            ("\u{7f}", r#""\x7f""#),
            ("1m\u{a0}", r#""1m\u00a0""#),
            ("\u{200b}", r#""\u200b""#),
            ("\u{e0001}", r#""\U000e0001""#),
            ("é\u{301}", "\"é\u{301}\""),
            ("a\"b", r#""a\"b""#),
        ] {
            assert_eq!(go_quote(s), go, "{s:?}");
        }
        assert_eq!(go_quote_bytes(b"a\xffb\xc3"), r#""a\xffb\xc3""#);
        assert_eq!(BadValue::Str("1m\u{a0}".into()).to_string(), r#""1m\u00a0""#);
    }

    #[test]
    fn only_the_blocking_types_stop_cel() {
        let blocking: Vec<_> = [
            ErrorType::NotFound,
            ErrorType::Required,
            ErrorType::Duplicate,
            ErrorType::Invalid,
            ErrorType::NotSupported,
            ErrorType::Forbidden,
            ErrorType::TooLong,
            ErrorType::TooMany,
            ErrorType::Internal,
            ErrorType::TypeInvalid,
            ErrorType::TooShort,
        ]
        .into_iter()
        .filter(|t| t.blocks_cel())
        .map(ErrorType::reason)
        .collect();
        assert_eq!(
            blocking,
            [
                "FieldValueRequired",
                "FieldValueNotSupported",
                "FieldValueTooLong",
                "FieldValueTooMany",
                "FieldValueTypeInvalid"
            ]
        );
    }
}
