//! The functions of the 1.36 environment with their overloads, as the type checker resolves
//! them (semantics §9.2): cel-go's standard library, optional types, the strings (v2), lists
//! (v3) and sets extensions, two-variable comprehensions, and the Kubernetes libraries
//! (`AS pkg/cel/library`). Math, encoders and `cel.bind` are not in the apiserver's
//! environment, so they are not here.
//!
//! Each overload is written as cel-go prints a signature: `size(string) -> int` is a global
//! function, `string.size() -> int` a member of `string`; one upper-case letter is a type
//! parameter. A dotted name whose prefix is a namespace (`optional.of`) is a global function.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::cel::front::types::{Type, parse, split_params};

/// One overload.
#[derive(Debug)]
pub(crate) struct Overload {
    /// The function's name, qualified (`sets.contains`, `startsWith`).
    pub name: String,
    /// Called as `target.name(args)`: the target is `params[0]`.
    pub member: bool,
    pub params: Vec<Type>,
    pub result: Type,
    /// The signature as written in the table: it names the overload (cel-go's overload id),
    /// which is what the cost estimator ([`crate::cel::cost`]) tells overloads apart by.
    pub signature: String,
}

/// The namespaces of global functions (`optional.none()`, `sets.contains(a, b)`).
const NAMESPACES: &[&str] = &["optional", "sets", "lists", "strings", "format", "ip", "cel"];

/// Every function by name, its overloads in declaration order.
pub(crate) fn lookup(name: &str) -> Option<&'static [Overload]> {
    TABLE.get(name).map(Vec::as_slice)
}

static TABLE: LazyLock<HashMap<String, Vec<Overload>>> = LazyLock::new(|| {
    let mut table: HashMap<String, Vec<Overload>> = HashMap::new();
    let mut add = |signature: &str| {
        let (name, overload) = parse_signature(signature);
        table.entry(name).or_default().push(overload);
    };
    for s in STANDARD.iter().chain(EXTENSIONS).chain(KUBERNETES) {
        add(s);
    }
    const COMPARABLE: &[&str] = &["int", "uint", "double", "bool", "duration", "timestamp", "string", "bytes"];
    for t in COMPARABLE {
        add(&format!("list({t}).isSorted() -> bool"));
        add(&format!("list({t}).max() -> {t}"));
        add(&format!("list({t}).min() -> {t}"));
        add(&format!("list({t}).sort() -> list({t})"));
        add(&format!("list(T).@sortByAssociatedKeys(list({t})) -> list(T)"));
    }
    for t in ["int", "uint", "double", "duration"] {
        add(&format!("list({t}).sum() -> {t}"));
    }
    for name in crate::cel::library::formats::NAMES {
        add(&format!("format.{name}() -> kubernetes.NamedFormat"));
    }
    for getter in [
        "getFullYear",
        "getMonth",
        "getDayOfYear",
        "getDayOfMonth",
        "getDate",
        "getDayOfWeek",
        "getHours",
        "getMinutes",
        "getSeconds",
        "getMilliseconds",
    ] {
        add(&format!("timestamp.{getter}() -> int"));
        add(&format!("timestamp.{getter}(string) -> int"));
    }
    for getter in ["getHours", "getMinutes", "getSeconds", "getMilliseconds"] {
        add(&format!("duration.{getter}() -> int"));
    }
    for op in ["_<_", "_<=_", "_>_", "_>=_"] {
        for t in ["bool", "string", "bytes", "timestamp", "duration"] {
            add(&format!("{op}({t}, {t}) -> bool"));
        }
        // Cross-type numeric comparisons (1.28).
        for a in ["int", "uint", "double"] {
            for b in ["int", "uint", "double"] {
                add(&format!("{op}({a}, {b}) -> bool"));
            }
        }
    }
    table
});

/// `name(params) -> result` or `target.name(params) -> result`.
fn parse_signature(signature: &str) -> (String, Overload) {
    let (call, result) = signature.rsplit_once(" -> ").expect("invariant: a signature has a result");
    let open = matching_open(call);
    let head = &call[..open];
    let args = &call[open + 1..call.len() - 1];
    let mut params: Vec<Type> =
        if args.trim().is_empty() { Vec::new() } else { split_params(args).into_iter().map(parse).collect() };
    let (name, member) = match head.rsplit_once('.') {
        Some((target, name)) if !NAMESPACES.contains(&target) => {
            params.insert(0, parse(target));
            (name.to_owned(), true)
        }
        _ => (head.to_owned(), false),
    };
    let overload =
        Overload { name: name.clone(), member, params, result: parse(result), signature: signature.to_owned() };
    (name, overload)
}

/// The index of the `(` matching the call's last `)`.
fn matching_open(call: &str) -> usize {
    let mut depth = 0;
    for (i, c) in call.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    panic!("invariant: the table's signatures are balanced: {call}")
}

/// cel-go's standard declarations (`checker/decls`, `common/stdlib`) and optional types.
const STANDARD: &[&str] = &[
    "_?_:_(bool, A, A) -> A",
    "_&&_(bool, bool) -> bool",
    "_||_(bool, bool) -> bool",
    "!_(bool) -> bool",
    "@not_strictly_false(bool) -> bool",
    "-_(int) -> int",
    "-_(double) -> double",
    "_==_(A, A) -> bool",
    "_!=_(A, A) -> bool",
    "_+_(int, int) -> int",
    "_+_(uint, uint) -> uint",
    "_+_(double, double) -> double",
    "_+_(string, string) -> string",
    "_+_(bytes, bytes) -> bytes",
    "_+_(list(A), list(A)) -> list(A)",
    "_+_(timestamp, duration) -> timestamp",
    "_+_(duration, timestamp) -> timestamp",
    "_+_(duration, duration) -> duration",
    "_-_(int, int) -> int",
    "_-_(uint, uint) -> uint",
    "_-_(double, double) -> double",
    "_-_(timestamp, timestamp) -> duration",
    "_-_(timestamp, duration) -> timestamp",
    "_-_(duration, duration) -> duration",
    "_*_(int, int) -> int",
    "_*_(uint, uint) -> uint",
    "_*_(double, double) -> double",
    "_/_(int, int) -> int",
    "_/_(uint, uint) -> uint",
    "_/_(double, double) -> double",
    "_%_(int, int) -> int",
    "_%_(uint, uint) -> uint",
    "_[_](list(A), int) -> A",
    "_[_](map(A, B), A) -> B",
    "@in(A, list(A)) -> bool",
    "@in(A, map(A, B)) -> bool",
    "size(string) -> int",
    "size(bytes) -> int",
    "size(list(A)) -> int",
    "size(map(A, B)) -> int",
    "string.size() -> int",
    "bytes.size() -> int",
    "list(A).size() -> int",
    "map(A, B).size() -> int",
    "type(A) -> type(A)",
    "dyn(A) -> dyn",
    "int(int) -> int",
    "int(uint) -> int",
    "int(double) -> int",
    "int(string) -> int",
    "int(timestamp) -> int",
    "int(duration) -> int",
    "uint(uint) -> uint",
    "uint(int) -> uint",
    "uint(double) -> uint",
    "uint(string) -> uint",
    "double(double) -> double",
    "double(int) -> double",
    "double(uint) -> double",
    "double(string) -> double",
    "string(string) -> string",
    "string(int) -> string",
    "string(uint) -> string",
    "string(double) -> string",
    "string(bool) -> string",
    "string(bytes) -> string",
    "string(timestamp) -> string",
    "string(duration) -> string",
    "bytes(bytes) -> bytes",
    "bytes(string) -> bytes",
    "bool(bool) -> bool",
    "bool(string) -> bool",
    "duration(duration) -> duration",
    "duration(string) -> duration",
    "duration(int) -> duration",
    "timestamp(timestamp) -> timestamp",
    "timestamp(string) -> timestamp",
    "timestamp(int) -> timestamp",
    "matches(string, string) -> bool",
    "string.matches(string) -> bool",
    "string.contains(string) -> bool",
    "string.startsWith(string) -> bool",
    "string.endsWith(string) -> bool",
    // Optional types (1.28).
    "optional.of(A) -> optional_type(A)",
    "optional.ofNonZeroValue(A) -> optional_type(A)",
    "optional.none() -> optional_type(A)",
    "optional_type(A).value() -> A",
    "optional_type(A).hasValue() -> bool",
    "optional_type(A).or(optional_type(A)) -> optional_type(A)",
    "optional_type(A).orValue(A) -> A",
    "_[?_](list(A), int) -> optional_type(A)",
    "_[?_](map(A, B), A) -> optional_type(B)",
    "_[?_](optional_type(list(A)), int) -> optional_type(A)",
    "_[?_](optional_type(map(A, B)), A) -> optional_type(B)",
    // `a.?b` (the checker types it as a field selection; cel-go's `select_optional_field`).
    "_?._(dyn, string) -> dyn",
];

/// cel-go's extensions as 1.36 enables them: strings v2, lists v3, sets, two-variable
/// comprehensions.
const EXTENSIONS: &[&str] = &[
    "string.charAt(int) -> string",
    "string.indexOf(string) -> int",
    "string.indexOf(string, int) -> int",
    "string.lastIndexOf(string) -> int",
    "string.lastIndexOf(string, int) -> int",
    "string.lowerAscii() -> string",
    "string.upperAscii() -> string",
    "string.replace(string, string) -> string",
    "string.replace(string, string, int) -> string",
    "string.split(string) -> list(string)",
    "string.split(string, int) -> list(string)",
    "string.substring(int) -> string",
    "string.substring(int, int) -> string",
    "string.trim() -> string",
    "list(string).join() -> string",
    "list(string).join(string) -> string",
    "string.format(list(dyn)) -> string",
    "strings.quote(string) -> string",
    "list(A).slice(int, int) -> list(A)",
    "list(list(A)).flatten() -> list(A)",
    "list(dyn).flatten(int) -> list(dyn)",
    "lists.range(int) -> list(int)",
    "list(A).reverse() -> list(A)",
    "list(A).distinct() -> list(A)",
    "sets.contains(list(A), list(A)) -> bool",
    "sets.equivalent(list(A), list(A)) -> bool",
    "sets.intersects(list(A), list(A)) -> bool",
    "cel.@mapInsert(map(K, V), K, V) -> map(K, V)",
    "cel.@mapInsert(map(K, V), map(K, V)) -> map(K, V)",
];

/// The Kubernetes libraries (`AS pkg/cel/library`); `isSorted`, `sum`, `min`, `max` and
/// `format.<name>()` are added per type above.
const KUBERNETES: &[&str] = &[
    "list(A).indexOf(A) -> int",
    "list(A).lastIndexOf(A) -> int",
    "string.find(string) -> string",
    "string.findAll(string) -> list(string)",
    "string.findAll(string, int) -> list(string)",
    "url(string) -> kubernetes.URL",
    "isURL(string) -> bool",
    "kubernetes.URL.getScheme() -> string",
    "kubernetes.URL.getHost() -> string",
    "kubernetes.URL.getHostname() -> string",
    "kubernetes.URL.getPort() -> string",
    "kubernetes.URL.getEscapedPath() -> string",
    "kubernetes.URL.getQuery() -> map(string, list(string))",
    "quantity(string) -> kubernetes.Quantity",
    "isQuantity(string) -> bool",
    "sign(kubernetes.Quantity) -> int",
    "kubernetes.Quantity.isGreaterThan(kubernetes.Quantity) -> bool",
    "kubernetes.Quantity.isLessThan(kubernetes.Quantity) -> bool",
    "kubernetes.Quantity.compareTo(kubernetes.Quantity) -> int",
    "kubernetes.Quantity.asApproximateFloat() -> double",
    "kubernetes.Quantity.asInteger() -> int",
    "kubernetes.Quantity.isInteger() -> bool",
    "kubernetes.Quantity.add(kubernetes.Quantity) -> kubernetes.Quantity",
    "kubernetes.Quantity.add(int) -> kubernetes.Quantity",
    "kubernetes.Quantity.sub(kubernetes.Quantity) -> kubernetes.Quantity",
    "kubernetes.Quantity.sub(int) -> kubernetes.Quantity",
    "ip(string) -> net.IP",
    "isIP(string) -> bool",
    "ip.isCanonical(string) -> bool",
    "net.IP.family() -> int",
    "net.IP.isUnspecified() -> bool",
    "net.IP.isLoopback() -> bool",
    "net.IP.isLinkLocalMulticast() -> bool",
    "net.IP.isLinkLocalUnicast() -> bool",
    "net.IP.isGlobalUnicast() -> bool",
    "string(net.IP) -> string",
    "cidr(string) -> net.CIDR",
    "isCIDR(string) -> bool",
    "net.CIDR.containsIP(string) -> bool",
    "net.CIDR.containsIP(net.IP) -> bool",
    "net.CIDR.containsCIDR(string) -> bool",
    "net.CIDR.containsCIDR(net.CIDR) -> bool",
    "net.CIDR.ip() -> net.IP",
    "net.CIDR.prefixLength() -> int",
    "net.CIDR.masked() -> net.CIDR",
    "string(net.CIDR) -> string",
    "kubernetes.NamedFormat.validate(string) -> optional_type(list(string))",
    "format.named(string) -> optional_type(kubernetes.NamedFormat)",
    "semver(string) -> kubernetes.Semver",
    "semver(string, bool) -> kubernetes.Semver",
    "isSemver(string) -> bool",
    "isSemver(string, bool) -> bool",
    "kubernetes.Semver.isGreaterThan(kubernetes.Semver) -> bool",
    "kubernetes.Semver.isLessThan(kubernetes.Semver) -> bool",
    "kubernetes.Semver.compareTo(kubernetes.Semver) -> int",
    "kubernetes.Semver.major() -> int",
    "kubernetes.Semver.minor() -> int",
    "kubernetes.Semver.patch() -> int",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_read_as_written() {
        let (name, o) = parse_signature("list(A).indexOf(A) -> int");
        assert_eq!((name.as_str(), o.member, o.params.len(), o.result.to_string()), ("indexOf", true, 2, "int".into()));
        let (name, o) = parse_signature("optional.of(A) -> optional_type(A)");
        assert_eq!((name.as_str(), o.member), ("optional.of", false));
        let (name, o) = parse_signature("kubernetes.URL.getQuery() -> map(string, list(string))");
        assert_eq!((name.as_str(), o.member, o.params[0].to_string()), ("getQuery", true, "kubernetes.URL".into()));
        assert!(lookup("format.dns1123Label").is_some());
        assert!(lookup("math.greatest").is_none());
    }
}
