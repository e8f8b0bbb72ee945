//! Which numbers a schema node's type and format hold: [ver 1.36+] go-openapi's
//! `IsValueValidAgainstRange`, which the apiserver runs on every number and on every numeric
//! bound (`maximum`, `minimum`, `multipleOf`). The runtime's number checks run it on values;
//! the derive runs it on the bounds it is given, so that a bound no value can pass is refused
//! when the type is compiled rather than on every object.

/// The range a numeric type and format hold numbers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatRange {
    /// `integer` with format `int32`.
    Int32,
    /// Any other `integer`.
    Int64,
    /// `number` with format `float`.
    Float32,
    /// Any other `number`.
    Unbounded,
}

impl FormatRange {
    /// The range of `type_` (`integer` or `number`) with `format` as written. Of the formats
    /// that bound a range, `int32` survives for integers and `float` for numbers whenever
    /// written: no need to ask which survive.
    pub const fn of(type_: &str, format: &str) -> FormatRange {
        if same(type_.as_bytes(), b"integer") {
            if same(format.as_bytes(), b"int32") { FormatRange::Int32 } else { FormatRange::Int64 }
        } else if same(type_.as_bytes(), b"number") && same(format.as_bytes(), b"float") {
            FormatRange::Float32
        } else {
            FormatRange::Unbounded
        }
    }

    /// Whether an int64 value is in range.
    #[inline]
    pub fn holds_int(self, i: i64) -> bool {
        match self {
            FormatRange::Int32 => i32::try_from(i).is_ok(),
            _ => true,
        }
    }

    /// Whether a float64 value (a bound, or a number written with a fraction or exponent) is
    /// in range: for integers, the number as go-openapi writes it ([`written_whole`]) parses
    /// as the format's integer.
    #[inline]
    pub fn holds_float(self, f: f64) -> bool {
        match self {
            FormatRange::Int32 => written_whole_within(f, i32::MIN.into(), i32::MAX.into()),
            FormatRange::Int64 => written_whole_within(f, i64::MIN.into(), i64::MAX.into()),
            FormatRange::Float32 => f.abs() <= f64::from(f32::MAX),
            FormatRange::Unbounded => true,
        }
    }

    /// Whether a bound refuses every value of this range: the range cannot hold it, or it is a
    /// `multipleOf` (`factor`) that is not positive.
    pub fn refuses_bound(self, bound: f64, factor: bool) -> bool {
        !self.holds_float(bound) || factor && bound <= 0.0
    }

    /// The smallest and the largest bound the range holds, as they are best written in
    /// an attribute: for int64, the last floats before ±2^63 (a bound is read as a float64).
    pub fn widest(self) -> Option<(&'static str, &'static str)> {
        match self {
            FormatRange::Int32 => Some(("-2147483648", "2147483647")),
            FormatRange::Int64 => Some(("-9223372036854774784", "9223372036854774784")),
            FormatRange::Float32 => Some(("-3.4028234663852886e38", "3.4028234663852886e38")),
            FormatRange::Unbounded => None,
        }
    }
}

/// Whether a node of `schema_type` (`integer`, `number`) and `format` refuses every value
/// for its bounds: one its range cannot hold, or a `multipleOf` not positive.
pub fn refuses_every_value(
    schema_type: &str,
    format: &str,
    minimum: Option<f64>,
    maximum: Option<f64>,
    multiple_of: Option<f64>,
) -> bool {
    let range = FormatRange::of(schema_type, format);
    [(minimum, false), (maximum, false), (multiple_of, true)]
        .into_iter()
        .any(|(bound, factor)| bound.is_some_and(|b| range.refuses_bound(b, factor)))
}

/// The schema type and format each Rust number type is given (the runtime's
/// `schema::of_types::builtin`, which a test holds to this table): what the derive reads a
/// field's bounds against.
pub const RUST_NUMBERS: &[(&str, &str, &str)] = &[
    ("i8", "integer", ""),
    ("i16", "integer", ""),
    ("i32", "integer", "int32"),
    ("i64", "integer", ""),
    ("u8", "integer", ""),
    ("u16", "integer", ""),
    ("u32", "integer", "int64"),
    ("u64", "integer", "int64"),
    ("usize", "integer", "int64"),
    ("f32", "number", ""),
    ("f64", "number", ""),
];

/// The schema type and format of the Rust number type named `name`.
pub fn rust_number(name: &str) -> Option<(&'static str, &'static str)> {
    RUST_NUMBERS.iter().find(|(n, ..)| *n == name).map(|&(_, t, f)| (t, f))
}

/// `a == b` in a `const fn`.
pub const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `f`, as go-openapi writes it before it parses it as an integer ([`written_whole`]),
/// is an integer in `min..=max`.
#[inline]
fn written_whole_within(f: f64, min: i128, max: i128) -> bool {
    /// Below 2^53 every integer is a float of its own, so the shortest digits are all of them
    /// and float comparisons are exact.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    // Bounds (`maximum: 65535`) and most values land here, each time a value is checked: no
    // conversion to `i128` (a library call), and `min`, `max` fold to float constants.
    // `f as i64` converts in one instruction where `f.fract()` calls libm's `trunc`.
    if f.abs() < EXACT {
        return (f as i64) as f64 == f && (min as f64..=max as f64).contains(&f);
    }
    written_whole(f).is_some_and(|w| (min..=max).contains(&w))
}

/// A float as go-openapi writes it before it parses it as an integer (`strconv.FormatFloat(f,
/// 'f', -1, 64)`: the shortest digits that read back as `f`, padded with zeros), read as an
/// integer; `None` for a fraction, or more than an `i128` holds. So `-2^63`, exactly an int64,
/// is written `-9223372036854776000` and is not one **\[quirk\]**.
#[cold]
pub fn written_whole(f: f64) -> Option<i128> {
    if !f.is_finite() || f.fract() != 0.0 {
        return None;
    }
    // Rust's `{:e}` gives the shortest round-tripping digits, as Go's formatting does.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let zeros = u32::try_from(exp - (digits.len() as i32 - 1)).ok()?;
    let value = digits.parse::<i128>().ok()?.checked_mul(10i128.checked_pow(zeros)?)?;
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_widest_bounds_hold_and_the_next_floats_out_do_not() {
        for range in [FormatRange::Int32, FormatRange::Int64, FormatRange::Float32] {
            let (min, max) = range.widest().expect("bounded");
            let (min, max): (f64, f64) = (min.parse().unwrap(), max.parse().unwrap());
            assert!(range.holds_float(min) && range.holds_float(max), "{range:?}");
            let (below, above) = (min.next_down(), max.next_up());
            assert!(!range.holds_float(below) && !range.holds_float(above), "{range:?}");
        }
        // 2^63 - 1 as an attribute is 2^63 as a float: the advice the README used to give.
        assert!(!FormatRange::Int64.holds_float(9_223_372_036_854_775_807_i64 as f64));
        assert_eq!(written_whole(-1e3), Some(-1000));
        assert_eq!(written_whole(0.5), None);
    }
}
