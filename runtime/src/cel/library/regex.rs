//! The Kubernetes regex library (`AS pkg/cel/library/regex.go`): `find` and `findAll` on
//! strings, and CEL's own `matches`, with Go RE2 semantics (patterns go through
//! [`crate::pattern`]), compiled once per pattern.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use cel::{ExecutionError, Value};

use crate::cel::vocabulary::args::{Outcome, error, string_arg, value_fn};
use crate::cel::vocabulary::function::{Charge, Cost, NOT_YET_NATIVE, NativeForm, Rows, Run};

pub(super) fn functions(rows: &mut Rows) {
    let mut add = |signature: &str, f, cost, native| rows.add(signature, Run::Library(f), cost, Charge::Regex, native);
    // cel-go's own `matches`, declared global and member; only the member has a cost rule.
    add("matches(string, string) -> bool", value_fn!(matches), Cost::Call, NativeForm::Matches);
    add("string.matches(string) -> bool", value_fn!(matches), Cost::Matches, NativeForm::Matches);
    add("string.find(string) -> string", value_fn!(find), Cost::Find, NativeForm::Find);
    let interpreted = NativeForm::Interpreted(NOT_YET_NATIVE);
    add("string.findAll(string) -> list(string)", value_fn!(find_all), Cost::Find, interpreted);
    add("string.findAll(string, int) -> list(string)", value_fn!(find_all_n), Cost::Find, interpreted);
}

/// Compiled patterns, shared by every evaluation in the process.
static CACHE: LazyLock<Mutex<HashMap<String, Arc<regex::Regex>>>> = LazyLock::new(Default::default);

/// The most patterns kept: patterns can come from the objects validated (`x.matches(y)`), so
/// an unbounded cache would grow with every request a webhook serves.
const MAX_CACHED: usize = 1024;

/// The compiled Go pattern, from the cache.
pub(crate) fn compiled(function: &str, pattern: &str) -> Result<Arc<regex::Regex>, ExecutionError> {
    let mut cache = CACHE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(re) = cache.get(pattern) {
        return Ok(re.clone());
    }
    let re = Arc::new(crate::check::pattern::compile(pattern).map_err(|e| error(function, e.0))?);
    if cache.len() >= MAX_CACHED {
        cache.clear();
    }
    cache.insert(pattern.to_owned(), re.clone());
    Ok(re)
}

/// The subject and the compiled pattern of a call, once the call's cost is charged: cel-go's
/// regex cost, the subject's traversal times a quarter unit per pattern byte.
fn subject_and_pattern<'a>(function: &str, args: &'a [Value]) -> Result<(&'a str, Arc<regex::Regex>), ExecutionError> {
    let (s, pattern) = (string_arg(function, args, 0)?, string_arg(function, args, 1)?);
    crate::cel::vocabulary::meter::charge(crate::cel::vocabulary::meter::regex_cost(s.len(), pattern.len()))?;
    Ok((s, compiled(function, pattern)?))
}

/// `matches`: whether the pattern matches anywhere in the string (RE2's unanchored match).
fn matches(args: &[Value]) -> Outcome {
    let (s, re) = subject_and_pattern("matches", args)?;
    Ok(Value::Bool(re.is_match(s)))
}

fn find(args: &[Value]) -> Outcome {
    let (s, re) = subject_and_pattern("find", args)?;
    Ok(Value::from(re.find(s).map_or("", |m| m.as_str())))
}

fn all(s: &str, re: &std::sync::Arc<regex::Regex>, limit: Option<usize>) -> Value {
    let found = re.find_iter(s).map(|m| Value::from(m.as_str()));
    Value::List(Arc::new(match limit {
        Some(n) => found.take(n).collect(),
        None => found.collect(),
    }))
}

fn find_all(args: &[Value]) -> Outcome {
    let (s, re) = subject_and_pattern("findAll", args)?;
    Ok(all(s, &re, None))
}

/// `findAll(re, n)`: `n < 0` finds all, `n == 0` none.
fn find_all_n(args: &[Value]) -> Outcome {
    let (s, re) = subject_and_pattern("findAll", args)?;
    let Some(Value::Int(n)) = args.get(2) else {
        return Err(error("findAll", "expected an int limit"));
    };
    let limit = usize::try_from(*n).ok();
    Ok(all(s, &re, limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Patterns taken from objects cannot grow the cache without bound.
    #[test]
    fn the_pattern_cache_is_bounded() {
        for i in 0..MAX_CACHED * 2 + 3 {
            compiled("matches", &format!("^x{i}$")).unwrap();
        }
        let len = CACHE.lock().unwrap().len();
        assert!(len <= MAX_CACHED, "{len}");
    }
}
