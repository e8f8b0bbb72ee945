//! Any string in any schema position gives code that parses and that rustc takes: text from a
//! CRD reaches the generated module only as escaped literals or escaped doc text, never a bidi
//! control (the Trojan Source lint is deny-by-default), a bare CR, a NUL or a line break that
//! ends a comment. `tests/tests/golden.rs` compiles one crate with every hostile string in
//! every position (`fixtures/golden/hostile.yaml`).

use std::path::PathBuf;

use kubeskema_codegen::__internal::pipeline::{Options, run};
use proptest::prelude::*;
use serde_json::json;

/// What rustc refuses in source outside an escape, or what would end a line comment.
fn refused(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}')
}

fn hostile() -> impl Strategy<Value = String> {
    let special = prop::sample::select(vec![
        '\u{202e}', '\u{202a}', '\u{2066}', '\u{2069}', '\u{200f}', '\r', '\0', '\n', '\u{1b}', '\u{7}', '\u{2028}',
        '"', '\\', '*', '/', '#', '`', '{', '}', 'a', '-', '.', ' ', '\t', '\u{85}', '\u{feff}',
    ]);
    prop::collection::vec(prop_oneof![3 => special, 1 => any::<char>()], 1..10).prop_map(|cs| cs.into_iter().collect())
}

/// A CRD with `s` as a description, a property name, an enum value, a CEL rule's string
/// literal and message, the CRD's file name and a printer column.
fn generate(s: &str, file: &std::path::Path) -> Result<Vec<String>, String> {
    // A message with a line break is refused (the apiserver's rule); the rest of it stays.
    let message = s.replace(['\r', '\n'], " ");
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "hostiles.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Hostile", "plural": "hostiles"}, "scope": "Namespaced",
          "versions": [{"name": "v1", "served": true, "storage": true,
            "additionalPrinterColumns": [{"name": "x", "type": "string", "jsonPath": ".spec.e", "description": s}],
            "schema": {"openAPIV3Schema": {"type": "object", "description": s, "properties": {
              "spec": {"type": "object", "description": s,
                "x-kubernetes-validations": [{"rule": format!("self.e != {}", serde_json::to_string(s).unwrap()), "message": message}],
                "properties": {
                  s: {"type": "string", "description": s, "maxLength": 10},
                  "e": {"type": "string", "enum": [s, "b"], "description": s},
                  "u": {"type": "object", "description": s, "oneOf": [{"required": [s]}, {"required": ["e"]}],
                        "properties": {s: {"type": "string", "maxLength": 3}, "e": {"type": "string", "maxLength": 3}}}
                }}}}}}]}
    });
    std::fs::write(file, serde_json::to_vec(&crd).unwrap()).unwrap();
    let generation = run(&[file.to_path_buf()], Options::default()).map_err(|e| e.to_string())?;
    Ok(generation.modules.into_iter().map(|m| m.code).collect())
}

fn temp_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kubeskema-hostile-text-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn any_string_in_any_position_gives_code_that_parses(s in hostile()) {
        let file = temp_file(&format!("{}.json", s.replace(['/', '\0'], "_")));
        let file = if std::fs::write(&file, b"").is_ok() { file } else { temp_file("plain.json") };
        if let Ok(modules) = generate(&s, &file) {
            for code in modules {
                let bad: Vec<char> = code.chars().filter(|&c| refused(c)).collect();
                prop_assert!(bad.is_empty(), "{bad:?} in\n{code}");
                if let Err(e) = syn::parse_file(&code) {
                    prop_assert!(false, "{e} in\n{code}");
                }
            }
        }
        let _ = std::fs::remove_file(&file);
    }
}

/// The strings that broke the build before: each generates (the CRD is one the apiserver
/// takes), and the code is clean.
#[test]
fn known_hostile_strings_generate_clean_code() {
    for s in ["a\u{202e}b", "x\ry", "n\0l", "\u{2066}rtl\u{2069}", "line\nbreak", "*/ /*", "esc\u{1b}[31m"] {
        let file = temp_file(&format!("known-{}.json", s.len()));
        let modules = generate(s, &file).unwrap_or_else(|e| panic!("{s:?}: the CRD is refused: {e}"));
        for code in modules {
            assert!(!code.chars().any(refused), "{s:?}: {code}");
            syn::parse_file(&code).unwrap_or_else(|e| panic!("{s:?}: {e}\n{code}"));
        }
        let _ = std::fs::remove_file(&file);
    }
}
