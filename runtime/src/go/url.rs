//! Go's `url.ParseRequestURI` (`net/url`): what the `uri` format accepts and what the CEL
//! URL library's `url()` and getters read. Unlike `url.Parse`, the fragment is not cut: a `#`
//! in the path stays in the path, and a `#` right after the host is an invalid host character.

use crate::issue::go_quote;

/// A URL as `ParseRequestURI` splits it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Url {
    /// The text it was read from.
    pub raw: String,
    /// The scheme, lower-cased (`""` for an absolute path).
    pub scheme: String,
    /// Everything after `scheme:` when it does not start with `/` (`mailto:a@b`).
    pub opaque: String,
    /// `host[:port]` as written (brackets kept for IPv6), without user information.
    pub host: String,
    /// The path, still escaped, fragment included.
    pub path: String,
    /// The raw query after the first `?`.
    pub query: String,
}

/// `url.ParseRequestURI`; the error is Go's text (`parse "x": invalid URI for request`).
pub fn parse_request_uri(raw: &str) -> Result<Url, String> {
    parse(raw).map_err(|e| format!("parse {}: {e}", go_quote(raw)))
}

fn parse(raw: &str) -> Result<Url, String> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    if raw.is_empty() {
        return Err("empty url".into());
    }
    let mut url = Url { raw: raw.to_owned(), ..Url::default() };
    if raw == "*" {
        url.path = "*".into();
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
            // A rootless path is opaque (RFC 3986): not checked further.
            url.opaque = rest.to_owned();
            return Ok(url);
        }
        return Err("invalid URI for request".into());
    }
    let mut path = rest;
    if !url.scheme.is_empty()
        && let Some(authority_and_path) = rest.strip_prefix("//")
    {
        let (authority, after) = match authority_and_path.find('/') {
            Some(i) => authority_and_path.split_at(i),
            None => (authority_and_path, ""),
        };
        url.host = authority_host(authority)?;
        path = after;
    }
    unescape(path, Mode::Path)?;
    url.path = path.to_owned();
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

/// `parseAuthority`: user information (checked), then the host and port.
fn authority_host(authority: &str) -> Result<String, String> {
    let (userinfo, host) = match authority.rfind('@') {
        Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
        None => (None, authority),
    };
    let host = parse_host(host)?;
    if let Some(userinfo) = userinfo {
        let valid = userinfo.chars().all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c));
        if !valid {
            return Err("net/url: invalid userinfo".into());
        }
        for part in userinfo.splitn(2, ':') {
            unescape(part, Mode::UserPassword)?;
        }
    }
    Ok(host)
}

/// `parseHost`: a bracketed IPv6 literal (with an optional `%25` zone) or a name, then an
/// optional `:port` of digits.
fn parse_host(host: &str) -> Result<String, String> {
    let port_ok = |p: &str| p.is_empty() || p.strip_prefix(':').is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()));
    if host.starts_with('[') {
        let Some(close) = host.rfind(']') else {
            return Err("missing ']' in host".into());
        };
        let port = &host[close + 1..];
        if !port_ok(port) {
            return Err(format!("invalid port {} after host", go_quote(port)));
        }
        if let Some(zone) = host[..close].find("%25") {
            unescape(&host[..zone], Mode::Host)?;
            unescape(&host[zone..close], Mode::Zone)?;
            unescape(&host[close..], Mode::Host)?;
            return Ok(host.to_owned());
        }
    } else if let Some(i) = host.rfind(':')
        && !port_ok(&host[i..])
    {
        return Err(format!("invalid port {} after host", go_quote(&host[i..])));
    }
    unescape(host, Mode::Host)?;
    Ok(host.to_owned())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
}

/// `shouldEscape` for hosts and zones: what may stand unescaped in a host name.
fn host_char_ok(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!$&'()*+,;=:[]<>\"-_.~".contains(&c)
}

/// `unescape`'s checks (the unescaped text is not needed): every `%` starts two hex digits;
/// in hosts only `%25` or a non-ASCII byte escape, and only host characters stand bare.
fn unescape(s: &str, mode: Mode) -> Result<(), String> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = |j: usize| b.get(j).copied().filter(u8::is_ascii_hexdigit);
            let (Some(hi), Some(lo)) = (hex(i + 1), hex(i + 2)) else {
                let bad: String = String::from_utf8_lossy(&b[i..(i + 3).min(b.len())]).into_owned();
                return Err(format!("invalid URL escape {}", go_quote(&bad)));
            };
            let value = (hex_value(hi) << 4) | hex_value(lo);
            let escape = &s[i..i + 3];
            let bad = match mode {
                Mode::Host => hex_value(hi) < 8 && escape != "%25",
                Mode::Zone => escape != "%25" && value != b' ' && !host_char_ok(value),
                Mode::Path | Mode::UserPassword => false,
            };
            if bad {
                return Err(format!("invalid URL escape {}", go_quote(escape)));
            }
            i += 3;
        } else {
            if matches!(mode, Mode::Host | Mode::Zone) && b[i] < 0x80 && !host_char_ok(b[i]) {
                return Err(format!("invalid character {} in host name", go_quote(&s[i..i + 1])));
            }
            i += 1;
        }
    }
    Ok(())
}

fn hex_value(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    }
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
            ("http://%41:8080/", r#"parse "http://%41:8080/": invalid URL escape "%41""#),
            ("http://a\u{7f}/", "parse \"http://a\\x7f/\": net/url: invalid control character in URL"),
            ("http://us{er@host/", r#"parse "http://us{er@host/": net/url: invalid userinfo"#),
        ] {
            assert_eq!(parse_request_uri(bad).unwrap_err(), why, "{bad}");
        }
    }

    #[test]
    fn parts() {
        let u = parse_request_uri("HTTPS://user@Example.com:8443/a/b?x=1&y=2").unwrap();
        assert_eq!(
            (u.scheme.as_str(), u.host.as_str(), u.path.as_str(), u.query.as_str()),
            ("https", "Example.com:8443", "/a/b", "x=1&y=2")
        );
        assert_eq!(parse_request_uri("urn:isbn:0451450523").unwrap().opaque, "isbn:0451450523");
    }
}
