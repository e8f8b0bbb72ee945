//! Server-side apply over the corpus, on the dynamic path (the CRD's schema and JSON, no
//! generated code): for every instance whose CRD version is in the corpus,
//! - applying it as M to what applying it once as M stored changes nothing: the same object and
//!   M's same entry;
//! - applying it with one item of a `map` list changed changes exactly that item;
//! - two managers applying disjoint halves of its `spec` never conflict.
//!
//! Instances the apiserver would refuse to apply (a field the schema does not declare, a
//! duplicate key: upstream's invalid examples mostly) are counted by reason, not tested.

use std::collections::BTreeMap;

use kubeskema::apply::{ApplyError, Options, Resource, Subresource};
use kubeskema::schema::Schema;
use kubeskema_tests::{CorpusCrds, CorpusDocuments, instances};
use serde_json::{Map, Value};

const NOW: &str = "2026-01-01T00:00:00Z";
const LATER: &str = "2026-01-02T00:00:00Z";

fn options(manager: &'static str, now: &'static str) -> Options<'static> {
    Options { manager, force: false, now, subresource: Subresource::Main }
}

/// The object with apiVersion, kind and a name, as a request carries them.
fn as_applied(value: &Value, api_version: &str, kind: &str) -> Option<Value> {
    let mut object = value.as_object()?.clone();
    object.insert("apiVersion".into(), api_version.into());
    object.insert("kind".into(), kind.into());
    let meta = object.entry("metadata").or_insert_with(|| Value::Object(Map::new())).as_object_mut()?;
    meta.entry("name").or_insert_with(|| "corpus".into());
    meta.remove("managedFields");
    Some(Value::Object(object))
}

/// The JSON pointer of the first item of a `map` list in `value`, and the name of a string
/// field of it that is not a key (the field to change).
fn map_list_item(schema: &Schema, value: &Value, pointer: String) -> Option<(String, String)> {
    match value {
        Value::Object(map) => map.iter().find_map(|(key, v)| {
            let child = schema.schema_of_key(key)?;
            map_list_item(child, v, format!("{pointer}/{}", kubeskema::path::escape_token(key)))
        }),
        Value::Array(items) => {
            let item_schema = schema.items.as_deref()?;
            if schema.list_type.as_deref() == Some("map")
                && let Some(Value::Object(first)) = items.first()
            {
                let field = first.iter().find_map(|(k, v)| {
                    (v.is_string() && !schema.list_map_keys.contains(k) && item_schema.properties.contains_key(k))
                        .then(|| k.clone())
                });
                if let Some(field) = field {
                    return Some((format!("{pointer}/0"), field));
                }
            }
            items.iter().enumerate().find_map(|(i, v)| map_list_item(item_schema, v, format!("{pointer}/{i}")))
        }
        _ => None,
    }
}

fn without_times(mut object: Value) -> Value {
    if let Some(Value::Array(entries)) = object.pointer_mut("/metadata/managedFields") {
        for e in entries {
            e.as_object_mut().map(|e| e.remove("time"));
        }
    }
    object
}

#[test]
fn corpus_instances_apply_idempotently_item_by_item_and_without_conflicts_between_halves() {
    let mut crds = CorpusCrds::default();
    let mut docs = CorpusDocuments::default();
    let mut refused: BTreeMap<String, usize> = BTreeMap::new();
    let (mut applied, mut items, mut halves) = (0, 0, 0);
    let mut failures = Vec::new();
    for inst in instances() {
        let Some((crd, version)) = crds.version_of(&inst) else { continue };
        let Some(resource) = Resource::new(crd, &version.name) else { continue };
        let at = format!("{}#{}", inst.file, inst.doc_index);
        let Some(config) = as_applied(&docs.value_of(&inst), &inst.api_version, &inst.kind) else { continue };
        let first = match resource.apply(None, &config, &options("m", NOW)) {
            Ok(object) => object,
            Err(ApplyError::Invalid(message)) => {
                let reason = message.rsplit(": ").next().unwrap_or_default();
                let reason =
                    if reason.starts_with("duplicate entries") { "duplicate entries for a key" } else { reason };
                *refused.entry(reason.chars().take(60).collect()).or_default() += 1;
                continue;
            }
            Err(e) => panic!("{at}: a create conflicts: {e}"),
        };
        applied += 1;

        // Applied again: nothing changes, M's entry included, but its time: where the stored
        // object holds defaults inside an atomic list or map, the configuration (without them)
        // replaces it and the apiserver stamps the entry anew (recorded: gateway-api's routes).
        match resource.apply(Some(&first), &config, &options("m", LATER)) {
            Ok(again) if without_times(again.clone()) == without_times(first.clone()) => {}
            other => failures.push(format!("{at}: applied twice, the object changed: {other:?}")),
        }

        // One list-map item changed: exactly it changes.
        let schema = version.schema.as_ref().expect("a served version has a schema");
        if let Some((pointer, field)) = map_list_item(schema, &config, String::new()) {
            items += 1;
            let mut changed = config.clone();
            let target = changed.pointer_mut(&format!("{pointer}/{field}")).expect("the field is there");
            *target = Value::String(format!("{}-changed", target.as_str().unwrap_or_default()));
            match resource.apply(Some(&first), &changed, &options("m", LATER)) {
                Ok(result) => {
                    let (mut a, mut b) = (without_times(result.clone()), without_times(first.clone()));
                    let item = result.pointer(&pointer).cloned();
                    let was = first.pointer(&pointer).cloned();
                    *a.pointer_mut(&pointer).unwrap() = Value::Null;
                    *b.pointer_mut(&pointer).unwrap() = Value::Null;
                    let want = changed.pointer(&format!("{pointer}/{field}"));
                    if a != b || item == was || item.as_ref().and_then(|i| i.get(&field)) != want {
                        failures.push(format!("{at}: changing {pointer}/{field} changed more or less than the item"));
                    }
                }
                Err(e) => failures.push(format!("{at}: changing {pointer}/{field}: {e}")),
            }
        }

        // Two managers, disjoint halves of spec: no conflict, in either order. (A spec with
        // `x-kubernetes-map-type: atomic`, as argo-workflows' CRDs write it, is one field: the
        // apiserver has the halves conflict, recorded for cron-when.yaml.)
        let atomic_spec = schema.properties.get("spec").is_some_and(|s| s.map_type() == Some("atomic"));
        if let Some(Value::Object(spec)) = config.get("spec").filter(|_| !atomic_spec)
            && spec.len() >= 2
        {
            halves += 1;
            let keys: Vec<&String> = spec.keys().collect();
            let (left, right) = keys.split_at(keys.len() / 2);
            let half = |keys: &[&String]| {
                let mut part = config.clone();
                part["spec"] = Value::Object(keys.iter().map(|k| ((*k).clone(), spec[*k].clone())).collect());
                part
            };
            let (a, b) = (half(left), half(right));
            let both = resource
                .apply(None, &a, &options("a", NOW))
                .and_then(|after_a| resource.apply(Some(&after_a), &b, &options("b", NOW)))
                .and_then(|after_b| resource.apply(Some(&after_b), &a, &options("a", LATER)));
            if let Err(e) = both {
                failures.push(format!("{at}: disjoint halves of spec conflict: {e}"));
            }
        }
    }
    eprintln!(
        "apply over the corpus: {applied} instances applied (each twice), {items} with a map-list item changed, {halves} split between two managers; refused as the apiserver would: {refused:?}"
    );
    assert!(applied > 1_000, "only {applied} corpus instances applied");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// Every corpus instance's applies (`kubeskema_tests::apply_corpus`: three, five where the CRD
/// has another version, and one over a malformed live object) give what kube-apiserver 1.36.3
/// gave, recorded as fingerprints in
/// `fixtures/apply/corpus.tsv`.
/// Re-record: `ORACLE_BIN=... cargo run --release -p kubeskema-tests --bin apply-corpus-record`.
#[test]
fn corpus_applies_are_the_apiservers() {
    use kubeskema_tests::apply_corpus::{canonical_ours, configurations, fingerprint};
    let text =
        std::fs::read_to_string(kubeskema_tests::repo_dir().join("fixtures/apply/corpus.tsv")).expect("corpus.tsv");
    let recorded: BTreeMap<(String, usize), Vec<String>> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            ((cols[0].to_owned(), cols[1].parse().unwrap()), cols[2..].iter().map(|s| (*s).to_owned()).collect())
        })
        .collect();
    let mut crds = CorpusCrds::default();
    let mut docs = CorpusDocuments::default();
    let (mut compared, mut other_versions, mut malformed, mut differ) = (0, 0, 0, Vec::new());
    for inst in instances() {
        let Some(want) = recorded.get(&(inst.file.clone(), inst.doc_index)) else { continue };
        let (crd, version) = crds.version_of(&inst).expect("a recorded instance's CRD is in the corpus");
        let steps = configurations(&docs.value_of(&inst), &inst, crd).expect("an object");
        assert_eq!(
            steps.len(),
            want.len(),
            "{}#{}: the steps recorded are not the steps made",
            inst.file,
            inst.doc_index
        );
        let mut live: Option<Value> = None;
        for (i, (step, want)) in steps.iter().zip(want).enumerate() {
            if want == "-" {
                break;
            }
            let ours = step.ours(crd, live.as_ref());
            compared += 1;
            other_versions += usize::from(step.version != version.name);
            malformed += usize::from(step.live.is_some());
            if fingerprint(&canonical_ours(&ours)) != *want {
                differ.push(format!(
                    "{}#{} step {}: {}",
                    inst.file,
                    inst.doc_index,
                    i + 1,
                    ours.as_ref().err().map_or("the object differs".into(), ToString::to_string)
                ));
                break;
            }
            live = ours.ok();
            if live.is_none() {
                break;
            }
        }
    }
    eprintln!(
        "apply over the corpus against the apiserver: {compared} applies compared ({other_versions} at another version than the instance's, {malformed} over a malformed live object), {} differ",
        differ.len()
    );
    assert!(compared > 8_000, "only {compared} applies compared");
    assert!(other_versions > 1_000 && malformed > 1_000, "{other_versions} at another version, {malformed} malformed");
    assert!(differ.is_empty(), "{} differ:\n{}", differ.len(), differ.join("\n"));
}
