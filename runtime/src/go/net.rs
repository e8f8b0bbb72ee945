//! Go's IP and MAC parsers as the formats use them: `net.ParseIP` (strict: no leading zeros,
//! no zone), k8s.io/utils' `ParseIPSloppy` / `ParseCIDRSloppy` (Go 1.16's parser: IPv4 fields
//! with leading zeros read as decimal) and `net.ParseMAC`; and as the CEL libraries use them,
//! `netip.ParseAddr` and `netip.ParsePrefix` with their errors, word for word.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// `net.ParseIP`: an IPv4 or IPv6 address, no zone.
pub fn parse_ip(s: &str) -> Option<IpAddr> {
    s.parse().ok()
}

/// `netutils.ParseIPSloppy`: as [`parse_ip`], but IPv4 fields (also an IPv6 address's
/// embedded IPv4 tail) may have leading zeros.
pub fn parse_ip_sloppy(s: &str) -> Option<IpAddr> {
    if let Some(v4) = parse_ipv4_sloppy(s) {
        return Some(IpAddr::V4(v4));
    }
    parse_ipv6_sloppy(s).map(IpAddr::V6)
}

fn parse_ipv6_sloppy(s: &str) -> Option<Ipv6Addr> {
    if !s.contains(':') {
        return None;
    }
    match s.rfind(':') {
        // Rewrite an embedded sloppy IPv4 tail into canonical form for the strict parser.
        Some(i) if s[i + 1..].contains('.') => {
            let v4 = parse_ipv4_sloppy(&s[i + 1..])?;
            format!("{}{v4}", &s[..=i]).parse().ok()
        }
        _ => s.parse().ok(),
    }
}

fn parse_ipv4_sloppy(s: &str) -> Option<Ipv4Addr> {
    let mut out = [0u8; 4];
    let mut parts = s.split('.');
    for slot in &mut out {
        let part = parts.next()?;
        if part.is_empty() || !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let significant = part.trim_start_matches('0');
        let v: u32 = if significant.is_empty() { 0 } else { significant.parse().ok()? };
        *slot = u8::try_from(v).ok()?;
    }
    parts.next().is_none().then_some(Ipv4Addr::from(out))
}

/// `netutils.ParseCIDRSloppy`: a sloppy address, `/`, a decimal prefix length that fits it.
pub fn parse_cidr_sloppy(s: &str) -> Option<(IpAddr, u32)> {
    let (ip, bits) = s.split_once('/')?;
    if bits.is_empty() || bits.len() > 7 || !bits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let bits: u32 = bits.parse().ok()?;
    let (addr, max) = match parse_ipv4_sloppy(ip) {
        Some(v4) => (IpAddr::V4(v4), 32),
        None => (IpAddr::V6(parse_ipv6_sloppy(ip)?), 128),
    };
    (bits <= max).then_some((addr, bits))
}

/// `net.ParseMAC`: 6, 8 or 20 octets as `xx:xx:…`, `xx-xx-…` or `xxxx.xxxx.xxxx`, one separator
/// throughout.
pub fn is_mac(s: &str) -> bool {
    let b = s.as_bytes();
    let hex2 = |t: &[u8]| t.len() >= 2 && t[0].is_ascii_hexdigit() && t[1].is_ascii_hexdigit();
    let octets_ok = |n: usize| n == 6 || n == 8 || n == 20;
    if b.len() < 14 {
        return false;
    }
    if b[2] == b':' || b[2] == b'-' {
        let sep = b[2];
        if !(b.len() + 1).is_multiple_of(3) || !octets_ok((b.len() + 1) / 3) {
            return false;
        }
        b.chunks(3).all(|c| hex2(c) && (c.len() == 2 || c[2] == sep))
    } else if b[4] == b'.' {
        if !(b.len() + 1).is_multiple_of(5) || !octets_ok(2 * (b.len() + 1) / 5) {
            return false;
        }
        b.chunks(5).all(|c| hex2(c) && hex2(&c[2..]) && (c.len() == 4 || c[4] == b'.'))
    } else {
        false
    }
}

/// An error of `netip.ParseAddr`, printed as Go prints it.
fn addr_error(input: &str, msg: &str, at: Option<&str>) -> String {
    let q = crate::report::issue::go_quote;
    match at {
        Some(at) if !at.is_empty() => format!("ParseAddr({}): {msg} (at {})", q(input), q(at)),
        _ => format!("ParseAddr({}): {msg}", q(input)),
    }
}

/// Go's `netip.ParseAddr`: an IPv4 address (no leading zeros) or an IPv6 address, with its
/// zone (`fe80::1%eth0`); the error is Go's text (`ParseAddr("1.2.3"): IPv4 address too short`).
pub fn parse_addr(s: &str) -> Result<(IpAddr, Option<&str>), String> {
    for b in s.bytes() {
        match b {
            b'.' => return ipv4_fields(s, 0, s.len()).map(|f| (IpAddr::V4(Ipv4Addr::from(f)), None)),
            b':' => return parse_ipv6(s),
            b'%' => return Err(addr_error(s, "missing IPv6 address", None)),
            _ => {}
        }
    }
    Err(addr_error(s, "unable to parse IP", None))
}

/// `parseIPv4Fields`: the four octets of `input[off..end]`.
fn ipv4_fields(input: &str, off: usize, end: usize) -> Result<[u8; 4], String> {
    let s = &input.as_bytes()[off..end];
    let at = |i: usize| Some(&input[off + i..end]);
    let (mut fields, mut pos, mut val, mut digits) = ([0u8; 4], 0, 0u32, 0);
    for (i, &c) in s.iter().enumerate() {
        if c.is_ascii_digit() {
            if digits == 1 && val == 0 {
                return Err(addr_error(input, "IPv4 field has octet with leading zero", None));
            }
            val = val * 10 + u32::from(c - b'0');
            digits += 1;
            if val > 255 {
                return Err(addr_error(input, "IPv4 field has value >255", None));
            }
        } else if c == b'.' {
            if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' {
                return Err(addr_error(input, "IPv4 field must have at least one digit", at(i)));
            }
            if pos == 3 {
                return Err(addr_error(input, "IPv4 address too long", None));
            }
            fields[pos] = val as u8;
            pos += 1;
            val = 0;
            digits = 0;
        } else {
            return Err(addr_error(input, "unexpected character", at(i)));
        }
    }
    if pos < 3 {
        return Err(addr_error(input, "IPv4 address too short", None));
    }
    fields[3] = val as u8;
    Ok(fields)
}

/// `parseIPv6`, zone split off first.
fn parse_ipv6(input: &str) -> Result<(IpAddr, Option<&str>), String> {
    let (mut s, zone) = match input.find('%') {
        Some(i) => {
            let zone = &input[i + 1..];
            if zone.is_empty() {
                return Err(addr_error(input, "zone must be a non-empty string", None));
            }
            (&input[..i], Some(zone))
        }
        None => (input, None),
    };
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    if s.starts_with("::") {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Ok((IpAddr::V6(Ipv6Addr::UNSPECIFIED), zone));
        }
    }
    let mut i = 0;
    while i < 16 {
        let b = s.as_bytes();
        let (mut off, mut acc) = (0, 0u32);
        while off < b.len() {
            let c = b[off];
            let digit = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            };
            acc = (acc << 4) + u32::from(digit);
            if off > 3 {
                return Err(addr_error(input, "each group must have 4 or less digits", Some(s)));
            }
            if acc > u32::from(u16::MAX) {
                return Err(addr_error(input, "IPv6 field has value >=2^16", Some(s)));
            }
            off += 1;
        }
        if off == 0 {
            return Err(addr_error(input, "each colon-separated field must have at least one digit", Some(s)));
        }
        if off < b.len() && b[off] == b'.' {
            if ellipsis.is_none() && i != 12 {
                let msg = "embedded IPv4 address must replace the final 2 fields of the address";
                return Err(addr_error(input, msg, Some(s)));
            }
            if i + 4 > 16 {
                let msg = "too many hex fields to fit an embedded IPv4 at the end of the address";
                return Err(addr_error(input, msg, Some(s)));
            }
            let end = input.len() - zone.map_or(0, |z| z.len() + 1);
            ip[i..i + 4].copy_from_slice(&ipv4_fields(input, end - s.len(), end)?);
            s = "";
            i += 4;
            break;
        }
        ip[i] = (acc >> 8) as u8;
        ip[i + 1] = acc as u8;
        i += 2;
        s = &s[off..];
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return Err(addr_error(input, "unexpected character, want colon", Some(s)));
        } else if s.len() == 1 {
            return Err(addr_error(input, "colon must be followed by more characters", Some(s)));
        }
        s = &s[1..];
        if s.starts_with(':') {
            if ellipsis.is_some() {
                return Err(addr_error(input, "multiple :: in address", Some(s)));
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(addr_error(input, "trailing garbage after address", Some(s)));
    }
    if i < 16 {
        let Some(e) = ellipsis else {
            return Err(addr_error(input, "address string too short", None));
        };
        let n = 16 - i;
        ip.copy_within(e..i, e + n);
        ip[e..e + n].fill(0);
    } else if ellipsis.is_some() {
        return Err(addr_error(input, "the :: must expand to at least one field of zeros", None));
    }
    Ok((IpAddr::V6(Ipv6Addr::from(ip)), zone))
}

/// Go's `netip.ParsePrefix`: an address (no zone), `/`, a decimal length that fits it (host
/// bits kept); the error is Go's text (`netip.ParsePrefix("a"): no '/'`).
pub fn parse_prefix(s: &str) -> Result<(IpAddr, u8), String> {
    let error = |msg: &str| format!("netip.ParsePrefix({}): {msg}", crate::report::issue::go_quote(s));
    let i = s.rfind('/').ok_or_else(|| error("no '/'"))?;
    let (addr, zone) = parse_addr(&s[..i]).map_err(|e| error(&e))?;
    if addr.is_ipv6() && zone.is_some() {
        return Err(error("IPv6 zones cannot be present in a prefix"));
    }
    let bits = &s[i + 1..];
    let bad_bits = || error(&format!("bad bits after slash: {}", crate::report::issue::go_quote(bits)));
    if bits.len() > 1 && !matches!(bits.as_bytes()[0], b'1'..=b'9') {
        return Err(bad_bits());
    }
    let bits: i64 = atoi(bits).ok_or_else(bad_bits)?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    if !(0..=max).contains(&bits) {
        return Err(error("prefix length out of range"));
    }
    Ok((addr, bits as u8))
}

/// Go's `strconv.Atoi`: an optional sign and decimal digits, within int64.
fn atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.strip_prefix('+').unwrap_or(s).parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go's `net` `parseMACTests`.
    #[test]
    fn macs_as_go_parses_them() {
        for good in [
            "00:00:5e:00:53:01",
            "00-00-5e-00-53-01",
            "0000.5e00.5301",
            "02:00:5e:10:00:00:00:01",
            "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01",
            "02-00-5e-10-00-00-00-01",
            "0200.5e10.0000.0001",
            "ab:cd:ef:AB:CD:EF",
        ] {
            assert!(is_mac(good), "{good}");
        }
        for bad in [
            "01.02.03.04.05.06",
            "01:02:03:04:05:06:",
            "x1:02:03:04:05:06",
            "01002:03:04:05:06",
            "01:02003:04:05:06",
            "01:02:03004:05:06",
            "01:02:03:04005:06",
            "01:02:03:04:05006",
            "01-02:03:04:05:06",
            "01:02-03-04-05-06",
            "0123:4567:89AF",
            "0123-4567-89AF",
            "01:02:03:04:05",
        ] {
            assert!(!is_mac(bad), "{bad}");
        }
    }

    #[test]
    fn strict_and_sloppy_addresses() {
        assert!(parse_ip("192.168.1.1").is_some());
        assert!(parse_ip("192.168.1.01").is_none(), "Go 1.17+ refuses leading zeros");
        assert!(parse_ip("fe80::1%en0").is_none(), "no zone");
        assert!(parse_ip_sloppy("192.168.1.01").is_some());
        assert!(parse_ip_sloppy("::ffff:010.1.1.1").is_some());
        assert!(parse_ip_sloppy("198.168.254.2.2").is_none());
        assert_eq!(parse_cidr_sloppy("192.0.02.1/24").map(|c| c.1), Some(24));
        assert!(parse_cidr_sloppy("2001:db8:a0b:12f0::1/32").is_some());
        assert!(parse_cidr_sloppy("10.0.0.0/33").is_none());
        assert!(parse_cidr_sloppy("2001:db8::1").is_none());
    }

    /// Errors of Go's `netip` tests (`TestParseAddr`, `TestParsePrefixError`), and what
    /// kube-apiserver 1.36.3 printed for `cidr('a,b')` and `ip('https://ex ample.com/…')`.
    #[test]
    fn netip_errors_as_go_prints_them() {
        let addr = |s| parse_addr(s).err().unwrap_or_default();
        assert_eq!(addr("a,b"), r#"ParseAddr("a,b"): unable to parse IP"#);
        assert_eq!(addr(""), r#"ParseAddr(""): unable to parse IP"#);
        assert_eq!(addr("%eth0"), r#"ParseAddr("%eth0"): missing IPv6 address"#);
        assert_eq!(addr("1.2.3"), r#"ParseAddr("1.2.3"): IPv4 address too short"#);
        assert_eq!(addr("1.2.3.4.5"), r#"ParseAddr("1.2.3.4.5"): IPv4 address too long"#);
        assert_eq!(addr("01.2.3.4"), r#"ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero"#);
        assert_eq!(addr("1.2.3.256"), r#"ParseAddr("1.2.3.256"): IPv4 field has value >255"#);
        assert_eq!(addr("1..2.3"), r#"ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")"#);
        assert_eq!(addr("1.2.3.4x"), r#"ParseAddr("1.2.3.4x"): unexpected character (at "x")"#);
        assert_eq!(
            addr("https://ex ample.com/p q?x=a b#f"),
            r#"ParseAddr("https://ex ample.com/p q?x=a b#f"): each colon-separated field must have at least one digit (at "https://ex ample.com/p q?x=a b#f")"#
        );
        assert_eq!(addr("fe80::1%"), r#"ParseAddr("fe80::1%"): zone must be a non-empty string"#);
        assert_eq!(addr("1:2:3:4:5:6:7"), r#"ParseAddr("1:2:3:4:5:6:7"): address string too short"#);
        assert_eq!(addr("::1::2"), r#"ParseAddr("::1::2"): multiple :: in address (at ":2")"#);
        assert_eq!(addr("12345::"), r#"ParseAddr("12345::"): each group must have 4 or less digits (at "12345::")"#);
        assert_eq!(
            addr("1:2:3:4:5:6:7:8::"),
            r#"ParseAddr("1:2:3:4:5:6:7:8::"): the :: must expand to at least one field of zeros"#
        );
        assert_eq!(addr("::ffff:1.2.3.04"), r#"ParseAddr("::ffff:1.2.3.04"): IPv4 field has octet with leading zero"#);
        assert_eq!(parse_addr("fe80::1%eth0").map(|(a, z)| (a.to_string(), z)), Ok(("fe80::1".into(), Some("eth0"))));
        assert_eq!(parse_addr("::ffff:1.2.3.4").map(|(a, _)| a.to_string()), Ok("::ffff:1.2.3.4".into()));
        let prefix = |s| parse_prefix(s).err().unwrap_or_default();
        assert_eq!(prefix("a,b"), r#"netip.ParsePrefix("a,b"): no '/'"#);
        assert_eq!(prefix("1.2.3.4/33"), r#"netip.ParsePrefix("1.2.3.4/33"): prefix length out of range"#);
        assert_eq!(prefix("1.2.3.4/01"), r#"netip.ParsePrefix("1.2.3.4/01"): bad bits after slash: "01""#);
        assert_eq!(prefix("1.2.3.4/"), r#"netip.ParsePrefix("1.2.3.4/"): bad bits after slash: """#);
        assert_eq!(
            prefix("fe80::%eth0/64"),
            r#"netip.ParsePrefix("fe80::%eth0/64"): IPv6 zones cannot be present in a prefix"#
        );
        assert_eq!(prefix("1.2/8"), r#"netip.ParsePrefix("1.2/8"): ParseAddr("1.2"): IPv4 address too short"#);
        assert_eq!(parse_prefix("10.1.0.0/8"), Ok(("10.1.0.0".parse().expect("an address"), 8)));
    }
}
