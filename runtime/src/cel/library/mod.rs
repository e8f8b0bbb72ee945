//! Every function a rule can call, and every function the lowering writes into one, as a table:
//! one row per overload ([`function::Function`]), declared in the file of its library. cel-go's
//! standard library and extensions (`standard.rs`, `extensions.rs`) are the `cel` crate's;
//! what Kubernetes adds (lists, regex, URLs, quantities, IPs and CIDRs, named formats, semantic
//! versions, sets, `format`, cel-go's `duration`) is implemented here, one file per library,
//! written against `cel::Value` and adapted to the overload signature by `args::value_fn!`.

use std::collections::HashMap;
use std::sync::LazyLock;

use cel::common::ast::Expr;
use cel::common::types::{
    BOOL_TYPE, BYTES_TYPE, DOUBLE_TYPE, DURATION_TYPE, DYN_TYPE, INT_TYPE, LIST_TYPE, MAP_TYPE, STRING_TYPE,
    TIMESTAMP_TYPE, Type as CelType, UINT_TYPE,
};
use cel::{DeclarationError, Env};

use crate::cel::lowering::{comprehensions, int_data, list_kinds, list_operands};
use crate::cel::vocabulary::meter;
use crate::cel::vocabulary::types::{Type, parse, split_params};

pub(crate) mod duration;
mod extensions;
pub(crate) mod format;
pub(crate) mod formats;
mod lists;
pub(crate) mod net;
mod quantity;
mod regex;
mod semver;
mod sets;
pub(crate) mod standard;
pub(crate) mod url;
pub(crate) mod words;

use crate::cel::vocabulary::function::{self, Function, Rows, Run};

/// Every row, each library's in the order its file declares them (the checker tries a
/// function's overloads in this order).
pub(crate) fn rows() -> &'static [Function] {
    static ROWS: LazyLock<Vec<Function>> = LazyLock::new(|| {
        let mut rows = Rows::default();
        let libraries: &[fn(&mut Rows)] = &[
            standard::functions,
            extensions::functions,
            format::functions,
            sets::functions,
            comprehensions::functions,
            lists::functions,
            regex::functions,
            url::functions,
            quantity::functions,
            net::functions,
            formats::functions,
            semver::functions,
            duration::functions,
            list_kinds::functions,
            list_operands::functions,
            int_data::functions,
            meter::functions,
        ];
        for declare in libraries {
            declare(&mut rows);
        }
        rows.0
    });
    &ROWS
}

/// The native form generated code uses for a call of `name` (the name the lowered tree
/// calls, after renames), as a member or not, with `arity` arguments besides the target:
/// the form the overloads of that shape share, or `None` when every one is interpreted.
pub fn native_form(name: &str, member: bool, arity: usize) -> Option<function::NativeForm> {
    // Worked out once per call shape: the dynamic validator's plans ask at every call of
    // every rule they compile, and each row's shape is parsed from its signature.
    static FORMS: LazyLock<HashMap<(&'static str, bool, usize), function::NativeForm>> = LazyLock::new(|| {
        let mut forms = HashMap::new();
        for f in rows().iter().filter(|f| !matches!(f.native, function::NativeForm::Interpreted(_))) {
            forms.entry(f.shape()).or_insert(f.native);
        }
        forms
    });
    FORMS.get(&(name, member, arity)).copied()
}

/// Registers every implementation the table names (the `cel` crate's own are there already)
/// and the library types that are identifiers (`net.IP`).
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    for name in net::TYPES {
        env.add_type(CelType::new_opaque_type(*name))?;
    }
    // Overloads that differ only in what the interpreter cannot tell apart (`list(int).sum()`,
    // `list(double).sum()`) are one registration.
    let mut registered: HashMap<String, usize> = HashMap::new();
    for row in rows() {
        let f = match row.run {
            Run::Cel => continue,
            Run::Library(f) | Run::Renamed(_, f) => f,
        };
        let (name, member, _) = row.shape();
        let mut params = erased_params(&row.signature);
        let id = format!("{name}({})", params.iter().map(|t| t.name()).collect::<Vec<_>>().join(","));
        let id = if member { format!("member {id}") } else { id };
        if let Some(first) = registered.insert(id.clone(), f as usize) {
            assert_eq!(
                first, f as usize,
                "invariant: overloads the interpreter cannot tell apart share one implementation: {id}"
            );
            continue;
        }
        if member {
            let target = params.remove(0);
            env.add_member_overload(name, &id, target, params, f)?;
        } else {
            env.add_overload(name, &id, params, f)?;
        }
    }
    list_operands::register(env)?;
    comprehensions::register_macros(env)
}

/// The parameter types of a signature as the interpreter dispatches on them: type
/// parameters and `dyn` match anything, lists and maps by kind, library types by name.
fn erased_params(signature: &str) -> Vec<CelType> {
    let call = signature.rsplit_once(" -> ").map_or(signature, |(call, _)| call);
    let open = function::matching_open(call);
    let (head, args) = (&call[..open], &call[open + 1..call.len() - 1]);
    let mut params: Vec<&str> = if args.trim().is_empty() { Vec::new() } else { split_params(args) };
    if let Some((target, _)) = head.rsplit_once('.')
        && !function::NAMESPACES.contains(&target)
    {
        params.insert(0, target);
    }
    params.into_iter().map(|p| erase(&parse(p))).collect()
}

fn erase(t: &Type) -> CelType {
    match t {
        Type::Bool => BOOL_TYPE,
        Type::Int => INT_TYPE,
        Type::Uint => UINT_TYPE,
        Type::Double => DOUBLE_TYPE,
        Type::String => STRING_TYPE,
        Type::Bytes => BYTES_TYPE,
        Type::Duration => DURATION_TYPE,
        Type::Timestamp => TIMESTAMP_TYPE,
        Type::List(..) => LIST_TYPE,
        Type::Map(..) => MAP_TYPE,
        Type::Object(o) => CelType::new_opaque_type(o.name.to_string()),
        Type::Opaque(name, _) => CelType::new_opaque_type(name.to_string()),
        _ => DYN_TYPE,
    }
}

/// Each call the table says runs under another name ([`Run::Renamed`]) renamed, throughout `e`.
pub(crate) fn lower(e: &mut cel::IdedExpr) {
    static RENAMES: LazyLock<HashMap<(&'static str, bool, usize), &'static str>> = LazyLock::new(|| {
        rows()
            .iter()
            .filter_map(|row| match row.run {
                Run::Renamed(to, _) => {
                    let (name, member, arity) = function::signature_shape(&row.signature);
                    Some(((name, member, arity), to))
                }
                _ => None,
            })
            .collect()
    });
    for child in crate::cel::vocabulary::depth::children_mut(e) {
        lower(child);
    }
    if let Expr::Call(call) = &mut e.expr
        && let Some(to) = RENAMES.get(&(call.func_name.as_str(), call.target.is_some(), call.args.len()))
    {
        call.func_name = (*to).to_owned();
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;
    use crate::cel::vocabulary::function::{Charge, NativeForm, Run, signature_shape};

    /// A value of a table type, written in CEL.
    fn sample(t: &str) -> String {
        let t = t.trim();
        if let Some(inner) = t.strip_prefix("list(").and_then(|r| r.strip_suffix(')')) {
            return format!("[{}]", sample(inner));
        }
        if let Some(inner) = t.strip_prefix("map(").and_then(|r| r.strip_suffix(')')) {
            let kv = split_params(inner);
            return format!("{{{}: {}}}", sample(kv[0]), sample(kv[1]));
        }
        if let Some(inner) = t.strip_prefix("optional_type(").and_then(|r| r.strip_suffix(')')) {
            return format!("optional.of({})", sample(inner));
        }
        match t {
            "int" => "1".into(),
            "uint" => "1u".into(),
            "double" => "1.0".into(),
            "bool" => "true".into(),
            "string" => "'1'".into(),
            "bytes" => "b'1'".into(),
            "duration" => "duration('1s')".into(),
            "timestamp" => "timestamp('2020-01-01T00:00:00Z')".into(),
            "kubernetes.URL" => "url('https://example.com/a')".into(),
            "kubernetes.Quantity" => "quantity('1')".into(),
            "kubernetes.Semver" => "semver('1.0.0')".into(),
            "kubernetes.NamedFormat" => "format.dns1123Label()".into(),
            "net.IP" => "ip('10.0.0.1')".into(),
            "net.CIDR" => "cidr('10.0.0.0/8')".into(),
            // Type parameters and `dyn`.
            _ => "1".into(),
        }
    }

    /// A call of the row's overload with a value of each parameter type, or `None` for the
    /// operators and the lowering's own functions (no source text calls them by name).
    fn sample_call(signature: &str) -> Option<String> {
        let call = signature.rsplit_once(" -> ")?.0;
        let open = function::matching_open(call);
        let (head, args) = (&call[..open], &call[open + 1..call.len() - 1]);
        let args: Vec<String> =
            if args.trim().is_empty() { Vec::new() } else { split_params(args).into_iter().map(sample).collect() };
        let (name, member, _) = signature_shape(signature);
        if name.contains('@') || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return None;
        }
        Some(match head.rsplit_once('.') {
            Some((target, _)) if member => format!("{}.{name}({})", sample(target), args.join(", ")),
            _ => format!("{head}({})", args.join(", ")),
        })
    }

    /// Each function is declared in exactly one place, and its row is complete: the checker
    /// resolves it, the interpreter runs it (the `cel` crate's or the implementation the row
    /// names, registered from the row), every overload of one call shape charges the meter
    /// alike and has one native form, and every interpreted row says why.
    /// The derive's compiler cannot read this table: the calls it charges only by their first
    /// operand are `kubeskema_attributes::meter::FIRST_OPERAND_CALLS`, which must be the rows'.
    #[test]
    fn the_derive_knows_which_calls_charge_their_first_operand() {
        let mut rows: Vec<&str> = rows()
            .iter()
            .filter(|row| row.charge == Charge::FirstOperand)
            .map(|row| signature_shape(&row.signature).0)
            .collect();
        rows.sort_unstable();
        rows.dedup();
        let mut shared = kubeskema_attributes::meter::FIRST_OPERAND_CALLS.to_vec();
        shared.sort_unstable();
        assert_eq!(rows, shared);
    }

    /// The derive's compiler reads the forms by call shape from
    /// `kubeskema_attributes::native::CALLS`: they must be the rows', shape for shape (as a rule
    /// writes the call: `duration(s)`, not the lowering's `@duration(s)`), so that a row added
    /// with a native form is compiled by both compilers and a row added as interpreted by
    /// neither. Both match on the form without a catch-all, so a new form is a compile error in
    /// each until it is written or given a reason.
    #[test]
    fn the_derive_reads_the_rows_native_forms() {
        use kubeskema_attributes::native::{CALLS, Call};
        let mut native: Vec<Call> = Vec::new();
        for row in rows() {
            if matches!(row.native, NativeForm::Interpreted(_)) {
                continue;
            }
            let (name, member, arity) = signature_shape(&row.signature);
            let call = Call { name: leak(name), member, arity, form: row.native };
            if !native.contains(&call) {
                native.push(call);
            }
        }
        let missing: Vec<&Call> = native.iter().filter(|c| !CALLS.contains(c)).collect();
        let stale: Vec<&Call> = CALLS.iter().filter(|c| !native.contains(c)).collect();
        assert!(missing.is_empty(), "native rows missing from kubeskema_attributes::native::CALLS: {missing:#?}");
        assert!(stale.is_empty(), "CALLS entries no native row has: {stale:#?}");
        assert_eq!(native.len(), CALLS.len(), "CALLS lists each shape once");
    }

    fn leak(s: &str) -> &'static str {
        Box::leak(s.to_owned().into_boxed_str())
    }

    #[test]
    fn every_row_is_declared_once_and_complete() {
        let mut signatures = HashSet::new();
        let mut charges: HashMap<&str, Charge> = HashMap::new();
        let mut forms: HashMap<(&str, bool, usize), NativeForm> = HashMap::new();
        let mut called = 0;
        for row in rows() {
            assert!(signatures.insert(row.signature.as_str()), "declared twice: {}", row.signature);
            let (name, _, _) = signature_shape(&row.signature);
            let overloads = crate::cel::front::functions::lookup(name).unwrap_or_default();
            assert!(overloads.iter().any(|o| std::ptr::eq(o.function, row)), "the checker lacks {}", row.signature);
            if let Some(other) = charges.insert(name, row.charge) {
                assert_eq!(other, row.charge, "the overloads of `{name}` charge alike: {}", row.signature);
            }
            match row.native {
                NativeForm::Interpreted(why) => {
                    assert!(!why.is_empty(), "{} is interpreted without a reason", row.signature)
                }
                form => {
                    let shape = row.shape();
                    if let Some(other) = forms.insert(shape, form) {
                        assert_eq!(other, form, "one native form per call shape: {}", row.signature);
                    }
                }
            }
            if let Run::Renamed(to, _) = row.run {
                assert!(to.starts_with('@'), "a renamed call cannot be written in a rule: {to}");
            }
            let Some(source) = sample_call(&row.signature) else { continue };
            called += 1;
            // [quirk] a string `containsIP` cannot parse is no such overload (`net.rs`).
            let quirk = row.signature == "net.CIDR.containsIP(string) -> bool";
            if let Err(e) = crate::cel::eval(&source, cel::Value::Null)
                && !quirk
            {
                let missing = ["no such overload", "no matching overload", "undeclared reference", "Undeclared"];
                assert!(!missing.iter().any(|m| e.contains(m)), "{source} ({}): {e}", row.signature);
            }
        }
        // The operators and the lowering's functions run in every other test.
        assert!(called > 200, "{called} rows called by name");
    }

    /// The table declares what the apiserver's environment declares, overload for overload:
    /// `fixtures/oracle/cel-environment.tsv`, printed by kube-apiserver 1.36.3's own code
    /// (`fixtures/oracle/cel-environment/record.sh`). Type parameters are compared by place,
    /// not name.
    #[test]
    fn the_table_is_the_apiservers_environment() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/oracle/cel-environment.tsv");
        let Ok(text) = std::fs::read_to_string(path) else {
            return; // a published crate's tests run without the repository's fixtures
        };
        // What the apiserver declares that no CRD rule can call: the authorizer's library (no
        // `authorizer` variable in a CRD's rules) and cel-go's legacy operator names (asked:
        // `_in_(1, [1])` is an undeclared reference).
        let uncallable = |name: &str, sig: &str| {
            sig.contains("kubernetes.authorization.") || ["_in_", "in", "__not_strictly_false__"].contains(&name)
        };
        let normalize = |sig: &str| -> String {
            let sig =
                sig.replace("google.protobuf.Timestamp", "timestamp").replace("google.protobuf.Duration", "duration");
            let mut out = String::new();
            let chars: Vec<char> = sig.chars().filter(|c| *c != ' ' && *c != '<' && *c != '>').collect();
            for (i, c) in chars.iter().enumerate() {
                let alone = |j: Option<&char>| j.is_none_or(|c| !c.is_ascii_alphanumeric() && *c != '_');
                let param = c.is_ascii_uppercase()
                    && alone(i.checked_sub(1).and_then(|j| chars.get(j)))
                    && alone(chars.get(i + 1));
                out.push(if param { '_' } else { *c });
            }
            out
        };
        let mut theirs = HashSet::new();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let cols: Vec<&str> = line.split('\t').collect();
            let [name, id, member, sig] = cols[..] else { continue };
            if id == "macro" || uncallable(name, sig) {
                continue;
            }
            let (args, result) = sig.rsplit_once(" -> ").expect("a signature");
            let args = split_params(&args[1..args.len() - 1]);
            let ours = if member == "member" {
                format!("{}.{name}({}) -> {result}", args[0], args[1..].join(", "))
            } else {
                format!("{name}({}) -> {result}", args.join(", "))
            };
            theirs.insert(normalize(&ours));
        }
        let ours: HashMap<String, &str> =
            rows().iter().map(|r| (normalize(&r.signature), r.signature.as_str())).collect();
        // `_?._`'s result is typed by the checker (the field's optional), not by the row.
        let typed_by_the_checker = |s: &str| s.starts_with("_?._");
        let mut missing: Vec<&String> =
            theirs.iter().filter(|s| !ours.contains_key(*s) && !typed_by_the_checker(s)).collect();
        missing.sort();
        assert!(missing.is_empty(), "the apiserver declares what the table lacks: {missing:#?}");
        // The lowering's own functions (`@charge`, `@set_equals`, ...) are names no rule can write.
        let lowering =
            |s: &str| s.starts_with('@') && !theirs.iter().any(|t| t.split('(').next() == s.split('(').next());
        let mut extra: Vec<&str> = ours
            .iter()
            .filter(|(s, _)| !theirs.contains(*s) && !typed_by_the_checker(s) && !lowering(s))
            .map(|(_, r)| *r)
            .collect();
        extra.sort();
        assert!(extra.is_empty(), "the table declares what the apiserver does not: {extra:#?}");
    }
}
