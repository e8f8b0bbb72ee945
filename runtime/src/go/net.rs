//! Go's IP and MAC parsers as the formats use them: `net.ParseIP` (strict: no leading zeros,
//! no zone), k8s.io/utils' `ParseIPSloppy` / `ParseCIDRSloppy` (Go 1.16's parser: IPv4 fields
//! with leading zeros read as decimal) and `net.ParseMAC`.

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
}
