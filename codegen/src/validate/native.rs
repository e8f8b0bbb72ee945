//! Native kinds (Deployments, Services, ConfigMaps...) from OpenAPI v3 documents as a cluster
//! serves them (`kubectl get --raw /openapi/v3/apis/apps/v1`) and Kubernetes publishes them
//! (`api/openapi-spec/v3`): each schema that names a group/version/kind
//! (`x-kubernetes-group-version-kind`) becomes a CRD-shaped [`Crd`] the validator runs like
//! any other, its `$ref`s inlined. Kubernetes 1.36's come with the binary ([`BUILTIN`], made by
//! [`compact`]), so that a folder of Deployments needs no flag.
//!
//! Where Go's typed decoding differs from a custom resource's, the schema is made to say so:
//! `null` list items are zero values, `[]byte` may be base64 in lines, `metadata.name` follows
//! the kind's own rule (`name_rule`).
//!
//! Best effort by nature: the apiserver validates native kinds with hand-written Go code
//! (a Deployment's selector must match its template's labels, ...) that no OpenAPI document
//! carries. What the documents do carry is checked: types, required fields, enums, formats,
//! list types, unknown fields.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use kubeskema::crd::Crd;
use kubeskema::objectmeta::NameRule;
use serde_json::{Map, Value, json};

use crate::diagnostic::{Code, Diagnostic};

/// A native kind's schema, from an OpenAPI document.
#[derive(Debug)]
pub struct NativeKind {
    /// The document it came from.
    pub file: PathBuf,
    /// The schema as a one-version CRD.
    pub crd: Crd,
    /// What its `metadata.name` must be.
    pub names: NameRule,
    /// Why the schema was cut short (left open below some depth or size), when it was: each
    /// document validated against it carries this as a finding.
    pub cut: Option<String>,
}

impl NativeKind {
    /// The `apiVersion` and `kind` of its objects.
    pub fn api_version_kind(&self) -> (String, String) {
        (kubeskema::crd::api_version(&self.crd.group, &self.crd.versions[0].name), self.crd.names.kind.clone())
    }
}

/// The keys of an OpenAPI schema that mean something to validation; the rest (descriptions,
/// patch strategies, `x-kubernetes-group-version-kind`...) is left out.
const KEPT_KEYS: &[&str] = &[
    "type",
    "format",
    "properties",
    "additionalProperties",
    "items",
    "required",
    "enum",
    "default",
    "nullable",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-validations",
];

/// The native kinds of the OpenAPI documents in `paths` (files or folders; JSON or YAML) that
/// are `needed` (`apiVersion`, `kind`): only those are inlined and kept (a document holds
/// dozens of kinds, and a run validates a few). A document that is not OpenAPI v3 with
/// `components.schemas` is reported to `diags`.
pub fn load(
    paths: &[PathBuf],
    jobs: usize,
    limits: &crate::load::InputLimits,
    needed: &HashSet<(String, String)>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<NativeKind> {
    let files = crate::load::expand_paths(paths, diags);
    crate::load::read_each(&files, jobs, limits, diags, |file, text, diags| kinds_of_file(file, &text, needed, diags))
}

/// The Kubernetes release whose schemas this binary carries ([`builtin`]).
pub const BUILTIN_VERSION: &str = "1.36";

/// Kubernetes 1.36's native kinds, compacted ([`compact`]) from its published OpenAPI; see
/// `codegen/native/README.md` for where it came from and how it is regenerated.
pub const BUILTIN: &str = include_str!("../../native/kubernetes-1.36.json");

/// Where the schemas of Kubernetes' own kinds come from when no `--schemas` document has them
/// (`--kubernetes-version`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Kubernetes {
    /// Those of Kubernetes [`BUILTIN_VERSION`], which this binary carries.
    #[default]
    Builtin,
    /// Another release's published OpenAPI v3 (its `api/openapi-spec/v3` folder), or a
    /// cluster's.
    Spec(PathBuf),
    /// None: a native kind is validated only with `--schemas`.
    None,
}

/// The native kinds of [`BUILTIN`] that are `needed`. Only the schemas they reach are parsed
/// (each is one line of [`compact_text`]): a run with one Deployment parsed all 771 in 15 ms,
/// and a run of custom resources alone parses none.
pub fn builtin(needed: &HashSet<(String, String)>, diags: &mut Vec<Diagnostic>) -> Vec<NativeKind> {
    let (paths, schemas) = carried_lines();
    let parse = |line: &str| serde_json::from_str::<Value>(line).expect("a unit test parses every carried line");
    // The kinds asked for, by their `x-kubernetes-group-version-kind` as `compact_text` writes it.
    let mut wanted: Vec<&str> = Vec::new();
    for (api_version, kind) in needed {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        let gvk = serde_json::to_string(&json!({"group": group, "kind": kind, "version": version}))
            .expect("JSON values serialize");
        wanted.extend(schemas.iter().filter(|(_, line)| line.contains(&gvk)).map(|(name, _)| *name));
    }
    if wanted.is_empty() {
        return Vec::new();
    }
    let paths: Map<String, Value> = paths.iter().map(|(path, line)| ((*path).to_owned(), parse(line))).collect();
    let kinds = wanted.into_iter().map(str::to_owned).collect();
    let part = Part::new(paths, kinds, BUILTIN.len(), |name| schemas.get(name).map(|line| parse(line)));
    let file = PathBuf::from(format!("<Kubernetes {BUILTIN_VERSION}>"));
    let mut out = Vec::new();
    kinds_of_document(&file, None, &part, BUILTIN.len(), needed, diags, &mut out);
    out
}

/// The schemas `wanted` names and those they reach through `$ref`s, by name; `schema` gives
/// one by name, made only when it is reached.
fn reached(mut wanted: Vec<String>, schema: impl Fn(&str) -> Option<Value>) -> Map<String, Value> {
    let mut reached = Map::new();
    while let Some(name) = wanted.pop() {
        if reached.contains_key(&name) {
            continue;
        }
        let Some(schema) = schema(&name) else { continue };
        references(&schema, &mut |target| wanted.push(target.to_owned()));
        reached.insert(name, schema);
    }
    reached
}

/// What [`kinds_of_document`] reads of an OpenAPI document for the needed kinds: its paths
/// (each kind's plural and scope), the schemas the kinds' `$ref`s reach, and the kinds' own
/// schemas.
struct Part<'d> {
    /// The document's `paths` (each kind's plural and scope, [`scopes`]).
    paths: Map<String, Value>,
    /// The schemas a kind's `$ref`s reach, by name.
    referenced: Map<String, Value>,
    /// The names of the schemas that are needed kinds, sorted.
    kinds: Vec<String>,
    own: Own<'d>,
}

/// The needed kinds' own schemas: made at once where they take less than the document's
/// nodes would (which then go before the kinds are inlined), else each made from the nodes
/// when its kind is inlined and dropped after it. Made all at once, the kinds of a document of
/// many small kinds were most of its memory: a schema of one `$ref` is a map of eleven slots,
/// some 700 bytes for 40 of text, where the nodes take about two bytes a byte.
enum Own<'d> {
    Made(Map<String, Value>),
    ByName(Box<SchemaByName<'d>>),
}

/// A schema of a document by its name, made when asked for.
type SchemaByName<'d> = dyn Fn(&str) -> Option<Value> + 'd;

/// What the needed kinds' own schemas may take, made at once, per byte of the document's text:
/// about what its nodes take.
const MADE_KINDS_PER_BYTE: usize = 2;

impl<'d> Part<'d> {
    /// The part of a document of `document_len` bytes with `paths` for the schemas named
    /// `kinds`, `schema` giving one by name.
    fn new(
        paths: Map<String, Value>,
        mut kinds: Vec<String>,
        document_len: usize,
        schema: impl Fn(&str) -> Option<Value> + 'd,
    ) -> Part<'d> {
        kinds.sort();
        kinds.dedup();
        let (mut targets, mut made, mut left) =
            (Vec::new(), Some(Map::new()), document_len.saturating_mul(MADE_KINDS_PER_BYTE));
        for name in &kinds {
            let Some(kind) = schema(name) else { continue };
            references(&kind, &mut |target| targets.push(target.to_owned()));
            // Kept while the kinds made so far fit; past that none is (each is made for its turn).
            if let Some(kept) = &mut made {
                match left.checked_sub(footprint(&kind)) {
                    Some(rest) => {
                        left = rest;
                        kept.insert(name.clone(), kind);
                    }
                    None => made = None,
                }
            }
        }
        let referenced = reached(targets, &schema);
        let own = match made {
            Some(made) => Own::Made(made),
            None => Own::ByName(Box::new(schema)),
        };
        Part { paths, referenced, kinds, own }
    }

    /// The part with no borrow of the document where every kind's schema is made.
    fn detached(self) -> Result<Part<'static>, Part<'d>> {
        match self.own {
            Own::Made(made) => {
                Ok(Part { paths: self.paths, referenced: self.referenced, kinds: self.kinds, own: Own::Made(made) })
            }
            own => Err(Part { own, ..self }),
        }
    }

    /// A needed kind's own schema.
    fn own(&self, name: &str) -> Option<std::borrow::Cow<'_, Value>> {
        use std::borrow::Cow;
        match &self.own {
            Own::Made(made) => made.get(name).map(Cow::Borrowed),
            Own::ByName(schema) => schema(name).map(Cow::Owned),
        }
    }
}

/// [`BUILTIN`]'s paths and schemas, each name with the line of JSON that is its value.
fn carried_lines() -> (Vec<(&'static str, &'static str)>, HashMap<&'static str, &'static str>) {
    let (mut paths, mut schemas) = (Vec::new(), HashMap::new());
    // `"paths": {` and `"components": {"schemas": {` open the two sections, one entry a line.
    let (mut in_paths, mut in_schemas) = (false, false);
    for line in BUILTIN.lines() {
        if line.starts_with("\"paths\"") {
            in_paths = true;
            continue;
        }
        if line.starts_with("\"components\"") {
            (in_paths, in_schemas) = (false, true);
            continue;
        }
        // `"name": {...},`: names hold no quote (a unit test holds the file to this shape).
        let Some((name, value)) = line.strip_prefix('"').and_then(|l| l.split_once("\": ")) else { continue };
        let value = value.strip_suffix(',').unwrap_or(value);
        if in_schemas {
            schemas.insert(name, value);
        } else if in_paths {
            paths.push((name, value));
        }
    }
    (paths, schemas)
}

/// Each component a schema names with `$ref`.
fn references<'v>(schema: &'v Value, each: &mut dyn FnMut(&'v str)) {
    match schema {
        Value::Object(node) => {
            for (key, value) in node {
                match (key.as_str(), value) {
                    ("$ref", Value::String(target)) => {
                        each(target.strip_prefix("#/components/schemas/").unwrap_or(target))
                    }
                    // A property may be named `$ref` (apiextensions' JSONSchemaProps has one).
                    ("properties", Value::Object(properties)) => properties.values().for_each(|p| references(p, each)),
                    _ => references(value, each),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| references(item, each)),
        _ => {}
    }
}

fn kinds_of_file(
    file: &Path,
    text: &str,
    needed: &HashSet<(String, String)>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<NativeKind> {
    let mut out = Vec::new();
    // Said only if the whole text could be read, as before a document's kinds were read.
    let mut found = Vec::new();
    let read = crate::load::read_text_each(file, text, diags, &mut |doc| {
        if doc.is_null() {
            return;
        }
        let start = doc.start;
        let part = match needed_part(&doc, text.len(), needed).map(Part::detached) {
            None => return found.push(not_open_api(file, Some(start))),
            Some(Err(part)) => {
                return kinds_of_document(file, Some(start), &part, text.len(), needed, &mut found, &mut out);
            }
            Some(Ok(part)) => part,
        };
        // The nodes go before the kinds are inlined, where no kind needs them.
        drop(doc);
        kinds_of_document(file, Some(start), &part, text.len(), needed, &mut found, &mut out);
    });
    if !read {
        return Vec::new();
    }
    diags.append(&mut found);
    out
}

/// What of an OpenAPI document as read [`kinds_of_document`] reads for the `needed` kinds: the
/// schemas they reach and the kinds its paths name, the rest never converted (an OpenAPI
/// document is mostly other kinds, descriptions and operations); the kinds' own schemas made
/// at once or for their turns, as [`Part::new`] finds they fit. `None` when the document has no
/// `components.schemas`.
fn needed_part<'d>(
    doc: &'d kubeskema::yaml::Document<()>,
    document_len: usize,
    needed: &HashSet<(String, String)>,
) -> Option<Part<'d>> {
    use kubeskema::path::escape_token;
    let names = doc.keys_at("/components/schemas")?;
    let at = |name: &str| format!("/components/schemas/{}", escape_token(name));
    let gvks = |at: &str| doc.value_at(&format!("{at}/x-kubernetes-group-version-kind"));
    let kinds = names
        .into_iter()
        .filter(|name| !needed_kinds(gvks(&at(name)).as_ref(), needed).is_empty())
        .map(str::to_owned)
        .collect();
    let mut paths = Map::new();
    for path in doc.keys_at("/paths").unwrap_or_default() {
        let path_at = format!("/paths/{}", escape_token(path));
        let mut operations = Map::new();
        for operation in doc.keys_at(&path_at).unwrap_or_default() {
            if let Some(gvk) = gvks(&format!("{path_at}/{}", escape_token(operation))) {
                operations.insert(operation.to_owned(), json!({"x-kubernetes-group-version-kind": gvk}));
            }
        }
        paths.insert(path.to_owned(), Value::Object(operations));
    }
    Some(Part::new(paths, kinds, document_len, move |name| doc.value_at(&at(name))))
}

/// The group, version and kind of each of a schema's `x-kubernetes-group-version-kind` that is
/// `needed`.
fn needed_kinds(gvks: Option<&Value>, needed: &HashSet<(String, String)>) -> Vec<(String, String, String)> {
    let gvks = gvks.and_then(Value::as_array).into_iter().flatten();
    gvks.filter_map(|gvk| {
        let text = |key| gvk.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        let (group, version, kind) = (text("group"), text("version"), text("kind"));
        let api_version = kubeskema::crd::api_version(&group, &version);
        (!version.is_empty() && !kind.is_empty() && needed.contains(&(api_version, kind.clone())))
            .then_some((group, version, kind))
    })
    .collect()
}

/// Why a document gives no kinds: it has no `components.schemas`.
fn not_open_api(file: &Path, start: Option<kubeskema::yaml::Pos>) -> Diagnostic {
    Diagnostic::file_error(file, start, Code::NotOpenApi, "no `components.schemas`: not an OpenAPI v3 document")
        .with_help("give what `kubectl get --raw /openapi/v3/apis/apps/v1` (or `/openapi/v3/api/v1`) prints")
}

/// The `needed` kinds of one OpenAPI document (`document_len` bytes of text) into `out`.
fn kinds_of_document(
    file: &Path,
    start: Option<kubeskema::yaml::Pos>,
    part: &Part<'_>,
    document_len: usize,
    needed: &HashSet<(String, String)>,
    diags: &mut Vec<Diagnostic>,
    out: &mut Vec<NativeKind>,
) {
    let scopes = scopes(&part.paths);
    // One budget for every kind of the document: kinds that share large `$ref`s (an enum,
    // a default) would otherwise copy them once each.
    let mut budget = Budget::for_document(document_len);
    for name in &part.kinds {
        // A kind another names is among the referenced; any other is the part's own.
        let own;
        let (schema, shared) = match part.referenced.get(name) {
            Some(schema) => (schema, true),
            None => match part.own(name) {
                Some(schema) => {
                    own = schema;
                    (&*own, false)
                }
                None => continue,
            },
        };
        for (group, version, kind) in needed_kinds(schema.get("x-kubernetes-group-version-kind"), needed) {
            let mut inliner = Inliner::new(&part.referenced, name, &mut budget);
            let inlined = inliner.inline(schema, 0, shared);
            let cut = inliner.truncated.then(|| {
                format!(
                    "the schema of {} {kind} ({name}) nests deeper than {MAX_DEPTH} levels, inlines to \
                     more than {MAX_NODES} nodes, or takes the document past {} MiB of inlined schemas; \
                     below that it accepts any value",
                    kubeskema::crd::api_version(&group, &version),
                    budget.total >> 20
                )
            });
            if let Some(cut) = &cut {
                diags.push(Diagnostic::file_error(file, start, Code::SchemaTooLarge, cut.clone()).as_warning());
            }
            let (plural, namespaced) = scopes
                .get(&(group.clone(), version.clone(), kind.clone()))
                .cloned()
                .unwrap_or_else(|| (format!("{}s", kind.to_lowercase()), true));
            out.push(NativeKind {
                file: file.to_owned(),
                names: name_rule(&group, &kind),
                crd: crd(&group, &version, &kind, &plural, namespaced, inlined),
                cut,
            });
        }
    }
}

/// What a native kind's `metadata.name` must be: the name function its hand-written
/// validation hands `ValidateObjectMeta` (`pkg/apis/*/validation` in kubernetes/kubernetes).
/// No OpenAPI document says it; a custom resource's rule (a DNS subdomain) would refuse
/// `system:aggregate-to-admin`, a ClusterRole every cluster has.
fn name_rule(group: &str, kind: &str) -> NameRule {
    match (group, kind) {
        ("", "Namespace") => NameRule::Label,
        ("", "Service") => NameRule::Dns1035Label,
        ("rbac.authorization.k8s.io", "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding") => {
            NameRule::PathSegment
        }
        ("certificates.k8s.io", "CertificateSigningRequest") => NameRule::Any,
        ("certificates.k8s.io", "ClusterTrustBundle") => NameRule::PathSegment,
        _ => NameRule::Subdomain,
    }
}

/// The OpenAPI v3 `documents` (a spec folder's, one per group-version, or a cluster's) as one
/// document holding only what [`load`] reads: each schema's validation keys (`KEPT_KEYS`),
/// its references and the `oneOf`s that spell Kubernetes' own types, the group/version/kinds
/// it is, and one path per kind (its plural and scope). [`BUILTIN`] is this of Kubernetes'
/// published spec; descriptions were nine tenths of it.
pub fn compact(documents: &[Value]) -> Value {
    let mut schemas = Map::new();
    let mut paths = Map::new();
    for document in documents {
        for (name, schema) in document.pointer("/components/schemas").and_then(Value::as_object).into_iter().flatten() {
            schemas.insert(name.clone(), reduced(schema));
        }
        let read = document.get("paths").and_then(Value::as_object);
        for ((group, version, kind), (plural, namespaced)) in read.map(scopes).unwrap_or_default() {
            let prefix = if group.is_empty() { "/api/v1".to_owned() } else { format!("/apis/{group}/{version}") };
            let path = match namespaced {
                true => format!("{prefix}/namespaces/{{namespace}}/{plural}"),
                false => format!("{prefix}/{plural}"),
            };
            let gvk = json!({"group": group, "version": version, "kind": kind});
            paths.insert(path, json!({"get": {"x-kubernetes-group-version-kind": gvk}}));
        }
    }
    let info = documents.iter().find_map(|d| d.get("info")).cloned().unwrap_or_else(|| json!({}));
    json!({"openapi": "3.0.0", "info": info, "paths": paths, "components": {"schemas": schemas}})
}

/// One schema with only what validation and [`Inliner`] read.
fn reduced(schema: &Value) -> Value {
    let Some(node) = schema.as_object() else { return schema.clone() };
    let mut out = Map::new();
    for (key, value) in node {
        let value = match key.as_str() {
            "properties" => {
                Value::Object(value.as_object().into_iter().flatten().map(|(k, v)| (k.clone(), reduced(v))).collect())
            }
            "items" | "additionalProperties" => reduced(value),
            "allOf" | "oneOf" => Value::Array(value.as_array().into_iter().flatten().map(reduced).collect()),
            "$ref" | "x-kubernetes-group-version-kind" => value.clone(),
            k if KEPT_KEYS.contains(&k) => value.clone(),
            _ => continue,
        };
        out.insert(key.clone(), value);
    }
    Value::Object(out)
}

/// [`compact`]'s document as text: one line per path and per schema, so that a regenerated
/// file's diff says which types changed and `grep` finds a type by name.
pub fn compact_text(document: &Value) -> String {
    let line = |(key, value): (&String, &Value)| {
        format!("{}: {}", Value::String(key.clone()), serde_json::to_string(value).expect("JSON values serialize"))
    };
    let lines = |at: &str| {
        let entries = document.pointer(at).and_then(Value::as_object).into_iter().flatten();
        entries.map(line).collect::<Vec<_>>().join(",\n")
    };
    let field = |key: &str| serde_json::to_string(&document[key]).expect("JSON values serialize");
    format!(
        "{{\"openapi\": {},\n\"info\": {},\n\"paths\": {{\n{}\n}},\n\"components\": {{\"schemas\": {{\n{}\n}}}}}}\n",
        field("openapi"),
        field("info"),
        lines("/paths"),
        lines("/components/schemas"),
    )
}

/// Each kind's plural and whether it is namespaced, from a document's `paths` (an operation
/// names its kind; a namespaced kind's paths go through `/namespaces/{namespace}/`).
fn scopes(paths: &Map<String, Value>) -> HashMap<(String, String, String), (String, bool)> {
    let mut out: HashMap<(String, String, String), (String, bool)> = HashMap::new();
    for (path, operations) in paths {
        // `/apis/apps/v1/namespaces/{namespace}/deployments/{name}`: the plural is the last
        // segment that is not a parameter; watches and subresources (`.../{name}/status`, whose
        // operations name another kind) are left out.
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let Some(last) = segments.iter().rposition(|s| !s.starts_with('{')) else { continue };
        if segments.contains(&"watch") || (last > 0 && segments[last - 1] == "{name}") {
            continue;
        }
        let plural = segments[last];
        for operation in operations.as_object().into_iter().flat_map(Map::values) {
            let Some(gvk) = operation.get("x-kubernetes-group-version-kind") else { continue };
            let text = |key| gvk.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
            let key = (text("group"), text("version"), text("kind"));
            let namespaced = path.contains("/namespaces/{namespace}/");
            let entry = out.entry(key).or_insert_with(|| (plural.to_owned(), namespaced));
            entry.1 |= namespaced;
        }
    }
    out
}

/// Inlines one kind's schema: every `$ref` (also the `allOf: [{$ref}]` form the apiserver
/// writes beside a description or default) replaced by what it names, reduced to what
/// validation reads, and the OpenAPI spellings of Kubernetes types turned into the structural
/// schema's.
///
/// A document is input like any other: a type that contains itself (apiextensions'
/// `JSONSchemaProps`) is left open below its first level, and so is whatever lies deeper than
/// [`MAX_DEPTH`] or past [`MAX_NODES`] (references that fan out, each naming the next twice,
/// would otherwise double the schema at every level); `truncated` says that happened.
struct Inliner<'a, 'b> {
    components: &'a Map<String, Value>,
    resolving: Vec<&'a str>,
    nodes: usize,
    truncated: bool,
    budget: &'b mut Budget,
}

/// What inlining may still produce for one document, in bytes of JSON values (as
/// [`footprint`] counts them), whatever its `$ref` graph: memory bounded by the input.
struct Budget {
    total: usize,
    left: usize,
    /// Each kept value's footprint, by its address in the document (counted once).
    footprints: HashMap<*const Value, usize>,
}

impl Budget {
    /// 8 bytes per byte of the document, and at least 64 MiB (the largest native document,
    /// the core group's, inlines to a few MiB).
    fn for_document(len: usize) -> Budget {
        let total = len.saturating_mul(8).max(64 << 20);
        Budget { total, left: total, footprints: HashMap::new() }
    }

    /// Takes `bytes`; false (and nothing taken) when they are not left.
    fn take(&mut self, bytes: usize) -> bool {
        match self.left.checked_sub(bytes) {
            Some(left) => {
                self.left = left;
                true
            }
            None => false,
        }
    }

    fn footprint_of(&mut self, value: &Value) -> usize {
        *self.footprints.entry(value as *const Value).or_insert_with(|| footprint(value))
    }
}

/// About what a JSON value takes in memory: its node, its strings' bytes, its entries'.
fn footprint(value: &Value) -> usize {
    const NODE: usize = std::mem::size_of::<Value>();
    NODE + match value {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(footprint).sum(),
        Value::Object(map) => map.iter().map(|(k, v)| 3 * NODE + k.len() + footprint(v)).sum(),
        _ => 0,
    }
}

/// Far deeper than any native type nests.
const MAX_DEPTH: usize = 200;

/// 25 times the schema nodes of the largest native kind (a `PodList`: 2,020 in 1.35).
const MAX_NODES: usize = 50_000;

impl<'a, 'b> Inliner<'a, 'b> {
    fn new(components: &'a Map<String, Value>, name: &'a str, budget: &'b mut Budget) -> Self {
        Inliner { components, resolving: vec![name], nodes: 0, truncated: false, budget }
    }

    fn open(&mut self) -> Value {
        json!({"x-kubernetes-preserve-unknown-fields": true})
    }

    /// `shared`: whether `schema` is one of the components (where a kept value's footprint is
    /// counted once by its address), not a kind's own schema made for its turn (whose
    /// addresses the next kind's may take again).
    fn inline(&mut self, schema: &Value, depth: usize, shared: bool) -> Value {
        let Some(node) = schema.as_object() else { return schema.clone() };
        self.nodes += 1;
        if depth > MAX_DEPTH || self.nodes > MAX_NODES || !self.budget.take(footprint(&Value::Null) * 4) {
            self.truncated = true;
            return self.open();
        }
        let referenced = node
            .get("$ref")
            .or_else(|| match node.get("allOf").and_then(Value::as_array).map(Vec::as_slice) {
                Some([only]) => only.get("$ref"),
                _ => None,
            })
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/components/schemas/"));
        let mut merged: Map<String, Value> = match referenced.map(|name| self.components.get_key_value(name)) {
            Some(Some((name, target))) if !self.resolving.contains(&name.as_str()) => {
                self.resolving.push(name);
                let target = self.inline(target, depth + 1, true);
                self.resolving.pop();
                match target {
                    Value::Object(map) => map,
                    _ => Map::new(),
                }
            }
            // Itself again, or a name the document does not define.
            Some(_) => return self.open(),
            None => Map::new(),
        };
        for (key, value) in node {
            let value = match key.as_str() {
                "properties" => Value::Object(
                    value
                        .as_object()
                        .into_iter()
                        .flatten()
                        .map(|(k, v)| (k.clone(), self.inline(v, depth + 1, shared)))
                        .collect(),
                ),
                "items" | "additionalProperties" if value.is_object() => {
                    // Go decodes a `null` item or map value as the zero value (`""`, `0`): not
                    // the type error a custom resource's list item gets. (A `null` field is
                    // pruned, and then missing, in both.)
                    let mut inlined = self.inline(value, depth + 1, shared);
                    if let Value::Object(node) = &mut inlined {
                        node.insert("nullable".into(), Value::Bool(true));
                    }
                    inlined
                }
                k if KEPT_KEYS.contains(&k) => {
                    let bytes = if shared { self.budget.footprint_of(value) } else { footprint(value) };
                    if !self.budget.take(bytes) {
                        self.truncated = true;
                        continue;
                    }
                    value.clone()
                }
                _ => continue,
            };
            merged.insert(key.clone(), value);
        }
        structural(merged, node)
    }
}

/// The OpenAPI spellings of Kubernetes' own types as a structural schema spells them.
fn structural(mut merged: Map<String, Value>, original: &Map<String, Value>) -> Value {
    let one_of_types: Vec<&str> = original
        .get("oneOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|branch| branch.get("type").and_then(Value::as_str))
        .collect();
    let untyped = !merged.contains_key("type");
    if merged.get("format").and_then(Value::as_str) == Some("int-or-string") || one_of_types == ["integer", "string"] {
        // intstr.IntOrString: `{format: int-or-string, oneOf: [integer, string]}` (v2: type string).
        merged.retain(|k, _| k == "default" || k == "nullable");
        merged.insert("x-kubernetes-int-or-string".into(), Value::Bool(true));
    } else if untyped && !merged.contains_key("x-kubernetes-int-or-string") {
        // resource.Quantity (`oneOf: [string, number]`), apiextensions' JSON and anything else
        // without a type: any value.
        merged.retain(|k, _| k == "default" || k == "nullable");
        merged.insert("x-kubernetes-preserve-unknown-fields".into(), Value::Bool(true));
    } else if merged.get("format").and_then(Value::as_str) == Some("byte") && !merged.contains_key("pattern") {
        // `[]byte` (a Secret's `data`, a ConfigMap's `binaryData`): the apiserver decodes it as
        // Go's encoding/json does, base64 that may be broken into lines (`base64 -w 76`), where
        // a CRD's `format: byte` refuses line breaks.
        merged.remove("format");
        merged.insert("pattern".into(), Value::String(GO_BASE64.into()));
    } else if merged.get("type").and_then(Value::as_str) == Some("object")
        && !merged.contains_key("properties")
        && !merged.contains_key("additionalProperties")
    {
        // runtime.RawExtension, metav1.FieldsV1: an object of any shape.
        merged.insert("x-kubernetes-preserve-unknown-fields".into(), Value::Bool(true));
    }
    Value::Object(merged)
}

/// What Go's `base64.StdEncoding` decodes: padded base64, `\r` and `\n` anywhere ignored, the
/// empty string included.
const GO_BASE64: &str = r"^[\r\n]*(?:(?:[A-Za-z0-9+/][\r\n]*){4})*(?:(?:[A-Za-z0-9+/][\r\n]*){2}(?:=[\r\n]*){2}|(?:[A-Za-z0-9+/][\r\n]*){3}=[\r\n]*)?$";

/// A one-version CRD holding `schema` for `group/version` `kind`.
fn crd(group: &str, version: &str, kind: &str, plural: &str, namespaced: bool, schema: Value) -> Crd {
    let mut document = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": if group.is_empty() { plural.to_owned() } else { format!("{plural}.{group}") }},
        "spec": {
            "group": group,
            "names": {"kind": kind, "plural": plural},
            "scope": if namespaced { "Namespaced" } else { "Cluster" },
            "versions": [{"name": version, "served": true, "storage": true, "schema": {"openAPIV3Schema": null}}],
        },
    });
    // Moved in, not through `json!`, which would serialize the schema into a copy.
    document["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = schema;
    let mut crd = Crd::parse(&document).0;
    // Validators need the typed schema only; the JSON would double what a kind takes.
    crd.forget_raw();
    crd
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inlined(name: &str, components: Value) -> Value {
        let components = components.as_object().unwrap().clone();
        let mut budget = Budget::for_document(0);
        let mut inliner = Inliner::new(&components, name, &mut budget);
        let out = inliner.inline(&components[name], 0, true);
        assert!(!inliner.truncated);
        out
    }

    /// The kinds read from the part of a document that the needed kinds reach are those read
    /// from the whole document: every kind of Kubernetes 1.36's carried OpenAPI, and a few.
    #[test]
    fn the_needed_part_of_a_document_gives_the_kinds_the_whole_gives() {
        let whole = kubeskema::yaml::parse_documents(BUILTIN).unwrap().remove(0).value;
        let schemas = whole["components"]["schemas"].as_object().unwrap().values();
        let every: Vec<(String, String)> = schemas
            .flat_map(|s| {
                s.get("x-kubernetes-group-version-kind").and_then(Value::as_array).cloned().unwrap_or_default()
            })
            .map(|gvk| {
                let text = |k: &str| gvk[k].as_str().unwrap().to_owned();
                (kubeskema::crd::api_version(&text("group"), &text("version")), text("kind"))
            })
            .collect();
        assert!(every.len() > 100, "{}", every.len());
        let schemas = whole["components"]["schemas"].as_object().unwrap();
        let paths = &whole["paths"];
        for needed in [every.iter().cloned().collect::<HashSet<_>>(), every.iter().step_by(40).cloned().collect()] {
            let (mut from_whole, mut diags) = (Vec::new(), Vec::new());
            // Every schema of the whole document converted and each a component, as a document
            // was read before parts.
            let whole_part = Part {
                paths: paths.as_object().unwrap().clone(),
                referenced: schemas.clone(),
                kinds: schemas.keys().cloned().collect(),
                own: Own::ByName(Box::new(|name| schemas.get(name).cloned())),
            };
            kinds_of_document(Path::new("k"), None, &whole_part, BUILTIN.len(), &needed, &mut diags, &mut from_whole);
            assert_eq!(from_whole.len(), needed.len());
            // The kinds' own schemas made at once (a document long enough for them), and made
            // from the nodes for each kind's turn (one too short).
            for (document_len, made) in [(BUILTIN.len() * 100, true), (0, false)] {
                let mut from_part = Vec::new();
                kubeskema::yaml::read_each(BUILTIN, true, &mut |doc| {
                    let part = needed_part(&doc, document_len, &needed).expect("an OpenAPI document");
                    assert_eq!(matches!(part.own, Own::Made(_)), made);
                    kinds_of_document(Path::new("k"), None, &part, BUILTIN.len(), &needed, &mut diags, &mut from_part);
                })
                .unwrap();
                assert_eq!(from_whole.len(), from_part.len());
                for (w, p) in from_whole.iter().zip(&from_part) {
                    assert_eq!((&w.crd.name, &w.cut, &w.names), (&p.crd.name, &p.cut, &p.names));
                    assert!(w.crd == p.crd, "{}: the kinds differ", w.crd.name);
                }
            }
        }
    }

    /// A large enum named by many properties of many kinds (a 200 KB document that inlined to
    /// gigabytes): one budget for the document bounds what all its kinds inline to, and the
    /// kinds past it are cut and say so.
    #[test]
    fn large_values_named_again_and_again_are_bounded_per_document() {
        let big: Vec<Value> = (0..20_000).map(|i| json!(format!("value-{i:05}"))).collect();
        let mut components = Map::new();
        components.insert("E".into(), json!({"type": "string", "enum": big}));
        let properties: Map<String, Value> =
            (0..50).map(|p| (format!("p{p}"), json!({"$ref": "#/components/schemas/E"}))).collect();
        for k in 0..100 {
            components.insert(format!("K{k}"), json!({"type": "object", "properties": properties}));
        }
        let document_len = serde_json::to_string(&components).unwrap().len();
        assert!(document_len < 2_000_000, "{document_len}");
        let mut budget = Budget::for_document(document_len);
        let mut produced = 0;
        let mut cut = 0;
        for k in 0..100 {
            let name = format!("K{k}");
            let (key, schema) = components.get_key_value(&name).unwrap();
            let mut inliner = Inliner::new(&components, key, &mut budget);
            let out = inliner.inline(schema, 0, true);
            produced += footprint(&out);
            cut += usize::from(inliner.truncated);
        }
        // The budget counts kept values exactly and each node at a flat rate: about.
        assert!(produced <= budget.total / 10 * 11, "{produced} bytes inlined, {} allowed", budget.total);
        assert!(cut > 90, "{cut} kinds cut");
    }

    /// Forty types, each naming the next twice: 2^40 nodes inlined whole. The budget stops it
    /// (the nodes visited past it are only the children of those inlined), and says so.
    #[test]
    fn references_that_fan_out_are_cut_off_and_reported() {
        let mut components = Map::new();
        for i in 0..40 {
            let next = json!({"$ref": format!("#/components/schemas/T{}", i + 1)});
            components.insert(format!("T{i}"), json!({"type": "object", "properties": {"a": next, "b": next}}));
        }
        components.insert("T40".into(), json!({"type": "string"}));
        let mut budget = Budget::for_document(0);
        let mut inliner = Inliner::new(&components, "T0", &mut budget);
        inliner.inline(&components["T0"], 0, true);
        assert!(inliner.truncated);
        assert!(inliner.nodes <= 3 * MAX_NODES, "{} nodes visited", inliner.nodes);
    }

    #[test]
    fn refs_are_inlined_with_their_siblings_and_kubernetes_spellings_made_structural() {
        let got = inlined(
            "A",
            json!({
                "A": {"type": "object", "description": "dropped", "properties": {
                    "b": {"allOf": [{"$ref": "#/components/schemas/B"}], "default": {}, "description": "dropped"},
                    "port": {"$ref": "#/components/schemas/IntOrString"},
                    "cpu": {"$ref": "#/components/schemas/Quantity"},
                    "raw": {"$ref": "#/components/schemas/RawExtension"},
                    "v2port": {"type": "string", "format": "int-or-string"},
                }},
                "B": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "format": "int32"}},
                      "x-kubernetes-patch-strategy": "merge"},
                "IntOrString": {"format": "int-or-string", "oneOf": [{"type": "integer"}, {"type": "string"}]},
                "Quantity": {"oneOf": [{"type": "string"}, {"type": "number"}]},
                "RawExtension": {"type": "object"},
            }),
        );
        assert_eq!(
            got,
            json!({"type": "object", "properties": {
                "b": {"type": "object", "required": ["n"], "default": {},
                      "properties": {"n": {"type": "integer", "format": "int32"}}},
                "port": {"x-kubernetes-int-or-string": true},
                "cpu": {"x-kubernetes-preserve-unknown-fields": true},
                "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                "v2port": {"x-kubernetes-int-or-string": true},
            }})
        );
    }

    #[test]
    fn a_type_that_contains_itself_is_open_below_its_first_level() {
        let got = inlined(
            "Props",
            json!({"Props": {"type": "object", "properties": {
                "not": {"$ref": "#/components/schemas/Props"},
                "missing": {"$ref": "#/components/schemas/Nowhere"},
            }}}),
        );
        assert_eq!(
            got,
            json!({"type": "object", "properties": {
                "not": {"x-kubernetes-preserve-unknown-fields": true},
                "missing": {"x-kubernetes-preserve-unknown-fields": true},
            }})
        );
    }

    /// The carried schemas are what [`compact`] makes of them (so the file was generated, not
    /// edited), and hold the kinds a repository's manifests use, each with its plural, scope
    /// and name rule.
    #[test]
    fn the_carried_schemas_are_compact_and_hold_the_usual_kinds() {
        let document: Value = serde_json::from_str(BUILTIN).unwrap();
        assert_eq!(compact(std::slice::from_ref(&document)), document);
        assert_eq!(compact_text(&document), BUILTIN);
        // `builtin` reads it line by line: every path and schema is one line of JSON.
        let (paths, schemas) = carried_lines();
        assert_eq!(paths.len(), document["paths"].as_object().unwrap().len());
        assert_eq!(schemas.len(), document["components"]["schemas"].as_object().unwrap().len());
        for (name, line) in paths.iter().copied().chain(schemas.iter().map(|(name, line)| (*name, *line))) {
            assert_eq!(
                serde_json::from_str::<Value>(line).ok().as_ref(),
                document["paths"].get(name).or(document["components"]["schemas"].get(name)),
                "{name}"
            );
        }
        let needed: HashSet<(String, String)> = [
            ("apps/v1", "Deployment"),
            ("v1", "Service"),
            ("v1", "Namespace"),
            ("rbac.authorization.k8s.io/v1", "ClusterRole"),
            ("batch/v1", "CronJob"),
            ("networking.k8s.io/v1", "Ingress"),
        ]
        .iter()
        .map(|(v, k)| (v.to_string(), k.to_string()))
        .collect();
        let mut diags = Vec::new();
        let kinds = builtin(&needed, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        let found: Vec<(String, &str, bool, NameRule, bool)> = {
            let mut found: Vec<_> = kinds
                .iter()
                .map(|k| {
                    (
                        k.crd.names.kind.clone(),
                        k.crd.names.plural.as_str(),
                        k.crd.is_namespaced(),
                        k.names,
                        k.cut.is_some(),
                    )
                })
                .collect();
            found.sort_by(|a, b| a.0.cmp(&b.0));
            found
        };
        assert_eq!(
            found,
            [
                ("ClusterRole".into(), "clusterroles", false, NameRule::PathSegment, false),
                ("CronJob".into(), "cronjobs", true, NameRule::Subdomain, false),
                ("Deployment".into(), "deployments", true, NameRule::Subdomain, false),
                ("Ingress".into(), "ingresses", true, NameRule::Subdomain, false),
                ("Namespace".into(), "namespaces", false, NameRule::Label, false),
                ("Service".into(), "services", true, NameRule::Dns1035Label, false),
            ]
        );
    }

    #[test]
    fn scopes_and_plurals_come_from_the_paths() {
        let gvk = |kind: &str| json!({"group": "", "version": "v1", "kind": kind});
        let document = json!({"paths": {
            "/api/v1/namespaces/{namespace}/pods": {"post": {"x-kubernetes-group-version-kind": gvk("Pod")}},
            "/api/v1/namespaces/{namespace}/pods/{name}/status": {"put": {"x-kubernetes-group-version-kind": gvk("Status")}},
            "/api/v1/namespaces/{name}": {"get": {"x-kubernetes-group-version-kind": gvk("Namespace")}},
            "/api/v1/watch/namespaces": {"get": {"x-kubernetes-group-version-kind": gvk("WatchEvent")}},
        }});
        let scopes = scopes(document["paths"].as_object().unwrap());
        let key = |kind: &str| (String::new(), "v1".to_owned(), kind.to_owned());
        assert_eq!(scopes.get(&key("Pod")), Some(&("pods".to_owned(), true)));
        assert_eq!(scopes.get(&key("Namespace")), Some(&("namespaces".to_owned(), false)));
        assert_eq!(scopes.len(), 2, "subresources and watches are left out: {scopes:?}");
    }
}
