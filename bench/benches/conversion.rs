//! Conversion between a CRD's versions (issue 53), paired and interleaved in one run, per
//! object, as ratios to a `serde_json::Value` round trip of the same object:
//!
//! - (a) `Value` round trip: the object's JSON read into a `Value` and written back, the least
//!   any converter that edits JSON does;
//! - (b) generated conversions, typed, in memory: hub → spoke → hub (`from_hub`, `to_hub`), the
//!   lossless round trip included (each way converts back once to see what would be lost, and
//!   a lossy trip writes and reads the annotation);
//! - (c) the webhook's work: the generated `Converter` on the `Value` of a review, hub → spoke
//!   and spoke → hub, each read into the version's type and written back as a `Value`, from
//!   the JSON text and back to it.
//!
//! Objects: cluster-api's `Cluster` (kopium's copy of the CRD: `v1alpha4` a spoke of the hub
//! `v1beta1`), the largest of 400 generated from its schema with 300 status conditions; and the worked example's `Widget`
//! (`fixtures/golden/conversion.yaml`) with 1,000 ports, which its spoke cannot hold all of (a
//! `blue` color): every trip down keeps the hub in the annotation.
//!
//! `cargo bench -p kubeskema-bench --bench conversion` (`ROUNDS=n`).

use std::time::Duration;

use kubeskema_bench::types::{apps_example_com, cluster_x_k8s_io};
use kubeskema_bench::{Method, paired};
use serde_json::{Value, json};

/// What the Cluster's spokes need: one method for `v1alpha4`, three for `v1alpha3` (the
/// converter serves every version, so it takes both).
struct Clusters;

impl cluster_x_k8s_io::v1alpha3::cluster_conversion::Conversion for Clusters {
    fn spec_topology_to_hub(
        &self,
        _: &cluster_x_k8s_io::v1alpha3::ClusterSpec,
    ) -> Option<cluster_x_k8s_io::v1beta1::Topology> {
        None
    }

    fn status_conditions_last_transition_time_to_hub(
        &self,
        _: &cluster_x_k8s_io::v1alpha3::Condition,
        converted: Option<String>,
    ) -> String {
        converted.unwrap_or_else(|| "1970-01-01T00:00:00Z".to_owned())
    }

    fn status_control_plane_initialized_from_hub(
        &self,
        from: &cluster_x_k8s_io::v1beta1::ClusterStatus,
    ) -> Option<bool> {
        from.control_plane_ready
    }
}

impl cluster_x_k8s_io::v1alpha4::cluster_conversion::Conversion for Clusters {
    fn status_conditions_last_transition_time_to_hub(
        &self,
        _: &cluster_x_k8s_io::v1alpha4::Condition,
        converted: Option<String>,
    ) -> String {
        converted.unwrap_or_else(|| "1970-01-01T00:00:00Z".to_owned())
    }
}

/// The worked example's methods.
mod widgets {
    use kubeskema_bench::types::apps_example_com::{v1, v1beta1};
    include!("../../fixtures/conversion/widgets.rs");
}
use widgets::Widgets;

/// The largest of `n` generated hub Clusters, by its JSON's length, its status grown to
/// `conditions` conditions (a long-lived cluster's list): each goes through a method going up.
fn large_cluster(n: usize, conditions: usize) -> Value {
    use proptest::strategy::{Strategy, ValueTree};
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = kubeskema::testing::resources::<cluster_x_k8s_io::v1beta1::Cluster>();
    (0..n)
        .filter_map(|_| strategy.new_tree(&mut runner).ok().map(|t| serde_json::to_value(t.current()).unwrap()))
        .max_by_key(|v| v.to_string().len())
        .map(|mut cluster| {
            let conditions: Vec<Value> = (0..conditions)
                .map(|i| {
                    json!({"type": format!("Condition{i}"), "status": "True", "severity": "Info",
                           "lastTransitionTime": "2026-11-29T07:00:00Z", "reason": "Reconciled",
                           "message": format!("condition {i} of a cluster that has run for a while")})
                })
                .collect();
            cluster["status"]["conditions"] = Value::Array(conditions);
            cluster
        })
        .expect("generated Clusters")
}

fn large_widget(ports: usize) -> Value {
    json!({"apiVersion": "apps.example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "labels": {"app": "w"}},
        "spec": {"replicas": 3, "image": {"repository": "registry.example.com/team/widget", "tag": "1.27.3"},
                 "paused": true, "color": "blue", "selector": {"app": "w"},
                 "ports": (0..ports).map(|i| json!({"name": format!("port-{i}"), "number": 1000 + i})).collect::<Vec<_>>()},
        "status": {"ready": true}})
}

fn bench<H, C>(name: &str, json: &Value, rounds: usize, trip: impl Fn(H) -> H, converter: &C, spoke: &str)
where
    H: serde::de::DeserializeOwned + Clone,
    C: kubeskema::conversion::Converter,
{
    let bytes = serde_json::to_vec(json).unwrap();
    let hub: H = serde_json::from_value(json.clone()).unwrap();
    let hub_version = json["apiVersion"].as_str().unwrap().to_owned();
    let methods = vec![
        Method {
            name: "(a) Value round trip",
            run: Box::new(|b| {
                let v: Value = serde_json::from_slice(b).unwrap();
                serde_json::to_vec(&v).unwrap().len()
            }),
        },
        Method {
            name: "(b) typed hub → spoke → hub",
            run: Box::new(|_| {
                let back = trip(std::hint::black_box(hub.clone()));
                std::mem::size_of_val(&back)
            }),
        },
        Method {
            name: "(c) webhook: JSON → spoke → hub → JSON",
            run: Box::new(|b| {
                let v: Value = serde_json::from_slice(b).unwrap();
                let down = converter.convert(v, spoke).unwrap();
                let up = converter.convert(down, &hub_version).unwrap();
                serde_json::to_vec(&up).unwrap().len()
            }),
        },
    ];
    let results = paired(&bytes, &methods, rounds, Duration::from_millis(2));
    println!("\n{name} ({} bytes of JSON)", bytes.len());
    for m in &results {
        println!(
            "  {:<44} {:>10.1} µs   {:.2}x (a) [{:.2}, {:.2}]",
            m.name,
            m.median_ns / 1000.0,
            m.ratio.0,
            m.ratio.1,
            m.ratio.2
        );
    }
}

fn main() {
    let quick = !std::env::args().any(|a| a == "--bench");
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(if quick { 3 } else { 40 });
    println!(
        "paired, interleaved: {rounds} rounds of ~2 ms batches per method; ratios are medians of per-round ratios to (a) [IQR]"
    );

    let cluster = large_cluster(if quick { 20 } else { 400 }, 300);
    let clusters = cluster_x_k8s_io::v1beta1::cluster_conversion::Converter(Clusters);
    // The trip must give the object back, or the bench measures a broken conversion.
    let hub: cluster_x_k8s_io::v1beta1::Cluster = serde_json::from_value(cluster.clone()).unwrap();
    let trip = |h| {
        use cluster_x_k8s_io::v1alpha4::cluster_conversion::{from_hub, to_hub};
        to_hub(&Clusters, from_hub(&Clusters, h))
    };
    assert!(trip(hub.clone()) == hub, "the Cluster comes back");
    bench(
        "cluster-api Cluster with 300 conditions, v1beta1 → v1alpha4 → v1beta1",
        &cluster,
        rounds,
        trip,
        &clusters,
        "cluster.x-k8s.io/v1alpha4",
    );

    let widget = large_widget(1000);
    let widgets = apps_example_com::v1::widget_conversion::Converter(Widgets);
    let trip = |h| {
        use apps_example_com::v1beta1::widget_conversion::{from_hub, to_hub};
        to_hub(&Widgets, from_hub(&Widgets, h))
    };
    let hub: apps_example_com::v1::Widget = serde_json::from_value(widget.clone()).unwrap();
    assert!(trip(hub.clone()) == hub, "the Widget comes back");
    bench(
        "Widget with 1,000 ports, v1 → v1beta1 (lossy: annotated) → v1",
        &widget,
        rounds,
        trip,
        &widgets,
        "apps.example.com/v1beta1",
    );
}
