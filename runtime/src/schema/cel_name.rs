//! Property names as CEL names: the one escaping, used by the CEL environment and by the
//! schema generator when it writes rules over a data-carrying enum's fields (with or without
//! the `cel` feature, so a CRD is the same either way).

/// A property name as a CEL field name (`AS pkg/cel/escaping.go`): `None` when it cannot be
/// written (empty, a leading digit, a character outside `[A-Za-z0-9_./-]`).
///
/// ```
/// use kubeskema::cel::escape;
/// assert_eq!(escape("foo-bar").as_deref(), Some("foo__dash__bar"));
/// assert_eq!(escape("a.b/c").as_deref(), Some("a__dot__b__slash__c"));
/// assert_eq!(escape("x__y").as_deref(), Some("x__underscores__y"));
/// assert_eq!(escape("namespace").as_deref(), Some("__namespace__"));
/// assert_eq!(escape("1st"), None);
/// ```
pub fn escape(name: &str) -> Option<String> {
    let first = name.chars().next()?;
    if first.is_ascii_digit() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "_./-".contains(c)) {
        return None;
    }
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("__") {
            out.push_str("__underscores__");
            rest = after;
            continue;
        }
        match c {
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            c => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    Some(out)
}

/// CEL's reserved words: a property named so is written `__<word>__` (§9.3).
pub(crate) const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];
