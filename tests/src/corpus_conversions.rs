//! The conversion methods of real multi-version CRDs, written as their users would (feature
//! `corpus`): cluster-api's IPAddress (`v1alpha1` and `v1beta1` to the hub `v1beta2`), kueue's
//! LocalQueue and AdmissionCheck (`v1beta1` to `v1beta2`). `tests/corpus/conversions.rs` runs
//! their round trips beside those of every CRD whose spokes need no methods (istio's among
//! them), through `generated::round_trips` (the build script lists the pairs these implement).

use kubeskema::testing::Lossy;

use crate::generated::corpus::kubernetes_sigs__cluster_api::ipam_cluster_x_k8s_io as capi;
use crate::generated::corpus::kubernetes_sigs__kueue::kueue_x_k8s_io as kueue;

/// The conversion methods of the fixtures.
pub struct Fixtures;

/// What a fixture's spoke → hub → spoke round trip may change (nothing for the others).
pub fn lossy(crd: &str, version: &str) -> Lossy<'static> {
    match (crd, version) {
        // v1beta2 requires a spec and a pool's `apiGroup`: an object without them comes back
        // with the ones `to_hub` gave it.
        ("ipaddresses.ipam.cluster.x-k8s.io", _) => {
            Lossy { lost: &[], filled: &[&["spec"], &["spec", "poolRef", "apiGroup"]] }
        }
        // Removed in v1beta2 (`flavorUsage` was renamed `flavorsUsage`, not lost).
        ("localqueues.kueue.x-k8s.io", "v1beta1") => Lossy { lost: &[&["status", "flavors"]], filled: &[] },
        ("admissionchecks.kueue.x-k8s.io", "v1beta1") => Lossy { lost: &[&["spec", "retryDelayMinutes"]], filled: &[] },
        _ => Lossy::default(),
    }
}

/// The spec v1beta2 requires, for an object that had none.
fn empty_ip_address_spec() -> capi::v1beta2::IpAddressSpec {
    capi::v1beta2::IpAddressSpec::new(
        String::new(),
        capi::v1beta2::ClaimRef::new(String::new()),
        capi::v1beta2::PoolRef::new(String::new(), String::new(), String::new()),
        0,
    )
}

macro_rules! ip_address {
    ($spoke:ident) => {
        impl capi::$spoke::ip_address_conversion::Conversion for Fixtures {
            fn spec_to_hub(
                &self,
                _: &capi::$spoke::IpAddress,
                converted: Option<capi::v1beta2::IpAddressSpec>,
            ) -> capi::v1beta2::IpAddressSpec {
                converted.unwrap_or_else(empty_ip_address_spec)
            }

            fn spec_pool_ref_api_group_to_hub(&self, _: &capi::$spoke::PoolRef, converted: Option<String>) -> String {
                converted.unwrap_or_default()
            }

            fn spec_prefix_to_hub(&self, from: &capi::$spoke::IpAddressSpec) -> i32 {
                // v1beta2 holds a prefix length in an int32 (at most 128): anything larger
                // was never a prefix.
                i32::try_from(from.prefix).unwrap_or(i32::MAX)
            }
        }
    };
}

ip_address!(v1alpha1);
ip_address!(v1beta1);

impl kueue::v1beta1::local_queue_conversion::Conversion for Fixtures {
    fn status_flavor_usage_from_hub(
        &self,
        from: &kueue::v1beta2::LocalQueueStatus,
    ) -> Option<Vec<kueue::v1beta1::FlavorUsage>> {
        from.flavors_usage.clone()
    }

    fn status_flavors_from_hub(
        &self,
        _: &kueue::v1beta2::LocalQueueStatus,
    ) -> Option<Vec<kueue::v1beta1::StatusFlavor>> {
        // Removed in v1beta2: an object stored as v1beta2 never had it.
        None
    }

    fn status_flavors_usage_to_hub(
        &self,
        from: &kueue::v1beta1::LocalQueueStatus,
    ) -> Option<Vec<kueue::v1beta2::LocalQueueStatusFlavorsReservation>> {
        from.flavor_usage.clone()
    }
}

impl kueue::v1beta1::admission_check_conversion::Conversion for Fixtures {
    fn spec_retry_delay_minutes_from_hub(&self, _: &kueue::v1beta2::AdmissionCheckSpec) -> i64 {
        // The schema's default in v1beta1.
        15
    }
}
