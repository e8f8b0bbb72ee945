// Rules on a value without a CEL value (`no_cel_value`, written by codegen) must all be
// compiled to Rust; `transition` and `native_message` describe a `native` rule.
#[derive(kubeskema::Deserialize, kubeskema::Validate)]
struct Interpreted {
    #[kubeskema(no_cel_value, rule(rule = "self.size() < 3"))]
    a: Option<String>,
}

#[derive(kubeskema::Deserialize, kubeskema::Validate)]
struct NotNative {
    #[kubeskema(rule(rule = "self == oldSelf", transition))]
    b: Option<String>,
}

fn main() {}
