//! The Kubernetes URL library (`AS pkg/cel/library/urls.go`): `url`, `isURL` and the getters,
//! over Go's `url.ParseRequestURI` (an absolute URI or an absolute path; no fragment cut).

use std::collections::HashMap;
use std::sync::Arc;

use cel::Value;
use cel::objects::{Key, Map};

use super::args::{Outcome, error, opaque, opaque_arg, string_arg, value_fn};
use super::function::{Charge, Cost, NOT_YET_NATIVE, NativeForm, Rows, Run};

const TYPE: &str = "kubernetes.URL";

/// A parsed URL: Go's `url.ParseRequestURI` ([`crate::go::url`]).
pub type Url = crate::go::url::Url;

impl cel::objects::Opaque for Url {
    fn runtime_type_name(&self) -> &str {
        TYPE
    }
}

pub(super) fn functions(rows: &mut Rows) {
    let mut add = |signature: &str, f, cost, native| rows.add(signature, Run::Library(f), cost, Charge::Call, native);
    add("url(string) -> kubernetes.URL", value_fn!(url), Cost::ParseUrl, NativeForm::Url);
    add("isURL(string) -> bool", value_fn!(is_url), Cost::ParseArgument, NativeForm::StrTest("is_url"));
    add("kubernetes.URL.getScheme() -> string", value_fn!(get_scheme), Cost::Call, NativeForm::UrlPart("scheme"));
    add("kubernetes.URL.getHost() -> string", value_fn!(get_host), Cost::Call, NativeForm::UrlPart("host"));
    let interpreted = NativeForm::Interpreted(NOT_YET_NATIVE);
    add("kubernetes.URL.getHostname() -> string", value_fn!(get_hostname), Cost::Call, interpreted);
    add("kubernetes.URL.getPort() -> string", value_fn!(get_port), Cost::Call, interpreted);
    add("kubernetes.URL.getEscapedPath() -> string", value_fn!(get_escaped_path), Cost::Call, interpreted);
    add("kubernetes.URL.getQuery() -> map(string, list(string))", value_fn!(get_query), Cost::Call, interpreted);
}

fn url(args: &[Value]) -> Outcome {
    parse(string_arg("url", args, 0)?).map(opaque).map_err(|e| error("url", e))
}

/// `url(s)`: the URL, or the library's error (what native rules call too).
pub(crate) fn parse(s: &str) -> Result<Url, String> {
    crate::go::url::parse_request_uri(s).map_err(|e| format!("URL parse error during conversion from string: {e}"))
}

fn is_url(args: &[Value]) -> Outcome {
    Ok(Value::Bool(crate::go::url::parse_request_uri(string_arg("isURL", args, 0)?).is_ok()))
}

fn this(args: &[Value]) -> Result<&Url, cel::ExecutionError> {
    opaque_arg::<Url>("url", args, 0)
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
