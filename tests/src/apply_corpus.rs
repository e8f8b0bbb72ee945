//! Server-side apply over the corpus, against the apiserver: the requests each corpus instance
//! makes (shared by the recorder, `apply-corpus-record`, and the test that replays them) and the
//! answers in one canonical form, kept as a hash each (`fixtures/apply/corpus.tsv`: the
//! objects themselves would be 20 MB).
//!
//! Three applies an instance: (1) created by apply as `m`; (2) `m` applies it again without the
//! last key of `spec` (that key is pruned); (3) `n` applies the whole instance (shared
//! ownership, no conflict where the values are equal). Each step's live object is what the step
//! before stored.

use serde_json::{Map, Value, json};

use crate::Instance;

/// The time every recorded apply stamps.
pub const NOW: &str = "2026-01-01T00:00:00Z";

/// The configurations of the three steps, and their managers; `None` if the instance is not an
/// object.
pub fn configurations(object: &Value, inst: &Instance) -> Option<Vec<(&'static str, Value)>> {
    let mut config = object.as_object()?.clone();
    config.insert("apiVersion".into(), inst.api_version.clone().into());
    config.insert("kind".into(), inst.kind.clone().into());
    let meta = config.entry("metadata").or_insert_with(|| Value::Object(Map::new())).as_object_mut()?;
    meta.entry("name").or_insert_with(|| "corpus".into());
    meta.remove("managedFields");
    let config = Value::Object(config);
    let mut shorter = config.clone();
    if let Some(Value::Object(spec)) = shorter.get_mut("spec")
        && let Some(last) = spec.keys().next_back().cloned()
    {
        spec.remove(&last);
    }
    Some(vec![("m", config.clone()), ("m", shorter), ("n", config)])
}

/// An answer in one form for both sides: the object, or the conflicts (sorted) and the 409's
/// message, or the refusal's message.
pub fn canonical_oracle(answer: &Value) -> Value {
    if let Some(object) = answer.get("object").filter(|o| !o.is_null()) {
        return whole_numbers(object);
    }
    let mut conflicts: Vec<Value> = answer
        .get("conflicts")
        .and_then(Value::as_array)
        .map(|c| c.iter().map(|c| json!([c["manager"], c["field"], c["message"]])).collect())
        .unwrap_or_default();
    conflicts.sort_by_key(|c| c.to_string());
    json!({"conflicts": conflicts, "error": answer.get("error").and_then(Value::as_str).map(error_lines)})
}

/// A refusal's message with what Go's map order decides left out: the errors' order, and
/// which of a map's keys the type converter meets before it stops at an undeclared one (it
/// stops at the first it meets, in an order that changes from run to run). So: the message's
/// lead, then its errors sorted, only the undeclared ones where there is one, each named by
/// its parent's path.
fn error_lines(message: &str) -> String {
    const UNDECLARED: &str = ": field not declared in schema";
    let (lead, errors) = match message.split_once(": errors:\n") {
        Some((lead, rest)) => (lead, rest.lines().map(str::trim).collect::<Vec<_>>()),
        None => match message.split_once("): ") {
            Some((lead, error)) => (&message[..=lead.len()], vec![error]),
            None => (message, Vec::new()),
        },
    };
    let undeclared = errors.iter().any(|e| e.ends_with(UNDECLARED));
    let mut lines: Vec<String> = errors
        .iter()
        .filter(|e| !undeclared || e.ends_with(UNDECLARED))
        .map(|e| match e.strip_suffix(UNDECLARED).and_then(|path| path.rsplit_once('.')) {
            Some((parent, _)) => format!("{parent}.*{UNDECLARED}"),
            None => (*e).to_owned(),
        })
        .collect();
    lines.sort_unstable();
    lines.dedup();
    format!("{lead}\n{}", lines.join("\n"))
}

/// An object with its whole floats as integers: Go reads `100.0` into a float64 and writes it
/// back as `100`, a difference of spelling only.
fn whole_numbers(value: &Value) -> Value {
    match value {
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9e15 => Value::from(f as i64),
            _ => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(whole_numbers).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), whole_numbers(v))).collect()),
        other => other.clone(),
    }
}

/// [`canonical_oracle`]'s form of this project's answer.
pub fn canonical_ours(result: &Result<Value, kubeskema::apply::ApplyError>) -> Value {
    use kubeskema::apply::ApplyError;
    match result {
        Ok(object) => whole_numbers(object),
        Err(ApplyError::Conflicts(c)) => {
            let mut conflicts: Vec<Value> =
                c.conflicts.iter().map(|c| json!([c.manager, c.field, c.message])).collect();
            conflicts.sort_by_key(|c| c.to_string());
            json!({"conflicts": conflicts, "error": error_lines(&c.message)})
        }
        Err(ApplyError::Invalid(message)) => json!({"conflicts": [], "error": error_lines(message)}),
    }
}

/// A stable 64-bit hash of the answer's compact JSON (FNV-1a), as 16 hex digits.
pub fn fingerprint(answer: &Value) -> String {
    let text = answer.to_string();
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("{hash:016x}")
}
