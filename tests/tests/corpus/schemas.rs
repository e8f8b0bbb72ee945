//! The round trip CRD → generated Rust → `T::schema()` over every generatable corpus CRD
//! version: the schema the derive gives each generated root type is the schema it came from,
//! up to the differences `kubeskema_tests::round_trip` lists (one file, each justified).
//! `cargo test -p kubeskema-tests --features corpus --test corpus schemas:: -- --nocapture`.

use std::collections::BTreeMap;

use kubeskema_tests::input_schemas;
use kubeskema_tests::round_trip::{first_difference, normalize};

#[test]
fn round_trip_schemas() {
    let crds = kubeskema_tests::corpus_dir().join("crds");
    // (folder, apiVersion, kind) → every copy of that version's schema in the folder.
    let mut inputs: BTreeMap<(String, String, String), Vec<serde_json::Value>> = BTreeMap::new();
    let mut folders: Vec<_> = std::fs::read_dir(&crds).unwrap().filter_map(|e| e.ok().map(|e| e.path())).collect();
    folders.sort();
    for folder in folders.iter().filter(|p| p.is_dir()) {
        let repo = folder.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<_> = std::fs::read_dir(folder).unwrap().filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "json")) {
            for (api_version, kind, schema) in input_schemas(file) {
                inputs.entry((repo.clone(), api_version, kind)).or_default().push(schema);
            }
        }
    }
    let (mut equal, mut differ) = (0, Vec::new());
    for (repo, api_version, kind, schema) in kubeskema_tests::generated::schemas() {
        let key = (repo.to_owned(), api_version.to_owned(), kind.to_owned());
        let copies = inputs.get(&key).unwrap_or_else(|| panic!("no input CRD for {key:?}"));
        let derived = normalize(&schema());
        // A folder may hold copies of one CRD; code generation took one of them.
        let differences: Vec<String> =
            copies.iter().filter_map(|input| first_difference(&normalize(input), &derived)).collect();
        if differences.len() < copies.len() {
            equal += 1;
        } else {
            differ.push(format!("{repo} {api_version} {kind}: {}", differences[0]));
        }
    }
    println!("round trip schemas: {equal} equal, {} differ", differ.len());
    for d in &differ {
        println!("  {d}");
    }
    assert!(differ.is_empty(), "{} of {} corpus versions do not round-trip", differ.len(), equal + differ.len());
}
