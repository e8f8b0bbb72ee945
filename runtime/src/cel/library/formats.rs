//! The Kubernetes format library (`AS pkg/cel/library/format.go`): `format.dns1123Label()`
//! and the other named formats, `format.named(name)`, and `<format>.validate(s)`, which gives
//! `optional.none()` for a valid string and the apiserver's messages otherwise.

use cel::Value;

use crate::cel::vocabulary::args::{Outcome, none, opaque, opaque_arg, some, string_arg, value_fn};
use crate::cel::vocabulary::function::{Charge, Cost, LIBRARY_VALUE, NativeForm, Rows, Run};
use crate::check::objectmeta;

const TYPE: &str = "kubernetes.NamedFormat";

/// A named format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedFormat(&'static str);

impl cel::objects::Opaque for NamedFormat {
    fn runtime_type_name(&self) -> &str {
        TYPE
    }
}

/// The named formats: `NAMES`, and one `format.<name>()` overload each.
macro_rules! formats {
    ($($name:literal),* $(,)?) => {
        /// Every name the library knows.
        pub(crate) const NAMES: &[&str] = &[$($name),*];

        fn named_formats(rows: &mut Rows) {
            $({
                fn get(_: &[Value]) -> Outcome {
                    Ok(opaque(NamedFormat($name)))
                }
                let signature = concat!("format.", $name, "() -> kubernetes.NamedFormat");
                rows.add(signature, Run::Library(value_fn!(get)), Cost::Call, Charge::Call, NativeForm::Interpreted(LIBRARY_VALUE));
            })*
        }
    };
}

formats!(
    "dns1123Label",
    "dns1123Subdomain",
    "dns1035Label",
    "qualifiedName",
    "dns1123LabelPrefix",
    "dns1123SubdomainPrefix",
    "dns1035LabelPrefix",
    "labelValue",
    "uri",
    "uuid",
    "byte",
    "date",
    "datetime",
);

/// `NameIsDNS*` with `prefix`: a trailing dash is allowed (masked).
fn prefixed(s: &str) -> String {
    match s.strip_suffix('-') {
        Some(head) => format!("{head}a"),
        None => s.to_owned(),
    }
}

/// The messages of `name` for `s`; empty when valid.
pub fn check(name: &str, s: &str) -> Vec<String> {
    use crate::check::format::Format;
    let invalid = |ok: bool, what: &str| if ok { Vec::new() } else { vec![format!("invalid {what}")] };
    match name {
        "dns1123Label" => objectmeta::dns1123_label(s),
        "dns1123Subdomain" => objectmeta::dns1123_subdomain(s),
        "dns1035Label" => objectmeta::dns1035_label(s),
        "qualifiedName" => objectmeta::qualified_name(s),
        "dns1123LabelPrefix" => objectmeta::dns1123_label(&prefixed(s)),
        "dns1123SubdomainPrefix" => objectmeta::dns1123_subdomain(&prefixed(s)),
        "dns1035LabelPrefix" => objectmeta::dns1035_label(&prefixed(s)),
        "labelValue" => objectmeta::label_value(s),
        "uri" => crate::go::url::parse_request_uri(s).err().map(|e| vec![e]).unwrap_or_default(),
        "uuid" => invalid(Format::Uuid.is_valid(s), "UUID"),
        "byte" => invalid(Format::Byte.is_valid(s), "base64"),
        "date" => invalid(Format::Date.is_valid(s), "date"),
        "datetime" => invalid(Format::DateTime.is_valid(s), "datetime"),
        _ => Vec::new(),
    }
}

pub(super) fn functions(rows: &mut Rows) {
    named_formats(rows);
    let interpreted = NativeForm::Interpreted(LIBRARY_VALUE);
    let named = Run::Library(value_fn!(named));
    rows.add(
        "format.named(string) -> optional_type(kubernetes.NamedFormat)",
        named,
        Cost::Call,
        Charge::Call,
        interpreted,
    );
    let validate = Run::Library(value_fn!(validate));
    let signature = "kubernetes.NamedFormat.validate(string) -> optional_type(list(string))";
    rows.add(signature, validate, Cost::ValidateFormat, Charge::Call, interpreted);
}

fn named(args: &[Value]) -> Outcome {
    let name = string_arg("format.named", args, 0)?;
    Ok(NAMES.iter().find(|n| **n == name).map_or_else(none, |n| some(opaque(NamedFormat(n)))))
}

fn validate(args: &[Value]) -> Outcome {
    let format = opaque_arg::<NamedFormat>("validate", args, 0)?;
    let errors = check(format.0, string_arg("validate", args, 1)?);
    if errors.is_empty() {
        return Ok(none());
    }
    Ok(some(Value::List(std::sync::Arc::new(errors.into_iter().map(Value::from).collect()))))
}
