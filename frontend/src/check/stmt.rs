//! Statements: control flow, `return`, `discard`, and the expression statements and
//! declarations of `assign.rs` and `decl.rs`.
//!
//! An expression may leave statements in `ctx.pre` (its assignments, `++`, inlined kernel
//! calls); each statement here emits them ahead of itself with `flush`, before checking any
//! nested block. Loop conditions are the exception: they run on every iteration, so
//! `loops.rs` places them.

use super::assign::expr_stmt;
use super::decl::decl;
use super::expr::check;
use super::items::coerce_or_report;
use super::loops::{build_loop, LoopParts};
use super::operators::to_bool;
use super::scope::FnCtx;
use super::{Reported, R};
use crate::ast::{self, FnKind};
use brook_ir::Diagnostic;
use brook_ir::Span;
use brook_ir::{Block, Expr, Stmt, StmtKind, Type};

pub(super) fn st(kind: StmtKind, span: Span) -> Stmt {
    Stmt { kind, span }
}

/// Moves the statements waiting in `ctx.pre` to `out`.
pub(super) fn flush(ctx: &mut FnCtx<'_>, out: &mut Vec<Stmt>) {
    out.append(&mut ctx.pre);
}

/// Checks a function body (its outermost block shares the parameters' scope).
pub fn check_body(ctx: &mut FnCtx<'_>, body: &[ast::Stmt]) -> R<Block> {
    let before = ctx.g.diags.len();
    let mut out = Vec::new();
    for s in body {
        stmt(ctx, s, &mut out);
    }
    if ctx.g.diags.len() > before {
        Err(Reported)
    } else {
        Ok(out)
    }
}

/// Checks statements in a new scope.
fn block(ctx: &mut FnCtx<'_>, body: &[ast::Stmt]) -> Block {
    ctx.push_scope();
    let mut out = Vec::new();
    for s in body {
        stmt(ctx, s, &mut out);
    }
    ctx.pop_scope();
    out
}

/// A sub-statement (`if` branch, loop body) as a block of its own.
fn sub(ctx: &mut FnCtx<'_>, s: &ast::Stmt) -> Block {
    match &s.kind {
        ast::StmtKind::Block(b) => block(ctx, b),
        _ => {
            ctx.push_scope();
            let mut out = Vec::new();
            stmt(ctx, s, &mut out);
            ctx.pop_scope();
            out
        }
    }
}

/// A loop condition as a `bool`, with the statements it needs before it on each iteration.
fn condition(ctx: &mut FnCtx<'_>, c: &ast::Expr, what: &str) -> R<(Vec<Stmt>, Expr)> {
    let mark = ctx.pre.len();
    let c = check(ctx, c).and_then(|c| to_bool(ctx, c, what));
    let pre = ctx.pre.split_off(mark);
    Ok((pre, c?))
}

fn loop_body(ctx: &mut FnCtx<'_>, body: &ast::Stmt) -> Block {
    ctx.loop_depth += 1;
    let b = sub(ctx, body);
    ctx.loop_depth -= 1;
    b
}

/// `while (cond) body`, or `do body while (cond)` when `test_first` is false.
fn while_loop(
    ctx: &mut FnCtx<'_>,
    (cond_pre, cond): (Vec<Stmt>, Expr),
    body: Block,
    test_first: bool,
    span: Span,
) -> Vec<Stmt> {
    let parts = LoopParts {
        init: Vec::new(),
        cond_pre,
        cond: Some(cond),
        step: Vec::new(),
        body,
        test_first,
    };
    build_loop(ctx, parts, span)
}

/// Checks one statement, appending its IR (zero or more statements) to `out`. Errors are
/// reported and the statement is dropped.
fn stmt(ctx: &mut FnCtx<'_>, s: &ast::Stmt, out: &mut Vec<Stmt>) {
    let span = s.span;
    match &s.kind {
        ast::StmtKind::Decl(d) => decl(ctx, d, out),
        ast::StmtKind::Exprs(list) => {
            for e in list {
                let _ = expr_stmt(ctx, e);
                flush(ctx, out);
            }
        }
        ast::StmtKind::If {
            cond,
            then,
            otherwise,
        } => {
            let c = check(ctx, cond).and_then(|c| to_bool(ctx, c, "an `if` condition"));
            flush(ctx, out);
            let t = sub(ctx, then);
            let o = otherwise.as_ref().map(|o| sub(ctx, o)).unwrap_or_default();
            if let Ok(c) = c {
                out.push(st(
                    StmtKind::If {
                        cond: c,
                        then: t,
                        otherwise: o,
                    },
                    span,
                ));
            }
        }
        ast::StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            ctx.push_scope();
            let mut init_out = Vec::new();
            let mut ok = true;
            match init {
                ast::ForInit::None => {}
                ast::ForInit::Decl(d) => decl(ctx, d, &mut init_out),
                ast::ForInit::Exprs(list) => {
                    for e in list {
                        ok &= expr_stmt(ctx, e).is_ok();
                        flush(ctx, &mut init_out);
                    }
                }
            }
            let c = cond
                .as_ref()
                .map(|c| condition(ctx, c, "a `for` condition"))
                .transpose();
            let mut step_out = Vec::new();
            for e in step {
                ok &= expr_stmt(ctx, e).is_ok();
                flush(ctx, &mut step_out);
            }
            let b = loop_body(ctx, body);
            ctx.pop_scope();
            if let (Ok(c), true) = (c, ok) {
                let (cond_pre, cond) = c.map_or((Vec::new(), None), |(p, c)| (p, Some(c)));
                let parts = LoopParts {
                    init: init_out,
                    cond_pre,
                    cond,
                    step: step_out,
                    body: b,
                    test_first: true,
                };
                out.extend(build_loop(ctx, parts, span));
            }
        }
        ast::StmtKind::While { cond, body } => {
            let c = condition(ctx, cond, "a `while` condition");
            let b = loop_body(ctx, body);
            if let Ok(c) = c {
                out.extend(while_loop(ctx, c, b, true, span));
            }
        }
        ast::StmtKind::DoWhile { body, cond } => {
            let b = loop_body(ctx, body);
            if let Ok(c) = condition(ctx, cond, "a `do … while` condition") {
                out.extend(while_loop(ctx, c, b, false, span));
            }
        }
        ast::StmtKind::Break | ast::StmtKind::Continue => {
            let word = if matches!(s.kind, ast::StmtKind::Break) {
                "break"
            } else {
                "continue"
            };
            if ctx.loop_depth == 0 {
                ctx.error(
                    Diagnostic::error(format!("`{word}` outside of a loop"), span)
                        .with_label(span, "not inside `for`, `while` or `do`"),
                );
            } else if word == "break" {
                out.push(st(StmtKind::Break, span));
            } else {
                out.push(st(StmtKind::Continue, span));
            }
        }
        ast::StmtKind::Return(value) => return_stmt(ctx, value.as_ref(), span, out),
        ast::StmtKind::Block(b) => {
            let inner = block(ctx, b);
            out.push(st(StmtKind::Block(inner), span));
        }
        ast::StmtKind::Discard => {
            if ctx.kind == Some(FnKind::Reduce) {
                ctx.error(
                    Diagnostic::error("`discard` is not allowed in a reduce function", span)
                        .with_label(span, "every element must be combined"),
                );
            } else {
                out.push(st(StmtKind::Discard, span));
            }
        }
        ast::StmtKind::Empty => {}
    }
}

fn return_stmt(ctx: &mut FnCtx<'_>, value: Option<&ast::Expr>, span: Span, out: &mut Vec<Stmt>) {
    let ret = ctx.ret.clone();
    match (value, &ret) {
        (None, Type::Void) => out.push(st(StmtKind::Return(None), span)),
        (Some(v), Type::Void) => {
            let _ = check(ctx, v);
            ctx.pre.clear();
            let what = match ctx.kind {
                Some(FnKind::Kernel) => "a `void` kernel",
                Some(FnKind::Reduce) => "a reduce function",
                _ => "a `void` function",
            };
            let hint = if ctx.kind == Some(FnKind::Reduce) {
                "assign the result to the `reduce` parameter instead"
            } else {
                "declare the function's return type, or assign the result to an `out` parameter"
            };
            ctx.error(
                Diagnostic::error(format!("{what} cannot return a value"), v.span)
                    .with_label(v.span, "returned here")
                    .with_hint(hint),
            );
        }
        (None, _) => {
            let tn = ctx.type_name(&ret);
            ctx.error(
                Diagnostic::error(format!("missing return value of type `{tn}`"), span)
                    .with_label(span, "returns nothing"),
            );
        }
        (Some(v), _) => {
            let name = ctx.name.clone();
            let e = check(ctx, v).and_then(|e| {
                coerce_or_report(ctx, e, &ret, &format!("the return value of `{name}`"))
            });
            flush(ctx, out);
            if let Ok(e) = e {
                out.push(st(StmtKind::Return(Some(e)), span));
            }
        }
    }
}

/// Does every path through `b` end in `return` (or `discard`)?
pub fn always_returns(b: &[Stmt]) -> bool {
    b.iter().any(|s| match &s.kind {
        StmtKind::Return(_) | StmtKind::Discard => true,
        StmtKind::Block(inner) => always_returns(inner),
        StmtKind::If {
            then, otherwise, ..
        } => always_returns(then) && always_returns(otherwise),
        StmtKind::Loop {
            cond: None, body, ..
        } => !contains_break(body),
        _ => false,
    })
}

fn contains_break(b: &[Stmt]) -> bool {
    b.iter().any(|s| match &s.kind {
        StmtKind::Break => true,
        StmtKind::Block(inner) => contains_break(inner),
        StmtKind::If {
            then, otherwise, ..
        } => contains_break(then) || contains_break(otherwise),
        _ => false,
    })
}
