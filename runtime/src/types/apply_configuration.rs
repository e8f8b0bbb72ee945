//! Apply configurations: for each type a resource holds, the type of what a server-side apply
//! sends for it. `#[derive(kubeskema::ApplyConfiguration)]` gives a struct `Widget` the struct
//! `WidgetApply`: every field optional and left out when unset (so an apply owns only what it
//! sets), a nullable field settable to `null`, and for a `resource(...)` root `apiVersion`,
//! `kind` and `metadata.name` always sent. What a field holds maps through this trait: values
//! (strings, numbers, enums, IntOrString, ...) are their own configuration; lists, maps and
//! boxes hold their items' configurations; a derived struct's is its `...Apply` struct.
//!
//! An apply configuration is checked only as far as it goes: required fields and CEL rules
//! need the whole object, which only exists once the apply is merged into the live one
//! (`kubeskema::apply`, feature `dynamic`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Serialize;

/// A type with an apply configuration.
pub trait ApplyConfiguration {
    /// What an apply sends for a value of this type (compared and printed as its JSON).
    type Apply: Serialize;

    /// The configuration that sets everything this value sets (`From<&T>` on a derived
    /// `...Apply` calls it): to apply a whole object built as the full type.
    fn apply_configuration(&self) -> Self::Apply;
}

/// An apply configuration, and the type it configures (written by the derive beside
/// `ApplyConfiguration`).
pub trait AppliesTo: Serialize {
    /// The full type.
    type Full: ApplyConfiguration<Apply = Self>;
}

/// The `metadata` of a root's apply configuration: named, and in a namespace when asked.
pub trait ApplyMeta {
    /// Metadata holding `name` only.
    fn named(name: String) -> Self;
    /// Sets the namespace.
    fn set_namespace(&mut self, namespace: String);
}

/// Values: their own configuration.
macro_rules! values {
    ($($t:ty),* $(,)?) => {$(
        impl ApplyConfiguration for $t {
            type Apply = $t;
            fn apply_configuration(&self) -> $t {
                self.clone()
            }
        }
    )*};
}

values!(
    String,
    bool,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    f32,
    f64,
    std::time::Duration,
    serde_json::Value,
    serde_json::Map<String, serde_json::Value>,
    crate::types::int_or_string::IntOrString,
    crate::types::empty_object::EmptyObject,
);

impl<T: ApplyConfiguration> ApplyConfiguration for Vec<T> {
    type Apply = Vec<T::Apply>;
    fn apply_configuration(&self) -> Self::Apply {
        self.iter().map(T::apply_configuration).collect()
    }
}

impl<T: ApplyConfiguration> ApplyConfiguration for Box<T> {
    type Apply = Box<T::Apply>;
    fn apply_configuration(&self) -> Self::Apply {
        Box::new(T::apply_configuration(self))
    }
}

impl<T: ApplyConfiguration> ApplyConfiguration for Option<T> {
    type Apply = Option<T::Apply>;
    fn apply_configuration(&self) -> Self::Apply {
        self.as_ref().map(T::apply_configuration)
    }
}

impl<K: Ord + Clone + Serialize, V: ApplyConfiguration> ApplyConfiguration for BTreeMap<K, V> {
    type Apply = BTreeMap<K, V::Apply>;
    fn apply_configuration(&self) -> Self::Apply {
        self.iter().map(|(k, v)| (k.clone(), v.apply_configuration())).collect()
    }
}

/// A `HashMap` sends its keys sorted (a `BTreeMap`): the same configuration every time.
impl<K: Ord + Clone + Serialize, V: ApplyConfiguration, S> ApplyConfiguration for HashMap<K, V, S> {
    type Apply = BTreeMap<K, V::Apply>;
    fn apply_configuration(&self) -> Self::Apply {
        self.iter().map(|(k, v)| (k.clone(), v.apply_configuration())).collect()
    }
}

impl<T: ApplyConfiguration> ApplyConfiguration for BTreeSet<T>
where
    T::Apply: Ord,
{
    type Apply = BTreeSet<T::Apply>;
    fn apply_configuration(&self) -> Self::Apply {
        self.iter().map(T::apply_configuration).collect()
    }
}

/// A `HashSet` sends its items sorted (a `BTreeSet`).
impl<T: ApplyConfiguration, S> ApplyConfiguration for HashSet<T, S>
where
    T::Apply: Ord,
{
    type Apply = BTreeSet<T::Apply>;
    fn apply_configuration(&self) -> Self::Apply {
        self.iter().map(T::apply_configuration).collect()
    }
}

/// ObjectMeta as an apply sends it, and as a root's configuration starts it: what the
/// apiserver writes (uid, resourceVersion, managedFields, timestamps, generation) is left out,
/// or the apply would be refused or would claim it. The same for kubeskema's and k8s-openapi's.
macro_rules! object_meta {
    ($meta:ty) => {
        impl ApplyConfiguration for $meta {
            type Apply = $meta;
            fn apply_configuration(&self) -> Self::Apply {
                Self {
                    annotations: self.annotations.clone(),
                    finalizers: self.finalizers.clone(),
                    generate_name: self.generate_name.clone(),
                    labels: self.labels.clone(),
                    name: self.name.clone(),
                    namespace: self.namespace.clone(),
                    owner_references: self.owner_references.clone(),
                    ..Self::default()
                }
            }
        }

        impl ApplyMeta for $meta {
            fn named(name: String) -> Self {
                Self { name: Some(name), ..Self::default() }
            }
            fn set_namespace(&mut self, namespace: String) {
                self.namespace = Some(namespace);
            }
        }
    };
}

object_meta!(crate::types::meta::ObjectMeta);

#[cfg(feature = "kube")]
mod kube {
    use k8s_openapi::api::core::v1::ObjectReference;
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, MicroTime, ObjectMeta, Time};

    use super::{ApplyConfiguration, ApplyMeta};

    values!(Condition, ObjectReference, Quantity, Time, MicroTime);

    object_meta!(ObjectMeta);
}
