// What the derive can tell of a schema or CRD on its own is a compile error at its place.

// Integers wider than the apiserver's int64.
#[derive(kubeskema::Validate)]
struct Counts {
    unbounded: u64,
    #[kubeskema(items(maximum = 100))]
    bounded_items: Vec<u64>,
    huge: Option<u128>,
    #[kubeskema(values(minimum = 0))]
    sizes: std::collections::BTreeMap<String, usize>,
}

// Bounds the field's type and format cannot hold: the apiserver would refuse every object.
#[derive(kubeskema::Validate)]
struct Bounds {
    // 2^63 - 1 reads as the float 2^63.
    #[kubeskema(maximum = 9223372036854775807)]
    advised_before: u64,
    #[kubeskema(minimum = -3000000000)]
    narrow: i32,
    #[kubeskema(maximum = 1.5)]
    fraction: i64,
    #[kubeskema(format = "float", maximum = 1e39)]
    single: f64,
    #[kubeskema(items(multiple_of = 1e19))]
    factors: Vec<i64>,
    #[kubeskema(multiple_of = 0)]
    no_factor: f64,
    // As code generation writes a CRD that says so: kept.
    #[kubeskema(maximum = 1.5, refuses_every_value)]
    generated: i64,
    // The widest that work.
    #[kubeskema(maximum = 9223372036854774784)]
    widest: u64,
    #[kubeskema(minimum = -2147483648, maximum = 2147483647)]
    widest_int32: i32,
}

// A resource names its group and version; its flags take booleans, its printer columns JSON.
#[derive(kubeskema::Validate)]
#[kubeskema(resource(kind = "Widget"))]
struct Widget {}

#[derive(kubeskema::Validate)]
#[kubeskema(resource(group = "example.com", version = "v1", status = "yes"))]
struct Thing {}

#[derive(kubeskema::Validate)]
#[kubeskema(resource(group = "example.com", version = "v1", printer_column = "Replicas"))]
struct Gadget {}

#[derive(kubeskema::Validate)]
#[kubeskema(resource(group = "example.com", version = "v1", scope = "Global", scale_spec_replicas_path = ".spec.replicas"))]
struct Gizmo {}

#[derive(kubeskema::Validate)]
#[kubeskema(resource(group = "example.com", version = "v1", kind = "A", kind = "B"))]
struct Twice {}

// The envelope the apiserver checks, from the values alone (`ValidateCustomResourceDefinition`).
#[derive(kubeskema::Validate)]
#[kubeskema(resource(group = "example", version = "V1", kind = "Wid_get", list_kind = "Wid_get", plural = "Gadgets"))]
struct Names {}

#[derive(kubeskema::Validate)]
#[kubeskema(resource(group = "widgets.k8s.io", version = "v1"))]
struct Protected {}

#[derive(kubeskema::Validate)]
#[kubeskema(resource(group = "widgets.k8s.io", version = "v1", api_approved = "yes"))]
struct Approved {}

#[derive(kubeskema::Validate)]
#[kubeskema(resource(
    group = "example.com",
    version = "v1",
    short_name = "g_1",
    category = "All",
    deprecation_warning = "not deprecated",
    scale_spec_replicas_path = ".status.replicas",
    scale_status_replicas_path = "status.replicas",
    printer_column = r#"{"name": "R", "type": "int", "jsonPath": "spec.replicas"}"#,
    selectable_field = ".metadata.name",
    selectable_field = ".spec['a']"
))]
struct Envelope {}

#[derive(kubeskema::Validate)]
#[kubeskema(resource(group = "example.com", version = "v1", crd_json = "not a path!"))]
struct CrdJsonNotAPath {}

#[derive(kubeskema::Validate)]
#[kubeskema(resource(group = "example.com", version = "v1", crd_json = "CRD_JSON"))]
struct CrdJsonWithoutKube {}

fn main() {}
