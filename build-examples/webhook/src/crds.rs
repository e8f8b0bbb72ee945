//! The webhook for CRDs read when it starts, not compiled in: each review's object validated
//! by the dynamic validator of its kind's version (`kubeskema::validate::ResourceValidator`,
//! as `cargo kubeskema validate` validates manifests), answered as [`crate::answer`] answers:
//! the apiserver's 422 message and causes, unknown fields and ratcheted rules as warnings.

use axum::response::Response;
use kube_core::DynamicObject;
use kube_core::admission::{AdmissionRequest, AdmissionResponse, Operation};
use kubeskema::crd::Crd;
use kubeskema::validate::ResourceValidator;
use serde_json::Value;

/// The CRDs served, a validator for each served version, built once.
pub struct Crds {
    served: Vec<Served>,
}

struct Served {
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    validator: ResourceValidator<'static>,
}

impl Crds {
    /// The served versions of the CRDs among `documents` (other documents are skipped), or what
    /// is wrong with one: a CRD that does not read, or none at all. The CRDs are kept for the
    /// life of the process.
    pub fn new(documents: Vec<Value>) -> Result<Crds, String> {
        let mut served = Vec::new();
        for document in documents.into_iter().filter(kubeskema::crd::is_crd) {
            let name = document.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("(unnamed)").to_owned();
            let (crd, errors) = Crd::parse_owned(document);
            if let Some(error) = errors.first() {
                return Err(format!("the CRD {name:?} does not read: {}: {}", error.pointer, error.message));
            }
            // Read once when the webhook starts, and used until it stops.
            let crd: &'static Crd = Box::leak(Box::new(crd));
            for version in crd.versions.iter().filter(|v| v.served) {
                served.push(Served {
                    group: &crd.group,
                    version: &version.name,
                    kind: &crd.names.kind,
                    validator: ResourceValidator::new(crd, version),
                });
            }
        }
        if served.is_empty() {
            return Err("no served version of any CustomResourceDefinition was given".to_owned());
        }
        Ok(Crds { served })
    }

    /// The answer to a posted body, as [`crate::answer`].
    pub fn answer(&self, body: &[u8]) -> Response {
        crate::answer_with(body, |request| self.decide(request))
    }

    /// The verdict on one request.
    pub fn decide(&self, request: &AdmissionRequest<DynamicObject>) -> AdmissionResponse {
        let response = AdmissionResponse::from(request);
        let asked = &request.kind;
        let Some(served) =
            self.served.iter().find(|s| (s.group, s.version, s.kind) == (&asked.group, &asked.version, &asked.kind))
        else {
            let served: Vec<String> =
                self.served.iter().map(|s| format!("{}/{} {}", s.group, s.version, s.kind)).collect();
            return crate::not_served(response, &served.join(", "), asked);
        };
        let Some(object) = &request.object else { return response };
        let json = serde_json::to_value(object).unwrap_or_default();
        let outcome = match (&request.operation, &request.old_object) {
            (Operation::Update, Some(old)) => {
                served.validator.validate_update_owned(json, &serde_json::to_value(old).unwrap_or_default())
            }
            _ => served.validator.validate_create_owned(json),
        };
        // Unknown fields and the rules that ratcheting lets pass, as the apiserver warns.
        let warnings: Vec<String> = outcome
            .pruned
            .iter()
            .map(|path| kubeskema::decode::strict_issue(path.clone(), "unknown").detail)
            .chain(outcome.warnings.iter().map(ToString::to_string))
            .collect();
        let mut response = response;
        if !warnings.is_empty() {
            response.warnings = Some(kubeskema::issue::cap_warnings(warnings));
        }
        if outcome.issues.is_empty() {
            return response;
        }
        let name = outcome.object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or(&request.name);
        crate::invalid(response, served.group, served.kind, name, &outcome.issues)
    }
}
