//! Operators: unary and binary operator typing, conditions as `bool`, and the common type
//! of `?:` branches.

use super::expr::{check, mk};
use super::scope::FnCtx;
use super::types::{self, coerce, is_numeric, with_scalar};
use super::{Reported, R};
use crate::ast::{self, BinOp, UnOp};
use crate::diagnostics::Diagnostic;
use crate::ir::{Expr, ExprKind, Scalar, Type, UnaryOp};
use crate::span::Span;

pub(super) fn unary(ctx: &mut FnCtx<'_>, op: UnOp, a: &ast::Expr, span: Span) -> R<Expr> {
    if matches!(
        op,
        UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec
    ) {
        let sym = if matches!(op, UnOp::PreInc | UnOp::PostInc) {
            "++"
        } else {
            "--"
        };
        return Err(ctx.error(
            Diagnostic::error(format!("`{sym}` cannot be used inside an expression"), span)
                .with_label(span, "changes a variable")
                .with_hint(format!("use it as a statement of its own (`i{sym};`)")),
        ));
    }
    // `-2147483648` is the one int literal whose magnitude does not fit.
    if op == UnOp::Neg {
        if let ast::ExprKind::Int(v) = a.kind {
            if v == 1i64 << 31 {
                return Ok(mk(ExprKind::Int(i32::MIN), Type::INT, span));
            }
        }
    }
    let v = check(ctx, a)?;
    let ty = v.ty.clone();
    let bad = |ctx: &mut FnCtx<'_>, sym: &str, needs: &str| -> Reported {
        let tn = ctx.type_name(&ty);
        ctx.error(
            Diagnostic::error(
                format!("operator `{sym}` cannot be applied to `{tn}`"),
                span,
            )
            .with_label(a.span, format!("this is `{tn}`; `{sym}` needs {needs}")),
        )
    };
    match op {
        UnOp::Neg => {
            // A negated literal is a negative literal.
            match v.kind {
                ExprKind::Int(i) if i != i32::MIN => return Ok(mk(ExprKind::Int(-i), ty, span)),
                ExprKind::Float(f) => return Ok(mk(ExprKind::Float(-f), ty, span)),
                _ => {}
            }
            if is_numeric(&ty) || matches!(ty, Type::Matrix { .. }) {
                Ok(mk(ExprKind::Unary(UnaryOp::Neg, Box::new(v)), ty, span))
            } else {
                Err(bad(ctx, "-", "a number"))
            }
        }
        UnOp::Plus => {
            if is_numeric(&ty) || matches!(ty, Type::Matrix { .. }) {
                Ok(Expr { span, ..v })
            } else {
                Err(bad(ctx, "+", "a number"))
            }
        }
        UnOp::Not => {
            let b = to_bool(ctx, v, "`!`")?;
            Ok(mk(
                ExprKind::Unary(UnaryOp::Not, Box::new(b)),
                Type::BOOL,
                span,
            ))
        }
        UnOp::BitNot => {
            if ty.scalar() == Some(Scalar::Int) && ty.width().is_some() {
                Ok(mk(ExprKind::Unary(UnaryOp::BitNot, Box::new(v)), ty, span))
            } else {
                Err(bad(ctx, "~", "an integer"))
            }
        }
        UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec => Err(Reported),
    }
}

/// Converts a condition to a `bool` scalar (`x != 0` for numbers).
pub fn to_bool(ctx: &mut FnCtx<'_>, e: Expr, what: &str) -> R<Expr> {
    match &e.ty {
        Type::Scalar(Scalar::Bool) => Ok(e),
        Type::Scalar(_) => Ok(types::convert_to(e, Type::BOOL)),
        Type::Vector(..) => {
            let tn = ctx.type_name(&e.ty);
            Err(ctx.error(
                Diagnostic::error(format!("{what} must be a scalar, found `{tn}`"), e.span)
                    .with_label(e.span, format!("this is `{tn}`"))
                    .with_hint("reduce it to one bool with `any(…)` or `all(…)`"),
            ))
        }
        _ => {
            let tn = ctx.type_name(&e.ty);
            Err(ctx.error(
                Diagnostic::error(format!("{what} must be a `bool`, found `{tn}`"), e.span)
                    .with_label(e.span, format!("this is `{tn}`")),
            ))
        }
    }
}

fn operand_error(
    ctx: &mut FnCtx<'_>,
    op: BinOp,
    a: &Expr,
    b: &Expr,
    span: Span,
    why: &str,
) -> Reported {
    let (ta, tb) = (ctx.type_name(&a.ty), ctx.type_name(&b.ty));
    let mut d = Diagnostic::error(
        format!(
            "operator `{}` cannot be applied to `{ta}` and `{tb}`",
            op.symbol()
        ),
        span,
    )
    .with_label(a.span, format!("`{ta}`"))
    .with_label(b.span, format!("`{tb}`"));
    if !why.is_empty() {
        d = d.with_hint(why.to_string());
    }
    ctx.error(d)
}

/// Brings two scalar/vector operands to a common scalar kind and a compatible width
/// (equal, or one of them a scalar). Returns the result width.
fn widths(ctx: &mut FnCtx<'_>, op: BinOp, a: &Expr, b: &Expr, span: Span) -> R<u8> {
    let (wa, wb) = (a.ty.width().unwrap_or(1), b.ty.width().unwrap_or(1));
    if wa == wb || wa == 1 || wb == 1 {
        Ok(wa.max(wb))
    } else {
        Err(operand_error(
            ctx,
            op,
            a,
            b,
            span,
            "vector operands must have the same width (or one must be a scalar)",
        ))
    }
}

/// Type-checks `a op b`.
pub fn binary(ctx: &mut FnCtx<'_>, op: BinOp, a: Expr, b: Expr, span: Span) -> R<Expr> {
    let iop = op;
    let done =
        |a: Expr, b: Expr, ty: Type| mk(ExprKind::Binary(iop, Box::new(a), Box::new(b)), ty, span);
    match op {
        BinOp::And | BinOp::Or => {
            let a = to_bool(ctx, a, &format!("the left operand of `{}`", op.symbol()));
            let b = to_bool(ctx, b, &format!("the right operand of `{}`", op.symbol()));
            Ok(done(a?, b?, Type::BOOL))
        }
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => {
            let (am, bm) = (
                matches!(a.ty, Type::Matrix { .. }),
                matches!(b.ty, Type::Matrix { .. }),
            );
            if am || bm {
                if a.ty == b.ty {
                    let ty = a.ty.clone();
                    return Ok(done(a, b, ty));
                }
                let scalar_ok = |t: &Type| matches!(t, Type::Scalar(Scalar::Float | Scalar::Int));
                if am && scalar_ok(&b.ty) {
                    let ty = a.ty.clone();
                    return Ok(done(a, types::convert_to(b, Type::FLOAT), ty));
                }
                if bm && scalar_ok(&a.ty) {
                    let ty = b.ty.clone();
                    return Ok(done(types::convert_to(a, Type::FLOAT), b, ty));
                }
                let hint = if op == BinOp::Mul {
                    "use `mul(m, v)` for a matrix product"
                } else {
                    "matrices combine with matrices of the same shape or with scalars"
                };
                return Err(operand_error(ctx, op, &a, &b, span, hint));
            }
            if !is_numeric(&a.ty) || !is_numeric(&b.ty) {
                return Err(operand_error(ctx, op, &a, &b, span, ""));
            }
            let w = widths(ctx, op, &a, &b, span)?;
            let s = promoted_scalar(&a, &b);
            Ok(done(
                with_scalar(a, s),
                with_scalar(b, s),
                Type::vector(s, w),
            ))
        }
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr => {
            let int = |t: &Type| t.scalar() == Some(Scalar::Int) && t.width().is_some();
            if !int(&a.ty) || !int(&b.ty) {
                return Err(operand_error(
                    ctx,
                    op,
                    &a,
                    &b,
                    span,
                    "bitwise operators need `int` operands",
                ));
            }
            let w = widths(ctx, op, &a, &b, span)?;
            Ok(done(a, b, Type::vector(Scalar::Int, w)))
        }
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let both_bool = a.ty.scalar() == Some(Scalar::Bool)
                && b.ty.scalar() == Some(Scalar::Bool)
                && a.ty.width().is_some()
                && b.ty.width().is_some();
            if both_bool && matches!(op, BinOp::Eq | BinOp::Ne) {
                let w = widths(ctx, op, &a, &b, span)?;
                return Ok(done(a, b, Type::vector(Scalar::Bool, w)));
            }
            if !is_numeric(&a.ty) || !is_numeric(&b.ty) {
                return Err(operand_error(ctx, op, &a, &b, span, ""));
            }
            let w = widths(ctx, op, &a, &b, span)?;
            let s = promoted_scalar(&a, &b);
            Ok(done(
                with_scalar(a, s),
                with_scalar(b, s),
                Type::vector(Scalar::Bool, w),
            ))
        }
    }
}

/// Brings the two branches of `?:` to one type.
pub(super) fn unify(ctx: &mut FnCtx<'_>, a: Expr, b: Expr, span: Span) -> R<(Expr, Expr)> {
    if a.ty == b.ty {
        return Ok((a, b));
    }
    let sv = |t: &Type| types::is_scalar_or_vector(t);
    if sv(&a.ty) && sv(&b.ty) {
        let (sa, sb) = (a.ty.scalar(), b.ty.scalar());
        let kind = match (sa, sb) {
            (Some(x), Some(y)) if x == y => Some(x),
            (Some(Scalar::Bool), _) | (_, Some(Scalar::Bool)) => None,
            _ => Some(Scalar::Float),
        };
        let (wa, wb) = (a.ty.width().unwrap_or(1), b.ty.width().unwrap_or(1));
        if let Some(k) = kind {
            if wa == wb || wa == 1 || wb == 1 {
                let target = Type::vector(k, wa.max(wb));
                if let (Ok(a), Ok(b)) = (coerce(a.clone(), &target), coerce(b.clone(), &target)) {
                    return Ok((a, b));
                }
            }
        }
    }
    let (ta, tb) = (ctx.type_name(&a.ty), ctx.type_name(&b.ty));
    Err(ctx.error(
        Diagnostic::error(
            format!("the branches of `?:` have different types: `{ta}` and `{tb}`"),
            span,
        )
        .with_label(a.span, format!("`{ta}`"))
        .with_label(b.span, format!("`{tb}`")),
    ))
}

/// The scalar kind two numeric operands meet at: `float` if either is, else `int`.
fn promoted_scalar(a: &Expr, b: &Expr) -> Scalar {
    if a.ty.scalar() == Some(Scalar::Float) || b.ty.scalar() == Some(Scalar::Float) {
        Scalar::Float
    } else {
        Scalar::Int
    }
}
