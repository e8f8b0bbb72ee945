//! How deep a rule may nest, and the stack its recursive walks get.
//!
//! The `cel` crate's parser and interpreter recurse over the expression, as do our own walks
//! (names, cost, metering). cel-go refuses more than 250 nested expressions while parsing
//! ("expression recursion limit exceeded: 250"); deeper trees that parse (a chain of a
//! thousand `+` is a tree a thousand deep) are refused at [`MAX_DEPTH`] too. Within the
//! limit, a deep rule is parsed and run on a stack grown to fit ([`with_stack`]), so a
//! 2 MiB thread (a test's, a tokio worker's) never overflows.

use cel::common::ast::{EntryExpr, Expr};
use cel::parser::Expression;

use crate::cel::vocabulary::limits::MAX_DEPTH;

/// Stack each level of nesting may take: the parser's and the interpreter's frames, measured
/// (a debug build's are several times a release build's).
const PER_LEVEL: usize = if cfg!(debug_assertions) { 96 * 1024 } else { 16 * 1024 };
/// What any evaluation needs beside its nesting.
const BASE: usize = 256 * 1024;

/// Stack the parser takes per binary operator of a chain (`a + b + ...` is parsed in a loop
/// but built and finished recursively).
const PER_OPERATOR: usize = if cfg!(debug_assertions) { 2 * 1024 } else { 512 };

/// Runs `f`, a walk `levels` deep, on a stack with room for it: the current one when it has
/// the room (the common case costs one comparison), else a fresh one.
pub fn with_stack<T>(levels: usize, f: impl FnOnce() -> T) -> T {
    with_stack_bytes(BASE + levels.min(MAX_DEPTH + 1) * PER_LEVEL, f)
}

fn with_stack_bytes<T>(needed: usize, f: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(needed, needed.saturating_mul(2), f)
}

/// Runs the parse of `source` on a stack with room for it, sized from the text: its bracket
/// nesting (brackets inside string literals count too: the estimate only sizes a stack, and
/// the parser stops past [`MAX_DEPTH`]) and its operators. Each `?:`, `&&`, unary and call
/// is a level too, a few per bracket at most.
pub fn parsing<T>(source: &str, parse: impl FnOnce() -> T) -> T {
    let (mut depth, mut deepest, mut operators) = (0usize, 0usize, 0usize);
    for b in source.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'=' | b'<' | b'>' | b'!' | b'?' | b'.' => operators += 1,
            _ => {}
        }
    }
    let levels = deepest.min(MAX_DEPTH + 1).saturating_mul(2).saturating_add(8);
    with_stack_bytes(BASE + levels * PER_LEVEL + operators * PER_OPERATOR, parse)
}

/// The depth of an expression tree, walked without recursion.
pub fn tree_depth(expr: &Expression) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(expr, 1usize)];
    while let Some((e, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        stack.extend(children(e).into_iter().map(|child| (child, depth + 1)));
    }
    deepest
}

/// The expressions directly under `e`.
pub(crate) fn children(e: &Expression) -> Vec<&Expression> {
    match &e.expr {
        Expr::Literal(_) | Expr::Ident(_) | Expr::Unspecified => Vec::new(),
        Expr::Select(s) => vec![&s.operand],
        Expr::Call(c) => c.target.as_deref().into_iter().chain(&c.args).collect(),
        Expr::List(l) => l.elements.iter().collect(),
        Expr::Map(m) => m
            .entries
            .iter()
            .flat_map(|entry| match &entry.expr {
                EntryExpr::MapEntry(e) => vec![&e.key, &e.value],
                EntryExpr::StructField(f) => vec![&f.value],
            })
            .collect(),
        Expr::Struct(s) => s
            .entries
            .iter()
            .filter_map(|entry| match &entry.expr {
                EntryExpr::StructField(f) => Some(&f.value),
                EntryExpr::MapEntry(_) => None,
            })
            .collect(),
        Expr::Comprehension(c) => vec![&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result],
    }
}

/// The expressions directly under `e`, mutable: what the rewrites before a rule runs walk.
pub(crate) fn children_mut(e: &mut Expression) -> Vec<&mut Expression> {
    match &mut e.expr {
        Expr::Literal(_) | Expr::Ident(_) | Expr::Unspecified => Vec::new(),
        Expr::Select(s) => vec![&mut *s.operand],
        Expr::Call(c) => c.target.as_deref_mut().into_iter().chain(c.args.iter_mut()).collect(),
        Expr::List(l) => l.elements.iter_mut().collect(),
        Expr::Map(m) => m
            .entries
            .iter_mut()
            .flat_map(|entry| match &mut entry.expr {
                EntryExpr::MapEntry(e) => vec![&mut e.key, &mut e.value],
                EntryExpr::StructField(f) => vec![&mut f.value],
            })
            .collect(),
        Expr::Struct(s) => s
            .entries
            .iter_mut()
            .filter_map(|entry| match &mut entry.expr {
                EntryExpr::StructField(f) => Some(&mut f.value),
                EntryExpr::MapEntry(_) => None,
            })
            .collect(),
        Expr::Comprehension(c) => {
            let c = &mut **c;
            vec![&mut c.iter_range, &mut c.accu_init, &mut c.loop_cond, &mut c.loop_step, &mut c.result]
        }
    }
}

/// Drops an expression tree without recursion (a derived drop recurses as deep as the tree,
/// and a chain of many operators parses into a very deep one).
pub fn drop_tree(expr: Expression) {
    let mut stack = vec![expr];
    while let Some(mut e) = stack.pop() {
        match &mut e.expr {
            Expr::Literal(_) | Expr::Ident(_) | Expr::Unspecified => {}
            Expr::Select(s) => stack.push(std::mem::take(&mut *s.operand)),
            Expr::Call(c) => {
                stack.extend(c.target.take().map(|t| *t));
                stack.append(&mut c.args);
            }
            Expr::List(l) => stack.append(&mut l.elements),
            Expr::Map(m) => {
                for entry in &mut m.entries {
                    match &mut entry.expr {
                        EntryExpr::MapEntry(e) => {
                            stack.push(std::mem::take(&mut e.key));
                            stack.push(std::mem::take(&mut e.value));
                        }
                        EntryExpr::StructField(f) => stack.push(std::mem::take(&mut f.value)),
                    }
                }
            }
            Expr::Struct(s) => {
                for entry in &mut s.entries {
                    if let EntryExpr::StructField(f) = &mut entry.expr {
                        stack.push(std::mem::take(&mut f.value));
                    }
                }
            }
            Expr::Comprehension(c) => {
                for child in [&mut c.iter_range, &mut c.accu_init, &mut c.loop_cond, &mut c.loop_step, &mut c.result] {
                    stack.push(std::mem::take(child));
                }
            }
        }
    }
}
