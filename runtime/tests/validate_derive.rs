//! `#[derive(kubeskema::Validate)]` on hand-written types: the apiserver's messages and paths
//! from straight-line checks, and agreement with the dynamic validator on the same schema.

use std::collections::BTreeMap;

use kubeskema::Validate;
use serde_json::json;

#[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
struct Spec {
    #[kubeskema(min_length = 1, max_length = 8, pattern = "^[a-z]+$")]
    name: String,
    #[kubeskema(default = 1, minimum = 0, maximum = 10)]
    replicas: i64,
    #[kubeskema(rename = "maxSurge", int_or_string, pattern = "^[0-9]+%$")]
    max_surge: Option<kubeskema::IntOrString>,
    #[kubeskema(max_items = 2, list_type = "set", items(max_length = 3))]
    tags: Option<Vec<String>>,
    #[kubeskema(list_type = "map", list_map_keys("name"))]
    ports: Option<Vec<Port>>,
    #[kubeskema(max_properties = 1, values(format = "date-time"))]
    stamps: Option<BTreeMap<String, String>>,
    #[kubeskema(nullable, enum_json = r#"["a", 1]"#)]
    mixed: Option<Option<kubeskema::serde_json::Value>>,
}

#[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(max_properties = 2)]
struct Port {
    name: String,
    #[kubeskema(minimum = 1, exclusive_minimum, multiple_of = 2)]
    port: Option<i64>,
    protocol: Option<String>,
}

fn issues_of(v: serde_json::Value) -> Vec<String> {
    let spec: Spec = serde_json::from_value(v).unwrap();
    spec.validate().iter().map(ToString::to_string).collect()
}

#[test]
fn a_valid_value_has_no_issues() {
    assert!(
        issues_of(json!({"name": "abc", "maxSurge": "25%", "tags": ["a", "b"], "ports": [{"name": "h", "port": 80}],
                         "stamps": {"a": "2024-01-01T00:00:00Z"}, "mixed": 1}))
        .is_empty()
    );
}

#[test]
fn every_constraint_reports_with_the_apiservers_words() {
    assert_eq!(
        issues_of(json!({
            "name": "ABCDEFGHIJ", "replicas": 11, "maxSurge": "lots",
            "tags": ["abcd", "abcd", "x"], "ports": [{"name": "h", "port": 3, "protocol": "TCP"}, {"name": "h"}],
            "stamps": {"a": "yesterday", "b": "2024-01-01T00:00:00Z"}, "mixed": "b"})),
        vec![
            "name: Too long: may not be more than 8 bytes",
            "replicas: Invalid value: 11: replicas in body should be less than or equal to 10",
            "maxSurge: Invalid value: \"lots\": maxSurge in body should match '^[0-9]+%$'",
            "tags[0]: Too long: may not be more than 3 bytes",
            "tags[1]: Too long: may not be more than 3 bytes",
            "tags: Too many: 3: must have at most 2 items",
            "ports[0]: Too many: 3: must have at most 2 items",
            "ports[0].port: Invalid value: 3: ports[0].port in body should be a multiple of 2",
            "stamps: Too many: 2: must have at most 1 item",
            "stamps.a: Invalid value: \"yesterday\": stamps.a in body must be of type date-time: \"yesterday\"",
            "mixed: Unsupported value: \"b\": supported values: \"a\", \"1\"",
            // List-type uniqueness comes after every value error, as in the apiserver.
            "tags[1]: Duplicate value: \"abcd\"",
            "ports[1]: Duplicate value: {\"name\":\"h\"}",
        ]
    );
}

#[test]
fn string_checks_stop_at_the_first_failure_and_follow_the_value_kind() {
    // Too short and against the pattern: only the length is reported, as kube-openapi does.
    assert_eq!(
        issues_of(json!({"name": ""})),
        vec!["name: Invalid value: \"\": name in body should be at least 1 chars long"]
    );
    // An integer int-or-string gets no string checks.
    assert!(issues_of(json!({"name": "a", "maxSurge": 3})).is_empty());
}

// Defaulting and the JSON list-type and ratcheting walks are the dynamic validator's.
#[cfg(feature = "dynamic")]
#[test]
fn derived_and_dynamic_validation_agree() {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 8, "pattern": "^[a-z]+$"},
        "replicas": {"type": "integer", "default": 1, "minimum": 0, "maximum": 10},
        "tags": {"type": "array", "maxItems": 2, "x-kubernetes-list-type": "set", "items": {"type": "string", "maxLength": 3}}}});
    let (schema, _) = kubeskema::schema::Schema::parse(&schema, "");
    for value in [
        json!({"name": "ok", "replicas": 3}),
        json!({"name": "NOPE", "replicas": -1, "tags": ["abcd", "x", "x"]}),
        json!({"name": "", "tags": []}),
    ] {
        let typed: Spec = serde_json::from_value(value.clone()).unwrap();
        let mut derived: Vec<String> = typed.validate().iter().map(ToString::to_string).collect();
        let mut normalized = value;
        kubeskema::default::apply_defaults(&mut normalized, &schema);
        let mut dynamic: Vec<String> = kubeskema::openapi::OpenApiValidator::new(&schema)
            .validate(&normalized)
            .iter()
            .chain(&kubeskema::listtype::validate(&normalized, &schema))
            .map(ToString::to_string)
            .collect();
        derived.sort();
        dynamic.sort();
        assert_eq!(derived, dynamic, "for {normalized}");
    }
}

/// A union of sources: exactly one of `git`/`oci`, never `legacy`, `depth` bounded only
/// when `git` is set (a junctor branch naming a nested property).
#[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(
    one_of = r#"[{"required": ["git"]}, {"required": ["oci"]}]"#,
    not = r#"{"required": ["legacy"]}"#,
    all_of = r#"[{"properties": {"git": {"properties": {"depth": {"maximum": 10}}}}}]"#
)]
struct Source {
    git: Option<Git>,
    oci: Option<String>,
    legacy: Option<bool>,
    #[kubeskema(any_of = r#"[{"pattern": "^v"}, {"maxLength": 2}]"#)]
    tag: Option<String>,
}

#[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
struct Git {
    url: String,
    depth: Option<i64>,
}

fn source_issues(v: &serde_json::Value) -> Vec<String> {
    let typed: Source = serde_json::from_value(v.clone()).unwrap();
    typed.validate().iter().map(ToString::to_string).collect()
}

#[test]
fn junctors_report_the_apiservers_summaries() {
    assert!(source_issues(&json!({"git": {"url": "u"}, "tag": "v1.2.3"})).is_empty());
    assert_eq!(
        source_issues(&json!({"legacy": true, "tag": "1.2.3"})),
        vec![
            "<nil>: Invalid value: \"\": \"\" must validate one and only one schema (oneOf). Found none valid",
            "git: Required value",
            "<nil>: Invalid value: \"\": \"\" must not validate the schema (not)",
            "<nil>: Invalid value: \"\": \"tag\" must validate at least one schema (anyOf)",
            "tag: Invalid value: \"1.2.3\": tag in body should match '^v'",
        ]
    );
    assert_eq!(
        source_issues(&json!({"git": {"url": "u", "depth": 11}, "oci": "o"})),
        vec![
            "git.depth: Invalid value: 11: git.depth in body should be less than or equal to 10",
            "<nil>: Invalid value: \"\": \"\" must validate all the schemas (allOf). None validated",
            "<nil>: Invalid value: \"\": \"\" must validate one and only one schema (oneOf). Found 2 valid alternatives",
        ]
    );
}

#[test]
fn derived_and_dynamic_junctors_agree() {
    let schema = json!({"type": "object",
        "oneOf": [{"required": ["git"]}, {"required": ["oci"]}],
        "not": {"required": ["legacy"]},
        "allOf": [{"properties": {"git": {"properties": {"depth": {"maximum": 10}}}}}],
        "properties": {
            "git": {"type": "object", "required": ["url"], "properties": {"url": {"type": "string"}, "depth": {"type": "integer"}}},
            "oci": {"type": "string"}, "legacy": {"type": "boolean"},
            "tag": {"type": "string", "anyOf": [{"pattern": "^v"}, {"maxLength": 2}]}}});
    let (schema, errors) = kubeskema::schema::Schema::parse(&schema, "");
    assert!(errors.is_empty(), "{errors:?}");
    for value in [
        json!({"git": {"url": "u"}}),
        json!({"legacy": true, "tag": "1.2.3"}),
        json!({"git": {"url": "u", "depth": 11}, "oci": "o", "tag": "v"}),
        json!({"oci": "o", "tag": "12"}),
    ] {
        let mut derived = source_issues(&value);
        let mut dynamic: Vec<String> = kubeskema::openapi::OpenApiValidator::new(&schema)
            .validate(&value)
            .iter()
            .map(ToString::to_string)
            .collect();
        derived.sort();
        dynamic.sort();
        assert_eq!(derived, dynamic, "for {value}");
    }
}

#[test]
fn updates_ratchet_errors_about_unchanged_places() {
    let spec = |v: serde_json::Value| -> Spec { serde_json::from_value(v).unwrap() };
    let update = |new: serde_json::Value, old: serde_json::Value| -> Vec<String> {
        spec(new).validate_update(&spec(old)).iter().map(ToString::to_string).collect()
    };
    // An object stored before the schema tightened can still change elsewhere.
    assert!(update(json!({"name": "ok", "replicas": 11}), json!({"name": "was", "replicas": 11})).is_empty());
    assert_eq!(
        update(json!({"name": "ok", "replicas": 12}), json!({"name": "ok", "replicas": 11})),
        vec!["replicas: Invalid value: 12: replicas in body should be less than or equal to 10"]
    );
    // List-map items correlate by key, wherever they moved; other lists only as a whole.
    let old = json!({"name": "ok", "ports": [{"name": "a", "port": 0}, {"name": "b", "port": 1}], "tags": ["long"]});
    assert!(update(old.clone(), old.clone()).is_empty());
    assert_eq!(
        update(
            json!({"name": "ok", "ports": [{"name": "b", "port": 1}, {"name": "a", "port": 0}], "tags": ["long", "x"]}),
            old
        ),
        vec!["tags[0]: Too long: may not be more than 3 bytes"],
        "ports a and b are unchanged though they swapped places; tags changed as a whole"
    );
}

// Defaulting and the JSON list-type and ratcheting walks are the dynamic validator's.
#[cfg(feature = "dynamic")]
#[test]
fn derived_and_dynamic_updates_agree() {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 8, "pattern": "^[a-z]+$"},
        "replicas": {"type": "integer", "default": 1, "minimum": 0, "maximum": 10},
        "tags": {"type": "array", "maxItems": 2, "x-kubernetes-list-type": "set", "items": {"type": "string", "maxLength": 3}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], "items": {
            "type": "object", "maxProperties": 2, "required": ["name"], "properties": {
                "name": {"type": "string"}, "port": {"type": "integer", "minimum": 1, "exclusiveMinimum": true, "multipleOf": 2},
                "protocol": {"type": "string"}}}}}});
    let (schema, errors) = kubeskema::schema::Schema::parse(&schema, "");
    assert!(errors.is_empty(), "{errors:?}");
    let cases = [
        (json!({"name": "NOPE", "replicas": 11}), json!({"name": "NOPE", "replicas": 12})),
        (json!({"name": "NOPE", "tags": ["abcd", "x", "x"]}), json!({"name": "NOPE", "tags": ["abcd", "x", "x"]})),
        (json!({"name": "a", "tags": ["x", "x"]}), json!({"name": "a", "tags": ["y", "y"]})),
        (json!({"name": "a", "tags": ["x", "x"]}), json!({"name": "a"})),
        (
            json!({"name": "a", "ports": [{"name": "p", "port": 1}, {"name": "q", "port": 3, "protocol": "x"}]}),
            json!({"name": "a", "ports": [{"name": "q", "port": 3, "protocol": "x"}]}),
        ),
    ];
    for (new, old) in cases {
        let typed = |v: &serde_json::Value| -> Spec { serde_json::from_value(v.clone()).unwrap() };
        let mut derived: Vec<String> =
            typed(&new).validate_update(&typed(&old)).iter().map(ToString::to_string).collect();
        let (mut new_v, mut old_v) = (new.clone(), old.clone());
        kubeskema::default::apply_defaults(&mut new_v, &schema);
        kubeskema::default::apply_defaults(&mut old_v, &schema);
        let unchanged = kubeskema::ratchet::unchanged(&new_v, &old_v, &schema);
        let mut dynamic: Vec<String> = kubeskema::openapi::OpenApiValidator::new(&schema)
            .validate(&new_v)
            .into_iter()
            .filter(|i| !unchanged.covers(i))
            .chain(if kubeskema::listtype::validate(&old_v, &schema).is_empty() {
                kubeskema::listtype::validate(&new_v, &schema)
            } else {
                Vec::new()
            })
            .map(|i| i.to_string())
            .collect();
        derived.sort();
        dynamic.sort();
        assert_eq!(derived, dynamic, "for {new} from {old}");
    }
}

#[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
struct Ranges {
    #[kubeskema(format = "float")]
    ratio: Option<f64>,
    // The widest `maximum` a u64 may say (a fractional or wider bound is a compile error:
    // tests/ui/crd_mistakes.rs).
    #[kubeskema(maximum = 9223372036854774784)]
    count: Option<u64>,
}

#[test]
fn numbers_keep_the_range_of_their_type_and_format() {
    let issues = |v: serde_json::Value| -> Vec<String> {
        let r: Ranges = serde_json::from_value(v).unwrap();
        r.validate().iter().map(ToString::to_string).collect()
    };
    assert!(issues(json!({"ratio": 0.5})).is_empty());
    assert_eq!(
        issues(json!({"ratio": 1e39})),
        vec!["<nil>: Invalid value: \"\": Checked value must be of type number with format float in ratio"]
    );
    assert!(issues(json!({"count": 9_223_372_036_854_774_784_u64})).is_empty(), "the bound holds in int64");
    assert_eq!(
        issues(json!({"count": 9_223_372_036_854_775_000_u64})),
        vec![
            "count: Invalid value: 9223372036854775000: count in body should be less than or equal to 9223372036854774784"
        ]
    );
}
