//! Server-side apply, offline: what kube-apiserver's field manager does to a custom resource
//! when a manager applies a configuration to it (`PATCH` with `application/apply-patch+yaml`),
//! driven by the CRD version's schema, with the same managed fields, conflicts and messages.
//!
//! In phases, as the apiserver runs them (`k8s.io/apimachinery/pkg/util/managedfields` over
//! structured-merge-diff): `types` reads the schema as merge types; `typed` walks a value
//! with its type (its field set, merge, compare, removal); `updater` is structured-merge-
//! diff's `Updater` (merge, prune, conflicts); `managed` reads and writes
//! `metadata.managedFields`; this module chains them as the field manager's layers do. The
//! field sets are [`set::FieldSet`]s of [`path::PathElement`]s, written as FieldsV1.
//!
//! Not modelled: the `kubectl.kubernetes.io/last-applied-configuration` interplay
//! (`lastappliedmanager`), the cap of ten update managers (applies never add one), webhook
//! conversion (managers of another version are read as the `None` strategy reads them, as if
//! in this version: recorded), and the reconciling of sets written under an older schema.

mod managed;
pub mod path;
pub mod set;
mod typed;
mod types;
mod updater;

use std::fmt;

use serde_json::{Map, Value, json};

pub use managed::{BEFORE_FIRST_APPLY, Conflict, Conflicts};

use crate::crd::{Crd, CrdVersion};
use crate::schema::Schema;
use set::FieldSet;
use types::Ty;
use updater::{ApplyFailure, Updater};

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

/// Who applies, and how.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    /// The field manager (`fieldManager=`).
    pub manager: &'a str,
    /// `force=true`: take the conflicting fields from their managers.
    pub force: bool,
    /// The time stamped on the entries the apply writes (RFC 3339), so output is reproducible.
    pub now: &'a str,
    /// The endpoint.
    pub subresource: Subresource,
}

/// Why an apply was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum ApplyError {
    /// Other managers own fields the apply would change (the apiserver's 409).
    Conflicts(Conflicts),
    /// The request is not an apply the apiserver would take (400 or 500), in its words.
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
    root: Schema,
}

impl<'a> Resource<'a> {
    /// The CRD's `version` (`None` if the CRD does not have it).
    pub fn new(crd: &'a Crd, version: &str) -> Option<Self> {
        let version = crd.version(version)?;
        let mut root = version.schema.clone().unwrap_or_default();
        // The apiserver's OpenAPI for the kind: TypeMeta's strings and ObjectMeta's own type,
        // whatever the CRD writes under `metadata`.
        root.type_ = Some("object".into());
        for name in ["apiVersion", "kind", "metadata"] {
            let field = types::resource_field(name).expect("invariant: a resource field");
            root.properties.insert(name.into(), field.clone());
        }
        Some(Resource { crd, version, root })
    }

    /// The resource of a Rust type, derived or generated (its own CRD, `T::crd()`), read once
    /// per type and kept for the process: `Resource::of::<Widget>().apply(live, &json, &options)`.
    pub fn of<T: crate::resource::CustomResource + 'static>() -> &'static Resource<'static> {
        use std::any::TypeId;
        use std::collections::HashMap;
        use std::sync::{Mutex, OnceLock};
        static RESOURCES: OnceLock<Mutex<HashMap<TypeId, &'static Resource<'static>>>> = OnceLock::new();
        let mut resources = RESOURCES.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        resources.entry(TypeId::of::<T>()).or_insert_with(|| {
            // A derived CRD is one the apiserver takes (`assert_crd_accepted`); what the
            // envelope's reading could report of it is nothing this needs.
            let crd: &'static Crd = Box::leak(Box::new(Crd::parse(T::crd().to_json()).0));
            let resource = Resource::new(crd, T::RESOURCE.version)
                .expect("invariant: a derived CRD serves the version of its type");
            Box::leak(Box::new(resource))
        })
    }

    fn api_version(&self) -> String {
        crate::crd::api_version(&self.crd.group, &self.version.name)
    }

    /// `example.com/v1, Kind=Widget`, as Go prints a GroupVersionKind.
    fn gvk(&self) -> String {
        format!("{}, Kind={}", self.api_version(), self.crd.names.kind)
    }

    fn ty(&self) -> Ty<'_> {
        Ty::Schema(&self.root)
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
        let mut object = self.field_manager_apply(live, applied, options)?;
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
        let gv = self.api_version();
        let empty = json!({"apiVersion": gv, "kind": self.crd.names.kind});
        let live = live.unwrap_or(&empty);
        // versioncheck
        let applied_gvk = format!(
            "{}, Kind={}",
            applied.get("apiVersion").and_then(Value::as_str).unwrap_or_default(),
            applied.get("kind").and_then(Value::as_str).unwrap_or_default()
        );
        if applied_gvk != self.gvk() {
            return Err(ApplyError::Invalid(format!("invalid object type: {applied_gvk}")));
        }
        if applied.pointer("/metadata/managedFields").is_some_and(|m| !m.is_null()) {
            return Err(ApplyError::Invalid("metadata.managedFields must be nil".into()));
        }
        let (mut managers, mut times) =
            managed::decode(live).map_err(|e| ApplyError::Invalid(format!("failed to decode managed fields: {e}")))?;
        let updater =
            Updater { root: self.ty(), api_version: gv.clone(), ignored: self.reset_fields(options.subresource) };
        let subresource = options.subresource.name();
        // The entries this apply stamps with `now`: newer than any written before it.
        let mut stamped = Vec::new();
        // skipnonapplied: an object never applied to gets its fields attributed first.
        if managers.is_empty() {
            let id = managed::identifier(BEFORE_FIRST_APPLY, "Update", &gv, subresource);
            stamped.push(id.clone());
            updater.record_update(&empty, live, &mut managers, &id);
            if let Some(owned) = managers.get_mut(&id) {
                owned.set = managed::strip(&owned.set);
                if owned.set.is_empty() {
                    managers.remove(&id);
                } else {
                    times.insert(id, json!(options.now));
                }
            }
        }
        self.check_typed(applied, "typed patch object")?;
        self.check_typed(live, "typed live object")?;
        let id = managed::identifier(options.manager, "Apply", "", subresource);
        let merged =
            updater.apply(live, applied, &mut managers, &id, options.force).map_err(|failure| match failure {
                ApplyFailure::Conflicts(sets) => ApplyError::Conflicts(managed::conflicts(&sets)),
                ApplyFailure::Merge(e) => ApplyError::Invalid(format!("failed to merge config: {e}")),
            })?;
        if let Some(owned) = managers.get_mut(&id) {
            owned.set = managed::strip(&owned.set);
            if owned.set.is_empty() {
                managers.remove(&id);
            }
        }
        let mut object = match merged {
            Some(mut merged) => {
                times.insert(id.clone(), json!(options.now));
                stamped.push(id);
                // The CRD's own schema defaults (not the OpenAPI's ObjectMeta, whose `uid: ""`
                // default only keys owner references).
                if let Some(schema) = &self.version.schema {
                    crate::default::apply_defaults(&mut merged, schema);
                }
                merged
            }
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

    /// The type converter's refusals of a value (`ObjectToTyped`), in its words.
    fn check_typed(&self, value: &Value, what: &str) -> Result<(), ApplyError> {
        let errors = typed::validate(self.ty(), value, what == "typed live object");
        if errors.is_empty() {
            return Ok(());
        }
        let name =
            |k: &str| value.pointer(&format!("/metadata/{k}")).and_then(Value::as_str).unwrap_or_default().to_owned();
        let (namespace, name) = (name("namespace"), name("name"));
        // objectGVKNN: `namespace/name; group/version, Kind=Kind` (`/name` without a namespace).
        let who = format!("{namespace}/{name}");
        let text = if let [one] = errors.as_slice() {
            one.clone()
        } else {
            let mut lines = vec!["errors:".to_owned()];
            lines.extend(errors.iter().map(|e| format!("  {e}")));
            lines.join("\n")
        };
        Err(ApplyError::Invalid(format!("failed to create {what} ({who}; {}): {text}", self.gvk())))
    }

    /// The configuration `manager` owns in `live` through `subresource` (`ExtractInto`): the
    /// fields of its apply entry, with `apiVersion` and `kind`; `None` if it has none.
    pub fn extract(&self, live: &Value, manager: &str, subresource: Subresource) -> Result<Option<Value>, ApplyError> {
        self.check_typed(live, "typed live object")?;
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
        let mut out = match typed::remove_items(self.ty(), live, &set.leaves(), true) {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => return Err(ApplyError::Invalid(format!("expected map, got {other}"))),
        };
        if !out.contains_key("kind") {
            out.insert("kind".into(), json!(self.crd.names.kind));
            out.insert("apiVersion".into(), json!(self.api_version()));
        }
        Ok(Some(Value::Object(out)))
    }
}
