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

/// `validate()` on an apply configuration (feature `dynamic`): every check of the full type's
/// schema that a part can be held to, on what is set: bounds, lengths, patterns, enums,
/// formats, list types. Not the required fields nor the CEL rules: they hold for the object
/// the apply is merged into (apply it offline with `kubeskema::apply` and validate that).
#[cfg(feature = "dynamic")]
pub trait ValidateApply: AppliesTo {
    /// The issues of what is set, in the apiserver's words.
    fn validate(&self) -> Vec<crate::issue::Issue>
    where
        Self::Full: crate::StructuralSchema + 'static,
    {
        let schema = partial_schema::<Self::Full>();
        let value = match serde_json::to_value(self) {
            Ok(value) => value,
            Err(e) => {
                let (root, value) = (crate::path::Path::root(), crate::issue::BadValue::Omit);
                return vec![crate::issue::Issue::new(
                    crate::issue::ErrorType::Internal,
                    &root,
                    "",
                    value,
                    e.to_string(),
                )];
            }
        };
        let mut issues = crate::openapi::OpenApiValidator::new(schema).validate(&value);
        issues.extend(crate::listtype::validate(&value, schema));
        issues
    }
}

#[cfg(feature = "dynamic")]
impl<A: AppliesTo> ValidateApply for A {}

/// `T`'s schema without what only a whole object can satisfy (`required`, also inside
/// junctors), read once per type and kept for the process. A `map` list's items keep their
/// key fields required: an item the configuration sends is named by them (the apiserver
/// refuses an item without any).
#[cfg(feature = "dynamic")]
fn partial_schema<T: crate::StructuralSchema + 'static>() -> &'static crate::schema::Schema {
    use std::any::TypeId;
    use std::sync::{Mutex, OnceLock};
    static SCHEMAS: OnceLock<Mutex<HashMap<TypeId, &'static crate::schema::Schema>>> = OnceLock::new();
    let mut schemas = SCHEMAS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    schemas.entry(TypeId::of::<T>()).or_insert_with(|| {
        let (mut schema, _) = crate::schema::Schema::parse(&T::schema(), "");
        fn unrequire(s: &mut crate::schema::Schema) {
            s.required.clear();
            s.properties.values_mut().for_each(unrequire);
            let keys = (s.list_type.as_deref() == Some("map")).then(|| s.list_map_keys.clone());
            if let Some(items) = s.items.as_deref_mut() {
                let required = std::mem::take(&mut items.required);
                unrequire(items);
                // Keys without a default: a default names the item when it is left out.
                let defaulted = |k: &String| items.properties.get(k).is_some_and(|p| p.default.is_some());
                items.required = required
                    .into_iter()
                    .filter(|r| keys.as_ref().is_some_and(|k| k.contains(r)) && !defaulted(r))
                    .collect();
            }
            if let Some(crate::schema::AdditionalProperties::Schema(values)) = s.additional_properties.as_mut() {
                unrequire(values);
            }
            s.all_of.iter_mut().chain(&mut s.any_of).chain(&mut s.one_of).for_each(unrequire);
        }
        unrequire(&mut schema);
        Box::leak(Box::new(schema))
    })
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
    crate::IntOrString,
    crate::EmptyObject,
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

object_meta!(crate::ObjectMeta);

#[cfg(feature = "kube")]
mod kube {
    use k8s_openapi::api::core::v1::ObjectReference;
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, MicroTime, ObjectMeta, Time};

    use super::{ApplyConfiguration, ApplyMeta};

    values!(Condition, ObjectReference, Quantity, Time, MicroTime);

    object_meta!(ObjectMeta);
}
