//! Where a value sits, printable in the three forms the apiserver and tools use:
//! - [`Path::openapi`]: kube-openapi's dotted path of OpenAPI value errors (`spec.m.key`, map
//!   keys joined with dots even when they contain dots: `spec.labels.app.kubernetes.io/name`);
//! - [`Path::field`]: the field path of list-type, CEL and metadata errors (`spec.m[key]`);
//! - [`Path::pointer`]: the RFC 6901 JSON pointer (`/spec/m/key`).

use std::fmt::Write as _;

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Segment {
    /// A property named by the schema.
    Property(String),
    /// A key of a map (`additionalProperties`).
    Key(String),
    /// An index into a list.
    Index(usize),
}

/// A path from the root of an object.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Path {
    segments: Vec<Segment>,
}

impl Path {
    /// The root.
    pub fn root() -> Path {
        Path::default()
    }

    /// This path and a property.
    pub fn key(&self, name: &str) -> Path {
        self.with(Segment::Property(name.to_owned()))
    }

    /// This path and a map key.
    pub fn map_key(&self, key: &str) -> Path {
        self.with(Segment::Key(key.to_owned()))
    }

    /// This path and a list index.
    pub fn index(&self, i: usize) -> Path {
        self.with(Segment::Index(i))
    }

    fn with(&self, s: Segment) -> Path {
        let mut segments = Vec::with_capacity(self.segments.len() + 1);
        segments.extend(self.segments.iter().cloned());
        segments.push(s);
        Path { segments }
    }

    /// The segments, root first.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Whether this is the root.
    pub fn is_root(&self) -> bool {
        self.segments.is_empty()
    }

    /// kube-openapi's form: `spec.ports[0].name`, map keys after a dot.
    pub fn openapi(&self) -> String {
        let mut out = String::new();
        for s in &self.segments {
            match s {
                Segment::Property(n) | Segment::Key(n) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(n);
                }
                Segment::Index(i) => write!(out, "[{i}]").expect("writing to a String"),
            }
        }
        out
    }

    /// The field-path form: `spec.ports[0].name`, map keys in brackets (`spec.m[a.b]`),
    /// unquoted as the apiserver prints them.
    pub fn field(&self) -> String {
        let mut out = String::new();
        for s in &self.segments {
            match s {
                Segment::Property(n) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(n);
                }
                Segment::Key(k) => write!(out, "[{k}]").expect("writing to a String"),
                Segment::Index(i) => write!(out, "[{i}]").expect("writing to a String"),
            }
        }
        out
    }

    /// The JSON pointer: `/spec/ports/0/name`.
    pub fn pointer(&self) -> String {
        let mut out = String::new();
        for s in &self.segments {
            out.push('/');
            match s {
                Segment::Property(n) | Segment::Key(n) => out.push_str(&n.replace('~', "~0").replace('/', "~1")),
                Segment::Index(i) => write!(out, "{i}").expect("writing to a String"),
            }
        }
        out
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
