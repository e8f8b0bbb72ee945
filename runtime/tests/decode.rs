//! The validating read (`kubeskema::decode`): one pass reports every problem (types,
//! duplicate keys, unknown fields, nulls, defaults) in each option's mode, and YAML issues
//! land on the right line:column.

use std::collections::BTreeMap;

use kubeskema::decode::{Decoded, Defaults, DuplicateKeys, Options, Presence, UnknownFields, from_slice};
use kubeskema::issue::ErrorType;
use kubeskema::serde_json::{self, Map, Value, json};

#[derive(Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
struct Spec {
    #[kubeskema(min_length = 1)]
    name: String,
    #[kubeskema(default = 1, maximum = 10)]
    replicas: i64,
    #[kubeskema(maximum = 100)]
    port: Option<i32>,
    enabled: Option<bool>,
    #[kubeskema(default = "fast")]
    mode: Option<Mode>,
    tags: Option<Vec<String>>,
    labels: Option<BTreeMap<String, String>>,
    ports: Option<Vec<Port>>,
    #[kubeskema(nullable)]
    note: Option<Option<String>>,
    #[kubeskema(rename = "maxSurge", int_or_string)]
    max_surge: Option<kubeskema::IntOrString>,
    config: Option<Value>,
}

#[derive(Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
enum Mode {
    #[kubeskema(value = "fast")]
    Fast,
    #[kubeskema(value = "safe")]
    Safe,
}

#[derive(Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
struct Port {
    name: String,
    #[kubeskema(minimum = 1)]
    number: Option<i64>,
}

#[derive(Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
struct Open {
    name: Option<String>,
    #[kubeskema(unknown_fields)]
    rest: Map<String, Value>,
}

fn messages<T>(read: &Decoded<T>) -> Vec<String> {
    read.issues.iter().map(ToString::to_string).collect()
}

fn read(json: &str, options: Options) -> Decoded<Spec> {
    from_slice::<Spec>(json.as_bytes(), &options)
}

#[test]
fn every_wrongly_typed_field_is_an_issue_and_the_rest_is_still_read_and_validated() {
    let r = read(
        r#"{"name": "a", "replicas": 11, "port": "80", "enabled": "yes", "tags": ["a", 2, {"x": 1}],
            "labels": {"a": "b", "c": false}, "mode": "slow", "ports": [{"name": "p", "number": 0}, {"number": 1.5}],
            "maxSurge": true, "config": {"anything": [1, "two"]}}"#,
        Options::default(),
    );
    assert_eq!(
        messages(&r),
        [
            r#"port: Invalid value: "string": port in body must be of type integer: "string""#,
            r#"enabled: Invalid value: "string": enabled in body must be of type boolean: "string""#,
            r#"tags[1]: Invalid value: "integer": tags[1] in body must be of type string: "integer""#,
            r#"tags[2]: Invalid value: "object": tags[2] in body must be of type string: "object""#,
            r#"labels.c: Invalid value: "boolean": labels.c in body must be of type string: "boolean""#,
            r#"mode: Unsupported value: "slow": supported values: "fast", "safe""#,
            r#"ports[1].number: Invalid value: "number": ports[1].number in body must be of type integer: "number""#,
            "ports[1].name: Required value",
            r#"maxSurge: Invalid value: "boolean": maxSurge in body must be of type integer,string: "boolean""#,
            // Validation of what was usable: the wrongly typed optional fields read as absent.
            "replicas: Invalid value: 11: replicas in body should be less than or equal to 10",
        ]
    );
    let spec = r.value.expect("the required fields are usable");
    assert_eq!((spec.port, spec.enabled, spec.tags, spec.mode), (None, None, None, None));
    assert_eq!(spec.config, Some(json!({"anything": [1, "two"]})));
}

#[test]
fn a_missing_or_unusable_required_field_leaves_no_value_but_every_issue() {
    let r = read(r#"{"name": 5, "port": 99999999999, "ports": [{"name": "x", "number": 0}]}"#, Options::default());
    assert!(r.value.is_none());
    assert_eq!(
        messages(&r),
        [
            r#"name: Invalid value: "integer": name in body must be of type string: "integer""#,
            "<nil>: Invalid value: \"\": Checked value must be of type integer with format int32 in port",
        ]
    );
    // Nothing usable to validate further: `ports[0].number` is below its minimum but only the
    // value's own validation says so, and there is no value.
    let r = read(r#"{"ports": [{"number": 3}]}"#, Options::default());
    assert_eq!(messages(&r), ["ports[0].name: Required value", "name: Required value"]);
}

#[test]
fn duplicate_keys_in_each_mode() {
    let doc =
        r#"{"name": "first", "name": "second", "labels": {"a": "1", "a": "2"}, "ports": [{"name": "p", "name": "q"}]}"#;
    let r = read(doc, Options::default());
    assert_eq!(
        messages(&r),
        [
            r#"strict decoding error: duplicate field "name""#,
            r#"strict decoding error: duplicate field "labels.a""#,
            r#"strict decoding error: duplicate field "ports[0].name""#,
        ]
    );
    assert!(r.issues.iter().all(|i| i.error_type == ErrorType::Strict));
    let spec = r.value.unwrap();
    assert_eq!((spec.name.as_str(), spec.labels.unwrap()["a"].as_str()), ("second", "2"), "the last wins");

    let r = read(doc, Options { duplicate_keys: DuplicateKeys::FirstWins, ..Options::default() });
    assert!(r.issues.is_empty());
    let spec = r.value.unwrap();
    assert_eq!((spec.name.as_str(), spec.ports.unwrap()[0].name.as_str()), ("first", "p"));

    let r = read(doc, Options { duplicate_keys: DuplicateKeys::LastWins, ..Options::default() });
    assert!(r.issues.is_empty());
    assert_eq!(r.value.unwrap().name, "second");
}

#[test]
fn unknown_fields_in_each_mode() {
    let doc = r#"{"name": "a", "extra": {"deep": 1}, "ports": [{"name": "p", "proto": "TCP"}], "replicas": 2}"#;
    let r = read(doc, Options::default());
    assert!(r.issues.is_empty() && r.unknown.is_empty());
    assert_eq!(r.value.unwrap().replicas, 2);

    let r = read(doc, Options::strict());
    assert_eq!(
        messages(&r),
        [r#"strict decoding error: unknown field "extra""#, r#"strict decoding error: unknown field "ports[0].proto""#]
    );
    assert_eq!(r.issues[1].path.pointer(), "/ports/0/proto");
    assert!(r.value.is_some());

    let r = read(doc, Options { unknown_fields: UnknownFields::Preserve, ..Options::default() });
    assert!(r.issues.is_empty());
    let kept: Vec<(String, Value)> = r.unknown.iter().map(|(p, v)| (p.pointer(), v.clone())).collect();
    assert_eq!(kept, [("/extra".to_owned(), json!({"deep": 1})), ("/ports/0/proto".to_owned(), json!("TCP"))]);

    // Where the type keeps unknown fields itself, they are neither unknown nor lost; a key
    // repeated there is still a duplicate.
    let r = from_slice::<Open>(br#"{"name": "n", "x": 1, "y": [true], "x": 2}"#, &Options::strict());
    assert_eq!(messages(&r), [r#"strict decoding error: duplicate field "x""#]);
    assert_eq!(Value::Object(r.value.unwrap().rest), json!({"x": 2, "y": [true]}));
}

#[test]
fn nulls_read_as_the_apiserver_prunes_them() {
    let options = Options { presence: true, ..Options::default() };
    let r = read(r#"{"name": "a", "port": null, "note": null, "replicas": null, "mode": null}"#, options);
    assert_eq!(messages(&r), Vec::<String>::new());
    let spec = r.value.as_ref().unwrap();
    // `port` is not nullable: its null is dropped. `note` is nullable: null is kept.
    // `replicas` and `mode` have defaults: a dropped null takes them.
    assert_eq!((spec.port, &spec.note, spec.replicas, &spec.mode), (None, &Some(None), 1, &Some(Mode::Fast)));
    assert_eq!(r.presence_of("/port"), Presence::Null);
    assert_eq!(r.presence_of("/note"), Presence::Null);
    assert_eq!(r.presence_of("/replicas"), Presence::Defaulted("1".into()));
    assert_eq!(r.presence_of("/enabled"), Presence::Missing);
    assert_eq!(r.presence_of("/ports/0/name"), Presence::Missing, "under a missing parent");
    assert_eq!(r.presence_of("/name"), Presence::Given);

    // A required field given as null is missing (after null pruning).
    let r = read(r#"{"name": null}"#, Options::default());
    assert_eq!(messages(&r), ["name: Required value"]);
}

#[derive(Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
struct Maps {
    labels: Option<BTreeMap<String, String>>,
    ports: Option<BTreeMap<String, Port>>,
    notes: Option<BTreeMap<String, Option<String>>>,
    config: Option<Map<String, Value>>,
}

/// A map's `null` value goes where the apiserver's null pruning (semantics §5.1) puts it: a
/// non-nullable value's entry is deleted (so `{team: null}` in a label selector is accepted),
/// a nullable one keeps it, and so do the unknown fields a JSON map holds (they have no schema).
/// Asked of kube-apiserver 1.36.3: the `absent-field-names` targeted oracle cases.
#[test]
fn null_map_values_read_as_the_apiserver_prunes_them() {
    let json = r#"{"labels": {"team": null, "app": "x"}, "ports": {"http": null},
        "notes": {"a": null, "b": "y"}, "config": {"k": null}}"#;
    let r = from_slice::<Maps>(json.as_bytes(), &Options::default());
    assert_eq!(messages(&r), Vec::<String>::new());
    let expected = Maps {
        labels: Some(BTreeMap::from([("app".into(), "x".into())])),
        ports: Some(BTreeMap::new()),
        notes: Some(BTreeMap::from([("a".into(), None), ("b".into(), Some("y".into()))])),
        config: Some(Map::from_iter([("k".to_owned(), Value::Null)])),
    };
    assert_eq!(r.value.as_ref(), Some(&expected));
    // Plain serde reads through the same `Decode`.
    assert_eq!(serde_json::from_str::<Maps>(json).unwrap(), expected);

    // A duplicate key's later `null` prunes the earlier value; a `null` pruned first is still a
    // key seen, for a duplicate after it.
    let labels = |json: &str, duplicate_keys| {
        let r = from_slice::<Maps>(json.as_bytes(), &Options { duplicate_keys, ..Options::default() });
        (messages(&r), r.value.and_then(|m| m.labels))
    };
    let last_null = r#"{"labels": {"a": "x", "a": null}}"#;
    assert_eq!(labels(last_null, DuplicateKeys::LastWins), (vec![], Some(BTreeMap::new())));
    let first_null = r#"{"labels": {"a": null, "a": "x"}}"#;
    assert_eq!(labels(first_null, DuplicateKeys::FirstWins), (vec![], Some(BTreeMap::new())));
    assert_eq!(labels(first_null, DuplicateKeys::Error).0, [r#"strict decoding error: duplicate field "labels.a""#]);

    // A list item has no entry to delete: its `null` stays a type error.
    let r = read(r#"{"name": "a", "tags": [null]}"#, Options::default());
    assert_eq!(messages(&r), [r#"tags[0]: Invalid value: "null": tags[0] in body must be of type string: "null""#]);
}

#[derive(Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
enum Level {
    #[kubeskema(value = 1)]
    One,
    #[kubeskema(value = 2)]
    Two,
}

#[derive(Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
struct Leveled {
    level: Option<Level>,
}

/// An integer enum's numbers go through the schema's one type check (`keywords::type_check`):
/// a whole float is an integer, a number beyond int64 is a `number` (kube-apiserver 1.36.3, an
/// `integer` enum of 1 and 2: `9223372036854775808` is the type error and the enum error, `7.0`
/// the enum error only, `1.5` the type error only, as `1.5` converts to the allowed `1`).
#[test]
fn an_integer_enum_checks_numbers_as_the_apiserver_types_them() {
    let issues = |json: &str| {
        let doc = format!(r#"{{"level": {json}}}"#);
        messages(&from_slice::<Leveled>(doc.as_bytes(), &Options::default()))
    };
    let supported = r#"supported values: "1", "2""#;
    assert_eq!(
        issues("9223372036854775808"),
        [
            r#"level: Invalid value: "number": level in body must be of type integer: "number""#.to_owned(),
            format!("level: Unsupported value: 9.223372036854776e+18: {supported}"),
        ]
    );
    assert_eq!(issues("7.0"), [format!("level: Unsupported value: 7: {supported}")]);
    assert_eq!(issues("1.5"), [r#"level: Invalid value: "number": level in body must be of type integer: "number""#]);
}

/// What is no value of an enum at all (`null`, a list, an object) is its type error and its
/// enum error, the value printed as pruning leaves it (an object emptied): kube-apiserver
/// 1.36.3's answers for a string enum's list item (envoyproxy's `statusCodes`).
#[test]
fn an_enum_refuses_what_is_not_a_scalar_as_the_apiserver_does() {
    let supported = r#"supported values: "fast", "safe""#;
    for (json, kind, printed) in [
        ("null", "null", "null"),
        ("[]", "array", "[]"),
        (r#"{"a": 1}"#, "object", "{}"),
        (r#"[1, {"a": 1}]"#, "array", "[1,{}]"),
    ] {
        let doc = format!(r#"{{"name": "a", "mode": {json}}}"#);
        let r = read(&doc, Options::default());
        let expected = if json == "null" {
            // A field's `null` is pruned (the default then fills it).
            vec![]
        } else {
            vec![
                format!(r#"mode: Invalid value: "{kind}": mode in body must be of type string: "{kind}""#),
                format!("mode: Unsupported value: {printed}: {supported}"),
            ]
        };
        assert_eq!(messages(&r), expected, "{json}");
        let r = from_slice::<Holder>(format!(r#"{{"modes": [{json}]}}"#).as_bytes(), &Options::default());
        assert_eq!(
            messages(&r),
            [
                format!(r#"modes[0]: Invalid value: "{kind}": modes[0] in body must be of type string: "{kind}""#),
                format!("modes[0]: Unsupported value: {printed}: {supported}"),
            ],
            "{json} as an item"
        );
    }
}

#[test]
fn defaults_in_each_mode() {
    let doc = r#"{"name": "a"}"#;
    let r = read(doc, Options::default());
    let spec = r.value.unwrap();
    assert_eq!((spec.replicas, spec.mode), (1, Some(Mode::Fast)));
    assert!(r.presence.is_empty(), "presence is not recorded unless asked");

    let r = read(doc, Options { defaults: Defaults::Annotate, ..Options::default() });
    let spec = r.value.as_ref().unwrap();
    assert_eq!((spec.replicas, &spec.mode), (1, &Some(Mode::Fast)));
    assert_eq!(r.presence_of("/mode"), Presence::Defaulted("\"fast\"".into()));
    assert_eq!(r.presence_of("/replicas"), Presence::Defaulted("1".into()));

    let r = read(doc, Options { defaults: Defaults::Ignore, ..Options::default() });
    let spec = r.value.as_ref().unwrap();
    // An `Option` field stays empty; `replicas: i64` needs a value and still gets its default.
    assert_eq!((spec.replicas, &spec.mode), (1, &None));
    assert_eq!(r.presence_of("/replicas"), Presence::Defaulted("1".into()));
}

#[test]
fn text_that_is_not_utf8_is_one_issue_at_the_parsers_place() {
    let not_utf8 = |doc: &[u8]| {
        let r = from_slice::<Spec>(doc, &Options::default());
        assert!(r.value.is_none(), "{r:?}");
        assert_eq!(r.issues.len(), 1, "{:?}", r.issues);
        assert_eq!(r.issues[0].error_type, ErrorType::Malformed);
        r.issues[0].detail.clone()
    };
    // In a string the schema names, and in one an unknown (pruned) key holds: UTF-8 is checked
    // once for the whole text, so where a byte is does not change whether it is refused.
    let detail = not_utf8(b"{\"name\": \"a\",\n \"tags\": [\"\xff\"]}");
    assert!(detail.contains("invalid unicode code point at line 2 column"), "{detail}");
    let detail = not_utf8(b"{\"name\": \"a\", \"extra\": \"\xc3\"}");
    assert!(detail.contains("invalid unicode code point at line 1"), "{detail}");
    // Outside a string it is a syntax error.
    let detail = not_utf8(b"{\"name\": \"a\", \xff: 1}");
    assert!(detail.contains("line 1 column"), "{detail}");
    // Multi-byte UTF-8 is text.
    let r = from_slice::<Spec>("{\"name\": \"ä→😀\"}".as_bytes(), &Options::default());
    assert_eq!(r.value.map(|s| s.name), Some("ä→😀".to_owned()));
}

#[test]
fn broken_json_is_one_issue_with_its_place_and_no_value() {
    let r = read("{\"name\": \"a\",\n \"port\": }", Options::default());
    assert!(r.value.is_none());
    assert_eq!(r.issues.len(), 1);
    assert_eq!(r.issues[0].error_type, ErrorType::Malformed);
    assert!(r.issues[0].detail.contains("line 2 column 10"), "{}", r.issues[0].detail);

    let r = read(r#"{"name": "a"} trailing"#, Options::default());
    assert_eq!(r.issues.len(), 1);
    assert!(r.value.is_none());
}

#[test]
fn deep_nesting_is_refused_without_overflowing_the_stack() {
    let depth = 100_000;
    let doc = format!(r#"{{"name": "a", "config": {}{}}}"#, "[".repeat(depth), "]".repeat(depth));
    let r = read(&doc, Options::default());
    assert_eq!(r.issues.len(), 1);
    assert!(r.issues[0].detail.contains("recursion limit"), "{}", r.issues[0].detail);
}

#[test]
fn the_same_value_as_plain_deserialization_when_the_document_is_valid() {
    let doc = json!({"name": "a", "replicas": 3, "port": 8, "enabled": true, "mode": "safe", "tags": ["x"],
        "labels": {"k": "v"}, "ports": [{"name": "p", "number": 2}], "note": "n", "maxSurge": "25%", "config": {"a": 1}});
    let text = doc.to_string();
    let r = read(&text, Options::strict());
    assert_eq!(messages(&r), Vec::<String>::new());
    assert_eq!(r.value.unwrap(), serde_json::from_str::<Spec>(&text).unwrap());
}

#[cfg(feature = "yaml")]
#[test]
fn yaml_issues_land_on_their_line_and_column_in_every_document() {
    let text = "\
name: a
port: eighty
---
name: b
ports:
  - name: p
    proto: TCP
  - number: 2
---
name: c
name: d
replicas: 12
";
    let docs = kubeskema::yaml::decode_documents::<Spec>(text, &Options::strict()).unwrap();
    let placed: Vec<Vec<String>> = docs
        .iter()
        .map(|(doc, read)| {
            read.issues
                .iter()
                .map(|i| {
                    let pos = doc.nearest_position(&i.path.pointer());
                    format!("{}:{} {i}", pos.line, pos.column)
                })
                .collect()
        })
        .collect();
    assert_eq!(
        placed,
        [
            vec![r#"2:1 port: Invalid value: "string": port in body must be of type integer: "string""#.to_owned()],
            vec![
                r#"7:5 strict decoding error: unknown field "ports[0].proto""#.to_owned(),
                "8:5 ports[1].name: Required value".to_owned(),
            ],
            vec![
                r#"11:1 strict decoding error: duplicate field "name""#.to_owned(),
                "12:1 replicas: Invalid value: 12: replicas in body should be less than or equal to 10".to_owned(),
            ],
        ]
    );
}

#[derive(Debug, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(resource(
    group = "example.com",
    version = "v1",
    kind = "Widget",
    plural = "widgets",
    scope = "Namespaced"
))]
struct Widget {
    #[kubeskema(rename = "apiVersion")]
    api_version: String,
    kind: String,
    #[kubeskema(default_json = "{}")]
    metadata: kubeskema::ObjectMeta,
    spec: Option<Spec>,
}

#[test]
fn metadata_reads_as_the_apiserver_round_trips_it() {
    let doc = r#"{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "colour": "red"},
        "spec": {"name": "a", "extra": 1}}"#;
    let r = from_slice::<Widget>(doc.as_bytes(), &Options::strict());
    assert_eq!(
        messages(&r),
        [
            r#"strict decoding error: unknown field "metadata.colour""#,
            r#"strict decoding error: unknown field "spec.extra""#
        ]
    );
    assert_eq!(r.value.unwrap().metadata.name.as_deref(), Some("w"));

    // A wrongly typed known metadata field fails the whole request (400), in every mode.
    let doc = r#"{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"labels": {"a": 1}}}"#;
    for options in [Options::default(), Options::strict()] {
        let r = from_slice::<Widget>(doc.as_bytes(), &options);
        assert!(r.value.is_none());
        assert_eq!(r.issues.len(), 1, "{:?}", r.issues);
        assert_eq!(r.issues[0].error_type, ErrorType::Malformed);
    }

    // The resource's own checks run on what was read.
    let r = from_slice::<Widget>(br#"{"apiVersion": "example.com/v2", "kind": "Widget"}"#, &Options::default());
    assert_eq!(messages(&r), [r#"apiVersion: Invalid value: "example.com/v2": must be example.com/v1"#]);
}

#[test]
fn objects_and_lists_of_the_wrong_kind_are_type_errors_too() {
    let r = read(
        r#"{"name": "a", "ports": "x", "labels": [1], "tags": {"a": 1}, "config": 5, "enabled": [true]}"#,
        Options::default(),
    );
    assert_eq!(
        messages(&r),
        [
            r#"ports: Invalid value: "string": ports in body must be of type array: "string""#,
            r#"labels: Invalid value: "array": labels in body must be of type object: "array""#,
            r#"tags: Invalid value: "object": tags in body must be of type array: "object""#,
            r#"enabled: Invalid value: "array": enabled in body must be of type boolean: "array""#,
        ]
    );
    let r = read(r#"{"name": "a", "ports": [{"name": "p"}, "q", 3, null]}"#, Options::default());
    assert_eq!(
        messages(&r),
        [
            r#"ports[1]: Invalid value: "string": ports[1] in body must be of type object: "string""#,
            r#"ports[2]: Invalid value: "integer": ports[2] in body must be of type object: "integer""#,
            r#"ports[3]: Invalid value: "null": ports[3] in body must be of type object: "null""#,
        ]
    );
    let r = from_slice::<Spec>(b"[]", &Options::default());
    assert_eq!(messages(&r), ["cannot be decoded: the document is of type array, not object"]);
}

#[test]
fn whole_floats_are_integers_as_the_apiserver_reads_them() {
    // Found by fuzzing: serde_json reads `-0` as a float, and plain serde refuses floats for
    // integer fields; the apiserver's type check accepts whole floats (`3.0`, `-0`, `1e1`).
    let r = read(
        r#"{"name": "a", "replicas": -0, "port": 8.0, "ports": [{"name": "p", "number": 1e1}]}"#,
        Options::default(),
    );
    assert_eq!(messages(&r), Vec::<String>::new());
    let spec = r.value.unwrap();
    assert_eq!((spec.replicas, spec.port, spec.ports.unwrap()[0].number), (0, Some(8), Some(10)));
}

#[derive(Debug, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(min_properties = 1)]
struct Timing {
    #[kubeskema(format = "duration")]
    every: Option<String>,
}

#[test]
fn an_unread_field_is_reported_as_the_apiserver_reports_it_and_nothing_else_is_said_about_it() {
    let r = from_slice::<Timing>(br#"{"every": 5}"#, &Options::default());
    // [quirk] the type error of a field with a format names the format and a Go kind; the
    // object is not "empty" because its one field could not be read.
    assert_eq!(messages(&r), [r#"every: Invalid value: "int64": every in body must be of type duration: "int64""#]);
    let r = from_slice::<Timing>(b"{}", &Options::default());
    let keywords: Vec<&str> = r.issues.iter().map(|i| i.keyword).collect();
    assert_eq!(keywords, ["minProperties"], "an object that is really empty");
}

/// Read in place: every field is an `Option`, so the struct is made first and each field is
/// read into it.
#[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
struct AllOptional {
    #[kubeskema(maximum = 10)]
    count: Option<i64>,
    #[kubeskema(default = "fast")]
    mode: Option<Mode>,
    #[kubeskema(nullable)]
    note: Option<Option<String>>,
    ports: Option<Vec<Port>>,
    inner: Option<Box<AllOptional>>,
    #[kubeskema(unknown_fields)]
    rest: Map<String, Value>,
}

/// The same fields beside one that must have a value and has no placeholder (an enum): read
/// into locals, made at the end.
#[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
struct WithRequired {
    id: Mode,
    #[kubeskema(maximum = 10)]
    count: Option<i64>,
    #[kubeskema(default = "fast")]
    mode: Option<Mode>,
    #[kubeskema(nullable)]
    note: Option<Option<String>>,
    ports: Option<Vec<Port>>,
    inner: Option<Box<AllOptional>>,
    #[kubeskema(unknown_fields)]
    rest: Map<String, Value>,
}

/// The same fields beside a required and a defaulted string: made first with placeholders
/// there, the `Option`s read in place, the two strings moved in at the end.
#[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
struct WithPlaceholders {
    id: String,
    #[kubeskema(default = "d")]
    tag: String,
    #[kubeskema(maximum = 10)]
    count: Option<i64>,
    #[kubeskema(default = "fast")]
    mode: Option<Mode>,
    #[kubeskema(nullable)]
    note: Option<Option<String>>,
    ports: Option<Vec<Port>>,
    inner: Option<Box<AllOptional>>,
    #[kubeskema(unknown_fields)]
    rest: Map<String, Value>,
}

#[test]
fn structs_read_in_place_read_as_structs_read_into_locals() {
    let documents = [
        r#"{}"#,
        r#"{"count": 3, "count": 12, "mode": "safe", "mode": "slow"}"#,
        r#"{"note": null, "count": null, "mode": null}"#,
        r#"{"note": "n", "note": null, "count": "three"}"#,
        r#"{"ports": [{"number": 1}], "extra": 1, "extra": 2}"#,
        r#"{"inner": {"count": 11, "inner": {"mode": 7, "ports": [{"name": "p"}]}}, "x": {"y": null}}"#,
        r#"{"inner": [], "ports": {}, "count": 1.5}"#,
    ];
    let modes = [
        Options::default(),
        Options::strict(),
        Options { duplicate_keys: DuplicateKeys::FirstWins, ..Options::default() },
        Options {
            duplicate_keys: DuplicateKeys::LastWins,
            unknown_fields: UnknownFields::Preserve,
            ..Options::default()
        },
        Options { defaults: Defaults::Annotate, presence: true, ..Options::default() },
        Options { defaults: Defaults::Ignore, ..Options::default() },
    ];
    // The twin's read against the all-`Option` read of the same document without `id`
    // (and `tag`, which only the placeholder twin has, given).
    fn same_as_in_place<T: kubeskema::decode::Decode + kubeskema::Validate + serde::Serialize>(
        doc: &str,
        with_id: &str,
        options: &Options,
        in_place: &Decoded<AllOptional>,
    ) {
        let twin = from_slice::<T>(with_id.as_bytes(), options);
        assert_eq!(messages(in_place), messages(&twin), "{doc} {options:?}");
        assert_eq!(in_place.presence, twin.presence, "{doc} {options:?}");
        let unknown =
            |d: &[(kubeskema::path::Path, Value)]| d.iter().map(|(p, v)| (p.pointer(), v.clone())).collect::<Vec<_>>();
        assert_eq!(unknown(&in_place.unknown), unknown(&twin.unknown), "{doc} {options:?}");
        let mut twin_json = serde_json::to_value(twin.value.expect("the required field is given")).unwrap();
        let twin_object = twin_json.as_object_mut().unwrap();
        assert_eq!(twin_object.remove("id"), Some(json!("fast")), "{doc} {options:?}");
        if let Some(tag) = twin_object.remove("tag") {
            assert_eq!(tag, json!("t"), "{doc} {options:?}");
        }
        assert_eq!(
            serde_json::to_value(in_place.value.as_ref().expect("usable")).unwrap(),
            twin_json,
            "{doc} {options:?}"
        );
    }
    for doc in documents {
        // The required field first, so that it adds no issue and moves no other.
        let with_id = format!(r#"{{"id": "fast", "tag": "t", {}"#, doc.trim_start_matches('{'));
        let with_id = with_id.replace(r#""t", }"#, r#""t"}"#);
        for options in &modes {
            let in_place = from_slice::<AllOptional>(doc.as_bytes(), options);
            same_as_in_place::<WithRequired>(doc, &with_id, options, &in_place);
            same_as_in_place::<WithPlaceholders>(doc, &with_id, options, &in_place);
        }
    }
    // A missing required string and a defaulted one: the placeholder never shows.
    let r = from_slice::<WithPlaceholders>(br#"{"count": 1}"#, &Options::default());
    assert_eq!(messages(&r), ["id: Required value"]);
    assert!(r.value.is_none(), "unusable without its required field");
    let r = from_slice::<WithPlaceholders>(br#"{"id": "x"}"#, &Options::default());
    let value = r.value.expect("usable");
    assert_eq!((value.id.as_str(), value.tag.as_str()), ("x", "d"), "the default, not the placeholder");
    // What was read in place is what the document says.
    let r = from_slice::<AllOptional>(documents[5].as_bytes(), &Options::default());
    let inner = r.value.unwrap().inner.unwrap();
    assert_eq!(inner.count, Some(11));
    assert_eq!(inner.inner.as_ref().unwrap().mode, None, "an unusable value reads as absent, and is not defaulted");
    assert_eq!(inner.inner.unwrap().ports.unwrap()[0].name, "p");
}

/// Boxes and lists of structs, whose values are made where they are kept.
#[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
struct Holder {
    boxed: Option<Box<Port>>,
    ports: Option<Vec<Port>>,
    #[kubeskema(rename = "withRequired")]
    with_required: Option<Vec<WithRequired>>,
    modes: Option<Vec<Mode>>,
}

/// A struct made in its box or at the end of its list and then found unusable is taken back:
/// the box is empty, the list unusable, and the items after it are still read.
#[test]
fn an_unusable_struct_made_in_a_box_or_a_list_is_taken_back() {
    let doc = r#"{
        "boxed": {"number": 1},
        "ports": [{"name": "a"}, {"number": 2}, {"name": "c", "number": "x"}, {"name": "d"}],
        "withRequired": [{"id": "fast"}, {"count": 1}, {"id": "slow"}],
        "modes": ["fast", "slow", 3]
    }"#;
    let r = from_slice::<Holder>(doc.as_bytes(), &Options::default());
    assert_eq!(
        messages(&r),
        [
            "boxed.name: Required value",
            "ports[1].name: Required value",
            r#"ports[2].number: Invalid value: "string": ports[2].number in body must be of type integer: "string""#,
            "withRequired[1].id: Required value",
            r#"withRequired[2].id: Unsupported value: "slow": supported values: "fast", "safe""#,
            r#"modes[1]: Unsupported value: "slow": supported values: "fast", "safe""#,
            // A value of another type: its type error, then its enum error (as
            // kube-apiserver 1.36.3 reports an integer in a string enum).
            r#"modes[2]: Invalid value: "integer": modes[2] in body must be of type string: "integer""#,
            r#"modes[2]: Unsupported value: 3: supported values: "fast", "safe""#,
        ]
    );
    let value = r.value.expect("usable: only optional fields are unusable");
    assert_eq!(serde_json::to_value(&value).unwrap(), json!({}));

    // Usable lists hold every item, in order, past the first buffer and several doublings.
    let ports: Vec<Value> = (0..100).map(|i| json!({"name": format!("p{i}"), "number": i + 1})).collect();
    let doc = json!({"boxed": {"name": "b"}, "ports": ports, "withRequired": [{"id": "safe", "count": 2, "mode": "safe"}], "modes": ["safe"]});
    let r = from_slice::<Holder>(doc.to_string().as_bytes(), &Options::default());
    assert_eq!(messages(&r), Vec::<String>::new());
    let value = r.value.expect("usable");
    assert_eq!(serde_json::to_value(&value).unwrap(), doc);
    assert_eq!(value.boxed.unwrap().name, "b");
}
