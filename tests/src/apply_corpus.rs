//! Server-side apply over the corpus, against the apiserver: the requests each corpus instance
//! makes (shared by the recorder, `apply-corpus-record`, and the test that replays them) and the
//! answers in one canonical form, kept as a hash each (`fixtures/apply/corpus.tsv`: the
//! objects themselves would be 20 MB).
//!
//! Three applies an instance: (1) created by apply as `m`; (2) `m` applies it again without the
//! last key of `spec` (that key is pruned); (3) `n` applies the whole instance (shared
//! ownership, no conflict where the values are equal). Where the CRD has another version (and
//! converts with strategy None), two more, with managers' entries at two versions: (4) `o` applies it at that version with every
//! list of its `spec` emptied, forced (fields compared, taken and refused in each manager's
//! version: a set at one version may be atomic at the other, a field declared at one not at the
//! other; the lists nested in its objects too); (5) `m` applies the whole instance again at its own version (what `o` emptied
//! conflicts, compared in `o`'s version). Last, (6) `m` applies the whole instance over a live
//! object of its own: the instance as stored before server-side apply (no managedFields) with
//! its first scalar under `spec` of the wrong type (the refusal's layer and words). Each other
//! step's live object is what the step before stored, as stored: the field manager brings it to
//! the step's version itself.

use serde_json::{Map, Value, json};

use crate::Instance;

/// The time every recorded apply stamps.
pub const NOW: &str = "2026-01-01T00:00:00Z";

/// One apply of a chain.
pub struct Step {
    pub manager: &'static str,
    /// The CRD version applied at.
    pub version: String,
    pub config: Value,
    pub force: bool,
    /// The live object, where not what the step before stored.
    pub live: Option<Value>,
}

impl Step {
    /// The request the oracle is asked (`id` and `live` for the caller to set).
    pub fn request(&self, crd: &Value, live: &Value) -> Value {
        let live = self.live.as_ref().unwrap_or(live);
        json!({"id": 0, "op": "apply", "crd": crd, "version": self.version, "live": live,
               "applied": self.config, "manager": self.manager, "force": self.force, "now": NOW})
    }

    /// This project's answer, by [`Resource::field_manager_apply`](kubeskema::apply::Resource::field_manager_apply) at the step's version.
    pub fn ours(&self, crd: &kubeskema::crd::Crd, live: Option<&Value>) -> Result<Value, kubeskema::apply::ApplyError> {
        use kubeskema::apply::{Options, Resource, Subresource};
        let resource = Resource::new(crd, &self.version).expect("a version of the CRD");
        let options = Options { manager: self.manager, force: self.force, now: NOW, subresource: Subresource::Main };
        resource.field_manager_apply(self.live.as_ref().or(live), &self.config, &options)
    }
}

/// The steps of an instance's chain; `None` if the instance is not an object.
pub fn configurations(object: &Value, inst: &Instance, crd: &kubeskema::crd::Crd) -> Option<Vec<Step>> {
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
    let version = inst.api_version.rsplit_once('/').map_or(inst.api_version.as_str(), |(_, v)| v).to_owned();
    let step = |manager, config: &Value, force| Step {
        manager,
        version: version.clone(),
        config: config.clone(),
        force,
        live: None,
    };
    let mut steps = vec![step("m", &config, false), step("m", &shorter, false), step("n", &config, false)];
    // Conversion webhooks are out of the oracle's reach (and this project's).
    let webhook = crd.envelope().pointer("/spec/conversion/strategy").and_then(Value::as_str) == Some("Webhook");
    if let Some(other) = crd.versions.iter().find(|v| v.name != version).filter(|_| !webhook) {
        let mut emptied = config.clone();
        emptied["apiVersion"] = kubeskema::crd::api_version(&crd.group, &other.name).into();
        if let Some(spec) = emptied.get_mut("spec") {
            empty_lists(spec);
        }
        steps.push(Step { manager: "o", version: other.name.clone(), config: emptied, force: true, live: None });
        steps.push(step("m", &config, false));
    }
    let mut malformed = config.clone();
    if malformed.get_mut("spec").is_some_and(swap_first_scalar) {
        steps.push(Step { live: Some(malformed), ..step("m", &config, false) });
    }
    Some(steps)
}

/// The first scalar in `value` (depth first, keys in order) given a value of another JSON type;
/// false if there is none.
fn swap_first_scalar(value: &mut Value) -> bool {
    match value {
        Value::Array(items) => items.iter_mut().any(swap_first_scalar),
        Value::Object(map) => map.values_mut().any(swap_first_scalar),
        Value::Null => false,
        Value::String(_) => {
            *value = 12345.into();
            true
        }
        scalar => {
            *scalar = "kubeskema".into();
            true
        }
    }
}

/// Every list in `value`, however deep in its objects, made `[]`.
fn empty_lists(value: &mut Value) {
    match value {
        Value::Array(items) => items.clear(),
        Value::Object(map) => map.values_mut().for_each(empty_lists),
        _ => {}
    }
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
/// which undeclared fields the type converter meets (it stops at the first undeclared key of
/// each map, in an order that changes from run to run, so which maps below it are walked
/// changes too). So: the message's lead, then its errors sorted; where a field is undeclared,
/// only that there is one.
fn error_lines(message: &str) -> String {
    const UNDECLARED: &str = ": field not declared in schema";
    let (lead, errors) = match message.split_once("errors:\n") {
        Some((lead, rest)) => (lead.trim_end_matches(": "), rest.lines().map(str::trim).collect::<Vec<_>>()),
        None => match message.split_once("): ") {
            Some((lead, error)) => (&message[..=lead.len()], vec![error]),
            None => match message.rsplit_once(": .") {
                // A converter's error without the object's name: `failed to convert new object: .spec.x: ...`.
                Some((lead, error)) if error.ends_with(UNDECLARED) => (lead, vec![error]),
                _ => (message, Vec::new()),
            },
        },
    };
    if errors.iter().any(|e| e.ends_with(UNDECLARED)) {
        return format!("{lead}\n*{UNDECLARED}");
    }
    let mut lines: Vec<&str> = errors;
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
