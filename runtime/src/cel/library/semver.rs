//! The Kubernetes semver library (`AS pkg/cel/library/semverlib.go`, blang/semver):
//! `semver`, `isSemver` (each with an optional `normalize` flag that allows a `v` prefix,
//! missing minor/patch and leading zeros), `major`, `minor`, `patch`, `isLessThan`,
//! `isGreaterThan`, `compareTo`.

use std::cmp::Ordering;

use cel::{ExecutionError, Value};

use super::args::{Outcome, error, opaque, opaque_arg, string_arg, value_fn};
use super::function::{Charge, Cost, LIBRARY_VALUE, NativeForm, Rows, Run};

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

/// blang's `semver.Parse`; with `normalize`, a `v` prefix, missing minor/patch and leading
/// zeros are accepted first.
pub fn parse(s: &str, normalize: bool) -> Result<Semver, String> {
    let mut text = s.to_owned();
    if normalize {
        text = text.strip_prefix('v').unwrap_or(&text).to_owned();
        let split = text.find(['-', '+']).unwrap_or(text.len());
        let (core, rest) = text.split_at(split);
        let mut parts: Vec<String> = core
            .split('.')
            .map(|p| p.trim_start_matches('0'))
            .map(|p| if p.is_empty() { "0" } else { p }.to_owned())
            .collect();
        while parts.len() < 3 {
            parts.push("0".into());
        }
        text = format!("{}{rest}", parts.join("."));
    }
    let (rest, _build) = text.split_once('+').unwrap_or((&text, ""));
    let (core, pre) = rest.split_once('-').map_or((rest, None), |(c, p)| (c, Some(p)));
    let parts: Vec<&str> = core.split('.').collect();
    if parts.len() != 3 {
        return Err("No Major.Minor.Patch elements found".into());
    }
    let number = |p: &str, what: &str| -> Result<u64, String> {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("Invalid character(s) found in {what} number {p:?}"));
        }
        if p.len() > 1 && p.starts_with('0') {
            return Err(format!("{what} number must not contain leading zeroes {p:?}"));
        }
        p.parse().map_err(|e| format!("{e}"))
    };
    let (major, minor, patch) = (number(parts[0], "Major")?, number(parts[1], "Minor")?, number(parts[2], "Patch")?);
    let pre = match pre {
        None => Vec::new(),
        Some(p) => {
            let ids: Vec<String> = p.split('.').map(str::to_owned).collect();
            for id in &ids {
                if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
                    return Err(format!("Invalid character(s) found in prerelease {id:?}"));
                }
                if id.len() > 1 && id.starts_with('0') && id.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(format!("Numeric PreRelease version must not contain leading zeroes {id:?}"));
                }
            }
            ids
        }
    };
    Ok(Semver { major, minor, patch, pre })
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
    parse(s, normalize_flag(args))
        .map(opaque)
        .map_err(|e| error("semver", format!("could not parse {s:?} as semver: {e}")))
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
