// A container rule that selects a field the struct does not have: a compile error on the rule
// (the one type check the macro can make itself; the others are the CRD check's, at run time).
#[derive(kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(rule(rule = "self.min <= self.maxx", message = "min must not exceed max"))]
struct Range {
    min: i64,
    max: i64,
}

// Escaped names are the fields' JSON names: `namespace` is `__namespace__` to CEL.
#[derive(kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(rule(rule = "has(self.__namespace__) || self.first__dash__name != ''"))]
struct Escaped {
    namespace: Option<String>,
    #[kubeskema(rename = "first-name")]
    first_name: String,
}

fn main() {}
