//! The Kubernetes semver library (`AS pkg/cel/library/semverlib.go`, blang/semver):
//! `semver`, `isSemver` (each with an optional `normalize` flag that allows a `v` prefix,
//! missing minor/patch and leading zeros), `major`, `minor`, `patch`, `isLessThan`,
//! `isGreaterThan`, `compareTo`.

use std::cmp::Ordering;

use cel::{ExecutionError, Value};

use crate::cel::vocabulary::args::{Outcome, error, opaque, opaque_arg, string_arg, value_fn};
use crate::cel::vocabulary::function::{Charge, Cost, LIBRARY_VALUE, NativeForm, Rows, Run};

const TYPE: &str = "kubernetes.Semver";

/// A semantic version (build metadata does not take part in ordering or equality).
#[derive(Debug, Clone)]
pub struct Semver {
    major: u64,
    minor: u64,
    patch: u64,
    pre: Vec<String>,
}

impl PartialEq for Semver {
    fn eq(&self, other: &Self) -> bool {
        self.cmp_to(other) == Ordering::Equal
    }
}
impl Eq for Semver {}

impl cel::objects::Opaque for Semver {
    fn runtime_type_name(&self) -> &str {
        TYPE
    }
}

impl Semver {
    /// semver 2.0.0 precedence.
    fn cmp_to(&self, other: &Semver) -> Ordering {
        let core = (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch));
        if core != Ordering::Equal {
            return core;
        }
        match (self.pre.is_empty(), other.pre.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => {}
        }
        for (a, b) in self.pre.iter().zip(&other.pre) {
            let ord = match (a.parse::<u64>(), b.parse::<u64>()) {
                (Ok(x), Ok(y)) => x.cmp(&y),
                (Ok(_), Err(_)) => Ordering::Less,
                (Err(_), Ok(_)) => Ordering::Greater,
                _ => a.cmp(b),
            };
            if ord != Ordering::Equal {
                return ord;
            }
        }
        self.pre.len().cmp(&other.pre.len())
    }
}

/// blang/semver v4's `semver.Parse`, with its messages; with `normalize`, the Kubernetes
/// library's `normalizeAndParse` first (a `v` prefix, leading zeros and missing minor and patch
/// numbers accepted).
pub fn parse(s: &str, normalize: bool) -> Result<Semver, String> {
    if normalize { parse_blang(&normalized(s)?) } else { parse_blang(s) }
}

/// `normalizeAndParse`'s rewriting: `v` trimmed, each of up to three dot-separated parts
/// without leading zeros (a part left not starting with a digit gets a `0`), missing parts `0`.
fn normalized(s: &str) -> Result<String, String> {
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s.splitn(3, '.').map(str::to_owned).collect();
    for p in &mut parts {
        if p.len() > 1 {
            let trimmed = p.trim_start_matches('0');
            *p = if trimmed.starts_with(|c: char| c.is_ascii_digit()) {
                trimmed.to_owned()
            } else {
                format!("0{trimmed}")
            };
        }
    }
    if parts.len() < 3 {
        if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
            return Err("short version cannot contain PreRelease/Build meta data".into());
        }
        parts.resize(3, "0".to_owned());
    }
    Ok(parts.join("."))
}

fn parse_blang(s: &str) -> Result<Semver, String> {
    use crate::report::issue::go_quote;
    const NUMBERS: &str = "0123456789";
    const ALPHANUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789";
    let only = |s: &str, set: &str| s.chars().all(|c| set.contains(c));
    let leading_zero = |s: &str| s.len() > 1 && s.starts_with('0');
    // Go's `strconv.ParseUint(s, 10, 64)` and its errors.
    let number = |s: &str, what: &str, upper: &str| -> Result<u64, String> {
        if !only(s, NUMBERS) {
            return Err(format!("Invalid character(s) found in {what} number {}", go_quote(s)));
        }
        if leading_zero(s) {
            return Err(format!("{upper} number must not contain leading zeroes {}", go_quote(s)));
        }
        parse_uint(s)
    };
    if s.is_empty() {
        return Err("Version string empty".into());
    }
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    if parts.len() != 3 {
        return Err("No Major.Minor.Patch elements found".into());
    }
    let major = number(parts[0], "major", "Major")?;
    let minor = number(parts[1], "minor", "Minor")?;
    let (rest, build) = parts[2].split_once('+').map_or((parts[2], None), |(p, b)| (p, Some(b)));
    let (patch, pre) = rest.split_once('-').map_or((rest, None), |(p, pre)| (p, Some(pre)));
    let patch = number(patch, "patch", "Patch")?;
    let mut ids = Vec::new();
    for id in pre.map(|p| p.split('.').collect::<Vec<_>>()).unwrap_or_default() {
        if id.is_empty() {
            return Err("Prerelease is empty".into());
        }
        if only(id, NUMBERS) {
            if leading_zero(id) {
                return Err(format!("Numeric PreRelease version must not contain leading zeroes {}", go_quote(id)));
            }
            parse_uint(id)?;
        } else if !only(id, ALPHANUM) {
            return Err(format!("Invalid character(s) found in prerelease {}", go_quote(id)));
        }
        ids.push(id.to_owned());
    }
    for meta in build.map(|b| b.split('.').collect::<Vec<_>>()).unwrap_or_default() {
        if meta.is_empty() {
            return Err("Build meta data is empty".into());
        }
        if !only(meta, ALPHANUM) {
            return Err(format!("Invalid character(s) found in build meta data {}", go_quote(meta)));
        }
    }
    Ok(Semver { major, minor, patch, pre: ids })
}

/// Go's `strconv.ParseUint(s, 10, 64)` of digits (or nothing), with its errors.
fn parse_uint(s: &str) -> Result<u64, String> {
    let quoted = crate::report::issue::go_quote(s);
    if s.is_empty() {
        return Err(format!("strconv.ParseUint: parsing {quoted}: invalid syntax"));
    }
    s.parse().map_err(|_| format!("strconv.ParseUint: parsing {quoted}: value out of range"))
}

pub(super) fn functions(rows: &mut Rows) {
    let interpreted = NativeForm::Interpreted(LIBRARY_VALUE);
    let mut add = |signature: &str, f, cost| rows.add(signature, Run::Library(f), cost, Charge::Call, interpreted);
    add("semver(string) -> kubernetes.Semver", value_fn!(semver), Cost::ParseArgument);
    add("semver(string, bool) -> kubernetes.Semver", value_fn!(semver), Cost::ParseArgument);
    add("isSemver(string) -> bool", value_fn!(is_semver), Cost::ParseArgument);
    add("isSemver(string, bool) -> bool", value_fn!(is_semver), Cost::ParseArgument);
    add("kubernetes.Semver.isGreaterThan(kubernetes.Semver) -> bool", value_fn!(is_greater_than), Cost::Call);
    add("kubernetes.Semver.isLessThan(kubernetes.Semver) -> bool", value_fn!(is_less_than), Cost::Call);
    add("kubernetes.Semver.compareTo(kubernetes.Semver) -> int", value_fn!(compare_to), Cost::Call);
    add("kubernetes.Semver.major() -> int", value_fn!(major), Cost::Call);
    add("kubernetes.Semver.minor() -> int", value_fn!(minor), Cost::Call);
    add("kubernetes.Semver.patch() -> int", value_fn!(patch), Cost::Call);
}

fn normalize_flag(args: &[Value]) -> bool {
    matches!(args.get(1), Some(Value::Bool(true)))
}

fn semver(args: &[Value]) -> Outcome {
    let s = string_arg("semver", args, 0)?;
    parse(s, normalize_flag(args)).map(opaque).map_err(|e| error("semver", e))
}

fn is_semver(args: &[Value]) -> Outcome {
    Ok(Value::Bool(parse(string_arg("isSemver", args, 0)?, normalize_flag(args)).is_ok()))
}

fn this(args: &[Value], i: usize) -> Result<&Semver, ExecutionError> {
    opaque_arg::<Semver>("semver", args, i)
}

fn major(args: &[Value]) -> Outcome {
    Ok(Value::Int(this(args, 0)?.major as i64))
}

fn minor(args: &[Value]) -> Outcome {
    Ok(Value::Int(this(args, 0)?.minor as i64))
}

fn patch(args: &[Value]) -> Outcome {
    Ok(Value::Int(this(args, 0)?.patch as i64))
}

fn is_less_than(args: &[Value]) -> Outcome {
    Ok(Value::Bool(this(args, 0)?.cmp_to(this(args, 1)?) == Ordering::Less))
}

fn is_greater_than(args: &[Value]) -> Outcome {
    Ok(Value::Bool(this(args, 0)?.cmp_to(this(args, 1)?) == Ordering::Greater))
}

fn compare_to(args: &[Value]) -> Outcome {
    Ok(Value::Int(this(args, 0)?.cmp_to(this(args, 1)?) as i64))
}

/// The order of two versions, for the lists library.
pub(super) fn compare_values(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Opaque(x), Value::Opaque(y)) => Some(x.downcast_ref::<Semver>()?.cmp_to(y.downcast_ref::<Semver>()?)),
        _ => None,
    }
}
