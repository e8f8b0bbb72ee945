//! CEL types as the checker ([`check`](crate::cel::front::check)) sees them, printed as cel-go prints them
//! (`list(int)`, `map(string, dyn)`, `optional_type(string)`), and the declaration of a
//! schema node as the apiserver builds it (`SchemaDeclType`, semantics §9.4): the one place
//! that turns a schema into the type of `self`.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// A CEL type.
#[derive(Clone, Debug)]
pub enum Type {
    /// `dyn`: checked at run time.
    Dyn,
    /// The type of an expression that failed to check; assignable to anything, so one
    /// mistake is reported once.
    Error,
    /// `null_type` (printed `null`).
    Null,
    /// `bool`.
    Bool,
    /// `int` (64 bits).
    Int,
    /// `uint` (64 bits).
    Uint,
    /// `double`.
    Double,
    /// `string`.
    String,
    /// `bytes`.
    Bytes,
    /// `google.protobuf.Duration` (printed `duration`).
    Duration,
    /// `google.protobuf.Timestamp` (printed `timestamp`).
    Timestamp,
    /// `list(T)`, with how the schema says it compares and adds (not part of the type: two
    /// lists of the same element type are the same type).
    List(Arc<Type>, ListKind),
    /// `map(K, V)`.
    Map(Arc<Type>, Arc<Type>),
    /// An object: a schema object (`selfType0.spec`) or a library's (`kubernetes.URL`).
    Object(Arc<Object>),
    /// An opaque type with its parameters: `optional_type(T)`, `net.IP`, `net.CIDR`.
    Opaque(Arc<str>, Arc<[Type]>),
    /// `type` (no parameter) or `type(T)`, the type of a type value.
    Type(Option<Arc<Type>>),
    /// A type parameter of an overload, or a free type variable while checking.
    Param(Arc<str>),
}

/// How a list compares (`==`) and adds (`+`), from `x-kubernetes-list-type` (semantics
/// §9.4): in order and by appending (`atomic`, or no list type), as a set (order ignored,
/// `+` a union), or as a map keyed by the items' `x-kubernetes-list-map-keys` (escaped; `+`
/// merges, the right side's items replacing the left's of the same key).
#[derive(Clone, Debug, Default)]
pub enum ListKind {
    /// In order; `+` appends.
    #[default]
    Atomic,
    /// `x-kubernetes-list-type: set`.
    Set,
    /// `x-kubernetes-list-type: map`, with the escaped key property names.
    Map(Arc<[String]>),
}

impl ListKind {
    /// The kind an `x-kubernetes-list-type` names, with the list-map keys escaped as the
    /// apiserver escapes them (a key that cannot be escaped is kept as written).
    pub fn of(list_type: &str, keys: &[impl AsRef<str>]) -> ListKind {
        match list_type {
            "set" => ListKind::Set,
            "map" => ListKind::Map(
                keys.iter().map(|k| escape(k.as_ref()).unwrap_or_else(|| k.as_ref().to_owned())).collect(),
            ),
            _ => ListKind::Atomic,
        }
    }
}

/// An object type: its name and its declared fields (escaped names).
#[derive(Debug, Default)]
pub struct Object {
    /// `selfType0.spec`, `kubernetes.URL`.
    pub name: String,
    /// The declared fields by escaped name.
    pub fields: BTreeMap<String, Type>,
}

impl Object {
    /// A field by the name a rule writes: its escaped name, or (1.31) a reserved word written
    /// plainly.
    pub(crate) fn field(&self, field: &str) -> Option<&Type> {
        self.fields.get(field).or_else(|| {
            let escaped = escape(field)?;
            (escaped != field && escaped.starts_with("__") && escaped.ends_with("__"))
                .then(|| self.fields.get(&escaped))
                .flatten()
        })
    }
}

impl Type {
    /// `list(t)`.
    pub fn list(t: Type) -> Type {
        Type::List(Arc::new(t), ListKind::Atomic)
    }

    /// `map(k, v)`.
    pub fn map(k: Type, v: Type) -> Type {
        Type::Map(Arc::new(k), Arc::new(v))
    }

    /// `optional_type(t)`.
    pub fn optional(t: Type) -> Type {
        Type::Opaque("optional_type".into(), Arc::new([t]))
    }

    /// `type(t)`.
    pub fn type_of(t: Type) -> Type {
        Type::Type(Some(Arc::new(t)))
    }

    /// An object type without fields (the libraries' `kubernetes.URL`, ...).
    pub fn named_object(name: &str) -> Type {
        Type::Object(Arc::new(Object { name: name.to_owned(), fields: BTreeMap::new() }))
    }

    /// The type's parameters (list element, map key and value, opaque parameters).
    pub fn parameters(&self) -> Vec<&Type> {
        match self {
            Type::List(e, _) => vec![e],
            Type::Map(k, v) => vec![k, v],
            Type::Opaque(_, ps) => ps.iter().collect(),
            Type::Type(Some(t)) => vec![t],
            _ => Vec::new(),
        }
    }

    /// `T` of `optional_type(T)`.
    pub fn optional_value(&self) -> Option<&Type> {
        match self {
            Type::Opaque(name, ps) if &**name == "optional_type" => ps.first(),
            _ => None,
        }
    }

    /// `dyn`, or the type of a failed check: anything is assignable to them.
    pub fn is_dyn_or_error(&self) -> bool {
        matches!(self, Type::Dyn | Type::Error)
    }

    /// Kinds compared by cel-go's `Kind()`.
    pub(crate) fn kind(&self) -> u8 {
        match self {
            Type::Dyn => 0,
            Type::Error => 1,
            Type::Null => 2,
            Type::Bool => 3,
            Type::Int => 4,
            Type::Uint => 5,
            Type::Double => 6,
            Type::String => 7,
            Type::Bytes => 8,
            Type::Duration => 9,
            Type::Timestamp => 10,
            Type::List(..) => 11,
            Type::Map(..) => 12,
            Type::Object(_) => 13,
            Type::Opaque(..) => 14,
            Type::Type(_) => 15,
            Type::Param(_) => 16,
        }
    }
}

/// cel-go's `IsExactType`: the same type, objects and opaque types by name.
impl PartialEq for Type {
    fn eq(&self, other: &Type) -> bool {
        match (self, other) {
            (Type::List(a, _), Type::List(b, _)) => a == b,
            (Type::Map(a, b), Type::Map(c, d)) => a == c && b == d,
            (Type::Object(a), Type::Object(b)) => a.name == b.name,
            (Type::Opaque(a, p), Type::Opaque(b, q)) => a == b && p == q,
            (Type::Type(a), Type::Type(b)) => a == b,
            (Type::Param(a), Type::Param(b)) => a == b,
            (a, b) => a.kind() == b.kind(),
        }
    }
}

impl Eq for Type {}

/// cel-go's `FormatCELType`.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Type::Dyn => "dyn",
            Type::Error => "!error!",
            Type::Null => "null",
            Type::Bool => "bool",
            Type::Int => "int",
            Type::Uint => "uint",
            Type::Double => "double",
            Type::String => "string",
            Type::Bytes => "bytes",
            Type::Duration => "duration",
            Type::Timestamp => "timestamp",
            Type::List(..) => "list",
            Type::Map(..) => "map",
            Type::Object(o) => &o.name,
            Type::Opaque(name, _) => name,
            Type::Type(_) => "type",
            Type::Param(name) => name,
        };
        f.write_str(name)?;
        let params = self.parameters();
        if !params.is_empty() {
            f.write_str("(")?;
            for (i, p) in params.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{p}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// A resource's `metadata` as rules see it: `name` and `generateName`.
pub fn object_meta(name: String) -> Type {
    let fields = [("name".to_owned(), Type::String), ("generateName".to_owned(), Type::String)].into();
    Type::Object(Arc::new(Object { name, fields }))
}

/// A type written as cel-go prints it (`list(A)`, `map(K, V)`, `optional_type(T)`,
/// `kubernetes.URL`): the notation of the function table. One upper-case letter is a type
/// parameter.
pub(crate) fn parse(text: &str) -> Type {
    let text = text.trim();
    let (name, params) = match text.split_once('(') {
        Some((name, rest)) => {
            let inner = rest.strip_suffix(')').expect("invariant: the table's types close their parentheses");
            (name.trim(), split_params(inner).into_iter().map(parse).collect::<Vec<_>>())
        }
        None => (text, Vec::new()),
    };
    let one = |i: usize| params.get(i).cloned().expect("invariant: the table's types have their parameters");
    match name {
        "dyn" => Type::Dyn,
        "null" => Type::Null,
        "bool" => Type::Bool,
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "duration" => Type::Duration,
        "timestamp" => Type::Timestamp,
        "list" => Type::list(one(0)),
        "map" => Type::map(one(0), one(1)),
        "type" if params.is_empty() => Type::Type(None),
        "type" => Type::type_of(one(0)),
        "optional_type" | "net.IP" | "net.CIDR" => Type::Opaque(name.into(), params.into()),
        n if n.len() == 1 && n.chars().all(|c| c.is_ascii_uppercase()) => Type::Param(n.into()),
        n => Type::named_object(n),
    }
}

/// `a, map(b, c), d` split at the top-level commas.
pub(crate) fn split_params(text: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

/// A node as the apiserver declares it to CEL (`DeclType`): its type, and the sizes cel-go's
/// cost estimator reads ([`crate::cel::cost`]): the most elements it can hold (characters of a
/// string, items of a list, entries of a map; 0 for a number or an object) and the fewest
/// bytes it serializes to, from which the most copies of it a request can hold follow.
#[derive(Clone, Debug)]
pub struct Declaration {
    /// The CEL type.
    pub ty: Type,
    /// `MaxElements`.
    pub max_elements: u64,
    /// `MinSerializedSize`.
    pub min_serialized_size: u64,
    /// An object's fields, by escaped name.
    pub fields: BTreeMap<String, Declaration>,
    /// A list's items or a map's values.
    pub elem: Option<Box<Declaration>>,
    /// A map's keys.
    pub key: Option<Box<Declaration>>,
}

impl Declaration {
    /// A node without parts.
    pub fn simple(ty: Type, min_serialized_size: u64, max_elements: u64) -> Declaration {
        Declaration { ty, max_elements, min_serialized_size, fields: BTreeMap::new(), elem: None, key: None }
    }

    /// The node `path` leads to from here: field names, `@items` and `@values` (a list's
    /// items, a map's values) and `@keys`. The cost estimator's paths.
    pub fn at<'a>(&self, path: impl IntoIterator<Item = &'a str>) -> Option<&Declaration> {
        let mut node = self;
        for step in path {
            node = match step {
                "@items" | "@values" => node.elem.as_deref()?,
                "@keys" => node.key.as_deref()?,
                field => node.fields.get(field)?,
            };
        }
        Some(node)
    }
}

pub use schema::{declarable, declare, declare_rule_scope, derived_declaration};

mod schema {
    use super::*;

    use crate::cel::vocabulary::limits::MAX_REQUEST_BYTES;
    use crate::schema::Schema;
    use crate::schema::of_types::StructuralSchema;

    /// The fewest bytes values serialize to (`MinStringSize`, `MinBoolSize`, ...).
    const MIN_STRING: u64 = 2;
    const MIN_BOOL: u64 = 4;
    const MIN_NUMBER: u64 = 1;
    const MIN_DURATION: u64 = 3;
    const DATE: u64 = 12;
    const MIN_DATE_TIME: u64 = 21;
    /// The longest durations and date-times (`MaxDurationSizeJSON`, `MaxDatetimeSizeJSON`).
    const MAX_DURATION: u64 = 32;
    const MAX_DATE_TIME: u64 = 32;
    /// The longest string a request can hold: all of it but the quotes.
    const LONGEST_STRING: u64 = MAX_REQUEST_BYTES - 2;

    /// `self` for the rules of `s`, as the apiserver declares it (`SchemaDeclType` with
    /// `isResourceRoot`, then `MaybeAssignTypeName("selfType0")`); `None` when the node
    /// cannot be declared (the apiserver refuses its rules: `failed to convert to declType
    /// for CEL validation rules`).
    pub fn declare_rule_scope(s: &Schema, resource_root: bool) -> Option<Declaration> {
        declare(s, resource_root, "selfType0")
    }

    /// `self` for the rules at `pointer` (a JSON pointer into `T`'s derived schema, `""` for
    /// `T`'s own rules) as the apiserver declares it in the CRD the derive gives: derived
    /// types' rules are typed, and their cost estimated, against the schema they ship in (a
    /// data-carrying enum's merged node, flattened fields, bounds included), not against what
    /// the Rust type alone says. `resource_root`: `T` is a resource (rules at its root see
    /// `apiVersion`, `kind`, `metadata.name`/`generateName`); an embedded resource's node says
    /// so itself. `None` where the node cannot be declared (its rules are then refused, as
    /// the apiserver refuses them: [`crate::cel::NO_TYPE_INFORMATION`]). `T`'s schema is built
    /// once per process.
    pub fn derived_declaration<T: StructuralSchema + 'static>(
        pointer: &str,
        resource_root: bool,
    ) -> Option<Declaration> {
        let schema = crate::schema::of_types::derived_schema::<T>();
        let (node, _) = Schema::parse(schema.pointer(pointer)?, pointer);
        declare_rule_scope(&node, resource_root || node.embedded_resource)
    }

    /// Whether [`declare`] gives `s` a declaration (`SchemaDeclType` is not nil), without
    /// building it: not for a node without a type (preserve-unknown-fields alone), or a list
    /// or map of such nodes. The apiserver skips the rules at and below such a node when it
    /// validates objects, and refuses them when it admits the CRD (`failed to construct type
    /// information for x-kubernetes-validations rules`).
    pub fn declarable(s: &Schema) -> bool {
        if s.int_or_string {
            return true;
        }
        match s.type_str() {
            Some("array") => s.items.as_deref().is_some_and(declarable),
            Some("object") => s.additional_properties_schema().is_none_or(declarable),
            Some("string" | "boolean" | "number" | "integer") => true,
            _ => false,
        }
    }

    /// A schema node as the apiserver declares it, named `name` (object types are named by
    /// their place: `selfType0.spec`, list items `.@idx`, map values `.@elem`). `None` where
    /// [`declarable`] is false.
    pub fn declare(s: &Schema, resource_root: bool, name: &str) -> Option<Declaration> {
        if !declarable(s) {
            return None;
        }
        if s.int_or_string {
            let longest = nonnegative(s.max_length).map_or(LONGEST_STRING, |n| n.saturating_mul(4));
            return Some(Declaration::simple(Type::Dyn, 1, longest));
        }
        match s.type_str()? {
            "array" => {
                let items = s.items.as_deref()?;
                let kind = match s.list_type.as_deref() {
                    Some(list_type) => ListKind::of(list_type, &s.list_map_keys),
                    None => ListKind::Atomic,
                };
                let elem = declare(items, items.embedded_resource, &format!("{name}.@idx"))?;
                let most = nonnegative(s.max_items).unwrap_or((MAX_REQUEST_BYTES - 2) / (elem.min_serialized_size + 1));
                let ty = Type::List(Arc::new(elem.ty.clone()), kind);
                Some(Declaration { elem: Some(Box::new(elem)), ..Declaration::simple(ty, 2, most) })
            }
            "object" => {
                if let Some(values) = s.additional_properties_schema() {
                    let v = declare(values, values.embedded_resource, &format!("{name}.@elem"))?;
                    let most = nonnegative(s.max_properties())
                        .unwrap_or((MAX_REQUEST_BYTES - 2) / (v.min_serialized_size + 6));
                    let ty = Type::map(Type::String, v.ty.clone());
                    return Some(Declaration {
                        elem: Some(Box::new(v)),
                        key: Some(Box::new(Declaration::simple(Type::String, MIN_STRING, 0))),
                        ..Declaration::simple(ty, 2, most)
                    });
                }
                // `WithTypeAndObjectMeta`: at a resource's root, kind, apiVersion and metadata's
                // name and generateName are always there; unless the schema declares all
                // four as strings, they replace what it declares (of metadata, only these two
                // remain).
                let resource_root = resource_root && !declares_type_and_object_meta(s);
                let mut fields = BTreeMap::new();
                // `{}` and each required property without a default: `"name":` and its value.
                let mut min_serialized_size: u64 = 2;
                let mut add = |prop: &str, d: Option<Declaration>, defaulted: bool| {
                    let Some(d) = d else { return };
                    if s.required.iter().any(|r| r == prop) && !defaulted {
                        min_serialized_size =
                            min_serialized_size.saturating_add(prop.len() as u64 + d.min_serialized_size + 4);
                    }
                    if let Some(escaped) = crate::schema::cel_name::escape(prop) {
                        fields.insert(escaped, d);
                    }
                };
                for (prop, child) in &s.properties {
                    if resource_root && matches!(prop.as_str(), "metadata" | "kind" | "apiVersion") {
                        continue;
                    }
                    let escaped = crate::schema::cel_name::escape(prop).unwrap_or_default();
                    let d = declare(child, child.embedded_resource, &format!("{name}.{escaped}"));
                    add(prop, d, child.default.is_some());
                }
                if resource_root {
                    let string = || Declaration::simple(Type::String, MIN_STRING, LONGEST_STRING);
                    add("kind", Some(string()), false);
                    add("apiVersion", Some(string()), false);
                    let meta = Declaration {
                        fields: [("name".to_owned(), string()), ("generateName".to_owned(), string())].into(),
                        ..Declaration::simple(super::object_meta(format!("{name}.metadata")), 2, 0)
                    };
                    add("metadata", Some(meta), false);
                }
                let ty = Type::Object(Arc::new(Object {
                    name: name.to_owned(),
                    fields: fields.iter().map(|(k, d)| (k.clone(), d.ty.clone())).collect(),
                }));
                Some(Declaration { fields, ..Declaration::simple(ty, min_serialized_size, 0) })
            }
            "string" => Some(match s.format.as_deref() {
                Some("byte") => {
                    Declaration::simple(Type::Bytes, MIN_STRING, nonnegative(s.max_length).unwrap_or(LONGEST_STRING))
                }
                Some("duration") => Declaration::simple(Type::Duration, MIN_DURATION, MAX_DURATION),
                Some("date") => Declaration::simple(Type::Timestamp, DATE, DATE),
                Some("date-time") => Declaration::simple(Type::Timestamp, MIN_DATE_TIME, MAX_DATE_TIME),
                _ => {
                    let longest_enum = || {
                        s.enum_.iter().flatten().filter_map(|v| v.as_str()).map(|v| v.len() as u64).max().unwrap_or(0)
                    };
                    let longest = match (nonnegative(s.max_length), &s.enum_) {
                        (Some(n), _) => n.saturating_mul(4),
                        (None, Some(values)) if !values.is_empty() => longest_enum(),
                        _ => LONGEST_STRING,
                    };
                    Declaration::simple(Type::String, MIN_STRING, longest)
                }
            }),
            "boolean" => Some(Declaration::simple(Type::Bool, MIN_BOOL, 0)),
            "number" => Some(Declaration::simple(Type::Double, MIN_NUMBER, 0)),
            "integer" => Some(Declaration::simple(Type::Int, MIN_NUMBER, 0)),
            _ => None,
        }
    }

    /// Whether `s` declares `kind`, `apiVersion`, `metadata.name` and `metadata.generateName`
    /// as strings (the apiserver then keeps its own declarations).
    fn declares_type_and_object_meta(s: &Schema) -> bool {
        let string = |s: Option<&Schema>| s.and_then(Schema::type_str) == Some("string");
        let meta = s.properties.get("metadata");
        string(s.properties.get("kind"))
            && string(s.properties.get("apiVersion"))
            && meta.and_then(Schema::type_str) == Some("object")
            && string(meta.and_then(|m| m.properties.get("name")))
            && string(meta.and_then(|m| m.properties.get("generateName")))
    }
}

/// A count keyword as the estimator reads it: a negative one is zero.
fn nonnegative(n: Option<i64>) -> Option<u64> {
    n.map(|n| n.max(0).unsigned_abs())
}

pub use crate::schema::cel_name::escape;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_print_as_cel_go_prints_them() {
        for text in
            ["int", "list(string)", "map(string, list(A))", "optional_type(kubernetes.URL)", "type(int)", "net.IP"]
        {
            assert_eq!(parse(text).to_string(), text);
        }
        assert_eq!(Type::Null.to_string(), "null");
        assert_eq!(Type::Type(None).to_string(), "type");
    }
}
