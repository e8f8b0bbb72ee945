//! The CustomResourceDefinition of derived resource types: what `#[kubeskema(resource(...))]`
//! says (names, scope, version flags, subresources, printer columns, selectable fields) with
//! the type's schema, as `apiextensions.k8s.io/v1` writes it.

use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use super::{Docs, SchemaGenerator, SchemaNote, StructuralSchema};
use crate::schema::resource::{PrinterColumn, Scale};

/// What a `resource(...)` attribute says: one version of one CRD.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceInfo {
    /// `spec.group` (empty for the core group, which a CRD cannot use).
    pub group: &'static str,
    /// The version's `name`.
    pub version: &'static str,
    /// `spec.names.kind`.
    pub kind: &'static str,
    /// `spec.names.plural`.
    pub plural: &'static str,
    /// `spec.names.singular`; the apiserver makes it the lowercased kind when absent.
    pub singular: Option<&'static str>,
    /// `spec.names.listKind`; the apiserver makes it `<kind>List` when absent.
    pub list_kind: Option<&'static str>,
    /// `spec.names.shortNames`.
    pub short_names: &'static [&'static str],
    /// `spec.names.categories` (`kubectl get all` lists the `all` category).
    pub categories: &'static [&'static str],
    /// `spec.scope`: `Namespaced` (true) or `Cluster`.
    pub namespaced: bool,
    /// The version is served.
    pub served: bool,
    /// The version is the one objects are stored in.
    pub storage: bool,
    /// The version is deprecated.
    pub deprecated: bool,
    /// The warning clients get when they use a deprecated version.
    pub deprecation_warning: Option<&'static str>,
    /// The status subresource is on.
    pub status_subresource: bool,
    /// The scale subresource.
    pub scale: Option<Scale>,
    /// `additionalPrinterColumns`.
    pub printer_columns: &'static [PrinterColumn],
    /// `selectableFields[].jsonPath`.
    pub selectable_fields: &'static [&'static str],
    /// The `api-approved.kubernetes.io` annotation a group under `k8s.io` or `kubernetes.io`
    /// needs: the URL of the approving review, or a reason starting with `unapproved`.
    pub api_approved: Option<&'static str>,
}

/// A resource type with its CRD: derived from `#[kubeskema(resource(...))]` by
/// `#[derive(kubeskema::Validate)]`.
pub trait CustomResource: StructuralSchema {
    /// What its `resource(...)` attribute says.
    const RESOURCE: ResourceInfo;

    /// Its CRD (this one version), with descriptions; computed once. Not `crd()`: a
    /// `kube = true` resource also has kube's `CustomResourceExt::crd()`, and a call naming
    /// both would be ambiguous.
    fn definition() -> &'static CustomResourceDefinition;
}

/// Where the apiserver calls a CRD's conversion webhook (`spec.conversion.webhook.clientConfig`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WebhookClient {
    /// A Service in the cluster; `path` defaults to `/`, `port` to 443.
    Service {
        /// Its namespace.
        namespace: String,
        /// Its name.
        name: String,
        /// The URL path the webhook serves (`/convert`).
        path: Option<String>,
        /// The Service's port.
        port: Option<u16>,
    },
    /// A URL outside the cluster (`https://`).
    Url(String),
}

/// A CustomResourceDefinition as JSON (`apiextensions.k8s.io/v1`), built from derived types;
/// with the notes of what its schemas' generation decided.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomResourceDefinition {
    json: Value,
    notes: Vec<SchemaNote>,
}

impl serde::Serialize for CustomResourceDefinition {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.json.serialize(serializer)
    }
}

impl CustomResourceDefinition {
    /// The CRD of `T`'s version alone, with the descriptions `docs` keeps.
    pub fn of<T: CustomResource>(docs: Docs) -> CustomResourceDefinition {
        let mut generator = SchemaGenerator::new(docs);
        let schema = generator.schema_of::<T>();
        let r = T::RESOURCE;
        let mut names = Map::new();
        names.insert("kind".into(), r.kind.into());
        names.insert("plural".into(), r.plural.into());
        if let Some(s) = r.singular {
            names.insert("singular".into(), s.into());
        }
        if let Some(l) = r.list_kind {
            names.insert("listKind".into(), l.into());
        }
        // Never empty lists: kubectl and Argo CD diff them against what the apiserver stores.
        if !r.short_names.is_empty() {
            names.insert("shortNames".into(), json!(r.short_names));
        }
        if !r.categories.is_empty() {
            names.insert("categories".into(), json!(r.categories));
        }
        let mut metadata = json!({"name": format!("{}.{}", r.plural, r.group)});
        if let Some(approved) = r.api_approved {
            metadata["annotations"] = json!({"api-approved.kubernetes.io": approved});
        }
        let json = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": metadata,
            "spec": {
                "group": r.group,
                "names": names,
                "scope": if r.namespaced { "Namespaced" } else { "Cluster" },
                "versions": [version(&r, schema)],
            },
        });
        CustomResourceDefinition { json, notes: generator.notes().to_vec() }
    }

    /// For a derived type's `definition()`: `T`'s CRD with descriptions, built on the first call.
    #[doc(hidden)]
    pub fn once<T: CustomResource>(
        cell: &'static OnceLock<CustomResourceDefinition>,
    ) -> &'static CustomResourceDefinition {
        cell.get_or_init(|| CustomResourceDefinition::of::<T>(Docs::All))
    }

    /// The versions of one kind, each from its own type, as one CRD (in the order given).
    /// Every problem is listed: CRDs of different resources, names or scopes that differ, a
    /// version given twice, not exactly one storage version.
    pub fn merge(parts: &[&CustomResourceDefinition]) -> Result<CustomResourceDefinition, Vec<String>> {
        let Some(first) = parts.first() else {
            return Err(vec!["no versions to merge".into()]);
        };
        let mut errors = Vec::new();
        let mut json = first.json.clone();
        let mut notes = first.notes.clone();
        let name = |c: &CustomResourceDefinition| c.name().to_owned();
        for other in &parts[1..] {
            for (pointer, what) in [
                ("/metadata/name", "name"),
                ("/metadata/annotations", "annotations"),
                ("/spec/names", "names"),
                ("/spec/scope", "scope"),
            ] {
                if other.json.pointer(pointer) != first.json.pointer(pointer) {
                    errors.push(format!(
                        "{} of version {} differs from version {}'s: {} / {}",
                        what,
                        other.version_names().join(", "),
                        first.version_names().join(", "),
                        other.json.pointer(pointer).unwrap_or(&Value::Null),
                        first.json.pointer(pointer).unwrap_or(&Value::Null)
                    ));
                }
            }
            if let (Some(Value::Array(all)), Some(Value::Array(more))) =
                (json.pointer_mut("/spec/versions"), other.json.pointer("/spec/versions"))
            {
                all.extend(more.iter().cloned());
            }
            notes.extend(other.notes.iter().cloned());
        }
        let merged = CustomResourceDefinition { json, notes };
        let versions = merged.version_names();
        for (i, v) in versions.iter().enumerate() {
            if versions[..i].contains(v) {
                errors.push(format!("{}: version {v} is given twice", name(&merged)));
            }
        }
        let storage = merged.versions().filter(|v| v.get("storage") == Some(&Value::Bool(true))).count();
        if storage != 1 {
            errors.push(format!(
                "{}: exactly one version must be the storage version (`storage = true`), {storage} are",
                name(&merged)
            ));
        }
        if errors.is_empty() { Ok(merged) } else { Err(errors) }
    }

    /// The CRD converting between its versions through a webhook (`strategy: Webhook`,
    /// `ConversionReview` v1, which `kubeskema::conversion::review` answers). `ca_bundle` is the
    /// CA that signed the webhook's certificate as the CRD holds it (base64 of the PEM); `None`
    /// leaves it to be filled in the cluster (cert-manager's `cert-manager.io/inject-ca-from`
    /// annotation does), or to the system's roots for a `Url`. Check the result as the
    /// apiserver would with `kubeskema::assert_crd_accepted`.
    pub fn with_webhook_conversion(mut self, client: WebhookClient, ca_bundle: Option<&str>) -> Self {
        let mut config = match client {
            WebhookClient::Service { namespace, name, path, port } => {
                let mut service = json!({"namespace": namespace, "name": name});
                if let Some(path) = path {
                    service["path"] = json!(path);
                }
                if let Some(port) = port {
                    service["port"] = json!(port);
                }
                json!({"service": service})
            }
            WebhookClient::Url(url) => json!({"url": url}),
        };
        if let Some(ca) = ca_bundle {
            config["caBundle"] = json!(ca);
        }
        self.json["spec"]["conversion"] = json!({
            "strategy": "Webhook",
            "webhook": {"clientConfig": config, "conversionReviewVersions": ["v1"]},
        });
        self
    }

    /// `metadata.name`: `<plural>.<group>`.
    pub fn name(&self) -> &str {
        self.json.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default()
    }

    fn versions(&self) -> impl Iterator<Item = &Value> {
        self.json.pointer("/spec/versions").and_then(Value::as_array).into_iter().flatten()
    }

    fn version_names(&self) -> Vec<&str> {
        self.versions().filter_map(|v| v.get("name").and_then(Value::as_str)).collect()
    }

    /// The CRD as JSON.
    pub fn to_json(&self) -> &Value {
        &self.json
    }

    /// The CRD as k8s-openapi's type (feature `kube`), for kube-rs (`CustomResourceExt::crd`).
    /// The JSON this type builds is a CRD k8s-openapi reads; were it not, the result would be
    /// an empty CRD, which the apiserver refuses by name, rather than a panic.
    #[cfg(feature = "kube")]
    pub fn to_k8s(
        &self,
    ) -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
        serde_json::from_value(self.json.clone()).unwrap_or_default()
    }

    /// The CRD as a YAML document, for `kubectl apply -f`.
    pub fn to_yaml(&self) -> String {
        super::yaml::to_yaml(&self.json)
    }

    /// What the schemas' generation decided that the types did not say (recursion cut,
    /// properties widened), by version.
    pub fn notes(&self) -> &[SchemaNote] {
        &self.notes
    }
}

/// One entry of `spec.versions`.
fn version(r: &ResourceInfo, schema: Map<String, Value>) -> Value {
    let mut v = Map::new();
    v.insert("name".into(), r.version.into());
    v.insert("served".into(), r.served.into());
    v.insert("storage".into(), r.storage.into());
    if r.deprecated {
        v.insert("deprecated".into(), true.into());
    }
    if let Some(w) = r.deprecation_warning {
        v.insert("deprecationWarning".into(), w.into());
    }
    v.insert("schema".into(), json!({"openAPIV3Schema": schema}));
    let mut subresources = Map::new();
    if r.status_subresource {
        subresources.insert("status".into(), json!({}));
    }
    if let Some(scale) = r.scale {
        let mut s = Map::new();
        s.insert("specReplicasPath".into(), scale.spec_replicas_path.into());
        s.insert("statusReplicasPath".into(), scale.status_replicas_path.into());
        if let Some(l) = scale.label_selector_path {
            s.insert("labelSelectorPath".into(), l.into());
        }
        subresources.insert("scale".into(), Value::Object(s));
    }
    if !subresources.is_empty() {
        v.insert("subresources".into(), Value::Object(subresources));
    }
    if !r.printer_columns.is_empty() {
        let columns = r.printer_columns.iter().map(|c| {
            let mut m = Map::new();
            m.insert("name".into(), c.name.into());
            m.insert("type".into(), c.type_.into());
            m.insert("jsonPath".into(), c.json_path.into());
            if let Some(d) = c.description {
                m.insert("description".into(), d.into());
            }
            if let Some(f) = c.format {
                m.insert("format".into(), f.into());
            }
            if c.priority != 0 {
                m.insert("priority".into(), c.priority.into());
            }
            Value::Object(m)
        });
        v.insert("additionalPrinterColumns".into(), Value::Array(columns.collect()));
    }
    if !r.selectable_fields.is_empty() {
        let fields = r.selectable_fields.iter().map(|p| json!({"jsonPath": p}));
        v.insert("selectableFields".into(), Value::Array(fields.collect()));
    }
    Value::Object(v)
}
