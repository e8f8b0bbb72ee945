//! The Kubernetes URL library (`AS pkg/cel/library/urls.go`): `url`, `isURL` and the getters,
//! over Go's `url.ParseRequestURI` (an absolute URI or an absolute path; no fragment cut).

use std::collections::HashMap;
use std::sync::Arc;

use cel::common::types::STRING_TYPE;
use cel::objects::{Key, Map};
use cel::{DeclarationError, Env, Value};

use super::{Outcome, error, opaque, opaque_arg, opaque_type, string_arg, value_fn};

const TYPE: &str = "kubernetes.URL";

/// A parsed URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    raw: String,
    scheme: String,
    /// `host[:port]`, brackets kept for IPv6.
    host: String,
    path: String,
    query: String,
}

impl cel::objects::Opaque for Url {
    fn runtime_type_name(&self) -> &str {
        TYPE
    }
}

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload("url", "string_to_url", vec![STRING_TYPE], value_fn!(url))?;
    env.add_overload("isURL", "is_url_string", vec![STRING_TYPE], value_fn!(is_url))?;
    env.add_overload("string", "url_to_string", vec![opaque_type(TYPE)], value_fn!(to_string))?;
    for (name, f) in [
        ("getScheme", value_fn!(get_scheme)),
        ("getHost", value_fn!(get_host)),
        ("getHostname", value_fn!(get_hostname)),
        ("getPort", value_fn!(get_port)),
        ("getEscapedPath", value_fn!(get_escaped_path)),
        ("getQuery", value_fn!(get_query)),
    ] {
        env.add_member_overload(name, &format!("url_{name}"), opaque_type(TYPE), vec![], f)?;
    }
    Ok(())
}

/// Go's `url.ParseRequestURI`, as far as the getters need it.
pub fn parse(s: &str) -> Result<Url, String> {
    let invalid = || format!("parse {}: invalid URI for request", crate::issue::go_quote(s));
    if s.is_empty() || s.chars().any(|c| c.is_control() || c == ' ') {
        return Err(invalid());
    }
    // Every `%` starts a two-digit hex escape (Go: `invalid URL escape`).
    let b = s.as_bytes();
    if let Some(i) = (0..b.len()).find(|&i| {
        b[i] == b'%'
            && !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit) && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
    }) {
        let bad: String = s[i..].chars().take(3).collect();
        return Err(format!(
            "parse {}: invalid URL escape {}",
            crate::issue::go_quote(s),
            crate::issue::go_quote(&bad)
        ));
    }
    let (scheme, rest) = match s.split_once(':') {
        Some((scheme, rest))
            if scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) =>
        {
            (scheme.to_ascii_lowercase(), rest)
        }
        _ if s.starts_with('/') => (String::new(), s),
        _ => return Err(invalid()),
    };
    let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (host, path) = match rest.strip_prefix("//") {
        Some(authority) if !scheme.is_empty() || !s.starts_with("///") => {
            let (authority, path) = authority.find('/').map_or((authority, ""), |i| authority.split_at(i));
            // Credentials are not part of the host.
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            (host.to_owned(), path.to_owned())
        }
        _ if !scheme.is_empty() && !rest.starts_with('/') => (String::new(), String::new()), // opaque
        _ => (String::new(), rest.to_owned()),
    };
    Ok(Url { raw: s.to_owned(), scheme, host, path, query: query.to_owned() })
}

fn url(args: &[Value]) -> Outcome {
    let s = string_arg("url", args, 0)?;
    parse(s).map(opaque).map_err(|e| error("url", format!("URL parse error during conversion from string: {e}")))
}

fn is_url(args: &[Value]) -> Outcome {
    Ok(Value::Bool(parse(string_arg("isURL", args, 0)?).is_ok()))
}

fn this(args: &[Value]) -> Result<&Url, cel::ExecutionError> {
    opaque_arg::<Url>("url", args, 0)
}

fn to_string(args: &[Value]) -> Outcome {
    Ok(Value::from(this(args)?.raw.clone()))
}

fn get_scheme(args: &[Value]) -> Outcome {
    Ok(Value::from(this(args)?.scheme.clone()))
}

fn get_host(args: &[Value]) -> Outcome {
    Ok(Value::from(this(args)?.host.clone()))
}

/// The host without the port; IPv6 without its brackets.
fn split_host(host: &str) -> (&str, &str) {
    if let Some(rest) = host.strip_prefix('[') {
        let (name, after) = rest.split_once(']').unwrap_or((rest, ""));
        return (name, after.strip_prefix(':').unwrap_or(""));
    }
    host.rsplit_once(':').unwrap_or((host, ""))
}

fn get_hostname(args: &[Value]) -> Outcome {
    Ok(Value::from(split_host(&this(args)?.host).0))
}

fn get_port(args: &[Value]) -> Outcome {
    Ok(Value::from(split_host(&this(args)?.host).1))
}

fn get_escaped_path(args: &[Value]) -> Outcome {
    Ok(Value::from(this(args)?.path.clone()))
}

/// Go's `url.ParseQuery` (bad pairs are skipped, as `Query()` does).
fn get_query(args: &[Value]) -> Outcome {
    let mut out: HashMap<Key, Vec<Value>> = HashMap::new();
    for pair in this(args)?.query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if let (Some(k), Some(v)) = (unescape(k), unescape(v)) {
            out.entry(Key::String(Arc::new(k))).or_default().push(Value::from(v));
        }
    }
    let map: HashMap<Key, Value> = out.into_iter().map(|(k, v)| (k, Value::List(Arc::new(v)))).collect();
    Ok(Value::Map(Map { map: Arc::new(map) }))
}

/// Query unescaping: `%XX` and `+` as a space; `None` on a broken escape.
fn unescape(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = s.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}
