//! The golden `Edge` (`fixtures/golden/cel_native.yaml`) written by hand, as a Rust author
//! would: `Vec`, `String`, `BTreeMap`, no `native = ...`; the same rules, verbatim. Its rules
//! are compiled by the derive (`cel::derived`), and `tests/derived_native.rs` runs them natively
//! and interpreted on the generated differential's edge values.

use std::collections::BTreeMap;

use kubeskema::ObjectMeta;

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(resource(group = "native.example.com", version = "v1", kind = "Edge"))]
pub struct Edge {
    #[kubeskema(rename = "apiVersion")]
    pub api_version: String,
    pub kind: String,
    #[kubeskema(default_json = "{}")]
    pub metadata: ObjectMeta,
    pub spec: Option<EdgeSpec>,
}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(
    rule(
        rule = "self.items.all(i, i.name.size() < 8 && i.count / i.divisor >= 0)",
        message = "all items are short and divide"
    ),
    rule(rule = "self.items.exists(i, i.count % i.divisor == 1) || self.items.size() == 0"),
    rule(
        rule = "self.items.exists_one(i, i.name.startsWith('a'))",
        reason = "FieldValueForbidden",
        field_path = ".items"
    ),
    rule(rule = "self.items.map(i, i.count + 1).all(c, c > 0)"),
    rule(
        rule = "self.items.filter(i, i.name.contains('x')).size() <= 2",
        message_expression = "'too many x in ' + self.name + (self.items.size() > 4 ? ' (of many)' : ' (of few)')"
    ),
    rule(rule = "self.count * 2 > self.count - 1"),
    rule(rule = "-self.count <= 9223372036854775807"),
    rule(rule = "self.items[0].name != 'first' || self.items[1].name == 'second'"),
    rule(rule = "self.labels['team'] == 'core' || !('team' in self.labels)"),
    rule(
        rule = "!has(self.labels.owner) || self.labels.owner.startsWith('team-') || self.name.lowerAscii() == self.name"
    ),
    rule(rule = "self.name.substring(1, 3) != 'zz' && self.name.size() >= 0"),
    rule(rule = "self.name.matches('^[a-z0-9-]*$') && self.name.find('[0-9]+') != '13'"),
    rule(rule = "duration(self.timeout) <= duration('1h')", message = "at most an hour"),
    rule(rule = "self.name.split('-').size() <= 4 && self.name.trim() == self.name"),
    rule(rule = "{'a': 1, 'b': 2}[self.level] > 0"),
    rule(rule = "int(self.number) < 100"),
    rule(rule = "self.tags.all(t, t in ['x', 'y', 'z', 'é', '𝄞'])"),
    rule(rule = "(has(self.extra) ? self.extra : []).size() < 3"),
    rule(rule = "isURL(self.link) ? url(self.link).getScheme() in ['https', 'http'] : !isIP(self.link)"),
    rule(rule = "self.items.all(i, self.items.exists(j, j.name == i.name))", message = "every item is there"),
    rule(rule = "!has(self.count) || self.count >= -1000"),
    rule(rule = "self.ports.size() == 0 || self.ports[0].port > 0"),
    rule(rule = "self.ports.exists(p, p.port == 80 || p.port == 0)"),
    rule(
        rule = "self.ports == oldSelf.ports || self.ports.size() > oldSelf.ports.size()",
        message = "ports change only by growing"
    ),
    rule(rule = "self.set == oldSelf.set", message = "the set is fixed, in any order"),
    rule(rule = "self.count == oldSelf.count || self.count > oldSelf.count", message = "count only grows"),
    rule(
        rule = "!oldSelf.hasValue() || oldSelf.value().name == self.name",
        optional_old_self = true,
        message = "name is fixed"
    )
)]
pub struct EdgeSpec {
    #[kubeskema(max_items = 8)]
    pub items: Option<Vec<Item>>,
    pub count: Option<i64>,
    #[kubeskema(max_properties = 8, values(max_length = 63))]
    pub labels: Option<BTreeMap<String, String>>,
    #[kubeskema(max_length = 32)]
    pub name: Option<String>,
    #[kubeskema(max_length = 16)]
    pub timeout: Option<String>,
    #[kubeskema(max_length = 4)]
    pub level: Option<String>,
    #[kubeskema(max_length = 24)]
    pub number: Option<String>,
    #[kubeskema(max_items = 8, items(max_length = 8))]
    pub tags: Option<Vec<String>>,
    #[kubeskema(max_items = 8, items(max_length = 8))]
    pub extra: Option<Vec<String>>,
    #[kubeskema(max_length = 64)]
    pub link: Option<String>,
    #[kubeskema(max_items = 8, list_type = "map", list_map_keys("name", "protocol"))]
    pub ports: Option<Vec<Port>>,
    #[kubeskema(max_items = 8, list_type = "set", items(max_length = 8))]
    pub set: Option<Vec<String>>,
}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub struct Item {
    #[kubeskema(max_length = 16)]
    pub name: String,
    #[kubeskema(default = 0)]
    pub count: i64,
    #[kubeskema(default = 1)]
    pub divisor: i64,
}

#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
pub struct Port {
    #[kubeskema(max_length = 16)]
    pub name: String,
    #[kubeskema(max_length = 8, default = "TCP")]
    pub protocol: String,
    pub port: Option<i64>,
}

/// Fields whose types the derive's compiled code does not read (an int-or-string, a `u32`, any
/// JSON, nullable items, a `HashMap`, a set) under rules that read them: the rules still compile
/// (each unread operation defers to the interpreter) and give the interpreter's answers
/// (`tests/derived_native.rs`).
#[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)]
#[kubeskema(
    rule(rule = "self.port in [80, 443] || self.port == 'http'"),
    rule(rule = "self.count in [1, 2] || self.count > 2"),
    rule(rule = "has(self.any) ? self.any == 1 : true"),
    rule(rule = "self.names.all(n, n == null || n.size() > 0)"),
    rule(rule = "self.weights.all(k, self.weights[k] >= 0)"),
    rule(rule = "(self.flag ? self.count : 0) != 7"),
    rule(rule = "self.tags.exists(t, t == 'x') || self.tags.size() == 0")
)]
pub struct Awkward {
    pub port: kubeskema::IntOrString,
    pub count: u32,
    pub any: Option<kubeskema::serde_json::Value>,
    #[kubeskema(max_items = 4, items(nullable))]
    pub names: Vec<Option<String>>,
    #[kubeskema(max_properties = 4)]
    pub weights: std::collections::HashMap<String, i64>,
    pub flag: bool,
    #[kubeskema(max_items = 4)]
    pub tags: std::collections::BTreeSet<String>,
}
