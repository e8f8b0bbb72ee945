//! The shapes serde gives JSON beyond a plain struct (data-carrying enums in its four
//! representations, `flatten`, `skip`, `deny_unknown_fields`, `transparent`) and the std collections, defined twice: `by_serde` (serde's
//! derives beside `kubeskema::Validate`) and `by_kubeskema` (kubeskema's three derives), so a
//! test can show both read and write the same JSON and give the same schema. `derived-crds`
//! writes the `Pipeline` CRD and [`samples`] as objects; the apiserver's verdicts on them are
//! recorded in `fixtures/derived/` (`serde_shapes.rs` in the tests).

use serde_json::{Value, json};

/// Defines the types twice: `by_serde` (serde's derives beside `kubeskema::Validate`) and
/// `by_kubeskema` (kubeskema's three derives).
macro_rules! both {
    ($($item:item)*) => {
        #[allow(dead_code, reason = "each shape is read and written, not every field looked at")]
        pub mod by_serde {
            use kubeskema::ObjectMeta;
            $( #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, kubeskema::Validate)] $item )*
        }
        #[allow(dead_code, reason = "each shape is read and written, not every field looked at")]
        pub mod by_kubeskema {
            use kubeskema::ObjectMeta;
            $( #[derive(Clone, Debug, PartialEq, kubeskema::Serialize, kubeskema::Deserialize, kubeskema::Validate)] $item )*
        }
    };
}

both! {
    /// A resource holding each representation.
    #[kubeskema(resource(group = "enums.example.com", version = "v1"))]
    pub struct Pipeline {
        #[serde(rename = "apiVersion")]
        pub api_version: String,
        pub kind: String,
        pub metadata: ObjectMeta,
        pub spec: Holder,
    }

    /// Where the source comes from (externally tagged: serde's default).
    #[serde(rename_all = "camelCase")]
    #[kubeskema(rule(rule = "!has(self.ociImage) || self.ociImage.image.size() > 0", message = "an image is named"))]
    pub enum External {
        /// A git repository.
        Git {
            #[kubeskema(min_length = 1)]
            url: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            branch: Option<String>,
        },
        OciImage(Oci),
    }

    pub struct Oci {
        pub image: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub tag: Option<String>,
    }

    /// Unit and data variants, externally tagged: a string or an object.
    pub enum Mixed {
        Off,
        Fixed { replicas: i32 },
    }

    #[serde(tag = "type")]
    #[kubeskema(rule(rule = "!has(self.depth) || self.depth <= 10", message = "depth is at most 10"))]
    pub enum Internal {
        Git { url: String, #[serde(skip_serializing_if = "Option::is_none")] depth: Option<i64> },
        Oci(Oci),
        /// A port as a number here, as a name below: widened to int-or-string.
        Port { port: i64 },
        Named { #[serde(rename = "port")] name: String },
        Empty,
    }

    #[serde(tag = "kind", content = "spec")]
    pub enum Adjacent {
        Scale { #[kubeskema(minimum = 0, rule(rule = "self <= 100", message = "at most 100 replicas"))] replicas: i32 },
        Pause,
        Image(Oci),
    }

    #[serde(untagged)]
    pub enum Untagged {
        Count { count: i64 },
        Ratio { ratio: f64, #[serde(skip_serializing_if = "Option::is_none")] note: Option<String> },
    }

    /// Fields shared by several types, flattened into each.
    pub struct Common {
        #[kubeskema(min_length = 1)]
        pub name: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub labels: Option<std::collections::BTreeMap<String, String>>,
    }

    pub struct WithFlatten {
        #[serde(flatten)]
        pub common: Common,
        pub replicas: i64,
        /// Never read nor written.
        #[serde(skip)]
        pub cache: Option<String>,
    }

    #[serde(deny_unknown_fields)]
    pub struct Strict {
        pub a: i64,
    }

    /// An untagged enum flattened beside a field (kube-rs/kube#1941: kube-derive emits a CRD
    /// the apiserver refuses for this shape).
    pub struct Rollout {
        pub name: String,
        #[serde(flatten)]
        pub strategy: Untagged,
    }

    pub struct Collections {
        #[kubeskema(values(minimum = 0))]
        pub counts: std::collections::HashMap<String, i64>,
        pub tags: std::collections::BTreeSet<String>,
        #[serde(skip_serializing_if = "std::collections::HashSet::is_empty")]
        pub names: std::collections::HashSet<String>,
    }

    /// A port, written as its number.
    #[serde(transparent)]
    pub struct Port(#[kubeskema(minimum = 1, maximum = 65535)] pub i64);

    #[serde(transparent)]
    #[kubeskema(rule(rule = "self != 'admin'", message = "admin is reserved"))]
    pub struct Name {
        #[kubeskema(max_length = 5)]
        pub value: String,
    }

    pub struct Holder {
        pub external: External,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub mixed: Option<Mixed>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub internal: Option<Internal>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub adjacent: Option<Adjacent>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub untagged: Option<Untagged>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub flattened: Option<WithFlatten>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub strict: Option<Strict>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub rollout: Option<Rollout>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub collections: Option<Collections>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub port: Option<Port>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub owner: Option<Name>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub timeout: Option<std::time::Duration>,
    }
}

/// Specs the types read (`true`) or refuse (`false`), each as one `Pipeline` spec.
pub fn samples() -> Vec<(Value, bool)> {
    let git = json!({"git": {"url": "u"}});
    let with = |key: &str, value: Value| json!({"external": git.clone(), key: value});
    let good = [
        json!({"external": {"git": {"url": "https://x"}}}),
        json!({"external": {"git": {"url": "https://x", "branch": "main"}}}),
        json!({"external": {"ociImage": {"image": "nginx"}}, "mixed": "Off"}),
        json!({"external": {"ociImage": {"image": "nginx"}}, "mixed": {"Fixed": {"replicas": 2}}}),
        with("internal", json!({"type": "Git", "url": "u", "depth": 1})),
        with("internal", json!({"type": "Oci", "image": "i"})),
        with("internal", json!({"type": "Port", "port": 80})),
        with("internal", json!({"type": "Named", "port": "http"})),
        with("internal", json!({"type": "Empty"})),
        with("adjacent", json!({"kind": "Scale", "spec": {"replicas": 3}})),
        with("adjacent", json!({"kind": "Pause"})),
        with("adjacent", json!({"kind": "Image", "spec": {"image": "i"}})),
        with("untagged", json!({"count": 3})),
        with("untagged", json!({"ratio": 0.5, "note": "n"})),
        with("flattened", json!({"name": "a", "replicas": 1})),
        with("flattened", json!({"name": "a", "labels": {"x": "y"}, "replicas": 1})),
        with("strict", json!({"a": 1})),
        with("rollout", json!({"name": "r", "count": 2})),
        with("rollout", json!({"name": "r", "ratio": 0.5})),
        with("collections", json!({"counts": {"a": 1, "b": 0}, "tags": ["a", "b"], "names": ["x"]})),
        with("port", json!(8080)),
        with("owner", json!("ann")),
        with("timeout", json!({"secs": 5, "nanos": 250})),
    ];
    let bad = [
        json!({"external": {}}),
        json!({"external": {"git": {"url": "u"}, "ociImage": {"image": "i"}}}),
        json!({"external": {"svn": {}}}),
        json!({"external": "git"}),
        json!({"external": {"git": {"url": ""}}}),
        json!({"external": {"ociImage": {"image": ""}}}),
        with("mixed", json!("On")),
        with("mixed", json!({"Fixed": {"replicas": "two"}})),
        with("internal", json!({"url": "u"})),
        with("internal", json!({"type": "Svn"})),
        with("internal", json!({"type": "Git"})),
        with("internal", json!({"type": "Port", "port": "http"})),
        with("internal", json!({"type": "Git", "url": "u", "image": "i"})),
        with("internal", json!({"type": "Git", "url": "u", "depth": 11})),
        // A field of another variant: the CRD declares it, the variant cannot hold it.
        with("internal", json!({"type": "Git", "url": "u", "port": 80})),
        with("internal", json!({"type": "Empty", "url": "u"})),
        with("internal", json!({"type": "Git", "url": 5})),
        with("adjacent", json!({"kind": "Scale"})),
        with("adjacent", json!({"kind": "Scale", "spec": {"replicas": 101}})),
        with("adjacent", json!({"kind": "Pause", "spec": {"replicas": 1}})),
        with("adjacent", json!({"kind": "Scale", "spec": {"replicas": -1}})),
        with("adjacent", json!({"kind": "Scale", "spec": {"replicas": 3, "image": "i"}})),
        with("adjacent", json!({"kind": "Svn"})),
        with("untagged", json!({"other": 1})),
        with("untagged", json!({"count": 3, "ratio": 0.5})),
        with("flattened", json!({"replicas": 1})),
        with("flattened", json!({"name": "", "replicas": 1})),
        with("strict", json!({"a": 1, "b": 2})),
        with("rollout", json!({"name": "r"})),
        with("rollout", json!({"name": "r", "count": 2, "ratio": 0.5})),
        with("collections", json!({"counts": {"a": -1}, "tags": []})),
        with("collections", json!({"counts": {}, "tags": ["a", "a"]})),
        with("port", json!(0)),
        with("port", json!("80")),
        with("owner", json!("toolong")),
        with("owner", json!("admin")),
        with("timeout", json!({"secs": 5})),
        with("timeout", json!({"secs": -1, "nanos": 0})),
        with("timeout", json!({"secs": 1, "nanos": 1000000000})),
    ];
    good.into_iter().map(|s| (s, true)).chain(bad.into_iter().map(|s| (s, false))).collect()
}

/// A sample spec as a `Pipeline` object.
pub fn object(spec: &Value) -> Value {
    json!({"apiVersion": "enums.example.com/v1", "kind": "Pipeline", "metadata": {"name": "p", "namespace": "default"}, "spec": spec})
}
