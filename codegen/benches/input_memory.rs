//! Peak heap memory of `cargo kubeskema validate` and `check` (the library calls behind them)
//! against the size of their input, by the shape of the input, at three sizes: how many bytes
//! of memory each input byte costs, and whether that stays flat as the input grows (linear
//! memory).
//!
//! `validate` shapes: a one-line JSON manifest holding a long array of small numbers; YAML
//! manifests nested as deep as they may be, many times over; a stream of empty `{}` documents
//! (a finding each); YAML whose aliases name one anchored mapping again and again; an OpenAPI
//! document (`--schemas`) of many kinds sharing a large enum. Findings are formatted as the
//! CLI's human output formats them and dropped, as it prints them. `check` shapes: one CRD whose
//! schema has very many properties, as YAML and as JSON, and a stream of small CRDs. A counting
//! global allocator records the most bytes live at once.
//!
//! `cargo bench -p kubeskema-codegen --bench input_memory`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kubeskema_codegen::__internal::manifests::{Request, validate_each};

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

/// A stream of empty objects (each not a Kubernetes object: a finding each).
fn empty_documents(bytes: usize) -> String {
    "---\n{}\n".repeat(bytes / 7)
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

/// One CRD whose spec has as many properties as fit, as YAML.
fn wide_crd(bytes: usize) -> String {
    let mut s = String::from(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: wides.example.com}\nspec:\n  group: example.com\n  names: {kind: Wide, plural: wides}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n",
    );
    let mut i = 0;
    while s.len() < bytes {
        let _ = writeln!(s, "              p{i}: {{type: string, maxLength: 8}}");
        i += 1;
    }
    s
}

/// [`wide_crd`] as one line of JSON.
fn wide_crd_json(bytes: usize) -> String {
    kubeskema::yaml::parse_documents(&wide_crd(bytes)).expect("YAML").remove(0).value.to_string()
}

/// Small CRDs, one per document.
fn many_crds(bytes: usize) -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.len() < bytes {
        let _ = write!(
            s,
            "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: k{i}s.example.com}}\nspec:\n  group: example.com\n  names: {{kind: K{i}, plural: k{i}s}}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {{type: object, properties: {{spec: {{type: object, properties: {{a: {{type: integer, maximum: 5}}}}}}}}}}\n"
        );
        i += 1;
    }
    s
}

/// A shape: its name, the input of about so many bytes, and what it is read by.
type Shape = (&'static str, fn(usize) -> String, Command);

#[derive(Clone, Copy, PartialEq)]
enum Command {
    Validate,
    ValidateSchemas,
    Check,
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let crds = root.join("fixtures/crds");
    let dir = std::env::temp_dir().join(format!("kubeskema-input-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let shapes: [Shape; 8] = [
        ("one-line JSON array", json_array, Command::Validate),
        ("deep YAML", deep_yaml, Command::Validate),
        ("empty documents", empty_documents, Command::Validate),
        ("YAML anchors", anchors, Command::Validate),
        ("OpenAPI (--schemas)", openapi, Command::ValidateSchemas),
        ("check: wide CRD, YAML", wide_crd, Command::Check),
        ("check: wide CRD, JSON", wide_crd_json, Command::Check),
        ("check: many CRDs", many_crds, Command::Check),
    ];
    println!("peak heap bytes per input byte, by input size (one thread)");
    for (name, make, command) in shapes {
        let mut line = format!("{name:22}");
        for mib in [1, 4, 16] {
            let text = make(mib << 20);
            let json = text.starts_with('{');
            let file: PathBuf = dir.join(if json { "input.json" } else { "input.yaml" });
            std::fs::write(&file, &text).expect("writable");
            // Against an OpenAPI document, a manifest of one object of each of its kinds: every
            // kind is then inlined (those no document names are not).
            let kinds = dir.join("kinds.yaml");
            let mut input_bytes = text.len();
            let request = match command {
                Command::ValidateSchemas => {
                    let objects: String = (0..text.matches(r#""kind":"K"#).count())
                        .map(|k| format!("---\napiVersion: example.com/v1\nkind: K{k}\nmetadata: {{name: o}}\n"))
                        .collect();
                    input_bytes += objects.len();
                    std::fs::write(&kinds, objects).expect("writable");
                    Request { schemas: vec![file.clone()], manifests: vec![kinds], jobs: 1, ..Request::default() }
                }
                _ => Request { crds: vec![crds.clone()], manifests: vec![file.clone()], jobs: 1, ..Request::default() },
            };
            let bytes = peak(|| match command {
                Command::Check => {
                    std::hint::black_box(kubeskema_codegen::__internal::pipeline::check(
                        std::slice::from_ref(&file),
                        false,
                    ));
                }
                _ => {
                    // As the CLI's human output: each finding formatted, printed, dropped.
                    let mut shown = 0;
                    let print = &mut |validated: kubeskema_codegen::__internal::manifests::Validated| {
                        shown += validated.findings.iter().map(|f| f.human().len()).sum::<usize>();
                    };
                    let _ = std::hint::black_box(validate_each(&request, &|_, _| {}, print));
                    std::hint::black_box(shown);
                }
            });
            let _ = write!(line, "  {mib:>2} MiB: {:>5.1}", bytes as f64 / input_bytes as f64);
        }
        println!("{line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
