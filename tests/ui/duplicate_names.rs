// One JSON name per field, one value per variant, one keyword of each kind.
#[derive(kubeskema::Serialize)]
struct Spec {
    #[kubeskema(rename = "port")]
    first: i64,
    #[kubeskema(rename = "port", minimum = 1, minimum = 2)]
    second: i64,
}

#[derive(kubeskema::Serialize)]
enum Mode {
    #[kubeskema(value = "fast")]
    Fast,
    #[kubeskema(value = "fast")]
    Quick,
}

fn main() {}
