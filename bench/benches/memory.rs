//! Peak heap memory of a read, against what its result holds: streaming must not hold more
//! than the typed result. A counting global allocator records the most bytes live at once
//! while each method reads the same document; reported as a ratio to the typed result's own
//! size (bytes still live after the read, the input excluded).
//!
//! - a very large array: a cert-manager Certificate with 200,000 DNS names;
//! - a deeply nested document: a recursive hand-written type nested 60 levels (serde_json's
//!   recursion limit is 128 containers), with a list at every level.
//!
//! `cargo bench -p kubeskema-bench --bench memory`.

use kubeskema::decode::{Decode, Options};
use kubeskema::{Validate, serde_json};
use kubeskema_bench::types::cert_manager_io::v1::Certificate;
use serde::de::DeserializeOwned;

#[path = "counting_allocator/mod.rs"]
mod counting_allocator;
use counting_allocator::measure;

fn report<T: DeserializeOwned + Decode + Validate>(name: &str, json: &[u8]) {
    println!("\n{name} ({} bytes of JSON)", json.len());
    let (_, typed) = measure(|| serde_json::from_slice::<T>(json).expect("the document deserializes"));
    let rows: [(&str, (usize, usize)); 3] = [
        ("(a) serde_json::from_slice::<T>", measure(|| serde_json::from_slice::<T>(json).ok())),
        (
            "(b) kubeskema::decode::from_slice::<T>",
            measure(|| kubeskema::decode::from_slice::<T>(json, &Options::default())),
        ),
        (
            "(c) Value + from_value::<T>",
            measure(|| {
                serde_json::from_slice::<serde_json::Value>(json).ok().and_then(|v| serde_json::from_value::<T>(v).ok())
            }),
        ),
    ];
    for (method, (peak, _)) in rows {
        println!(
            "  {method:<42} peak {:>12} bytes  {:>5.2}x the typed result ({typed} bytes)",
            peak,
            peak as f64 / typed as f64
        );
    }
}

/// A recursive type: each level holds a name, a list of numbers and the next level.
#[derive(kubeskema::Deserialize, kubeskema::Validate)]
struct Level {
    name: String,
    #[kubeskema(items(minimum = 0))]
    numbers: Option<Vec<i64>>,
    next: Option<Box<Level>>,
}

fn nested(depth: usize) -> Vec<u8> {
    let mut json = String::from("null");
    for d in (0..depth).rev() {
        json = format!(r#"{{"name": "level-{d}", "numbers": [{d}, 1, 2, 3], "next": {json}}}"#);
    }
    json.into_bytes()
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        // `cargo test --benches`: only check that the documents read.
        let read = kubeskema::decode::from_slice::<Level>(&nested(60), &Options::default());
        assert!(read.value.is_some() && read.issues.is_empty(), "{:?}", read.issues);
        return;
    }
    report::<Certificate>(
        "very large array: Certificate, 200,000 dnsNames",
        &kubeskema_bench::certificate_with_dns_names(200_000),
    );
    report::<Level>("deeply nested: 60 levels", &nested(60));
}
