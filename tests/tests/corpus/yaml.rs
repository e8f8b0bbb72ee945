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
    let (mut failures, mut scanned) = (Vec::new(), 0);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        match kubeskema::yaml::parse_documents(&text) {
            Err(e) => failures.push(format!("{}:{e}", f.display())),
            // `validate` reads the types of YAML documents from the parser's events alone: where
            // that can tell, it tells what the parse does.
            Ok(docs) => {
                let text_at = |v: &serde_json::Value, key: &str| {
                    v.get(key).and_then(|s| s.as_str()).unwrap_or_default().to_owned()
                };
                let mut parsed = kubeskema::yaml::ScannedTypes::default();
                for d in docs.iter().filter(|d| !d.value.is_null()) {
                    parsed.add(text_at(&d.value, "apiVersion"), text_at(&d.value, "kind"));
                }
                if let Some(types) = kubeskema::yaml::scan_types(&text) {
                    scanned += 1;
                    if types != parsed {
                        failures.push(format!("{}: scanned types {types:?}, parsed {parsed:?}", f.display()));
                    }
                }
            }
        }
    }
    println!(
        "{} files read ({scanned} with their types scanned), {} failed",
        files.len() - failures.len(),
        failures.len()
    );
    for f in &failures {
        println!("  {f}");
    }
    assert!(failures.is_empty());
}
