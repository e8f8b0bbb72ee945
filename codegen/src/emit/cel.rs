//! Phase 4, emit (CEL): each `x-kubernetes-validations` rule compiled to a Rust function over
//! the generated type, which `#[kubeskema(rule(..., native = f))]` hands to the derive. The
//! derive runs it in place of the interpreter (`Cx::evaluate_typed`); a rule this module does
//! not cover stays interpreted, and the reason is counted ([`CelCount`]).
//!
//! The function is written from the tree the interpreter runs (set and map lists lowered, the
//! meter's charges in), as the CRD checks compiled it (`crd::check::check_keeping_rules`), node by node, so that it charges what the
//! interpreter charges, at the same places, and fails with the same errors. Each node's value
//! has a Rust representation (`Rep`): scalars as `bool`, `i64`, `f64`, strings as
//! `Cow<str>` borrowed from the object where they can be, and lists, maps and objects as
//! references into the typed value (`&Vec<T>`, `&Struct`): nothing is converted, and nothing
//! is allocated unless the rule builds a value of its own.

use std::collections::HashMap;

use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, LiteralValue};
use cel::parser::Expression;
use kubeskema::cel::types::Type;
use kubeskema::cel::{Lowered, NativeForm, NativeForm as N, Scope, escape, native_form};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use kubeskema_attributes::Rule;

use super::cel_types::node_cel_type;
use crate::model::{Attr, FieldDef, Module, Shape, StructDef, Ty, TypeDef};

pub use kubeskema::cel::CelCount;

/// The native functions of one module, written as its rules are met.
#[derive(Default)]
pub(crate) struct Natives {
    /// The functions.
    pub items: Vec<TokenStream>,
    /// What was compiled and what was not.
    pub count: CelCount,
    /// Nothing is compiled here: the derive compiles the rules.
    pub off: bool,
}

/// The node a rule sits on: its Rust type (as the derive's `self`) and its attributes.
pub(crate) struct Node<'a> {
    pub ty: Ty,
    pub attrs: &'a [Attr],
    /// The struct a container rule belongs to (its `self`), by name.
    pub owner: &'a str,
}

/// A rule compiled to Rust: its function, its messageExpression's, and whether it reads
/// `oldSelf`.
pub struct NativeRule {
    /// The rule's function.
    pub rule: Ident,
    /// The messageExpression's function.
    pub message: Option<Ident>,
    /// Whether the rule reads `oldSelf`.
    pub transition: bool,
}

impl Natives {
    /// Compiles `rule` at `node` to Rust from its checked trees (`checked`: as the CRD checks
    /// compiled it; compiled here against the node's Rust type where there are none): the
    /// names of its function and its messageExpression's, or `None` (counted with the reason)
    /// where it stays interpreted.
    pub fn compile(&mut self, m: &Module, node: &Node, rule: &Rule, checked: Option<&Lowered>) -> Option<NativeRule> {
        match self.try_compile(m, node, rule, checked) {
            Ok(names) => {
                self.count.native += 1;
                Some(names)
            }
            Err(reason) => {
                self.count.interpreted.push((node.owner.to_owned(), rule.rule.clone(), reason));
                None
            }
        }
    }

    fn try_compile(
        &mut self,
        m: &Module,
        node: &Node,
        rule: &Rule,
        checked: Option<&Lowered>,
    ) -> Result<NativeRule, String> {
        if self.off {
            return Err("left to the derive (`native_cel` off)".into());
        }
        // The node's CEL type as its Rust type gives it: where there is none, the generated
        // code could not read the value as the rule does.
        let self_type = node_cel_type(m, &node.ty, node.attrs)?;
        let compiled_here;
        let lowered = match checked {
            Some(lowered) => lowered,
            None => {
                let scope = Scope::typed(self_type, rule.optional_old_self == Some(true));
                compiled_here = kubeskema::cel::lower(&rule.rule, rule.message_expression.as_deref(), &scope)
                    .map_err(|e| format!("does not compile: {}", e.join("; ")))?;
                &compiled_here
            }
        };
        let n = self.items.len();
        let rust_ty = super::tokens::ty_tokens(m, &node.ty);
        let optional_old_self = rule.optional_old_self == Some(true);
        let rule_fn = format_ident!("__cel_rule_{}", n);
        let body = function_body(m, node, &lowered.rule, &lowered.rule_types, optional_old_self, Want::Bool)?;
        let message = match &lowered.message {
            Some((expr, types)) => {
                let body = function_body(m, node, expr, types, optional_old_self, Want::String)
                    .map_err(|e| format!("messageExpression: {e}"))?;
                Some((format_ident!("__cel_message_{}", n), body))
            }
            None => None,
        };
        let native = quote!(::kubeskema::cel::native);
        // One line, no backticks of its own: a rule's text never becomes markdown or a doctest.
        let text = rule.rule.split_whitespace().collect::<Vec<_>>().join(" ").replace('`', "'");
        let doc = super::tokens::docs(Some(&format!("`{text}`, compiled to Rust.")));
        self.items.push(quote! {
            #doc
            // A rule's compiled body may not read every binding, and keeps the rule's own parentheses.
            #[allow(unused_variables, unused_parens, unused_comparisons, clippy::all)]
            fn #rule_fn(__self: &#rust_ty, __old: ::core::option::Option<&#rust_ty>, __m: &mut #native::Meter) -> #native::Result<bool> {
                #body
            }
        });
        let message_fn = message.map(|(name, body)| {
            self.items.push(quote! {
                // As the rule's: a message may not read every binding.
                #[allow(unused_variables, unused_parens, unused_comparisons, clippy::all)]
                fn #name(__self: &#rust_ty, __old: ::core::option::Option<&#rust_ty>, __m: &mut #native::Meter) -> #native::Result<::std::string::String> {
                    #body
                }
            });
            name
        });
        Ok(NativeRule { rule: rule_fn, message: message_fn, transition: lowered.transition })
    }
}

/// What a function returns.
#[derive(Clone, Copy, PartialEq)]
enum Want {
    Bool,
    String,
}

fn function_body(
    m: &Module,
    node: &Node,
    expr: &Expression,
    types: &HashMap<u64, Type>,
    optional_old_self: bool,
    want: Want,
) -> Result<TokenStream, String> {
    let mut e = Emitter {
        m,
        types,
        locals: Vec::new(),
        statics: Vec::new(),
        next: 0,
        node_ty: node.ty.clone(),
        optional_old_self,
        places: HashMap::new(),
    };
    let (code, rep) = e.expr(expr)?;
    let result = match (want, rep) {
        (Want::Bool, Rep::Bool) => quote!(::core::result::Result::Ok(#code)),
        (Want::String, Rep::Str) => quote!(::core::result::Result::Ok((#code).into_owned())),
        (_, rep) => return Err(format!("the result is {rep}")),
    };
    let statics = &e.statics;
    Ok(quote! {
        #(#statics)*
        #result
    })
}

/// The Rust representation of a CEL value in emitted code.
#[derive(Clone, Debug, PartialEq)]
enum Rep {
    /// `bool`.
    Bool,
    /// `i64`.
    Int,
    /// `u64`.
    Uint,
    /// `f64`.
    Double,
    /// `Cow<str>`.
    Str,
    /// `i64` nanoseconds.
    Duration,
    /// `()`.
    Null,
    /// `&T`: a list, map or object inside the typed value.
    Ref(Ty),
    /// `Vec<rep>`: a list the rule built.
    List(Box<Rep>),
    /// `Option<&T>`: `oldSelf` with `optionalOldSelf`.
    Optional(Ty),
    /// `kubeskema::go::url::Url`: `url(s)`.
    Url,
}

/// What a reason for staying interpreted says of a value: its CEL kind.
impl std::fmt::Display for Rep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Rep::Bool => "a bool",
            Rep::Int => "an int",
            Rep::Uint => "a uint",
            Rep::Double => "a double",
            Rep::Str => "a string",
            Rep::Duration => "a duration",
            Rep::Null => "null",
            Rep::Ref(Ty::Vec(_)) | Rep::List(_) => "a list",
            Rep::Ref(Ty::Map(_)) => "a map",
            Rep::Ref(_) => "an object",
            Rep::Optional(_) => "an optional",
            Rep::Url => "a URL",
        })
    }
}

/// A CEL variable in scope: its Rust name and representation.
struct Local {
    name: String,
    ident: TokenStream,
    rep: Rep,
    /// Where its value lies in `self`, for a loop over a list of the object's.
    place: Option<Place>,
}

/// Where a value a rule reads lies in the object: a JSON pointer relative to `self`, its
/// segments known when the code is written or, for a loop's item, when it runs. Integer reads
/// name it to the meter ([`kubeskema::cel::native::Meter::int_read`]), which fails the read
/// where the document wrote a float.
#[derive(Clone, Default)]
struct Place(Vec<Segment>);

#[derive(Clone)]
enum Segment {
    /// A property or map key, as written (escaped as a pointer's segments are).
    Name(String),
    /// A list index held by a variable of the loop (`usize`).
    Index(Ident),
    /// An index or key computed by the rule: any.
    Any,
}

impl Place {
    fn then(&self, segment: Segment) -> Place {
        let mut place = self.clone();
        place.0.push(segment);
        place
    }

    fn name(&self, name: &str) -> Place {
        self.then(Segment::Name(kubeskema::path::escape_token(name).into_owned()))
    }

    /// A closure making the pointer (called only where some integer was written as a float).
    fn code(&self) -> TokenStream {
        let mut parts = Vec::new();
        for segment in &self.0 {
            match segment {
                Segment::Name(n) => parts.push(quote!(#n)),
                Segment::Index(i) => parts.push(quote!(#i)),
                Segment::Any => parts.push(quote!("*")),
            }
        }
        let format = "/{}".repeat(parts.len());
        quote!(|| ::std::format!(#format, #(#parts),*))
    }
}

struct Emitter<'a> {
    m: &'a Module,
    types: &'a HashMap<u64, Type>,
    locals: Vec<Local>,
    /// Statics the function needs (compiled patterns).
    statics: Vec<TokenStream>,
    next: usize,
    node_ty: Ty,
    optional_old_self: bool,
    /// Where the values read lie in `self`, by the id of the expression reading them.
    places: HashMap<u64, Place>,
}

type Emitted = Result<(TokenStream, Rep), String>;

fn native() -> TokenStream {
    quote!(::kubeskema::cel::native)
}

/// `(|| -> Result<_> { Ok(e) })()`: the expression's errors as a value (`Ok(e)` where it
/// cannot fail).
fn attempt(code: &TokenStream) -> TokenStream {
    if !fallible(code) {
        return quote!(::core::result::Result::<_, ::kubeskema::cel::native::Error>::Ok(#code));
    }
    let native = native();
    quote!((|| -> #native::Result<_> { ::core::result::Result::Ok(#code) })())
}

/// Whether emitted code can fail: it holds a `?` or a `return` (an error leaving early).
fn fallible(code: &TokenStream) -> bool {
    code.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Punct(p) => p.as_char() == '?',
        proc_macro2::TokenTree::Ident(i) => i == "return",
        proc_macro2::TokenTree::Group(g) => fallible(&g.stream()),
        proc_macro2::TokenTree::Literal(_) => false,
    })
}

impl<'a> Emitter<'a> {
    /// `e` reads what `of` reads (a charge around a read).
    fn same_place(&mut self, e: &Expression, of: &Expression) {
        if let Some(place) = self.places.get(&of.id).cloned() {
            self.places.insert(e.id, place);
        }
    }

    fn fresh(&mut self, base: &str) -> Ident {
        self.next += 1;
        format_ident!("__{}{}", base, self.next)
    }

    fn checked(&self, e: &Expression) -> Option<&Type> {
        self.types.get(&e.id)
    }

    fn expr(&mut self, e: &Expression) -> Emitted {
        match &e.expr {
            Expr::Literal(l) => literal(l),
            Expr::Ident(name) => self.ident(e, name),
            Expr::Select(s) if s.test => self.has(e, &s.operand, &s.field),
            Expr::Select(s) => {
                let (operand, rep) = self.expr(&s.operand)?;
                self.select(e, &s.operand, operand, &rep, &s.field)
            }
            Expr::Call(c) => self.call(e, c),
            Expr::Comprehension(c) => self.comprehension(c),
            Expr::List(l) => {
                if !l.optional_indices.is_empty() {
                    return Err("optional list elements".into());
                }
                let mut items = Vec::new();
                let mut rep = None;
                for item in &l.elements {
                    let (code, r) = self.expr(item)?;
                    let r = self.owned(code, r)?;
                    match &rep {
                        None => rep = Some(r.1),
                        Some(prev) if *prev == r.1 => {}
                        Some(_) => return Err("a list literal of mixed types".into()),
                    }
                    items.push(r.0);
                }
                let Some(rep) = rep else { return Err("an empty list literal outside a map or filter".into()) };
                Ok((quote!(::std::vec![#(#items),*]), Rep::List(Box::new(rep))))
            }
            Expr::Map(_) => Err("a map literal".into()),
            Expr::Struct(_) => Err("an object literal".into()),
            Expr::Unspecified => Err("an unspecified node".into()),
        }
    }

    /// A value as an element of a list the rule builds (objects, lists and maps by reference
    /// into the typed value).
    fn owned(&self, code: TokenStream, rep: Rep) -> Result<(TokenStream, Rep), String> {
        match rep {
            Rep::Optional(_) => Err("a list of optionals".into()),
            Rep::List(_) => Err("a list of lists the rule built".into()),
            other => Ok((code, other)),
        }
    }

    fn ident(&mut self, e: &Expression, name: &str) -> Emitted {
        if let Some(local) = self.locals.iter().rev().find(|l| l.name == name) {
            let ident = local.ident.clone();
            if let Some(place) = local.place.clone() {
                self.places.insert(e.id, place);
            }
            return Ok(match &local.rep {
                Rep::Ref(ty) => {
                    let ty = ty.clone();
                    self.view(&ty, ident, self.checked(e))?
                }
                // A string is borrowed again at each read (cheap: it is borrowed from the object
                // or the loop's list).
                Rep::Str => (quote!(#ident.clone()), Rep::Str),
                rep => (ident, rep.clone()),
            });
        }
        match name {
            "self" => {
                let ty = self.node_ty.clone();
                self.places.insert(e.id, Place::default());
                self.view(&ty, quote!(__self), self.checked(e))
            }
            "oldSelf" if self.optional_old_self => Ok((quote!(__old), Rep::Optional(self.node_ty.clone()))),
            "oldSelf" => {
                let ty = self.node_ty.clone();
                let native = native();
                let old = quote!(__old.ok_or(#native::Error::Message(::std::borrow::Cow::Borrowed("no old value")))?);
                self.view(&ty, old, self.checked(e))
            }
            other => Err(format!("the identifier `{other}`")),
        }
    }

    /// The value at `code` (a `&T` of Rust type `ty`) as rules see it.
    fn view(&self, ty: &Ty, code: TokenStream, checked: Option<&Type>) -> Emitted {
        if let Some(t) = checked
            && matches!(t, Type::Duration | Type::Timestamp | Type::Bytes)
        {
            return Err(format!("a string read as {}", t));
        }
        Ok(match ty {
            Ty::String => (quote!(::std::borrow::Cow::Borrowed((#code).as_str())), Rep::Str),
            Ty::I64 => (quote!((*#code)), Rep::Int),
            Ty::I32 => (quote!(i64::from(*#code)), Rep::Int),
            Ty::F64 => (quote!((*#code)), Rep::Double),
            Ty::Bool => (quote!((*#code)), Rep::Bool),
            Ty::Vec(_) | Ty::Map(_) | Ty::ObjectMeta | Ty::EmptyObject => (code, Rep::Ref(ty.clone())),
            Ty::Named(id) => match &self.m.types[*id] {
                TypeDef::Struct(_) => (code, Rep::Ref(ty.clone())),
                TypeDef::Enum(e) => {
                    let value = quote!(::kubeskema::cel::native::EnumValue::value(#code));
                    match e.variants.first().map(|(_, v)| v) {
                        Some(serde_json::Value::Number(_)) => (value, Rep::Int),
                        Some(serde_json::Value::Bool(_)) => (value, Rep::Bool),
                        _ => (quote!(::std::borrow::Cow::Borrowed(#value)), Rep::Str),
                    }
                }
            },
            Ty::Option(_) => return Err("a nullable list item or map value".into()),
            Ty::IntOrString => return Err("an int-or-string value (dyn)".into()),
            Ty::Value | Ty::JsonMap => return Err("a value of unknown fields (dyn)".into()),
            Ty::Condition | Ty::ObjectReference => return Err("a k8s-openapi type".into()),
        })
    }

    /// The struct fields (or ObjectMeta's) a selection on `rep` reads.
    fn field(&self, rep: &Rep, name: &str) -> Result<FieldRef<'a>, String> {
        match rep {
            Rep::Ref(Ty::Named(id)) => match &self.m.types[*id] {
                TypeDef::Struct(s) => struct_field(s, name).map(FieldRef::Field),
                TypeDef::Enum(_) => Err("a selection on an enum".into()),
            },
            Rep::Ref(Ty::ObjectMeta) => match name {
                "name" => Ok(FieldRef::Meta("name")),
                "generateName" => Ok(FieldRef::Meta("generate_name")),
                _ => Err(format!("metadata.{name}")),
            },
            Rep::Ref(Ty::Map(_)) => Ok(FieldRef::MapKey),
            other => Err(format!("a selection on {other}")),
        }
    }

    fn select(&mut self, e: &Expression, of: &Expression, operand: TokenStream, rep: &Rep, name: &str) -> Emitted {
        let native = native();
        let place = self.places.get(&of.id).cloned();
        match self.field(rep, name)? {
            FieldRef::Field(f) => {
                if let Some(place) = place {
                    self.places.insert(e.id, place.name(&f.json_name));
                }
                let fid = field_ident(f);
                // The name as the rule writes it (`__namespace__` or `namespace`), as the
                // apiserver's error names it.
                let key = name;
                let at = match f.shape {
                    // A boxed field reads as a reference to what the box holds.
                    Shape::Required | Shape::Defaulted if f.boxed => quote!((&*(#operand).#fid)),
                    Shape::Required | Shape::Defaulted => quote!((&(#operand).#fid)),
                    Shape::Optional | Shape::Nullable => {
                        let as_ref = if f.boxed { quote!(as_deref) } else { quote!(as_ref) };
                        quote!((#operand).#fid.#as_ref().ok_or_else(|| #native::Error::no_such_key(#key))?)
                    }
                    Shape::MaybeNull => {
                        let as_ref = if f.boxed { quote!(as_deref) } else { quote!(as_ref) };
                        quote!((#operand).#fid.as_ref().and_then(|__v| __v.#as_ref()).ok_or_else(|| #native::Error::no_such_key(#key))?)
                    }
                    Shape::UnknownFields => return Err("unknown fields".into()),
                };
                let ty = f.ty.clone();
                self.view(&ty, at, self.checked(e))
            }
            FieldRef::Meta(field) => {
                let fid = format_ident!("{}", field);
                Ok((
                    quote!(::std::borrow::Cow::Borrowed((#operand).#fid.as_deref().ok_or_else(|| #native::Error::no_such_key(#name))?)),
                    Rep::Str,
                ))
            }
            FieldRef::MapKey => {
                if let Some(place) = place {
                    self.places.insert(e.id, place.name(name));
                }
                let Rep::Ref(Ty::Map(value)) = rep else { unreachable!("FieldRef::MapKey is of a map") };
                let value = (**value).clone();
                let at = quote!((#operand).get(#name).ok_or_else(|| #native::Error::no_such_key(#name))?);
                self.view(&value, at, self.checked(e))
            }
        }
    }

    /// `has(operand.name)`.
    fn has(&mut self, e: &Expression, operand: &Expression, name: &str) -> Emitted {
        let (code, rep) = self.expr(operand)?;
        let place = self.places.get(&operand.id).cloned();
        let field = self.field(&rep, name)?;
        if let Some(place) = place {
            let key = match &field {
                FieldRef::Field(f) => f.json_name.as_str(),
                _ => name,
            };
            self.places.insert(e.id, place.name(key));
        }
        let present = match field {
            FieldRef::Field(f) => {
                let fid = field_ident(f);
                match f.shape {
                    // Still evaluated: it can fail.
                    Shape::Required | Shape::Defaulted => quote!({ let _ = &(#code).#fid; true }),
                    Shape::Optional | Shape::Nullable => quote!((#code).#fid.is_some()),
                    Shape::MaybeNull => quote!(
                        ::core::matches!((#code).#fid, ::core::option::Option::Some(::core::option::Option::Some(_)))
                    ),
                    Shape::UnknownFields => return Err("unknown fields".into()),
                }
            }
            FieldRef::Meta(field) => {
                let fid = format_ident!("{}", field);
                quote!((#code).#fid.is_some())
            }
            FieldRef::MapKey => quote!((#code).contains_key(#name)),
        };
        Ok((present, Rep::Bool))
    }

    fn call(&mut self, e: &Expression, c: &CallExpr) -> Emitted {
        let native = native();
        let name = c.func_name.as_str();
        let args = &c.args;
        // The row's native form (the runtime's function table) says what to write.
        let form = native_form(name, c.target.is_some(), args.len()).ok_or_else(|| format!("the function `{name}`"))?;
        let is_call_of = |e: &Expression, wanted: NativeForm| matches!(&e.expr, Expr::Call(c) if native_form(&c.func_name, c.target.is_some(), c.args.len()) == Some(wanted));
        // The operands in order, the target first.
        let operands: Vec<&Expression> = c.target.as_deref().into_iter().chain(args).collect();
        match form {
            N::Charge => {
                let units = int_literal(operands[0]).ok_or("a charge without units")?;
                let (code, rep) = self.expr(operands[1])?;
                self.same_place(e, operands[1]);
                let units = Literal::u64_unsuffixed(units);
                Ok((quote!({ __m.charge(#units)?; #code }), rep))
            }
            // A typed value holds an integer where the schema says integer; the meter knows
            // where the document wrote it as a float (`cel::int_data`), and fails that read.
            N::IntData => {
                let (code, rep) = self.expr(operands[0])?;
                match self.places.get(&operands[0].id).map(Place::code) {
                    Some(place) => {
                        let v = self.fresh("v");
                        Ok((quote!({ let #v = #code; __m.int_read(#place)?; #v }), rep))
                    }
                    None => Ok((code, rep)),
                }
            }
            // `has(x.f) && @int_present(x.f)`: the `has`, then the same check.
            N::And if is_call_of(operands[1], N::IntPresent) => {
                let (has, rep) = self.expr(operands[0])?;
                match self.places.get(&operands[0].id).map(Place::code) {
                    Some(place) => Ok((quote!((#has && { __m.int_read(#place)?; true })), rep)),
                    None => Ok((has, rep)),
                }
            }
            N::Sized => {
                let (code, rep) = self.expr(operands[0])?;
                self.same_place(e, operands[0]);
                let v = self.fresh("v");
                // What has no size (an int's `+`) charges nothing.
                let size = size_of(&quote!(#v), &rep).unwrap_or(quote!(0));
                Ok((quote!({ let #v = #code; __m.charge_size((#size) as usize)?; #v }), rep))
            }
            N::ChargeSized => {
                let units = int_literal(operands[0]).ok_or("a charge without units")?;
                let units = Literal::u64_unsuffixed(units);
                let (code, rep) = self.expr(operands[1])?;
                self.same_place(e, operands[1]);
                let v = self.fresh("v");
                let size = size_of(&quote!(#v), &rep).unwrap_or(quote!(0));
                Ok((quote!({ __m.charge(#units)?; let #v = #code; __m.charge_size((#size) as usize)?; #v }), rep))
            }
            N::And | N::Or => {
                let (l, lr) = self.expr(operands[0])?;
                let (r, rr) = self.expr(operands[1])?;
                if lr != Rep::Bool || rr != Rep::Bool {
                    return Err(format!("{name} of non-bools"));
                }
                // Where the left cannot fail, CEL's `&&` and `||` are Rust's: the right's error
                // is the result's (`?`) unless the left decides.
                if !fallible(&l) {
                    let op = if form == N::And { quote!(&&) } else { quote!(||) };
                    return Ok((quote!((#l #op #r)), Rep::Bool));
                }
                let f = if form == N::And { quote!(and) } else { quote!(or) };
                let (l, r) = (attempt(&l), attempt(&r));
                Ok((quote!(#native::#f(#l, || #r)?), Rep::Bool))
            }
            N::NotStrictlyFalse => {
                let (x, rep) = self.expr(operands[0])?;
                if rep != Rep::Bool {
                    return Err("@not_strictly_false of a non-bool".into());
                }
                if !fallible(&x) {
                    return Ok((x, Rep::Bool));
                }
                let x = attempt(&x);
                Ok((quote!(#native::not_strictly_false(#x)), Rep::Bool))
            }
            N::Not => {
                let (x, rep) = self.expr(operands[0])?;
                if rep != Rep::Bool {
                    return Err("! of a non-bool".into());
                }
                Ok((quote!((!#x)), Rep::Bool))
            }
            N::Negate => {
                let (x, rep) = self.expr(operands[0])?;
                match rep {
                    Rep::Int => Ok((quote!(#native::neg_int(#x)?), Rep::Int)),
                    Rep::Double => Ok((quote!((-#x)), Rep::Double)),
                    other => Err(format!("negation of {other}")),
                }
            }
            N::Conditional => {
                let (cond, cr) = self.expr(operands[0])?;
                // `has(self.x) ? self.x : []`: the empty literal as an empty one of the
                // other branch's Rust type.
                let (a, ar, b, br) = match (empty_literal(operands[1]), empty_literal(operands[2])) {
                    (false, true) => {
                        let (a, ar) = self.expr(operands[1])?;
                        let (a, b) = self.empty_like(a, &ar)?;
                        (a, ar.clone(), b, ar)
                    }
                    (true, false) => {
                        let (b, br) = self.expr(operands[2])?;
                        let (b, a) = self.empty_like(b, &br)?;
                        (a, br.clone(), b, br)
                    }
                    _ => {
                        let (a, ar) = self.expr(operands[1])?;
                        let (b, br) = self.expr(operands[2])?;
                        (a, ar, b, br)
                    }
                };
                if cr != Rep::Bool {
                    return Err("a condition that is not a bool".into());
                }
                if ar != br {
                    return Err(format!("a conditional of {ar} and {br}"));
                }
                Ok((quote!((if #cond { #a } else { #b })), ar))
            }
            N::Equal | N::NotEqual => {
                let (a, ar) = self.expr(operands[0])?;
                let (b, br) = self.expr(operands[1])?;
                let eq = match (&ar, &br) {
                    // Objects and lists of the same Rust type: its `PartialEq` is CEL's
                    // equality where nothing inside compares otherwise.
                    (Rep::Ref(x), Rep::Ref(y)) if x == y && plain_eq(self.m, x) => quote!((#a == #b)),
                    _ => equal(&a, &ar, &b, &br)?,
                };
                Ok((if form == N::Equal { eq } else { quote!((!#eq)) }, Rep::Bool))
            }
            N::Ordering(operator) => {
                let (a, ar) = self.expr(operands[0])?;
                let (b, br) = self.expr(operands[1])?;
                let op: TokenStream = operator.parse().map_err(|_| format!("the operator `{operator}`"))?;
                match (&ar, &br) {
                    (Rep::Int, Rep::Int)
                    | (Rep::Uint, Rep::Uint)
                    | (Rep::Duration, Rep::Duration)
                    | (Rep::Double, Rep::Double)
                    | (Rep::Bool, Rep::Bool) => Ok((quote!((#a #op #b)), Rep::Bool)),
                    (Rep::Str, Rep::Str) => Ok((quote!((*#a #op *#b)), Rep::Bool)),
                    _ => Err(format!("a comparison of {ar} and {br}")),
                }
            }
            N::Add | N::Arithmetic(_) => {
                let (a, ar) = self.expr(operands[0])?;
                let (b, br) = self.expr(operands[1])?;
                match (&ar, &br, form) {
                    (Rep::Int, Rep::Int, N::Add) => Ok((quote!(#native::add_int(#a, #b)?), Rep::Int)),
                    (Rep::Int, Rep::Int, N::Arithmetic(helper)) => {
                        let f = format_ident!("{}", helper);
                        Ok((quote!(#native::#f(#a, #b)?), Rep::Int))
                    }
                    (Rep::Str, Rep::Str, N::Add) => Ok((quote!(#native::concat(#a, #b)), Rep::Str)),
                    _ => Err(format!("{name} of {ar} and {br}")),
                }
            }
            N::SchemaEquals | N::SchemaNotEquals => {
                use kubeskema::cel::Shape;
                let Expr::Literal(LiteralValue::String(text)) = &operands[2].expr else {
                    return Err("a shape that is not a literal".into());
                };
                let shape = Shape::decode(text.inner()).ok_or("a shape that does not read")?;
                let (a, ar) = self.expr(operands[0])?;
                let (b, br) = self.expr(operands[1])?;
                // What compiles here cannot fail, so `!=` is the negation.
                let (equal, rep) = match (shape, &ar, &br) {
                    (Shape::Set, Rep::Ref(Ty::Vec(x)), Rep::Ref(Ty::Vec(y))) if x == y && self.scalar(x) => {
                        (quote!(#native::set_equals(#a, #b)), Rep::Bool)
                    }
                    // [divergence] The items' integers compare as read: one the document
                    // wrote as `1.0` does not fail the comparison here, as it does in the
                    // interpreter (docs/limits-and-divergences.md).
                    (Shape::MapList(names, item), Rep::Ref(Ty::Vec(x)), Rep::Ref(Ty::Vec(y)))
                        if x == y && !item.holds_kinds() =>
                    {
                        self.map_list_equals(a, b, x, &names)?
                    }
                    _ => return Err(format!("equality of {ar} and {br} by their list kinds")),
                };
                Ok(if matches!(form, N::SchemaNotEquals) { (quote!(!(#equal)), rep) } else { (equal, rep) })
            }
            N::Index if matches!(&operands[0].expr, Expr::Map(_)) => self.constant_map_lookup(operands[0], operands[1]),
            N::Index => {
                let (list, lr) = self.expr(operands[0])?;
                let (i, ir) = self.expr(operands[1])?;
                if let Some(place) = self.places.get(&operands[0].id) {
                    let item = match &operands[1].expr {
                        Expr::Literal(LiteralValue::Int(i)) => place.name(&i.inner().to_string()),
                        Expr::Literal(LiteralValue::String(k)) => place.name(k.inner()),
                        _ => place.then(Segment::Any),
                    };
                    self.places.insert(e.id, item);
                }
                let l = self.fresh("l");
                match (&lr, &ir) {
                    (Rep::Ref(Ty::Vec(elem)), Rep::Int) => {
                        let elem = (**elem).clone();
                        let at = quote!({ let #l = #list; &#l[#native::index(#i, #l.len())?] });
                        self.view(&elem, at, self.checked(e))
                    }
                    (Rep::Ref(Ty::Map(value)), Rep::Str) => {
                        let value = (**value).clone();
                        let k = self.fresh("k");
                        let at = quote!({ let #l = #list; let #k = #i; #l.get(&*#k).ok_or_else(|| #native::Error::no_such_map_key(&#k))? });
                        self.view(&value, at, self.checked(e))
                    }
                    (Rep::List(item), Rep::Int) => {
                        let item = (**item).clone();
                        Ok((quote!({ let #l = #list; #l[#native::index(#i, #l.len())?].clone() }), item))
                    }
                    _ => Err(format!("an index of {lr} by {ir}")),
                }
            }
            // `x in ['a', 'b']`: comparisons, not a list built at every evaluation.
            N::In
                if matches!(&operands[1].expr, Expr::List(l) if !l.elements.is_empty()
                    && l.optional_indices.is_empty()
                    && l.elements.iter().all(|e| matches!(e.expr, Expr::Literal(_)))) =>
            {
                let Expr::List(l) = &operands[1].expr else { unreachable!("matched above") };
                let (x, xr) = self.expr(operands[0])?;
                let v = self.fresh("x");
                let mut any = Vec::new();
                for item in &l.elements {
                    let (code, rep) = self.expr(item)?;
                    any.push(equal(&quote!(#v), &xr, &code, &rep)?);
                }
                Ok((quote!({ let #v = #x; #(#any)||* }), Rep::Bool))
            }
            N::In => {
                let (x, xr) = self.expr(operands[0])?;
                let (list, lr) = self.expr(operands[1])?;
                let v = self.fresh("x");
                let item = self.fresh("i");
                match &lr {
                    Rep::Ref(Ty::Map(_)) if xr == Rep::Str => {
                        Ok((quote!({ let #v = #x; (#list).contains_key(&*#v) }), Rep::Bool))
                    }
                    Rep::Ref(Ty::Vec(elem)) => {
                        let (elem_code, elem_rep) = self.view(elem, quote!(#item), None)?;
                        let eq = equal(&quote!(#v), &xr, &elem_code, &elem_rep)?;
                        Ok((quote!({ let #v = #x; (#list).iter().any(|#item| #eq) }), Rep::Bool))
                    }
                    Rep::List(elem) => {
                        let eq = equal(&quote!(#v), &xr, &quote!((*#item)), elem)?;
                        Ok((quote!({ let #v = #x; (#list).iter().any(|#item| #eq) }), Rep::Bool))
                    }
                    _ => Err(format!("`in` of {lr}")),
                }
            }
            N::Size => {
                let (x, rep) = self.expr(operands[0])?;
                let v = self.fresh("v");
                let size = size_of(&quote!(#v), &rep)?;
                Ok((quote!({ let #v = #x; #size }), Rep::Int))
            }
            N::StrPredicate(method) => {
                let (s, sr) = self.expr(operands[0])?;
                let (x, xr) = self.expr(operands[1])?;
                if sr != Rep::Str || xr != Rep::Str {
                    return Err(format!("{name} of {sr} and {xr}"));
                }
                let f = format_ident!("{}", method);
                Ok((quote!((#s).#f(&*#x)), Rep::Bool))
            }
            N::Matches => {
                let (s, sr) = self.expr(operands[0])?;
                if sr != Rep::Str {
                    return Err("matches on a non-string".into());
                }
                let p = self.pattern(operands[1])?;
                Ok((quote!(#native::matches(__m, &#s, &#p)?), Rep::Bool))
            }
            N::Find => {
                let (s, sr) = self.expr(operands[0])?;
                if sr != Rep::Str {
                    return Err("find on a non-string".into());
                }
                let p = self.pattern(operands[1])?;
                Ok((quote!(#native::find(__m, #s, &#p)?), Rep::Str))
            }
            N::Split => {
                let (s, sr) = self.expr(operands[0])?;
                let (sep, pr) = self.expr(operands[1])?;
                if sr != Rep::Str || pr != Rep::Str {
                    return Err("split of a non-string".into());
                }
                Ok((quote!(#native::split(#s, &#sep)), Rep::List(Box::new(Rep::Str))))
            }
            N::StrTest(helper) => {
                let (x, rep) = self.expr(operands[0])?;
                if rep != Rep::Str {
                    return Err(format!("{name} of a non-string"));
                }
                let f = format_ident!("{}", helper);
                Ok((quote!(#native::#f(&#x)), Rep::Bool))
            }
            N::Url => {
                let (x, rep) = self.expr(operands[0])?;
                if rep != Rep::Str {
                    return Err("url of a non-string".into());
                }
                Ok((quote!(#native::url(&#x)?), Rep::Url))
            }
            N::UrlPart(part) => {
                let (u, rep) = self.expr(operands[0])?;
                if rep != Rep::Url {
                    return Err(format!("{name} of {rep}"));
                }
                let field = format_ident!("{}", part);
                Ok((quote!(::std::borrow::Cow::<str>::Owned((#u).#field)), Rep::Str))
            }
            N::StrMap(helper) => {
                let (s, sr) = self.expr(operands[0])?;
                if sr != Rep::Str {
                    return Err(format!("{name} on a non-string"));
                }
                let f = format_ident!("{}", helper);
                Ok((quote!(#native::#f(#s)), Rep::Str))
            }
            N::Substring => {
                let (s, sr) = self.expr(operands[0])?;
                let (start, r1) = self.expr(operands[1])?;
                let end = match operands.get(2) {
                    Some(a) => {
                        let (end, r2) = self.expr(a)?;
                        if r2 != Rep::Int {
                            return Err("substring's end is not an int".into());
                        }
                        quote!(::core::option::Option::Some(#end))
                    }
                    None => quote!(::core::option::Option::None),
                };
                if sr != Rep::Str || r1 != Rep::Int {
                    return Err("substring of a non-string".into());
                }
                Ok((quote!(#native::substring(#s, #start, #end)?), Rep::Str))
            }
            N::ToInt => {
                let (x, rep) = self.expr(operands[0])?;
                match rep {
                    Rep::Int => Ok((x, Rep::Int)),
                    Rep::Str => Ok((quote!(#native::string_to_int(&#x)?), Rep::Int)),
                    Rep::Duration => Ok((x, Rep::Int)),
                    other => Err(format!("int() of {other}")),
                }
            }
            N::ToString => {
                let (x, rep) = self.expr(operands[0])?;
                match rep {
                    Rep::Str => Ok((x, Rep::Str)),
                    Rep::Int => Ok((quote!(#native::int_to_string(#x)), Rep::Str)),
                    other => Err(format!("string() of {other}")),
                }
            }
            N::ToDuration => {
                let (x, rep) = self.expr(operands[0])?;
                match rep {
                    Rep::Str => Ok((quote!(#native::string_to_duration(&#x)?), Rep::Duration)),
                    Rep::Duration => Ok((x, Rep::Duration)),
                    other => Err(format!("duration() of {other}")),
                }
            }
            N::HasValue => {
                let (x, rep) = self.expr(operands[0])?;
                match rep {
                    Rep::Optional(_) => Ok((quote!((#x).is_some()), Rep::Bool)),
                    other => Err(format!("hasValue() of {other}")),
                }
            }
            N::Value => {
                let (x, rep) = self.expr(operands[0])?;
                match rep {
                    Rep::Optional(ty) => {
                        let at = quote!((#x).ok_or(#native::Error::Message(::std::borrow::Cow::Borrowed("optional.none() dereference")))?);
                        self.view(&ty, at, self.checked(e))
                    }
                    other => Err(format!("value() of {other}")),
                }
            }
            // The lowering writes it only as `has(x) && @int_present(x)`, compiled above.
            N::IntPresent => Err(format!("`{name}` outside `has(x) && {name}(x)`")),
            N::Interpreted(why) => Err(format!("the function `{name}`: {why}")),
        }
    }

    /// Whether values of `ty` are scalars that the interpreter keys as `PartialEq` compares
    /// them (set items and map list keys; not doubles: `-0.0` and `0.0` key apart).
    fn scalar(&self, ty: &Ty) -> bool {
        match ty {
            Ty::String | Ty::Bool | Ty::I32 | Ty::I64 => true,
            Ty::Named(id) => matches!(self.m.types[*id], TypeDef::Enum(_)),
            _ => false,
        }
    }

    /// `{"a": 1, ...}[k]` of a map literal of constants: a `match` (the last of a repeated
    /// key wins, as in cel-go).
    /// `==` of two map lists (`a`, `b`, of items `item_ty`) whose items compare plainly,
    /// items matched by the key properties `names` (escaped, as the shape has them).
    fn map_list_equals(&mut self, a: TokenStream, b: TokenStream, item_ty: &Ty, names: &[String]) -> Emitted {
        let native = native();
        let Ty::Named(id) = item_ty else { return Err("a map list of non-objects".into()) };
        let TypeDef::Struct(st) = &self.m.types[*id] else { return Err("a map list of non-objects".into()) };
        if !plain_eq(self.m, item_ty) {
            return Err("map list equality of items that do not compare plainly".into());
        }
        let (item, other) = (self.fresh("item"), self.fresh("other"));
        let (mut keys, mut other_keys) = (Vec::new(), Vec::new());
        for name in names {
            // [quirk] A key whose name CEL escapes reads as null in every item (`list_kinds`).
            if kubeskema::cel::escape(name).as_deref() != Some(name.as_str()) {
                return Err("a map list key the apiserver reads as null".into());
            }
            let f = struct_field(st, name)?;
            if !self.scalar(&f.ty) {
                return Err("a map list key that is not hashable".into());
            }
            let fid = field_ident(f);
            let key = |x: &Ident| match f.shape {
                Shape::Required | Shape::Defaulted => Ok(quote!(::core::option::Option::Some(&#x.#fid))),
                Shape::Optional | Shape::Nullable => Ok(quote!(#x.#fid.as_ref())),
                _ => Err("a map list key of another shape".to_owned()),
            };
            keys.push(key(&item)?);
            other_keys.push(key(&other)?);
        }
        if names.len() > 3 {
            return Err("a map list of more than three keys (keyed by their printed values)".into());
        }
        Ok((
            quote!(#native::map_list_equals(
                #a,
                #b,
                |#item| #native::key_hash(&(#(#keys,)*)),
                |#item, #other| (#(#keys,)*) == (#(#other_keys,)*),
            )),
            Rep::Bool,
        ))
    }

    fn constant_map_lookup(&mut self, map: &Expression, key: &Expression) -> Emitted {
        let Expr::Map(m) = &map.expr else { unreachable!("called on map literals") };
        let native = native();
        let mut entries: Vec<(String, TokenStream)> = Vec::new();
        let mut rep = None;
        for entry in &m.entries {
            let cel::common::ast::EntryExpr::MapEntry(e) = &entry.expr else { return Err("a map literal".into()) };
            if e.optional {
                return Err("an optional map entry".into());
            }
            let Expr::Literal(LiteralValue::String(k)) = &e.key.expr else {
                return Err("a map literal with keys that are not constant strings".into());
            };
            let Expr::Literal(v) = &e.value.expr else {
                return Err("a map literal with values that are not constants".into());
            };
            let (v, r) = literal(v)?;
            match &rep {
                None => rep = Some(r),
                Some(prev) if *prev == r => {}
                Some(_) => return Err("a map literal of mixed types".into()),
            }
            entries.retain(|(key, _)| key != k.inner());
            entries.push((k.inner().to_owned(), v));
        }
        let Some(rep) = rep else { return Err("an empty map literal".into()) };
        let (k, kr) = self.expr(key)?;
        if kr != Rep::Str {
            return Err("a map literal looked up by a non-string".into());
        }
        let key = self.fresh("k");
        let arms = entries.iter().map(|(k, v)| quote!(#k => #v,));
        Ok((
            quote!({
                let #key = #k;
                match &*#key {
                    #(#arms)*
                    _ => return ::core::result::Result::Err(#native::Error::no_such_map_key(&#key)),
                }
            }),
            rep,
        ))
    }

    /// `code` (a list or map of `rep`) and an empty value of the same Rust type, for the two
    /// branches of a conditional.
    fn empty_like(&self, code: TokenStream, rep: &Rep) -> Result<(TokenStream, TokenStream), String> {
        match rep {
            Rep::Ref(Ty::Vec(elem)) => {
                let t = super::tokens::ty_tokens(self.m, elem);
                Ok((quote!((#code).as_slice()), quote!((&[] as &[#t]))))
            }
            Rep::Ref(Ty::Map(value)) => {
                let t = super::tokens::ty_tokens(self.m, value);
                let map = quote!(::std::collections::BTreeMap<::std::string::String, #t>);
                Ok((
                    quote!((#code as &#map)),
                    quote!({ static __EMPTY: #map = ::std::collections::BTreeMap::new(); &__EMPTY }),
                ))
            }
            Rep::List(_) => Ok((code, quote!(::std::vec::Vec::new()))),
            other => Err(format!("an empty literal beside {other}")),
        }
    }

    /// A constant pattern, compiled once into a static of the function.
    fn pattern(&mut self, pattern: &Expression) -> Result<Ident, String> {
        let Expr::Literal(LiteralValue::String(p)) = &pattern.expr else {
            return Err("a pattern that is not a constant".into());
        };
        let name = self.fresh("PATTERN");
        let name = format_ident!("{}", name.to_string().to_uppercase());
        let source = p.inner();
        let native = native();
        self.statics.push(quote!(static #name: #native::Pattern = #native::Pattern::new(#source);));
        Ok(name)
    }

    fn comprehension(&mut self, c: &ComprehensionExpr) -> Emitted {
        if c.iter_var2.is_some() {
            return Err("a two-variable comprehension".into());
        }
        let native = native();
        let accu_var = c.accu_var.as_str();
        let is_accu = |e: &Expression| matches!(&e.expr, Expr::Ident(n) if n == accu_var);
        // The `cel` crate evaluates the accumulator's start before the range.
        let init = match &c.accu_init.expr {
            Expr::List(l) if l.elements.is_empty() => None,
            _ => Some(self.expr(&c.accu_init)?),
        };
        let (range, range_rep) = self.expr(&c.iter_range)?;
        let item = self.fresh("item");
        let mut binding = quote!(#item);
        let mut place = None;
        let (iter, item_rep) = match &range_rep {
            // A list of the object's: its items' places named by their index.
            Rep::Ref(Ty::Vec(elem)) if self.places.contains_key(&c.iter_range.id) => {
                let index = self.fresh("index");
                place = self.places.get(&c.iter_range.id).map(|p| p.then(Segment::Index(index.clone())));
                binding = quote!((#index, #item));
                (quote!((#range).iter().enumerate()), Rep::Ref((**elem).clone()))
            }
            Rep::Ref(Ty::Vec(elem)) => (quote!((#range).iter()), Rep::Ref((**elem).clone())),
            Rep::Ref(Ty::Map(_)) => {
                (quote!((#range).keys().map(|__k| ::std::borrow::Cow::Borrowed(__k.as_str()))), Rep::Str)
            }
            Rep::List(elem) => (quote!((#range).into_iter()), (**elem).clone()),
            other => return Err(format!("a loop over {other}")),
        };
        let item_rep = match item_rep {
            Rep::Ref(Ty::Option(_)) => return Err("a loop over nullable items".into()),
            r => r,
        };
        self.locals.push(Local { name: c.iter_var.clone(), ident: quote!(#item), rep: item_rep, place });
        let out = self.comprehension_body(c, init, iter, &binding, &is_accu, &native);
        self.locals.pop();
        out
    }

    fn comprehension_body(
        &mut self,
        c: &ComprehensionExpr,
        init: Option<(TokenStream, Rep)>,
        iter: TokenStream,
        item: &TokenStream,
        is_accu: &dyn Fn(&Expression) -> bool,
        native: &TokenStream,
    ) -> Emitted {
        let accu = self.fresh("accu");
        // `all` and `exists`: `@result && p` / `@result || p`, errors held by the fold.
        if let Expr::Call(step) = &c.loop_step.expr
            && matches!(step.func_name.as_str(), "_&&_" | "_||_")
            && step.args.first().is_some_and(is_accu)
            && let Some((init_code, Rep::Bool)) = &init
        {
            let absorbing = step.func_name == "_||_";
            self.locals.push(Local {
                name: c.accu_var.clone(),
                ident: quote!(#accu.accu),
                rep: Rep::Bool,
                place: None,
            });
            let cond = self.expr(&c.loop_cond);
            let step = self.expr(&c.loop_step);
            self.locals.pop();
            let done = self.fresh("done");
            self.locals.push(Local { name: c.accu_var.clone(), ident: quote!(#done), rep: Rep::Bool, place: None });
            let result = self.expr(&c.result);
            self.locals.pop();
            let ((cond, cr), (step, sr), (result, rr)) = (cond?, step?, result?);
            if cr != Rep::Bool || sr != Rep::Bool {
                return Err("a fold over non-bools".into());
            }
            let step = attempt(&step);
            return Ok((
                quote!({
                    let mut #accu = #native::Fold::new(#init_code, #absorbing);
                    for #item in #iter {
                        if !#cond { break; }
                        let __step = #step;
                        #accu.step(__step);
                    }
                    let #done = #accu.finish()?;
                    #result
                }),
                rr,
            ));
        }
        // `map` and `filter`: `@result + [e]`, maybe guarded, from an empty list.
        if init.is_none() && matches!(c.loop_cond.expr, Expr::Literal(_)) && is_accu(&c.result) {
            let (guard, appended) = match &c.loop_step.expr {
                Expr::Call(k) if k.func_name == "_?_:_" && k.args.len() == 3 && is_accu(&k.args[2]) => {
                    (Some(&k.args[0]), &k.args[1])
                }
                _ => (None, &c.loop_step),
            };
            let Expr::Call(add) = &appended.expr else { return Err("a loop step that is not an append".into()) };
            let [lhs, rhs] = add.args.as_slice() else { return Err("a loop step that is not an append".into()) };
            let Expr::List(items) = &rhs.expr else { return Err("a loop step that is not an append".into()) };
            if add.func_name != "_+_" || !is_accu(lhs) || items.elements.len() != 1 {
                return Err("a loop step that is not an append".into());
            }
            // A guard's error becomes the accumulator and a later one replaces it (cel-go: the
            // step is `p ? @result + [e] : @result`): the last one is the loop's.
            let last = self.fresh("last");
            let (guard, held, finish) = match guard {
                Some(g) => {
                    let (g, gr) = self.expr(g)?;
                    if gr != Rep::Bool {
                        return Err("a guard that is not a bool".into());
                    }
                    let g = attempt(&g);
                    (
                        quote!(if #last.step(#g) != ::core::option::Option::Some(true) { continue; }),
                        quote!(let mut #last = #native::LastError::default();),
                        quote!(#last.finish()?;),
                    )
                }
                None => (quote!(), quote!(), quote!()),
            };
            let (value, rep) = self.expr(&items.elements[0])?;
            let (value, rep) = self.owned(value, rep)?;
            return Ok((
                quote!({
                    let mut #accu = ::std::vec::Vec::new();
                    #held
                    for #item in #iter {
                        #guard
                        #accu.push(#value);
                    }
                    #finish
                    #accu
                }),
                Rep::List(Box::new(rep)),
            ));
        }
        // Anything else with a scalar accumulator (`exists_one`).
        let Some((init_code, init_rep)) = init else { return Err("a loop building a list".into()) };
        if !matches!(init_rep, Rep::Bool | Rep::Int) {
            return Err(format!("a loop accumulating {init_rep}"));
        }
        self.locals.push(Local { name: c.accu_var.clone(), ident: quote!(#accu), rep: init_rep.clone(), place: None });
        let cond = self.expr(&c.loop_cond);
        let step = self.expr(&c.loop_step);
        let result = self.expr(&c.result);
        self.locals.pop();
        let ((cond, cr), (step, sr), (result, rr)) = (cond?, step?, result?);
        if cr != Rep::Bool || sr != init_rep {
            return Err("a loop whose step changes type".into());
        }
        // `exists_one`: `p ? @result + 1 : @result`, whose last error is the loop's (cel-go
        // reads an error accumulator as that error, and a failing `p` replaces it).
        let last = self.fresh("last");
        let step = attempt(&step);
        Ok((
            quote!({
                let mut #accu = #init_code;
                let mut #last = #native::LastError::default();
                for #item in #iter {
                    if !#cond { break; }
                    if let ::core::option::Option::Some(__v) = #last.step(#step) {
                        #accu = __v;
                    }
                }
                #last.finish()?;
                #result
            }),
            rr,
        ))
    }
}

/// What a selection reads.
enum FieldRef<'f> {
    Field(&'f FieldDef),
    /// ObjectMeta's `name` or `generate_name`.
    Meta(&'static str),
    /// A map's value by key.
    MapKey,
}

fn struct_field<'s>(s: &'s StructDef, name: &str) -> Result<&'s FieldDef, String> {
    s.fields
        .iter()
        .find(|f| {
            f.shape != Shape::UnknownFields && (escape(&f.json_name).as_deref() == Some(name) || f.json_name == name)
        })
        .ok_or_else(|| format!("the field `{name}` of {}", s.name))
}

fn field_ident(f: &FieldDef) -> TokenStream {
    let id: TokenStream = f.ident.parse().expect("invariant: field idents are valid Rust");
    id
}

fn int_literal(e: &Expression) -> Option<u64> {
    match &e.expr {
        Expr::Literal(LiteralValue::Int(i)) => u64::try_from(*i.inner()).ok(),
        _ => None,
    }
}

fn literal(l: &LiteralValue) -> Emitted {
    Ok(match l {
        LiteralValue::Boolean(b) => {
            let b = *b.inner();
            (quote!(#b), Rep::Bool)
        }
        LiteralValue::Int(i) => {
            let i = Literal::i64_suffixed(*i.inner());
            (quote!(#i), Rep::Int)
        }
        LiteralValue::UInt(u) => {
            let u = Literal::u64_suffixed(*u.inner());
            (quote!(#u), Rep::Uint)
        }
        LiteralValue::Double(d) => {
            let d = *d.inner();
            if !d.is_finite() {
                return Err("a double that is not finite".into());
            }
            let d = Literal::f64_suffixed(d);
            (quote!(#d), Rep::Double)
        }
        LiteralValue::String(s) => {
            let s = s.inner();
            (quote!(::std::borrow::Cow::Borrowed(#s)), Rep::Str)
        }
        LiteralValue::Null => (quote!(()), Rep::Null),
        LiteralValue::Bytes(_) => return Err("a bytes literal".into()),
    })
}

/// The CEL size of the value at `v` (what the meter's `@sized` reads).
fn size_of(v: &TokenStream, rep: &Rep) -> Result<TokenStream, String> {
    let native = native();
    match rep {
        Rep::Str => Ok(quote!(#native::size_str(&#v))),
        Rep::Ref(Ty::Vec(_) | Ty::Map(_)) | Rep::List(_) => Ok(quote!(#native::size_len(#v.len()))),
        other => Err(format!("size() of {other}")),
    }
}

/// Whether `e` is `[]` or `{}`.
fn empty_literal(e: &Expression) -> bool {
    match &e.expr {
        Expr::List(l) => l.elements.is_empty(),
        Expr::Map(m) => m.entries.is_empty(),
        _ => false,
    }
}

/// Whether `PartialEq` on values of `ty` is CEL's `==` on them: not where a JSON value
/// (`1` and `1.0` are equal in CEL), ObjectMeta (rules see two of its fields) or unknown
/// fields are inside.
fn plain_eq(m: &Module, ty: &Ty) -> bool {
    match ty {
        Ty::String | Ty::Bool | Ty::I32 | Ty::I64 | Ty::F64 | Ty::IntOrString | Ty::EmptyObject => true,
        Ty::Value | Ty::JsonMap | Ty::ObjectMeta | Ty::Condition | Ty::ObjectReference => false,
        Ty::Vec(t) | Ty::Map(t) | Ty::Option(t) => plain_eq(m, t),
        Ty::Named(id) => match &m.types[*id] {
            TypeDef::Enum(_) => true,
            // A set or map list compares by its kind, not in order (`list_kinds`).
            TypeDef::Struct(s) => s.fields.iter().all(|f| {
                f.shape != Shape::UnknownFields
                    && plain_eq(m, &f.ty)
                    && !f.attrs.iter().any(|a| {
                        matches!(a, kubeskema_attributes::Attr::Str(kubeskema_attributes::Keyword::ListType, k)
                            if k == "set" || k == "map")
                    })
            }),
        },
    }
}

/// CEL `==` of two values.
fn equal(a: &TokenStream, ar: &Rep, b: &TokenStream, br: &Rep) -> Result<TokenStream, String> {
    match (ar, br) {
        (Rep::Str, Rep::Str) => Ok(quote!((*#a == *#b))),
        // A value read from the object is never null (an absent field fails to read).
        (Rep::Null, Rep::Null) => Ok(quote!({ let _ = (#a, #b); true })),
        (Rep::Null, _) | (_, Rep::Null) => Ok(quote!({ let _ = (#a, #b); false })),
        (Rep::Int, Rep::Int)
        | (Rep::Uint, Rep::Uint)
        | (Rep::Bool, Rep::Bool)
        | (Rep::Double, Rep::Double)
        | (Rep::Duration, Rep::Duration) => Ok(quote!((#a == #b))),
        _ => Err(format!("== of {ar} and {br}")),
    }
}
