//! Derived and dynamic validation agree: for every corpus instance, and for mutated copies of
//! the `valid` ones (a changed type, a dropped required field, a broken bound, a duplicated
//! list-map key or set item, a property, map value or list item written `null`, an unknown
//! field, untidy metadata, ...), the generated type's `Validate` reports the same issues as
//! the dynamic create pipeline, and a mutated copy's update from the original ratchets alike
//! (`validate_update`: only the mutated place may report). Issues compare as multisets: the
//! apiserver's order across sibling properties follows a Go map and is not stable either.
//!
//! A value of the wrong type does not deserialize into a generated type at all (the
//! validating deserializer that records the issue instead is the streaming layer's work);
//! then the dynamic side must report an issue too.
//!
//! The same objects are the differential test of CEL compiled to Rust: each typed value's
//! rules run natively and interpreted, and must give the same issues and warnings.
//!
//! Heavy (it compiles every corpus CRD): `cargo test -p kubeskema-tests --features corpus
//! --test corpus agree:: -- --nocapture`.

use kubeskema::schema::Schema;
use kubeskema::validate::ResourceValidator;
use serde_json::{Value, json};

use kubeskema_tests::generated::typed;

/// At most this many mutated copies of one instance, spread over its candidate places.
const MUTATIONS_PER_INSTANCE: usize = 24;

/// A mutated copy: what was done, and the object.
struct Mutation {
    what: String,
    object: Value,
}

/// Every single-place mutation of `object` that the schema makes meaningful.
fn mutations(object: &Value, schema: &Schema) -> Vec<Mutation> {
    let mut places = Vec::new();
    walk(object, schema, String::new(), &mut places);
    places
        .into_iter()
        .filter_map(|(pointer, what, change)| {
            let mut copy = object.clone();
            apply(&mut copy, &pointer, change)?;
            Some(Mutation { what: format!("{what} at {pointer}"), object: copy })
        })
        .collect()
}

/// What to do at one place.
enum Change {
    Replace(Value),
    Remove(String),
    Push(Value),
    Insert(String, Value),
    /// Metadata as a client may write it and the decoder normalizes it away: an empty label
    /// map, a `null` timestamp, a key `ObjectMeta` does not have.
    Untidy,
}

fn apply(root: &mut Value, pointer: &str, change: Change) -> Option<()> {
    let target = root.pointer_mut(pointer)?;
    match change {
        Change::Replace(v) => *target = v,
        Change::Remove(key) => {
            target.as_object_mut()?.remove(&key)?;
        }
        Change::Push(v) => target.as_array_mut()?.push(v),
        Change::Insert(key, v) => {
            target.as_object_mut()?.insert(key, v);
        }
        Change::Untidy => {
            let meta = target.as_object_mut()?;
            meta.entry("labels").or_insert_with(|| json!({}));
            meta.insert("creationTimestamp".into(), Value::Null);
            meta.insert("kubeskemaUnknown".into(), json!("x"));
        }
    }
    Some(())
}

fn escape(key: &str) -> String {
    kubeskema::path::escape_token(key).into_owned()
}

fn walk(v: &Value, s: &Schema, pointer: String, out: &mut Vec<(String, &'static str, Change)>) {
    let here = |what, change| (pointer.clone(), what, change);
    // A value of another type.
    let other = match (s.type_str(), s.int_or_string) {
        (_, true) => Some(json!(true)),
        (Some("string"), _) => Some(json!(12345)),
        (Some("integer" | "number"), _) => Some(json!("12")),
        (Some("boolean"), _) => Some(json!("yes")),
        (Some("array"), _) => Some(json!({"not": "a list"})),
        (Some("object"), _) if !pointer.is_empty() && !pointer.ends_with("/metadata") => Some(json!(["not an object"])),
        _ => None,
    };
    if let Some(o) = other {
        out.push(here("another type", Change::Replace(o)));
    }
    if s.enum_.is_some() {
        out.push(here("a value outside the enum", Change::Replace(json!("not-in-the-enum"))));
    }
    match v {
        Value::String(text) => {
            if let Some(max) = s.max_length.filter(|m| (0..4096).contains(m)) {
                out.push(here("too long", Change::Replace(json!("a".repeat(max as usize + 1)))));
            }
            if s.min_length.is_some_and(|m| m > 0) {
                out.push(here("too short", Change::Replace(json!(""))));
            }
            if s.pattern.is_some() {
                out.push(here("against the pattern", Change::Replace(json!(format!("{text} \u{1}!")))));
            }
            if s.format.is_some() {
                out.push(here("against the format", Change::Replace(json!("%not a formatted value%"))));
            }
        }
        Value::Number(_) => {
            let integer = s.type_str() == Some("integer");
            let beyond = |bound: &serde_json::Number, step: f64| {
                let b = bound.as_f64().unwrap_or_default() + step;
                if integer { json!(b.round() as i64) } else { json!(b) }
            };
            if let Some(max) = &s.maximum {
                out.push(here("above the maximum", Change::Replace(beyond(max, 1.0))));
            }
            if let Some(min) = &s.minimum {
                out.push(here("below the minimum", Change::Replace(beyond(min, -1.0))));
            }
            if s.multiple_of().is_some() {
                out.push(here("not a multiple", Change::Replace(json!(7)))); // most factors do not divide 7
            }
        }
        Value::Array(items) => {
            if let (Some(max), Some(first)) = (s.max_items.filter(|m| (0..512).contains(m)), items.first()) {
                let mut more = items.clone();
                more.resize(max as usize + 1, first.clone());
                out.push(here("too many items", Change::Replace(Value::Array(more))));
            }
            if s.min_items.is_some_and(|m| m > 0) {
                out.push(here("too few items", Change::Replace(json!([]))));
            }
            if let (Some("map" | "set"), Some(first)) = (s.list_type.as_deref(), items.first()) {
                out.push(here("a duplicated list item", Change::Push(first.clone())));
            }
            if let Some(item_schema) = s.items.as_deref() {
                // A list item written `null` (a type error unless the items are nullable).
                if items.first().is_some_and(|first| !first.is_null()) {
                    out.push((format!("{pointer}/0"), "a null item", Change::Replace(Value::Null)));
                }
                for (i, item) in items.iter().enumerate() {
                    walk(item, item_schema, format!("{pointer}/{i}"), out);
                }
            }
        }
        Value::Object(map) => {
            // A field the schema does not know (pruning); an object's own metadata untidied.
            if !s.preserves_unknown_fields() && s.additional_properties.is_none() {
                out.push(here("an unknown field", Change::Insert("kubeskemaUnknown".into(), json!({"a": null}))));
            }
            if pointer.is_empty() && map.get("metadata").is_some_and(Value::is_object) {
                out.push(("/metadata".to_owned(), "untidy metadata", Change::Untidy));
            }
            for r in s.required.iter().filter(|r| map.contains_key(*r)) {
                out.push(here("a required field dropped", Change::Remove(r.clone())));
            }
            if let Some(max) = s.max_properties().filter(|m| (0..512).contains(m)) {
                let mut more = map.clone();
                for i in 0..=max {
                    more.insert(format!("extra-{i}"), json!("x"));
                }
                out.push(here("too many properties", Change::Replace(Value::Object(more))));
            }
            for (k, child) in map {
                let Some(child_schema) = s.schema_of_key(k) else { continue };
                let place = format!("{pointer}/{}", escape(k));
                // A property or a map value written `null` (null pruning, defaults of nulls,
                // nullable fields and map values).
                if !child.is_null() {
                    out.push((place.clone(), "a null", Change::Replace(Value::Null)));
                }
                walk(child, child_schema, place, out);
            }
        }
        _ => {}
    }
}

/// The issues as sorted strings.
fn sorted(mut issues: Vec<String>) -> Vec<String> {
    issues.sort();
    issues
}

/// The dynamic pipeline's issues that the generated types also check: the scale subresource's
/// replica checks run in the dynamic pipeline only (generated types carry `SCALE` as data and
/// do not check it yet), so they are left out of the comparison.
fn dynamic_issues(issues: Vec<kubeskema::issue::Issue>) -> Vec<String> {
    issues.iter().filter(|i| i.keyword != "scale").map(ToString::to_string).collect()
}

/// One comparison on create (and on update from `old`, when given); `Err` describes a
/// disagreement.
fn compare(repo: &str, validator: &ResourceValidator, object: &Value, old: Option<&Value>) -> Result<bool, String> {
    let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or_default();
    let dynamic = sorted(dynamic_issues(validator.validate_create(object).issues));
    match typed(repo, api_version, kind, object.clone(), old.cloned()) {
        None => Ok(false),
        Some(Ok(t)) => {
            // The rules compiled to Rust against the interpreter, on create and update, run
            // whatever else is wrong with the object (the pipeline would skip them).
            if let Some(difference) = t.cel_differences.first() {
                return Err(format!("native and interpreted CEL differ:\n{difference}"));
            }
            // Where plain serde reads the object too, the validating read finds nothing more
            // while decoding, and its issues are `validate()`'s in `validate()`'s order: the
            // apiserver's order, however the read comes by them.
            if t.decoded != t.issues && sorted(t.decoded.clone()) == sorted(t.issues.clone()) {
                return Err(format!("the validating read's order: {:?}\n      validate()'s {:?}", t.decoded, t.issues));
            }
            let derived = sorted(t.issues);
            if derived != dynamic {
                return Err(format!("on create: derived {derived:?}\n      dynamic {dynamic:?}"));
            }
            let decoded = sorted(t.decoded);
            if decoded != dynamic {
                return Err(format!("the validating read: {decoded:?}\n      dynamic {dynamic:?}"));
            }
            if let (Some(old), Some(update)) = (old, t.update_issues) {
                let update = sorted(update.map_err(|e| format!("the old object does not deserialize: {e}"))?);
                let dynamic = sorted(dynamic_issues(validator.validate_update(object, old).issues));
                if update != dynamic {
                    return Err(format!("on update: derived {update:?}\n      dynamic {dynamic:?}"));
                }
            }
            Ok(true)
        }
        Some(Err(e)) if dynamic.is_empty() => Err(format!("does not deserialize ({e}) but the apiserver accepts it")),
        // The validating read reports what it can: each of its issues is one the apiserver
        // reports too (it cannot validate what sits beside an unusable required field).
        Some(Err(e)) => match missing_from(&e.decoded, &dynamic) {
            _ if e.decoded.is_empty() => {
                Err(format!("does not deserialize ({e}) and the validating read says nothing"))
            }
            Some(extra) => Err(format!("the validating read reports {extra:?}\n      dynamic {dynamic:?}")),
            None => Ok(true),
        },
    }
}

/// The first of `issues` that `all` does not hold (as multisets).
fn missing_from(issues: &[String], all: &[String]) -> Option<String> {
    let mut left = all.to_vec();
    for i in issues {
        match left.iter().position(|a| a == i) {
            Some(at) => {
                left.swap_remove(at);
            }
            None => return Some(i.clone()),
        }
    }
    None
}

#[test]
fn derived_and_dynamic_validation_agree_over_the_corpus_and_its_mutations() {
    let (mut crds, mut docs) = (kubeskema_tests::CorpusCrds::default(), kubeskema_tests::CorpusDocuments::default());
    let (mut instances_checked, mut mutations_checked, mut disagreements) = (0, 0, Vec::new());
    for inst in kubeskema_tests::instances() {
        if !["valid", "invalid"].contains(&inst.expect.as_str()) {
            continue;
        }
        let Some((crd, version)) = crds.version_of(&inst) else { continue };
        let Some(schema) = version.schema.as_ref() else { continue };
        let validator = ResourceValidator::new(crd, version);
        let object = docs.value_of(&inst);
        let at = format!("{}#{}", inst.file, inst.doc_index);
        match compare(inst.repo(), &validator, &object, None) {
            Ok(true) => instances_checked += 1,
            Ok(false) => {}
            Err(e) => disagreements.push(format!("{at}: {e}")),
        }
        if inst.expect != "valid" || !validator.validate_create(&object).issues.is_empty() {
            continue;
        }
        let all = mutations(&object, schema);
        let step = all.len().div_ceil(MUTATIONS_PER_INSTANCE).max(1);
        for m in all.into_iter().step_by(step) {
            match compare(inst.repo(), &validator, &m.object, Some(&object)) {
                Ok(true) => mutations_checked += 1,
                Ok(false) => {}
                Err(e) => disagreements.push(format!("{at} with {}: {e}", m.what)),
            }
        }
    }
    println!(
        "derive and dynamic agree on {instances_checked} instances and {mutations_checked} mutated copies; {} disagreements",
        disagreements.len()
    );
    for d in &disagreements {
        println!("  {d}");
    }
    assert!(disagreements.is_empty(), "{} disagreements", disagreements.len());
    assert!(instances_checked > 1400 && mutations_checked > 10_000, "too little was compared");
}
