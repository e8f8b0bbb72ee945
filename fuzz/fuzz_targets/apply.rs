//! Server-side apply on any live object, applied configuration and managed fields (issue 49):
//! no panic, no stack overflow, no hang. The input's `\u{1}` separates three JSON texts: the
//! live object (absent or not an object: create by apply), the configuration, and the live
//! object's `metadata.managedFields`; its first byte picks the manager, `force`, the endpoint
//! and which of two CRDs (one with every list and map kind, one with versions that convert).
//! What an apply stores must read back: applied again, extracted, its managed fields decoded.
#![no_main]

use std::sync::OnceLock;

use kubeskema::apply::{Options, Resource, Subresource};
use kubeskema::crd::Crd;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

fn schema() -> Value {
    json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "port"],
              "items": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string"}, "port": {"type": "integer", "default": 80},
                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "any": {"x-kubernetes-preserve-unknown-fields": true}}}},
            "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}},
            "atomic": {"type": "array", "items": {"type": "string"}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "frozen": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {"a": {"type": "string"}}},
            "port": {"x-kubernetes-int-or-string": true},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "replicas": {"type": "integer", "default": 1}}},
        "status": {"type": "object", "properties": {"phase": {"type": "string"}}}}})
}

/// Two CRDs: one version with a status subresource; two versions (v1 stored, v2 served).
fn crds() -> &'static [Crd; 2] {
    static CRDS: OnceLock<[Crd; 2]> = OnceLock::new();
    CRDS.get_or_init(|| {
        let crd = |versions: Value| {
            Crd::parse(&json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
              "metadata": {"name": "things.example.com"},
              "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"kind": "Thing", "plural": "things", "singular": "thing", "listKind": "ThingList"},
                "versions": versions}}))
            .0
        };
        let version = |name: &str, storage: bool| {
            json!({"name": name, "served": true, "storage": storage, "schema": {"openAPIV3Schema": schema()},
                   "subresources": {"status": {}}})
        };
        [crd(json!([version("v1", true)])), crd(json!([version("v1", true), version("v2", false)]))]
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let mut parts = text.split('\u{1}');
    let mut next = || parts.next().and_then(|part| serde_json::from_str::<Value>(part).ok());
    let (live, applied, managed_fields) = (next(), next(), next());
    let Some(applied) = applied else { return };
    let mut live = live.filter(Value::is_object);
    if let (Some(live), Some(fields)) = (live.as_mut(), managed_fields) {
        if let Some(meta) = live.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.insert("managedFields".into(), fields);
        }
    }
    let crd = &crds()[usize::from(mode & 1)];
    let version = if mode & 2 != 0 && crd.versions.len() > 1 { "v2" } else { "v1" };
    let Some(resource) = Resource::new(crd, version) else { return };
    let manager = ["a", "b", "kubectl", ""][usize::from(mode >> 2 & 3)];
    let subresource = if mode & 16 != 0 { Subresource::Status } else { Subresource::Main };
    let options = Options { manager, force: mode & 32 != 0, now: "2026-11-27T00:00:00Z", subresource };
    let Ok(stored) = resource.apply(live.as_ref(), &applied, &options) else { return };
    // What was stored reads back: as the live object of the same apply, and as the source of
    // the manager's extracted configuration.
    let _ = resource.apply(Some(&stored), &applied, &options);
    let _ = resource.extract(&stored, manager, subresource);
});
