// Validation keywords must fit the field's type and junctors must be value validations.
#[derive(kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(one_of = r#"[{"required": ["a"]}, {"type": "object", "additionalProperties": false}]"#)]
struct Spec {
    #[kubeskema(list_type = "set")]
    a: Option<String>,
    #[kubeskema(list_type = "map")]
    b: Option<Vec<String>>,
    #[kubeskema(items(max_length = 1))]
    c: Option<String>,
    #[kubeskema(list_type = "bag")]
    d: Option<Vec<String>>,
    #[kubeskema(not = r#"[{"required": ["a"]}]"#)]
    e: Option<String>,
    #[kubeskema(unique_items)]
    f: Option<Vec<String>>,
}

fn main() {}
