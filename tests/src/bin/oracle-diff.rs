//! The live differential against kube-apiserver 1.36.3 (`../shared/oracle/`), and the recorder
//! of the fixtures CI replays (`tests/tests/oracle.rs`).
//!
//! ```sh
//! # mutated corpus objects and CRDs, seeded; agreement per operation and per mutator
//! cargo run --release -p kubeskema-tests --bin oracle-diff -- --seed 1 --creates 1500 --updates 500 --crds 1500
//! # record a sample of each class (the apiserver's answers) for CI, and re-ask the targeted cases
//! cargo run --release -p kubeskema-tests --bin oracle-diff -- --seed 7 --record fixtures/oracle
//! # re-ask only the targeted cases (after fixtures/oracle/targeted.py wrote new ones)
//! cargo run --release -p kubeskema-tests --bin oracle-diff -- --record-targeted fixtures/oracle
//! # write the differing cases to a folder, then re-ask them after a fix
//! cargo run --release -p kubeskema-tests --bin oracle-diff -- --seed 1 --crds 1500 --dump /tmp/differ
//! cargo run --release -p kubeskema-tests --bin oracle-diff -- --replay /tmp/differ/crds.jsonl
//! # objects kubeskema::testing generates from sample CRDs' schemas, asked and recorded
//! cargo run --release -p kubeskema-tests --bin oracle-diff -- --generated 12 --record fixtures/oracle
//! ```
//!
//! The oracle binary is `$ORACLE_BIN`, else `../oracle/bin/apiserver-oracle` (a writable copy
//! of `../shared/oracle` built there), else `../shared/oracle/bin/apiserver-oracle`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kubeskema_tests::instances;
use kubeskema_tests::oracle::mutate::{CRD_CLASSES, Candidate, OBJECT_CLASSES, crd_candidates, object_candidates};
use kubeskema_tests::oracle::rng::Rng;
use kubeskema_tests::oracle::{
    Answer, Case, Comparison, Documents, Op, Oracle, Source, answer_of, compare, compare_exact, corpus_crds, ours,
    read_fixture, request, write_fixture,
};
use serde_json::Value;

struct Args {
    seed: u64,
    creates: usize,
    updates: usize,
    crds: usize,
    record: Option<PathBuf>,
    record_targeted: Option<PathBuf>,
    per_class: usize,
    show: usize,
    replay: Vec<PathBuf>,
    exact: bool,
    dump: Option<PathBuf>,
    generated: usize,
    /// Draw from these classes only (`--class`, repeated); all when empty.
    only: Vec<String>,
}

fn args() -> Args {
    let mut a = Args {
        seed: 1,
        creates: 0,
        updates: 0,
        crds: 0,
        record: None,
        record_targeted: None,
        per_class: 6,
        show: 3,
        replay: Vec::new(),
        exact: false,
        dump: None,
        generated: 0,
        only: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        let number = |s: String| s.parse::<usize>().unwrap_or_else(|_| usage(&format!("{s} is not a number")));
        match flag.as_str() {
            "--seed" => a.seed = number(value()) as u64,
            "--creates" => a.creates = number(value()),
            "--updates" => a.updates = number(value()),
            "--crds" => a.crds = number(value()),
            "--record" => a.record = Some(PathBuf::from(value())),
            "--record-targeted" => a.record_targeted = Some(PathBuf::from(value())),
            "--per-class" => a.per_class = number(value()),
            "--show" => a.show = number(value()),
            "--replay" => a.replay.push(PathBuf::from(value())),
            "--exact" => a.exact = true,
            "--dump" => a.dump = Some(PathBuf::from(value())),
            "--generated" => a.generated = number(value()),
            "--class" => a.only.push(value()),
            _ => usage(&format!("unknown argument {flag}")),
        }
    }
    if a.record.is_some() && a.creates + a.updates + a.crds + a.generated == 0 {
        // A recording holds `per_class` cases of each class; draw enough to find them.
        a.creates = OBJECT_CLASSES.len() * a.per_class * 3;
        a.updates = OBJECT_CLASSES.len() * a.per_class * 2;
        a.crds = CRD_CLASSES.len() * a.per_class * 3;
    }
    a
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "oracle-diff: {problem}\nusage: oracle-diff [--seed N] [--creates N] [--updates N] [--crds N] [--class C]... [--show N] [--exact] [--dump DIR]\n       \
         oracle-diff --record DIR [--per-class K] [--seed N]   (writes DIR/{{creates,updates,crds}}.jsonl, re-asks DIR/targeted.jsonl)\n       \
         oracle-diff --record-targeted DIR   (re-asks DIR/targeted.jsonl only)\n       \
         oracle-diff --replay FILE.jsonl   (re-asks a fixture's cases and compares)\n       \
         oracle-diff --generated N [--record DIR]   (N objects per sample CRD version from kubeskema::testing; DIR/generated.jsonl)"
    );
    std::process::exit(2)
}

/// Draws `n` cases of `op`, the classes in turn, each from a random input that has one.
fn draw(
    op: Op,
    n: usize,
    classes: &[&'static str],
    inputs: &[(Source, Source, Vec<Candidate>)],
    rng: &mut Rng,
    tag: &str,
) -> Vec<Case> {
    let mut by_class: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
    for (i, (_, _, cands)) in inputs.iter().enumerate() {
        for (j, c) in cands.iter().enumerate() {
            by_class.entry(c.class).or_default().push((i, j));
        }
    }
    let present: Vec<&str> = classes.iter().copied().filter(|c| by_class.contains_key(c)).collect();
    let mut out = Vec::new();
    for k in 0..n {
        let Some(class) = present.get(k % present.len().max(1)) else { break };
        let (i, j) = *rng.pick(&by_class[class]).expect("a class present has candidates");
        let (crd, object, cands) = &inputs[i];
        let patched = object.patched(cands[j].patch.clone());
        // What an object's change needs of its CRD (a rule reading the changed field).
        let crd = &crd.patched(cands[j].crd_patch.clone());
        let id = format!("{tag}-{k:05}");
        out.push(match op {
            Op::Check => {
                Case { id, class: class.to_string(), op, crd: patched, object: None, old: None, apiserver: None }
            }
            Op::Create => Case {
                id,
                class: class.to_string(),
                op,
                crd: crd.clone(),
                object: Some(patched),
                old: None,
                apiserver: None,
            },
            Op::Update => Case {
                id,
                class: class.to_string(),
                op,
                crd: crd.clone(),
                object: Some(patched),
                old: Some(object.clone()),
                apiserver: None,
            },
        });
    }
    out
}

/// The corpus objects that upstream labels valid, with their CRD and their candidates.
fn object_inputs(docs: &mut Documents) -> Vec<(Source, Source, Vec<Candidate>)> {
    let mut crd_docs: BTreeMap<String, Vec<(usize, Value)>> = BTreeMap::new();
    let mut out = Vec::new();
    for inst in instances().into_iter().filter(|i| i.expect == "valid") {
        let list = crd_docs
            .entry(inst.crd_file.clone())
            .or_insert_with(|| (0..).map_while(|i| docs.get(&inst.crd_file, i).ok().map(|d| (i, d))).collect());
        let (group, version) = inst.api_version.rsplit_once('/').unwrap_or(("", &inst.api_version));
        let Some((crd_doc, crd)) = list.iter().find(|(_, c)| {
            c["apiVersion"] == "apiextensions.k8s.io/v1"
                && c["spec"]["group"] == group
                && c["spec"]["names"]["kind"] == inst.kind.as_str()
        }) else {
            continue;
        };
        let (parsed, errors) = kubeskema::crd::Crd::parse(crd);
        let Some(schema) = parsed.version(version).and_then(|v| v.schema.as_ref()) else { continue };
        if !errors.is_empty() {
            continue;
        }
        let Ok(object) = docs.get(&inst.file, inst.doc_index) else { continue };
        // The oracle fills the request's namespace only into an existing `metadata` map (its
        // README's known limit): an object without one would get a `Required` the apiserver
        // does not give.
        if !object["metadata"].is_object() {
            continue;
        }
        let cands = object_candidates(&object, schema, parsed.scope == "Cluster");
        out.push((Source::corpus(&inst.crd_file, *crd_doc), Source::corpus(&inst.file, inst.doc_index), cands));
    }
    out
}

/// Asks the oracle and ourselves; returns each case with both answers.
fn run(cases: &mut [Case], docs: &mut Documents, ask_oracle: bool) -> Vec<(Answer, Answer)> {
    let inputs: Vec<_> = cases.iter().map(|c| c.inputs(docs)).collect();
    if ask_oracle {
        let requests: Vec<Value> = cases
            .iter()
            .zip(&inputs)
            .enumerate()
            .map(|(i, (c, inp))| match inp {
                Ok(inp) => request(i, c.op, inp),
                Err(_) => Value::Null,
            })
            .collect();
        let answers = Oracle::new(kubeskema_tests::oracle::oracle_bin()).ask(&requests).unwrap_or_else(|e| {
            eprintln!("oracle-diff: {e}");
            std::process::exit(2)
        });
        for (c, a) in cases.iter_mut().zip(&answers) {
            c.apiserver = Some(answer_of(a));
        }
    }
    let scratch = std::env::temp_dir().join(format!("oracle-diff-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch folder");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let ours_all: Vec<Answer> = std::thread::scope(|s| {
        let chunk = cases.len().div_ceil(threads).max(1);
        let handles: Vec<_> = cases
            .chunks(chunk)
            .zip(inputs.chunks(chunk))
            .map(|(cs, is)| {
                let scratch = &scratch;
                s.spawn(move || {
                    cs.iter()
                        .zip(is)
                        .map(|(c, i)| match i {
                            Ok(i) => ours(c.op, i, scratch),
                            Err(e) => Answer { error: Some(e.clone()), ..Answer::default() },
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("no panic")).collect()
    });
    let _ = std::fs::remove_dir_all(&scratch);
    cases.iter().map(|c| c.apiserver.clone().unwrap_or_default()).zip(ours_all).collect()
}

#[derive(Default)]
struct Tally {
    total: usize,
    findings: usize,
    messages: usize,
    skipped: usize,
}

fn report(title: &str, cases: &[Case], answers: &[(Answer, Answer)], show: usize, exact: bool) {
    let mut all = Tally::default();
    let mut per: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut shown: BTreeMap<&str, usize> = BTreeMap::new();
    for (c, (theirs, mine)) in cases.iter().zip(answers) {
        let t = per.entry(&c.class).or_default();
        if theirs.error.is_some() {
            t.skipped += 1;
            all.skipped += 1;
            continue;
        }
        let cmp: Comparison = if exact { compare_exact(c.op, theirs, mine) } else { compare(c.op, theirs, mine) };
        for t in [&mut *t, &mut all] {
            t.total += 1;
            t.findings += cmp.same_findings as usize;
            t.messages += cmp.same_messages as usize;
        }
        let n = shown.entry(&c.class).or_default();
        if !cmp.same_messages && *n < show {
            *n += 1;
            println!(
                "  differs {} [{}] {}",
                c.id,
                c.class,
                serde_json::to_string(&c.object.as_ref().unwrap_or(&c.crd).patch).unwrap_or_default()
            );
            if let Some(e) = &mine.error {
                println!("    ours failed: {e}");
            }
            for f in &cmp.only_apiserver {
                println!("    apiserver: {} [{}]", f.message, f.type_);
            }
            for f in &cmp.only_ours {
                println!("    ours:      {} [{}]", f.message, f.type_);
            }
            for w in &cmp.warnings.0 {
                println!("    apiserver warning: {w}");
            }
            for w in &cmp.warnings.1 {
                println!("    our warning:       {w}");
            }
        }
    }
    let pct = |n: usize, d: usize| if d == 0 { 100.0 } else { 100.0 * n as f64 / d as f64 };
    println!(
        "{title}: {} cases ({} the oracle could not answer): same (field, type) {:.1}%, same (field, type, message) {:.1}%",
        all.total,
        all.skipped,
        pct(all.findings, all.total),
        pct(all.messages, all.total)
    );
    for (class, t) in &per {
        println!(
            "  {class:28} {:5} cases  findings {:6.1}%  messages {:6.1}%{}",
            t.total,
            pct(t.findings, t.total),
            pct(t.messages, t.total),
            if t.skipped > 0 { format!("  ({} unanswered)", t.skipped) } else { String::new() }
        );
    }
}

/// Keeps up to `k` answered cases of each class, the disagreeing ones first (they are what
/// CI must hold on to), then in drawing order.
fn sample(cases: &[Case], answers: &[(Answer, Answer)], k: usize) -> Vec<Case> {
    let mut idx: Vec<usize> = (0..cases.len()).filter(|&i| answers[i].0.error.is_none()).collect();
    idx.sort_by_key(|&i| compare(cases[i].op, &answers[i].0, &answers[i].1).same_messages);
    let mut per: BTreeMap<&str, usize> = BTreeMap::new();
    let mut keep: Vec<usize> = idx
        .into_iter()
        .filter(|&i| {
            let n = per.entry(&cases[i].class).or_default();
            *n += 1;
            *n <= k
        })
        .collect();
    keep.sort();
    keep.into_iter().map(|i| cases[i].clone()).collect()
}

fn main() {
    let a = args();
    let mut docs = Documents::default();
    let command = format!(
        "cargo run --release -p kubeskema-tests --bin oracle-diff -- --seed {} --record fixtures/oracle --per-class {}",
        a.seed, a.per_class
    );
    for file in &a.replay {
        let mut cases = read_fixture(file).unwrap_or_else(|e| usage(&e));
        let answers = run(&mut cases, &mut docs, true);
        report(&file.display().to_string(), &cases, &answers, a.show, a.exact);
    }
    // `--generated` records its own file only.
    let targeted_dir =
        if a.generated > 0 { a.record_targeted.as_ref() } else { a.record.as_ref().or(a.record_targeted.as_ref()) };
    if let Some(dir) = targeted_dir {
        let targeted = dir.join("targeted.jsonl");
        if targeted.exists() {
            let mut cases = read_fixture(&targeted).unwrap_or_else(|e| usage(&e));
            let answers = run(&mut cases, &mut docs, true);
            report("targeted", &cases, &answers, a.show, a.exact);
            let command = "fixtures/oracle/targeted.py && cargo run --release -p kubeskema-tests --bin oracle-diff -- \
                           --record-targeted fixtures/oracle";
            write_fixture(&targeted, command, &cases).expect("the fixture folder is writable");
        }
    }
    let mut rng = Rng::new(a.seed);
    let chosen = |classes: &[&'static str]| -> Vec<&'static str> {
        classes.iter().copied().filter(|c| a.only.is_empty() || a.only.iter().any(|o| o == c)).collect()
    };
    let (object_classes, crd_classes) = (chosen(OBJECT_CLASSES), chosen(CRD_CLASSES));
    let mut batches: Vec<(&str, Vec<Case>)> = Vec::new();
    if a.creates + a.updates > 0 {
        let inputs = object_inputs(&mut docs);
        eprintln!("oracle-diff: {} valid corpus objects to mutate", inputs.len());
        batches.push((
            "creates",
            draw(Op::Create, a.creates, &object_classes, &inputs, &mut rng, &format!("s{}-create", a.seed)),
        ));
        batches.push((
            "updates",
            draw(Op::Update, a.updates, &object_classes, &inputs, &mut rng, &format!("s{}-update", a.seed)),
        ));
    }
    if a.crds > 0 {
        let crds = corpus_crds(&mut docs);
        eprintln!("oracle-diff: {} corpus v1 CRDs to mutate", crds.len());
        let inputs: Vec<_> = crds
            .iter()
            .map(|(f, i, crd)| (Source::corpus(f, *i), Source::corpus(f, *i), crd_candidates(crd)))
            .collect();
        batches.push(("crds", draw(Op::Check, a.crds, &crd_classes, &inputs, &mut rng, &format!("s{}-crd", a.seed))));
    }
    if a.generated > 0 {
        batches.push(("generated", generated(a.generated)));
    }
    for (name, mut cases) in batches {
        if cases.is_empty() {
            continue;
        }
        let answers = run(&mut cases, &mut docs, true);
        report(name, &cases, &answers, a.show, a.exact);
        if let Some(dir) = &a.dump {
            // Every case that differs, with the apiserver's answer: `--replay` shows them again.
            let differing: Vec<Case> = cases
                .iter()
                .zip(&answers)
                .filter(|(c, (theirs, mine))| theirs.error.is_none() && !compare(c.op, theirs, mine).same_messages)
                .map(|(c, _)| c.clone())
                .collect();
            std::fs::create_dir_all(dir).expect("the dump folder can be made");
            let path = dir.join(format!("{name}.jsonl"));
            write_fixture(&path, &format!("differing cases of oracle-diff --seed {}", a.seed), &differing)
                .expect("the dump folder is writable");
            eprintln!("oracle-diff: {} differing cases in {}", differing.len(), path.display());
        }
        if let (Some(dir), "generated") = (&a.record, name) {
            // Every generated object is kept: the sample is the point.
            let path: PathBuf = Path::new(dir).join("generated.jsonl");
            let command = format!(
                "cargo run --release -p kubeskema-tests --bin oracle-diff -- --generated {} --record fixtures/oracle",
                a.generated
            );
            write_fixture(&path, &command, &cases).expect("the fixture folder is writable");
            eprintln!("oracle-diff: recorded {} cases in {}", cases.len(), path.display());
        } else if let Some(dir) = &a.record {
            let kept = sample(&cases, &answers, a.per_class);
            let path: PathBuf = Path::new(dir).join(format!("{name}.jsonl"));
            write_fixture(&path, &command, &kept).expect("the fixture folder is writable");
            eprintln!("oracle-diff: recorded {} cases in {}", kept.len(), path.display());
        }
    }
}

/// The CRDs whose versions' generated objects are asked: the worked example of
/// `docs/conversion.md` (both versions), and corpus CRDs with many keywords and CEL rules.
const GENERATED_FROM: &[&str] = &[
    "kubernetes-sigs__cluster-api/ipam.cluster.x-k8s.io_ipaddresses.yaml",
    "kubernetes-sigs__kueue/kueue.x-k8s.io_localqueues.yaml",
    "kubernetes-sigs__kueue/kueue.x-k8s.io_admissionchecks.yaml",
    "kubernetes-sigs__gateway-api/gateway.networking.k8s.io_httproutes.yaml",
    "cert-manager__cert-manager/cert-manager.io_certificates.yaml",
    "istio__istio/destinationrules.networking.istio.io.yaml",
];

/// `n` objects per version of each [`GENERATED_FROM`] CRD, made by `kubeskema::testing::Objects`
/// (the ones the dynamic validator accepts), as create cases.
fn generated(n: usize) -> Vec<Case> {
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(Default::default(), TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let example = kubeskema_tests::repo_dir().join("fixtures/golden/conversion.yaml");
    let example = kubeskema::yaml::parse_documents(&std::fs::read_to_string(&example).expect("the fixture"))
        .expect("YAML")
        .remove(0)
        .value;
    let mut crds: Vec<(Source, Value)> =
        vec![(Source { inline: Some(example.clone()), ..Default::default() }, example)];
    for file in GENERATED_FROM {
        let path = kubeskema_tests::corpus_dir().join("crds").join(file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!("oracle-diff: {} is not in the corpus; skipped", path.display());
            continue;
        };
        for (i, doc) in kubeskema::yaml::parse_documents(&text).expect("a corpus CRD reads").into_iter().enumerate() {
            crds.push((Source::corpus(&format!("crds/{file}"), i), doc.value));
        }
    }
    let mut cases = Vec::new();
    for (source, crd) in &crds {
        let name = crd["metadata"]["name"].as_str().unwrap_or_default().to_owned();
        let versions: Vec<String> = crd["spec"]["versions"]
            .as_array()
            .map(|v| v.iter().filter_map(|v| v["name"].as_str().map(str::to_owned)).collect())
            .unwrap_or_default();
        for version in versions {
            let Some(objects) = kubeskema::testing::Objects::new(crd, &version) else { continue };
            for k in 0..n {
                let Some(object) = objects.next(&mut runner, 200) else { break };
                cases.push(Case {
                    id: format!("gen-{name}-{version}-{k}"),
                    class: "generated".into(),
                    op: Op::Create,
                    crd: source.clone(),
                    object: Some(Source { inline: Some(object), ..Default::default() }),
                    old: None,
                    apiserver: None,
                });
            }
            eprintln!("oracle-diff: {name} {version}: {}", objects.stats.summary());
        }
    }
    cases
}
