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
    let bytes = name.as_bytes();
    if !escapable(bytes) {
        return None;
    }
    if reserved(bytes) {
        return Some(format!("__{name}__"));
    }
    let mut out = Vec::with_capacity(name.len());
    let mut i = 0;
    while i < bytes.len() {
        let (piece, next) = step(bytes, i);
        match piece {
            Piece::Byte(b) => out.push(b),
            Piece::Text(t) => out.extend_from_slice(t.as_bytes()),
        }
        i = next;
    }
    // Only ASCII is escapable, and escaping writes ASCII.
    String::from_utf8(out).ok()
}

/// The key of a property among its type's fields, computed at compile time (the derive's
/// `Field` impls, `cel::derived`): FNV-1a of its escaped name, which is the `name_hash` of
/// the name a rule writes; of the name itself where it cannot be escaped (no rule reads it).
#[cfg(feature = "cel")]
pub const fn field_key(name: &str) -> u64 {
    let bytes = name.as_bytes();
    if !escapable(bytes) {
        return fnv(FNV_START, bytes);
    }
    if reserved(bytes) {
        return fnv(fnv(fnv(FNV_START, b"__"), bytes), b"__");
    }
    let mut hash = FNV_START;
    let mut i = 0;
    while i < bytes.len() {
        let (piece, next) = step(bytes, i);
        hash = match piece {
            Piece::Byte(b) => fnv(hash, &[b]),
            Piece::Text(t) => fnv(hash, t.as_bytes()),
        };
        i = next;
    }
    hash
}

/// FNV-1a of a CEL name as a rule writes it: see [`field_key`].
#[cfg(feature = "cel")]
pub const fn name_hash(name: &str) -> u64 {
    fnv(FNV_START, name.as_bytes())
}

#[cfg(feature = "cel")]
const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

#[cfg(feature = "cel")]
const fn fnv(mut hash: u64, bytes: &[u8]) -> u64 {
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

/// What one step of the escaping writes.
enum Piece {
    Byte(u8),
    Text(&'static str),
}

/// One step of the escaping at byte `i` of an escapable, unreserved name: what it writes, and
/// where the next starts (one function for [`escape`] and [`field_key`], which is `const`).
const fn step(name: &[u8], i: usize) -> (Piece, usize) {
    if name[i] == b'_' && i + 1 < name.len() && name[i + 1] == b'_' {
        return (Piece::Text("__underscores__"), i + 2);
    }
    let piece = match name[i] {
        b'.' => Piece::Text("__dot__"),
        b'-' => Piece::Text("__dash__"),
        b'/' => Piece::Text("__slash__"),
        b => Piece::Byte(b),
    };
    (piece, i + 1)
}

/// Not empty, no leading digit, only `[A-Za-z0-9_./-]`.
const fn escapable(name: &[u8]) -> bool {
    if name.is_empty() || name[0].is_ascii_digit() {
        return false;
    }
    let mut i = 0;
    while i < name.len() {
        let b = name[i];
        if !(b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'/' || b == b'-') {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether a name is its own CEL name, and no other name's escape: letters and digits, a
/// letter first, not a reserved word (every escape writes `_`).
#[cfg(feature = "cel")]
pub(crate) fn is_own_cel_name(name: &[u8]) -> bool {
    name.first().is_some_and(u8::is_ascii_alphabetic) && name.iter().all(u8::is_ascii_alphanumeric) && !reserved(name)
}

/// Whether a name is one of CEL's reserved words ([`RESERVED`]).
pub(crate) const fn reserved(name: &[u8]) -> bool {
    let mut w = 0;
    while w < RESERVED.len() {
        if kubeskema_attributes::number::same(RESERVED[w].as_bytes(), name) {
            return true;
        }
        w += 1;
    }
    false
}

/// CEL's reserved words: a property named so is written `__<word>__` (§9.3).
const RESERVED: &[&str] = &[
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

#[cfg(all(test, feature = "cel"))]
mod tests {
    use super::*;

    /// The derive keys a field by its JSON name; a rule names it escaped: the two must meet.
    #[test]
    fn a_field_key_is_the_hash_of_the_escaped_name() {
        for name in ["a", "foo-bar", "a.b/c", "x__y", "__", "namespace", "in", "_x_", "a-__-b", "inside"] {
            let escaped = escape(name).expect(name);
            assert_eq!(field_key(name), name_hash(&escaped), "{name} -> {escaped}");
        }
        assert_ne!(field_key("1st"), name_hash("1st__"));
    }

    proptest::proptest! {
        #[test]
        fn field_key_agrees_with_escape(name in "[a-z_./-][a-zA-Z0-9_./-]{0,12}") {
            let escaped = escape(&name).expect("escapable");
            proptest::prop_assert_eq!(field_key(&name), name_hash(&escaped));
        }
    }
}
