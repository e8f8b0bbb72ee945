//! Any strings in every schema position a CRD's text reaches generated code (descriptions,
//! property names, enum values, a CEL rule's literal and message, printer columns, the CRD's
//! name): when `generate` succeeds, every module parses (syn) and carries no bidi control,
//! bare CR, NUL or other control character outside an escape (rustc refuses bidi controls in
//! comments, and a line break would end one). The input's `\u{1}` separates the strings.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use kubeskema_codegen::__internal::pipeline::{self, Options};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

fn input_file() -> &'static PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| std::env::temp_dir().join(format!("kubeskema-fuzz-strings-{}.json", std::process::id())))
}

/// What rustc refuses in source outside an escape, or what would end a line comment.
fn refused(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}')
}

fuzz_target!(|text: &str| {
    let mut parts = text.split('\u{1}');
    let mut next = || parts.next().unwrap_or("x").to_owned();
    let (description, property, value, literal, message) = (next(), next(), next(), next(), next());
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "hostiles.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Hostile", "plural": "hostiles"}, "scope": "Namespaced",
          "versions": [{"name": "v1", "served": true, "storage": true,
            "additionalPrinterColumns": [{"name": "x", "type": "string", "jsonPath": ".spec.e", "description": description}],
            "schema": {"openAPIV3Schema": {"type": "object", "description": description, "properties": {
              "spec": {"type": "object", "description": description,
                "x-kubernetes-validations": [{"rule": format!("self.e != {}", serde_json::to_string(&literal).unwrap()), "message": message}],
                "properties": {
                  property.clone(): {"type": "string", "description": description, "maxLength": 10},
                  "e": {"type": "string", "enum": [value, "b"], "description": description},
                  "u": {"type": "object", "oneOf": [{"required": [property.clone()]}, {"required": ["e"]}],
                        "properties": {property.clone(): {"type": "string", "maxLength": 3}, "e": {"type": "string", "maxLength": 3}}}
                }}}}}}]}
    });
    let file = input_file();
    std::fs::write(file, serde_json::to_vec(&crd).unwrap()).expect("the temporary folder is writable");
    let generated = pipeline::run(std::slice::from_ref(file), Options::default());
    // Nothing is left behind when fuzzing stops.
    let _ = std::fs::remove_file(file);
    let Ok(generation) = generated else { return };
    for module in &generation.modules {
        let bad: Vec<char> = module.code.chars().filter(|&c| refused(c)).collect();
        assert!(bad.is_empty(), "{bad:?} in\n{}", module.code);
        if let Err(e) = syn::parse_file(&module.code) {
            panic!("{e} in\n{}", module.code);
        }
    }
});
