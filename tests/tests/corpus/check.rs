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
