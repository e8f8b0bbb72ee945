// `#[serde(...)]` that changes the JSON's shape in a way kubeskema does not follow (yet) is an
// error that says so; so is a name that differs between the two attributes.

#[derive(kubeskema::Validate)]
#[serde(transparent)]
struct Wrapper {
    inner: String,
    other: String,
}

#[derive(kubeskema::Validate)]
#[serde(with = "module")]
struct Converted {
    inner: String,
}

#[derive(kubeskema::Validate)]
struct Outer {
    #[serde(flatten)]
    inner: Option<Inner>,
    #[serde(skip_serializing)]
    cache: String,
    #[kubeskema(rename = "a")]
    #[serde(rename = "b")]
    named: String,
}

#[derive(kubeskema::Validate)]
#[serde(rename_all = "Title Case")]
struct Inner {
    field: String,
}

// Data-carrying enums: what has no structural schema, or would write a key twice.
#[derive(kubeskema::Validate)]
#[serde(tag = "kind")]
enum Shape {
    Circle { kind: String },
    Pair(i64, i64),
    #[kubeskema(max_length = 3)]
    Named(String),
}

#[derive(kubeskema::Validate)]
#[serde(content = "value")]
enum NoTag {
    One(String),
}

fn main() {}
