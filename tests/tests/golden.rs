//! Golden files: the generated code for each of the project's fixtures, one feature each
//! (`fixtures/golden/*.yaml`, plus the demo `fixtures/crds/widgets.yaml`). Review changes
//! with `cargo insta review`; the snapshots are compiled by this crate's build script
//! (see `golden_files_compile` below), so a golden file that does not build fails the build.

use std::path::PathBuf;

use kubeskema_codegen::pipeline::{self, Options};

fn fixtures() -> Vec<PathBuf> {
    let root = kubeskema_tests::repo_dir().join("fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("golden"))
        .expect("fixtures/golden exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files.push(root.join("crds/widgets.yaml"));
    files
}

#[test]
fn generated_code_matches_the_golden_files() {
    for fixture in fixtures() {
        let stem = fixture.file_stem().unwrap().to_string_lossy().into_owned();
        // Relative paths keep the @generated header independent of the checkout's location.
        let relative =
            PathBuf::from("fixtures").join(fixture.strip_prefix(kubeskema_tests::repo_dir().join("fixtures")).unwrap());
        let generation =
            kubeskema_tests::in_repo_root(|| pipeline::run(std::slice::from_ref(&relative), Options::default()))
                .unwrap_or_else(|d| panic!("{} does not generate:\n{d}", fixture.display()));
        assert!(generation.warnings.is_empty(), "{:?}", generation.warnings);
        for module in &generation.modules {
            let name = format!("{stem}__{}", module.path.join("_"));
            insta::assert_snapshot!(name, module.code);
        }
    }
}

#[test]
fn generation_is_deterministic() {
    let all = fixtures();
    let first = pipeline::run(&all, Options::default()).unwrap();
    let second = pipeline::run(&all, Options::default()).unwrap();
    assert_eq!(first.modules, second.modules);
}

mod golden_files_compile {
    //! Every snapshot above, compiled: the build script turns `snapshots/golden__*.snap` into
    //! modules of this test. Using a few of the types proves they are the ones expected.
    #![allow(dead_code)]
    include!(concat!(env!("OUT_DIR"), "/golden.rs"));

    #[test]
    fn the_demo_widget_reads_and_writes_as_the_apiserver_would() {
        use widgets__example_com_v1::*;
        let w: Widget = serde_json::from_value(serde_json::json!({
            "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
            "spec": {"type": "Small", "ports": [{"name": "http", "port": 80}], "config": {"mode": "x", "extra": 1},
                     "source": {"git": "https://example.com/r.git"}}
        }))
        .unwrap();
        let spec = w.spec.as_ref().unwrap();
        assert_eq!(spec.replicas, 1, "default applied");
        assert_eq!(spec.ports.as_ref().unwrap()[0].protocol, Protocol::Tcp, "nested default applied");
        assert_eq!(
            spec.source.as_ref().unwrap().one_of(),
            Some(SourceOneOf::Git(&"https://example.com/r.git".to_owned()))
        );
        let back = serde_json::to_value(&w).unwrap();
        assert_eq!(back["spec"]["config"], serde_json::json!({"mode": "x", "extra": 1}), "unknown fields preserved");
        assert_eq!(Widget::API_VERSION, "example.com/v1");
        assert!(kubeskema::Validate::validate(&w).is_empty());
    }

    #[test]
    fn the_demo_widget_validates_with_the_apiservers_messages() {
        use widgets__example_com_v1::*;
        let w: Widget = serde_json::from_value(serde_json::json!({
            "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
            "spec": {"type": "", "replicas": 11, "maxSurge": "lots", "labels": {"k": "x".repeat(64)},
                     "ports": [{"name": "a", "port": 1}, {"name": "a", "port": 2}]}
        }))
        .unwrap();
        let issues: Vec<String> = kubeskema::Validate::validate(&w).iter().map(ToString::to_string).collect();
        assert_eq!(
            issues,
            vec![
                "spec.labels.k: Too long: may not be more than 63 bytes",
                "spec.maxSurge: Invalid value: \"lots\": spec.maxSurge in body should match '^[0-9]+%?$'",
                "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
                "spec.ports[1]: Duplicate value: {\"name\":\"a\"}",
                "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            ],
            "the label's Too long keeps spec's CEL rule from running"
        );
    }

    #[test]
    fn the_demo_widget_checks_its_type_meta_and_metadata_as_the_apiserver_does() {
        use widgets__example_com_v1::*;
        let widget = |v: serde_json::Value| -> Vec<String> {
            let w: Widget = serde_json::from_value(v).unwrap();
            kubeskema::Validate::validate(&w).iter().map(ToString::to_string).collect()
        };
        assert_eq!(
            widget(
                serde_json::json!({"apiVersion": "example.com/v2", "kind": "Gadget", "spec": {"type": "Small", "replicas": 11}})
            ),
            vec![
                "kind: Invalid value: \"Gadget\": must be Widget",
                "apiVersion: Invalid value: \"example.com/v2\": must be example.com/v1"
            ],
            "a wrong kind or apiVersion stops everything else"
        );
        let issues = widget(serde_json::json!({
            "apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "Bad_Name", "labels": {"a": "-"}}, "spec": {"type": "Small", "replicas": 11}
        }));
        assert_eq!(issues.len(), 3, "{issues:#?}");
        assert!(issues[0].starts_with("metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"));
        assert!(issues[1].starts_with("metadata.labels: Invalid value: \"-\": a valid label must be"));
        assert_eq!(
            issues[2], "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
            "metadata first, then values; a maximum does not keep CEL rules from running"
        );
        let long_name = widget(serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "a".repeat(64)}, "spec": {"type": "Small"}}));
        assert_eq!(
            long_name,
            vec![
                "metadata.name: Too long: may not be more than 63 bytes",
                "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            ],
            "the schema's own limit on metadata.name, which blocks CEL"
        );
    }
}
