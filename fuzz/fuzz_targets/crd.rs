//! `check` and `generate` (plain and kube-rs mode) on any text read as a CRD file: no panic,
//! no stack overflow, no hang. Every diagnostic is rendered, as the CLI would print it.
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
