//! `cargo kubeskema check` over every corpus CRD reports only what the apiserver would: the
//! one non-structural CRD (kopium's test copy of argo's ClusterWorkflowTemplate, with a
//! typeless `inline: {}` and a list of lists without `items`), each message at its line.
//! Two projects shipping different copies of one CRD is not an apiserver error (the second
//! apply replaces the first), so `check` does not report it. Formats the apiserver does not
//! know for their node's type are warnings (`unrecognized format "int-or-string"`), as the
//! apiserver's.
//! `cargo test -p kubeskema-tests --features corpus --test corpus check::`.

use kubeskema_codegen::__internal::pipeline;

#[test]
fn check_reports_only_what_the_apiserver_refuses() {
    let crds = kubeskema_tests::corpus_dir().join("crds");
    let diags = pipeline::check(&[crds], false);
    let (errors, warnings): (Vec<_>, Vec<_>) = diags.iter().partition(|d| d.is_error());
    let unexpected: Vec<_> = warnings.iter().filter(|d| !d.detail.starts_with("unrecognized format \"")).collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    let found: Vec<String> = errors
        .iter()
        .map(|d| {
            let file = d.file.file_name().unwrap_or_default().to_string_lossy();
            let pos = d.pos.map(|p| p.to_string()).unwrap_or_default();
            format!("{file}:{pos}: {} {}", d.field, d.detail)
        })
        .collect();
    let spec = "spec.validation.openAPIV3Schema.properties[spec]";
    assert_eq!(
        found,
        vec![
            format!(
                "argoproj.io_clusterworkflowtemplates.yaml:5075:29: {spec}.properties[templateDefaults].properties[dag].properties[tasks].items.properties[inline].type Required value: must not be empty for specified object fields"
            ),
            format!(
                "argoproj.io_clusterworkflowtemplates.yaml:9347:21: {spec}.properties[templateDefaults].properties[steps].items.items Required value: must be specified"
            ),
            format!(
                "argoproj.io_clusterworkflowtemplates.yaml:13261:31: {spec}.properties[templates].items.properties[dag].properties[tasks].items.properties[inline].type Required value: must not be empty for specified object fields"
            ),
            format!(
                "argoproj.io_clusterworkflowtemplates.yaml:17533:23: {spec}.properties[templates].items.properties[steps].items.items Required value: must be specified"
            ),
        ]
    );
    assert!(errors.iter().all(|d| d.file.to_string_lossy().contains("kube-rs__kopium")));
}

/// Every corpus CRD read with its schemas left in its document's nodes (what `check`,
/// `generate` and `validate` read, `Crd::parse_document`) is the CRD read from its value: the
/// same model, parse errors, whole CRD as read, and findings.
#[test]
fn every_corpus_crd_reads_from_its_document_as_from_its_value() {
    let mut files = Vec::new();
    let mut stack = vec![kubeskema_tests::corpus_dir().join("crds")];
    while let Some(dir) = stack.pop() {
        for p in std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()) {
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut crds, mut failures) = (0, Vec::new());
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let json = file.extension().is_some_and(|e| e == "json");
        let mut documents = Vec::new();
        kubeskema::yaml::read_each(&text, json, &mut |doc| documents.push(doc)).unwrap();
        for document in documents {
            let Some(value) = document.value_at("").filter(kubeskema::crd::is_crd) else { continue };
            crds += 1;
            let (from_value, value_errors) = kubeskema::crd::Crd::parse(&value);
            let (from_document, document_errors) = kubeskema::crd::Crd::parse_document(std::sync::Arc::new(document));
            let findings = |crd: &kubeskema::crd::Crd| -> Vec<String> {
                kubeskema::crd::check::check(crd)
                    .findings
                    .iter()
                    .map(|f| format!("{} {}", f.text(), f.pointer))
                    .collect()
            };
            if from_document != from_value || document_errors != value_errors || *from_document.raw() != value {
                failures.push(format!("{}: the model, its errors or the CRD as read differ", file.display()));
            } else if findings(&from_document) != findings(&from_value) {
                failures.push(format!("{}: the findings differ", file.display()));
            }
        }
    }
    assert!(crds >= 314, "{crds} CRDs");
    assert!(failures.is_empty(), "{failures:#?}");
    eprintln!("{crds} corpus CRDs read from their documents as from their values");
}
