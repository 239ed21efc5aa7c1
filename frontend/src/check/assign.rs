//! Expressions with effects: assignments, `++`/`--` and `push`, as statements and, as C
//! allows, inside expressions (`float idx = stride = floor(n * 0.5);`,
//! `while ((k = k - 1) > 0)`).
//!
//! The effect is a statement appended to `ctx.pre`, which the statement checker emits ahead of
//! the statement holding the expression; the expression's value is then read from the place:
//! the value of `a = b` is `a` after the assignment, of `++i` the new `i`, of `i++` the old
//! one, kept in a temporary.

use super::expr::{check, is_nothing, mk};
use super::items::coerce_or_report;
use super::operators::binary;
use super::place::{check_place, place_value};
use super::scope::{FnCtx, Resolved};
use super::types::coerce;
use super::{Reported, R};
use crate::ast::{self, BinOp, FnKind, UnOp};
use brook_ir::Diagnostic;
use brook_ir::Span;
use brook_ir::{self as ir, BinaryOp, ExprKind, ParamClass, Place, Scalar, Stmt, StmtKind, Type};

fn st(kind: StmtKind, span: Span) -> Stmt {
    Stmt { kind, span }
}

/// An expression used as a statement: its effects go to `ctx.pre`, its value is dropped.
pub(super) fn expr_stmt(ctx: &mut FnCtx<'_>, e: &ast::Expr) -> R<()> {
    let span = e.span;
    match &e.kind {
        ast::ExprKind::Assign { op, target, value } => {
            assignment(ctx, *op, target, value, span).map(drop)
        }
        ast::ExprKind::Unary(
            op @ (UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec),
            target,
        ) => {
            let place = check_place(ctx, target, true)?;
            increment(ctx, *op, &place, target.span, span)
        }
        ast::ExprKind::Push(arg) => {
            let p = push_target(ctx, arg)?;
            let ty = ctx.params[p as usize].ty.clone();
            ctx.pre.push(st(
                StmtKind::Push {
                    param: p,
                    value: mk(ExprKind::Param(p), ty, arg.span),
                },
                span,
            ));
            Ok(())
        }
        _ => {
            let v = check(ctx, e)?;
            if !is_nothing(&v) {
                ctx.pre.push(st(StmtKind::Expr(v), span));
            }
            Ok(())
        }
    }
}

/// `target = value` or `target op= value` inside an expression: the target's new value.
pub(super) fn assignment_value(
    ctx: &mut FnCtx<'_>,
    op: Option<BinOp>,
    target: &ast::Expr,
    value: &ast::Expr,
    span: Span,
) -> R<ir::Expr> {
    if ctx.kind.is_none() {
        return Err(ctx.error(
            Diagnostic::error("a constant's value cannot assign", span)
                .with_label(span, "assignment in a constant expression"),
        ));
    }
    let place = assignment(ctx, op, target, value, span)?;
    Ok(place_value(ctx, &place, span))
}

/// `++x`, `x++` (and `--`) inside an expression: the new value, or the old one.
pub(super) fn increment_value(
    ctx: &mut FnCtx<'_>,
    op: UnOp,
    target: &ast::Expr,
    span: Span,
) -> R<ir::Expr> {
    if ctx.kind.is_none() {
        return Err(ctx.error(
            Diagnostic::error("a constant's value cannot change a variable", span)
                .with_label(span, "`++`/`--` in a constant expression"),
        ));
    }
    let place = check_place(ctx, target, true)?;
    if matches!(op, UnOp::PostInc | UnOp::PostDec) {
        let old_value = place_value(ctx, &place, target.span);
        let old = ctx.temp("old", place.ty.clone(), span);
        ctx.pre.push(st(
            StmtKind::Decl {
                local: old,
                init: Some(old_value),
            },
            span,
        ));
        increment(ctx, op, &place, target.span, span)?;
        return Ok(mk(ExprKind::Local(old), place.ty, span));
    }
    increment(ctx, op, &place, target.span, span)?;
    Ok(place_value(ctx, &place, span))
}

/// Checks `target op= value` and appends the assignment to `ctx.pre`; the place assigned.
fn assignment(
    ctx: &mut FnCtx<'_>,
    op: Option<BinOp>,
    target: &ast::Expr,
    value: &ast::Expr,
    span: Span,
) -> R<Place> {
    let v = check(ctx, value);
    let place = check_place(ctx, target, op.is_some());
    let (place, v) = (place?, v?);
    let (op, v) = match op {
        None => (None, coerce_or_report(ctx, v, &place.ty, "the assignment")?),
        Some(op) => compound(ctx, op, &place, v, target.span, span)?,
    };
    ctx.pre.push(st(
        StmtKind::Assign {
            target: place.clone(),
            op,
            value: v,
        },
        span,
    ));
    Ok(place)
}

/// `place += 1` (or `-= 1`) appended to `ctx.pre`.
fn increment(ctx: &mut FnCtx<'_>, op: UnOp, place: &Place, target_span: Span, span: Span) -> R<()> {
    let one = match place.ty.scalar() {
        Some(Scalar::Float) if place.ty.width().is_some() => {
            mk(ExprKind::Float(1.0), Type::FLOAT, span)
        }
        Some(Scalar::Int) if place.ty.width().is_some() => mk(ExprKind::Int(1), Type::INT, span),
        _ => {
            let tn = ctx.type_name(&place.ty);
            return Err(ctx.error(
                Diagnostic::error(
                    format!("cannot increment or decrement a `{tn}`"),
                    target_span,
                )
                .with_label(target_span, format!("this is `{tn}`")),
            ));
        }
    };
    let bop = if matches!(op, UnOp::PreInc | UnOp::PostInc) {
        BinaryOp::Add
    } else {
        BinaryOp::Sub
    };
    ctx.pre.push(st(
        StmtKind::Assign {
            target: place.clone(),
            op: Some(bop),
            value: one,
        },
        span,
    ));
    Ok(())
}

/// `place op= v` as the IR's compound assignment when `place op v` has the place's type, and
/// otherwise written out as `place = (T)(place op v)`, Cg's conversion of the result
/// (`i += 1.0` on an `int` adds in float, then truncates).
fn compound(
    ctx: &mut FnCtx<'_>,
    op: BinOp,
    place: &Place,
    v: ir::Expr,
    target_span: Span,
    span: Span,
) -> R<(Option<BinOp>, ir::Expr)> {
    let current = place_value(ctx, place, target_span);
    let vty = v.ty.clone();
    let combined = binary(ctx, op, current, v, span)?;
    if let ExprKind::Binary(_, a, b) = &combined.kind {
        if a.ty == place.ty && combined.ty == place.ty {
            return Ok((Some(op), (**b).clone()));
        }
    }
    match coerce(combined, &place.ty) {
        Ok(whole) => Ok((None, whole)),
        Err(_) => {
            let (pt, vt) = (ctx.type_name(&place.ty), ctx.type_name(&vty));
            Err(ctx.error(
                Diagnostic::error(
                    format!(
                        "type mismatch: `{pt} {}= {vt}` does not give a `{pt}`",
                        op.symbol()
                    ),
                    span,
                )
                .with_label(target_span, format!("this is `{pt}`")),
            ))
        }
    }
}

fn push_target(ctx: &mut FnCtx<'_>, arg: &ast::Expr) -> R<u32> {
    if ctx.kind != Some(FnKind::Kernel) {
        return Err(ctx.error(
            Diagnostic::error("`push` is only allowed in kernels", arg.span)
                .with_label(arg.span, "pushed here"),
        ));
    }
    let not_vout = |ctx: &mut FnCtx<'_>, what: String| -> Reported {
        ctx.error(
            Diagnostic::error(
                format!("`push` needs a `vout` stream, but {what}"),
                arg.span,
            )
            .with_label(arg.span, "not a `vout` parameter")
            .with_hint("declare the output as `vout [N] T name<>` and push it by name"),
        )
    };
    let ast::ExprKind::Ident(name) = &arg.kind else {
        return Err(not_vout(ctx, "this is an expression".into()));
    };
    match ctx.lookup(name) {
        Resolved::Param(i) => match ctx.params[i as usize].class {
            ParamClass::Vout { .. } => Ok(i),
            c => {
                let w = match c {
                    ParamClass::Out => "an `out` stream",
                    ParamClass::Stream => "an input stream",
                    ParamClass::Gather { .. } => "a gather array",
                    ParamClass::Iter => "an iterator",
                    ParamClass::Reduce => "a `reduce` parameter",
                    _ => "a constant parameter",
                };
                Err(not_vout(ctx, format!("`{name}` is {w}")))
            }
        },
        Resolved::Local(_) | Resolved::Const(_) => {
            Err(not_vout(ctx, format!("`{name}` is a variable")))
        }
        Resolved::Poisoned => Err(Reported),
        Resolved::Unknown => Err(ctx.unknown_ident(name, arg.span)),
    }
}
