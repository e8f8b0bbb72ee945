//! String shapes matched by hand: apimachinery's name formats (object names, label keys and
//! values, annotation keys) and the `pattern`s CRDs copy verbatim from them and from a few
//! other well-known places. They run on every name and on most patterned strings, and a loop
//! over the bytes is several times cheaper than a regex search; the test module holds each to
//! the regex it replaces. Length limits are not part of a shape: callers check them beside,
//! with their own message.

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`: a lowercase RFC 1123 label.
pub(crate) fn dns1123_label(s: &str) -> bool {
    ends_and_inside(s, lower_alnum, lower_alnum, |c| lower_alnum(c) || c == b'-')
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`: a lowercase RFC 1123
/// subdomain, labels joined by dots.
pub(crate) fn dns1123_subdomain(s: &str) -> bool {
    subdomain_start(s).is_some_and(lower_alnum)
}

/// A `generateName` as the apiserver checks it: a subdomain once a trailing `-` is masked
/// (`name-` is checked as `name-a`).
pub(crate) fn generate_name(s: &str) -> bool {
    match s.strip_suffix('-') {
        Some(rest) if !rest.is_empty() => subdomain_start(rest).is_some(),
        _ => dns1123_subdomain(s),
    }
}

fn lower_alnum(c: u8) -> bool {
    of_class(LOWER_ALNUM)(c)
}

// What each byte may be in the name shapes, a bit per class: these run on every object's
// name, label and annotation key, and a table answers in one load where a chain of range
// tests takes several branches.
/// `[a-z0-9]`.
const LOWER_ALNUM: u8 = 1;
/// `[A-Za-z0-9]`.
const ALNUM: u8 = 2;
/// `[-A-Za-z0-9_.]`: inside a qualified name's name part.
const NAME_INSIDE: u8 = 4;
/// `[-a-z0-9.]`: inside a subdomain.
const SUBDOMAIN: u8 = 8;
/// Any byte but `.`.
const NOT_DOT: u8 = 16;

const CLASSES: [u8; 256] = {
    let mut table = [0; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        let mut class = 0;
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            class |= LOWER_ALNUM | SUBDOMAIN;
        }
        if c.is_ascii_alphanumeric() {
            class |= ALNUM | NAME_INSIDE;
        }
        if c == b'-' || c == b'.' {
            class |= NAME_INSIDE | SUBDOMAIN;
        }
        if c == b'_' {
            class |= NAME_INSIDE;
        }
        if c != b'.' {
            class |= NOT_DOT;
        }
        table[i] = class;
        i += 1;
    }
    table
};

/// Whether a byte is of class `bit`.
fn of_class(bit: u8) -> impl Fn(u8) -> bool {
    move |c| CLASSES[c as usize] & bit != 0
}

/// Whether `s` can begin a subdomain (every byte fits where it is), and its last byte: it
/// runs on every object's name and annotation keys, so it is one pass with no branch per byte.
fn subdomain_start(s: &str) -> Option<u8> {
    let b = s.as_bytes();
    let last = *b.last()?;
    // The start reads as after a dot: a label starts with a letter or digit.
    let mut previous = b'.';
    let mut wrong = 0;
    for &c in b {
        wrong |= (!CLASSES[c as usize] & SUBDOMAIN) | (NEEDS_BEFORE[c as usize] & !CLASSES[previous as usize]);
        previous = c;
    }
    (wrong == 0).then_some(last)
}

/// What a byte of a subdomain needs of the byte before it, as the class that byte must have:
/// a dot follows a label's last letter or digit; a '-' does not start a label.
const NEEDS_BEFORE: [u8; 256] = {
    let mut table = [0; 256];
    table[b'.' as usize] = LOWER_ALNUM;
    table[b'-' as usize] = NOT_DOT;
    table
};

/// `[a-z]([-a-z0-9]*[a-z0-9])?`: a DNS-1035 label.
pub(crate) fn dns1035_label(s: &str) -> bool {
    s.as_bytes().first().is_some_and(u8::is_ascii_lowercase) && dns1123_label(s)
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`: the name part of a qualified name.
pub(crate) fn qualified_name_part(s: &str) -> bool {
    ends_and_inside(s, of_class(ALNUM), of_class(ALNUM), of_class(NAME_INSIDE))
}

/// `(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?`: a label value.
pub(crate) fn label_value(s: &str) -> bool {
    s.is_empty() || qualified_name_part(s)
}

/// `([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])`:
/// a qualified name, `[prefix/]name` (the shape only: `objectmeta::qualified_name` gives the
/// apiserver's messages and limits).
fn qualified_name(s: &str) -> bool {
    let (prefix, name) = qualified_name_parts(s);
    prefix.is_none_or(dns1123_subdomain) && qualified_name_part(name)
}

/// A qualified name's prefix (before its first '/', if it has one) and name. A loop over the
/// bytes: a key is short, and `split_once`'s searcher is made for long text.
pub(crate) fn qualified_name_parts(s: &str) -> (Option<&str>, &str) {
    match s.bytes().position(|b| b == b'/') {
        Some(slash) => (Some(&s[..slash]), &s[slash + 1..]),
        None => (None, s),
    }
}

/// `[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?`: Gateway API's kind.
fn alpha_then_alnum_dash(s: &str) -> bool {
    let alnum = |c: u8| c.is_ascii_alphanumeric();
    ends_and_inside(s, |c| c.is_ascii_alphabetic(), alnum, |c| alnum(c) || c == b'-')
}

/// Some first and last byte of their kinds, and every byte of `inside`'s.
fn ends_and_inside(
    s: &str,
    first: impl Fn(u8) -> bool,
    last: impl Fn(u8) -> bool,
    inside: impl Fn(u8) -> bool,
) -> bool {
    match s.as_bytes() {
        [f, .., l] | [f @ l] => first(*f) && last(*l) && s.bytes().all(inside),
        [] => false,
    }
}

/// Digits with at most one fraction, `([0-9]+(\.[0-9]*)?)|(\.[0-9]+)`: the bytes they take
/// from the start of `b`, or `None` when `b` does not start with one.
fn decimal(b: &[u8]) -> Option<usize> {
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let whole = digits(0);
    match b.get(whole) {
        Some(b'.') if whole > 0 => Some(whole + 1 + digits(whole + 1)),
        Some(b'.') => Some(match digits(1) {
            0 => return None,
            fraction => 1 + fraction,
        }),
        _ if whole > 0 => Some(whole),
        _ => None,
    }
}

/// `b` without a leading sign, `(\+|-)?`.
fn unsigned(b: &[u8]) -> &[u8] {
    match b {
        [b'+' | b'-', rest @ ..] => rest,
        rest => rest,
    }
}

/// apimachinery's resource quantity,
/// `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`.
fn quantity(s: &str) -> bool {
    let b = unsigned(s.as_bytes());
    let Some(n) = decimal(b) else { return false };
    match &b[n..] {
        [] | [b'n' | b'u' | b'm' | b'k' | b'M' | b'G' | b'T' | b'P' | b'E'] => true,
        [b'K' | b'M' | b'G' | b'T' | b'P' | b'E', b'i'] => true,
        [b'e' | b'E', exponent @ ..] => {
            let exponent = unsigned(exponent);
            decimal(exponent) == Some(exponent.len())
        }
        _ => false,
    }
}

/// Gateway API's duration, `^([0-9]{1,5}(h|m|s|ms)){1,4}$`.
fn gateway_duration(s: &str) -> bool {
    let mut b = s.as_bytes();
    for part in 0..4 {
        let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
        if !(1..=5).contains(&digits) {
            return false;
        }
        // `m` then `s` is `ms`: a lone `m` would leave an `s` no part can start with.
        let unit = match &b[digits..] {
            [b'm', b's', ..] => 2,
            [b'h' | b'm' | b's', ..] => 1,
            _ => return false,
        };
        b = &b[digits + unit..];
        if b.is_empty() {
            return true;
        }
        if part == 3 {
            return false;
        }
    }
    false
}

/// Prometheus's duration (`model.Duration`),
/// `^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$`:
/// `0`, or each unit at most once and in this order (the empty string too).
fn prometheus_duration(s: &str) -> bool {
    const UNITS: [&[u8]; 7] = [b"y", b"w", b"d", b"h", b"m", b"s", b"ms"];
    if s == "0" {
        return true;
    }
    let mut b = s.as_bytes();
    let mut next_unit = 0;
    while !b.is_empty() {
        let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return false;
        }
        b = &b[digits..];
        // `m` then `s` is `ms`: a part cannot start with `s`.
        let Some(unit) = (next_unit..UNITS.len()).rev().find(|&u| b.starts_with(UNITS[u])) else {
            return false;
        };
        b = &b[UNITS[unit].len()..];
        next_unit = unit + 1;
    }
    true
}

/// An HTTP header value as Gateway API writes it, `^[!-~]+([\t ]?[!-~]+)*$`: visible ASCII,
/// single spaces or tabs between, none at either end.
fn header_value(s: &str) -> bool {
    let visible = |c: u8| (b'!'..=b'~').contains(&c);
    let blank = |c: u8| c == b' ' || c == b'\t';
    ends_and_inside(s, visible, visible, |c| visible(c) || blank(c))
        && !s.as_bytes().windows(2).any(|w| blank(w[0]) && blank(w[1]))
}

/// `metav1.Condition`'s `reason`, `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`.
fn condition_reason(s: &str) -> bool {
    let last = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    ends_and_inside(s, |c| c.is_ascii_alphabetic(), last, |c| last(c) || c == b',' || c == b':')
}

/// `(http|https)://.+` and the like: `scheme://` and at least one more character, none of them
/// a newline (what `.` matches).
fn url_of(s: &str, schemes: &[&str]) -> bool {
    schemes.iter().any(|scheme| {
        s.strip_prefix(scheme)
            .and_then(|rest| rest.strip_prefix("://"))
            .is_some_and(|rest| !rest.is_empty() && !rest.contains('\n'))
    })
}

/// Whether a string has a shape.
pub(crate) type Shape = fn(&str) -> bool;

/// The patterns matched by hand, by their text as CRDs write it. Over half the `pattern`s of
/// the corpus's CRDs are one of these.
const KNOWN_PATTERNS: &[(&str, Shape)] = &[
    (r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", dns1123_subdomain),
    (r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", dns1123_label),
    (r"^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", |s| s.is_empty() || dns1123_subdomain(s)),
    (r"^[a-z]([-a-z0-9]*[a-z0-9])?$", dns1035_label),
    (r"^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$", alpha_then_alnum_dash),
    (r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$", label_value),
    (
        r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
        qualified_name,
    ),
    (r"^[-._a-zA-Z0-9]+$", |s| !s.is_empty() && s.bytes().all(|c| c.is_ascii_alphanumeric() || b"-._".contains(&c))),
    (r"^[A-Za-z0-9!#$%&'*+\-.^_\x60|~]+$", |s| {
        !s.is_empty() && s.bytes().all(|c| c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c))
    }),
    (
        r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$",
        quantity,
    ),
    (r"^([0-9]{1,5}(h|m|s|ms)){1,4}$", gateway_duration),
    (
        r"^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$",
        prometheus_duration,
    ),
    (r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$", condition_reason),
    (r"^[!-~]+([\t ]?[!-~]+)*$", header_value),
    (r"^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", |s| {
        dns1123_subdomain(s.strip_prefix("*.").unwrap_or(s))
    }),
    (r"^(http|https)://.+$", |s| url_of(s, &["http", "https"])),
    (r"^(http|https|socks5)://.+$", |s| url_of(s, &["http", "https", "socks5"])),
];

/// The hand-written matcher of a pattern written exactly so, if it has one.
pub(crate) fn known_pattern(go: &str) -> Option<Shape> {
    KNOWN_PATTERNS.iter().find(|(source, _)| *source == go).map(|(_, shape)| *shape)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Strings of the characters the shapes tell apart: names, quantities, durations, URLs,
    /// HTTP tokens, and a non-ASCII letter and a newline.
    fn candidates() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-zA-Z0-9._/é*-]{0,12}",
            "[-+0-9.eEKMGTPinumk]{0,8}",
            "[0-9ywdhms]{0,14}",
            "(http|https|socks5|ftp)(://)?[a-z/.\n]{0,4}",
            "[!#$%&'*+.^_`|~a-z0-9 \t]{0,6}",
            "[A-Za-z0-9_,:]{0,6}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        /// Each hand-written shape accepts exactly what its pattern's regex accepts.
        #[test]
        fn known_patterns_match_their_regexes(s in candidates()) {
            for (source, shape) in KNOWN_PATTERNS {
                let regex = crate::check::pattern::compile(source).expect("a known pattern compiles");
                prop_assert_eq!(shape(&s), regex.is_match(&s), "pattern {} on {:?}", source, s);
            }
        }

        /// The name formats of `objectmeta` against apimachinery's regexes.
        #[test]
        fn name_formats_match_apimachinerys_regexes(s in candidates()) {
            let regex = |re: &str| regex::Regex::new(re).expect("valid").is_match(&s);
            prop_assert_eq!(dns1123_label(&s), regex(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"));
            prop_assert_eq!(dns1035_label(&s), regex(r"^[a-z]([-a-z0-9]*[a-z0-9])?$"));
            prop_assert_eq!(qualified_name_part(&s), regex(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"));
            prop_assert_eq!(
                dns1123_subdomain(&s),
                regex(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
            );
            let masked = match s.strip_suffix('-') {
                Some(rest) if !rest.is_empty() => format!("{rest}a"),
                _ => s.clone(),
            };
            prop_assert_eq!(generate_name(&s), dns1123_subdomain(&masked));
        }
    }

    #[test]
    fn shapes_on_examples() {
        assert!(quantity("100m") && quantity("1.5Gi") && quantity("-1e3") && quantity(".5") && quantity("1E"));
        assert!(!quantity("1.5.5") && !quantity("Gi") && !quantity("1Ki5") && !quantity("."));
        assert!(gateway_duration("1h30m") && gateway_duration("500ms") && gateway_duration("1h1m1s1ms"));
        assert!(!gateway_duration("1h1m1s1ms1h") && !gateway_duration("123456s") && !gateway_duration("ms"));
        assert!(prometheus_duration("30s") && prometheus_duration("1y2w3d4h5m6s7ms") && prometheus_duration("0"));
        assert!(prometheus_duration("") && prometheus_duration("1m30s") && prometheus_duration("500ms"));
        assert!(!prometheus_duration("1s1m") && !prometheus_duration("00") && !prometheus_duration("1h1h"));
        assert!(header_value("a b\tc") && !header_value("a  b") && !header_value(" a") && !header_value(""));
        assert!(condition_reason("Ready") && condition_reason("A,b:c_") && !condition_reason("Ready,"));
        assert!(qualified_name("example.com/MyName") && !qualified_name("/x") && !qualified_name("a/b/c"));
        assert!(known_pattern(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$").is_some() && known_pattern("^x$").is_none());
    }
}
