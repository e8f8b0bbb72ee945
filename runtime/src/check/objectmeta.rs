//! TypeMeta and root ObjectMeta validation of a custom resource on create (semantics §6.1,
//! `apimachinery/pkg/api/validation/objectmeta.go`, `pkg/util/validation/validation.go`),
//! with the apiserver's messages.
//!
//! Offline, a namespaced object without `metadata.namespace` is not an error: the apiserver
//! takes the namespace from the request (kubectl's context), before validating.

use serde_json::Value;

use crate::report::issue::{BadValue, ErrorType, Issue, PathForm, go_json};
use crate::report::path::{Path, Place};

use crate::check::shapes;

const SUBDOMAIN_FORMAT: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_FORMAT: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_FORMAT: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const QUALIFIED_NAME_FORMAT: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_FORMAT: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/// The most bytes of annotation keys and values together.
pub const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// `IsDNS1123Subdomain`.
pub fn dns1123_subdomain(s: &str) -> Vec<String> {
    bounded_format(s, 253, Unit::Characters, shapes::dns1123_subdomain, SUBDOMAIN_FORMAT)
}

/// `IsDNS1123Label`.
pub fn dns1123_label(s: &str) -> Vec<String> {
    bounded_format(s, 63, Unit::Characters, shapes::dns1123_label, LABEL_FORMAT)
}

/// `IsDNS1035Label`.
pub fn dns1035_label(s: &str) -> Vec<String> {
    bounded_format(s, 63, Unit::Characters, shapes::dns1035_label, DNS1035_FORMAT)
}

/// `ValidatePathSegmentName`: names of embedded objects may be anything a URL path segment
/// holds.
pub fn path_segment_name(s: &str, prefix: bool) -> Vec<String> {
    let mut out = Vec::new();
    if !prefix && (s == "." || s == "..") {
        out.push(format!("may not be '{s}'"));
    }
    for c in ["/", "%"] {
        if s.contains(c) {
            out.push(format!("may not contain '{c}'"));
        }
    }
    out
}

/// `schema.ParseGroupVersion`'s verdict on an `apiVersion`.
fn group_version_error(s: &str) -> Option<String> {
    (s.matches('/').count() > 1).then(|| format!("unexpected GroupVersion string: {s}"))
}

/// Whether `s` passes `IsQualifiedName`: what most keys need to know, with no messages made.
fn is_qualified_name(s: &str) -> bool {
    let (prefix, name) = shapes::qualified_name_parts(s);
    let prefix_fits = prefix.is_none_or(|p| p.len() <= 253 && shapes::dns1123_subdomain(p));
    prefix_fits && name.len() <= 63 && shapes::qualified_name_part(name)
}

/// `IsQualifiedName`, which 1.36 spells `content.IsLabelKey`: `[prefix/]name`, the prefix a
/// DNS subdomain; lengths in bytes, as the `content` package words them.
pub fn qualified_name(s: &str) -> Vec<String> {
    if is_qualified_name(s) {
        return Vec::new();
    }
    let (prefix, name) = shapes::qualified_name_parts(s);
    if name.contains('/') {
        return vec![format!(
            "a valid label key {QUALIFIED_NAME_FORMAT} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        )];
    }
    let mut out = Vec::new();
    match prefix {
        Some("") => out.push("prefix part must be non-empty".into()),
        Some(prefix) => out.extend(
            bounded_format(prefix, 253, Unit::Bytes, shapes::dns1123_subdomain, SUBDOMAIN_FORMAT)
                .into_iter()
                .map(|m| format!("prefix part {m}")),
        ),
        None => {}
    }
    if name.is_empty() {
        out.push("name part must be non-empty".into());
    } else if name.len() > 63 {
        out.push("name part must be no more than 63 bytes".into());
    }
    if !shapes::qualified_name_part(name) {
        out.push(format!("name part {QUALIFIED_NAME_FORMAT}"));
    }
    out
}

/// Whether [`label_value`] finds nothing, without building its messages.
fn is_label_value(s: &str) -> bool {
    s.len() <= LABEL_VALUE_MAX && shapes::label_value(s)
}

/// `IsValidLabelValue` (`content.IsLabelValue`).
pub fn label_value(s: &str) -> Vec<String> {
    bounded_format(s, LABEL_VALUE_MAX, Unit::Bytes, shapes::label_value, LABEL_VALUE_FORMAT)
}

/// The longest label value, in bytes.
const LABEL_VALUE_MAX: usize = 63;

/// How a length limit is worded: `util/validation` says characters, 1.36's
/// `api/validate/content` (label keys and values) says bytes; both count bytes.
#[derive(Clone, Copy)]
enum Unit {
    Characters,
    Bytes,
}

/// apimachinery's usual pair of messages: too long, and not of the format.
fn bounded_format(s: &str, max: usize, unit: Unit, shaped: fn(&str) -> bool, format: &str) -> Vec<String> {
    let mut out = Vec::new();
    if s.len() > max {
        let unit = match unit {
            Unit::Characters => "characters",
            Unit::Bytes => "bytes",
        };
        out.push(format!("must be no more than {max} {unit}"));
    }
    if !shaped(s) {
        out.push(format.to_owned());
    }
    out
}

fn invalid(path: &dyn Place, keyword: &'static str, value: &str, msg: String) -> Issue {
    Issue::new(ErrorType::Invalid, path, keyword, BadValue::Str(value.to_owned()), msg).in_form(PathForm::Field)
}

/// TypeMeta: `kind` and `apiVersion` must be the CRD's.
pub fn validate_type_meta(object: &Value, kind: &str, api_version: &str) -> Vec<Issue> {
    let text = |k: &str| object.get(k).and_then(Value::as_str);
    type_meta(text("kind"), text("apiVersion"), kind, api_version)
}

/// [`validate_type_meta`] of the values read (`None`: absent, or not a string).
pub fn type_meta(kind: Option<&str>, api_version: Option<&str>, want_kind: &str, want_api_version: &str) -> Vec<Issue> {
    let mut out = Vec::new();
    if kind == Some(want_kind) && api_version == Some(want_api_version) {
        return out;
    }
    for (key, got, want) in [("kind", kind, want_kind), ("apiVersion", api_version, want_api_version)] {
        let got = got.unwrap_or_default();
        if got != want {
            out.push(invalid(&Path::root().key(key), "typemeta", got, format!("must be {want}")));
        }
    }
    out
}

/// Root ObjectMeta on create: name or generateName, namespace by scope, labels, annotations,
/// finalizers, generation.
pub fn validate_object_meta(object: &Value, namespaced: bool, names: NameRule) -> Vec<Issue> {
    root_meta(object.get("metadata"), None, namespaced, names)
}

/// Root ObjectMeta on update: the fields that may never change, then the create rules on the
/// new metadata (labels, annotations, finalizers re-validated). Offline there is no
/// `resourceVersion` to require: the apiserver takes it from the stored object on a patch.
pub fn validate_object_meta_update(new: &Value, old: &Value, namespaced: bool, names: NameRule) -> Vec<Issue> {
    root_meta(new.get("metadata"), Some(old.get("metadata")), namespaced, names)
}

/// Root ObjectMeta of any [`MetaView`] (`None`: no metadata), on create or on update from
/// `old`.
pub fn root_meta<M: MetaView>(
    meta: Option<&M>,
    old: Option<Option<&M>>,
    namespaced: bool,
    names: NameRule,
) -> Vec<Issue> {
    let at = |key: &str| Path::root().property("metadata").key(key);
    let mut out = Vec::new();
    if let Some(old) = old {
        for key in IMMUTABLE {
            let changed = match key {
                "namespace" => request_namespace(meta, namespaced) != request_namespace(old, namespaced),
                _ => !M::same(meta, old, key),
            };
            if changed {
                let shown = match key {
                    "namespace" => request_namespace(meta, namespaced).to_owned(),
                    _ => meta.map(|m| m.shown(key)).unwrap_or_default(),
                };
                out.push(invalid(&at(key), "metadata", &shown, "field is immutable".into()));
            }
        }
        let generation = |m: Option<&M>| m.and_then(M::generation).unwrap_or_default();
        if generation(meta) < generation(old) {
            out.push(
                Issue::new(
                    ErrorType::Invalid,
                    &at("generation"),
                    "metadata",
                    BadValue::Int(generation(meta)),
                    "must not be decremented",
                )
                .in_form(PathForm::Field),
            );
        }
    }
    let rules = match old {
        Some(_) => Rules::RootUpdate { namespaced, names },
        None => Rules::Root { namespaced, names },
    };
    out.extend(object_meta(meta, &at, rules));
    out
}

/// The metadata fields an update may not change.
const IMMUTABLE: [&str; 4] = ["name", "namespace", "uid", "creationTimestamp"];

/// What the metadata rules read of an object's `metadata`: the JSON the dynamic validator
/// holds, or a typed `ObjectMeta` (read in place, never serialized), so that one set of rules
/// serves both.
pub trait MetaView {
    /// A string field by its JSON name (`name`, `generateName`, `namespace`, `uid`,
    /// `creationTimestamp`); `None` when absent or not a string.
    fn text(&self, key: &str) -> Option<&str>;
    /// Each label, its value `""` where it is not a string.
    fn labels(&self, each: &mut dyn FnMut(&str, &str));
    /// Each annotation, as [`MetaView::labels`].
    fn annotations(&self, each: &mut dyn FnMut(&str, &str));
    /// Each finalizer, `""` where it is not a string.
    fn finalizers(&self, each: &mut dyn FnMut(&str));
    /// `generation`, when it is an integer.
    fn generation(&self) -> Option<i64>;
    /// Each owner reference, as the apiserver's accessor reads them (none at all when the
    /// list or one of its items is not what it should be; a field of the wrong type reads
    /// as absent).
    fn owner_references(&self) -> Vec<OwnerRef<'_>>;
    /// Whether this is an object at all (JSON metadata may be anything).
    fn is_object(&self) -> bool {
        true
    }
    /// The string field `key` as an issue shows it (`""` when absent).
    fn shown(&self, key: &str) -> String {
        self.text(key).unwrap_or_default().to_owned()
    }
    /// Whether the field `key` is the same in `new` and `old`, absent reading as `""` (as
    /// the accessors read it).
    fn same(new: Option<&Self>, old: Option<&Self>, key: &str) -> bool {
        new.and_then(|m| m.text(key)).unwrap_or_default() == old.and_then(|m| m.text(key)).unwrap_or_default()
    }
}

impl MetaView for Value {
    fn is_object(&self) -> bool {
        self.is_object()
    }
    fn text(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }
    fn labels(&self, each: &mut dyn FnMut(&str, &str)) {
        for (k, v) in self.get("labels").and_then(Value::as_object).into_iter().flatten() {
            each(k, v.as_str().unwrap_or_default());
        }
    }
    fn annotations(&self, each: &mut dyn FnMut(&str, &str)) {
        for (k, v) in self.get("annotations").and_then(Value::as_object).into_iter().flatten() {
            each(k, v.as_str().unwrap_or_default());
        }
    }
    fn finalizers(&self, each: &mut dyn FnMut(&str)) {
        for f in self.get("finalizers").and_then(Value::as_array).into_iter().flatten() {
            each(f.as_str().unwrap_or_default());
        }
    }
    fn generation(&self) -> Option<i64> {
        self.get("generation").and_then(Value::as_i64)
    }
    fn owner_references(&self) -> Vec<OwnerRef<'_>> {
        let Some(refs) = self.get("ownerReferences").and_then(Value::as_array) else { return Vec::new() };
        if !refs.iter().all(Value::is_object) {
            return Vec::new();
        }
        refs.iter()
            .map(|r| {
                let text = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or_default();
                let flag = |k: &str| r.get(k).and_then(Value::as_bool);
                OwnerRef {
                    api_version: text("apiVersion"),
                    kind: text("kind"),
                    name: text("name"),
                    uid: text("uid"),
                    controller: flag("controller"),
                    block_owner_deletion: flag("blockOwnerDeletion"),
                }
            })
            .collect()
    }
}

/// A typed metadata's string field by JSON name, from its `name`, `generateName`,
/// `namespace` and `uid` (the ones every typed `ObjectMeta` holds as strings).
pub(crate) fn named_text<'m>(
    key: &str,
    [name, generate_name, namespace, uid]: [Option<&'m str>; 4],
) -> Option<&'m str> {
    match key {
        "name" => name,
        "generateName" => generate_name,
        "namespace" => namespace,
        "uid" => uid,
        _ => None,
    }
}

impl MetaView for crate::types::meta::ObjectMeta {
    fn text(&self, key: &str) -> Option<&str> {
        let strings = [&self.name, &self.generate_name, &self.namespace, &self.uid].map(Option::as_deref);
        match key {
            "creationTimestamp" => self.creation_timestamp.as_deref(),
            _ => named_text(key, strings),
        }
    }
    fn labels(&self, each: &mut dyn FnMut(&str, &str)) {
        self.labels.iter().for_each(|(k, v)| each(k, v));
    }
    fn annotations(&self, each: &mut dyn FnMut(&str, &str)) {
        self.annotations.iter().for_each(|(k, v)| each(k, v));
    }
    fn finalizers(&self, each: &mut dyn FnMut(&str)) {
        self.finalizers.iter().for_each(|f| each(f));
    }
    fn generation(&self) -> Option<i64> {
        self.generation
    }
    fn owner_references(&self) -> Vec<OwnerRef<'_>> {
        self.owner_references
            .iter()
            .map(|r| OwnerRef {
                api_version: &r.api_version,
                kind: &r.kind,
                name: &r.name,
                uid: &r.uid,
                controller: r.controller,
                block_owner_deletion: r.block_owner_deletion,
            })
            .collect()
    }
}

/// One owner reference as the metadata rules read it.
#[derive(Clone, Copy, Debug)]
pub struct OwnerRef<'a> {
    /// `apiVersion`.
    pub api_version: &'a str,
    /// `kind`.
    pub kind: &'a str,
    /// `name`.
    pub name: &'a str,
    /// `uid`.
    pub uid: &'a str,
    /// `controller`.
    pub controller: Option<bool>,
    /// `blockOwnerDeletion`.
    pub block_owner_deletion: Option<bool>,
}

impl OwnerRef<'_> {
    /// As Go's `encoding/json` writes a `metav1.OwnerReference`: its fields in declaration
    /// order, the optional ones only when set.
    fn go_json(&self) -> String {
        let s = |v: &str| go_json(&Value::String(v.to_owned()));
        let mut out = format!(
            "{{\"apiVersion\":{},\"kind\":{},\"name\":{},\"uid\":{}",
            s(self.api_version),
            s(self.kind),
            s(self.name),
            s(self.uid)
        );
        if let Some(c) = self.controller {
            out.push_str(&format!(",\"controller\":{c}"));
        }
        if let Some(b) = self.block_owner_deletion {
            out.push_str(&format!(",\"blockOwnerDeletion\":{b}"));
        }
        out.push('}');
        out
    }
}

/// `ValidateOwnerReferences`: each reference's version, kind, name and uid present, no
/// Event as an owner, at most one controller.
fn owner_references<M: MetaView>(meta: &M, at: &dyn Place, keyword: &'static str, out: &mut Vec<Issue>) {
    let refs = meta.owner_references();
    if refs.is_empty() {
        return;
    }
    let at = &at.to_path();
    let mut first_controller: Option<String> = None;
    for r in &refs {
        // `schema.FromAPIVersionAndKind`: `group/version`, or a version alone; more than one
        // slash parses as nothing.
        let (group, version) = match r.api_version.matches('/').count() {
            0 => ("", r.api_version),
            1 => r.api_version.split_once('/').expect("one slash"),
            _ => ("", ""),
        };
        if version.is_empty() {
            out.push(invalid(&at.key("apiVersion"), keyword, r.api_version, "version must not be empty".into()));
        }
        for (key, value) in [("kind", r.kind), ("name", r.name), ("uid", r.uid)] {
            if value.is_empty() {
                out.push(invalid(&at.key(key), keyword, value, "must not be empty".into()));
            }
        }
        if (group, version, r.kind) == ("", "v1", "Event") {
            out.push(
                Issue::new(
                    ErrorType::Invalid,
                    at,
                    keyword,
                    BadValue::Json(r.go_json()),
                    "/v1, Kind=Event is disallowed from being an owner",
                )
                .in_form(PathForm::Field),
            );
        }
        if r.controller == Some(true) {
            let current = format!("{}/{}", r.kind, r.name);
            match &first_controller {
                Some(first) => {
                    let all = format!("[{}]", refs.iter().map(OwnerRef::go_json).collect::<Vec<_>>().join(","));
                    out.push(
                        Issue::new(
                            ErrorType::Invalid,
                            at,
                            keyword,
                            BadValue::Json(all),
                            format!("Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"),
                        )
                        .in_form(PathForm::Field),
                    );
                }
                None => first_controller = Some(current),
            }
        }
    }
}

/// The fields of a resource (the root, or an embedded resource) that are its type and object
/// metadata rather than its content: pruning leaves them, CRD checks treat what is under them
/// as resource meta.
pub const RESOURCE_META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// The metadata of an `x-kubernetes-embedded-resource` value (§6.2): `apiVersion` and `kind`
/// required and well-formed, metadata with path-segment names (which may be absent) and a
/// namespace checked only when set. `path` is where the embedded object sits.
pub fn validate_embedded(object: &Value, path: &Path) -> Vec<Issue> {
    let text = |k: &str| object.get(k).and_then(Value::as_str);
    embedded(text("kind"), text("apiVersion"), object.get("metadata"), path)
}

/// [`validate_embedded`] of the values read (`None`: absent, or not a string; no metadata).
pub fn embedded<M: MetaView>(
    kind: Option<&str>,
    api_version: Option<&str>,
    meta: Option<&M>,
    path: &Path,
) -> Vec<Issue> {
    let mut out = Vec::new();
    // Absent is required; present and empty is invalid.
    let required = |key: &str| {
        Issue::new(ErrorType::Required, &path.key(key), EMBEDDED, BadValue::Omit, "").in_form(PathForm::Field)
    };
    let empty = |key: &str| invalid(&path.key(key), EMBEDDED, "", "must not be empty".into());
    match kind {
        None => out.push(required("kind")),
        Some("") => out.push(empty("kind")),
        Some(kind) => {
            let errs = dns1035_label(&kind.to_lowercase());
            if !errs.is_empty() {
                let msg = format!("may have mixed case, but should otherwise match: {}", errs.join(","));
                out.push(invalid(&path.key("kind"), EMBEDDED, kind, msg));
            }
        }
    }
    match api_version {
        None => out.push(required("apiVersion")),
        Some("") => out.push(empty("apiVersion")),
        Some(api_version) => {
            if let Some(e) = group_version_error(api_version) {
                out.push(invalid(&path.key("apiVersion"), EMBEDDED, api_version, e));
            }
        }
    }
    if let Some(meta) = meta.filter(|m| m.is_object()) {
        out.extend(object_meta(Some(meta), &|key| path.key("metadata").key(key), Rules::Embedded));
    }
    out
}

#[cfg(feature = "dynamic")]
/// [`validate_embedded`] for every embedded resource under `root` (the root itself excluded),
/// following properties, map values and list items.
pub fn validate_embedded_resources(object: &Value, root: &crate::schema::Schema) -> Vec<Issue> {
    // `at` becomes a `Path` only at an embedded resource.
    use crate::report::path::At;
    fn walk(v: &Value, s: &crate::schema::Schema, at: &At<'_>, is_root: bool, out: &mut Vec<Issue>) {
        match v {
            Value::Object(map) => {
                if s.embedded_resource && !is_root {
                    out.extend(validate_embedded(v, &at.to_path()));
                }
                for (k, child) in map {
                    if let Some((child_schema, child_at)) = s.key_place(k, at) {
                        walk(child, child_schema, &child_at, false, out);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(i) = s.items.as_deref() {
                    for (n, item) in items.iter().enumerate() {
                        walk(item, i, &at.index(n), false, out);
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(object, root, &At::ROOT, true, &mut out);
    out
}

/// `schemaobjectmeta.Coerce` without dropping what does not decode: the first resource
/// (`object` itself when `is_resource`, and every embedded one below it) whose `apiVersion` or
/// `kind` is not a string, or whose `metadata` does not decode as Go decodes `ObjectMeta`,
/// as the apiserver words it (`metadata: Invalid value: {"name":5}: json: cannot unmarshal
/// number into Go struct field ObjectMeta.name of type string`).
pub fn coerce_error(object: &Value, schema: &crate::schema::Schema, is_resource: bool, path: &Path) -> Option<Issue> {
    match object {
        Value::Object(map) => {
            if is_resource || schema.embedded_resource {
                for (k, v) in map {
                    let bad = match k.as_str() {
                        "apiVersion" | "kind" if !v.is_string() => Some("must be a string".to_owned()),
                        "metadata" => go_decode_error(v),
                        _ => None,
                    };
                    if let Some(detail) = bad {
                        return Some(
                            Issue::new(ErrorType::Invalid, &path.key(k), "metadata", BadValue::of(v), detail)
                                .in_form(PathForm::Field),
                        );
                    }
                }
            }
            map.iter().find_map(|(k, v)| {
                let (child, child_path) = schema.key_child(k, path)?;
                coerce_error(v, child, false, &child_path)
            })
        }
        Value::Array(items) => {
            let item = schema.items.as_deref()?;
            items.iter().enumerate().find_map(|(i, v)| coerce_error(v, item, false, &path.index(i)))
        }
        _ => None,
    }
}

/// Why Go's `encoding/json` would not decode `meta` into a `metav1.ObjectMeta`, in its words
/// (the first type mismatch, keys in sorted order as Go wrote them).
pub fn go_decode_error(meta: &Value) -> Option<String> {
    fn kind(v: &Value) -> String {
        match v {
            Value::Bool(_) => "bool".into(),
            Value::Number(n) => match n.as_i64() {
                Some(_) => "number".into(),
                None => format!("number {n}"),
            },
            Value::String(_) => "string".into(),
            Value::Array(_) => "array".into(),
            _ => "object".into(),
        }
    }
    // Go names the innermost struct and the whole field path (`OwnerReference.ownerReferences.uid`).
    let err = |v: &Value, field: &str, ty: &str| {
        let owner = if field.starts_with("ownerReferences.") { "OwnerReference" } else { "ObjectMeta" };
        Some(format!("json: cannot unmarshal {} into Go struct field {owner}.{field} of type {ty}", kind(v)))
    };
    let string = |v: &Value, field: &str| if v.is_string() || v.is_null() { None } else { err(v, field, "string") };
    let Value::Object(map) = meta else {
        return match meta {
            Value::Null => None,
            other => Some(format!("json: cannot unmarshal {} into Go value of type v1.ObjectMeta", kind(other))),
        };
    };
    map.iter().find_map(|(k, v)| match k.as_str() {
        "name" | "generateName" | "namespace" | "selfLink" | "uid" | "resourceVersion" => string(v, k),
        "generation" | "deletionGracePeriodSeconds" => match v {
            Value::Null => None,
            Value::Number(n) if n.as_i64().is_some() => None,
            other => err(other, k, "int64"),
        },
        "creationTimestamp" | "deletionTimestamp" => match v {
            Value::Null | Value::String(_) => None,
            other => Some(format!("json: cannot unmarshal {} into Go value of type string", kind(other))),
        },
        "labels" | "annotations" => match v {
            Value::Null => None,
            Value::Object(entries) => entries.values().find_map(|e| string(e, k)),
            other => err(other, k, "map[string]string"),
        },
        "finalizers" => match v {
            Value::Null => None,
            Value::Array(items) => items.iter().find_map(|e| string(e, k)),
            other => err(other, k, "[]string"),
        },
        "ownerReferences" => match v {
            Value::Null => None,
            Value::Array(items) => items.iter().find_map(|r| match r {
                Value::Null => None,
                Value::Object(fields) => fields.iter().find_map(|(f, x)| match f.as_str() {
                    "apiVersion" | "kind" | "name" | "uid" => string(x, &format!("ownerReferences.{f}")),
                    "controller" | "blockOwnerDeletion" if !(x.is_boolean() || x.is_null()) => {
                        err(x, &format!("ownerReferences.{f}"), "bool")
                    }
                    _ => None,
                }),
                other => err(other, k, "v1.OwnerReference"),
            }),
            other => err(other, k, "[]v1.OwnerReference"),
        },
        "managedFields" => match v {
            Value::Null | Value::Array(_) => None,
            other => err(other, k, "[]v1.ManagedFieldsEntry"),
        },
        _ => None,
    })
}

/// What a root object's `metadata.name` (and `generateName`, a prefix of one) must be. A custom
/// resource's is a DNS subdomain; a native kind's is what its hand-written validation asks
/// (`ValidateObjectMeta`'s name function).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NameRule {
    /// `NameIsDNSSubdomain`: custom resources and most native kinds.
    #[default]
    Subdomain,
    /// `NameIsDNSLabel`: a Namespace.
    Label,
    /// `NameIsDNS1035Label`: a Service.
    Dns1035Label,
    /// `ValidatePathSegmentName`: no `/` or `%`, not `.` or `..` (RBAC's roles and bindings,
    /// and embedded resources).
    PathSegment,
    /// No rule at all (a CertificateSigningRequest: "We don't care what you call your
    /// certificate requests").
    Any,
}

impl NameRule {
    /// What is wrong with `name`; a `prefix` (a `generateName`) may end in `-`, masked before
    /// the DNS rules read it, as the apiserver masks it.
    pub fn check(self, name: &str, prefix: bool) -> Vec<String> {
        // A copy only for a prefix ending in `-`: this runs on every object's name.
        let masked = match name.strip_suffix('-') {
            Some(rest) if prefix && !rest.is_empty() => std::borrow::Cow::Owned(format!("{rest}a")),
            _ => std::borrow::Cow::Borrowed(name),
        };
        match self {
            NameRule::Subdomain => dns1123_subdomain(&masked),
            NameRule::Label => dns1123_label(&masked),
            NameRule::Dns1035Label => dns1035_label(&masked),
            NameRule::PathSegment => path_segment_name(name, prefix),
            NameRule::Any => Vec::new(),
        }
    }
}

/// What differs between root and embedded metadata.
#[derive(Clone, Copy)]
enum Rules {
    Root {
        namespaced: bool,
        names: NameRule,
    },
    /// The root on update (`ValidateObjectMetaAccessorUpdate`): name, generateName and
    /// namespace are only held to their old values, and finalizers and generation are not
    /// checked again.
    RootUpdate {
        namespaced: bool,
        names: NameRule,
    },
    Embedded,
}

impl Rules {
    /// The keyword issues carry: root metadata and embedded resources are separate steps of
    /// the apiserver's pipeline, reported in different places of its order.
    fn keyword(self) -> &'static str {
        match self {
            Rules::Root { .. } | Rules::RootUpdate { .. } => "metadata",
            Rules::Embedded => EMBEDDED,
        }
    }
}

/// The keyword of every issue about an embedded resource.
pub const EMBEDDED: &str = "x-kubernetes-embedded-resource";

/// The ObjectMeta rules `rules` names. `at` gives the path of a field of the metadata; it is
/// called only for an issue, so a valid object allocates nothing here.
fn object_meta<M: MetaView>(meta: Option<&M>, at: &dyn Fn(&str) -> Path, rules: Rules) -> Vec<Issue> {
    let mut out = Vec::new();
    if !matches!(rules, Rules::RootUpdate { .. }) {
        identity(meta, at, rules, &mut out);
    }
    let Some(meta) = meta else { return out };
    meta_contents(meta, at, rules, &mut out);
    out
}

/// name, generateName and namespace.
fn identity<M: MetaView>(meta: Option<&M>, at: &dyn Fn(&str) -> Path, rules: Rules, out: &mut Vec<Issue>) {
    let keyword = rules.keyword();
    let names = match rules {
        Rules::Root { names, .. } | Rules::RootUpdate { names, .. } => names,
        Rules::Embedded => NameRule::PathSegment,
    };
    let text = |k: &str| meta.and_then(|m| m.text(k)).unwrap_or_default();
    let (name, generate_name) = (text("name"), text("generateName"));
    // Most generated names are well formed, and need no masked copy.
    let plainly_valid =
        names == NameRule::Subdomain && generate_name.len() <= 253 && shapes::generate_name(generate_name);
    if !generate_name.is_empty() && !plainly_valid {
        for msg in names.check(generate_name, true) {
            out.push(invalid(&at("generateName"), keyword, generate_name, msg));
        }
    }
    if name.is_empty() {
        if generate_name.is_empty() && matches!(rules, Rules::Root { .. }) {
            out.push(
                Issue::new(
                    ErrorType::Required,
                    &at("name"),
                    keyword,
                    BadValue::Omit,
                    "name or generateName is required",
                )
                .in_form(PathForm::Field),
            );
        }
    } else {
        for msg in names.check(name, false) {
            out.push(invalid(&at("name"), keyword, name, msg));
        }
    }
    let namespace = match rules {
        Rules::Root { namespaced, .. } | Rules::RootUpdate { namespaced, .. } => request_namespace(meta, namespaced),
        Rules::Embedded => text("namespace"),
    };
    if !namespace.is_empty() {
        for msg in dns1123_label(namespace) {
            out.push(invalid(&at("namespace"), keyword, namespace, msg));
        }
    }
}

/// The namespace a root object has once the request handlers have settled it: a
/// cluster-scoped object's is cleared (`rest.BeforeCreate`), so it is never refused; a
/// namespaced object without one gets the request's, here `default` (what `kubectl apply`
/// sends without `-n`).
fn request_namespace<M: MetaView>(meta: Option<&M>, namespaced: bool) -> &str {
    match meta.and_then(|m| m.text("namespace")).filter(|n| !n.is_empty()) {
        _ if !namespaced => "",
        Some(namespace) => namespace,
        None => "default",
    }
}

/// `ValidateLabels` and `ValidateAnnotations` of the string maps at `labels` and `annotations`
/// (what a conversion webhook may change: `conversion`).
pub fn validate_labels_and_annotations(
    labels: &[(&str, &str)],
    annotations: &[(&str, &str)],
    labels_at: &Path,
    annotations_at: &Path,
) -> Vec<Issue> {
    let mut out = Vec::new();
    labels.iter().for_each(|(k, v)| label(k, v, labels_at, "metadata", &mut out));
    let mut total = 0;
    annotations.iter().for_each(|(k, v)| annotation(k, v, &mut total, annotations_at, "metadata", &mut out));
    annotations_size(total, annotations_at, "metadata", &mut out);
    out
}

fn label(k: &str, v: &str, at: &dyn Place, keyword: &'static str, out: &mut Vec<Issue>) {
    // Nearly every label is well formed: answered without building the messages.
    if is_qualified_name(k) && is_label_value(v) {
        return;
    }
    out.extend(qualified_name(k).into_iter().map(|m| invalid(at, keyword, k, m)));
    out.extend(label_value(v).into_iter().map(|m| invalid(at, keyword, v, m)));
}

fn annotation(k: &str, v: &str, total: &mut usize, at: &dyn Place, keyword: &'static str, out: &mut Vec<Issue>) {
    *total += k.len() + v.len();
    // Keys are checked lowercased. A key that is a qualified name as written is one lowercased
    // too (a prefix that fits is lowercase already), and needs no copy.
    if !is_qualified_name(k) {
        let lowered = k.to_lowercase();
        out.extend(qualified_name(&lowered).into_iter().map(|m| invalid(at, keyword, k, m)));
    }
}

fn annotations_size(total: usize, at: &dyn Place, keyword: &'static str, out: &mut Vec<Issue>) {
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        out.push(
            Issue::new(
                ErrorType::TooLong,
                at,
                keyword,
                BadValue::Omit,
                format!("may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"),
            )
            .in_form(PathForm::Field),
        );
    }
}

/// labels, annotations, owner references; finalizers and generation but on update.
fn meta_contents<M: MetaView>(meta: &M, at: &dyn Fn(&str) -> Path, rules: Rules, out: &mut Vec<Issue>) {
    let keyword = rules.keyword();
    // The places are made only for an issue: a path for every label was a sixth of the
    // dynamic validator's time on a small certificate (issue 54).
    let (labels, annotations) = (|| at("labels"), || at("annotations"));
    meta.labels(&mut |k, v| label(k, v, &labels, keyword, out));
    let mut total = 0;
    meta.annotations(&mut |k, v| annotation(k, v, &mut total, &annotations, keyword, out));
    annotations_size(total, &annotations, keyword, out);
    owner_references(meta, &|| at("ownerReferences"), keyword, out);
    if matches!(rules, Rules::RootUpdate { .. }) {
        return;
    }
    let mut i = 0;
    meta.finalizers(&mut |f| {
        out.extend(qualified_name(f).into_iter().map(|m| invalid(&at("finalizers").index(i), keyword, f, m)));
        i += 1;
    });
    if let Some(generation) = meta.generation().filter(|g| *g < 0) {
        out.push(
            Issue::new(
                ErrorType::Invalid,
                &at("generation"),
                keyword,
                BadValue::Int(generation),
                "must be greater than or equal to 0",
            )
            .in_form(PathForm::Field),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(m: Value, namespaced: bool) -> Vec<String> {
        named(m, namespaced, NameRule::Subdomain)
    }

    fn named(m: Value, namespaced: bool, names: NameRule) -> Vec<String> {
        validate_object_meta(&json!({"metadata": m}), namespaced, names).iter().map(ToString::to_string).collect()
    }

    /// A native kind's name rule: each its own check, a prefix's trailing dash masked for the
    /// DNS ones and allowed by the path-segment one, which refuses `.` and `..` as whole names.
    #[test]
    fn native_kinds_hold_names_to_their_own_rule() {
        let ok = |m: Value, names| named(m, true, names).is_empty();
        assert!(ok(json!({"name": "system:aggregate-to-edit"}), NameRule::PathSegment));
        assert!(!ok(json!({"name": "a/b"}), NameRule::PathSegment));
        assert!(!ok(json!({"name": ".."}), NameRule::PathSegment));
        assert!(ok(json!({"generateName": ".."}), NameRule::PathSegment), "a prefix of something longer");
        assert!(ok(json!({"name": "Node_CSR:1/2"}), NameRule::Any));
        assert!(ok(json!({"generateName": "web-"}), NameRule::Dns1035Label));
        assert_eq!(
            named(json!({"name": "9-web"}), true, NameRule::Dns1035Label),
            vec![format!("metadata.name: Invalid value: \"9-web\": {DNS1035_FORMAT}")]
        );
        assert!(ok(json!({"name": "team-a"}), NameRule::Label));
        assert!(!ok(json!({"name": "team.a"}), NameRule::Label), "a subdomain is not a label");
    }

    #[test]
    fn names_follow_dns_subdomain_rules() {
        assert!(meta(json!({"name": "my-app.v1"}), true).is_empty());
        assert_eq!(meta(json!({}), true), vec!["metadata.name: Required value: name or generateName is required"]);
        assert!(meta(json!({"generateName": "job-"}), true).is_empty(), "a prefix may end in a dash");
        assert_eq!(
            meta(json!({"name": "My_App"}), true),
            vec![format!("metadata.name: Invalid value: \"My_App\": {SUBDOMAIN_FORMAT}")]
        );
        assert_eq!(
            meta(json!({"name": "a".repeat(254)}), true)[0],
            format!("metadata.name: Invalid value: \"{}\": must be no more than 253 characters", "a".repeat(254))
        );
    }

    #[test]
    fn namespaces_follow_the_scope() {
        assert!(meta(json!({"name": "a", "namespace": "default"}), true).is_empty());
        // The request clears a cluster-scoped object's namespace (kube-apiserver 1.36.3 accepts it).
        assert!(meta(json!({"name": "a", "namespace": "Not A Namespace"}), false).is_empty());
        assert!(meta(json!({"name": "a"}), true).is_empty(), "the request's namespace");
        assert_eq!(
            meta(json!({"name": "a", "namespace": "Bad"}), true),
            vec![format!("metadata.namespace: Invalid value: \"Bad\": {LABEL_FORMAT}")]
        );
    }

    proptest::proptest! {
        /// The annotation check skips the lowercased copy of a key that is a qualified name
        /// as written: lowercased, it is one too.
        #[test]
        fn a_qualified_name_is_one_lowercased(k in "[a-zA-Z0-9._/é-]{0,12}") {
            proptest::prop_assert_eq!(is_qualified_name(&k), qualified_name(&k).is_empty());
            if is_qualified_name(&k) {
                proptest::prop_assert!(qualified_name(&k.to_lowercase()).is_empty());
            }
        }
    }

    #[test]
    fn labels_and_annotations_are_qualified_names() {
        assert!(meta(json!({"name": "a", "labels": {"app.kubernetes.io/name": "web", "tier": ""}}), true).is_empty());
        assert_eq!(
            meta(json!({"name": "a", "labels": {"a/b/c": "ok", "k": "has space"}}), true),
            vec![
                format!(
                    "metadata.labels: Invalid value: \"a/b/c\": a valid label key {QUALIFIED_NAME_FORMAT} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
                ),
                format!("metadata.labels: Invalid value: \"has space\": {LABEL_VALUE_FORMAT}"),
            ]
        );
        assert!(
            meta(json!({"name": "a", "annotations": {"Example.COM/Key": "any value at all"}}), true).is_empty(),
            "checked lowercased"
        );
        let big = "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT);
        assert_eq!(
            meta(json!({"name": "a", "annotations": {"k": big}}), true),
            vec!["metadata.annotations: Too long: may not be more than 262144 bytes"]
        );
    }

    #[test]
    fn embedded_resources_need_kind_and_api_version() {
        let at = Path::root().key("spec").key("template");
        let issues = |v: Value| validate_embedded(&v, &at).iter().map(ToString::to_string).collect::<Vec<_>>();
        assert!(
            issues(
                json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x%y".replace('%', "")}})
            )
            .is_empty()
        );
        assert_eq!(
            issues(json!({})),
            vec!["spec.template.kind: Required value", "spec.template.apiVersion: Required value"]
        );
        assert_eq!(
            issues(json!({"apiVersion": "a/b/c", "kind": "9Pod", "metadata": {"name": "a/b"}})),
            vec![
                format!(
                    "spec.template.kind: Invalid value: \"9Pod\": may have mixed case, but should otherwise match: {DNS1035_FORMAT}"
                ),
                "spec.template.apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c".to_owned(),
                "spec.template.metadata.name: Invalid value: \"a/b\": may not contain '/'".to_owned(),
            ]
        );
        assert!(
            issues(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "x"}})).is_empty(),
            "no name needed"
        );
    }

    #[test]
    fn type_meta_must_match_the_crd() {
        let issues: Vec<String> =
            validate_type_meta(&json!({"apiVersion": "example.com/v2", "kind": "Widget"}), "Widget", "example.com/v1")
                .iter()
                .map(ToString::to_string)
                .collect();
        assert_eq!(issues, vec!["apiVersion: Invalid value: \"example.com/v2\": must be example.com/v1"]);
    }
}
