//! Casts and constructors: `(T)e`, `T(parts…)`, and values built from initialiser lists.

use super::expr::{check_all, mk};
use super::items::{coerce_or_report, resolve_type};
use super::scope::FnCtx;
use super::types::{self, coerce, with_scalar};
use super::{Reported, R};
use crate::ast;
use brook_ir::Diagnostic;
use brook_ir::Span;
use brook_ir::{Expr, ExprKind, Scalar, Type};

/// A cast or one-argument conversion `(T)e`.
pub(super) fn explicit(ctx: &mut FnCtx<'_>, v: Expr, ty: &Type, span: Span) -> R<Expr> {
    match coerce(v, ty) {
        Ok(mut e) => {
            e.span = span;
            Ok(e)
        }
        Err(v) => {
            let (from, to) = (ctx.type_name(&v.ty), ctx.type_name(ty));
            Err(ctx.error(
                Diagnostic::error(format!("cannot convert `{from}` to `{to}`"), span)
                    .with_label(v.span, format!("this is `{from}`")),
            ))
        }
    }
}

pub(super) fn construct(
    ctx: &mut FnCtx<'_>,
    ts: &ast::TypeSpec,
    args: &[ast::Expr],
    span: Span,
) -> R<Expr> {
    let ty = resolve_type(ctx.g, ts);
    let checked = check_all(ctx, args);
    let ty = ty?;
    build(ctx, &ty, checked.ok_or(Reported)?, span, &ts.name)
}

/// Builds a value of type `ty` from parts (a constructor or an initialiser list).
pub fn build(ctx: &mut FnCtx<'_>, ty: &Type, parts: Vec<Expr>, span: Span, tname: &str) -> R<Expr> {
    match ty {
        Type::Scalar(_) => {
            if parts.len() != 1 {
                return Err(ctx.error(
                    Diagnostic::error(
                        format!(
                            "`{tname}(…)` takes 1 argument but {} were given",
                            parts.len()
                        ),
                        span,
                    )
                    .with_label(span, "expected one value"),
                ));
            }
            let v = parts.into_iter().next().ok_or(Reported)?;
            explicit(ctx, v, ty, span)
        }
        Type::Vector(s, n) => {
            if parts.len() == 1 && parts[0].ty.width().is_some() {
                let v = parts.into_iter().next().ok_or(Reported)?;
                if v.ty.width() == Some(1) || v.ty.width() == Some(*n) {
                    return explicit(ctx, v, ty, span);
                }
                let parts = vec![v];
                return build_components(ctx, ty, parts, *s, u32::from(*n), span, tname);
            }
            build_components(ctx, ty, parts, *s, u32::from(*n), span, tname)
        }
        Type::Matrix { rows, cols } => {
            if parts.len() == 1 && matches!(parts[0].ty, Type::Scalar(Scalar::Float | Scalar::Int))
            {
                let v = parts.into_iter().next().ok_or(Reported)?;
                let v = types::convert_to(v, Type::FLOAT);
                return Ok(mk(ExprKind::Construct(vec![v]), ty.clone(), span));
            }
            if parts.len() == 1 && parts[0].ty == *ty {
                return parts.into_iter().next().ok_or(Reported);
            }
            build_components(
                ctx,
                ty,
                parts,
                Scalar::Float,
                u32::from(rows * cols),
                span,
                tname,
            )
        }
        Type::Struct(id) => {
            let members = ctx.g.module.structs[id.0 as usize].members.clone();
            if parts.len() != members.len() {
                return Err(ctx.error(
                    Diagnostic::error(
                        format!(
                            "`{tname}` has {} members but {} values were given",
                            members.len(),
                            parts.len()
                        ),
                        span,
                    )
                    .with_label(span, format!("expected {} values", members.len())),
                ));
            }
            let mut out = Vec::new();
            for (p, m) in parts.into_iter().zip(&members) {
                out.push(coerce_or_report(
                    ctx,
                    p,
                    &m.ty,
                    &format!("member `{}`", m.name),
                )?);
            }
            Ok(mk(ExprKind::Construct(out), ty.clone(), span))
        }
        Type::Void | Type::Array(..) => {
            let tn = ctx.type_name(ty);
            Err(ctx.error(
                Diagnostic::error(format!("cannot construct a value of type `{tn}`"), span)
                    .with_label(span, "not constructible"),
            ))
        }
    }
}

/// A vector/matrix constructor from scalars and vectors whose components fill it in order.
fn build_components(
    ctx: &mut FnCtx<'_>,
    ty: &Type,
    parts: Vec<Expr>,
    s: Scalar,
    want: u32,
    span: Span,
    tname: &str,
) -> R<Expr> {
    let mut total = 0u32;
    let mut out = Vec::new();
    for p in parts {
        let w = match &p.ty {
            Type::Scalar(_) | Type::Vector(..) => u32::from(p.ty.width().unwrap_or(1)),
            Type::Matrix { rows, cols } if matches!(ty, Type::Matrix { .. }) => {
                u32::from(rows * cols)
            }
            _ => {
                let pn = ctx.type_name(&p.ty);
                return Err(ctx.error(
                    Diagnostic::error(format!("`{tname}(…)` cannot take a `{pn}`"), p.span)
                        .with_label(p.span, format!("this is `{pn}`")),
                ));
            }
        };
        total += w;
        out.push(if matches!(p.ty, Type::Matrix { .. }) {
            p
        } else {
            with_scalar(p, s)
        });
    }
    if total != want {
        return Err(ctx.error(
            Diagnostic::error(
                format!("`{tname}(…)` needs {want} components but {total} were given"),
                span,
            )
            .with_label(span, format!("{total} components")),
        ));
    }
    Ok(mk(ExprKind::Construct(out), ty.clone(), span))
}
