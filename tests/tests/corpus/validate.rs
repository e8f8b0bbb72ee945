//! The create pipeline (`ResourceValidator`) over the corpus: `valid` instances pass, except
//! those listed below, each an upstream example the apiserver refuses as well; every `invalid`
//! instance is caught (by the schema or its CEL rules), but the updates listed below; every
//! `invalid-update` instance is refused by `cargo kubeskema validate --old` given its old object.
//! `cargo test -p kubeskema-tests --features corpus --test corpus validate:: -- --nocapture`.

use kubeskema::validate::ResourceValidator;

/// Upstream examples labelled `valid` that the apiserver refuses: placeholders left in docs
/// snippets, partial snippets without required fields, names that break the schema's own
/// patterns. `(file#document, why)`.
const UPSTREAM_MISTAKES: &[(&str, &str)] = &[
    (
        "prometheus-operator__prometheus-operator/example/user-guides/scrapeclass/scrapeclass-example-definition.yaml#0",
        "no metadata.name",
    ),
    (
        "prometheus-operator__prometheus-operator/example/user-guides/scrapeclass/scrapeclass-example-podmonitor.yaml#0",
        "no metadata.name",
    ),
    (
        "prometheus-operator__prometheus-operator/example/user-guides/scrapeclass/scrapeclass-example-servicemonitor.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "argoproj__argo-cd/applicationset/examples/design-doc/applicationset-fasttemplate.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "argoproj__argo-cd/applicationset/examples/design-doc/applicationset.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "crossplane__crossplane/test/e2e/manifests/pkg/dependency-upgrade/no-valid/configuration-nop-revision.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "crossplane__crossplane/test/e2e/manifests/pkg/dependency-upgrade/no-valid/provider-revision.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "crossplane__crossplane/test/e2e/manifests/pkg/dependency-upgrade/no-valid/provider-revision.yaml#1",
        "a partial snippet: required fields left out",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/full-cluster-secret-store.yaml#0",
        "every provider at once, against maxProperties: 1",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/gcpsm-sa-secret-store.yaml#0",
        "a placeholder written as a YAML list ([PROJECT_ID])",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/gcpsm-wif-core-controller-secret-store.yaml#0",
        "a placeholder written as a YAML list ([PROJECT_ID])",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/gcpsm-wif-iam-secret-store.yaml#0",
        "a placeholder written as a YAML list ([PROJECT_ID])",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/gcpsm-wif-non-native-iam-secret-store.yaml#0",
        "a placeholder written as a YAML list ([PROJECT_ID])",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/gcpsm-wif-sa-secret-store-with-explicit-name-and-location.yaml#0",
        "a placeholder written as a YAML list ([PROJECT_ID])",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/generator-gcr.yaml#0",
        "empty key and name, against minLength: 1",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/github-push-secret.yaml#0",
        "an upper-case Secret name, against the schema pattern",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/ngrok-push-secret-with-metadata.yaml#0",
        "an upper-case Secret name, against the schema pattern",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/ngrok-push-secret.yaml#0",
        "an upper-case Secret name, against the schema pattern",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/onboardbase-generic-secret-store.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/oracle-instance-principal.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/oracle-principal-type.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/oracle-secret-store-pushsecret.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "external-secrets__external-secrets/docs/snippets/oracle-secret-store.yaml#0",
        "a partial snippet: required fields left out",
    ),
    ("kedacore__keda/config/samples/keda_v1alpha1_scaledjob.yaml#0", "a partial snippet: required fields left out"),
    (
        "tektoncd__pipeline/examples/v1/pipelineruns/optional-workspaces.yaml#1",
        "a partial snippet: required fields left out",
    ),
    (
        "tektoncd__pipeline/examples/v1/pipelineruns/optional-workspaces.yaml#2",
        "a partial snippet: required fields left out",
    ),
    (
        "strimzi__strimzi-kafka-operator/packaging/examples/metrics/kafka-connect-metrics.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "strimzi__strimzi-kafka-operator/packaging/examples/metrics/strimzi-metrics-reporter/kafka-connect-metrics.yaml#0",
        "a partial snippet: required fields left out",
    ),
    ("rook__rook/deploy/examples/object-multisite-pull-realm-test.yaml#1", "a <placeholder> left in"),
    ("rook__rook/deploy/examples/object-multisite-pull-realm.yaml#1", "a <placeholder> left in"),
    (
        "aws__karpenter-provider-aws/examples/v1/windows-custom-userdata.yaml#0",
        "group given as group/version, against the pattern ^[^/]*$",
    ),
    (
        "kubernetes-sigs__jobset/site/static/examples/failure-policy/failjobset-action.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "kubernetes-sigs__jobset/site/static/examples/failure-policy/host-maintenance-event-model.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "kubernetes-sigs__jobset/site/static/examples/failure-policy/onjobfailurereasons-present-podfailurepolicy.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "kubernetes-sigs__jobset/site/static/examples/failure-policy/onjobfailurereasons-present.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "kubernetes-sigs__jobset/site/static/examples/failure-policy/restartjobset-action.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "kubernetes-sigs__jobset/site/static/examples/failure-policy/restartjobsetandignoremaxrestarts-action.yaml#0",
        "a partial snippet: required fields left out",
    ),
    (
        "grafana__grafana-operator/examples/dashboard/public-url/resources.yaml#0",
        "an empty accessToken, against minLength: 36",
    ),
    (
        "grafana__grafana-operator/tests/e2e/examples/crossnamespace/resources.yaml#2",
        "a chainsaw template expression as namespace",
    ),
    (
        "grafana__grafana-operator/tests/e2e/examples/crossnamespace/resources.yaml#3",
        "a chainsaw template expression as namespace",
    ),
    (
        "kubernetes-csi__external-snapshotter/examples/kubernetes/invalid-snapshot-v1.yaml#0",
        "upstream's example of what its CEL rule refuses (the file is named invalid-snapshot)",
    ),
];

/// `invalid` instances that a create cannot refuse: updates, refused by a transition rule
/// against the stored object (`cel.rs` runs them as updates).
const UPDATES: &[&str] = &[
    "crossplane__crossplane/test/e2e/manifests/apiextensions/mrd/validation/mrd-immutable-updated.yaml#0",
    "crossplane__crossplane/test/e2e/manifests/apiextensions/xrd/validation/xrd-immutable-updated.yaml#0",
];

#[test]
fn the_pipeline_over_the_corpus() {
    let (mut crds, mut docs) = (kubeskema_tests::CorpusCrds::default(), kubeskema_tests::CorpusDocuments::default());
    let (mut clean, mut refused, mut caught, mut missed) = (0, Vec::new(), 0, Vec::new());
    for inst in kubeskema_tests::instances() {
        if inst.expect != "valid" && inst.expect != "invalid" {
            continue;
        }
        let Some((crd, v)) = crds.version_of(&inst) else { continue };
        let mut object = docs.value_of(&inst);
        // Istio's negative fixtures carry the expected error in `_err`.
        if let Some(m) = object.as_object_mut() {
            m.remove("_err");
        }
        let outcome = ResourceValidator::new(crd, v).validate_create(&object);
        let id = format!("{}#{}", inst.file.trim_start_matches("instances/"), inst.doc_index);
        match (inst.expect.as_str(), outcome.issues.is_empty()) {
            ("valid", true) => clean += 1,
            ("valid", false) => {
                refused.push((id, outcome.issues.iter().map(ToString::to_string).collect::<Vec<_>>().join(" | ")))
            }
            (_, false) => caught += 1,
            (_, true) => missed.push((id, v.schema.as_ref().is_some_and(kubeskema::schema::Schema::has_rules))),
        }
    }
    println!(
        "valid: {clean} pass, {} refused; invalid: {caught} caught, {} not (CEL, webhooks, ...)",
        refused.len(),
        missed.len()
    );
    for (id, why) in &refused {
        println!("  refused: {id}: {why}");
    }
    for (id, rules) in &missed {
        println!("  missed: {id} {}", if *rules { "(its schema has CEL rules)" } else { "(no CEL rules)" });
    }
    let unexplained: Vec<_> =
        refused.iter().filter(|(id, _)| !UPSTREAM_MISTAKES.iter().any(|(m, _)| m == id)).collect();
    assert!(unexplained.is_empty(), "valid instances refused without an explanation: {unexplained:#?}");
    let stale: Vec<_> = UPSTREAM_MISTAKES.iter().filter(|(m, _)| !refused.iter().any(|(id, _)| id == m)).collect();
    assert!(stale.is_empty(), "listed as refused but now accepted: {stale:#?}");
    assert!(clean >= 1300, "only {clean} valid instances pass");
    // Every invalid instance is caught, by the schema or by its CEL rules, but the updates.
    let uncaught: Vec<_> = missed.iter().filter(|(id, _)| !UPDATES.contains(&id.as_str())).collect();
    assert!(uncaught.is_empty(), "invalid instances not caught: {uncaught:#?}");
    assert!(caught >= 168, "only {caught} invalid instances caught");
}

/// Upstream's `invalid-update` instances (`x.post.yaml`, refused as an update of `x.pre.yaml`
/// by a transition rule) through `cargo kubeskema validate --old`: each is refused with the
/// `.pre` file as the old object, and each passes as a create, which no transition rule stops.
#[test]
fn invalid_updates_are_refused_given_their_old_objects() {
    use kubeskema_codegen::__internal::manifests::{OldObjects, Request, validate_request};
    let corpus = kubeskema_tests::corpus_dir();
    let mut posts: Vec<kubeskema_tests::Instance> =
        kubeskema_tests::instances().into_iter().filter(|i| i.expect == "invalid-update").collect();
    posts.dedup_by(|a, b| a.file == b.file);
    assert!(posts.len() >= 20, "only {} invalid-update instances", posts.len());
    let errors = |old: OldObjects, post: &kubeskema_tests::Instance| {
        let request = Request {
            crds: vec![corpus.join(&post.crd_file)],
            manifests: vec![corpus.join(&post.file)],
            old,
            jobs: 1,
            ..Request::default()
        };
        let report = validate_request(&request).unwrap_or_else(|e| panic!("{}: {e}", post.file));
        report.findings.iter().filter(|f| f.severity == kubeskema_codegen::Severity::Error).count()
    };
    for post in &posts {
        let pre = post.file.replace(".post.", ".pre.");
        assert_ne!(pre, post.file, "{} is not a .post file", post.file);
        assert!(errors(OldObjects::Files(vec![corpus.join(&pre)]), post) > 0, "{} passed as an update", post.file);
        assert_eq!(errors(OldObjects::None, post), 0, "{} is refused as a create", post.file);
    }
    println!("invalid updates: {} refused given their old objects, none as creates", posts.len());
}
