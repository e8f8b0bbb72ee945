//! Go's `net/url` (Go 1.26, as kube-apiserver 1.36.3 is built): `url.ParseRequestURI`, what
//! the `uri` format accepts and what the CEL URL library's `url()` and `isURL()` check, and
//! `url.Parse`, what `url()` then reads the getters from (the fragment cut off first), with
//! `EscapedPath`, `Hostname`, `Port` and `Query`. Go's strings are bytes: the unescaped path
//! is kept as bytes, and what is shown is made text where it is not valid UTF-8.

use crate::report::issue::go_quote;

/// A URL as Go's `url.URL` holds it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Url {
    /// The scheme, lower-cased (`""` for an absolute path).
    pub scheme: String,
    /// Everything after `scheme:` when it does not start with `/` (`mailto:a@b`).
    pub opaque: String,
    /// `host[:port]`, unescaped (`[fe80::1%eth0]:80` for `[fe80::1%25eth0]:80`), without user
    /// information.
    pub host: String,
    /// The path, unescaped (bytes).
    path: Vec<u8>,
    /// The path as written, where its escaping is not the default one (`RawPath`).
    raw_path: String,
    /// The query after the first `?`, as written (`RawQuery`).
    pub query: String,
    /// The user information before the host's `@`, as written (`User`), if any.
    pub user: Option<String>,
    /// The fragment after `#`, unescaped (`Fragment`; `Parse` only).
    pub fragment: String,
}

/// `encoding`: which part of a URL a byte is escaped for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// `shouldEscape`.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone)
        && matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => return true,
            Mode::Fragment => return false,
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    !(mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*'))
}

/// `unescape`: the bytes, or Go's error (`invalid URL escape "%zz"`, `invalid character " " in
/// host name`).
fn unescape(s: &str, mode: Mode) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    let hex = |c: u8| c.is_ascii_hexdigit();
    let value = |c: u8| match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if i + 2 >= b.len() || !hex(b[i + 1]) || !hex(b[i + 2]) {
                    let bad = String::from_utf8_lossy(&b[i..(i + 3).min(b.len())]).into_owned();
                    return Err(format!("invalid URL escape {}", go_quote(&bad)));
                }
                let escape = &s[i..i + 3];
                if mode == Mode::Host && value(b[i + 1]) < 8 && escape != "%25" {
                    return Err(format!("invalid URL escape {}", go_quote(escape)));
                }
                let v = (value(b[i + 1]) << 4) | value(b[i + 2]);
                if mode == Mode::Zone && escape != "%25" && v != b' ' && should_escape(v, Mode::Host) {
                    return Err(format!("invalid URL escape {}", go_quote(escape)));
                }
                i += 3;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!("invalid character {} in host name", go_quote(&s[i..i + 1])));
                }
                i += 1;
            }
        }
    }
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                out.push((value(b[i + 1]) << 4) | value(b[i + 2]));
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// `escape`.
fn escape(s: &[u8], mode: Mode) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for &c in s {
        if c == b' ' && mode == Mode::QueryComponent {
            out.push('+');
        } else if should_escape(c, mode) {
            out.push('%');
            out.push(HEX[usize::from(c >> 4)] as char);
            out.push(HEX[usize::from(c & 15)] as char);
        } else {
            out.push(c as char);
        }
    }
    out
}

/// `url.ParseRequestURI`; the error is Go's text (`parse "x": invalid URI for request`).
pub fn parse_request_uri(raw: &str) -> Result<Url, String> {
    parse_url(raw, true).map_err(|e| format!("parse {}: {e}", go_quote(raw)))
}

/// `url.Parse`: the fragment cut off (its escapes checked), the rest read as a URI reference.
pub fn parse(raw: &str) -> Result<Url, String> {
    let (before, fragment) = raw.split_once('#').unwrap_or((raw, ""));
    let mut url = parse_url(before, false).map_err(|e| format!("parse {}: {e}", go_quote(before)))?;
    if !fragment.is_empty() {
        let unescaped = unescape(fragment, Mode::Fragment).map_err(|e| format!("parse {}: {e}", go_quote(raw)))?;
        url.fragment = String::from_utf8_lossy(&unescaped).into_owned();
    }
    Ok(url)
}

/// `parse(rawURL, viaRequest)`.
fn parse_url(raw: &str, via_request: bool) -> Result<Url, String> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    if raw.is_empty() && via_request {
        return Err("empty url".into());
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = b"*".to_vec();
        return Ok(url);
    }
    let (scheme, rest) = scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    let rest = if rest.ends_with('?') && rest.matches('?').count() == 1 {
        &rest[..rest.len() - 1]
    } else {
        match rest.split_once('?') {
            Some((before, query)) => {
                url.query = query.to_owned();
                before
            }
            None => rest,
        }
    };
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            // A rootless path is opaque (RFC 3986).
            url.opaque = rest.to_owned();
            return Ok(url);
        }
        if via_request {
            return Err("invalid URI for request".into());
        }
        if rest.split('/').next().is_some_and(|segment| segment.contains(':')) {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    let mut path = rest;
    if (!url.scheme.is_empty() || !via_request && !rest.starts_with("///")) && rest.starts_with("//") {
        let authority_and_path = &rest[2..];
        let (authority, after) = match authority_and_path.find('/') {
            Some(i) => authority_and_path.split_at(i),
            None => (authority_and_path, ""),
        };
        (url.host, url.user) = parse_authority(authority)?;
        path = after;
    }
    url.path = unescape(path, Mode::Path)?;
    if escape(&url.path, Mode::Path) != path {
        url.raw_path = path.to_owned();
    }
    Ok(url)
}

/// `getScheme`: letters, then letters, digits, `+`, `-`, `.` up to a `:`.
fn scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".into()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// `parseAuthority`: the host (and port) unescaped; user information checked, and kept as
/// written.
fn parse_authority(authority: &str) -> Result<(String, Option<String>), String> {
    let at = authority.rfind('@');
    let host = parse_host(at.map_or(authority, |i| &authority[i + 1..]))?;
    let Some(i) = at else { return Ok((host, None)) };
    let userinfo = &authority[..i];
    let valid = userinfo.chars().all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c));
    if !valid {
        return Err("net/url: invalid userinfo".into());
    }
    for part in userinfo.splitn(2, ':') {
        unescape(part, Mode::UserPassword)?;
    }
    Ok((host, Some(userinfo.to_owned())))
}

/// `validOptionalPort`: empty, or `:` and digits.
fn valid_optional_port(port: &str) -> bool {
    port.is_empty() || port.strip_prefix(':').is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()))
}

/// `parseHost`: a bracketed IPv6 literal (with an optional `%25` zone, checked by
/// `netip.ParseAddr`) or a name, then an optional `:port` of digits; unescaped.
fn parse_host(host: &str) -> Result<String, String> {
    let lossy = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    match host.rfind('[') {
        Some(i) if i > 0 => return Err("invalid IP-literal".into()),
        Some(_) => {
            let close = host.rfind(']').ok_or("missing ']' in host")?;
            let colon_port = &host[close + 1..];
            if !valid_optional_port(colon_port) {
                return Err(format!("invalid port {} after host", go_quote(colon_port)));
            }
            let colon_port = lossy(unescape(colon_port, Mode::Host)?);
            let hostname = &host[1..close];
            let unescaped = match hostname.find("%25") {
                Some(zone) => {
                    let mut h = unescape(&hostname[..zone], Mode::Host)?;
                    h.extend(unescape(&hostname[zone..], Mode::Zone)?);
                    lossy(h)
                }
                None => lossy(unescape(hostname, Mode::Host)?),
            };
            let (addr, _) = crate::go::net::parse_addr(&unescaped).map_err(|e| format!("invalid host: {e}"))?;
            if addr.is_ipv4() {
                return Err("invalid IP-literal".into());
            }
            return Ok(format!("[{unescaped}]{colon_port}"));
        }
        None => {}
    }
    // Go 1.26 reads a second colon in an http(s) host as no port only where `urlstrictcolons`
    // is on, which it is not for a program built as the apiserver is (asked: kube-apiserver
    // 1.36.3 accepts `http://a:1:2/`): the port is after the last colon.
    if let Some(i) = host.rfind(':') {
        let colon_port = &host[i..];
        if !valid_optional_port(colon_port) {
            return Err(format!("invalid port {} after host", go_quote(colon_port)));
        }
    }
    Ok(lossy(unescape(host, Mode::Host)?))
}

impl Url {
    /// `EscapedPath`: the path as written where that is a valid escaping of it, else the
    /// path escaped by Go's rules (`/with%20space/`).
    pub fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path)
            && unescape(&self.raw_path, Mode::Path).is_ok_and(|p| p == self.path)
        {
            return self.raw_path.clone();
        }
        if self.path == b"*" {
            return "*".into();
        }
        escape(&self.path, Mode::Path)
    }

    /// `Hostname`: the host without a valid port; an IPv6 literal without its brackets.
    pub fn hostname(&self) -> &str {
        split_host_port(&self.host).0
    }

    /// `Port`: the port of the host, where it is a valid one.
    pub fn port(&self) -> &str {
        split_host_port(&self.host).1
    }

    /// `Query`: `url.ParseQuery` of the query, its bad pairs left out; each key's values in
    /// order, the keys in order of first appearance.
    pub fn query_values(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        // Go refuses a query of more than 10,000 pairs whole (`defaultMaxParams`).
        if self.query.matches('&').count() + 1 > 10_000 {
            return out;
        }
        for pair in self.query.split('&') {
            if pair.contains(';') || pair.is_empty() {
                continue;
            }
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let (Ok(k), Ok(v)) = (unescape(k, Mode::QueryComponent), unescape(v, Mode::QueryComponent)) else {
                continue;
            };
            let (k, v) = (String::from_utf8_lossy(&k).into_owned(), String::from_utf8_lossy(&v).into_owned());
            match out.iter_mut().find(|(key, _)| *key == k) {
                Some((_, values)) => values.push(v),
                None => out.push((k, vec![v])),
            }
        }
        out
    }
}

/// `validEncoded` for a path: no byte that escaping would change, but for the sub-delims,
/// `:`, `@`, brackets and `%`.
fn valid_encoded(s: &str) -> bool {
    s.bytes().all(|c| b"!$&'()*+,;=:@[]%".contains(&c) || !should_escape(c, Mode::Path))
}

/// `splitHostPort`.
fn split_host_port(host_port: &str) -> (&str, &str) {
    let (mut host, mut port) = (host_port, "");
    if let Some(colon) = host.rfind(':')
        && valid_optional_port(&host[colon..])
    {
        (host, port) = (&host[..colon], &host[colon + 1..]);
    }
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        host = inner;
    }
    (host, port)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cases from Go's `net/url` tests (`parseRequestURLTests`) and the forms that differ from
    /// `url.Parse`.
    #[test]
    fn request_uris_as_go_parses_them() {
        for good in [
            "http://foo.com",
            "http://foo.com/",
            "http://foo.com/path",
            "/",
            "*",
            "http://192.168.0.1/",
            "http://192.168.0.1:8080/",
            "http://[fe80::1]/",
            "http://[fe80::1]:8080/",
            "http://[fe80::1%25en0]/",
            "http://[fe80::1%25en0]:8080/",
            "http://[fe80::1%25%65%6e%301-._~]/",
            "http://[fe80::1%25%65%6e%301-._~]:8080/",
            "http://foo.com/#frag",
            "http://foo.com/?q=%zz",
            "mailto:%zz",
            "https://user:p%40ss@example.com:443/a%20b",
            "foo:bar",
            "http://foo.com?",
            "http:///no-host",
        ] {
            assert!(parse_request_uri(good).is_ok(), "{good}: {:?}", parse_request_uri(good));
        }
        for (bad, why) in [
            ("", r#"parse "": empty url"#),
            ("foo.html", r#"parse "foo.html": invalid URI for request"#),
            ("../dir/", r#"parse "../dir/": invalid URI for request"#),
            ("http://foo.com#frag", r##"parse "http://foo.com#frag": invalid character "#" in host name"##),
            (":x", r#"parse ":x": missing protocol scheme"#),
            ("http://a b.com/", r#"parse "http://a b.com/": invalid character " " in host name"#),
            ("http://a%zz/", r#"parse "http://a%zz/": invalid URL escape "%zz""#),
            ("http://a/%z", r#"parse "http://a/%z": invalid URL escape "%z""#),
            ("http://a:b/", r#"parse "http://a:b/": invalid port ":b" after host"#),
            ("http://[fe80::1/", r#"parse "http://[fe80::1/": missing ']' in host"#),
            ("http://[1.2.3.4]/", r#"parse "http://[1.2.3.4]/": invalid IP-literal"#),
            ("http://x[::1]/", r#"parse "http://x[::1]/": invalid IP-literal"#),
            ("http://%41:8080/", r#"parse "http://%41:8080/": invalid URL escape "%41""#),
            ("http://a\u{7f}/", "parse \"http://a\\x7f/\": net/url: invalid control character in URL"),
            ("http://us{er@host/", r#"parse "http://us{er@host/": net/url: invalid userinfo"#),
        ] {
            assert_eq!(parse_request_uri(bad).unwrap_err(), why, "{bad}");
        }
        assert!(parse_request_uri("http://a:1:2/").is_ok(), "urlstrictcolons is off");
    }

    /// What kube-apiserver 1.36.3's URL library read from these (`url(s).get...()`,
    /// `fixtures/oracle/targeted.jsonl`, class `url-escaping`).
    #[test]
    fn parts_as_go_reads_them() {
        let u = parse("HTTPS://user@Example.com:8443/a/b?x=1&y=2").unwrap();
        assert_eq!((u.scheme.as_str(), u.host.as_str(), u.query.as_str()), ("https", "Example.com:8443", "x=1&y=2"));
        assert_eq!((u.hostname(), u.port(), u.escaped_path().as_str()), ("Example.com", "8443", "/a/b"));
        assert_eq!(parse("https://example.com/with space/").unwrap().escaped_path(), "/with%20space/");
        assert_eq!(parse("https://example.com/ü/ñ").unwrap().escaped_path(), "/%C3%BC/%C3%B1");
        assert_eq!(parse("https://example.com/a%2fb").unwrap().escaped_path(), "/a%2fb");
        assert_eq!(parse("https://example.com/a\\b").unwrap().escaped_path(), "/a%5Cb");
        assert_eq!(parse("https://host/path#a b").unwrap().escaped_path(), "/path");
        let zoned = parse("https://[fe80::1%25eth0]:80/").unwrap();
        assert_eq!((zoned.host.as_str(), zoned.hostname()), ("[fe80::1%eth0]:80", "fe80::1%eth0"));
        let relative = parse("//host/path").unwrap();
        assert_eq!((relative.host.as_str(), relative.escaped_path().as_str()), ("host", "/path"));
        assert_eq!(parse("urn:isbn:0451450523").unwrap().opaque, "isbn:0451450523");
        let q = parse("https://h/?a=1&b=x+y&a=2&c=%zz&d;e=1").unwrap().query_values();
        assert_eq!(q, vec![("a".into(), vec!["1".into(), "2".into()]), ("b".into(), vec!["x y".into()])]);
    }
}
