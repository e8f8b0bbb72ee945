//! The structural rules and the per-node CRD rules of one version's schema.

use crate::report::issue::{BadValue, ErrorType, supported_values};
use crate::schema::{AdditionalProperties, Schema};

use super::finding::Finding;
use super::go_dump;
use crate::dynamic::crd::Crd;

/// All findings for one version's schema, sorted and de-duplicated as the apiserver sorts
/// structural errors by their full text.
pub(super) fn check_schema(
    root: &Schema,
    crd: &Crd,
    base: &str,
    status_subresource: bool,
    lowered: Option<&mut super::LoweredRules>,
    relaxed: &super::Relaxed,
) -> Vec<Finding> {
    let mut c = Checker { findings: Vec::new(), patterns: Default::default(), crd: Some(crd), relaxed };
    c.conversion(root, base);
    // A schema the structural model cannot hold (`$ref`, items as an array, `$schema`, ...) is
    // never checked structurally: `NewStructural` fails first and only the generic walk reports.
    let convertible = c.findings.is_empty() && !has_keyword(root, "$schema");
    if convertible {
        c.structural(root, base, Level::Root);
        c.root_metadata(root, base);
        // Defaults are validated only in a structural schema.
        if c.findings.is_empty() {
            super::defaults::check(root, base, &mut c.findings, !relaxed.pruned_defaults);
        }
    }
    // CEL rules compile only in a structural schema with valid defaults, and at each node only
    // when the schema rules found nothing wrong at that node or below it.
    let cel_context = convertible && c.findings.is_empty();
    let before = c.findings.len();
    c.crd_rules(root, base, true, true, &MetaContext::default());
    if cel_context {
        let schema_errors: Vec<String> = c.findings[before..].iter().map(|f| f.pointer.clone()).collect();
        let has_errors =
            |node: &Schema| schema_errors.iter().any(|e| crate::report::path::below(e, &node.pointer).is_some());
        super::rules::check(root, base, &has_errors, &mut c.findings, lowered);
    }
    if root.nullable {
        c.push(
            root,
            format!("{base}.nullable"),
            ErrorType::Forbidden,
            BadValue::Omit,
            "nullable cannot be true at the root",
        );
    }
    if status_subresource {
        c.status_root(root, base);
    }
    // `$schema` fails only the structural conversion, whose error is shown when nothing else
    // is wrong with the schema.
    if c.findings.is_empty() && has_keyword(root, "$schema") {
        c.push(
            root,
            base.to_owned(),
            ErrorType::Invalid,
            BadValue::Str(String::new()),
            "OpenAPIV3Schema 'schema' is not supported",
        );
    }
    let mut findings = c.findings;
    findings.sort_by_key(Finding::text);
    findings.dedup_by(|a, b| a.text() == b.text());
    findings
}

/// Where a node stands relative to resource meta (`metadata`, `kind`, `apiVersion` of the
/// root or of an embedded resource), as the apiserver's `specStandardValidator` tracks it.
#[derive(Clone, Default)]
struct MetaContext {
    /// Inside resource meta: no embedded resources there.
    inside: bool,
    /// Why a `default` here is forbidden (`in top-level metadata`), if it is.
    defaults_forbidden: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Item,
    Field,
}

struct Checker<'a> {
    findings: Vec<Finding>,
    /// The CRD, where schema nodes' pointers lead in what was read (for values shown whole).
    crd: Option<&'a Crd>,
    /// Patterns already compiled, with their error if any (CRDs repeat the same few).
    patterns: std::collections::HashMap<String, Option<String>>,
    /// What an update no longer requires.
    relaxed: &'a super::Relaxed,
}

/// A set whose items are not atomic (`hasNonAtomicSetType`).
pub(super) fn non_atomic_set(s: &Schema) -> bool {
    let Some(items) = s.items.as_deref().filter(|_| s.list_type.as_deref() == Some("set")) else { return false };
    match items.type_str() {
        Some("array") => items.list_type.as_deref().is_some_and(|t| t != "atomic"),
        Some("object") => items.map_type() != Some("atomic"),
        _ => false,
    }
}

/// A set or map list with nullable items, or a map key that is nullable or neither required
/// nor defaulted (`hasInvalidMapListKeysMapSet`).
pub(super) fn invalid_list_keys(s: &Schema) -> bool {
    let Some(items) = s.items.as_deref().filter(|_| matches!(s.list_type.as_deref(), Some("set" | "map"))) else {
        return false;
    };
    items.nullable
        || (s.list_type.as_deref() == Some("map")
            && s.list_map_keys
                .iter()
                .filter_map(|k| Some((k, items.properties.get(k)?)))
                .any(|(k, p)| p.nullable || (!items.required.contains(k) && p.default.is_none())))
}

/// `openapiV3Types.List()`: sorted.
const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];

/// A type OpenAPI v3 does not know (`SchemaHasInvalidTypes`).
pub(super) fn invalid_type(s: &Schema) -> bool {
    s.type_str().is_some_and(|t| !t.is_empty() && !TYPES.contains(&t))
}

/// Each node's format that the apiserver does not know for the node's type.
pub(super) fn unrecognized_formats<'s>(s: &'s Schema, found: &mut dyn FnMut(&'s Schema, &'s str)) {
    if let Some(format) = s.format.as_deref().filter(|f| !f.is_empty())
        && !crate::check::format::recognized(s.type_str().unwrap_or_default(), format)
    {
        found(s, format);
    }
    s.children().for_each(|c| unrecognized_formats(c, found));
}

/// Whether anything the structural model cannot hold stands in the schema.
fn has_any_unsupported(s: &Schema) -> bool {
    !s.unsupported().is_empty() || s.children().any(has_any_unsupported)
}

/// Whether `keyword` (an unsupported one) stands anywhere in the schema.
fn has_keyword(s: &Schema, keyword: &str) -> bool {
    s.unsupported().iter().any(|k| k == keyword) || s.children().any(|c| has_keyword(c, keyword))
}

fn prop_path(p: &str, name: &str) -> String {
    format!("{p}.properties[{name}]")
}

impl<'a> Checker<'a> {
    fn push(&mut self, node: &Schema, field: String, error_type: ErrorType, value: BadValue, detail: impl AsRef<str>) {
        self.push_at(node.pointer.clone(), field, error_type, value, detail);
    }

    /// A finding placed at a JSON pointer below a node (a rule's `message`).
    fn push_at(
        &mut self,
        pointer: String,
        field: String,
        error_type: ErrorType,
        value: BadValue,
        detail: impl AsRef<str>,
    ) {
        self.findings.push(Finding::new(field, error_type, value, detail.as_ref(), pointer));
    }

    /// With the status subresource, the root may hold only the fields that keep their meaning
    /// once `status` is cut out of it: the first other field found, in the internal struct's
    /// order, is reported with the whole root schema (`type` other than `object` is its own
    /// error, and ends the look too).
    /// The CRD as read at a JSON pointer.
    fn raw_at(&self, pointer: &str) -> Option<std::borrow::Cow<'a, serde_json::Value>> {
        self.crd.and_then(|crd| crd.raw_at(pointer))
    }

    fn status_root(&mut self, root: &Schema, base: &str) {
        const ALLOWED: [&str; 22] = [
            "description",
            "type",
            "format",
            "title",
            "maximum",
            "exclusiveMaximum",
            "minimum",
            "exclusiveMinimum",
            "maxLength",
            "minLength",
            "pattern",
            "maxItems",
            "minItems",
            "uniqueItems",
            "multipleOf",
            "required",
            "items",
            "properties",
            "externalDocs",
            "example",
            "x-kubernetes-preserve-unknown-fields",
            "x-kubernetes-validations",
        ];
        let Some(crd) = self.crd else { return };
        // The root's keys, not the schema below it (made a value only to be shown whole).
        let raw = crd.raw_shallow_at(&root.pointer).unwrap_or_default();
        for key in go_dump::FIELD_KEYS {
            let Some(value) = raw.get(key).filter(|v| !go_dump::is_zero(key, v)) else { continue };
            if key == "type" {
                if let Some(t) = value.as_str().filter(|t| *t != "object") {
                    self.push(
                        root,
                        format!("{base}.type"),
                        ErrorType::Invalid,
                        BadValue::Str(t.to_owned()),
                        "only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled",
                    );
                    return;
                }
                continue;
            }
            if !ALLOWED.contains(&key) {
                self.push(
                    root,
                    base.to_owned(),
                    ErrorType::Invalid,
                    BadValue::Json(go_dump::schema(&crd.raw_at(&root.pointer).unwrap_or_default())),
                    "only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength \
                     MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs \
                     Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the \
                     status subresource is enabled",
                );
                return;
            }
        }
    }

    /// `convert.go`: what the structural model cannot represent at all.
    fn conversion(&mut self, s: &Schema, p: &str) {
        for kw in s.unsupported() {
            if kw == "$schema" {
                continue; // see `check_schema`
            }
            if kw == "items-array" {
                self.push(
                    s,
                    format!("{p}.items"),
                    ErrorType::Forbidden,
                    BadValue::Omit,
                    "items must be a schema object and not an array",
                );
            } else {
                self.push(
                    s,
                    format!("{p}.{kw}"),
                    ErrorType::Forbidden,
                    BadValue::Omit,
                    format!("{kw} is not supported"),
                );
            }
        }
        if s.preserve_unknown_fields == Some(false) {
            self.push(
                s,
                format!("{p}.x-kubernetes-preserve-unknown-fields"),
                ErrorType::Invalid,
                BadValue::Bool(false),
                "must be true or undefined",
            );
        }
        for (name, child) in &s.properties {
            self.conversion(child, &prop_path(p, name));
        }
        if let Some(i) = &s.items {
            self.conversion(i, &format!("{p}.items"));
        }
        if let Some(a) = s.additional_properties_schema() {
            self.conversion(a, &format!("{p}.additionalProperties"));
        }
        for (kw, list) in [("allOf", s.all_of()), ("anyOf", s.any_of()), ("oneOf", s.one_of())] {
            for (i, j) in list.iter().enumerate() {
                self.conversion(j, &format!("{p}.{kw}[{i}]"));
            }
        }
        if let Some(n) = s.not() {
            self.conversion(n, &format!("{p}.not"));
        }
    }

    /// `ValidateStructural` over the spine (properties, items, additionalProperties).
    fn structural(&mut self, s: &Schema, p: &str, level: Level) {
        if s.type_str() == Some("array") && s.items.is_none() {
            self.push(s, format!("{p}.items"), ErrorType::Required, BadValue::Omit, "must be specified");
        }
        let typeless = s.type_.as_deref().is_none_or(str::is_empty);
        if typeless && !s.int_or_string && !s.preserves_unknown_fields() && !s.embedded_resource {
            let why = match level {
                Level::Root => "must not be empty at the root",
                Level::Item => "must not be empty for specified array items",
                Level::Field => "must not be empty for specified object fields",
            };
            self.push(s, format!("{p}.type"), ErrorType::Required, BadValue::Omit, why);
        }
        if level == Level::Root {
            if let Some(t) = s.type_str().filter(|t| !t.is_empty() && *t != "object") {
                self.push(
                    s,
                    format!("{p}.type"),
                    ErrorType::Invalid,
                    BadValue::Str(t.to_owned()),
                    "must be object at the root",
                );
            }
            if s.additional_properties.is_some() {
                self.push(
                    s,
                    format!("{p}.additionalProperties"),
                    ErrorType::Forbidden,
                    BadValue::Omit,
                    "must not be used at the root",
                );
            }
        }
        if s.int_or_string && s.preserves_unknown_fields() {
            self.push(
                s,
                format!("{p}.x-kubernetes-preserve-unknown-fields"),
                ErrorType::Invalid,
                BadValue::Bool(true),
                "must be false if x-kubernetes-int-or-string is true",
            );
        }
        if s.int_or_string && s.embedded_resource {
            self.push(
                s,
                format!("{p}.x-kubernetes-embedded-resource"),
                ErrorType::Invalid,
                BadValue::Bool(true),
                "must be false if x-kubernetes-int-or-string is true",
            );
        }
        if s.embedded_resource {
            self.type_must_be(s, p, "object", "x-kubernetes-embedded-resource is true");
            if s.additional_properties.is_some() {
                self.push(
                    s,
                    format!("{p}.additionalProperties"),
                    ErrorType::Forbidden,
                    BadValue::Omit,
                    "must not be used if x-kubernetes-embedded-resource is set",
                );
            }
            if !s.preserves_unknown_fields() && s.properties.is_empty() {
                self.push(
                    s,
                    format!("{p}.properties"),
                    ErrorType::Required, BadValue::Omit,
                    "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
                );
            }
        }
        if level == Level::Root || s.embedded_resource {
            for meta in ["kind", "apiVersion"] {
                // A missing type is "" here, and not string either.
                if let Some(t) =
                    s.properties.get(meta).map(|m| m.type_str().unwrap_or_default()).filter(|t| *t != "string")
                {
                    let node = &s.properties[meta];
                    self.push(
                        node,
                        format!("{}.type", prop_path(p, meta)),
                        ErrorType::Invalid,
                        BadValue::Str(t.to_owned()),
                        "must be string",
                    );
                }
            }
            if let Some(m) = s.properties.get("metadata")
                && let Some(t) = Some(m.type_str().unwrap_or_default()).filter(|t| *t != "object")
            {
                self.push(
                    m,
                    format!("{}.type", prop_path(p, "metadata")),
                    ErrorType::Invalid,
                    BadValue::Str(t.to_owned()),
                    "must be object",
                );
            }
        }
        self.value_validation(s, p, false);
        // [quirk] `validateStructuralCompleteness` looks at the root's junctors only: what a
        // nested node's junctors name is never required on its spine.
        if level == Level::Root {
            self.completeness(s, p);
        }
        for (name, child) in &s.properties {
            self.structural(child, &prop_path(p, name), Level::Field);
        }
        if let Some(i) = &s.items {
            self.structural(i, &format!("{p}.items"), Level::Item);
        }
        if let Some(a) = s.additional_properties_schema() {
            self.structural(a, &format!("{p}.additionalProperties"), Level::Field);
        }
    }

    /// The root `metadata` may only restrict `name` and `generateName`.
    fn root_metadata(&mut self, root: &Schema, p: &str) {
        let Some(m) = root.properties.get("metadata") else {
            return;
        };
        let only_names = m.properties.keys().all(|k| k == "name" || k == "generateName");
        let bare = Schema {
            pointer: m.pointer.clone(),
            type_: m.type_.clone(),
            properties: m.properties.clone(),
            default: m.default.clone(),
            ..Schema::default()
        };
        if !only_names || *m != bare {
            self.push(
                m,
                prop_path(p, "metadata"),
                ErrorType::Forbidden,
                BadValue::Omit,
                "must not specify anything other than name and generateName, but metadata is implicitly specified",
            );
        }
    }

    /// Value validations and what junctors (allOf/anyOf/oneOf/not) may not carry.
    fn value_validation(&mut self, s: &Schema, p: &str, in_junctor: bool) {
        if let Some(pattern) = s.pattern.as_deref() {
            let error = self
                .patterns
                .entry(pattern.to_owned())
                .or_insert_with(|| crate::check::pattern::compile(pattern).err().map(|e| e.0))
                .clone();
            if let Some(e) = error {
                self.push(
                    s,
                    format!("{p}.pattern"),
                    ErrorType::Invalid,
                    BadValue::Str(pattern.to_owned()),
                    format!("must be a valid regular expression, but isn't: {e}"),
                );
            }
        }
        if in_junctor {
            self.junctor_forbidden(s, p);
        }
        for (kw, list) in [("allOf", s.all_of()), ("anyOf", s.any_of()), ("oneOf", s.one_of())] {
            for (i, j) in list.iter().enumerate() {
                let jp = format!("{p}.{kw}[{i}]");
                // The int-or-string idioms may carry `type` inside the junctor.
                let idiom = is_int_or_string_any_of(list) && kw == "anyOf"
                    || kw == "allOf" && i == 0 && is_int_or_string_any_of(j.any_of()) && j.type_.is_none();
                if idiom && kw == "anyOf" {
                    continue;
                }
                if idiom {
                    // Only the nested anyOf of the first allOf entry may type.
                    let mut rest = j.clone();
                    if let Some(junctors) = rest.seldom.written_mut() {
                        junctors.any_of.clear();
                    }
                    self.value_validation(&rest, &jp, true);
                    continue;
                }
                self.value_validation(j, &jp, true);
            }
        }
        if let Some(n) = s.not() {
            self.value_validation(n, &format!("{p}.not"), true);
        }
        if in_junctor {
            for (name, child) in &s.properties {
                let cp = prop_path(p, name);
                if name == "metadata" {
                    self.push(
                        child,
                        cp.clone(),
                        ErrorType::Forbidden,
                        BadValue::Omit,
                        "must not be specified in a nested context",
                    );
                }
                self.value_validation(child, &cp, true);
            }
            if let Some(i) = &s.items {
                self.value_validation(i, &format!("{p}.items"), true);
            }
            // additionalProperties in a junctor is refused whole (`junctor_forbidden`), and
            // what it holds is not looked at.
        }
    }

    fn junctor_forbidden(&mut self, s: &Schema, p: &str) {
        let f = ErrorType::Forbidden;
        if s.type_.is_some() {
            self.push(s, format!("{p}.type"), f, BadValue::Omit, "must be empty to be structural");
        }
        if s.additional_properties.is_some() {
            self.push(s, format!("{p}.additionalProperties"), f, BadValue::Omit, "must be undefined to be structural");
        }
        if s.default.is_some() {
            self.push(s, format!("{p}.default"), f, BadValue::Omit, "must be undefined to be structural");
        }
        if s.title().is_some() {
            self.push(s, format!("{p}.title"), f, BadValue::Omit, "must be empty to be structural");
        }
        if s.description.is_some() {
            self.push(s, format!("{p}.description"), f, BadValue::Omit, "must be empty to be structural");
        }
        if s.nullable {
            self.push(s, format!("{p}.nullable"), f, BadValue::Omit, "must be false to be structural");
        }
        for (set, kw) in [
            (s.preserve_unknown_fields.is_some(), "x-kubernetes-preserve-unknown-fields"),
            (s.embedded_resource, "x-kubernetes-embedded-resource"),
            (s.int_or_string, "x-kubernetes-int-or-string"),
        ] {
            if set {
                self.push(s, format!("{p}.{kw}"), f, BadValue::Omit, "must be false to be structural");
            }
        }
        if !s.list_map_keys.is_empty() {
            self.push(
                s,
                format!("{p}.x-kubernetes-list-map-keys"),
                f,
                BadValue::Omit,
                "must be empty to be structural",
            );
        }
        if s.list_type.is_some() {
            self.push(
                s,
                format!("{p}.x-kubernetes-list-type"),
                f,
                BadValue::Omit,
                "must be undefined to be structural",
            );
        }
        if s.map_type().is_some() {
            self.push(s, format!("{p}.x-kubernetes-map-type"), f, BadValue::Omit, "must be undefined to be structural");
        }
        if !s.validations.is_empty() {
            self.push(s, format!("{p}.x-kubernetes-validations"), f, BadValue::Omit, "must be empty to be structural");
        }
    }

    /// `complete.go`: what a junctor names must exist on the spine at the same place.
    fn completeness(&mut self, s: &Schema, p: &str) {
        let junctors = s
            .all_of()
            .iter()
            .enumerate()
            .map(|(i, j)| (format!("{p}.allOf[{i}]"), j))
            .chain(s.any_of().iter().enumerate().map(|(i, j)| (format!("{p}.anyOf[{i}]"), j)))
            .chain(s.one_of().iter().enumerate().map(|(i, j)| (format!("{p}.oneOf[{i}]"), j)))
            .chain(s.not().map(|j| (format!("{p}.not"), j)));
        let junctors: Vec<_> = junctors.collect();
        for (jp, j) in junctors {
            self.complete_against(s, p, j, &jp);
        }
    }

    fn complete_against(&mut self, spine: &Schema, sp: &str, j: &Schema, jp: &str) {
        for (name, jchild) in &j.properties {
            match spine.properties.get(name) {
                Some(child) => self.complete_against(child, &prop_path(sp, name), jchild, &prop_path(jp, name)),
                None => self.push(
                    jchild,
                    prop_path(sp, name),
                    ErrorType::Required,
                    BadValue::Omit,
                    format!("because it is defined in {}", prop_path(jp, name)),
                ),
            }
        }
        if let Some(ji) = &j.items {
            match &spine.items {
                Some(si) => self.complete_against(si, &format!("{sp}.items"), ji, &format!("{jp}.items")),
                None => self.push(
                    ji,
                    format!("{sp}.items"),
                    ErrorType::Required,
                    BadValue::Omit,
                    format!("because it is defined in {jp}.items"),
                ),
            }
        }
        if let Some(ja) = j.additional_properties_schema()
            && let Some(sa) = spine.additional_properties_schema()
        {
            self.complete_against(sa, &format!("{sp}.additionalProperties"), ja, &format!("{jp}.additionalProperties"));
        }
        for (kw, list) in [("allOf", &j.all_of()), ("anyOf", &j.any_of()), ("oneOf", &j.one_of())] {
            for (i, nested) in list.iter().enumerate() {
                self.complete_against(spine, sp, nested, &format!("{jp}.{kw}[{i}]"));
            }
        }
        if let Some(n) = &j.not() {
            self.complete_against(spine, sp, n, &format!("{jp}.not"));
        }
    }

    /// Per-node CRD rules of `ValidateCustomResourceDefinitionOpenAPISchema` (and its
    /// `specStandardValidatorV3`): `meta` says whether the node is inside resource meta and
    /// why defaults are forbidden there.
    fn crd_rules(&mut self, s: &Schema, p: &str, spine: bool, is_root: bool, meta: &MetaContext) {
        if let Some(t) = s.type_str().filter(|_| invalid_type(s) && !self.relaxed.property_types) {
            self.push(
                s,
                format!("{p}.type"),
                ErrorType::NotSupported,
                BadValue::Str(t.to_owned()),
                supported_values(&TYPES),
            );
        }
        if let Some(why) = &meta.defaults_forbidden
            && s.default.is_some()
        {
            self.push(
                s,
                format!("{p}.default"),
                ErrorType::Forbidden,
                BadValue::Omit,
                format!("must not be set {why}"),
            );
        }
        // [quirk] `null` is refused twice: not a supported type, and not a type at all.
        if s.type_str() == Some("null") {
            self.push(
                s,
                format!("{p}.type"),
                ErrorType::Forbidden,
                BadValue::Omit,
                "type cannot be set to null, use nullable as an alternative",
            );
        }
        if meta.inside && s.embedded_resource {
            self.push(
                s,
                format!("{p}.x-kubernetes-embedded-resource"),
                ErrorType::Forbidden,
                BadValue::Omit,
                "must not be used inside of resource meta",
            );
        }
        if s.unique_items() {
            self.push(
                s,
                format!("{p}.uniqueItems"),
                ErrorType::Forbidden,
                BadValue::Omit,
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            );
        }
        if !s.properties.is_empty()
            && matches!(
                s.additional_properties,
                Some(AdditionalProperties::Schema(_)) | Some(AdditionalProperties::Bool(false))
            )
        {
            self.push(
                s,
                format!("{p}.additionalProperties"),
                ErrorType::Forbidden,
                BadValue::Omit,
                "additionalProperties and properties are mutual exclusive",
            );
        }
        if spine {
            self.list_and_map_types(s, p);
        }
        self.validation_rules(s, p);
        for (name, child) in &s.properties {
            let child_meta = if (is_root || s.embedded_resource)
                && crate::check::objectmeta::RESOURCE_META_FIELDS.contains(&name.as_str())
            {
                MetaContext {
                    inside: true,
                    defaults_forbidden: if is_root {
                        Some(format!("in top-level {name}"))
                    } else {
                        meta.defaults_forbidden.clone()
                    },
                }
            } else {
                meta.clone()
            };
            self.crd_rules(child, &prop_path(p, name), spine, false, &child_meta);
        }
        if let Some(i) = &s.items {
            self.crd_rules(i, &format!("{p}.items"), spine, false, meta);
        }
        if let Some(a) = s.additional_properties_schema() {
            // Pruning a default inside metadata's maps would be ambiguous.
            let child_meta = if meta.inside {
                MetaContext {
                    inside: true,
                    defaults_forbidden: Some("inside additionalProperties applying to object metadata".into()),
                }
            } else {
                meta.clone()
            };
            self.crd_rules(a, &format!("{p}.additionalProperties"), spine, false, &child_meta);
        }
        for (kw, list) in [("allOf", s.all_of()), ("anyOf", s.any_of()), ("oneOf", s.one_of())] {
            for (i, j) in list.iter().enumerate() {
                self.crd_rules(j, &format!("{p}.{kw}[{i}]"), false, false, meta);
            }
        }
        if let Some(n) = s.not() {
            self.crd_rules(n, &format!("{p}.not"), false, false, meta);
        }
    }

    /// The static checks of each `x-kubernetes-validations` entry (schema errors: they keep
    /// the rules from being compiled).
    fn validation_rules(&mut self, s: &Schema, p: &str) {
        let has_newlines = |t: &str| t.contains(['\n', '\r']);
        for (i, rule) in s.validations.iter().enumerate() {
            let rp = format!("{p}.x-kubernetes-validations[{i}]");
            let at = format!("{}/x-kubernetes-validations/{i}", s.pointer);
            let message = rule.message.as_deref().unwrap_or_default();
            let trimmed_rule = rule.rule.trim();
            let trimmed_message = message.trim();
            if trimmed_rule.is_empty() {
                self.push_at(
                    format!("{at}/rule"),
                    format!("{rp}.rule"),
                    ErrorType::Required,
                    BadValue::Omit,
                    "rule is not specified",
                );
            } else if !message.is_empty() && trimmed_message.is_empty() {
                self.push_at(
                    format!("{at}/message"),
                    format!("{rp}.message"),
                    ErrorType::Invalid,
                    BadValue::Str(message.to_owned()),
                    "must be non-empty if specified",
                );
            } else if has_newlines(trimmed_message) {
                self.push_at(
                    format!("{at}/message"),
                    format!("{rp}.message"),
                    ErrorType::Invalid,
                    BadValue::Str(message.to_owned()),
                    "must not contain line breaks",
                );
            } else if has_newlines(trimmed_rule) && trimmed_message.is_empty() {
                self.push_at(
                    format!("{at}/message"),
                    format!("{rp}.message"),
                    ErrorType::Required,
                    BadValue::Omit,
                    "message must be specified if rule contains line breaks",
                );
            }
            if let Some(e) = &rule.message_expression
                && !e.is_empty()
                && e.trim().is_empty()
            {
                self.push_at(
                    format!("{at}/messageExpression"),
                    format!("{rp}.messageExpression"),
                    ErrorType::Required,
                    BadValue::Omit,
                    "messageExpression must be non-empty if specified",
                );
            }
            // The Go source's set, listed sorted.
            const REASONS: [&str; 4] =
                ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"];
            if let Some(reason) = rule.reason.as_deref().filter(|r| !REASONS.contains(r)) {
                self.push_at(
                    format!("{at}/reason"),
                    format!("{rp}.reason"),
                    ErrorType::NotSupported,
                    BadValue::Str(reason.to_owned()),
                    supported_values(&REASONS),
                );
            }
            let field_path = rule.field_path.as_deref().unwrap_or_default();
            if !field_path.is_empty() && field_path.trim().is_empty() {
                self.push_at(
                    format!("{at}/fieldPath"),
                    format!("{rp}.fieldPath"),
                    ErrorType::Invalid,
                    BadValue::Str(field_path.to_owned()),
                    "must be non-empty if specified",
                );
            }
            if has_newlines(field_path) {
                self.push_at(
                    format!("{at}/fieldPath"),
                    format!("{rp}.fieldPath"),
                    ErrorType::Invalid,
                    BadValue::Str(field_path.to_owned()),
                    "must not contain line breaks",
                );
            }
            // Resolved against the node's schema, when that converts to a structural one.
            if !field_path.is_empty()
                && !has_any_unsupported(s)
                && !crate::cel::compile::valid_field_path(field_path, s)
            {
                self.push_at(
                    format!("{at}/fieldPath"),
                    format!("{rp}.fieldPath"),
                    ErrorType::Invalid,
                    BadValue::Str(field_path.to_owned()),
                    "must be a valid path",
                );
            }
        }
    }

    /// `<p>.type` must be `want` because of an extension: `Required value` when missing,
    /// `Invalid value` when another type.
    fn type_must_be(&mut self, s: &Schema, p: &str, want: &str, because: &str) {
        match s.type_str() {
            Some(t) if t == want => {}
            None | Some("") => self.push(
                s,
                format!("{p}.type"),
                ErrorType::Required,
                BadValue::Omit,
                format!("must be {want} if {because}"),
            ),
            Some(t) => self.push(
                s,
                format!("{p}.type"),
                ErrorType::Invalid,
                BadValue::Str(t.to_owned()),
                format!("must be {want} if {because}"),
            ),
        }
    }

    fn list_and_map_types(&mut self, s: &Schema, p: &str) {
        if let Some(mt) = s.map_type() {
            self.type_must_be(s, p, "object", "x-kubernetes-map-type is specified");
            if mt != "atomic" && mt != "granular" {
                self.push(
                    s,
                    format!("{p}.x-kubernetes-map-type"),
                    ErrorType::NotSupported,
                    BadValue::Str(mt.to_owned()),
                    supported_values(&["atomic", "granular"]),
                );
            }
        }
        if let Some(lt) = s.list_type.as_deref() {
            self.type_must_be(s, p, "array", "x-kubernetes-list-type is specified");
            if !["atomic", "set", "map"].contains(&lt) {
                self.push(
                    s,
                    format!("{p}.x-kubernetes-list-type"),
                    ErrorType::NotSupported,
                    BadValue::Str(lt.to_owned()),
                    supported_values(&["atomic", "set", "map"]),
                );
            }
        }
        if s.list_type.as_deref() == Some("set")
            && s.type_str() == Some("array")
            && !self.relaxed.set_items
            && let Some(items) = &s.items
        {
            const WHY: &str = "must be atomic as item of a list with x-kubernetes-list-type=set";
            match items.type_str() {
                Some("array") if items.list_type.as_deref().is_some_and(|t| t != "atomic") => self.push(
                    items,
                    format!("{p}.items.x-kubernetes-list-type"),
                    ErrorType::Invalid,
                    BadValue::Str(items.list_type.as_deref().unwrap_or_default().to_owned()),
                    WHY,
                ),
                // [quirk] the apiserver prints the items' list type here (normally unset: null).
                Some("object") if items.map_type() != Some("atomic") => self.push(
                    items,
                    format!("{p}.items.x-kubernetes-map-type"),
                    ErrorType::Invalid,
                    items.list_type.as_deref().map_or(BadValue::Null, |t| BadValue::Str(t.to_owned())),
                    WHY,
                ),
                _ => {}
            }
        }
        if !s.list_map_keys.is_empty() {
            match s.list_type.as_deref() {
                Some("map") => {}
                None => self.push(
                    s,
                    format!("{p}.x-kubernetes-list-type"),
                    ErrorType::Required,
                    BadValue::Omit,
                    "must be map if x-kubernetes-list-map-keys is non-empty",
                ),
                Some(lt) => self.push(
                    s,
                    format!("{p}.x-kubernetes-list-type"),
                    ErrorType::Invalid,
                    BadValue::Str(lt.to_owned()),
                    "must be map if x-kubernetes-list-map-keys is non-empty",
                ),
            }
        }
        let lt = s.list_type.as_deref();
        if matches!(lt, Some("set" | "map"))
            && !self.relaxed.list_keys
            && let Some(items) = &s.items
            && items.nullable
        {
            self.push(
                items,
                format!("{p}.items.nullable"),
                ErrorType::Forbidden,
                BadValue::Omit,
                format!("cannot be nullable when x-kubernetes-list-type is {}", lt.unwrap_or_default()),
            );
        }
        if lt == Some("map") {
            if s.list_map_keys.is_empty() {
                self.push(
                    s,
                    format!("{p}.x-kubernetes-list-map-keys"),
                    ErrorType::Required,
                    BadValue::Omit,
                    "must not be empty if x-kubernetes-list-type is map",
                );
            }
            // (Items given as an array are refused on their own: `items must be a schema object`.)
            // An empty list of items converts to no schema at all, but is still a list here.
            let items_array = s.unsupported().iter().any(|k| k == "items-array")
                || self.raw_at(&format!("{}/items", s.pointer)).is_some_and(|items| items.is_array());
            if s.items.is_none() && !items_array {
                self.push(
                    s,
                    format!("{p}.items"),
                    ErrorType::Required,
                    BadValue::Omit,
                    "must have a schema if x-kubernetes-list-type is map",
                );
            }
            if let Some(list) = items_array.then(|| self.raw_at(&format!("{}/items", s.pointer))).flatten() {
                self.push(
                    s,
                    format!("{p}.items"),
                    ErrorType::Invalid,
                    BadValue::Json(go_dump::schema_or_array(&list)),
                    "must only have a single schema if x-kubernetes-list-type is map",
                );
            }
            if let Some(items) = &s.items {
                // A missing type is "" here, and not object either.
                if let Some(t) = Some(items.type_str().unwrap_or_default()).filter(|t| *t != "object") {
                    self.push(
                        items,
                        format!("{p}.items.type"),
                        ErrorType::Invalid,
                        BadValue::Str(t.to_owned()),
                        "must be object if parent array's x-kubernetes-list-type is map",
                    );
                } else {
                    let mut seen = Vec::new();
                    for key in &s.list_map_keys {
                        if seen.contains(&key) {
                            self.push(
                                s,
                                format!("{p}.x-kubernetes-list-map-keys"),
                                ErrorType::Invalid,
                                json_list(&s.list_map_keys),
                                "must not contain duplicate entries",
                            );
                        }
                        seen.push(key);
                        let Some(prop) = items.properties.get(key) else {
                            self.push(
                                s,
                                format!("{p}.x-kubernetes-list-map-keys"),
                                ErrorType::Invalid,
                                json_list(&s.list_map_keys),
                                "entries must all be names of item properties",
                            );
                            continue;
                        };
                        let kp = prop_path(&format!("{p}.items"), key);
                        if matches!(prop.type_str(), Some("array" | "object")) {
                            self.push(
                                prop,
                                format!("{kp}.type"),
                                ErrorType::Invalid,
                                // [quirk] the apiserver prints the items' type, not the key's.
                                BadValue::Str(items.type_str().unwrap_or("object").to_owned()),
                                "must be a scalar type if parent array's x-kubernetes-list-type is map",
                            );
                        }
                        if !items.required.contains(key) && prop.default.is_none() && !self.relaxed.list_keys {
                            self.push(
                                prop,
                                format!("{kp}.default"),
                                ErrorType::Required, BadValue::Omit,
                                "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                            );
                        }
                        if prop.nullable && !self.relaxed.list_keys {
                            self.push(
                                prop,
                                format!("{kp}.nullable"),
                                ErrorType::Forbidden,
                                BadValue::Omit,
                                "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                            );
                        }
                    }
                }
            }
        }
    }
}

/// A list value as the apiserver prints it in a field error: JSON.
fn json_list(list: &[String]) -> BadValue {
    BadValue::Json(serde_json::to_string(list).unwrap_or_default())
}

/// `anyOf: [{type: integer}, {type: string}]`, exactly: the int-or-string idiom.
fn is_int_or_string_any_of(list: &[Schema]) -> bool {
    let only_type = |s: &Schema, t: &str| {
        let bare = Schema { pointer: s.pointer.clone(), type_: Some(t.into()), ..Schema::default() };
        *s == bare
    };
    list.len() == 2 && only_type(&list[0], "integer") && only_type(&list[1], "string")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn findings(schema: serde_json::Value) -> Vec<String> {
        let (s, errors) = Schema::parse(&schema, "");
        assert!(errors.is_empty(), "{errors:?}");
        // The schema is its own document here: its nodes' pointers start at its root.
        let document = Crd::parse_owned(schema).0;
        check_schema(&s, &document, "spec.validation.openAPIV3Schema", false, None, &Default::default())
            .iter()
            .map(Finding::text)
            .collect()
    }

    /// A list default's value error: kube-openapi's path (`[0].type`) is one child of the
    /// default's (`default.[0].type`), as kube-apiserver 1.36.3 prints it (compat-diff, pair
    /// c1-01066: Gateway API's `status.conditions` default with `type` made an integer).
    #[test]
    fn a_list_defaults_value_error_is_one_child_of_the_default() {
        let found = findings(json!({"type": "object", "properties": {"status": {"type": "object", "properties": {
            "conditions": {"type": "array", "default": [{"type": "Accepted"}],
                           "items": {"type": "object", "properties": {"type": {"type": "integer"}}}}}}}}));
        assert_eq!(
            found,
            [
                "spec.validation.openAPIV3Schema.properties[status].properties[conditions].default.[0].type: Invalid value: \"string\": [0].type in body must be of type integer: \"string\""
            ]
        );
    }

    #[test]
    fn a_structural_schema_passes() {
        assert_eq!(
            findings(json!({"type": "object", "properties": {
                "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 63}}},
                "spec": {"type": "object", "properties": {
                    "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                    "free": {"x-kubernetes-preserve-unknown-fields": true},
                    "l": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}},
                    "u": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                          "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}}}}})),
            Vec::<String>::new()
        );
    }

    #[test]
    fn missing_types_are_reported_per_level_with_apiserver_words() {
        assert_eq!(
            findings(json!({"properties": {"a": {}, "l": {"type": "array", "items": {}}, "n": {"type": "array"}}})),
            vec![
                "spec.validation.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields",
                "spec.validation.openAPIV3Schema.properties[l].items.type: Required value: must not be empty for specified array items",
                "spec.validation.openAPIV3Schema.properties[n].items: Required value: must be specified",
                "spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root",
            ]
        );
    }

    #[test]
    fn junctors_may_only_validate_values() {
        assert_eq!(
            findings(json!({"type": "object", "properties": {"a": {"type": "string"}},
                "anyOf": [{"type": "string", "nullable": true, "properties": {"a": {"default": "x"}, "metadata": {}}}]})),
            vec![
                "spec.validation.openAPIV3Schema.anyOf[0].nullable: Forbidden: must be false to be structural",
                "spec.validation.openAPIV3Schema.anyOf[0].properties[a].default: Forbidden: must be undefined to be structural",
                "spec.validation.openAPIV3Schema.anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context",
                "spec.validation.openAPIV3Schema.anyOf[0].type: Forbidden: must be empty to be structural",
                "spec.validation.openAPIV3Schema.properties[metadata]: Required value: because it is defined in spec.validation.openAPIV3Schema.anyOf[0].properties[metadata]",
            ]
        );
    }

    #[test]
    fn root_rules_and_metadata_restriction() {
        assert_eq!(
            findings(json!({"type": "string", "additionalProperties": {"type": "string"},
                "properties": {"metadata": {"type": "object", "description": "x"}, "kind": {"type": "integer"}}})),
            vec![
                "spec.validation.openAPIV3Schema.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
                "spec.validation.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root",
                "spec.validation.openAPIV3Schema.properties[kind].type: Invalid value: \"integer\": must be string",
                "spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
                "spec.validation.openAPIV3Schema.type: Invalid value: \"string\": must be object at the root",
            ]
        );
    }

    #[test]
    fn list_map_keys_must_be_required_scalar_properties() {
        assert_eq!(
            findings(json!({"type": "object", "properties": {"l": {"type": "array",
                "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "o", "gone"],
                "items": {"type": "object", "properties": {"name": {"type": "string"}, "o": {"type": "object"}}}}}})),
            vec![
                "spec.validation.openAPIV3Schema.properties[l].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                "spec.validation.openAPIV3Schema.properties[l].items.properties[o].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                "spec.validation.openAPIV3Schema.properties[l].items.properties[o].type: Invalid value: \"object\": must be a scalar type if parent array's x-kubernetes-list-type is map",
                "spec.validation.openAPIV3Schema.properties[l].x-kubernetes-list-map-keys: Invalid value: [\"name\",\"o\",\"gone\"]: entries must all be names of item properties",
            ]
        );
    }

    #[test]
    fn patterns_must_compile_as_go_regular_expressions() {
        let found = findings(json!({"type": "object", "properties": {
            "a": {"type": "string", "pattern": "("},
            "b": {"type": "string", "pattern": "^[[]\\d{2}$"},
            "c": {"type": "string", "pattern": "x{1001}"}}}));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("spec.validation.openAPIV3Schema.properties[a].pattern: Invalid value: \"(\": must be a valid regular expression, but isn't: error parsing regexp: "), "{found:?}");
        assert_eq!(
            found[1],
            "spec.validation.openAPIV3Schema.properties[c].pattern: Invalid value: \"x{1001}\": must be a valid regular expression, but isn't: error parsing regexp: invalid repeat count: `{1001}`"
        );
    }

    #[test]
    fn unsupported_keywords_and_preserve_false() {
        assert_eq!(
            findings(
                json!({"type": "object", "$ref": "#/x", "properties": {"a": {"type": "object", "x-kubernetes-preserve-unknown-fields": false}}})
            ),
            vec![
                "spec.validation.openAPIV3Schema.$ref: Forbidden: $ref is not supported",
                "spec.validation.openAPIV3Schema.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined",
            ]
        );
    }

    /// apiextensions `validation_test.go` `TestValidateCustomResourceDefinition`
    /// ("null type", "items array"): `type: null` is refused as unsupported *and* forbidden;
    /// at the root the structural rule adds the third error.
    #[test]
    fn null_types_are_refused_twice_and_thrice_at_the_root() {
        assert_eq!(
            findings(json!({"type": "null"})),
            vec![
                "spec.validation.openAPIV3Schema.type: Forbidden: type cannot be set to null, use nullable as an alternative",
                "spec.validation.openAPIV3Schema.type: Invalid value: \"null\": must be object at the root",
                "spec.validation.openAPIV3Schema.type: Unsupported value: \"null\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
            ]
        );
        assert_eq!(
            findings(
                json!({"type": "object", "properties": {"a": {"type": "null"}, "b": {"type": "array", "items": [{"type": "string"}]}}})
            ),
            vec![
                "spec.validation.openAPIV3Schema.properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative",
                "spec.validation.openAPIV3Schema.properties[a].type: Unsupported value: \"null\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
                "spec.validation.openAPIV3Schema.properties[b].items: Forbidden: items must be a schema object and not an array",
            ]
        );
    }

    /// apiextensions `validation_test.go` ("defaults in top-level metadata", "embedded
    /// resource metadata with additionalProperties defaults", "x-kubernetes-embedded-resource
    /// inside resource meta").
    #[test]
    fn defaults_and_embedded_resources_inside_resource_meta() {
        assert_eq!(
            findings(json!({"type": "object", "properties": {
                "metadata": {"type": "object", "properties": {"name": {"type": "string", "default": "x"}}},
                "kind": {"type": "string", "default": "K"},
                "spec": {"type": "object", "properties": {
                    "pod": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {
                        "metadata": {"type": "object", "properties": {
                            "labels": {"type": "object", "additionalProperties": {"type": "string", "default": "v"}},
                            "inner": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}}}}}}}}})),
            vec![
                "spec.validation.openAPIV3Schema.properties[kind].default: Forbidden: must not be set in top-level kind",
                "spec.validation.openAPIV3Schema.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata",
                "spec.validation.openAPIV3Schema.properties[spec].properties[pod].properties[metadata].properties[inner].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta",
                "spec.validation.openAPIV3Schema.properties[spec].properties[pod].properties[metadata].properties[labels].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata",
            ]
        );
    }

    /// apiextensions `validation_test.go` ("set list with non-atomic object items", "set list
    /// with non-atomic list items"): set items must be atomic; the object case prints the
    /// items' list type \[quirk\].
    #[test]
    fn set_items_must_be_atomic() {
        assert_eq!(
            findings(json!({"type": "object", "properties": {
                "objs": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object", "properties": {"a": {"type": "string"}}}},
                "granular": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object", "x-kubernetes-map-type": "granular"}},
                "atomic": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object", "x-kubernetes-map-type": "atomic"}},
                "lists": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}},
                "ok": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "array", "items": {"type": "string"}}}}})),
            vec![
                "spec.validation.openAPIV3Schema.properties[granular].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set",
                "spec.validation.openAPIV3Schema.properties[lists].items.x-kubernetes-list-type: Invalid value: \"set\": must be atomic as item of a list with x-kubernetes-list-type=set",
                "spec.validation.openAPIV3Schema.properties[objs].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set",
            ]
        );
    }

    /// apiextensions `validation_test.go` `TestValidateCustomResourceDefinitionValidation`
    /// x-kubernetes-validations cases (empty rule, blank message, message with line breaks,
    /// multi-line rule without message, blank messageExpression, unknown reason, blank or
    /// multi-line fieldPath).
    #[test]
    fn validation_rule_fields() {
        assert_eq!(
            findings(json!({"type": "object", "properties": {"a": {"type": "string", "x-kubernetes-validations": [
                {"rule": "  "},
                {"rule": "self == 'x'", "message": "   "},
                {"rule": "self == 'x'", "message": "a\nb"},
                {"rule": "self ==\n'x'"},
                {"rule": "self == 'x'", "messageExpression": " "},
                {"rule": "self == 'x'", "reason": "FieldValueBogus"},
                {"rule": "self == 'x'", "fieldPath": " "},
                {"rule": "self == 'x'", "fieldPath": ".a\n"}]}}})),
            vec![
                "spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[0].rule: Required value: rule is not specified",
                "spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[1].message: Invalid value: \"   \": must be non-empty if specified",
                "spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[2].message: Invalid value: \"a\\nb\": must not contain line breaks",
                "spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[3].message: Required value: message must be specified if rule contains line breaks",
                "spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[4].messageExpression: Required value: messageExpression must be non-empty if specified",
                "spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[5].reason: Unsupported value: \"FieldValueBogus\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"",
                // Neither resolves in the schema either (kube-apiserver 1.36.3 says both).
                "spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[6].fieldPath: Invalid value: \" \": must be a valid path",
                "spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[6].fieldPath: Invalid value: \" \": must be non-empty if specified",
                "spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[7].fieldPath: Invalid value: \".a\\n\": must be a valid path",
                "spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[7].fieldPath: Invalid value: \".a\\n\": must not contain line breaks",
            ]
        );
        // Compiled only when the schema is otherwise clean: optionalOldSelf needs oldSelf.
        assert_eq!(
            findings(json!({"type": "object", "properties": {"a": {"type": "string", "x-kubernetes-validations": [
                {"rule": "self == 'x'", "optionalOldSelf": true}]}}})),
            vec![
                "spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule",
            ]
        );
    }

    /// Values print as Go's `%q`; list types are listed in the Go source's order.
    #[test]
    fn values_are_go_quoted_and_lists_in_source_order() {
        assert_eq!(
            findings(json!({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "string"},
                "x-kubernetes-list-type": "b\u{a0}ag"}}})),
            vec![
                "spec.validation.openAPIV3Schema.properties[l].x-kubernetes-list-type: Unsupported value: \"b\\u00a0ag\": supported values: \"atomic\", \"set\", \"map\"",
            ]
        );
    }

    #[test]
    fn preserve_unknown_fields_false_at_the_root() {
        assert_eq!(
            findings(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": false})),
            vec![
                "spec.validation.openAPIV3Schema.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined",
            ]
        );
    }

    /// apiextensions `validation_test.go` "invalid defaults with enabled feature gate,
    /// structural schema" (semantics §5.3): unpruned defaults (judged by the node's own schema,
    /// a preserving parent does not count), value errors inside a default at
    /// `default.<field>`, embedded resources whose metadata is left unpruned.
    #[test]
    fn defaults_must_be_pruned_and_valid_against_their_own_schema() {
        let string_foo = json!({"foo": {"type": "string"}});
        let embedded_default = json!({"foo": "abc", "apiVersion": "foo/v1", "kind": "v1", "metadata": {"name": "foo"}});
        let mut unpruned_meta = embedded_default.clone();
        unpruned_meta["metadata"]["unspecified"] = json!("bar");
        unpruned_meta["bar"] = json!(42);
        assert_eq!(
            findings(json!({"type": "object", "properties": {
                "a": {"type": "object", "properties": string_foo, "default": {"foo": "abc", "bar": 42}},
                "b": {"type": "object", "properties": string_foo, "default": {"foo": "abc"}},
                "c": {"type": "object", "properties": string_foo, "default": {"foo": 42}},
                "d": {"type": "object", "properties": {"good": {"type": "string", "pattern": "a"}, "bad": {"type": "string", "pattern": "b"}},
                      "default": {"good": "a", "bad": "a"}},
                "e": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {
                    "preserveUnknownFields": {"type": "object", "default": {"foo": "abc", "bar": 42}},
                    "nestedProperties": {"type": "object", "properties": string_foo, "default": {"foo": "abc", "bar": 42}}}},
                "embedded-fine": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": string_foo,
                                  "default": embedded_default},
                "embedded-preserve-unpruned-objectmeta": {"type": "object", "x-kubernetes-embedded-resource": true,
                    "x-kubernetes-preserve-unknown-fields": true, "properties": string_foo, "default": unpruned_meta}}})),
            vec![
                "spec.validation.openAPIV3Schema.properties[a].default: Invalid value: {\"bar\":42,\"foo\":\"abc\"}: must not have unknown fields",
                "spec.validation.openAPIV3Schema.properties[c].default.foo: Invalid value: \"integer\": foo in body must be of type string: \"integer\"",
                "spec.validation.openAPIV3Schema.properties[d].default.bad: Invalid value: \"a\": bad in body should match 'b'",
                "spec.validation.openAPIV3Schema.properties[e].properties[nestedProperties].default: Invalid value: {\"bar\":42,\"foo\":\"abc\"}: must not have unknown fields",
                "spec.validation.openAPIV3Schema.properties[e].properties[preserveUnknownFields].default: Invalid value: {\"bar\":42,\"foo\":\"abc\"}: must not have unknown fields",
            ]
        );
    }

    /// apiextensions `validation_test.go` "invalid default with x-kubernetes-validations" (and
    /// its valid twin): a default must pass the rules of its node and below.
    #[test]
    fn defaults_must_pass_their_cel_rules() {
        let schema = |name: &str, value: &str, object: serde_json::Value| {
            json!({"type": "object", "properties": {
                "embedded": {"type": "object", "properties": {"metadata": {"type": "object", "x-kubernetes-embedded-resource": true,
                    "properties": {"name": {"type": "string", "x-kubernetes-validations": [{"rule": "self == 'singleton'"}], "default": name}}}}},
                "value": {"type": "string", "x-kubernetes-validations": [{"rule": "self.startsWith('kube')"}], "default": value},
                "object": {"type": "object", "properties": {"field1": {"type": "integer"}, "field2": {"type": "integer"}},
                    "x-kubernetes-validations": [{"rule": "self.field1 < self.field2"}], "default": object}}})
        };
        assert_eq!(
            findings(schema("singleton", "kube-everything", json!({"field1": 1, "field2": 2}))),
            Vec::<String>::new()
        );
        assert_eq!(
            findings(schema("nope", "nope", json!({"field1": 2, "field2": 1}))),
            vec![
                "spec.validation.openAPIV3Schema.properties[embedded].properties[metadata].properties[name].default: Invalid value: \"nope\": failed rule: self == 'singleton'",
                "spec.validation.openAPIV3Schema.properties[object].default: Invalid value: failed rule: self.field1 < self.field2",
                "spec.validation.openAPIV3Schema.properties[value].default: Invalid value: \"nope\": failed rule: self.startsWith('kube')",
            ]
        );
    }

    /// Semantics §5.3: a default inside an embedded resource's meta is placed in a synthetic
    /// object whose metadata must be valid (embedded names are path segments, §6.2); defaults under `additionalProperties` are never
    /// checked \[quirk\]; nested defaults are not applied before checking.
    #[test]
    fn defaults_inside_meta_and_the_quirks() {
        assert_eq!(
            findings(json!({"type": "object", "properties": {
                "pod": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {
                    "metadata": {"type": "object", "properties": {"name": {"type": "string", "default": "a/b"}}},
                    "spec": {"type": "object"}}},
                "m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"a": {"type": "string"}}, "default": {"zzz": 1}}},
                "r": {"type": "object", "required": ["x"], "properties": {"x": {"type": "string", "default": "d"}}, "default": {}}}})),
            vec![
                "spec.validation.openAPIV3Schema.properties[pod].properties[metadata].properties[name].default: Invalid value: \"a/b\": must result in valid metadata: metadata.name: Invalid value: \"a/b\": may not contain '/'",
                "spec.validation.openAPIV3Schema.properties[r].default.x: Required value",
            ]
        );
    }

    /// apiextensions `validation_test.go` `TestValidateCustomResourceDefinitionValidation`:
    /// the list-type, map-type and list-map-key cases, as upstream checks them (error type and
    /// field path, every error expected and none more) through the generic schema walk alone,
    /// as those cases run it (without the structural rules).
    #[test]
    fn upstream_list_and_map_type_cases() {
        let walk = |schema: serde_json::Value| -> Vec<(String, String)> {
            let (s, errors) = Schema::parse(&schema, "");
            assert!(errors.is_empty(), "{errors:?}");
            let mut c =
                Checker { findings: Vec::new(), patterns: Default::default(), crd: None, relaxed: &Default::default() };
            c.crd_rules(&s, "spec.validation.openAPIV3Schema", true, true, &MetaContext::default());
            let mut found: Vec<(String, String)> =
                c.findings.into_iter().map(|f| (f.error_type.map_or("", |e| e.reason()).to_owned(), f.field)).collect();
            found.sort();
            found
        };
        /// An upstream case: its name, the schema, the expected (error type, path) pairs.
        type Case = (&'static str, serde_json::Value, Vec<(&'static str, &'static str)>);
        let cases: Vec<Case> = vec![
            (
                "invalid type with list type extension set",
                json!({"type": "object", "x-kubernetes-list-type": "set"}),
                vec![("FieldValueInvalid", "type")],
            ),
            (
                "unset type with list type extension set",
                json!({"x-kubernetes-list-type": "set"}),
                vec![("FieldValueRequired", "type")],
            ),
            (
                "invalid list type extension",
                json!({"type": "array", "x-kubernetes-list-type": "invalid"}),
                vec![("FieldValueNotSupported", "x-kubernetes-list-type")],
            ),
            (
                "invalid list type extension with list map keys extension non-empty",
                json!({"type": "array", "x-kubernetes-list-type": "set", "x-kubernetes-list-map-keys": ["key"]}),
                vec![("FieldValueInvalid", "x-kubernetes-list-type")],
            ),
            (
                "unset list type extension with list map keys extension non-empty",
                json!({"x-kubernetes-list-map-keys": ["key"]}),
                vec![("FieldValueRequired", "x-kubernetes-list-type")],
            ),
            (
                "empty list map keys extension with list type extension map",
                json!({"type": "array", "x-kubernetes-list-type": "map"}),
                vec![("FieldValueRequired", "items"), ("FieldValueRequired", "x-kubernetes-list-map-keys")],
            ),
            (
                "no items schema with list type extension map",
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key"]}),
                vec![("FieldValueRequired", "items")],
            ),
            (
                "non object item with list type extension map",
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key"], "items": {"type": "string"}}),
                vec![("FieldValueInvalid", "items.type")],
            ),
            (
                "items with key missing from properties with list type extension map",
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key"], "items": {"type": "object"}}),
                vec![("FieldValueInvalid", "x-kubernetes-list-map-keys")],
            ),
            (
                "items with non scalar key property type with list type extension map",
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key"],
                    "items": {"type": "object", "required": ["key"], "properties": {"key": {"type": "object"}}}}),
                vec![("FieldValueInvalid", "items.properties[key].type")],
            ),
            (
                "duplicate map keys with list type extension map",
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key", "key"],
                    "items": {"type": "object", "required": ["key"], "properties": {"key": {"type": "string"}}}}),
                vec![("FieldValueInvalid", "x-kubernetes-list-map-keys")],
            ),
            (
                "allowed schema with list type extension map",
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["keyA", "keyB"],
                    "items": {"type": "object", "required": ["keyA", "keyB"], "properties": {"keyA": {"type": "string"}, "keyB": {"type": "integer"}}}}),
                vec![],
            ),
            (
                "allowed list-type atomic",
                json!({"type": "array", "x-kubernetes-list-type": "atomic", "items": {"type": "string"}}),
                vec![],
            ),
            (
                "allowed list-type atomic with non-atomic items",
                json!({"type": "array", "x-kubernetes-list-type": "atomic", "items": {"type": "object", "properties": {}}}),
                vec![],
            ),
            (
                "allowed list-type set with scalar items",
                json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}),
                vec![],
            ),
            (
                "allowed list-type set with atomic map items",
                json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object", "x-kubernetes-map-type": "atomic",
                    "properties": {"foo": {"type": "string"}}}}),
                vec![],
            ),
            (
                "invalid list-type set with non-atomic map items",
                json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object", "x-kubernetes-map-type": "granular",
                    "properties": {"foo": {"type": "string"}}}}),
                vec![("FieldValueInvalid", "items.x-kubernetes-map-type")],
            ),
            (
                "invalid list-type set with unspecified map-type for map items",
                json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object", "properties": {"foo": {"type": "string"}}}}),
                vec![("FieldValueInvalid", "items.x-kubernetes-map-type")],
            ),
            (
                "allowed list-type set with atomic list items",
                json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "array", "x-kubernetes-list-type": "atomic", "items": {"type": "string"}}}),
                vec![],
            ),
            (
                "allowed list-type set with unspecified list-type in list items",
                json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "array", "items": {"type": "string"}}}),
                vec![],
            ),
            (
                "invalid list-type set with with non-atomic list items",
                json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}),
                vec![("FieldValueInvalid", "items.x-kubernetes-list-type")],
            ),
            (
                "invalid type with map type extension (granular)",
                json!({"type": "array", "x-kubernetes-map-type": "granular"}),
                vec![("FieldValueInvalid", "type")],
            ),
            (
                "unset type with map type extension (granular)",
                json!({"x-kubernetes-map-type": "granular"}),
                vec![("FieldValueRequired", "type")],
            ),
            (
                "invalid type with map type extension (atomic)",
                json!({"type": "array", "x-kubernetes-map-type": "atomic"}),
                vec![("FieldValueInvalid", "type")],
            ),
            (
                "unset type with map type extension (atomic)",
                json!({"x-kubernetes-map-type": "atomic"}),
                vec![("FieldValueRequired", "type")],
            ),
            (
                "invalid map type",
                json!({"type": "object", "x-kubernetes-map-type": "invalid"}),
                vec![("FieldValueNotSupported", "x-kubernetes-map-type")],
            ),
            (
                "allowed type with map type extension (granular)",
                json!({"type": "object", "x-kubernetes-map-type": "granular"}),
                vec![],
            ),
            (
                "allowed type with map type extension (atomic)",
                json!({"type": "object", "x-kubernetes-map-type": "atomic"}),
                vec![],
            ),
            (
                "invalid map with non-required key and no default",
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key"],
                    "items": {"type": "object", "properties": {"key": {"type": "string"}}}}),
                vec![("FieldValueRequired", "items.properties[key].default")],
            ),
            (
                "allowed map with required key and no default",
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key"],
                    "items": {"type": "object", "required": ["key"], "properties": {"key": {"type": "string"}}}}),
                vec![],
            ),
            (
                "allowed map with non-required key and default",
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key"],
                    "items": {"type": "object", "properties": {"key": {"type": "string", "default": "stuff"}}}}),
                vec![],
            ),
            (
                "invalid map with nullable key",
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key"],
                    "items": {"type": "object", "properties": {"key": {"type": "string", "nullable": true, "default": "stuff"}}}}),
                vec![("FieldValueForbidden", "items.properties[key].nullable")],
            ),
            (
                "invalid map with nullable items",
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["key"],
                    "items": {"type": "object", "nullable": true, "required": ["key"], "properties": {"key": {"type": "string"}}}}),
                vec![("FieldValueForbidden", "items.nullable")],
            ),
            (
                "invalid set with nullable items",
                json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string", "nullable": true}}),
                vec![("FieldValueForbidden", "items.nullable")],
            ),
            (
                "allowed set with non-nullable items",
                json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}),
                vec![],
            ),
        ];
        for (name, schema, expected) in cases {
            let mut want: Vec<(String, String)> = expected
                .iter()
                .map(|(t, p)| ((*t).to_owned(), format!("spec.validation.openAPIV3Schema.{p}")))
                .collect();
            want.sort();
            assert_eq!(walk(schema), want, "{name}");
        }
    }

    /// Bounds at the top of int64 (maxLength 2^62, maxItems 2^63-1) beside a rule saturate the
    /// cost estimate, as cel-go's arithmetic does, instead of overflowing it (a panic in debug
    /// builds, a wrapped and too small cost in release): the rules are refused as over budget.
    #[test]
    fn huge_bounds_saturate_the_cost_estimate() {
        let found = findings(json!({"type": "object", "properties": {
            "s": {"type": "string", "maxLength": 4_611_686_018_427_387_904u64,
                  "x-kubernetes-validations": [{"rule": "self + self != ''"}]},
            "l": {"type": "array", "maxItems": 9_223_372_036_854_775_807u64,
                  "items": {"type": "string", "maxLength": 4_611_686_018_427_387_904u64,
                            "x-kubernetes-validations": [{"rule": "self.size() > 0"}]}}}}));
        for rule in ["properties[s]", "properties[l].items"] {
            let expected = format!(
                "spec.validation.openAPIV3Schema.{rule}.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
            );
            assert!(found.contains(&expected), "missing {expected:?} in {found:#?}");
        }
    }

    /// Fourteen lists of unbounded strings, `maxItems` 18 to 31, each item with a rule the
    /// apiserver estimates at 314,574 (`self.contains('abc')`): each rule times its list's
    /// bound stays under the per-rule limit, all of them together do not (107,898,882), and
    /// the four dearest are named, as `TotalCost` names them.
    #[test]
    fn the_schema_wide_cost_limit_names_the_dearest_rules() {
        let lists: serde_json::Map<String, serde_json::Value> = (18..=31u64)
            .map(|n| {
                let items = json!({"type": "string", "x-kubernetes-validations": [{"rule": "self.contains('abc')"}]});
                (format!("l{n}"), json!({"type": "array", "maxItems": n, "items": items}))
            })
            .collect();
        let found = findings(json!({"type": "object", "properties": lists}));
        let base = "spec.validation.openAPIV3Schema";
        let mut want: Vec<String> = (28..=31)
            .map(|n| format!("{base}.properties[l{n}].items.x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
            .collect();
        want.push(format!("{base}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.078989x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"));
        let mut found: Vec<String> = found.into_iter().filter(|f| f.contains("Forbidden")).collect();
        found.sort();
        want.sort();
        assert_eq!(found, want);
    }

    /// A messageExpression's estimate is held to the per-rule limit without the node's
    /// cardinality (`apiextensions` validation_test: eight unbounded strings added up are
    /// over it), and counts toward the schema-wide total.
    #[test]
    fn message_expressions_are_held_to_the_cost_limit() {
        let message = |terms: usize| (0..terms).map(|i| format!("self[{i}]")).collect::<Vec<_>>().join(" + ");
        let schema = |terms: usize| {
            json!({"type": "object", "properties": {"f": {"type": "array", "items": {"type": "string"},
                "x-kubernetes-validations": [{"rule": "true", "messageExpression": message(terms)}]}}})
        };
        let over = findings(schema(8));
        let field = "spec.validation.openAPIV3Schema.properties[f].x-kubernetes-validations[0].messageExpression";
        assert!(
            over.iter().any(|f| f.starts_with(&format!(
                "{field}: Forbidden: estimated messageExpression cost exceeds budget by factor of "
            ))),
            "{over:#?}"
        );
        assert!(findings(schema(6)).iter().all(|f| !f.contains("Forbidden")));
        // apiextensions' validation_test: a converted value has no known size, so three of
        // them added up are over the limit, and over the schema-wide total.
        let converted = json!({"type": "object", "properties": {"f": {"type": "array", "items": {"type": "string"},
            "x-kubernetes-validations": [{"rule": "true", "messageExpression": "string(self[0]) + string(self[1]) + string(self[2])"}]}}});
        let forbidden: Vec<String> = findings(converted)
            .into_iter()
            .filter_map(|f| f.split_once(": Forbidden").map(|(path, _)| path.to_owned()))
            .collect();
        assert_eq!(forbidden, [field, field, "spec.validation.openAPIV3Schema"]);
    }
}
