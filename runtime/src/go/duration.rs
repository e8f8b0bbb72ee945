//! Durations as Go reads them: `time.ParseDuration` ([`parse_go`]) and kube-openapi strfmt's
//! `ParseDuration` ([`parse_strfmt`]: Go's parser first, then `<int> <unit>` runs with long
//! unit names). The `duration` format and CEL's typing of `format: duration` strings both use
//! [`parse_strfmt`]; the value is in nanoseconds, as Go's `time.Duration`.

use std::sync::LazyLock;

use regex::Regex;

/// Go's `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with the units `ns`, `us`,
/// `µs` (U+00B5), `μs` (U+03BC), `ms`, `s`, `m`, `h`, or `0`; `None` where Go returns an error
/// (unknown or missing unit, no digits, beyond ±2^63 ns).
pub fn parse_go(s: &str) -> Option<i64> {
    let (negative, mut rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    const LIMIT: u64 = 1 << 63;
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let first = rest.as_bytes()[0];
        if !(first == b'.' || first.is_ascii_digit()) {
            return None;
        }
        // [0-9]*: Go's leadingInt fails past 2^63.
        let int_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let mut whole: u64 = 0;
        for d in rest[..int_len].bytes() {
            whole = whole.checked_mul(10).and_then(|w| w.checked_add(u64::from(d - b'0'))).filter(|w| *w <= LIMIT)?;
        }
        rest = &rest[int_len..];
        // (\.[0-9]*)?: Go's leadingFraction stops adding digits once they overflow.
        let (mut frac, mut scale, mut frac_len) = (0u64, 1f64, 0);
        if let Some(after) = rest.strip_prefix('.') {
            frac_len = after.bytes().take_while(u8::is_ascii_digit).count();
            let mut overflow = false;
            for d in after[..frac_len].bytes() {
                if overflow {
                    continue;
                }
                match frac.checked_mul(10).and_then(|f| f.checked_add(u64::from(d - b'0'))) {
                    Some(f) if f <= LIMIT => {
                        frac = f;
                        scale *= 10.0;
                    }
                    _ => overflow = true,
                }
            }
            rest = &after[frac_len..];
        }
        if int_len == 0 && frac_len == 0 {
            return None;
        }
        // The unit: everything up to the next digit or '.', looked up exactly.
        let unit_len = rest.find(|c: char| c == '.' || c.is_ascii_digit()).unwrap_or(rest.len());
        let unit: u64 = match &rest[..unit_len] {
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        rest = &rest[unit_len..];
        if whole > LIMIT / unit {
            return None;
        }
        let mut v = whole * unit;
        if frac > 0 {
            // As Go: float64 math, exact to the nanosecond for fractions of an hour.
            v += (frac as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return None;
            }
        }
        total = total.checked_add(v).filter(|t| *t <= LIMIT)?;
    }
    if negative { Some((total as i128).wrapping_neg() as i64) } else { i64::try_from(total).ok() }
}

/// kube-openapi strfmt's `ParseDuration`: Go's parser, else every `<digits> <letters>` run
/// whose unit is one of strfmt's names (`d`, `day…`, `w`, `wk`, `week…`, `hr`, `hour…`,
/// `min…`, `sec…`, …; the last name of each unit also as a prefix, so `minutes` and `days`
/// count). Runs with unknown units are skipped, but one count beyond Go's `int` fails the whole
/// string (`strconv.Atoi`); sums wrap as Go's `time.Duration` arithmetic does.
pub fn parse_strfmt(s: &str) -> Option<i64> {
    if let Some(d) = parse_go(s) {
        return Some(d);
    }
    // Go's `\d` and `\s` are ASCII only.
    static RUN: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"([0-9]+)[\t\n\x0C\r ]*([A-Za-zµ]+)").expect("invariant: a valid regex"));
    const UNITS: [(&[&str], i64); 8] = [
        (&["ns", "nano"], 1),
        (&["us", "µs", "micro"], 1_000),
        (&["ms", "milli"], 1_000_000),
        (&["s", "sec"], 1_000_000_000),
        (&["m", "min"], 60_000_000_000),
        (&["h", "hr", "hour"], 3_600_000_000_000),
        (&["d", "day"], 86_400_000_000_000),
        (&["w", "wk", "week"], 604_800_000_000_000),
    ];
    let mut total: i64 = 0;
    let mut any = false;
    for run in RUN.captures_iter(s) {
        let count: i64 = run[1].parse().ok()?;
        let unit = run[2].to_lowercase();
        for (names, nanos) in UNITS {
            let last = names.len() - 1;
            for (i, name) in names.iter().enumerate() {
                if (i == last && unit.starts_with(name)) || unit.eq_ignore_ascii_case(name) {
                    any = true;
                    total = total.wrapping_add(count.wrapping_mul(nanos));
                }
            }
        }
    }
    any.then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NS: i64 = 1;
    const US: i64 = 1_000;
    const MS: i64 = 1_000_000;
    const S: i64 = 1_000_000_000;
    const M: i64 = 60 * S;
    const H: i64 = 60 * M;
    const D: i64 = 24 * H;
    const W: i64 = 7 * D;

    /// Go's `time` package tests, `parseDurationTests` and `parseDurationErrorTests`.
    #[test]
    fn go_parse_duration() {
        for (s, want) in [
            ("0", 0),
            ("5s", 5 * S),
            ("30s", 30 * S),
            ("1478s", 1478 * S),
            ("-5s", -5 * S),
            ("+5s", 5 * S),
            ("-0", 0),
            ("+0", 0),
            ("5.0s", 5 * S),
            ("5.6s", 5 * S + 600 * MS),
            ("5.s", 5 * S),
            (".5s", 500 * MS),
            ("1.0s", S),
            ("1.00s", S),
            ("1.004s", S + 4 * MS),
            ("1.0040s", S + 4 * MS),
            ("100.00100s", 100 * S + MS),
            ("10ns", 10 * NS),
            ("11us", 11 * US),
            ("12µs", 12 * US),
            ("12μs", 12 * US),
            ("13ms", 13 * MS),
            ("14s", 14 * S),
            ("15m", 15 * M),
            ("16h", 16 * H),
            ("3h30m", 3 * H + 30 * M),
            ("10.5s4m", 4 * M + 10 * S + 500 * MS),
            ("-2m3.4s", -(2 * M + 3 * S + 400 * MS)),
            ("1h2m3s4ms5us6ns", H + 2 * M + 3 * S + 4 * MS + 5 * US + 6 * NS),
            ("39h9m14.425s", 39 * H + 9 * M + 14 * S + 425 * MS),
            ("52763797000ns", 52763797000 * NS),
            ("0.3333333333333333333h", 20 * M),
            ("9007199254740993ns", (1 << 53) + 1),
            ("9223372036854775807ns", i64::MAX),
            ("9223372036854775.807us", i64::MAX),
            ("9223372036s854ms775us807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
            ("-9223372036854775.808us", i64::MIN),
            ("-9223372036s854ms775us808ns", i64::MIN),
            ("-2562047h47m16.854775808s", i64::MIN),
            ("0.100000000000000000000h", 6 * M),
            ("0.830103483285477580700h", 49 * M + 48 * S + 372539827 * NS),
        ] {
            assert_eq!(parse_go(s), Some(want), "{s}");
        }
        for s in [
            "",
            "3",
            "-",
            "s",
            ".",
            "-.",
            ".s",
            "+.s",
            "1d",
            "\u{85}\u{85}",
            "\u{FFFD}",
            "9223372036854775810ns",
            "9223372036854775808ns",
            "-9223372036854775809ns",
            "9223372036854776us",
            "3000000h",
            "9223372036854775.808us",
            "9223372036854ms775us808ns",
        ] {
            assert_eq!(parse_go(s), None, "{s:?}");
        }
    }

    /// kube-openapi `strfmt/duration_test.go`: `TestDurationParser`, `TestDuration`,
    /// `TestDurationParser_Failed`, `TestIsDuration_Failed`, `TestIsDuration_Caveats`.
    #[test]
    fn strfmt_parse_duration() {
        for (s, want) in [
            ("1ns", NS),
            ("1us", US),
            ("1µs", US),
            ("1ms", MS),
            ("1s", S),
            ("1m", M),
            ("1h", H),
            ("1hr", H),
            ("1d", D),
            ("1w", W),
            ("1wk", W),
            ("1nanoseconds", NS),
            ("1nanos", NS),
            ("1microseconds", US),
            ("1micros", US),
            ("1millis", MS),
            ("1milliseconds", MS),
            ("1second", S),
            ("1sec", S),
            ("1min", M),
            ("1minute", M),
            ("1hour", H),
            ("1day", D),
            ("1week", W),
            ("1  ns", NS),
            ("1  us", US),
            ("1  µs", US),
            ("1  ms", MS),
            ("1  s", S),
            ("1  m", M),
            ("1  h", H),
            ("1  hr", H),
            ("1  d", D),
            ("1  w", W),
            ("1  wk", W),
            ("1  nanoseconds", NS),
            ("1  nanos", NS),
            ("1  microseconds", US),
            ("1  micros", US),
            ("1  millis", MS),
            ("1  milliseconds", MS),
            ("1  second", S),
            ("1  sec", S),
            ("1  min", M),
            ("1  minute", M),
            ("1  hour", H),
            ("1  day", D),
            ("1  week", W),
            ("0ms", 0),
            ("2ms", 2 * MS),
            ("45 weeks", 45 * W),
        ] {
            assert_eq!(parse_strfmt(s), Some(want), "{s}");
        }
        for s in [
            "yada",
            "three week",
            "9999999999999999999999999999999999999999999999999999999 weeks",
            "12 parsecs",
            "12 y",
            "45 wekk",
            "45 weeekks",
            // A count beyond int64 fails the whole string, as strconv.Atoi does.
            "99999999999999999999s 1s",
            // Names outside strfmt's lists: `hrs` and `wks` are no prefix of `hour`/`week`.
            "1hrs",
            "2wks",
        ] {
            assert_eq!(parse_strfmt(s), None, "{s:?}");
        }
    }
}
