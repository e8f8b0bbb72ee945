//! `string.format(list)` as Kubernetes 1.36 runs it: cel-go's strings extension at version 2,
//! whose formatter (`ext/formatting.go`, `stringFormatter`) prints differently from the `cel`
//! crate's (which follows the later `formatting_v2.go`): inside a list or map, strings are
//! quoted (`["x", b"y"]`), doubles are `%f` (`1.500000`), timestamps and durations are CEL
//! literals (`timestamp("...")`), map entries are `key:value` sorted by the printed key; at the
//! top level, a double is Go's shortest `%g` (`1e+21`), a timestamp keeps its offset; `%f` and
//! `%e` go through `golang.org/x/text/message` for `en_US` (`1,234.500000`,
//! `1.234500×10⁰³`, `∞`, a precision taken modulo 256, `%e`'s precision ignored). An overload
//! of the same signature cannot replace the crate's, so the lowering renames every call (its row is `Run::Renamed`).
//! A format that fails makes the messageExpression fail, whatever its words; they follow
//! cel-go's where it was cheap.

use std::collections::HashMap;
use std::sync::Arc;

use cel::Value;
use cel::common::ast::{Expr, IdedExpr};
use cel::objects::Key;

use crate::cel::vocabulary::args::{Outcome, error, value_fn};
use crate::cel::vocabulary::function::{Charge, Cost, NOT_YET_NATIVE, NativeForm, Rows, Run};
use crate::cel::vocabulary::types::Type;
use crate::report::issue::go_quote;

/// The name `x.format(list)` is renamed to.
pub const FORMAT: &str = "@format";

/// `s.format(list)`, cel-go v2's formatter (the `cel` crate's differs), run as [`FORMAT`].
pub(super) fn functions(rows: &mut Rows) {
    let run = Run::Renamed(FORMAT, value_fn!(format));
    rows.add(
        "string.format(list(dyn)) -> string",
        run,
        Cost::Format,
        Charge::Call,
        NativeForm::Interpreted(NOT_YET_NATIVE),
    );
}

fn format(args: &[Value]) -> Outcome {
    match args {
        [Value::String(f), Value::List(items)] => {
            let text = interpolate(f, items.len(), |i, verb| {
                let item = &items[i];
                verb.apply(item)
                    .map_err(|e| format!("error during formatting: {e}, was given {}", value_type_name(item)))
            });
            text.map(|s| Value::String(Arc::new(s))).map_err(|m| error("format", m))
        }
        _ => Err(error("format", "expected a string and a list")),
    }
}

/// cel-go's `TypeName()` of a value's type (`string`, `google.protobuf.Duration`, `net.IP`).
fn value_type_name(v: &Value) -> String {
    let val: Result<Box<dyn cel::common::value::Val>, _> = v.clone().try_into();
    val.map_or_else(|_| "dyn".to_owned(), |val| val.get_type().name().to_owned())
}

/// A clause's conversion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Verb {
    /// `%s`.
    String,
    /// `%d`.
    Decimal,
    /// `%f`, with its precision (6 when the clause gives none).
    Fixed(usize),
    /// `%e` (its precision is parsed and ignored, as cel-go passes it as a width).
    Scientific,
    /// `%b`.
    Binary,
    /// `%x`, or `%X` (upper).
    Hex(bool),
    /// `%o`.
    Octal,
}

impl Verb {
    fn apply(self, v: &Value) -> Result<String, String> {
        match self {
            Verb::String => string(v),
            Verb::Decimal => decimal(v),
            Verb::Fixed(p) => fixed(v, p),
            Verb::Scientific => scientific(v),
            Verb::Binary => binary(v),
            Verb::Hex(upper) => hex(v, upper),
            Verb::Octal => octal(v),
        }
    }
}

/// `parseFormatString`: each clause of `format` replaced by what `each` makes of the next of
/// `count` arguments (by index); `%%` is `%`. The one reading of a format string, for the
/// formatting and for the checker's validation of literal calls ([`check_literal_call`]).
pub(crate) fn interpolate(
    format: &str,
    count: usize,
    mut each: impl FnMut(usize, Verb) -> Result<String, String>,
) -> Result<String, String> {
    let mut out = String::with_capacity(format.len());
    let mut rest = format;
    let mut next = 0;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if let Some(after) = rest.strip_prefix("%%") {
            out.push('%');
            rest = after;
            continue;
        }
        if next >= count {
            return Err(format!("index {next} out of range"));
        }
        if rest.len() < 2 {
            return Err("unexpected end of string".to_owned());
        }
        let (read, verb) = clause(&rest[1..]).map_err(|e| format!("could not parse formatting clause: {e}"))?;
        out.push_str(&each(next, verb)?);
        rest = &rest[1 + read..];
        next += 1;
    }
    out.push_str(rest);
    Ok(out)
}

/// One clause (`[.precision]verb`) at the start of `s`: the bytes read and the conversion.
fn clause(s: &str) -> Result<(usize, Verb), String> {
    let mut read = 0;
    let mut precision = None;
    if let Some(digits_on) = s.strip_prefix('.') {
        let digits = digits_on.bytes().take_while(u8::is_ascii_digit).count();
        if digits == digits_on.len() {
            return Err("error while parsing precision: could not find end of precision specifier".to_owned());
        }
        let p: usize = digits_on[..digits].parse().map_err(|_| {
            format!(
                "error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing {}: {}",
                go_quote(&digits_on[..digits]),
                if digits == 0 { "invalid syntax" } else { "value out of range" }
            )
        })?;
        precision = Some(p);
        read = 1 + digits;
    }
    let verb = s[read..].chars().next().ok_or("unexpected end of string")?;
    read += verb.len_utf8();
    Ok((
        read,
        match verb {
            's' => Verb::String,
            'd' => Verb::Decimal,
            'f' => Verb::Fixed(precision.unwrap_or(6)),
            'e' => Verb::Scientific,
            'b' => Verb::Binary,
            'x' => Verb::Hex(false),
            'X' => Verb::Hex(true),
            'o' => Verb::Octal,
            other => return Err(format!("unrecognized formatting clause \"{other}\"")),
        },
    ))
}

/// cel-go's `stringFormatValidator`, for a call `'<literal>'.format([<list literal>])`: each
/// clause's argument of a type it takes (`dyn` passes; `%s` looks into list and map literals),
/// and no argument left unused. `type_of` gives an argument's checked type; the error, with
/// the node it is reported at (`None`: the call).
pub(crate) fn check_literal_call(
    format: &str,
    args: &[IdedExpr],
    type_of: &dyn Fn(&IdedExpr) -> Type,
) -> Result<(), (Option<u64>, String)> {
    let mut requested = 0;
    let mut bad = None;
    let checked = interpolate(format, args.len(), |i, verb| {
        requested += 1;
        let arg = &args[i];
        let (ok, at) = match verb {
            Verb::String => takes_string(arg, type_of),
            Verb::Decimal | Verb::Octal => (of_kind(&type_of(arg), &["int", "uint"]), arg),
            Verb::Fixed(_) | Verb::Scientific => (of_kind(&type_of(arg), &["double", "string"]), arg),
            Verb::Binary => (of_kind(&type_of(arg), &["int", "uint", "bool"]), arg),
            Verb::Hex(_) => (of_kind(&type_of(arg), &["int", "uint", "string", "bytes"]), arg),
        };
        if ok {
            return Ok(String::new());
        }
        bad = Some(at.id);
        let what = match verb {
            Verb::String => {
                "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps"
            }
            Verb::Decimal => "decimal clause can only be used on integers",
            Verb::Fixed(_) => "fixed-point clause can only be used on doubles",
            Verb::Scientific => "scientific clause can only be used on doubles",
            Verb::Binary => "only integers and bools can be formatted as binary",
            Verb::Hex(_) => "only integers, byte buffers, and strings can be formatted as hex",
            Verb::Octal => "octal clause can only be used on integers",
        };
        Err(format!("error during formatting: {what}, was given {}", type_name(&type_of(at))))
    });
    match checked {
        Err(e) => Err((bad, e)),
        Ok(_) if args.len() > requested => Err((
            None,
            format!("too many arguments supplied to string.format (expected {requested}, got {})", args.len()),
        )),
        Ok(_) => Ok(()),
    }
}

/// `verifyString`: a type `%s` prints, looked into where the argument is a list or map literal;
/// the node that is not.
fn takes_string<'e>(e: &'e IdedExpr, type_of: &dyn Fn(&IdedExpr) -> Type) -> (bool, &'e IdedExpr) {
    let printable = [
        "list",
        "map",
        "int",
        "uint",
        "double",
        "bool",
        "string",
        "google.protobuf.Timestamp",
        "bytes",
        "google.protobuf.Duration",
        "type",
        "null_type",
    ];
    if !of_kind(&type_of(e), &printable) {
        return (false, e);
    }
    let children: Vec<&IdedExpr> = match &e.expr {
        Expr::List(l) => l.elements.iter().collect(),
        Expr::Map(m) => m
            .entries
            .iter()
            .filter_map(|entry| match &entry.expr {
                cel::common::ast::EntryExpr::MapEntry(me) => Some([&me.key, &me.value]),
                _ => None,
            })
            .flatten()
            .collect(),
        _ => return (true, e),
    };
    for child in children {
        let (ok, at) = takes_string(child, type_of);
        if !ok {
            return (false, at);
        }
    }
    (true, e)
}

/// Whether `t` is `dyn` or of one of the kinds (cel-go's `TypeName` of the kind).
fn of_kind(t: &Type, kinds: &[&str]) -> bool {
    matches!(t, Type::Dyn) || kinds.contains(&type_name(t).as_str())
}

/// cel-go's `TypeName()`: a type's name without its parameters.
fn type_name(t: &Type) -> String {
    match t {
        Type::List(..) => "list".to_owned(),
        Type::Map(..) => "map".to_owned(),
        Type::Type(_) => "type".to_owned(),
        Type::Opaque(name, _) => name.to_string(),
        Type::Duration => "google.protobuf.Duration".to_owned(),
        Type::Timestamp => "google.protobuf.Timestamp".to_owned(),
        Type::Null => "null_type".to_owned(),
        other => other.to_string(),
    }
}

/// `%s` (`FormatString`).
fn string(v: &Value) -> Result<String, String> {
    Ok(match v {
        Value::List(items) => list(items)?,
        Value::Map(m) => map(&m.map)?,
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => crate::report::issue::go_float(*f),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => s.to_string(),
        Value::Bytes(b) => String::from_utf8(b.to_vec()).map_err(|_| "invalid UTF-8 in bytes, cannot convert to string")?,
        Value::Timestamp(t) => rfc3339_nano(t),
        Value::Duration(d) => duration(d),
        Value::Null => "null".to_owned(),
        _ => return Err("string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps".to_owned()),
    })
}

/// A list's or map's member (`clauseForType` then `quoteForCEL`).
fn member(v: &Value) -> Result<String, String> {
    Ok(match v {
        Value::String(s) => go_quote(s),
        Value::Bytes(_) => format!("b{}", go_quote(&string(v)?)),
        Value::Float(f) if f.is_nan() => "\"NaN\"".to_owned(),
        Value::Float(f) if f.is_infinite() => format!("\"{}Inf\"", if *f > 0.0 { '+' } else { '-' }),
        // Go's `%.6f`: the exact decimal, rounded half to even, as Rust's.
        Value::Float(f) => format!("{f:.6}"),
        Value::Timestamp(t) => format!("timestamp({})", go_quote(&rfc3339_nano(t))),
        Value::Duration(d) => format!("duration({})", go_quote(&duration(d))),
        other => string(other)?,
    })
}

fn list(items: &[Value]) -> Result<String, String> {
    let members = items.iter().map(member).collect::<Result<Vec<_>, _>>()?;
    Ok(format!("[{}]", members.join(", ")))
}

fn map(entries: &HashMap<Key, Value>) -> Result<String, String> {
    let mut pairs = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        let key = match k {
            Key::String(s) => go_quote(s),
            Key::Bool(b) => b.to_string(),
            Key::Int(i) => i.to_string(),
            Key::Uint(u) => u.to_string(),
        };
        pairs.push((key, member(v)?));
    }
    pairs.sort();
    let pairs: Vec<String> = pairs.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
    Ok(format!("{{{}}}", pairs.join(", ")))
}

fn decimal(v: &Value) -> Result<String, String> {
    match v {
        Value::Int(i) => Ok(i.to_string()),
        Value::UInt(u) => Ok(u.to_string()),
        _ => Err("decimal clause can only be used on integers".to_owned()),
    }
}

/// A double for `%f` and `%e`: a double, or the strings naming the non-finite ones.
fn double(v: &Value, clause: &str) -> Result<f64, String> {
    match v {
        Value::Float(f) => Ok(*f),
        Value::String(s) if s.as_str() == "NaN" => Ok(f64::NAN),
        Value::String(s) if s.as_str() == "Infinity" => Ok(f64::INFINITY),
        Value::String(s) if s.as_str() == "-Infinity" => Ok(f64::NEG_INFINITY),
        _ => Err(format!("{clause} clause can only be used on doubles")),
    }
}

/// What `golang.org/x/text/message` prints for a non-finite double.
fn non_finite(f: f64) -> Option<&'static str> {
    if f.is_nan() {
        Some("NaN")
    } else if f.is_infinite() {
        Some(if f > 0.0 { "∞" } else { "-∞" })
    } else {
        None
    }
}

/// `%.<p>f` through `x/text/message` (en_US): grouped thousands, a sign on a negative number
/// (not on `-0`), the exact decimal rounded half to even to at most `p` digits, and trailing
/// zeros kept down to `p` modulo 256 (the printer keeps that minimum in a byte).
fn fixed(v: &Value, precision: usize) -> Result<String, String> {
    let f = double(v, "fixed-point")?;
    if let Some(s) = non_finite(f) {
        return Ok(s.to_owned());
    }
    // A double's exact decimal has at most 1,074 fractional digits: more are zeros.
    let digits = format!("{:.*}", precision.min(1100), f.abs());
    let (int, frac) = digits.split_once('.').map_or((digits.as_str(), None), |(i, f)| (i, Some(f)));
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if f < 0.0 {
        out.push('-');
    }
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(frac) = frac {
        let least = precision % 256;
        let kept = frac.trim_end_matches('0').len().max(least);
        if kept > 0 {
            out.push('.');
            out.push_str(&frac[..kept]);
        }
    }
    Ok(out)
}

/// `%e` through `x/text/message` (en_US): six decimals whatever the clause asks (cel-go passes
/// its precision as a width), `×10` and the exponent in superscript digits, at least two.
fn scientific(v: &Value) -> Result<String, String> {
    let f = double(v, "scientific")?;
    if let Some(s) = non_finite(f) {
        return Ok(s.to_owned());
    }
    let text = format!("{:.6e}", f.abs());
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text.as_str(), "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let mut out = String::new();
    if f.is_sign_negative() && f != 0.0 {
        out.push('-');
    }
    out.push_str(mantissa);
    out.push_str("×10");
    if exponent < 0 {
        out.push('⁻');
    }
    const SUPERSCRIPT: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    out.extend(format!("{:02}", exponent.unsigned_abs()).bytes().map(|d| SUPERSCRIPT[usize::from(d - b'0')]));
    Ok(out)
}

/// Go's `%b`, `%x` and `%o` of a signed integer: the sign, then the magnitude's digits.
fn signed(i: i64, digits: impl Fn(u64) -> String) -> String {
    if i < 0 { format!("-{}", digits(i.unsigned_abs())) } else { digits(i.unsigned_abs()) }
}

fn binary(v: &Value) -> Result<String, String> {
    match v {
        Value::Int(i) => Ok(signed(*i, |u| format!("{u:b}"))),
        Value::UInt(u) => Ok(format!("{u:b}")),
        Value::Bool(b) => Ok(if *b { "1" } else { "0" }.to_owned()),
        _ => Err("only integers and bools can be formatted as binary".to_owned()),
    }
}

fn hex(v: &Value, upper: bool) -> Result<String, String> {
    let bytes = |b: &[u8]| -> String {
        b.iter().map(|x| if upper { format!("{x:02X}") } else { format!("{x:02x}") }).collect()
    };
    match v {
        Value::String(s) => Ok(bytes(s.as_bytes())),
        Value::Bytes(b) => Ok(bytes(b)),
        Value::Int(i) => Ok(signed(*i, |u| if upper { format!("{u:X}") } else { format!("{u:x}") })),
        Value::UInt(u) => Ok(if upper { format!("{u:X}") } else { format!("{u:x}") }),
        _ => Err("only integers, byte buffers, and strings can be formatted as hex".to_owned()),
    }
}

fn octal(v: &Value) -> Result<String, String> {
    match v {
        Value::Int(i) => Ok(signed(*i, |u| format!("{u:o}"))),
        Value::UInt(u) => Ok(format!("{u:o}")),
        _ => Err("octal clause can only be used on integers".to_owned()),
    }
}

/// Go's `time.RFC3339Nano` in the timestamp's own offset (`Z` for UTC).
fn rfc3339_nano(t: &chrono::DateTime<chrono::FixedOffset>) -> String {
    use chrono::{Offset, Timelike};
    let mut out = t.format("%Y-%m-%dT%H:%M:%S").to_string();
    let nanos = t.nanosecond() % 1_000_000_000;
    if nanos > 0 {
        out.push_str(format!(".{nanos:09}").trim_end_matches('0'));
    }
    let offset = t.offset().fix().local_minus_utc();
    if offset == 0 {
        out.push('Z');
    } else {
        let (sign, offset) = if offset < 0 { ('-', -offset) } else { ('+', offset) };
        out.push_str(&format!("{sign}{:02}:{:02}", offset / 3600, offset / 60 % 60));
    }
    out
}

/// cel-go's duration as a string: its seconds, shortest, and `s`.
fn duration(d: &chrono::Duration) -> String {
    let seconds = d.num_seconds() as f64 + f64::from(d.subsec_nanos()) / 1e9;
    format!("{seconds}s")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(format: &str, args: Vec<Value>) -> String {
        try_f(format, args).unwrap()
    }

    fn try_f(format: &str, args: Vec<Value>) -> Result<String, String> {
        interpolate(format, args.len(), |i, verb| verb.apply(&args[i]))
    }

    /// The texts kube-apiserver 1.36.3 printed for these (recorded in
    /// `fixtures/oracle/targeted.jsonl`, class `cel-format`).
    #[test]
    fn prints_as_cel_go_v2_prints() {
        assert_eq!(f("%f", vec![Value::Float(1234567.891)]), "1,234,567.891000");
        assert_eq!(f("%.2f", vec![Value::Float(-1.005)]), "-1.00");
        assert_eq!(f("%.0f", vec![Value::Float(2.5)]), "2");
        assert_eq!(f("%f", vec![Value::Float(-0.0)]), "0.000000");
        assert_eq!(f("%.300f", vec![Value::Float(1.0)]).len(), 2 + 44);
        assert_eq!(f("%.300f", vec![Value::Float(0.1)]), "0.1000000000000000055511151231257827021181583404541015625");
        assert_eq!(f("%f", vec![Value::Float(-0.0000001)]), "-0.000000");
        assert_eq!(f("%e", vec![Value::Float(-1234.5)]), "-1.234500×10⁰³");
        assert_eq!(f("%e", vec![Value::Float(1e-7)]), "1.000000×10⁻⁰⁷");
        assert_eq!(f("%e", vec![Value::Float(1e300)]), "1.000000×10³⁰⁰");
        assert_eq!(f("%.2e", vec![Value::Float(1234.5)]), "1.234500×10⁰³");
        assert_eq!(f("%s", vec![Value::Float(1e21)]), "1e+21");
        assert_eq!(f("%s", vec![Value::Float(-0.0)]), "-0");
        assert_eq!(f("%s", vec![Value::Float(123456789.0)]), "1.23456789e+08");
        assert_eq!(f("%s", vec![Value::Float(100000.0)]), "100000");
        let list = Value::List(Arc::new(vec![
            Value::Float(1.5),
            Value::Bool(true),
            Value::Null,
            Value::String(Arc::new("a\"b".into())),
        ]));
        assert_eq!(f("%s", vec![list]), "[1.500000, true, null, \"a\\\"b\"]");
        assert_eq!(f("%x %o %b", vec![Value::Int(-255), Value::Int(-8), Value::Int(-5)]), "-ff -10 -101");
        assert!(try_f("%s %s", vec![Value::Int(1)]).is_err());
        assert!(try_f("%d", vec![Value::Float(1.5)]).is_err());
        assert!(try_f("%f", vec![Value::Int(2)]).is_err());
    }
}
