//! kube-derive-style types moved to kubeskema's derive (`kubeskema_tests::migrated`) read as
//! serde reads them, build with `new`, and give a CRD kube-apiserver 1.36.3 accepts (its
//! verdict is recorded with the other derived CRDs: `tests/tests/derived.rs`).

use kubeskema::Validate;
use kubeskema::resource::CustomResource;
use kubeskema_tests::migrated::*;
use serde_json::json;

/// serde's `default` on a field fills it with `Default::default()`, `default = "path"` with
/// the function's value, and on a struct with the struct's `Default`: as serde's own derive.
#[test]
fn serde_defaults_fill_absent_fields_as_serde_does() {
    let backup: Backup = serde_json::from_value(json!({
        "apiVersion": "migrated.example.com/v1", "kind": "Backup", "metadata": {"name": "b"},
        "spec": {"schedule": "@daily", "method": {"type": "dump", "database": "db"},
                 "targets": [{"name": "t"}], "limits": {"maxFiles": 5}}
    }))
    .unwrap();
    let spec = &backup.spec;
    assert_eq!((spec.suspend, spec.concurrency, spec.retention_days), (false, 2, None));
    assert_eq!(spec.targets, [Target { name: "t".into(), paths: vec![] }]);
    assert_eq!(spec.method, Method::Dump { database: "db".into(), compress: false });
    assert_eq!(spec.limits, Limits { max_bytes: 1 << 30, max_files: 5 }, "from `Limits::default()`");
    // `null` reads as absent, as the apiserver's null pruning leaves it.
    let nulls: BackupSpec = serde_json::from_value(json!({
        "schedule": "@daily", "method": {"type": "snapshot", "volume": "v"}, "suspend": null, "limits": null
    }))
    .unwrap();
    assert_eq!((nulls.suspend, nulls.limits.max_files), (false, 1000));
    assert!(backup.validate().is_empty());
}

/// A field serde's `default` covers is not required in the schema, and gets no schema
/// default (the apiserver leaves it absent; the read fills it).
#[test]
fn serde_defaults_make_fields_optional_in_the_schema() {
    let crd = Backup::definition().to_json().clone();
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert_eq!(spec["required"], json!(["schedule", "method"]), "in field order");
    assert!(spec["properties"]["suspend"].get("default").is_none());
    assert!(spec["properties"]["limits"].get("required").is_none());
}

/// The root needs no `rename` or `default_json`: `api_version` is `apiVersion`, an absent
/// `metadata` reads as `{}`, and `new(name, spec)` fills `apiVersion` and `kind`.
#[test]
fn the_root_reads_and_builds_without_boilerplate() {
    let read: Backup = serde_json::from_value(json!({
        "apiVersion": "migrated.example.com/v1", "kind": "Backup",
        "spec": {"schedule": "@daily", "method": {"type": "snapshot", "volume": "v"}}
    }))
    .unwrap();
    assert_eq!(read.metadata, kubeskema::ObjectMeta::default());
    let spec = read.spec.clone();
    let built = Backup::new("b", spec);
    assert_eq!((built.api_version.as_str(), built.kind.as_str()), ("migrated.example.com/v1", "Backup"));
    assert_eq!(built.metadata.name.as_deref(), Some("b"));
    assert_eq!(built.status, None);
    assert_eq!(serde_json::to_value(&built).unwrap()["apiVersion"], "migrated.example.com/v1");
}
