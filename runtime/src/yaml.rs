//! YAML (and JSON, which is YAML) documents read the way kubectl and the apiserver read them,
//! with a position for every node.
//!
//! - Multi-document streams: one [`Document`] per `---`, counted as `yaml.load_all` counts.
//! - Plain scalars resolve with YAML 1.1 rules, as `sigs.k8s.io/yaml` (go-yaml v2) does:
//!   `yes`/`no`/`on`/`off`/`y`/`n` are booleans, `0755` is octal, `1_000` is an integer.
//!   Mapping keys that resolve to non-strings are turned back into their JSON text (`on:` is
//!   the key `"true"`), as `YAMLToJSON` does.
//! - Duplicate keys: the last value wins (the apiserver's decoding) and every duplicate is
//!   recorded in [`Document::duplicates`], so callers choose between error and warning.
//! - Anchors, aliases and `<<` merge keys are expanded; the expansion is bounded.
//! - Indentation is read as leniently as go-yaml and PyYAML read it (a flow sequence's `]` at
//!   its key's column is accepted, as kubectl accepts it).
//!
//! ```
//! let docs = kubeskema::yaml::parse_documents("a: yes\nb: 0755\n---\nc: [1, 2]\n").unwrap();
//! assert_eq!(docs.len(), 2);
//! assert_eq!(docs[0].value, serde_json::json!({"a": true, "b": 493}));
//! assert_eq!(docs[1].position("/c/1").unwrap().line, 4);
//! ```

use std::collections::HashMap;
use std::fmt;

use granit_parser::{Event, Parser, ScalarStyle, ScanError, Span};
use serde_json::{Map, Number, Value};

/// A place in a text: 1-based line and 1-based column (in characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// A key that appeared twice in one mapping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateKey {
    /// JSON pointer of the key's value (the last one is kept).
    pub pointer: String,
    /// Where the repeated key stands.
    pub pos: Pos,
    /// Where the key first stood.
    pub first: Pos,
}

/// One document of a YAML stream, converted to JSON.
#[derive(Clone, Debug)]
pub struct Document {
    /// 0-based index of the document in its stream.
    pub index: usize,
    /// The document as JSON (`null` for an empty document).
    pub value: Value,
    /// Where the document starts.
    pub start: Pos,
    /// Keys that appeared more than once in a mapping.
    pub duplicates: Vec<DuplicateKey>,
    positions: HashMap<String, NodePos>,
}

#[derive(Clone, Copy, Debug)]
struct NodePos {
    value: Pos,
    key: Option<Pos>,
}

impl Document {
    /// Where the value at a JSON pointer starts (`""` is the whole document).
    pub fn position(&self, pointer: &str) -> Option<Pos> {
        self.positions.get(pointer).map(|p| p.value)
    }

    /// Where the mapping key of the value at `pointer` stands, or the value itself for array
    /// items and the root.
    pub fn key_position(&self, pointer: &str) -> Option<Pos> {
        self.positions.get(pointer).map(|p| p.key.unwrap_or(p.value))
    }

    /// The position of `pointer`, or of its nearest ancestor that has one (a pointer into a
    /// value that does not exist, such as a missing required field, lands on its parent).
    pub fn nearest_position(&self, pointer: &str) -> Pos {
        let mut p = pointer;
        loop {
            if let Some(pos) = self.key_position(p) {
                return pos;
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return self.start,
            }
        }
    }
}

/// Why a YAML text could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// Where the problem is.
    pub pos: Pos,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)
    }
}

impl std::error::Error for YamlError {}

/// The most nodes one stream may expand to (aliases included): a guard against alias bombs.
const MAX_NODES: usize = 50_000_000;
/// The deepest nesting accepted; deeper input is refused rather than risking the stack in
/// code that later walks the value recursively.
pub const MAX_DEPTH: usize = 512;

/// Reads every document of a YAML (or JSON) stream.
pub fn parse_documents(text: &str) -> Result<Vec<Document>, YamlError> {
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(text);
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(scan_error)?;
        builder.on_event(event, span)?;
    }
    Ok(builder.documents)
}

fn scan_error(e: ScanError) -> YamlError {
    YamlError { pos: pos_of(e.marker()), message: e.info().to_owned() }
}

fn pos_of(m: &granit_parser::Marker) -> Pos {
    Pos { line: m.line(), column: m.col() + 1 }
}

/// A node under construction; kept with positions so anchors can be replayed.
#[derive(Clone, Debug)]
struct Node {
    pos: Pos,
    kind: NodeKind,
}

#[derive(Clone, Debug)]
enum NodeKind {
    Scalar(Value),
    Seq(Vec<Node>),
    Map(Vec<(String, Pos, Node)>),
}

enum Frame {
    Seq { pos: Pos, anchor: usize, items: Vec<Node> },
    Map { pos: Pos, anchor: usize, entries: Vec<(String, Pos, Node)>, key: Option<(String, Pos)> },
}

#[derive(Default)]
struct Builder {
    documents: Vec<Document>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    root: Option<Node>,
    doc_start: Pos,
    nodes: usize,
}

impl Builder {
    fn on_event(&mut self, event: Event<'_>, span: Span) -> Result<(), YamlError> {
        let pos = pos_of(&span.start);
        match event {
            Event::DocumentStart(..) => {
                self.doc_start = pos;
                self.root = None;
                self.anchors.clear();
            }
            Event::DocumentEnd => self.finish_document(),
            Event::Scalar(text, style, anchor, tag) => {
                let forced_string =
                    tag.as_ref().is_some_and(|t| t.suffix() == "str" || t.suffix() == "tag:yaml.org,2002:str");
                let value = if style == ScalarStyle::Plain && !forced_string {
                    resolve_plain(&text)
                } else {
                    Value::String(text.into_owned())
                };
                let node = Node { pos, kind: NodeKind::Scalar(value) };
                self.remember(anchor, &node);
                self.push_node(node, pos)?;
            }
            Event::Alias(id) => {
                let node = self
                    .anchors
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| YamlError { pos, message: "alias to an unknown anchor".into() })?;
                self.nodes += count_nodes(&node);
                self.push_node(node, pos)?;
            }
            Event::SequenceStart(_, anchor, _) => {
                self.enter(pos)?;
                self.stack.push(Frame::Seq { pos, anchor, items: Vec::new() });
            }
            Event::MappingStart(_, anchor, _) => {
                self.enter(pos)?;
                self.stack.push(Frame::Map { pos, anchor, entries: Vec::new(), key: None });
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq { pos, anchor, items }) = self.stack.pop() {
                    let node = Node { pos, kind: NodeKind::Seq(items) };
                    self.remember(anchor, &node);
                    self.push_node(node, pos)?;
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Map { pos, anchor, entries, .. }) = self.stack.pop() {
                    let node = Node { pos, kind: NodeKind::Map(entries) };
                    self.remember(anchor, &node);
                    self.push_node(node, pos)?;
                }
            }
            // Stream markers, comments, anchor metadata: nothing to build.
            _ => {}
        }
        Ok(())
    }

    fn enter(&mut self, pos: Pos) -> Result<(), YamlError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(YamlError { pos, message: format!("nesting deeper than {MAX_DEPTH} levels") });
        }
        Ok(())
    }

    fn remember(&mut self, anchor: usize, node: &Node) {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
    }

    fn push_node(&mut self, node: Node, pos: Pos) -> Result<(), YamlError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(YamlError { pos, message: format!("more than {MAX_NODES} nodes (alias expansion?)") });
        }
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => {
                    let text = key_text(&node)
                        .ok_or_else(|| YamlError { pos, message: "a mapping key must be a scalar".into() })?;
                    *key = Some((text, node.pos));
                }
                Some((k, kpos)) => entries.push((k, kpos, node)),
            },
        }
        Ok(())
    }

    fn finish_document(&mut self) {
        let root = self.root.take();
        let mut doc = Document {
            index: self.documents.len(),
            value: Value::Null,
            start: self.doc_start,
            duplicates: Vec::new(),
            positions: HashMap::new(),
        };
        if let Some(root) = root {
            let mut pointer = String::new();
            doc.value = convert(root, None, &mut pointer, &mut doc.positions, &mut doc.duplicates);
        }
        self.documents.push(doc);
    }
}

fn count_nodes(node: &Node) -> usize {
    match &node.kind {
        NodeKind::Scalar(_) => 1,
        NodeKind::Seq(items) => 1 + items.iter().map(count_nodes).sum::<usize>(),
        NodeKind::Map(entries) => 1 + entries.iter().map(|(_, _, n)| count_nodes(n)).sum::<usize>(),
    }
}

/// The JSON text of a scalar key (`yes` → `"true"`, `1` → `"1"`), as `YAMLToJSON` writes it.
fn key_text(node: &Node) -> Option<String> {
    match &node.kind {
        NodeKind::Scalar(Value::String(s)) => Some(s.clone()),
        NodeKind::Scalar(Value::Null) => Some("null".into()),
        NodeKind::Scalar(other) => Some(other.to_string()),
        _ => None,
    }
}

/// Escapes one JSON-pointer token (RFC 6901).
pub fn escape_pointer_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains(['~', '/']) { token.replace('~', "~0").replace('/', "~1").into() } else { token.into() }
}

fn convert(
    node: Node,
    key: Option<Pos>,
    pointer: &mut String,
    positions: &mut HashMap<String, NodePos>,
    duplicates: &mut Vec<DuplicateKey>,
) -> Value {
    positions.insert(pointer.clone(), NodePos { value: node.pos, key });
    match node.kind {
        NodeKind::Scalar(v) => v,
        NodeKind::Seq(items) => {
            let len = pointer.len();
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                pointer.push('/');
                pointer.push_str(&i.to_string());
                out.push(convert(item, None, pointer, positions, duplicates));
                pointer.truncate(len);
            }
            Value::Array(out)
        }
        NodeKind::Map(entries) => {
            let len = pointer.len();
            let mut out = Map::new();
            let mut first_seen: HashMap<String, Pos> = HashMap::new();
            let mut merged: Vec<Node> = Vec::new();
            for (k, kpos, value) in entries {
                if k == "<<" {
                    merged.push(value);
                    continue;
                }
                pointer.push('/');
                pointer.push_str(&escape_pointer_token(&k));
                if let Some(first) = first_seen.get(&k) {
                    duplicates.push(DuplicateKey { pointer: pointer.clone(), pos: kpos, first: *first });
                } else {
                    first_seen.insert(k.clone(), kpos);
                }
                let v = convert(value, Some(kpos), pointer, positions, duplicates);
                pointer.truncate(len);
                out.insert(k, v);
            }
            // `<<: *base` (or a list of them): keys of the merged maps fill in what the mapping
            // does not set itself; earlier merge sources win over later ones.
            for source in merged {
                let sources = match source.kind {
                    NodeKind::Seq(items) => items,
                    _ => vec![source],
                };
                for src in sources {
                    if let NodeKind::Map(entries) = src.kind {
                        for (k, kpos, value) in entries {
                            if out.contains_key(&k) {
                                continue;
                            }
                            pointer.push('/');
                            pointer.push_str(&escape_pointer_token(&k));
                            let v = convert(value, Some(kpos), pointer, positions, duplicates);
                            pointer.truncate(len);
                            out.insert(k, v);
                        }
                    }
                }
            }
            Value::Object(out)
        }
    }
}

/// Resolves a plain (unquoted) scalar with the YAML 1.1 rules of go-yaml v2.
pub fn resolve_plain(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Value::Bool(true);
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Value::Bool(false);
        }
        _ => {}
    }
    if let Some(v) = resolve_int(text) {
        return v;
    }
    if let Some(v) = resolve_float(text) {
        return v;
    }
    Value::String(text.to_owned())
}

fn resolve_int(text: &str) -> Option<Value> {
    let (negative, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if body.is_empty() || body.starts_with('_') {
        return None;
    }
    let (radix, digits) = if let Some(d) = body.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = body.strip_prefix("0b") {
        (2, d)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(&digits, radix).ok()?;
    let value = if negative { -(magnitude as i128) } else { magnitude as i128 };
    if let Ok(i) = i64::try_from(value) {
        Some(Value::Number(i.into()))
    } else if let Ok(u) = u64::try_from(value) {
        Some(Value::Number(u.into()))
    } else {
        // Too large for int64/uint64: go-yaml falls back to a float.
        Number::from_f64(value as f64).map(Value::Number)
    }
}

fn resolve_float(text: &str) -> Option<Value> {
    let t = text.strip_prefix(['+', '-']).unwrap_or(text);
    match t {
        ".inf" | ".Inf" | ".INF" | ".nan" | ".NaN" | ".NAN" => {
            // JSON has no infinities or NaN; `YAMLToJSON` fails on them too. Keep the text.
            return Some(Value::String(text.to_owned()));
        }
        _ => {}
    }
    // [-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?
    let bytes = t.as_bytes();
    let mut i = 0;
    let mut mantissa_digits = 0;
    while i < bytes.len() && (bytes[i].is_ascii_digit() || (bytes[i] == b'_' && i > 0)) {
        mantissa_digits += usize::from(bytes[i].is_ascii_digit());
        i += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'_') {
            mantissa_digits += usize::from(bytes[i].is_ascii_digit());
            i += 1;
        }
    }
    if mantissa_digits == 0 {
        return None;
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        i += 1;
        if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    if i != bytes.len() {
        return None;
    }
    let cleaned: String = text.chars().filter(|&c| c != '_').collect();
    let f: f64 = cleaned.parse().ok()?;
    Number::from_f64(f).map(Value::Number)
}

/// Reads every document of a YAML (or JSON) stream into `T` with the validating read of
/// [`crate::decode`]: each document with its issues, which [`Document::nearest_position`]
/// places at line:column. Duplicate keys found by the loader are reported under
/// [`DuplicateKeys::Error`](crate::decode::DuplicateKeys::Error); the loader keeps the last
/// value, as the apiserver's YAML-to-JSON conversion does, whatever the option.
pub fn decode_documents<T>(
    text: &str,
    options: &crate::decode::Options,
) -> Result<Vec<(Document, crate::decode::Decoded<T>)>, YamlError>
where
    T: crate::decode::Decode + crate::Validate,
{
    Ok(parse_documents(text)?
        .into_iter()
        .map(|doc| {
            let mut decoded = crate::decode::from_value::<T>(&doc.value, options);
            if options.duplicate_keys == crate::decode::DuplicateKeys::Error {
                let duplicates = doc.duplicates.iter().map(|d| crate::decode::duplicate_issue(&d.pointer));
                decoded.issues.splice(0..0, duplicates);
            }
            (doc, decoded)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(text: &str) -> Value {
        let mut docs = parse_documents(text).unwrap();
        assert_eq!(docs.len(), 1);
        docs.remove(0).value
    }

    #[test]
    fn yaml_1_1_scalars_resolve_as_kubectl_reads_them() {
        assert_eq!(
            one(
                "a: yes\nb: no\nc: on\nd: off\ne: 0755\nf: 1_000\ng: 0x1F\nh: 1.10\ni: ~\nj: '0755'\nk: =\nl: 1e3\nm: .5\n"
            ),
            json!({"a": true, "b": false, "c": true, "d": false, "e": 493, "f": 1000, "g": 31,
                   "h": 1.1, "i": null, "j": "0755", "k": "=", "l": 1000.0, "m": 0.5})
        );
    }

    #[test]
    fn quoted_and_tagged_scalars_stay_strings() {
        assert_eq!(one("a: \"yes\"\nb: !!str 12\nc: |\n  7\n"), json!({"a": "yes", "b": "12", "c": "7\n"}));
    }

    #[test]
    fn non_string_keys_become_their_json_text() {
        assert_eq!(one("on: 1\n2: x\n"), json!({"true": 1, "2": "x"}));
    }

    #[test]
    fn documents_are_counted_like_load_all() {
        let docs = parse_documents("---\na: 1\n---\n---\nb: 2\n").unwrap();
        let values: Vec<_> = docs.iter().map(|d| d.value.clone()).collect();
        assert_eq!(values, vec![json!({"a": 1}), Value::Null, json!({"b": 2})]);
        assert_eq!(docs[2].start.line, 4);
    }

    #[test]
    fn positions_point_at_values_and_keys() {
        let docs = parse_documents("spec:\n  ports:\n  - name: a\n    port: 80\n").unwrap();
        let d = &docs[0];
        assert_eq!(d.position("/spec/ports/0/port"), Some(Pos { line: 4, column: 11 }));
        assert_eq!(d.key_position("/spec/ports/0/port"), Some(Pos { line: 4, column: 5 }));
        assert_eq!(d.nearest_position("/spec/ports/0/missing"), Pos { line: 3, column: 5 });
    }

    #[test]
    fn duplicate_keys_keep_the_last_and_are_reported() {
        let docs = parse_documents("a: 1\nb: 2\na: 3\n").unwrap();
        assert_eq!(docs[0].value, json!({"a": 3, "b": 2}));
        assert_eq!(
            docs[0].duplicates,
            vec![DuplicateKey {
                pointer: "/a".into(),
                pos: Pos { line: 3, column: 1 },
                first: Pos { line: 1, column: 1 }
            }]
        );
    }

    #[test]
    fn anchors_aliases_and_merge_keys_expand() {
        assert_eq!(
            one("base: &b {x: 1, z: 2}\nuse: {<<: *b, z: 3}\nlist: [*b]\n"),
            json!({"base": {"x": 1, "z": 2}, "use": {"x": 1, "z": 3}, "list": [{"x": 1, "z": 2}]})
        );
    }

    #[test]
    fn syntax_errors_carry_a_position() {
        let err = parse_documents("a: [1, 2\nb: 3\n").unwrap_err();
        assert!(err.pos.line >= 1, "{err}");
        let deep = "[".repeat(MAX_DEPTH + 1);
        let err = parse_documents(&deep).unwrap_err();
        assert!(err.message.contains("nesting") || err.message.contains("recursion"), "{err}");
    }

    #[test]
    fn json_reads_as_yaml() {
        assert_eq!(one("{\"a\": [1, 2.5, \"x\", null, true]}"), json!({"a": [1, 2.5, "x", null, true]}));
    }
}
