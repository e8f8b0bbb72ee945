//! Behaviour of `#[derive(kubeskema::Serialize, kubeskema::Deserialize)]` on hand-written types:
//! what a user relies on when reading objects the way the apiserver decodes them.

use serde_json::{Value, json};

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize)]
struct Spec {
    /// Required: no default, not an Option.
    #[kubeskema(rename = "name", min_length = 1)]
    name: String,
    #[kubeskema(default = 1, minimum = 0, maximum = 10)]
    replicas: i64,
    #[kubeskema(rename = "type")]
    r#type: Option<Mode>,
    #[kubeskema(nullable, default = "fast")]
    speed: Option<String>,
    #[kubeskema(nullable)]
    note: Option<Option<String>>,
    #[kubeskema(nullable, required)]
    owner: Option<String>,
    #[kubeskema(rename = "maxSurge", int_or_string, pattern = "^[0-9]+%?$")]
    max_surge: Option<kubeskema::IntOrString>,
    #[kubeskema(list_type = "map", list_map_keys("name"), max_items = 4, items(max_properties = 3))]
    ports: Option<Vec<Port>>,
    #[kubeskema(default_json = "{}")]
    nested: Nested,
}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize)]
#[kubeskema(rule(rule = "self.port > 0", message = "port must be positive"))]
struct Port {
    name: String,
    port: i32,
}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize)]
#[kubeskema(preserve_unknown_fields)]
struct Nested {
    #[kubeskema(default = "x")]
    known: String,
    #[kubeskema(unknown_fields)]
    rest: serde_json::Map<String, Value>,
}

#[derive(Clone, Copy, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize)]
enum Mode {
    Fast,
    #[kubeskema(value = "")]
    Empty,
    #[kubeskema(value = 3)]
    Three,
    #[kubeskema(value = true)]
    Yes,
}

fn read(v: Value) -> Result<Spec, serde_json::Error> {
    serde_json::from_value(v)
}

#[test]
fn defaults_fill_absent_fields_and_nest() {
    let spec = read(json!({"name": "a", "owner": null})).unwrap();
    assert_eq!(spec.replicas, 1);
    assert_eq!(spec.speed.as_deref(), Some("fast"));
    assert_eq!(spec.nested, Nested { known: "x".into(), rest: Default::default() });
    assert_eq!(
        serde_json::to_value(&spec).unwrap(),
        json!({"name": "a", "replicas": 1, "speed": "fast", "owner": null, "nested": {"known": "x"}})
    );
}

#[test]
fn null_of_a_non_nullable_field_reads_as_absent() {
    // Defaulted: the default fills it. Optional: None. Required: missing.
    let spec = read(json!({"name": "a", "owner": "o", "replicas": null, "type": null})).unwrap();
    assert_eq!(spec.replicas, 1);
    assert_eq!(spec.r#type, None);
    let err = read(json!({"name": null, "owner": "o"})).unwrap_err();
    assert_eq!(err.to_string(), "name: Required value");
}

#[test]
fn nullable_fields_keep_null_apart_from_absent() {
    let spec = read(json!({"name": "a", "owner": null, "speed": null, "note": null})).unwrap();
    assert_eq!(spec.speed, None, "explicit null of a nullable defaulted field is kept");
    assert_eq!(spec.note, Some(None));
    assert_eq!(spec.owner, None);
    let out = serde_json::to_value(&spec).unwrap();
    assert_eq!(out["speed"], Value::Null);
    assert_eq!(out["note"], Value::Null);
    assert!(out.as_object().unwrap().contains_key("owner"));

    let absent = read(json!({"name": "a", "owner": null})).unwrap();
    assert_eq!(absent.note, None);
    assert!(!serde_json::to_value(&absent).unwrap().as_object().unwrap().contains_key("note"));
    // A nullable required field must be present, null or not.
    assert_eq!(read(json!({"name": "a"})).unwrap_err().to_string(), "owner: Required value");
}

#[test]
fn unknown_fields_are_pruned_or_preserved_by_the_schema() {
    let spec = read(json!({"name": "a", "owner": null, "typo": 1,
                           "nested": {"known": "k", "extra": {"deep": [1]}}}))
    .unwrap();
    let out = serde_json::to_value(&spec).unwrap();
    assert!(out.get("typo").is_none(), "pruned");
    assert_eq!(out["nested"], json!({"known": "k", "extra": {"deep": [1]}}), "preserved");
}

#[test]
fn enums_read_strings_integers_booleans_and_name_the_supported_values() {
    for (json, mode) in [
        (json!("Fast"), Mode::Fast),
        (json!(""), Mode::Empty),
        (json!(3), Mode::Three),
        (json!(3.0), Mode::Three),
        (json!(true), Mode::Yes),
    ] {
        assert_eq!(serde_json::from_value::<Mode>(json.clone()).unwrap(), mode);
        if json != json!(3.0) {
            assert_eq!(serde_json::to_value(mode).unwrap(), json);
        }
    }
    let err = serde_json::from_value::<Mode>(json!("slow")).unwrap_err().to_string();
    assert_eq!(err, r#"Unsupported value: "slow": supported values: "Fast", "", "3", "true""#);
}

#[test]
fn duplicate_keys_and_wrong_types_are_errors() {
    let err = serde_json::from_str::<Spec>(r#"{"name": "a", "name": "b", "owner": null}"#).unwrap_err();
    // The apiserver's words, where the read stopped.
    assert_eq!(err.to_string(), r#"strict decoding error: duplicate field "name" at line 1 column 25"#);
    let err = serde_json::from_str::<Spec>(r#"{"name": 1, "owner": null}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"name: Invalid value: "integer": name in body must be of type string: "integer" at line 1 column 10"#
    );
    // A missing field is known at the end of its object.
    let err = serde_json::from_str::<Spec>(r#"{"owner": null, "nested": {}}"#).unwrap_err();
    assert_eq!(err.to_string(), "name: Required value at line 1 column 29");
    assert!(serde_json::from_str::<Spec>(r#"[1]"#).is_err());
}

#[test]
fn an_enum_read_alone_refuses_as_the_validating_read_does_and_says_where() {
    // Through its `Decode`: the apiserver's words, and the deserializer's position.
    let err = |json: &str| serde_json::from_str::<Vec<Mode>>(json).unwrap_err().to_string();
    assert_eq!(
        err(r#"["Fast", 7]"#),
        r#"Unsupported value: 7: supported values: "Fast", "", "3", "true" at line 1 column 10"#
    );
    assert_eq!(
        err(r#"[2.5]"#),
        r#"Unsupported value: 2.5: supported values: "Fast", "", "3", "true" at line 1 column 4"#
    );
    assert_eq!(
        serde_json::from_str::<Mode>("[1]").unwrap_err().to_string(),
        "cannot be decoded: the document is of type array, not an enum value at line 1 column 3"
    );
}

/// A serializer whose maps fail at one key: the derived `Serialize` stops writing there and
/// returns that error.
#[test]
fn serializing_stops_at_the_first_error_and_returns_it() {
    use serde::ser::{self, Impossible, Serialize};
    #[derive(Debug)]
    struct Failed(String);
    impl std::fmt::Display for Failed {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(&self.0)
        }
    }
    impl std::error::Error for Failed {}
    impl ser::Error for Failed {
        fn custom<T: std::fmt::Display>(msg: T) -> Self {
            Failed(msg.to_string())
        }
    }
    // Records the keys written; refuses `fail_at`.
    struct Keys<'k> {
        written: &'k mut Vec<String>,
        fail_at: &'static str,
    }
    impl ser::SerializeMap for Keys<'_> {
        type Ok = ();
        type Error = Failed;
        fn serialize_key<T: Serialize + ?Sized>(&mut self, _: &T) -> Result<(), Failed> {
            unreachable!("entries are written whole")
        }
        fn serialize_value<T: Serialize + ?Sized>(&mut self, _: &T) -> Result<(), Failed> {
            unreachable!("entries are written whole")
        }
        fn serialize_entry<K: Serialize + ?Sized, V: Serialize + ?Sized>(
            &mut self,
            k: &K,
            _: &V,
        ) -> Result<(), Failed> {
            let key = serde_json::to_value(k).unwrap().as_str().unwrap().to_owned();
            if key == self.fail_at {
                return Err(Failed(format!("refused {key}")));
            }
            self.written.push(key);
            Ok(())
        }
        fn end(self) -> Result<(), Failed> {
            self.written.push("(end)".into());
            Ok(())
        }
    }
    struct Maps<'k>(Keys<'k>);
    macro_rules! refuse {
        ($($name:ident($($arg:ty),*) -> $ret:ty;)*) => {
            $(fn $name(self, $(_: $arg),*) -> Result<$ret, Failed> { Err(Failed("not a map".into())) })*
        };
    }
    impl<'k> ser::Serializer for Maps<'k> {
        type Ok = ();
        type Error = Failed;
        type SerializeSeq = Impossible<(), Failed>;
        type SerializeTuple = Impossible<(), Failed>;
        type SerializeTupleStruct = Impossible<(), Failed>;
        type SerializeTupleVariant = Impossible<(), Failed>;
        type SerializeMap = Keys<'k>;
        type SerializeStruct = Impossible<(), Failed>;
        type SerializeStructVariant = Impossible<(), Failed>;
        fn serialize_map(self, _: Option<usize>) -> Result<Keys<'k>, Failed> {
            Ok(self.0)
        }
        refuse! {
            serialize_bool(bool) -> (); serialize_i8(i8) -> (); serialize_i16(i16) -> ();
            serialize_i32(i32) -> (); serialize_i64(i64) -> (); serialize_u8(u8) -> ();
            serialize_u16(u16) -> (); serialize_u32(u32) -> (); serialize_u64(u64) -> ();
            serialize_f32(f32) -> (); serialize_f64(f64) -> (); serialize_char(char) -> ();
            serialize_str(&str) -> (); serialize_bytes(&[u8]) -> (); serialize_none() -> ();
            serialize_unit() -> (); serialize_unit_struct(&'static str) -> ();
            serialize_unit_variant(&'static str, u32, &'static str) -> ();
            serialize_seq(Option<usize>) -> Self::SerializeSeq;
            serialize_tuple(usize) -> Self::SerializeTuple;
            serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
            serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
            serialize_struct(&'static str, usize) -> Self::SerializeStruct;
            serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
        }
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Failed> {
            Err(Failed("not a map".into()))
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, _: &T) -> Result<(), Failed> {
            Err(Failed("not a map".into()))
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<(), Failed> {
            Err(Failed("not a map".into()))
        }
    }
    let spec = read(json!({"name": "a", "owner": null, "typo": 1, "nested": {"known": "k"}})).unwrap();
    let all = serde_json::to_value(&spec).unwrap();
    let keys: Vec<&String> = all.as_object().unwrap().keys().collect();
    assert!(keys.len() >= 3, "{keys:?}");
    let mut written = Vec::new();
    spec.serialize(Maps(Keys { written: &mut written, fail_at: "" })).unwrap();
    assert_eq!(written.last().map(String::as_str), Some("(end)"));
    let order: Vec<String> = written[..written.len() - 1].to_vec();
    let fail_at: &'static str = Box::leak(order[1].clone().into_boxed_str());
    let mut written = Vec::new();
    let err = spec.serialize(Maps(Keys { written: &mut written, fail_at })).unwrap_err();
    assert_eq!(err.to_string(), format!("refused {fail_at}"));
    assert_eq!(written, order[..1], "nothing is written after the error, and the map is not ended");
}

mod serde_names {
    //! Types that carry `#[serde(...)]` keep their JSON names under kubeskema's derives: the
    //! same type with serde's derives and with kubeskema's reads and writes the same JSON, and
    //! both give the same schema.

    use kubeskema::StructuralSchema;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize, kubeskema::Validate)]
    #[serde(rename_all = "camelCase")]
    struct WithSerde {
        max_surge: i64,
        #[serde(rename = "min-ready")]
        min_ready: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        rolling_update: Option<Strategy>,
    }

    #[derive(Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
    #[serde(rename_all = "camelCase")]
    struct WithKubeskema {
        max_surge: i64,
        #[serde(rename = "min-ready")]
        min_ready: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        rolling_update: Option<StrategyK>,
    }

    #[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize, kubeskema::Validate)]
    #[serde(rename_all = "kebab-case")]
    enum Strategy {
        RollingUpdate,
        #[serde(rename = "recreate")]
        Recreate,
    }

    #[derive(Clone, Copy, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
    #[serde(rename_all = "kebab-case")]
    enum StrategyK {
        RollingUpdate,
        #[serde(rename = "recreate")]
        Recreate,
    }

    #[test]
    fn serde_and_kubeskema_read_write_and_describe_alike() {
        let json = serde_json::json!({"maxSurge": 1, "min-ready": 2, "rollingUpdate": "rolling-update"});
        let a: WithSerde = serde_json::from_value(json.clone()).unwrap();
        let b: WithKubeskema = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(serde_json::to_value(&a).unwrap(), json);
        assert_eq!(serde_json::to_value(&b).unwrap(), json);
        let without = serde_json::json!({"maxSurge": 1, "min-ready": 2});
        let a: WithSerde = serde_json::from_value(without.clone()).unwrap();
        let b: WithKubeskema = serde_json::from_value(without.clone()).unwrap();
        assert_eq!(serde_json::to_value(&a).unwrap(), without);
        assert_eq!(serde_json::to_value(&b).unwrap(), without);
        assert_eq!(WithSerde::schema(), WithKubeskema::schema());
        assert_eq!(
            WithSerde::schema(),
            serde_json::json!({
                "type": "object",
                "required": ["maxSurge", "min-ready"],
                "properties": {
                    "maxSurge": {"type": "integer"},
                    "min-ready": {"type": "integer"},
                    "rollingUpdate": {"type": "string", "enum": ["rolling-update", "recreate"]},
                },
            })
        );
    }

    #[test]
    fn issues_are_placed_by_the_serde_names() {
        #[derive(serde::Deserialize, kubeskema::Validate)]
        #[serde(rename_all = "camelCase")]
        struct Spec {
            #[kubeskema(maximum = 3)]
            max_surge: i64,
            #[serde(default)]
            #[kubeskema(max_items = 1)]
            extra_args: Vec<String>,
        }
        let spec: Spec = serde_json::from_value(serde_json::json!({"maxSurge": 5, "extraArgs": ["a", "b"]})).unwrap();
        let issues: Vec<String> = kubeskema::Validate::validate(&spec).iter().map(ToString::to_string).collect();
        assert_eq!(
            issues,
            [
                "maxSurge: Invalid value: 5: maxSurge in body should be less than or equal to 3",
                "extraArgs: Too many: 2: must have at most 1 item",
            ]
        );
        // serde's default: not required in the schema.
        assert_eq!(Spec::schema()["required"], serde_json::json!(["maxSurge"]));
    }
}

mod serde_nulls {
    //! An `Option` that serde's derive writes as `null` is nullable in the schema; one it skips,
    //! or one kubeskema's `Serialize` writes (it leaves `None` out), is not.

    use kubeskema::StructuralSchema;

    #[derive(serde::Serialize, kubeskema::Validate)]
    struct BySerde {
        written_as_null: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<String>,
    }

    #[derive(kubeskema::Serialize, kubeskema::Validate)]
    struct ByKubeskema {
        left_out: Option<String>,
    }

    #[test]
    fn null_is_let_through_where_it_is_written() {
        let json = serde_json::to_value(BySerde { written_as_null: None, skipped: None }).unwrap();
        assert_eq!(json, serde_json::json!({"written_as_null": null}));
        assert_eq!(BySerde::schema()["properties"]["written_as_null"]["nullable"], true);
        assert!(BySerde::schema()["properties"]["skipped"].get("nullable").is_none());
        assert_eq!(serde_json::to_value(ByKubeskema { left_out: None }).unwrap(), serde_json::json!({}));
        assert!(ByKubeskema::schema()["properties"]["left_out"].get("nullable").is_none());
    }
}
