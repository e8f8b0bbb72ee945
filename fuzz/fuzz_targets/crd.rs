//! `check` and `generate` (plain and kube-rs mode) on any text read as a CRD file: no panic,
//! no stack overflow, no hang. Every diagnostic is rendered, as the CLI would print it. A CRD
//! read with its schemas left in its document's nodes (`Crd::parse_document`, what the CLI
//! reads) is the CRD read from its value, and the check says the same of both.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use kubeskema_codegen::__internal::pipeline::{self, Options};
use libfuzzer_sys::fuzz_target;

/// One file per fuzzing process: the pipeline reads CRDs from paths.
fn input_file() -> &'static PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| std::env::temp_dir().join(format!("kubeskema-fuzz-crd-{}.yaml", std::process::id())))
}

fuzz_target!(|text: &str| {
    let file = input_file();
    std::fs::write(file, text).expect("the temporary folder is writable");
    let paths = [file.clone()];
    // Nothing is left behind when fuzzing stops: the file is removed once it is read.
    struct Remove<'p>(&'p PathBuf);
    impl Drop for Remove<'_> {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(self.0);
        }
    }
    let _remove = Remove(file);
    let mut documents = Vec::new();
    let json = kubeskema::yaml::looks_like_json(text);
    let _ = kubeskema::yaml::read_each(text, json, &mut |doc| documents.push(doc));
    documents.retain(|doc| kubeskema::crd::is_crd_type(doc.str_at("/apiVersion"), doc.str_at("/kind")));
    // As the pipeline does, on a stack with room for the deepest schema the reader takes.
    std::thread::scope(|scope| {
        let compare = || {
            for document in documents {
                let value = document.value_at("").unwrap_or_default();
                let (from_value, value_errors) = kubeskema::crd::Crd::parse(&value);
                let (from_document, document_errors) =
                    kubeskema::crd::Crd::parse_document(std::sync::Arc::new(document));
                assert!(from_document == from_value && document_errors == value_errors, "the two reads differ");
                let texts = |crd: &kubeskema::crd::Crd| -> Vec<String> {
                    let findings = kubeskema::crd::check::check(crd).findings;
                    findings.iter().map(|f| format!("{} {}", f.text(), f.pointer)).collect()
                };
                assert_eq!(texts(&from_document), texts(&from_value));
            }
        };
        std::thread::Builder::new().stack_size(64 << 20).spawn_scoped(scope, compare).expect("a thread").join()
    })
    .expect("the two reads of a CRD agree");
    for d in pipeline::check(&paths, true) {
        let _ = d.to_string();
    }
    for kube in [false, true] {
        let options = Options { kube, keep_going: true, skip_non_crds: true, ..Options::default() };
        match pipeline::run(&paths, options) {
            Ok(generation) => {
                for d in generation.warnings.iter().chain(&generation.refused) {
                    let _ = d.to_string();
                }
            }
            Err(diagnostics) => {
                let _ = diagnostics.to_string();
            }
        }
    }
});
