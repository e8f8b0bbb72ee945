//! Server-side apply at the apiserver's size limit (issue 49): applied configurations of 1 MiB
//! and 3 MiB (the apiserver's request limit), one shape at a time: a `map` list of objects
//! (each with a `set` of two tags), a `set` of strings, a granular map of strings. Three applies
//! each, as a resource lives: created by apply; another manager's forced apply changing every
//! value (two managers, every field taken); the first manager's re-apply of half its items
//! (prune, with the other manager's fields kept).
//!
//! Reported per apply: the time (best of three), the time per item, the peak heap per byte of
//! the applied configuration, and the ratio to the baseline in the same run: reading the
//! applied configuration and writing the stored object with serde_json (what any apply must at
//! least do). With `ORACLE_BIN` set to the apiserver oracle (`../shared/oracle/`), kube-apiserver
//! 1.36.3's own field manager is the peer, timed once over its JSON pipe (a request there is
//! the same JSON an apiserver decodes), and the spec it stores is checked against ours.
//!
//! `cargo bench -p kubeskema-bench --bench apply` (`-- "map list 3 MiB"`: the rows whose
//! shape and size hold that text).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use kubeskema::apply::{Options, Resource};
use kubeskema::crd::Crd;
use kubeskema::serde_json::{self, Value, json};

#[path = "counting_allocator/mod.rs"]
mod counting_allocator;
use counting_allocator::measure;

const NOW: &str = "2026-11-27T00:00:00Z";

#[derive(Clone, Copy)]
enum Shape {
    MapList,
    Set,
    GranularMap,
}

impl Shape {
    fn name(self) -> &'static str {
        match self {
            Shape::MapList => "map list",
            Shape::Set => "set",
            Shape::GranularMap => "granular map",
        }
    }

    /// The spec with items `0..n` (`from` on), their values shifted by `shift`.
    fn spec(self, from: usize, n: usize, shift: usize) -> Value {
        let range = from..from + n;
        match self {
            Shape::MapList => json!({"items": range
                .map(|i| json!({"name": format!("item-{i:07}"), "value": i + shift, "tags": [format!("t{}", i + shift), "b"]}))
                .collect::<Vec<_>>()}),
            Shape::Set => json!({"set": range.map(|i| format!("member-{i:07}-{shift}")).collect::<Vec<_>>()}),
            Shape::GranularMap => {
                json!({"labels": range.map(|i| (format!("k{i:07}"), json!(format!("v{}", i + shift)))).collect::<serde_json::Map<_, _>>()})
            }
        }
    }
}

fn crd() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "things.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
      "names": {"kind": "Thing", "plural": "things", "singular": "thing", "listKind": "ThingList"},
      "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
        "type": "object", "properties": {"spec": {"type": "object", "properties": {
          "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "required": ["name"], "properties": {
              "name": {"type": "string"}, "value": {"type": "integer"},
              "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}},
          "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
          "labels": {"type": "object", "x-kubernetes-map-type": "granular", "additionalProperties": {"type": "string"}}
        }}}}}}]}})
}

fn object(spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t", "namespace": "default"}, "spec": spec})
}

/// The number of items whose configuration is about `bytes` long.
fn items_for(shape: Shape, bytes: usize) -> usize {
    let per_item = serde_json::to_vec(&object(shape.spec(0, 1000, 0))).unwrap().len() as f64 / 1000.0;
    (bytes as f64 / per_item) as usize
}

/// The apiserver oracle, kept running: one JSON request a line.
struct Oracle {
    _child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Oracle {
    fn start() -> Option<Oracle> {
        let bin = std::env::var("ORACLE_BIN").ok()?;
        let mut child = Command::new(bin).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().ok()?;
        let (input, output) = (child.stdin.take()?, BufReader::new(child.stdout.take()?));
        Some(Oracle { _child: child, input, output })
    }

    /// The stored object, and the time from the request's first byte to the answer's last.
    fn apply(&mut self, crd: &Value, live: Option<&Value>, applied: &Value, manager: &str) -> (Value, Duration) {
        let request = json!({"op": "apply", "crd": crd, "version": "v1", "manager": manager,
            "live": live, "applied": applied, "force": true, "now": NOW});
        let line = serde_json::to_string(&request).unwrap() + "\n";
        let start = Instant::now();
        self.input.write_all(line.as_bytes()).unwrap();
        let mut answer = String::new();
        self.output.read_line(&mut answer).unwrap();
        let elapsed = start.elapsed();
        let mut answer: Value = serde_json::from_str(&answer).unwrap();
        assert!(answer.get("error").is_none_or(Value::is_null), "the oracle refused: {}", answer["error"]);
        (answer["object"].take(), elapsed)
    }
}

fn best_of_three<R>(mut run: impl FnMut() -> (R, Duration)) -> (R, Duration) {
    let (mut result, mut best) = run();
    for _ in 0..2 {
        let (r, t) = run();
        if t < best {
            (result, best) = (r, t);
        }
    }
    (result, best)
}

fn timed<R>(run: impl FnOnce() -> R) -> (R, Duration) {
    let start = Instant::now();
    let result = run();
    (result, start.elapsed())
}

fn main() {
    let crd_json = crd();
    let crd = Crd::parse(&crd_json).0;
    let resource = Resource::new(&crd, "v1").expect("the CRD serves v1");
    let mut oracle = Oracle::start();
    println!("server-side apply, offline (kubeskema::apply::Resource::apply), release build");
    match &oracle {
        Some(_) => println!("peer: kube-apiserver 1.36.3's field manager (ORACLE_BIN), timed over its JSON pipe"),
        None => println!("peer: none (set ORACLE_BIN to the apiserver oracle to time kube-apiserver 1.36.3's)"),
    }
    println!("baseline: serde_json reading the configuration and writing the stored object\n");
    println!(
        "| shape | size | apply | items | time | per item | peak heap / input byte | vs baseline | vs apiserver |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let only = std::env::args().skip(1).find(|arg| !arg.starts_with("--")).unwrap_or_default();
    for shape in [Shape::MapList, Shape::Set, Shape::GranularMap] {
        for mib in [1, 3] {
            if !format!("{} {mib} MiB", shape.name()).contains(&only) {
                continue;
            }
            let n = items_for(shape, mib << 20);
            let first = object(shape.spec(0, n, 0));
            let second = object(shape.spec(0, n, 1));
            let half = object(shape.spec(0, n / 2, 0));
            let steps: [(&str, &Value, &str); 3] =
                [("create", &first, "a"), ("forced, 2nd manager", &second, "b"), ("re-apply half", &half, "a")];
            let mut live: Option<Value> = None;
            let mut oracle_live: Option<Value> = None;
            for (step, applied, manager) in steps {
                let options = Options { manager, force: true, now: NOW, subresource: Default::default() };
                let text = serde_json::to_vec(applied).unwrap();
                let apply = || resource.apply(live.as_ref(), applied, &options).expect("the apply succeeds");
                let (stored, time) = best_of_three(|| timed(apply));
                let (peak, _) = measure(apply);
                let (_, baseline) = best_of_three(|| {
                    timed(|| serde_json::to_vec(&serde_json::from_slice::<Value>(&text).unwrap()).map(|_| ()))
                });
                let peer = oracle.as_mut().map(|oracle| {
                    // Once: at 3 MiB its applies take up to a minute.
                    let (object, time) = oracle.apply(&crd_json, oracle_live.as_ref(), applied, manager);
                    oracle_live = Some(object);
                    time
                });
                if let Some(object) = &oracle_live {
                    assert_eq!(object["spec"], stored["spec"], "{step}: the apiserver stores another spec");
                }
                let items = n.max(1) as f64;
                println!(
                    "| {} | {mib} MiB | {step} | {n} | {:.1} ms | {:.2} µs | {:.1} | {:.1}x | {} |",
                    shape.name(),
                    time.as_secs_f64() * 1e3,
                    time.as_secs_f64() * 1e6 / items,
                    peak as f64 / text.len() as f64,
                    time.as_secs_f64() / baseline.as_secs_f64(),
                    peer.map_or("-".to_owned(), |p| format!("{:.2}x", time.as_secs_f64() / p.as_secs_f64())),
                );
                live = Some(stored);
            }
        }
    }
}
