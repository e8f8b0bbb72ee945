//! Every file of the corpus (CRDs and instances) reads with the YAML loader.
//! `cargo test -p kubeskema-tests --release --features corpus --test corpus yaml::`.

#[test]
fn every_corpus_file_reads() {
    let corpus = kubeskema_tests::corpus_dir();
    let mut files = Vec::new();
    let mut stack = vec![corpus.join("crds"), corpus.join("instances")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "json") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        if let Err(e) = kubeskema::yaml::parse_documents(&text) {
            failures.push(format!("{}:{e}", f.display()));
        }
    }
    println!("{} files read, {} failed", files.len() - failures.len(), failures.len());
    for f in &failures {
        println!("  {f}");
    }
    assert!(failures.is_empty());
}
