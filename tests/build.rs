//! Build script of the integration tests:
//! - turns the golden snapshots (`tests/snapshots/golden__*.snap`, written by insta) into
//!   Rust modules, so the golden test also proves that every golden file compiles;
//! - generates the fixture CRDs (`fixtures/crds`, `fixtures/golden`) with apply configurations
//!   on, so that every shape they hold is proven to derive `ApplyConfiguration`
//!   (`tests/apply_configuration.rs` includes them);
//! - with the `corpus` feature, generates types for every CRD of the shared corpus (one
//!   module per corpus folder) and a `typed` dispatcher over their root types (deserialize, validate, serialize).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    golden(&out);
    apply_configurations(&out);
    if std::env::var_os("CARGO_FEATURE_CORPUS").is_some() {
        corpus(&out);
    }
}

fn golden(out: &Path) {
    let dir = Path::new("tests/snapshots");
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut entries: Vec<_> =
        std::fs::read_dir(dir).map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    entries.sort();
    // `golden__<fixture>__<group>__<version>.snap` → `<fixture>::<group>::<version>`: the
    // modules of one fixture sit in one tree, as generated, so those that re-export each
    // other's types (`super::super::<group>::<version>::T`) compile.
    let mut tree: std::collections::BTreeMap<String, std::collections::BTreeMap<String, Vec<String>>> =
        Default::default();
    for path in entries {
        let Some(stem) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".snap")) else {
            continue;
        };
        let Some(module) = stem.strip_prefix("golden__") else {
            continue;
        };
        let [fixture, group, version] = module.split("__").collect::<Vec<_>>()[..] else {
            panic!("{}: a golden snapshot is named golden__<fixture>__<group>__<version>", path.display());
        };
        let text = std::fs::read_to_string(&path).expect("snapshot is readable");
        // insta's header is a YAML front matter between two `---` lines.
        let body = text.splitn(3, "---\n").nth(2).expect("snapshot has insta's header");
        std::fs::write(out.join(format!("golden_{module}.rs")), body).expect("OUT_DIR is writable");
        tree.entry(fixture.to_owned()).or_default().entry(group.to_owned()).or_default().push(version.to_owned());
    }
    let mut index = String::new();
    // Each root type (the structs with `resource(...)`) and its derived schema, for the round
    // trip CRD → Rust → schema (`golden.rs`).
    index.push_str("/// (fixture, group module, version module, root type, its derived schema).\n#[allow(clippy::type_complexity)]\npub fn roots() -> Vec<(&'static str, &'static str, &'static str, &'static str, fn() -> ::serde_json::Value)> {\n    vec![\n");
    for (fixture, groups) in &tree {
        for (group, versions) in groups {
            for version in versions {
                let code = std::fs::read_to_string(out.join(format!("golden_{fixture}__{group}__{version}.rs")))
                    .expect("written above");
                for root in root_types(&code) {
                    writeln!(index, "        ({fixture:?}, {group:?}, {version:?}, {root:?}, <{fixture}::{group}::{version}::{root} as ::kubeskema::StructuralSchema>::schema),").unwrap();
                }
            }
        }
    }
    index.push_str("    ]\n}\n");
    for (fixture, groups) in &tree {
        writeln!(index, "pub mod {fixture} {{").unwrap();
        for (group, versions) in groups {
            writeln!(index, "    pub mod {group} {{").unwrap();
            for version in versions {
                writeln!(
                    index,
                    "        pub mod {version} {{ include!(concat!(env!(\"OUT_DIR\"), \"/golden_{fixture}__{group}__{version}.rs\")); }}"
                )
                .unwrap();
            }
            writeln!(index, "    }}").unwrap();
        }
        writeln!(index, "}}").unwrap();
    }
    std::fs::write(out.join("golden.rs"), index).expect("OUT_DIR is writable");
}

/// The root types of generated code: the structs whose `#[kubeskema(...)]` starts with
/// `resource(` (as code generation prints them).
fn root_types(code: &str) -> Vec<String> {
    let mut roots = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[kubeskema(\n    resource(") {
        rest = &rest[at..];
        let Some(s) = rest.find("pub struct ") else { break };
        rest = &rest[s + "pub struct ".len()..];
        roots.push(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
    }
    roots
}

/// `pub mod <prefix> { pub mod <group> { pub mod <version> { include!(...) } } }` of one
/// generation's modules (nested as generated, so that re-exports between them resolve), each
/// written to `OUT_DIR/<file_prefix>_<prefix>_<group>_<version>.rs`; `root` is told of each
/// root type (group, version, apiVersion, kind, type).
fn modules(
    out: &Path,
    file_prefix: &str,
    prefix: &str,
    generated: &[kubeskema_codegen::__internal::pipeline::GeneratedModule],
    mut root: impl FnMut(&str, &str, &str, &str, &str),
) -> String {
    let mut include = format!("pub mod {prefix} {{\n");
    let mut groups: std::collections::BTreeMap<&str, Vec<&kubeskema_codegen::__internal::pipeline::GeneratedModule>> =
        Default::default();
    for m in generated {
        groups.entry(m.path[0].as_str()).or_default().push(m);
    }
    for (group, modules) in groups {
        writeln!(include, "pub mod {group} {{").unwrap();
        for m in modules {
            let file = format!("{file_prefix}_{prefix}_{}.rs", m.path.join("_"));
            std::fs::write(out.join(&file), &m.code).expect("OUT_DIR is writable");
            writeln!(include, "pub mod {} {{ include!(concat!(env!(\"OUT_DIR\"), \"/{file}\")); }}", m.path[1])
                .unwrap();
            for (api_version, kind, ty) in &m.roots {
                root(group, &m.path[1], api_version, kind, ty);
            }
        }
        include.push_str("}\n");
    }
    include.push_str("}\n");
    include
}

fn apply_configurations(out: &Path) {
    use kubeskema_codegen::__internal::pipeline::{self, Options};
    let inputs = [PathBuf::from("../fixtures/crds"), PathBuf::from("../fixtures/golden")];
    for input in &inputs {
        println!("cargo::rerun-if-changed={}", input.display());
    }
    let mut include =
        String::from("#[allow(non_snake_case, non_camel_case_types, dead_code, clippy::all)]\npub mod applied {\n");
    for (prefix, input) in ["crds", "golden"].iter().zip(&inputs) {
        let generation = pipeline::run(
            std::slice::from_ref(input),
            Options { docs: false, keep_going: true, apply_configurations: true, ..Options::default() },
        )
        .unwrap_or_else(|d| panic!("{d}"));
        include.push_str(&modules(out, "applied", prefix, &generation.modules, |_, _, _, _, _| {}));
    }
    include.push_str("}\n");
    std::fs::write(out.join("applied.rs"), include).expect("OUT_DIR is writable");
}

fn corpus(out: &Path) {
    use kubeskema_codegen::__internal::pipeline::{self, Options, module_name};
    let corpus = match std::env::var_os("KUBESKEMA_CORPUS") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
    };
    let crds = corpus.join("crds");
    println!("cargo::rerun-if-changed={}", crds.display());
    println!("cargo::rerun-if-env-changed=KUBESKEMA_CORPUS");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&crds)
        .unwrap_or_else(|e| panic!("the corpus is at {}: {e}", crds.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    let mut include =
        String::from("#[allow(non_snake_case, non_camel_case_types, dead_code, clippy::all)]\npub mod corpus {\n");
    let mut arms = String::new();
    let mut schemas = String::new();
    let mut round_trips = String::new();
    for folder in &folders {
        let repo = folder.file_name().unwrap().to_string_lossy().into_owned();
        let prefix = module_name(&repo);
        // Docs off: the corpus-wide build tests types, and descriptions are most of its text.
        let generation = pipeline::run(
            std::slice::from_ref(folder),
            // Interpretable: the corpus tests compare each rule compiled to Rust with its
            // interpretation (`__private::cel_differential`).
            Options { docs: false, keep_going: true, interpretable: true, ..Options::default() },
        )
        .unwrap_or_else(|d| panic!("{d}"));
        // Each conversion's spokes, by (version, module path, root type).
        for c in &generation.conversions {
            let root_of = |version: &str| {
                let api_version = format!("{}/{version}", c.group);
                generation.modules.iter().find_map(|m| {
                    m.roots
                        .iter()
                        .find(|(a, k, _)| *a == api_version && *k == c.kind)
                        .map(|(_, _, ty)| format!("corpus::{prefix}::{}::{}", m.path.join("::"), ty))
                })
            };
            let Some(hub) = root_of(&c.hub) else { continue };
            for (version, methods) in &c.spokes {
                let Some(spoke) = root_of(version) else { continue };
                let module = spoke.rsplit_once("::").map(|(m, _)| m).unwrap_or_default();
                let conversion = format!("{module}::{}_conversion", heck_snake(&c.kind));
                let with = if *methods == 0 {
                    Some("()".to_owned())
                } else if CONVERSION_FIXTURES.contains(&(c.crd.as_str(), version.as_str())) {
                    Some("crate::corpus_conversions::Fixtures".to_owned())
                } else {
                    None
                };
                let trips = match with {
                    Some(with) => format!(
                        "Some(|n| kubeskema::testing::round_trip::<{hub}, {spoke}>(|s| {conversion}::to_hub(&{with}, s), |h| {conversion}::from_hub(&{with}, h), crate::corpus_conversions::lossy({:?}, {version:?}), n))",
                        c.crd
                    ),
                    None => "None".to_owned(),
                };
                writeln!(round_trips, "({repo:?}, {:?}, {version:?}, {methods}, {trips}),", c.crd).unwrap();
            }
        }
        include.push_str(&modules(out, "corpus", &prefix, &generation.modules, |group, version, api_version, kind, ty| {
            writeln!(
                schemas,
                "({repo:?}, {api_version:?}, {kind:?}, <corpus::{prefix}::{group}::{version}::{ty} as kubeskema::StructuralSchema>::schema),"
            )
            .unwrap();
            writeln!(
                arms,
                "({repo:?}, {api_version:?}, {kind:?}) => Some(through::<corpus::{prefix}::{group}::{version}::{ty}>(value, old)),"
            )
            .unwrap();
        }));
    }
    include.push_str("}\n\n");
    writeln!(
        include,
        "/// What the generated root type of a corpus object makes of it.\n\
         pub struct Typed {{\n\
         /// The object serialized back (what the apiserver would store).\n\
         pub stored: serde_json::Value,\n\
         /// The issues of the derived `Validate`, as the apiserver prints them.\n\
         pub issues: Vec<String>,\n\
         /// With an old object: the issues of the derived `validate_update` from it.\n\
         pub update_issues: Option<Result<Vec<String>, String>>,\n\
         /// The issues of the validating read (`kubeskema::decode::from_value`).\n\
         pub decoded: Vec<String>,\n\
         /// Where the CEL rules compiled to Rust and the interpreter disagree (create, then update).\n\
         pub cel_differences: Vec<String>,\n\
         }}\n\n\
         /// A value the generated type does not deserialize: serde's error, and what the validating read found.\n\
         #[derive(Debug)]\n\
         pub struct Refused {{\n\
         /// serde's error.\n\
         pub error: String,\n\
         /// The issues of the validating read, and whether it gave a value.\n\
         pub decoded: Vec<String>,\n\
         }}\n\n\
         impl std::fmt::Display for Refused {{\n\
         fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {{ f.write_str(&self.error) }}\n\
         }}\n\n\
         /// Deserializes `value` into the generated root type of (corpus folder, apiVersion, kind),\n\
         /// validates it (and its update from `old`) and serializes it back; `None` when no type was\n\
         /// generated for it.\n\
         pub fn typed(repo: &str, api_version: &str, kind: &str, value: serde_json::Value, old: Option<serde_json::Value>) -> Option<Result<Typed, Refused>> {{\n\
         match (repo, api_version, kind) {{\n{arms}_ => None,\n}}\n}}\n\n\
         fn through<T: serde::de::DeserializeOwned + serde::Serialize + kubeskema::Validate + kubeskema::decode::Decode>(value: serde_json::Value, old: Option<serde_json::Value>) -> Result<Typed, Refused> {{\n\
         let decoded: Vec<String> = kubeskema::decode::from_value::<T>(&value, &Default::default()).issues.iter().map(ToString::to_string).collect();\n\
         let typed: T = match serde_json::from_value(value) {{ Ok(t) => t, Err(e) => return Err(Refused {{ error: e.to_string(), decoded }}) }};\n\
         let issues = kubeskema::Validate::validate(&typed).iter().map(ToString::to_string).collect();\n\
         let mut cel_differences: Vec<String> = kubeskema::__private::cel_differential(&typed, None).err().into_iter().collect();\n\
         let update_issues = old.map(|old| {{\n\
         let old: T = serde_json::from_value(old).map_err(|e| e.to_string())?;\n\
         cel_differences.extend(kubeskema::__private::cel_differential(&typed, Some(&old)).err());\n\
         Ok(kubeskema::Validate::validate_update(&typed, &old).iter().map(ToString::to_string).collect())\n\
         }});\n\
         let stored = serde_json::to_value(&typed).map_err(|e| Refused {{ error: e.to_string(), decoded: decoded.clone() }})?;\n\
         Ok(Typed {{ stored, issues, update_issues, decoded, cel_differences }})\n}}"
    )
    .unwrap();
    writeln!(
        include,
        "\n/// Each generated root type's derived schema: (corpus folder, apiVersion, kind, `T::schema`).\n\
         #[allow(clippy::type_complexity)]\n\
         pub fn schemas() -> Vec<(&'static str, &'static str, &'static str, fn() -> serde_json::Value)> {{\nvec![\n{schemas}]\n}}"
    )
    .unwrap();
    writeln!(
        include,
        "\n/// Each multi-version CRD's spokes: (corpus folder, CRD, spoke version, trait methods, round trip).\n\
         /// The round trip (`kubeskema::testing::round_trip` over n objects each way) runs with `()` where\n\
         /// the spoke needs no methods, with `corpus_conversions::Fixtures` where they are written there;\n\
         /// `None` otherwise.\n\
         #[allow(clippy::type_complexity)]\n\
         pub fn round_trips() -> Vec<(&'static str, &'static str, &'static str, usize, Option<fn(usize) -> Result<kubeskema::testing::RoundTrips, String>>)> {{\nvec![\n{round_trips}]\n}}"
    )
    .unwrap();
    std::fs::write(out.join("corpus.rs"), include).expect("OUT_DIR is writable");
    // In the corpus test binary, not the library: rustc compiles it after the library, so the
    // two do not add up in one process's memory.
    std::fs::write(out.join("derive_compiled.rs"), derive_compiled(&corpus, out)).expect("OUT_DIR is writable");
}

/// The (CRD, spoke version) pairs whose conversion methods `tests/src/corpus_conversions.rs`
/// writes (cluster-api, kueue): their round trips run too.
const CONVERSION_FIXTURES: &[(&str, &str)] = &[
    ("ipaddresses.ipam.cluster.x-k8s.io", "v1alpha1"),
    ("ipaddresses.ipam.cluster.x-k8s.io", "v1beta1"),
    ("localqueues.kueue.x-k8s.io", "v1beta1"),
    ("admissionchecks.kueue.x-k8s.io", "v1beta1"),
];

/// A kind's module name as codegen writes it (`IPAddressClaim` → `ip_address_claim`).
fn heck_snake(kind: &str) -> String {
    kubeskema_codegen::__internal::emit::conversion_module(kind).trim_end_matches("_conversion").to_owned()
}

/// The sample of the derive's compiler over the corpus: of each corpus project, the smallest
/// CRD file that has CEL rules and objects in `instances/INDEX.tsv`, generated with codegen's
/// compilation of rules off (`native_cel: false`), so the derive compiles every rule, as for
/// hand-written types; and `derive_compiled`, their dispatcher (`tests/corpus/derive_compiled.rs`
/// includes them and compares them with the interpreter on the objects and their edge copies).
fn derive_compiled(corpus: &Path, out: &Path) -> String {
    use kubeskema_codegen::__internal::pipeline::{self, Options, module_name};
    let index = std::fs::read_to_string(corpus.join("instances/INDEX.tsv")).expect("the corpus has its index");
    let mut with_objects: std::collections::BTreeSet<String> = Default::default();
    for line in index.lines().skip(1) {
        if let Some(crd) = line.split('\t').nth(5) {
            with_objects.insert(crd.to_owned());
        }
    }
    let mut sample: std::collections::BTreeMap<String, (usize, String)> = Default::default();
    for crd in &with_objects {
        let Ok(text) = std::fs::read_to_string(corpus.join(crd)) else { continue };
        if !text.contains("x-kubernetes-validations") {
            continue;
        }
        let project = crd.split('/').nth(1).unwrap_or_default().to_owned();
        let smaller = sample.get(&project).is_none_or(|(size, _)| text.len() < *size);
        if smaller {
            sample.insert(project, (text.len(), crd.clone()));
        }
    }
    let mut include = String::from(
        "#[allow(non_snake_case, non_camel_case_types, dead_code, clippy::all)]\npub mod derive_compiled {\n",
    );
    let mut arms = String::new();
    let mut files = String::new();
    for (project, (_, crd)) in &sample {
        let prefix = module_name(project);
        let generation = pipeline::run(
            &[corpus.join(crd)],
            Options { docs: false, keep_going: true, interpretable: true, native_cel: false, ..Options::default() },
        )
        .unwrap_or_else(|d| panic!("{d}"));
        writeln!(files, "{crd:?},").unwrap();
        include.push_str(&modules(out, "derive_compiled", &prefix, &generation.modules, |group, version, api_version, kind, ty| {
            writeln!(
                arms,
                "({crd:?}, {api_version:?}, {kind:?}) => Some(derive_compiled_through::<derive_compiled::{prefix}::{group}::{version}::{ty}>(value, old)),"
            )
            .unwrap();
        }));
    }
    include.push_str("}\n\n");
    writeln!(
        include,
        "/// The CRD files of the sample (`derive_compiled`).\n\
         pub const DERIVE_COMPILED: &[&str] = &[\n{files}];\n\n\
         /// Through the sample's type for (CRD file, apiVersion, kind): where the rules the derive compiled\n\
         /// and the interpreter disagree on `value` (created, or updated from `old`), and how the\n\
         /// derive-compiled rules ran; `None` when the object is not of the sample.\n\
         pub fn derive_compiled(crd: &str, api_version: &str, kind: &str, value: serde_json::Value, old: Option<serde_json::Value>) -> Option<Result<(Vec<String>, kubeskema::cel::DerivedRuns), String>> {{\n\
         match (crd, api_version, kind) {{\n{arms}_ => None,\n}}\n}}\n\n\
         fn derive_compiled_through<T: serde::de::DeserializeOwned + kubeskema::Validate>(value: serde_json::Value, old: Option<serde_json::Value>) -> Result<(Vec<String>, kubeskema::cel::DerivedRuns), String> {{\n\
         let typed: T = serde_json::from_value(value).map_err(|e| e.to_string())?;\n\
         let old: Option<T> = old.and_then(|o| serde_json::from_value(o).ok());\n\
         let differences = kubeskema::__private::cel_differential(&typed, old.as_ref()).err().into_iter().collect();\n\
         let mut cx = kubeskema::cel::Cx::default();\n\
         kubeskema::Validate::validate_cel_at(&typed, old.as_ref(), &kubeskema::path::At::ROOT, &mut cx);\n\
         Ok((differences, cx.derived_runs()))\n}}"
    )
    .unwrap();
    include
}
