//! Conversions between a CRD's versions, planned on the typed model (after `share_types`, so
//! that what two versions share is one Rust type and needs nothing).
//!
//! Hub and spoke, as controller-runtime has it: every version converts to the hub (the
//! storage version, or the served version `--hub` names) and back. For each spoke, the root types are paired, and from them every
//! pair of types that stand at one place in both versions:
//! - one Rust type in both (shared): moved;
//! - two structs: a generated function, field by field, matching fields by JSON name;
//! - two enums: a `match` in each direction where every value of one is a value of the other;
//! - lists, maps and options of convertible values: element by element; an `i32` widens to an
//!   `i64`; a required value becomes `Some` where the other version makes it optional.
//!
//! Every other field (added, removed, renamed, retyped, made required) is a [`Method`] of the
//! trait the user implements: one per field and direction, named after the place, so a later
//! schema change is a compile error exactly where the conversion must change
//! (conversion-gen's model). A field with no counterpart is [`Way::Lost`] in the direction
//! that leaves it behind: the lossless round trip (`kubeskema::conversion::DATA_ANNOTATION`)
//! keeps it.

use std::collections::HashMap;

use kubeskema::schema::Schema;
use serde_json::Value;

use super::names::Taken;
use super::{Module, Shape, StructDef, Ty, TypeDef, TypeId};

/// A version's root type: the module holding it and its id there.
#[derive(Clone, Debug)]
pub struct Side {
    /// Index of the module in the generation.
    pub module: usize,
    /// The root type's id in that module.
    pub root: TypeId,
    /// The version (`v1beta1`).
    pub version: String,
}

/// The conversions of one CRD with several generated versions.
#[derive(Clone, Debug)]
pub struct Conversion {
    /// `metadata.name`.
    pub crd: String,
    /// `spec.group`.
    pub group: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// The CRD converts through a webhook (`strategy: Webhook`); otherwise the apiserver only
    /// relabels `apiVersion` (`None`), and these conversions are what a webhook would run.
    pub webhook: bool,
    /// The hub version.
    pub hub: Side,
    /// Every other version.
    pub spokes: Vec<SpokePlan>,
}

/// What converts one spoke to the hub and back.
#[derive(Clone, Debug)]
pub struct SpokePlan {
    /// The spoke version.
    pub side: Side,
    /// Pairs of types converted by generated functions; `pairs[0]` is the roots'.
    pub pairs: Vec<Pair>,
    /// The trait methods the user writes.
    pub methods: Vec<Method>,
}

/// A spoke type and the hub type at the same place.
#[derive(Clone, Debug)]
pub struct Pair {
    /// The spoke type (in the spoke's module).
    pub spoke: TypeId,
    /// The hub type (in the hub's module).
    pub hub: TypeId,
    /// The first place the pair stands (`Widget.spec.ports[]`).
    pub path: String,
    /// The generated functions' names (`widget_spec_to_hub`, `widget_spec_from_hub`).
    pub fns: (String, String),
    /// How it converts.
    pub body: PairBody,
}

/// How a pair converts.
#[derive(Clone, Debug)]
pub enum PairBody {
    /// Two structs, field by field.
    Struct(Vec<FieldMap>),
    /// Two enums: `(spoke variant, hub variant)` for each value, in each direction where every
    /// value has one (`None` otherwise: the fields holding it are methods that way).
    Enum { up: Option<Vec<(usize, usize)>>, down: Option<Vec<(usize, usize)>> },
}

/// One JSON property of a struct pair: where it is on each side, and how it crosses.
#[derive(Clone, Debug)]
pub struct FieldMap {
    /// The spoke field's index.
    pub spoke: Option<usize>,
    /// The hub field's index.
    pub hub: Option<usize>,
    /// Spoke to hub.
    pub up: Way,
    /// Hub to spoke.
    pub down: Way,
}

/// How a field crosses in one direction.
#[derive(Clone, Debug)]
pub enum Way {
    /// Converted by generated code.
    Convert(Conv),
    /// A method of the user's trait (index in [`SpokePlan::methods`]).
    Method(usize),
    /// No counterpart on the other side: nothing to write (kept by the lossless round trip).
    Lost,
}

/// A generated conversion of one value.
#[derive(Clone, Debug, PartialEq)]
pub enum Conv {
    /// The same Rust type.
    Move,
    /// `i32` → `i64`.
    Widen,
    /// A pair's function (index in [`SpokePlan::pairs`]).
    Pair(usize),
    /// Each element of a `Vec`, each value of a map, the value of an `Option`.
    Each(Container, Box<Conv>),
    /// A required value into an optional field.
    Some(Box<Conv>),
    /// Out of a `Box` (`unbox`) and into one (`rebox`), around a conversion.
    Boxed { unbox: bool, rebox: bool, inner: Box<Conv> },
    /// The root's `apiVersion`: the target version's.
    ApiVersion,
}

/// What [`Conv::Each`] goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// `Vec<T>`.
    Vec,
    /// `BTreeMap<String, T>`.
    Map,
    /// `Option<T>`.
    Option,
}

/// A trait method: one field, one direction.
#[derive(Clone, Debug)]
pub struct Method {
    /// Its name (`spec_replicas_to_hub`).
    pub name: String,
    /// Spoke to hub (else hub to spoke).
    pub up: bool,
    /// The pair whose struct it writes a field of.
    pub pair: usize,
    /// The field it writes (in the hub struct going up, the spoke struct going down).
    pub field: usize,
    /// The place (`Widget.spec.replicas`).
    pub path: String,
    /// Why generated code cannot do it.
    pub why: &'static str,
    /// The field's schema in the spoke version, then the hub's (JSON, descriptions left
    /// out), where the field exists.
    pub schemas: (Option<String>, Option<String>),
    /// Where only the field's presence changed (optional in the source version, required in the
    /// target): the source's value converted, which the method is given (taken out of the
    /// struct it also sees) to decide what absence becomes.
    pub converted: Option<Conv>,
}

/// Plans the conversions of every CRD with two or more versions among `modules`: `crds` are
/// `(CRD, [(version, module index)])`; `hubs` names a CRD's hub where it is not the storage
/// version.
pub fn plan(
    modules: &[Module],
    crds: &[(&kubeskema::crd::Crd, Vec<(String, usize)>)],
    hubs: &std::collections::BTreeMap<String, String>,
) -> Vec<Conversion> {
    let mut out = Vec::new();
    for (crd, versions) in crds {
        if versions.len() < 2 {
            continue;
        }
        let side = |(version, module): &(String, usize)| -> Option<Side> {
            let root = modules[*module].types.iter().position(
                |t| matches!(t, TypeDef::Struct(s) if s.root.as_ref().is_some_and(|r| r.kind == crd.names.kind)),
            )?;
            Some(Side { module: *module, root, version: version.clone() })
        };
        let storage = crd.versions.iter().find(|v| v.storage).map(|v| v.name.as_str());
        let wanted = hubs.get(&crd.name).map(String::as_str).or(storage);
        let Some(hub) = versions.iter().find(|(v, _)| Some(v.as_str()) == wanted).and_then(side) else {
            continue;
        };
        let schema_of = |version: &str| crd.versions.iter().find(|v| v.name == version).and_then(|v| v.schema.as_ref());
        let raw = crd.raw();
        let spokes = versions
            .iter()
            .filter(|(v, _)| *v != hub.version)
            .filter_map(side)
            .map(|spoke| {
                let mut planner = Planner {
                    spoke_m: &modules[spoke.module],
                    spoke_index: spoke.module,
                    hub_m: &modules[hub.module],
                    hub_index: hub.module,
                    raw: &raw,
                    pairs: Vec::new(),
                    methods: Vec::new(),
                    seen: HashMap::new(),
                    fn_names: Taken::default(),
                    method_names: Taken::default(),
                };
                planner.pair(spoke.root, hub.root, &crd.names.kind, schema_of(&spoke.version), schema_of(&hub.version));
                SpokePlan { side: spoke, pairs: planner.pairs, methods: planner.methods }
            })
            .collect();
        out.push(Conversion {
            crd: crd.name.clone(),
            group: crd.group.clone(),
            kind: crd.names.kind.clone(),
            webhook: crd.envelope().pointer("/spec/conversion/strategy").and_then(Value::as_str) == Some("Webhook"),
            hub,
            spokes,
        });
    }
    out
}

struct Planner<'a> {
    spoke_m: &'a Module,
    spoke_index: usize,
    hub_m: &'a Module,
    hub_index: usize,
    raw: &'a Value,
    pairs: Vec<Pair>,
    methods: Vec<Method>,
    seen: HashMap<(TypeId, TypeId), usize>,
    fn_names: Taken,
    method_names: Taken,
}

impl Planner<'_> {
    /// The pair of `spoke` and `hub` at `path` (planned once), its index.
    fn pair(
        &mut self,
        spoke: TypeId,
        hub: TypeId,
        path: &str,
        s_node: Option<&Schema>,
        h_node: Option<&Schema>,
    ) -> usize {
        if let Some(&i) = self.seen.get(&(spoke, hub)) {
            return i;
        }
        let index = self.pairs.len();
        self.seen.insert((spoke, hub), index);
        let base = super::names::field_ident(self.spoke_m.types[spoke].name()).trim_start_matches("r#").to_owned();
        let to = self.fn_names.claim(&format!("{base}_to_hub"), |b, n| format!("{b}_{n}"));
        let from = self.fn_names.claim(&format!("{base}_from_hub"), |b, n| format!("{b}_{n}"));
        self.pairs.push(Pair {
            spoke,
            hub,
            path: path.to_owned(),
            fns: (to, from),
            body: PairBody::Struct(Vec::new()),
        });
        let body = match (&self.spoke_m.types[spoke], &self.hub_m.types[hub]) {
            (TypeDef::Struct(s), TypeDef::Struct(h)) => {
                PairBody::Struct(self.fields(index, s, h, path, s_node, h_node))
            }
            (TypeDef::Enum(s), TypeDef::Enum(h)) => {
                let map = |from: &[(String, Value)], to: &[(String, Value)]| {
                    from.iter()
                        .enumerate()
                        .map(|(i, (_, v))| to.iter().position(|(_, w)| w == v).map(|j| (i, j)))
                        .collect::<Option<Vec<_>>>()
                };
                PairBody::Enum {
                    up: map(&s.variants, &h.variants),
                    down: map(&h.variants, &s.variants).map(|m| m.into_iter().map(|(h, s)| (s, h)).collect()),
                }
            }
            _ => unreachable!("invariant: pairs are planned only of two structs or two enums"),
        };
        self.pairs[index].body = body;
        index
    }

    fn fields(
        &mut self,
        index: usize,
        s: &StructDef,
        h: &StructDef,
        path: &str,
        s_node: Option<&Schema>,
        h_node: Option<&Schema>,
    ) -> Vec<FieldMap> {
        let root = s.root.is_some() && h.root.is_some();
        let mut maps = Vec::new();
        let mut names: Vec<&str> = h.fields.iter().map(|f| f.json_name.as_str()).collect();
        names.extend(
            s.fields.iter().map(|f| f.json_name.as_str()).filter(|j| !h.fields.iter().any(|f| f.json_name == *j)),
        );
        for json in names {
            let (si, hi) =
                (s.fields.iter().position(|f| f.json_name == json), h.fields.iter().position(|f| f.json_name == json));
            let place = format!("{path}.{json}");
            let (sc, hc) = (property(s_node, json), property(h_node, json));
            let (up, down) = match (si, hi) {
                (Some(si), Some(hi)) => {
                    let (sf, hf) = (&s.fields[si], &h.fields[hi]);
                    if root && json == "apiVersion" {
                        (Way::Convert(Conv::ApiVersion), Way::Convert(Conv::ApiVersion))
                    } else {
                        let up = self.field(sf, hf, true, &place, sc, hc);
                        let down = self.field(hf, sf, false, &place, hc, sc);
                        let way =
                            |conv: Result<Conv, (&'static str, Option<Conv>)>, up: bool, this: &mut Self| match conv {
                                Ok(c) => Way::Convert(c),
                                Err((why, converted)) => {
                                    let m = this.method(index, up, if up { hi } else { si }, &place, why, sc, hc);
                                    this.methods[m].converted = converted;
                                    Way::Method(m)
                                }
                            };
                        (way(up, true, self), way(down, false, self))
                    }
                }
                (Some(si), None) => {
                    (Way::Lost, Way::Method(self.method(index, false, si, &place, "not in the hub", sc, hc)))
                }
                (None, Some(hi)) => {
                    (Way::Method(self.method(index, true, hi, &place, "not in this version", sc, hc)), Way::Lost)
                }
                (None, None) => unreachable!("invariant: every name is a field of one side"),
            };
            maps.push(FieldMap { spoke: si, hub: hi, up, down });
        }
        maps
    }

    /// A method writing field `field` of pair `pair`'s target struct.
    #[allow(clippy::too_many_arguments, reason = "the place, and both versions' schema nodes for its doc")]
    fn method(
        &mut self,
        pair: usize,
        up: bool,
        field: usize,
        place: &str,
        why: &'static str,
        s_node: Option<&Schema>,
        h_node: Option<&Schema>,
    ) -> usize {
        let words: Vec<String> = place
            .split(['.', '[', ']', '*'])
            .skip(1)
            .filter(|w| !w.is_empty())
            .map(|w| super::names::field_ident(w).trim_start_matches("r#").trim_matches('_').to_owned())
            .filter(|w| !w.is_empty())
            .collect();
        let stem = if words.is_empty() { "object".to_owned() } else { words.join("_") };
        let wanted = format!("{stem}_{}", if up { "to_hub" } else { "from_hub" });
        let name = self.method_names.claim(&wanted, |b, n| format!("{b}_{n}"));
        self.methods.push(Method {
            name,
            up,
            pair,
            field,
            path: place.to_owned(),
            why,
            schemas: (s_node.map(|n| self.schema_json(n)), h_node.map(|n| self.schema_json(n))),
            converted: None,
        });
        self.methods.len() - 1
    }

    /// A node's schema as the CRD writes it, without descriptions, pretty-printed.
    fn schema_json(&self, node: &Schema) -> String {
        let mut v = self.raw.pointer(&node.pointer).cloned().unwrap_or(Value::Null);
        super::strip_descriptions(&mut v);
        serde_json::to_string_pretty(&v).unwrap_or_default()
    }

    /// How field `from` converts into field `to`, if generated code can do it.
    fn field(
        &mut self,
        from: &super::FieldDef,
        to: &super::FieldDef,
        up: bool,
        place: &str,
        s_node: Option<&Schema>,
        h_node: Option<&Schema>,
    ) -> Result<Conv, (&'static str, Option<Conv>)> {
        if (from.shape == Shape::UnknownFields) != (to.shape == Shape::UnknownFields) {
            return Err(("unknown fields kept in one version only", None));
        }
        let inner =
            self.value(&from.ty, &to.ty, up, place, s_node, h_node).ok_or(("its type or values differ", None))?;
        let inner = if from.boxed || to.boxed {
            if inner == Conv::Move && from.boxed == to.boxed {
                Conv::Move
            } else {
                Conv::Boxed { unbox: from.boxed, rebox: to.boxed, inner: Box::new(inner) }
            }
        } else {
            inner
        };
        let wrap = |mut c: Conv, n: usize| {
            for _ in 0..n {
                if c != Conv::Move {
                    c = Conv::Each(Container::Option, Box::new(c));
                }
            }
            c
        };
        match (from.shape.options(), to.shape.options()) {
            (a, b) if a <= b => {
                // Fewer options to more: `Some` around the value, inside those it had.
                let mut more = inner;
                for _ in a..b {
                    more = Conv::Some(Box::new(more));
                }
                Ok(wrap(more, a))
            }
            (a, _) => Err((
                "optional or nullable in the source version, required or defaulted in the target",
                Some(wrap(inner, a)),
            )),
        }
    }

    /// How a value of type `from` converts into `to` (the spoke's types first going up).
    fn value(
        &mut self,
        from: &Ty,
        to: &Ty,
        up: bool,
        place: &str,
        s_node: Option<&Schema>,
        h_node: Option<&Schema>,
    ) -> Option<Conv> {
        let each = |c: Container, inner: Option<Conv>| {
            inner.map(|inner| if inner == Conv::Move { Conv::Move } else { Conv::Each(c, Box::new(inner)) })
        };
        match (from, to) {
            (Ty::Vec(a), Ty::Vec(b)) => {
                let inner = self.value(a, b, up, &format!("{place}[]"), items(s_node), items(h_node));
                each(Container::Vec, inner)
            }
            (Ty::Map(a), Ty::Map(b)) => {
                let inner = self.value(a, b, up, &format!("{place}[*]"), values(s_node), values(h_node));
                each(Container::Map, inner)
            }
            (Ty::Option(a), Ty::Option(b)) => {
                let inner = self.value(a, b, up, place, s_node, h_node);
                each(Container::Option, inner)
            }
            (Ty::I32, Ty::I64) => Some(Conv::Widen),
            (Ty::Named(a), Ty::Named(b)) => {
                // `from` is the spoke's going up, the hub's going down.
                let (s, h) = if up { (*a, *b) } else { (*b, *a) };
                if self.definition(self.spoke_m, self.spoke_index, s) == self.definition(self.hub_m, self.hub_index, h)
                {
                    return Some(Conv::Move);
                }
                let (sn, hn) = if up { (s_node, h_node) } else { (h_node, s_node) };
                match (&self.spoke_m.types[s], &self.hub_m.types[h]) {
                    (TypeDef::Struct(x), TypeDef::Struct(y)) if x.root.is_none() && y.root.is_none() => {
                        Some(Conv::Pair(self.pair(s, h, place, sn, hn)))
                    }
                    (TypeDef::Enum(_), TypeDef::Enum(_)) => {
                        let i = self.pair(s, h, place, sn, hn);
                        let PairBody::Enum { up: u, down: d } = &self.pairs[i].body else { return None };
                        (if up { u.is_some() } else { d.is_some() }).then_some(Conv::Pair(i))
                    }
                    _ => None,
                }
            }
            (a, b) if a == b && !matches!(a, Ty::Named(_)) => Some(Conv::Move),
            _ => None,
        }
    }

    /// Where a type is defined: its module and id there, following the re-export of a type
    /// the generation shares.
    fn definition(&self, m: &Module, index: usize, id: TypeId) -> (usize, TypeId) {
        m.shared[id].as_ref().map_or((index, id), |s| (s.module, s.id))
    }
}

fn property<'s>(node: Option<&'s Schema>, name: &str) -> Option<&'s Schema> {
    node.and_then(|n| n.properties.get(name))
}

fn items(node: Option<&Schema>) -> Option<&Schema> {
    node.and_then(|n| n.items.as_deref())
}

fn values(node: Option<&Schema>) -> Option<&Schema> {
    node.and_then(|n| match &n.additional_properties {
        Some(kubeskema::schema::AdditionalProperties::Schema(s)) => Some(s.as_ref()),
        _ => None,
    })
}
