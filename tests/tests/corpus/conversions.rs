//! Every multi-version corpus CRD's generated conversions, held to cluster-api's round-trip
//! test (`kubeskema::testing::round_trip`) on objects generated from the versions' schemas:
//! each spoke whose conversion needs no method (with `()`), and the spokes whose methods
//! `kubeskema_tests::corpus_conversions` writes (cluster-api, kueue) with 1,000 objects each
//! way. `KUBESKEMA_ROUND_TRIPS=N` sets the others' count (default 100; cluster-api's own test
//! takes 10,000).

use kubeskema_tests::generated::round_trips;

#[test]
fn conversions_round_trip() {
    let others: usize = std::env::var("KUBESKEMA_ROUND_TRIPS").ok().and_then(|n| n.parse().ok()).unwrap_or(100);
    let (mut ran, mut without_fixture, mut methods_owed) = (0, Vec::new(), 0);
    let mut failures = Vec::new();
    let started = std::time::Instant::now();
    for (repo, crd, version, methods, trips) in round_trips() {
        let Some(trips) = trips else {
            without_fixture.push(format!("{repo}/{crd} {version} ({methods} methods)"));
            methods_owed += methods;
            continue;
        };
        let cases = if methods > 0 { 1000 } else { others };
        match trips(cases) {
            Ok(t) => {
                ran += 1;
                println!(
                    "{repo}/{crd} {version}: {} + {} objects; hub {}; spoke {}",
                    t.hubs, t.spokes, t.hub_stats, t.spoke_stats
                );
            }
            Err(e) => failures.push(format!("{repo}/{crd} {version}: {e}")),
        }
    }
    println!(
        "round trips: {ran} spokes passed in {:.1?}; {} spokes need methods no fixture writes ({methods_owed} methods)",
        started.elapsed(),
        without_fixture.len()
    );
    assert!(failures.is_empty(), "{} round trips failed:\n{}", failures.len(), failures.join("\n\n"));
    // The fixtures' spokes (cluster-api twice, kueue twice) and at least the istio CRDs.
    assert!(ran >= 60, "only {ran} round trips ran");
}
