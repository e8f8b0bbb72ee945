//! `#[derive(kubeskema::ApplyConfiguration)]` on hand-written types: the configuration sends
//! what is set and nothing else (apiVersion, kind and metadata.name always), nullable fields
//! can send `null`, `From<&T>` sends a whole object but what the apiserver writes, and a
//! configuration applied offline (`kubeskema::apply`, through the type's own CRD) merges into
//! a live object as the apiserver's field manager merges it.

use std::collections::BTreeMap;

use kubeskema::apply::{Options, Resource, Subresource};
use kubeskema::{ApplyConfiguration, ObjectMeta};
use serde_json::json;

#[derive(
    Clone,
    Debug,
    PartialEq,
    kubeskema::Serialize,
    kubeskema::Deserialize,
    kubeskema::Validate,
    kubeskema::ApplyConfiguration,
)]
#[kubeskema(resource(group = "example.com", version = "v1", kind = "Gizmo", scope = "Namespaced"))]
pub struct Gizmo {
    #[kubeskema(rename = "apiVersion")]
    pub api_version: String,
    pub kind: String,
    #[kubeskema(default_json = "{}")]
    pub metadata: ObjectMeta,
    pub spec: GizmoSpec,
    pub status: Option<GizmoStatus>,
}

#[derive(
    Clone,
    Debug,
    PartialEq,
    kubeskema::Serialize,
    kubeskema::Deserialize,
    kubeskema::Validate,
    kubeskema::ApplyConfiguration,
)]
pub struct GizmoSpec {
    #[kubeskema(minimum = 0, maximum = 10)]
    pub replicas: i64,
    pub image: Option<String>,
    /// Sent as `null` to clear it.
    #[kubeskema(nullable)]
    pub note: Option<Option<String>>,
    #[kubeskema(list_type = "map", list_map_keys("name"))]
    pub ports: Option<Vec<Port>>,
    pub labels: Option<BTreeMap<String, String>>,
    pub size: Option<Size>,
}

#[derive(
    Clone,
    Debug,
    PartialEq,
    kubeskema::Serialize,
    kubeskema::Deserialize,
    kubeskema::Validate,
    kubeskema::ApplyConfiguration,
)]
pub struct Port {
    pub name: String,
    pub port: i64,
    #[kubeskema(default = "TCP")]
    pub protocol: String,
}

#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    kubeskema::Serialize,
    kubeskema::Deserialize,
    kubeskema::Validate,
    kubeskema::ApplyConfiguration,
)]
pub enum Size {
    Small,
    Large,
}

#[derive(
    Clone,
    Debug,
    PartialEq,
    kubeskema::Serialize,
    kubeskema::Deserialize,
    kubeskema::Validate,
    kubeskema::ApplyConfiguration,
)]
pub struct GizmoStatus {
    pub ready: Option<bool>,
}

#[test]
fn a_configuration_sends_only_what_is_set() {
    let apply = GizmoApply::new("g")
        .namespace("ns")
        .spec(GizmoSpecApply::default().replicas(3).ports(vec![PortApply::default().name("http").port(80)]));
    assert_eq!(
        serde_json::to_value(&apply).unwrap(),
        json!({"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": {"name": "g", "namespace": "ns"},
               "spec": {"replicas": 3, "ports": [{"name": "http", "port": 80}]}})
    );
    let cleared = GizmoSpecApply::default().note_null().size(Size::Large);
    assert_eq!(serde_json::to_value(&cleared).unwrap(), json!({"note": null, "size": "Large"}));
    assert_eq!(serde_json::to_value(GizmoSpecApply::default().note("n")).unwrap(), json!({"note": "n"}));
}

#[test]
fn from_a_whole_object_sends_all_it_sets_but_what_the_server_writes() {
    let gizmo: Gizmo = serde_json::from_value(json!({
        "apiVersion": "example.com/v1", "kind": "Gizmo",
        "metadata": {"name": "g", "namespace": "ns", "uid": "u", "resourceVersion": "7", "labels": {"a": "b"},
                     "managedFields": [{"manager": "m", "operation": "Apply", "apiVersion": "example.com/v1"}]},
        "spec": {"replicas": 2, "note": null, "ports": [{"name": "http", "port": 80}]}
    }))
    .unwrap();
    let apply = gizmo.apply_configuration();
    assert_eq!(
        serde_json::to_value(&apply).unwrap(),
        json!({"apiVersion": "example.com/v1", "kind": "Gizmo", "metadata": {"name": "g", "namespace": "ns", "labels": {"a": "b"}},
               "spec": {"replicas": 2, "note": null, "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}})
    );
    assert_eq!(serde_json::to_value(GizmoApply::from(&gizmo)).unwrap(), serde_json::to_value(&apply).unwrap());
}

#[test]
fn a_configuration_applies_offline_through_the_types_own_crd() {
    let resource = Resource::of::<Gizmo>();
    let options =
        |manager| Options { manager, force: false, now: "2026-01-01T00:00:00Z", subresource: Subresource::Main };
    let first = GizmoApply::new("g")
        .namespace("ns")
        .spec(GizmoSpecApply::default().replicas(3).ports(vec![PortApply::default().name("http").port(80)]));
    let live = resource.apply(None, &serde_json::to_value(&first).unwrap(), &options("ci")).unwrap();
    assert_eq!(live["spec"]["ports"], json!([{"name": "http", "port": 80, "protocol": "TCP"}]), "defaults applied");
    // A second manager adds a port and its image; no conflict: it sets nothing ci owns.
    let second = GizmoApply::new("g")
        .namespace("ns")
        .spec(GizmoSpecApply::default().image("nginx").ports(vec![PortApply::default().name("metrics").port(9090)]));
    let merged = resource.apply(Some(&live), &serde_json::to_value(&second).unwrap(), &options("sidecar")).unwrap();
    let stored: Gizmo = serde_json::from_value(merged.clone()).unwrap();
    assert_eq!(stored.spec.replicas, 3);
    assert_eq!(stored.spec.image.as_deref(), Some("nginx"));
    assert_eq!(stored.spec.ports.as_ref().map(Vec::len), Some(2));
    assert_eq!(kubeskema::Validate::validate(&stored), vec![], "the merged object is valid");
    // Changing ci's replicas conflicts.
    let third = GizmoApply::new("g").namespace("ns").spec(GizmoSpecApply::default().replicas(4));
    let err = resource.apply(Some(&merged), &serde_json::to_value(&third).unwrap(), &options("sidecar")).unwrap_err();
    assert_eq!(err.to_string(), r#"Apply failed with 1 conflict: conflict with "ci": .spec.replicas"#);
}

include!(concat!(env!("OUT_DIR"), "/applied.rs"));

/// Generated types (`fixtures/crds`, every golden fixture) derive their apply configurations
/// too: the Widget of `fixtures/crds` builds one and sends what was set.
#[test]
fn generated_types_have_apply_configurations() {
    use applied::crds::example_com::v1::{PortApply, WidgetApply, WidgetSpecApply};
    let apply = WidgetApply::new("demo")
        .namespace("default")
        .spec(WidgetSpecApply::default().replicas(3).note_null().ports(vec![PortApply::new("http").port(8080)]));
    assert_eq!(
        serde_json::to_value(&apply).unwrap(),
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "demo", "namespace": "default"},
               "spec": {"replicas": 3, "note": null, "ports": [{"name": "http", "port": 8080}]}})
    );
}

/// Fields named as the names the configuration uses itself (`from`, `new`, `namespace`, `into`).
#[derive(
    Clone,
    Debug,
    PartialEq,
    kubeskema::Serialize,
    kubeskema::Deserialize,
    kubeskema::Validate,
    kubeskema::ApplyConfiguration,
)]
#[kubeskema(resource(group = "example.com", version = "v1", kind = "Awkward"))]
pub struct Awkward {
    #[kubeskema(default_json = "{}")]
    pub metadata: ObjectMeta,
    pub from: Option<String>,
    pub new: Option<String>,
    pub namespace: Option<String>,
    pub into: Option<String>,
}

#[test]
fn fields_named_like_the_configurations_own_methods() {
    let mut apply = AwkwardApply::new("a").namespace("ns").from("x").into("y");
    apply.new = Some("n".into());
    apply.namespace = Some("field".into());
    assert_eq!(
        serde_json::to_value(&apply).unwrap(),
        json!({"apiVersion": "example.com/v1", "kind": "Awkward", "metadata": {"name": "a", "namespace": "ns"},
               "from": "x", "into": "y", "new": "n", "namespace": "field"})
    );
}

/// `validate()` holds what is set to the type's checks (bounds, list types, enums, patterns),
/// and leaves out what only the merged object can satisfy (required fields).
#[test]
fn a_configuration_validates_what_is_set() {
    use kubeskema::ValidateApply;
    // Nothing of spec but replicas: `ports` is not required of a part, nor spec.replicas' siblings.
    assert!(GizmoApply::new("g").namespace("ns").spec(GizmoSpecApply::default().replicas(3)).validate().is_empty());
    let bad = GizmoApply::new("g").spec(
        GizmoSpecApply::default()
            .replicas(11)
            .ports(vec![PortApply::default().name("a").port(1), PortApply::default().name("a").port(2)]),
    );
    let issues: Vec<String> = bad.validate().iter().map(ToString::to_string).collect();
    assert_eq!(
        issues,
        [
            "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10",
            "spec.ports[1]: Duplicate value: {\"name\":\"a\"}",
        ]
    );
    // A map-list item names itself by its keys: one without is refused, whatever else it sets.
    let keyless = GizmoApply::new("g").spec(GizmoSpecApply::default().ports(vec![PortApply::default().port(1)]));
    let issues: Vec<String> = keyless.validate().iter().map(ToString::to_string).collect();
    assert_eq!(issues, ["spec.ports[0].name: Required value"]);
    // A generated type's configuration too.
    use applied::crds::example_com::v1::{WidgetApply, WidgetSpecApply};
    let issues = WidgetApply::new("w").spec(WidgetSpecApply::default().replicas(-1)).validate();
    assert_eq!(issues.len(), 1, "{issues:?}");
}

/// A `map` list's item type names its keys (`apply_keys`, which code generation writes): its
/// configuration is made with them (`new(keys...)`) and always sends them; a defaulted key is
/// no more required than it is in the list.
#[derive(
    Clone,
    Debug,
    PartialEq,
    kubeskema::Serialize,
    kubeskema::Deserialize,
    kubeskema::Validate,
    kubeskema::ApplyConfiguration,
)]
#[kubeskema(apply_keys("port", "protocol"))]
pub struct Listener {
    pub port: i64,
    #[kubeskema(default = "TCP")]
    pub protocol: String,
    pub host: Option<String>,
}

#[test]
fn keyed_items_are_made_with_their_keys() {
    let listener = ListenerApply::new(443).host("example.com");
    assert_eq!(serde_json::to_value(&listener).unwrap(), json!({"port": 443, "host": "example.com"}));
    let full = Listener { port: 80, protocol: "UDP".into(), host: None };
    assert_eq!(serde_json::to_value(ListenerApply::from(&full)).unwrap(), json!({"port": 80, "protocol": "UDP"}));
}

/// A hand-written item type does not know the `map` list that holds it: its configuration's
/// `new` takes the fields it requires (the keys are among them), and `Default` stays (issue 50).
#[test]
fn hand_written_items_are_made_with_their_required_fields() {
    let port = PortApply::new("http", 80).protocol("UDP");
    assert_eq!(serde_json::to_value(&port).unwrap(), json!({"name": "http", "port": 80, "protocol": "UDP"}));
    let spec = GizmoSpecApply::new(2).ports([PortApply::new("http", 80)]);
    assert_eq!(serde_json::to_value(&spec).unwrap(), json!({"replicas": 2, "ports": [{"name": "http", "port": 80}]}));
    assert_eq!(serde_json::to_value(GizmoSpecApply::default()).unwrap(), json!({}));
}

/// A resource's configuration prints what names the object (kube's `Api::patch` asks for
/// `Debug`); the rest is its JSON.
#[test]
fn a_resource_configuration_prints_what_names_it() {
    let shown = format!("{:?}", GizmoApply::new("g").namespace("ns").spec(GizmoSpecApply::default().replicas(1)));
    assert!(
        shown.starts_with(r#"GizmoApply { apiVersion: "example.com/v1", kind: "Gizmo", metadata: ObjectMeta {"#),
        "{shown}"
    );
    assert!(shown.contains(r#"name: Some("g")"#) && shown.ends_with(".. }"), "{shown}");
}
