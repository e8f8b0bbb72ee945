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

use crate::go::{duration, mail, net, url};
use crate::report::issue::{BadValue, ErrorType, Issue, go_quote};
use crate::report::path::Place;

/// A string format the apiserver validates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs, reason = "each variant is the format of the same name")]
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

/// Whether the apiserver knows `format` for a schema `type` (`GetUnrecognizedFormats`: a
/// CRD with a format it does not know is accepted with a warning, `unrecognized format "x"`).
pub fn recognized(schema_type: &str, format: &str) -> bool {
    match schema_type {
        "integer" => matches!(format, "int32" | "int64"),
        "number" => matches!(format, "float" | "double"),
        "" | "string" => supported(schema_type, format).is_some(),
        _ => false,
    }
}

/// `format`: `spec.x: Invalid value: "abc": spec.x in body must be of type date-time: "abc"`
/// (the format named as the schema wrote it). kube-openapi reports it as a type error
/// (`InvalidTypeCode`), so it is `FieldValueTypeInvalid` and keeps CEL rules from running.
pub fn check(path: &dyn Place, value: &str, format: Format, written: &str) -> Option<Issue> {
    (!format.is_valid(value)).then(|| {
        Issue::new(
            ErrorType::TypeInvalid,
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
// govalidator's RGB pattern; Go's `\s` and `\d` are ASCII only.
rx!(
    RGBCOLOR,
    r"^rgb\([\t\n\x0C\r ]*(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])[\t\n\x0C\r ]*,[\t\n\x0C\r ]*(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])[\t\n\x0C\r ]*,[\t\n\x0C\r ]*(0|[1-9][0-9]?|1[0-9][0-9]?|2[0-4][0-9]|25[0-5])[\t\n\x0C\r ]*\)$"
);
rx!(SSN, r"^[0-9]{3}[- ]?[0-9]{2}[- ]?[0-9]{4}$");
rx!(BSON, r"^[0-9a-fA-F]{24}$");
rx!(BASE64, r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$");
rx!(
    CREDITCARD,
    r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35[0-9]{3})[0-9]{11})$"
);
rx!(
    HOSTNAME,
    r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$"
);
rx!(DATETIME_TIME, r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$");

impl Format {
    /// Whether `s` is valid for this format, as kube-openapi decides. Empty strings are not
    /// exempt.
    pub fn is_valid(self, s: &str) -> bool {
        match self {
            Format::BsonObjectId => BSON.is_match(s),
            Format::Uri => url::parse_request_uri(s).is_ok(),
            Format::Email => mail::is_address(s),
            Format::Hostname => is_hostname(s),
            Format::Ipv4 => net::parse_ip_sloppy(s).is_some() && s.contains('.'),
            Format::Ipv6 => net::parse_ip(s).is_some() && s.contains(':'),
            Format::Cidr => net::parse_cidr_sloppy(s).is_some(),
            Format::Mac => net::is_mac(s),
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
            Format::Duration => duration::parse_strfmt(s).is_some(),
            Format::DateTime => is_date_time(s),
            Format::K8sShortName => s.len() <= 63 && crate::check::shapes::dns1123_label(s),
            Format::K8sLongName => s.len() <= 253 && crate::check::shapes::dns1123_subdomain(s),
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

/// strfmt's `IsHostname`: its regex (unicode letters and symbols allowed), every label at most
/// 63 characters, at most 255 in all.
fn is_hostname(s: &str) -> bool {
    HOSTNAME.is_match(s) && s.len() <= 255 && s.split('.').all(|label| label.len() <= 63)
}

/// govalidator's ISBN sanitizing: `[\s-]+` removed (Go's `\s` is ASCII white space).
fn isbn_digits(s: &str) -> String {
    s.chars().filter(|c| !matches!(c, ' ' | '\t' | '\n' | '\x0C' | '\r' | '-')).collect()
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
    use crate::report::path::Path;

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

    /// kube-openapi `strfmt/date_test.go` `TestDate_IsDate`.
    #[test]
    fn strfmt_date() {
        table(
            Format::Date,
            &["2017-12-22", "2000-02-29", "2400-02-29"],
            &[
                "2017-1-1",
                "17-13-22",
                "2017-02-29",
                "1900-02-29",
                "2100-02-29",
                "2017-13-22",
                "2017-12-32",
                "20171-12-32",
                "YYYY-MM-DD",
                "20-17-2017",
                "2017-12-22T01:02:03Z",
                "",
            ],
        );
    }

    /// kube-openapi `strfmt/time_test.go` (`testCases` marshalled forms, `yada`) and the
    /// quirks of `IsDateTime`: a zone is required, fields compare as strings, the fraction's
    /// `.` is any character, only the text up to a second `t` counts.
    #[test]
    fn strfmt_date_time() {
        table(
            Format::DateTime,
            &[
                "2014-12-15T08:00:00.000Z",
                "2011-08-18T19:03:37.000+01:00",
                "2014-12-15T19:30:20.000Z",
                "0001-01-01T00:00:00.000Z",
                "1970-01-01T00:00:00.000Z",
                "2024-01-01t10:00:00.123+02:00",
                "2024-01-01T23:59:59x5Z",
                "2024-01-01T10:00:00ZtGarbage",
            ],
            &["yada", "2014-12-15T08:00:00", "2024-01-01 10:00:00Z", "2024-01-01T24:00:00Z", "", "2024"],
        );
    }

    /// kube-openapi `strfmt/default_test.go` `TestFormatHostname`.
    #[test]
    fn strfmt_hostname() {
        let very_long = "a".repeat(256);
        let long_segment = format!("x.y.{}", "a".repeat(64));
        table(
            Format::Hostname,
            &[
                "somewhere.com",
                "888.com",
                "a.com",
                "a.b.com",
                "a.b.c.com",
                "a.b.c.d.com",
                "a.b.c.d.e.com",
                "1.com",
                "1.2.com",
                "1.2.3.com",
                "1.2.3.4.com",
                "99.domain.com",
                "99.99.domain.com",
                "1wwworg.example.com",
                "1000wwworg.example.com",
                "xn--bcher-kva.example.com",
                "xn-80ak6aa92e.co",
                "xn-80ak6aa92e.com",
                "xn--ls8h.la",
                "☁→❄→☃→☀→☺→☂→☹→✝.ws",
                "www.example.onion",
                "www.example.ôlà",
                "ôlà.ôlà",
                "ôlà.ôlà.ôlà",
                "ex$ample",
                "localhost",
                "example",
                "x",
                "x-y",
                "a.b.c.dot",
                "www.example.org",
                "a.b.c.d.e.f.g.dot",
                "ex=ample.com",
                "<foo>",
                "www.example-hyphenated.org",
                "www.詹姆斯.org",
                "www.élégigôö.org",
                "www.詹姆斯.london",
            ],
            &[
                "somewhere.com!",
                "user@email.domain",
                "1.1.1.1",
                &very_long,
                &long_segment,
                "www.example-.org",
                "www.--example.org",
                "-www.example.org",
                "www-.example.org",
                "www.d-.org",
                "www.-d.org",
                "www-",
                "-www",
                "www.ex ample.org",
                "_www.example.org",
                "www.ex;ample.org",
                "www.example_underscored.org",
                "www.詹姆斯.x",
                "a.b.c.d",
                "-xyz",
                "xyz-",
                "x.",
                "a.b.c.dot-",
                "a.b.c.é;ö",
            ],
        );
    }

    /// kube-openapi `strfmt/default_test.go` `TestFormatEmail` (more cases in `go::mail`).
    #[test]
    fn strfmt_email() {
        table(
            Format::Email,
            &[
                "somebody@somewhere.com",
                "blah@gmail.com",
                "test@d.verylongtoplevel",
                "email+tag@gmail.com",
                r#"" "@example.com"#,
                r#""Abc\@def"@example.com"#,
                r#""Fred Bloggs"@example.com"#,
                r#""Joe\\Blow"@example.com"#,
                r#""Abc@def"@example.com"#,
                "customer/department=shipping@example.com",
                "$A12345@example.com",
                "!def!xyz%abc@example.com",
                "_somename@example.com",
                "!#$%&'*+-/=?^_`{}|~@example.com",
                "Miles.O'Brian@example.com",
                "postmaster@☁→❄→☃→☀→☺→☂→☹→✝.ws",
                "root@localhost",
                "john@com",
                "api@piston.ninja",
            ],
            &["somebody@somewhere@com"],
        );
    }

    /// kube-openapi `strfmt/default_test.go` `TestFormatURI`, `TestFormatIPv4`, `TestFormatIPv6`,
    /// `TestFormatCIDR`, `TestFormatMAC` (more cases in `go::url` and `go::net`).
    #[test]
    fn strfmt_network() {
        table(Format::Uri, &["http://somewhere.com", "http://somewhereelse.com", "/abs/path"], &["somewhere.com", ""]);
        table(
            Format::Ipv4,
            &["192.168.254.1", "127.0.0.1", "192.168.1.1", "192.168.1.01", "::ffff:1.2.3.4"],
            &["198.168.254.2.2", "::1", ""],
        );
        table(Format::Ipv6, &["::1", "::2", "::ffff:1.2.3.4"], &["127.0.0.1", "::ffff:01.2.3.4", "fe80::1%en0", ""]);
        table(
            Format::Cidr,
            &["192.168.254.1/24", "192.0.2.1/24", "192.0.02.1/24", "2001:db8:a0b:12f0::1/32"],
            &["198.168.254.2", "2001:db8:a0b:12f0::1"],
        );
        table(Format::Mac, &["01:02:03:04:05:06", "06:05:04:03:02:01"], &["01:02:03:04:05"]);
    }

    /// kube-openapi `strfmt/default_test.go` `TestFormatUUID`/`UUID3`/`UUID4`/`UUID5` (the
    /// upstream generates its samples; these are fixed ones of each version).
    #[test]
    fn strfmt_uuids() {
        let v3 = "4d6fd4ab-a0ed-3e57-9b3f-8e3eb2fa6a95";
        let v4 = "a8098c1a-f86e-41da-9b32-5a7d3b4f6d3c";
        let v5 = "5e8c37d8-3ef9-5ef3-a5e9-79b0e2c0e7e1";
        table(Format::Uuid, &[v3, v4, v5, "123E4567E89B12D3A456426614174000"], &["not-a-uuid", ""]);
        table(Format::Uuid3, &[v3], &["not-a-uuid", v4, v5]);
        table(Format::Uuid4, &[v4], &["not-a-uuid", v3, v5]);
        table(Format::Uuid5, &[v5], &["not-a-uuid", v3, v4]);
    }

    /// kube-openapi `strfmt/default_test.go` `TestFormatISBN`/`ISBN10`/`ISBN13`, `TestFormatHexColor`,
    /// `TestFormatRGBColor`, `TestFormatSSN`, `TestFormatCreditCard`, `TestFormatPassword`,
    /// `TestFormatBase64`, and `bson_test.go`.
    #[test]
    fn strfmt_codes() {
        table(Format::Isbn, &["0321751043", "978-0321751041"], &["836217463"]);
        table(Format::Isbn10, &["0321751043", "0-306-40615-2", "080442957X", "0 306\t40615 2"], &["836217463"]);
        table(Format::Isbn13, &["978-0321751041", "978 0 306 40615 7"], &["978-0321751042"]);
        table(Format::HexColor, &["#FFFFFF", "#000000", "#fff", "A0B1C2"], &["#fffffffz", "#ffff"]);
        table(
            Format::RgbColor,
            &["rgb(255,255,255)", "rgb(0,0,0)", "rgb( 0 , 128 ,255 )"],
            &["rgb(300,0,0)", "rgb(1,2)"],
        );
        table(Format::Ssn, &["111-11-1111", "999 99 9999"], &["999 99 999", "123456789"]);
        table(
            Format::CreditCard,
            &["4111-1111-1111-1111", "4012-8888-8888-1881", "4111 1111 1111 1111"],
            &["9999-9999-9999-999", "4111 1111 1111 1112", "2221000000000009"],
        );
        table(Format::Password, &["super secret stuff here", "even more secret", ""], &[]);
        table(Format::Byte, &["aGVsbG8=", "YWJj", "YQ=="], &["", "a", "aGVsbG8", "!!!!", "aGVsbG8_"]);
        table(Format::BsonObjectId, &["507f1f77bcf86cd799439011"], &["507f1f77bcf86cd79943901", ""]);
    }

    /// kube-openapi `strfmt/kubernetes-extensions_test.go` `TestIsShortName`, `TestFormatLongName`.
    #[test]
    fn strfmt_kubernetes_names() {
        let good_short = ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2"];
        let bad_short = [
            "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "-a", "-1", "_", "a_", "_a", "a_b", "1_", "_1", "1_2", ".",
            "a.", ".a", "a.b", "1.", ".1", "1.2", " ", "a ", " a", "a b", "1 ", " 1", "1 2", "a-", "1-",
        ];
        let (a63, a64) = ("a".repeat(63), "a".repeat(64));
        table(Format::K8sShortName, &good_short, &bad_short);
        table(Format::K8sShortName, &[&a63], &[&a64]);
        let good_long = [
            "a",
            "ab",
            "abc",
            "a1",
            "a-1",
            "a--1--2--b",
            "0",
            "01",
            "012",
            "1a",
            "1-a",
            "1--a--b--2",
            "a.a",
            "ab.a",
            "abc.a",
            "a1.a",
            "a-1.a",
            "a--1--2--b.a",
            "a.1",
            "ab.1",
            "abc.1",
            "a1.1",
            "a-1.1",
            "a--1--2--b.1",
            "0.a",
            "01.a",
            "012.a",
            "1a.a",
            "1-a.a",
            "0.1",
            "01.1",
            "012.1",
            "1a.1",
            "1-a.1",
            "1--a--b--2.1",
            "a.b.c.d.e",
            "aa.bb.cc.dd.ee",
            "1.2.3.4.5",
            "11.22.33.44.55",
        ];
        let bad_long = [
            "",
            "A",
            "ABC",
            "aBc",
            "A1",
            "A-1",
            "1-A",
            "-",
            "-a",
            "-1",
            "_",
            "a_",
            "_a",
            "a_b",
            "1_",
            "_1",
            "1_2",
            ".",
            "a.",
            ".a",
            "a..b",
            "1.",
            ".1",
            "1..2",
            " ",
            "a ",
            " a",
            "a b",
            "1 ",
            " 1",
            "1 2",
            "A.a",
            "aB.a",
            "ab.A",
            "A1.a",
            "a1.A",
            "A.1",
            "aB.1",
            "A1.1",
            "1A.1",
            "0.A",
            "01.A",
            "012.A",
            "1A.a",
            "1a.A",
            "A.B.C.D.E",
            "AA.BB.CC.DD.EE",
            "a.B.c.d.e",
            "aa.bB.cc.dd.ee",
            "a@b",
            "a,b",
            "a;b",
            "a:b",
            "a%b",
            "a?b",
            "a$b",
            "a-",
            "1-",
        ];
        let (a253, a254) = ("a".repeat(253), "a".repeat(254));
        table(Format::K8sLongName, &good_long, &bad_long);
        table(Format::K8sLongName, &[&a253], &[&a254]);
    }

    /// kube-openapi `strfmt/duration_test.go` through the format (the parser's own tables are
    /// in `go::duration`).
    #[test]
    fn strfmt_duration() {
        table(
            Format::Duration,
            &["1h30m", "-1.5s", "0", "300ms", "3 days", "1d", "2wk", "45 weeks", "1  microseconds"],
            &["", "h", "1x", "yada", "three week", "12 parsecs", "45 wekk", "99999999999999999999s 1s"],
        );
    }

    #[test]
    fn a_failed_format_reads_as_the_apiserver_writes_it() {
        let p = Path::root().key("spec").key("when");
        let issue = check(&p, "abc", Format::DateTime, "date-time").unwrap();
        assert_eq!(issue.error_type, ErrorType::TypeInvalid, "kube-openapi's InvalidTypeCode");
        assert_eq!(
            issue.to_string(),
            "spec.when: Invalid value: \"abc\": spec.when in body must be of type date-time: \"abc\""
        );
        assert!(check(&p, "2024-01-01T00:00:00Z", Format::DateTime, "date-time").is_none());
    }
}
