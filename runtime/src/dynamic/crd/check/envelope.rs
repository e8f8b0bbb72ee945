//! The CRD around its schemas, as `ValidateCustomResourceDefinition` checks it when it is
//! created (`apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`), after
//! the v1 defaults (`singular` and `listKind` from `kind`, conversion `None`) and the create
//! strategy (`status.storedVersions` from the first storage version): `metadata.name`, the
//! group, scope, version names and storage flags, names, printer columns, selectable fields,
//! scale paths, deprecation warnings, conversion, the approval annotation of protected groups,
//! `preserveUnknownFields`.
//!
//! Paths are the internal type's: the v1 → internal conversion moves what every version has
//! alike (subresources, printer columns, selectable fields) to the spec, so a lone version's
//! printer columns are `spec.additionalPrinterColumns[0]`; a struct in a message prints as Go
//! marshals it (`go_dump`).

use serde_json::{Map, Value};

use super::finding::Finding;
use super::go_dump;
use crate::check::objectmeta::{dns1035_label, dns1123_subdomain};
use crate::dynamic::crd::Crd;
use crate::report::issue::{BadValue, ErrorType, go_json, go_quote, supported_values};
use crate::schema::Schema;

/// The envelope's findings, split where the schemas' own findings fall between them: those
/// before the versions, each version's (before its schema's), and the rest (after the names,
/// where a schema every version shares is checked).
#[derive(Default)]
pub(super) struct Envelope {
    pub before: Vec<Finding>,
    pub versions: Vec<Vec<Finding>>,
    pub names: Vec<Finding>,
    pub after: Vec<Finding>,
}

/// What the v1 → internal conversion moves from the versions to the spec: each of these when
/// every version has it alike.
struct Moved {
    subresources: bool,
    columns: bool,
    selectable: bool,
    schema: bool,
}

/// `MaxSelectableFields`.
pub(super) const MAX_SELECTABLE_FIELDS: usize = 8;

pub(super) fn check(crd: &Crd, schemas: &[Option<&Schema>], relaxed: &super::Relaxed) -> Envelope {
    let raw = &as_v1(crd.envelope());
    let mut out = Envelope::default();
    let spec = raw.get("spec").unwrap_or(&Value::Null);
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    let versions: &[Value] = spec.get("versions").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    // Alike as Go decodes them: a `null` is no value.
    let alike = |key: &str| versions.windows(2).all(|w| decoded(w[0].get(key)) == decoded(w[1].get(key)));
    let moved = Moved {
        subresources: alike("subresources"),
        columns: alike("additionalPrinterColumns"),
        selectable: alike("selectableFields"),
        schema: schemas.windows(2).all(|w| match (w[0], w[1]) {
            (Some(a), Some(b)) => a.same_as_decoded(b),
            (a, b) => a.is_none() && b.is_none(),
        }),
    };
    let group = s(spec, "group");
    let names = spec.get("names").unwrap_or(&Value::Null);
    let kind = s(names, "kind");
    let plural = s(names, "plural");

    // metadata (ValidateObjectMeta with the CRD's name rule)
    let name = raw.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    if name.is_empty() {
        out.before.push(finding(
            "metadata.name",
            ErrorType::Required,
            BadValue::Omit,
            "name or generateName is required",
            "/metadata",
        ));
    } else {
        let mut errs = dns1123_subdomain(name);
        if name != format!("{plural}.{group}") {
            errs.push(r#"must be spec.names.plural+"."+spec.group"#.to_owned());
        }
        for e in errs {
            out.before.push(invalid_str("metadata.name", name, &e, "/metadata/name"));
        }
    }

    // spec: group, scope
    if group.is_empty() {
        out.before.push(finding("spec.group", ErrorType::Required, BadValue::Omit, "", "/spec"));
    } else if let errs @ [_, ..] = dns1123_subdomain(&group).as_slice() {
        out.before.push(invalid_str("spec.group", &group, &errs.join(","), "/spec/group"));
    } else if !group.contains('.') {
        out.before.push(invalid_str("spec.group", &group, "should be a domain with at least one dot", "/spec/group"));
    }
    enum_string(&mut out.before, "spec.scope", &s(spec, "scope"), &["Cluster", "Namespaced"], "/spec/scope");
    // Every version has a schema (here, with `spec.validation` being none in v1).
    if !(moved.schema && versions.first().and_then(|v| v.pointer("/schema/openAPIV3Schema")).is_some()) {
        for (i, v) in versions.iter().enumerate() {
            if v.pointer("/schema/openAPIV3Schema").is_none() {
                let path = format!("spec.versions[{i}].schema.openAPIV3Schema");
                out.before.push(finding(
                    &path,
                    ErrorType::Required,
                    BadValue::Omit,
                    "",
                    &format!("/spec/versions/{i}"),
                ));
            }
        }
    }
    let preserve_unknown = spec.get("preserveUnknownFields").and_then(Value::as_bool) == Some(true);
    let preserving = |detail: &str| {
        finding(
            "spec.preserveUnknownFields",
            ErrorType::Invalid,
            BadValue::Bool(true),
            detail,
            "/spec/preserveUnknownFields",
        )
    };
    if preserve_unknown && schemas.iter().flatten().any(|s| has_default(s)) {
        out.before.push(preserving("must be false in order to use defaults in the schema"));
    }

    // each version
    for (i, v) in versions.iter().enumerate() {
        let mut found = Vec::new();
        let at = format!("spec.versions[{i}]");
        let ptr = format!("/spec/versions/{i}");
        let vname = s(v, "name");
        if let errs @ [_, ..] = dns1035_label(&vname).as_slice() {
            found.push(invalid_str(&format!("{at}.name"), &vname, &errs.join(","), &format!("{ptr}/name")));
        }
        deprecation(&mut found, v, &at, &ptr);
        if !moved.subresources {
            subresources(
                &mut found,
                v.get("subresources"),
                &format!("{at}.subresources"),
                &format!("{ptr}/subresources"),
            );
        }
        if !moved.columns {
            columns(&mut found, v.get("additionalPrinterColumns"), &at, &ptr);
        }
        if !moved.selectable {
            let schema = if moved.schema { None } else { schemas.get(i).copied().flatten() };
            let too_many =
                relaxed.too_many_selectable.iter().any(|n| Some(n.as_str()) == v.get("name").and_then(Value::as_str));
            selectable(&mut found, v.get("selectableFields"), schema, &at, &ptr, too_many);
        }
        out.versions.push(found);
    }

    // the versions together
    // A nil slice marshals as `null`, an empty one as `[]`.
    let listed = spec.get("versions").is_some_and(Value::is_array);
    let dump = || BadValue::Json(if listed { versions_dump(crd, versions, &moved) } else { "null".into() });
    let mut seen = std::collections::HashSet::new();
    if !versions.iter().all(|v| seen.insert(s(v, "name"))) {
        out.names.push(finding(
            "spec.versions",
            ErrorType::Invalid,
            dump(),
            "must contain unique version names",
            "/spec/versions",
        ));
    }
    let storage: Vec<String> = versions
        .iter()
        .filter(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
        .map(|v| s(v, "name"))
        .collect();
    if storage.len() != 1 {
        out.names.push(finding(
            "spec.versions",
            ErrorType::Invalid,
            dump(),
            "must have exactly one version marked as storage version",
            "/spec/versions",
        ));
    }
    // `spec.version` is the first version's name after the conversion.
    if let Some(first) = versions.first().map(|v| s(v, "name")).filter(|n| !n.is_empty())
        && let errs @ [_, ..] = dns1035_label(&first).as_slice()
    {
        out.names.push(invalid_str("spec.version", &first, &errs.join(","), "/spec/versions/0/name"));
    }

    // names, with singular and listKind defaulted from kind
    let singular = Some(s(names, "singular")).filter(|n| !n.is_empty()).unwrap_or_else(|| kind.to_lowercase());
    let list_kind = Some(s(names, "listKind"))
        .filter(|n| !n.is_empty() || kind.is_empty())
        .unwrap_or_else(|| format!("{kind}List"));
    for (key, value) in [("plural", &plural), ("singular", &singular), ("kind", &kind), ("listKind", &list_kind)] {
        if value.is_empty() {
            out.names.push(finding(
                &format!("spec.names.{key}"),
                ErrorType::Required,
                BadValue::Omit,
                "",
                "/spec/names",
            ));
        }
    }
    let label = |out: &mut Vec<Finding>, key: &str, value: &str, lower: bool| {
        let checked = if lower { value.to_lowercase() } else { value.to_owned() };
        if value.is_empty() {
            return;
        }
        if let errs @ [_, ..] = dns1035_label(&checked).as_slice() {
            let prefix = if lower { "may have mixed case, but should otherwise match: " } else { "" };
            out.push(invalid_str(
                &format!("spec.names.{key}"),
                value,
                &format!("{prefix}{}", errs.join(",")),
                &format!("/spec/names/{key}"),
            ));
        }
    };
    label(&mut out.names, "plural", &plural, false);
    label(&mut out.names, "singular", &singular, false);
    label(&mut out.names, "kind", &kind, true);
    label(&mut out.names, "listKind", &list_kind, true);
    let labels = |out: &mut Vec<Finding>, key: &str| {
        for (i, value) in strings(names.get(key)).iter().enumerate() {
            if let errs @ [_, ..] = dns1035_label(value).as_slice() {
                let (field, pointer) = (format!("spec.names.{key}[{i}]"), format!("/spec/names/{key}/{i}"));
                out.push(invalid_str(&field, value, &errs.join(","), &pointer));
            }
        }
    };
    labels(&mut out.names, "shortNames");
    if !kind.is_empty() && kind == list_kind {
        let detail = "kind and listKind may not be the same";
        out.names.push(invalid_str("spec.names.listKind", &list_kind, detail, "/spec/names/listKind"));
    }
    labels(&mut out.names, "categories");

    // what every version has alike, now the spec's
    let first = versions.first().unwrap_or(&Value::Null);
    if moved.subresources {
        subresources(&mut out.after, first.get("subresources"), "spec.subresources", "/spec/versions/0/subresources");
    }
    if moved.columns {
        columns(&mut out.after, first.get("additionalPrinterColumns"), "spec", "/spec/versions/0");
    }
    if moved.selectable {
        let schema = if moved.schema { schemas.first().copied().flatten() } else { None };
        let too_many =
            relaxed.too_many_selectable.iter().any(|n| Some(n.as_str()) == first.get("name").and_then(Value::as_str));
        selectable(&mut out.after, first.get("selectableFields"), schema, "spec", "/spec/versions/0", too_many);
    }
    conversion(&mut out.after, spec.get("conversion"), preserve_unknown, !relaxed.review_versions);

    // status: what the create strategy stores, then the rest of the object
    match storage.first() {
        None => out.after.push(finding(
            "status.storedVersions",
            ErrorType::Invalid,
            BadValue::Null,
            "must have at least one stored version",
            "/spec/versions",
        )),
        Some(stored) => {
            for other in storage.iter().skip(1) {
                out.after.push(finding(
                    "status.storedVersions",
                    ErrorType::Invalid,
                    BadValue::Json(go_json(&Value::from(vec![stored.clone()]))),
                    &format!("must have the storage version {other}"),
                    "/spec/versions",
                ));
            }
        }
    }
    api_approval(&mut out.after, raw, &group);
    if preserve_unknown {
        out.after.push(preserving(
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        ));
    }
    out
}

/// A `v1beta1` CRD as `v1` writes it, with `v1beta1`'s defaults (what the apiserver's
/// conversion makes of it): one version from `spec.version`, the top-level schema,
/// subresources and printer columns in each version, the scope `Namespaced`, and
/// `preserveUnknownFields` (`v1beta1`'s default) left unsaid.
fn as_v1(raw: &Value) -> std::borrow::Cow<'_, Value> {
    if raw.get("apiVersion").and_then(Value::as_str) != Some("apiextensions.k8s.io/v1beta1") {
        return std::borrow::Cow::Borrowed(raw);
    }
    let mut doc = raw.clone();
    let Some(spec) = doc.get_mut("spec").and_then(Value::as_object_mut) else { return std::borrow::Cow::Owned(doc) };
    spec.entry("scope").or_insert_with(|| "Namespaced".into());
    if spec.get("preserveUnknownFields").and_then(Value::as_bool) == Some(true) {
        spec.remove("preserveUnknownFields");
    }
    let listed = spec.get("versions").and_then(Value::as_array).is_some_and(|v| !v.is_empty());
    if !listed && let Some(version) = spec.get("version").cloned() {
        spec.insert("versions".into(), serde_json::json!([{"name": version, "served": true, "storage": true}]));
    }
    let top: Vec<(&str, Option<Value>)> = [
        ("schema", "validation"),
        ("subresources", "subresources"),
        ("additionalPrinterColumns", "additionalPrinterColumns"),
    ]
    .into_iter()
    .map(|(to, from)| (to, spec.get(from).cloned()))
    .collect();
    if let Some(Value::Array(versions)) = spec.get_mut("versions") {
        for v in versions.iter_mut().filter_map(Value::as_object_mut) {
            for (to, value) in &top {
                if let Some(value) = value {
                    v.entry(*to).or_insert_with(|| value.clone());
                }
            }
            // v1beta1 names a column's path `JSONPath`.
            if let Some(Value::Array(cols)) = v.get_mut("additionalPrinterColumns") {
                for c in cols.iter_mut().filter_map(Value::as_object_mut) {
                    if let Some(p) = c.remove("JSONPath") {
                        c.entry("jsonPath").or_insert(p);
                    }
                }
            }
        }
    }
    std::borrow::Cow::Owned(doc)
}

/// A value as Go decodes it into the CRD's types, for comparing: a `null` is no value, at any
/// depth. (Go would also take an empty string or a zero as none in places; no such difference
/// is modelled.)
fn decoded(v: Option<&Value>) -> Option<Value> {
    fn without_nulls(v: &Value) -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), without_nulls(v))).collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(without_nulls).collect()),
            v => v.clone(),
        }
    }
    v.filter(|v| !v.is_null()).map(without_nulls)
}

fn finding(field: &str, error_type: ErrorType, value: BadValue, detail: &str, pointer: &str) -> Finding {
    Finding::new(field.to_owned(), error_type, value, detail, pointer.to_owned())
}

fn invalid_str(field: &str, value: &str, detail: &str, pointer: &str) -> Finding {
    finding(field, ErrorType::Invalid, BadValue::Str(value.to_owned()), detail, pointer)
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|l| l.iter().map(|s| s.as_str().unwrap_or_default().to_owned()).collect())
        .unwrap_or_default()
}

fn has_default(s: &Schema) -> bool {
    s.default.is_some() || s.children().any(has_default)
}

/// `validateEnumStrings` (required).
fn enum_string(out: &mut Vec<Finding>, field: &str, value: &str, accepted: &[&str], pointer: &str) {
    if value.is_empty() {
        out.push(finding(field, ErrorType::Required, BadValue::Omit, "", pointer));
    } else if !accepted.contains(&value) {
        out.push(finding(
            field,
            ErrorType::NotSupported,
            BadValue::Str(value.to_owned()),
            &supported_values(accepted),
            pointer,
        ));
    }
}

/// `validateDeprecationWarning`.
fn deprecation(out: &mut Vec<Finding>, v: &Value, at: &str, ptr: &str) {
    let Some(warning) = v.get("deprecationWarning").filter(|w| !w.is_null()) else { return };
    let text = warning.as_str().unwrap_or_default();
    let field = format!("{at}.deprecationWarning");
    let pointer = format!("{ptr}/deprecationWarning");
    // The value is a `*string`, which the field error marshals as JSON.
    let value = go_json(warning);
    let mut push = |detail: String| {
        out.push(finding(&field, ErrorType::Invalid, BadValue::Json(value.clone()), &detail, &pointer));
    };
    if v.get("deprecated").and_then(Value::as_bool) != Some(true) {
        return push("can only be set for deprecated versions".into());
    }
    if text.len() > 256 {
        push("must be <= 256 characters long".into());
    }
    if text.is_empty() {
        push("must not be an empty string".into());
    }
    if let Some((i, _)) = text.char_indices().find(|(_, c)| !crate::report::issue::go_is_print(*c)) {
        push(format!("must only contain printable UTF-8 characters; non-printable character found at index {i}"));
    }
}

/// `ValidateCustomResourceDefinitionSubresources` (`at`: the subresources' path).
fn subresources(out: &mut Vec<Finding>, subresources: Option<&Value>, at: &str, ptr: &str) {
    let Some(scale) = subresources.and_then(|s| s.get("scale")).filter(|s| !s.is_null()) else { return };
    let s = |k: &str| scale.get(k).and_then(Value::as_str).unwrap_or_default();
    for (key, under) in [("specReplicasPath", ".spec."), ("statusReplicasPath", ".status.")] {
        let field = format!("{at}.scale.{key}");
        let pointer = format!("{ptr}/scale/{key}");
        let path = s(key);
        if path.is_empty() {
            out.push(finding(&field, ErrorType::Required, BadValue::Omit, "", &pointer));
        } else if let Some(e) = simple_json_path(path) {
            out.push(invalid_str(&field, path, e, &pointer));
        } else if !path.starts_with(under) {
            let detail = format!("should be a json path under {}", &under[..under.len() - 1]);
            out.push(invalid_str(&field, path, &detail, &pointer));
        }
    }
    let selector = s("labelSelectorPath");
    if !selector.is_empty() {
        let field = format!("{at}.scale.labelSelectorPath");
        let pointer = format!("{ptr}/scale/labelSelectorPath");
        if let Some(e) = simple_json_path(selector) {
            out.push(invalid_str(&field, selector, e, &pointer));
        } else if !selector.starts_with(".spec.") && !selector.starts_with(".status.") {
            out.push(invalid_str(&field, selector, "should be a json path under either .spec or .status", &pointer));
        }
    }
}

/// `validateSimpleJSONPath`.
fn simple_json_path(s: &str) -> Option<&'static str> {
    match s.as_bytes().first() {
        None => Some("must not be empty"),
        Some(b'.') => None,
        Some(_) => Some("must be a simple json path starting with ."),
    }
}

/// `ValidateCustomResourceColumnDefinition` for each column (`at`: the holder's path).
fn columns(out: &mut Vec<Finding>, columns: Option<&Value>, at: &str, ptr: &str) {
    const TYPES: &str = "boolean,date,integer,number,string";
    const FORMATS: &str = "byte,date,date-time,double,float,int32,int64,password";
    for (i, col) in columns.and_then(Value::as_array).into_iter().flatten().enumerate() {
        let field = |k: &str| format!("{at}.additionalPrinterColumns[{i}].{k}");
        let pointer = |k: &str| format!("{ptr}/additionalPrinterColumns/{i}/{k}");
        let s = |k: &str| col.get(k).and_then(Value::as_str).unwrap_or_default();
        if s("name").is_empty() {
            out.push(finding(&field("name"), ErrorType::Required, BadValue::Omit, "", &pointer("name")));
        }
        let ty = s("type");
        let types = format!("must be one of {TYPES}");
        if ty.is_empty() {
            out.push(finding(&field("type"), ErrorType::Required, BadValue::Omit, &types, &pointer("type")));
        } else if !TYPES.split(',').any(|t| t == ty) {
            out.push(invalid_str(&field("type"), ty, &types, &pointer("type")));
        }
        let format = s("format");
        if !format.is_empty() && !FORMATS.split(',').any(|f| f == format) {
            out.push(invalid_str(&field("format"), format, &format!("must be one of {FORMATS}"), &pointer("format")));
        }
        let path = s("jsonPath");
        if path.is_empty() {
            out.push(finding(&field("JSONPath"), ErrorType::Required, BadValue::Omit, "", &pointer("jsonPath")));
        } else if let Some(e) = simple_json_path(path) {
            out.push(invalid_str(&field("JSONPath"), path, e, &pointer("jsonPath")));
        }
    }
}

/// `ValidateCustomResourceSelectableFields` (`schema`: the version's, or the one every version
/// shares; `None` where the holder has none).
/// `too_many_allowed`: an update that keeps OLD's over-long list unchanged.
fn selectable(
    out: &mut Vec<Finding>,
    fields: Option<&Value>,
    schema: Option<&Schema>,
    at: &str,
    ptr: &str,
    too_many_allowed: bool,
) {
    let fields: &[Value] = fields.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if fields.is_empty() {
        return;
    }
    let Some(schema) = schema else {
        // The v1 → internal conversion moves a schema only when every version has it alike.
        let detail = if at == "spec" {
            "may only be set when validations.schema is included"
        } else {
            "may only be set when `version.schema.openAPIV3Schema` is not included"
        };
        out.push(finding(
            &format!("{at}.selectableFields"),
            ErrorType::Invalid,
            BadValue::Str(String::new()),
            detail,
            &format!("{ptr}/selectableFields"),
        ));
        return;
    };
    let mut unique: Vec<Vec<crate::cel::compile::FieldPathStep>> = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        let field = format!("{at}.selectableFields[{i}].jsonPath");
        let pointer = format!("{ptr}/selectableFields/{i}/jsonPath");
        let path = f.get("jsonPath").and_then(Value::as_str).unwrap_or_default();
        if path.is_empty() {
            out.push(finding(&field, ErrorType::Required, BadValue::Omit, "", &pointer));
            continue;
        }
        let (steps, node) = match crate::cel::compile::field_path_schema(path, schema, false) {
            Ok(found) => found,
            Err(e) => {
                out.push(invalid_str(&field, path, &format!("is an invalid path: {e}"), &pointer));
                continue;
            }
        };
        if matches!(steps.first(), Some(crate::cel::compile::FieldPathStep::Property(p)) if p == "metadata") {
            out.push(invalid_str(&field, path, "must not point to fields in metadata", &pointer));
        }
        if !matches!(node.type_str(), Some("string" | "boolean" | "integer")) {
            let detail = "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.";
            out.push(invalid_str(&field, path, detail, &pointer));
        }
        if unique.contains(&steps) {
            out.push(finding(&field, ErrorType::Duplicate, BadValue::Str(path.to_owned()), "", &pointer));
        } else {
            unique.push(steps);
        }
    }
    if unique.len() > MAX_SELECTABLE_FIELDS && !too_many_allowed {
        out.push(finding(
            &format!("{at}.selectableFields"),
            ErrorType::TooMany,
            BadValue::Int(unique.len() as i64),
            &format!("must have at most {MAX_SELECTABLE_FIELDS} items"),
            &format!("{ptr}/selectableFields"),
        ));
    }
}

/// `validateCustomResourceConversion` (no conversion is defaulted to strategy `None`; a
/// conversion without a strategy is not).
/// `require_recognized`: a known review version required (an update of a CRD that had none
/// does not require one).
fn conversion(out: &mut Vec<Finding>, conversion: Option<&Value>, preserve_unknown: bool, require_recognized: bool) {
    let Some(conversion) = conversion.filter(|c| !c.is_null()) else { return };
    let strategy = conversion.get("strategy").and_then(Value::as_str).unwrap_or_default();
    if strategy != "None" && preserve_unknown {
        out.push(invalid_str(
            "spec.conversion.strategy",
            strategy,
            "must be None if spec.preserveUnknownFields is true",
            "/spec/conversion/strategy",
        ));
    }
    enum_string(out, "spec.conversion.strategy", strategy, &["None", "Webhook"], "/spec/conversion/strategy");
    let webhook = conversion.get("webhook").filter(|w| !w.is_null());
    let client = webhook.and_then(|w| w.get("clientConfig")).filter(|c| !c.is_null());
    let review = webhook.and_then(|w| w.get("conversionReviewVersions"));
    let config = "spec.conversion.webhookClientConfig";
    if strategy == "Webhook" {
        match client {
            None => out.push(finding(
                config,
                ErrorType::Required,
                BadValue::Omit,
                "required when strategy is set to Webhook",
                "/spec/conversion",
            )),
            Some(cc) => webhook_client(out, cc),
        }
        review_versions(out, review, require_recognized);
    } else {
        if client.is_some() {
            out.push(finding(
                config,
                ErrorType::Forbidden,
                BadValue::Omit,
                "should not be set when strategy is not set to Webhook",
                "/spec/conversion/webhook",
            ));
        }
        if review.and_then(Value::as_array).is_some_and(|r| !r.is_empty()) {
            out.push(finding(
                "spec.conversion.conversionReviewVersions",
                ErrorType::Forbidden,
                BadValue::Omit,
                "should not be set when strategy is not set to Webhook",
                "/spec/conversion/webhook",
            ));
        }
    }
}

/// A conversion webhook's client config: exactly one of `url` and `service`, each valid.
fn webhook_client(out: &mut Vec<Finding>, cc: &Value) {
    let config = "spec.conversion.webhookClientConfig";
    let ptr = "/spec/conversion/webhook/clientConfig";
    let (url, service) = (cc.get("url").and_then(Value::as_str), cc.get("service").filter(|s| !s.is_null()));
    match (url, service) {
        (Some(_), Some(_)) | (None, None) => {
            out.push(finding(
                config,
                ErrorType::Required,
                BadValue::Omit,
                "exactly one of url or service is required",
                ptr,
            ));
        }
        (Some(url), None) => {
            const FORM: &str = "; desired format: https://host[/path]";
            let field = format!("{config}.url");
            let pointer = format!("{ptr}/url");
            match crate::go::url::parse(url) {
                Err(e) => out.push(finding(
                    &field,
                    ErrorType::Required,
                    BadValue::Omit,
                    &format!("url must be a valid URL: {e}{FORM}"),
                    &pointer,
                )),
                Ok(u) => {
                    if u.scheme != "https" {
                        out.push(invalid_str(
                            &field,
                            &u.scheme,
                            &format!("'https' is the only allowed URL scheme{FORM}"),
                            &pointer,
                        ));
                    }
                    if u.host.is_empty() {
                        out.push(invalid_str(&field, &u.host, &format!("host must be specified{FORM}"), &pointer));
                    }
                    if let Some(user) = &u.user {
                        out.push(invalid_str(&field, user, "user information is not permitted in the URL", &pointer));
                    }
                    if !u.fragment.is_empty() {
                        out.push(invalid_str(&field, &u.fragment, "fragments are not permitted in the URL", &pointer));
                    }
                    if !u.query.is_empty() {
                        out.push(invalid_str(
                            &field,
                            &u.query,
                            "query parameters are not permitted in the URL",
                            &pointer,
                        ));
                    }
                }
            }
        }
        (None, Some(service)) => {
            let s = |k: &str| service.get(k).and_then(Value::as_str).unwrap_or_default();
            let field = |k: &str| format!("{config}.service.{k}");
            let pointer = format!("{ptr}/service");
            if s("name").is_empty() {
                out.push(finding(&field("name"), ErrorType::Required, BadValue::Omit, "", &pointer));
            }
            if s("namespace").is_empty() {
                out.push(finding(&field("namespace"), ErrorType::Required, BadValue::Omit, "", &pointer));
            }
            let port = service.get("port").and_then(Value::as_i64).unwrap_or(443);
            if !(1..=65535).contains(&port) {
                out.push(finding(
                    &field("port"),
                    ErrorType::Invalid,
                    BadValue::Int(port),
                    "port is not valid: must be between 1 and 65535, inclusive",
                    &pointer,
                ));
            }
            if let Some(path) = service.get("path").and_then(Value::as_str) {
                service_path(out, path, &field("path"), &pointer);
            }
        }
    }
}

/// `ValidateWebhookService`'s path: `/`-led segments, each a DNS-1123 subdomain.
fn service_path(out: &mut Vec<Finding>, path: &str, field: &str, pointer: &str) {
    if path == "/" || path.is_empty() {
        return;
    }
    if path == "//" {
        out.push(invalid_str(field, path, "segment[0] may not be empty", pointer));
        return;
    }
    if !path.starts_with('/') {
        out.push(invalid_str(field, path, "must start with a '/'", pointer));
    }
    let rest = path.get(1..).unwrap_or_default();
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    for (i, step) in rest.split('/').enumerate() {
        if step.is_empty() {
            out.push(invalid_str(field, path, &format!("segment[{i}] may not be empty"), pointer));
            continue;
        }
        for failure in dns1123_subdomain(step) {
            out.push(invalid_str(field, path, &format!("segment[{i}]: {failure}"), pointer));
        }
    }
}

/// `validateConversionReviewVersions` (a recognized version required unless relaxed).
fn review_versions(out: &mut Vec<Finding>, versions: Option<&Value>, require_recognized: bool) {
    let field = "spec.conversion.conversionReviewVersions";
    let ptr = "/spec/conversion/webhook/conversionReviewVersions";
    let list = strings(versions);
    if list.is_empty() {
        out.push(finding(field, ErrorType::Required, BadValue::Omit, "", ptr));
        return;
    }
    let mut seen = std::collections::HashSet::new();
    for (i, v) in list.iter().enumerate() {
        let at = format!("{field}[{i}]");
        if !seen.insert(v.as_str()) {
            out.push(invalid_str(&at, v, "duplicate version", ptr));
            continue;
        }
        for e in dns1035_label(v) {
            out.push(invalid_str(&at, v, &e, ptr));
        }
    }
    if require_recognized && !list.iter().any(|v| v == "v1" || v == "v1beta1") {
        out.push(finding(
            field,
            ErrorType::Invalid,
            BadValue::Json(go_json(&Value::from(list.clone()))),
            "must include at least one of v1, v1beta1",
            ptr,
        ));
    }
}

/// `validateAPIApproval` on create: a protected group (`k8s.io`, `kubernetes.io` and their
/// subdomains) needs the approval annotation, a URL or a reason starting with `unapproved`.
fn api_approval(out: &mut Vec<Finding>, raw: &Value, group: &str) {
    let protected = group == "k8s.io"
        || group.ends_with(".k8s.io")
        || group == "kubernetes.io"
        || group.ends_with(".kubernetes.io");
    if !protected {
        return;
    }
    const KEY: &str = "api-approved.kubernetes.io";
    const PR: &str = "see https://github.com/kubernetes/enhancements/pull/1111";
    let field = format!("metadata.annotations[{KEY}]");
    let pointer = "/metadata/annotations";
    let annotation = raw
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
        .and_then(|a: &Map<String, Value>| a.get(KEY))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if annotation.is_empty() {
        let detail = format!("protected groups must have approval annotation {}, {PR}", go_quote(KEY));
        out.push(finding(&field, ErrorType::Required, BadValue::Omit, &detail, pointer));
        return;
    }
    if annotation.starts_with("unapproved") {
        return;
    }
    let approved =
        crate::go::url::parse_request_uri(annotation).is_ok_and(|u| !u.host.is_empty() && !u.scheme.is_empty());
    if !approved {
        let detail = format!(
            "protected groups must have approval annotation {} with either a URL or a reason starting with \"unapproved\", {PR}",
            go_quote(KEY)
        );
        out.push(invalid_str(&field, annotation, &detail, pointer));
    }
}

/// The versions as the internal type holds them after the conversion (what moved to the
/// spec is `null` here), marshalled as Go marshals them.
fn versions_dump(crd: &Crd, versions: &[Value], moved: &Moved) -> String {
    let items: Vec<String> = versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let b = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
            let warning = v.get("deprecationWarning").filter(|w| !w.is_null()).map_or("null".to_owned(), go_json);
            // A schema read from the document's nodes is made a value only to be shown.
            let elided = crd.schema_elided(i).then(|| crd.raw_at(&format!("/spec/versions/{i}/schema/openAPIV3Schema")));
            let schema = elided.flatten().or_else(|| v.pointer("/schema/openAPIV3Schema").map(std::borrow::Cow::Borrowed));
            let schema = match schema.filter(|_| !moved.schema) {
                Some(s) => format!("{{\"OpenAPIV3Schema\":{}}}", go_dump::schema(&s)),
                None => "null".into(),
            };
            let subresources = match v.get("subresources").filter(|s| !s.is_null() && !moved.subresources) {
                Some(s) => {
                    let status = if s.get("status").is_some_and(|x| !x.is_null()) { "{}" } else { "null" };
                    let scale = match s.get("scale").filter(|x| !x.is_null()) {
                        Some(sc) => {
                            let t = |k: &str| go_json(&Value::String(sc.get(k).and_then(Value::as_str).unwrap_or_default().into()));
                            let selector = sc.get("labelSelectorPath").filter(|x| !x.is_null()).map_or("null".to_owned(), go_json);
                            format!("{{\"SpecReplicasPath\":{},\"StatusReplicasPath\":{},\"LabelSelectorPath\":{selector}}}", t("specReplicasPath"), t("statusReplicasPath"))
                        }
                        None => "null".into(),
                    };
                    format!("{{\"Status\":{status},\"Scale\":{scale}}}")
                }
                None => "null".into(),
            };
            let columns = match v.get("additionalPrinterColumns").and_then(Value::as_array).filter(|_| !moved.columns) {
                Some(cols) => {
                    let each: Vec<String> = cols
                        .iter()
                        .map(|c| {
                            let t = |k: &str| go_json(&Value::String(c.get(k).and_then(Value::as_str).unwrap_or_default().into()));
                            let priority = c.get("priority").and_then(Value::as_i64).unwrap_or(0);
                            format!(
                                "{{\"Name\":{},\"Type\":{},\"Format\":{},\"Description\":{},\"Priority\":{priority},\"JSONPath\":{}}}",
                                t("name"),
                                t("type"),
                                t("format"),
                                t("description"),
                                t("jsonPath")
                            )
                        })
                        .collect();
                    format!("[{}]", each.join(","))
                }
                None => "null".into(),
            };
            let selectable = match v.get("selectableFields").and_then(Value::as_array).filter(|_| !moved.selectable) {
                Some(fields) => {
                    let each: Vec<String> = fields
                        .iter()
                        .map(|f| format!("{{\"JSONPath\":{}}}", go_json(&Value::String(f.get("jsonPath").and_then(Value::as_str).unwrap_or_default().into()))))
                        .collect();
                    format!("[{}]", each.join(","))
                }
                None => "null".into(),
            };
            format!(
                "{{\"Name\":{},\"Served\":{},\"Storage\":{},\"Deprecated\":{},\"DeprecationWarning\":{warning},\"Schema\":{schema},\"Subresources\":{subresources},\"AdditionalPrinterColumns\":{columns},\"SelectableFields\":{selectable}}}",
                go_json(&Value::String(v.get("name").and_then(Value::as_str).unwrap_or_default().into())),
                b("served"),
                b("storage"),
                b("deprecated"),
            )
        })
        .collect();
    format!("[{}]", items.join(","))
}
