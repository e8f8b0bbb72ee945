//! Records kube-apiserver 1.36.3's server-side apply answers over the corpus: for each
//! instance whose CRD version is in the corpus, the applies of
//! `kubeskema_tests::apply_corpus` (three, five where the CRD has another version), each
//! answer kept as a fingerprint in `fixtures/apply/corpus.tsv` (file, document, a fingerprint
//! a step; `-` after a step that stored nothing). `tests/tests/apply_corpus.rs` replays them.
//!
//! `ORACLE_BIN=.../apiserver-oracle cargo run -p kubeskema-tests --bin apply-corpus-record`

use std::fmt::Write as _;

use kubeskema_tests::apply_corpus::{Step, canonical_oracle, configurations, fingerprint};
use kubeskema_tests::oracle::{Oracle, oracle_bin};
use kubeskema_tests::{CorpusCrds, CorpusDocuments, instances, repo_dir};
use serde_json::Value;

/// One instance's work: its `file\tdocument` key, its CRD, the steps.
struct Work {
    key: String,
    crd: Value,
    steps: Vec<Step>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, file, doc] = args.as_slice()
        && flag == "--show"
    {
        return show(file, doc.parse().expect("a document index"));
    }
    let oracle = Oracle::new(oracle_bin());
    let mut crds = CorpusCrds::default();
    let mut docs = CorpusDocuments::default();
    // Step by step: each step's live object is the oracle's previous answer.
    let mut work: Vec<Work> = Vec::new();
    for inst in instances() {
        let Some((crd, _)) = crds.version_of(&inst) else { continue };
        let Some(steps) = configurations(&docs.value_of(&inst), &inst, crd) else { continue };
        work.push(Work { key: format!("{}\t{}", inst.file, inst.doc_index), crd: crd.raw().into_owned(), steps });
    }
    let mut lives: Vec<Value> = vec![Value::Null; work.len()];
    let mut prints: Vec<Vec<String>> = vec![Vec::new(); work.len()];
    let most = work.iter().map(|w| w.steps.len()).max().unwrap_or(0);
    for step in 0..most {
        let asked: Vec<usize> =
            (0..work.len()).filter(|&i| step < work[i].steps.len() && (step == 0 || !lives[i].is_null())).collect();
        let requests: Vec<Value> = asked
            .iter()
            .enumerate()
            .map(|(id, &i)| {
                let mut request = work[i].steps[step].request(&work[i].crd, &lives[i]);
                request["id"] = id.into();
                request
            })
            .collect();
        let answers = oracle.ask(&requests).unwrap_or_else(|e| panic!("{e}"));
        for (&i, answer) in asked.iter().zip(answers) {
            prints[i].push(fingerprint(&canonical_oracle(&answer)));
            lives[i] = answer.get("object").cloned().unwrap_or(Value::Null);
        }
        eprintln!("step {}: {} applies asked", step + 1, asked.len());
    }
    let mut out = String::from(
        "# kube-apiserver 1.36.3's apply answers over the corpus (apply-corpus-record): file, document, a fingerprint a step\n",
    );
    for (Work { key, steps, .. }, prints) in work.iter().zip(&prints) {
        let mut prints = prints.clone();
        prints.resize(steps.len(), "-".into());
        let _ = writeln!(out, "{key}\t{}", prints.join("\t"));
    }
    let path = repo_dir().join("fixtures/apply/corpus.tsv");
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    eprintln!("{} instances recorded in {}", work.len(), path.display());
}

/// `--show FILE DOC`: each step's answer, the apiserver's and ours, one after the other.
fn show(file: &str, doc: usize) {
    use kubeskema_tests::apply_corpus::canonical_ours;
    let oracle = Oracle::new(oracle_bin());
    let inst =
        instances().into_iter().find(|i| i.file == file && i.doc_index == doc).expect("an instance of the index");
    let mut crds = CorpusCrds::default();
    let (crd, _) = crds.version_of(&inst).expect("its CRD");
    let steps = configurations(&CorpusDocuments::default().value_of(&inst), &inst, crd).expect("an object");
    let mut live = Value::Null;
    for (i, step) in steps.iter().enumerate() {
        let answer = oracle.ask(&[step.request(&crd.raw(), &live)]).unwrap_or_else(|e| panic!("{e}")).remove(0);
        let ours = step.ours(crd, Some(&live).filter(|l| !l.is_null()));
        println!(
            "step {} ({} at {}{})\napiserver: {}\nours:      {}",
            i + 1,
            step.manager,
            step.version,
            if step.force { ", forced" } else { "" },
            canonical_oracle(&answer),
            canonical_ours(&ours)
        );
        live = answer.get("object").cloned().unwrap_or(Value::Null);
    }
}
