//! JSON values written as block YAML, for CRDs a person reads and `kubectl apply`s. Strings that
//! YAML could read as something else (`true`, `1.0`, `- x`, `a: b`, ...) or that hold control
//! characters are written as JSON strings, which YAML reads back as the same text.

use serde_json::Value;

/// `value` as a YAML document (no `---`), ending with a newline.
pub fn to_yaml(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(m) if !m.is_empty() => mapping(m, 0, &mut out),
        Value::Array(a) if !a.is_empty() => sequence(a, 0, &mut out),
        scalar => {
            out.push_str(&inline(scalar));
            out.push('\n');
        }
    }
    out
}

fn mapping(m: &serde_json::Map<String, Value>, indent: usize, out: &mut String) {
    for (key, value) in m {
        out.push_str(&" ".repeat(indent));
        out.push_str(&string(key));
        out.push(':');
        nested(value, indent, out);
    }
}

fn sequence(a: &[Value], indent: usize, out: &mut String) {
    for item in a {
        out.push_str(&" ".repeat(indent));
        out.push('-');
        match item {
            // `- key: value` with the other keys under the first.
            Value::Object(m) if !m.is_empty() => {
                let mut first = String::new();
                mapping(m, indent + 2, &mut first);
                out.push(' ');
                out.push_str(&first[indent + 2..]);
            }
            _ => nested(item, indent, out),
        }
    }
}

/// What follows `key:` or `-`: a scalar on the same line, a collection on the next ones.
fn nested(value: &Value, indent: usize, out: &mut String) {
    match value {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            mapping(m, indent + 2, out);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            sequence(a, indent + 2, out);
        }
        scalar => {
            out.push(' ');
            out.push_str(&inline(scalar));
            out.push('\n');
        }
    }
}

fn inline(v: &Value) -> String {
    match v {
        Value::String(s) => string(s),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
        other => other.to_string(),
    }
}

/// A string plain where YAML reads it back as this string, double-quoted otherwise.
fn string(s: &str) -> String {
    if plain_is_safe(s) { s.to_owned() } else { quoted(s) }
}

/// `s` double-quoted as JSON writes it (YAML 1.2 reads JSON strings), with every character a
/// YAML 1.1 reader (go-yaml v2 under kubectl, libyaml, PyYAML) refuses or folds also escaped:
/// DEL, the C1 controls, NEL (folded into a space), the line and paragraph separators, the
/// byte order mark and U+FFFE, U+FFFF; and the bidi controls. Each escape is `\uXXXX`,
/// which both read.
fn quoted(s: &str) -> String {
    crate::report::issue::double_quoted(s, needs_escape)
}

/// What cannot stand raw inside a double-quoted scalar for a YAML 1.1 reader (or a JSON one),
/// and the bidi controls, which would reorder the text a person reads.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn plain_is_safe(s: &str) -> bool {
    const WORDS: &[&str] = &["true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", "=", "<<"];
    let Some(first) = s.chars().next() else { return false };
    if WORDS.contains(&s.to_ascii_lowercase().as_str()) || first.is_ascii_digit() && looks_numeric(s) {
        return false;
    }
    // Indicators, and `.`/`+` that may start a number (`.5`, `+1`).
    if "-?:,[]{}#&*!|>'\"%@`.+ ".contains(first) {
        return false;
    }
    !s.ends_with(' ') && !s.contains(": ") && !s.contains(" #") && !s.ends_with(':') && !s.chars().any(needs_escape)
}

/// Whether YAML 1.1 or 1.2 might read it as a number (`1e3`, `0x1f`, `1_000`, `.5`, `12:30`).
fn looks_numeric(s: &str) -> bool {
    s.chars().all(|c| c.is_ascii_hexdigit() || "+-._:xXoObB".contains(c))
}

#[cfg(all(test, feature = "yaml"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_is_written_reads_back() {
        let value = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "plain": "a string", "tricky": ["true", "1.0", "- x", "a: b", "#c", " lead", "trail ", "", "x\ny", "\u{1b}[31m", ".5", "1e3", "~", "NO", "::", "@x"],
            "numbers": [1, -2, 1.5], "empty": {}, "none": [], "null": null,
            "list": [{"name": "a", "type": "string"}, {"rule": "self.x == 'y: z'"}], "nested": [[1, 2], []],
        });
        let text = to_yaml(&value);
        let read = crate::read::yaml::parse_documents(&text).unwrap();
        assert_eq!(read[0].value, value, "{text}");
    }

    /// What a YAML 1.1 reader refuses (DEL, C1, U+FFFE) or folds (NEL) is escaped, and so are
    /// the line separators and bidi controls; tests/tests/hostile_output.rs reads the same
    /// text with PyYAML.
    #[test]
    fn what_yaml_1_1_refuses_or_folds_is_escaped() {
        let hostile = "a\u{7f}b\u{80}c\u{85}d\u{9f}e\u{2028}f\u{2029}g\u{feff}h\u{fffe}i\u{ffff}j\u{202e}k\u{2066}l";
        let value = json!({ hostile: [hostile, "plain\u{85}"] });
        let text = to_yaml(&value);
        assert!(text.chars().all(|c| c == '\n' || !needs_escape(c)), "{text:?}");
        assert!(text.contains("\\u007f") && text.contains("\\u0085") && text.contains("\\ufffe"), "{text}");
        let read = crate::read::yaml::parse_documents(&text).unwrap();
        assert_eq!(read[0].value, value, "{text}");
    }
}
