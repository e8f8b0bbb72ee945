//! Rules on hand-written types compiled to Rust (issue 36). The macro sees one type; what a
//! rule reads further down (a nested struct's field, a list's items) has a type the macro
//! does not know, so the code written here names no type: fields are read by their CEL names
//! through the runtime's `cel::derived::Field` (which `field_impls` derives on every type),
//! values through `Read`, and every operation through a trait the runtime implements for the
//! operand types CEL defines it on, with a fallback that defers to the interpreter
//! (`kubeskema::cel::derived` says how). Rust's trait resolution picks each overload, so after
//! monomorphization a rule costs what the code generator's function for it costs.
//!
//! The rule is parsed here with the `cel` crate's parser, the interpreter's; the runtime
//! type-checks it against the derived types before its code first runs. What is not compiled
//! here (a construct below not covered, a parse error) stays interpreted, with the reason
//! (`Compiled::reason`). Calls are compiled by their native form in the runtime's function
//! table, read by call shape from `kubeskema_attributes::native` (the derive cannot depend on
//! the runtime), so a function added to the table is compiled here as soon as its form is.
//!
//! Cost: the code charges the meter what the interpreter's instrumented tree charges
//! (`kubeskema::cel::lowering::instrument`): the expression's spine once, and each loop's
//! spine per iteration; `+` of strings and `matches` charge inside the runtime's functions.
//! The spine is computed here from the parsed tree as `instrument` computes it.

use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, LiteralValue};
use cel::parser::Expression;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use kubeskema_attributes::meter;
use kubeskema_attributes::native::{NativeForm as F, form_of};

/// The longest rule compiled here: the parser recurses over the text, inside rustc.
const MAX_RULE_BYTES: usize = 4096;

/// What the apiserver refuses in a rule's text (or, `message`, a messageExpression's) that the
/// macro can see without the types: an empty rule, one that does not parse (cel-go's words:
/// the parser is the interpreter's), and one whose value is plainly not a boolean (a string)
/// (a literal, a list or map, arithmetic). `None` for what it cannot judge: the runtime's CRD
/// check type-checks the rest.
pub fn refusal(text: &str, message: bool) -> Option<String> {
    let (what, wanted, refused) = match message {
        false => ("compilation failed", "bool", "cel expression must evaluate to a bool"),
        true => ("messageExpression compilation failed", "string", "messageExpression must evaluate to a string"),
    };
    if text.trim().is_empty() {
        return Some(match message {
            false => "the rule is empty (`rule: Required value: rule is not specified`)".to_owned(),
            true => "the messageExpression is empty (`messageExpression: Required value: messageExpression is not specified`)"
                .to_owned(),
        });
    }
    if text.len() > MAX_RULE_BYTES {
        return None;
    }
    // The runtime's parser has the optional syntax (`self.?a`); its recursion limit is its own
    // to report.
    let parsed = match cel::parser::Parser::new().enable_optional_syntax(true).parse(text) {
        Ok(parsed) => parsed,
        Err(e) if e.to_string().contains("Recursion limit") => return None,
        // cel-go indents the source snippet under its message by one space.
        Err(e) => return Some(format!("`{what}: {}`", e.to_string().replace("\n| ", "\n | "))),
    };
    let kind = match &parsed.expr {
        Expr::Literal(LiteralValue::Boolean(_)) => return None,
        Expr::Literal(LiteralValue::String(_)) => "a string",
        Expr::Literal(LiteralValue::Null) => "null",
        Expr::Literal(LiteralValue::Bytes(_)) => "bytes",
        Expr::Literal(_) => "a number",
        Expr::List(_) => "a list",
        Expr::Map(_) => "a map",
        // A string's `+` is a messageExpression's right value.
        Expr::Call(CallExpr { func_name, target, args, .. })
            if !message
                && matches!(
                    form_of(func_name, target.is_some(), args.len()),
                    Some(F::Add | F::Arithmetic(_) | F::Negate)
                ) =>
        {
            "arithmetic"
        }
        _ => return None,
    };
    (kind != "a string" || !message).then(|| format!("it is {kind}, not a {wanted} (`{refused}`)"))
}

/// A rule compiled to a closure `|&T, Option<&T>, &mut Meter| -> Result<bool>`.
pub struct Compiled {
    /// The closure.
    pub code: TokenStream,
    /// Whether the rule reads `oldSelf`.
    pub transition: bool,
}

/// Compiles `rule` over a value of type `ty`, or says why it stays interpreted.
pub fn compile(rule: &str, ty: &TokenStream, optional_old_self: bool) -> Result<Compiled, String> {
    if rule.len() > MAX_RULE_BYTES {
        return Err(format!("longer than {MAX_RULE_BYTES} bytes"));
    }
    if optional_old_self {
        return Err("optionalOldSelf".into());
    }
    let parsed = cel::parser::Parser::new().parse(rule).map_err(|_| "does not parse".to_owned())?;
    let mut e = Emitter { locals: Vec::new(), statics: Vec::new(), next: 0, transition: false };
    let (code, kind) = e.expr(&parsed)?;
    let value = e.value(code, kind);
    let units = Literal::u64_unsuffixed(spine(&parsed).max(1));
    let d = derived();
    let statics = &e.statics;
    let code = quote! {
        |__self: &#ty, __old: ::core::option::Option<&#ty>, __m: &mut #d::Meter| -> #d::Result<bool> {
            // The operator traits are imported for whichever the rule uses.
            #[allow(unused_imports)]
            use #d::{
                ArithDeferred as _, ArithTyped as _, BoolDeferred as _, BoolTyped as _, EqDeferred as _, EqTyped as _,
                InDeferred as _, InTyped as _, IndexDeferred as _, IndexTyped as _, IterDeferred as _, IterTyped as _,
                PickDeferred as _, PickTyped as _, SplitDeferred as _, SplitTyped as _, StrMapDeferred as _,
                StrMapTyped as _, StrTestDeferred as _, StrTestTyped as _, SubstringDeferred as _, SubstringTyped as _,
                FindDeferred as _, FindTyped as _, ToIntDeferred as _, ToIntTyped as _, ToStringDeferred as _,
                ToStringTyped as _, ToDurationDeferred as _, ToDurationTyped as _,
                MatchesDeferred as _, MatchesTyped as _, NegDeferred as _, NegTyped as _, NotDeferred as _,
                NotTyped as _, OrdDeferred as _, OrdTyped as _, ReadDeferred as _, ReadTyped as _,
                SelectDeferred as _, SelectTyped as _, SizeDeferred as _, SizeTyped as _, StrDeferred as _,
                StrTyped as _,
            };
            #(#statics)*
            __m.charge(#units)?;
            #d::One(#value).cel_bool()
        }
    };
    Ok(Compiled { code, transition: e.transition })
}

/// The fields `rule` selects on `self` and `oldSelf` (`self.x`, `has(self.x)`), as written;
/// `None` where it does not parse here.
pub fn self_fields(rule: &str) -> Option<Vec<String>> {
    if rule.len() > MAX_RULE_BYTES {
        return None;
    }
    let parsed = cel::parser::Parser::new().parse(rule).ok()?;
    let mut out = Vec::new();
    selections_of_self(&parsed, &mut out);
    out.dedup();
    Some(out)
}

fn selections_of_self(e: &Expression, out: &mut Vec<String>) {
    match &e.expr {
        Expr::Select(s) => {
            if matches!(&s.operand.expr, Expr::Ident(n) if n == "self" || n == "oldSelf") && !out.contains(&s.field) {
                out.push(s.field.clone());
            }
            selections_of_self(&s.operand, out);
        }
        Expr::Call(c) => {
            c.target.iter().for_each(|t| selections_of_self(t, out));
            c.args.iter().for_each(|a| selections_of_self(a, out));
        }
        Expr::List(l) => l.elements.iter().for_each(|x| selections_of_self(x, out)),
        Expr::Comprehension(c) => {
            for x in [&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result] {
                selections_of_self(x, out);
            }
        }
        Expr::Literal(_) | Expr::Ident(_) | Expr::Map(_) | Expr::Struct(_) | Expr::Unspecified => {}
    }
}

fn derived() -> TokenStream {
    quote!(::kubeskema::cel::derived)
}

/// What an emitted expression is.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// A reference into the object (`&T`): fields are selected from it, and it is read
    /// (`Read`) where an operation needs its value.
    Place,
    /// A value the rule computed (a `bool`, an `i64`, a `Cow<str>`, a list `filter` kept).
    Value,
}

type Emitted = Result<(TokenStream, Kind), String>;

struct Local {
    name: String,
    code: TokenStream,
    kind: Kind,
}

struct Emitter {
    locals: Vec<Local>,
    statics: Vec<TokenStream>,
    next: usize,
    transition: bool,
}

/// `(|| -> Result<_> { Ok(code) })()`: the expression's errors as a value.
fn attempt(code: &TokenStream) -> TokenStream {
    let d = derived();
    quote!((|| -> #d::Result<_> { ::core::result::Result::Ok(#code) })())
}

impl Emitter {
    fn fresh(&mut self, base: &str) -> Ident {
        self.next += 1;
        format_ident!("__{}{}", base, self.next)
    }

    /// The value of an emitted expression (a place read).
    fn value(&self, code: TokenStream, kind: Kind) -> TokenStream {
        match kind {
            Kind::Place => {
                let d = derived();
                quote!(#d::Reading(#code).read()?)
            }
            Kind::Value => code,
        }
    }

    fn value_of(&mut self, e: &Expression) -> Result<TokenStream, String> {
        let (code, kind) = self.expr(e)?;
        Ok(self.value(code, kind))
    }

    fn boolean(&mut self, e: &Expression) -> Result<TokenStream, String> {
        let d = derived();
        let v = self.value_of(e)?;
        Ok(quote!(#d::One(#v).cel_bool()?))
    }

    fn expr(&mut self, e: &Expression) -> Emitted {
        let d = derived();
        match &e.expr {
            Expr::Literal(l) => Ok((literal(l)?, Kind::Value)),
            Expr::Ident(name) => self.ident(name),
            Expr::Select(s) => {
                let (operand, kind) = self.expr(&s.operand)?;
                if kind != Kind::Place {
                    return Err("a field of a computed value".into());
                }
                let field = &s.field;
                let key = quote!({ #d::name_hash(#field) });
                if s.test {
                    Ok((quote!(#d::Select::<_, #key>(#operand, #field).has()?), Kind::Value))
                } else {
                    Ok((quote!(#d::Select::<_, #key>(#operand, #field).get()?), Kind::Place))
                }
            }
            Expr::Call(c) => self.call(c),
            Expr::Comprehension(c) => self.comprehension(c),
            Expr::List(_) => Err("a list literal".into()),
            Expr::Map(_) => Err("a map literal".into()),
            Expr::Struct(_) => Err("an object literal".into()),
            Expr::Unspecified => Err("an unspecified node".into()),
        }
    }

    fn ident(&mut self, name: &str) -> Emitted {
        if let Some(local) = self.locals.iter().rev().find(|l| l.name == name) {
            return Ok((local.code.clone(), local.kind));
        }
        let d = derived();
        match name {
            "self" => Ok((quote!(__self), Kind::Place)),
            "oldSelf" => {
                self.transition = true;
                Ok((
                    quote!(__old.ok_or(#d::Error::Message(::std::borrow::Cow::Borrowed("no old value")))?),
                    Kind::Place,
                ))
            }
            other => Err(format!("the identifier `{other}`")),
        }
    }

    /// A call, by its form in the function table's rows (`kubeskema_attributes::native`): the
    /// derive writes what each form means for operands whose types it does not know.
    fn call(&mut self, c: &CallExpr) -> Emitted {
        let d = derived();
        let (name, args, target) = (c.func_name.as_str(), &c.args, c.target.as_deref());
        let form = form_of(name, target.is_some(), args.len()).ok_or_else(|| format!("the function `{name}`"))?;
        // The operands in order, the target first.
        let operands: Vec<&Expression> = target.into_iter().chain(args).collect();
        let value = |code: TokenStream| Ok((code, Kind::Value));
        match form {
            F::And | F::Or => {
                let (l, r) = (self.boolean(operands[0])?, self.boolean(operands[1])?);
                let f = if form == F::And { quote!(and) } else { quote!(or) };
                let (l, r) = (attempt(&l), attempt(&r));
                value(quote!(#d::#f(#l, || #r)?))
            }
            // The functions of one value through a method of `One`.
            F::Not | F::Negate | F::ToInt | F::ToDuration | F::ToString | F::Size => {
                let x = self.value_of(operands[0])?;
                let method = match form {
                    F::Not => quote!(cel_not),
                    F::Negate => quote!(cel_neg),
                    F::ToInt => quote!(cel_to_int),
                    F::ToDuration => quote!(cel_to_duration),
                    F::ToString => quote!(cel_to_string),
                    _ => quote!(cel_size),
                };
                value(quote!(#d::One(#x).#method()?))
            }
            F::NotStrictlyFalse => {
                let x = attempt(&self.boolean(operands[0])?);
                value(quote!(#d::not_strictly_false(#x)))
            }
            F::Conditional => {
                let cond = self.boolean(operands[0])?;
                let (a, b) = (self.value_of(operands[1])?, self.value_of(operands[2])?);
                let (a, b) = (attempt(&a), attempt(&b));
                let (c, x, y) = (self.fresh("c"), self.fresh("a"), self.fresh("b"));
                // Each branch in its own statement, so that two branches of different Rust
                // types compile (and defer) instead of failing to unify.
                value(quote!({
                    let #c = #cond;
                    let #x = if #c { ::core::option::Option::Some(#a) } else { ::core::option::Option::None };
                    let #y = if #c { ::core::option::Option::None } else { ::core::option::Option::Some(#b) };
                    #d::Pair(#x, #y).cel_pick()?
                }))
            }
            F::Equal | F::NotEqual => {
                let (a, b) = (self.value_of(operands[0])?, self.value_of(operands[1])?);
                let not = if form == F::NotEqual { quote!(!) } else { quote!() };
                value(quote!((#not #d::Pair(#a, #b).cel_eq()?)))
            }
            // `cel_cmp` is Rust's `Ordering`, which compares with `Equal` as the operator does.
            F::Ordering(op) => {
                let (a, b) = (self.value_of(operands[0])?, self.value_of(operands[1])?);
                let op: TokenStream = op.parse().map_err(|_| format!("the operator `{op}`"))?;
                value(quote!((#d::Pair(#a, #b).cel_cmp()? #op ::core::cmp::Ordering::Equal)))
            }
            F::Add | F::Arithmetic(_) => {
                let (a, b) = (self.value_of(operands[0])?, self.value_of(operands[1])?);
                // `Arithmetic("sub_int")` is `Arith::Sub`.
                let op = match form {
                    F::Arithmetic(helper) => variant(helper.trim_end_matches("_int")),
                    _ => format_ident!("Add"),
                };
                value(quote!(#d::Pair(#a, #b).cel_arith(#d::Arith::#op, __m)?))
            }
            // `x in ['a', 'b']`: comparisons, not a list built at each evaluation.
            F::In if constant_list(operands[1]) => {
                let Expr::List(l) = &operands[1].expr else { unreachable!("constant_list matched a list") };
                let x = self.value_of(operands[0])?;
                let v = self.fresh("x");
                let mut any = Vec::new();
                for item in &l.elements {
                    let Expr::Literal(lit) = &item.expr else { unreachable!("constant_list matched literals") };
                    let item = literal(lit)?;
                    any.push(quote!(#d::Pair(::core::clone::Clone::clone(&#v), #item).cel_eq()?));
                }
                value(quote!({ let #v = #x; #(#any)||* }))
            }
            F::In => {
                let (x, list) = (self.value_of(operands[0])?, self.value_of(operands[1])?);
                value(quote!(#d::Pair(#x, #list).cel_in()?))
            }
            F::Index => {
                let (list, i) = (self.value_of(operands[0])?, self.value_of(operands[1])?);
                Ok((quote!(#d::Pair(#list, #i).cel_index()?), Kind::Place))
            }
            F::StrPredicate(helper) => {
                let (s, x) = (self.value_of(operands[0])?, self.value_of(operands[1])?);
                let op = variant(helper);
                value(quote!(#d::Pair(#s, #x).cel_str(#d::StrOp::#op)?))
            }
            F::Matches | F::Find => {
                let s = self.value_of(operands[0])?;
                let pattern = self.pattern(operands[1])?;
                let method = if form == F::Matches { quote!(cel_matches) } else { quote!(cel_find) };
                value(quote!(#d::Pair(#s, &#pattern).#method(__m)?))
            }
            F::StrMap(helper) => {
                let s = self.value_of(operands[0])?;
                let op = variant(helper);
                value(quote!(#d::One(#s).cel_str_map(#d::StrMap::#op)?))
            }
            F::StrTest(helper) => {
                let s = self.value_of(operands[0])?;
                let op = variant(helper);
                value(quote!(#d::One(#s).cel_str_test(#d::StrTest::#op)?))
            }
            F::Split => {
                let (s, sep) = (self.value_of(operands[0])?, self.value_of(operands[1])?);
                value(quote!(#d::Pair(#s, #sep).cel_split()?))
            }
            F::Substring => {
                let (s, start) = (self.value_of(operands[0])?, self.value_of(operands[1])?);
                let end = match operands.get(2) {
                    Some(end) => {
                        let end = self.value_of(end)?;
                        quote!(::core::option::Option::Some(#end))
                    }
                    None => quote!(::core::option::Option::None),
                };
                value(quote!(#d::Pair(#s, #start).cel_substring(#end)?))
            }
            F::Url | F::UrlPart(_) => Err(format!("the function `{name}`: URL values are the interpreter's")),
            F::HasValue | F::Value => Err(format!("the function `{name}`: optional values are the interpreter's")),
            // The lowering writes these; the derive compiles the rule as written.
            F::SchemaEquals
            | F::SchemaNotEquals
            | F::IntData
            | F::IntPresent
            | F::Charge
            | F::Sized
            | F::ChargeSized => Err(format!("the lowering's function `{name}`")),
            F::Interpreted(why) => Err(format!("the function `{name}`: {why}")),
        }
    }

    /// A constant pattern, compiled once into a static of the function.
    fn pattern(&mut self, pattern: &Expression) -> Result<Ident, String> {
        let Expr::Literal(LiteralValue::String(p)) = &pattern.expr else {
            return Err("a pattern that is not a constant".into());
        };
        let d = derived();
        let name = format_ident!("__PATTERN{}", self.statics.len());
        let source = p.inner();
        self.statics.push(quote!(static #name: #d::Pattern = #d::Pattern::new(#source);));
        Ok(name)
    }

    /// The four macros the parser expands into a comprehension, recognized by the shape of
    /// their expansion (cel-go's `parser/macro.go`: the operators it writes are part of that
    /// shape, not calls the function table decides).
    fn comprehension(&mut self, c: &ComprehensionExpr) -> Emitted {
        if c.iter_var2.is_some() {
            return Err("a two-variable comprehension".into());
        }
        let d = derived();
        let accu_var = c.accu_var.as_str();
        let is_accu = |e: &Expression| matches!(&e.expr, Expr::Ident(n) if n == accu_var);
        let range = self.value_of(&c.iter_range)?;
        let units = Literal::u64_unsuffixed(loop_units(c));
        let item = self.fresh("item");
        self.locals.push(Local { name: c.iter_var.clone(), code: quote!(#item), kind: Kind::Place });
        let out = (|| {
            // `all` and `exists`: `@result && p` / `@result || p`, errors held by the fold.
            if let (Expr::Call(step), Expr::Literal(LiteralValue::Boolean(init))) =
                (&c.loop_step.expr, &c.accu_init.expr)
                && matches!(step.func_name.as_str(), "_&&_" | "_||_")
                && step.args.len() == 2
                && is_accu(&step.args[0])
                && is_accu(&c.result)
            {
                let init = *init.inner();
                let absorbing = step.func_name == "_||_";
                let fold = self.fresh("fold");
                self.locals.push(Local { name: accu_var.to_owned(), code: quote!(#fold.accu), kind: Kind::Value });
                let cond = self.boolean(&c.loop_cond);
                let p = self.boolean(&step.args[1]);
                self.locals.pop();
                let (cond, p) = (attempt(&cond?), attempt(&p?));
                return Ok((
                    quote!({
                        let mut #fold = #d::Fold::new(#init, #absorbing);
                        for #item in #d::One(#range).cel_iter()? {
                            __m.charge(#units)?;
                            if !#cond? { break; }
                            #fold.step(#p);
                        }
                        #fold.finish()?
                    }),
                    Kind::Value,
                ));
            }
            // `exists_one`: `p ? @result + 1 : @result` from 0, `@result == 1`.
            if let (Expr::Call(step), Expr::Literal(LiteralValue::Int(zero))) = (&c.loop_step.expr, &c.accu_init.expr)
                && *zero.inner() == 0
                && step.func_name == "_?_:_"
                && step.args.len() == 3
                && is_accu(&step.args[2])
                && matches!(&c.loop_cond.expr, Expr::Literal(LiteralValue::Boolean(b)) if *b.inner())
                && is_increment(&step.args[1], &is_accu)
                && matches!(&c.result.expr, Expr::Call(r) if r.func_name == "_==_" && r.args.len() == 2 && is_accu(&r.args[0]) && matches!(&r.args[1].expr, Expr::Literal(LiteralValue::Int(one)) if *one.inner() == 1))
            {
                let p = attempt(&self.boolean(&step.args[0])?);
                let (count, last) = (self.fresh("count"), self.fresh("last"));
                return Ok((
                    quote!({
                        let mut #count: i64 = 0;
                        let mut #last = #d::LastError::default();
                        for #item in #d::One(#range).cel_iter()? {
                            __m.charge(#units)?;
                            if #last.step(#p) == ::core::option::Option::Some(true) {
                                #count = #d::add_int(#count, 1)?;
                            }
                        }
                        #last.finish()?;
                        #count == 1
                    }),
                    Kind::Value,
                ));
            }
            // `filter`: `p ? @result + [x] : @result` from `[]`: the items kept, by reference.
            if let (Expr::Call(step), Expr::List(empty)) = (&c.loop_step.expr, &c.accu_init.expr)
                && empty.elements.is_empty()
                && step.func_name == "_?_:_"
                && step.args.len() == 3
                && is_accu(&step.args[2])
                && is_accu(&c.result)
                && matches!(&c.loop_cond.expr, Expr::Literal(LiteralValue::Boolean(b)) if *b.inner())
                && appends_item(&step.args[1], &is_accu, &c.iter_var)
            {
                let p = attempt(&self.boolean(&step.args[0])?);
                let (kept, last) = (self.fresh("kept"), self.fresh("last"));
                return Ok((
                    quote!({
                        let mut #kept = ::std::vec::Vec::new();
                        let mut #last = #d::LastError::default();
                        for #item in #d::One(#range).cel_iter()? {
                            __m.charge(#units)?;
                            if #last.step(#p) == ::core::option::Option::Some(true) {
                                #kept.push(#item);
                            }
                        }
                        #last.finish()?;
                        #kept
                    }),
                    Kind::Value,
                ));
            }
            Err("a comprehension other than all, exists, exists_one and filter".to_owned())
        })();
        self.locals.pop();
        out
    }
}

/// The runtime's variant for a form's helper: `starts_with` is `StartsWith`.
fn variant(helper: &str) -> Ident {
    let mut camel = String::new();
    for word in helper.split('_') {
        let mut chars = word.chars();
        camel.extend(chars.next().map(|c| c.to_ascii_uppercase()));
        camel.extend(chars);
    }
    format_ident!("{camel}")
}

/// `@result + 1`.
fn is_increment(e: &Expression, is_accu: &dyn Fn(&Expression) -> bool) -> bool {
    matches!(&e.expr, Expr::Call(add) if add.func_name == "_+_" && add.args.len() == 2 && is_accu(&add.args[0])
        && matches!(&add.args[1].expr, Expr::Literal(LiteralValue::Int(one)) if *one.inner() == 1))
}

/// `@result + [x]` of the loop's variable `x`.
fn appends_item(e: &Expression, is_accu: &dyn Fn(&Expression) -> bool, var: &str) -> bool {
    matches!(&e.expr, Expr::Call(add) if add.func_name == "_+_" && add.args.len() == 2 && is_accu(&add.args[0])
        && matches!(&add.args[1].expr, Expr::List(l) if l.elements.len() == 1 && l.optional_indices.is_empty()
            && matches!(&l.elements[0].expr, Expr::Ident(n) if n == var)))
}

/// A non-empty list literal of literals.
fn constant_list(e: &Expression) -> bool {
    matches!(&e.expr, Expr::List(l) if !l.elements.is_empty() && l.optional_indices.is_empty()
        && l.elements.iter().all(|e| matches!(e.expr, Expr::Literal(_))))
}

fn literal(l: &LiteralValue) -> Result<TokenStream, String> {
    Ok(match l {
        LiteralValue::Boolean(b) => {
            let b = *b.inner();
            quote!(#b)
        }
        LiteralValue::Int(i) => {
            let i = Literal::i64_suffixed(*i.inner());
            quote!(#i)
        }
        LiteralValue::UInt(u) => {
            let u = Literal::u64_suffixed(*u.inner());
            quote!(#u)
        }
        LiteralValue::Double(f) => {
            let f = *f.inner();
            if !f.is_finite() {
                return Err("a double that is not finite".into());
            }
            let f = Literal::f64_suffixed(f);
            quote!(#f)
        }
        LiteralValue::String(s) => {
            let s = s.inner();
            quote!(::std::borrow::Cow::<str>::Borrowed(#s))
        }
        LiteralValue::Null => return Err("null".into()),
        LiteralValue::Bytes(_) => return Err("a bytes literal".into()),
    })
}

/// What evaluating `e` charges at least: the spine `instrument` charges, computed by the one
/// function both compilers call; the calls that charge only their first operand are the rows'
/// (`FIRST_OPERAND_CALLS`, held equal to them by a runtime test: the derive cannot read the table).
fn spine(e: &Expression) -> u64 {
    meter::spine(e, &|name| meter::FIRST_OPERAND_CALLS.contains(&name))
}

/// What one iteration of `c` charges, as `instrument` charges it.
fn loop_units(c: &ComprehensionExpr) -> u64 {
    meter::loop_units(c, &|name| meter::FIRST_OPERAND_CALLS.contains(&name))
}
