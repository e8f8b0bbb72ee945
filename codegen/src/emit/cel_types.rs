//! Phase 4, emit (CEL): the CEL type of a node as the model's Rust types read it. A rule is
//! compiled to Rust only where this type reads the value as the rule does (a k8s-openapi type
//! has none); the rule itself was typed against the CRD's schema by the CRD checks, as the
//! derive types rules at run time (`kubeskema::cel::types::derived_declaration`).

use std::collections::BTreeMap;
use std::sync::Arc;

use kubeskema::cel::escape;
use kubeskema::cel::types::{ListKind, Object, Type, object_meta};
use kubeskema_attributes::{has, str_of};

use crate::model::{Attr, Keyword, Module, Shape, Ty, TypeDef};

/// The type of a node of Rust type `ty` with `attrs`: the Rust type's, with the node's
/// `format` (strings become timestamps, durations or bytes), its items' or values' format, its
/// `x-kubernetes-list-type` and map keys; an int-or-string is `dyn`.
pub fn node_cel_type(m: &Module, ty: &Ty, attrs: &[Attr]) -> Result<Type, String> {
    if has(attrs, Keyword::IntOrString) {
        return Ok(Type::Dyn);
    }
    let element_format = attrs.iter().find_map(|a| match a {
        Attr::Nested(Keyword::Items | Keyword::Values, inner) => str_of(inner, Keyword::Format),
        _ => None,
    });
    let formatted = |t: Type, format: Option<&str>| match (t, format) {
        (Type::String, Some("byte")) => Type::Bytes,
        (Type::String, Some("duration")) => Type::Duration,
        (Type::String, Some("date" | "date-time")) => Type::Timestamp,
        (t, _) => t,
    };
    Ok(match formatted(rust_cel_type(m, ty)?, str_of(attrs, Keyword::Format)) {
        Type::List(elem, kind) => {
            let keys = attrs.iter().find_map(|a| match a {
                Attr::Strs(Keyword::ListMapKeys, keys) => Some(keys.as_slice()),
                _ => None,
            });
            let kind = match str_of(attrs, Keyword::ListType) {
                Some(list_type) => ListKind::of(list_type, keys.unwrap_or_default()),
                None => kind,
            };
            Type::List(Arc::new(formatted(Type::clone(&elem), element_format)), kind)
        }
        Type::Map(k, v) => Type::Map(k, Arc::new(formatted(Type::clone(&v), element_format))),
        t => t,
    })
}

fn rust_cel_type(m: &Module, ty: &Ty) -> Result<Type, String> {
    Ok(match ty {
        Ty::String => Type::String,
        Ty::Bool => Type::Bool,
        Ty::I32 | Ty::I64 => Type::Int,
        Ty::F64 => Type::Double,
        Ty::IntOrString | Ty::Value | Ty::JsonMap => Type::Dyn,
        Ty::EmptyObject => object("object", false, Vec::new),
        Ty::ObjectMeta => object_meta("metadata".to_owned()),
        Ty::Condition | Ty::ObjectReference => return Err("a k8s-openapi type".into()),
        Ty::Vec(t) => Type::list(rust_cel_type(m, t)?),
        Ty::Map(t) => Type::map(Type::String, rust_cel_type(m, t)?),
        Ty::Option(t) => rust_cel_type(m, t)?,
        Ty::Named(id) => match &m.types[*id] {
            TypeDef::Enum(e) => match e.variants.first().map(|(_, v)| v) {
                Some(serde_json::Value::Number(_)) => Type::Int,
                Some(serde_json::Value::Bool(_)) => Type::Bool,
                _ => Type::String,
            },
            TypeDef::Struct(s) => {
                let resource =
                    s.attrs.iter().any(|a| matches!(a, Attr::Flag(Keyword::EmbeddedResource) | Attr::Resource(_)));
                let mut failed = None;
                let t = object(&s.name, resource, || {
                    s.fields
                        .iter()
                        .filter(|f| f.shape != Shape::UnknownFields)
                        .filter_map(|f| match node_cel_type(m, &f.ty, &f.attrs) {
                            Ok(t) => Some((f.json_name.clone(), t)),
                            Err(e) => {
                                failed = Some(e);
                                None
                            }
                        })
                        .collect()
                });
                if let Some(e) = failed {
                    return Err(e);
                }
                t
            }
        },
    })
}

/// The object type of a struct named `name`, its fields by JSON name (escaped here; names
/// that cannot be escaped are left out, as for values). At a resource's root (`resource`: a
/// resource or an embedded one) `kind`, `apiVersion` and `metadata`'s name and generateName
/// are always there, as the apiserver's declaration has them. A type that contains itself is
/// `dyn` below its first level.
fn object(name: &str, resource: bool, fields: impl FnOnce() -> Vec<(String, Type)>) -> Type {
    thread_local! {
        static OPEN: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    if OPEN.with(|open| open.borrow().iter().any(|n| n == name)) {
        return Type::Dyn;
    }
    OPEN.with(|open| open.borrow_mut().push(name.to_owned()));
    let fields = fields();
    OPEN.with(|open| open.borrow_mut().pop());
    let mut fields: BTreeMap<String, Type> = fields.into_iter().filter_map(|(n, t)| Some((escape(&n)?, t))).collect();
    if resource {
        let meta = object_meta(format!("{name}.metadata"));
        let declared = |f: &str| fields.get(f).is_some_and(|t| *t == Type::String);
        let meta_declared = match fields.get("metadata") {
            Some(Type::Object(m)) => ["name", "generateName"].iter().all(|f| m.fields.get(*f) == Some(&Type::String)),
            _ => false,
        };
        if !(declared("kind") && declared("apiVersion") && meta_declared) {
            fields.insert("kind".into(), Type::String);
            fields.insert("apiVersion".into(), Type::String);
            fields.insert("metadata".into(), meta);
        }
    }
    Type::Object(Arc::new(Object { name: name.to_owned(), fields }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resource (or embedded one) shows rules kind, apiVersion and metadata's name and
    /// generateName even where its struct does not declare them, as the apiserver's
    /// declaration does.
    #[test]
    fn resources_see_type_and_object_meta() {
        let spec = || vec![("spec".to_owned(), Type::Int)];
        let Type::Object(o) = object("Template", true, spec) else { panic!() };
        assert_eq!(o.fields.keys().collect::<Vec<_>>(), ["apiVersion", "kind", "metadata", "spec"]);
        assert_eq!(o.fields["metadata"].to_string(), "Template.metadata");
        let Type::Object(o) = object("Plain", false, spec) else { panic!() };
        assert_eq!(o.fields.keys().collect::<Vec<_>>(), ["spec"]);
    }
}
