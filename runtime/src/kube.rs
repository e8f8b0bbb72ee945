//! kube-rs and k8s-openapi (feature `kube`): what types generated in kube-rs mode need from
//! them, and the conversions users expect.
//!
//! - [`k8s_openapi`] and [`kube_core`] are re-exported, so generated code names one version of
//!   each (`kube::Resource` is `kube_core::Resource`).
//! - [`IntOrString`] converts to and from k8s-openapi's (`TryFrom`: theirs
//!   holds an `i32`).
//! - k8s-openapi's `ObjectMeta`, `Condition`, `ObjectReference`, `Time`, `MicroTime` and
//!   `Quantity` read, validate and show
//!   themselves to CEL rules as the schema they stand for: `ObjectMeta` as root metadata (the
//!   apiserver checks it with its own code, see [`crate::objectmeta`]), `Condition` and
//!   `ObjectReference` (and `Time`, `MicroTime`, `Quantity`) against [`CONDITION_SCHEMA`],
//!   [`OBJECT_REFERENCE_SCHEMA`], [`TIME_SCHEMA`] and [`QUANTITY_SCHEMA`] with the
//!   dynamic validator's walk, so their issues are the apiserver's.
//!
//! k8s-openapi needs exactly one Kubernetes version feature (`v1_33` … `v1_37`, or `latest`),
//! chosen by the final application, as with kube-rs itself.
//!
//! ```
//! use kubeskema::IntOrString;
//! use kubeskema::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString as K8sIntOrString;
//! let port = K8sIntOrString::try_from(IntOrString::String("http".into())).unwrap();
//! assert_eq!(port, K8sIntOrString::String("http".into()));
//! assert!(K8sIntOrString::try_from(IntOrString::Int(1 << 40)).is_err());
//! assert_eq!(IntOrString::from(K8sIntOrString::Int(8080)), IntOrString::Int(8080));
//! ```

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, MicroTime, ObjectMeta, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString as K8sIntOrString;
use serde::de::{self, Deserialize, Deserializer};
use serde_json::Value;

use kube_core::response::{Status, StatusCause, StatusDetails, StatusSummary};

use crate::check::openapi::StaticSchema;
use crate::check::ratchet::Unchanged;
use crate::read::decode::{Cx, Decode};
use crate::report::issue::{BadValue, ErrorType, Issue};
use crate::report::path::At;
use crate::report::path::Path;
use crate::schema::resource::{CONDITION_SCHEMA, OBJECT_REFERENCE_SCHEMA, QUANTITY_SCHEMA, TIME_SCHEMA};
use crate::typed::{Phases, Validate};
use crate::types::int_or_string::IntOrString;

// k8s-openapi's `ObjectMeta` is a `Validate` leaf like ours (see `check`).

/// k8s-openapi holds an `int32` (Go's `intstr`); the schema's int-or-string admits any integer,
/// so a larger one does not convert.
impl TryFrom<IntOrString> for K8sIntOrString {
    type Error = std::num::TryFromIntError;
    fn try_from(v: IntOrString) -> Result<Self, Self::Error> {
        Ok(match v {
            IntOrString::Int(i) => K8sIntOrString::Int(i32::try_from(i)?),
            IntOrString::String(s) => K8sIntOrString::String(s),
        })
    }
}

impl From<K8sIntOrString> for IntOrString {
    fn from(v: K8sIntOrString) -> Self {
        match v {
            K8sIntOrString::Int(i) => IntOrString::Int(i.into()),
            K8sIntOrString::String(s) => IntOrString::String(s),
        }
    }
}

// ---- ObjectMeta: root and embedded metadata. ----

/// Read as [`crate::ObjectMeta`] is (unknown keys dropped, or reported in strict mode), then
/// converted; a value k8s-openapi cannot hold (a timestamp that is not RFC 3339) fails the read,
/// as a wrongly typed metadata key fails the apiserver's request.
impl crate::types::conversion::Annotations for ObjectMeta {
    fn take_annotation(&mut self, key: &str) -> Option<String> {
        let annotations = self.annotations.as_mut()?;
        let value = annotations.remove(key);
        // k8s-openapi's "no annotations" is `None`: an emptied map is left as the object came.
        if value.is_some() && annotations.is_empty() {
            self.annotations = None;
        }
        value
    }

    fn set_annotation(&mut self, key: &str, value: String) {
        self.annotations.get_or_insert_with(Default::default).insert(key.to_owned(), value);
    }
}

impl Decode for ObjectMeta {
    fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
        let Some(ours) = crate::types::meta::ObjectMeta::decode(d, cx, at)? else { return Ok(None) };
        let json = serde_json::to_value(&ours).map_err(de::Error::custom)?;
        ObjectMeta::deserialize(json).map(Some).map_err(|e| de::Error::custom(format_args!("metadata: {e}")))
    }
}

/// Only `name` and `generateName` are visible to rules (semantics §9.4).
#[cfg(feature = "cel")]
impl crate::cel::vocabulary::value::ToCel for ObjectMeta {
    fn to_cel(&self) -> cel::Value {
        let ours = crate::types::meta::ObjectMeta {
            name: self.name.clone(),
            generate_name: self.generate_name.clone(),
            ..crate::types::meta::ObjectMeta::default()
        };
        ours.to_cel()
    }
}

/// Read in place by the metadata rules, as ours is.
impl crate::check::objectmeta::MetaView for ObjectMeta {
    fn text(&self, key: &str) -> Option<&str> {
        let strings = [&self.name, &self.generate_name, &self.namespace, &self.uid].map(Option::as_deref);
        crate::check::objectmeta::named_text(key, strings)
    }
    fn shown(&self, key: &str) -> String {
        match (key, &self.creation_timestamp) {
            ("creationTimestamp", Some(t)) => {
                serde_json::to_value(t).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
            }
            _ => self.text(key).unwrap_or_default().to_owned(),
        }
    }
    fn labels(&self, each: &mut dyn FnMut(&str, &str)) {
        self.labels.iter().flatten().for_each(|(k, v)| each(k, v));
    }
    fn annotations(&self, each: &mut dyn FnMut(&str, &str)) {
        self.annotations.iter().flatten().for_each(|(k, v)| each(k, v));
    }
    fn finalizers(&self, each: &mut dyn FnMut(&str)) {
        self.finalizers.iter().flatten().for_each(|f| each(f));
    }
    fn generation(&self) -> Option<i64> {
        self.generation
    }
    fn owner_references(&self) -> Vec<crate::check::objectmeta::OwnerRef<'_>> {
        self.owner_references
            .iter()
            .flatten()
            .map(|r| crate::check::objectmeta::OwnerRef {
                api_version: &r.api_version,
                kind: &r.kind,
                name: &r.name,
                uid: &r.uid,
                controller: r.controller,
                block_owner_deletion: r.block_owner_deletion,
            })
            .collect()
    }
    fn same(new: Option<&Self>, old: Option<&Self>, key: &str) -> bool {
        match key {
            "creationTimestamp" => {
                new.and_then(|m| m.creation_timestamp.as_ref()) == old.and_then(|m| m.creation_timestamp.as_ref())
            }
            _ => new.and_then(|m| m.text(key)) == old.and_then(|m| m.text(key)),
        }
    }
}

// ---- Condition and ObjectReference: a k8s-openapi type standing for a known schema. ----

/// A known schema, parsed and with its patterns compiled once per process.
struct Known(StaticSchema);

impl Known {
    fn validate_at(&'static self, json: &Value, path: &Path, found: &mut Phases) {
        found.values.extend(self.0.validator().validate_at(json, path));
    }

    fn unchanged_at(&'static self, new: &Value, old: &Value, path: &Path, out: &mut Unchanged) -> bool {
        crate::check::ratchet::unchanged_at(new, old, self.0.schema(), path, out);
        new == old
    }

    /// Reads the value as JSON, drops (or reports) keys the schema does not name, and converts.
    /// A value the k8s-openapi type cannot hold is reported with the schema's issues (a wrong
    /// type, a bad timestamp) and left unread.
    fn decode<'de, T: serde::de::DeserializeOwned, D: Deserializer<'de>>(
        &'static self,
        d: D,
        cx: &mut Cx<'_>,
        at: &At<'_>,
    ) -> Result<Option<T>, D::Error> {
        let mut value = Value::deserialize(d)?;
        if let Value::Object(map) = &mut value {
            let unknown: Vec<String> =
                map.keys().filter(|k| !self.0.schema().properties.contains_key(k)).cloned().collect();
            for k in unknown {
                let v = map.remove(&k).unwrap_or_default();
                cx.unknown_key(at, &k, v);
            }
        }
        match T::deserialize(&value) {
            Ok(t) => Ok(Some(t)),
            Err(e) => {
                let path = at.to_path();
                let mut issues = self.0.validator().validate_at(&value, &path);
                if issues.is_empty() {
                    issues.push(Issue::new(
                        ErrorType::Invalid,
                        &path,
                        "type",
                        BadValue::of(&value),
                        format!("cannot be read as {}: {e}", std::any::type_name::<T>()),
                    ));
                }
                cx.extend_issues(issues);
                Ok(None)
            }
        }
    }
}

macro_rules! known_schema {
    ($($t:ty => $json:expr, $cell:ident, $schema_type:literal;)*) => {$(
        static $cell: Known = Known(StaticSchema::new($json));

        /// Validated against its known schema, with the apiserver's messages.
        impl Validate for $t {
            const SCHEMA_TYPE: &'static str = $schema_type;
            fn validate_at(&self, at: &At<'_>, found: &mut Phases) {
                $cell.validate_at(&crate::__private::to_json(self), &at.to_path(), found);
            }
            fn unchanged_at(&self, old: &Self, at: &At<'_>, out: &mut Unchanged) -> bool {
                let (new, old) = (crate::__private::to_json(self), crate::__private::to_json(old));
                $cell.unchanged_at(&new, &old, &at.to_path(), out)
            }
        }

        impl Decode for $t {
            fn decode<'de, D: Deserializer<'de>>(d: D, cx: &mut Cx<'_>, at: &At<'_>) -> Result<Option<Self>, D::Error> {
                $cell.decode(d, cx, at)
            }
        }

        /// Typed as its schema types it (`lastTransitionTime` a timestamp).
        #[cfg(feature = "cel")]
        impl crate::cel::vocabulary::value::ToCel for $t {
            fn to_cel(&self) -> cel::Value {
                crate::cel::vocabulary::value::from_json_with(&crate::__private::to_json(self), $cell.0.schema(), false)
            }
        }
    )*};
}

known_schema! {
    Condition => CONDITION_SCHEMA, CONDITION, "object";
    ObjectReference => OBJECT_REFERENCE_SCHEMA, OBJECT_REFERENCE, "object";
    Time => TIME_SCHEMA, TIME, "string";
    MicroTime => TIME_SCHEMA, MICRO_TIME, "string";
    // An int-or-string has no one type (as `IntOrString`'s).
    Quantity => QUANTITY_SCHEMA, QUANTITY, "";
}

/// The apiserver's answer to an invalid object (`errors.NewInvalid`): code 422, reason
/// `Invalid`, the message of [`crate::issue::invalid_message`], and one cause per issue whose
/// `reason` is the error type (`FieldValueTypeInvalid` for a bad format), `message` the text
/// after the path and `field` the path. What an admission webhook puts in its denial so
/// clients see the same details as from the apiserver.
///
/// ```
/// use kubeskema::issue::{BadValue, ErrorType, Issue};
/// use kubeskema::path::Path;
/// let at = Path::root().property("spec").property("when");
/// let issue = Issue::new(ErrorType::TypeInvalid, &at, "format", BadValue::Str("x".into()), "bad");
/// let status = kubeskema::kube::invalid_status("example.com", "Widget", "w", &[issue]);
/// assert_eq!(status.code, 422);
/// let cause = &status.details.unwrap().causes[0];
/// assert_eq!((cause.reason.as_str(), cause.field.as_str()), ("FieldValueTypeInvalid", "spec.when"));
/// assert_eq!(cause.message, "Invalid value: \"x\": bad");
/// ```
pub fn invalid_status(group: &str, kind: &str, name: &str, issues: &[Issue]) -> Status {
    let kind_group = if group.is_empty() { kind.to_owned() } else { format!("{kind}.{group}") };
    let causes = issues
        .iter()
        .map(|i| StatusCause { reason: i.error_type.reason().to_owned(), message: i.body(), field: i.field() })
        .collect();
    Status {
        status: Some(StatusSummary::Failure),
        code: 422,
        message: crate::report::issue::invalid_message(&kind_group, name, issues),
        metadata: None,
        reason: "Invalid".to_owned(),
        details: Some(StatusDetails {
            name: name.to_owned(),
            group: group.to_owned(),
            kind: kind.to_owned(),
            uid: String::new(),
            causes,
            retry_after_seconds: 0,
        }),
    }
}
