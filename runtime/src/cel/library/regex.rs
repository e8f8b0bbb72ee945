//! The Kubernetes regex library (`AS pkg/cel/library/regex.go`): `find` and `findAll` on
//! strings, and CEL's own `matches`, with Go RE2 semantics (patterns go through
//! [`crate::pattern`]), compiled once per pattern.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use cel::common::types::{INT_TYPE, STRING_TYPE};
use cel::{DeclarationError, Env, ExecutionError, Value};

use super::{Outcome, error, string_arg, value_fn};

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload("matches", "matches", vec![STRING_TYPE, STRING_TYPE], value_fn!(matches))?;
    env.add_member_overload("matches", "matches_string", STRING_TYPE, vec![STRING_TYPE], value_fn!(matches))?;
    env.add_member_overload("find", "string_find_string", STRING_TYPE, vec![STRING_TYPE], value_fn!(find))?;
    env.add_member_overload("findAll", "string_find_all_string", STRING_TYPE, vec![STRING_TYPE], value_fn!(find_all))?;
    env.add_member_overload(
        "findAll",
        "string_find_all_string_int",
        STRING_TYPE,
        vec![STRING_TYPE, INT_TYPE],
        value_fn!(find_all_n),
    )?;
    Ok(())
}

/// Compiled patterns, shared by every evaluation in the process.
static CACHE: LazyLock<Mutex<HashMap<String, Arc<regex::Regex>>>> = LazyLock::new(Default::default);

/// The compiled Go pattern, from the cache.
pub(crate) fn compiled(function: &str, pattern: &str) -> Result<Arc<regex::Regex>, ExecutionError> {
    let mut cache = CACHE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(re) = cache.get(pattern) {
        return Ok(re.clone());
    }
    let re = Arc::new(crate::pattern::compile(pattern).map_err(|e| error(function, e.0))?);
    cache.insert(pattern.to_owned(), re.clone());
    Ok(re)
}

/// `matches`: whether the pattern matches anywhere in the string (RE2's unanchored match).
fn matches(args: &[Value]) -> Outcome {
    let (s, pattern) = (string_arg("matches", args, 0)?, string_arg("matches", args, 1)?);
    Ok(Value::Bool(compiled("matches", pattern)?.is_match(s)))
}

fn find(args: &[Value]) -> Outcome {
    let (s, pattern) = (string_arg("find", args, 0)?, string_arg("find", args, 1)?);
    let re = compiled("find", pattern)?;
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
    let (s, pattern) = (string_arg("findAll", args, 0)?, string_arg("findAll", args, 1)?);
    Ok(all(s, &compiled("findAll", pattern)?, None))
}

/// `findAll(re, n)`: `n < 0` finds all, `n == 0` none.
fn find_all_n(args: &[Value]) -> Outcome {
    let (s, pattern) = (string_arg("findAll", args, 0)?, string_arg("findAll", args, 1)?);
    let Some(Value::Int(n)) = args.get(2) else {
        return Err(error("findAll", "expected an int limit"));
    };
    let limit = usize::try_from(*n).ok();
    Ok(all(s, &compiled("findAll", pattern)?, limit))
}
