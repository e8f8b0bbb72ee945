//! What CEL rules cost per object against the rest of validation, on the benchmark objects
//! (Gateway API's HTTPRoute carries dozens of rules, the Workflow a few, the others few or
//! none), paired and interleaved in one run:
//!
//! - (a) `serde_json::from_slice::<T>`: the baseline;
//! - (g) (a) + the derived value checks (`validate_at`: OpenAPI keywords, list types) without CEL;
//! - (h) (a) + the CEL rules alone (`validate_cel_at`);
//! - (f) (a) + the whole `validate()`.
//!
//! Reported per object: the time of the value checks ((g) − (a)) and of CEL ((h) − (a)), and
//! their ratio. `cargo bench -p kubeskema-bench --bench cel`.

use std::time::Duration;

use kubeskema::Validate;
use kubeskema::path::Path;
use kubeskema_bench::types::{argoproj_io, cert_manager_io, gateway_networking_k8s_io, monitoring_coreos_com};
use kubeskema_bench::{Method, Object, objects, paired};
use serde::de::DeserializeOwned;

fn methods<'a, T: DeserializeOwned + Validate>() -> Vec<Method<'a>> {
    vec![
        Method {
            name: "(a) serde_json::from_slice::<T>",
            run: Box::new(|b| serde_json::from_slice::<T>(b).map(|_| 1).unwrap_or(0)),
        },
        Method {
            name: "(g) (a) + value checks, no CEL",
            run: Box::new(|b| {
                let t: T = serde_json::from_slice(b).expect("valid");
                let mut issues = Vec::new();
                t.validate_at(&Path::root(), &mut issues);
                issues.len()
            }),
        },
        Method {
            name: "(h) (a) + CEL rules alone",
            run: Box::new(|b| {
                let t: T = serde_json::from_slice(b).expect("valid");
                let mut cx = kubeskema::cel::Cx::default();
                t.validate_cel_at(None, &Path::root(), &mut cx);
                cx.issues.len()
            }),
        },
        Method {
            name: "(f) (a) + validate()",
            run: Box::new(|b| serde_json::from_slice::<T>(b).map(|t| t.validate().len()).unwrap_or(0)),
        },
    ]
}

fn bench<T: DeserializeOwned + Validate>(object: &Object, rounds: usize) {
    let typed: T = serde_json::from_slice(&object.json).expect("the object deserializes");
    assert!(typed.validate().is_empty(), "{}: {:?}", object.name, typed.validate());
    let m = paired(&object.json, &methods::<T>(), rounds, Duration::from_millis(2));
    let (base, values, cel, all) = (m[0].median_ns, m[1].median_ns, m[2].median_ns, m[3].median_ns);
    let (values, cel) = ((values - base).max(0.0), (cel - base).max(0.0));
    println!(
        "{:<16} {:>7} bytes  read {:>8.1} µs  value checks {:>8.1} µs  CEL {:>8.1} µs  CEL/value checks {:>6.2}x  validate()/read {:>5.2}x",
        object.name,
        object.json.len(),
        base / 1e3,
        values / 1e3,
        cel / 1e3,
        if values > 0.0 { cel / values } else { f64::NAN },
        all / base,
    );
}

fn main() {
    let quick = !std::env::args().any(|a| a == "--bench");
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(if quick { 3 } else { 30 });
    println!("paired, interleaved: {rounds} rounds of ~2 ms batches per method; medians");
    for object in objects() {
        let kind = object.crd_file.rsplit('/').next().unwrap_or_default();
        match kind {
            k if k.contains("prometheuses") => bench::<monitoring_coreos_com::v1::Prometheus>(&object, rounds),
            k if k.contains("httproutes") => bench::<gateway_networking_k8s_io::v1::HttpRoute>(&object, rounds),
            k if k.contains("certificates") => bench::<cert_manager_io::v1::Certificate>(&object, rounds),
            _ => bench::<argoproj_io::v1alpha1::Workflow>(&object, rounds),
        }
    }
}
