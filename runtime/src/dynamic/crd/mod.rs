//! The `CustomResourceDefinition` envelope: group, names, scope and every version with its
//! schema, read from JSON (`apiextensions.k8s.io/v1`, and `v1beta1` with its top-level
//! `spec.validation`, `spec.subresources` and `spec.additionalPrinterColumns`).

use serde_json::Value;

use crate::schema::{ParseError, Schema};

#[cfg(feature = "cel")]
pub mod check;
#[cfg(feature = "cel")]
pub mod compat;

/// One CustomResourceDefinition.
#[derive(Clone, Debug, PartialEq)]
pub struct Crd {
    /// `apiVersion` of the CRD object itself.
    pub api_version: String,
    /// `metadata.name` (`<plural>.<group>`).
    pub name: String,
    /// `spec.group`.
    pub group: String,
    /// `spec.names`.
    pub names: Names,
    /// `spec.scope`: `Namespaced` or `Cluster`.
    pub scope: String,
    /// `spec.preserveUnknownFields`.
    pub preserve_unknown_fields: bool,
    /// Every version, in the order the CRD lists them.
    pub versions: Vec<CrdVersion>,
    /// The whole CRD as it was read.
    pub raw: Value,
}

/// `spec.names`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    /// `kind`.
    pub kind: String,
    /// `plural`.
    pub plural: String,
    /// `singular`.
    pub singular: Option<String>,
    /// `listKind`.
    pub list_kind: Option<String>,
    /// `shortNames`.
    pub short_names: Vec<String>,
    /// `categories`.
    pub categories: Vec<String>,
}

/// One entry of `spec.versions`.
#[derive(Clone, Debug, PartialEq)]
pub struct CrdVersion {
    /// `name` (`v1`, `v1beta2`, ...).
    pub name: String,
    /// `served`.
    pub served: bool,
    /// `storage`.
    pub storage: bool,
    /// `deprecated`.
    pub deprecated: bool,
    /// The `openAPIV3Schema`, if any.
    pub schema: Option<Schema>,
    /// Whether the status subresource is enabled.
    pub status_subresource: bool,
    /// The scale subresource, if enabled.
    pub scale: Option<Value>,
    /// `additionalPrinterColumns`.
    pub printer_columns: Vec<Value>,
    /// `selectableFields[].jsonPath`.
    pub selectable_fields: Vec<String>,
}

/// The `apiVersion` objects of `version` in `group` carry: the version alone in the core
/// group (`v1`), which native kinds' schemas can be in.
pub fn api_version(group: &str, version: &str) -> String {
    if group.is_empty() { version.to_owned() } else { format!("{group}/{version}") }
}

/// Whether a JSON document is a CustomResourceDefinition.
pub fn is_crd(doc: &Value) -> bool {
    doc.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
        && doc.get("apiVersion").and_then(Value::as_str).is_some_and(|v| v.starts_with("apiextensions.k8s.io/"))
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

fn strings_at(v: &Value, pointer: &str) -> Vec<String> {
    v.pointer(pointer)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

impl Crd {
    /// Reads a CRD document; `errors` lists every field that is missing or of the wrong shape.
    pub fn parse(doc: &Value) -> (Crd, Vec<ParseError>) {
        Crd::parse_owned(doc.clone())
    }

    /// [`Crd::parse`] of a document the caller gives up: it becomes [`Crd::raw`] without a
    /// copy (a copy of a large CRD costs as much memory as the CRD).
    pub fn parse_owned(doc: Value) -> (Crd, Vec<ParseError>) {
        let (mut crd, errors) = Crd::read(&doc);
        crd.raw = doc;
        (crd, errors)
    }

    fn read(doc: &Value) -> (Crd, Vec<ParseError>) {
        let mut errors = Vec::new();
        let mut required = |pointer: &str, what: &str| -> String {
            match str_at(doc, pointer) {
                Some(s) if !s.is_empty() => s.to_owned(),
                _ => {
                    errors.push(ParseError { pointer: pointer.to_owned(), message: format!("{what} is required") });
                    String::new()
                }
            }
        };
        let api_version = required("/apiVersion", "apiVersion");
        // Names, group and versions are the envelope check's to judge, in the apiserver's
        // words (`check::envelope`); read as they are.
        let text = |pointer: &str| str_at(doc, pointer).unwrap_or_default().to_owned();
        let name = text("/metadata/name");
        let group = text("/spec/group");
        let kind = text("/spec/names/kind");
        let plural = text("/spec/names/plural");
        let names = Names {
            kind,
            plural,
            singular: str_at(doc, "/spec/names/singular").map(str::to_owned),
            list_kind: str_at(doc, "/spec/names/listKind").map(str::to_owned),
            short_names: strings_at(doc, "/spec/names/shortNames"),
            categories: strings_at(doc, "/spec/names/categories"),
        };
        let scope = str_at(doc, "/spec/scope").unwrap_or("Namespaced").to_owned();
        let preserve_unknown_fields =
            doc.pointer("/spec/preserveUnknownFields").and_then(Value::as_bool).unwrap_or(false);

        // v1beta1 allowed one schema (and subresources, columns) for all versions at the top.
        let top_schema = doc.pointer("/spec/validation/openAPIV3Schema");
        let top_status = doc.pointer("/spec/subresources/status").is_some();
        let top_scale = doc.pointer("/spec/subresources/scale").cloned();
        let top_columns = doc.pointer("/spec/additionalPrinterColumns").and_then(Value::as_array);

        let mut versions = Vec::new();
        let listed = doc.pointer("/spec/versions").and_then(Value::as_array);
        // Borrowed: a version's value holds its whole schema.
        let only_version;
        let entries: Vec<(String, &Value)> = match listed {
            Some(list) if !list.is_empty() => {
                list.iter().enumerate().map(|(i, v)| (format!("/spec/versions/{i}"), v)).collect()
            }
            _ => match str_at(doc, "/spec/version") {
                Some(v) => {
                    only_version = serde_json::json!({"name": v, "served": true, "storage": true});
                    vec![(String::new(), &only_version)]
                }
                None => Vec::new(),
            },
        };
        for (base, v) in entries {
            let name = str_at(v, "/name").unwrap_or_default().to_owned();
            let (schema, schema_pointer) = match v.pointer("/schema/openAPIV3Schema") {
                Some(s) => (Some(s), format!("{base}/schema/openAPIV3Schema")),
                None => (top_schema, "/spec/validation/openAPIV3Schema".to_owned()),
            };
            let schema = schema.map(|s| {
                let (schema, schema_errors) = Schema::parse(s, &schema_pointer);
                errors.extend(schema_errors);
                schema
            });
            versions.push(CrdVersion {
                name,
                served: v.pointer("/served").and_then(Value::as_bool).unwrap_or(false),
                storage: v.pointer("/storage").and_then(Value::as_bool).unwrap_or(false),
                deprecated: v.pointer("/deprecated").and_then(Value::as_bool).unwrap_or(false),
                schema,
                status_subresource: v.pointer("/subresources/status").is_some() || top_status,
                scale: v.pointer("/subresources/scale").cloned().or_else(|| top_scale.clone()),
                printer_columns: v
                    .pointer("/additionalPrinterColumns")
                    .and_then(Value::as_array)
                    .or(top_columns)
                    .cloned()
                    .unwrap_or_default(),
                selectable_fields: v
                    .pointer("/selectableFields")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(|f| str_at(f, "/jsonPath")).map(str::to_owned).collect())
                    .unwrap_or_default(),
            });
        }
        let crd = Crd { api_version, name, group, names, scope, preserve_unknown_fields, versions, raw: Value::Null };
        (crd, errors)
    }

    /// Whether objects of this CRD live in a namespace.
    pub fn is_namespaced(&self) -> bool {
        self.scope != "Cluster"
    }

    /// The version with this name.
    pub fn version(&self, name: &str) -> Option<&CrdVersion> {
        self.versions.iter().find(|v| v.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_v1_and_v1beta1_shapes() {
        let v1 = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Cluster",
                     "names": {"kind": "Widget", "plural": "widgets", "shortNames": ["wd"]},
                     "versions": [{"name": "v1", "served": true, "storage": true,
                                   "schema": {"openAPIV3Schema": {"type": "object"}},
                                   "subresources": {"status": {}}}]}
        });
        assert!(is_crd(&v1));
        let (crd, errors) = Crd::parse(&v1);
        assert_eq!(errors, vec![]);
        assert!(!crd.is_namespaced());
        assert_eq!(crd.names.short_names, vec!["wd"]);
        let v = &crd.versions[0];
        assert!(v.status_subresource);
        assert_eq!(v.schema.as_ref().unwrap().pointer, "/spec/versions/0/schema/openAPIV3Schema");

        let v1beta1 = json!({
            "apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "version": "v1alpha1",
                     "names": {"kind": "Widget", "plural": "widgets"},
                     "validation": {"openAPIV3Schema": {"type": "object"}}}
        });
        let (crd, errors) = Crd::parse(&v1beta1);
        assert_eq!(errors, vec![]);
        assert_eq!(crd.versions[0].name, "v1alpha1");
        assert_eq!(crd.versions[0].schema.as_ref().unwrap().pointer, "/spec/validation/openAPIV3Schema");
    }

    /// What the envelope lacks is read as absent, and judged by the CRD check in the
    /// apiserver's words (`check::envelope`; these are kube-apiserver 1.36.3's answer).
    #[test]
    fn a_missing_envelope_is_judged_by_the_check() {
        let doc = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "spec": {}});
        let (crd, errors) = Crd::parse(&doc);
        assert_eq!(errors, vec![]);
        let texts: Vec<String> = super::check::check(&crd).findings.iter().map(|f| f.text()).collect();
        assert_eq!(
            texts,
            [
                "metadata.name: Required value: name or generateName is required",
                "spec.group: Required value",
                "spec.scope: Required value",
                "spec.versions: Invalid value: null: must have exactly one version marked as storage version",
                "spec.names.plural: Required value",
                "spec.names.singular: Required value",
                "spec.names.kind: Required value",
                "spec.names.listKind: Required value",
                "status.storedVersions: Invalid value: null: must have at least one stored version",
            ]
        );
    }
}
