//! The `compat` differential against kube-apiserver 1.36.3 (`../shared/oracle/`): corpus CRDs
//! through seeded evolutions (`oracle::evolve`), `kubeskema::crd::compat` on each pair, and the
//! apiserver asked the CRD update and, for every witness, OLD's create and NEW's create, no-op
//! update and update beside the violation. It also records the fixtures CI replays.
//!
//! ```sh
//! cargo run --release -p kubeskema-tests --bin compat-diff -- --seed 1 --pairs 2000
//! # record fixtures/oracle/compat/pairs.jsonl, which tests/tests/compat.rs replays in CI
//! cargo run --release -p kubeskema-tests --bin compat-diff -- --seed 7 --pairs 300 --record fixtures/oracle
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use kubeskema_tests::oracle::compat::{
    Answers, Pair, answers, crds, messages, our_update, ours, proven, requests, same,
};
use kubeskema_tests::oracle::evolve::{EVOLUTIONS, evolutions, legacies};
use kubeskema_tests::oracle::mutate::Candidate;
use kubeskema_tests::oracle::rng::Rng;
use kubeskema_tests::oracle::{
    Answer, Documents, Finding, Oracle, Source, answer_of, corpus_crds, oracle_bin, provenance,
};

struct Args {
    seed: u64,
    pairs: usize,
    record: Option<PathBuf>,
    show: usize,
    /// Time `compat` over every corpus CRD against an evolved copy of itself, without asking.
    speed: bool,
    /// The catalogue of checks (`fixtures/compat/checks.yaml`) instead of corpus evolutions.
    checks: Option<PathBuf>,
}

fn args() -> Args {
    let mut a = Args { seed: 1, pairs: 500, record: None, show: 10, speed: false, checks: None };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        let number = |v: String| v.parse::<usize>().unwrap_or_else(|_| usage(&format!("not a number: {v}")));
        match flag.as_str() {
            "--seed" => a.seed = number(value()) as u64,
            "--pairs" => a.pairs = number(value()),
            "--record" => a.record = Some(PathBuf::from(value())),
            "--show" => a.show = number(value()),
            "--speed" => a.speed = true,
            "--checks" => a.checks = Some(PathBuf::from(value())),
            other => usage(&format!("unknown argument {other}")),
        }
    }
    a
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "compat-diff: {problem}\nusage: compat-diff [--seed N] [--pairs N] [--show N] [--record DIR]\n       compat-diff --checks fixtures/compat/checks.yaml [--record DIR]   (the catalogue of checks)\n       compat-diff --speed [--seed N]   (compat of every corpus CRD against an evolved copy, timed)"
    );
    std::process::exit(2)
}

fn main() {
    let a = args();
    let mut docs = Documents::default();
    let corpus = corpus_crds(&mut docs);
    let mut rng = Rng::new(a.seed);
    // Every CRD's evolutions by class.
    let mut by_class: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
    let all: Vec<Vec<Candidate>> = corpus.iter().map(|(_, _, d)| evolutions(d)).collect();
    for (i, cands) in all.iter().enumerate() {
        for (j, c) in cands.iter().enumerate() {
            by_class.entry(c.class).or_default().push((i, j));
        }
    }
    if a.speed {
        return speed(&corpus, &all, &mut rng);
    }
    let mut pairs = match &a.checks {
        Some(path) => kubeskema_tests::oracle::compat::checks(path).unwrap_or_else(|e| usage(&e)),
        None => Vec::new(),
    };
    for k in (0..a.pairs).filter(|_| a.checks.is_none()) {
        let class = EVOLUTIONS[k % EVOLUTIONS.len()];
        let Some(&(i, j)) = by_class.get(class).and_then(|c| rng.pick(c)) else { continue };
        let (file, doc, _) = &corpus[i];
        let mut old = Source::corpus(file, *doc);
        let mut classes = vec![class.to_owned()];
        // One pair in six has an OLD written before a rule it breaks was checked.
        if rng.below(6) == 0
            && let Some(legacy) = rng.pick(&legacies(&corpus[i].2))
        {
            old = old.patched(legacy.patch.clone());
            classes.push(legacy.class.to_owned());
        }
        let mut patch = all[i][j].patch.clone();
        // One pair in four changes several things at once.
        if rng.below(4) == 0 {
            for _ in 0..1 + rng.below(2) {
                if let Some(more) = rng.pick(&all[i]) {
                    patch.extend(more.patch.clone());
                    classes.push(more.class.to_owned());
                }
            }
        }
        let new = old.patched(patch);
        pairs.push(Pair { id: format!("c{}-{k:05}", a.seed), classes, old, new, expect: None, apiserver: None });
    }

    // Ours, what to ask, and the answers, forty pairs at a time: a request carries its CRD, and
    // every request of a few thousand pairs at once would hold tens of gigabytes.
    let oracle = Oracle::new(oracle_bin());
    let (mut update_same, mut witnesses, mut answers_same, mut classes_same) = (0, 0, 0, 0);
    let mut by_class: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut shown = 0;
    let mut recorded = Vec::new();
    // Pairs with a legacy OLD, and how many of their CRD-update verdicts agree.
    let (mut legacy, mut legacy_agree) = (0, 0);
    let (mut checked_objects, mut unsound) = (0, Vec::new());
    let mut instances_of: BTreeMap<String, Vec<kubeskema_tests::Instance>> = BTreeMap::new();
    for inst in kubeskema_tests::instances().into_iter().filter(|i| i.expect == "valid") {
        instances_of.entry(inst.crd_file.clone()).or_default().push(inst);
    }
    let total = pairs.len();
    let mut pairs = pairs.into_iter().peekable();
    while pairs.peek().is_some() {
        let mut asked = Vec::new();
        let mut kept = Vec::new();
        for pair in pairs.by_ref().take(40) {
            let Ok((old, new, old_crd, new_crd)) = crds(&pair, &mut docs) else { continue };
            let report = ours(&old_crd, &new_crd);
            let first = asked.len();
            asked.extend(requests(first, &old, &new, &report));
            kept.push((pair, report, first, asked.len()));
        }
        // Soundness: the corpus objects of a CRD whose change is called compatible, which OLD
        // accepts, NEW must accept too.
        let mut sound = Vec::new();
        for (pair, report, _, _) in &kept {
            let compatible =
                report.worst() == kubeskema::crd::compat::Class::Compatible && report.update.iter().all(|f| f.warning);
            let Some(file) = pair.old.corpus.as_deref().filter(|_| compatible) else { continue };
            let Ok((_, new, old_crd, _)) = crds(pair, &mut docs) else { continue };
            for inst in instances_of.get(file).into_iter().flatten() {
                let Ok(object) = docs.get(&inst.file, inst.doc_index) else { continue };
                let version = inst.api_version.rsplit('/').next().unwrap_or_default();
                let Some(v) = old_crd.version(version) else { continue };
                let group_matches = inst.api_version.starts_with(&format!("{}/", old_crd.group));
                if !group_matches || inst.kind != old_crd.names.kind || !object["metadata"].is_object() {
                    continue;
                }
                if !kubeskema::validate::ResourceValidator::new(&old_crd, v).validate_create(&object).issues.is_empty()
                {
                    continue;
                }
                sound.push((pair.id.clone(), inst.file.clone(), asked.len()));
                asked.push(serde_json::json!({"id": asked.len(), "op": "validate", "crd": new, "version": version,
                                              "object": object, "prune": true}));
            }
        }
        let lines = oracle.ask(&asked).unwrap_or_else(|e| usage(&e));
        drop(asked);
        for (id, file, i) in sound {
            checked_objects += 1;
            let refused = answer_of(&lines[i]);
            if !refused.errors.is_empty() {
                unsound.push(format!("{id}: called compatible, but NEW refuses {file}: {:?}", messages(&refused)));
            }
        }
        for (mut pair, report, from, to) in kept {
            let theirs: Answers = answers(&report, &lines[from..to]);
            let ours_update = our_update(&report);
            let same_update = same(true, &theirs.update, &ours_update);
            update_same += usize::from(same_update);
            if pair.classes.iter().any(|c| c == "legacy") {
                legacy += 1;
                legacy_agree += usize::from(same_update);
            }
            let mut problems = Vec::new();
            if !same_update {
                problems.push(format!(
                    "update: apiserver {:?}, ours {:?}",
                    messages(&theirs.update),
                    messages(&ours_update)
                ));
            }
            let mut wi = 0;
            for change in report.changes.iter().filter(|c| c.served_from.is_none()) {
                let Ok(w) = &change.witness else { continue };
                let Some(t) = theirs.witnesses.get(wi) else { break };
                wi += 1;
                witnesses += 1;
                let agree = same(false, &t.create, &answer(&w.create))
                    && same(false, &t.no_op, &answer(&w.no_op_update))
                    && same(false, &t.edit, &answer(&w.edit.1));
                answers_same += usize::from(agree);
                if !agree {
                    problems.push(format!(
                        "{} {}: answers differ: create {:?} / {:?}; no-op {:?} / {:?}; edit {:?} / {:?}",
                        change.version.as_deref().unwrap_or(""),
                        change.place.field,
                        messages(&t.create),
                        sorted(&w.create),
                        messages(&t.no_op),
                        sorted(&w.no_op_update),
                        messages(&t.edit),
                        sorted(&w.edit.1)
                    ));
                }
                let class_ok = proven(change.class, t);
                classes_same += usize::from(class_ok.is_ok());
                let entry = by_class.entry(change.class.name().to_owned()).or_default();
                entry.0 += 1;
                entry.1 += usize::from(class_ok.is_ok() && agree);
                if let Err(e) = class_ok {
                    problems.push(format!("{} {}: {}: {e}", change.class.name(), change.place.field, change.what));
                }
            }
            problems.extend(pair.expect.as_ref().and_then(|e| e.unmet(&report, &theirs.update)));
            if !problems.is_empty() && shown < a.show {
                shown += 1;
                println!("--- {} ({}) {}", pair.id, pair.classes.join("+"), pair.old.corpus.as_deref().unwrap_or(""));
                for p in &problems {
                    println!("    {p}");
                }
            }
            pair.apiserver = Some(theirs);
            recorded.push(pair);
        }
        eprint!("\rcompat-diff: {}/{total} pairs", recorded.len());
    }
    eprintln!();
    let pct = |n: usize, d: usize| if d == 0 { 100.0 } else { 100.0 * n as f64 / d as f64 };
    println!(
        "compat-diff --seed {}: {} pairs; CRD update verdict {update_same}/{} ({:.1}%); witnesses {witnesses}: answers {answers_same} ({:.1}%), classes proven {classes_same} ({:.1}%)",
        a.seed,
        recorded.len(),
        recorded.len(),
        pct(update_same, recorded.len()),
        pct(answers_same, witnesses),
        pct(classes_same, witnesses)
    );
    println!(
        "  OLD written before a rule it breaks was checked: {legacy} pairs, CRD update verdict {legacy_agree} equal"
    );
    for (class, (n, ok)) in &by_class {
        println!("  {class:16} {ok}/{n}");
    }
    println!(
        "  soundness: {checked_objects} corpus objects OLD accepts, of CRDs whose change is called compatible: {} refused by NEW",
        unsound.len()
    );
    for u in unsound.iter().take(a.show) {
        println!("    {u}");
    }
    let compatible = recorded.len()
        - recorded.iter().filter(|p| p.apiserver.as_ref().is_some_and(|a| !a.witnesses.is_empty())).count();
    println!("  pairs without a witness: {compatible}");
    if let Some(dir) = a.record {
        let command = match &a.checks {
            Some(path) => format!(
                "cargo run --release -p kubeskema-tests --bin compat-diff -- --checks {} --record fixtures/oracle",
                path.display()
            ),
            None => format!(
                "cargo run --release -p kubeskema-tests --bin compat-diff -- --seed {} --pairs {} --record fixtures/oracle",
                a.seed, a.pairs
            ),
        };
        let mut out = provenance(&command).to_string();
        out.push('\n');
        for p in &recorded {
            out.push_str(&serde_json::to_string(p).expect("a pair serializes"));
            out.push('\n');
        }
        let dir = dir.join("compat");
        std::fs::create_dir_all(&dir).expect("the fixture folder is writable");
        let name = if a.checks.is_some() { "checks.jsonl" } else { "pairs.jsonl" };
        std::fs::write(dir.join(name), out).expect("the fixture folder is writable");
    }
}

/// Our messages as an answer (the field and type are not compared by [`same`]'s multiset of
/// whole messages).
fn answer(messages: &[String]) -> Answer {
    let errors =
        messages.iter().map(|m| Finding { field: String::new(), type_: String::new(), message: m.clone() }).collect();
    Answer { errors, ..Answer::default() }
}

fn sorted(m: &[String]) -> Vec<String> {
    let mut m = m.to_vec();
    m.sort();
    m
}

/// `compat` of every corpus CRD against a copy through one random evolution, on as many
/// threads as the machine has: the time and the changes found.
fn speed(corpus: &[(String, usize, serde_json::Value)], all: &[Vec<Candidate>], rng: &mut Rng) {
    let pairs: Vec<(kubeskema::crd::Crd, kubeskema::crd::Crd)> = corpus
        .iter()
        .zip(all)
        .filter_map(|((_, _, doc), cands)| {
            let mut new = doc.clone();
            for op in &rng.pick(cands)?.patch {
                kubeskema_tests::oracle::apply_op(&mut new, op).ok()?;
            }
            Some((kubeskema::crd::Crd::parse(doc).0, kubeskema::crd::Crd::parse(&new).0))
        })
        .collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let started = std::time::Instant::now();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let changes = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            // Schemas nest deeply: the CLI's stack, not a thread's default.
            let worker = std::thread::Builder::new().stack_size(64 << 20);
            worker
                .spawn_scoped(s, || {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((old, new)) = pairs.get(i) else { break };
                        changes.fetch_add(ours(old, new).changes.len(), std::sync::atomic::Ordering::Relaxed);
                    }
                })
                .expect("a thread");
        }
    });
    println!(
        "compat-diff --speed: {} CRDs against an evolved copy, {} changes, {:.2} s on {threads} threads",
        pairs.len(),
        changes.into_inner(),
        started.elapsed().as_secs_f64()
    );
}
