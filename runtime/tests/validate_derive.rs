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
