//! A JSON text read as kubectl's JSON decoder (Go's `encoding/json`) reads it: a stream of
//! values, each a document, with nothing but whitespace between them. Its events go to the same
//! [`Builder`] as YAML's, so positions, duplicate keys, numbers and limits are one code.
//!
//! Why not the YAML parser: JSON is YAML, but a YAML scanner must hold every token of a line
//! until it knows whether a flow collection is a mapping key, and a one-line JSON manifest is one
//! line: the whole document was held as tokens, 200 bytes for each byte of input.

use std::borrow::Cow;

use granit_parser::{Event, ScalarStyle, StructureStyle};

use super::{Builder, Mark, Pos, YamlError};

/// Reads every value of a JSON stream into `builder`, one document each.
pub(super) fn read(text: &str, builder: &mut Builder<'_>) -> Result<(), YamlError> {
    let mut reader = Reader { text, at: 0, chars: 0, line: 1, line_start: 0 };
    loop {
        reader.skip_whitespace();
        if reader.at == text.len() {
            return Ok(());
        }
        builder.on_event(Event::DocumentStart(false, None), reader.mark())?;
        reader.value(builder)?;
        builder.on_event(Event::DocumentEnd, reader.mark())?;
    }
}

/// What may come next inside a container.
#[derive(Clone, Copy, PartialEq)]
enum Expect {
    /// A value (at the top, after `[`, `,` in an array or `:` in an object).
    Value,
    /// A key or `}` (after `{`).
    FirstKey,
    /// A key (after `,` in an object).
    Key,
    /// `,` or the container's end.
    Separator,
}

struct Reader<'t> {
    text: &'t str,
    /// Byte offset of the next character.
    at: usize,
    /// Its index in characters, as YAML's marks count them.
    chars: usize,
    line: usize,
    /// The index in characters of the line's first: columns count characters, as YAML's do.
    line_start: usize,
}

impl<'t> Reader<'t> {
    fn pos(&self) -> Pos {
        Pos { line: self.line, column: self.chars - self.line_start + 1 }
    }

    fn mark(&self) -> Mark {
        Mark { index: self.chars, pos: self.pos() }
    }

    /// The next character. JSON's syntax is ASCII: only text inside strings and words is
    /// decoded as UTF-8.
    fn peek(&self) -> Option<char> {
        match self.text.as_bytes().get(self.at) {
            Some(&b) if b.is_ascii() => Some(char::from(b)),
            Some(_) => self.text[self.at..].chars().next(),
            None => None,
        }
    }

    fn peek_byte(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn bump(&mut self) {
        let Some(b) = self.peek_byte() else { return };
        // The text is a `str`: `at` is at a character's first byte, whose leading ones count
        // its bytes.
        self.at += if b.is_ascii() { 1 } else { b.leading_ones() as usize };
        self.chars += 1;
        if b == b'\n' {
            self.line += 1;
            self.line_start = self.chars;
        }
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek_byte(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.bump();
        }
    }

    fn error(&self, message: String) -> YamlError {
        YamlError { pos: self.pos(), message }
    }

    /// Go's words for a character that cannot stand here.
    fn unexpected(&self, context: &str) -> YamlError {
        match self.peek() {
            None => self.error("unexpected end of JSON input".into()),
            Some(c) => self.error(format!("invalid character {} {context}", go_char(c))),
        }
    }

    /// One whole value (with everything inside it), without recursion: the containers open
    /// are a stack here, and the builder refuses nesting past its limit.
    fn value(&mut self, builder: &mut Builder<'_>) -> Result<(), YamlError> {
        // `true` for an object, `false` for an array.
        let mut open: Vec<bool> = Vec::new();
        let mut expect = Expect::Value;
        loop {
            self.skip_whitespace();
            let mark = self.mark();
            match expect {
                Expect::Value => match self.peek() {
                    Some('{') => {
                        self.bump();
                        builder.on_event(Event::MappingStart(StructureStyle::Flow, 0, None), mark)?;
                        open.push(true);
                        expect = Expect::FirstKey;
                        continue;
                    }
                    Some('[') => {
                        self.bump();
                        builder.on_event(Event::SequenceStart(StructureStyle::Flow, 0, None), mark)?;
                        self.skip_whitespace();
                        if self.peek() == Some(']') {
                            self.bump();
                            builder.on_event(Event::SequenceEnd, mark)?;
                        } else {
                            open.push(false);
                            continue;
                        }
                    }
                    Some('"') => {
                        let text = self.string()?;
                        builder.on_event(Event::Scalar(text, ScalarStyle::DoubleQuoted, 0, None), mark)?;
                    }
                    Some(c) if !is_delimiter(c) => {
                        let word = self.word();
                        builder.on_event(Event::Scalar(Cow::Borrowed(word), ScalarStyle::Plain, 0, None), mark)?;
                    }
                    _ => return Err(self.unexpected("looking for beginning of value")),
                },
                Expect::FirstKey | Expect::Key => match self.peek() {
                    Some('}') if expect == Expect::FirstKey => {
                        self.bump();
                        open.pop();
                        builder.on_event(Event::MappingEnd, mark)?;
                    }
                    Some('"') => {
                        let key = self.string()?;
                        builder.on_event(Event::Scalar(key, ScalarStyle::DoubleQuoted, 0, None), mark)?;
                        self.skip_whitespace();
                        if self.peek() != Some(':') {
                            return Err(self.unexpected("after object key"));
                        }
                        self.bump();
                        expect = Expect::Value;
                        continue;
                    }
                    _ => return Err(self.unexpected("looking for beginning of object key string")),
                },
                Expect::Separator => {
                    let object = *open.last().unwrap_or(&false);
                    match (self.peek(), object) {
                        (Some(','), true) => {
                            self.bump();
                            expect = Expect::Key;
                            continue;
                        }
                        (Some(','), false) => {
                            self.bump();
                            expect = Expect::Value;
                            continue;
                        }
                        (Some('}'), true) => {
                            self.bump();
                            open.pop();
                            builder.on_event(Event::MappingEnd, mark)?;
                        }
                        (Some(']'), false) => {
                            self.bump();
                            open.pop();
                            builder.on_event(Event::SequenceEnd, mark)?;
                        }
                        (_, true) => return Err(self.unexpected("after object key:value pair")),
                        (_, false) => return Err(self.unexpected("after array element")),
                    }
                }
            }
            // A value (or a container) has ended.
            if open.is_empty() {
                return Ok(());
            }
            expect = Expect::Separator;
        }
    }

    /// A run of characters up to the next delimiter: a number or word, which the builder then
    /// checks as JSON (so that `0x10` or `yes` is named whole in its error).
    fn word(&mut self) -> &'t str {
        let start = self.at;
        while self.peek_byte().is_some_and(|b| !b.is_ascii() || !is_delimiter(char::from(b))) {
            self.bump();
        }
        &self.text[start..self.at]
    }

    /// A double-quoted string, its escapes decoded as Go decodes them (a lone surrogate becomes
    /// U+FFFD).
    fn string(&mut self) -> Result<Cow<'t, str>, YamlError> {
        self.bump();
        let start = self.at;
        // Borrowed until the first escape, read a byte at a time (no line break can be in it).
        while let Some(b) = self.peek_byte() {
            match b {
                b'"' => {
                    let text = &self.text[start..self.at];
                    self.bump();
                    return Ok(Cow::Borrowed(text));
                }
                b'\\' => break,
                ..0x20 => return Err(self.unexpected("in string literal")),
                _ => {
                    self.at += 1;
                    // A character is counted at its first byte.
                    self.chars += usize::from(b & 0xC0 != 0x80);
                }
            }
        }
        let mut out = String::from(&self.text[start..self.at]);
        loop {
            match self.peek() {
                None => return Err(self.unexpected("in string literal")),
                Some('"') => {
                    self.bump();
                    return Ok(Cow::Owned(out));
                }
                Some('\\') => {
                    self.bump();
                    let decoded = match self.peek() {
                        Some('"') => '"',
                        Some('\\') => '\\',
                        Some('/') => '/',
                        Some('b') => '\u{8}',
                        Some('f') => '\u{c}',
                        Some('n') => '\n',
                        Some('r') => '\r',
                        Some('t') => '\t',
                        Some('u') => {
                            self.bump();
                            let unit = self.hex4()?;
                            out.push(self.code_point(unit)?);
                            continue;
                        }
                        _ => return Err(self.unexpected("in string escape code")),
                    };
                    self.bump();
                    out.push(decoded);
                }
                Some(c) if (c as u32) < 0x20 => return Err(self.unexpected("in string literal")),
                Some(c) => {
                    out.push(c);
                    self.bump();
                }
            }
        }
    }

    /// The four hex digits after `\u`.
    fn hex4(&mut self) -> Result<u32, YamlError> {
        let mut unit = 0;
        for _ in 0..4 {
            let digit = self
                .peek()
                .and_then(|c| c.to_digit(16))
                .ok_or_else(|| self.unexpected("in \\u hexadecimal character escape"))?;
            unit = unit * 16 + digit;
            self.bump();
        }
        Ok(unit)
    }

    /// The character of a `\u` escape, reading the low half of a surrogate pair when one follows.
    fn code_point(&mut self, unit: u32) -> Result<char, YamlError> {
        if !(0xD800..0xDC00).contains(&unit) {
            return Ok(char::from_u32(unit).unwrap_or('\u{FFFD}'));
        }
        if self.text[self.at..].starts_with("\\u") {
            let (at, chars, line, line_start) = (self.at, self.chars, self.line, self.line_start);
            self.bump();
            self.bump();
            let low = self.hex4()?;
            if (0xDC00..0xE000).contains(&low) {
                return Ok(char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)).unwrap_or('\u{FFFD}'));
            }
            // Not a pair: the lone half is U+FFFD, and the next escape is read on its own.
            (self.at, self.chars, self.line, self.line_start) = (at, chars, line, line_start);
        }
        Ok('\u{FFFD}')
    }
}

/// Characters that end a number or word.
fn is_delimiter(c: char) -> bool {
    matches!(c, ',' | ']' | '}' | ':' | '[' | '{' | '"' | ' ' | '\t' | '\n' | '\r')
}

/// A character as Go's JSON errors quote it: `'x'`, or `'\n'` for control characters.
fn go_char(c: char) -> String {
    match c {
        '\'' => r"'\''".into(),
        c if c.is_control() => format!("{:?}", c),
        c => format!("'{c}'"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{Pos, parse_json_documents};

    #[test]
    fn a_stream_of_values_is_a_document_each() {
        let docs = parse_json_documents("{\"a\": [1, 2.5, \"x\\u00e9\\n\", null, true, {}]}\n  {\"b\":{}} []").unwrap();
        let values: Vec<_> = docs.iter().map(|d| d.value.clone()).collect();
        assert_eq!(values, vec![json!({"a": [1, 2.5, "xé\n", null, true, {}]}), json!({"b": {}}), json!([])]);
        assert_eq!(docs[1].start, Pos { line: 2, column: 3 });
        assert_eq!(docs[0].position("/a/2"), Some(Pos { line: 1, column: 16 }));
        assert_eq!(docs[0].key_position("/a"), Some(Pos { line: 1, column: 2 }));
    }

    #[test]
    fn escapes_decode_as_go_decodes_them() {
        let docs = parse_json_documents(r#"["\ud83d\ude00", "\ud800x", "\ud800\u0041", "\/\b\f\r\t\"\\"]"#).unwrap();
        assert_eq!(docs[0].value, json!(["😀", "\u{FFFD}x", "\u{FFFD}A", "/\u{8}\u{c}\r\t\"\\"]));
    }

    /// Syntax errors in Go's words, at the character that is wrong.
    #[test]
    fn syntax_errors_name_the_character_and_place() {
        for (text, message, column) in [
            ("{\"a\" 1}", "invalid character '1' after object key", 6),
            ("{\"a\": 1 \"b\"}", "invalid character '\"' after object key:value pair", 9),
            ("[1 2]", "invalid character '2' after array element", 4),
            ("{a: 1}", "invalid character 'a' looking for beginning of object key string", 2),
            ("[1,]", "invalid character ']' looking for beginning of value", 4),
            ("{\"a\": [1", "unexpected end of JSON input", 9),
            ("[\"a\tb\"]", "invalid character '\\t' in string literal", 4),
            ("[\"\\q\"]", "invalid character 'q' in string escape code", 4),
            (
                "{}\n---\n{}",
                "invalid JSON value \"---\": a JSON number is decimal (no 0x, leading zero or +), other words are true, false or null, and strings are double-quoted",
                1,
            ),
        ] {
            let err = parse_json_documents(text).unwrap_err();
            assert_eq!(err.message, message, "{text:?}");
            assert_eq!(err.pos.column, column, "{text:?}");
        }
    }

    fn any_json() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<u64>().prop_map(serde_json::Value::from),
            (-1e300..1e300f64).prop_map(serde_json::Value::from),
            any::<String>().prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(6, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::from),
                proptest::collection::btree_map(any::<String>(), inner, 0..8)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// Whatever serde_json writes (compact or pretty, escapes and all), the reader reads back
        /// as the same value, as Go's decoder would.
        #[test]
        fn what_serde_json_writes_reads_back(value in any_json()) {
            let text = format!("{{\"v\": {}}}\n{{\"w\": {:#}}}", value, value);
            let docs = parse_json_documents(&text).unwrap();
            proptest::prop_assert_eq!(&docs[0].value["v"], &value);
            proptest::prop_assert_eq!(&docs[1].value["w"], &value);
        }
    }

    /// A one-line JSON document is read without holding its tokens: the YAML scanner held a
    /// whole line of them (a flow collection might be a key), 200 bytes per input byte.
    #[test]
    fn long_one_line_documents_are_read_in_order() {
        let text = format!("{{\"items\":[{}7]}}", "7,".repeat(100_000));
        let docs = parse_json_documents(&text).unwrap();
        assert_eq!(docs[0].value["items"].as_array().map(Vec::len), Some(100_001));
        assert_eq!(docs[0].position("/items/100000"), Some(Pos { line: 1, column: 200_011 }));
    }
}
