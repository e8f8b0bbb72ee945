//! The Kubernetes URL library (`AS pkg/cel/library/urls.go`): `url`, `isURL` and the getters,
//! over Go's `net/url`: `url.ParseRequestURI` decides what is a URL (an absolute URI or an
//! absolute path), `url.Parse` what the getters read (the fragment cut off).

use std::collections::HashMap;
use std::sync::Arc;

use cel::Value;
use cel::objects::{Key, Map};

use crate::cel::vocabulary::args::{Outcome, error, opaque, opaque_arg, string_arg, value_fn};
use crate::cel::vocabulary::function::{Charge, Cost, NOT_YET_NATIVE, NativeForm, Rows, Run};

const TYPE: &str = "kubernetes.URL";

/// A parsed URL: Go's `url.URL` ([`crate::go::url`]).
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
    let error = |e| format!("URL parse error during conversion from string: {e}");
    crate::go::url::parse_request_uri(s).map_err(error)?;
    crate::go::url::parse(s).map_err(error)
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

fn get_hostname(args: &[Value]) -> Outcome {
    Ok(Value::from(this(args)?.hostname().to_owned()))
}

fn get_port(args: &[Value]) -> Outcome {
    Ok(Value::from(this(args)?.port().to_owned()))
}

fn get_escaped_path(args: &[Value]) -> Outcome {
    Ok(Value::from(this(args)?.escaped_path()))
}

/// Go's `URL.Query()`: each key's values (bad pairs left out).
fn get_query(args: &[Value]) -> Outcome {
    let map: HashMap<Key, Value> = this(args)?
        .query_values()
        .into_iter()
        .map(|(k, v)| (Key::String(Arc::new(k)), Value::List(Arc::new(v.into_iter().map(Value::from).collect()))))
        .collect();
    Ok(Value::Map(Map { map: Arc::new(map) }))
}
