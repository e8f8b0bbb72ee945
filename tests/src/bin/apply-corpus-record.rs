//! Records kube-apiserver 1.36.3's server-side apply answers over the corpus: for each
//! instance whose CRD version is in the corpus, the three applies of
//! `kubeskema_tests::apply_corpus`, each answer kept as a fingerprint in
//! `fixtures/apply/corpus.tsv` (file, document, three fingerprints; `-` after a step that
//! stored nothing). `tests/tests/apply_corpus.rs` replays them.
//!
//! `ORACLE_BIN=.../apiserver-oracle cargo run -p kubeskema-tests --bin apply-corpus-record`

use std::fmt::Write as _;

use kubeskema_tests::apply_corpus::{NOW, canonical_oracle, configurations, fingerprint};
use kubeskema_tests::oracle::{Oracle, oracle_bin};
use kubeskema_tests::{CorpusCrds, CorpusDocuments, instances, repo_dir};
use serde_json::{Value, json};

/// One instance's work: its `file\tdocument` key, its CRD, the version, the three steps.
struct Work {
    key: String,
    crd: Value,
    version: String,
    steps: Vec<(&'static str, Value)>,
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
        let Some((crd, version)) = crds.version_of(&inst) else { continue };
        let Some(steps) = configurations(&docs.value_of(&inst), &inst) else { continue };
        work.push(Work {
            key: format!("{}\t{}", inst.file, inst.doc_index),
            crd: crd.raw.clone(),
            version: version.name.clone(),
            steps,
        });
    }
    let mut lives: Vec<Value> = vec![Value::Null; work.len()];
    let mut prints: Vec<Vec<String>> = vec![Vec::new(); work.len()];
    for step in 0..3 {
        let asked: Vec<usize> = (0..work.len()).filter(|&i| step == 0 || !lives[i].is_null()).collect();
        let requests: Vec<Value> = asked
            .iter()
            .enumerate()
            .map(|(id, &i)| {
                let Work { crd, version, steps, .. } = &work[i];
                let (manager, applied) = &steps[step];
                json!({"id": id, "op": "apply", "crd": crd, "version": version, "live": lives[i],
                       "applied": applied, "manager": manager, "force": false, "now": NOW})
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
        "# kube-apiserver 1.36.3's apply answers over the corpus (apply-corpus-record): file, document, fingerprints of steps 1-3\n",
    );
    for (Work { key, .. }, prints) in work.iter().zip(&prints) {
        let mut prints = prints.clone();
        prints.resize(3, "-".into());
        let _ = writeln!(out, "{key}\t{}", prints.join("\t"));
    }
    let path = repo_dir().join("fixtures/apply/corpus.tsv");
    std::fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    eprintln!("{} instances recorded in {}", work.len(), path.display());
}

/// `--show FILE DOC`: each step's answer, the apiserver's and ours, one after the other.
fn show(file: &str, doc: usize) {
    use kubeskema::apply::{Options, Resource, Subresource};
    use kubeskema_tests::apply_corpus::canonical_ours;
    let oracle = Oracle::new(oracle_bin());
    let inst =
        instances().into_iter().find(|i| i.file == file && i.doc_index == doc).expect("an instance of the index");
    let mut crds = CorpusCrds::default();
    let (crd, version) = crds.version_of(&inst).expect("its CRD");
    let resource = Resource::new(crd, &version.name).unwrap();
    let steps = configurations(&CorpusDocuments::default().value_of(&inst), &inst).expect("an object");
    let mut live = Value::Null;
    for (step, (manager, applied)) in steps.iter().enumerate() {
        let request = json!({"id": 0, "op": "apply", "crd": crd.raw, "version": version.name, "live": live,
                             "applied": applied, "manager": manager, "force": false, "now": NOW});
        let answer = oracle.ask(&[request]).unwrap_or_else(|e| panic!("{e}")).remove(0);
        let options = Options { manager, force: false, now: NOW, subresource: Subresource::Main };
        let ours = resource.field_manager_apply(Some(&live).filter(|l| !l.is_null()), applied, &options);
        println!("step {}\napiserver: {}\nours:      {}", step + 1, canonical_oracle(&answer), canonical_ours(&ours));
        live = answer.get("object").cloned().unwrap_or(Value::Null);
    }
}
