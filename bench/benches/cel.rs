//! What CEL rules cost per object, native and interpreted, against the rest of validation and
//! against kube-rs's CEL validator (kube-cel 0.8, `compile_schema` once, then
//! `Validator::validate_compiled`), on the benchmark objects that carry rules (Gateway API's
//! HTTPRoute dozens, the Workflow and the Prometheus a few), paired and interleaved in one run:
//!
//! - (a) `serde_json::from_slice::<T>`: the baseline;
//! - (g) (a) + the derived value checks (`validate_at`: OpenAPI keywords, list types) without CEL;
//! - (n) (a) + the CEL rules, compiled to Rust (`validate_cel_at`);
//! - (i) (a) + the CEL rules, all interpreted (`Cx::interpreted`);
//! - (v) `serde_json::from_slice::<Value>`: kube-cel's input;
//! - (k) (v) + kube-cel's `validate_compiled`;
//! - (f) (a) + the whole `validate()`;
//! - (h) `serde_json::from_slice::<H>` of the same object into hand-written types
//!   (`kubeskema_bench::hand_written`: the same rules, verbatim, compiled by the derive);
//! - (d) (h) + their CEL rules, derived native (`validate_cel_at`).
//!
//! Reported per object: the read, the value checks ((g) − (a)) and CEL three ways: native
//! ((n) − (a)), interpreted ((i) − (a)), kube-cel ((k) − (v)) and derived native ((d) − (h));
//! then native CEL against the read, kube-cel against native CEL, and derived native CEL
//! against generated native CEL. The last two lines sum it up over the objects.
//! `cargo bench -p kubeskema-bench --bench cel`.

use std::time::Duration;

use kubeskema::Validate;
use kubeskema::path::At;
use kubeskema_bench::hand_written::{http_route, prometheus, workflow};
use kubeskema_bench::types::{argoproj_io, gateway_networking_k8s_io, monitoring_coreos_com};
use kubeskema_bench::{Method, Object, objects, paired};
use serde::de::DeserializeOwned;
use serde_json::Value;

fn methods<'a, T: DeserializeOwned + Validate, H: DeserializeOwned + Validate>(
    kube_cel: &'a kube_cel::Validator,
    compiled: &'a kube_cel::CompiledSchema,
) -> Vec<Method<'a>> {
    let cel = |interpreted: bool| -> kubeskema_bench::Run<'a> {
        Box::new(move |b| {
            let t: T = serde_json::from_slice(b).expect("valid");
            let mut cx = if interpreted { kubeskema::cel::Cx::interpreted() } else { kubeskema::cel::Cx::default() };
            t.validate_cel_at(None, &At::ROOT, &mut cx);
            assert!(!cx.uninterpretable(), "the interpreted run ran rules natively: generate with `interpretable`");
            cx.issues.len()
        })
    };
    vec![
        Method {
            name: "(a) serde_json::from_slice::<T>",
            run: Box::new(|b| serde_json::from_slice::<T>(b).map(|_| 1).unwrap_or(0)),
        },
        Method {
            name: "(g) (a) + value checks, no CEL",
            run: Box::new(|b| {
                let t: T = serde_json::from_slice(b).expect("valid");
                let mut found = kubeskema::Phases::default();
                t.validate_at(&kubeskema::path::At::ROOT, &mut found);
                found.values.len() + found.list_types.len()
            }),
        },
        Method { name: "(n) (a) + CEL, native", run: cel(false) },
        Method { name: "(i) (a) + CEL, interpreted", run: cel(true) },
        Method {
            name: "(v) serde_json::from_slice::<Value>",
            run: Box::new(|b| serde_json::from_slice::<Value>(b).map(|_| 1).unwrap_or(0)),
        },
        Method {
            name: "(k) (v) + kube-cel validate_compiled",
            run: Box::new(move |b| {
                let v: Value = serde_json::from_slice(b).expect("valid");
                match kube_cel.validate_compiled(compiled, &v, None) {
                    Ok(()) => 1,
                    Err(errors) => 2 + errors.len(),
                }
            }),
        },
        Method {
            name: "(f) (a) + validate()",
            run: Box::new(|b| serde_json::from_slice::<T>(b).map(|t| t.validate().len()).unwrap_or(0)),
        },
        Method {
            name: "(h) serde_json::from_slice::<H>",
            run: Box::new(|b| serde_json::from_slice::<H>(b).map(|_| 1).unwrap_or(0)),
        },
        Method {
            name: "(d) (h) + CEL, derived native",
            run: Box::new(|b| {
                let h: H = serde_json::from_slice(b).expect("valid");
                let mut cx = kubeskema::cel::Cx::default();
                h.validate_cel_at(None, &At::ROOT, &mut cx);
                cx.issues.len()
            }),
        },
    ]
}

/// One object's row.
struct Row {
    kube_cel_vs_native: f64,
    native_vs_read: f64,
    derived_vs_native: f64,
    kube_cel_vs_derived: f64,
}

/// One object's row, through the generated types `T` and the hand-written `H`.
fn bench<T: DeserializeOwned + Validate, H: DeserializeOwned + Validate>(object: &Object, rounds: usize) -> Row {
    let typed: T = serde_json::from_slice(&object.json).expect("the object deserializes");
    assert!(typed.validate().is_empty(), "{}: {:?}", object.name, typed.validate());
    let hand: H = serde_json::from_slice(&object.json).expect("the object deserializes into the hand-written types");
    assert!(hand.validate().is_empty(), "{}: {:?}", object.name, hand.validate());
    kubeskema::__private::cel_differential(&hand, None).expect("derived native CEL agrees with the interpreter");
    let mut cx = kubeskema::cel::Cx::default();
    hand.validate_cel_at(None, &At::ROOT, &mut cx);
    let runs = cx.derived_runs();
    assert!(runs.native > 0 && runs.deferred == 0, "{}: the hand-written rules ran {runs:?}", object.name);
    let crd_json = kubeskema_bench::crd(object.crd_file).raw().into_owned();
    let versions = crd_json["spec"]["versions"].as_array().expect("versions");
    let version = versions.iter().find(|v| v["storage"] == serde_json::json!(true)).unwrap_or(&versions[0]);
    let compiled = kube_cel::compile_schema(&version["schema"]["openAPIV3Schema"]);
    let validator = kube_cel::Validator::new();
    let value: Value = serde_json::from_slice(&object.json).expect("JSON");
    let peer_errors = validator.validate_compiled(&compiled, &value, None).err().map_or(0, |e| e.len());
    let m = paired(&object.json, &methods::<T, H>(&validator, &compiled), rounds, Duration::from_millis(2));
    let ns = |i: usize| m[i].median_ns;
    let (read, value_read) = (ns(0), ns(4));
    let values = (ns(1) - read).max(0.0);
    let native = (ns(2) - read).max(1.0);
    let interpreted = (ns(3) - read).max(0.0);
    let peer = (ns(5) - value_read).max(0.0);
    let derived = (ns(8) - ns(7)).max(1.0);
    println!(
        "{:<16} {:>7} bytes  read {:>8.1} µs  value checks {:>8.1} µs  CEL native {:>8.2} µs  interpreted {:>8.1} µs  kube-cel {:>8.1} µs ({} errors)  derived native {:>8.2} µs ({} rules)  native/read {:>5.2}  kube-cel/native {:>7.1}x  interpreted/native {:>6.1}x  derived/native {:>5.2}x  validate()/read {:>5.2}x",
        object.name,
        object.json.len(),
        read / 1e3,
        values / 1e3,
        native / 1e3,
        interpreted / 1e3,
        peer / 1e3,
        peer_errors,
        derived / 1e3,
        runs.native,
        native / read,
        peer / native,
        interpreted / native,
        derived / native,
        ns(6) / read,
    );
    Row {
        kube_cel_vs_native: peer / native,
        native_vs_read: native / read,
        derived_vs_native: derived / native,
        kube_cel_vs_derived: peer / derived,
    }
}

fn main() {
    let quick = !std::env::args().any(|a| a == "--bench");
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(if quick { 3 } else { 30 });
    println!("paired, interleaved: {rounds} rounds of ~2 ms batches per method; medians");
    let mut rows = Vec::new();
    for object in objects() {
        let kind = object.crd_file.rsplit('/').next().unwrap_or_default();
        rows.push(match kind {
            k if k.contains("prometheuses") => {
                bench::<monitoring_coreos_com::v1::Prometheus, prometheus::Prometheus>(&object, rounds)
            }
            k if k.contains("httproutes") => {
                bench::<gateway_networking_k8s_io::v1::HttpRoute, http_route::HttpRoute>(&object, rounds)
            }
            k if k.contains("workflows") => {
                bench::<argoproj_io::v1alpha1::Workflow, workflow::Workflow>(&object, rounds)
            }
            // Certificates carry no rules.
            _ => continue,
        });
    }
    let geometric_mean = |f: fn(&Row) -> f64| (rows.iter().map(|r| f(r).ln()).sum::<f64>() / rows.len() as f64).exp();
    let worst = |f: fn(&Row) -> f64| rows.iter().map(f).fold(0.0, f64::max);
    println!(
        "summary: native CEL vs kube-cel geometric mean {:.2}x; native CEL / plain read worst {:.2}",
        geometric_mean(|r| r.kube_cel_vs_native),
        worst(|r| r.native_vs_read)
    );
    println!(
        "summary: derived native CEL vs generated native worst {:.2}x; derived native vs kube-cel geometric mean {:.2}x",
        worst(|r| r.derived_vs_native),
        geometric_mean(|r| r.kube_cel_vs_derived)
    );
}
