//! The Kubernetes quantity library (`AS pkg/cel/library/quantity.go`) over
//! `resource.ParseQuantity`'s grammar: `quantity`, `isQuantity`, `sign`, `isInteger`,
//! `asInteger`, `asApproximateFloat`, `add`, `sub`, `isLessThan`, `isGreaterThan`,
//! `compareTo`. A quantity is kept exactly, in nano-units (`200M` and `0.2G` are equal).

use std::cmp::Ordering;

use cel::{ExecutionError, Value};

use crate::cel::vocabulary::args::{Outcome, error, opaque, opaque_arg, string_arg, value_fn};
use crate::cel::vocabulary::function::{Charge, Cost, LIBRARY_VALUE, NativeForm, Rows, Run};

const TYPE: &str = "kubernetes.Quantity";
const NANO: i128 = 1_000_000_000;

/// A quantity in units of 10⁻⁹, with the text it was written as.
#[derive(Debug, Clone)]
pub struct Quantity {
    nanos: i128,
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.nanos == other.nanos
    }
}
impl Eq for Quantity {}

impl cel::objects::Opaque for Quantity {
    fn runtime_type_name(&self) -> &str {
        TYPE
    }
}

const FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX_WRONG: &str = "unable to parse quantity's suffix";
/// \[divergence\] A quantity is kept exactly in 128 bits of nano-units; Go's parser keeps larger
/// ones in arbitrary precision. Past the bound a quantity is refused, saying so (and
/// `isQuantity` is false), where the apiserver would take it (`docs/limits-and-divergences.md`).
const TOO_LARGE: &str =
    "quantities beyond ±1.7×10²⁹ (or with more than 38 digits) are not supported by kubeskema's exact arithmetic";

/// `resource.ParseQuantity`.
pub fn parse(s: &str) -> Result<Quantity, &'static str> {
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let number_len = body.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(body.len());
    let (number, suffix) = body.split_at(number_len);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if number.is_empty() || (whole.is_empty() && fraction.is_empty()) || fraction.contains('.') {
        return Err(FORMAT_WRONG);
    }
    // The number in nano-units: fractions beyond nine digits round up, as the apiserver's
    // canonical form does.
    let digits = |t: &str| t.bytes().try_fold(0i128, |acc, d| acc.checked_mul(10)?.checked_add(i128::from(d - b'0')));
    let mut nanos = digits(whole).and_then(|w| w.checked_mul(NANO)).ok_or(TOO_LARGE)?;
    let frac9: String = fraction.chars().chain(std::iter::repeat('0')).take(9).collect();
    nanos += digits(&frac9).ok_or(TOO_LARGE)?;
    if fraction.len() > 9 && fraction[9..].bytes().any(|d| d != b'0') {
        nanos += 1;
    }
    let scaled = match suffix {
        "" => Some(nanos),
        "n" => Some(ceil_div(nanos, NANO)),
        "u" => Some(ceil_div(nanos, 1_000_000)),
        "m" => Some(ceil_div(nanos, 1_000)),
        "k" => nanos.checked_mul(1_000),
        "M" => nanos.checked_mul(1_000_000),
        "G" => nanos.checked_mul(1_000_000_000),
        "T" => nanos.checked_mul(10i128.pow(12)),
        "P" => nanos.checked_mul(10i128.pow(15)),
        "E" => nanos.checked_mul(10i128.pow(18)),
        "Ki" => nanos.checked_mul(1 << 10),
        "Mi" => nanos.checked_mul(1 << 20),
        "Gi" => nanos.checked_mul(1 << 30),
        "Ti" => nanos.checked_mul(1 << 40),
        "Pi" => nanos.checked_mul(1 << 50),
        "Ei" => nanos.checked_mul(1 << 60),
        exponent if exponent.starts_with(['e', 'E']) => {
            let e: i32 = exponent[1..].parse().map_err(|_| SUFFIX_WRONG)?;
            if e >= 0 {
                u32::try_from(e).ok().and_then(|e| 10i128.checked_pow(e)).and_then(|p| nanos.checked_mul(p))
            } else {
                Some(
                    u32::try_from(-e)
                        .ok()
                        .and_then(|e| 10i128.checked_pow(e))
                        .map_or(i128::from(nanos > 0), |p| ceil_div(nanos, p)),
                )
            }
        }
        _ => return Err(SUFFIX_WRONG),
    };
    let nanos = scaled.ok_or(TOO_LARGE)?;
    Ok(Quantity { nanos: if negative { -nanos } else { nanos } })
}

fn ceil_div(a: i128, b: i128) -> i128 {
    (a + b - 1) / b
}

pub(super) fn functions(rows: &mut Rows) {
    let interpreted = NativeForm::Interpreted(LIBRARY_VALUE);
    let mut row = |signature: &str, f, cost| rows.add(signature, Run::Library(f), cost, Charge::Call, interpreted);
    row("quantity(string) -> kubernetes.Quantity", value_fn!(quantity), Cost::ParseArgument);
    row("isQuantity(string) -> bool", value_fn!(is_quantity), Cost::ParseArgument);
    // Declared global in the apiserver (its doc comment shows `q.sign()`, which does not
    // check).
    row("sign(kubernetes.Quantity) -> int", value_fn!(sign), Cost::Call);
    row("kubernetes.Quantity.isGreaterThan(kubernetes.Quantity) -> bool", value_fn!(is_greater_than), Cost::Call);
    row("kubernetes.Quantity.isLessThan(kubernetes.Quantity) -> bool", value_fn!(is_less_than), Cost::Call);
    row("kubernetes.Quantity.compareTo(kubernetes.Quantity) -> int", value_fn!(compare_to), Cost::Call);
    row("kubernetes.Quantity.asApproximateFloat() -> double", value_fn!(as_approximate_float), Cost::Call);
    row("kubernetes.Quantity.asInteger() -> int", value_fn!(as_integer), Cost::Call);
    row("kubernetes.Quantity.isInteger() -> bool", value_fn!(is_integer), Cost::Call);
    row("kubernetes.Quantity.add(kubernetes.Quantity) -> kubernetes.Quantity", value_fn!(add), Cost::Call);
    row("kubernetes.Quantity.add(int) -> kubernetes.Quantity", value_fn!(add), Cost::Call);
    row("kubernetes.Quantity.sub(kubernetes.Quantity) -> kubernetes.Quantity", value_fn!(sub), Cost::Call);
    row("kubernetes.Quantity.sub(int) -> kubernetes.Quantity", value_fn!(sub), Cost::Call);
}

fn quantity(args: &[Value]) -> Outcome {
    parse(string_arg("quantity", args, 0)?).map(opaque).map_err(|e| error("quantity", e))
}

fn is_quantity(args: &[Value]) -> Outcome {
    Ok(Value::Bool(parse(string_arg("isQuantity", args, 0)?).is_ok()))
}

fn this(args: &[Value], i: usize) -> Result<&Quantity, ExecutionError> {
    opaque_arg::<Quantity>("quantity", args, i)
}

/// The second operand of `add`/`sub`: a quantity or an int.
fn operand(args: &[Value]) -> Result<i128, ExecutionError> {
    match args.get(1) {
        Some(Value::Int(i)) => i128::from(*i).checked_mul(NANO).ok_or_else(|| error("quantity", "overflow")),
        _ => Ok(this(args, 1)?.nanos),
    }
}

fn sign(args: &[Value]) -> Outcome {
    Ok(Value::Int(this(args, 0)?.nanos.signum() as i64))
}

fn is_integer(args: &[Value]) -> Outcome {
    let n = this(args, 0)?.nanos;
    Ok(Value::Bool(n % NANO == 0 && i64::try_from(n / NANO).is_ok()))
}

fn as_integer(args: &[Value]) -> Outcome {
    let n = this(args, 0)?.nanos;
    if n % NANO != 0 {
        return Err(error("asInteger", "cannot convert value to integer"));
    }
    i64::try_from(n / NANO).map(Value::Int).map_err(|_| error("asInteger", "cannot convert value to integer"))
}

fn as_approximate_float(args: &[Value]) -> Outcome {
    Ok(Value::Float(this(args, 0)?.nanos as f64 / NANO as f64))
}

fn order(args: &[Value]) -> Result<Ordering, ExecutionError> {
    Ok(this(args, 0)?.nanos.cmp(&this(args, 1)?.nanos))
}

fn is_less_than(args: &[Value]) -> Outcome {
    Ok(Value::Bool(order(args)? == Ordering::Less))
}

fn is_greater_than(args: &[Value]) -> Outcome {
    Ok(Value::Bool(order(args)? == Ordering::Greater))
}

fn compare_to(args: &[Value]) -> Outcome {
    Ok(Value::Int(order(args)? as i64))
}

fn add(args: &[Value]) -> Outcome {
    let sum = this(args, 0)?.nanos.checked_add(operand(args)?).ok_or_else(|| error("add", "overflow"))?;
    Ok(opaque(Quantity { nanos: sum }))
}

fn sub(args: &[Value]) -> Outcome {
    let diff = this(args, 0)?.nanos.checked_sub(operand(args)?).ok_or_else(|| error("sub", "overflow"))?;
    Ok(opaque(Quantity { nanos: diff }))
}

/// The order of two quantities, for the lists library.
pub(super) fn compare_values(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Opaque(x), Value::Opaque(y)) => {
            Some(x.downcast_ref::<Quantity>()?.nanos.cmp(&y.downcast_ref::<Quantity>()?.nanos))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    /// Past the exact range a quantity is refused with words that say so, not as malformed.
    #[test]
    fn quantities_past_the_exact_range_say_so() {
        assert!(super::parse("100000000000000000000").is_ok(), "10^20 units are within the range");
        for big in ["9".repeat(200), "1e1000".to_owned(), "123456789012345678901234567890Ki".to_owned()] {
            assert_eq!(super::parse(&big).unwrap_err(), super::TOO_LARGE, "{big}");
        }
        assert_eq!(super::parse("1x").unwrap_err(), super::SUFFIX_WRONG);
        assert_eq!(super::parse(".").unwrap_err(), super::FORMAT_WRONG);
    }
}
