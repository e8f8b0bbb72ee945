//! Compacts OpenAPI v3 documents (Kubernetes' published `api/openapi-spec/v3` folder, or what
//! a cluster serves) into the form `validate` carries for native kinds, on standard output:
//! `cargo run -p kubeskema-tests --bin native-schemas -- SPEC... > codegen/native/kubernetes-1.36.json`.
//! See `codegen/native/README.md`.

use std::path::{Path, PathBuf};

fn main() {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if args.is_empty() {
        eprintln!("usage: native-schemas SPEC... (OpenAPI v3 JSON files, or folders of them)");
        std::process::exit(2);
    }
    let mut documents = Vec::new();
    for path in &args {
        for file in json_files(path) {
            let read = std::fs::read_to_string(&file).map_err(|e| e.to_string());
            match read.and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string())) {
                Ok(document) => documents.push(document),
                Err(e) => {
                    eprintln!("{}: {e}", file.display());
                    std::process::exit(1);
                }
            }
        }
    }
    let compact = kubeskema_codegen::__internal::native::compact(&documents);
    print!("{}", kubeskema_codegen::__internal::native::compact_text(&compact));
}

/// `path` itself, or the `.json` files of the folder `path`, sorted.
fn json_files(path: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(path) else { return vec![path.to_owned()] };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}
