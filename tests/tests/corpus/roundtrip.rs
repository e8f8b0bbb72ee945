//! Every corpus instance labelled `valid` deserializes into its generated type and
//! serializes back to what the apiserver would store: the input after its metadata
//! normalization, pruning, null pruning and defaulting (unknown data under
//! `x-kubernetes-preserve-unknown-fields` kept). Instances the apiserver refuses (see
//! `validate.rs`) are reported, not failures.
//!
//! Heavy (it compiles every corpus CRD): `cargo test -p kubeskema-tests --features corpus
//! --test corpus roundtrip:: -- --nocapture`.

use kubeskema::validate::ResourceValidator;
use serde_json::Value;

use kubeskema_tests::generated::typed;

/// JSON equality where numbers compare by value (`1` equals `1.0`): a `number` field is an
/// `f64` and writes `1.0` where the input said `1`, which the apiserver would store as `1`.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The first place two values differ, for the failure report.
fn first_difference(a: &Value, b: &Value, path: &str) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                match (x.get(k), y.get(k)) {
                    (Some(v), Some(w)) if !same(v, w) => {
                        return first_difference(v, w, &format!("{path}.{k}"));
                    }
                    (Some(v), None) => {
                        return format!("{path}.{k}: expected {v}, missing after the round trip");
                    }
                    (None, Some(w)) => {
                        return format!("{path}.{k}: not expected, round trip wrote {w}");
                    }
                    _ => {}
                }
            }
            format!("{path}: differs")
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if !same(v, w) {
                    return first_difference(v, w, &format!("{path}[{i}]"));
                }
            }
            format!("{path}: differs")
        }
        _ => format!("{path}: expected {a}, got {b}"),
    }
}

#[test]
fn valid_instances_round_trip_through_their_generated_types() {
    let (mut crds, mut docs) = (kubeskema_tests::CorpusCrds::default(), kubeskema_tests::CorpusDocuments::default());
    let (mut passed, mut failed, mut no_type, mut refused) = (0, Vec::new(), Vec::new(), Vec::new());
    for inst in kubeskema_tests::instances().into_iter().filter(|i| i.expect == "valid") {
        let Some((crd, crd_version)) = crds.version_of(&inst) else {
            no_type.push(format!("{}#{}: no schema for {} {}", inst.file, inst.doc_index, inst.api_version, inst.kind));
            continue;
        };
        let input = docs.value_of(&inst);
        // The apiserver's own verdict and the object it would store, from the runtime's
        // create pipeline: an instance it refuses is an upstream mistake, not a type's fault.
        let verdict = ResourceValidator::new(crd, crd_version).validate_create(&input);
        let expected = verdict.object;
        let outcome = typed(inst.repo(), &inst.api_version, &inst.kind, input, None).map(|r| r.map(|t| t.stored));
        if !verdict.issues.is_empty() && !matches!(&outcome, Some(Ok(actual)) if same(&expected, actual)) {
            let why: Vec<String> = verdict.issues.iter().map(ToString::to_string).collect();
            refused.push(format!("{}#{}: {}", inst.file, inst.doc_index, why.join("; ")));
            continue;
        }
        match outcome {
            None => no_type.push(format!(
                "{}#{}: no generated type for {} {}",
                inst.file, inst.doc_index, inst.api_version, inst.kind
            )),
            Some(Err(e)) => failed.push(format!("{}#{}: does not deserialize: {e}", inst.file, inst.doc_index)),
            Some(Ok(actual)) if same(&expected, &actual) => passed += 1,
            Some(Ok(actual)) => {
                failed.push(format!("{}#{}: {}", inst.file, inst.doc_index, first_difference(&expected, &actual, "")))
            }
        }
    }
    println!(
        "valid instances: {passed} round-trip, {} fail, {} without a generated type, {} refused by the apiserver too (upstream mistakes)",
        failed.len(),
        no_type.len(),
        refused.len()
    );
    for f in
        refused.iter().map(|r| format!("refused by the apiserver: {r}")).chain(no_type).chain(failed.iter().cloned())
    {
        println!("  {f}");
    }
    assert!(failed.is_empty(), "{} valid instances do not round-trip", failed.len());
    assert!(passed > 1000, "only {passed} instances were checked");
}
