//! The `CustomResourceDefinition` envelope: group, names, scope and every version with its
//! schema, read from JSON (`apiextensions.k8s.io/v1`, and `v1beta1` with its top-level
//! `spec.validation`, `spec.subresources` and `spec.additionalPrinterColumns`).

use std::borrow::Cow;

use serde_json::Value;

#[cfg(feature = "yaml")]
use crate::report::path::below;
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
    /// The CRD as it was read ([`Crd::raw`], [`Crd::raw_at`], [`Crd::envelope`]).
    raw: Raw,
}

/// How [`Crd::read`] reads the schema at a JSON pointer, given its value in the CRD read.
type ParseSchema<'p> = dyn Fn(&Value, &str) -> (Schema, Vec<ParseError>) + 'p;

/// A CRD as it was read.
#[derive(Clone, Debug)]
enum Raw {
    /// The whole CRD as a value.
    Whole(Value),
    /// A `v1` CRD read from a document ([`Crd::parse_document`]): the value of all but its
    /// versions' schemas (`{}` at each of `elided`), which are read from the document's nodes
    /// when asked for. A schema as a value took more memory than the [`Schema`] made of it.
    #[cfg(feature = "yaml")]
    Document { envelope: Value, document: std::sync::Arc<crate::read::yaml::Document<()>>, elided: Vec<String> },
}

impl PartialEq for Raw {
    fn eq(&self, other: &Self) -> bool {
        self.whole() == other.whole()
    }
}

impl Raw {
    fn whole(&self) -> Cow<'_, Value> {
        match self {
            Raw::Whole(value) => Cow::Borrowed(value),
            #[cfg(feature = "yaml")]
            Raw::Document { document, .. } => Cow::Owned(document.value_at("").unwrap_or_default()),
        }
    }

    /// The pointers of the schemas read from the document's nodes.
    #[cfg(feature = "cel")]
    fn elided(&self) -> &[String] {
        match self {
            Raw::Whole(_) => &[],
            #[cfg(feature = "yaml")]
            Raw::Document { elided, .. } => elided,
        }
    }

    #[cfg(feature = "cel")]
    fn shallow_at(&self, pointer: &str) -> Option<Cow<'_, Value>> {
        match self {
            #[cfg(feature = "yaml")]
            Raw::Document { document, elided, .. } if elided.iter().any(|e| below(pointer, e).is_some()) => {
                document.value_at_shallow(pointer).map(Cow::Owned)
            }
            _ => self.at(pointer),
        }
    }

    fn envelope(&self) -> &Value {
        match self {
            Raw::Whole(value) => value,
            #[cfg(feature = "yaml")]
            Raw::Document { envelope, .. } => envelope,
        }
    }

    fn at(&self, pointer: &str) -> Option<Cow<'_, Value>> {
        match self {
            Raw::Whole(value) => value.pointer(pointer).map(Cow::Borrowed),
            #[cfg(feature = "yaml")]
            Raw::Document { envelope, document, elided } => {
                // Inside an elided schema, or above one: the document's.
                if elided.iter().any(|e| below(pointer, e).or(below(e, pointer)).is_some()) {
                    document.value_at(pointer).map(Cow::Owned)
                } else {
                    envelope.pointer(pointer).map(Cow::Borrowed)
                }
            }
        }
    }
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
    is_crd_type(doc.get("apiVersion").and_then(Value::as_str), doc.get("kind").and_then(Value::as_str))
}

/// Whether a document of this `apiVersion` and `kind` is a CustomResourceDefinition.
pub fn is_crd_type(api_version: Option<&str>, kind: Option<&str>) -> bool {
    kind == Some("CustomResourceDefinition") && api_version.is_some_and(|v| v.starts_with("apiextensions.k8s.io/"))
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
        let (mut crd, errors) = Crd::read(&doc, &|schema, pointer| Schema::parse(schema, pointer));
        crd.raw = Raw::Whole(doc);
        (crd, errors)
    }

    /// [`Crd::parse`] of a document as read: the schemas of a `v1` CRD's versions are read
    /// from its nodes and never made values (a schema as a value takes more memory than the
    /// [`Schema`] made of it); [`Crd::raw_at`] makes the part asked for. A CRD of another
    /// `apiVersion` is read as [`Crd::parse_owned`] reads its value.
    #[cfg(feature = "yaml")]
    pub fn parse_document(document: std::sync::Arc<crate::read::yaml::Document<()>>) -> (Crd, Vec<ParseError>) {
        if document.str_at("/apiVersion") != Some("apiextensions.k8s.io/v1") {
            return Crd::parse_owned(document.value_at("").unwrap_or_default());
        }
        let versions = document.node_at("/spec/versions").map_or(0, |v| crate::schema::Source::items(v).len());
        let elided: Vec<String> = (0..versions)
            .map(|i| format!("/spec/versions/{i}/schema/openAPIV3Schema"))
            .filter(|pointer| document.keys_at(pointer).is_some())
            .collect();
        let envelope =
            document.value_selected(&mut Elide { elided: &elided, path: String::new(), lengths: Vec::new() });
        let parse = |schema: &Value, pointer: &str| match document.node_at(pointer) {
            Some(node) if elided.iter().any(|e| e == pointer) => Schema::parse_from(node, pointer),
            _ => Schema::parse(schema, pointer),
        };
        let (mut crd, errors) = Crd::read(&envelope, &parse);
        crd.raw = Raw::Document { envelope, document, elided };
        (crd, errors)
    }

    /// The whole CRD as it was read (made again from its document where it was read from
    /// one: [`Crd::parse_document`]).
    pub fn raw(&self) -> Cow<'_, Value> {
        self.raw.whole()
    }

    /// The part of the CRD as read at a JSON pointer.
    pub fn raw_at(&self, pointer: &str) -> Option<Cow<'_, Value>> {
        self.raw.at(pointer)
    }

    /// [`Crd::raw_at`] with only the part's own entries or items, what they hold emptied
    /// where it is read from a document (whole where the CRD is a value): its keys and
    /// scalars without a large schema made a value.
    #[cfg(feature = "cel")]
    pub(crate) fn raw_shallow_at(&self, pointer: &str) -> Option<Cow<'_, Value>> {
        self.raw.shallow_at(pointer)
    }

    /// The CRD as read but, where it was read from a document ([`Crd::parse_document`]), for
    /// its versions' schemas, each `{}` here: what its envelope (`metadata`, `spec`'s other
    /// fields, `status`) is read from.
    pub fn envelope(&self) -> &Value {
        self.raw.envelope()
    }

    /// Whether the version at `index` has its schema only in the document it was read from
    /// ([`Crd::envelope`] holds `{}` there).
    #[cfg(feature = "cel")]
    pub(crate) fn schema_elided(&self, index: usize) -> bool {
        let elided = self.raw.elided();
        !elided.is_empty() && elided.contains(&format!("/spec/versions/{index}/schema/openAPIV3Schema"))
    }

    /// Drops what the CRD was read from, once only its model is wanted: [`Crd::raw`] is then
    /// `null` (a large CRD as read costs as much memory as its model).
    pub fn forget_raw(&mut self) {
        self.raw = Raw::Whole(Value::Null);
    }

    fn read(doc: &Value, parse_schema: &ParseSchema<'_>) -> (Crd, Vec<ParseError>) {
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
                let (schema, schema_errors) = parse_schema(s, &schema_pointer);
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
        let crd = Crd {
            api_version,
            name,
            group,
            names,
            scope,
            preserve_unknown_fields,
            versions,
            raw: Raw::Whole(Value::Null),
        };
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

/// What a `v1` CRD's envelope keeps of its document ([`Crd::parse_document`]): everything
/// but the insides of the schemas at `elided`.
#[cfg(feature = "yaml")]
struct Elide<'e> {
    elided: &'e [String],
    /// The JSON pointer of where the conversion is.
    path: String,
    /// The length of `path` before each step down.
    lengths: Vec<usize>,
}

#[cfg(feature = "yaml")]
impl<'t> crate::read::yaml::Select<'t> for Elide<'_> {
    fn key(&mut self, key: &'t str, _: bool) -> bool {
        if self.elided.contains(&self.path) {
            return false;
        }
        self.lengths.push(self.path.len());
        self.path.push('/');
        self.path.push_str(&crate::report::path::escape_token(key));
        true
    }

    fn item(&mut self, index: usize) {
        self.lengths.push(self.path.len());
        self.path.push('/');
        self.path.push_str(&index.to_string());
    }

    fn up(&mut self) {
        if let Some(length) = self.lengths.pop() {
            self.path.truncate(length);
        }
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

    /// A CRD whose schemas are read from its document's nodes is the CRD read from its value:
    /// its model, its parse errors, what the check says (and shows whole: a refused root, the
    /// versions), and each part of it as read, through anchors, `<<` merges and keys written
    /// twice inside the schemas, and a version's whole schema an alias of another's.
    #[cfg(feature = "yaml")]
    #[test]
    fn a_crd_read_from_its_document_is_the_crd_read_from_its_value() {
        let text = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema: &root
        type: object
        x-kubernetes-list-type: atomic
        properties:
          spec:
            type: object
            properties:
              name: &name {type: string, maxLength: 8}
              alias: *name
              merged: {<<: *name, maxLength: 3, pattern: "^a"}
              twice: {type: string, type: integer}
              bad: {type: string, maxLength: "x"}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port]
                items: []
  - name: v2
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, properties: {a: *name}}
  - name: v3
    served: false
    storage: false
  - name: v4
    served: false
    storage: false
    schema: {openAPIV3Schema: *root}
"#;
        for json in [false, true] {
            let mut documents = Vec::new();
            let text = if json {
                crate::read::yaml::parse_documents(text).unwrap().remove(0).value.to_string()
            } else {
                text.to_owned()
            };
            crate::read::yaml::read_each(&text, json, &mut |doc| documents.push(doc)).unwrap();
            let document = std::sync::Arc::new(documents.remove(0));
            let value = document.value_at("").unwrap();
            let (from_value, value_errors) = Crd::parse(&value);
            let (from_document, document_errors) = Crd::parse_document(document);
            assert!(matches!(from_document.raw, Raw::Document { .. }));
            assert_eq!(document_errors, value_errors);
            assert_eq!(value_errors.len(), 2, "one a version holding the schema: {value_errors:?}");
            assert_eq!(from_document, from_value);
            assert_eq!(from_document.envelope().pointer("/spec/versions/1/schema/openAPIV3Schema"), Some(&json!({})));
            for pointer in [
                "",
                "/spec",
                "/spec/versions/0/schema",
                "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/merged",
                "/spec/versions/1/schema/openAPIV3Schema/properties/a",
                "/spec/versions/2",
                "/spec/versions/3/schema/openAPIV3Schema/properties/spec/properties/alias",
                "/spec/versions/0/schema/openAPIV3Schema/nope",
            ] {
                assert_eq!(from_document.raw_at(pointer).as_deref(), value.pointer(pointer), "{pointer}");
            }
            let texts = |crd: &Crd| -> Vec<String> { check::check(crd).findings.iter().map(|f| f.text()).collect() };
            let found = texts(&from_value);
            assert_eq!(texts(&from_document), found);
            // Shown whole: the root refused with the status subresource, every version.
            assert!(found.iter().any(|f| f.contains("fields are allowed at the root of the schema")), "{found:#?}");
            assert!(found.iter().any(|f| f.contains("\"OpenAPIV3Schema\":{")), "{found:#?}");
            assert!(
                found.iter().any(|f| f.contains("must only have a single schema if x-kubernetes-list-type is map")),
                "{found:#?}"
            );
        }
    }

    #[cfg(feature = "yaml")]
    proptest::proptest! {
        /// Any mix of anchors, aliases, `<<` merges, keys written twice and misfit keywords in a
        /// schema reads from the document's nodes as from its value.
        #[test]
        fn schemas_read_from_nodes_are_schemas_read_from_values(
            properties in proptest::collection::vec((0..4usize, 0..7usize, 0..8usize), 1..12),
        ) {
            let mut text = String::from(
                "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: ws.example.com}\nspec:\n  group: example.com\n  names: {kind: W, plural: ws}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n",
            );
            // The properties that anchor their schema (`&s<n>`), for aliases and merges to name.
            let mut anchored: Vec<usize> = Vec::new();
            for (n, &(name, shape, pick)) in properties.iter().enumerate() {
                let name = ["a", "b", "c", "<<"][name];
                let earlier = (!anchored.is_empty()).then(|| anchored[pick % anchored.len()]);
                let schema = match (shape, earlier) {
                    (0, _) | (1 | 2, None) => {
                        anchored.push(n);
                        format!("&s{n} {{type: string, maxLength: {n}}}")
                    }
                    (1, Some(e)) => format!("*s{e}"),
                    (2, Some(e)) => format!("{{<<: *s{e}, maxLength: 1, type: string}}"),
                    (3, _) => "{type: array, items: [], x-kubernetes-list-type: map}".to_owned(),
                    (4, _) => "{type: object, properties: {x: {type: integer, minimum: no}}, x-x: [1]}".to_owned(),
                    (5, _) => "null".to_owned(),
                    _ => "{type: string, type: object, properties: {}}".to_owned(),
                };
                text.push_str(&format!("          {name}: {schema}\n"));
            }
            let mut documents = Vec::new();
            crate::read::yaml::read_each(&text, false, &mut |doc| documents.push(doc)).unwrap();
            let document = std::sync::Arc::new(documents.remove(0));
            let value = document.value_at("").unwrap();
            let (from_value, value_errors) = Crd::parse(&value);
            let (from_document, document_errors) = Crd::parse_document(document);
            proptest::prop_assert_eq!(document_errors, value_errors);
            proptest::prop_assert!(from_document == from_value, "{}", text);
            let texts = |crd: &Crd| -> Vec<String> {
                check::check(crd).findings.iter().map(|f| format!("{} {}", f.text(), f.pointer)).collect()
            };
            proptest::prop_assert_eq!(texts(&from_document), texts(&from_value));
        }
    }
}
