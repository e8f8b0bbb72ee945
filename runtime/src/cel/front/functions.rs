//! The functions of the 1.36 environment with their overloads, as the type checker resolves
//! them (semantics §9.2): cel-go's standard library, optional types, the strings (v2), lists
//! (v3) and sets extensions, two-variable comprehensions, and the Kubernetes libraries
//! (`AS pkg/cel/library`), read from the library's table ([`crate::cel::library`]). Math,
//! encoders and `cel.bind` are not in the apiserver's environment, so they are not there.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::cel::vocabulary::function::{self, Function, matching_open};
use crate::cel::vocabulary::types::{Type, parse, split_params};

/// One overload, as the checker reads its row.
#[derive(Debug)]
pub(crate) struct Overload {
    /// The function's name, qualified (`sets.contains`, `startsWith`).
    pub name: String,
    /// Called as `target.name(args)`: the target is `params[0]`.
    pub member: bool,
    pub params: Vec<Type>,
    pub result: Type,
    /// Its row: the signature as written (cel-go's overload id), the cost rule the
    /// estimator ([`crate::cel::cost`]) applies, the meter's charge.
    pub function: &'static Function,
}

/// Every function by name, its overloads in declaration order.
pub(crate) fn lookup(name: &str) -> Option<&'static [Overload]> {
    TABLE.get(name).map(Vec::as_slice)
}

static TABLE: LazyLock<HashMap<String, Vec<Overload>>> = LazyLock::new(|| {
    let mut table: HashMap<String, Vec<Overload>> = HashMap::new();
    for row in crate::cel::library::rows() {
        let overload = parse_signature(row);
        table.entry(overload.name.clone()).or_default().push(overload);
    }
    table
});

/// `name(params) -> result` or `target.name(params) -> result`.
fn parse_signature(function: &'static Function) -> Overload {
    let signature = function.signature.as_str();
    let (call, result) = signature.rsplit_once(" -> ").expect("invariant: a signature has a result");
    let open = matching_open(call);
    let head = &call[..open];
    let args = &call[open + 1..call.len() - 1];
    let mut params: Vec<Type> =
        if args.trim().is_empty() { Vec::new() } else { split_params(args).into_iter().map(parse).collect() };
    let (name, member) = match head.rsplit_once('.') {
        Some((target, name)) if !function::NAMESPACES.contains(&target) => {
            params.insert(0, parse(target));
            (name.to_owned(), true)
        }
        _ => (head.to_owned(), false),
    };
    Overload { name, member, params, result: parse(result), function }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overload(signature: &str) -> &'static Overload {
        TABLE.values().flatten().find(|o| o.function.signature == signature).expect("declared")
    }

    #[test]
    fn signatures_read_as_written() {
        let o = overload("list(A).indexOf(A) -> int");
        assert_eq!(
            (o.name.as_str(), o.member, o.params.len(), o.result.to_string()),
            ("indexOf", true, 2, "int".into())
        );
        let o = overload("optional.of(A) -> optional_type(A)");
        assert_eq!((o.name.as_str(), o.member), ("optional.of", false));
        let o = overload("kubernetes.URL.getQuery() -> map(string, list(string))");
        assert_eq!((o.name.as_str(), o.member, o.params[0].to_string()), ("getQuery", true, "kubernetes.URL".into()));
        assert!(lookup("format.dns1123Label").is_some());
        assert!(lookup("math.greatest").is_none());
    }
}
