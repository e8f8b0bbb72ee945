//! `cargo kubeskema` and the pipeline on good and bad input: what a user sees.

use std::path::PathBuf;

use kubeskema_codegen::__internal::pipeline::{self, Options};
use kubeskema_codegen::__internal::write::{Dependency, write_crate};
use kubeskema_codegen::cli::{Args, Command, run};

fn fixture(rel: &str) -> PathBuf {
    kubeskema_tests::repo_dir().join("fixtures").join(rel)
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kubeskema-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn errors_of(rel: &str) -> String {
    match pipeline::run(&[fixture(rel)], Options::default()) {
        Ok(_) => panic!("{rel} should be refused"),
        Err(d) => d.to_string(),
    }
}

#[test]
fn generate_kube_writes_a_kube_rs_crate() {
    let out = scratch("generate-kube");
    let status = run(Args {
        command: Command::Generate {
            apply_configurations: false,
            hub: Vec::new(),
            paths: vec![fixture("crds/widgets.yaml")],
            out: out.clone(),
            crate_name: None,
            kubeskema_path: None,
            no_docs: true,
            skip_non_crds: false,
            kube: true,
            force: false,
        },
    });
    assert_eq!(status, 0);
    let manifest = std::fs::read_to_string(out.join("Cargo.toml")).unwrap();
    assert!(manifest.contains(r#"features = ["kube"]"#), "{manifest}");
    assert!(manifest.contains("k8s-openapi = "), "{manifest}");
    let code = std::fs::read_to_string(out.join("src/example_com/v1.rs")).unwrap();
    for expected in [
        // kube's traits are the derive's, from these keys (`derived.rs` tests what it writes).
        "kube = true,",
        "crd_json = \"CRD_JSON_WIDGETS\"",
        "scope = \"Namespaced\",",
        "use ::kubeskema::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;",
        "Vec<::kubeskema::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition>",
    ] {
        assert!(code.contains(expected), "missing {expected}");
    }
    std::fs::remove_dir_all(out).ok();
}

#[test]
fn generate_writes_a_crate_with_one_module_per_group_and_version() {
    let out = scratch("generate");
    let status = run(Args {
        command: Command::Generate {
            apply_configurations: false,
            hub: Vec::new(),
            paths: vec![fixture("golden/multi_version.yaml"), fixture("crds/widgets.yaml")],
            out: out.clone(),
            crate_name: Some("demo-crds".into()),
            kubeskema_path: None,
            no_docs: false,
            skip_non_crds: false,
            kube: false,
            force: false,
        },
    });
    assert_eq!(status, 0);
    let manifest = std::fs::read_to_string(out.join("Cargo.toml")).unwrap();
    assert!(!manifest.contains("k8s-openapi"), "no kube dependency without --kube: {manifest}");
    let lib = std::fs::read_to_string(out.join("src/lib.rs")).unwrap();
    assert!(lib.contains("pub mod example_com;"), "{lib}");
    let group = std::fs::read_to_string(out.join("src/example_com/mod.rs")).unwrap();
    assert_eq!(
        group.lines().filter(|l| l.starts_with("pub mod")).collect::<Vec<_>>(),
        ["pub mod v1;", "pub mod v1alpha1;", "pub mod v1beta1;"]
    );
    let v1 = std::fs::read_to_string(out.join("src/example_com/v1.rs")).unwrap();
    assert!(
        v1.contains("pub struct Gadget") && v1.contains("pub struct Widget"),
        "both kinds of example.com/v1 in one module"
    );
    assert!(std::fs::read_to_string(out.join("Cargo.toml")).unwrap().contains("name = \"demo-crds\""));
    std::fs::remove_dir_all(out).ok();
}

#[test]
fn malformed_yaml_names_the_file_line_and_column() {
    let text = errors_of("invalid/malformed.yaml");
    assert!(text.contains("fixtures/invalid/malformed.yaml:"), "{text}");
    assert!(text.contains("error: not valid YAML"), "{text}");
}

#[test]
fn duplicate_keys_are_refused_at_the_second_key() {
    let text = errors_of("invalid/duplicate_key.yaml");
    assert!(text.contains("duplicate_key.yaml:19:15: error: duplicate key \"type\" (first at 18:15)"), "{text}");
    assert!(text.contains("help: remove one of the two keys"), "{text}");
}

#[test]
fn non_structural_schemas_are_refused_with_the_apiservers_messages() {
    let text = errors_of("invalid/not_structural.yaml");
    for expected in [
        "not_structural.yaml:17:13: error: loose.example.com/v1: spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields",
        "spec.validation.openAPIV3Schema.properties[spec].properties[steps].items: Required value: must be specified",
        "spec.validation.openAPIV3Schema.properties[spec].properties[choice].anyOf[0].type: Forbidden: must be empty to be structural",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

/// Semantics §5.3: defaults are validated when the CRD is written, each at its own line.
#[test]
fn defaults_the_apiserver_refuses_are_reported_at_their_lines() {
    let text = errors_of("invalid/bad_defaults.yaml");
    for expected in [
        "bad_defaults.yaml:24:19: error: tunings.example.com/v1: spec.validation.openAPIV3Schema.properties[spec].properties[limits].default: Invalid value: {\"cpu\":1,\"junk\":\"dropped\"}: must not have unknown fields",
        "bad_defaults.yaml:29:19: error: tunings.example.com/v1: spec.validation.openAPIV3Schema.properties[spec].properties[mode].default: Invalid value: \"integer\":  in body must be of type string: \"integer\"",
        "bad_defaults.yaml:32:19: error: tunings.example.com/v1: spec.validation.openAPIV3Schema.properties[spec].properties[level].default: Invalid value: 0: level starts at 1",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[test]
fn documents_that_are_not_crds_are_refused_unless_skipped() {
    let text = errors_of("invalid/not_a_crd.yaml");
    assert!(
        text.contains("not_a_crd.yaml:1:1: error: document 0 is a ConfigMap, not a CustomResourceDefinition"),
        "{text}"
    );
    assert!(text.contains("no CustomResourceDefinition in this file"), "{text}");
    assert!(text.contains("help: CRDs have `apiVersion: apiextensions.k8s.io/v1`"), "{text}");

    let options = Options { skip_non_crds: true, ..Options::default() };
    let bundle = pipeline::run(&[fixture("invalid/not_a_crd.yaml"), fixture("crds/widgets.yaml")], options).unwrap();
    assert_eq!(bundle.modules.len(), 1);
    assert!(bundle.warnings[0].to_string().contains("is a ConfigMap, not a CustomResourceDefinition; skipped"));
}

#[test]
fn crds_inside_a_list_are_read_and_placed_in_the_file() {
    let text = errors_of("invalid/list_of_crds.yaml");
    assert!(
        text.contains("list_of_crds.yaml:21:17: error: things.example.com/v1: spec.validation.openAPIV3Schema.properties[spec].items: Required value: must be specified"),
        "{text}"
    );
}

#[test]
fn check_exits_1_on_refused_crds_and_0_on_good_ones() {
    let check = |p: &str| {
        run(Args { command: Command::Check { paths: vec![fixture(p)], output: "json".into(), skip_non_crds: false } })
    };
    assert_eq!(check("invalid/not_structural.yaml"), 1);
    assert_eq!(check("crds/widgets.yaml"), 0);
    assert_eq!(check("invalid/malformed.yaml"), 2);
}

/// `build-examples/generated-widgets` is what `cargo kubeskema generate` writes today.
#[test]
fn the_checked_in_generated_crate_is_up_to_date() {
    let checked_in = kubeskema_tests::repo_dir().join("build-examples/generated-widgets");
    let generation = kubeskema_tests::in_repo_root(|| {
        pipeline::run(&[PathBuf::from("fixtures/crds/widgets.yaml")], Options::default())
    });
    let out = scratch("fresh");
    let files = write_crate(
        &out,
        "generated-widgets",
        &Dependency::Path("../../runtime".into()),
        false,
        &generation.unwrap().modules,
    )
    .unwrap();
    for file in files {
        let rel = file.strip_prefix(&out).unwrap();
        let fresh = std::fs::read_to_string(&file).unwrap();
        let kept = std::fs::read_to_string(checked_in.join(rel)).unwrap_or_default();
        assert_eq!(
            kept,
            fresh,
            "{} is stale: regenerate with `cargo run -p kubeskema-codegen -- kubeskema generate fixtures/crds/widgets.yaml --out build-examples/generated-widgets --kubeskema-path runtime`",
            rel.display()
        );
    }
    std::fs::remove_dir_all(out).ok();
}

/// `generate --out` refuses a folder holding files kubeskema did not write (someone's crate
/// would be overwritten without a word), unless `--force`; a folder it wrote is written again.
#[test]
fn generate_refuses_to_overwrite_a_crate_it_did_not_write() {
    let out = scratch("generate-foreign");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("Cargo.toml"), "[package]\nname = \"mine\"\n").unwrap();
    let generate = |force: bool| {
        run(Args {
            command: Command::Generate {
                apply_configurations: false,
                hub: Vec::new(),
                paths: vec![fixture("crds/widgets.yaml")],
                out: out.clone(),
                crate_name: Some("widgets".into()),
                kubeskema_path: None,
                no_docs: true,
                skip_non_crds: false,
                kube: false,
                force,
            },
        })
    };
    assert_eq!(generate(false), 2);
    assert_eq!(std::fs::read_to_string(out.join("Cargo.toml")).unwrap(), "[package]\nname = \"mine\"\n", "untouched");
    assert_eq!(generate(true), 0, "--force");
    assert_eq!(generate(false), 0, "kubeskema's own crate is written again");
    std::fs::remove_dir_all(out).ok();
}

/// Two groups whose module names collide (`foo-bar.example.com`, `foo.bar.example.com`) get
/// modules of their own, the later one (in sorted order) suffixed: nothing is overwritten.
#[test]
fn colliding_group_modules_are_told_apart() {
    let dir = scratch("colliding-groups");
    std::fs::create_dir_all(&dir).unwrap();
    for group in ["foo-bar.example.com", "foo.bar.example.com"] {
        let crd = format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: things.{group}}}\nspec:\n  group: {group}\n  names: {{kind: Thing, plural: things}}\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema: {{openAPIV3Schema: {{type: object}}}}\n"
        );
        std::fs::write(dir.join(format!("{group}.yaml")), crd).unwrap();
    }
    let generation = pipeline::run(std::slice::from_ref(&dir), Options::default()).unwrap();
    let paths: Vec<(String, String)> =
        generation.modules.iter().map(|m| (m.group.clone(), m.path.join("::"))).collect();
    assert_eq!(
        paths,
        [
            ("foo-bar.example.com".to_owned(), "foo_bar_example_com::v1".to_owned()),
            ("foo.bar.example.com".to_owned(), "foo_bar_example_com_2::v1".to_owned()),
        ]
    );
    std::fs::remove_dir_all(dir).ok();
}

/// One rule per class the apiserver's type checker refuses (`fixtures/invalid/cel_types.yaml`),
/// with its full message, through `check --output json` and through `generate`.
#[test]
fn rules_that_do_not_type_check_are_refused_with_the_apiservers_messages() {
    let path = fixture("invalid/cel_types.yaml");
    let findings: Vec<serde_json::Value> = pipeline::check(std::slice::from_ref(&path), false)
        .iter()
        .map(kubeskema_codegen::Diagnostic::to_json)
        .collect();
    let spec = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations";
    let expected: &[(u64, String, &str)] = &[
        (
            19,
            "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule".into(),
            "compilation failed: ERROR: <input>:1:14: undefined field 'namespace'\n | self.metadata.namespace == 'default'\n | .............^",
        ),
        (
            24,
            format!("{spec}[0].rule"),
            "compilation failed: ERROR: <input>:1:5: undefined field 'nmae'\n | self.nmae == 'x'\n | ....^",
        ),
        (
            25,
            format!("{spec}[1].rule"),
            "compilation failed: ERROR: <input>:1:11: found no matching overload for '_==_' applied to '(string, null)'\n | self.name == null\n | ..........^",
        ),
        (
            26,
            format!("{spec}[2].rule"),
            "compilation failed: ERROR: <input>:1:5: found no matching overload for 'size' applied to '(int)'\n | size(self.replicas) > 0\n | ....^",
        ),
        (
            27,
            format!("{spec}[3].rule"),
            "compilation failed: ERROR: <input>:1:20: expected type 'string' but found 'int'\n | self.name in ['a', 1]\n | ...................^",
        ),
        (28, format!("{spec}[4].rule"), "cel expression must evaluate to a bool"),
        (
            29,
            format!("{spec}[5].rule"),
            "compilation failed: ERROR: <input>:1:25: invalid duration argument\n | self.timeout > duration('5 minutes')\n | ........................^",
        ),
        (
            30,
            format!("{spec}[6].rule"),
            "compilation failed: ERROR: <input>:1:23: undefined field 'labels'\n | self.template.metadata.labels.size() > 0\n | ......................^",
        ),
        (
            31,
            format!("{spec}[7].rule"),
            "compilation failed: ERROR: <input>:1:5: undefined field 'config'\n | self.config.debug == true\n | ....^",
        ),
        (
            32,
            format!("{spec}[8].rule"),
            "compilation failed: ERROR: <input>:1:1: undeclared reference to 'other' (in container '')\n | other.name == self.name\n | ^",
        ),
        (
            33,
            format!("{spec}[9].rule"),
            "compilation failed: ERROR: <input>:1:19: invalid matches argument\n | self.name.matches('[')\n | ..................^",
        ),
        (35, format!("{spec}[10].messageExpression"), "messageExpression must evaluate to a string"),
        (
            36,
            format!("{spec}[11].rule"),
            "compilation failed: ERROR: <input>:1:1: undeclared reference to 'math' (in container '')\n | math.greatest(self.replicas, 1) > 0\n | ^\nERROR: <input>:1:14: undeclared reference to 'greatest' (in container '')\n | math.greatest(self.replicas, 1) > 0\n | .............^",
        ),
        (
            37,
            format!("{spec}[12].rule"),
            "compilation failed: ERROR: <input>:2:29: found no matching overload for '_<_' applied to '(int, string)'\n |   self.tags.all(t, t.size() < 'ten')\n | ............................^",
        ),
    ];
    assert_eq!(findings.len(), expected.len(), "{findings:#?}");
    for (line, field, detail) in expected {
        let found = findings
            .iter()
            .find(|f| f["line"] == *line)
            .unwrap_or_else(|| panic!("no finding at line {line}: {findings:#?}"));
        let message = found["detail"].as_str().unwrap();
        assert_eq!(found["field"], field.as_str(), "{found}");
        assert_eq!(found["message"], format!("{field}: {message}"), "{found}");
        assert!(message.starts_with("Invalid value: {\"Rule\":"), "{message}");
        assert!(message.ends_with(&format!("}}: {detail}")), "line {line}:\n{message}\nshould end with\n{detail}");
        assert_eq!(found["crd"], "typos.example.com");
    }
    // Code generation refuses them with the same words.
    let text = errors_of("invalid/cel_types.yaml");
    assert!(text.contains("found no matching overload for '_==_' applied to '(string, null)'"), "{text}");
    assert!(text.contains("cel_types.yaml:24:19: error: typos.example.com/v1:"), "{text}");
}

/// Generation says how many CEL rules were compiled to Rust and why each of the others was
/// not: every rule of the native fixture compiles; the 1.36 environment fixture keeps the
/// features the compiler does not cover (two-variable comprehensions, `type()`, formats read
/// as durations, quantities) interpreted, each with its reason.
#[test]
fn generation_counts_the_rules_compiled_to_rust() {
    use kubeskema_codegen::__internal::emit::CelCount;
    let count = |p: &str| {
        CelCount::of(pipeline::run(&[fixture(p)], Options::default()).unwrap().modules.iter().map(|m| &m.cel))
    };
    let native = count("golden/cel_native.yaml");
    assert_eq!((native.native, native.interpreted.len()), (27, 0), "{native:?}");
    assert_eq!(native.summary(), "CEL rules: 27 native, 0 interpreted");
    let environment = count("golden/cel_environment.yaml");
    assert_eq!(environment.summary(), "CEL rules: 2 native, 11 interpreted");
    let reason = |rule: &str| {
        environment.interpreted.iter().find(|(_, r, _)| r.starts_with(rule)).map(|(_, _, why)| why.clone())
    };
    assert_eq!(reason("type(self.size)").as_deref(), Some("the function `type`"));
    assert_eq!(reason("self.timeout <= duration('1h')").as_deref(), Some("a string read as duration"));
}

/// `--hub CRD=VERSION`: the named served version is the hub; a value that is not
/// `CRD=VERSION` is a usage error (exit status 2), before anything is read.
#[test]
fn generate_takes_a_hub() {
    let generate = |hub: &str, out: &std::path::Path| {
        run(Args {
            command: Command::Generate {
                apply_configurations: false,
                hub: vec![hub.to_owned()],
                paths: vec![fixture("golden/multi_version.yaml")],
                out: out.to_path_buf(),
                crate_name: None,
                kubeskema_path: None,
                no_docs: true,
                skip_non_crds: false,
                kube: false,
                force: false,
            },
        })
    };
    let out = scratch("generate-hub");
    assert_eq!(generate("gadgets.example.com=v1alpha1", &out), 0);
    let v1 = std::fs::read_to_string(out.join("src/example_com/v1.rs")).unwrap();
    assert!(v1.contains("-> super::super::v1alpha1::Gadget"), "v1 converts to the hub v1alpha1");
    std::fs::remove_dir_all(&out).ok();
    for bad in ["gadgets.example.com", "=v1", "gadgets.example.com="] {
        assert_eq!(generate(bad, &scratch("generate-bad-hub")), 2, "{bad}");
    }
    assert_eq!(generate("gadgets.example.com=v9", &scratch("generate-missing-hub")), 2, "a version the CRD lacks");
}
