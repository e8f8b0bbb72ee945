//! Shared helpers of the integration tests: where the corpus is, what its index says.

use std::path::{Path, PathBuf};

pub mod apply_corpus;
pub mod derived;
pub mod derived_native;
pub mod differential;
pub mod migrated;
pub mod oracle;
pub mod round_trip;
pub mod serde_shapes;

/// Every CRD version's schema in a CRD file, as written: `(apiVersion, kind, schema)`.
pub fn input_schemas(file: &Path) -> Vec<(String, String, serde_json::Value)> {
    use serde_json::Value;
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let docs = kubeskema::yaml::parse_documents(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut out = Vec::new();
    for doc in docs.iter().filter(|d| kubeskema::crd::is_crd(&d.value)) {
        let crd = &doc.value;
        let group = crd.pointer("/spec/group").and_then(Value::as_str).unwrap_or_default();
        let kind = crd.pointer("/spec/names/kind").and_then(Value::as_str).unwrap_or_default();
        for (version, schema) in round_trip::version_schemas(crd) {
            out.push((kubeskema::crd::api_version(group, &version), kind.to_owned(), schema));
        }
    }
    out
}

/// The shared corpus (`../shared/corpus` from the repository root), or `KUBESKEMA_CORPUS`.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("KUBESKEMA_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    }
}

/// The repository root.
pub fn repo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// One row of `instances/INDEX.tsv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The file, relative to the corpus.
    pub file: String,
    /// 0-based document index in the file.
    pub doc_index: usize,
    /// `apiVersion` of the object.
    pub api_version: String,
    /// `kind` of the object.
    pub kind: String,
    /// `metadata.name`.
    pub name: String,
    /// The CRD file, relative to the corpus.
    pub crd_file: String,
    /// What upstream expects: valid, invalid, unknown, template, ...
    pub expect: String,
}

impl Instance {
    /// The corpus folder (`owner__repo`) the instance belongs to.
    pub fn repo(&self) -> &str {
        self.crd_file.split('/').nth(1).unwrap_or_default()
    }
}

/// Every row of the corpus index.
pub fn instances() -> Vec<Instance> {
    let text = std::fs::read_to_string(corpus_dir().join("instances/INDEX.tsv")).expect("the corpus index is readable");
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            let [file, doc, api_version, kind, name, crd_file, expect] = cols[..] else {
                return None;
            };
            Some(Instance {
                file: file.into(),
                doc_index: doc.parse().ok()?,
                api_version: api_version.into(),
                kind: kind.into(),
                name: name.into(),
                crd_file: crd_file.into(),
                expect: expect.into(),
            })
        })
        .collect()
}

/// Runs `f` with the repository root as the working directory, so generated headers name
/// sources by their repository-relative path (as a user running from the root sees them).
/// Serialized: the working directory belongs to the whole test process.
pub fn in_repo_root<T>(f: impl FnOnce() -> T) -> T {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let old = std::env::current_dir().expect("a working directory");
    std::env::set_current_dir(repo_dir()).expect("the repository root exists");
    let out = f();
    std::env::set_current_dir(old).expect("the old working directory still exists");
    out
}

/// The corpus's CRD files, each read once: the CRD version an instance belongs to.
#[derive(Default)]
pub struct CorpusCrds(std::collections::HashMap<String, Vec<kubeskema::crd::Crd>>);

impl CorpusCrds {
    /// The CRD and version of the instance's `apiVersion` and `kind` in its `crd_file`.
    pub fn version_of(&mut self, inst: &Instance) -> Option<(&kubeskema::crd::Crd, &kubeskema::crd::CrdVersion)> {
        let list = self.0.entry(inst.crd_file.clone()).or_insert_with(|| {
            let text = std::fs::read_to_string(corpus_dir().join(&inst.crd_file)).expect("corpus CRD is readable");
            kubeskema::yaml::parse_documents(&text)
                .expect("corpus CRD is YAML")
                .iter()
                .filter(|d| kubeskema::crd::is_crd(&d.value))
                .map(|d| kubeskema::crd::Crd::parse(&d.value).0)
                .collect()
        });
        let (group, version) = inst.api_version.rsplit_once('/').unwrap_or(("", &inst.api_version));
        list.iter()
            .find(|c| c.group == group && c.names.kind == inst.kind)
            .and_then(|c| c.version(version).map(|v| (c, v)))
    }
}

/// The corpus's manifest files, each read once.
#[derive(Default)]
pub struct CorpusDocuments(std::collections::HashMap<String, Vec<kubeskema::yaml::Document>>);

impl CorpusDocuments {
    /// The instance's document as JSON.
    pub fn value_of(&mut self, inst: &Instance) -> serde_json::Value {
        let docs = self.0.entry(inst.file.clone()).or_insert_with(|| {
            let text = std::fs::read_to_string(corpus_dir().join(&inst.file)).expect("corpus file is readable");
            kubeskema::yaml::parse_documents(&text).expect("corpus file is YAML")
        });
        docs[inst.doc_index].value.clone()
    }
}

/// Every corpus CRD compiled into types (feature `corpus`, written by the build script), and
/// `typed`: deserialize a corpus object into its root type, validate it, serialize it back.
/// Here in the library so the corpus is compiled once for all the tests that use it.
#[cfg(feature = "corpus")]
pub mod corpus_conversions;

#[cfg(feature = "corpus")]
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/corpus.rs"));
}

/// The golden fixtures (`fixtures/golden/*.yaml`, sorted, then the demo
/// `fixtures/crds/widgets.yaml`), as absolute paths.
pub fn golden_fixtures() -> Vec<std::path::PathBuf> {
    let root = repo_dir().join("fixtures");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("golden"))
        .expect("fixtures/golden exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files.push(root.join("crds/widgets.yaml"));
    files
}
