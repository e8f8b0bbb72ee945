//! Witnesses: objects OLD accepts that show what NEW does with them. A witness starts from the
//! smallest object OLD accepts, puts one candidate value at the changed node, and is taken as
//! OLD stores it (defaulted, pruned); NEW then answers its create, its no-op update, and an
//! update that edits the nearest field beside the changed one. The class is read from the
//! answers; only where no candidate shows anything does the keyword's direction decide.

use serde_json::{Map, Value, json};

use super::diff::{Found, Step};
use super::{Class, Witness};
use crate::dynamic::crd::{Crd, CrdVersion};
use crate::dynamic::validate::{Outcome, ResourceValidator};
use crate::schema::Schema;

/// How deep `sample` builds before it gives up on required fields (a recursive schema).
const MAX_DEPTH: usize = 12;
/// How many candidate values are tried at one node.
const MAX_CANDIDATES: usize = 160;

/// The class of one schema change, and its witness or why there is none.
pub fn classify(
    old: &Crd,
    old_version: &CrdVersion,
    new: &Crd,
    new_version: &CrdVersion,
    found: &Found<'_>,
) -> (Class, Result<Witness, String>) {
    let (old_v, new_v) = (ResourceValidator::new(old, old_version), ResourceValidator::new(new, new_version));
    let type_changed = found.keys.iter().any(|k| k == "type");
    // The base is an object both accept, so that what NEW refuses of a witness is the changed
    // node's doing, not another change's.
    let bases = [(old, old_version), (new, new_version)].map(|(crd, v)| base_object(crd, v));
    let (Some(from_old), Some(from_new)) = (&bases[0], &bases[1]) else {
        return (direction(found), Err("the version has no schema to build an object from".to_owned()));
    };
    let accepted = |o: &Value| old_v.validate_create(o).issues.is_empty() && new_v.validate_create(o).issues.is_empty();
    let tries = [merged(from_old, from_new), merged(from_new, from_old), from_old.clone(), from_new.clone()];
    let Some(base) = tries.iter().find(|b| accepted(b)).cloned() else {
        let issues = old_v.validate_create(from_old).issues;
        let why = match issues.first() {
            Some(first) => format!("no object OLD accepts could be built: {first}"),
            None => {
                let first = new_v.validate_create(from_old).issues.first().map(ToString::to_string).unwrap_or_default();
                format!("no object both OLD and NEW accept could be built: {first}")
            }
        };
        return (direction(found), Err(why));
    };
    // NEW with this node's own keywords as OLD had them: what NEW also does there is another
    // change's doing (a child's bound, a sibling's rule), not this one's.
    let reverted = reverted(old, new, found);
    let reverted_v = reverted.as_ref().and_then(|c| Some(ResourceValidator::new(c, c.version(&new_version.name)?)));
    let mut tried = 0;
    for candidate in candidates(found.old, found.new).into_iter().take(MAX_CANDIDATES) {
        let schemas = [old_version.schema.as_ref(), new_version.schema.as_ref()];
        let Some(object) = placed(&base, &found.steps, candidate, schemas) else { continue };
        tried += 1;
        let stored = old_v.validate_create_owned(object);
        if !stored.issues.is_empty() {
            continue;
        }
        // OLD's create already defaulted and pruned it: read back by OLD it is itself.
        let stored = stored.object;
        let created = new_v.validate_create(&stored);
        if created.issues.is_empty() && created.object == stored && created.pruned.is_empty() {
            continue;
        }
        if let Some(without) = &reverted_v {
            let other = without.validate_create(&stored);
            let same_refusal = !created.issues.is_empty() && !other.issues.is_empty();
            let same_change =
                created.issues.is_empty() && other.object == created.object && other.pruned == created.pruned;
            if same_refusal || same_change {
                continue;
            }
        }
        let witness = answers(&new_v, &stored, &created, found, new_version.schema.as_ref());
        let class = if type_changed || !witness.pruned.is_empty() || created.issues.is_empty() {
            // Refused for its type, pruned, or stored changed by NEW's defaults.
            Class::DropsData
        } else if !witness.edit.1.is_empty() {
            Class::BlocksUpdates
        } else {
            Class::Tightens
        };
        return (class, Ok(witness));
    }
    let class = direction(found);
    let why = match class {
        Class::Compatible => format!("none needed: no object OLD accepts is refused or changed by NEW ({tried} tried)"),
        Class::BreaksClients => {
            "none needed: every value OLD accepts passes, but NEW also admits values of another type, which clients typed for OLD's cannot read".to_owned()
        }
        _ => format!("none built: no candidate of {tried} shows it; the keyword's direction says so"),
    };
    (class, Err(why))
}

/// NEW with the changed node's own keywords put back as OLD had them (its children as NEW has
/// them), for a node both have.
fn reverted(old: &Crd, new: &Crd, found: &Found<'_>) -> Option<Crd> {
    let (o, n) = (found.old?, found.new?);
    let mut raw = new.raw().into_owned();
    let before = old.raw_at(&o.pointer)?;
    let before = before.as_object()?;
    let node = raw.pointer_mut(&n.pointer)?.as_object_mut()?;
    let is_child = |key: &str, v: &Value| {
        matches!(key, "properties" | "items") || (key == "additionalProperties" && v.is_object())
    };
    let children: Map<String, Value> =
        node.iter().filter(|(k, v)| is_child(k, v)).map(|(k, v)| (k.clone(), v.clone())).collect();
    node.clear();
    node.extend(before.iter().filter(|(k, v)| !is_child(k, v)).map(|(k, v)| (k.clone(), v.clone())));
    node.extend(children);
    Some(Crd::parse(&raw).0)
}

/// NEW's answers for a stored object.
fn answers(
    new_v: &ResourceValidator<'_>,
    stored: &Value,
    created: &Outcome,
    found: &Found<'_>,
    schema: Option<&Schema>,
) -> Witness {
    let messages = |o: &Outcome| o.issues.iter().map(ToString::to_string).collect::<Vec<_>>();
    let no_op = new_v.validate_update(stored, stored);
    // The names NEW newly requires are the violation, not an edit beside it.
    let newly_required: Vec<String> = match (found.old, found.new) {
        (Some(o), Some(n)) => n.required.iter().filter(|r| !o.required.contains(r)).cloned().collect(),
        _ => Vec::new(),
    };
    let (field, edited) = edit_beside(stored, &found.steps, schema, &newly_required);
    let edit = new_v.validate_update(&edited, stored);
    Witness {
        object: stored.clone(),
        create: messages(created),
        no_op_update: messages(&no_op),
        edit: (field, messages(&edit)),
        edited,
        pruned: created.pruned.iter().map(crate::report::path::Path::field).collect(),
    }
}

/// The object with the nearest field beside the violating one edited: another property of the
/// changed node (a rule or `required` there judges the node again), else of each parent in
/// turn (set where it is absent), else a label.
fn edit_beside(stored: &Value, steps: &[Step], schema: Option<&Schema>, avoid: &[String]) -> (String, Value) {
    let schema_at = |n: usize| -> Option<&Schema> {
        let mut s = schema?;
        for step in &steps[..n] {
            s = child_schema(s, step)?;
        }
        Some(s)
    };
    for depth in (0..=steps.len()).rev() {
        let skipped = match steps.get(depth) {
            Some(Step::Property(name)) => Some(name.as_str()),
            Some(_) => continue,
            None => None,
        };
        let (Some(container), Some(at)) = (schema_at(depth), value_at(stored, &steps[..depth])) else { continue };
        let Some(object) = at.as_object() else { continue };
        for (name, child) in container.properties.iter() {
            let reserved = depth == 0 && matches!(name.as_str(), "apiVersion" | "kind" | "metadata");
            let avoided = depth == steps.len() && avoid.contains(name);
            if Some(name.as_str()) == skipped || reserved || avoided {
                continue;
            }
            // Only a property set where it is absent: removing one may remove the violation.
            if object.contains_key(name) {
                continue;
            }
            let mut edited = stored.clone();
            let Some(target) = value_at_mut(&mut edited, &steps[..depth]).and_then(Value::as_object_mut) else {
                continue;
            };
            target.insert(name.clone(), sample(child, 0));
            return (format!("{}.{name}", super::diff::field_path(&steps[..depth])), edited);
        }
    }
    let mut edited = stored.clone();
    if let Some(meta) = edited.get_mut("metadata").and_then(Value::as_object_mut) {
        let labels = meta.entry("labels").or_insert_with(|| json!({}));
        if let Some(labels) = labels.as_object_mut() {
            labels.insert("kubeskema.dev/edited".to_owned(), json!("true"));
        }
    }
    (".metadata.labels".to_owned(), edited)
}

fn value_at<'v>(v: &'v Value, steps: &[Step]) -> Option<&'v Value> {
    steps.iter().try_fold(v, |v, step| match step {
        Step::Property(name) => v.get(name),
        Step::Item => v.get(0),
        Step::Value => v.as_object()?.values().next(),
    })
}

fn value_at_mut<'v>(v: &'v mut Value, steps: &[Step]) -> Option<&'v mut Value> {
    steps.iter().try_fold(v, |v, step| match step {
        Step::Property(name) => v.get_mut(name),
        Step::Item => v.get_mut(0),
        Step::Value => v.as_object_mut()?.values_mut().next(),
    })
}

/// `a` with what `b` has and `a` lacks, object by object.
fn merged(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut out = x.clone();
            for (k, v) in y {
                let joined = match out.get(k) {
                    Some(mine) => merged(mine, v),
                    None => v.clone(),
                };
                out.insert(k.clone(), joined);
            }
            Value::Object(out)
        }
        _ => a.clone(),
    }
}

/// The smallest object of `version`: its `apiVersion`, `kind`, a name (and namespace), and
/// what the schema requires.
fn base_object(crd: &Crd, version: &CrdVersion) -> Option<Value> {
    let schema = version.schema.as_ref()?;
    let mut object = match sample(schema, 0) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    object.insert("apiVersion".to_owned(), json!(crate::dynamic::crd::api_version(&crd.group, &version.name)));
    object.insert("kind".to_owned(), json!(crd.names.kind));
    let mut metadata = json!({"name": "witness"});
    if crd.is_namespaced() {
        metadata["namespace"] = json!("default");
    }
    object.insert("metadata".to_owned(), metadata);
    Some(Value::Object(object))
}

/// `base` with `value` (`None`: nothing) at `steps`, its missing parents sampled from both
/// schemas (what either requires).
fn placed(base: &Value, steps: &[Step], value: Option<Value>, schemas: [Option<&Schema>; 2]) -> Option<Value> {
    let mut object = base.clone();
    let mut at = &mut object;
    let mut nodes = schemas;
    let Some((last, parents)) = steps.split_last() else { return value };
    for step in parents {
        nodes = nodes.map(|n| n.and_then(|s| child_schema(s, step)));
        at = enter(at, step, nodes)?;
    }
    match (last, value) {
        (Step::Property(name), None) => {
            at.as_object_mut()?.remove(name);
        }
        (_, None) => return None,
        (Step::Property(name), Some(v)) => {
            if !at.is_object() {
                *at = json!({});
            }
            at.as_object_mut()?.insert(name.clone(), v);
        }
        (Step::Item, Some(v)) => match at {
            Value::Array(items) if !items.is_empty() => items[0] = v,
            _ => *at = json!([v]),
        },
        (Step::Value, Some(v)) => {
            if !at.is_object() {
                *at = json!({});
            }
            at.as_object_mut()?.insert("witness".to_owned(), v);
        }
    }
    Some(object)
}

fn child_schema<'s>(s: &'s Schema, step: &Step) -> Option<&'s Schema> {
    match step {
        Step::Property(name) => s.properties.get(name),
        Step::Item => s.items.as_deref(),
        Step::Value => s.additional_properties_schema(),
    }
}

/// The value at `step` inside `at`, made (from both schemas' samples) where it is missing.
fn enter<'v>(at: &'v mut Value, step: &Step, schemas: [Option<&Schema>; 2]) -> Option<&'v mut Value> {
    let fresh = || match schemas.map(|s| s.map(|s| sample(s, 0))) {
        [Some(a), Some(b)] => merged(&a, &b),
        [Some(a), None] | [None, Some(a)] => a,
        [None, None] => json!({}),
    };
    match step {
        Step::Property(name) => {
            if !at.is_object() {
                *at = json!({});
            }
            let map = at.as_object_mut()?;
            Some(map.entry(name.clone()).or_insert_with(fresh))
        }
        Step::Item => {
            if !matches!(at, Value::Array(items) if !items.is_empty()) {
                *at = json!([fresh()]);
            }
            at.get_mut(0)
        }
        Step::Value => {
            if !at.is_object() {
                *at = json!({});
            }
            let map = at.as_object_mut()?;
            if map.is_empty() {
                map.insert("witness".to_owned(), fresh());
            }
            map.values_mut().next()
        }
    }
}

/// The smallest value `s` accepts, as far as its keywords say (its rules may still refuse it).
pub(crate) fn sample(s: &Schema, depth: usize) -> Value {
    if let Some(default) = &s.default {
        return default.clone();
    }
    if let Some(first) = s.enum_.as_ref().and_then(|e| e.first()) {
        return first.clone();
    }
    if s.embedded_resource {
        return json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "witness"}});
    }
    if s.int_or_string {
        return json!(1);
    }
    match s.type_.as_deref() {
        Some("object") | None if !s.properties.is_empty() || s.type_.is_some() => {
            let mut map = Map::new();
            if depth < MAX_DEPTH {
                for name in &s.required {
                    if let Some(child) = s.properties.get(name) {
                        map.insert(name.clone(), sample(child, depth + 1));
                    }
                }
                let wanted = s.min_properties().unwrap_or(0).max(0) as usize;
                for (name, child) in s.properties.iter() {
                    if map.len() >= wanted {
                        break;
                    }
                    map.entry(name.clone()).or_insert_with(|| sample(child, depth + 1));
                }
                let mut i = 0;
                while map.len() < wanted {
                    let value = s.additional_properties_schema().map_or(json!("a"), |v| sample(v, depth + 1));
                    map.insert(format!("k{i}"), value);
                    i += 1;
                }
            }
            Value::Object(map)
        }
        Some("array") => {
            let n = s.min_items.unwrap_or(0).max(0) as usize;
            let item = s.items.as_deref();
            let items = (0..n.min(16))
                .map(|i| match item.map(|it| sample(it, depth + 1)) {
                    // Distinct scalars, for sets.
                    Some(Value::String(text)) if i > 0 => json!(format!("{text}{i}")),
                    Some(Value::Number(x)) if i > 0 => json!(x.as_i64().unwrap_or(0) + i as i64),
                    Some(v) => v,
                    None => json!({}),
                })
                .collect();
            Value::Array(items)
        }
        Some("string") => {
            let text = s.format.as_deref().and_then(format_sample).unwrap_or("a").to_owned();
            let n = s.min_length.unwrap_or(0).max(0) as usize;
            if text.len() < n { json!("a".repeat(n)) } else { json!(text) }
        }
        Some("integer") => {
            let mut v = 0i64;
            if let Some(min) = s.minimum.as_ref().and_then(|m| m.as_f64()) {
                v = v.max(min.ceil() as i64 + i64::from(s.exclusive_minimum() && min.fract() == 0.0));
            }
            if let Some(max) = s.maximum.as_ref().and_then(|m| m.as_f64()) {
                v = v.min(max.floor() as i64 - i64::from(s.exclusive_maximum() && max.fract() == 0.0));
            }
            if let Some(m) = s.multiple_of().and_then(|m| m.as_i64()).filter(|m| *m > 0) {
                v = (v + m - 1).div_euclid(m) * m;
            }
            json!(v)
        }
        Some("number") => {
            let mut v = 0.0f64;
            if let Some(min) = s.minimum.as_ref().and_then(|m| m.as_f64()) {
                v = v.max(if s.exclusive_minimum() { min + 1.0 } else { min });
            }
            if let Some(max) = s.maximum.as_ref().and_then(|m| m.as_f64()) {
                v = v.min(if s.exclusive_maximum() { max - 1.0 } else { max });
            }
            json!(v)
        }
        Some("boolean") => json!(false),
        _ => json!({}),
    }
}

fn format_sample(format: &str) -> Option<&'static str> {
    Some(match format {
        "date-time" | "datetime" => "2006-01-02T15:04:05Z",
        "date" => "2006-01-02",
        "duration" => "1s",
        "uuid" | "uuid4" => "123e4567-e89b-42d3-a456-426614174000",
        "ipv4" => "10.0.0.1",
        "ipv6" => "::1",
        "cidr" => "10.0.0.0/8",
        "hostname" => "example.com",
        "email" => "a@example.com",
        "uri" => "https://example.com",
        "byte" => "YQ==",
        "mac" => "00:00:5e:00:53:01",
        "int-or-string" => "1",
        _ => return None,
    })
}

/// The values tried at a changed node, `None` for leaving a property out: each side's sample,
/// values at and just past every bound either side states, enum values and defaults, each JSON
/// type; for an object, each property through its own values. The node itself is never left
/// out: that is its parent's `required`, a change of the parent's.
fn candidates(old: Option<&Schema>, new: Option<&Schema>) -> Vec<Option<Value>> {
    let mut out: Vec<Option<Value>> = Vec::new();
    let mut push = |v: Value| {
        if !out.contains(&Some(v.clone())) {
            out.push(Some(v));
        }
    };
    for s in old.iter().chain(new.iter()) {
        push(sample(s, 0));
        for v in s.enum_.iter().flatten() {
            push(v.clone());
        }
        if let Some(d) = &s.default {
            push(d.clone());
        }
    }
    let sides: Vec<&Schema> = old.iter().chain(new.iter()).copied().collect();
    let mut lengths = vec![0i64, 1, 2, 3, 5, 8, 16, 63, 64, 65, 253, 254, 256];
    let mut counts = vec![0i64, 1, 2, 3];
    let mut numbers = vec![0.0f64, 1.0, -1.0, 2.0, 3.0, 5.0, 10.0, 100.0, 1.5];
    for s in &sides {
        for bound in [s.min_length, s.max_length].into_iter().flatten() {
            lengths.extend([bound - 1, bound, bound + 1]);
        }
        for bound in [s.min_items, s.max_items, s.min_properties(), s.max_properties()].into_iter().flatten() {
            counts.extend([bound - 1, bound, bound + 1]);
        }
        for bound in
            [s.minimum.as_ref(), s.maximum.as_ref(), s.multiple_of()].into_iter().flatten().filter_map(|n| n.as_f64())
        {
            numbers.extend([bound - 1.0, bound, bound + 1.0, bound * 2.0, bound + 0.5]);
        }
    }
    lengths.retain(|n| (0..=4096).contains(n));
    lengths.sort_unstable();
    lengths.dedup();
    counts.retain(|n| (0..=64).contains(n));
    counts.sort_unstable();
    counts.dedup();
    for n in &lengths {
        push(json!("a".repeat(*n as usize)));
    }
    for text in
        ["a", "A", "0", "-", "a-b", "a.b", "a_b", "a b", "A1", "abc", "example.com", "https://example.com", "", "null"]
    {
        push(json!(text));
    }
    for f in ["date-time", "date", "duration", "uuid", "ipv4", "ipv6", "cidr", "email", "byte"] {
        push(json!(format_sample(f).unwrap_or_default()));
    }
    for x in numbers {
        if x.fract() == 0.0 && x.abs() < 9.0e15 {
            push(json!(x as i64));
        }
        push(json!(x));
    }
    push(json!(true));
    push(json!(false));
    push(Value::Null);
    for s in &sides {
        let item = s.items.as_deref().map_or(json!("a"), |i| sample(i, 0));
        for n in &counts {
            let n = *n as usize;
            push(Value::Array(vec![item.clone(); n]));
            push(Value::Array(
                (0..n)
                    .map(|i| match &item {
                        Value::String(t) => json!(format!("{t}{i}")),
                        Value::Number(x) => json!(x.as_i64().unwrap_or(0) + i as i64),
                        other => other.clone(),
                    })
                    .collect(),
            ));
        }
        let value = s.additional_properties_schema().map_or(json!("a"), |v| sample(v, 0));
        for n in &counts {
            push(Value::Object((0..*n).map(|i| (format!("k{i}"), value.clone())).collect()));
        }
        let mut every = match sample(s, 0) {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        for (name, child) in s.properties.iter() {
            every.entry(name.clone()).or_insert_with(|| sample(child, 1));
            let mut one = match sample(s, 0) {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            one.insert(name.clone(), sample(child, 1));
            push(Value::Object(one));
        }
        push(Value::Object(every));
    }
    // An object's rules and keywords read its properties: each property through its own
    // values, one at a time (not deeper: the changed node's children are changes of their own).
    if let Some(s) = new.or(old).filter(|s| !s.properties.is_empty()) {
        let base = match sample(s, 0) {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        for (name, child) in s.properties.iter().take(16) {
            for value in leaf_candidates(child) {
                let mut one = base.clone();
                match value {
                    Some(v) => one.insert(name.clone(), v),
                    None => one.remove(name),
                };
                push(Value::Object(one));
            }
        }
    }
    out
}

/// A few values of a property's own kind, for the object holding it: its sample, values past
/// its bounds, and the commonest words.
fn leaf_candidates(s: &Schema) -> Vec<Option<Value>> {
    let mut out = vec![None, Some(sample(s, 1))];
    let n = |x: &Option<i64>| x.unwrap_or(0).clamp(0, 4096) as usize;
    match s.type_.as_deref() {
        Some("string") => {
            for len in [0, 1, 4, 8, 64, 254, n(&s.max_length) + 1] {
                out.push(Some(json!("a".repeat(len))));
            }
            out.extend(["A", "0", "a-b", "a.b", "-"].map(|t| Some(json!(t))));
        }
        Some("integer" | "number") => out.extend([-1, 0, 1, 2, 3, 10, 100, 1000].map(|x| Some(json!(x)))),
        Some("boolean") => out.extend([Some(json!(true)), Some(json!(false))]),
        Some("array") => {
            let item = s.items.as_deref().map_or(json!("a"), |i| sample(i, 1));
            for len in [0, 1, 2, 3, n(&s.max_items) + 1] {
                out.push(Some(Value::Array(vec![item.clone(); len.min(64)])));
            }
        }
        _ => {}
    }
    for v in s.enum_.iter().flatten() {
        out.push(Some(v.clone()));
    }
    out
}

/// Where no witness shows the change: whether its keywords could refuse what OLD accepts.
fn direction(found: &Found<'_>) -> Class {
    let (Some(old), Some(new)) = (found.old, found.new) else {
        // Added: only its parent's keywords refuse; removed: pruning, shown by a witness.
        return Class::Compatible;
    };
    let tighter = |k: &str| -> bool {
        let f = |n: &Option<serde_json::Number>| n.as_ref().and_then(serde_json::Number::as_f64);
        match k {
            "type" => true,
            // Kept unknown fields are pruned once it goes; a node that starts keeping them loosens.
            "x-kubernetes-preserve-unknown-fields" => {
                old.preserve_unknown_fields == Some(true) && new.preserve_unknown_fields != Some(true)
            }
            "minimum" => f(&new.minimum) > f(&old.minimum),
            "maximum" => f(&old.maximum).is_none() || f(&new.maximum).is_some_and(|n| Some(n) < f(&old.maximum)),
            "exclusiveMinimum" => new.exclusive_minimum() && !old.exclusive_minimum(),
            "exclusiveMaximum" => new.exclusive_maximum() && !old.exclusive_maximum(),
            "minLength" => new.min_length > old.min_length,
            "minItems" => new.min_items > old.min_items,
            "minProperties" => new.min_properties() > old.min_properties(),
            "maxLength" => tighter_max(old.max_length, new.max_length),
            "maxItems" => tighter_max(old.max_items, new.max_items),
            "maxProperties" => tighter_max(old.max_properties(), new.max_properties()),
            "enum" => {
                new.enum_.as_ref().is_some_and(|n| old.enum_.as_ref().is_none_or(|o| o.iter().any(|v| !n.contains(v))))
            }
            "required" => new.required.iter().any(|r| !old.required.contains(r)),
            "nullable" => old.nullable && !new.nullable,
            "x-kubernetes-validations" => {
                new.validations.iter().any(|n| !old.validations.iter().any(|o| o.rule == n.rule))
            }
            "x-kubernetes-list-type" => {
                matches!(new.list_type.as_deref(), Some("set" | "map"))
            }
            // Unique by more keys is unique by fewer refused less.
            "x-kubernetes-list-map-keys" => old.list_map_keys.iter().any(|k| !new.list_map_keys.contains(k)),
            // Who owns what under server-side apply; no value is refused.
            "x-kubernetes-map-type" => false,
            "description" | "title" | "example" | "externalDocs" | "default" => false,
            // pattern, format, multipleOf, junctors, map keys and the other extensions
            _ => true,
        }
    };
    // A string or integer made int-or-string: every stored value still passes, but the other
    // type is now written, and a client typed for OLD's cannot read it.
    if new.int_or_string && !old.int_or_string {
        return Class::BreaksClients;
    }
    if found.keys.iter().any(|k| tighter(k)) { Class::Tightens } else { Class::Compatible }
}

fn tighter_max(old: Option<i64>, new: Option<i64>) -> bool {
    match (old, new) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(o), Some(n)) => n < o,
    }
}
