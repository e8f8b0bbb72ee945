//! Set and map lists (`x-kubernetes-list-type: set | map`) compare and add as the apiserver's
//! unstructured values do (`valuesunstructured.go`, semantics §9.4): a set's `==` ignores
//! order, a map list's matches items by their key, `+` is a union (a merge by key); and where
//! such lists sit inside objects, lists and maps, the values around them compare by their
//! kinds too (`self.objs[0] == self.objs[1]`, two items holding the same map list in another
//! order, are equal), and an object compares the fields it holds beyond the schema's
//! (`x-kubernetes-preserve-unknown-fields`) only where the other has them too. The interpreter
//! has one kind of list, so [`lower`] turns each `==` and `!=` whose left side's type holds
//! such a list or an object into a call of [`SCHEMA_EQUALS`] with the left side's [`Shape`],
//! and each `+` whose left side is one into a union or merge; other values keep CEL's own
//! equality. Like the apiserver's, the semantics follow the left operand: `[1, 2] ==
//! self.set` is ordered.
//!
//! An integer of the schema that the document wrote as a float (`1.0`) is an error where the
//! apiserver reads it for a comparison, and only on the receiving side: `self == oldSelf` fails
//! with `invalid data, expected int, got float64` where `oldSelf == self` is false (the other
//! side's error is no integer, so not equal). An object or map compares its entries in Go's
//! map order, the first entry not equal deciding; where that order could decide between an
//! error and `false`, kubeskema gives the error (the apiserver gives either, from one request
//! to the next).
//!
//! [quirk] A map list keys its items by the *escaped* names of its key properties, looked up
//! in the item as the document wrote it: a key property whose name CEL escapes (`a-b`) reads
//! as null in every item, so all items have one key. With more than three key properties,
//! the key is their values printed by Go's `%v` (`[a b]` for `"a b"` and `"a","b"` alike).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;

use cel::common::ast::{CallExpr, Expr, IdedExpr, ListExpr, LiteralValue, operators};
use cel::common::types::{CelOptional, Kind};
use cel::common::value::{CowVal, Val};
use cel::objects::Key;
use cel::{ExecutionError, Value};
use serde_json::json;

use crate::cel::vocabulary::args::value_fn;
use crate::cel::vocabulary::function::{Charge, Cost, NOT_YET_NATIVE, NativeForm, Rows, Run};
use crate::cel::vocabulary::types::{ListKind, Type};
use crate::cel::vocabulary::value::{deep_equal, plain};

/// `@schema_equals(a, b, shape)`: `a == b` as the apiserver compares values of `a`'s type
/// (`shape`: [`Shape::encode`]).
pub const SCHEMA_EQUALS: &str = "@schema_equals";
/// `@schema_not_equals(a, b, shape)`: `a != b`, which cel-go takes as "`a == b` is not true":
/// where [`SCHEMA_EQUALS`] fails, it is true.
pub const SCHEMA_NOT_EQUALS: &str = "@schema_not_equals";
/// `@schema_in(x, list, shape)`: `x in list` as the apiserver's list of items of `shape`
/// finds `x`: the first item equal to it by [`SCHEMA_EQUALS`]'s rules.
pub const SCHEMA_IN: &str = "@schema_in";
/// `@schema_map_in(x, map)`: `x in map` as the apiserver's map of an object's data finds
/// `x`: a key that is no string is no overload (its unstructured map answers strings only).
pub const SCHEMA_MAP_IN: &str = "@schema_map_in";
/// `@schema_index(container, key)`: `container[key]` as the apiserver's list or map of an
/// object's data reads a key the checker cannot tell is an `int` (a list) or a `string` (a
/// map): its map answers string keys only, any other is no overload (`self.im[dyn(1)]`); its
/// list finds a `uint` or `double` in bounds as cel-go's lists do (`IndexOrError`), then
/// refuses all but an `int` (`self.ints[dyn(1u)]`: `unsupported index: 1`), as
/// kube-apiserver 1.36.3 answers.
pub const SCHEMA_INDEX: &str = "@schema_index";
/// `@schema_opt_index(container, key)`: `container[?key]`, the key read as [`SCHEMA_INDEX`]
/// reads it; nothing at it is `optional.none()`.
pub const SCHEMA_OPT_INDEX: &str = "@schema_opt_index";
/// `@set_union(a, b)`: `a + b` of a set.
pub const SET_UNION: &str = "@set_union";
/// `@map_list_merge(a, b, keys)`: `a + b` of a map list.
pub const MAP_LIST_MERGE: &str = "@map_list_merge";

/// The rows of the functions [`lower`] calls.
pub(crate) fn functions(rows: &mut Rows) {
    let mut add = |signature: &str, f, native| rows.add(signature, Run::Library(f), Cost::Call, Charge::Call, native);
    add(&format!("{SCHEMA_EQUALS}(A, A, string) -> bool"), value_fn!(schema_equals), NativeForm::SchemaEquals);
    add(
        &format!("{SCHEMA_NOT_EQUALS}(A, A, string) -> bool"),
        value_fn!(schema_not_equals),
        NativeForm::SchemaNotEquals,
    );
    add(
        &format!("{SCHEMA_IN}(A, list(A), string) -> bool"),
        value_fn!(schema_in),
        NativeForm::Interpreted(NOT_YET_NATIVE),
    );
    add(
        &format!("{SCHEMA_MAP_IN}(A, map(K, V)) -> bool"),
        value_fn!(schema_map_in),
        NativeForm::Interpreted(NOT_YET_NATIVE),
    );
    add(&format!("{SCHEMA_INDEX}(A, B) -> dyn"), schema_index, NativeForm::Interpreted(NOT_YET_NATIVE));
    add(
        &format!("{SCHEMA_OPT_INDEX}(A, B) -> optional_type(dyn)"),
        schema_opt_index,
        NativeForm::Interpreted(NOT_YET_NATIVE),
    );
    add(
        &format!("{SET_UNION}(list(A), list(A)) -> list(A)"),
        value_fn!(set_union),
        NativeForm::Interpreted(NOT_YET_NATIVE),
    );
    add(
        &format!("{MAP_LIST_MERGE}(list(A), list(A), list(string)) -> list(A)"),
        value_fn!(map_list_merge),
        NativeForm::Interpreted(NOT_YET_NATIVE),
    );
}

/// What equality needs of a type: where its set and map lists are, and, around them, the
/// objects, lists and maps that hold them.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// CEL's own equality.
    Plain,
    /// An integer: a float there (a whole one the document wrote as `1.0`, or one beyond
    /// int64) fails the comparison it receives, as the apiserver reads the field.
    Int,
    /// An integer compared with a number of the rule's own, whose type is no `int` (a `uint`,
    /// a `double`, `dyn`: `dyn(1u) in self.ints`): read as [`Shape::Int`], then equal to the
    /// same number of any type (cel-go's heterogeneous equality, `1 == 1u`, as kube-apiserver
    /// 1.36.3 answers).
    IntAgainstDyn,
    /// An object: its declared fields by escaped name (a field it holds beyond them, kept by
    /// `x-kubernetes-preserve-unknown-fields`, compares only where the other has it).
    Object(BTreeMap<String, Shape>),
    /// An atomic list: item by item, in order.
    List(Box<Shape>),
    /// A set of scalars: the same items in any order.
    Set,
    /// A map list: its key properties (escaped), and its items' shape.
    MapList(Vec<String>, Box<Shape>),
    /// A map (`additionalProperties`): key by key.
    Map(Box<Shape>),
    /// A list or map the rule writes (`[self.a]`): cel-go's own, where an item whose
    /// comparison fails is no difference; the items compare by their shape.
    Written(Box<Shape>),
}

impl Shape {
    /// The shape of a checked type.
    pub fn of(t: &Type) -> Shape {
        match t {
            // A schema's object (a library's type, `kubernetes.Quantity`, declares no field).
            Type::Object(o) if !o.fields.is_empty() => {
                Shape::Object(o.fields.iter().map(|(k, t)| (k.clone(), Shape::of(t))).collect())
            }
            Type::List(item, ListKind::Atomic) => Shape::List(Box::new(Shape::of(item))),
            Type::List(_, ListKind::Set) => Shape::Set,
            Type::List(item, ListKind::Map(keys)) => Shape::MapList(keys.to_vec(), Box::new(Shape::of(item))),
            Type::Map(_, values) => Shape::Map(Box::new(Shape::of(values))),
            Type::Int => Shape::Int,
            _ => Shape::Plain,
        }
    }

    /// The shape compared with a value of type `other` (`None`: not known). An integer
    /// compared where `other` holds no `int` (a `uint`, a `double`, `dyn`) meets a number of
    /// the rule's own, equal to it by value ([`Shape::IntAgainstDyn`]); where `other` holds an
    /// `int` too, a float there is data the schema types as an integer, misread.
    pub fn against(self, other: Option<&Type>) -> Shape {
        let item = |s: Box<Shape>, t: Option<&Type>| Box::new(s.against(t));
        match (self, other) {
            (Shape::Int, Some(Type::Int)) => Shape::Int,
            (Shape::Int, _) => Shape::IntAgainstDyn,
            (Shape::List(s), Some(Type::List(t, _))) => Shape::List(item(s, Some(t))),
            (Shape::MapList(keys, s), Some(Type::List(t, _))) => Shape::MapList(keys, item(s, Some(t))),
            (Shape::Map(s), Some(Type::Map(_, t))) => Shape::Map(item(s, Some(t))),
            (Shape::Object(fields), Some(Type::Object(o))) => Shape::Object(
                fields
                    .into_iter()
                    .map(|(k, s)| {
                        let t = o.fields.get(&k);
                        (k, s.against(t))
                    })
                    .collect(),
            ),
            (Shape::Written(s), t) => Shape::Written(item(s, t)),
            (Shape::List(s), _) => Shape::List(item(s, None)),
            (Shape::MapList(keys, s), _) => Shape::MapList(keys, item(s, None)),
            (Shape::Map(s), _) => Shape::Map(item(s, None)),
            (Shape::Object(fields), _) => {
                Shape::Object(fields.into_iter().map(|(k, s)| (k, s.against(None))).collect())
            }
            (shape @ (Shape::Plain | Shape::IntAgainstDyn | Shape::Set), _) => shape,
        }
    }

    /// Whether a set or map list is in it.
    pub fn holds_kinds(&self) -> bool {
        match self {
            Shape::Plain | Shape::Int | Shape::IntAgainstDyn => false,
            Shape::Set | Shape::MapList(..) => true,
            Shape::Object(fields) => fields.values().any(Shape::holds_kinds),
            Shape::List(item) | Shape::Map(item) | Shape::Written(item) => item.holds_kinds(),
        }
    }

    /// Whether an integer is in it.
    pub fn holds_ints(&self) -> bool {
        match self {
            Shape::Plain | Shape::Set => false,
            Shape::Int | Shape::IntAgainstDyn => true,
            Shape::Object(fields) => fields.values().any(Shape::holds_ints),
            Shape::List(item) | Shape::Map(item) | Shape::MapList(_, item) | Shape::Written(item) => item.holds_ints(),
        }
    }

    /// Whether the apiserver's equality of a value of this shape can differ from CEL's own: a
    /// set or map list, or an object (its fields beyond the schema's) is in it, or it holds
    /// integers (read as the schema types them). A lone integer is read where the rule reads it.
    pub fn compares_by_schema(&self) -> bool {
        match self {
            Shape::Plain | Shape::Int | Shape::IntAgainstDyn => false,
            Shape::Set | Shape::MapList(..) | Shape::Object(_) => true,
            Shape::List(item) | Shape::Map(item) => item.holds_ints() || item.compares_by_schema(),
            Shape::Written(inner) => inner.compares_by_schema(),
        }
    }

    /// The shape as the text `SCHEMA_EQUALS` is given (JSON).
    pub fn encode(&self) -> String {
        self.to_json().to_string()
    }

    fn to_json(&self) -> serde_json::Value {
        match self {
            Shape::Plain => json!(0),
            Shape::Int => json!(1),
            Shape::IntAgainstDyn => json!(2),
            Shape::Object(fields) => {
                json!({"o": fields.iter().map(|(k, s)| (k.clone(), s.to_json())).collect::<serde_json::Map<_, _>>()})
            }
            Shape::List(item) => json!({"l": item.to_json()}),
            Shape::Set => json!({"s": 0}),
            Shape::MapList(keys, item) => json!({"m": keys, "i": item.to_json()}),
            Shape::Map(values) => json!({"M": values.to_json()}),
            Shape::Written(inner) => json!({"w": inner.to_json()}),
        }
    }

    /// [`Shape::encode`] read back.
    pub fn decode(text: &str) -> Option<Shape> {
        Shape::from_json(&serde_json::from_str(text).ok()?)
    }

    fn from_json(v: &serde_json::Value) -> Option<Shape> {
        let Some(m) = v.as_object() else {
            return Some(match v.as_i64() {
                Some(1) => Shape::Int,
                Some(2) => Shape::IntAgainstDyn,
                _ => Shape::Plain,
            });
        };
        Some(if let Some(fields) = m.get("o").and_then(|f| f.as_object()) {
            Shape::Object(fields.iter().map(|(k, s)| Some((k.clone(), Shape::from_json(s)?))).collect::<Option<_>>()?)
        } else if let Some(item) = m.get("l") {
            Shape::List(Box::new(Shape::from_json(item)?))
        } else if let Some(inner) = m.get("w") {
            Shape::Written(Box::new(Shape::from_json(inner)?))
        } else if m.contains_key("s") {
            Shape::Set
        } else if let (Some(keys), Some(item)) = (m.get("m").and_then(|k| k.as_array()), m.get("i")) {
            let keys = keys.iter().map(|k| k.as_str().map(str::to_owned)).collect::<Option<_>>()?;
            Shape::MapList(keys, Box::new(Shape::from_json(item)?))
        } else {
            Shape::Map(Box::new(Shape::from_json(m.get("M")?)?))
        })
    }
}

/// Makes `==` and `!=` of values whose type holds set or map lists, and the set and map
/// lists' `+`, calls of their own functions; `types` are the checker's, by node id.
pub fn lower(e: &mut IdedExpr, types: &HashMap<u64, Type>) {
    for child in crate::cel::vocabulary::depth::children_mut(e) {
        lower(child, types);
    }
    let Expr::Call(call) = &mut e.expr else { return };
    let negate = match call.func_name.as_str() {
        operators::EQUALS => false,
        operators::NOT_EQUALS => true,
        operators::ADD => return lower_add(e.id, call, types),
        operators::IN => return lower_in(e.id, call, types),
        operators::INDEX | operators::OPT_INDEX => return lower_index(call, types),
        _ => return,
    };
    if call.target.is_some() || call.args.len() != 2 {
        return;
    }
    let left = undyn(&call.args[0]);
    let Some(mut shape) = types.get(&left.id).map(Shape::of).filter(Shape::compares_by_schema) else { return };
    if matches!(left.expr, Expr::List(_) | Expr::Map(_)) {
        shape = Shape::Written(Box::new(shape));
    }
    let shape = shape.against(types.get(&undyn(&call.args[1]).id));
    let mut args = std::mem::take(&mut call.args);
    args.push(IdedExpr { id: e.id, expr: Expr::Literal(LiteralValue::String(shape.encode().into())) });
    let function = if negate { SCHEMA_NOT_EQUALS } else { SCHEMA_EQUALS };
    e.expr = Expr::Call(CallExpr { func_name: function.to_owned(), target: None, args, ..Default::default() });
}

/// What `e` evaluates to with `dyn(...)` taken off: `dyn` changes the type the checker
/// sees, not the value, whose origin (the schema's data or the rule's own) decides how it
/// compares.
fn undyn(e: &IdedExpr) -> &IdedExpr {
    match &e.expr {
        Expr::Call(c) if c.func_name == "dyn" && c.target.is_none() && c.args.len() == 1 => undyn(&c.args[0]),
        _ => e,
    }
}

fn lower_in(id: u64, call: &mut CallExpr, types: &HashMap<u64, Type>) {
    if call.target.is_some() || call.args.len() != 2 {
        return;
    }
    let items = undyn(&call.args[1]);
    // A map of the object's data (read from it, not written or computed by the rule) has
    // string keys only: a probe the checker cannot tell is a string goes to SCHEMA_MAP_IN.
    let string_probe = matches!(types.get(&undyn(&call.args[0]).id), Some(Type::String));
    if super::reads_data(&items.expr) && !string_probe && matches!(types.get(&items.id), Some(Type::Map(..))) {
        call.func_name = SCHEMA_MAP_IN.to_owned();
        return;
    }
    let Some(Type::List(item, _)) = types.get(&items.id) else { return };
    let shape = Shape::of(item);
    // Integers matter in a list of the schema's (its items read as it types them); a list
    // written in the rule holds what its expressions read.
    let schema_list = !matches!(items.expr, Expr::List(_));
    if !(shape.compares_by_schema() || schema_list && shape.holds_ints()) {
        return;
    }
    let shape = shape.against(types.get(&undyn(&call.args[0]).id));
    call.args.push(IdedExpr { id, expr: Expr::Literal(LiteralValue::String(shape.encode().into())) });
    call.func_name = SCHEMA_IN.to_owned();
}

fn lower_index(call: &mut CallExpr, types: &HashMap<u64, Type>) {
    if call.target.is_some() || call.args.len() != 2 {
        return;
    }
    let container = undyn(&call.args[0]);
    let key = types.get(&undyn(&call.args[1]).id);
    let (of_data, plain_key) = match types.get(&container.id) {
        Some(Type::Map(..)) => (super::reads_data(&container.expr), matches!(key, Some(Type::String))),
        Some(Type::List(..)) => (data_list(container), matches!(key, Some(Type::Int))),
        _ => return,
    };
    if of_data && !plain_key {
        let optional = call.func_name == operators::OPT_INDEX;
        call.func_name = if optional { SCHEMA_OPT_INDEX } else { SCHEMA_INDEX }.to_owned();
    }
}

/// Whether the list `e` is one of the object's data as the apiserver holds it: read from it, or
/// such a list with another added (its `+` keeps the left list's kind: `(self.ints +
/// [7])[dyn(2u)]` fails as `self.ints[dyn(1u)]` does, `([7] + self.ints)[dyn(1u)]` is `3`).
fn data_list(e: &IdedExpr) -> bool {
    match &e.expr {
        Expr::Call(c)
            if c.target.is_none()
                && c.args.len() >= 2
                && matches!(c.func_name.as_str(), operators::ADD | SET_UNION | MAP_LIST_MERGE) =>
        {
            data_list(undyn(&c.args[0]))
        }
        other => super::reads_data(other),
    }
}

fn lower_add(id: u64, call: &mut CallExpr, types: &HashMap<u64, Type>) {
    if call.target.is_some() || call.args.len() != 2 {
        return;
    }
    let (function, keys) = match types.get(&call.args[0].id) {
        Some(Type::List(_, ListKind::Set)) => (SET_UNION, None),
        Some(Type::List(_, ListKind::Map(keys))) => (MAP_LIST_MERGE, Some(keys.clone())),
        _ => return,
    };
    if let Some(keys) = keys {
        let names = keys
            .iter()
            .map(|k| IdedExpr { id, expr: Expr::Literal(LiteralValue::String(k.to_string().into())) })
            .collect();
        call.args.push(IdedExpr { id, expr: Expr::List(ListExpr::new(names)) });
    }
    call.func_name = function.to_owned();
}

fn lists<'a>(function: &str, args: &'a [Value]) -> Result<(&'a [Value], &'a [Value]), ExecutionError> {
    match (args.first(), args.get(1)) {
        (Some(Value::List(a)), Some(Value::List(b))) => Ok((a.as_slice(), b.as_slice())),
        (_, Some(other)) => Err(ExecutionError::no_such_overload(function, vec![other.type_of().to_string()])),
        _ => Err(ExecutionError::invalid_argument_count(2, args.len())),
    }
}

/// A set item as the apiserver keys it: its Go value, so `1` and `1.0` differ. Items that are
/// lists or maps cannot be keyed.
fn set_key(v: &Value) -> Result<String, ExecutionError> {
    match v {
        Value::List(_) | Value::Map(_) => Err(ExecutionError::function_error(
            "listSet",
            "listSet operations are only supported on lists of scalar values",
        )),
        scalar => Ok(format!("{scalar:?}")),
    }
}

fn set_union(args: &[Value]) -> Result<Value, ExecutionError> {
    let (a, b) = lists(SET_UNION, args)?;
    let mut set: std::collections::HashSet<String> = a.iter().map(set_key).collect::<Result<_, _>>()?;
    let mut out = a.to_vec();
    for item in b {
        if set.insert(set_key(item)?) {
            out.push(item.clone());
        }
    }
    Ok(Value::List(Arc::new(out)))
}

/// The key names of a map list (the third argument).
fn key_names(args: &[Value]) -> Vec<String> {
    match args.get(2) {
        Some(Value::List(names)) => {
            names.iter().filter_map(|n| if let Value::String(s) = n { Some(s.to_string()) } else { None }).collect()
        }
        _ => Vec::new(),
    }
}

/// An item's key as the apiserver's `toMapKey` makes it: the key properties' values (absent
/// ones, and those whose name CEL escapes, as null: see the module's text), compared as Go
/// compares them, or for more than three keys as Go's `%v` prints them.
fn map_key(item: &Value, names: &[String]) -> Result<String, ExecutionError> {
    let Value::Map(m) = item else {
        return Err(ExecutionError::function_error(
            "listMap",
            format!("unexpected data format for element of array with x-kubernetes-list-type=map: {}", item.type_of()),
        ));
    };
    let values = names.iter().map(|n| {
        // An escaped name is looked up as written: found where escaping left it alone, or
        // where it cannot be escaped (kept as written, in the item and in the names).
        let as_written = crate::schema::cel_name::escape(n).is_none_or(|e| e == *n);
        if as_written { m.map.get(&Key::String(Arc::new(n.clone()))).unwrap_or(&Value::Null) } else { &Value::Null }
    });
    Ok(if names.len() > 3 {
        format!("[{}]", values.map(go_v).collect::<Vec<_>>().join(" "))
    } else {
        values.map(|v| format!("{v:?}")).collect::<Vec<_>>().join("\u{0}")
    })
}

/// A scalar as Go's `%v` prints it.
fn go_v(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => crate::report::issue::go_float(*f),
        Value::Bool(b) => b.to_string(),
        Value::Null => "<nil>".into(),
        other => format!("{other:?}"),
    }
}

fn map_list_merge(args: &[Value]) -> Result<Value, ExecutionError> {
    let (a, b) = lists(MAP_LIST_MERGE, args)?;
    let names = key_names(args);
    let mut out = a.to_vec();
    let mut position = HashMap::with_capacity(a.len());
    for (i, item) in a.iter().enumerate() {
        position.insert(map_key(item, &names)?, i);
    }
    for item in b {
        let key = map_key(item, &names)?;
        // Only the left side's keys are replaced; the right side's items are all kept.
        match position.get(&key) {
            Some(&i) => out[i] = item.clone(),
            None => out.push(item.clone()),
        }
    }
    Ok(Value::List(Arc::new(out)))
}

thread_local! {
    /// Shapes read from their text, once per thread.
    static SHAPES: RefCell<HashMap<String, Rc<Shape>>> = RefCell::new(HashMap::new());
}

/// The shape [`Shape::encode`] wrote as `text`, read once per thread.
fn shape(text: &str) -> Result<Rc<Shape>, ExecutionError> {
    SHAPES.with(|shapes| {
        if let Some(s) = shapes.borrow().get(text) {
            return Ok(s.clone());
        }
        let s = Rc::new(
            Shape::decode(text)
                .ok_or_else(|| ExecutionError::function_error(SCHEMA_EQUALS, "a shape that does not read"))?,
        );
        shapes.borrow_mut().insert(text.to_owned(), s.clone());
        Ok(s)
    })
}

fn schema_equals(args: &[Value]) -> Result<Value, ExecutionError> {
    let (Some(a), Some(b), Some(Value::String(text))) = (args.first(), args.get(1), args.get(2)) else {
        return Err(ExecutionError::invalid_argument_count(3, args.len()));
    };
    equal(a, b, &*shape(text)?).map(Value::Bool)
}

fn schema_not_equals(args: &[Value]) -> Result<Value, ExecutionError> {
    schema_equals(args).map(|eq| Value::Bool(eq != Value::Bool(true))).or(Ok(Value::Bool(true)))
}

/// `x in list` as the apiserver's `unstructuredList.Contains`: the first item equal to `x`
/// decides; otherwise the first error, if any.
fn schema_in(args: &[Value]) -> Result<Value, ExecutionError> {
    let (Some(x), Some(Value::List(items)), Some(Value::String(text))) = (args.first(), args.get(1), args.get(2))
    else {
        return Err(ExecutionError::invalid_argument_count(3, args.len()));
    };
    let shape = shape(text)?;
    let mut failed = None;
    for item in items.iter() {
        match equal(item, x, &shape) {
            Ok(true) => return Ok(Value::Bool(true)),
            Ok(false) => {}
            Err(e) => {
                failed.get_or_insert(e);
            }
        }
    }
    failed.map_or(Ok(Value::Bool(false)), Err)
}

fn schema_map_in(args: &[Value]) -> Result<Value, ExecutionError> {
    match (args.first(), args.get(1)) {
        (Some(Value::String(key)), Some(Value::Map(map))) => {
            Ok(Value::Bool(map.map.contains_key(&Key::String(key.clone()))))
        }
        (Some(key), Some(Value::Map(_))) => {
            Err(ExecutionError::no_such_overload(operators::IN, vec![key.type_of().to_string()]))
        }
        _ => Err(ExecutionError::invalid_argument_count(2, args.len())),
    }
}

fn schema_index<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    data_index(&args, operators::INDEX).map(CowVal::Owned)
}

fn schema_opt_index<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let found = match data_index(&args, operators::OPT_INDEX) {
        Ok(value) => CelOptional::of(value),
        Err(e) if e.is_absence() => CelOptional::none(),
        Err(e) => return Err(e),
    };
    Ok(CowVal::owned(found))
}

/// `container[key]` of the object's data (see [`SCHEMA_INDEX`]): the container's own index
/// where the apiserver's takes the key.
///
/// [quirk] Where the list finds a `uint` or `double` in bounds, the apiserver's optional index
/// holds the error as its value (`self.ints[?dyn(1u)].hasValue()` is `true`, `.value()`
/// fails); kubeskema fails at the index.
fn data_index<'v>(args: &[CowVal<'_, 'v>], operator: &str) -> Result<Box<dyn Val + 'v>, ExecutionError> {
    let [container, key] = args else { return Err(ExecutionError::invalid_argument_count(2, args.len())) };
    let overload = || {
        let types = [container, key].map(|v| v.get_type().name().to_owned());
        ExecutionError::no_such_overload(operator, types.to_vec())
    };
    let (container_kind, key_kind) = (container.get_type().kind(), key.get_type().kind());
    match container_kind {
        Kind::Map if key_kind == Kind::String => {}
        Kind::List => {}
        _ => return Err(overload()),
    }
    let found = container
        .as_indexer()
        .ok_or_else(overload)?
        .get(key.as_ref())
        .map_err(|e| if matches!(e, ExecutionError::UnexpectedType { .. }) { overload() } else { e })?
        .into_owned();
    if container_kind == Kind::List && key_kind != Kind::Int {
        let key = Value::try_from(key.as_ref())?;
        return Err(ExecutionError::function_error(operator, format!("unsupported index: {}", plain(&key))));
    }
    Ok(found)
}

/// Whether every entry of `map` is equal, by `entry`: the apiserver stops at the first entry
/// not equal in Go's map order; where that could be an error or a difference, the error
/// (in key order), so the answer is the same from one run to the next.
fn entries_equal(
    map: &cel::objects::Map,
    mut entry: impl FnMut(&Key, &Value) -> Result<bool, ExecutionError>,
) -> Result<bool, ExecutionError> {
    let mut entries: Vec<(&Key, &Value)> = map.map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut all = true;
    for (k, v) in entries {
        all &= entry(k, v)?;
    }
    Ok(all)
}

/// `a == b` as the apiserver's value of `a` (of `shape`) compares itself with `b`: the first
/// difference or error decides.
fn equal(a: &Value, b: &Value, shape: &Shape) -> Result<bool, ExecutionError> {
    let mismatch = || ExecutionError::no_such_overload(SCHEMA_EQUALS, vec![b.type_of().to_string()]);
    match shape {
        Shape::Plain => Ok(deep_equal(a, b)),
        Shape::Written(inner) => match (&**inner, a, b) {
            (Shape::List(item), Value::List(x), Value::List(y)) => {
                Ok(x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| !matches!(equal(p, q, item), Ok(false))))
            }
            (Shape::Map(values), Value::Map(x), Value::Map(y)) => Ok(x.map.len() == y.map.len()
                && x.map.iter().all(|(k, p)| y.map.get(k).is_some_and(|q| !matches!(equal(p, q, values), Ok(false))))),
            (inner, a, b) => equal(a, b, inner),
        },
        Shape::Int => match (crate::cel::lowering::int_data::not_int(a), b) {
            (Some(error), _) => Err(error),
            // The other side's error is no integer: not equal.
            (None, Value::Float(_) | Value::UInt(_)) => Ok(false),
            _ => Ok(deep_equal(a, b)),
        },
        Shape::IntAgainstDyn => match crate::cel::lowering::int_data::not_int(a) {
            Some(error) => Err(error),
            None => Ok(deep_equal(a, b)),
        },
        Shape::List(item) => {
            let (Value::List(x), Value::List(y)) = (a, b) else { return Err(mismatch()) };
            if x.len() != y.len() {
                return Ok(false);
            }
            for (p, q) in x.iter().zip(y.iter()) {
                if !equal(p, q, item)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Shape::Set => {
            let (Value::List(x), Value::List(y)) = (a, b) else { return Err(mismatch()) };
            if x.len() != y.len() {
                return Ok(false);
            }
            let set: std::collections::HashSet<String> = x.iter().map(set_key).collect::<Result<_, _>>()?;
            for q in y.iter() {
                if !set.contains(&set_key(q)?) {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Shape::MapList(names, item) => {
            let (Value::List(x), Value::List(y)) = (a, b) else { return Err(mismatch()) };
            if x.len() != y.len() {
                return Ok(false);
            }
            let mut by_key = HashMap::with_capacity(x.len());
            for p in x.iter() {
                by_key.insert(map_key(p, names)?, p);
            }
            for q in y.iter() {
                match by_key.get(&map_key(q, names)?) {
                    Some(p) if equal(p, q, item)? => {}
                    _ => return Ok(false),
                }
            }
            Ok(true)
        }
        Shape::Map(values) => {
            let (Value::Map(x), Value::Map(y)) = (a, b) else { return Err(mismatch()) };
            if x.map.len() != y.map.len() {
                return Ok(false);
            }
            entries_equal(x, |k, p| match y.map.get(k) {
                Some(q) => equal(p, q, values),
                None => Ok(false),
            })
        }
        Shape::Object(fields) => {
            let (Value::Map(x), Value::Map(y)) = (a, b) else { return Err(mismatch()) };
            if x.map.len() != y.map.len() {
                return Ok(false);
            }
            entries_equal(x, |k, p| {
                let declared = match k {
                    Key::String(name) => fields.get(name.as_str()),
                    _ => None,
                };
                match (declared, y.map.get(k)) {
                    (Some(shape), Some(q)) => equal(p, q, shape),
                    (Some(_), None) => Ok(false),
                    // [quirk] A field beyond the schema's is compared only where the other
                    // has it too.
                    (None, Some(q)) => Ok(deep_equal(p, q)),
                    (None, None) => Ok(true),
                }
            })
        }
    }
}
