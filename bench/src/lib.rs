//! What the benchmarks measure: real corpus objects (and copies with a list grown about
//! 100x), their generated types, the CRD schemas as the `jsonschema` crate reads them, and a
//! paired, interleaved timing harness that reports ratios to a baseline measured in the same
//! rounds (`benches/validate.rs`; `cargo bench -p kubeskema-bench`).
#![allow(missing_docs, reason = "a benchmark harness, not an API")]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[cfg(feature = "cel")]
pub mod hand_written;

#[allow(
    clippy::all,
    dead_code,
    non_camel_case_types,
    reason = "generated types, compiled as generated; benches read some"
)]
pub mod types {
    include!(concat!(env!("OUT_DIR"), "/kubeskema.rs"));
}

/// The shared corpus.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("KUBESKEMA_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    }
}

/// One benchmarked object: its name, compact JSON, and the CRD file whose schema it follows.
pub struct Object {
    pub name: String,
    pub json: Vec<u8>,
    pub crd_file: &'static str,
}

fn document(file: &str, index: usize) -> Value {
    let path = corpus_dir().join("instances").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let docs = kubeskema::yaml::parse_documents(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    docs.into_iter().nth(index).unwrap_or_else(|| panic!("{}: no document {index}", path.display())).value
}

/// `list` grown to `n` items, each a copy of item `i % len` with `key` made unique.
fn grow(list: &mut Value, n: usize, key: Option<&str>) {
    let Some(items) = list.as_array_mut() else { panic!("not a list: {list}") };
    let originals = items.clone();
    items.clear();
    for i in 0..n {
        let mut item = originals[i % originals.len()].clone();
        match key {
            Some(k) if item.is_object() => {
                let old = item[k].as_str().unwrap_or("item").to_owned();
                item[k] = json!(format!("{old}-{i}"));
            }
            Some(_) => item = json!(format!("{}-{i}", item.as_str().unwrap_or("item"))),
            None => {}
        }
        items.push(item);
    }
}

const PROMETHEUS: &str = "prometheus-operator__prometheus-operator/monitoring.coreos.com_prometheuses.yaml";
const HTTPROUTE: &str = "kubernetes-sigs__gateway-api/gateway.networking.k8s.io_httproutes.yaml";
const CERTIFICATE: &str = "cert-manager__cert-manager/cert-manager.io_certificates.yaml";
const WORKFLOW: &str = "argoproj__argo-workflows/argoproj.io_workflows.yaml";

/// The objects: small real ones and large copies.
pub fn objects() -> Vec<Object> {
    let prom = document(
        "prometheus-operator__prometheus-operator/example/user-guides/alerting/prometheus-example-rule-namespace-selector.yaml",
        0,
    );
    let mut prom_large = prom.clone();
    grow(&mut prom_large["spec"]["alerting"]["alertmanagers"], 100, Some("name"));

    let route = document("kubernetes-sigs__gateway-api/examples/standard/basic-http.yaml", 2);
    let mut route_large = route.clone();
    // The schema's own limits: 16 hostnames, 16 rules, 8 matches and 16 backendRefs per rule.
    grow(&mut route_large["spec"]["hostnames"], 16, Some(""));
    for rule in route_large["spec"]["rules"].as_array_mut().into_iter().flatten() {
        if rule.get("matches").is_some() {
            grow(&mut rule["matches"], 8, None);
        }
        grow(&mut rule["backendRefs"], 16, None);
    }
    grow(&mut route_large["spec"]["rules"], 16, None);

    let cert = document("cert-manager__cert-manager/test/fixtures/cert-manager-resources.yaml", 1);
    let mut cert_large = cert.clone();
    grow(&mut cert_large["spec"]["dnsNames"], 100, Some(""));

    let workflow = document("argoproj__argo-workflows/examples/dag-inline-workflow.yaml", 0);
    let mut workflow_large = workflow.clone();
    grow(&mut workflow_large["spec"]["templates"], 100, Some("name"));

    let object = |name: &str, v: &Value, crd_file| Object {
        name: name.into(),
        json: serde_json::to_vec(v).expect("JSON"),
        crd_file,
    };
    vec![
        object("prom", &prom, PROMETHEUS),
        object("prom-large", &prom_large, PROMETHEUS),
        object("httproute", &route, HTTPROUTE),
        object("httproute-large", &route_large, HTTPROUTE),
        object("cert", &cert, CERTIFICATE),
        object("cert-large", &cert_large, CERTIFICATE),
        object("workflow", &workflow, WORKFLOW),
        object("workflow-large", &workflow_large, WORKFLOW),
    ]
}

/// The cert-manager Certificate of [`objects`] with `n` DNS names: a very large array.
pub fn certificate_with_dns_names(n: usize) -> Vec<u8> {
    let mut cert = document("cert-manager__cert-manager/test/fixtures/cert-manager-resources.yaml", 1);
    grow(&mut cert["spec"]["dnsNames"], n, Some(""));
    serde_json::to_vec(&cert).expect("JSON")
}

/// The CRD of a file, parsed.
pub fn crd(file: &str) -> kubeskema::crd::Crd {
    let path = corpus_dir().join("crds").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let docs = kubeskema::yaml::parse_documents(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    kubeskema::crd::Crd::parse(&docs[0].value).0
}

/// The storage version's `openAPIV3Schema` as a draft-4 JSON Schema the `jsonschema` crate
/// enforces: `x-kubernetes-*` dropped, int-or-string as `anyOf` integer/string, `nullable`
/// as a `null` type (how perf-anchors.md measured it).
pub fn json_schema(crd_json: &Value) -> Value {
    let versions = crd_json["spec"]["versions"].as_array().expect("versions");
    let version = versions.iter().find(|v| v["storage"] == json!(true)).unwrap_or(&versions[0]);
    let mut schema = version["schema"]["openAPIV3Schema"].clone();
    shim(&mut schema);
    schema
}

fn shim(v: &mut Value) {
    match v {
        Value::Object(map) => {
            let int_or_string = map.get("x-kubernetes-int-or-string") == Some(&json!(true));
            let nullable = map.get("nullable") == Some(&json!(true));
            map.retain(|k, _| !k.starts_with("x-kubernetes-") && k != "nullable");
            if int_or_string {
                map.remove("type");
                map.entry("anyOf").or_insert_with(|| json!([{"type": "integer"}, {"type": "string"}]));
            }
            if nullable && let Some(Value::String(t)) = map.get("type").cloned() {
                map.insert("type".into(), json!([t, "null"]));
            }
            map.values_mut().for_each(shim);
        }
        Value::Array(items) => items.iter_mut().for_each(shim),
        _ => {}
    }
}

/// Bytes in, something out (a count the optimizer cannot drop).
pub type Run<'a> = Box<dyn Fn(&[u8]) -> usize + 'a>;

/// One way to turn bytes into a (validated) value.
pub struct Method<'a> {
    pub name: &'static str,
    pub run: Run<'a>,
}

/// What the paired harness measured for one method.
pub struct Measured {
    pub name: &'static str,
    pub median_ns: f64,
    /// Median and quartiles of the per-round ratio to the baseline (the first method).
    pub ratio: (f64, f64, f64),
}

/// The paired, interleaved harness: `rounds` rounds, each timing one batch (about `batch`
/// long) of every method in a rotating order, so drift and noise hit all methods alike.
pub fn paired(bytes: &[u8], methods: &[Method], rounds: usize, batch: Duration) -> Vec<Measured> {
    // Iterations per batch, per method, from a calibration run after one call of each: a
    // method's first call may do one-time work (the dynamic validator compiles the rules an
    // object reaches then, some 15 ms for HTTPRoute's), and timed into the calibration it made
    // that method's batches twelve calls long, a tenth of `batch`, each started with the
    // caches the other methods left.
    let iters: Vec<u32> = methods
        .iter()
        .map(|m| {
            std::hint::black_box((m.run)(std::hint::black_box(bytes)));
            let start = Instant::now();
            let mut n = 0u32;
            while start.elapsed() < batch / 4 || n < 3 {
                std::hint::black_box((m.run)(std::hint::black_box(bytes)));
                n += 1;
            }
            (n * 4).max(1)
        })
        .collect();
    let mut per_round: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); methods.len()];
    for round in 0..rounds {
        for k in 0..methods.len() {
            let i = (round + k) % methods.len();
            let start = Instant::now();
            for _ in 0..iters[i] {
                std::hint::black_box((methods[i].run)(std::hint::black_box(bytes)));
            }
            per_round[i].push(start.elapsed().as_nanos() as f64 / f64::from(iters[i]));
        }
    }
    let median = |mut v: Vec<f64>| -> (f64, f64, f64) {
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        (at(0.5), at(0.25), at(0.75))
    };
    methods
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let ratios = per_round[i].iter().zip(&per_round[0]).map(|(t, base)| t / base).collect();
            Measured { name: m.name, median_ns: median(per_round[i].clone()).0, ratio: median(ratios) }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// A method whose first call does one-time work (the dynamic validator compiling its
    /// rules) is calibrated on its later calls: its batches are as long as the others', not
    /// the calibration's minimum of twelve calls.
    #[test]
    fn one_time_work_is_left_out_of_the_calibration() {
        let calls = Cell::new(0u32);
        let method = Method {
            name: "first call slow",
            run: Box::new(|_| {
                calls.set(calls.get() + 1);
                if calls.get() == 1 {
                    std::thread::sleep(Duration::from_millis(20));
                }
                1
            }),
        };
        paired(b"", std::slice::from_ref(&method), 1, Duration::from_millis(2));
        // Timed into the calibration, the slow call made it three calls and the batch twelve.
        assert!(calls.get() > 100, "{} calls in all", calls.get());
    }
}
