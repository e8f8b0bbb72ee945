#!/usr/bin/env python3
"""Writes three crates into OUT for bench/peers/derive/run.sh:

- OUT/ks:   N resource types with kubeskema's derives (`Serialize`, `Deserialize`, `Validate`;
            the CRD from `CustomResource::definition()`), with kubeskema's default features (CEL on),
- OUT/ks-schema: the same with the one `#[derive(kubeskema::Schema)]` in place of the three,
- OUT/ks-apply:  `kubeskema::Schema` and `kubeskema::ApplyConfiguration` (apply configurations too),
- OUT/kd:   the same N types with kube-derive + schemars (`#[derive(CustomResource, JsonSchema)]`),
- OUT/time: one binary that builds the CRD of the same type both ways, interleaved, and prints
            the ratio.

The types are the same on both sides: a spec with bounded strings and integers, lists (one a
list-map of ports), a string map, a unit enum and a nested struct; a status. Both crates sit
outside the workspace, so CI's workspace builds never compile kube-derive.

    gen.py N OUT KUBESKEMA_RUNTIME_PATH
"""
import os
import sys

SPEC_KS = '''
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(resource(group = "bench.example.com", version = "v1", kind = "Thing{i}", status = true))]
pub struct Thing{i} {{
    #[kubeskema(rename = "apiVersion")]
    pub api_version: String,
    pub kind: String,
    #[kubeskema(default_json = "{{}}")]
    pub metadata: kubeskema::ObjectMeta,
    pub spec: Thing{i}Spec,
    pub status: Option<Thing{i}Status>,
}}

/// What a Thing{i} should be.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[serde(rename_all = "camelCase")]
pub struct Thing{i}Spec {{
    /// Its name.
    #[kubeskema(min_length = 1, max_length = 63, pattern = "^[a-z0-9-]+$")]
    pub name: String,
    /// How many.
    #[kubeskema(minimum = 0, maximum = 100)]
    pub replicas: Option<i32>,
    #[kubeskema(max_items = 16, items(max_length = 32))]
    pub tags: Option<Vec<String>>,
    pub labels: Option<BTreeMap<String, String>>,
    pub mode: Option<Mode{i}>,
    #[kubeskema(list_type = "map", list_map_keys("name"), max_items = 8)]
    pub ports: Option<Vec<Port{i}>>,
    pub paused: Option<bool>,
    pub ratio: Option<f64>,
}}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[serde(rename_all = "camelCase")]
pub struct Port{i} {{
    #[kubeskema(max_length = 15)]
    pub name: String,
    #[kubeskema(minimum = 1, maximum = 65535)]
    pub container_port: i32,
}}

#[derive(Clone, Copy, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub enum Mode{i} {{
    Fast,
    Slow,
}}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[serde(rename_all = "camelCase")]
pub struct Thing{i}Status {{
    pub ready_replicas: Option<i32>,
    pub message: Option<String>,
}}
'''

SPEC_KD = '''
/// What a Thing{i} should be.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[kube(group = "bench.example.com", version = "v1", kind = "Thing{i}", namespaced, status = "Thing{i}Status")]
#[serde(rename_all = "camelCase")]
pub struct Thing{i}Spec {{
    /// Its name.
    #[schemars(length(min = 1, max = 63), regex(pattern = "^[a-z0-9-]+$"))]
    pub name: String,
    /// How many.
    #[schemars(range(min = 0, max = 100))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[schemars(length(max = 16), inner(length(max = 32)))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode{i}>,
    #[schemars(length(max = 8))]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ports: Option<Vec<Port{i}>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
}}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Port{i} {{
    #[schemars(length(max = 15))]
    pub name: String,
    #[schemars(range(min = 1, max = 65535))]
    pub container_port: i32,
}}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, JsonSchema)]
pub enum Mode{i} {{
    Fast,
    Slow,
}}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Thing{i}Status {{
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ready_replicas: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}}
'''

TIME_MAIN = r'''//! The CRD of one resource type built by kubeskema and by kube-derive + schemars, interleaved
//! in one run: the median of each and their ratio. kubeskema's `definition()` builds once and then
//! hands out the same CRD; the first build is `CustomResourceDefinition::of`.
use std::time::Instant;

use kube::core::CustomResourceExt;
use kubeskema::resource::{CustomResource, CustomResourceDefinition};
use kubeskema::schema::of_types::Docs;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds = 2000;
    let (mut build, mut cached, mut peer) = (Vec::new(), Vec::new(), Vec::new());
    let mut sink = 0usize;
    for _ in 0..rounds {
        let t = Instant::now();
        let crd = CustomResourceDefinition::of::<ks::Thing0>(Docs::All);
        build.push(t.elapsed().as_secs_f64() * 1e6);
        sink += crd.name().len();
        let t = Instant::now();
        sink += <ks::Thing0 as CustomResource>::definition().name().len();
        cached.push(t.elapsed().as_secs_f64() * 1e6);
        let t = Instant::now();
        let k = kd::Thing0::crd();
        peer.push(t.elapsed().as_secs_f64() * 1e6);
        sink += k.spec.versions.len();
    }
    let (b, c, p) = (median(build), median(cached), median(peer));
    println!("crd() of one resource type, median of {rounds} interleaved rounds (sink {sink}):");
    println!("  kubeskema, first build (CustomResourceDefinition::of): {b:.1} us");
    println!("  kubeskema, definition() (built once):                     {c:.3} us");
    println!("  kube-derive + schemars, crd():                          {p:.1} us");
    println!("summary: kubeskema first build vs kube-derive {:.2}x; cached crd() vs kube-derive {:.4}x", b / p, c / p);
}
'''


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: gen.py N OUT KUBESKEMA_RUNTIME_PATH")
    n, out, runtime = int(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3])
    for name in ("ks", "kd", "time"):
        os.makedirs(os.path.join(out, name, "src"), exist_ok=True)
    write(out, "ks/Cargo.toml", f'''[package]
name = "ks"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
kubeskema = {{ path = "{runtime}" }}
serde_json = "1"

[workspace]
''')
    ks = "".join(SPEC_KS.format(i=i) for i in range(n))
    three = "kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate"
    variants = {"ks": ks, "ks-schema": ks.replace(three, "kubeskema::Schema"),
                "ks-apply": ks.replace(three, "kubeskema::Schema, kubeskema::ApplyConfiguration")}
    for name, types in variants.items():
        os.makedirs(os.path.join(out, name, "src"), exist_ok=True)
        if name != "ks":
            with open(os.path.join(out, "ks/Cargo.toml")) as f:
                write(out, f"{name}/Cargo.toml", f.read().replace('name = "ks"', f'name = "{name}"'))
        write(out, f"{name}/src/lib.rs", "//! Generated by bench/peers/derive/gen.py.\n#![allow(missing_docs)]\nuse std::collections::BTreeMap;\n" + types)
    write(out, "kd/Cargo.toml", '''[package]
name = "kd"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
kube = { version = "5.0.0", default-features = false, features = ["derive"] }
k8s-openapi = { version = "0.29.0", default-features = false, features = ["std", "latest"] }
schemars = "1"
serde = { version = "1", features = ["derive"] }
serde_json = "1"

[workspace]
''')
    write(out, "kd/src/lib.rs", "//! Generated by bench/peers/derive/gen.py.\n#![allow(missing_docs)]\nuse std::collections::BTreeMap;\nuse kube::CustomResource;\nuse schemars::JsonSchema;\nuse serde::{Deserialize, Serialize};\n"
          + "".join(SPEC_KD.format(i=i) for i in range(n)))
    write(out, "time/Cargo.toml", f'''[package]
name = "crd-time"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
ks = {{ path = "../ks" }}
kd = {{ path = "../kd" }}
kubeskema = {{ path = "{runtime}" }}
kube = {{ version = "5.0.0", default-features = false, features = ["derive"] }}
k8s-openapi = {{ version = "0.29.0", default-features = false, features = ["std", "latest"] }}

[profile.release]
debug = false

[workspace]
''')
    write(out, "time/src/main.rs", TIME_MAIN)


def write(out, rel, text):
    with open(os.path.join(out, rel), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
