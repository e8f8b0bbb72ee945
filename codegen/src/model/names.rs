//! Rust names for JSON names: fields (`snake_case`), types and enum variants (`UpperCamelCase`),
//! always valid identifiers, with collisions resolved deterministically. Pure functions.

use std::collections::{HashMap, HashSet};

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Rust keywords (strict and reserved) that a field may be named after.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "box", "break", "const", "continue", "crate", "do", "dyn", "else", "enum", "extern",
    "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut",
    "override", "priv", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "try",
    "type", "typeof", "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield", "abstract", "become",
];

/// Whether `s` is a Rust keyword (strict, reserved or weak) or `_`: not usable as a plain
/// identifier.
pub fn is_keyword(s: &str) -> bool {
    s == "_" || KEYWORDS.contains(&s)
}

/// Keywords that cannot be raw identifiers (`r#self` is not allowed).
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Type names the generated modules import or use, which a generated type must not shadow.
pub const RESERVED_TYPE_NAMES: &[&str] = &[
    "BTreeMap",
    "Box",
    "EmptyObject",
    "IntOrString",
    "Map",
    "ObjectMeta",
    "Option",
    "Result",
    "String",
    "Value",
    "Vec",
    "Self",
    "Some",
    "None",
    "Ok",
    "Err",
    "Default",
    "Clone",
    "Debug",
    "PartialEq",
];

/// Words too general to name a type alone (cert-manager's module had `Type`, `Status`,
/// `Policy`, `Usage`): a name made only of these is passed over for the next, longer one
/// (`Type` under `additionalOutputFormats` is `AdditionalOutputFormatType`; `Usage` under
/// `spec` is `CertificateSpecUsage`).
const GENERIC_WORDS: &[&str] = &[
    "Action", "Config", "Data", "Entry", "Format", "Item", "Key", "Kind", "Level", "Mode", "Name", "Object", "Phase",
    "Policy", "Reason", "Result", "Source", "Spec", "State", "Status", "Target", "Type", "Usage", "Value", "Version",
];

/// Whether a type name is made only of [`GENERIC_WORDS`] (`Type`, `SpecUsage`).
pub fn only_generic_words(name: &str) -> bool {
    let mut words = Vec::new();
    let mut start = 0;
    for (i, c) in name.char_indices().skip(1) {
        if c.is_ascii_uppercase() {
            words.push(&name[start..i]);
            start = i;
        }
    }
    words.push(&name[start..]);
    words.iter().all(|w| GENERIC_WORDS.contains(w))
}

/// Keeps `[A-Za-z0-9_]`, turning every other character into a word break.
fn words(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { ' ' }).collect()
}

/// A field identifier for a JSON property name (`jwksUri` → `jwks_uri`, `type` → `r#type`,
/// `-Xmx` → `xmx`, `5xx` → `_5xx`). Collisions between siblings are the caller's business.
pub fn field_ident(json: &str) -> String {
    let mut s = words(json).to_snake_case();
    if s.is_empty() {
        s = "field".into();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if NOT_RAW.contains(&s.as_str()) {
        s.push('_');
    } else if KEYWORDS.contains(&s.as_str()) {
        s.insert_str(0, "r#");
    }
    s
}

/// An `UpperCamelCase` type-name fragment for a JSON name (`matchExpressions` →
/// `MatchExpressions`, `x-kubernetes-foo` → `XKubernetesFoo`); may be empty.
pub fn type_fragment(json: &str) -> String {
    words(json).to_upper_camel_case()
}

/// Makes a type-name candidate a valid identifier (`4Ki` → `V4Ki`, empty → `Value`).
pub fn type_ident(candidate: &str) -> String {
    let mut s = candidate.to_owned();
    if s.is_empty() {
        s = "Object".into();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'V');
    }
    s
}

/// The singular of a list property's name, for the name of its item type (`containers` →
/// `Container`, `policies` → `Policy`, `addresses` → `Address`, `status` stays).
pub fn singular(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let cut = |n: usize, add: &str| format!("{}{add}", &name[..name.len() - n]);
    if lower.ends_with("ies") && name.len() > 3 {
        cut(3, "y")
    } else if lower.ends_with("sses") || lower.ends_with("xes") || lower.ends_with("ches") || lower.ends_with("shes") {
        cut(2, "")
    } else if lower.ends_with('s')
        && !(lower.ends_with("ss") || lower.ends_with("us") || lower.ends_with("is"))
        && name.len() > 1
    {
        cut(1, "")
    } else {
        name.to_owned()
    }
}

/// Variant names for an enum's values, distinct and valid: `UpperCamelCase` where that keeps
/// them apart; values that collide after case folding (`replace`/`Replace`, `head`/`HEAD`)
/// keep their own spelling when it is an identifier; what still collides gets a number.
pub fn variant_names(values: &[String]) -> Vec<String> {
    let camel: Vec<String> = values.iter().map(|v| variant_base(v)).collect();
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for c in &camel {
        *uses.entry(c).or_default() += 1;
    }
    // Anything still colliding: number the later ones.
    let mut taken = Taken::default();
    camel
        .iter()
        .zip(values)
        .map(|(c, own)| {
            let collides = uses[c.as_str()] > 1;
            let wanted = if collides && is_plain_ident(own) && !KEYWORDS.contains(&own.as_str()) { own } else { c };
            taken.claim(wanted, |base, n| format!("{}{n}", base.trim_end_matches(|c: char| c.is_ascii_digit())))
        })
        .collect()
}

/// Names handed out so far, for numbering the ones that clash: a set and, per base name, the
/// next number to try, so that n clashing names cost O(n) rather than a scan each.
#[derive(Default)]
pub struct Taken {
    names: HashSet<String>,
    next: HashMap<String, usize>,
}

impl Taken {
    /// `wanted` if it is free, else `numbered(wanted, n)` for the first free `n` from 2.
    pub fn claim(&mut self, wanted: &str, numbered: impl Fn(&str, usize) -> String) -> String {
        let mut name = wanted.to_owned();
        if self.names.contains(&name) {
            let n = self.next.entry(wanted.to_owned()).or_insert(2);
            loop {
                name = numbered(wanted, *n);
                *n += 1;
                if !self.names.contains(&name) {
                    break;
                }
            }
        }
        self.names.insert(name.clone());
        name
    }
}

fn is_plain_ident(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn variant_base(value: &str) -> String {
    if value.is_empty() {
        return "Empty".into();
    }
    let camel = type_fragment(value);
    if !camel.is_empty() {
        let v = type_ident(&camel);
        return if v == "Self" { "Self_".into() } else { v };
    }
    // Only symbols: spell them out (`*` → `Star`, `=~` → `EqualTilde`).
    value
        .chars()
        .map(|c| match c {
            '*' => "Star",
            '+' => "Plus",
            '-' => "Minus",
            '.' => "Dot",
            '/' => "Slash",
            '=' => "Equal",
            '!' => "Not",
            '<' => "Less",
            '>' => "Greater",
            '~' => "Tilde",
            '%' => "Percent",
            '&' => "And",
            '|' => "Or",
            '?' => "Question",
            ':' => "Colon",
            '@' => "At",
            '#' => "Hash",
            '$' => "Dollar",
            '^' => "Caret",
            ',' => "Comma",
            ' ' => "Space",
            _ => "Char",
        })
        .collect()
}

/// Names for integer enum values (`1` → `V1`, `-1` → `Minus1`).
pub fn int_variant_name(v: i64) -> String {
    if v < 0 { format!("Minus{}", v.unsigned_abs()) } else { format!("V{v}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_idents_are_snake_case_identifiers() {
        for (json, ident) in [
            ("jwksUri", "jwks_uri"),
            ("jwks_uri", "jwks_uri"),
            ("type", "r#type"),
            ("ref", "r#ref"),
            ("self", "self_"),
            ("-Xmx", "xmx"),
            ("hugepages-1Gi", "hugepages_1gi"),
            ("5xx", "_5xx"),
            ("$", "field"),
            ("x-kubernetes-int-or-string", "x_kubernetes_int_or_string"),
            ("podCIDRs", "pod_cid_rs"),
        ] {
            assert_eq!(field_ident(json), ident, "{json}");
        }
    }

    #[test]
    fn singular_names_for_item_types() {
        for (plural, one) in [
            ("containers", "Container"),
            ("policies", "Policy"),
            ("addresses", "Address"),
            ("matches", "Match"),
            ("status", "status"),
            ("ingress", "ingress"),
            ("items", "item"),
        ] {
            assert_eq!(type_fragment(&singular(plural)), type_fragment(one), "{plural}");
        }
    }

    #[test]
    fn enum_variants_stay_apart() {
        let values = |v: &[&str]| variant_names(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(values(&["replace", "Replace", "keep"]), vec!["replace", "Replace", "Keep"]);
        assert_eq!(values(&["head", "HEAD"]), vec!["head", "HEAD"]);
        assert_eq!(
            values(&["", "*", "4Ki", "read, write", "Self"]),
            vec!["Empty", "Star", "V4ki", "ReadWrite", "Self_"]
        );
        assert_eq!(values(&["a-b", "a_b", "A B"]), vec!["AB", "a_b", "AB2"]);
    }

    /// Values that all fold to one name (`x-.`, `x.-`, ...) are numbered in linear time: 10x
    /// the values take about ten times as long (a scan of the names before each was cubic:
    /// 4,000 values took two minutes).
    #[test]
    fn clashing_variants_are_numbered_in_linear_time() {
        let clashing = |n: usize| -> Vec<String> {
            (0..n).map(|i| format!("x{}", format!("{i:b}").replace('0', "-").replace('1', "."))).collect()
        };
        let names = variant_names(&clashing(5));
        assert_eq!(names, ["X", "X2", "X3", "X4", "X5"]);
        let ratio = kubeskema::__private::growth_ratio(400, |n| {
            let names = variant_names(&clashing(n));
            assert_eq!(names.iter().collect::<HashSet<_>>().len(), n);
        });
        assert!(ratio < kubeskema::__private::LINEAR_GROWTH, "10x the values took {ratio:.1}x the time");
    }
}
