//! The `#[kubeskema(...)]` vocabulary, in one place: the role `serde_derive_internals` plays for
//! serde. Code generation prints these attributes from a schema (feature `print`); the derive
//! parses them back (feature `parse`); both name each keyword by its [`Keyword`], so a keyword is
//! spelled once, and a field's [`Shape`] is decided by one function. The core is data only: no
//! `syn`, `quote` or `proc_macro`.
//!
//! Internal to kubeskema: its API follows what the code generator and the derive need.
#![deny(missing_docs)]

/// Go's `regexp/syntax` errors: the runtime's `go::regexp` for `pattern` and CEL's regexes,
/// here so that the derive judges a `pattern` attribute as the apiserver will.
pub mod go_regexp;
#[cfg(feature = "cel")]
pub mod meter;
pub mod native;
pub mod number;
#[cfg(feature = "parse")]
pub mod parse;
pub mod pointer;
#[cfg(feature = "print")]
pub mod print;
pub mod schema;

/// Where an attribute stands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Place {
    /// On a struct or an enum.
    Container,
    /// On a struct's field.
    Field,
    /// On an enum's variant.
    Variant,
    /// Inside `items(...)` / `values(...)`.
    Nested,
}

impl Place {
    /// As an error message says where.
    pub fn describe(self) -> &'static str {
        match self {
            Place::Container => "on a struct or enum",
            Place::Field => "on a field",
            Place::Variant => "on an enum variant",
            Place::Nested => "inside items(...)/values(...)",
        }
    }

    const fn mask(self) -> u8 {
        match self {
            Place::Container => C,
            Place::Field => F,
            Place::Variant => V,
            Place::Nested => N,
        }
    }
}

/// The value a keyword takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Arg {
    /// `keyword`
    Flag,
    /// `keyword = "text"`
    Str,
    /// `keyword = 5`
    Count,
    /// `keyword = 1.5` or `keyword = -3`
    Number,
    /// `keyword = "<JSON text>"`
    Json,
    /// `keyword = <string, integer, float or bool literal>`
    Literal,
    /// `keyword("a", "b")`
    Strs,
    /// `keyword(...constraints...)`
    Nested,
    /// `rule(rule = "...", message = "...", ...)`: see [`RuleKey`].
    Rule,
    /// `extension(name = "x-...", value = "<JSON>")`
    Extension,
    /// `resource(group = "...", ...)`: see [`ResourceKey`].
    Resource,
}

const C: u8 = 1; // container
const F: u8 = 2; // field
const V: u8 = 4; // variant
const N: u8 = 8; // nested items(...)/values(...)
/// Value constraints of a schema node: on a field, nested under `items`/`values`, or on the
/// container (for object-level constraints of a struct).
const NODE: u8 = C | F | N;

macro_rules! keywords {
    ($($(#[$doc:meta])* $variant:ident = $name:literal, $arg:ident, $places:expr, $schema:literal;)*) => {
        /// Every `#[kubeskema(...)]` keyword.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum Keyword {
            $(#[doc = concat!("`", $name, "`")] #[doc = ""] $(#[$doc])* $variant,)*
        }

        impl Keyword {
            /// Every keyword, in the table's order.
            pub const ALL: &[Keyword] = &[$(Keyword::$variant,)*];

            /// As written in the attribute.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Keyword::$variant => $name,)*
                }
            }

            /// The value it takes.
            pub const fn arg(self) -> Arg {
                match self {
                    $(Keyword::$variant => Arg::$arg,)*
                }
            }

            /// The key of the schema (`JSONSchemaProps`) it stands for; `""` for keywords that
            /// say how Rust holds a value, not what the schema says of it.
            const fn schema_key_or_empty(self) -> &'static str {
                match self {
                    $(Keyword::$variant => $schema,)*
                }
            }

            const fn places(self) -> u8 {
                match self {
                    $(Keyword::$variant => $places,)*
                }
            }
        }
    };
}

keywords! {
    // Serialization shape.
    /// The JSON property name of a field.
    Rename = "rename", Str, F, "";
    /// The schema default, a literal.
    Default = "default", Literal, F, "default";
    /// The schema default, as JSON text.
    DefaultJson = "default_json", Json, F, "default";
    Required = "required", Flag, F, "";
    Nullable = "nullable", Flag, F | N, "nullable";
    /// The map of the keys no other field names.
    UnknownFields = "unknown_fields", Flag, F, "";
    /// The JSON value an enum variant stands for.
    Value = "value", Literal, V, "";
    /// The resource a root type is.
    Resource = "resource", Resource, C, "";
    /// On a struct: `Default` when every field may be absent (each as the read fills it:
    /// `None`, or its default), else `new` taking the fields that must be given, and a
    /// `with_<field>` setter for each of the others. Written by code generation on every
    /// struct; a hand-written type asks for it (its own `Default` or `new` would clash).
    Constructors = "constructors", Flag, C, "";
    /// Written by code generation for types no CEL rule concerns: no rules at or below them
    /// (`validate_cel_at` stays the no-op default), none that may be interpreted above them (no
    /// `ToCel`).
    NoCelRules = "no_cel_rules", Flag, C, "";
    /// On a field or its items: the value there has no `ToCel`, so its rules (all compiled to
    /// Rust) cannot be interpreted.
    NoCelValue = "no_cel_value", Flag, C | F | N, "";
    /// Written by code generation where a CRD's numeric bound cannot be held by the node's
    /// type and format, or its `multipleOf` is not positive: the apiserver accepts the CRD
    /// and refuses every value there, and so do the checks. Without it the derive refuses
    /// such a bound at compile time ([`number`]).
    RefusesEveryValue = "refuses_every_value", Flag, F | N, "";
    /// Required keys that no field names (`required` listing a key `properties` does not).
    RequiredKeys = "required_keys", Strs, C, "required";
    /// On the item type of `map` lists: the fields (JSON names) that name an item. Its apply
    /// configuration requires those without a default (`new(keys...)`).
    ApplyKeys = "apply_keys", Strs, C, "";
    /// A further schema the field's value must satisfy (root `metadata` restrictions).
    SchemaJson = "schema_json", Json, F, "";
    // Value validations (OpenAPI v3 keywords).
    Format = "format", Str, NODE, "format";
    Minimum = "minimum", Number, NODE, "minimum";
    Maximum = "maximum", Number, NODE, "maximum";
    ExclusiveMinimum = "exclusive_minimum", Flag, NODE, "exclusiveMinimum";
    ExclusiveMaximum = "exclusive_maximum", Flag, NODE, "exclusiveMaximum";
    MultipleOf = "multiple_of", Number, NODE, "multipleOf";
    MinLength = "min_length", Count, NODE, "minLength";
    MaxLength = "max_length", Count, NODE, "maxLength";
    Pattern = "pattern", Str, NODE, "pattern";
    MinItems = "min_items", Count, NODE, "minItems";
    MaxItems = "max_items", Count, NODE, "maxItems";
    UniqueItems = "unique_items", Flag, NODE, "uniqueItems";
    /// `additionalProperties: false`.
    NoAdditionalProperties = "no_additional_properties", Flag, NODE, "additionalProperties";
    /// `additionalProperties: true`: unknown keys are kept, but their values are pruned as
    /// values without a schema (unlike `preserve_unknown_fields`, which keeps them whole).
    AdditionalProperties = "additional_properties", Flag, NODE, "additionalProperties";
    MinProperties = "min_properties", Count, NODE, "minProperties";
    MaxProperties = "max_properties", Count, NODE, "maxProperties";
    /// `enum`, as JSON text.
    EnumJson = "enum_json", Json, NODE, "enum";
    AllOf = "all_of", Json, NODE, "allOf";
    AnyOf = "any_of", Json, NODE, "anyOf";
    OneOf = "one_of", Json, NODE, "oneOf";
    Not = "not", Json, NODE, "not";
    /// `type`, where the Rust type does not say it: an int-or-string whose schema also names a
    /// type (external-snapshotter's `restoreSize: {type: string, x-kubernetes-int-or-string: true}`).
    SchemaType = "schema_type", Str, NODE, "type";
    // Kubernetes extensions.
    IntOrString = "int_or_string", Flag, NODE, "x-kubernetes-int-or-string";
    PreserveUnknownFields = "preserve_unknown_fields", Flag, NODE, "x-kubernetes-preserve-unknown-fields";
    EmbeddedResource = "embedded_resource", Flag, NODE, "x-kubernetes-embedded-resource";
    ListType = "list_type", Str, NODE, "x-kubernetes-list-type";
    ListMapKeys = "list_map_keys", Strs, NODE, "x-kubernetes-list-map-keys";
    MapType = "map_type", Str, NODE, "x-kubernetes-map-type";
    /// One `x-kubernetes-validations` rule (may repeat).
    Rule = "rule", Rule, NODE, "x-kubernetes-validations";
    /// Another `x-kubernetes-*` extension (may repeat).
    Extension = "extension", Extension, NODE, "";
    /// The constraints of a list's items.
    Items = "items", Nested, F | N, "items";
    /// The constraints of a map's values.
    Values = "values", Nested, F | N, "additionalProperties";
}

impl Keyword {
    /// The keyword written `name`.
    pub fn from_name(name: &str) -> Option<Keyword> {
        Keyword::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// Whether it may stand at `place`.
    pub const fn allowed(self, place: Place) -> bool {
        self.places() & place.mask() != 0
    }

    /// The schema key it writes (`minimum`, `x-kubernetes-list-type`, ...); `None` for the
    /// keywords about how Rust holds a value (`rename`, `unknown_fields`, ...). Where the two
    /// directions meet: code generation reads these keys of a schema into attributes, and
    /// [`schema::patch`] writes attributes back under them.
    pub const fn schema_key(self) -> Option<&'static str> {
        let key = self.schema_key_or_empty();
        if key.is_empty() { None } else { Some(key) }
    }

    /// Whether it may be written more than once in one attribute list.
    pub const fn repeats(self) -> bool {
        matches!(self.arg(), Arg::Rule | Arg::Extension)
    }

    /// The keywords that stand for a junctor (`allOf`, ...), checked as JSON schemas.
    pub const fn is_junctor(self) -> bool {
        matches!(self, Keyword::AllOf | Keyword::AnyOf | Keyword::OneOf | Keyword::Not)
    }
}

macro_rules! sub_keys {
    ($(#[$doc:meta])* $enum:ident { $($variant:ident = $name:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub enum $enum {
            $(#[doc = concat!("`", $name, "`")] $variant,)*
        }

        impl $enum {
            /// Every key, in order.
            pub const ALL: &[$enum] = &[$($enum::$variant,)*];

            /// As written.
            pub const fn name(self) -> &'static str {
                match self {
                    $($enum::$variant => $name,)*
                }
            }

            /// The key written `name`.
            pub fn from_name(name: &str) -> Option<$enum> {
                $enum::ALL.iter().copied().find(|k| k.name() == name)
            }

            /// What an error says of a key that is none of these.
            pub fn expected() -> String {
                let names: Vec<_> = $enum::ALL.iter().map(|k| k.name()).collect();
                format!("expected one of: {}", names.join(", "))
            }
        }
    };
}

sub_keys! {
    /// The keys of `rule(...)`.
    RuleKey {
        Rule = "rule",
        Message = "message",
        MessageExpression = "message_expression",
        Reason = "reason",
        FieldPath = "field_path",
        OptionalOldSelf = "optional_old_self",
        Native = "native",
        NativeMessage = "native_message",
        Transition = "transition",
    }
}

sub_keys! {
    /// The keys of `resource(...)`: what a CRD says of the resource beside its schema.
    ResourceKey {
        Group = "group",
        Version = "version",
        Kind = "kind",
        Plural = "plural",
        Scope = "scope",
        Singular = "singular",
        ListKind = "list_kind",
        ShortName = "short_name",
        Category = "category",
        Served = "served",
        Storage = "storage",
        Deprecated = "deprecated",
        DeprecationWarning = "deprecation_warning",
        Status = "status",
        ScaleSpecReplicasPath = "scale_spec_replicas_path",
        ScaleStatusReplicasPath = "scale_status_replicas_path",
        ScaleLabelSelectorPath = "scale_label_selector_path",
        PrinterColumn = "printer_column",
        SelectableField = "selectable_field",
        ApiApproved = "api_approved",
        Kube = "kube",
        CrdJson = "crd_json",
    }
}

impl ResourceKey {
    /// Whether it may be given more than once (each adds one item to a list).
    pub const fn repeats(self) -> bool {
        matches!(
            self,
            ResourceKey::ShortName | ResourceKey::Category | ResourceKey::PrinterColumn | ResourceKey::SelectableField
        )
    }

    /// Whether it takes `true` or `false` (the others take a string).
    pub const fn is_flag(self) -> bool {
        matches!(
            self,
            ResourceKey::Served
                | ResourceKey::Storage
                | ResourceKey::Deprecated
                | ResourceKey::Status
                | ResourceKey::Kube
        )
    }
}

/// The `reason`s a rule may give (the apiserver's `FieldValue*` causes).
pub const REASONS: [&str; 4] =
    ["FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"];

/// How a field's Rust type encodes absence and `null`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shape {
    /// `T`, must be present (a `null` counts as absent, as after the apiserver's null pruning).
    Required,
    /// `T` with a schema default that fills absence and non-nullable nulls.
    Defaulted,
    /// `Option<T>`: absent or `null` is `None`.
    Optional,
    /// `Option<T>` for a nullable field that is required or defaulted, so never absent:
    /// `None` is `null`.
    Nullable,
    /// `Option<Option<T>>` for a nullable optional field: `None` absent, `Some(None)` null.
    MaybeNull,
    /// `serde_json::Map<String, Value>` holding the keys no other field names.
    UnknownFields,
}

impl Shape {
    /// The shape of a field from what its schema says: `nullable`, `required`, a `default`.
    pub fn of(nullable: bool, required: bool, defaulted: bool) -> Shape {
        match (nullable, required || defaulted) {
            (true, true) => Shape::Nullable,
            (true, false) => Shape::MaybeNull,
            (false, _) if defaulted => Shape::Defaulted,
            (false, true) => Shape::Required,
            (false, false) => Shape::Optional,
        }
    }

    /// How many `Option`s wrap the value.
    pub fn options(self) -> usize {
        match self {
            Shape::Required | Shape::Defaulted | Shape::UnknownFields => 0,
            Shape::Optional | Shape::Nullable => 1,
            Shape::MaybeNull => 2,
        }
    }
}

/// One `x-kubernetes-validations` entry, as a CRD writes it and an attribute carries it (the
/// runtime's `schema::ValidationRule`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rule {
    /// The CEL expression.
    pub rule: String,
    /// `message`.
    pub message: Option<String>,
    /// `messageExpression`.
    pub message_expression: Option<String>,
    /// `reason`.
    pub reason: Option<String>,
    /// `fieldPath`.
    pub field_path: Option<String>,
    /// `optionalOldSelf`.
    pub optional_old_self: Option<bool>,
}

/// Where code generation keeps a rule's checked trees: an index into its module's table, when
/// the CRD checks compiled the rule (never where the derive parsed it). Not part of what the
/// attribute says: alike attributes compare equal and print alike wherever their trees are, so
/// that alike types are still one type (and alike rules have alike trees).
#[derive(Clone, Copy, Default)]
pub struct Trees(pub Option<usize>);

impl PartialEq for Trees {
    fn eq(&self, _: &Trees) -> bool {
        true
    }
}

impl std::fmt::Debug for Trees {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("_")
    }
}

/// One keyword with its value, as code generation builds it from a schema.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    /// `keyword`.
    Flag(Keyword),
    /// `keyword = "text"`.
    Str(Keyword, String),
    /// `keyword = 5`.
    Count(Keyword, i64),
    /// `keyword = 1.5`.
    Number(Keyword, serde_json::Number),
    /// `keyword = "<JSON>"`.
    Json(Keyword, String),
    /// `keyword("a", "b")`.
    Strs(Keyword, Vec<String>),
    /// `rule(rule = "...", ...)`, with where code generation keeps its checked trees.
    Rule(Rule, Trees),
    /// `extension(name = "x-...", value = "<JSON>")`.
    Extension(String, String),
    /// `items(...)` / `values(...)`.
    Nested(Keyword, Vec<Attr>),
    /// `resource(group = ..., ...)`.
    Resource(Vec<(ResourceKey, String)>),
}

impl Attr {
    /// Its keyword.
    pub fn keyword(&self) -> Keyword {
        match self {
            Attr::Flag(k) | Attr::Str(k, _) | Attr::Count(k, _) | Attr::Number(k, _) => *k,
            Attr::Json(k, _) | Attr::Strs(k, _) | Attr::Nested(k, _) => *k,
            Attr::Rule(..) => Keyword::Rule,
            Attr::Extension(..) => Keyword::Extension,
            Attr::Resource(_) => Keyword::Resource,
        }
    }
}

/// The text of `keyword = "text"` among `attrs`.
pub fn str_of(attrs: &[Attr], keyword: Keyword) -> Option<&str> {
    attrs.iter().find_map(|a| match a {
        Attr::Str(k, v) if *k == keyword => Some(v.as_str()),
        _ => None,
    })
}

/// Whether `keyword` is set among `attrs`.
pub fn has(attrs: &[Attr], keyword: Keyword) -> bool {
    attrs.iter().any(|a| a.keyword() == keyword)
}

use serde_json::Value;

/// What a branch may say: value validations, nested places, further junctors. The apiserver
/// refuses anything else inside a junctor (types only in the int-or-string idioms).
const BRANCH_KEYS: &[&str] = &[
    "type",
    "format",
    "enum",
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "multipleOf",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxProperties",
    "minProperties",
    "required",
    "properties",
    "items",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "externalDocs",
    "example",
];

/// Checks a junctor attribute's JSON (`all_of`, `any_of`, `one_of`, `not`): `not` holds one
/// branch, the others a list of branches.
pub fn check_junctor(name: &str, json: &serde_json::Value) -> Result<(), String> {
    match (name, json) {
        ("not", Value::Object(branch)) => check_branch(branch, "not"),
        ("not", _) => Err("`not` must be one schema (a JSON object)".into()),
        (_, Value::Array(list)) => list.iter().enumerate().try_for_each(|(i, b)| match b {
            Value::Object(branch) => check_branch(branch, &format!("{name}[{i}]")),
            _ => Err(format!("`{name}[{i}]` must be a schema (a JSON object)")),
        }),
        _ => Err(format!("`{name}` must be a list of schemas (a JSON array)")),
    }
}

fn check_branch(branch: &serde_json::Map<String, Value>, at: &str) -> Result<(), String> {
    for (k, v) in branch {
        if !BRANCH_KEYS.contains(&k.as_str()) {
            return Err(format!("`{at}` may not use `{k}`: junctors hold value validations only (structural schemas)"));
        }
        let nested = |v: &Value, at: &str| match v {
            Value::Object(b) => check_branch(b, at),
            _ => Err(format!("`{at}` must be a schema (a JSON object)")),
        };
        match k.as_str() {
            "properties" => {
                let Value::Object(props) = v else { return Err(format!("`{at}.properties` must be an object")) };
                props.iter().try_for_each(|(p, s)| nested(s, &format!("{at}.properties.{p}")))?;
            }
            "items" => nested(v, &format!("{at}.items"))?,
            "not" => nested(v, &format!("{at}.not"))?,
            "allOf" | "anyOf" | "oneOf" => {
                let Value::Array(list) = v else { return Err(format!("`{at}.{k}` must be a list of schemas")) };
                list.iter().enumerate().try_for_each(|(i, b)| nested(b, &format!("{at}.{k}[{i}]")))?;
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_keyword_reads_back_by_its_name() {
        for k in Keyword::ALL {
            assert_eq!(Keyword::from_name(k.name()), Some(*k));
        }
        assert_eq!(Keyword::from_name("formt"), None);
        assert!(Keyword::Format.allowed(Place::Nested) && !Keyword::Rename.allowed(Place::Nested));
    }

    #[test]
    fn shapes_follow_the_schema() {
        assert_eq!(Shape::of(false, false, false), Shape::Optional);
        assert_eq!(Shape::of(false, true, false), Shape::Required);
        assert_eq!(Shape::of(false, true, true), Shape::Defaulted);
        assert_eq!(Shape::of(true, true, false), Shape::Nullable);
        assert_eq!(Shape::of(true, false, true), Shape::Nullable);
        assert_eq!(Shape::of(true, false, false), Shape::MaybeNull);
    }
}
