//! Turns the golden snapshots (`tests/snapshots/golden__*.snap`, written by insta) into Rust
//! modules, so the golden test also proves that every golden file compiles.

use std::path::Path;

fn main() {
    let dir = Path::new("tests/snapshots");
    println!("cargo::rerun-if-changed={}", dir.display());
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut index = String::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    for path in entries {
        let Some(stem) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".snap"))
        else {
            continue;
        };
        let Some(module) = stem.strip_prefix("golden__") else {
            continue;
        };
        let text = std::fs::read_to_string(&path).expect("snapshot is readable");
        // insta's header is a YAML front matter between two `---` lines.
        let body = text
            .splitn(3, "---\n")
            .nth(2)
            .expect("snapshot has insta's header");
        let file = out.join(format!("golden_{module}.rs"));
        std::fs::write(&file, body).expect("OUT_DIR is writable");
        index.push_str(&format!("#[allow(non_snake_case)]\npub mod {module} {{ include!(concat!(env!(\"OUT_DIR\"), \"/golden_{module}.rs\")); }}\n"));
    }
    std::fs::write(out.join("golden.rs"), index).expect("OUT_DIR is writable");
}
