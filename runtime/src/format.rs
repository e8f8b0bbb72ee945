//! The `format`s the apiserver enforces on strings (kube-openapi `strfmt`), and which formats
//! it keeps at all (`StripUnsupportedFormatsPostProcessor`): any other format is erased and
//! never validated.
//!
//! ```
//! use kubeskema::format::{Format, supported};
//! assert_eq!(supported("string", "date-time"), Some(Format::DateTime));
//! assert_eq!(supported("string", "int-or-string"), None, "unknown formats are ignored");
//! assert!(Format::DateTime.is_valid("2024-02-29T10:00:00Z"));
//! assert!(!Format::DateTime.is_valid("2024-02-29T10:00:00"), "a zone is required");
//! ```

use std::sync::LazyLock;

use regex::Regex;

use crate::issue::{BadValue, ErrorType, Issue, go_quote};
use crate::path::Path;

/// A string format the apiserver validates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // Each variant is the format of the same name.
pub enum Format {
    BsonObjectId,
    Uri,
    Email,
    Hostname,
    Ipv4,
    Ipv6,
    Cidr,
    Mac,
    Uuid,
    Uuid3,
    Uuid4,
    Uuid5,
    Isbn,
    Isbn10,
    Isbn13,
    CreditCard,
    Ssn,
    HexColor,
    RgbColor,
    Byte,
    Password,
    Date,
    Duration,
    DateTime,
    K8sShortName,
    K8sLongName,
}

/// The format the apiserver validates for a schema `type` and `format`, or `None` when it
/// erases the format. Names are compared with every `-` removed (`date-time` = `datetime`).
/// Numeric formats (`int32`, `int64`, `float`, `double`) are kept by the apiserver but only
/// matter to type and range checks, so they are `None` here.
pub fn supported(schema_type: &str, format: &str) -> Option<Format> {
    if !(schema_type.is_empty() || schema_type == "string") {
        return None;
    }
    let name: String = format.chars().filter(|&c| c != '-').collect();
    Some(match name.as_str() {
        "bsonobjectid" => Format::BsonObjectId,
        "uri" => Format::Uri,
        "email" => Format::Email,
        "hostname" => Format::Hostname,
        "ipv4" => Format::Ipv4,
        "ipv6" => Format::Ipv6,
        "cidr" => Format::Cidr,
        "mac" => Format::Mac,
        "uuid" => Format::Uuid,
        "uuid3" => Format::Uuid3,
        "uuid4" => Format::Uuid4,
        "uuid5" => Format::Uuid5,
        "isbn" => Format::Isbn,
        "isbn10" => Format::Isbn10,
        "isbn13" => Format::Isbn13,
        "creditcard" => Format::CreditCard,
        "ssn" => Format::Ssn,
        "hexcolor" => Format::HexColor,
        "rgbcolor" => Format::RgbColor,
        "byte" => Format::Byte,
        "password" => Format::Password,
        "date" => Format::Date,
        "duration" => Format::Duration,
        "datetime" => Format::DateTime,
        "k8sshortname" => Format::K8sShortName,
        "k8slongname" => Format::K8sLongName,
        _ => return None,
    })
}

/// `format`: `spec.x: Invalid value: "abc": spec.x in body must be of type date-time: "abc"`
/// (the format named as the schema wrote it).
pub fn check(path: &Path, value: &str, format: Format, written: &str) -> Option<Issue> {
    (!format.is_valid(value)).then(|| {
        Issue::new(
            ErrorType::Invalid,
            path,
            "format",
            BadValue::Str(value.to_owned()),
            format!("{} in body must be of type {written}: {}", path.openapi(), go_quote(value)),
        )
    })
}

macro_rules! rx {
    ($name:ident, $re:expr) => {
        static $name: LazyLock<Regex> = LazyLock::new(|| Regex::new($re).expect("invariant: a valid built-in regex"));
    };
}

rx!(UUID, r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$");
rx!(UUID3, r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$");
rx!(UUID4, r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$");
rx!(UUID5, r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$");
rx!(HEXCOLOR, r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$");
rx!(
    RGBCOLOR,
    r"^rgb\(\s*(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])\s*,\s*(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])\s*,\s*(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])\s*\)$"
);
rx!(SSN, r"^[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}$");
rx!(BSON, r"^[0-9a-fA-F]{24}$");
rx!(BASE64, r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$");
rx!(
    CREDITCARD,
    r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(?:222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11}|6[27][0-9]{14})$"
);
rx!(
    HOSTNAME,
    r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$"
);
rx!(DATETIME_TIME, r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$");
rx!(K8S_SHORT, r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
rx!(DURATION_PART, r"([0-9]+)\s*([A-Za-zµ]+)");
rx!(EMAIL_ADDR, r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9.-]+$");

impl Format {
    /// Whether `s` is valid for this format, as kube-openapi decides. Empty strings are not
    /// exempt.
    pub fn is_valid(self, s: &str) -> bool {
        match self {
            Format::BsonObjectId => BSON.is_match(s),
            Format::Uri => is_request_uri(s),
            Format::Email => is_email(s),
            Format::Hostname => is_hostname(s),
            Format::Ipv4 => parse_ip_sloppy(s).is_some() && s.contains('.'),
            Format::Ipv6 => parse_ip_sloppy(s).is_some() && s.contains(':'),
            Format::Cidr => is_cidr(s),
            Format::Mac => is_mac(s),
            Format::Uuid => UUID.is_match(s),
            Format::Uuid3 => UUID3.is_match(s),
            Format::Uuid4 => UUID4.is_match(s),
            Format::Uuid5 => UUID5.is_match(s),
            Format::Isbn => is_isbn10(s) || is_isbn13(s),
            Format::Isbn10 => is_isbn10(s),
            Format::Isbn13 => is_isbn13(s),
            Format::CreditCard => is_credit_card(s),
            Format::Ssn => s.len() == 11 && SSN.is_match(s),
            Format::HexColor => HEXCOLOR.is_match(s),
            Format::RgbColor => RGBCOLOR.is_match(s),
            Format::Byte => BASE64.is_match(s),
            Format::Password => true,
            Format::Date => is_date(s),
            Format::Duration => is_duration(s),
            Format::DateTime => is_date_time(s),
            Format::K8sShortName => s.len() <= 63 && K8S_SHORT.is_match(s),
            Format::K8sLongName => s.len() <= 253 && s.split('.').all(|part| K8S_SHORT.is_match(part)),
        }
    }
}

/// Go's `time.Parse("2006-01-02", s)`: four-digit year, two-digit month and day, a real date.
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        s.get(r).filter(|t| t.bytes().all(|c| c.is_ascii_digit())).and_then(|t| t.parse().ok())
    };
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// strfmt's `IsDateTime`: lowercase, split at `t`, a date, then `HH:MM:SS[.frac](z|±HH:MM)`
/// with the fields compared as strings (\[quirk\]: the fraction's `.` is any character).
fn is_date_time(s: &str) -> bool {
    if s.len() < 4 {
        return false;
    }
    let lower = s.to_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let Some(m) = DATETIME_TIME.captures(time) else {
        return false;
    };
    &m[1] <= "23" && &m[2] <= "59" && &m[3] <= "59"
}

/// go-openapi's `ParseDuration`: Go's `time.ParseDuration`, or any `<int><unit>` runs with
/// the long unit names (`3 days`, `1wk`).
fn is_duration(s: &str) -> bool {
    if go_parse_duration(s) {
        return true;
    }
    const UNITS: &[&str] = &[
        "ns",
        "nano",
        "nanos",
        "nanosec",
        "nanosecs",
        "nanosecond",
        "nanoseconds",
        "us",
        "µs",
        "micro",
        "micros",
        "microsec",
        "microsecs",
        "microsecond",
        "microseconds",
        "ms",
        "milli",
        "millis",
        "millisec",
        "millisecs",
        "millisecond",
        "milliseconds",
        "s",
        "sec",
        "secs",
        "second",
        "seconds",
        "m",
        "min",
        "mins",
        "minute",
        "minutes",
        "h",
        "hr",
        "hrs",
        "hour",
        "hours",
        "d",
        "day",
        "days",
        "w",
        "wk",
        "wks",
        "week",
        "weeks",
    ];
    DURATION_PART.captures_iter(s).any(|c| c[1].parse::<i64>().is_ok() && UNITS.contains(&c[2].to_lowercase().as_str()))
}

/// Go's `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with units ns us µs μs ms s m h,
/// or `0`.
fn go_parse_duration(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    if s == "0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    let mut rest = s;
    while !rest.is_empty() {
        let int_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let mut i = int_len;
        let mut frac_len = 0;
        if rest[i..].starts_with('.') {
            i += 1;
            frac_len = rest[i..].bytes().take_while(u8::is_ascii_digit).count();
            i += frac_len;
        }
        if int_len == 0 && frac_len == 0 {
            return false;
        }
        rest = &rest[i..];
        let unit = ["ns", "us", "µs", "μs", "ms", "s", "m", "h"]
            .iter()
            .filter(|u| rest.starts_with(**u))
            .max_by_key(|u| u.len());
        match unit {
            Some(u) => rest = &rest[u.len()..],
            None => return false,
        }
    }
    true
}

/// Go's `url.ParseRequestURI`: an absolute URI (`scheme:...`) or an absolute path.
fn is_request_uri(s: &str) -> bool {
    if s.is_empty() || s.chars().any(|c| (c as u32) < 0x20 || c as u32 == 0x7f) || !valid_escapes(s) {
        return false;
    }
    if s.starts_with('/') {
        return true;
    }
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let scheme_ok = scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !scheme_ok {
        return false;
    }
    match rest.strip_prefix("//") {
        Some(authority_and_path) => {
            let authority = authority_and_path.split(['/', '?', '#']).next().unwrap_or_default();
            let host = authority.rsplit('@').next().unwrap_or_default();
            !host.contains(' ')
        }
        // `mailto:x`, `urn:a:b`: an opaque URI.
        None => true,
    }
}

fn valid_escapes(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit) && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)) {
                return false;
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    true
}

/// `net/mail.ParseAddress`, for the forms that occur: `local@domain` and
/// `Display Name <local@domain>`.
fn is_email(s: &str) -> bool {
    let addr = match (s.rfind('<'), s.ends_with('>')) {
        (Some(i), true) => &s[i + 1..s.len() - 1],
        _ => s.trim(),
    };
    EMAIL_ADDR.is_match(addr)
        && addr.split('@').nth(1).is_some_and(|d| !d.starts_with('.') && !d.ends_with('.') && !d.contains(".."))
        && addr.split('@').next().is_some_and(|l| !l.starts_with('.') && !l.ends_with('.') && !l.contains(".."))
}

/// strfmt's `IsHostname`: its regex (unicode letters and symbols allowed), every label at most
/// 63 characters, at most 255 in all.
fn is_hostname(s: &str) -> bool {
    HOSTNAME.is_match(s) && s.len() <= 255 && s.split('.').all(|label| label.len() <= 63)
}

/// `netutils.ParseIPSloppy`: IPv4 with leading zeros allowed, or IPv6 (whose embedded IPv4
/// may have leading zeros too).
fn parse_ip_sloppy(s: &str) -> Option<()> {
    if parse_ipv4_sloppy(s).is_some() {
        return Some(());
    }
    if s.contains(':') {
        // Rewrite an embedded sloppy IPv4 tail into canonical form for the std parser.
        let candidate = match s.rfind(':') {
            Some(i) if s[i + 1..].contains('.') => {
                let v4 = parse_ipv4_sloppy(&s[i + 1..])?;
                format!("{}{}.{}.{}.{}", &s[..=i], v4[0], v4[1], v4[2], v4[3])
            }
            _ => s.to_owned(),
        };
        return candidate.parse::<std::net::Ipv6Addr>().ok().map(|_| ());
    }
    None
}

fn parse_ipv4_sloppy(s: &str) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut parts = s.split('.');
    for slot in &mut out {
        let p = parts.next()?;
        if p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        // Leading zeros are fine (sloppy), the value is not: at most 255.
        let significant = p.trim_start_matches('0');
        let v: u32 = if significant.is_empty() { 0 } else { significant.parse().ok()? };
        if v > 255 {
            return None;
        }
        *slot = v as u8;
    }
    parts.next().is_none().then_some(out)
}

/// `netutils.ParseCIDRSloppy`.
fn is_cidr(s: &str) -> bool {
    let Some((ip, bits)) = s.split_once('/') else {
        return false;
    };
    if bits.is_empty() || !bits.bytes().all(|c| c.is_ascii_digit()) {
        return false;
    }
    let Ok(bits) = bits.parse::<u32>() else { return false };
    if parse_ipv4_sloppy(ip).is_some() {
        bits <= 32
    } else {
        ip.contains(':') && parse_ip_sloppy(ip).is_some() && bits <= 128
    }
}

/// `net.ParseMAC`: 6, 8 or 20 octets as `xx:xx:..`, `xx-xx-..` or `xxxx.xxxx.xxxx`.
fn is_mac(s: &str) -> bool {
    let hex = |t: &str, n: usize| t.len() == n && t.bytes().all(|c| c.is_ascii_hexdigit());
    let count_ok = |n: usize| n == 6 || n == 8 || n == 20;
    if s.contains('.') {
        let groups: Vec<&str> = s.split('.').collect();
        count_ok(groups.len() * 2) && groups.iter().all(|g| hex(g, 4))
    } else if let Some(sep) = [':', '-'].into_iter().find(|c| s.contains(*c)) {
        let groups: Vec<&str> = s.split(sep).collect();
        count_ok(groups.len()) && groups.iter().all(|g| hex(g, 2))
    } else {
        false
    }
}

fn isbn_digits(s: &str) -> String {
    s.chars().filter(|c| *c != ' ' && *c != '-').collect()
}

fn is_isbn10(s: &str) -> bool {
    let d = isbn_digits(s);
    let b = d.as_bytes();
    if b.len() != 10 || !b[..9].iter().all(u8::is_ascii_digit) || !(b[9].is_ascii_digit() || b[9] == b'X') {
        return false;
    }
    let sum: u32 =
        b.iter().enumerate().map(|(i, &c)| (i as u32 + 1) * if c == b'X' { 10 } else { u32::from(c - b'0') }).sum();
    sum.is_multiple_of(11)
}

fn is_isbn13(s: &str) -> bool {
    let d = isbn_digits(s);
    let b = d.as_bytes();
    if b.len() != 13 || !b.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let sum: u32 = b.iter().enumerate().map(|(i, &c)| u32::from(c - b'0') * if i % 2 == 0 { 1 } else { 3 }).sum();
    sum.is_multiple_of(10)
}

/// strfmt's `IsCreditCard`: the card regex on the digits, then Luhn.
fn is_credit_card(s: &str) -> bool {
    let digits: String = s.chars().filter(char::is_ascii_digit).collect();
    if !CREDITCARD.is_match(&digits) {
        return false;
    }
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, c)| {
            let d = u32::from(c - b'0');
            if i % 2 == 1 {
                let x = d * 2;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(format: Format, good: &[&str], bad: &[&str]) {
        for g in good {
            assert!(format.is_valid(g), "{format:?} should accept {g:?}");
        }
        for b in bad {
            assert!(!format.is_valid(b), "{format:?} should refuse {b:?}");
        }
    }

    #[test]
    fn only_the_apiservers_formats_are_kept() {
        assert_eq!(supported("string", "date-time"), Some(Format::DateTime));
        assert_eq!(supported("string", "d-a-t-e-t-i-m-e"), Some(Format::DateTime));
        assert_eq!(supported("", "uuid"), Some(Format::Uuid));
        assert_eq!(supported("integer", "uuid"), None);
        assert_eq!(supported("string", "int32"), None);
        assert_eq!(supported("string", "k8s-short-name"), Some(Format::K8sShortName));
        assert_eq!(supported("string", "url"), None);
    }

    #[test]
    fn dates_and_times() {
        table(Format::Date, &["2024-02-29", "2000-12-31"], &["2023-02-29", "2006-1-2", "", "2024-13-01", "24-01-01"]);
        table(
            Format::DateTime,
            &["2024-01-01T10:00:00Z", "2024-01-01t10:00:00.123+02:00", "2024-01-01T23:59:59x5Z"],
            &["2024-01-01T10:00:00", "2024-01-01 10:00:00Z", "2024-01-01T24:00:00Z", ""],
        );
        table(Format::Duration, &["1h30m", "-1.5s", "0", "300ms", "3 days", "1d", "2wk"], &["", "h", "1x", "abc"]);
    }

    #[test]
    fn network_formats() {
        table(Format::Ipv4, &["10.0.0.1", "010.000.000.001", "::ffff:1.2.3.4"], &["10.0.0", "256.0.0.1", "::1", ""]);
        table(Format::Ipv6, &["::1", "fe80::1", "::ffff:1.2.3.4"], &["10.0.0.1", "::g", ""]);
        table(Format::Cidr, &["10.0.0.0/8", "192.168.0.1/24", "fd00::/64"], &["10.0.0.0/33", "10.0.0.0", "x/8"]);
        table(
            Format::Mac,
            &["00:1a:2b:3c:4d:5e", "00-1A-2B-3C-4D-5E", "001a.2b3c.4d5e"],
            &["00:1a:2b:3c:4d", "zz:1a:2b:3c:4d:5e"],
        );
        table(Format::Hostname, &["example.com", "a", "bücher.de"], &["-x.com", "a..b", ""]);
        table(Format::Uri, &["https://example.com/x?y=1", "/abs/path", "mailto:a@b.c"], &["foo", "", "http://a%zz"]);
        table(Format::Email, &["a@b.c", "Bob <bob@example.com>"], &["a@", "@b.c", "a@b..c", "plain"]);
    }

    #[test]
    fn identifiers_and_codes() {
        table(
            Format::Uuid,
            &["123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000"],
            &["123e4567", ""],
        );
        table(Format::Uuid4, &["123e4567-e89b-42d3-a456-426614174000"], &["123e4567-e89b-12d3-a456-426614174000"]);
        table(Format::Byte, &["aGVsbG8=", "YWJj", "YQ=="], &["", "a", "aGVsbG8", "!!!!"]);
        table(Format::BsonObjectId, &["507f1f77bcf86cd799439011"], &["507f1f77bcf86cd79943901"]);
        table(Format::Isbn10, &["0-306-40615-2", "080442957X"], &["0-306-40615-3"]);
        table(Format::Isbn13, &["978-0-306-40615-7"], &["978-0-306-40615-8"]);
        table(Format::CreditCard, &["4111 1111 1111 1111"], &["4111 1111 1111 1112", "1234"]);
        table(Format::Ssn, &["123-45-6789", "123 45 6789"], &["123456789", "123-45-678"]);
        table(Format::HexColor, &["#fff", "A0B1C2"], &["#ffff", "ggg"]);
        table(Format::RgbColor, &["rgb(0, 128, 255)"], &["rgb(256,0,0)", "rgb(1,2)"]);
        table(Format::K8sShortName, &["my-app", "a1"], &["My-App", "-a", "a-", ""]);
        table(Format::K8sLongName, &["my-app.example.com"], &["My.app", "a..b"]);
        table(Format::Password, &["", "anything"], &[]);
    }

    #[test]
    fn a_failed_format_reads_as_the_apiserver_writes_it() {
        let p = Path::root().key("spec").key("when");
        assert_eq!(
            check(&p, "abc", Format::DateTime, "date-time").unwrap().to_string(),
            "spec.when: Invalid value: \"abc\": spec.when in body must be of type date-time: \"abc\""
        );
        assert!(check(&p, "2024-01-01T00:00:00Z", Format::DateTime, "date-time").is_none());
    }
}
