//! Phase 2, check: the apiserver's rules for CRD schemas, with its field paths and messages,
//! before anything is generated. A CRD version the apiserver would refuse is not generated.
//!
//! - Structural rules (`apiextensions-apiserver/pkg/apiserver/schema/validation.go`,
//!   `complete.go`, `convert.go`): every node has a type, junctors carry only value
//!   validations, root and embedded-resource metadata rules.
//! - Per-node CRD rules (`pkg/apis/apiextensions/validation/validation.go`): type values,
//!   list-type/map-type/list-map-keys, uniqueItems, properties next to additionalProperties.
//!
//! Paths read `spec.validation.openAPIV3Schema...` when every version carries the same schema
//! (the apiserver moves such a schema to the top level before validating: a quirk kept here)
//! and `spec.versions[i].schema.openAPIV3Schema...` otherwise.

mod defaults;
mod finding;
pub(crate) mod go_dump;
mod rules;
mod structural;

use kubeskema::crd::CrdVersion;
use kubeskema::issue::{BadValue, ErrorType, field_error_body};
use kubeskema::schema::{AdditionalProperties, Schema};

use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::load::LoadedCrd;
use structural::{check_schema, unrecognized_formats};

/// Checks every version of a CRD. Returns, per version index, whether it may be generated.
pub fn check_crd(loaded: &LoadedCrd, diags: &mut Vec<Diagnostic>) -> Vec<bool> {
    let crd = &loaded.crd;
    let same_schema = crd.versions.windows(2).all(|w| w[0].schema == w[1].schema || strip(&w[0]) == strip(&w[1]));
    let mut ok = Vec::new();
    let mut reported_shared = false;
    selectable_fields_need_a_shared_schema(loaded, same_schema, diags);
    for (i, version) in crd.versions.iter().enumerate() {
        let base = if same_schema || version.schema.as_ref().is_some_and(|s| s.pointer.starts_with("/spec/validation"))
        {
            "spec.validation.openAPIV3Schema".to_owned()
        } else {
            format!("spec.versions[{i}].schema.openAPIV3Schema")
        };
        let Some(schema) = &version.schema else {
            ok.push(true);
            diags.push(
                loaded
                    .diagnostic(
                        Severity::Warning,
                        &format!("/spec/versions/{i}"),
                        Code::Field(ErrorType::Required),
                        format!("spec.versions[{i}].schema.openAPIV3Schema"),
                        field_error_body(ErrorType::Required, &BadValue::Omit, "schemas are required"),
                    )
                    .in_version(&version.name)
                    .with_help("add spec.versions[].schema.openAPIV3Schema; without it no type can be generated"),
            );
            continue;
        };
        let raw = crd.raw.pointer(&schema.pointer).unwrap_or(&serde_json::Value::Null);
        let findings = check_schema(schema, raw, &crd.raw, &base, version.status_subresource);
        let is_ok = findings.is_empty();
        ok.push(is_ok);
        // A schema shared by every version is one schema to the apiserver: warned about once.
        if i == 0 || !same_schema {
            unrecognized_formats(schema, &mut |node, format| {
                diags.push(
                    loaded
                        .diagnostic(
                            Severity::Warning,
                            &format!("{}/format", node.pointer),
                            Code::UnrecognizedFormat,
                            String::new(),
                            format!("unrecognized format {}", kubeskema::issue::go_quote(format)),
                        )
                        .in_version(&version.name)
                        .with_help("the apiserver does not validate this format; remove it or use one it knows"),
                )
            });
        }
        // One shared schema is one set of errors (the apiserver validates it once).
        if !is_ok && same_schema && reported_shared {
            continue;
        }
        reported_shared |= !is_ok;
        for f in findings {
            diags.push(
                loaded
                    .diagnostic(Severity::Error, &f.pointer, Code::Field(f.error_type), f.field.clone(), f.body.clone())
                    .in_version(&version.name),
            );
        }
    }
    ok
}

/// [quirk] The v1 → internal conversion moves `selectableFields` that every version has alike
/// to the CRD's spec, and moves the schema only when every version has the same one: alike
/// selectable fields over different schemas are then refused, though each version's would do.
fn selectable_fields_need_a_shared_schema(loaded: &LoadedCrd, same_schema: bool, diags: &mut Vec<Diagnostic>) {
    let versions = loaded.crd.raw["spec"]["versions"].as_array().map(Vec::as_slice).unwrap_or_default();
    let first = versions.first().map(|v| &v["selectableFields"]);
    let alike = versions.iter().all(|v| Some(&v["selectableFields"]) == first);
    let listed = first.and_then(serde_json::Value::as_array).is_some_and(|l| !l.is_empty());
    if alike && listed && !same_schema {
        diags.push(loaded.diagnostic(
            Severity::Error,
            "/spec/versions/0/selectableFields",
            Code::Field(ErrorType::Invalid),
            "spec.selectableFields".into(),
            field_error_body(
                ErrorType::Invalid,
                &BadValue::Str(String::new()),
                "may only be set when validations.schema is included",
            ),
        ));
    }
}

fn strip(v: &CrdVersion) -> Option<String> {
    // Schemas equal up to their source position count as the same schema.
    v.schema.as_ref().map(|s| {
        let mut s = s.clone();
        clear_pointers(&mut s);
        format!("{s:?}")
    })
}

fn clear_pointers(s: &mut Schema) {
    s.pointer.clear();
    s.properties.values_mut().for_each(clear_pointers);
    if let Some(i) = s.items.as_deref_mut() {
        clear_pointers(i);
    }
    if let Some(AdditionalProperties::Schema(a)) = s.additional_properties.as_mut() {
        clear_pointers(a);
    }
    s.all_of.iter_mut().chain(s.any_of.iter_mut()).chain(s.one_of.iter_mut()).for_each(clear_pointers);
    if let Some(n) = s.not.as_deref_mut() {
        clear_pointers(n);
    }
}
