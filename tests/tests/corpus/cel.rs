//! CEL over the corpus: every rule of every corpus CRD compiles, and the upstream fixtures
//! that record the error the apiserver gives (external-snapshotter's `.err` and `.tx_err`
//! files, Istio's `_err` field, crossplane's immutability updates) get that error, through
//! the dynamic validator (interpreted) and through the generated types (CEL compiled to Rust,
//! also compared with the interpreter on the same value).
//! `cargo test -p kubeskema-tests --features corpus --test corpus cel:: -- --nocapture`.

use kubeskema::cel::{Scope, types};
use kubeskema::schema::Schema;
use kubeskema::validate::ResourceValidator;
use kubeskema_tests::generated::typed;
use kubeskema_tests::{CorpusCrds, CorpusDocuments, Instance, corpus_dir, instances};

/// Each rule under `s` with the scope the apiserver checks it in.
fn rules_of(s: &Schema, resource_root: bool, out: &mut Vec<(String, Option<String>, Scope)>) {
    for r in &s.validations {
        let scope = Scope::declared(
            std::sync::Arc::new(types::declare_rule_scope(s, resource_root).expect("a node with rules is declarable")),
            r.optional_old_self == Some(true),
        );
        out.push((r.rule.clone(), r.message_expression.clone(), scope));
    }
    for c in s.children() {
        rules_of(c, c.embedded_resource, out);
    }
}

#[test]
fn every_corpus_rule_compiles() {
    let mut files = Vec::new();
    let mut stack = vec![corpus_dir().join("crds")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).expect("corpus folder").flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    let (mut total, mut failed) = (0, Vec::new());
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable");
        let Ok(docs) = kubeskema::yaml::parse_documents(&text) else { continue };
        for d in docs.iter().filter(|d| kubeskema::crd::is_crd(&d.value)) {
            let crd = kubeskema::crd::Crd::parse(&d.value).0;
            for v in &crd.versions {
                let mut rules = Vec::new();
                if let Some(s) = &v.schema {
                    rules_of(s, true, &mut rules);
                }
                for (rule, message_expression, scope) in rules {
                    total += 1;
                    if let Err(e) = kubeskema::cel::check_rule(&rule, message_expression.as_deref(), &scope) {
                        failed.push(format!("{}: {}/{}: {rule}: {e:?}", file.display(), crd.name, v.name));
                    }
                }
            }
        }
    }
    println!("{total} rules (every version of every CRD), {} do not compile", failed.len());
    assert!(failed.is_empty(), "{failed:#?}");
    assert!(total >= 2261, "only {total} rules found");
}

/// The issues of `object` (create) or of `object` over `old` (update), as text.
fn issues(
    crds: &mut CorpusCrds,
    inst: &Instance,
    object: &serde_json::Value,
    old: Option<&serde_json::Value>,
) -> Vec<String> {
    let (crd, v) = crds.version_of(inst).expect("the instance's CRD version is in the corpus");
    let validator = ResourceValidator::new(crd, v);
    let out = match old {
        Some(old) => validator.validate_update(object, old),
        None => validator.validate_create(object),
    };
    out.issues.iter().map(ToString::to_string).collect()
}

/// Istio's expectations that come from its own test harness, which runs the schema validator
/// without the apiserver's decoding steps: a `null` for a non-nullable field is pruned by the
/// apiserver before validation (semantics §5.1), so it reports the field missing instead.
const HARNESS_ONLY: &[(&str, &str)] = &[
    (
        "istio__istio/pkg/config/validation/testdata/crds/wasm-invalid.yaml#11",
        "spec: null is pruned: spec: Required value",
    ),
    (
        "istio__istio/pkg/config/validation/testdata/crds/wasm-invalid.yaml#12",
        "url: null is pruned: spec.url: Required value",
    ),
];

fn read(path: &str) -> String {
    std::fs::read_to_string(corpus_dir().join(path)).unwrap_or_default().trim().to_owned()
}

/// Whether `found` is the upstream expectation `text`. Upstream recorded its expectations with
/// apiservers before 1.36, which printed the schema type as a failing rule's value
/// (`Invalid value: "object": ...`); 1.36 prints a scalar's value and nothing for an object or
/// a list (docs/apiserver-1.36-messages.md), so what stands around the old value is compared.
fn matches_upstream(found: &str, text: &str) -> bool {
    for schema_type in ["object", "array", "string", "integer", "number", "boolean"] {
        if let Some((before, after)) = text.split_once(&format!("Invalid value: \"{schema_type}\": ")) {
            return found.contains(before) && found.contains(after);
        }
    }
    found.contains(text)
}

#[test]
fn upstream_fixtures_get_the_error_they_expect() {
    let (mut crds, mut docs) = (CorpusCrds::default(), CorpusDocuments::default());
    let (mut checked, mut natively, mut wrong) = (0, 0, Vec::new());
    for inst in instances() {
        let file = inst.file.as_str();
        let mut object = docs.value_of(&inst);
        // external-snapshotter: `X.yaml.err` for a create, `X.post.yaml.tx_err` for `X.post.yaml`
        // over `X.pre.yaml`; a post without one is a valid update.
        let (expected, old) = if file.contains("/cel-tests/") {
            match inst.expect.as_str() {
                "invalid" => (Some(read(&format!("{file}.err"))), None),
                "invalid-update" | "valid-update" => {
                    let pre = Instance { file: file.replace(".post.yaml", ".pre.yaml"), ..inst.clone() };
                    let expected = (inst.expect == "invalid-update").then(|| read(&format!("{file}.tx_err")));
                    (expected, Some(docs.value_of(&pre)))
                }
                "valid" => (None, None),
                _ => continue,
            }
        } else if let Some(err) = object.as_object_mut().and_then(|m| m.remove("_err")) {
            // Istio: the expected error in `_err`.
            (err.as_str().map(str::to_owned), None)
        } else if file.ends_with("-immutable-updated.yaml") {
            // crossplane: an update of the `-valid.yaml` object that changes an immutable field.
            let pre = Instance { file: file.replace("-immutable-updated.yaml", "-valid.yaml"), ..inst.clone() };
            (Some(String::new()), Some(docs.value_of(&pre)))
        } else {
            continue;
        };
        let found = issues(&mut crds, &inst, &object, old.as_ref());
        checked += 1;
        let meets = |found: &[String]| match &expected {
            None => found.is_empty(),
            Some(text) if text.is_empty() => !found.is_empty(),
            Some(text) => found.iter().any(|f| matches_upstream(f, text)),
        };
        let id = format!("{}#{}", file.trim_start_matches("instances/"), inst.doc_index);
        // The generated type's rules, compiled to Rust: the same expectation, and the same
        // issues as the interpreter's on the same typed value.
        let api_version = object.get("apiVersion").and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        let kind = object.get("kind").and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        let derived = match typed(inst.repo(), &api_version, &kind, object.clone(), old.clone()) {
            Some(Ok(t)) => {
                natively += 1;
                if let Some(d) = t.cel_differences.first() {
                    wrong.push(format!("{id}: native and interpreted CEL differ:\n{d}"));
                }
                Some(match old {
                    Some(_) => t.update_issues.and_then(Result::ok).unwrap_or_default(),
                    None => t.issues,
                })
            }
            _ => None,
        };
        if HARNESS_ONLY.iter().any(|(h, _)| *h == id) {
            assert!(!found.is_empty(), "{id}: refused, with another message");
            continue;
        }
        if !meets(&found) {
            wrong.push(format!("{file}#{}: expected {expected:?}, got {found:?}", inst.doc_index));
        }
        if let Some(derived) = derived
            && !meets(&derived)
        {
            wrong
                .push(format!("{file}#{}: the generated type: expected {expected:?}, got {derived:?}", inst.doc_index));
        }
    }
    println!(
        "{checked} fixtures with an expected outcome ({natively} through the generated types, CEL native), {} differ",
        wrong.len()
    );
    for w in &wrong {
        println!("  {w}");
    }
    assert!(checked >= 60, "only {checked} fixtures found");
    assert!(wrong.is_empty(), "{wrong:#?}");
}
