//! The apiserver's side ported with its own tests (`webhook_converter_test.go`: restoring
//! metadata, the objects sent, the review posted, what is taken from an answer), then
//! [`review`] answering real reviews, each answer replayed through the apiserver's [`convert`].

use serde_json::{Value, json};

use super::apiserver::{convert, converted_objects, objects_to_convert, restore_object_meta, review_request};
use super::{BadReview, review};

#[test]
fn restore_object_meta_as_the_apiserver() {
    let big_label = "x".repeat(64);
    let big_annotation = "x".repeat(256 * 1024 + 1);
    // (name, original, converted, expected, an error)
    let cases: Vec<(&str, Value, Value, Value, bool)> = vec![
        ("no converted metadata", json!({"metadata": {}, "spec": {}}), json!({"spec": {}}), json!({"spec": {}}), true),
        (
            "invalid converted metadata",
            json!({"metadata": {}, "spec": {}}),
            json!({"metadata": ["foo"]}),
            json!({"metadata": ["foo"]}),
            true,
        ),
        (
            "no original metadata",
            json!({"spec": {}}),
            json!({"metadata": {}, "spec": {}}),
            json!({"metadata": {}, "spec": {}}),
            false,
        ),
        (
            "invalid original metadata",
            json!({"metadata": ["foo"]}),
            json!({"metadata": {}, "spec": {}}),
            json!({"metadata": ["foo"], "spec": {}}),
            true,
        ),
        (
            "changed label, annotations and non-label",
            json!({"metadata": {"foo": "bar", "labels": {"a": "A", "b": "B"}, "annotations": {"a": "1", "b": "2"}}, "spec": {}}),
            json!({"metadata": {"foo": "abc", "labels": {"a": "AA", "b": "B"}, "annotations": {"a": "1", "b": "22"}}, "spec": {}}),
            json!({"metadata": {"foo": "bar", "labels": {"a": "AA", "b": "B"}, "annotations": {"a": "1", "b": "22"}}, "spec": {}}),
            false,
        ),
        (
            "added labels and annotations",
            json!({"metadata": {"foo": "bar"}, "spec": {}}),
            json!({"metadata": {"foo": "abc", "labels": {"a": "AA", "b": "B"}, "annotations": {"a": "1", "b": "22"}}, "spec": {}}),
            json!({"metadata": {"foo": "bar", "labels": {"a": "AA", "b": "B"}, "annotations": {"a": "1", "b": "22"}}, "spec": {}}),
            false,
        ),
        (
            "added labels and annotations, with nil before",
            json!({"metadata": {"foo": "bar", "labels": null, "annotations": null}, "spec": {}}),
            json!({"metadata": {"foo": "abc", "labels": {"a": "AA", "b": "B"}, "annotations": {"a": "1", "b": "22"}}, "spec": {}}),
            json!({"metadata": {"foo": "bar", "labels": {"a": "AA", "b": "B"}, "annotations": {"a": "1", "b": "22"}}, "spec": {}}),
            false,
        ),
        (
            "removed labels and annotations",
            json!({"metadata": {"foo": "bar", "labels": {"a": "AA", "b": "B"}, "annotations": {"a": "1", "b": "22"}}, "spec": {}}),
            json!({"metadata": {"foo": "abc"}, "spec": {}}),
            json!({"metadata": {"foo": "bar"}, "spec": {}}),
            false,
        ),
        (
            "nil'ed labels and annotations",
            json!({"metadata": {"foo": "bar", "labels": {"a": "AA", "b": "B"}, "annotations": {"a": "1", "b": "22"}}, "spec": {}}),
            json!({"metadata": {"foo": "abc", "labels": null, "annotations": null}, "spec": {}}),
            json!({"metadata": {"foo": "bar"}, "spec": {}}),
            false,
        ),
        (
            "added labels and annotations that are not strings",
            json!({"metadata": {"foo": "bar"}, "spec": {}}),
            json!({"metadata": {"foo": "abc", "labels": {"a": null, "b": "B"}, "annotations": {"a": null, "b": "22"}}, "spec": {}}),
            json!({"metadata": {"foo": "bar"}, "spec": {}}),
            true,
        ),
        (
            "invalid label key",
            json!({"metadata": {}}),
            json!({"metadata": {"labels": {"some/non-qualified/label": "x"}}}),
            json!({"metadata": {}}),
            true,
        ),
        (
            "invalid annotation key",
            json!({"metadata": {}}),
            json!({"metadata": {"annotations": {"some/non-qualified/label": "x"}}}),
            json!({"metadata": {}}),
            true,
        ),
        (
            "invalid label value",
            json!({"metadata": {}}),
            json!({"metadata": {"labels": {"foo": "üäö"}}}),
            json!({"metadata": {}}),
            true,
        ),
        (
            "too big label value",
            json!({"metadata": {}}),
            json!({"metadata": {"labels": {"foo": big_label}}}),
            json!({"metadata": {}}),
            true,
        ),
        (
            "too big annotation value",
            json!({"metadata": {}}),
            json!({"metadata": {"annotations": {"foo": big_annotation}}}),
            json!({"metadata": {}}),
            true,
        ),
    ];
    for (name, original, mut converted, expected, fails) in cases {
        let result = restore_object_meta(&original, &mut converted);
        assert_eq!(result.is_err(), fails, "{name}: {result:?}");
        assert_eq!(converted, expected, "{name}");
    }
}

#[test]
fn restore_object_meta_says_what_is_wrong() {
    let mut converted = json!({"metadata": {"labels": {"some/non-qualified/label": "x"}}});
    let e = restore_object_meta(&json!({"metadata": {}}), &mut converted).unwrap_err();
    assert!(e.starts_with("metadata.labels: Invalid value: \"some/non-qualified/label\": "), "{e}");
    let mut converted = json!({"metadata": {"annotations": {"a": 1}}});
    let e = restore_object_meta(&json!({"metadata": {}}), &mut converted).unwrap_err();
    assert_eq!(e, "metadata.annotations[a] must be a string, but is int64 in converted object");
}

fn widget(version: &str, name: &str) -> Value {
    json!({"apiVersion": format!("foo/{version}"), "kind": "Widget", "metadata": {"name": name}})
}

#[test]
fn objects_to_convert_as_the_apiserver() {
    let (v1, v2, v3) = (widget("v1", "myv1"), widget("v2", "myv2"), widget("v3", "myv3"));
    let list = |items: Vec<&Value>| json!({"apiVersion": "foo/v1", "kind": "WidgetList", "items": items});
    let cases: Vec<(&str, Value, Vec<&Value>)> = vec![
        ("empty list", list(vec![]), vec![]),
        ("one-item list, in desired version", list(vec![&v1]), vec![]),
        ("one-item list, not in desired version", list(vec![&v2]), vec![&v2]),
        ("multi-item list, in desired version", list(vec![&v1, &v1, &v1]), vec![]),
        ("multi-item list, mixed versions", list(vec![&v1, &v2, &v3]), vec![&v2, &v3]),
        ("single item, in desired version", v1.clone(), vec![]),
        ("single item, not in desired version", v2.clone(), vec![&v2]),
    ];
    for (name, input, expected) in cases {
        let expected: Vec<Value> = expected.into_iter().cloned().collect();
        assert_eq!(objects_to_convert(&input, "foo/v1"), expected, "{name}");
    }
}

#[test]
fn the_review_posted_is_in_the_first_version_the_apiserver_knows() {
    let objects = vec![json!({"apiVersion": "foo/v2", "Kind": "Widget"})];
    let request = |versions: &[&str]| review_request(versions, objects.clone(), "foo/v1", "uid");
    assert_eq!(request(&["vx"]), Err("no supported conversion review versions".to_owned()));
    for (versions, expected) in [(["v1", "v1beta1", "v2"], "v1"), (["v1beta1", "v1", "v2"], "v1beta1")] {
        let review = request(&versions).unwrap();
        assert_eq!(review["apiVersion"], format!("apiextensions.k8s.io/{expected}"));
        assert_eq!(review["request"], json!({"uid": "uid", "desiredAPIVersion": "foo/v1", "objects": objects}));
    }
}

#[test]
fn converted_objects_as_the_apiserver_takes_them() {
    let v1_object = widget("v1", "myv1");
    let v1 = |uid: Option<&str>, result: Value, objects: Option<Vec<Value>>| {
        let mut response = json!({"result": result});
        if let Some(uid) = uid {
            response["uid"] = json!(uid);
        }
        if let Some(objects) = objects {
            response["convertedObjects"] = json!(objects);
        }
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "response": response})
    };
    let success = json!({"status": "Success"});
    // (name, review version, answer, expected objects, expected error fragment)
    let cases: Vec<(&str, &str, Value, Vec<Value>, &str)> = vec![
        ("nil response", "v1", Value::Null, vec![], "unrecognized response type"),
        ("minimal valid v1beta1", "v1beta1", json!({"response": {"result": success}}), vec![], ""),
        (
            "valid v1beta1 with objects",
            "v1beta1",
            json!({"response": {"result": success, "convertedObjects": [v1_object]}}),
            vec![v1_object.clone()],
            "",
        ),
        (
            "error v1beta1, empty status",
            "v1beta1",
            json!({"response": {"result": {"status": ""}}}),
            vec![],
            "response.result.status was '', not 'Success'",
        ),
        (
            "error v1beta1, failure status",
            "v1beta1",
            json!({"response": {"result": {"status": "Failure"}}}),
            vec![],
            "response.result.status was 'Failure', not 'Success'",
        ),
        (
            "error v1beta1, custom status",
            "v1beta1",
            json!({"response": {"result": {"status": "Failure", "message": "some failure message"}}}),
            vec![],
            "some failure message",
        ),
        ("invalid v1beta1, no response", "v1beta1", json!({}), vec![], "no response provided"),
        ("minimal valid v1", "v1", v1(Some("uid"), success.clone(), None), vec![], ""),
        (
            "valid v1 with objects",
            "v1",
            v1(Some("uid"), success.clone(), Some(vec![v1_object.clone()])),
            vec![v1_object.clone()],
            "",
        ),
        ("invalid v1, no uid", "v1", v1(None, success.clone(), None), vec![], "expected response.uid=\"uid\""),
        (
            "invalid v1, no apiVersion",
            "v1",
            json!({"kind": "ConversionReview", "response": {"uid": "uid", "result": success}}),
            vec![],
            "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview",
        ),
        (
            "invalid v1, no kind",
            "v1",
            json!({"apiVersion": "apiextensions.k8s.io/v1", "response": {"uid": "uid", "result": success}}),
            vec![],
            "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview",
        ),
        (
            "invalid v1, mismatched apiVersion",
            "v1",
            json!({"apiVersion": "apiextensions.k8s.io/v2", "kind": "ConversionReview", "response": {"uid": "uid", "result": success}}),
            vec![],
            "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview",
        ),
        (
            "invalid v1, mismatched kind",
            "v1",
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview2", "response": {"uid": "uid", "result": success}}),
            vec![],
            "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview",
        ),
        (
            "error v1, empty status",
            "v1",
            v1(Some("uid"), json!({"status": ""}), None),
            vec![],
            "response.result.status was '', not 'Success'",
        ),
        (
            "error v1, failure status",
            "v1",
            v1(Some("uid"), json!({"status": "Failure"}), None),
            vec![],
            "response.result.status was 'Failure', not 'Success'",
        ),
        (
            "error v1, custom status",
            "v1",
            v1(Some("uid"), json!({"status": "Failure", "message": "some failure message"}), None),
            vec![],
            "some failure message",
        ),
        (
            "invalid v1, no response",
            "v1",
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"}),
            vec![],
            "no response provided",
        ),
    ];
    for (name, version, answer, expected, error) in cases {
        match converted_objects(version, "uid", &answer) {
            Ok(objects) => {
                assert!(error.is_empty(), "{name}: expected an error containing {error:?}");
                assert_eq!(objects, expected, "{name}");
            }
            Err(e) => assert!(!error.is_empty() && e.contains(error), "{name}: {e}"),
        }
    }
}

/// The example's converter: `foo/v1` has `spec.size`, `foo/v2` has `spec.replicas`; an object
/// named `bad` cannot be converted.
fn rename(mut object: Value, desired: &str) -> Result<Value, String> {
    if object.pointer("/metadata/name") == Some(&json!("bad")) {
        return Err("spec.size is not a number".to_owned());
    }
    let (from, to) = if desired == "foo/v2" { ("size", "replicas") } else { ("replicas", "size") };
    if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut)
        && let Some(v) = spec.remove(from)
    {
        spec.insert(to.to_owned(), v);
    }
    object["apiVersion"] = json!(desired);
    Ok(object)
}

/// The apiserver's round trip: what it sends for `input`, our [`review`] of it, and what it
/// makes of the answer.
fn through_the_apiserver(input: &Value, desired: &str, converter: &dyn super::Converter) -> Result<Value, String> {
    let request = review_request(&["v1"], objects_to_convert(input, desired), desired, "7f0c")?;
    let body = serde_json::to_vec(&request).unwrap();
    let answer = review(&body, converter).map_err(|e| e.0)?;
    convert(input, desired, "v1", "7f0c", &answer)
}

fn sized(version: &str, name: &str, field: &str) -> Value {
    json!({"apiVersion": format!("foo/{version}"), "kind": "Widget",
           "metadata": {"name": name, "namespace": "ns", "uid": format!("uid-{name}"), "resourceVersion": "7",
                        "labels": {"app": "w"}},
           "spec": {field: 3}})
}

#[test]
fn a_review_is_answered_as_the_apiserver_accepts() {
    let one = sized("v1", "a", "size");
    let out = through_the_apiserver(&one, "foo/v2", &rename).unwrap();
    assert_eq!(out, sized("v2", "a", "replicas"));
    // A list of mixed versions: only the others are sent, and placed back in order.
    let list = json!({"apiVersion": "foo/v1", "kind": "WidgetList",
                      "items": [sized("v1", "a", "size"), sized("v2", "b", "replicas"), sized("v1", "c", "size")]});
    let out = through_the_apiserver(&list, "foo/v2", &rename).unwrap();
    assert_eq!(out["apiVersion"], "foo/v2");
    assert_eq!(
        out["items"],
        json!([sized("v2", "a", "replicas"), sized("v2", "b", "replicas"), sized("v2", "c", "replicas")])
    );
    // Back again, round trip.
    assert_eq!(through_the_apiserver(&out["items"][0], "foo/v1", &rename).unwrap(), sized("v1", "a", "size"));
}

#[test]
fn a_converter_that_breaks_a_rule_gets_a_failure_naming_the_object() {
    let answer = |input: &Value, converter: &dyn super::Converter| {
        let request = review_request(&["v1"], vec![input.clone()], "foo/v2", "u").unwrap();
        review(&serde_json::to_vec(&request).unwrap(), converter).unwrap()
    };
    let failure = |a: &Value| a["response"]["result"]["message"].as_str().unwrap_or("").to_owned();
    // The converter's own error.
    let a = answer(&sized("v1", "bad", "size"), &rename);
    assert_eq!(a["response"]["result"]["status"], "Failure");
    assert_eq!(a["response"]["uid"], "u");
    assert_eq!(failure(&a), "converting object 0 (Widget ns/bad) to foo/v2: spec.size is not a number");
    // A renamed object, another version, another kind, a label the apiserver refuses.
    let renaming = |mut o: Value, d: &str| -> Result<Value, String> {
        o["apiVersion"] = json!(d);
        o["metadata"]["name"] = json!("other");
        Ok(o)
    };
    assert_eq!(
        failure(&answer(&sized("v1", "a", "size"), &renaming)),
        "converting object 0 (Widget ns/a) to foo/v2: must have the same name: a != other"
    );
    let stays = |o: Value, _: &str| -> Result<Value, String> { Ok(o) };
    assert_eq!(
        failure(&answer(&sized("v1", "a", "size"), &stays)),
        "converting object 0 (Widget ns/a) to foo/v2: invalid groupVersion (expected foo/v2, received foo/v1)"
    );
    let relabel = |mut o: Value, d: &str| -> Result<Value, String> {
        o["apiVersion"] = json!(d);
        o["metadata"]["labels"] = json!({"app": "ü"});
        Ok(o)
    };
    let m = failure(&answer(&sized("v1", "a", "size"), &relabel));
    assert!(
        m.starts_with(
            "converting object 0 (Widget ns/a) to foo/v2: invalid metadata: metadata.labels: Invalid value: \"ü\""
        ),
        "{m}"
    );
    // Metadata other than labels and annotations is the original's, whatever the converter did.
    let meddling = |mut o: Value, d: &str| -> Result<Value, String> {
        o["apiVersion"] = json!(d);
        o["metadata"]["resourceVersion"] = json!("8");
        o["metadata"]["annotations"] = json!({"converted": "yes"});
        Ok(o)
    };
    let a = answer(&sized("v1", "a", "size"), &meddling);
    let object = &a["response"]["convertedObjects"][0];
    assert_eq!(object["metadata"]["resourceVersion"], "7");
    assert_eq!(object["metadata"]["annotations"], json!({"converted": "yes"}));
}

#[test]
fn what_the_apiserver_refuses_of_an_answer() {
    let input = sized("v1", "a", "size");
    let request = review_request(&["v1"], vec![input.clone()], "foo/v2", "u").unwrap();
    let mut good = review(&serde_json::to_vec(&request).unwrap(), &rename).unwrap();
    assert!(convert(&input, "foo/v2", "v1", "u", &good).is_ok());
    good["response"]["convertedObjects"] = json!([]);
    assert_eq!(
        convert(&input, "foo/v2", "v1", "u", &good),
        Err("conversion webhook for foo/v1, Kind=Widget returned 0 objects, expected 1".to_owned())
    );
    good["response"]["convertedObjects"] = json!([sized("v2", "other", "replicas")]);
    assert_eq!(
        convert(&input, "foo/v2", "v1", "u", &good),
        Err("conversion webhook for foo/v1, Kind=Widget returned invalid object: must have the same name: a != other"
            .to_owned())
    );
    assert_eq!(
        convert(&input, "foo/v2", "v1", "other-uid", &good),
        Err("conversion webhook for foo/v1, Kind=Widget failed: expected response.uid=\"other-uid\", got \"u\""
            .to_owned())
    );
}

#[test]
fn bodies_that_are_not_reviews_are_refused_with_the_reason() {
    let bad = |body: &[u8]| review(body, &rename).unwrap_err();
    assert!(bad(b"{").0.starts_with("the body is not JSON"));
    assert!(bad(br#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}"#).0.contains("ConversionReview"));
    let review_of = |request: Value| {
        serde_json::to_vec(
            &json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "request": request}),
        )
        .unwrap()
    };
    assert_eq!(
        bad(&serde_json::to_vec(&json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"})).unwrap()),
        BadReview("the review has no request".into())
    );
    assert_eq!(
        bad(&review_of(json!({"desiredAPIVersion": "foo/v2"}))),
        BadReview("request.uid is not a string".into())
    );
    assert_eq!(
        bad(&review_of(json!({"uid": "u", "desiredAPIVersion": "foo/v2", "objects": {}}))),
        BadReview("request.objects is not a list".into())
    );
    // No objects: an empty success. A v1beta1 review is answered in v1beta1.
    let body = serde_json::to_vec(&json!({"apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "ConversionReview",
                                          "request": {"uid": "u", "desiredAPIVersion": "foo/v2"}}))
    .unwrap();
    let a = review(&body, &rename).unwrap();
    assert_eq!(a["apiVersion"], "apiextensions.k8s.io/v1beta1");
    assert_eq!(a["response"], json!({"uid": "u", "convertedObjects": [], "result": {"status": "Success"}}));
    // An object that is not one fails, naming its index.
    let a = review(&review_of(json!({"uid": "u", "desiredAPIVersion": "foo/v2", "objects": [3]})), &rename).unwrap();
    assert_eq!(a["response"]["result"]["message"], "converting object 0 (object \"\") to foo/v2: not an object");
}

#[test]
fn a_converter_of_one_kind_refuses_a_review_of_another() {
    let widgets = super::for_kind("foo", "Widget", rename);
    let answer = |object: Value, desired: &str| {
        let request = review_request(&["v1"], vec![object], desired, "u").unwrap();
        review(&serde_json::to_vec(&request).unwrap(), &widgets).unwrap()
    };
    assert_eq!(answer(sized("v1", "a", "size"), "foo/v2")["response"]["result"]["status"], "Success");
    let mut gadget = sized("v1", "g", "size");
    gadget["kind"] = json!("Gadget");
    assert_eq!(
        answer(gadget, "foo/v2")["response"]["result"]["message"],
        "converting object 0 (Gadget ns/g) to foo/v2: this webhook converts foo Widget, not foo Gadget to foo/v2: check the CRD's spec.conversion"
    );
    assert_eq!(
        answer(sized("v1", "a", "size"), "bar/v2")["response"]["result"]["message"],
        "converting object 0 (Widget ns/a) to bar/v2: this webhook converts foo Widget, not foo Widget to bar/v2: check the CRD's spec.conversion"
    );
}
