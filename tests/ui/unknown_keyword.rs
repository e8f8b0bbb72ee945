// A misspelled keyword lists the ones that are allowed there.
#[derive(kubeskema::Deserialize)]
struct Spec {
    #[kubeskema(maximun = 10)]
    replicas: i64,
}

fn main() {}
