//! Data-carrying enums and serde's four representations: the same types with serde's derives
//! and with kubeskema's read and write the same JSON, refuse the same JSON, and give the same
//! schema; and the schema accepts exactly what the types read (the dynamic validator over the
//! derived schema agrees with the typed read, value by value).

use kubeskema::StructuralSchema;
use serde_json::{Value, json};

use kubeskema_tests::serde_shapes::{by_kubeskema, by_serde, samples};

/// Whether the types hold `json` exactly, both ways: read, valid, and written back as it was
/// (serde drops a key no field names: a type that drops one does not hold the JSON). Each side's
/// value written back, or `None`.
fn both_ways(json: &Value) -> (Option<Value>, Option<Value>) {
    fn accept<T: serde::de::DeserializeOwned + serde::Serialize + kubeskema::Validate>(json: &Value) -> Option<Value> {
        let value: T = serde_json::from_value(json.clone()).ok()?;
        let written = serde_json::to_value(&value).unwrap();
        (kubeskema::Validate::validate(&value).is_empty() && written == *json).then_some(written)
    }
    (accept::<by_serde::Holder>(json), accept::<by_kubeskema::Holder>(json))
}

#[test]
fn both_derives_give_one_schema() {
    assert_eq!(by_serde::Holder::schema(), by_kubeskema::Holder::schema());
}

#[test]
fn the_schemas_say_what_serde_writes() {
    let s = by_kubeskema::Holder::schema();
    let p = &s["properties"];
    assert_eq!(
        p["external"],
        json!({
            "description": "Where the source comes from (externally tagged: serde's default).",
            "type": "object",
            "properties": {
                "git": {"type": "object", "description": "A git repository.", "required": ["url"], "properties": {
                    "url": {"type": "string", "minLength": 1}, "branch": {"type": "string"}}},
                "ociImage": {"type": "object", "required": ["image"], "properties": {
                    "image": {"type": "string"}, "tag": {"type": "string"}}},
            },
            "oneOf": [{"required": ["git"]}, {"required": ["ociImage"]}],
            "x-kubernetes-validations": [
                {"rule": "!has(self.ociImage) || self.ociImage.image.size() > 0", "message": "an image is named"}],
        })
    );
    assert_eq!(p["mixed"]["x-kubernetes-preserve-unknown-fields"], true);
    assert!(p["mixed"].get("type").is_none());
    let internal = &p["internal"];
    assert_eq!(internal["required"], json!(["type"]));
    assert_eq!(
        internal["properties"]["type"],
        json!({"type": "string", "enum": ["Git", "Oci", "Port", "Named", "Empty"]})
    );
    assert_eq!(internal["properties"]["port"], json!({"x-kubernetes-int-or-string": true}));
    let rules: Vec<&str> =
        internal["x-kubernetes-validations"].as_array().unwrap().iter().map(|r| r["rule"].as_str().unwrap()).collect();
    assert!(rules.contains(&"self.type != \"Port\" || !has(self.port) || type(self.port) == int"), "{rules:?}");
    assert!(rules.contains(&"self.type != \"Empty\" || (!has(self.depth) && !has(self.image) && !has(self.port) && !has(self.tag) && !has(self.url))"), "{rules:?}");
    assert_eq!(p["adjacent"]["required"], json!(["kind"]));
    assert_eq!(p["untagged"]["anyOf"], json!([{"required": ["count"]}, {"required": ["ratio"]}]));
}

#[test]
fn both_derives_read_and_write_the_same_json() {
    for (spec, readable) in samples() {
        let (a, b) = both_ways(&spec);
        if readable {
            assert_eq!(a.as_ref(), Some(&spec), "serde's derive on {spec}");
            assert_eq!(b.as_ref(), Some(&spec), "kubeskema's derive on {spec}");
        } else {
            assert_eq!((a.is_some(), b.is_some()), (false, false), "both refuse {spec}: {a:?} {b:?}");
        }
    }
}

const RERECORD: &str = "re-record: cargo run -p kubeskema-tests --bin derived-crds -- /tmp/derived && fixtures/derived/record.py /tmp/derived";

/// kube-apiserver 1.36.3's verdict on each sample as a `Pipeline` created under the derived CRD
/// (`fixtures/derived/verdicts.json`), our dynamic validator's over the same CRD, and whether
/// the types hold it: the same, but for the one place the schema was widened (and says so).
#[test]
fn the_apiserver_the_derived_schema_and_the_types_agree() {
    use kubeskema::resource::CustomResource;
    let path = kubeskema_tests::repo_dir().join("fixtures/derived/verdicts.json");
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let recorded = recorded["objects"].as_array().unwrap();
    let samples = samples();
    assert_eq!(recorded.len(), samples.len(), "{RERECORD}");
    let (crd, errors) = kubeskema::crd::Crd::parse(by_kubeskema::Pipeline::definition().to_json());
    assert!(errors.is_empty(), "{errors:?}");
    let validator = kubeskema::validate::ResourceValidator::new(&crd, &crd.versions[0]);
    let mut widened = 0;
    for ((spec, held), verdict) in samples.iter().zip(recorded) {
        let object = kubeskema_tests::serde_shapes::object(spec);
        assert_eq!(verdict["object"], object, "{RERECORD}");
        let theirs: Vec<&str> = verdict["errors"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
        let mut ours: Vec<String> = validator.validate_create(&object).issues.iter().map(ToString::to_string).collect();
        ours.sort();
        assert_eq!(ours, theirs, "{spec}");
        // Two places let more through than the types: `Mixed` is a string or an object, so the
        // schema takes any value there (a note says so); and the apiserver prunes a key that
        // `deny_unknown_fields` refuses.
        if !held && theirs.is_empty() {
            assert!(
                spec["mixed"] == "On" || spec["strict"]["b"] == 2,
                "only the widened `Mixed` and pruning let more through than the types: {spec}"
            );
            widened += 1;
            continue;
        }
        assert_eq!(theirs.is_empty(), *held, "the apiserver and the types disagree on {spec}");
    }
    assert_eq!(widened, 2);
}

/// Where kube-derive 5 (+ schemars 1) panics or writes a CRD the apiserver refuses for a shape
/// (`fixtures/derived/kube-derive.json`, re-recorded by `fixtures/derived/kube-derive/record.sh`),
/// the derived schema has the shape, and kube-apiserver 1.36.3 accepts its CRD (`derived.rs`).
#[test]
fn shapes_the_peer_fails_on_are_derived_here() {
    let path = kubeskema_tests::repo_dir().join("fixtures/derived/kube-derive.json");
    let peer: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let schema = by_kubeskema::Holder::schema();
    let mut failing = Vec::new();
    for (shape, outcome) in peer["shapes"].as_object().unwrap() {
        let field = if shape == "flattened-untagged" { "rollout" } else { shape.as_str() };
        assert!(schema["properties"].get(field).is_some(), "{shape}: no field `{field}` in the fixture");
        if outcome["kube-derive"] != "accepted" {
            failing.push(shape.as_str());
        }
    }
    assert_eq!(failing, ["adjacent", "internal", "mixed"]);
}

/// The validating read says what the dynamic validator says over the derived CRD (whose
/// verdicts are kube-apiserver 1.36.3's: the test above), for each enum representation: a
/// field of another variant (which the variant's type would drop), a payload the variant
/// cannot read, no variant at all. Under `Strict` a field the CRD declares is no unknown
/// field; under `Preserve` it is kept; plain `Deserialize` refuses what the apiserver refuses.
/// (The samples of `strict` and `collections` are left out: a type that refuses unknown keys,
/// and a required field missing beside other problems, are read as the types say.)
#[test]
fn the_typed_read_says_what_the_derived_crd_says() {
    use kubeskema::decode::{Options, UnknownFields, from_value};
    use kubeskema::resource::CustomResource;
    let (crd, _) = kubeskema::crd::Crd::parse(by_kubeskema::Pipeline::definition().to_json());
    let validator = kubeskema::validate::ResourceValidator::new(&crd, &crd.versions[0]);
    let sorted = |issues: &[kubeskema::issue::Issue]| {
        let mut texts: Vec<String> = issues.iter().map(ToString::to_string).collect();
        texts.sort();
        texts
    };
    let mut compared = 0;
    for (spec, _) in samples().into_iter().filter(|(s, _)| s.get("strict").is_none() && s.get("collections").is_none())
    {
        let object = kubeskema_tests::serde_shapes::object(&spec);
        let outcome = validator.validate_create(&object);
        let theirs = sorted(&outcome.issues);
        let read = from_value::<by_kubeskema::Pipeline>(&object, &Options::default());
        assert_eq!(sorted(&read.issues), theirs, "{spec}");
        // Strict: the same, and the unknown fields are those the apiserver prunes.
        let strict = from_value::<by_kubeskema::Pipeline>(&object, &Options::strict());
        let (unknown, rest): (Vec<_>, Vec<_>) =
            strict.issues.into_iter().partition(|i| i.error_type == kubeskema::issue::ErrorType::Strict);
        assert_eq!(sorted(&rest), theirs, "strict: {spec}");
        let pruned: Vec<String> =
            outcome.pruned.iter().map(|p| kubeskema::decode::strict_issue(p.clone(), "unknown").to_string()).collect();
        assert_eq!(sorted(&unknown), pruned, "strict, unknown fields: {spec}");
        compared += 1;
    }
    assert!(compared > 40, "{compared} samples compared");

    // The issue's example: a field of another variant, kept under Preserve, refused by plain
    // `Deserialize` in the apiserver's words.
    let spec = json!({"external": {"git": {"url": "u"}}, "internal": {"type": "Git", "url": "u", "port": 80}});
    let preserve = Options { unknown_fields: UnknownFields::Preserve, ..Options::default() };
    let read = from_value::<by_kubeskema::Pipeline>(&kubeskema_tests::serde_shapes::object(&spec), &preserve);
    let kept: Vec<String> = read.unknown.iter().map(|(p, v)| format!("{}={v}", p.pointer())).collect();
    assert_eq!(kept, ["/spec/internal/port=80"]);
    let refused = serde_json::from_value::<by_kubeskema::Holder>(spec).unwrap_err().to_string();
    assert_eq!(refused, r#"internal: Invalid value: "image", "port", "tag" must not be set when type is "Git""#);
}
