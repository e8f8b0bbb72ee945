// Values are checked when the attribute is read: JSON text, rule reasons, enum value kinds.
#[derive(kubeskema::Deserialize)]
#[kubeskema(rule(rule = "self.a > 0", reason = "FieldValueBogus"))]
struct Spec {
    #[kubeskema(default_json = "{not json")]
    a: i64,
    #[kubeskema(maximum = 1e400)]
    b: f64,
}

#[derive(kubeskema::Deserialize)]
enum Level {
    #[kubeskema(value = 1.5)]
    Half,
}

// A variant of an enum that carries data is named, not given a value.
#[derive(kubeskema::Deserialize)]
enum Mixed {
    #[kubeskema(value = 1)]
    One,
    Data(i64),
}

fn main() {}
