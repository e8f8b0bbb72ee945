//! Where a value sits, printable in the three forms the apiserver and tools use:
//! - [`Path::openapi`]: kube-openapi's dotted path of OpenAPI value errors (`spec.m.key`, map
//!   keys joined with dots even when they contain dots: `spec.labels.app.kubernetes.io/name`);
//! - [`Path::field`]: the field path of list-type, CEL and metadata errors (`spec.m[key]`);
//! - [`Path::pointer`]: the RFC 6901 JSON pointer (`/spec/m/key`).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::Arc;

pub use kubeskema_attributes::pointer::{escape_token, unescape_token};

/// What JSON pointer `pointer` adds to `base` (`""`, or `/...`), where it is `base` or below it
/// (`/a/bc` is not below `/a/b`).
///
/// ```
/// assert_eq!(kubeskema::path::below("/a/b/c", "/a/b"), Some("/c"));
/// assert_eq!(kubeskema::path::below("/a/b", "/a/b"), Some(""));
/// assert_eq!(kubeskema::path::below("/a/bc", "/a/b"), None);
/// ```
pub fn below<'p>(pointer: &'p str, base: &str) -> Option<&'p str> {
    pointer.strip_prefix(base).filter(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Segment {
    /// A property named by the schema (borrowed when the name is a literal of derived code).
    Property(Cow<'static, str>),
    /// A key of a map (`additionalProperties`).
    Key(String),
    /// An index into a list.
    Index(usize),
    /// (A quirk.) A map key a rule's `fieldPath` starts with: the apiserver appends the whole
    /// normalized fieldPath as one child, so the key prints after a dot (`spec.m.[k]`).
    RuleKey(String),
}

impl Segment {
    /// The property name or map key; `None` for a list index.
    pub fn name(&self) -> Option<&str> {
        match self {
            Segment::Property(n) => Some(n),
            Segment::Key(k) | Segment::RuleKey(k) => Some(k),
            Segment::Index(_) => None,
        }
    }
}

/// A path from the root of an object: a shared chain of segments, so that extending a path
/// (done for every field a validator visits) costs one small allocation, not a copy of the
/// whole path.
#[derive(Clone, Default)]
pub struct Path(Option<Arc<Node>>);

struct Node {
    parent: Path,
    segment: Segment,
}

impl Path {
    /// The root.
    pub fn root() -> Path {
        Path::default()
    }

    /// This path and a property.
    pub fn key(&self, name: &str) -> Path {
        self.with(Segment::Property(Cow::Owned(name.to_owned())))
    }

    /// This path and a property whose name lives for the program (no copy of the name).
    pub fn property(&self, name: &'static str) -> Path {
        self.with(Segment::Property(Cow::Borrowed(name)))
    }

    /// This path and a map key.
    pub fn map_key(&self, key: &str) -> Path {
        self.with(Segment::Key(key.to_owned()))
    }

    /// This path and a list index.
    pub fn index(&self, i: usize) -> Path {
        self.with(Segment::Index(i))
    }

    /// This path and a map key that a rule's `fieldPath` starts with ([`Segment::RuleKey`]).
    pub fn rule_key(&self, key: &str) -> Path {
        self.with(Segment::RuleKey(key.to_owned()))
    }

    fn with(&self, segment: Segment) -> Path {
        Path(Some(Arc::new(Node { parent: self.clone(), segment })))
    }

    /// The segments, root first.
    pub fn segments(&self) -> Vec<Segment> {
        let mut out = Vec::new();
        let mut at = &self.0;
        while let Some(node) = at {
            out.push(node.segment.clone());
            at = &node.parent.0;
        }
        out.reverse();
        out
    }

    /// The segments, root first, borrowed.
    fn each(&self) -> Vec<&Segment> {
        let mut out = Vec::new();
        let mut at = &self.0;
        while let Some(node) = at {
            out.push(&node.segment);
            at = &node.parent.0;
        }
        out.reverse();
        out
    }

    /// Whether this is the root.
    pub fn is_root(&self) -> bool {
        self.0.is_none()
    }

    /// kube-openapi's form: `spec.ports[0].name`, map keys after a dot.
    pub fn openapi(&self) -> String {
        let mut out = String::new();
        for s in self.each() {
            match (s, s.name()) {
                (_, Some(n)) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(n);
                }
                (Segment::Index(i), None) => write!(out, "[{i}]").expect("writing to a String"),
                (_, None) => {}
            }
        }
        out
    }

    /// The field-path form: `spec.ports[0].name`, map keys in brackets (`spec.m[a.b]`),
    /// unquoted as the apiserver prints them.
    pub fn field(&self) -> String {
        let mut out = String::new();
        for s in self.each() {
            match s {
                Segment::Property(n) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(n);
                }
                Segment::Key(k) => write!(out, "[{k}]").expect("writing to a String"),
                Segment::Index(i) => write!(out, "[{i}]").expect("writing to a String"),
                Segment::RuleKey(k) => write!(out, ".[{k}]").expect("writing to a String"),
            }
        }
        out
    }

    /// The JSON pointer: `/spec/ports/0/name`.
    pub fn pointer(&self) -> String {
        let mut out = String::new();
        for s in self.each() {
            out.push('/');
            match (s, s.name()) {
                (_, Some(n)) => out.push_str(&escape_token(n)),
                (Segment::Index(i), None) => write!(out, "{i}").expect("writing to a String"),
                (_, None) => {}
            }
        }
        out
    }
}

/// Where a value sits while it is walked (read, or validated): a chain borrowed from the
/// callers' stack frames, made into a [`Path`] only when an issue is made, so a walk over a
/// valid value allocates nothing for places.
#[derive(Clone, Copy)]
pub struct At<'a> {
    parent: Option<&'a At<'a>>,
    step: Step<'a>,
}

#[derive(Clone, Copy)]
enum Step<'a> {
    Root,
    /// A walk's start, at a place of a document.
    Under(&'a Path),
    Property(&'static str),
    /// A property named by the document (the dynamic validator's walks).
    Field(&'a str),
    Key(&'a str),
    Index(usize),
}

impl<'a> At<'a> {
    /// The document's root.
    pub const ROOT: At<'static> = At { parent: None, step: Step::Root };

    /// The start of a walk over a value at `path` of a document.
    pub fn under(path: &'a Path) -> At<'a> {
        At { parent: None, step: Step::Under(path) }
    }

    /// A property whose name is read from the document (a schema's property).
    pub fn field(&'a self, name: &'a str) -> At<'a> {
        At { parent: Some(self), step: Step::Field(name) }
    }

    /// A property named by the type.
    pub fn property(&'a self, name: &'static str) -> At<'a> {
        At { parent: Some(self), step: Step::Property(name) }
    }

    /// A map key.
    pub fn key(&'a self, key: &'a str) -> At<'a> {
        At { parent: Some(self), step: Step::Key(key) }
    }

    /// A list index.
    pub fn index(&'a self, i: usize) -> At<'a> {
        At { parent: Some(self), step: Step::Index(i) }
    }

    /// Whether this is the root.
    pub fn is_root(&self) -> bool {
        self.parent.is_none() && matches!(self.step, Step::Root)
    }

    /// The place as a [`Path`] (allocates; done only when an issue is made).
    pub fn to_path(&self) -> Path {
        let base = self.parent.map(At::to_path).unwrap_or_default();
        match self.step {
            Step::Root => base,
            Step::Under(path) => path.clone(),
            Step::Property(n) => base.property(n),
            Step::Field(n) => base.key(n),
            Step::Key(k) => base.map_key(k),
            Step::Index(i) => base.index(i),
        }
    }
}

/// A place an issue can be made at: a [`Path`], or an [`At`] that becomes one only then. The
/// checks take `&dyn Place`, so a walk pays for a path only where it finds something.
pub trait Place {
    /// The place as a path.
    fn to_path(&self) -> Path;
    /// kube-openapi's form ([`Path::openapi`]).
    fn openapi(&self) -> String {
        self.to_path().openapi()
    }
}

impl Place for Path {
    fn to_path(&self) -> Path {
        self.clone()
    }
    fn openapi(&self) -> String {
        Path::openapi(self)
    }
}

impl Place for At<'_> {
    fn to_path(&self) -> Path {
        At::to_path(self)
    }
}

/// A place a function makes when an issue asks for it: a check over many values (each label
/// of a `metadata`) names its place without building it for every value that passes.
impl<F: Fn() -> Path> Place for F {
    fn to_path(&self) -> Path {
        self()
    }
}

impl PartialEq for Path {
    fn eq(&self, other: &Path) -> bool {
        self.each() == other.each()
    }
}

impl Eq for Path {}

impl std::hash::Hash for Path {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.each().hash(state);
    }
}

impl PartialOrd for Path {
    fn partial_cmp(&self, other: &Path) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Path {
    fn cmp(&self, other: &Path) -> std::cmp::Ordering {
        self.each().cmp(&other.each())
    }
}

impl std::fmt::Debug for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Path").field(&self.each()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_path_three_forms() {
        let p = Path::root().key("spec").key("labels").map_key("app.kubernetes.io/name");
        assert_eq!(p.openapi(), "spec.labels.app.kubernetes.io/name");
        assert_eq!(p.field(), "spec.labels[app.kubernetes.io/name]");
        assert_eq!(p.pointer(), "/spec/labels/app.kubernetes.io~1name");
        let q = Path::root().key("spec").key("ports").index(0).key("name");
        assert_eq!(
            (q.openapi(), q.field(), q.pointer()),
            ("spec.ports[0].name".into(), "spec.ports[0].name".into(), "/spec/ports/0/name".into())
        );
        assert_eq!(Path::root().openapi(), "");
    }
}
