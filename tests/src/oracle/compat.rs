//! The `compat` differential's cases: an OLD corpus CRD, NEW as OLD with evolutions applied,
//! and kube-apiserver 1.36.3's answers to the CRD update and to every witness `compat` built
//! (`compat-diff` asks and records; `tests/tests/oracle.rs` replays).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use kubeskema::crd::Crd;
use kubeskema::crd::compat::{Class, Options, Report, compat};

use super::{Answer, Documents, Finding, Source, answer_of};

/// One (OLD, NEW) pair.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pair {
    /// A name, unique in its file.
    pub id: String,
    /// The evolutions applied, by class.
    pub classes: Vec<String>,
    /// OLD.
    pub old: Source,
    /// NEW: OLD patched.
    pub new: Source,
    /// What `compat` must say, for the catalogue's cases (`fixtures/compat/checks.yaml`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
    /// The apiserver's answers (absent before it is asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apiserver: Option<Answers>,
}

/// What a catalogue case expects of `compat`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Expect {
    /// The check it is an example of (crdify's name where crdify has it).
    pub check: String,
    /// The change, in words.
    pub change: String,
    /// The report's worst class.
    pub class: String,
    /// Whether the apiserver refuses the CRD update itself.
    #[serde(default)]
    pub update_refused: bool,
}

impl Expect {
    /// How `report` (with the apiserver's answer to the CRD update) misses this expectation;
    /// `None` when it meets it.
    pub fn unmet(&self, report: &Report, update: &Answer) -> Option<String> {
        let refused = !update.errors.is_empty();
        let worst = report.worst().name();
        (worst != self.class || refused != self.update_refused).then(|| {
            format!(
                "({}: {}): expected {}{}, compat says {worst}{}",
                self.check,
                self.change,
                self.class,
                if self.update_refused { " and the update refused" } else { "" },
                if refused {
                    format!(" and the apiserver refuses the update: {:?}", messages(update))
                } else {
                    String::new()
                },
            )
        })
    }
}

/// The catalogue of checks (`fixtures/compat/checks.yaml`) as pairs, one per case: OLD is the
/// base (with the case's `old_patch`), NEW the base with its `patch`.
pub fn checks(path: &std::path::Path) -> Result<Vec<Pair>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc = kubeskema::yaml::parse_documents(&text)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .into_iter()
        .next()
        .ok_or_else(|| format!("{}: empty", path.display()))?
        .value;
    let base = doc.get("base").cloned().ok_or_else(|| format!("{}: no `base`", path.display()))?;
    // The shorthands the cases' paths use.
    // The shorthands the cases' paths use: `{schema}` and `{spec}` are in both versions (the
    // base's versions share one schema, and a change of one alone is a served-version change).
    let expand = |ops: Option<&Value>| -> Vec<Value> {
        let mut out = Vec::new();
        for op in ops.and_then(Value::as_array).into_iter().flatten() {
            let path = op["path"].as_str().unwrap_or_default();
            let versions: &[usize] =
                if ["{schema}", "{spec}", "{each}"].iter().any(|p| path.starts_with(p)) { &[0, 1] } else { &[1] };
            for v in versions {
                let schema = format!("/spec/versions/{v}/schema/openAPIV3Schema");
                let long = path
                    .replace("{spec}", &format!("{schema}/properties/spec/properties"))
                    .replace("{schema}", &schema)
                    .replace("{each}", &format!("/spec/versions/{v}"))
                    .replace("{v1}", "/spec/versions/1")
                    .replace("{alpha}", "/spec/versions/0");
                let mut op = op.clone();
                op["path"] = json!(long);
                out.push(op);
            }
        }
        out
    };
    let text_of = |case: &Value, key: &str| -> Result<String, String> {
        case[key]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{}: a case without `{key}`: {case}", path.display()))
    };
    let mut out = Vec::new();
    for case in doc["cases"].as_array().into_iter().flatten() {
        let id = text_of(case, "id")?;
        let check = text_of(case, "check")?;
        let from_base = |patch: Vec<Value>| Source { corpus: None, doc: None, inline: Some(base.clone()), patch };
        out.push(Pair {
            id: format!("check-{id}"),
            classes: vec![check.clone()],
            old: from_base(expand(case.get("old_patch"))),
            new: from_base(expand(case.get("patch"))),
            expect: Some(Expect {
                check,
                change: text_of(case, "change")?,
                class: text_of(case, "expect")?,
                update_refused: case["update_refused"].as_bool().unwrap_or(false),
            }),
            apiserver: None,
        });
    }
    Ok(out)
}

/// What the apiserver answered for a pair.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Answers {
    /// `check --old`: the CRD update.
    pub update: Answer,
    /// Each witness `compat` built, with the four answers that prove its class.
    pub witnesses: Vec<WitnessAnswers>,
}

/// A witness and the apiserver's four answers about it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct WitnessAnswers {
    /// The version it is an object of.
    pub version: String,
    /// The changed field (`compat`'s place).
    pub field: String,
    /// The class `compat` gave the change when it was recorded.
    pub class: String,
    /// The witness.
    pub object: Value,
    /// The update beside the violation.
    pub edited: Value,
    /// OLD's create (accepted, for a witness).
    pub old_create: Answer,
    /// NEW's create.
    pub create: Answer,
    /// NEW's update that changes nothing.
    pub no_op: Answer,
    /// NEW's update to `edited`.
    pub edit: Answer,
}

/// The pair's CRDs, resolved and read.
pub fn crds(pair: &Pair, docs: &mut Documents) -> Result<(Value, Value, Crd, Crd), String> {
    let (old, new) = (pair.old.resolve(docs)?, pair.new.resolve(docs)?);
    let (old_crd, new_crd) = (Crd::parse(&old).0, Crd::parse(&new).0);
    Ok((old, new, old_crd, new_crd))
}

/// Our report on a pair.
pub fn ours(old: &Crd, new: &Crd) -> Report {
    compat(old, new, &Options::default())
}

/// Our CRD update verdict, as the apiserver's answer is written.
pub fn our_update(report: &Report) -> Answer {
    let mut answer = Answer::default();
    for f in &report.update {
        match f.error_type {
            Some(t) if !f.warning => {
                answer.errors.push(Finding { field: f.field.clone(), type_: t.reason().to_owned(), message: f.text() })
            }
            _ => answer.warnings.push(f.text()),
        }
    }
    answer
}

/// The oracle's requests for a pair: the update, then four per witness (ids from `first`).
pub fn requests(first: usize, old: &Value, new: &Value, report: &Report) -> Vec<Value> {
    let mut out = vec![json!({"id": first, "op": "check", "crd": new, "old": old})];
    for change in report.changes.iter().filter(|c| c.served_from.is_none()) {
        let (Ok(w), Some(version)) = (&change.witness, &change.version) else { continue };
        let validate = |crd: &Value, object: &Value, stored: Option<&Value>| {
            let mut r = json!({"op": "validate", "crd": crd, "version": version, "object": object, "prune": true});
            if let Some(stored) = stored {
                r["old"] = stored.clone();
            }
            r
        };
        out.push(validate(old, &w.object, None));
        out.push(validate(new, &w.object, None));
        out.push(validate(new, &w.object, Some(&w.object)));
        out.push(validate(new, &w.edited, Some(&w.object)));
    }
    for (i, r) in out.iter_mut().enumerate() {
        r["id"] = json!(first + i);
    }
    out
}

/// The recorded answers of a pair, from the oracle's answers to [`requests`].
pub fn answers(report: &Report, lines: &[Value]) -> Answers {
    let mut out = Answers { update: answer_of(&lines[0]), witnesses: Vec::new() };
    let mut rest = lines[1..].chunks(4);
    for change in report.changes.iter().filter(|c| c.served_from.is_none()) {
        let (Ok(w), Some(version)) = (&change.witness, &change.version) else { continue };
        let Some([old_create, create, no_op, edit]) = rest.next() else { break };
        out.witnesses.push(WitnessAnswers {
            version: version.clone(),
            field: change.place.field.clone(),
            class: change.class.name().to_owned(),
            object: w.object.clone(),
            edited: w.edited.clone(),
            old_create: answer_of(old_create),
            create: answer_of(create),
            no_op: answer_of(no_op),
            edit: answer_of(edit),
        });
    }
    out
}

/// Whether the apiserver's answers prove the class `compat` gave a witness's change, and if not
/// how they differ.
pub fn proven(class: Class, w: &WitnessAnswers) -> Result<(), String> {
    if !w.old_create.errors.is_empty() {
        return Err(format!("OLD refuses the witness: {:?}", messages(&w.old_create)));
    }
    let (created, no_op, edit) = (!w.create.errors.is_empty(), !w.no_op.errors.is_empty(), !w.edit.errors.is_empty());
    match class {
        Class::Tightens | Class::BlocksUpdates => {
            if !created {
                return Err("NEW accepts the witness on create".into());
            }
            // A refused no-op update blocks updates too: not even an edit of nothing passes
            // (an embedded resource's `apiVersion` and `kind`, which ratcheting does not drop).
            if no_op && class == Class::Tightens {
                return Err(format!("NEW refuses the no-op update: {:?}", messages(&w.no_op)));
            }
            if edit != (class == Class::BlocksUpdates) {
                return Err(format!(
                    "the edit beside it is {}: {:?}",
                    if edit { "refused" } else { "accepted" },
                    messages(&w.edit)
                ));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Whether two answers give the same messages, as the recorded differential compares them
/// (what the apiserver leaves to chance made one text: [`super::normalized`]), and, for the
/// CRD update, the same warnings.
pub fn same(update: bool, apiserver: &Answer, ours: &Answer) -> bool {
    let texts = |a: &Answer| {
        let mut m: Vec<String> = a.errors.iter().map(|f| super::normalized(f).message).collect();
        m.sort();
        m
    };
    let warnings = |a: &Answer| {
        let mut w = a.warnings.clone();
        w.sort();
        w
    };
    texts(apiserver) == texts(ours) && (!update || warnings(apiserver) == warnings(ours))
}

/// An answer's messages, sorted.
pub fn messages(a: &Answer) -> Vec<String> {
    let mut m: Vec<String> = a.errors.iter().map(|e| e.message.clone()).collect();
    m.sort();
    m
}
