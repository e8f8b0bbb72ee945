//! Peak heap memory of `cargo kubeskema validate` (the library call behind it) against the
//! size of its input, by the shape of the input, at three sizes: how many bytes of memory each
//! input byte costs, and whether that stays flat as the input grows (linear memory).
//!
//! Shapes: a one-line JSON manifest holding a long array of small numbers; YAML manifests
//! nested as deep as they may be, many times over; a stream of tiny documents; YAML whose
//! aliases name one anchored mapping again and again; an OpenAPI document (`--schemas`) of many
//! kinds sharing a large enum. A counting global allocator records the most bytes live at once.
//!
//! `cargo bench -p kubeskema-codegen --bench input_memory`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kubeskema_codegen::manifests::{Request, validate_request};

#[path = "../../bench/benches/counting_allocator/mod.rs"]
mod counting_allocator;

/// The peak bytes live above the start while `run` runs.
fn peak(run: impl FnOnce()) -> usize {
    counting_allocator::measure(run).0
}

const HEADER: &str = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\n";

/// A one-line JSON Widget whose `spec.ports`... holds `n` small numbers in an unknown field.
fn json_array(bytes: usize) -> String {
    let mut s = String::from(
        r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"type":"Small","numbers":["#,
    );
    while s.len() < bytes {
        s.push_str("7,");
    }
    s.push_str("7]}}");
    s
}

/// YAML Widgets whose unknown field nests 100 levels, again and again.
fn deep_yaml(bytes: usize) -> String {
    let mut s = String::new();
    while s.len() < bytes {
        s.push_str("---\n");
        s.push_str(HEADER);
        s.push_str("spec:\n  type: Small\n  deep: ");
        s.push_str(&"{a: ".repeat(100));
        s.push('1');
        s.push_str(&"}".repeat(100));
        s.push('\n');
    }
    s
}

/// A stream of empty documents.
fn empty_documents(bytes: usize) -> String {
    "{}\n---\n".repeat(bytes / 7)
}

/// YAML Widgets whose labels are aliases of one anchored mapping.
fn anchors(bytes: usize) -> String {
    let mut s = String::from("---\n");
    s.push_str(HEADER);
    s.push_str("spec: &shared {type: Small, replicas: 3, maxSurge: '1'}\n");
    let mut i = 0;
    while s.len() < bytes {
        let _ = write!(s, "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: w{i}}}\nspec: *shared\n");
        i += 1;
    }
    s
}

/// An OpenAPI document of many kinds whose properties name one large enum.
fn openapi(bytes: usize) -> String {
    let values: Vec<String> = (0..2_000).map(|i| format!("\"value-{i:05}\"")).collect();
    let mut s = format!(
        r#"{{"openapi":"3.0.0","components":{{"schemas":{{"E":{{"type":"string","enum":[{}]}}"#,
        values.join(",")
    );
    let mut k = 0;
    while s.len() < bytes {
        let properties: Vec<String> =
            (0..20).map(|p| format!(r##""p{p}":{{"$ref":"#/components/schemas/E"}}"##)).collect();
        let _ = write!(
            s,
            r#","K{k}":{{"type":"object","x-kubernetes-group-version-kind":[{{"group":"example.com","version":"v1","kind":"K{k}"}}],"properties":{{{}}}}}"#,
            properties.join(",")
        );
        k += 1;
    }
    s.push_str("}}}");
    s
}

/// A shape: its name, the input of about so many bytes, and whether it is an OpenAPI document.
type Shape = (&'static str, fn(usize) -> String, bool);

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let crds = root.join("fixtures/crds");
    let dir = std::env::temp_dir().join(format!("kubeskema-input-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let shapes: [Shape; 5] = [
        ("one-line JSON array", json_array, false),
        ("deep YAML", deep_yaml, false),
        ("empty documents", empty_documents, false),
        ("YAML anchors", anchors, false),
        ("OpenAPI (--schemas)", openapi, true),
    ];
    println!("peak heap bytes per input byte, by input size (validate, one thread)");
    for (name, make, schemas) in shapes {
        let mut line = format!("{name:22}");
        for mib in [1, 4, 16] {
            let text = make(mib << 20);
            let file: PathBuf = dir.join(if schemas { "openapi.json" } else { "input.yaml" });
            std::fs::write(&file, &text).expect("writable");
            let request = if schemas {
                Request {
                    schemas: vec![file.clone()],
                    manifests: vec![root.join("fixtures/manifests/widgets.yaml")],
                    jobs: 1,
                    ..Request::default()
                }
            } else {
                Request { crds: vec![crds.clone()], manifests: vec![file.clone()], jobs: 1, ..Request::default() }
            };
            let bytes = peak(|| {
                let _ = std::hint::black_box(validate_request(&request));
            });
            let _ = write!(line, "  {mib:>2} MiB: {:>5.1}", bytes as f64 / text.len() as f64);
        }
        println!("{line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
