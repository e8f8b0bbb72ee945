//! A resource written for kube-derive and schemars, moved to kubeskema's derive (issue 50).
//!
//! Below the root, only the derive lines changed: what was
//! `#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]`
//! is kubeskema's three derives, and every `#[serde(...)]` stayed as it was, `default` on
//! optional and non-optional fields and on a struct, `default = "path"`, `skip_serializing_if`,
//! `rename_all`, an internally tagged enum. The root is kubeskema's spelling of kube's
//! `#[kube(...)]`: a struct with `resource(...)` and no attribute on its fields.
//! `tests/tests/migration.rs` reads and builds it; the apiserver's verdict on its CRD is
//! recorded with the other derived CRDs (`fixtures/derived/verdicts.json`).

use kubeskema::ObjectMeta;
use kubeskema::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(resource(group = "migrated.example.com", version = "v1", kind = "Backup", status = true))]
pub struct Backup {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    pub spec: BackupSpec,
    pub status: Option<BackupStatus>,
}

/// What to back up, and when.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[serde(rename_all = "camelCase")]
pub struct BackupSpec {
    /// A cron schedule.
    pub schedule: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_days: Option<i32>,
    #[serde(default)]
    pub suspend: bool,
    #[serde(default)]
    pub targets: Vec<Target>,
    #[serde(default = "default_concurrency")]
    pub concurrency: u32,
    pub method: Method,
    #[serde(default)]
    pub limits: Limits,
}

fn default_concurrency() -> u32 {
    2
}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    pub name: String,
    #[serde(default)]
    pub paths: Vec<String>,
}

/// serde's struct-level `default`: a field left out takes the value of `Limits::default()`.
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[serde(default, rename_all = "camelCase")]
pub struct Limits {
    pub max_bytes: i64,
    pub max_files: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_bytes: 1 << 30, max_files: 1000 }
    }
}

/// How the backup is taken: an internally tagged enum, as schemars and kube-derive refuse it
/// (kube-derive's `crd()` panics on its `oneOf`).
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Method {
    Snapshot {
        volume: String,
    },
    Dump {
        database: String,
        #[serde(default)]
        compress: bool,
    },
}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[serde(rename_all = "camelCase")]
pub struct BackupStatus {
    #[serde(default)]
    pub conditions: Vec<Condition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run: Option<String>,
}
