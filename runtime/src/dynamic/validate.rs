//! The apiserver's handling of a custom resource on create and update, in its order (semantics §0):
//! decode normalization (metadata, pruning, nulls, defaults), then validation: TypeMeta (which
//! stops the rest when wrong), root ObjectMeta, OpenAPI values, embedded resources' metadata,
//! list types, and the CEL gate. Updates ratchet (§10, [`crate::ratchet`]).
//!
//! ```
//! # use serde_json::json;
//! let (crd, _) = kubeskema::crd::Crd::parse(&json!({
//!     "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
//!     "metadata": {"name": "widgets.example.com"},
//!     "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced",
//!              "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
//!                  "type": "object", "properties": {"spec": {"type": "object", "properties": {
//!                      "replicas": {"type": "integer", "maximum": 10}}}}}}}]}
//! }));
//! let validator = kubeskema::validate::ResourceValidator::new(&crd, &crd.versions[0]);
//! let outcome = validator.validate_create(&json!({
//!     "apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"replicas": 11}}));
//! assert_eq!(outcome.issues[0].to_string(),
//!     "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10");
//! ```

use serde_json::Value;

use crate::check::listtype::ListTypes;
use crate::check::objectmeta::{NameRule, validate_object_meta, validate_object_meta_update, validate_type_meta};
use crate::check::openapi::OpenApiValidator;
use crate::check::ratchet::Unchanged;
use crate::dynamic::crd::{Crd, CrdVersion};
use crate::dynamic::normalize::Normalizer;
use crate::report::issue::{BadValue, ErrorType, Issue, PathForm};
use crate::report::path::{At, Path};
use crate::schema::Schema;
use crate::typed::{Phases, Validate};
use std::ops::ControlFlow;

/// What validating one object found.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The object as the apiserver would go on with it (normalized).
    pub object: Value,
    /// Unknown fields pruned (`spec.foo`), sorted: what strict field validation reports
    /// ([`crate::decode::strict_issue`] words it).
    pub pruned: Vec<Path>,
    /// Every issue, in the apiserver's order.
    pub issues: Vec<Issue>,
    /// On update, failures of CEL rules about unchanged places: the apiserver returns them as
    /// warnings and stores the object (ratcheting, §10).
    pub warnings: Vec<Issue>,
}

/// The scale subresource's checks (`validateScaleSpec`, `validateScaleStatus`): the replicas at
/// its paths read as int64 (an error in the accessor's words when something on the way is not
/// what it should be), not negative, at most int32; the label selector read as a string. The
/// field is the path as the CRD writes it (`.spec.replicas`), not ratcheted on update.
fn scale_replicas(object: &Value, scale: &Value) -> Vec<Issue> {
    let mut out = Vec::new();
    let at = |json_path: &str| Path::root().key(json_path);
    for key in ["specReplicasPath", "statusReplicasPath"] {
        let Some(json_path) = scale.get(key).and_then(Value::as_str) else { continue };
        let (value, issue) = match nested(object, json_path, "int64", |v| v.as_i64().map(BadValue::Int)) {
            Err(e) => (BadValue::Int(0), Some(e)),
            Ok(Some(BadValue::Int(n))) if n < 0 => (BadValue::Int(n), Some("should be a non-negative integer".into())),
            Ok(Some(BadValue::Int(n))) if n > i64::from(i32::MAX) => {
                (BadValue::Int(n), Some(format!("should be less than or equal to {}", i32::MAX)))
            }
            Ok(_) => (BadValue::Omit, None),
        };
        if let Some(detail) = issue {
            out.push(Issue::new(ErrorType::Invalid, &at(json_path), "scale", value, detail).in_form(PathForm::Field));
        }
    }
    if let Some(json_path) = scale.get("labelSelectorPath").and_then(Value::as_str)
        && let Err(e) = nested(object, json_path, "string", |v| v.as_str().map(|s| BadValue::Str(s.to_owned())))
    {
        out.push(
            Issue::new(ErrorType::Invalid, &at(json_path), "scale", BadValue::Str(String::new()), e)
                .in_form(PathForm::Field),
        );
    }
    out
}

/// `unstructured.NestedInt64`/`NestedString` at a `.a.b` path: `Ok(None)` when absent, the
/// value when it has the type, else the accessor's error.
fn nested(
    object: &Value,
    json_path: &str,
    want: &str,
    read: impl Fn(&Value) -> Option<BadValue>,
) -> Result<Option<BadValue>, String> {
    let fields: Vec<&str> = json_path.trim_start_matches('.').split('.').collect();
    let mut here = object;
    for (i, f) in fields.iter().enumerate() {
        let Value::Object(map) = here else {
            // The path named is the one being read when the map was not there.
            let at = format!(".{}", fields[..=i].join("."));
            return Err(format!(
                "{at} accessor error: {} is of the type {}, expected map[string]interface{{}}",
                go_value(here),
                go_type(here)
            ));
        };
        match map.get(*f) {
            Some(v) => here = v,
            None => return Ok(None),
        }
    }
    match read(here) {
        Some(v) => Ok(Some(v)),
        None => Err(format!(
            ".{} accessor error: {} is of the type {}, expected {want}",
            fields.join("."),
            go_value(here),
            go_type(here)
        )),
    }
}

/// A decoded JSON value as Go's `%T` names its type.
fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// A decoded JSON value as Go's `%v` prints it (`[a b]`, `map[k:v]`, `1.5`, `<nil>`).
fn go_value(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => crate::report::issue::go_float(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => s.clone(),
        Value::Array(items) => format!("[{}]", items.iter().map(go_value).collect::<Vec<_>>().join(" ")),
        Value::Object(map) => {
            format!("map[{}]", map.iter().map(|(k, v)| format!("{k}:{}", go_value(v))).collect::<Vec<_>>().join(" "))
        }
    }
}

/// The pruning a document's conversion did ([`ResourceValidator::validate_create_read`]).
#[cfg(feature = "yaml")]
type PruningDone<'s, 't> = crate::dynamic::prune::Pruning<'s, 't>;
/// Without YAML no document is converted: there is never one.
#[cfg(not(feature = "yaml"))]
type PruningDone<'s, 't> = std::convert::Infallible;

/// Validates objects of one CRD version; build once, use for many objects.
pub struct ResourceValidator<'a> {
    crd: &'a Crd,
    version: &'a CrdVersion,
    openapi: Option<OpenApiValidator<'a>>,
    normalizer: Option<Normalizer<'a>>,
    list_types: Option<ListTypes<'a>>,
    has_rules: bool,
    names: NameRule,
    /// `group/version`, made once: TypeMeta is checked against it on every object.
    api_version: String,
    #[cfg(feature = "cel")]
    rules: Option<crate::cel::running::walk::SchemaRules<'a>>,
}

impl<'a> ResourceValidator<'a> {
    /// A validator for `version` of `crd`.
    pub fn new(crd: &'a Crd, version: &'a CrdVersion) -> Self {
        let schema = version.schema.as_ref();
        ResourceValidator {
            crd,
            version,
            openapi: schema.map(OpenApiValidator::new),
            normalizer: schema.map(Normalizer::new),
            list_types: schema.map(ListTypes::of),
            has_rules: schema.is_some_and(Schema::has_rules),
            names: NameRule::Subdomain,
            api_version: crate::dynamic::crd::api_version(&crd.group, &version.name),
            #[cfg(feature = "cel")]
            rules: schema.map(crate::cel::running::walk::SchemaRules::new),
        }
    }

    /// The same validator, holding `metadata.name` to `names` instead of a custom resource's
    /// DNS subdomain: a native kind validated against its OpenAPI schema.
    pub fn with_names(self, names: NameRule) -> Self {
        ResourceValidator { names, ..self }
    }

    /// The `apiVersion` objects of this version carry ([`crate::crd::api_version`]).
    pub fn api_version(&self) -> &str {
        &self.api_version
    }

    /// Validates an object as the apiserver does on create.
    pub fn validate_create(&self, object: &Value) -> Outcome {
        self.run(object.clone(), None, None)
    }

    /// [`ResourceValidator::validate_create`] of an object the caller gives up: no copy of it
    /// is made (a copy costs as much memory as the object); the outcome's `object` is it,
    /// defaulted and pruned.
    pub fn validate_create_owned(&self, object: Value) -> Outcome {
        self.run(object, None, None)
    }

    /// [`ResourceValidator::validate_create`] of a document as read
    /// ([`crate::read::yaml::read_each`]): its value is made pruned, so that unknown fields
    /// never become values (a large one costs its text, not a `Value` 16 times its size). The
    /// outcome is the one of its whole value.
    #[cfg(feature = "yaml")]
    pub fn validate_create_read(&self, doc: &crate::read::yaml::Document<()>) -> Outcome {
        self.run_read(doc, None)
    }

    /// [`ResourceValidator::validate_update`] of a document as read, as
    /// [`ResourceValidator::validate_create_read`].
    #[cfg(feature = "yaml")]
    pub fn validate_update_read(&self, doc: &crate::read::yaml::Document<()>, old: &Value) -> Outcome {
        self.run_read(doc, Some(&self.stored(old)))
    }

    #[cfg(feature = "yaml")]
    fn run_read(&self, doc: &crate::read::yaml::Document<()>, old: Option<&Value>) -> Outcome {
        let mut pruning = match &self.normalizer {
            Some(normalizer) => normalizer.pruning(),
            None => crate::dynamic::prune::Pruning::none(),
        };
        let object = doc.value_selected(&mut pruning);
        self.run(object, Some(pruning), old)
    }

    /// Validates an update from `old` (the stored object) to `object`, as the apiserver does:
    /// root metadata's update rules, and ratcheting (semantics §10): value errors about places
    /// that did not change are dropped; list-type errors are skipped when `old` had any.
    pub fn validate_update(&self, object: &Value, old: &Value) -> Outcome {
        self.validate_update_owned(object.clone(), old)
    }

    /// [`ResourceValidator::validate_update`] of an object the caller gives up, as
    /// [`ResourceValidator::validate_create_owned`].
    pub fn validate_update_owned(&self, object: Value, old: &Value) -> Outcome {
        self.run(object, None, Some(&self.stored(old)))
    }

    /// The stored object `old`, read back through the same decoding (defaults included).
    fn stored(&self, old: &Value) -> Value {
        let mut old = old.clone();
        if let Some(normalizer) = &self.normalizer {
            // Undecodable metadata cannot be stored: nothing of it to compare with then.
            let _ = normalizer.normalize(&mut old);
        }
        old
    }

    /// Validates `obj`; `pruning`: the pruning its conversion did, when it was converted
    /// from a document as read (not pruned again).
    fn run(&self, mut obj: Value, pruning: Option<PruningDone<'_, '_>>, old: Option<&Value>) -> Outcome {
        let mut issues = Vec::new();
        let mut pruned = Vec::new();
        if let Some(normalizer) = &self.normalizer {
            // The request decoder refuses a `metadata` that does not decode into `ObjectMeta`
            // (a label value that is a number): `GetObjectMetaWithOptions` without
            // `DropMalformedFields`, a 400 (semantics §2a). Only the storage decoder drops such
            // fields, which is how `Normalizer::normalize` reads them (the old object's way).
            let undecodable =
                obj.get("metadata").filter(|m| m.is_object()).and_then(crate::check::objectmeta::go_decode_error);
            if let Some(message) = undecodable {
                let at = Path::root().key("metadata");
                issues.push(
                    Issue::new(ErrorType::Invalid, &at, "metadata", BadValue::Omit, message).in_form(PathForm::Field),
                );
                return Outcome { object: obj, pruned, issues, warnings: Vec::new() };
            }
            let normalized = match pruning {
                #[cfg(feature = "yaml")]
                Some(pruning) => normalizer.normalize_pruned(&mut obj, pruning),
                _ => normalizer.normalize(&mut obj),
            };
            match normalized {
                Ok(n) => pruned = n.pruned,
                Err(e) => {
                    // The apiserver cannot decode the object at all (400).
                    let path = e.path.split('.').fold(Path::root(), |p, k| p.key(k));
                    issues.push(
                        Issue::new(ErrorType::Invalid, &path, "metadata", BadValue::Omit, e.message)
                            .in_form(PathForm::Field),
                    );
                    return Outcome { object: obj, pruned, issues, warnings: Vec::new() };
                }
            }
        }
        // The apiserver fills system fields (uid, creationTimestamp) into `metadata` before it
        // validates, creating the map: a `required: [metadata]` in the schema never fires.
        if let Some(map) = obj.as_object_mut() {
            map.entry("metadata").or_insert_with(|| Value::Object(Default::default()));
        }
        let found = {
            let object = Object { json: &obj, validator: self };
            let old = old.map(|json| Object { json, validator: self });
            crate::typed::validate_in_order(&object, old.as_ref())
        };
        issues.extend(found.issues);
        let warnings = found.warnings;
        Outcome { object: obj, pruned, issues, warnings }
    }
}

/// An object as JSON, validated by a CRD version's schema: the dynamic path's implementation
/// of [`Validate`], so that its steps run in the one order [`Validate`] keeps
/// (`check::validate_in_order`).
struct Object<'v> {
    json: &'v Value,
    validator: &'v ResourceValidator<'v>,
}

impl Validate for Object<'_> {
    const SCHEMA_TYPE: &'static str = "object";

    fn has_rules(&self) -> bool {
        self.validator.has_rules
    }

    fn validate_meta(&self, issues: &mut Vec<Issue>) -> ControlFlow<()> {
        self.type_meta(issues)?;
        issues.extend(validate_object_meta(self.json, self.validator.crd.is_namespaced(), self.validator.names));
        ControlFlow::Continue(())
    }

    fn validate_meta_update(&self, old: &Self, issues: &mut Vec<Issue>) -> ControlFlow<()> {
        self.type_meta(issues)?;
        issues.extend(validate_object_meta_update(
            self.json,
            old.json,
            self.validator.crd.is_namespaced(),
            self.validator.names,
        ));
        ControlFlow::Continue(())
    }

    /// The schema's value validations and the scale subresource's replicas, embedded
    /// resources, list types: the object is always the root.
    fn validate_at(&self, _: &At<'_>, found: &mut Phases) {
        let (Some(openapi), Some(schema)) = (&self.validator.openapi, &self.validator.version.schema) else {
            return;
        };
        let (values, list_types) = openapi.validate_with_list_types(self.json, &Path::root());
        found.values.extend(values);
        if let Some(scale) = &self.validator.version.scale {
            found.values.extend(scale_replicas(self.json, scale));
        }
        if self.validator.normalizer.as_ref().is_some_and(Normalizer::embeds_resources) {
            found.embedded.extend(crate::check::objectmeta::validate_embedded_resources(self.json, schema));
        }
        found.list_types.extend(list_types);
    }

    /// The old object's list-type issues (whether it had any decides if the new one's are
    /// reported): a walk of only the parts that hold a `set` or `map` list.
    fn list_type_issues(&self) -> Vec<Issue> {
        self.validator.list_types.as_ref().map(|l| l.validate(self.json)).unwrap_or_default()
    }

    /// The places of the object that equal the old one's. Whether the whole object is
    /// unchanged is not asked of the root (`validate_in_order` reads only `out`), so it is not
    /// compared twice.
    fn unchanged_at(&self, old: &Self, _: &At<'_>, out: &mut Unchanged) -> bool {
        if let Some(schema) = &self.validator.version.schema {
            *out = crate::check::ratchet::unchanged(self.json, old.json, schema);
        }
        false
    }

    #[cfg(feature = "cel")]
    fn validate_cel_at(&self, old: Option<&Self>, _: &At<'_>, cx: &mut crate::cel::running::cx::Cx) {
        if let Some(rules) = &self.validator.rules {
            rules.validate(self.json, old.map(|o| o.json), cx);
        }
    }
}

impl Object<'_> {
    /// TypeMeta: a wrong `kind` or `apiVersion` stops everything else.
    fn type_meta(&self, issues: &mut Vec<Issue>) -> ControlFlow<()> {
        let found = validate_type_meta(self.json, &self.validator.crd.names.kind, &self.validator.api_version);
        if found.is_empty() {
            return ControlFlow::Continue(());
        }
        issues.extend(found);
        ControlFlow::Break(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(schema: Value) -> Crd {
        Crd::parse(&json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced",
                     "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": schema}}]}
        }))
        .0
    }

    fn issues(crd: &Crd, object: Value) -> Vec<String> {
        ResourceValidator::new(crd, &crd.versions[0])
            .validate_create(&object)
            .issues
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[cfg(feature = "yaml")]
    proptest::proptest! {
        /// A document validated as read (its value made pruned) has the outcome of its whole
        /// value validated: the same issues, pruned fields and warnings, and the same object
        /// where the apiserver goes on with one (not after metadata it refuses to decode).
        #[test]
        fn a_document_validated_as_read_is_its_value_validated(
            spec in crate::dynamic::prune::tests::json_with_keys(vec!["a", "n", "d", "l", "m", "x", "zz"]),
            labels in proptest::collection::btree_map("[a-c]", proptest::prop_oneof![
                proptest::strategy::Just(json!("v")), proptest::strategy::Just(json!(null)),
                proptest::strategy::Just(json!(1)), proptest::strategy::Just(json!({"a": null}))], 0..3),
            name in proptest::prop_oneof![proptest::strategy::Just(json!("w")), proptest::strategy::Just(json!(null)),
                proptest::strategy::Just(json!(7))],
            update in proptest::prelude::any::<bool>(),
        ) {
            let c = crd(json!({"type": "object", "properties": {
                "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 3},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}}}},
                "spec": {"type": "object", "required": ["d"], "properties": {
                    "a": {"type": "string", "enum": ["s"]}, "n": {"type": "integer", "nullable": true},
                    "d": {"type": "integer", "default": 1, "minimum": 2},
                    "l": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                    "m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"a": {"type": "integer"}}}},
                    "x": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}));
            let v = ResourceValidator::new(&c, &c.versions[0]);
            let object = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                "metadata": {"name": name, "labels": labels}, "spec": spec});
            let mut read = Vec::new();
            crate::read::yaml::read_each(&object.to_string(), true, &mut |doc| read.push(doc)).unwrap();
            let old = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"d": 1}});
            let (whole, as_read) = match update {
                true => (v.validate_update(&object, &old), v.validate_update_read(&read[0], &old)),
                false => (v.validate_create(&object), v.validate_create_read(&read[0])),
            };
            proptest::prop_assert_eq!(&whole.issues, &as_read.issues);
            proptest::prop_assert_eq!(&whole.pruned, &as_read.pruned);
            proptest::prop_assert_eq!(&whole.warnings, &as_read.warnings);
            if !whole.issues.iter().any(|i| i.path.openapi() == "metadata") {
                proptest::prop_assert_eq!(&whole.object, &as_read.object);
            }
        }
    }

    #[test]
    fn validation_sees_the_normalized_object() {
        let c = crd(json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["replicas"],
            "properties": {"replicas": {"type": "integer", "default": 1}, "mode": {"type": "string"}}}}}));
        let v = ResourceValidator::new(&c, &c.versions[0]);
        let out = v
            .validate_create(&json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
            "spec": {"mode": null, "extra": 1}}));
        assert!(out.issues.is_empty(), "{:?}", out.issues);
        assert_eq!(out.pruned.iter().map(Path::openapi).collect::<Vec<_>>(), vec!["spec.extra"]);
        assert_eq!(out.object["spec"], json!({"replicas": 1}), "null pruned, default applied");
    }

    /// Data of another type than the schema says (a field the CRD retyped, stored before):
    /// ratcheting drops the schema's errors on the unchanged field, and the rules that read it
    /// fail as the apiserver's do, on the no-op update and on an edit elsewhere, for a read and
    /// for an equality alike. As kube-apiserver 1.36.3 answers (`apiserver.py validate --old`).
    #[test]
    #[cfg(feature = "cel")]
    fn rules_over_data_of_another_type_fail_as_the_apiserver_does() {
        let c = crd(json!({"type": "object", "properties": {"spec": {"type": "object",
            "x-kubernetes-validations": [
                {"rule": "!has(self.count) || self.count >= 0"},
                {"rule": "self.items.all(x, self.items.exists_one(y, x == y))", "message": "unique"}],
            "properties": {"count": {"type": "integer"}, "flag": {"type": "string"},
                "items": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}}}}}}));
        let stored = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "t", "namespace": "default"},
            "spec": {"count": "a", "items": [{"n": "b"}]}});
        let mut edited = stored.clone();
        edited["spec"]["flag"] = json!("x");
        let expected = [
            "spec: Invalid value: \"object\": invalid data, expected int, got string evaluating rule: !has(self.count) || self.count >= 0",
            "spec: Invalid value: \"object\": invalid data, expected int, got string evaluating rule: unique",
        ];
        for object in [&stored, &edited] {
            let out = ResourceValidator::new(&c, &c.versions[0]).validate_update(object, &stored);
            assert_eq!(out.issues.iter().map(ToString::to_string).collect::<Vec<_>>(), expected);
        }
    }

    /// A request whose metadata does not decode into `ObjectMeta` is refused whole (the
    /// request decoder's 400); a stored object's such field is dropped (the storage decoder's
    /// way), so an update from it is judged on the rest.
    #[test]
    fn undecodable_metadata_refuses_the_request_and_is_dropped_from_the_stored_object() {
        let c = crd(json!({"type": "object", "properties": {"spec": {"type": "object"}}}));
        let bad = json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "labels": {"tier": 1}}, "spec": {}});
        assert_eq!(
            issues(&c, bad.clone()),
            vec![
                "metadata: Invalid value: json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string"
            ]
        );
        let good = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {}});
        let update = ResourceValidator::new(&c, &c.versions[0]).validate_update(&good, &bad);
        assert!(update.issues.is_empty(), "{:?}", update.issues);
    }

    #[test]
    fn wrong_type_meta_stops_the_rest() {
        let c = crd(json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["x"]}}}));
        assert_eq!(
            issues(&c, json!({"apiVersion": "example.com/v1", "kind": "Gadget", "spec": {}})),
            vec!["kind: Invalid value: \"Gadget\": must be Widget"]
        );
    }

    #[test]
    fn metadata_values_and_list_types_in_the_apiservers_order() {
        let c = crd(json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "n": {"type": "integer", "minimum": 1},
            "l": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}}}));
        assert_eq!(
            issues(&c, json!({"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"n": 0, "l": ["a", "a"]}})),
            vec![
                "metadata.name: Required value: name or generateName is required",
                "spec.n: Invalid value: 0: spec.n in body should be greater than or equal to 1",
                "spec.l[1]: Duplicate value: \"a\"",
            ]
        );
    }

    #[test]
    fn embedded_resources_are_checked_after_the_values() {
        let c = crd(json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "templates": {"type": "array", "items": {"type": "object",
                "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}}}}}}));
        assert_eq!(
            issues(
                &c,
                json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                "spec": {"templates": [{"apiVersion": "v1", "kind": "Pod"}, {"kind": "Pod", "metadata": {"name": ".."}}]}})
            ),
            vec![
                "spec.templates[1].apiVersion: Required value",
                "spec.templates[1].metadata.name: Invalid value: \"..\": may not be '..'"
            ]
        );
    }

    #[test]
    fn updates_ratchet_errors_about_unchanged_places() {
        let c =
            crd(json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["r"], "properties": {
            "a": {"type": "integer", "minimum": 50}, "b": {"type": "integer", "minimum": 50},
            "r": {"type": "string"},
            "l": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}}}));
        let v = ResourceValidator::new(&c, &c.versions[0]);
        let object = |spec: Value| json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec});
        let update = |new: Value, old: Value| -> Vec<String> {
            v.validate_update(&object(new), &object(old)).issues.iter().map(ToString::to_string).collect()
        };
        assert!(update(json!({"a": 1, "r": ""}), json!({"a": 1, "r": ""})).is_empty(), "old 1 -> new 1 passes");
        assert_eq!(
            update(json!({"a": 2, "r": ""}), json!({"a": 1, "r": ""})),
            vec!["spec.a: Invalid value: 2: spec.a in body should be greater than or equal to 50"],
            "old 1 -> new 2 fails"
        );
        assert_eq!(
            update(json!({"a": 1, "b": 60}), json!({"a": 1})),
            vec!["spec.r: Required value"],
            "a required error on a changed parent is kept; the unchanged a is ratcheted"
        );
        assert!(
            update(json!({"l": ["x", "x"], "r": ""}), json!({"l": ["y", "y"], "r": ""})).is_empty(),
            "old list-type errors skip the check"
        );
        assert_eq!(
            update(json!({"l": ["x", "x"], "r": ""}), json!({"r": ""})),
            vec!["spec.l[1]: Duplicate value: \"x\""]
        );
        let renamed = v.validate_update(
            &object(json!({"r": ""})),
            &json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "old"}, "spec": {"r": ""}}),
        );
        assert_eq!(renamed.issues[0].to_string(), "metadata.name: Invalid value: \"w\": field is immutable");
    }

    #[test]
    fn blocking_errors_gate_cel_with_one_extra_error() {
        let c = crd(json!({"type": "object", "properties": {"spec": {"type": "object",
            "x-kubernetes-validations": [{"rule": "self.n > 0"}],
            "properties": {"n": {"type": "integer", "minimum": 5}, "m": {"type": "string", "enum": ["a"]}}}}}));
        let base = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
        let mut minimum_only = base.clone();
        minimum_only["spec"] = json!({"n": 1});
        assert_eq!(issues(&c, minimum_only).len(), 1, "minimum does not block CEL");
        let mut with_enum = base;
        with_enum["spec"] = json!({"m": "b"});
        assert_eq!(
            issues(&c, with_enum),
            vec![
                "spec.m: Unsupported value: \"b\": supported values: \"a\"",
                "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
            ]
        );
    }
}
