//! Server-side apply, offline: what kube-apiserver's field manager does to a custom resource
//! when a manager applies a configuration to it (`PATCH` with `application/apply-patch+yaml`),
//! driven by the CRD version's schema, with the same managed fields, conflicts and messages.
//!
//! In phases, as the apiserver runs them (`k8s.io/apimachinery/pkg/util/managedfields` over
//! structured-merge-diff): `types` reads the schema as merge types; `typed` walks a value
//! with its type (its field set, merge, compare, removal, a field set reconciled with a
//! schema); `versions` converts between the CRD's versions, as each manager's entry is read
//! in the version it records; `updater` is structured-merge-diff's `Updater` (merge, prune,
//! conflicts); `managed` reads and writes `metadata.managedFields`; this module chains them as
//! the field manager's layers do, inside the PATCH handler's own checks. The field sets are
//! [`set::FieldSet`]s of [`path::PathElement`]s, written as FieldsV1.
//!
//! Not modelled: the `kubectl.kubernetes.io/last-applied-configuration` interplay
//! (`lastappliedmanager`), the cap of ten update managers (applies never add one), conversion
//! webhooks (a CRD converting by webhook is converted as strategy None converts, and a
//! refusal then says so), and admission, validation and the storage round trip after the
//! field manager (see [`Resource::apply`]). A live object without `metadata.uid` is taken as
//! stored (the apiserver would create anew).

mod managed;
pub mod path;
pub mod set;
mod typed;
mod types;
mod updater;
pub(crate) mod validate_apply;
mod versions;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value, json};

pub use managed::{BEFORE_FIRST_APPLY, Conflict, Conflicts};

use crate::dynamic::crd::{Crd, CrdVersion};
use crate::schema::Schema;
use set::FieldSet;
use types::Ty;
use updater::{ApplyFailure, Updater};
use versions::Versions;

/// Which endpoint the apply is sent to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Subresource {
    /// The resource itself: with a status subresource, `status` is neither owned nor changed.
    #[default]
    Main,
    /// `/status`: only `status` is owned and changed.
    Status,
}

impl Subresource {
    fn name(self) -> &'static str {
        match self {
            Subresource::Main => "",
            Subresource::Status => "status",
        }
    }
}

/// Who applies, and how: `Options::new("my-controller")`, or a literal with
/// `..Default::default()`.
#[derive(Clone, Debug, Default)]
pub struct Options<'a> {
    /// The field manager (`fieldManager=`): required, as the apiserver requires it.
    pub manager: &'a str,
    /// `force=true`: take the conflicting fields from their managers.
    pub force: bool,
    /// The time stamped on the entries the apply writes (RFC 3339), for reproducible output;
    /// empty (the default): the current time.
    pub now: &'a str,
    /// The endpoint.
    pub subresource: Subresource,
}

impl<'a> Options<'a> {
    /// An apply by `manager`, not forced, to the resource itself, stamped with the current time.
    pub fn new(manager: &'a str) -> Self {
        Options { manager, ..Options::default() }
    }

    /// Forced (`force=true`).
    #[must_use]
    pub fn force(self) -> Self {
        Options { force: true, ..self }
    }

    /// The PATCH handler's refusals of the request's options (`ValidatePatchOptions`), in its
    /// words, and a `now` Go's `time.Parse(time.RFC3339, ...)` refuses: the second to stamp.
    pub fn check(&self) -> Result<i64, ApplyError> {
        use crate::report::issue::{BadValue, ErrorType, Issue, invalid_message};
        let at = crate::report::path::Path::root().property("fieldManager");
        let mut issues = Vec::new();
        if self.manager.is_empty() {
            issues.push(Issue::new(ErrorType::Required, &at, "", BadValue::Omit, "is required for apply patch"));
        }
        if self.manager.len() > 128 {
            issues.push(Issue::new(ErrorType::TooLong, &at, "", BadValue::Omit, "may not be more than 128 bytes"));
        }
        for (i, c) in self.manager.char_indices().filter(|(_, c)| !crate::report::issue::go_is_print(*c)) {
            let detail = format!("invalid character U+{:04X} (at position {i})", u32::from(c));
            issues.push(Issue::new(ErrorType::Invalid, &at, "", BadValue::Str(self.manager.into()), detail));
        }
        if !issues.is_empty() {
            return Err(ApplyError::Invalid(invalid_message("PatchOptions.meta.k8s.io", "", &issues)));
        }
        if self.now.is_empty() {
            let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            return Ok(i64::try_from(since_epoch.as_secs()).unwrap_or(i64::MAX));
        }
        crate::go::time::parse_rfc3339(self.now).map_err(|e| ApplyError::Invalid(format!("now: {e}")))
    }
}

/// Why an apply was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum ApplyError {
    /// Other managers own fields the apply would change (the apiserver's 409).
    Conflicts(Conflicts),
    /// The request is not an apply the apiserver would take (400, 404 or 500), in its words.
    Invalid(String),
}

impl fmt::Display for ApplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApplyError::Conflicts(c) => f.write_str(&c.message),
            ApplyError::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for ApplyError {}

/// One CRD version, ready to apply to.
pub struct Resource<'a> {
    crd: &'a Crd,
    version: &'a CrdVersion,
    /// Every version's type, by apiVersion: other managers' entries are read at theirs.
    roots: BTreeMap<String, Schema>,
    /// This version's apiVersion.
    api_version: String,
    /// This version's schema defaults, filled into every applied object.
    defaults: crate::dynamic::default::Defaults<'a>,
}

impl<'a> Resource<'a> {
    /// The CRD's `version` (`None` if the CRD does not have it).
    pub fn new(crd: &'a Crd, version: &str) -> Option<Self> {
        let version = crd.version(version)?;
        let roots = crd
            .versions
            .iter()
            .map(|v| {
                let mut root = v.schema.clone().unwrap_or_default();
                // The apiserver's OpenAPI for the kind: TypeMeta's strings and ObjectMeta's own
                // type, whatever the CRD writes under `metadata`.
                root.type_ = Some("object".into());
                for name in ["apiVersion", "kind", "metadata"] {
                    let field = types::resource_field(name).expect("invariant: a resource field");
                    root.properties.insert(name.into(), field.clone());
                }
                (crate::dynamic::crd::api_version(&crd.group, &v.name), root)
            })
            .collect();
        let api_version = crate::dynamic::crd::api_version(&crd.group, &version.name);
        let defaults = version.schema.as_ref().map(crate::dynamic::default::Defaults::of).unwrap_or_default();
        Some(Resource { crd, version, roots, api_version, defaults })
    }

    /// The resource of a Rust type, derived or generated (its own CRD, `T::definition()`), read once
    /// per type and kept for the process: `Resource::of::<Widget>().apply(live, &json, &options)`.
    pub fn of<T: crate::schema::of_types::crd::CustomResource + 'static>() -> &'static Resource<'static> {
        use std::any::TypeId;
        use std::collections::HashMap;
        use std::sync::{Mutex, OnceLock};
        static RESOURCES: OnceLock<Mutex<HashMap<TypeId, &'static Resource<'static>>>> = OnceLock::new();
        let mut resources = RESOURCES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        resources.entry(TypeId::of::<T>()).or_insert_with(|| {
            // A derived CRD is one the apiserver takes (`assert_crd_accepted`); what the
            // envelope's reading could report of it is nothing this needs.
            let crd: &'static Crd = Box::leak(Box::new(Crd::parse(T::definition().to_json()).0));
            let resource = Resource::new(crd, T::RESOURCE.version)
                .expect("invariant: a derived CRD serves the version of its type");
            Box::leak(Box::new(resource))
        })
    }

    /// `example.com/v1, Kind=Widget`, as Go prints a GroupVersionKind.
    fn gvk(&self) -> String {
        format!("{}, Kind={}", self.api_version, self.crd.names.kind)
    }

    fn ty(&self) -> Ty<'_> {
        Ty::Schema(&self.roots[&self.api_version])
    }

    /// The CRD's versions, converted between as the request at this version converts them.
    fn versions(&self) -> Versions<'_> {
        let strategy = self.crd.envelope().pointer("/spec/conversion/strategy").and_then(Value::as_str);
        Versions {
            group: &self.crd.group,
            kind: &self.crd.names.kind,
            roots: &self.roots,
            hub: &self.api_version,
            webhook: strategy == Some("Webhook"),
        }
    }

    /// The fields the endpoint resets, which no manager owns through it.
    fn reset_fields(&self, subresource: Subresource) -> FieldSet {
        let mut set = FieldSet::new();
        let f = |name: &str| path::PathElement::Field(name.into());
        match subresource {
            Subresource::Main if self.version.status_subresource => set.insert(&[f("status")]),
            Subresource::Main => {}
            Subresource::Status => {
                set.insert(&[f("metadata")]);
                set.insert(&[f("spec")]);
            }
        }
        set
    }

    /// Applies `applied` as `options.manager` to `live` (`None`: create by apply): the object
    /// the apiserver would store, with its `metadata.managedFields`, or its refusal.
    ///
    /// The steps after the field manager that shape what is stored are taken too: the schema's
    /// defaults, and the status (or, on `/status`, everything but it) kept from `live`. Not
    /// taken: admission, validation (run [`crate::validate`] on the result), `generation`,
    /// `uid`, `resourceVersion`, timestamps other than the managed fields'.
    pub fn apply(&self, live: Option<&Value>, applied: &Value, options: &Options<'_>) -> Result<Value, ApplyError> {
        let refused = |message: String| Err(ApplyError::Invalid(message));
        // The handler's order: the route, the options, the object the URL names.
        if options.subresource == Subresource::Status && !self.version.status_subresource {
            return refused("the server could not find the requested resource".into());
        }
        let now = options.check()?;
        let name = |object: &Value, key: &str| -> String {
            object.pointer(&format!("/metadata/{key}")).and_then(Value::as_str).unwrap_or_default().to_owned()
        };
        let resource = format!("{}.{}", self.crd.names.plural, self.crd.group);
        if let Some(live) = live {
            let kind = live.get("kind").and_then(Value::as_str).unwrap_or_default();
            if kind != self.crd.names.kind {
                // Not the apiserver's words: it finds the live object by the URL, of its kind.
                return refused(format!(
                    "the live object is a {} ({}), not a {}: give the stored object of the applied one",
                    crate::report::issue::go_quote(kind),
                    crate::report::issue::go_quote(&name(live, "name")),
                    self.crd.names.kind
                ));
            }
        } else if options.subresource == Subresource::Status {
            // A subresource never creates (StatusREST.Update).
            return refused(format!("{resource} {} not found", crate::report::issue::go_quote(&name(applied, "name"))));
        }
        let mut object = self.field_manager_apply_at(live, applied, options, now)?;
        // applyPatch's checks of what the apply made, against the URL: the live object's
        // namespace and name (on create, the applied object's), no namespace for a
        // cluster-scoped kind.
        let url = live.unwrap_or(applied);
        let url_namespace = if self.crd.scope == "Cluster" { String::new() } else { name(url, "namespace") };
        let namespace = name(&object, "namespace");
        if namespace != url_namespace {
            if !namespace.is_empty() && !url_namespace.is_empty() {
                return refused(
                    "the namespace of the provided object does not match the namespace sent on the request".into(),
                );
            }
            if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                if url_namespace.is_empty() {
                    meta.remove("namespace");
                } else {
                    meta.insert("namespace".into(), json!(url_namespace));
                }
            }
        }
        let (object_name, url_name) = (name(&object, "name"), name(url, "name"));
        if object_name != url_name {
            return refused(format!(
                "the name of the object ({object_name}) does not match the name on the URL ({url_name})"
            ));
        }
        if let Some(live) = live {
            self.keep_reset_fields(&mut object, live, options.subresource);
        } else if let Some(map) = object.as_object_mut() {
            // A create through the main resource stores no status (PrepareForCreate).
            if self.version.status_subresource && options.subresource == Subresource::Main {
                map.remove("status");
            }
        }
        Ok(object)
    }

    /// [`Resource::apply`] up to the field manager's output, as the PATCH handler gets it
    /// back: the merged object with its managed fields, before the registry strategy keeps
    /// the stored status (what kube-apiserver 1.36.3's field manager was recorded giving).
    pub fn field_manager_apply(
        &self,
        live: Option<&Value>,
        applied: &Value,
        options: &Options<'_>,
    ) -> Result<Value, ApplyError> {
        let now = options.check()?;
        self.field_manager_apply_at(live, applied, options, now)
    }

    /// The field manager's layers, stamping the Unix second `now`.
    fn field_manager_apply_at(
        &self,
        live: Option<&Value>,
        applied: &Value,
        options: &Options<'_>,
        now: i64,
    ) -> Result<Value, ApplyError> {
        let now = json!(crate::go::time::rfc3339_utc(now));
        let gv = self.api_version.as_str();
        let empty = json!({"apiVersion": gv, "kind": self.crd.names.kind});
        let live = live.unwrap_or(&empty);
        // The layers of the field manager, outermost first. FieldManager: the live object's
        // managed fields.
        let (mut managers, mut times) =
            managed::decode(live).map_err(|e| ApplyError::Invalid(format!("failed to decode managed fields: {e}")))?;
        // versioncheck
        let applied_gvk = gvk_of(applied);
        if applied_gvk != self.gvk() {
            return Err(ApplyError::Invalid(format!("invalid object type: {applied_gvk}")));
        }
        let updater = Updater { versions: self.versions(), ignored: self.reset_fields(options.subresource) };
        let subresource = options.subresource.name();
        // The entries this apply stamps with `now`: newer than any written before it.
        let mut stamped = Vec::new();
        // skipnonapplied: an object never applied to gets its fields attributed first, by an
        // update from nothing to the live object.
        if managers.is_empty() {
            let refused = |e: String| ApplyError::Invalid(format!("failed to create manager for existing fields: {e}"));
            let versioned = self.to_versioned(live).map_err(|e| {
                refused(format!("failed to convert new object ({}) to proper version ({gv}): {e}", object_gvknn(live)))
            })?;
            if let Some(e) = typed::validate::errors_text(&typed::validate::validate(self.ty(), &versioned, true)) {
                return Err(refused(format!(
                    "failed to convert new object ({}) to smd typed: {e}",
                    object_gvknn(&versioned)
                )));
            }
            let id = managed::identifier(BEFORE_FIRST_APPLY, "Update", gv, subresource);
            updater.record_update(&empty, &versioned, &mut managers, &id).map_err(|failure| {
                let e = match failure {
                    ApplyFailure::Refused(e) => e,
                    ApplyFailure::Conflicts(_) => unreachable!("an update takes what it changes"),
                };
                refused(format!("failed to update ManagedFields ({}): {e}", object_gvknn(&versioned)))
            })?;
            if let Some(owned) = managers.get_mut(&id) {
                owned.set = managed::strip(&owned.set);
                if owned.set.is_empty() {
                    managers.remove(&id);
                } else {
                    stamped.push(id.clone());
                    times.insert(id, now.clone());
                }
            }
        }
        // structuredmerge
        if applied.pointer("/metadata/managedFields").is_some_and(|m| !m.is_null()) {
            return Err(ApplyError::Invalid("metadata.managedFields must be nil".into()));
        }
        let versioned = self.to_versioned(live).map_err(|e| {
            ApplyError::Invalid(format!(
                "failed to convert live object ({}) to proper version: {e}",
                object_gvknn(live)
            ))
        })?;
        self.check_typed(applied, "typed patch object", false)?;
        self.check_typed(&versioned, "typed live object", true)?;
        // buildManagerInfo: the request's manager, `unknown` if it names none.
        let manager = if options.manager.is_empty() { "unknown" } else { options.manager };
        let id = managed::identifier(manager, "Apply", "", subresource);
        // The live object's managed fields are one atomic list to the updater, which no apply
        // can change (a configuration with them is refused above): it is given the object
        // without them, and walks it without them (for a list of 10,000 items they are larger
        // than the spec). Its answer is the same; they are written anew below.
        let versioned = without_managed_fields(&versioned);
        let merged =
            updater.apply(&versioned, applied, &mut managers, &id, options.force).map_err(|failure| match failure {
                ApplyFailure::Conflicts(sets) => ApplyError::Conflicts(managed::conflicts(&sets)),
                ApplyFailure::Refused(e) => ApplyError::Invalid(e),
            })?;
        if let Some(owned) = managers.get_mut(&id) {
            owned.set = managed::strip(&owned.set);
            if owned.set.is_empty() {
                managers.remove(&id);
            }
        }
        let mut object = match merged {
            Some(mut merged) => {
                times.insert(id.clone(), now.clone());
                stamped.push(id);
                // The CRD's own schema defaults (not the OpenAPI's ObjectMeta, whose `uid: ""`
                // default only keys owner references).
                self.defaults.apply(&mut merged);
                merged
            }
            // Unchanged: the live object as it came (managedfieldsupdater copies it).
            None => live.clone(),
        };
        times.retain(|id, _| managers.contains_key(id));
        let entries = managed::encode(&managers, &times, &stamped);
        if let Some(meta) =
            object.as_object_mut().and_then(|o| o.entry("metadata").or_insert_with(|| json!({})).as_object_mut())
        {
            if entries.is_empty() {
                meta.remove("managedFields");
            } else {
                meta.insert("managedFields".into(), Value::Array(entries));
            }
        }
        Ok(object)
    }

    /// `toVersioned`: the live object at this version, as the custom-resource converter
    /// (strategy None) brings a stored object of another version of the CRD: the apiVersion
    /// changes, the kind and fields stay.
    fn to_versioned<'v>(&self, object: &'v Value) -> Result<Cow<'v, Value>, String> {
        let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
        if api_version == self.api_version {
            return Ok(Cow::Borrowed(object));
        }
        let (group, version) = versions::parse_group_version(api_version).unwrap_or_default();
        if group != self.crd.group {
            let kind = object.get("kind").and_then(Value::as_str).unwrap_or_default();
            return Err(format!(
                "{group}/{version}, Kind={kind} is unstructured and is not suitable for converting to {}",
                crate::report::issue::go_quote(&self.api_version)
            ));
        }
        if !self.roots.contains_key(api_version) {
            return Err(format!("request to convert CR from an invalid group/version: {group}/{version}"));
        }
        let mut object = object.clone();
        object["apiVersion"] = json!(self.api_version);
        Ok(Cow::Owned(object))
    }

    /// The registry strategy's part: the main resource keeps the stored status, `/status`
    /// keeps everything but it.
    fn keep_reset_fields(&self, object: &mut Value, live: &Value, subresource: Subresource) {
        let (Some(object_map), Some(live_map)) = (object.as_object_mut(), live.as_object()) else { return };
        match subresource {
            Subresource::Main if self.version.status_subresource => match live_map.get("status") {
                Some(status) => {
                    object_map.insert("status".into(), status.clone());
                }
                None => {
                    object_map.remove("status");
                }
            },
            Subresource::Main => {}
            Subresource::Status => {
                let status = object_map.remove("status");
                let managed_fields = object_map.get("metadata").and_then(|m| m.get("managedFields")).cloned();
                *object_map = live_map.clone();
                // The stored object as read at the request's version.
                object_map.insert("apiVersion".into(), json!(self.api_version));
                if let Some(status) = status {
                    object_map.insert("status".into(), status);
                } else {
                    object_map.remove("status");
                }
                let meta = object_map.entry("metadata").or_insert_with(|| json!({}));
                if let (Some(meta), Some(fields)) = (meta.as_object_mut(), managed_fields) {
                    meta.insert("managedFields".into(), fields);
                }
            }
        }
    }

    /// The type converter's refusals of a value (`ObjectToTyped`), in its words: `what` is
    /// the object's name in the field manager's message.
    fn check_typed(&self, value: &Value, what: &str, allow_duplicates: bool) -> Result<(), ApplyError> {
        match typed::validate::errors_text(&typed::validate::validate(self.ty(), value, allow_duplicates)) {
            None => Ok(()),
            Some(text) => {
                Err(ApplyError::Invalid(format!("failed to create {what} ({}): {text}", object_gvknn(value))))
            }
        }
    }

    /// The configuration `manager` owns in `live` through `subresource` (`ExtractInto`): the
    /// fields of its apply entry, with `apiVersion` and `kind`; `None` if it has none.
    pub fn extract(&self, live: &Value, manager: &str, subresource: Subresource) -> Result<Option<Value>, ApplyError> {
        self.check_typed(live, "typed live object", true)?;
        let entries =
            live.pointer("/metadata/managedFields").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let Some(entry) = entries.iter().find(|e| {
            let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default();
            s("manager") == manager && s("operation") == "Apply" && s("subresource") == subresource.name()
        }) else {
            return Ok(None);
        };
        let set = FieldSet::from_fields_v1(entry.get("fieldsV1").unwrap_or(&Value::Null))
            .map_err(|e| ApplyError::Invalid(format!("error marshalling FieldsV1 to JSON: {e}")))?;
        let mut out = match typed::remove::extract_items(self.ty(), live, &set.leaves()) {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => return Err(ApplyError::Invalid(format!("expected map, got {other}"))),
        };
        if !out.contains_key("kind") {
            out.insert("kind".into(), json!(self.crd.names.kind));
            out.insert("apiVersion".into(), json!(self.api_version));
        }
        Ok(Some(Value::Object(out)))
    }
}

/// `object` without `metadata.managedFields`.
fn without_managed_fields(object: &Value) -> Value {
    let Some(map) = object.as_object() else { return object.clone() };
    map.iter()
        .map(|(key, value)| match (key.as_str(), value.as_object()) {
            ("metadata", Some(meta)) => (
                key.clone(),
                Value::Object(
                    meta.iter().filter(|(k, _)| *k != "managedFields").map(|(k, v)| (k.clone(), v.clone())).collect(),
                ),
            ),
            _ => (key.clone(), value.clone()),
        })
        .collect()
}

/// An object's kind as Go prints its GroupVersionKind (`example.com/v1, Kind=Widget`): an
/// apiVersion Go cannot parse reads as no group and version.
fn gvk_of(object: &Value) -> String {
    let s = |k: &str| object.get(k).and_then(Value::as_str).unwrap_or_default();
    let (group, version) = versions::parse_group_version(s("apiVersion")).unwrap_or_default();
    format!("{group}/{version}, Kind={}", s("kind"))
}

/// `objectGVKNN`: `namespace/name; group/version, Kind=Kind`, as the field manager names an
/// object in its errors.
fn object_gvknn(object: &Value) -> String {
    let meta = |k: &str| object.pointer(&format!("/metadata/{k}")).and_then(Value::as_str).unwrap_or_default();
    format!("{}/{}; {}", meta("namespace"), meta("name"), gvk_of(object))
}
