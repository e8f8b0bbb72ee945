//! What a CRD version says about its resource beyond the schema, as data generated root types
//! carry (`Widget::PRINTER_COLUMNS`, `Widget::SCALE`, ...), and the shapes of the Kubernetes
//! types that the kube-rs mode of code generation reuses instead of generating its own.
//!
//! ```
//! use kubeskema::resource::PrinterColumn;
//! const AGE: PrinterColumn = PrinterColumn {
//!     name: "Age",
//!     type_: "date",
//!     json_path: ".metadata.creationTimestamp",
//!     description: None,
//!     format: None,
//!     priority: 0,
//! };
//! assert_eq!(AGE.json_path, ".metadata.creationTimestamp");
//! ```

pub use crate::schema::of_types::crd::{CustomResource, CustomResourceDefinition, ResourceInfo, WebhookClient};

/// One of `additionalPrinterColumns`: what `kubectl get` shows for the resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PrinterColumn {
    /// The column header.
    pub name: &'static str,
    /// The column's OpenAPI type (`string`, `integer`, `number`, `boolean`, `date`).
    pub type_: &'static str,
    /// The JSONPath (kubectl's syntax) of the value shown, relative to the object.
    pub json_path: &'static str,
    /// What the column means.
    pub description: Option<&'static str>,
    /// An OpenAPI format hint for the value (`int32`, `date-time`, ...).
    pub format: Option<&'static str>,
    /// 0 for the standard view; greater values show only with `kubectl get -o wide`.
    pub priority: i32,
}

/// The scale subresource (`subresources.scale`): where replicas live, for `kubectl scale` and
/// autoscalers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scale {
    /// JSON path of the desired replicas (`.spec.replicas`).
    pub spec_replicas_path: &'static str,
    /// JSON path of the observed replicas (`.status.replicas`).
    pub status_replicas_path: &'static str,
    /// JSON path of the serialized label selector, when the CRD gives one.
    pub label_selector_path: Option<&'static str>,
}

/// The schema (descriptions stripped) that controller-gen writes for a `metav1.Condition`:
/// where a CRD declares exactly this, the kube-rs mode uses k8s-openapi's `Condition`, and
/// validates it against this schema with the apiserver's messages.
pub const CONDITION_SCHEMA: &str = r#"{
  "type": "object",
  "required": ["lastTransitionTime", "message", "reason", "status", "type"],
  "properties": {
    "lastTransitionTime": {"type": "string", "format": "date-time"},
    "message": {"type": "string", "maxLength": 32768},
    "observedGeneration": {"type": "integer", "format": "int64", "minimum": 0},
    "reason": {"type": "string", "maxLength": 1024, "minLength": 1, "pattern": "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"},
    "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
    "type": {"type": "string", "maxLength": 316, "pattern": "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"}
  }
}"#;

/// The schema controller-gen writes for a `metav1.Time` or `metav1.MicroTime`.
pub const TIME_SCHEMA: &str = r#"{"type": "string", "format": "date-time"}"#;

/// The schema controller-gen writes for a `resource.Quantity`.
pub const QUANTITY_SCHEMA: &str = r#"{
  "anyOf": [{"type": "integer"}, {"type": "string"}],
  "pattern": "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$",
  "x-kubernetes-int-or-string": true
}"#;

/// The schema (descriptions stripped) that controller-gen writes for a `corev1.ObjectReference`
/// (an atomic map of optional strings): the kube-rs mode uses k8s-openapi's `ObjectReference`
/// for it.
pub const OBJECT_REFERENCE_SCHEMA: &str = r#"{
  "type": "object",
  "x-kubernetes-map-type": "atomic",
  "properties": {
    "apiVersion": {"type": "string"},
    "fieldPath": {"type": "string"},
    "kind": {"type": "string"},
    "name": {"type": "string"},
    "namespace": {"type": "string"},
    "resourceVersion": {"type": "string"},
    "uid": {"type": "string"}
  }
}"#;
