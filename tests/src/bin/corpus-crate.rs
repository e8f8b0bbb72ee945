//! Generates one crate with every CRD of the corpus (one top-level module per corpus folder,
//! since folders hold different copies of the same CRDs) and prints what it took.
//!
//! `cargo run --release -p kubeskema-tests --bin corpus-crate -- [--kube] [CORPUS_CRDS] [OUT]`,
//! then `cargo build --manifest-path OUT/Cargo.toml` (in kube-rs mode, `--kube`, add
//! `--features k8s-openapi/latest`: the crate leaves the Kubernetes version to its user).

use std::path::PathBuf;
use std::time::Instant;

use kubeskema_codegen::__internal::pipeline::{self, Options, module_name};
use kubeskema_codegen::__internal::write::{Dependency, write_crate};

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let kube = args.next_if_eq("--kube").is_some();
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
    for folder in &folders {
        let prefix = module_name(&folder.file_name().unwrap_or_default().to_string_lossy());
        match pipeline::run(
            std::slice::from_ref(folder),
            Options { docs, keep_going: true, skip_non_crds: false, kube, interpretable: false },
        ) {
            Ok(generation) => {
                crd_count += generation.crd_count;
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
    let types: usize = modules.iter().map(|m| m.types).sum();
    let lines: usize = modules.iter().map(|m| m.code.lines().count()).sum();
    let bytes: usize = modules.iter().map(|m| m.code.len()).sum();
    println!(
        "corpus: {crd_count} CRDs, {versions} CRD versions generated, {refused} refused, {} modules, {types} types, {lines} lines ({} KiB), generated in {elapsed:.2?} -> {}",
        modules.len(),
        bytes / 1024,
        out.display()
    );
    let cel = kubeskema_codegen::__internal::emit::CelCount::of(modules.iter().map(|m| &m.cel));
    println!("{}", cel.summary());
    for (n, reason) in cel.reasons() {
        println!("  {n:>5} interpreted: {reason}");
    }
    for (owner, rule, reason) in &cel.interpreted {
        println!("  interpreted: {owner}: `{rule}`: {reason}");
    }
}
