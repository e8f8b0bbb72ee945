//! Checking an apply configuration on its own, before it is merged: the full type's schema
//! without what only a whole object can satisfy.

use std::collections::HashMap;

use crate::types::apply_configuration::AppliesTo;

/// `validate()` on an apply configuration (feature `dynamic`): every check of the full type's
/// schema that a part can be held to, on what is set: bounds, lengths, patterns, enums,
/// formats, list types. Not the required fields nor the CEL rules: they hold for the object
/// the apply is merged into (apply it offline with `kubeskema::apply` and validate that).
pub trait ValidateApply: AppliesTo {
    /// The issues of what is set, in the apiserver's words.
    fn validate(&self) -> Vec<crate::report::issue::Issue>
    where
        Self::Full: crate::schema::of_types::StructuralSchema + 'static,
    {
        let schema = partial_schema::<Self::Full>();
        let value = match serde_json::to_value(self) {
            Ok(value) => value,
            Err(e) => {
                let (root, value) = (crate::report::path::Path::root(), crate::report::issue::BadValue::Omit);
                return vec![crate::report::issue::Issue::new(
                    crate::report::issue::ErrorType::Internal,
                    &root,
                    "",
                    value,
                    e.to_string(),
                )];
            }
        };
        let root = crate::report::path::Path::root();
        let (mut issues, list_types) =
            crate::check::openapi::OpenApiValidator::new(schema).validate_with_list_types(&value, &root);
        issues.extend(list_types);
        issues
    }
}

impl<A: AppliesTo> ValidateApply for A {}

/// `T`'s schema without what only a whole object can satisfy (`required`, also inside
/// junctors), read once per type and kept for the process. A `map` list's items keep their
/// key fields required: an item the configuration sends is named by them (the apiserver
/// refuses an item without any).
fn partial_schema<T: crate::schema::of_types::StructuralSchema + 'static>() -> &'static crate::schema::Schema {
    use std::any::TypeId;
    use std::sync::{Mutex, OnceLock};
    static SCHEMAS: OnceLock<Mutex<HashMap<TypeId, &'static crate::schema::Schema>>> = OnceLock::new();
    let mut schemas = SCHEMAS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    schemas.entry(TypeId::of::<T>()).or_insert_with(|| {
        let (mut schema, _) = crate::schema::Schema::parse(&T::schema(), "");
        fn unrequire(s: &mut crate::schema::Schema) {
            s.required = Box::default();
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
            if let Some(junctors) = s.seldom.written_mut() {
                junctors.all_of.iter_mut().chain(&mut junctors.any_of).chain(&mut junctors.one_of).for_each(unrequire);
            }
        }
        unrequire(&mut schema);
        Box::leak(Box::new(schema))
    })
}
