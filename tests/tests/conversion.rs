//! Generated conversions between a CRD's versions, on the worked example of
//! `docs/conversion.md` (`fixtures/golden/conversion.yaml`, compiled from its golden files):
//! the user's methods, the lossless round trip through the annotation, and the generated
//! converter answering `ConversionReview`s the apiserver's ported acceptance takes.

#![allow(dead_code, clippy::all)]
include!(concat!(env!("OUT_DIR"), "/golden.rs"));

use conversion::apps_example_com::{v1, v1beta1};
use kubeskema::conversion::{Converter as _, DATA_ANNOTATION, apiserver, review};
use serde_json::{Value, json};

include!("../../fixtures/conversion/widgets.rs");

fn hub() -> v1::Widget {
    serde_json::from_value(json!({
        "apiVersion": "apps.example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "ns", "uid": "3e1f", "annotations": {"team": "a"}},
        "spec": {"replicas": 3, "image": {"repository": "nginx", "tag": "1.27"}, "paused": true, "color": "blue",
                 "ports": [{"name": "http", "number": 8080}], "selector": {"app": "w"}},
        "status": {"ready": true}
    }))
    .expect("a v1 Widget")
}

#[test]
fn down_keeps_what_the_spoke_cannot_hold_and_up_restores_it() {
    use v1beta1::widget_conversion::{from_hub, to_hub};
    let spoke = from_hub(&Widgets, hub());
    assert_eq!(spoke.api_version, "apps.example.com/v1beta1");
    let spec = spoke.spec.as_ref().expect("a spec");
    assert_eq!((spec.size, spec.image.as_str(), spec.color), (Some(3), "nginx:1.27", None));
    assert_eq!(spec.ports.as_ref().map(|p| p[0].number), Some(Some(8080)));
    assert_eq!(spoke.metadata.annotations["team"], "a");
    let kept: Value = serde_json::from_str(&spoke.metadata.annotations[DATA_ANNOTATION]).expect("JSON");
    assert_eq!(kept["spec"]["paused"], true);
    assert!(kept["metadata"].as_object().is_none_or(|m| m.is_empty()), "the hub's metadata is the spoke's own: {kept}");

    // Unchanged, it comes back whole, without the annotation.
    assert_eq!(to_hub(&Widgets, spoke.clone()), hub());

    // Edited in v1beta1: the edit wins, what v1beta1 cannot see is restored.
    let mut edited = spoke;
    edited.spec.as_mut().unwrap().size = Some(5);
    edited.spec.as_mut().unwrap().image = "nginx:1.28".into();
    let up = to_hub(&Widgets, edited);
    let mut expected = hub();
    expected.spec.as_mut().unwrap().replicas = Some(5);
    expected.spec.as_mut().unwrap().image.tag = Some("1.28".into());
    assert_eq!(up, expected);
}

#[test]
fn a_spoke_that_loses_nothing_carries_no_annotation() {
    let mut hub = hub();
    let spec = hub.spec.as_mut().unwrap();
    (spec.paused, spec.color) = (None, Some(v1::Color::Green));
    let spoke = v1beta1::widget_conversion::from_hub(&Widgets, hub.clone());
    assert!(!spoke.metadata.annotations.contains_key(DATA_ANNOTATION));
    assert_eq!(v1beta1::widget_conversion::to_hub(&Widgets, spoke), hub);
}

#[test]
fn a_hand_edited_annotation_restores_nothing() {
    let mut spoke = v1beta1::widget_conversion::from_hub(&Widgets, hub());
    spoke.metadata.annotations.insert(DATA_ANNOTATION.into(), "{not json".into());
    let up = v1beta1::widget_conversion::to_hub(&Widgets, spoke);
    assert_eq!(up.spec.as_ref().unwrap().paused, None);
    assert!(!up.metadata.annotations.contains_key(DATA_ANNOTATION));
}

/// A `ConversionReview` of both versions, both ways, answered by the generated converter and
/// taken by the apiserver's acceptance rules (`webhook_converter.go`, ported).
#[test]
fn the_generated_converter_answers_reviews_the_apiserver_accepts() {
    let converter = v1::widget_conversion::Converter(Widgets);
    assert_eq!(converter.kind(), Some(("apps.example.com", "Widget")));
    let stored_v1 = serde_json::to_value(hub()).unwrap();
    let stored_beta = json!({"apiVersion": "apps.example.com/v1beta1", "kind": "Widget",
        "metadata": {"name": "old", "namespace": "ns", "uid": "9a0b"},
        "spec": {"size": 2, "image": "redis", "legacyMode": true, "color": "red"}});
    for (desired, version) in [("apps.example.com/v1beta1", "v1beta1"), ("apps.example.com/v1", "v1")] {
        let body = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "request": {"uid": "7f0c", "desiredAPIVersion": desired, "objects": [stored_v1, stored_beta]}});
        let answer = review(&serde_json::to_vec(&body).unwrap(), &converter).expect("a review");
        assert_eq!(answer["response"]["result"]["status"], "Success", "{answer:#}");
        for (i, sent) in [&stored_v1, &stored_beta].into_iter().enumerate() {
            let single = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
                "request": {"uid": "7f0c", "desiredAPIVersion": desired, "objects": [sent]}});
            let one = review(&serde_json::to_vec(&single).unwrap(), &converter).unwrap();
            let read = apiserver::convert(sent, desired, version, "7f0c", &one)
                .unwrap_or_else(|e| panic!("the apiserver refuses object {i} to {desired}: {e}"));
            assert_eq!(read["apiVersion"], desired);
            assert_eq!(read, answer["response"]["convertedObjects"][i]);
        }
    }
    // The v1 object down and back up through two reviews is the object it was.
    let down = converter.convert(stored_v1.clone(), "apps.example.com/v1beta1").unwrap();
    assert_eq!(down["spec"]["image"], "nginx:1.27");
    assert_eq!(converter.convert(down, "apps.example.com/v1").unwrap(), stored_v1);
}

#[test]
fn the_converter_names_what_it_cannot_read() {
    let converter = v1::widget_conversion::Converter(Widgets);
    let other = json!({"apiVersion": "apps.example.com/v2", "kind": "Widget", "metadata": {"name": "w"}});
    assert_eq!(
        converter.convert(other, "apps.example.com/v1").unwrap_err(),
        r#"cannot convert from apiVersion Some("apps.example.com/v2"): not a version of Widget"#
    );
    let bad = json!({"apiVersion": "apps.example.com/v1beta1", "kind": "Widget", "metadata": {"name": "w"},
                     "spec": {"image": 5}});
    let message = converter.convert(bad, "apps.example.com/v1").unwrap_err();
    assert!(message.contains("image"), "{message}");
    let ok = json!({"apiVersion": "apps.example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                    "spec": {"image": {"repository": "r"}}});
    assert_eq!(
        converter.convert(ok, "apps.example.com/v9").unwrap_err(),
        r#"cannot convert to apiVersion "apps.example.com/v9": not a version of Widget"#
    );
}

/// cluster-api's round-trip test, on objects generated from the two versions' schemas.
#[test]
fn generated_objects_round_trip_both_ways() {
    use v1beta1::widget_conversion::{NOT_IN_HUB, from_hub, to_hub};
    // `size` is renamed, `legacyMode` removed: only the removed one is lost.
    assert_eq!(NOT_IN_HUB, &[&["spec", "legacyMode"][..], &["spec", "size"]]);
    const LOST: &[&[&str]] = &[&["spec", "legacyMode"]];
    let trips = kubeskema::testing::round_trip::<v1::Widget, v1beta1::Widget>(
        |spoke| to_hub(&Widgets, spoke),
        |hub| from_hub(&Widgets, hub),
        kubeskema::testing::Lossy { lost: LOST, filled: &[] },
        1000,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((trips.hubs, trips.spokes), (1000, 1000));
    println!("hub: {}\nspoke: {}", trips.hub_stats, trips.spoke_stats);
}

/// A conversion that loses what the test must find: `replicas` not carried down.
#[test]
fn the_round_trip_finds_a_lossy_method() {
    struct Forgetful;
    impl v1beta1::widget_conversion::Conversion for Forgetful {
        fn spec_color_from_hub(&self, from: &v1::WidgetSpec) -> Option<v1beta1::Color> {
            Widgets.spec_color_from_hub(from)
        }
        fn spec_image_to_hub(&self, from: &v1beta1::WidgetSpec) -> v1::Image {
            Widgets.spec_image_to_hub(from)
        }
        fn spec_image_from_hub(&self, from: &v1::WidgetSpec) -> String {
            Widgets.spec_image_from_hub(from)
        }
        fn spec_paused_to_hub(&self, _: &v1beta1::WidgetSpec) -> Option<bool> {
            None
        }
        fn spec_ports_number_from_hub(&self, from: &v1::Port) -> Option<i32> {
            Widgets.spec_ports_number_from_hub(from)
        }
        fn spec_replicas_to_hub(&self, _: &v1beta1::WidgetSpec) -> Option<i64> {
            None
        }
        fn spec_legacy_mode_from_hub(&self, _: &v1::WidgetSpec) -> Option<bool> {
            None
        }
        fn spec_size_from_hub(&self, from: &v1::WidgetSpec) -> Option<i64> {
            from.replicas
        }
    }
    let failure = kubeskema::testing::round_trip::<v1::Widget, v1beta1::Widget>(
        |spoke| v1beta1::widget_conversion::to_hub(&Forgetful, spoke),
        |hub| v1beta1::widget_conversion::from_hub(&Forgetful, hub),
        kubeskema::testing::Lossy { lost: &[&["spec", "legacyMode"]], filled: &[] },
        1000,
    )
    .unwrap_err();
    assert!(failure.starts_with("spoke → hub → spoke changed the object"), "{failure}");
    assert!(failure.contains("\"size\""), "{failure}");
}

/// The generator's objects are objects the apiserver takes: a sample of them (`fixtures/oracle/
/// generated.jsonl`, from the worked example and corpus CRDs with patterns, formats, list types
/// and CEL rules), each accepted by kube-apiserver 1.36.3 when recorded. `tests/oracle.rs`
/// replays them through the dynamic validator, which must agree.
#[test]
fn a_sample_of_generated_objects_the_apiserver_accepted() {
    let file = kubeskema_tests::repo_dir().join("fixtures/oracle/generated.jsonl");
    let cases = kubeskema_tests::oracle::read_fixture(&file).unwrap_or_else(|e| panic!("{e}"));
    assert!(cases.len() >= 150, "{} generated cases", cases.len());
    for case in &cases {
        let answer = case.apiserver.as_ref().unwrap_or_else(|| panic!("{} was never asked", case.id));
        assert!(
            answer.errors.is_empty() && answer.error.is_none(),
            "{}: the apiserver refused it: {answer:?}",
            case.id
        );
    }
}

/// Under `strategy: None` the apiserver only relabels `apiVersion`: codegen says where two
/// versions differ in what a conversion would have to do, and generates the relabeling.
#[test]
fn strategy_none_with_versions_that_differ_warns_and_relabels() {
    let dir = std::env::temp_dir().join(format!("kubeskema-none-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("gadgets.yaml");
    let text = std::fs::read_to_string(kubeskema_tests::repo_dir().join("fixtures/golden/multi_version.yaml")).unwrap();
    let start = text.find("  conversion:").unwrap();
    let end = text[start..].find("  versions:").unwrap() + start;
    std::fs::write(&file, format!("{}{}", &text[..start], &text[end..])).unwrap();
    let generation = kubeskema_codegen::__internal::pipeline::run(&[file], Default::default()).unwrap();
    let warnings: Vec<String> = generation.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains(
            "conversion strategy None changes only apiVersion between versions, and these differ from the storage \
             version v1 where a conversion is needed: v1alpha1 at 1 place (Gadget.spec.size)"
        ),
        "{}",
        warnings[0]
    );
    assert!(warnings[0].contains("gadgets.yaml:"), "the file and place: {}", warnings[0]);
    let spoke = generation.modules.iter().find(|m| m.version == "v1alpha1").unwrap();
    assert!(spoke.code.contains("pub fn relabel_to_hub("), "{}", spoke.code);
    std::fs::remove_dir_all(&dir).ok();
}

/// `--hub` (`Config::hub`) picks a served version other than the storage version; a hub that
/// is not served, not a version, or of a CRD not given, is an error that says so.
#[test]
fn a_hub_other_than_the_storage_version() {
    use kubeskema_codegen::__internal::pipeline::{Options, run};
    let fixture = kubeskema_tests::repo_dir().join("fixtures/golden/multi_version.yaml");
    let hubs = |crd: &str, version: &str| Options {
        hubs: [(crd.to_owned(), version.to_owned())].into_iter().collect(),
        ..Options::default()
    };
    let generation = run(std::slice::from_ref(&fixture), hubs("gadgets.example.com", "v1alpha1")).unwrap();
    let v1 = generation.modules.iter().find(|m| m.path == ["example_com", "v1"]).unwrap();
    assert!(v1.code.contains("pub fn to_hub<C: Conversion + ?Sized>(\n        c: &C,\n        from: super::Gadget,\n    ) -> super::super::v1alpha1::Gadget"), "{}", v1.code);
    assert_eq!(generation.conversions[0].hub, "v1alpha1");

    let dir = std::env::temp_dir().join(format!("kubeskema-hub-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("gadgets.yaml");
    let text = std::fs::read_to_string(&fixture).unwrap().replacen(
        "served: true\n      storage: false",
        "served: false\n      storage: false",
        1,
    );
    std::fs::write(&file, text).unwrap();
    let refused = |options| run(std::slice::from_ref(&file), options).unwrap_err().to_string();
    let unserved = refused(hubs("gadgets.example.com", "v1alpha1"));
    assert!(
        unserved.contains("--hub names version v1alpha1 of gadgets.example.com, which it does not serve")
            && unserved.contains("gadgets.yaml:")
            && unserved.contains("name a served version: v1"),
        "{unserved}"
    );
    let missing = refused(hubs("gadgets.example.com", "v9"));
    assert!(missing.contains("which it does not have"), "{missing}");
    let other = refused(hubs("widgets.example.com", "v1"));
    assert!(other.contains("--hub names CRD widgets.example.com, which is not among the inputs"), "{other}");
    std::fs::remove_dir_all(&dir).ok();
}
