//! Validating deserialization against its peers, on real corpus objects, paired and
//! interleaved in one run, reported as ratios to plain `serde_json::from_slice` into the same
//! generated types (validation off):
//!
//! - (a) `serde_json::from_slice::<T>`: the baseline (the generated types' `Deserialize`, which
//!   is the read of (b) stopping at its first issue, without `validate()`);
//! - (b) kubeskema's validating read: `kubeskema::decode::from_slice::<T>` (the text's UTF-8
//!   checked once, where (a) checks each string; one pass that records every decoding problem,
//!   then the derived `validate()`);
//! - (c) `Value` parse + `jsonschema` validation (compiled once) + `from_value::<T>`: today's
//!   way to get a validated typed object;
//! - (d) `Value` parse + `jsonschema` validation alone;
//! - (e) kubeskema's dynamic `ResourceValidator` (prune, default, validate a `Value`), given
//!   the parsed object as the CLI gives it (`validate_create_owned`: no copy);
//! - (f) plain `serde_json::from_slice::<T>` then the derived `validate()` (what (b) costs
//!   without recording decoding problems).
//!
//! `cargo bench -p kubeskema-bench --bench validate` (`ROUNDS=n` for more rounds, `ONLY=name`
//! for one object) runs CEL
//! rules; with `--no-default-features` they are compiled out, for the figures of validation
//! without CEL (which the peers do not run either). The targets (issue 54) are printed under
//! the summaries.

use std::time::Duration;

use kubeskema::Validate;
use kubeskema::decode::{Decode, Options};
use kubeskema_bench::types::{argoproj_io, cert_manager_io, gateway_networking_k8s_io, monitoring_coreos_com};
use kubeskema_bench::{Method, Object, crd, json_schema, objects, paired};
use serde::de::DeserializeOwned;

fn methods<'a, T: DeserializeOwned + Validate + Decode>(
    schema: &'a jsonschema::Validator,
    dynamic: &'a kubeskema::validate::ResourceValidator<'a>,
) -> Vec<Method<'a>> {
    vec![
        Method {
            name: "(a) serde_json::from_slice::<T>",
            run: Box::new(|b| serde_json::from_slice::<T>(b).map(|_| 1).unwrap_or(0)),
        },
        Method {
            name: "(b) kubeskema::decode::from_slice::<T>",
            run: Box::new(|b| kubeskema::decode::from_slice::<T>(b, &Options::default()).issues.len()),
        },
        Method {
            name: "(c) Value + jsonschema + from_value::<T>",
            run: Box::new(move |b| {
                let v: serde_json::Value = serde_json::from_slice(b).unwrap_or_default();
                let errors = schema.iter_errors(&v).count();
                serde_json::from_value::<T>(v).map(|_| errors).unwrap_or(0)
            }),
        },
        Method {
            name: "(d) Value + jsonschema",
            run: Box::new(move |b| {
                let v: serde_json::Value = serde_json::from_slice(b).unwrap_or_default();
                schema.iter_errors(&v).count()
            }),
        },
        Method {
            name: "(e) kubeskema dynamic: Value + ResourceValidator",
            run: Box::new(move |b| {
                // Owned, as the CLI and the webhook hand it over (no copy of the object).
                let v: serde_json::Value = serde_json::from_slice(b).unwrap_or_default();
                dynamic.validate_create_owned(v).issues.len()
            }),
        },
        Method {
            name: "(f) serde_json::from_slice::<T> + validate()",
            run: Box::new(|b| serde_json::from_slice::<T>(b).map(|t| t.validate().len()).unwrap_or(0)),
        },
    ]
}

fn bench<T: DeserializeOwned + Validate + Decode>(
    object: &Object,
    rounds: usize,
) -> Vec<(&'static str, f64, f64, f64)> {
    let crd = crd(object.crd_file);
    let schema = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .build(&json_schema(&crd.raw()))
        .expect("the schema compiles");
    let version = crd.versions.iter().find(|v| v.storage).unwrap_or(&crd.versions[0]);
    let dynamic = kubeskema::validate::ResourceValidator::new(&crd, version);
    // Every method must see a valid object, or the comparison is not like for like.
    let value: serde_json::Value = serde_json::from_slice(&object.json).expect("JSON");
    let typed: T = serde_json::from_slice(&object.json).expect("the object deserializes");
    assert!(typed.validate().is_empty(), "{}: {:?}", object.name, typed.validate());
    let read = kubeskema::decode::from_slice::<T>(&object.json, &Options::default());
    assert!(read.value.is_some() && read.issues.is_empty(), "{}: {:?}", object.name, read.issues);
    let jsonschema_errors: Vec<String> = schema.iter_errors(&value).map(|e| e.to_string()).collect();
    assert!(jsonschema_errors.is_empty(), "{}: {jsonschema_errors:?}", object.name);

    let measured = paired(&object.json, &methods::<T>(&schema, &dynamic), rounds, Duration::from_millis(2));
    println!("\n{} ({} bytes)", object.name, object.json.len());
    for m in &measured {
        let mb_s = object.json.len() as f64 / m.median_ns * 1e3;
        println!(
            "  {:<52} {:>10.2} µs {:>7.0} MB/s  {:>5.2}x [{:.2}–{:.2}]",
            m.name,
            m.median_ns / 1e3,
            mb_s,
            m.ratio.0,
            m.ratio.1,
            m.ratio.2
        );
    }
    measured.iter().map(|m| (m.name, m.ratio.0, m.median_ns, object.json.len() as f64 / m.median_ns * 1e3)).collect()
}

fn main() {
    // `cargo bench` passes `--bench`; a plain `cargo test --benches` run only checks it starts.
    let quick = !std::env::args().any(|a| a == "--bench");
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(if quick { 3 } else { 60 });
    println!(
        "paired, interleaved: {rounds} rounds of ~2 ms batches per method; ratios are medians of per-round ratios to (a) [IQR]"
    );
    // `ONLY=httproute-large` measures one object (for a profile of it).
    let only = std::env::var("ONLY").ok();
    let mut all = Vec::new();
    for object in objects().into_iter().filter(|o| only.as_deref().is_none_or(|n| o.name == n)) {
        let kind = object.crd_file.rsplit('/').next().unwrap_or_default();
        let results = match kind {
            k if k.contains("prometheuses") => bench::<monitoring_coreos_com::v1::Prometheus>(&object, rounds),
            k if k.contains("httproutes") => bench::<gateway_networking_k8s_io::v1::HttpRoute>(&object, rounds),
            k if k.contains("certificates") => bench::<cert_manager_io::v1::Certificate>(&object, rounds),
            _ => bench::<argoproj_io::v1alpha1::Workflow>(&object, rounds),
        };
        all.push((object.name.clone(), results));
    }
    let ratio_of = |i: usize, j: usize| -> Vec<f64> { all.iter().map(|(_, r)| r[i].2 / r[j].2).collect() };
    let geomean = |v: &[f64]| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
    let b_over_a = ratio_of(1, 0);
    let c_over_b = ratio_of(2, 1);
    let b_over_d = ratio_of(1, 3);
    let cel = if cfg!(feature = "cel") { "on" } else { "off" };
    let large: Vec<f64> = all.iter().filter(|(name, _)| name.ends_with("-large")).map(|(_, r)| r[1].3).collect();
    println!("\nsummary over {} objects (from medians), CEL {cel}:", all.len());
    println!("  (e)/(c): geometric mean {:.2} (the dynamic validator against today's way)", geomean(&ratio_of(4, 2)));
    println!(
        "  (b)/(f): geometric mean {:.2} (recording decoding problems against a plain read and validate())",
        geomean(&ratio_of(1, 5))
    );
    println!(
        "summary (CEL {cel}): (b)/(a) geometric mean {:.2}, worst {:.2}; (c)/(b) geometric mean {:.2}; (b)/(d) worst {:.2}; large objects slowest {}",
        geomean(&b_over_a),
        b_over_a.iter().copied().fold(0.0, f64::max),
        geomean(&c_over_b),
        b_over_d.iter().copied().fold(0.0, f64::max),
        // `ONLY=` a small object measures no large one.
        large.iter().copied().reduce(f64::min).map_or("(none measured)".to_owned(), |s| format!("{s:.0} MB/s")),
    );
    println!(
        "  targets (issue 54): (b)/(a) ≤ 1.0 geometric mean and ≤ 1.25 each with CEL off, ≤ 1.25 and ≤ 1.6 with CEL on; (c)/(b) ≥ 1.6; (b)/(d) ≤ 1.0; ≥ 150 MB/s on the large objects"
    );
    // The dynamic validator (the CLI's and the webhook's path) on the same scale (issue 54).
    let e_over_a = ratio_of(4, 0);
    println!(
        "summary (dynamic, CEL {cel}): (e)/(a) geometric mean {:.2}, worst {:.2}",
        geomean(&e_over_a),
        e_over_a.iter().copied().fold(0.0, f64::max),
    );
    println!("  targets (issue 54): (e)/(a) ≤ 3 on every object with CEL off, ≤ 5 with CEL on");
}
