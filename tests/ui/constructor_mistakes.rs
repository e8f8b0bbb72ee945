// `constructors` builds structs; an enum is built by its variants.
#[derive(kubeskema::Validate)]
#[kubeskema(constructors)]
enum Mode {
    Fast,
    Slow,
}

// serde's `default` on a field whose type has no `Default`: rustc names the field.
#[derive(kubeskema::Deserialize)]
struct NoDefault {
    x: i64,
}

#[derive(kubeskema::Deserialize)]
struct Filled {
    #[serde(default)]
    count: i64,
    #[serde(default)]
    missing: NoDefault,
}

fn main() {}
