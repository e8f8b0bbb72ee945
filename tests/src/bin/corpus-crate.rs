//! Generates one crate with every CRD of the corpus (one top-level module per corpus folder,
//! since folders hold different copies of the same CRDs) and prints what it took.
//!
//! `cargo run --release -p kubeskema-tests --bin corpus-crate -- [--kube] [--apply] [CORPUS_CRDS] [OUT]`
//! (`--apply`: every type's apply configuration too),
//! then `cargo build --manifest-path OUT/Cargo.toml` (in kube-rs mode, `--kube`, add
//! `--features k8s-openapi/latest`: the crate leaves the Kubernetes version to its user; it also
//! gets `examples/round_trip.rs`, the schema round trip of every root in that mode).

use std::path::PathBuf;
use std::time::Instant;

use kubeskema_codegen::__internal::pipeline::{self, Options, module_name};
use kubeskema_codegen::__internal::write::{Dependency, write_crate};

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let kube = args.next_if_eq("--kube").is_some();
    let apply_configurations = args.next_if_eq("--apply").is_some();
    let crds = args.next().map(PathBuf::from).unwrap_or_else(|| kubeskema_tests::corpus_dir().join("crds"));
    let out = args.next().map(PathBuf::from).unwrap_or_else(|| kubeskema_tests::repo_dir().join("target/corpus-crate"));
    let docs = std::env::var_os("KUBESKEMA_NO_DOCS").is_none();
    let started = Instant::now();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&crds)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", crds.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    let (mut modules, mut crd_count, mut versions, mut refused) = (Vec::new(), 0, 0, 0);
    let mut conversions = Vec::new();
    for folder in &folders {
        let prefix = module_name(&folder.file_name().unwrap_or_default().to_string_lossy());
        match pipeline::run(
            std::slice::from_ref(folder),
            Options { docs, keep_going: true, kube, apply_configurations, ..Options::default() },
        ) {
            Ok(generation) => {
                crd_count += generation.crd_count;
                conversions.extend(generation.conversions.iter().map(|c| (prefix.clone(), c.clone())));
                for d in &generation.refused {
                    println!("refused (as the apiserver would): {d}");
                }
                refused += generation
                    .refused
                    .iter()
                    .filter_map(|d| match &d.subject {
                        kubeskema_codegen::Subject::Crd { name, version: Some(v) } => Some((name, v)),
                        _ => None,
                    })
                    .collect::<std::collections::BTreeSet<_>>()
                    .len();
                for mut m in generation.modules {
                    versions += m.crds.len();
                    m.path.insert(0, prefix.clone());
                    modules.push(m);
                }
            }
            Err(diags) => {
                eprintln!("{diags}");
                std::process::exit(1);
            }
        }
    }
    let elapsed = started.elapsed();
    write_crate(&out, "kubeskema-corpus", &Dependency::default_for_this_build(), kube, &modules)
        .expect("the crate is written");
    if kube {
        write_round_trip(&out, &modules);
    }
    let types: usize = modules.iter().map(|m| m.types).sum();
    let lines: usize = modules.iter().map(|m| m.code.lines().count()).sum();
    let bytes: usize = modules.iter().map(|m| m.code.len()).sum();
    println!(
        "corpus: {crd_count} CRDs, {versions} CRD versions generated, {refused} refused, {} modules, {types} types, {lines} lines ({} KiB), generated in {elapsed:.2?} -> {}",
        modules.len(),
        bytes / 1024,
        out.display()
    );
    print_conversions(&conversions);
    let cel = kubeskema_codegen::__internal::emit::CelCount::of(modules.iter().map(|m| &m.cel));
    println!("{}", cel.summary());
    for (n, reason) in cel.reasons() {
        println!("  {n:>5} interpreted: {reason}");
    }
    for (owner, rule, reason) in &cel.interpreted {
        println!("  interpreted: {owner}: `{rule}`: {reason}");
    }
}

/// In kube-rs mode, `examples/round_trip.rs`: every root's derived schema (`T::schema()`) against
/// its version's schema in the CRD it was generated from (`T::CRD_JSON`), by the rules of
/// `tests/src/round_trip.rs` (included as it is). `cargo run --example round_trip` prints
/// `round trip schemas (kube-rs mode): N equal, M differ` and fails on a difference.
fn write_round_trip(out: &std::path::Path, modules: &[pipeline::GeneratedModule]) {
    use std::fmt::Write as _;
    let mut roots = String::new();
    for m in modules {
        let path = m.path.join("::");
        for (api_version, kind, ty) in &m.roots {
            let root = format!("kubeskema_corpus::{path}::{ty}");
            writeln!(
                roots,
                "    ({path:?}, {api_version:?}, {kind:?}, {root}::CRD_JSON, <{root} as kubeskema::StructuralSchema>::schema),"
            )
            .unwrap();
        }
    }
    let rules = kubeskema_tests::repo_dir().join("tests/src/round_trip.rs");
    let rules = rules.canonicalize().unwrap_or(rules);
    let example = format!(
        r#"//! Written by `corpus-crate --kube`: the CRD → Rust → schema round trip in kube-rs mode.

#[path = {rules:?}]
#[allow(dead_code, reason = "the round trip's rules for every mode; kube-rs mode uses some")]
mod round_trip;

use serde_json::Value;

type Root = (&'static str, &'static str, &'static str, &'static str, fn() -> Value);

const ROOTS: &[Root] = &[
{roots}];

fn main() {{
    let (mut equal, mut differ) = (0, Vec::new());
    for (module, api_version, kind, crd_json, schema) in ROOTS {{
        let crd: Value = serde_json::from_str(crd_json).expect("CRD_JSON is JSON");
        let version = api_version.rsplit('/').next().unwrap_or_default();
        let input = round_trip::version_schemas(&crd).into_iter().find(|(v, _)| v == version);
        let difference = match input {{
            Some((_, input)) => round_trip::first_difference(&round_trip::normalize(&input), &round_trip::normalize(&schema())),
            None => Some("no schema for this version in CRD_JSON".to_owned()),
        }};
        match difference {{
            None => equal += 1,
            Some(d) => differ.push(format!("{{module}} {{api_version}} {{kind}}: {{d}}")),
        }}
    }}
    println!("round trip schemas (kube-rs mode): {{equal}} equal, {{}} differ", differ.len());
    for d in &differ {{
        println!("  {{d}}");
    }}
    if !differ.is_empty() {{
        std::process::exit(1);
    }}
}}
"#
    );
    std::fs::create_dir_all(out.join("examples")).expect("the crate is writable");
    std::fs::write(out.join("examples/round_trip.rs"), example).expect("the crate is writable");
    let manifest = out.join("Cargo.toml");
    let mut toml = std::fs::read_to_string(&manifest).expect("the crate has a manifest");
    toml.push_str("\n[dev-dependencies]\nserde_json = \"1\"\n");
    std::fs::write(&manifest, toml).expect("the crate is writable");
}

/// What the corpus's multi-version CRDs need written by hand: the trait methods of each spoke.
fn print_conversions(conversions: &[(String, kubeskema_codegen::__internal::pipeline::ConversionSummary)]) {
    let spokes: usize = conversions.iter().map(|(_, c)| c.spokes.len()).sum();
    let methods: usize = conversions.iter().flat_map(|(_, c)| &c.spokes).map(|(_, n)| n).sum();
    let none_needed = conversions.iter().filter(|(_, c)| c.spokes.iter().all(|(_, n)| *n == 0)).count();
    println!(
        "conversions: {} CRDs with several versions, {spokes} spokes; {none_needed} CRDs need no user code; {methods} trait methods in all",
        conversions.len()
    );
    for (folder, c) in conversions.iter().filter(|(_, c)| c.spokes.iter().any(|(_, n)| *n > 0)) {
        let spokes: Vec<String> = c.spokes.iter().map(|(v, n)| format!("{v} {n}")).collect();
        println!(
            "  {folder}/{} (hub {}{}): {}",
            c.crd,
            c.hub,
            if c.webhook { ", webhook" } else { "" },
            spokes.join(", ")
        );
    }
}
