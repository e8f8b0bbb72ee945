//! `cargo kubeskema validate`'s throughput: every corpus instance validated against every
//! corpus CRD the apiserver accepts, on one thread and on every core, in documents per second
//! (reading and parsing the files included, as the CLI does them; the CRDs' loading and checks
//! are outside the timed part). Three runs of each, alternating; the best of each is reported.
//!
//! `cargo bench -p kubeskema-codegen --bench throughput` (needs the corpus: `KUBESKEMA_CORPUS`,
//! or `../shared/corpus` beside the repository).

use std::path::{Path, PathBuf};
use std::time::Duration;

use kubeskema_codegen::__internal::manifests::{Request, validate_request};

fn corpus() -> PathBuf {
    std::env::var_os("KUBESKEMA_CORPUS")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"), PathBuf::from)
}

/// Every CRD file of the corpus but those the apiserver refuses (a refused CRD stops
/// `validate`, as it should).
fn accepted_crd_files(crds: &Path) -> Vec<PathBuf> {
    let mut io = Vec::new();
    let files = kubeskema_codegen::__internal::load::expand_paths(&[crds.to_path_buf()], &mut io);
    files
        .into_iter()
        .filter(|file| {
            !kubeskema_codegen::__internal::pipeline::check(std::slice::from_ref(file), true)
                .iter()
                .any(|d| d.is_error())
        })
        .collect()
}

fn main() {
    let corpus = corpus();
    if !corpus.join("instances").is_dir() {
        eprintln!("no corpus at {}: set KUBESKEMA_CORPUS", corpus.display());
        return;
    }
    let crds = accepted_crd_files(&corpus.join("crds"));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let request =
        |jobs| Request { crds: crds.clone(), manifests: vec![corpus.join("instances")], jobs, ..Request::default() };
    // (the documents' part, the whole run) of the best run on 1 thread and on every core.
    let mut best = [(Duration::MAX, Duration::MAX); 2];
    let (mut documents, mut findings) = (0, 0);
    for _ in 0..3 {
        for (slot, jobs) in [1, cores].into_iter().enumerate() {
            let report = validate_request(&request(jobs)).unwrap_or_else(|e| panic!("{e}"));
            (documents, findings) = (report.documents.len(), report.findings.len());
            let documents_part = report.elapsed - report.loading_crds;
            best[slot] = (best[slot].0.min(documents_part), best[slot].1.min(report.elapsed));
        }
    }
    let rate = |d: Duration| documents as f64 / d.as_secs_f64();
    println!("{} CRD files, {documents} documents, {findings} findings", crds.len());
    for (slot, threads) in [(0, 1), (1, cores)] {
        let (part, whole) = best[slot];
        println!(
            "{threads} thread(s): {:>7.0} documents/s ({part:.2?} for the documents; {whole:.2?} with the CRDs' loading)",
            rate(part)
        );
    }
    println!("speed-up on {cores} cores: {:.2}x", best[0].0.as_secs_f64() / best[1].0.as_secs_f64());
}
