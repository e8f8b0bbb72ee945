//! A document as read, before it is converted to JSON: its nodes in one array, in the order
//! the text writes them, each 16 bytes.
//!
//! A container's node is followed by its contents (a mapping's by key, value, key, value...)
//! and says where they end, so a walk steps over a value without reading it. Strings are in one
//! buffer, positions are a character index into the text (a document's [`Lines`] turn it into a
//! line and column), and an alias is one node naming the anchored node it repeats: the tape
//! costs the size of the text, not of the value it expands to. Containers of more than
//! [`INDEXED`] entries carry an index, so a lookup in a long list or mapping is not a search
//! (a sequence of scalars needs none: its items are where their number says).
//!
//! Why not a tree of nodes: a tree costs an allocation per container and a pointer per child,
//! and it was the larger part of a large document's memory (48 bytes a node, beside its value).

use std::collections::HashMap;

use serde_json::{Number, Value};

use super::Pos;

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Null,
    Bool,
    Int,
    Uint,
    Float,
    /// A string, or a mapping key (whatever it was written as: its JSON text).
    Str,
    /// A sequence: its items follow it.
    Seq,
    /// A mapping: its entries follow it, each a key node and the value's nodes.
    Map,
    /// An alias: the anchored node it repeats is elsewhere in the tape.
    Alias,
}

/// One node: its kind, flags, where it stands, and a payload read by its kind.
#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    pub(super) kind: Kind,
    flags: u8,
    /// Where the node stands: its index in the text, in characters.
    pub(super) at: u32,
    /// `Bool`: 0 or 1; `Int`, `Uint`, `Float`: the number's bits; `Str`: the string's start and
    /// length in [`Tape::strings`]; `Seq`, `Map`: the count of items or entries and the index
    /// of the node after the container's last; `Alias`: the anchored node's index.
    payload: u64,
}

// The point of the tape: every node in 16 bytes.
const _: () = assert!(size_of::<Node>() == 16);

/// A mapping key that is YAML's merge key (`<<`, plain and untagged, or `!!merge`).
const MERGE: u8 = 1;
/// A plain scalar beyond float64 (`1e400`), read as a string as go-yaml reads it.
const BEYOND_FLOAT: u8 = 2;
/// A mapping key its mapping wrote before (the first of a key is not flagged).
const DUPLICATE: u8 = 4;
/// A mapping that writes a key more than once.
const HAS_DUPLICATES: u8 = 8;

/// Containers with more entries than this get an index.
pub(super) const INDEXED: usize = 16;

impl Node {
    pub(super) fn container(kind: Kind, at: u32) -> Node {
        Node { kind, flags: 0, at, payload: 0 }
    }

    pub(super) fn alias(target: u32, at: u32) -> Node {
        Node { kind: Kind::Alias, flags: 0, at, payload: u64::from(target) }
    }

    /// A scalar node of a JSON scalar; a string goes to `strings`.
    pub(super) fn scalar(value: &Value, at: u32, strings: &mut String) -> Node {
        let (kind, payload) = match value {
            Value::Null => (Kind::Null, 0),
            Value::Bool(b) => (Kind::Bool, u64::from(*b)),
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => (Kind::Int, i as u64),
                (None, Some(u)) => (Kind::Uint, u),
                _ => (Kind::Float, n.as_f64().unwrap_or_default().to_bits()),
            },
            Value::String(s) => return Node::string(s, at, strings),
            // Scalars only: containers are built from their events.
            Value::Array(_) | Value::Object(_) => (Kind::Null, 0),
        };
        Node { kind, flags: 0, at, payload }
    }

    pub(super) fn string(s: &str, at: u32, strings: &mut String) -> Node {
        let start = strings.len();
        strings.push_str(s);
        Node { kind: Kind::Str, flags: 0, at, payload: pack(start, s.len()) }
    }

    /// The anchored node an alias repeats.
    pub(super) fn target(&self) -> usize {
        self.payload as usize
    }

    /// A string node as a mapping key standing at `at` (an alias used as a key stands where
    /// the alias does).
    pub(super) fn key_at(self, at: u32) -> Node {
        Node { kind: Kind::Str, flags: 0, at, payload: self.payload }
    }

    pub(super) fn with_merge(mut self, merge: bool) -> Node {
        self.flags |= if merge { MERGE } else { 0 };
        self
    }

    pub(super) fn with_beyond_float(mut self) -> Node {
        self.flags |= BEYOND_FLOAT;
        self
    }

    pub(super) fn is_merge(&self) -> bool {
        self.flags & MERGE != 0
    }

    pub(super) fn is_duplicate(&self) -> bool {
        self.flags & DUPLICATE != 0
    }

    pub(super) fn has_duplicates(&self) -> bool {
        self.flags & HAS_DUPLICATES != 0
    }

    pub(super) fn is_beyond_float(&self) -> bool {
        self.flags & BEYOND_FLOAT != 0
    }

    /// A container's count of items or entries and the index after its last node.
    pub(super) fn close(&mut self, count: usize, end: usize) {
        self.payload = pack(count, end);
    }

    fn halves(&self) -> (usize, usize) {
        ((self.payload & u64::from(u32::MAX)) as usize, (self.payload >> 32) as usize)
    }

    /// A container's count of items or entries.
    pub(super) fn count(&self) -> usize {
        self.halves().0
    }

    /// The index of the node after a node and everything in it.
    fn end(&self, index: usize) -> usize {
        match self.kind {
            Kind::Seq | Kind::Map => self.halves().1,
            _ => index + 1,
        }
    }
}

/// A closed sequence whose items are a node each (no sequence or mapping among them): item `i`
/// is the node `i` after it.
fn is_flat(index: usize, node: &Node) -> bool {
    node.kind == Kind::Seq && node.end(index) == index + 1 + node.count()
}

/// Two halves of a payload. Both fit: a text over `u32::MAX` bytes is not read.
fn pack(low: usize, high: usize) -> u64 {
    low as u64 | ((high as u64) << 32)
}

/// The nodes of one document.
#[derive(Clone, Debug, Default)]
pub(super) struct Tape {
    pub(super) nodes: Vec<Node>,
    pub(super) strings: String,
    /// For each container of more than [`INDEXED`] entries, by its node's index: a sequence's
    /// items' indices in order (unless each item is one node); a mapping's keys' indices sorted by key text (those of one text
    /// in the order written, so the last is the one the value keeps), merge keys left out.
    pub(super) indexes: HashMap<u32, Box<[u32]>>,
}

impl Tape {
    /// A node's string (a `Str` node's).
    pub(super) fn str(&self, node: &Node) -> &str {
        let (start, len) = node.halves();
        &self.strings[start..start + len]
    }

    /// The node an alias repeats, or the node itself.
    pub(super) fn target(&self, index: usize) -> usize {
        match self.nodes[index].kind {
            Kind::Alias => self.nodes[index].target(),
            _ => index,
        }
    }

    /// Whether any node is an alias or flagged (a merge key, a duplicate, a number beyond
    /// float64): what a document's conversion counts or records.
    pub(super) fn has_aliases_or_flags(&self) -> bool {
        self.nodes.iter().any(|n| n.kind == Kind::Alias || n.flags != 0)
    }

    /// Whether a node converts to `null`: a null, or a float JSON has no number for (`.nan`).
    pub(super) fn is_null(&self, index: usize) -> bool {
        let node = &self.nodes[index];
        match node.kind {
            Kind::Null => true,
            Kind::Float => !f64::from_bits(node.payload).is_finite(),
            _ => false,
        }
    }

    /// A scalar node's value.
    pub(super) fn scalar(&self, node: &Node) -> Value {
        match node.kind {
            Kind::Bool => Value::Bool(node.payload != 0),
            Kind::Int => Value::Number((node.payload as i64).into()),
            Kind::Uint => Value::Number(node.payload.into()),
            Kind::Float => Number::from_f64(f64::from_bits(node.payload)).map_or(Value::Null, Value::Number),
            Kind::Str => Value::String(self.str(node).to_owned()),
            Kind::Null | Kind::Seq | Kind::Map | Kind::Alias => Value::Null,
        }
    }

    /// The indices of a sequence's items, or of a mapping's keys (each value follows its key).
    pub(super) fn children(&self, container: usize) -> impl Iterator<Item = usize> + '_ {
        let (end, is_map) = (self.nodes[container].end(container), self.nodes[container].kind == Kind::Map);
        let mut next = container + 1;
        std::iter::from_fn(move || {
            let child = next;
            if child >= end {
                return None;
            }
            next = self.nodes[child].end(child);
            if is_map {
                next = self.nodes[next].end(next);
            }
            Some(child)
        })
    }

    /// A sequence's item.
    pub(super) fn item(&self, seq: usize, i: usize) -> Option<usize> {
        let node = &self.nodes[seq];
        if i >= node.count() {
            return None;
        }
        if is_flat(seq, node) {
            return Some(seq + 1 + i);
        }
        match self.indexes.get(&(seq as u32)) {
            Some(index) => index.get(i).map(|&k| k as usize),
            None => self.children(seq).nth(i),
        }
    }

    /// The key node whose value the converted mapping holds at `key`: the mapping's own last
    /// one (the apiserver keeps the last duplicate), else the first among the merged mappings.
    pub(super) fn get(&self, map: usize, key: &str) -> Option<usize> {
        let own = match self.indexes.get(&(map as u32)) {
            Some(sorted) => {
                let after = sorted.partition_point(|&k| self.str(&self.nodes[k as usize]) <= key);
                after.checked_sub(1).map(|i| sorted[i] as usize).filter(|&k| self.str(&self.nodes[k]) == key)
            }
            None => self.children(map).filter(|&k| !self.nodes[k].is_merge() && self.str(&self.nodes[k]) == key).last(),
        };
        own.or_else(|| self.merged(map).into_iter().find(|&k| self.str(&self.nodes[k]) == key))
    }

    /// The keys that `<<` merges bring, in precedence order (earlier wins): each merged
    /// mapping's own keys, then what it merges in turn.
    pub(super) fn merged(&self, map: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for merge in self.children(map).filter(|&k| self.nodes[k].is_merge()) {
            let value = self.target(merge + 1);
            let sources: Vec<usize> = match self.nodes[value].kind {
                Kind::Seq => self.children(value).map(|i| self.target(i)).collect(),
                _ => vec![value],
            };
            for source in sources.into_iter().filter(|&s| self.nodes[s].kind == Kind::Map) {
                out.extend(self.children(source).filter(|&k| !self.nodes[k].is_merge()));
                out.extend(self.merged(source));
            }
        }
        out
    }

    /// Flags each key a mapping writes again (all but its first), once it is read: conversion
    /// then reports duplicates without looking every key up. A long mapping's sorted index has
    /// them side by side; a short one compares its few keys pairwise.
    pub(super) fn mark_duplicates(&mut self, map: usize, keys: &[u32]) {
        let text = |k: u32| self.str(&self.nodes[k as usize]);
        let repeated: Vec<u32> = match self.indexes.get(&(map as u32)) {
            Some(sorted) => sorted.windows(2).filter(|w| text(w[0]) == text(w[1])).map(|w| w[1]).collect(),
            None => {
                let own = |k: &&u32| !self.nodes[**k as usize].is_merge();
                let keys: Vec<u32> = keys.iter().filter(own).copied().collect();
                (1..keys.len())
                    .filter(|&j| keys[..j].iter().any(|&i| text(i) == text(keys[j])))
                    .map(|j| keys[j])
                    .collect()
            }
        };
        if !repeated.is_empty() {
            self.nodes[map].flags |= HAS_DUPLICATES;
        }
        for k in repeated {
            self.nodes[k as usize].flags |= DUPLICATE;
        }
    }

    /// The index a container of many entries is looked up by (see [`Tape::indexes`]), unless
    /// it is a sequence of scalars and aliases, whose items are where their number says.
    pub(super) fn index(&mut self, container: usize, children: &[u32]) {
        if is_flat(container, &self.nodes[container]) {
            return;
        }
        let index: Box<[u32]> = match self.nodes[container].kind {
            Kind::Map => {
                let mut keys: Vec<u32> =
                    children.iter().copied().filter(|&k| !self.nodes[k as usize].is_merge()).collect();
                keys.sort_by(|&a, &b| self.str(&self.nodes[a as usize]).cmp(self.str(&self.nodes[b as usize])));
                keys.into()
            }
            _ => children.into(),
        };
        self.indexes.insert(container as u32, index);
    }
}

/// Where a document's lines start, for the lines its nodes stand on: a character index into a
/// line and column.
#[derive(Clone, Debug, Default)]
pub(super) struct Lines {
    /// (line, index of its first character), by line.
    starts: Vec<(u32, u32)>,
}

impl Lines {
    /// Notes the line a node stands on.
    pub(super) fn note(&mut self, at: u32, pos: Pos) {
        let line = narrow(pos.line);
        if self.starts.last().is_none_or(|&(last, _)| last != line) {
            self.starts.push((line, at.saturating_sub(narrow(pos.column - 1))));
        }
    }

    /// Sorted, once the document is read (nodes are noted in the order of the text but for a
    /// few parser events; sorting makes the lookup hold whatever the order).
    pub(super) fn finish(&mut self) {
        self.starts.sort_unstable();
        self.starts.dedup_by_key(|&mut (line, _)| line);
        self.starts.shrink_to_fit();
    }

    /// The line and column of a noted node's index.
    pub(super) fn pos(&self, at: u32) -> Pos {
        let i = self.starts.partition_point(|&(_, start)| start <= at);
        let (line, start) = self.starts[i.saturating_sub(1)];
        Pos { line: line as usize, column: (at - start.min(at)) as usize + 1 }
    }
}

/// A count or index in 32 bits (texts are at most `u32::MAX` bytes).
pub(super) fn narrow(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
