//! Golden files: the generated code for each of the project's fixtures, one feature each
//! (`fixtures/golden/*.yaml`, plus the demo `fixtures/crds/widgets.yaml`). Review changes
//! with `cargo insta review`; the snapshots are compiled by this crate's build script
//! (see `golden_files_compile` below), so a golden file that does not build fails the build.

use std::path::PathBuf;

use kubeskema_codegen::__internal::pipeline::{self, Options};

#[test]
fn generated_code_matches_the_golden_files() {
    for fixture in kubeskema_tests::golden_fixtures() {
        let stem = fixture.file_stem().unwrap().to_string_lossy().into_owned();
        // Relative paths keep the @generated header independent of the checkout's location.
        let relative =
            PathBuf::from("fixtures").join(fixture.strip_prefix(kubeskema_tests::repo_dir().join("fixtures")).unwrap());
        // The differential tests (`cel_native.rs`) compare these fixtures' rules compiled to
        // Rust with their interpretation, which needs CEL values; the others show the default.
        let interpretable =
            ["cel_environment", "cel_native", "shared_across_modules", "validations"].contains(&stem.as_str());
        let options = Options { interpretable, ..Options::default() };
        let generation = kubeskema_tests::in_repo_root(|| pipeline::run(std::slice::from_ref(&relative), options))
            .unwrap_or_else(|d| panic!("{} does not generate:\n{d}", fixture.display()));
        assert!(generation.warnings.is_empty(), "{:?}", generation.warnings);
        for module in &generation.modules {
            let name = format!("{stem}__{}", module.path.join("__"));
            insta::assert_snapshot!(name, module.code);
        }
    }
}

#[test]
fn kube_mode_matches_its_golden_file() {
    let relative = PathBuf::from("fixtures/crds/widgets.yaml");
    let options = Options { kube: true, ..Options::default() };
    let generation = kubeskema_tests::in_repo_root(|| pipeline::run(std::slice::from_ref(&relative), options))
        .unwrap_or_else(|d| panic!("widgets.yaml does not generate in kube-rs mode:\n{d}"));
    for module in &generation.modules {
        insta::assert_snapshot!(format!("kube_widgets__{}", module.path.join("__")), module.code);
    }
}

/// kube-rs mode writes a CRD's JSON once, in its first version's module, whatever the number
/// of versions (a copy in every version's module grew with versions^2: 1,000 versions made
/// 247 MB); the others refer to it.
#[test]
fn kube_mode_writes_each_crds_json_once() {
    let versions: Vec<serde_json::Value> = (1..=30)
        .map(|i| {
            serde_json::json!({"name": format!("v{i}"), "served": true, "storage": i == 1,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object"}}}}})
        })
        .collect();
    let crd = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"kind": "Widget", "plural": "widgets"},
            "versions": versions}});
    let dir = std::env::temp_dir().join(format!("kubeskema-versions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("widgets.json");
    std::fs::write(&file, crd.to_string()).unwrap();
    let generation = pipeline::run(&[file], Options { kube: true, ..Options::default() }).unwrap();
    assert_eq!(generation.modules.len(), 30);
    let copies: usize =
        generation.modules.iter().map(|m| m.code.matches("\"kind\": \"CustomResourceDefinition\"").count()).sum();
    assert_eq!(copies, 1);
    // Pretty-printed, out of the way of grep: no line of it is longer than the schema's lines.
    let longest = generation.modules[0].code.lines().map(str::len).max().unwrap();
    assert!(longest < 200, "a {longest}-byte line");
    let first = &generation.modules[0];
    assert_eq!(first.path, ["example_com", "v1"]);
    assert!(first.code.contains("pub const CRD_JSON_WIDGETS: &str = r#\"{"));
    for module in &generation.modules[1..] {
        assert!(module.code.contains("crd_json = \"super::v1::CRD_JSON_WIDGETS\""), "{}", module.code);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Arrays nested as deep as a CRD file can hold (the reader refuses more than 128 levels)
/// generate, with the check and emit walks on a 2 MiB thread (they overflowed near 200).
#[test]
fn deeply_nested_arrays_generate_without_overflow() {
    let mut deep = serde_json::json!({"type": "string"});
    for _ in 0..118 {
        deep = serde_json::json!({"type": "array", "items": deep});
    }
    let crd = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"kind": "Widget", "plural": "widgets"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object",
                "properties": {"spec": {"type": "object", "properties": {"deep": deep}}}}}}]}});
    let dir = std::env::temp_dir().join(format!("kubeskema-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("widgets.json");
    std::fs::write(&file, crd.to_string()).unwrap();
    let code = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let plain = pipeline::run(std::slice::from_ref(&file), Options::default()).unwrap();
            let kube = pipeline::run(&[file], Options { kube: true, ..Options::default() }).unwrap();
            (plain.modules[0].code.clone(), kube.modules.len())
        })
        .unwrap()
        .join()
        .expect("no overflow");
    assert!(code.0.matches("Vec<").count() >= 118, "{}", code.0);
    assert_eq!(code.1, 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn generation_is_deterministic() {
    let all = kubeskema_tests::golden_fixtures();
    let first = pipeline::run(&all, Options::default()).unwrap();
    let second = pipeline::run(&all, Options::default()).unwrap();
    assert_eq!(first.modules, second.modules);
}

mod golden_files_compile {
    //! Every snapshot above, compiled: the build script turns `snapshots/golden__*.snap` into
    //! modules of this test. Using a few of the types proves they are the ones expected.
    #![allow(dead_code, reason = "every golden type is compiled; the tests use a few")]
    include!(concat!(env!("OUT_DIR"), "/golden.rs"));

    /// CRD → generated Rust → `T::schema()` gives the schema back, up to the differences
    /// `kubeskema_tests::round_trip` lists: the generated attributes lose nothing.
    #[test]
    fn derived_schemas_are_the_input_schemas() {
        use kubeskema_codegen::__internal::pipeline::{self, Options};
        use kubeskema_tests::input_schemas;
        use kubeskema_tests::round_trip::{first_difference, normalize};
        let (mut equal, mut differ) = (0, Vec::new());
        // Each fixture as generated, and the demo CRD in kube-rs mode (k8s-openapi's types).
        let demo = kubeskema_tests::repo_dir().join("fixtures/crds/widgets.yaml");
        let cases = kubeskema_tests::golden_fixtures()
            .into_iter()
            .map(|f| (f.file_stem().unwrap().to_string_lossy().into_owned(), f, false))
            .chain([("kube_widgets".to_owned(), demo, true)]);
        for (stem, fixture, kube) in cases {
            let options = Options { kube, ..Options::default() };
            let generation = pipeline::run(std::slice::from_ref(&fixture), options).unwrap();
            let inputs = input_schemas(&fixture);
            for (_, group, version, ty, schema) in roots().into_iter().filter(|r| r.0 == stem) {
                let module = generation.modules.iter().find(|m| m.path == [group, version]).expect("module generated");
                let (api_version, kind, _) = module.roots.iter().find(|r| r.2 == ty).expect("root generated");
                let (_, _, input) =
                    inputs.iter().find(|(a, k, _)| a == api_version && k == kind).expect("input CRD version");
                match first_difference(&normalize(input), &normalize(&schema())) {
                    None => equal += 1,
                    Some(d) => differ.push(format!("{stem} {api_version} {kind}: {d}")),
                }
            }
        }
        assert!(differ.is_empty(), "{equal} equal, {} differ:\n{}", differ.len(), differ.join("\n"));
        assert!(equal > 25, "{equal}");
    }

    /// Types alike across modules are one type: v1's `Endpoint` is v1alpha1's `Target` and
    /// ops.example.com's `Target`, each module reads and checks it, and a rule of v1alpha1
    /// reads it where v1 defines it.
    #[test]
    fn modules_share_the_types_they_repeat() {
        use shared_across_modules::net_example_com::{v1, v1alpha1};
        use shared_across_modules::ops_example_com::v1 as ops;
        let endpoint = v1::Endpoint { host: "db".into(), port: Some(0), protocol: Some(v1::Protocol::Tcp) };
        let target: v1alpha1::TunnelSpecTarget = endpoint.clone();
        let probe_target: ops::ProbeSpecTarget = target.clone();
        assert_eq!(probe_target, endpoint);
        let issues = |object: serde_json::Value| -> Vec<String> {
            let read = match object["apiVersion"].as_str() {
                Some("ops.example.com/v1") => {
                    kubeskema::decode::from_value::<ops::Probe>(&object, &Default::default()).issues
                }
                _ => kubeskema::decode::from_value::<v1alpha1::Tunnel>(&object, &Default::default()).issues,
            };
            read.iter().map(ToString::to_string).collect()
        };
        let probe = serde_json::json!({"apiVersion": "ops.example.com/v1", "kind": "Probe", "metadata": {"name": "p"},
            "spec": {"targets": [{"host": "db", "port": 0, "protocol": "SCTP"}]}});
        assert_eq!(
            issues(probe),
            [
                // An enum's value is refused as it is read; the value checks come after.
                "spec.targets[0].protocol: Unsupported value: \"SCTP\": supported values: \"TCP\", \"UDP\"",
                "spec.targets[0].port: Invalid value: 0: spec.targets[0].port in body should be greater than or equal to 1",
            ]
        );
        let tunnel = serde_json::json!({"apiVersion": "net.example.com/v1alpha1", "kind": "Tunnel", "metadata": {"name": "t"},
            "spec": {"target": {"host": "localhost"}}});
        assert_eq!(issues(tunnel), ["spec: Invalid value: a tunnel leaves the host"]);
    }

    /// Generated code checks rules against the schema's types: a set compares without order.
    #[test]
    fn generated_rules_see_set_lists_as_sets() {
        use cel_environment::cel_example_com::v1::*;
        use kubeskema::Validate;
        let route = |tags: serde_json::Value| -> Route {
            serde_json::from_value(serde_json::json!({
                "apiVersion": "cel.example.com/v1", "kind": "Route", "metadata": {"name": "r"},
                "spec": {"size": 1, "timeout": "1m", "since": "2024-01-01T00:00:00Z", "memory": "1Mi",
                         "cidr": "10.0.0.0/8", "link": "https://example.com", "label": "a-b", "version": "1.2.3",
                         "tags": tags}}))
            .unwrap()
        };
        let old = route(serde_json::json!(["a", "b"]));
        assert_eq!(old.validate(), vec![]);
        assert_eq!(route(serde_json::json!(["b", "a"])).validate_update(&old), vec![]);
        let changed: Vec<String> =
            route(serde_json::json!(["a", "c"])).validate_update(&old).iter().map(ToString::to_string).collect();
        assert_eq!(changed, ["spec: Invalid value: tags are fixed, in any order"]);
    }

    #[test]
    fn the_demo_widget_reads_and_writes_as_the_apiserver_would() {
        use widgets::example_com::v1::*;
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
            Some(WidgetSpecSourceOneOf::Git(&"https://example.com/r.git".to_owned()))
        );
        let back = serde_json::to_value(&w).unwrap();
        assert_eq!(back["spec"]["config"], serde_json::json!({"mode": "x", "extra": 1}), "unknown fields preserved");
        assert_eq!(Widget::API_VERSION, "example.com/v1");
        assert!(kubeskema::Validate::validate(&w).is_empty());
    }

    /// `Default` where no field must be given, `new(...)` with those that must, setters for
    /// the rest: each value is the one the read makes of the object holding what was given
    /// (issue 50).
    #[test]
    fn constructors_make_what_the_read_makes() {
        use serde_json::{from_value, json};
        {
            use defaults::defaults_example_com::v1::*;
            assert_eq!(TuningSpec::default(), from_value::<TuningSpec>(json!({})).unwrap(), "defaults filled");
            assert_eq!(TuningSpec::default().limits.memory, "1Gi", "nested defaults too");
            let t = Tuning::new("t", TuningSpec::default().with_replicas(5));
            let read: Tuning = from_value(json!({
                "apiVersion": "defaults.example.com/v1", "kind": "Tuning", "metadata": {"name": "t"},
                "spec": {"replicas": 5}
            }))
            .unwrap();
            assert_eq!(t, read);
        }
        use widgets::example_com::v1::*;
        let spec = WidgetSpec::new(WidgetSpecType::Small).with_min_replicas(1).with_note("n");
        let read: WidgetSpec = from_value(json!({"type": "Small", "minReplicas": 1, "note": "n"})).unwrap();
        assert_eq!(spec, read);
        assert_eq!(spec.note, Some(Some("n".to_owned())), "a nullable optional field's setter sets a value");
        assert_eq!(spec.replicas, 1, "the default of a field not given");
        let w = Widget::new("w", spec);
        assert_eq!((w.api_version.as_str(), w.kind.as_str()), ("example.com/v1", "Widget"));
        assert_eq!(w.metadata.name.as_deref(), Some("w"));
        let issues = kubeskema::Validate::validate(&w);
        assert!(issues.is_empty(), "{issues:?}");
    }

    #[test]
    fn the_demo_widget_validates_with_the_apiservers_messages() {
        use widgets::example_com::v1::*;
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
        use widgets::example_com::v1::*;
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

    /// An embedded resource's `metadata` schema is kept: derived code reports what the
    /// dynamic validator reports (`spec.pod.metadata.name: Too long`).
    #[test]
    fn embedded_resource_metadata_keeps_its_constraints() {
        use embedded::embed_example_com::v1::*;
        let object = serde_json::json!({"apiVersion": "embed.example.com/v1", "kind": "Wrapper", "metadata": {"name": "w"},
            "spec": {"pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "toolong"}}}});
        let w: Wrapper = serde_json::from_value(object.clone()).unwrap();
        let typed: Vec<String> = kubeskema::Validate::validate(&w).iter().map(ToString::to_string).collect();
        let text = std::fs::read_to_string(kubeskema_tests::repo_dir().join("fixtures/golden/embedded.yaml")).unwrap();
        let crd = kubeskema::crd::Crd::parse(&kubeskema::yaml::parse_documents(&text).unwrap().remove(0).value).0;
        let dynamic: Vec<String> = kubeskema::validate::ResourceValidator::new(&crd, &crd.versions[0])
            .validate_create(&object)
            .issues
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(typed, vec!["spec.pod.metadata.name: Too long: may not be more than 5 bytes"]);
        assert_eq!(typed, dynamic);
    }

    /// `enum` lists print whole and in the schema's order (`null` included), and a `null`
    /// never matches an enum even where the field is nullable (semantics §7.4): the derived
    /// code and the validating read say what the dynamic validator says.
    #[test]
    fn enum_lists_and_null_as_the_apiserver_reports_them() {
        use enums::enums_example_com::v1::*;
        let text = std::fs::read_to_string(kubeskema_tests::repo_dir().join("fixtures/golden/enums.yaml")).unwrap();
        let crd = kubeskema::crd::Crd::parse(&kubeskema::yaml::parse_documents(&text).unwrap().remove(0).value).0;
        let validator = kubeskema::validate::ResourceValidator::new(&crd, &crd.versions[0]);
        for color in [serde_json::json!("blue"), serde_json::Value::Null] {
            let object = serde_json::json!({"apiVersion": "enums.example.com/v1", "kind": "Palette", "metadata": {"name": "p"},
                "spec": {"nullableColor": color}});
            let dynamic: Vec<String> =
                validator.validate_create(&object).issues.iter().map(ToString::to_string).collect();
            let read = kubeskema::decode::from_value::<Palette>(&object, &Default::default());
            let read: Vec<String> = read.issues.iter().map(ToString::to_string).collect();
            assert_eq!(read, dynamic, "{color}");
            assert_eq!(
                dynamic,
                vec![format!(
                    "spec.nullableColor: Unsupported value: {color}: supported values: \"red\", \"green\", \"null\""
                )]
            );
        }
        let plain = serde_json::from_value::<NullableColor>(serde_json::json!("blue")).unwrap_err().to_string();
        assert_eq!(plain, "Unsupported value: \"blue\": supported values: \"red\", \"green\", \"null\"");
    }

    /// Kinds that are Rust type names the module uses, or that collide after case
    /// conversion, are renamed deterministically; the kind itself stays as written.
    #[test]
    fn kinds_that_name_rust_types_are_renamed() {
        use kinds::kinds_example_com::v1::*;
        assert_eq!([Self2::KIND, String2::KIND, Foo::KIND, Foo2::KIND], ["Self", "String", "Foo", "foo"]);
    }

    mod kube_mode {
        //! The kube-rs mode's Widget: kube's traits, the CRD given back, and k8s-openapi's
        //! `Condition`/`ObjectReference`/`ObjectMeta` validated exactly as the dynamic
        //! validator validates the same JSON against the CRD.
        use super::kube_widgets::example_com::v1::*;
        use kubeskema::kube_core::crd::v1::CustomResourceExt;
        use kubeskema::kube_core::object::HasStatus;
        use kubeskema::kube_core::{Resource, ResourceExt};
        use serde_json::json;

        fn crd_json() -> serde_json::Value {
            let text = std::fs::read_to_string(kubeskema_tests::repo_dir().join("fixtures/crds/widgets.yaml")).unwrap();
            kubeskema::yaml::parse_documents(&text).unwrap().remove(0).value
        }

        /// The dynamic validator's issues for `object` (create), as strings.
        fn dynamic(object: &serde_json::Value) -> Vec<String> {
            let (crd, errors) = kubeskema::crd::Crd::parse(&crd_json());
            assert!(errors.is_empty(), "{errors:?}");
            let outcome = kubeskema::validate::ResourceValidator::new(&crd, &crd.versions[0]).validate_create(object);
            outcome.issues.iter().map(ToString::to_string).collect()
        }

        fn typed(object: &serde_json::Value) -> Vec<String> {
            let w: Widget = serde_json::from_value(object.clone()).unwrap();
            kubeskema::Validate::validate(&w).iter().map(ToString::to_string).collect()
        }

        #[test]
        fn implements_kubes_traits_and_gives_the_crd_back() {
            assert_eq!(Widget::kind(&()), "Widget");
            assert_eq!(Widget::api_version(&()), "example.com/v1");
            assert_eq!(Widget::plural(&()), "widgets");
            assert_eq!(Widget::url_path(&(), Some("ns")), "/apis/example.com/v1/namespaces/ns/widgets");
            assert_eq!(Widget::crd_name(), "widgets.example.com");
            assert_eq!(Widget::shortnames(), ["wd"]);
            let exact: serde_json::Value = serde_json::from_str(Widget::CRD_JSON).unwrap();
            assert_eq!(exact, crd_json(), "the CRD comes back exactly as it was written");
            assert_eq!(Widget::crd(), serde_json::from_value(crd_json()).unwrap(), "and as k8s-openapi's type");

            let mut w = Widget::new("w", WidgetSpec::new(WidgetSpecType::Small));
            assert_eq!(w.name_any(), "w");
            assert!(w.status().is_none());
            w.status_mut().get_or_insert_with(|| serde_json::from_value(json!({})).unwrap()).ready = Some(true);
            assert_eq!(Widget::SCALE.unwrap().spec_replicas_path, ".spec.replicas");
            assert_eq!(
                Widget::PRINTER_COLUMNS.iter().map(|c| c.name).collect::<Vec<_>>(),
                ["Replicas", "Ready", "Age"]
            );
            const { assert!(Widget::STATUS_SUBRESOURCE) };
            assert!(kubeskema::Validate::validate(&w).is_empty());
        }

        #[test]
        fn known_types_validate_as_their_schema() {
            let object = json!({
                "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "ns"},
                "spec": {"type": "Small", "owner": {"kind": "Pod", "name": "p"}},
                "status": {"conditions": [
                    {"type": "Ready", "status": "Maybe", "reason": "not ready", "message": "",
                     "lastTransitionTime": "2026-11-22T10:00:00Z", "observedGeneration": -1},
                    {"type": "Ready", "status": "True", "reason": "Done", "message": "",
                     "lastTransitionTime": "2026-11-22T10:00:00Z"}
                ]}
            });
            let issues = typed(&object);
            assert_eq!(issues, dynamic(&object), "typed and dynamic agree");
            assert_eq!(
                issues,
                [
                    "status.conditions[0].observedGeneration: Invalid value: -1: status.conditions[0].observedGeneration in body should be greater than or equal to 0",
                    "status.conditions[0].reason: Invalid value: \"not ready\": status.conditions[0].reason in body should match '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'",
                    "status.conditions[0].status: Unsupported value: \"Maybe\": supported values: \"True\", \"False\", \"Unknown\"",
                    "status.conditions[1]: Duplicate value: {\"type\":\"Ready\"}",
                    "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
                ]
            );
        }

        #[test]
        fn the_validating_read_reports_what_a_condition_cannot_hold() {
            let object = json!({
                "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                "spec": {"type": "Small"},
                "status": {"conditions": [
                    {"type": "Ready", "status": "True", "reason": "Done", "message": "", "lastTransitionTime": "yesterday", "extra": 1}
                ]}
            });
            let options = kubeskema::decode::Options {
                unknown_fields: kubeskema::decode::UnknownFields::Strict,
                ..Default::default()
            };
            let read = kubeskema::decode::from_value::<Widget>(&object, &options);
            let issues: Vec<String> = read.issues.iter().map(ToString::to_string).collect();
            assert!(issues.iter().any(|i| i.contains("status.conditions[0].extra")), "{issues:#?}");
            assert!(
                issues
                    .iter()
                    .any(|i| i.starts_with("status.conditions[0].lastTransitionTime: Invalid value: \"yesterday\"")),
                "{issues:#?}"
            );
            let dynamic = dynamic(&object);
            assert!(
                dynamic.iter().any(|i| i.starts_with("status.conditions[0].lastTransitionTime: Invalid value")),
                "{dynamic:#?}"
            );
        }

        #[test]
        fn int_or_string_converts_to_k8s_openapi() {
            use kubeskema::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString as K8s;
            let ours = kubeskema::IntOrString::String("25%".into());
            assert_eq!(K8s::try_from(ours.clone()).unwrap(), K8s::String("25%".into()));
            assert_eq!(kubeskema::IntOrString::from(K8s::Int(3)), kubeskema::IntOrString::Int(3));
        }
    }
}
