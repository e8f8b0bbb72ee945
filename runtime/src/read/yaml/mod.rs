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

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

use granit_parser::{Event, Parser, ScalarStyle, ScanError};
use serde_json::{Map, Number, Value};

mod json;

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
    /// JSON pointers of plain scalars that look like numbers but do not fit a float64
    /// (`1e400`): YAML reads them as strings (go-yaml does), which a type error then calls
    /// `"string"`; callers can say why.
    pub out_of_range: Vec<String>,
    /// The nodes as read, for positions: an alias shares its anchor's nodes, so positions cost
    /// the text's size, not the expanded value's.
    tree: Option<Node>,
}

impl Document {
    /// Where the value at a JSON pointer starts (`""` is the whole document).
    pub fn position(&self, pointer: &str) -> Option<Pos> {
        self.find(pointer).map(|(node, _)| node.place.into())
    }

    /// Where the mapping key of the value at `pointer` stands, or the value itself for array
    /// items and the root.
    pub fn key_position(&self, pointer: &str) -> Option<Pos> {
        self.find(pointer).map(|(node, key)| key.unwrap_or(node.place).into())
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

    /// Drops the positions of the document's nodes, which take more memory than its value:
    /// [`Document::position`] then finds nothing, and [`Document::nearest_position`] gives the
    /// document's start.
    pub fn forget_positions(&mut self) {
        self.tree = None;
    }

    /// The node at a JSON pointer, with the position of its mapping key.
    fn find(&self, pointer: &str) -> Option<(&Node, Option<Place>)> {
        let mut node = self.tree.as_ref()?;
        let mut key = None;
        if pointer.is_empty() {
            return Some((node, None));
        }
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = crate::report::path::unescape_token(token);
            // An alias is found at its anchor's nodes, but the value itself is where the alias
            // stands.
            let (next, next_key) = match &node.target().kind {
                NodeKind::Seq(items) => (token.parse::<usize>().ok().and_then(|i| items.get(i))?, None),
                NodeKind::Map(map) => {
                    let entry = map.get(&token)?;
                    (&entry.value, Some(entry.key_place))
                }
                _ => return None,
            };
            node = next;
            key = next_key;
        }
        Some((node, key))
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

/// The deepest nesting accepted, aliases expanded; deeper input is refused rather than risking
/// the stack in code that later walks the value recursively. It is serde_json's recursion
/// limit, so a value read from YAML is no deeper than one read from JSON (the webhook's read);
/// the deepest corpus file nests 38 levels.
pub const MAX_DEPTH: usize = 128;

/// Reads every document of a YAML (or JSON) stream.
pub fn parse_documents(text: &str) -> Result<Vec<Document>, YamlError> {
    parse(text, looks_like_json(text))
}

/// [`parse_documents`] of a text known to be JSON (a `.json` file), whatever it starts with.
pub fn parse_json_documents(text: &str) -> Result<Vec<Document>, YamlError> {
    parse(text, true)
}

fn parse(text: &str, json: bool) -> Result<Vec<Document>, YamlError> {
    let mut documents = Vec::new();
    parse_each(text, json, &mut |doc| documents.push(doc))?;
    Ok(documents)
}

/// Reads the documents of a YAML stream (or a JSON one, read as kubectl's JSON decoder reads it,
/// when `json`) one at a time, handing each to `each` as soon as it ends: a long stream then costs
/// the memory of its largest document, not of all of them. Stops at the first syntax error,
/// after the documents before it were handed on.
pub fn parse_each(text: &str, json: bool, each: &mut dyn FnMut(Document)) -> Result<(), YamlError> {
    let mut builder = Builder {
        json,
        each,
        count: 0,
        stack: Vec::new(),
        anchors: HashMap::new(),
        root: None,
        doc_start: Pos::default(),
        out_of_range: Default::default(),
    };
    if json {
        // kubectl reads a stream that starts with `{` with its JSON decoder.
        return json::read(text, &mut builder);
    }
    let mut parser = Parser::new_from_str(text);
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(scan_error)?;
        builder.on_event(event, pos_of(&span.start))?;
    }
    Ok(())
}

/// A scalar of a JSON text, as kubectl's JSON decoder takes it: a double-quoted string, or a
/// JSON number (decimal, no leading zero or `+`), `true`, `false` or `null`. YAML 1.1's words and
/// numbers (`0x10`, `010`, `+1`, `yes`, `~`, `.inf`) and single quotes are syntax errors.
fn json_scalar(text: &str, style: ScalarStyle, pos: Pos) -> Result<(), YamlError> {
    let shown = || text.chars().take(40).collect::<String>();
    match style {
        ScalarStyle::DoubleQuoted => Ok(()),
        ScalarStyle::Plain if matches!(text, "true" | "false" | "null") || is_json_number(text) => Ok(()),
        ScalarStyle::Plain => Err(YamlError {
            pos,
            message: format!(
                "invalid JSON value {}: a JSON number is decimal (no 0x, leading zero or +), other words are true, false or null, and strings are double-quoted",
                crate::report::issue::go_quote(&shown())
            ),
        }),
        _ => Err(YamlError {
            pos,
            message: format!(
                "invalid JSON value {}: strings are double-quoted",
                crate::report::issue::go_quote(&shown())
            ),
        }),
    }
}

/// RFC 8259's `number`: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn is_json_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

/// The documents of a YAML stream that are not empty, as [`scan_types`] reads them: how many,
/// and the types they name. A summary, not a list: a stream of a million small documents costs
/// the types it names, not a pair of strings each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScannedTypes {
    /// Documents that are not empty.
    pub documents: usize,
    /// Their `apiVersion` and `kind` (`""` where absent or not a string), each pair once.
    pub types: HashSet<(String, String)>,
}

impl ScannedTypes {
    /// Counts a document of these types.
    pub fn add(&mut self, api_version: String, kind: String) {
        self.documents += 1;
        self.types.insert((api_version, kind));
    }
}

/// How many documents of a YAML stream are not empty and the `apiVersion` and `kind` they name,
/// read from the parser's events alone: no nodes, no values, about half the time of
/// [`parse_each`]. `None` when that cannot tell them as the parse would (the text does not
/// parse, or a root key or its value is an alias or a `<<` merge): parse then.
pub fn scan_types(text: &str) -> Option<ScannedTypes> {
    let mut types = ScannedTypes::default();
    // Levels of collections open; the root mapping's next key, or the key whose value comes.
    let mut depth = 0usize;
    let mut root_mapping = false;
    let mut pending: Option<Option<&'static str>> = None;
    let mut current = (String::new(), String::new());
    let mut parser = Parser::new_from_str(text);
    while let Some(event) = parser.next_event() {
        let (event, _) = event.ok()?;
        // At the root mapping's level a scalar is a key or its value.
        let at_root_entry = root_mapping && depth == 1;
        match event {
            Event::DocumentStart(..) => {
                (depth, root_mapping, pending) = (0, false, None);
                current = (String::new(), String::new());
            }
            Event::DocumentEnd => {}
            Event::Scalar(value, style, _, tag) if depth == 0 => {
                // A scalar document: empty (null) documents are not counted, as parsed.
                let forced_string = tag.as_deref().is_some_and(is_str_tag);
                if style != ScalarStyle::Plain || forced_string || !resolve_plain(&value).is_null() {
                    types.add(String::new(), String::new());
                }
            }
            Event::Scalar(value, style, _, tag) if at_root_entry => match pending.take() {
                None => {
                    if value == MERGE_KEY && style == ScalarStyle::Plain {
                        return None;
                    }
                    pending = Some(match value.as_ref() {
                        "apiVersion" => Some("apiVersion"),
                        "kind" => Some("kind"),
                        _ => None,
                    });
                }
                Some(key) => {
                    let forced_string = tag.as_deref().is_some_and(is_str_tag);
                    let text = if style == ScalarStyle::Plain && !forced_string {
                        resolve_plain(&value).as_str().map(str::to_owned).unwrap_or_default()
                    } else {
                        value.into_owned()
                    };
                    match key {
                        Some("apiVersion") => current.0 = text,
                        Some(_) => current.1 = text,
                        None => {}
                    }
                }
            },
            Event::Alias(_) if at_root_entry => return None,
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if depth == 0 {
                    root_mapping = matches!(event, Event::MappingStart(..));
                    if !root_mapping {
                        types.add(String::new(), String::new());
                    }
                } else if at_root_entry {
                    match pending.take() {
                        // A key that is a collection: the parse refuses it.
                        None => return None,
                        // A collection value: not a string.
                        Some(Some("apiVersion")) => current.0.clear(),
                        Some(Some(_)) => current.1.clear(),
                        Some(None) => {}
                    }
                }
                depth += 1;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                depth -= 1;
                if depth == 0 && root_mapping {
                    let (api_version, kind) = std::mem::take(&mut current);
                    types.add(api_version, kind);
                }
            }
            _ => {}
        }
    }
    Some(types)
}

/// `!!str`: the scalar is a string whatever it looks like.
fn is_str_tag(tag: &granit_parser::Tag) -> bool {
    tag.suffix() == "str" || tag.suffix() == "tag:yaml.org,2002:str"
}

/// Whether a `<<` key is YAML's merge key, as go-yaml's `isMerge` decides: plain and untagged, or
/// tagged `!!merge`. A quoted `"<<"` is an ordinary key.
fn is_merge_key(style: ScalarStyle, tag: Option<&granit_parser::Tag>) -> bool {
    match tag {
        None => style == ScalarStyle::Plain,
        Some(tag) => tag.suffix() == "merge" || tag.suffix() == "tag:yaml.org,2002:merge",
    }
}

/// Whether kubectl would read the text as JSON: its first non-blank character is `{`.
pub fn looks_like_json(text: &str) -> bool {
    text.trim_start().starts_with('{')
}

fn scan_error(e: ScanError) -> YamlError {
    YamlError { pos: pos_of(e.marker()), message: e.info().to_owned() }
}

fn pos_of(m: &granit_parser::Marker) -> Pos {
    Pos { line: m.line(), column: m.col() + 1 }
}

/// A node as read: anchored nodes are shared ([`NodeKind::Shared`]) by the document and every
/// alias to them, so an alias costs one node here whatever it expands to. Nodes are most of a
/// document's memory (one per scalar of a long list), so each is kept to 48 bytes.
#[derive(Clone, Debug)]
struct Node {
    place: Place,
    /// Levels of sequences and mappings in the node's value, aliases expanded (at most
    /// [`MAX_DEPTH`]).
    height: u8,
    kind: NodeKind,
}

/// A [`Pos`] in half the room.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct Place {
    line: u32,
    column: u32,
}

impl From<Pos> for Place {
    fn from(pos: Pos) -> Self {
        let narrow = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Place { line: narrow(pos.line), column: narrow(pos.column) }
    }
}

impl From<Place> for Pos {
    fn from(place: Place) -> Self {
        Pos { line: place.line as usize, column: place.column as usize }
    }
}

#[derive(Clone, Debug)]
enum NodeKind {
    Scalar(Value),
    Seq(Box<[Node]>),
    Map(Box<MapNode>),
    /// An anchored node (`alias: false`) or an alias to one (`alias: true`).
    Shared {
        target: Arc<Node>,
        alias: bool,
    },
}

impl Node {
    /// The node itself, or the anchored node it shares.
    fn target(&self) -> &Node {
        match &self.kind {
            NodeKind::Shared { target, .. } => target,
            _ => self,
        }
    }
}

#[derive(Clone, Debug)]
struct Entry {
    key: String,
    key_place: Place,
    value: Node,
    /// The key is YAML's merge key: a plain, untagged `<<` (go-yaml's `isMerge`). A quoted
    /// `"<<"`, and any key of a JSON text, is an ordinary key.
    merge: bool,
}

/// A mapping's entries in their order, `<<` merge keys included. Most mappings are small and
/// there is one for each, so each part takes the room it needs and no more.
#[derive(Clone, Debug, Default)]
struct MapNode {
    entries: Box<[Entry]>,
    /// Key → index of its last entry, for mappings too long to search (findings at many keys
    /// of a long mapping would otherwise be quadratic).
    #[allow(clippy::box_collection, reason = "boxed, the mappings without one (nearly all) hold 8 bytes, not 48")]
    index: Option<Box<HashMap<String, usize>>>,
    /// Indices of the `<<` entries, found once.
    merges: Box<[usize]>,
}

const MERGE_KEY: &str = "<<";
/// Mappings with more entries than this get an index for [`MapNode::get`].
const INDEXED_MAP: usize = 16;

impl MapNode {
    fn new(entries: Vec<Entry>) -> Self {
        let index = (entries.len() > INDEXED_MAP).then(|| {
            Box::new(entries.iter().enumerate().filter(|(_, e)| !e.merge).map(|(i, e)| (e.key.clone(), i)).collect())
        });
        let merges = entries.iter().enumerate().filter(|(_, e)| e.merge).map(|(i, _)| i).collect();
        MapNode { entries: entries.into_boxed_slice(), index, merges }
    }

    /// The entry whose value the converted mapping holds at `key`: its own last one (the
    /// apiserver keeps the last duplicate), else the first among the merged mappings.
    fn get(&self, key: &str) -> Option<&Entry> {
        let own = match &self.index {
            Some(index) => index.get(key).map(|&i| &self.entries[i]),
            None => self.entries.iter().rev().find(|e| !e.merge && e.key == key),
        };
        if own.is_some() {
            return own;
        }
        self.merged().into_iter().find(|e| e.key == key)
    }

    /// The entries that `<<` merges bring, in precedence order (earlier wins): each merged
    /// mapping's own entries, then what it merges in turn.
    fn merged(&self) -> Vec<&Entry> {
        let mut out = Vec::new();
        for merge in self.merges.iter().map(|&i| &self.entries[i]) {
            let sources: Vec<&Node> = match &merge.value.target().kind {
                NodeKind::Seq(items) => items.iter().map(Node::target).collect(),
                _ => vec![merge.value.target()],
            };
            for source in sources {
                if let NodeKind::Map(map) = &source.kind {
                    out.extend(map.entries.iter().filter(|e| !e.merge));
                    out.extend(map.merged());
                }
            }
        }
        out
    }
}

enum Frame {
    Seq { pos: Pos, anchor: usize, items: Vec<Node> },
    Map { pos: Pos, anchor: usize, entries: Vec<Entry>, key: Option<(String, Place, bool)> },
}

struct Builder<'e> {
    /// Where each document goes when it ends.
    each: &'e mut dyn FnMut(Document),
    /// Documents ended so far.
    count: usize,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Arc<Node>>,
    root: Option<Node>,
    doc_start: Pos,
    /// The text is JSON (see [`looks_like_json`]).
    json: bool,
    /// Where plain scalars beyond float64 stand (see [`Document::out_of_range`]).
    out_of_range: HashSet<Place>,
}

impl Builder<'_> {
    fn on_event(&mut self, event: Event<'_>, pos: Pos) -> Result<(), YamlError> {
        match event {
            Event::DocumentStart(..) => {
                self.doc_start = pos;
                self.root = None;
                self.anchors.clear();
            }
            Event::DocumentEnd => self.finish_document()?,
            Event::Scalar(text, style, anchor, tag) => {
                let forced_string = tag.as_deref().is_some_and(is_str_tag);
                if self.json {
                    json_scalar(&text, style, pos)?;
                }
                let merge = !self.json && text == MERGE_KEY && is_merge_key(style, tag.as_deref());
                let value = if style == ScalarStyle::Plain && !forced_string {
                    let value = resolve_plain(&text);
                    // YAML reads a number beyond float64 as a string (go-yaml does); JSON's
                    // reader refuses it.
                    if value.is_string() && beyond_float64(&text) {
                        if self.json {
                            let shown: String = text.chars().take(40).collect();
                            let message = format!("number {shown} is out of range: a JSON number must fit a float64");
                            return Err(YamlError { pos, message });
                        }
                        self.out_of_range.insert(pos.into());
                    }
                    value
                } else {
                    Value::String(text.into_owned())
                };
                let node = self.anchored(anchor, Node { place: pos.into(), height: 0, kind: NodeKind::Scalar(value) });
                self.push(node, pos, merge)?;
            }
            Event::Alias(id) => {
                let target = self
                    .anchors
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| YamlError { pos, message: "alias to an unknown anchor".into() })?;
                // An alias inside an alias nests values deeper than the text shows.
                if self.stack.len() + usize::from(target.height) > MAX_DEPTH {
                    return Err(YamlError {
                        pos,
                        message: format!("nesting deeper than {MAX_DEPTH} levels once aliases are expanded"),
                    });
                }
                let height = target.height;
                let node = Node { place: pos.into(), height, kind: NodeKind::Shared { target, alias: true } };
                self.push(node, pos, false)?;
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
                    let height = 1 + items.iter().map(|n| n.height).max().unwrap_or(0);
                    let node = Node { place: pos.into(), height, kind: NodeKind::Seq(items.into_boxed_slice()) };
                    let node = self.anchored(anchor, node);
                    self.push(node, pos, false)?;
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Map { pos, anchor, entries, .. }) = self.stack.pop() {
                    let height = 1 + entries.iter().map(|e| e.value.height).max().unwrap_or(0);
                    let node = Node { place: pos.into(), height, kind: NodeKind::Map(Box::new(MapNode::new(entries))) };
                    let node = self.anchored(anchor, node);
                    self.push(node, pos, false)?;
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

    /// An anchored node becomes shared, so aliases to it cost nothing until conversion.
    fn anchored(&mut self, anchor: usize, node: Node) -> Node {
        if anchor == 0 {
            return node;
        }
        let (place, height) = (node.place, node.height);
        let target = Arc::new(node);
        self.anchors.insert(anchor, Arc::clone(&target));
        Node { place, height, kind: NodeKind::Shared { target, alias: false } }
    }

    /// Puts a finished node in its parent; `merge` says it is a merge key if it is a key.
    fn push(&mut self, node: Node, pos: Pos, merge: bool) -> Result<(), YamlError> {
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => {
                    let text = key_text(&node)
                        .ok_or_else(|| YamlError { pos, message: "a mapping key must be a scalar".into() })?;
                    *key = Some((text, node.place, merge));
                }
                Some((key, key_place, merge)) => entries.push(Entry { key, key_place, value: node, merge }),
            },
        }
        Ok(())
    }

    fn finish_document(&mut self) -> Result<(), YamlError> {
        let tree = self.root.take();
        self.anchors.clear();
        let mut doc = Document {
            index: self.count,
            value: Value::Null,
            start: self.doc_start,
            duplicates: Vec::new(),
            out_of_range: Vec::new(),
            tree: None,
        };
        if let Some(root) = &tree {
            let mut conversion = Conversion {
                out_of_range_at: &self.out_of_range,
                out_of_range: Vec::new(),
                decoded: 0,
                aliased: 0,
                alias_depth: 0,
                alias_pos: Pos::default(),
            };
            doc.value = conversion.convert(root, &mut String::new(), &mut doc.duplicates)?;
            doc.out_of_range = conversion.out_of_range;
        }
        self.out_of_range.clear();
        doc.tree = tree;
        self.count += 1;
        (self.each)(doc);
        Ok(())
    }
}

/// The JSON text of a scalar key (`yes` → `"true"`, `1` → `"1"`), as `YAMLToJSON` writes it.
fn key_text(node: &Node) -> Option<String> {
    match &node.target().kind {
        NodeKind::Scalar(Value::String(s)) => Some(s.clone()),
        NodeKind::Scalar(Value::Null) => Some("null".into()),
        NodeKind::Scalar(other) => Some(other.to_string()),
        _ => None,
    }
}

/// The lines of a text as the reader counts them (what [`Pos::line`] numbers): YAML breaks
/// lines at `\r\n`, `\n` and a lone `\r` alike.
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let text = rest.take().filter(|r| !r.is_empty())?;
        match text.find(['\n', '\r']) {
            Some(i) => {
                let skip = if text[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = Some(&text[i + skip..]);
                Some(&text[..i])
            }
            None => Some(text),
        }
    })
}

/// The conversion of one document to JSON, counting what aliases expand to.
struct Conversion<'a> {
    /// Where plain scalars beyond float64 stand, and the pointers they were found at.
    out_of_range_at: &'a HashSet<Place>,
    out_of_range: Vec<String>,
    /// Nodes converted.
    decoded: usize,
    /// Nodes converted inside an alias.
    aliased: usize,
    /// How many aliases enclose the node being converted.
    alias_depth: usize,
    /// Where the outermost of them stands: the place an error of expansion names.
    alias_pos: Pos,
}

impl Conversion<'_> {
    fn convert(
        &mut self,
        node: &Node,
        pointer: &mut String,
        duplicates: &mut Vec<DuplicateKey>,
    ) -> Result<Value, YamlError> {
        if !matches!(node.kind, NodeKind::Shared { .. }) {
            self.count()?; // a shared node counts as its target
        }
        Ok(match &node.kind {
            NodeKind::Scalar(v) => {
                if self.out_of_range_at.contains(&node.place) {
                    self.out_of_range.push(pointer.clone());
                }
                v.clone()
            }
            NodeKind::Shared { target, alias } => {
                if *alias && self.alias_depth == 0 {
                    self.alias_pos = node.place.into();
                }
                self.alias_depth += usize::from(*alias);
                let value = self.convert(target, pointer, duplicates);
                self.alias_depth -= usize::from(*alias);
                value?
            }
            NodeKind::Seq(items) => {
                let len = pointer.len();
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    pointer.push('/');
                    pointer.push_str(&i.to_string());
                    out.push(self.convert(item, pointer, duplicates)?);
                    pointer.truncate(len);
                }
                Value::Array(out)
            }
            NodeKind::Map(map) => {
                let len = pointer.len();
                let mut out = Map::new();
                let mut first_seen: HashMap<&str, Place> = HashMap::new();
                for entry in map.entries.iter().filter(|e| !e.merge) {
                    pointer.push('/');
                    pointer.push_str(&crate::report::path::escape_token(&entry.key));
                    if let Some(first) = first_seen.get(entry.key.as_str()) {
                        // Once, where it is written, not again in every alias to it.
                        if self.alias_depth == 0 {
                            duplicates.push(DuplicateKey {
                                pointer: pointer.clone(),
                                pos: entry.key_place.into(),
                                first: (*first).into(),
                            });
                        }
                    } else {
                        first_seen.insert(&entry.key, entry.key_place);
                    }
                    let v = self.convert(&entry.value, pointer, duplicates)?;
                    pointer.truncate(len);
                    out.insert(entry.key.clone(), v);
                }
                // `<<: *base` (or a list of them): keys of the merged maps fill in what the
                // mapping does not set itself; earlier merge sources win over later ones. What
                // they bring counts as aliased (it nearly always is `<<: *anchor`).
                if let (Some(&first), 0) = (map.merges.first(), self.alias_depth) {
                    self.alias_pos = map.entries[first].value.place.into();
                }
                self.alias_depth += map.merges.len();
                for entry in map.merged() {
                    if out.contains_key(&entry.key) {
                        continue;
                    }
                    pointer.push('/');
                    pointer.push_str(&crate::report::path::escape_token(&entry.key));
                    let v = self.convert(&entry.value, pointer, duplicates);
                    pointer.truncate(len);
                    out.insert(entry.key.clone(), v?);
                }
                self.alias_depth -= map.merges.len();
                Value::Object(out)
            }
        })
    }

    /// go-yaml's guard against alias bombs (`decoder.unmarshal`, which kubectl's and the
    /// apiserver's YAML readers run): once past 1,000 nodes and 100 aliased ones, the share of
    /// nodes that come from aliases may be 99% for documents of up to 400,000 nodes, falling
    /// to 10% at 4,000,000.
    fn count(&mut self) -> Result<(), YamlError> {
        self.decoded += 1;
        if self.alias_depth > 0 {
            self.aliased += 1;
        }
        if self.aliased > 100
            && self.decoded > 1000
            && self.aliased as f64 / self.decoded as f64 > allowed_alias_ratio(self.decoded)
        {
            let pos = self.alias_pos;
            return Err(YamlError { pos, message: "document contains excessive aliasing".into() });
        }
        Ok(())
    }
}

/// go-yaml's `allowedAliasRatio`.
fn allowed_alias_ratio(decoded: usize) -> f64 {
    const LOW: usize = 400_000;
    const HIGH: usize = 4_000_000;
    match decoded {
        ..=LOW => 0.99,
        HIGH.. => 0.10,
        _ => 0.99 - 0.89 * ((decoded - LOW) as f64 / (HIGH - LOW) as f64),
    }
}

/// A number too large for a float64 (`1e400`, 400 digits).
fn beyond_float64(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    digits.starts_with(|c: char| c.is_ascii_digit()) && text.parse::<f64>().is_ok_and(f64::is_infinite)
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
    options: &crate::read::decode::Options,
) -> Result<Vec<(Document, crate::read::decode::Decoded<T>)>, YamlError>
where
    T: crate::read::decode::Decode + crate::typed::Validate,
{
    Ok(parse_documents(text)?
        .into_iter()
        .map(|doc| {
            let mut decoded = crate::read::decode::from_value::<T>(&doc.value, options);
            if options.duplicate_keys == crate::read::decode::DuplicateKeys::Error {
                let duplicates = doc.duplicates.iter().map(|d| crate::read::decode::duplicate_issue(&d.pointer));
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
        // go-yaml's `isMerge`: only a plain or `!!merge` `<<` merges; a quoted one is a key, and
        // in JSON every `"<<"` is.
        assert_eq!(one("b: &b {x: 1}\nu: {!!merge <<: *b}\n")["u"], json!({"x": 1}));
        assert_eq!(one("b: &b {x: 1}\nu: {\"<<\": *b}\n")["u"], json!({"<<": {"x": 1}}));
        assert_eq!(one("{\"u\": {\"<<\": null, \"a\": 1}}")["u"], json!({"<<": null, "a": 1}));
    }

    #[test]
    fn syntax_errors_carry_a_position() {
        let err = parse_documents("a: [1, 2\nb: 3\n").unwrap_err();
        assert!(err.pos.line >= 1, "{err}");
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let err = parse_documents(&deep).unwrap_err();
        assert!(err.message.contains("nesting") || err.message.contains("recursion"), "{err}");
    }

    /// The billion laughs: nine levels of ten aliases each would expand to 10^9 nodes. go-yaml's
    /// ratio refuses it after a few thousand, as kubectl and the apiserver would.
    #[test]
    fn alias_bombs_are_refused_as_excessive_aliasing() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..10 {
            let prev = format!("*a{}", level - 1);
            text.push_str(&format!("a{level}: &a{level} [{}]\n", vec![prev; 10].join(", ")));
        }
        let err = parse_documents(&text).unwrap_err();
        assert_eq!(err.message, "document contains excessive aliasing");
        let line = text.lines().nth(err.pos.line - 1).unwrap();
        assert!(line[err.pos.column - 1..].starts_with("*a"), "placed at the alias it was expanding: {err}");
        // Aliasing within go-yaml's ratio still expands.
        let fine = "base: &b {x: 1}\nitems: [*b, *b, *b]\n";
        assert_eq!(one(fine)["items"], json!([{"x": 1}, {"x": 1}, {"x": 1}]));
    }

    /// An alias inside an alias nests the value deeper than the text: the depth limit counts
    /// the expanded value, before anything recurses over it.
    #[test]
    fn aliases_cannot_nest_values_past_the_depth_limit() {
        let mut text = String::from("a0: &a0 []\n");
        for level in 1..=MAX_DEPTH + 5 {
            text.push_str(&format!("a{level}: &a{level} [*a{}]\n", level - 1));
        }
        let err = parse_documents(&text).unwrap_err();
        assert!(err.message.contains("once aliases are expanded"), "{err}");
        assert_eq!(err.pos.line, MAX_DEPTH);
        // The deepest value accepted converts and is placed, on a test thread's stack.
        let chain = |levels: usize| {
            // Plain nodes enough to keep the expansion within go-yaml's aliasing ratio.
            let mut text = format!("pad: [{}]\na0: &a0 []\n", vec!["0"; 2_000].join(", "));
            for level in 1..=levels {
                text.push_str(&format!("a{level}: &a{level} [*a{}]\n", level - 1));
            }
            parse_documents(&text)
        };
        assert!(chain(MAX_DEPTH - 1).is_err());
        let docs = chain(MAX_DEPTH - 2).unwrap();
        // Down to the alias `*a0`, where `a1` stands on line 3.
        let pointer = format!("/a{}{}", MAX_DEPTH - 2, "/0".repeat(MAX_DEPTH - 2));
        assert_eq!(docs[0].position(&pointer), Some(Pos { line: 3, column: 10 }));
    }

    #[test]
    fn positions_reach_through_aliases_and_merges() {
        let text = "base: &b\n  x: 1\n  deep: {w: 2}\nuse:\n  <<: *b\n  z: 3\nlist:\n- *b\n";
        let d = &parse_documents(text).unwrap()[0];
        // Inside an alias: the anchor's nodes. The alias's own value: where the alias stands.
        assert_eq!(d.position("/list/0/deep/w"), Some(Pos { line: 3, column: 13 }));
        assert_eq!(d.position("/list/0"), Some(Pos { line: 8, column: 3 }));
        // A merged key: where the merged mapping writes it; an own key: the mapping's own.
        assert_eq!(d.key_position("/use/x"), Some(Pos { line: 2, column: 3 }));
        assert_eq!(d.key_position("/use/z"), Some(Pos { line: 6, column: 3 }));
        assert_eq!(d.position("/use/<<"), None);
    }

    /// Positions of every key of a long mapping: linear (an index per long mapping), where a
    /// search of the entries would be quadratic.
    #[test]
    fn positions_of_many_keys_are_linear() {
        let ratio = crate::__private::growth_ratio(2_000, |n| {
            let text: String = (0..n).map(|i| format!("k{i}: {i}\n")).collect();
            let d = &parse_documents(&text).unwrap()[0];
            for i in 0..n {
                assert_eq!(d.key_position(&format!("/k{i}")).map(|p| p.line), Some(i + 1));
            }
        });
        assert!(ratio < crate::__private::LINEAR_GROWTH, "10x the keys took {ratio:.1}x the time");
    }

    #[test]
    fn lines_break_as_positions_count_them() {
        let text = "a: 1\rb: 2\r\nc: [x,\n  y]\n";
        assert_eq!(lines(text).collect::<Vec<_>>(), ["a: 1", "b: 2", "c: [x,", "  y]"]);
        let d = &parse_documents(text).unwrap()[0];
        assert_eq!(d.position("/b"), Some(Pos { line: 2, column: 4 }));
        assert_eq!(d.position("/c/1"), Some(Pos { line: 4, column: 3 }));
    }

    /// JSON is read as kubectl reads it: keys of any length, numbers within float64.
    #[test]
    fn json_is_read_as_kubectls_json_decoder_reads_it() {
        let key = "k".repeat(5_000);
        let docs = parse_documents(&format!("{{\"{key}\": 1}}")).unwrap();
        assert_eq!(docs[0].value[&key], 1);
        assert!(parse_documents(&format!("{key}x: 1")).is_err(), "YAML keeps YAML's limit");
        let err = parse_documents("{\"a\": 1e400}").unwrap_err();
        assert_eq!(err.message, "number 1e400 is out of range: a JSON number must fit a float64");
        assert_eq!(err.pos, Pos { line: 1, column: 7 });
        let err = parse_documents(&format!("{{\"a\": {}}}", "9".repeat(10_000))).unwrap_err();
        assert!(err.message.starts_with("number 9999"), "{err}");
        // YAML reads them as strings, as go-yaml does, and says where.
        let docs = parse_documents("a: 1e400\nb: [1, 2e999]\n").unwrap();
        assert_eq!(docs[0].value, json!({"a": "1e400", "b": [1, "2e999"]}));
        assert_eq!(docs[0].out_of_range, ["/a", "/b/1"]);
    }

    /// YAML 1.1's numbers and words are not JSON: a JSON text that uses them is a syntax error at
    /// the value, as kubectl's JSON decoder says; a `.json` file is JSON whatever it starts with.
    #[test]
    fn json_has_json_numbers_and_words_only() {
        for bad in ["0x10", "010", "+1", "yes", "~", ".inf", "1.", ".5", "01.5", "1e", "'x'", "abc"] {
            let err = parse_documents(&format!("{{\"a\": {bad}}}")).unwrap_err();
            assert!(err.message.starts_with("invalid JSON value"), "{bad}: {err}");
            assert_eq!(err.pos, Pos { line: 1, column: 7 }, "{bad}");
        }
        for good in ["0", "-0", "10", "1.5", "-1.5e+3", "2E-7", "true", "null", "\"0x10\""] {
            assert!(parse_documents(&format!("{{\"a\": {good}}}")).is_ok(), "{good}");
        }
        assert!(parse_json_documents("[0x10]").is_err());
        assert_eq!(parse_documents("[0x10]").unwrap()[0].value, json!([16]), "YAML stays YAML");
    }

    /// The types the event scan reads are the parse's, or the scan says it cannot tell.
    #[test]
    fn scanned_types_are_the_parsed_ones() {
        let parsed = |text: &str| -> ScannedTypes {
            let text_at = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
            let mut types = ScannedTypes::default();
            for d in parse_documents(text).unwrap().into_iter().filter(|d| !d.value.is_null()) {
                types.add(text_at(&d.value, "apiVersion"), text_at(&d.value, "kind"));
            }
            types
        };
        for text in [
            "apiVersion: v1\nkind: Pod\nspec: {kind: Inner, apiVersion: x}\n---\n---\n~\n---\nkind: yes\napiVersion: 'v2'\n",
            "kind: A\nkind: B\n---\n[1, 2]\n---\nhello\n---\n!!str null\n---\n\"\"\n---\nkind: [x]\napiVersion: !!str 1\n",
            "a: {apiVersion: no}\n\"kind\": \"Q\"\napiVersion: &v v9\n",
            "kind: A\n---\n{}\n---\nkind: A\n---\n",
        ] {
            assert_eq!(scan_types(text).as_ref(), Some(&parsed(text)), "{text}");
        }
        for unknowable in ["base: &b {kind: K}\n<<: *b\n", "k: &k Pod\nkind: *k\n", "? [a]\n: 1\n", "a: [\n"] {
            assert_eq!(scan_types(unknowable), None, "{unknowable}");
        }
    }

    #[test]
    fn json_reads_as_yaml() {
        assert_eq!(one("{\"a\": [1, 2.5, \"x\", null, true]}"), json!({"a": [1, 2.5, "x", null, true]}));
    }
}
