//! Phase 3, model: checked schemas → a typed model of one Rust module per group/version,
//! before any tokens exist.
//!
//! - Every object with properties becomes a [`StructDef`], every string/integer/boolean
//!   `enum` an [`EnumDef`]; scalars, lists and maps become [`Ty`]s.
//! - Identical subschemas share one type: a struct's key is its fields (with the ids of their
//!   already-built types) and constraints, descriptions left out, so children are built first.
//!   Across the modules of one generation, [`share_types`] does the same by the same key.
//! - Names come from the path (`spec.template.selector` → `Selector`, then `TemplateSelector`,
//!   ...): every type claims its shortest candidate and all claimants of a contested name move
//!   on to a longer one, so adding a CRD never renames an unrelated type. A name made only of
//!   generic words (`Type`, `Status`, `SpecUsage`) is never a candidate, but as the longest.
//! - Every schema keyword that is not a type survives as an [`Attr`] on the field (or on the
//!   struct for object-level keywords), so nothing in the schema is lost.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use kubeskema::cel::Lowered;
use kubeskema::crd::Crd;
use kubeskema::crd::check::LoweredRules;
use kubeskema::schema::{AdditionalProperties, Schema};
use serde_json::Value;

pub mod conversion;
pub(crate) mod names;

/// Index of a type in [`Module::types`].
pub type TypeId = usize;

/// The Rust type of a field or element.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// `String`.
    String,
    /// `bool`.
    Bool,
    /// `i32` (`format: int32`).
    I32,
    /// `i64`.
    I64,
    /// `f64`.
    F64,
    /// `kubeskema::IntOrString`.
    IntOrString,
    /// Anything (`serde_json::Value`): untyped preserve-unknown-fields.
    Value,
    /// An object of anything (`serde_json::Map`): a preserving object without properties.
    JsonMap,
    /// `type: object` with nothing inside: always `{}`.
    EmptyObject,
    /// `kubeskema::ObjectMeta` (k8s-openapi's in kube-rs mode).
    ObjectMeta,
    /// k8s-openapi's `Condition`: kube-rs mode, where the schema is exactly
    /// [`kubeskema::resource::CONDITION_SCHEMA`].
    Condition,
    /// k8s-openapi's `ObjectReference`: kube-rs mode, where the schema is exactly
    /// [`kubeskema::resource::OBJECT_REFERENCE_SCHEMA`].
    ObjectReference,
    /// `Vec<T>`.
    Vec(Box<Ty>),
    /// `BTreeMap<String, T>` (`additionalProperties`).
    Map(Box<Ty>),
    /// `Option<T>` (nullable items and map values).
    Option(Box<Ty>),
    /// A generated struct or enum.
    Named(TypeId),
}

pub use kubeskema_attributes::{Attr, Keyword, ResourceKey, Shape, Trees};

/// One field of a struct.
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// The JSON property name.
    pub json_name: String,
    /// The Rust identifier (`r#type` for keywords).
    pub ident: String,
    /// The value type.
    pub ty: Ty,
    /// Held in a `Box` (`Option<Box<T>>`): a struct too large to sit inline (see
    /// [`BOX_ABOVE_BYTES`]).
    pub boxed: bool,
    /// How absence and null are encoded.
    pub shape: Shape,
    /// The schema default.
    pub default: Option<Value>,
    /// The description.
    pub doc: Option<String>,
    /// The constraints that stay on the field.
    pub attrs: Vec<Attr>,
}

/// A field holding a struct larger than this (estimated) holds it in a `Box`. Schemas nest
/// large optional subtrees (a Workflow's templates each hold a container, a script, a
/// resource...), and inline they make every value as large as the whole tree: 14 KB per
/// Argo template, 7.5 KB per Prometheus spec, however little of it a document sets. Every
/// move of such a value copies all of it, and a read moves each value several times on its
/// way up. Boxed, a parent pays one allocation for a child the document has.
pub const BOX_ABOVE_BYTES: usize = 256;

/// Marks the fields whose struct is larger than [`BOX_ABOVE_BYTES`] as boxed.
fn box_large_fields(types: &mut [TypeDef]) {
    let mut sizes = vec![None; types.len()];
    let large: Vec<bool> = (0..types.len()).map(|id| boxed(types, id, &mut sizes)).collect();
    for def in types.iter_mut() {
        // A resource keeps its `spec` and `status` inline, in the shape kube-rs gives them
        // (`HasSpec`); what is large inside them is boxed there.
        if let TypeDef::Struct(s) = def
            && s.root.is_none()
        {
            for f in &mut s.fields {
                f.boxed = matches!(f.ty, Ty::Named(id) if large[id]);
            }
        }
    }
}

/// An estimate of a type's size in bytes (as rustc lays it out on 64-bit targets, near
/// enough to tell large from small), with boxed fields counted as the pointer they become.
fn type_size(types: &[TypeDef], id: TypeId, sizes: &mut Vec<Option<usize>>) -> usize {
    if let Some(size) = sizes[id] {
        return size;
    }
    let size = match &types[id] {
        TypeDef::Enum(_) => 1,
        TypeDef::Struct(s) => s
            .fields
            .iter()
            .map(|f| {
                let inner = ty_size(types, &f.ty, sizes);
                match f.shape {
                    Shape::Required | Shape::Defaulted | Shape::UnknownFields => inner,
                    Shape::Optional | Shape::Nullable => inner + 8,
                    Shape::MaybeNull => inner + 16,
                }
            })
            .sum(),
    };
    sizes[id] = Some(size);
    size
}

fn ty_size(types: &[TypeDef], ty: &Ty, sizes: &mut Vec<Option<usize>>) -> usize {
    match ty {
        Ty::Bool => 1,
        Ty::I32 => 4,
        Ty::I64 | Ty::F64 => 8,
        Ty::String | Ty::Vec(_) | Ty::Map(_) | Ty::JsonMap => 24,
        Ty::IntOrString | Ty::Value => 32,
        Ty::EmptyObject => 0,
        Ty::ObjectMeta => 344,
        Ty::Condition | Ty::ObjectReference => 200,
        Ty::Option(inner) => ty_size(types, inner, sizes) + 8,
        Ty::Named(id) if boxed(types, *id, sizes) => 8,
        Ty::Named(id) => type_size(types, *id, sizes),
    }
}

/// Whether a field holding type `id` holds it in a `Box`: a struct above [`BOX_ABOVE_BYTES`].
fn boxed(types: &[TypeDef], id: TypeId, sizes: &mut Vec<Option<usize>>) -> bool {
    matches!(types[id], TypeDef::Struct(_)) && type_size(types, id, sizes) > BOX_ABOVE_BYTES
}

/// A `oneOf`/`anyOf` whose branches each require one property: the typed view of which
/// member is set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Union {
    /// `oneOf` (else `anyOf`).
    pub one_of: bool,
    /// The JSON names of the member properties.
    pub members: Vec<String>,
}

/// What makes a struct the root of a resource.
#[derive(Clone, Debug)]
pub struct RootInfo {
    /// API group.
    pub group: String,
    /// Version.
    pub version: String,
    /// Kind.
    pub kind: String,
    /// Plural resource name.
    pub plural: String,
    /// Every `resource(...)` key the CRD version gives (the derive writes the root's
    /// constants and impls from them), each as the derive's default would not.
    pub keys: Vec<(ResourceKey, String)>,
    /// kube-rs mode: where the whole CRD's JSON (what `crd()` gives back) is written.
    pub crd_json: Option<CrdJson>,
}

/// The whole CRD as compact JSON, written once per CRD (in the module of its first generated
/// version; every version's module refers to it): a copy per version made the output grow with
/// the square of the versions.
#[derive(Clone, Debug)]
pub enum CrdJson {
    /// In this module, as a module-level constant.
    Here {
        /// The constant's name ([`CrdJson::const_name`]).
        name: String,
        /// The CRD, compact.
        json: String,
    },
    /// In a sibling version module.
    There {
        /// The version module that holds it.
        module: String,
        /// The constant's name there.
        name: String,
    },
}

/// What a CRD says of one version's resource beside its schema, as `resource(...)` keys: each
/// key the derive's default would not give (`served`, `storage` when false, ...), in the
/// order the attribute documents them. In kube-rs mode, `kube = true` and where the CRD's JSON is.
fn resource_keys(crd: &Crd, version: &str, crd_json: Option<&CrdJson>) -> Vec<(ResourceKey, String)> {
    let entry = crd.versions.iter().find(|v| v.name == version);
    let raw = crd
        .envelope()
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .and_then(|versions| versions.iter().find(|v| v.get("name").and_then(Value::as_str) == Some(version)));
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let mut keys = vec![
        (ResourceKey::Group, crd.group.clone()),
        (ResourceKey::Version, version.to_owned()),
        (ResourceKey::Kind, crd.names.kind.clone()),
        (ResourceKey::Plural, crd.names.plural.clone()),
        (ResourceKey::Scope, if crd.is_namespaced() { "Namespaced" } else { "Cluster" }.to_owned()),
    ];
    keys.extend(crd.names.singular.clone().map(|s| (ResourceKey::Singular, s)));
    keys.extend(crd.names.list_kind.clone().map(|s| (ResourceKey::ListKind, s)));
    keys.extend(crd.names.short_names.iter().map(|s| (ResourceKey::ShortName, s.clone())));
    keys.extend(crd.names.categories.iter().map(|s| (ResourceKey::Category, s.clone())));
    if let Some(v) = entry {
        let flag = |on: bool| on.to_string();
        if !v.served {
            keys.push((ResourceKey::Served, flag(false)));
        }
        if !v.storage {
            keys.push((ResourceKey::Storage, flag(false)));
        }
        if v.deprecated {
            keys.push((ResourceKey::Deprecated, flag(true)));
        }
        keys.extend(raw.and_then(|r| text(r, "deprecationWarning")).map(|w| (ResourceKey::DeprecationWarning, w)));
        if v.status_subresource {
            keys.push((ResourceKey::Status, flag(true)));
        }
        if let Some(scale) = &v.scale {
            keys.push((ResourceKey::ScaleSpecReplicasPath, text(scale, "specReplicasPath").unwrap_or_default()));
            keys.push((ResourceKey::ScaleStatusReplicasPath, text(scale, "statusReplicasPath").unwrap_or_default()));
            keys.extend(text(scale, "labelSelectorPath").map(|p| (ResourceKey::ScaleLabelSelectorPath, p)));
        }
        keys.extend(v.printer_columns.iter().map(|c| (ResourceKey::PrinterColumn, c.to_string())));
        keys.extend(v.selectable_fields.iter().map(|f| (ResourceKey::SelectableField, f.clone())));
    }
    let approved = crd.envelope().pointer("/metadata/annotations/api-approved.kubernetes.io").and_then(Value::as_str);
    keys.extend(approved.map(|a| (ResourceKey::ApiApproved, a.to_owned())));
    if let Some(json) = crd_json {
        keys.push((ResourceKey::Kube, "true".to_owned()));
        let path = match json {
            CrdJson::Here { name, .. } => name.clone(),
            CrdJson::There { module, name } => format!("super::{module}::{name}"),
        };
        keys.push((ResourceKey::CrdJson, path));
    }
    keys
}

impl CrdJson {
    /// The module-level constant that holds a CRD's JSON (`CRD_JSON_WIDGETS`): named by its
    /// plural, unique within a group (valid plurals are lowercase letters, digits and `-`).
    pub fn const_name(plural: &str) -> String {
        // Any character but a letter or digit becomes `_` (a refused CRD's plural may hold
        // anything; its other versions are still generated with `keep_going`).
        let name: String =
            plural.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
        format!("CRD_JSON_{name}")
    }
}

/// A generated struct.
#[derive(Clone, Debug)]
pub struct StructDef {
    /// Type name.
    pub name: String,
    /// Doc comment.
    pub doc: Option<String>,
    /// Fields, in emission order.
    pub fields: Vec<FieldDef>,
    /// Object-level constraints.
    pub attrs: Vec<Attr>,
    /// Set for the root type of a resource.
    pub root: Option<Box<RootInfo>>,
    /// Typed views of oneOf/anyOf unions.
    pub unions: Vec<Union>,
}

/// A generated enum of the values of an `enum`.
#[derive(Clone, Debug)]
pub struct EnumDef {
    /// Type name.
    pub name: String,
    /// Doc comment.
    pub doc: Option<String>,
    /// Variant identifier and the JSON value it stands for.
    pub variants: Vec<(String, Value)>,
    /// The schema's `enum` as written, when it lists more than the variants (`null`, a value
    /// twice): what the apiserver's `supported values` list shows.
    pub supported: Option<Value>,
}

/// A generated type.
#[derive(Clone, Debug)]
pub enum TypeDef {
    /// A struct.
    Struct(StructDef),
    /// An enum.
    Enum(EnumDef),
}

impl TypeDef {
    /// The type's name.
    pub fn name(&self) -> &str {
        match self {
            TypeDef::Struct(s) => &s.name,
            TypeDef::Enum(e) => &e.name,
        }
    }
}

/// One CRD version placed in a module.
#[derive(Clone, Debug)]
pub struct Source {
    /// The file it was read from.
    pub file: String,
    /// The CRD name.
    pub crd: String,
    /// The version.
    pub version: String,
}

/// The model of one Rust module: every type of one group/version.
#[derive(Clone, Debug)]
pub struct Module {
    /// API group.
    pub group: String,
    /// Version.
    pub version: String,
    /// Every type, by id.
    pub types: Vec<TypeDef>,
    /// Types in emission order: each root, then what it uses, depth first.
    pub order: Vec<TypeId>,
    /// The CRD versions in this module.
    pub sources: Vec<Source>,
    /// kube-rs mode (see [`ModuleBuilder::new`]).
    pub kube: bool,
    /// Each type derives `kubeskema::ApplyConfiguration` too (its `...Apply` struct).
    pub apply_configurations: bool,
    /// Per type: the module of the generation that defines it, when that is another one (see
    /// [`share_types`]); this module re-exports it under its own name.
    pub shared: Vec<Option<SharedType>>,
    /// The checked trees of its rules (the indices [`Attr::Rule`]'s [`Trees`] hold).
    pub rules: RuleTrees,
}

/// A type another module of the generation defines.
#[derive(Clone, Debug)]
pub struct SharedType {
    /// That module's index in the generation.
    pub module: usize,
    /// The type's id there.
    pub id: TypeId,
}

/// The path segments a type's name is made from, and whether it is a root.
#[derive(Clone, Debug)]
struct NamePath {
    fragments: Vec<String>,
    /// Where in the resource the type sits (`Certificate.spec.privateKey`, `[]` a list's item,
    /// `[*]` a map's value): its docs list these.
    path: String,
}

impl NamePath {
    fn child(&self, json: &str) -> NamePath {
        let mut f = self.fragments.clone();
        f.push(names::type_fragment(json));
        NamePath { fragments: f, path: format!("{}.{json}", self.path) }
    }

    /// The item type of a list property is named after the singular of the property.
    fn item(&self, json_of_list: Option<&str>) -> NamePath {
        let mut f = self.fragments.clone();
        let deep = f.len() > 1;
        match (f.last_mut(), json_of_list) {
            (Some(last), Some(json)) if deep => *last = names::type_fragment(&names::singular(json)),
            _ => f.push("Item".into()),
        }
        NamePath { fragments: f, path: format!("{}[]", self.path) }
    }

    fn value(&self) -> NamePath {
        let mut f = self.fragments.clone();
        let deep = f.len() > 1;
        match f.last_mut() {
            Some(last) if deep => last.push_str("Value"),
            _ => f.push("Value".into()),
        }
        NamePath { fragments: f, path: format!("{}[*]", self.path) }
    }

    /// Candidate names, shortest first; children of the root always keep the kind prefix, and
    /// a name made only of generic words (`Type`, `SpecUsage`) is none, but for the longest.
    fn candidates(&self) -> Vec<String> {
        let n = self.fragments.len();
        let shortest = if n <= 2 { n } else { 1 };
        let all: Vec<String> = (shortest..=n).map(|k| names::type_ident(&self.fragments[n - k..].concat())).collect();
        let last = all.len() - 1;
        all.into_iter()
            .enumerate()
            .filter(|(i, name)| *i == last || !names::only_generic_words(name))
            .map(|(_, n)| n)
            .collect()
    }
}

struct Pending {
    candidates: Vec<String>,
    is_root: bool,
    /// Every place the type stands for (one type for equal schemas).
    used_at: Vec<String>,
}

/// Builds the module of one group/version from the CRD versions placed in it.
pub struct ModuleBuilder<'a> {
    group: String,
    version: String,
    types: Vec<TypeDef>,
    pending: Vec<Pending>,
    by_key: HashMap<String, TypeId>,
    roots: Vec<TypeId>,
    sources: Vec<Source>,
    docs: bool,
    /// kube-rs mode: k8s-openapi's types, and their schemas reused (descriptions stripped).
    kube: bool,
    known: Vec<(Value, Ty)>,
    raw: Option<&'a Value>,
    rules: RuleTable,
}

/// The rules the CRD checks compiled (`kubeskema::crd::check::check_keeping_rules`), each
/// taken into the module's table once, when the model first meets it: the emitter compiles
/// them to Rust from there, so no rule is compiled twice.
#[derive(Default)]
struct RuleTable {
    /// The current CRD's trees, by rule pointer, not yet taken.
    checked: RefCell<LoweredRules>,
    /// Trees taken, by pointer, and their ids.
    ids: RefCell<HashMap<String, usize>>,
    taken: RefCell<Vec<Lowered>>,
}

impl RuleTable {
    /// The id of the rule at `pointer` in the current CRD, where it was checked.
    fn id(&self, pointer: &str) -> Option<usize> {
        if let Some(&id) = self.ids.borrow().get(pointer) {
            return Some(id);
        }
        let lowered = self.checked.borrow_mut().remove(pointer)?;
        let mut taken = self.taken.borrow_mut();
        taken.push(lowered);
        self.ids.borrow_mut().insert(pointer.to_owned(), taken.len() - 1);
        Some(taken.len() - 1)
    }

    /// A CRD's trees: pointers are the CRD document's, so the previous CRD's are forgotten.
    fn next_crd(&self, checked: LoweredRules) {
        *self.checked.borrow_mut() = checked;
        self.ids.borrow_mut().clear();
    }
}

/// The checked trees of a module's rules, by the ids the rules' attributes carry.
#[derive(Clone, Default)]
pub struct RuleTrees(pub Arc<Vec<Lowered>>);

impl std::fmt::Debug for RuleTrees {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RuleTrees({} rules)", self.0.len())
    }
}

impl<'a> ModuleBuilder<'a> {
    /// An empty module; `docs` turns descriptions into doc comments; `kube` reuses k8s-openapi's
    /// types where a schema is exactly theirs.
    pub fn new(group: &str, version: &str, docs: bool, kube: bool) -> Self {
        let known = if kube {
            use kubeskema::resource::{CONDITION_SCHEMA, OBJECT_REFERENCE_SCHEMA};
            [(CONDITION_SCHEMA, Ty::Condition), (OBJECT_REFERENCE_SCHEMA, Ty::ObjectReference)]
                .into_iter()
                .map(|(json, ty)| (serde_json::from_str(json).expect("invariant: the known schemas are JSON"), ty))
                .collect()
        } else {
            Vec::new()
        };
        ModuleBuilder {
            kube,
            known,
            group: group.to_owned(),
            version: version.to_owned(),
            types: Vec::new(),
            pending: Vec::new(),
            by_key: HashMap::new(),
            roots: Vec::new(),
            sources: Vec::new(),
            docs,
            raw: None,
            rules: RuleTable::default(),
        }
    }

    /// Adds the root type of one CRD version (and everything under it).
    /// Adds a CRD version's root type. `crd_json_module`: in kube-rs mode, the version module
    /// that holds the CRD's JSON (`None`: this one). `checked`: the CRD's rules as its checks
    /// compiled them; this version's are taken out (a schema shared by every version, in
    /// `spec.validation`, goes to the first version built, and the others compile it again).
    pub fn add_root(
        &mut self,
        file: &str,
        crd: &'a Crd,
        schema: &Schema,
        raw_doc: &'a Value,
        crd_json_module: Option<&str>,
        checked: &mut LoweredRules,
    ) {
        self.raw = Some(raw_doc);
        let prefix = format!("{}/", schema.pointer);
        self.rules.next_crd(checked.extract_if(|pointer, _| pointer.starts_with(&prefix)).collect());
        self.sources.push(Source { file: file.to_owned(), crd: crd.name.clone(), version: self.version.clone() });
        let names = NamePath { fragments: vec![names::type_fragment(&crd.names.kind)], path: crd.names.kind.clone() };
        let crd_json = self.kube.then(|| {
            let name = CrdJson::const_name(&crd.names.plural);
            match crd_json_module {
                // Pretty: a CRD on one line made a many-kB line in the generated source,
                // in the way of grep and diffs.
                None => CrdJson::Here { name, json: serde_json::to_string_pretty(&crd.raw()).unwrap_or_default() },
                Some(module) => CrdJson::There { module: module.to_owned(), name },
            }
        });
        let root = RootInfo {
            group: crd.group.clone(),
            version: self.version.clone(),
            kind: crd.names.kind.clone(),
            plural: crd.names.plural.clone(),
            keys: resource_keys(crd, &self.version, crd_json.as_ref()),
            crd_json,
        };
        let id = self.build_struct(schema, &names, false, Some(root));
        self.roots.push(id);
    }

    /// Names every type, boxes the large ones where fields hold them, and fixes the emission
    /// order.
    pub fn finish(mut self) -> Module {
        self.assign_names();
        box_large_fields(&mut self.types);
        let mut order = Vec::new();
        let mut seen = vec![false; self.types.len()];
        for &r in &self.roots {
            visit(&self.types, r, &mut seen, &mut order);
        }
        Module {
            group: self.group,
            version: self.version,
            shared: vec![None; self.types.len()],
            types: self.types,
            order,
            sources: self.sources,
            kube: self.kube,
            apply_configurations: false,
            rules: RuleTrees(Arc::new(self.rules.taken.into_inner())),
        }
    }

    /// The doc comment of a node: its title, description, example and external docs (the
    /// documentation keywords of a schema, kept here since they validate nothing).
    fn doc(&self, s: &Schema) -> Option<String> {
        if !self.docs {
            return None;
        }
        let mut parts: Vec<String> = Vec::new();
        parts.extend(
            s.title().into_iter().chain(s.description.as_deref()).filter(|t| !t.trim().is_empty()).map(str::to_owned),
        );
        if let Some(example) = s.example() {
            parts.push(format!("Example: `{example}`"));
        }
        if let Some(url) = s.external_docs().and_then(|d| d.get("url")).and_then(Value::as_str) {
            parts.push(format!("See <{url}>."));
        }
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    }

    /// The schema node as written (for junctors, defaults and other keywords kept as JSON).
    /// The k8s-openapi type (kube-rs mode) whose schema this node is, descriptions aside.
    fn known_type(&self, node: &Schema) -> Option<Ty> {
        if !self.kube {
            return None;
        }
        let mut json = self.raw(node)?.clone();
        strip_descriptions(&mut json);
        self.known.iter().find(|(schema, _)| *schema == json).map(|(_, ty)| ty.clone())
    }

    /// The schema of a resource's `metadata` (root or embedded), kept as `schema_json` for the
    /// JSON walk when it constrains more than `{type: object}`: the typed `ObjectMeta` cannot
    /// carry its keywords, and dropping them would lose checks (`metadata.name` maxLength).
    fn metadata_schema(&self, node: &Schema, attrs: &mut Vec<Attr>) {
        if let Some(m) = node.properties.get("metadata").and_then(|m| self.raw(m)) {
            let mut m = m.clone();
            strip_descriptions(&mut m);
            if m != serde_json::json!({"type": "object"}) {
                attrs.push(Attr::Json(Keyword::SchemaJson, m.to_string()));
            }
        }
    }

    fn raw(&self, s: &Schema) -> Option<&'a Value> {
        self.raw.and_then(|r| r.pointer(&s.pointer))
    }

    fn intern(&mut self, key: String, def: TypeDef, names: &NamePath, is_root: bool) -> TypeId {
        if !is_root && let Some(&id) = self.by_key.get(&key) {
            self.pending[id].used_at.push(names.path.clone());
            return id;
        }
        let id = self.types.len();
        self.types.push(def);
        self.pending.push(Pending { candidates: names.candidates(), is_root, used_at: vec![names.path.clone()] });
        if !is_root {
            self.by_key.insert(key, id);
        }
        id
    }

    /// The type of a value at `node`, and the attributes that stay on the field.
    fn field_type(
        &mut self,
        node: &Schema,
        names: &NamePath,
        json_name: Option<&str>,
        preserve: bool,
    ) -> (Ty, Vec<Attr>) {
        let mut attrs = Vec::new();
        if node.int_or_string {
            attrs.push(Attr::Flag(Keyword::IntOrString));
            if let Some(t) = &node.type_ {
                attrs.push(Attr::Str(Keyword::SchemaType, t.to_string()));
            }
            self.value_attrs(node, &mut attrs, true);
            return (Ty::IntOrString, attrs);
        }
        let ty = match node.type_str().unwrap_or("") {
            t @ ("string" | "integer" | "boolean") if enum_of(node, t).is_some() => {
                let values = enum_of(node, t).unwrap_or_default();
                self.value_attrs(node, &mut attrs, false);
                let written = Value::Array(node.enum_.as_deref().unwrap_or_default().to_vec());
                if node.nullable {
                    // [quirk] `null` matches no enum, even a nullable field's: the field keeps
                    // its enum so an explicit null is refused as the apiserver refuses it.
                    attrs.push(Attr::Json(Keyword::EnumJson, written.to_string()));
                }
                let supported = (written != Value::Array(values.clone())).then_some(written);
                Ty::Named(self.build_enum(names, values, supported))
            }
            "string" => {
                self.value_attrs(node, &mut attrs, true);
                Ty::String
            }
            "integer" => {
                self.value_attrs(node, &mut attrs, true);
                if node.format.as_deref() == Some("int32") { Ty::I32 } else { Ty::I64 }
            }
            "number" => {
                self.value_attrs(node, &mut attrs, true);
                Ty::F64
            }
            "boolean" => {
                self.value_attrs(node, &mut attrs, true);
                Ty::Bool
            }
            "array" => {
                self.value_attrs(node, &mut attrs, true);
                match &node.items {
                    Some(items) => {
                        // [quirk] preservation is inherited by the items of a preserving list.
                        let (ity, iattrs) = self.field_type(
                            items,
                            &names.item(json_name),
                            None,
                            preserve || node.preserves_unknown_fields(),
                        );
                        if !iattrs.is_empty() {
                            attrs.push(Attr::Nested(Keyword::Items, iattrs));
                        }
                        Ty::Vec(Box::new(if items.nullable { Ty::Option(Box::new(ity)) } else { ity }))
                    }
                    None => Ty::Vec(Box::new(Ty::Value)),
                }
            }
            "object" => {
                if let Some(ty) = self.known_type(node) {
                    return (ty, attrs);
                }
                let preserving = preserve || node.preserves_unknown_fields();
                if !node.properties.is_empty() || node.embedded_resource {
                    return (Ty::Named(self.build_struct(node, names, preserve, None)), attrs);
                }
                self.value_attrs(node, &mut attrs, true);
                match &node.additional_properties {
                    Some(AdditionalProperties::Schema(v)) => {
                        let (vty, vattrs) = self.field_type(v, &names.value(), None, false);
                        if !vattrs.is_empty() {
                            attrs.push(Attr::Nested(Keyword::Values, vattrs));
                        }
                        Ty::Map(Box::new(if v.nullable { Ty::Option(Box::new(vty)) } else { vty }))
                    }
                    Some(AdditionalProperties::Bool(true)) => Ty::JsonMap,
                    _ if preserving => Ty::JsonMap,
                    _ if attrs.is_empty() => Ty::EmptyObject,
                    // Object-level constraints need a type of their own to stand on.
                    _ => {
                        return (Ty::Named(self.build_struct(node, names, preserve, None)), Vec::new());
                    }
                }
            }
            _ => {
                self.value_attrs(node, &mut attrs, true);
                Ty::Value
            }
        };
        (ty, attrs)
    }

    /// Value validations and extensions of a node, as attributes. `with_enum`: keep `enum` as
    /// an attribute (it was not turned into a Rust enum).
    fn value_attrs(&self, s: &Schema, out: &mut Vec<Attr>, with_enum: bool) {
        if let Some(f) = &s.format {
            out.push(Attr::Str(Keyword::Format, f.to_string()));
        }
        if let Some(n) = &s.minimum {
            out.push(Attr::Number(Keyword::Minimum, n.clone()));
        }
        if s.exclusive_minimum() {
            out.push(Attr::Flag(Keyword::ExclusiveMinimum));
        }
        if let Some(n) = &s.maximum {
            out.push(Attr::Number(Keyword::Maximum, n.clone()));
        }
        if s.exclusive_maximum() {
            out.push(Attr::Flag(Keyword::ExclusiveMaximum));
        }
        if let Some(n) = s.multiple_of() {
            out.push(Attr::Number(Keyword::MultipleOf, n.clone()));
        }
        let bound = |n: Option<&serde_json::Number>| n.and_then(serde_json::Number::as_f64);
        if kubeskema_attributes::number::refuses_every_value(
            s.type_str().unwrap_or_default(),
            s.format.as_deref().unwrap_or_default(),
            bound(s.minimum.as_ref()),
            bound(s.maximum.as_ref()),
            bound(s.multiple_of()),
        ) {
            out.push(Attr::Flag(Keyword::RefusesEveryValue));
        }
        for (kw, v) in [
            (Keyword::MinLength, s.min_length),
            (Keyword::MaxLength, s.max_length),
            (Keyword::MinItems, s.min_items),
            (Keyword::MaxItems, s.max_items),
            (Keyword::MinProperties, s.min_properties()),
            (Keyword::MaxProperties, s.max_properties()),
        ] {
            if let Some(v) = v {
                out.push(Attr::Count(kw, v));
            }
        }
        if let Some(p) = &s.pattern {
            out.push(Attr::Str(Keyword::Pattern, p.to_string()));
        }
        if s.unique_items() {
            out.push(Attr::Flag(Keyword::UniqueItems));
        }
        // `additionalProperties: false` without properties: the object must stay empty.
        if matches!(s.additional_properties, Some(AdditionalProperties::Bool(false))) {
            out.push(Attr::Flag(Keyword::NoAdditionalProperties));
        }
        if matches!(s.additional_properties, Some(AdditionalProperties::Bool(true))) {
            out.push(Attr::Flag(Keyword::AdditionalProperties));
        }
        if with_enum && let Some(e) = &s.enum_ {
            out.push(Attr::Json(Keyword::EnumJson, Value::Array(e.to_vec()).to_string()));
        }
        for (kw, key, present) in [
            (Keyword::AllOf, "allOf", !s.all_of().is_empty()),
            (Keyword::AnyOf, "anyOf", !s.any_of().is_empty()),
            (Keyword::OneOf, "oneOf", !s.one_of().is_empty()),
            (Keyword::Not, "not", s.not().is_some()),
        ] {
            if present && let Some(raw) = self.raw(s).and_then(|r| r.get(key)) {
                out.push(Attr::Json(kw, raw.to_string()));
            }
        }
        if s.preserves_unknown_fields() {
            out.push(Attr::Flag(Keyword::PreserveUnknownFields));
        }
        if s.embedded_resource {
            out.push(Attr::Flag(Keyword::EmbeddedResource));
        }
        if let Some(t) = &s.list_type {
            out.push(Attr::Str(Keyword::ListType, t.to_string()));
        }
        if !s.list_map_keys.is_empty() {
            out.push(Attr::Strs(Keyword::ListMapKeys, s.list_map_keys.to_vec()));
        }
        if let Some(t) = s.map_type() {
            out.push(Attr::Str(Keyword::MapType, t.to_owned()));
        }
        for (i, r) in s.validations.iter().enumerate() {
            out.push(Attr::Rule(
                r.clone(),
                Trees(self.rules.id(&format!("{}/x-kubernetes-validations/{i}", s.pointer))),
            ));
        }
        for (k, v) in s.extensions() {
            out.push(Attr::Extension(k.clone(), v.to_string()));
        }
    }

    fn build_enum(&mut self, names: &NamePath, values: Vec<Value>, supported: Option<Value>) -> TypeId {
        let labels: Vec<String> = values
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect();
        let mut idents = names::variant_names(&labels);
        for (ident, v) in idents.iter_mut().zip(&values) {
            match v {
                Value::Number(n) => *ident = names::int_variant_name(n.as_i64().unwrap_or_default()),
                Value::Bool(b) => *ident = if *b { "True".into() } else { "False".into() },
                _ => {}
            }
        }
        // The node's description documents the field that uses the enum, not the enum.
        let def =
            EnumDef { name: String::new(), doc: None, variants: idents.into_iter().zip(values).collect(), supported };
        let key = enum_key(&def);
        self.intern(key, TypeDef::Enum(def), names, false)
    }

    fn build_struct(
        &mut self,
        node: &Schema,
        names: &NamePath,
        inherited_preserve: bool,
        root: Option<RootInfo>,
    ) -> TypeId {
        let mut fields: Vec<FieldDef> = Vec::new();
        let is_root = root.is_some();
        let meta_keys: &[&str] =
            if is_root || node.embedded_resource { &kubeskema::objectmeta::RESOURCE_META_FIELDS } else { &[] };
        if is_root {
            fields.push(plain_field(
                "apiVersion",
                Ty::String,
                Shape::Required,
                Some("APIVersion defines the versioned schema of this representation of an object."),
            ));
            fields.push(plain_field(
                "kind",
                Ty::String,
                Shape::Required,
                Some("Kind is a string value representing the REST resource this object represents."),
            ));
            // What the schema says of them beyond their type (kopium's test CRD: an `enum` of
            // its one apiVersion) stays on them.
            for f in fields.iter_mut() {
                if let Some(p) = node.properties.get(&f.json_name) {
                    self.value_attrs(p, &mut f.attrs, true);
                }
            }
            let mut meta =
                plain_field("metadata", Ty::ObjectMeta, Shape::Defaulted, Some("Standard object's metadata."));
            meta.default = Some(Value::Object(Default::default()));
            self.metadata_schema(node, &mut meta.attrs);
            fields.push(meta);
        } else if node.embedded_resource {
            for (key, ty) in [("apiVersion", Ty::String), ("kind", Ty::String), ("metadata", Ty::ObjectMeta)] {
                let mut f = plain_field(key, ty, Shape::Optional, None);
                if let Some(p) = node.properties.get(key) {
                    f.doc = self.doc(p);
                    if key == "metadata" {
                        self.metadata_schema(node, &mut f.attrs);
                    } else {
                        self.value_attrs(p, &mut f.attrs, true);
                    }
                }
                fields.push(f);
            }
        }
        for (name, prop) in &node.properties {
            if meta_keys.contains(&name.as_str()) {
                continue;
            }
            let (ty, attrs) = self.field_type(prop, &names.child(name), Some(name), false);
            let required = node.required.contains(name);
            let default = prop.default.clone().map(|mut d| {
                kubeskema::prune::prune_value(&mut d, prop);
                d
            });
            let shape = Shape::of(prop.nullable, required, default.is_some());
            fields.push(FieldDef {
                boxed: false,
                json_name: name.clone(),
                ident: String::new(),
                ty,
                shape,
                default,
                doc: self.doc(prop),
                attrs,
            });
        }
        let keeps_unknown = inherited_preserve
            || node.preserves_unknown_fields()
            || matches!(node.additional_properties, Some(AdditionalProperties::Bool(true)));
        if keeps_unknown {
            fields.push(FieldDef {
                boxed: false,
                json_name: String::new(),
                ident: "unknown_fields".into(),
                ty: Ty::JsonMap,
                shape: Shape::UnknownFields,
                default: None,
                doc: Some("Fields the schema does not name, kept as the apiserver keeps them (x-kubernetes-preserve-unknown-fields).".into()),
                attrs: Vec::new(),
            });
        }
        allocate_idents(&mut fields);

        let mut attrs = Vec::new();
        if let Some(r) = &root {
            attrs.push(Attr::Resource(r.keys.clone()));
        }
        self.value_attrs(node, &mut attrs, true);
        if inherited_preserve && !node.preserves_unknown_fields() {
            attrs.push(Attr::Flag(Keyword::PreserveUnknownFields));
        }
        let unnamed: Vec<String> = node.required.iter().filter(|r| !node.properties.contains_key(r)).cloned().collect();
        if !unnamed.is_empty() {
            attrs.push(Attr::Strs(Keyword::RequiredKeys, unnamed));
        }
        let unions = unions_of(node);
        // A node's description documents the field that holds it; only roots document the type.
        let doc = root.as_ref().map(|r| {
            let about = format!("The `{}` resource of `{}/{}` (plural `{}`).", r.kind, r.group, r.version, r.plural);
            match self.doc(node) {
                Some(d) => format!("{d}\n\n{about}"),
                None => about,
            }
        });
        let def = StructDef { name: String::new(), doc, fields, attrs, root: root.map(Box::new), unions };
        let key = struct_key(&def, |ty| Some(ty.clone())).expect("invariant: every held type is kept as it is");
        self.intern(key, TypeDef::Struct(def), names, is_root)
    }

    /// Gives every type its name (see the module docs for the rule).
    fn assign_names(&mut self) {
        let n = self.pending.len();
        let mut level = vec![0usize; n];
        let name_at = |p: &Pending, l: usize| -> String {
            let last = p.candidates.len() - 1;
            if l <= last { p.candidates[l].clone() } else { format!("{}{}", p.candidates[last], l - last + 1) }
        };
        loop {
            let mut claims: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for (i, p) in self.pending.iter().enumerate() {
                claims.entry(name_at(p, level[i])).or_default().push(i);
            }
            let mut changed = false;
            for (name, ids) in &claims {
                let reserved = names::RESERVED_TYPE_NAMES.contains(&name.as_str());
                if ids.len() < 2 && !reserved {
                    continue;
                }
                let has_root = ids.iter().any(|&i| self.pending[i].is_root);
                let exhausted: Vec<usize> =
                    ids.iter().copied().filter(|&i| level[i] + 1 >= self.pending[i].candidates.len()).collect();
                for &i in ids {
                    if self.pending[i].is_root {
                        // A root keeps its kind's name, unless that names a type the module
                        // uses (`String`, `Self`) or an earlier root has it (`Foo`, `foo`).
                        let earlier_root = ids.iter().any(|&j| j < i && self.pending[j].is_root);
                        if reserved || earlier_root {
                            level[i] += 1;
                            changed = true;
                        }
                        continue;
                    }
                    let last = self.pending[i].candidates.len() - 1;
                    if level[i] < last {
                        level[i] += 1;
                        changed = true;
                    } else if reserved || has_root || exhausted.first() != Some(&i) {
                        // Out of candidates: numbered, keeping the first (by id) unnumbered.
                        level[i] += 1;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        for (i, t) in self.types.iter_mut().enumerate() {
            let name = name_at(&self.pending[i], level[i]);
            // A name says little of where the type is used (and a shared one names one place
            // of several): its docs list each.
            let used_at = (self.docs && !self.pending[i].is_root).then(|| used_at(&self.pending[i].used_at));
            let (slot, doc) = match t {
                TypeDef::Struct(s) => (&mut s.name, &mut s.doc),
                TypeDef::Enum(e) => (&mut e.name, &mut e.doc),
            };
            *slot = name;
            if let Some(used_at) = used_at {
                *doc = Some(match doc.take() {
                    Some(d) => format!("{d}\n\n{used_at}"),
                    None => used_at,
                });
            }
        }
    }
}

/// `Used at `A.spec.x` and `B.spec.x`.`: every place a type stands for, the first few.
fn used_at(paths: &[String]) -> String {
    const SHOWN: usize = 6;
    // A set beside the list: a type used at thousands of places is not quadratic.
    let mut seen = std::collections::HashSet::new();
    let unique: Vec<&String> = paths.iter().filter(|p| seen.insert(p.as_str())).collect();
    let shown: Vec<String> = unique.iter().take(SHOWN).map(|p| format!("`{p}`")).collect();
    let more = match unique.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!(" and {n} more places"),
    };
    format!("Used at {}{more}.", shown.join(", "))
}

fn visit(types: &[TypeDef], id: TypeId, seen: &mut [bool], order: &mut Vec<TypeId>) {
    if seen[id] {
        return;
    }
    seen[id] = true;
    order.push(id);
    if let TypeDef::Struct(s) = &types[id] {
        for f in &s.fields {
            let mut ty = &f.ty;
            loop {
                match ty {
                    Ty::Vec(t) | Ty::Map(t) | Ty::Option(t) => ty = t,
                    Ty::Named(child) => {
                        visit(types, *child, seen, order);
                        break;
                    }
                    _ => break,
                }
            }
        }
    }
}

fn plain_field(json: &str, ty: Ty, shape: Shape, doc: Option<&str>) -> FieldDef {
    FieldDef {
        boxed: false,
        json_name: json.to_owned(),
        ident: String::new(),
        ty,
        shape,
        default: None,
        doc: doc.map(str::to_owned),
        attrs: Vec::new(),
    }
}

/// Identifiers for a struct's fields: a name that is already its own snake case keeps it,
/// the others follow in order; a clash gets `_2`, `_3`, ...
fn allocate_idents(fields: &mut [FieldDef]) {
    let mut taken = names::Taken::default();
    let wanted: Vec<String> = fields
        .iter()
        .map(|f| if f.shape == Shape::UnknownFields { f.ident.clone() } else { names::field_ident(&f.json_name) })
        .collect();
    let exact: Vec<bool> = fields.iter().zip(&wanted).map(|(f, w)| f.json_name == *w).collect();
    let mut order: Vec<usize> = (0..fields.len()).filter(|&i| exact[i]).collect();
    order.extend((0..fields.len()).filter(|&i| !exact[i] && fields[i].shape != Shape::UnknownFields));
    order.extend((0..fields.len()).filter(|&i| fields[i].shape == Shape::UnknownFields));
    for i in order {
        fields[i].ident = taken.claim(&wanted[i], |base, n| format!("{}_{n}", base.trim_start_matches("r#")));
    }
}

/// The values of an `enum` that can become a Rust enum: every value of the node's own type
/// (nulls never match an enum, so they are left out); `None` otherwise.
fn enum_of(node: &Schema, ty: &str) -> Option<Vec<Value>> {
    let values = node.enum_.as_ref()?;
    let kept: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
    let fits = |v: &Value| match ty {
        "string" => v.is_string(),
        "integer" => v.as_i64().is_some(),
        "boolean" => v.is_boolean(),
        _ => false,
    };
    if kept.is_empty() || !kept.iter().all(fits) {
        return None;
    }
    // Repeats dropped, the first kept (by their JSON text: values are of one type here).
    let mut seen = std::collections::HashSet::new();
    Some(kept.into_iter().filter(|v| seen.insert(v.to_string())).collect())
}

/// A struct's identity for sharing: everything but names and docs, each held type as `held`
/// gives it (within a module, its id; across modules, a generation-wide number). `None` when
/// `held` has none for one.
fn struct_key(def: &StructDef, held: impl Fn(&Ty) -> Option<Ty>) -> Option<String> {
    let mut fields = Vec::with_capacity(def.fields.len());
    for f in &def.fields {
        fields.push((&f.json_name, &f.ident, held(&f.ty)?, f.boxed, f.shape, &f.default, &f.attrs));
    }
    Some(format!("struct {fields:?} {:?} {:?}", def.attrs, def.unions))
}

/// An enum's identity for sharing: its values (and the `enum` as written, when it differs).
fn enum_key(def: &EnumDef) -> String {
    format!("enum {:?} {:?}", def.variants, def.supported)
}

/// Types alike across the modules of one generation are defined once, in the first module
/// that has them; the others re-export it. "Alike" is the rule that makes one type of a
/// module's identical subschemas (fields, constraints and the types they hold; descriptions
/// left out, so the first module's documentation is kept), so a CRD's versions and a
/// project's groups share what they repeat (pod templates, references, conditions): less code
/// to compile, and one type where the schemas are one. Roots are never shared.
pub fn share_types(modules: &mut [Module]) {
    // Canonical key → global number; global number → where it was first defined.
    let mut numbers: HashMap<String, usize> = HashMap::new();
    let mut first: Vec<(usize, TypeId)> = Vec::new();
    for (mi, m) in modules.iter_mut().enumerate() {
        // Each type's global number; a type's fields hold types built before it.
        let mut canon: Vec<Option<usize>> = vec![None; m.types.len()];
        for id in 0..m.types.len() {
            canon[id] = canonical_key(m, id, &canon).map(|key| {
                *numbers.entry(key).or_insert_with(|| {
                    first.push((mi, id));
                    first.len() - 1
                })
            });
        }
        let shared = canon
            .iter()
            .map(|g| g.map(|g| first[g]).filter(|&(dm, _)| dm != mi).map(|(module, id)| SharedType { module, id }))
            .collect();
        m.shared = shared;
    }
}

/// What makes two types alike across modules: [`struct_key`] (or [`enum_key`]) with each held
/// type by its global number. `None` for roots, and for a type holding one that has none.
fn canonical_key(m: &Module, id: TypeId, canon: &[Option<usize>]) -> Option<String> {
    fn global_ty(ty: &Ty, canon: &[Option<usize>]) -> Option<Ty> {
        Some(match ty {
            Ty::Vec(t) => Ty::Vec(Box::new(global_ty(t, canon)?)),
            Ty::Map(t) => Ty::Map(Box::new(global_ty(t, canon)?)),
            Ty::Option(t) => Ty::Option(Box::new(global_ty(t, canon)?)),
            // A type not numbered yet (only a recursive one could be) is not shared.
            Ty::Named(child) => Ty::Named(canon.get(*child).copied().flatten()?),
            other => other.clone(),
        })
    }
    match &m.types[id] {
        TypeDef::Struct(s) if s.root.is_some() => None,
        TypeDef::Struct(s) => struct_key(s, |ty| global_ty(ty, canon)),
        TypeDef::Enum(e) => Some(enum_key(e)),
    }
}

/// `oneOf`/`anyOf` branches that each require one property (a `not` branch meaning "none of
/// them" is allowed, as Istio writes it).
fn unions_of(node: &Schema) -> Vec<Union> {
    let mut out = Vec::new();
    for (one_of, branches) in [(true, node.one_of()), (false, node.any_of())] {
        if branches.len() < 2 {
            continue;
        }
        let mut members = Vec::new();
        let mut ok = true;
        for b in branches {
            if b.not().is_some() && b.required.is_empty() {
                continue;
            }
            match &*b.required {
                [one] if node.properties.contains_key(one) && b.not().is_none() && !members.contains(one) => {
                    members.push(one.clone())
                }
                _ => ok = false,
            }
        }
        if ok && members.len() >= 2 {
            out.push(Union { one_of, members });
        }
    }
    out
}

/// Removes the `description`s of a schema node and the nodes under it (not properties named
/// `description`, nor anything inside `default`, `enum` or `example` values).
fn strip_descriptions(v: &mut Value) {
    let Value::Object(m) = v else { return };
    m.remove("description");
    for (k, child) in m.iter_mut() {
        match (k.as_str(), child) {
            ("properties", Value::Object(props)) => props.values_mut().for_each(strip_descriptions),
            ("items" | "additionalProperties" | "not", node @ Value::Object(_)) => strip_descriptions(node),
            ("items" | "allOf" | "anyOf" | "oneOf", Value::Array(nodes)) => {
                nodes.iter_mut().for_each(strip_descriptions)
            }
            _ => {}
        }
    }
}
