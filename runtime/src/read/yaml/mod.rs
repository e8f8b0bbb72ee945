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

use granit_parser::{Event, Parser, ScalarStyle, ScanError};
use serde_json::{Map, Number, Value};

mod json;
mod tape;

use tape::{INDEXED, Kind, Lines, Node, Tape, narrow};

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

/// One document of a YAML stream, converted to JSON; or, as [`read_each`] hands it on, as read
/// (`Document<()>`), its value made when asked for and with only what is wanted of it
/// ([`Document::value_selected`]).
#[derive(Clone, Debug)]
pub struct Document<V = Value> {
    /// 0-based index of the document in its stream.
    pub index: usize,
    /// The document as JSON (`null` for an empty document).
    pub value: V,
    /// Where the document starts.
    pub start: Pos,
    /// Keys that appeared more than once in a mapping.
    pub duplicates: Vec<DuplicateKey>,
    /// JSON pointers of plain scalars that look like numbers but do not fit a float64
    /// (`1e400`): YAML reads them as strings (go-yaml does), which a type error then calls
    /// `"string"`; callers can say why.
    pub out_of_range: Vec<String>,
    /// The nodes as read, for positions.
    nodes: Option<Nodes>,
}

/// A document's nodes as read: an alias is one node naming its anchor's, so positions cost the
/// text's size, not the expanded value's.
#[derive(Clone, Debug)]
struct Nodes {
    tape: Tape,
    lines: Lines,
    root: usize,
}

impl<V> Document<V> {
    /// Where the value at a JSON pointer starts (`""` is the whole document).
    pub fn position(&self, pointer: &str) -> Option<Pos> {
        let nodes = self.nodes.as_ref()?;
        self.find(pointer).map(|(at, _)| nodes.lines.pos(at))
    }

    /// Where the mapping key of the value at `pointer` stands, or the value itself for array
    /// items and the root.
    pub fn key_position(&self, pointer: &str) -> Option<Pos> {
        let nodes = self.nodes.as_ref()?;
        self.find(pointer).map(|(at, key)| nodes.lines.pos(key.unwrap_or(at)))
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
        self.nodes = None;
    }

    /// Where the node at a JSON pointer stands, and its mapping key if it has one (character
    /// indices into the text).
    fn find(&self, pointer: &str) -> Option<(u32, Option<u32>)> {
        let Nodes { tape, .. } = self.nodes.as_ref()?;
        let (node, key) = self.node(pointer)?;
        Some((tape.nodes[node].at, key.map(|k| tape.nodes[k].at)))
    }

    /// The node at a JSON pointer, and its mapping key's if it has one.
    fn node(&self, pointer: &str) -> Option<(usize, Option<usize>)> {
        let Nodes { tape, root, .. } = self.nodes.as_ref()?;
        let (mut node, mut key) = (*root, None);
        if pointer.is_empty() {
            return Some((node, None));
        }
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = crate::report::path::unescape_token(token);
            // An alias is found at its anchor's nodes, but the value itself is where the alias
            // stands.
            let container = tape.target(node);
            (node, key) = match tape.nodes[container].kind {
                Kind::Seq => (tape.item(container, token.parse::<usize>().ok()?)?, None),
                Kind::Map => {
                    let k = tape.get(container, &token)?;
                    (k + 1, Some(k))
                }
                _ => return None,
            };
        }
        Some((node, key))
    }
}

impl<V> Document<V> {
    /// The document's value, and the document without it (its positions).
    pub fn take_value(self) -> (V, Document<()>) {
        let Document { index, value, start, duplicates, out_of_range, nodes } = self;
        (value, Document { index, value: (), start, duplicates, out_of_range, nodes })
    }
}

impl Document<()> {
    /// The node at a JSON pointer, for a schema read from it without its value (a schema of
    /// 100,000 properties as a value took more memory than the schema made of it).
    #[cfg(feature = "dynamic")]
    pub(crate) fn node_at(&self, pointer: &str) -> Option<NodeRef<'_>> {
        let nodes = self.nodes.as_ref()?;
        Some(NodeRef { nodes, index: self.node(pointer)?.0 })
    }

    /// Whether the document's value is `null` (an empty document is).
    pub fn is_null(&self) -> bool {
        self.nodes.as_ref().is_none_or(|Nodes { tape, root, .. }| tape.is_null(tape.target(*root)))
    }

    /// The string at a JSON pointer, if a string is there: what the converted value holds
    /// there, read without converting it (a document's `apiVersion` and `kind`).
    pub fn str_at(&self, pointer: &str) -> Option<&str> {
        let Nodes { tape, .. } = self.nodes.as_ref()?;
        let node = tape.target(self.node(pointer)?.0);
        (tape.nodes[node].kind == Kind::Str).then(|| tape.str(&tape.nodes[node]))
    }

    /// The value at a JSON pointer, converted (only it: a part of a large document costs
    /// the part).
    pub fn value_at(&self, pointer: &str) -> Option<Value> {
        let Nodes { tape, lines, .. } = self.nodes.as_ref()?;
        let (node, _) = self.node(pointer)?;
        Conversion::new(tape, lines, false).convert(node, Some(&mut Everything)).ok()
    }

    /// The value at a JSON pointer with only its own entries or items, what they hold emptied
    /// (`{}` for a mapping's): a part's keys and scalars read without converting what is below.
    #[cfg(all(feature = "dynamic", feature = "cel"))]
    pub(crate) fn value_at_shallow(&self, pointer: &str) -> Option<Value> {
        /// Converts a mapping's entries, none of theirs.
        struct Shallow(usize);
        impl Select<'_> for Shallow {
            fn key(&mut self, _: &str, _: bool) -> bool {
                // Refused entries are not gone down into, nor come up from.
                let first = self.0 == 0;
                self.0 += usize::from(first);
                first
            }
            fn item(&mut self, _: usize) {
                self.0 += 1;
            }
            fn up(&mut self) {
                self.0 -= 1;
            }
        }
        let Nodes { tape, lines, .. } = self.nodes.as_ref()?;
        let (node, _) = self.node(pointer)?;
        Conversion::new(tape, lines, false).convert(node, Some(&mut Shallow(0))).ok()
    }

    /// The keys of the mapping at a JSON pointer, each once, as its converted value has them
    /// (its own, then those `<<` merges bring); `None` where no mapping is.
    pub fn keys_at(&self, pointer: &str) -> Option<Vec<&str>> {
        let Nodes { tape, .. } = self.nodes.as_ref()?;
        let map = tape.target(self.node(pointer)?.0);
        if tape.nodes[map].kind != Kind::Map {
            return None;
        }
        let own = tape.children(map).filter(|&k| !tape.nodes[k].is_merge());
        let mut seen = HashSet::new();
        Some(own.chain(tape.merged(map)).map(|k| tape.str(&tape.nodes[k])).filter(|k| seen.insert(*k)).collect())
    }

    /// The document's value, with what `select` leaves out left out (pruning's unknown
    /// fields never become values).
    pub fn value_selected<'t>(&'t self, select: &mut impl Select<'t>) -> Value {
        let Some(Nodes { tape, lines, root }) = &self.nodes else { return Value::Null };
        let mut conversion = Conversion::new(tape, lines, false);
        // Counted and checked when the document was read: the conversion cannot fail.
        conversion.convert(*root, Some(select)).unwrap_or_default()
    }

    /// The document, its value converted whole.
    pub fn converted(self) -> Document {
        let value = self.value_selected(&mut Everything);
        Document {
            index: self.index,
            value,
            start: self.start,
            duplicates: self.duplicates,
            out_of_range: self.out_of_range,
            nodes: self.nodes,
        }
    }
}

/// What a document's conversion to JSON keeps ([`Document::value_selected`]): asked at each
/// entry of a mapping and each item of a sequence as the conversion goes down, in the order
/// the document writes them (a key written twice asked once, where it is last written; the
/// keys a `<<` merge brings after the mapping's own). `'t` is the document's: keys are
/// borrowed from it.
pub trait Select<'t> {
    /// Whether the value of the mapping entry `key` is converted (`is_null`: the value is
    /// `null`). If it is, the conversion goes down into it, and comes [`Select::up`] after.
    fn key(&mut self, key: &'t str, is_null: bool) -> bool;
    /// The conversion goes down into a sequence's item, and comes [`Select::up`] after.
    fn item(&mut self, index: usize);
    /// The conversion is done with the entry or item it went down into.
    fn up(&mut self);
}

/// Selects everything: the whole value.
struct Everything;

impl Select<'_> for Everything {
    fn key(&mut self, _: &str, _: bool) -> bool {
        true
    }
    fn item(&mut self, _: usize) {}
    fn up(&mut self) {}
}

/// A node of a document as read, read as its converted value would read
/// ([`crate::schema::Source`]): the value of each of its parts is made only when asked for.
#[cfg(feature = "dynamic")]
#[derive(Clone, Copy)]
pub(crate) struct NodeRef<'t> {
    nodes: &'t Nodes,
    index: usize,
}

#[cfg(feature = "dynamic")]
impl<'t> NodeRef<'t> {
    fn at(self, index: usize) -> NodeRef<'t> {
        NodeRef { nodes: self.nodes, index }
    }

    /// The node itself, an alias's anchored node.
    fn target(self) -> (&'t Tape, usize) {
        (&self.nodes.tape, self.nodes.tape.target(self.index))
    }
}

#[cfg(feature = "dynamic")]
impl<'t> crate::schema::Source<'t> for NodeRef<'t> {
    fn kind(self) -> crate::schema::JsonKind {
        use crate::schema::JsonKind;
        let (tape, index) = self.target();
        match tape.nodes[index].kind {
            _ if tape.is_null(index) => JsonKind::Null,
            Kind::Bool => JsonKind::Bool,
            Kind::Int | Kind::Uint | Kind::Float => JsonKind::Number,
            Kind::Str => JsonKind::String,
            Kind::Seq => JsonKind::Array,
            Kind::Map => JsonKind::Object,
            Kind::Null | Kind::Alias => JsonKind::Null,
        }
    }

    /// As the conversion keeps them: a key written twice where it is last written, the keys
    /// `<<` merges bring where the mapping does not set them (the earlier merge first). A long
    /// mapping that writes each key once, itself, is read in its index's order, sorted
    /// already: its entries are never listed apart (a list of 100,000 was a transient of 32
    /// bytes a property, beside the schemas made of them).
    fn entries(self) -> impl Iterator<Item = (&'t str, Self)> {
        let (tape, map) = self.target();
        let is_map = tape.nodes[map].kind == Kind::Map;
        let plain =
            is_map && !tape.nodes[map].has_duplicates() && !tape.children(map).any(|k| tape.nodes[k].is_merge());
        let entry = move |key: usize| (tape.str(&tape.nodes[key]), self.at(key + 1));
        if let Some(sorted) = tape.indexes.get(&(map as u32)).filter(|_| plain) {
            return Either::Left(sorted.iter().map(move |&key| entry(key as usize)));
        }
        let mut own: Vec<(&str, usize)> = Vec::new();
        if is_map {
            own.extend(
                tape.children(map).filter(|&k| !tape.nodes[k].is_merge()).map(|k| (tape.str(&tape.nodes[k]), k)),
            );
            own.reverse();
            own.sort_by(|a, b| a.0.cmp(b.0));
            own.dedup_by(|later, first| later.0 == first.0);
            for key in tape.merged(map) {
                let text = tape.str(&tape.nodes[key]);
                if let Err(at) = own.binary_search_by(|(k, _)| (*k).cmp(text)) {
                    own.insert(at, (text, key));
                }
            }
        }
        Either::Right(own.into_iter().map(move |(_, key)| entry(key)))
    }

    fn items(self) -> Vec<Self> {
        let (tape, seq) = self.target();
        if tape.nodes[seq].kind != Kind::Seq {
            return Vec::new();
        }
        tape.children(seq).map(|item| self.at(item)).collect()
    }

    fn value(self) -> std::borrow::Cow<'t, Value> {
        let Nodes { tape, lines, .. } = self.nodes;
        // Counted and checked when the document was read: the conversion cannot fail.
        std::borrow::Cow::Owned(
            Conversion::new(tape, lines, false).convert(self.index, Some(&mut Everything)).unwrap_or_default(),
        )
    }
}

/// One of two iterators ([`NodeRef`]'s entries: a mapping's index, or its entries listed),
/// with the size it knows.
#[cfg(feature = "dynamic")]
enum Either<L, R> {
    Left(L),
    Right(R),
}

#[cfg(feature = "dynamic")]
impl<T, L: Iterator<Item = T>, R: Iterator<Item = T>> Iterator for Either<L, R> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        match self {
            Either::Left(l) => l.next(),
            Either::Right(r) => r.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Either::Left(l) => l.size_hint(),
            Either::Right(r) => r.size_hint(),
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
    stream(text, json, Hand::Converted(each))
}

/// [`parse_each`], each document handed on as read: its duplicates, numbers beyond float64 and
/// aliases found and checked, its value not made ([`Document::value_selected`] makes what is
/// wanted of it, [`Document::converted`] all of it). What a validator that prunes unknown
/// fields reads: they never become values.
pub fn read_each(text: &str, json: bool, each: &mut dyn FnMut(Document<()>)) -> Result<(), YamlError> {
    stream(text, json, Hand::AsRead(each))
}

fn stream(text: &str, json: bool, each: Hand<'_>) -> Result<(), YamlError> {
    if u32::try_from(text.len()).is_err() {
        let message = "a text over 4 GiB is not read: split it into files of fewer documents".into();
        return Err(YamlError { pos: Pos { line: 1, column: 1 }, message });
    }
    let mut builder = Builder {
        json,
        each,
        count: 0,
        tape: Tape::default(),
        lines: Lines::default(),
        stack: Vec::new(),
        children: Vec::new(),
        anchors: HashMap::new(),
        root: None,
        doc_start: Pos::default(),
    };
    if json {
        // kubectl reads a stream that starts with `{` with its JSON decoder.
        return json::read(text, &mut builder);
    }
    let mut parser = Parser::new_from_str(text);
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(scan_error)?;
        builder.on_event(event, Mark { index: span.start.index(), pos: pos_of(&span.start) })?;
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

const MERGE_KEY: &str = "<<";

/// Where an event stands: its index in the text, in characters, and its line and column.
#[derive(Clone, Copy, Debug)]
struct Mark {
    index: usize,
    pos: Pos,
}

/// A sequence or mapping being read.
struct Frame {
    /// Its node's index in the tape.
    index: usize,
    anchor: usize,
    /// Where it starts.
    pos: Pos,
    /// Where its children's indices start in [`Builder::children`].
    children: usize,
    /// Levels of sequences and mappings in its value so far, aliases expanded.
    height: u8,
    /// Nodes read into it (a mapping's keys and values both count).
    read: usize,
    /// It stands where its parent mapping expects a key.
    is_key: bool,
}

impl Frame {
    fn expects_key(&self, tape: &Tape) -> bool {
        tape.nodes[self.index].kind == Kind::Map && self.read.is_multiple_of(2)
    }
}

/// Where each document goes when it ends: converted, or as read.
enum Hand<'e> {
    Converted(&'e mut dyn FnMut(Document)),
    AsRead(&'e mut dyn FnMut(Document<()>)),
}

struct Builder<'e> {
    /// Where each document goes when it ends.
    each: Hand<'e>,
    /// Documents ended so far.
    count: usize,
    /// The document being read.
    tape: Tape,
    lines: Lines,
    stack: Vec<Frame>,
    /// The indices of the open containers' children (a sequence's items, a mapping's keys),
    /// each container's after its parent's: what a long container's index is made of.
    children: Vec<u32>,
    /// An anchor's node and its height.
    anchors: HashMap<usize, (u32, u8)>,
    root: Option<usize>,
    doc_start: Pos,
    /// The text is JSON (see [`looks_like_json`]).
    json: bool,
}

impl Builder<'_> {
    fn on_event(&mut self, event: Event<'_>, mark: Mark) -> Result<(), YamlError> {
        let pos = mark.pos;
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
                let at = self.at(mark);
                let node = if style == ScalarStyle::Plain && !forced_string {
                    let value = resolve_plain(&text);
                    let node = Node::scalar(&value, at, &mut self.tape.strings);
                    // YAML reads a number beyond float64 as a string (go-yaml does); JSON's
                    // reader refuses it.
                    if value.is_string() && beyond_float64(&text) {
                        if self.json {
                            let shown: String = text.chars().take(40).collect();
                            let message = format!("number {shown} is out of range: a JSON number must fit a float64");
                            return Err(YamlError { pos, message });
                        }
                        node.with_beyond_float()
                    } else {
                        node
                    }
                } else {
                    Node::string(&text, at, &mut self.tape.strings)
                };
                self.push(node, 0, anchor, pos, merge)?;
            }
            Event::Alias(id) => {
                let (target, height) = *self
                    .anchors
                    .get(&id)
                    .ok_or_else(|| YamlError { pos, message: "alias to an unknown anchor".into() })?;
                // An alias inside an alias nests values deeper than the text shows.
                if self.stack.len() + usize::from(height) > MAX_DEPTH {
                    return Err(YamlError {
                        pos,
                        message: format!("nesting deeper than {MAX_DEPTH} levels once aliases are expanded"),
                    });
                }
                let at = self.at(mark);
                self.push(Node::alias(target, at), height, 0, pos, false)?;
            }
            Event::SequenceStart(_, anchor, _) => self.open(Kind::Seq, anchor, mark)?,
            Event::MappingStart(_, anchor, _) => self.open(Kind::Map, anchor, mark)?,
            Event::SequenceEnd | Event::MappingEnd => self.close()?,
            // Stream markers, comments, anchor metadata: nothing to build.
            _ => {}
        }
        Ok(())
    }

    /// A node's index in the text, its line noted.
    fn at(&mut self, mark: Mark) -> u32 {
        let at = narrow(mark.index);
        self.lines.note(at, mark.pos);
        at
    }

    fn open(&mut self, kind: Kind, anchor: usize, mark: Mark) -> Result<(), YamlError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(YamlError { pos: mark.pos, message: format!("nesting deeper than {MAX_DEPTH} levels") });
        }
        let is_key = self.stack.last().is_some_and(|parent| parent.expects_key(&self.tape));
        let at = self.at(mark);
        let index = self.tape.nodes.len();
        self.tape.nodes.push(Node::container(kind, at));
        let children = self.children.len();
        self.stack.push(Frame { index, anchor, pos: mark.pos, children, height: 0, read: 0, is_key });
        Ok(())
    }

    fn close(&mut self) -> Result<(), YamlError> {
        let Some(frame) = self.stack.pop() else { return Ok(()) };
        if frame.is_key {
            return Err(YamlError { pos: frame.pos, message: "a mapping key must be a scalar".into() });
        }
        let count = self.children.len() - frame.children;
        let end = self.tape.nodes.len();
        self.tape.nodes[frame.index].close(count, end);
        if count > INDEXED {
            self.tape.index(frame.index, &self.children[frame.children..]);
        }
        if self.tape.nodes[frame.index].kind == Kind::Map {
            self.tape.mark_duplicates(frame.index, &self.children[frame.children..]);
        }
        self.children.truncate(frame.children);
        let height = frame.height + 1;
        if frame.anchor != 0 {
            self.anchors.insert(frame.anchor, (narrow(frame.index), height));
        }
        self.placed(frame.index, height, false);
        Ok(())
    }

    /// Puts a scalar or an alias in its container; `merge` says it is a merge key if it is a
    /// key.
    fn push(&mut self, node: Node, height: u8, anchor: usize, pos: Pos, merge: bool) -> Result<(), YamlError> {
        let is_key = self.stack.last().is_some_and(|parent| parent.expects_key(&self.tape));
        let node = match is_key {
            true => {
                self.key(node).ok_or_else(|| YamlError { pos, message: "a mapping key must be a scalar".into() })?
            }
            false => node,
        };
        let index = self.tape.nodes.len();
        self.tape.nodes.push(node.with_merge(is_key && merge));
        if anchor != 0 {
            self.anchors.insert(anchor, (narrow(index), height));
        }
        self.placed(index, height, is_key);
        Ok(())
    }

    /// A node now in the tape, counted in its container.
    fn placed(&mut self, index: usize, height: u8, is_key: bool) {
        let Some(parent) = self.stack.last_mut() else {
            self.root = Some(index);
            return;
        };
        parent.read += 1;
        let is_map = self.tape.nodes[parent.index].kind == Kind::Map;
        if !is_map || is_key {
            self.children.push(narrow(index));
        }
        if !is_key {
            parent.height = parent.height.max(height);
        }
    }

    /// A mapping key's node: its JSON text (`yes` → `"true"`, `1` → `"1"`, as `YAMLToJSON`
    /// writes it), where it stands. `None` for a sequence or mapping.
    fn key(&mut self, node: Node) -> Option<Node> {
        let target = match node.kind {
            Kind::Alias => self.tape.nodes[node.target()],
            _ => node,
        };
        let text = match target.kind {
            Kind::Seq | Kind::Map | Kind::Alias => return None,
            Kind::Str => return Some(target.key_at(node.at)),
            Kind::Null => "null".to_owned(),
            _ => self.tape.scalar(&target).to_string(),
        };
        Some(Node::string(&text, node.at, &mut self.tape.strings))
    }

    fn finish_document(&mut self) -> Result<(), YamlError> {
        let mut tape = std::mem::take(&mut self.tape);
        let mut lines = std::mem::take(&mut self.lines);
        self.anchors.clear();
        // Emptied, and no longer as large as the longest container: the document's value is
        // built next, beside the tape.
        self.children.clear();
        self.children.shrink_to(INDEXED * MAX_DEPTH);
        let mut doc = Document {
            index: self.count,
            value: Value::Null,
            start: self.doc_start,
            duplicates: Vec::new(),
            out_of_range: Vec::new(),
            nodes: None,
        };
        if let Some(root) = self.root.take() {
            tape.nodes.shrink_to_fit();
            tape.strings.shrink_to_fit();
            lines.finish();
            let mut conversion = Conversion::new(&tape, &lines, true);
            match self.each {
                Hand::Converted(_) => doc.value = conversion.convert(root, Some(&mut Everything))?,
                // A document handed on as read is counted and checked all the same: an error
                // stops the stream here, whichever way it is read. Only aliases and merges can
                // fail the count, and only flagged nodes are recorded: most documents have
                // neither, and need no walk until their value is made.
                Hand::AsRead(_) if tape.has_aliases_or_flags() => {
                    conversion.convert(root, None::<&mut Everything>)?;
                }
                Hand::AsRead(_) => {}
            }
            doc.duplicates = conversion.duplicates;
            doc.out_of_range = conversion.out_of_range;
            doc.nodes = Some(Nodes { tape, lines, root });
        }
        self.count += 1;
        match &mut self.each {
            Hand::Converted(each) => each(doc),
            Hand::AsRead(each) => each(Document {
                index: doc.index,
                value: (),
                start: doc.start,
                duplicates: doc.duplicates,
                out_of_range: doc.out_of_range,
                nodes: doc.nodes,
            }),
        }
        Ok(())
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
    tape: &'a Tape,
    lines: &'a Lines,
    /// Whether nodes are counted and duplicates and numbers beyond float64 recorded: when the
    /// document is read, not again when a value is made of a document read before.
    counting: bool,
    /// The steps down to the node being converted: spelled out as a JSON pointer only where
    /// something is reported (a duplicate key, a number beyond float64), not at every node.
    steps: Vec<Step>,
    duplicates: Vec<DuplicateKey>,
    /// The pointers of plain scalars beyond float64.
    out_of_range: Vec<String>,
    /// Nodes converted.
    decoded: usize,
    /// Nodes converted inside an alias.
    aliased: usize,
    /// How many aliases enclose the node being converted.
    alias_depth: usize,
    /// Where the outermost of them stands: the place an error of expansion names.
    alias_at: u32,
}

/// A step down a document: a sequence's item, or a mapping's entry by its key's node.
#[derive(Clone, Copy)]
enum Step {
    Item(usize),
    Key(usize),
}

impl<'a> Conversion<'a> {
    fn new(tape: &'a Tape, lines: &'a Lines, counting: bool) -> Self {
        Conversion {
            tape,
            lines,
            counting,
            steps: Vec::new(),
            duplicates: Vec::new(),
            out_of_range: Vec::new(),
            decoded: 0,
            aliased: 0,
            alias_depth: 0,
            alias_at: 0,
        }
    }

    /// The value of the node at `index`, with what `select` selects; with no selection, no
    /// value: the node is only counted and checked.
    fn convert<S: Select<'a> + ?Sized>(
        &mut self,
        index: usize,
        mut select: Option<&mut S>,
    ) -> Result<Value, YamlError> {
        let tape = self.tape;
        let node = tape.nodes[index];
        if select.is_none() && !self.counting {
            return Ok(Value::Null);
        }
        if node.kind == Kind::Alias {
            if self.alias_depth == 0 {
                self.alias_at = node.at;
            }
            self.alias_depth += 1;
            let value = self.convert(tape.target(index), select);
            self.alias_depth -= 1;
            return value;
        }
        if self.counting {
            self.count()?;
        }
        Ok(match node.kind {
            Kind::Seq => {
                let mut out = Vec::with_capacity(if select.is_some() { node.count() } else { 0 });
                for (i, item) in tape.children(index).enumerate() {
                    self.steps.push(Step::Item(i));
                    if let Some(select) = select.as_deref_mut() {
                        select.item(i);
                        out.push(self.convert(item, Some(&mut *select))?);
                        select.up();
                    } else {
                        self.convert(item, None::<&mut S>)?;
                    }
                    self.steps.pop();
                }
                Value::Array(out)
            }
            Kind::Map => {
                let mut out = Map::new();
                // Made once a value is: an entry written again is converted where it is
                // last written (the value keeps the last), not where it is first.
                let last = (select.is_some() && !self.counting && node.has_duplicates()).then(|| {
                    let mut last = HashMap::new();
                    for key in tape.children(index).filter(|&k| !tape.nodes[k].is_merge()) {
                        last.insert(tape.str(&tape.nodes[key]), key);
                    }
                    last
                });
                let (mut merges, mut first_merge) = (0, None);
                for key in tape.children(index) {
                    if tape.nodes[key].is_merge() {
                        merges += 1;
                        first_merge.get_or_insert(key);
                        continue;
                    }
                    let text = tape.str(&tape.nodes[key]);
                    if last.as_ref().is_some_and(|last| last[text] != key) {
                        continue;
                    }
                    self.steps.push(Step::Key(key));
                    // Once, where it is written, not again in every alias to it.
                    if self.counting && tape.nodes[key].is_duplicate() && self.alias_depth == 0 {
                        self.duplicate(index, key);
                    }
                    self.entry(key, &mut out, select.as_deref_mut())?;
                    self.steps.pop();
                }
                // `<<: *base` (or a list of them): keys of the merged maps fill in what the
                // mapping does not set itself; earlier merge sources win over later ones. What
                // they bring counts as aliased (it nearly always is `<<: *anchor`).
                let Some(first_merge) = first_merge else { return Ok(Value::Object(out)) };
                if self.alias_depth == 0 {
                    self.alias_at = tape.nodes[first_merge + 1].at;
                }
                self.alias_depth += merges;
                // The keys set so far, whether or not the selection kept their values.
                let mut set: HashSet<&str> = tape
                    .children(index)
                    .filter(|&k| !tape.nodes[k].is_merge())
                    .map(|k| tape.str(&tape.nodes[k]))
                    .collect();
                for key in tape.merged(index) {
                    if !set.insert(tape.str(&tape.nodes[key])) {
                        continue;
                    }
                    self.steps.push(Step::Key(key));
                    let converted = self.entry(key, &mut out, select.as_deref_mut());
                    self.steps.pop();
                    converted?;
                }
                self.alias_depth -= merges;
                Value::Object(out)
            }
            _ => {
                if self.counting && node.is_beyond_float() {
                    self.out_of_range.push(self.pointer());
                }
                if select.is_none() {
                    return Ok(Value::Null);
                }
                tape.scalar(&node)
            }
        })
    }

    /// Converts the value of the mapping entry whose key is the node `key` into `out`, if the
    /// selection keeps it (and counts it all the same).
    fn entry<S: Select<'a> + ?Sized>(
        &mut self,
        key: usize,
        out: &mut Map<String, Value>,
        select: Option<&mut S>,
    ) -> Result<(), YamlError> {
        let tape = self.tape;
        let text = tape.str(&tape.nodes[key]);
        match select {
            Some(select) => {
                if select.key(text, tape.is_null(tape.target(key + 1))) {
                    let value = self.convert(key + 1, Some(&mut *select));
                    select.up();
                    out.insert(text.to_owned(), value?);
                } else if self.counting {
                    self.convert(key + 1, None::<&mut S>)?;
                }
            }
            None => {
                self.convert(key + 1, None::<&mut S>)?;
            }
        }
        Ok(())
    }

    /// Records a key the mapping wrote before, with where it first stood.
    fn duplicate(&mut self, map: usize, key: usize) {
        let tape = self.tape;
        let text = tape.str(&tape.nodes[key]);
        let first = tape.children(map).find(|&k| !tape.nodes[k].is_merge() && tape.str(&tape.nodes[k]) == text);
        let first = first.map_or(tape.nodes[key].at, |k| tape.nodes[k].at);
        let (pos, first) = (self.lines.pos(tape.nodes[key].at), self.lines.pos(first));
        self.duplicates.push(DuplicateKey { pointer: self.pointer(), pos, first });
    }

    /// The JSON pointer of the node being converted.
    fn pointer(&self) -> String {
        let mut pointer = String::new();
        for step in &self.steps {
            pointer.push('/');
            match *step {
                Step::Item(i) => pointer.push_str(&i.to_string()),
                Step::Key(k) => {
                    pointer.push_str(&crate::report::path::escape_token(self.tape.str(&self.tape.nodes[k])))
                }
            }
        }
        pointer
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
            let pos = self.lines.pos(self.alias_at);
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
    let digits = without_underscores(digits);
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

/// A YAML 1.1 number's digits without the `_` it may group them with (borrowed when it has none:
/// nearly every number, which then costs no allocation).
fn without_underscores(text: &str) -> std::borrow::Cow<'_, str> {
    match text.contains('_') {
        true => text.chars().filter(|&c| c != '_').collect::<String>().into(),
        false => text.into(),
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
    let f: f64 = without_underscores(text).parse().ok()?;
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

    /// Positions of every item of a long sequence: linear too (a long sequence's items are
    /// indexed, or where their number says when each is one node, where stepping over the items
    /// before would be quadratic).
    #[test]
    fn positions_of_many_items_are_linear() {
        let ratio = crate::__private::growth_ratio(2_000, |n| {
            let items = |item: &dyn Fn(usize) -> String| (0..n).map(item).collect::<Vec<_>>().join(",");
            let text = format!("[{}]\n---\n[{}]", items(&|i| format!("\n{{a: {i}}}")), items(&|i| format!("\n{i}")));
            let docs = parse_documents(&text).unwrap();
            for i in 0..n {
                assert_eq!(docs[0].position(&format!("/{i}/a")).map(|p| p.line), Some(i + 2));
                assert_eq!(docs[1].position(&format!("/{i}")).map(|p| p.line), Some(n + i + 4));
            }
            assert_eq!(docs[1].position(&format!("/{n}")), None);
        });
        assert!(ratio < crate::__private::LINEAR_GROWTH, "10x the items took {ratio:.1}x the time");
    }

    /// A long mapping is looked up by its index: the last of duplicate keys is the one placed,
    /// and keys it does not set itself are found in what it merges, short or long.
    /// A document handed on as read is the document converted: its value made whole, its
    /// duplicates and numbers beyond float64 (found with no walk where nothing is flagged), its
    /// positions, and what stops the reader.
    #[test]
    fn documents_as_read_are_the_documents_converted() {
        let long: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
        for text in [
            "a: 1\nb: [x, {c: d}]\n---\n- 1\n- two\n",
            "a: 1\nb: 2\na: 3\nc: {d: 1, d: 2}\n",
            "n: 1e400\nl: [1e400, 2]\n",
            "base: &b {x: 1, y: [1, 2]}\nuse: *b\nm: {<<: *b, x: 2}\n",
            "a: .nan\nb: ~\n---\n---\nnull\n",
            &format!("{long}k3: again\n"),
            "{\"a\": 1, \"a\": 2, \"b\": [1, 2]}",
        ] {
            let json = looks_like_json(text);
            let mut converted = Vec::new();
            parse_each(text, json, &mut |doc| converted.push(doc)).unwrap();
            let mut read = Vec::new();
            read_each(text, json, &mut |doc| read.push(doc)).unwrap();
            assert_eq!(read.len(), converted.len(), "{text}");
            for (read, whole) in read.into_iter().zip(converted) {
                assert_eq!(read.is_null(), whole.value.is_null(), "{text}");
                assert_eq!(read.value_at(""), whole.nodes.is_some().then(|| whole.value.clone()), "{text}");
                let read = read.converted();
                assert_eq!(
                    (&read.value, &read.duplicates, &read.out_of_range),
                    (&whole.value, &whole.duplicates, &whole.out_of_range),
                    "{text}"
                );
                assert_eq!(read.position("/b"), whole.position("/b"), "{text}");
            }
        }
        let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n";
        let stopped = |each: &dyn Fn(&str) -> Result<(), YamlError>| each(bomb).unwrap_err().message;
        assert_eq!(stopped(&|t| read_each(t, false, &mut |_| {})), stopped(&|t| parse_each(t, false, &mut |_| {})));
    }

    #[test]
    fn long_mappings_place_the_last_duplicate_and_merged_keys() {
        let own: String = (0..tape::INDEXED + 4).map(|i| format!("  k{i}: {i}\n")).collect();
        let text = format!("base: &b\n{own}long:\n  <<: *b\n{own}  k3: again\n  only: 1\n");
        let d = &parse_documents(&text).unwrap()[0];
        let base_lines = tape::INDEXED + 5;
        assert_eq!(d.value["long"]["k3"], json!("again"));
        assert_eq!(d.key_position("/long/k3").map(|p| p.line), Some(2 * base_lines + 2));
        assert_eq!(d.key_position("/long/k5").map(|p| p.line), Some(base_lines + 8));
        let short = "base: &b {x: 1}\nlong:\n  <<: *b\n".to_owned() + &own;
        let d = &parse_documents(&short).unwrap()[0];
        assert_eq!(d.key_position("/long/x"), Some(Pos { line: 1, column: 11 }));
        assert_eq!(d.position("/long/<<"), None, "the merge key is not a key of the value");
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
