// Keywords are checked for where they stand.
#[derive(kubeskema::Deserialize)]
#[kubeskema(rename = "spec")]
struct Spec {
    #[kubeskema(value = "x", resource(group = "example.com"))]
    name: String,
}

fn main() {}
