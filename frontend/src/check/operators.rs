//! Operators with Cg's rules: unary and binary operators, conditions as `bool`, `&&`/`||`
//! and `?:` (component-wise on `bool` vectors, short-circuit on scalars), and the common type
//! of `?:` branches.
//!
//! `bool` operands of arithmetic convert to the other operand's kind (`float4 + bool4`), or
//! to `int` when both are `bool`; `int` meets `float` as `float`. Vector operands have one
//! width, or one side is a scalar, splatted.

use super::assign::increment_value;
use super::expr::{check, mk};
use super::scope::FnCtx;
use super::types::{self, coerce, is_scalar_or_vector, with_scalar};
use super::{Reported, R};
use crate::ast::{self, BinOp, UnOp};
use brook_ir::Diagnostic;
use brook_ir::Span;
use brook_ir::{Expr, ExprKind, Place, PlaceRoot, Scalar, Stmt, StmtKind, Type, UnaryOp};

pub(super) fn unary(ctx: &mut FnCtx<'_>, op: UnOp, a: &ast::Expr, span: Span) -> R<Expr> {
    if matches!(
        op,
        UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec
    ) {
        return increment_value(ctx, op, a, span);
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
    let numeric = |t: &Type| types::is_numeric(t) || matches!(t, Type::Matrix { .. });
    match op {
        UnOp::Neg => {
            // A negated literal is a negative literal.
            match v.kind {
                ExprKind::Int(i) if i != i32::MIN => return Ok(mk(ExprKind::Int(-i), ty, span)),
                ExprKind::Float(f) => return Ok(mk(ExprKind::Float(-f), ty, span)),
                _ => {}
            }
            if numeric(&ty) {
                Ok(mk(ExprKind::Unary(UnaryOp::Neg, Box::new(v)), ty, span))
            } else {
                Err(bad(ctx, "-", "a number"))
            }
        }
        UnOp::Plus => {
            if numeric(&ty) {
                Ok(Expr { span, ..v })
            } else {
                Err(bad(ctx, "+", "a number"))
            }
        }
        // On a vector, component-wise (Cg).
        UnOp::Not => {
            let b = match ty.width() {
                Some(w) if w > 1 => with_scalar(v, Scalar::Bool),
                _ => to_bool(ctx, v, "`!`")?,
            };
            let bty = b.ty.clone();
            Ok(mk(ExprKind::Unary(UnaryOp::Not, Box::new(b)), bty, span))
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

/// A temporary holding the value of a conditional expression whose operands have effects.
pub(super) fn temp_value(
    ctx: &mut FnCtx<'_>,
    name: &str,
    ty: Type,
    init: Option<Expr>,
    span: Span,
) -> Expr {
    let t = ctx.temp(name, ty.clone(), span);
    ctx.pre.push(Stmt {
        kind: StmtKind::Decl { local: t, init },
        span,
    });
    mk(ExprKind::Local(t), ty, span)
}

fn assign_to(target: &Expr, value: Expr) -> Stmt {
    let ExprKind::Local(l) = target.kind else {
        unreachable!("temporaries are locals")
    };
    let span = value.span;
    Stmt {
        kind: StmtKind::Assign {
            target: Place {
                root: PlaceRoot::Local(l),
                path: Vec::new(),
                ty: target.ty.clone(),
            },
            op: None,
            value,
        },
        span,
    }
}

/// `a && b`, `a || b`. On scalars the right side runs only when needed, as in C, so effects
/// inside it (in `ctx.pre`) move under an `if`; on vectors both sides are evaluated and
/// combined component-wise, as in Cg.
pub(super) fn logical(
    ctx: &mut FnCtx<'_>,
    op: BinOp,
    a: &ast::Expr,
    b: &ast::Expr,
    span: Span,
) -> R<Expr> {
    let a = check(ctx, a);
    let mark = ctx.pre.len();
    let b = check(ctx, b);
    let (a, b) = (a?, b?);
    let scalar = a.ty.width() == Some(1) && b.ty.width() == Some(1);
    if !scalar || ctx.pre.len() == mark {
        return binary(ctx, op, a, b, span);
    }
    let b_effects = ctx.pre.split_off(mark);
    let a = to_bool(ctx, a, &format!("the left operand of `{}`", op.symbol()))?;
    let b = to_bool(ctx, b, &format!("the right operand of `{}`", op.symbol()))?;
    let t = temp_value(ctx, "cond", Type::BOOL, Some(a), span);
    let run_b = if op == BinOp::And {
        t.clone()
    } else {
        mk(
            ExprKind::Unary(UnaryOp::Not, Box::new(t.clone())),
            Type::BOOL,
            span,
        )
    };
    let mut then = b_effects;
    then.push(assign_to(&t, b));
    ctx.pre.push(Stmt {
        kind: StmtKind::If {
            cond: run_b,
            then,
            otherwise: Vec::new(),
        },
        span,
    });
    Ok(t)
}

/// `c ? a : b`. A scalar condition picks one side, so effects inside the sides move under an
/// `if`; a vector condition picks component by component from both, as in Cg.
pub(super) fn ternary(
    ctx: &mut FnCtx<'_>,
    cond: &ast::Expr,
    accept: &ast::Expr,
    reject: &ast::Expr,
    span: Span,
) -> R<Expr> {
    let c = check(ctx, cond);
    let mark = ctx.pre.len();
    let a = check(ctx, accept);
    let a_effects = ctx.pre.split_off(mark);
    let b = check(ctx, reject);
    let b_effects = ctx.pre.split_off(mark);
    let (c, a, b) = (c?, a?, b?);
    if let Some(w @ 2..) = c.ty.width() {
        ctx.pre.extend(a_effects);
        ctx.pre.extend(b_effects);
        return componentwise_select(ctx, w, c, a, b, span);
    }
    let c = to_bool(ctx, c, "the condition of `?:`")?;
    let (a, b) = unify(ctx, a, b, span)?;
    let ty = a.ty.clone();
    if a_effects.is_empty() && b_effects.is_empty() {
        return Ok(mk(
            ExprKind::Select {
                cond: Box::new(c),
                accept: Box::new(a),
                reject: Box::new(b),
            },
            ty,
            span,
        ));
    }
    let t = temp_value(ctx, "choice", ty, None, span);
    let mut then = a_effects;
    then.push(assign_to(&t, a));
    let mut otherwise = b_effects;
    otherwise.push(assign_to(&t, b));
    ctx.pre.push(Stmt {
        kind: StmtKind::If {
            cond: c,
            then,
            otherwise,
        },
        span,
    });
    Ok(t)
}

/// `c ? a : b` with a `boolN` (or numeric vector) condition: the sides are brought to one
/// scalar kind and to width N.
fn componentwise_select(
    ctx: &mut FnCtx<'_>,
    w: u8,
    c: Expr,
    a: Expr,
    b: Expr,
    span: Span,
) -> R<Expr> {
    let c = with_scalar(c, Scalar::Bool);
    let kind = match (a.ty.scalar(), b.ty.scalar()) {
        (Some(x), Some(y)) if x == y => Some(x),
        (Some(_), Some(_)) => Some(Scalar::Float),
        _ => None,
    };
    let fits = |e: &Expr| matches!(e.ty.width(), Some(n) if n == 1 || n == w);
    if let Some(k) = kind.filter(|_| fits(&a) && fits(&b)) {
        let target = Type::Vector(k, w);
        if let (Ok(a), Ok(b)) = (coerce(a.clone(), &target), coerce(b.clone(), &target)) {
            return Ok(mk(
                ExprKind::Select {
                    cond: Box::new(c),
                    accept: Box::new(a),
                    reject: Box::new(b),
                },
                target,
                span,
            ));
        }
    }
    let (tc, ta, tb) = (
        ctx.type_name(&c.ty),
        ctx.type_name(&a.ty),
        ctx.type_name(&b.ty),
    );
    Err(ctx.error(
        Diagnostic::error(
            format!(
                "a `{tc}` condition picks component by component, but the branches are `{ta}` and `{tb}`"
            ),
            span,
        )
        .with_label(a.span, format!("`{ta}`"))
        .with_label(b.span, format!("`{tb}`"))
        .with_hint(format!(
            "give both branches {w} components (or make them scalars), or reduce the condition with `any(…)` or `all(…)`"
        )),
    ))
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

/// The result width of two scalar/vector operands: equal widths, or one of them a scalar.
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

/// Type-checks `a op b` (for `&&`/`||`, once their operands are checked: see `logical`).
pub fn binary(ctx: &mut FnCtx<'_>, op: BinOp, a: Expr, b: Expr, span: Span) -> R<Expr> {
    let iop = op;
    let done =
        |a: Expr, b: Expr, ty: Type| mk(ExprKind::Binary(iop, Box::new(a), Box::new(b)), ty, span);
    match op {
        BinOp::And | BinOp::Or => {
            let vector = a.ty.width().is_some_and(|w| w > 1) || b.ty.width().is_some_and(|w| w > 1);
            if vector && is_scalar_or_vector(&a.ty) && is_scalar_or_vector(&b.ty) {
                let w = widths(ctx, op, &a, &b, span)?;
                let bools = Type::Vector(Scalar::Bool, w);
                return match (coerce(a, &bools), coerce(b, &bools)) {
                    (Ok(a), Ok(b)) => Ok(done(a, b, bools)),
                    (a, b) => {
                        let (a, b) = (a.unwrap_or_else(|e| e), b.unwrap_or_else(|e| e));
                        Err(operand_error(ctx, op, &a, &b, span, ""))
                    }
                };
            }
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
                if am && matches!(b.ty, Type::Scalar(_)) {
                    let ty = a.ty.clone();
                    return Ok(done(a, types::convert_to(b, Type::FLOAT), ty));
                }
                if bm && matches!(a.ty, Type::Scalar(_)) {
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
            if !is_scalar_or_vector(&a.ty) || !is_scalar_or_vector(&b.ty) {
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
            if !is_scalar_or_vector(&a.ty) || !is_scalar_or_vector(&b.ty) {
                return Err(operand_error(ctx, op, &a, &b, span, ""));
            }
            let w = widths(ctx, op, &a, &b, span)?;
            let both_bool =
                a.ty.scalar() == Some(Scalar::Bool) && b.ty.scalar() == Some(Scalar::Bool);
            if both_bool && matches!(op, BinOp::Eq | BinOp::Ne) {
                return Ok(done(a, b, Type::vector(Scalar::Bool, w)));
            }
            let s = promoted_scalar(&a, &b);
            Ok(done(
                with_scalar(a, s),
                with_scalar(b, s),
                Type::vector(Scalar::Bool, w),
            ))
        }
    }
}

/// Brings the two branches of a scalar `?:` to one type.
fn unify(ctx: &mut FnCtx<'_>, a: Expr, b: Expr, span: Span) -> R<(Expr, Expr)> {
    if a.ty == b.ty {
        return Ok((a, b));
    }
    if is_scalar_or_vector(&a.ty) && is_scalar_or_vector(&b.ty) {
        let kind = match (a.ty.scalar(), b.ty.scalar()) {
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

/// The scalar kind two operands meet at: `float` if either is, else `int` (a `bool` counts
/// as an `int`, 0 or 1).
fn promoted_scalar(a: &Expr, b: &Expr) -> Scalar {
    if a.ty.scalar() == Some(Scalar::Float) || b.ty.scalar() == Some(Scalar::Float) {
        Scalar::Float
    } else {
        Scalar::Int
    }
}
