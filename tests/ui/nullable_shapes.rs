// A nullable field must be able to hold null, and tell it apart from absence when it may be absent.
#[derive(kubeskema::Deserialize)]
struct Spec {
    #[kubeskema(nullable)]
    plain: String,
    #[kubeskema(nullable)]
    ambiguous: Option<String>,
    #[kubeskema(required)]
    required_option: Option<String>,
    #[kubeskema(required, default = 1)]
    both: i64,
}

fn main() {}
