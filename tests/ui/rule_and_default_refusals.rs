// What the apiserver refuses in a CRD, refused when the type is compiled (issue 49): rules
// that are empty, do not parse, or are plainly not a boolean; a messageExpression that is
// plainly not a string; a pattern Go's regexp refuses; a default of another type than its
// field's.
#[derive(kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(rule(rule = "self.a ==", message = "a"))]
struct Rules {
    #[kubeskema(rule(rule = "  "))]
    a: Option<String>,
    #[kubeskema(rule(rule = "'yes'"))]
    b: Option<String>,
    #[kubeskema(rule(rule = "self + 1"))]
    c: Option<i64>,
    #[kubeskema(rule(rule = "self > 0", message_expression = "1"))]
    d: Option<i64>,
    #[kubeskema(items(rule(rule = "self.startsWith(")))]
    e: Option<Vec<String>>,
    #[kubeskema(pattern = "(")]
    g: Option<String>,
    #[kubeskema(items(pattern = "x**"))]
    h: Option<Vec<String>>,
    // Fine: a rule the macro cannot judge without types, and a message built with `+`.
    #[kubeskema(rule(rule = "self.size() > 1", message_expression = "'too short: ' + self"))]
    f: Option<String>,
}

#[derive(kubeskema::Deserialize, kubeskema::Validate)]
struct Defaults {
    #[kubeskema(default = "x")]
    a: i64,
    #[kubeskema(default_json = "1.5")]
    b: Option<i32>,
    #[kubeskema(default = 3)]
    c: String,
    // Fine: a whole number for a float.
    #[kubeskema(default = 3)]
    d: f64,
}

fn main() {}
