//! RFC 3339 times as Go's `time.Parse(time.RFC3339, ...)` reads them and `metav1.Time` writes
//! them, as far as managed fields need: the Unix second.

/// The layout Go's errors name.
const RFC3339: &str = "2006-01-02T15:04:05Z07:00";

/// The Unix second of an RFC 3339 time (`2026-01-01T00:00:00Z`, fractions and offsets
/// allowed); `None` if Go's parser refuses it.
pub fn unix_seconds(text: &str) -> Option<i64> {
    parse_rfc3339(text).ok()
}

/// `time.Parse(time.RFC3339, text)`, second-exact: the Unix second, or Go's error. Go's
/// general parser (where its fast path gives up) is the one followed, so what either takes
/// is taken: a one-digit hour, a fraction after a comma, an offset hour up to 24; not a
/// lower-case `t` or `z`, nor a day the month does not have.
pub fn parse_rfc3339(text: &str) -> Result<i64, String> {
    let quoted = crate::report::issue::go_quote(text);
    let cannot = |rest: &str, element: &str| {
        format!(
            "parsing time {quoted} as {}: cannot parse {} as {}",
            crate::report::issue::go_quote(RFC3339),
            crate::report::issue::go_quote(rest),
            crate::report::issue::go_quote(element)
        )
    };
    let out_of_range = |what: &str| format!("parsing time {quoted}: {what} out of range");
    let mut rest = text;
    // A number of `width` digits (`1..=2` for the hour: Go's unfixed two).
    let number = |rest: &mut &str, fixed: bool, element: &str| -> Result<i64, String> {
        let b = rest.as_bytes();
        let digit = |i: usize| b.get(i).filter(|c| c.is_ascii_digit()).map(|c| i64::from(c - b'0'));
        let Some(first) = digit(0) else { return Err(cannot(rest, element)) };
        match digit(1) {
            Some(second) => {
                *rest = &rest[2..];
                Ok(first * 10 + second)
            }
            None if fixed => Err(cannot(rest, element)),
            None => {
                *rest = &rest[1..];
                Ok(first)
            }
        }
    };
    let literal = |rest: &mut &str, lit: &str, element: &str| -> Result<(), String> {
        match rest.strip_prefix(lit) {
            Some(after) => {
                *rest = after;
                Ok(())
            }
            None => Err(cannot(rest, element)),
        }
    };
    let year = match rest.get(..4).filter(|y| y.bytes().all(|c| c.is_ascii_digit())) {
        Some(y) => {
            rest = &rest[4..];
            y.parse::<i64>().expect("invariant: four digits")
        }
        None => return Err(cannot(rest, "2006")),
    };
    literal(&mut rest, "-", "-")?;
    let month = number(&mut rest, true, "01")?;
    if !(1..=12).contains(&month) {
        return Err(out_of_range("month"));
    }
    literal(&mut rest, "-", "-")?;
    let day = number(&mut rest, true, "02")?;
    literal(&mut rest, "T", "T")?;
    let hour = number(&mut rest, false, "15")?;
    if hour >= 24 {
        return Err(out_of_range("hour"));
    }
    literal(&mut rest, ":", ":")?;
    let minute = number(&mut rest, true, "04")?;
    if minute >= 60 {
        return Err(out_of_range("minute"));
    }
    literal(&mut rest, ":", ":")?;
    let second = number(&mut rest, true, "05")?;
    if second >= 60 {
        return Err(out_of_range("second"));
    }
    // A fraction the layout does not name is read anyway, after a period or a comma.
    let b = rest.as_bytes();
    if b.len() >= 2 && matches!(b[0], b'.' | b',') && b[1].is_ascii_digit() {
        let digits = b[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        rest = &rest[1 + digits..];
    }
    let offset = if let Some(after) = rest.strip_prefix('Z') {
        rest = after;
        0
    } else {
        let b = rest.as_bytes();
        if b.len() < 6 || b[3] != b':' || !matches!(b[0], b'+' | b'-') {
            return Err(cannot(rest, "Z07:00"));
        }
        let two = |i: usize| {
            (b[i].is_ascii_digit() && b[i + 1].is_ascii_digit())
                .then(|| i64::from(b[i] - b'0') * 10 + i64::from(b[i + 1] - b'0'))
        };
        let (Some(hours), Some(minutes)) = (two(1), two(4)) else { return Err(cannot(rest, "Z07:00")) };
        if hours > 24 {
            return Err(out_of_range("time zone offset hour"));
        }
        if minutes > 60 {
            return Err(out_of_range("time zone offset minute"));
        }
        let seconds = (hours * 60 + minutes) * 60;
        let sign = if b[0] == b'-' { -1 } else { 1 };
        rest = &rest[6..];
        sign * seconds
    };
    if !rest.is_empty() {
        return Err(format!("parsing time {quoted}: extra text: {}", crate::report::issue::go_quote(rest)));
    }
    if day < 1 || day > days_in(month, year) {
        return Err(out_of_range("day"));
    }
    Ok(days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second - offset)
}

/// The days of `month` in `year` (Gregorian).
fn days_in(month: i64, year: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A Unix second as RFC 3339 in UTC (`2026-01-01T00:00:00Z`), as `metav1.Time` writes it.
pub fn rfc3339_utc(seconds: i64) -> String {
    let (days, secs) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", secs / 3_600, secs % 3_600 / 60, secs % 60)
}

/// The date of a day since 1970-01-01 (Howard Hinnant's algorithm, the inverse of
/// [`days_from_civil`]).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::{rfc3339_utc, unix_seconds};

    #[test]
    fn times_read_as_unix_seconds() {
        assert_eq!(unix_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(unix_seconds("2026-01-01T00:00:00Z"), Some(1_767_225_600));
        assert_eq!(unix_seconds("2026-01-01T01:00:00.5+01:00"), Some(1_767_225_600));
        assert_eq!(unix_seconds("2000-02-29T12:00:00Z"), Some(951_825_600));
        for t in [0, 951_825_600, 1_767_225_600, -86_400, 4_102_444_799] {
            assert_eq!(unix_seconds(&rfc3339_utc(t)), Some(t), "{t}");
        }
        assert_eq!(rfc3339_utc(1_767_225_600), "2026-01-01T00:00:00Z");
        for bad in ["", "2026-01-01", "2026-13-01T00:00:00Z", "2026-01-01T00:00:00", "2026-01-01T00:00:00.Z"] {
            assert_eq!(unix_seconds(bad), None, "{bad}");
        }
    }

    /// What Go 1.26's `time.Parse(time.RFC3339, ...)` answers (the table printed by a Go
    /// program over these inputs): what it takes beyond the strict form, what it refuses.
    #[test]
    fn times_are_read_as_gos_parser_reads_them() {
        use super::parse_rfc3339;
        let table: &[(&str, Result<i64, &str>)] = &[
            ("2026-01-01T00:00:00Z", Ok(1767225600)),
            ("2026-01-01T01:00:00.5+01:00", Ok(1767225600)),
            ("2024-02-29T00:00:00Z", Ok(1709164800)),
            ("2026-01-01T1:00:00Z", Ok(1767229200)),
            ("2026-01-01T00:00:00,5Z", Ok(1767225600)),
            ("2026-02-30T00:00:00Z", Err(r#"parsing time "2026-02-30T00:00:00Z": day out of range"#)),
            (
                "2026-01-01t00:00:00Z",
                Err(
                    r#"parsing time "2026-01-01t00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "t00:00:00Z" as "T""#,
                ),
            ),
            (
                "2026-01-01T00:00:00z",
                Err(
                    r#"parsing time "2026-01-01T00:00:00z" as "2006-01-02T15:04:05Z07:00": cannot parse "z" as "Z07:00""#,
                ),
            ),
            ("2026-01-01T00:00:00Zx", Err(r#"parsing time "2026-01-01T00:00:00Zx": extra text: "x""#)),
            ("2026-01-01T24:00:00Z", Err(r#"parsing time "2026-01-01T24:00:00Z": hour out of range"#)),
            ("2026-01-01T00:00:00.1234567890123Z", Ok(1767225600)),
            ("2026-01-01T00:00:00+24:00", Ok(1767139200)),
            ("2026-01-01T00:00:00-01:60", Ok(1767232800)),
            (
                "2026-01-01T00:00:00+25:00",
                Err(r#"parsing time "2026-01-01T00:00:00+25:00": time zone offset hour out of range"#),
            ),
            (
                "2026-01-01T00:00:00+01:61",
                Err(r#"parsing time "2026-01-01T00:00:00+01:61": time zone offset minute out of range"#),
            ),
            (
                "2026-1-01T00:00:00Z",
                Err(
                    r#"parsing time "2026-1-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-01T00:00:00Z" as "01""#,
                ),
            ),
            ("2026-13-01T00:00:00Z", Err(r#"parsing time "2026-13-01T00:00:00Z": month out of range"#)),
            ("2026-01-01T00:60:00Z", Err(r#"parsing time "2026-01-01T00:60:00Z": minute out of range"#)),
            ("2026-01-01T00:00:60Z", Err(r#"parsing time "2026-01-01T00:00:60Z": second out of range"#)),
            ("", Err(r#"parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006""#)),
            (
                "2026-01-01T00:00:00+0100",
                Err(
                    r#"parsing time "2026-01-01T00:00:00+0100" as "2006-01-02T15:04:05Z07:00": cannot parse "+0100" as "Z07:00""#,
                ),
            ),
            (
                "2026-01-01T00:00:00.Z",
                Err(
                    r#"parsing time "2026-01-01T00:00:00.Z" as "2006-01-02T15:04:05Z07:00": cannot parse ".Z" as "Z07:00""#,
                ),
            ),
            (
                "+026-01-01T00:00:00Z",
                Err(
                    r#"parsing time "+026-01-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "+026-01-01T00:00:00Z" as "2006""#,
                ),
            ),
            ("2026-00-01T00:00:00Z", Err(r#"parsing time "2026-00-01T00:00:00Z": month out of range"#)),
            ("2026-01-00T00:00:00Z", Err(r#"parsing time "2026-01-00T00:00:00Z": day out of range"#)),
            (
                "2026-01-01T00:00",
                Err(r#"parsing time "2026-01-01T00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as ":""#),
            ),
            ("0000-01-01T00:00:00Z", Ok(-62167219200)),
        ];
        for (text, want) in table {
            assert_eq!(parse_rfc3339(text), want.map_err(str::to_owned), "{text}");
        }
    }
}
