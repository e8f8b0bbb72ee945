// `#[serde(...)]` that changes the JSON's shape in a way kubeskema does not follow yet is an
// error that says so; so is a name that differs between the two attributes.

#[derive(kubeskema::Validate)]
struct Outer {
    #[serde(flatten)]
    inner: Inner,
    #[kubeskema(rename = "a")]
    #[serde(rename = "b")]
    named: String,
}

#[derive(kubeskema::Validate)]
#[serde(rename_all = "Title Case")]
struct Inner {
    field: String,
}

// kubeskema's read fills schema defaults only.
#[derive(kubeskema::Deserialize)]
struct Defaults {
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(kubeskema::Validate)]
#[serde(tag = "kind")]
enum Shape {
    Circle,
}

fn main() {}
