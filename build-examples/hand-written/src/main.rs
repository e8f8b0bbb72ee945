//! Hand-written types for a resource of your own, with the constraints you would put in its
//! CRD written as attributes: `#[derive(kubeskema::Schema)]` (`Serialize`, `Deserialize` and
//! `Validate` in one) checks them with the apiserver's messages, CEL rules (`x-kubernetes-validations`) included, and
//! `validate_update` runs transition rules (`oldSelf`) and ratchets unchanged places.

use kubeskema::resource::CustomResource;
use kubeskema::{ObjectMeta, Validate};

/// A backup schedule, as `backups.example.com/v1` `BackupPolicy`.
#[derive(Clone, Debug, PartialEq, kubeskema::Schema)]
#[kubeskema(resource(
    group = "example.com",
    version = "v1",
    kind = "BackupPolicy",
    plural = "backuppolicies",
    scope = "Namespaced"
))]
pub struct BackupPolicy {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    pub spec: BackupPolicySpec,
}

/// `constructors`: `BackupPolicySpec::new(bucket, schedule)` (the fields it requires), and
/// `with_...` setters for the others; those left out as the apiserver's read leaves them.
#[derive(Clone, Debug, PartialEq, kubeskema::Schema)]
#[kubeskema(
    constructors,
    rule(rule = "self.minKeep <= self.maxKeep", message = "minKeep must not exceed maxKeep", field_path = ".minKeep"),
    rule(rule = "self.bucket == oldSelf.bucket", message = "bucket is immutable")
)]
pub struct BackupPolicySpec {
    /// Where backups go: an S3 bucket name.
    #[kubeskema(min_length = 3, max_length = 63, pattern = "^[a-z0-9][a-z0-9.-]*[a-z0-9]$")]
    pub bucket: String,
    /// A cron schedule, checked by a rule with the Kubernetes CEL libraries.
    #[kubeskema(
        max_length = 100,
        rule(rule = "self.split(' ').size() == 5", message_expression = "'schedule must have 5 fields: ' + self")
    )]
    pub schedule: String,
    #[kubeskema(rename = "minKeep", default = 1, minimum = 1)]
    pub min_keep: i64,
    #[kubeskema(rename = "maxKeep", default = 7, maximum = 365)]
    pub max_keep: i64,
    /// Namespaces to back up; each once.
    #[kubeskema(list_type = "set", max_items = 10)]
    pub namespaces: Option<Vec<String>>,
}

fn main() {
    // `cargo run -- crd`: the CRD these types give, for `kubectl apply -f -`.
    if std::env::args().nth(1).as_deref() == Some("crd") {
        print!("{}", BackupPolicy::definition().to_yaml());
        return;
    }
    let stored = BackupPolicy::new("nightly", BackupPolicySpec::new("backups", "0 2 * * *"));
    println!("stored: {:?}", stored.validate());
    let update = BackupPolicy::new(
        "nightly",
        BackupPolicySpec::new("other", "@daily").with_min_keep(9).with_namespaces(["a".to_owned(), "a".to_owned()]),
    );
    for issue in update.validate_update(&stored) {
        println!("{issue}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CRD these types give is one the apiserver takes (its structural rules, defaults
    /// and CEL rules checked as it checks them).
    #[test]
    fn the_crd_is_accepted() {
        kubeskema::assert_crd_accepted::<BackupPolicy>();
    }

    /// The types still take every object stored under the CRD last released
    /// (`crds/released.yaml`, written by `cargo run -- crd`): a change that would refuse,
    /// block or drop what clusters hold fails here, with an object that shows it.
    #[test]
    fn the_crd_keeps_what_the_released_one_stored() {
        kubeskema::assert_crd_compatible(include_str!("../crds/released.yaml"), BackupPolicy::definition());
    }

    /// A bound tightened in a later release: stored objects with a longer bucket name would be
    /// refused, and the assertion says so.
    #[test]
    fn a_tightened_bound_breaks_the_released_crd() {
        #[derive(Clone, Debug, PartialEq, kubeskema::Schema)]
        #[kubeskema(resource(
            group = "example.com",
            version = "v1",
            kind = "BackupPolicy",
            plural = "backuppolicies",
            scope = "Namespaced"
        ))]
        pub struct Tighter {
            pub api_version: String,
            pub kind: String,
            pub metadata: ObjectMeta,
            pub spec: TighterSpec,
        }
        #[derive(Clone, Debug, PartialEq, kubeskema::Schema)]
        pub struct TighterSpec {
            #[kubeskema(min_length = 3, max_length = 20)]
            pub bucket: String,
            pub schedule: String,
        }
        let broken = std::panic::catch_unwind(|| {
            kubeskema::assert_crd_compatible(include_str!("../crds/released.yaml"), Tighter::definition())
        });
        let message = *broken.expect_err("a tightened bound breaks stored objects").downcast::<String>().unwrap();
        assert!(message.contains("tightens v1 .spec.bucket: ") && message.contains("maxLength 63 → 20"), "{message}");
    }

    /// Every rule runs as Rust, compiled by the derive (none is interpreted).
    #[test]
    fn every_rule_is_native() {
        assert_eq!(kubeskema::cel::summary::<BackupPolicy>().summary(), "CEL rules: 3 native, 0 interpreted");
    }

    #[test]
    fn defaults_apply_and_a_good_policy_is_valid() {
        let p = BackupPolicy::new("p", BackupPolicySpec::new("backups", "0 2 * * *"));
        assert_eq!((p.spec.min_keep, p.spec.max_keep), (1, 7));
        assert!(p.validate().is_empty());
        let read: BackupPolicy = serde_json::from_value(serde_json::json!({"apiVersion": "example.com/v1",
            "kind": "BackupPolicy", "metadata": {"name": "p"}, "spec": {"bucket": "backups", "schedule": "0 2 * * *"}}))
        .unwrap();
        assert_eq!(p, read, "what `new` makes is what the read makes");
    }

    #[test]
    fn an_update_gets_every_message_the_apiserver_would_give() {
        let old = BackupPolicy::new("p", BackupPolicySpec::new("backups", "0 2 * * *"));
        let new = BackupPolicy::new(
            "p",
            BackupPolicySpec::new("other", "@daily").with_min_keep(9).with_namespaces(["a".to_owned(), "a".to_owned()]),
        );
        let issues: Vec<String> = new.validate_update(&old).iter().map(ToString::to_string).collect();
        assert_eq!(
            issues,
            [
                "spec.namespaces[1]: Duplicate value: \"a\"",
                "spec.minKeep: Invalid value: minKeep must not exceed maxKeep",
                "spec: Invalid value: bucket is immutable",
                "spec.schedule: Invalid value: \"@daily\": schedule must have 5 fields: @daily",
            ]
        );
        assert!(
            new.validate().iter().all(|i| !i.to_string().contains("immutable")),
            "transition rules need an old object"
        );
    }
}
