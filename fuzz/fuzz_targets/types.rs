//! A hand-written type with every field shape, leaf and container the generated code uses.

use std::collections::BTreeMap;

use kubeskema::serde_json::{Map, Value};
use kubeskema::{IntOrString, ObjectMeta};

#[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(resource(
    group = "example.com",
    version = "v1",
    kind = "Widget",
    plural = "widgets",
    scope = "Namespaced"
))]
pub struct Widget {
    #[kubeskema(rename = "apiVersion")]
    pub api_version: String,
    pub kind: String,
    #[kubeskema(default_json = "{}")]
    pub metadata: ObjectMeta,
    pub spec: Option<Spec>,
}

#[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub struct Spec {
    #[kubeskema(min_length = 1, pattern = "^[a-z]+$")]
    pub name: String,
    #[kubeskema(default = 1, minimum = 0, maximum = 10)]
    pub replicas: i64,
    #[kubeskema(format = "int32")]
    pub port: Option<i32>,
    pub ratio: Option<f64>,
    pub enabled: Option<bool>,
    #[kubeskema(default = "fast")]
    pub mode: Option<Mode>,
    #[kubeskema(list_type = "set", max_items = 8)]
    pub tags: Option<Vec<String>>,
    #[kubeskema(list_type = "map", list_map_keys("name"))]
    pub ports: Option<Vec<Port>>,
    pub labels: Option<BTreeMap<String, String>>,
    #[kubeskema(nullable)]
    pub note: Option<Option<String>>,
    #[kubeskema(int_or_string)]
    pub surge: Option<IntOrString>,
    pub config: Option<Value>,
    pub child: Option<Box<Spec>>,
    pub open: Option<Open>,
}

#[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub enum Mode {
    #[kubeskema(value = "fast")]
    Fast,
    #[kubeskema(value = 2)]
    Two,
    #[kubeskema(value = true)]
    Yes,
}

#[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub struct Port {
    pub name: String,
    #[kubeskema(minimum = 1, maximum = 65535)]
    pub number: Option<i64>,
}

#[derive(Debug, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub struct Open {
    pub known: Option<String>,
    #[kubeskema(unknown_fields)]
    pub rest: Map<String, Value>,
}
