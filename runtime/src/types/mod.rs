//! The Kubernetes value types generated structs hold, and their apply configurations
//! (`apply_configuration`): `IntOrString`, `ObjectMeta` (with its
//! owner references and managed fields), `EmptyObject`, and what a CRD version says beside its
//! schema (`resource`: printer columns, the scale subresource, the known schemas kube-rs mode
//! reuses); `conversion`, what generated conversions between a CRD's versions run on.

pub(crate) mod apply_configuration;
pub(crate) mod conversion;
pub(crate) mod empty_object;
pub(crate) mod int_or_string;
pub(crate) mod meta;
