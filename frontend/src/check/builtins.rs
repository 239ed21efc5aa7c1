//! Signatures of the Cg-style built-ins, overloaded by vector width (genType = `float` ..
//! `float4`).
//!
//! What a back end may rely on for a checked `Builtin` call:
//! - int and bool arguments are converted to float (`Convert`), except for `abs`, `sign`, `min`, `max`
//!   and `clamp` when *all* their arguments are ints, which then work on ints;
//! - for the component-wise functions of several arguments (`atan2 fmod pow step ldexp min
//!   max clamp lerp smoothstep`), every argument has the result's width: a scalar argument
//!   given with vector ones is splatted with a one-argument `Construct` (Cg allows the scalar);
//! - `dot`, `length`, `distance` return `float` (a scalar argument of `dot` or `distance`
//!   beside a vector is splatted); `cross` takes and returns `float3`;
//!   `all`/`any` take a `bool`..`bool4` (numbers are converted with `!= 0`) and return `bool`;
//!   `isnan`/`isinf`/`isfinite` return `bool` of the argument's width;
//! - `mul(m, v)` (matrix R×C times `floatC` → `floatR`), `mul(v, m)` (`floatR` times R×C →
//!   `floatC`) and `mul(a, b)` (R×K times K×C → R×C);
//! - `pack_4ubyte` takes a `float4` and returns a `float`; `unpack_4ubyte` takes a `float` and
//!   returns a `float4`;
//! - `frexp(x, e)` and `modf(x, ip)` return `x`'s type and write their second argument, which
//!   must be a local variable (`ExprKind::Local`) of that same `float`..`float4` type: the
//!   exponent, or the integer part rounded toward zero.

use super::items::coerce_or_report;
use super::scope::FnCtx;
use super::types::{convert_to, splat, with_scalar};
use super::{Reported, R};
use brook_ir::Diagnostic;
use brook_ir::Span;
use brook_ir::{Builtin, Expr, ExprKind, Scalar, Type};

fn result(b: Builtin, args: Vec<Expr>, ty: Type, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Builtin(b, args),
        ty,
        span,
    }
}

pub fn check(ctx: &mut FnCtx<'_>, b: Builtin, args: Vec<Expr>, span: Span) -> R<Expr> {
    use Builtin::*;
    let name = b.name();
    let n = b.arity();
    if args.len() != n {
        return Err(ctx.error(
            Diagnostic::error(
                format!(
                    "`{name}` takes {n} argument{} but {} {} given",
                    if n == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
                span,
            )
            .with_label(
                span,
                format!("expected {n} argument{}", if n == 1 { "" } else { "s" }),
            ),
        ));
    }
    if matches!(b, Frexp | Modf) {
        return out_argument(ctx, b, args, span);
    }
    // Every argument except `mul`'s must be a scalar or vector.
    if b != Mul {
        for a in &args {
            if a.ty.width().is_none() {
                let tn = ctx.type_name(&a.ty);
                return Err(ctx.error(
                    Diagnostic::error(format!("`{name}` cannot take a `{tn}`"), a.span)
                        .with_label(a.span, format!("this is `{tn}`"))
                        .with_hint(format!("`{name}` works on `float`..`float4`")),
                ));
            }
        }
    }
    match b {
        All | Any => {
            let a = args.into_iter().next().ok_or(Reported)?;
            let a = with_scalar(a, Scalar::Bool);
            Ok(result(b, vec![a], Type::BOOL, span))
        }
        IsNan | IsInf | IsFinite => {
            let a = float_arg(ctx, name, args.into_iter().next().ok_or(Reported)?)?;
            let w = a.ty.width().unwrap_or(1);
            Ok(result(b, vec![a], Type::vector(Scalar::Bool, w), span))
        }
        Length => {
            let a = float_arg(ctx, name, args.into_iter().next().ok_or(Reported)?)?;
            Ok(result(b, vec![a], Type::FLOAT, span))
        }
        Dot | Distance => {
            let mut it = args.into_iter();
            let x = float_arg(ctx, name, it.next().ok_or(Reported)?)?;
            let y = float_arg(ctx, name, it.next().ok_or(Reported)?)?;
            // A scalar beside a vector is splatted, as Cg promotes it (`dot(v, 1)`).
            let (x, y) = match (x.ty.width(), y.ty.width()) {
                (Some(1), Some(n)) if n > 1 => (splat(x, y.ty.clone()), y),
                (Some(n), Some(1)) if n > 1 => {
                    let ty = x.ty.clone();
                    (x, splat(y, ty))
                }
                _ => (x, y),
            };
            if x.ty != y.ty {
                let (tx, ty) = (ctx.type_name(&x.ty), ctx.type_name(&y.ty));
                return Err(ctx.error(
                    Diagnostic::error(
                        format!(
                            "`{name}` needs two vectors of the same width, found `{tx}` and `{ty}`"
                        ),
                        span,
                    )
                    .with_label(x.span, format!("`{tx}`"))
                    .with_label(y.span, format!("`{ty}`")),
                ));
            }
            Ok(result(b, vec![x, y], Type::FLOAT, span))
        }
        Cross => {
            let f3 = Type::Vector(Scalar::Float, 3);
            let mut out = Vec::new();
            for a in args {
                let a = float_arg(ctx, name, a)?;
                if a.ty != f3 {
                    let tn = ctx.type_name(&a.ty);
                    return Err(ctx.error(
                        Diagnostic::error(
                            format!("`cross` needs `float3` arguments, found `{tn}`"),
                            a.span,
                        )
                        .with_label(a.span, format!("this is `{tn}`")),
                    ));
                }
                out.push(a);
            }
            Ok(result(b, out, f3, span))
        }
        Mul => mul(ctx, args, span),
        Pack4ubyte | Unpack4ubyte => {
            let (from, to) = if b == Pack4ubyte {
                (Type::Vector(Scalar::Float, 4), Type::FLOAT)
            } else {
                (Type::FLOAT, Type::Vector(Scalar::Float, 4))
            };
            let a = args.into_iter().next().ok_or(Reported)?;
            let a = coerce_or_report(ctx, a, &from, &format!("`{name}`"))?;
            Ok(result(b, vec![a], to, span))
        }
        Abs | Sign => {
            let a = args.into_iter().next().ok_or(Reported)?;
            let a = if a.ty.scalar() == Some(Scalar::Int) {
                a
            } else {
                float_arg(ctx, name, a)?
            };
            let ty = a.ty.clone();
            Ok(result(b, vec![a], ty, span))
        }
        Min | Max | Clamp => {
            let all_int = args.iter().all(|a| a.ty.scalar() == Some(Scalar::Int));
            let s = if all_int { Scalar::Int } else { Scalar::Float };
            componentwise(ctx, b, args, s, span)
        }
        Atan2 | Fmod | Pow | Step | Ldexp | Lerp | Smoothstep => {
            componentwise(ctx, b, args, Scalar::Float, span)
        }
        // The one-argument float functions.
        _ => {
            let a = float_arg(ctx, name, args.into_iter().next().ok_or(Reported)?)?;
            let ty = a.ty.clone();
            Ok(result(b, vec![a], ty, span))
        }
    }
}

/// A `float`..`float4` argument (ints and bools converted, as Cg does).
fn float_arg(ctx: &mut FnCtx<'_>, name: &str, a: Expr) -> R<Expr> {
    match a.ty.scalar() {
        Some(_) if a.ty.width().is_some() => Ok(with_scalar(a, Scalar::Float)),
        _ => {
            let tn = ctx.type_name(&a.ty);
            Err(ctx.error(
                Diagnostic::error(format!("`{name}` cannot take a `{tn}`"), a.span)
                    .with_label(a.span, format!("this is `{tn}`"))
                    .with_hint(format!("`{name}` works on `float`..`float4`")),
            ))
        }
    }
}

/// Component-wise functions: all arguments to scalar kind `s` and one common width.
fn componentwise(
    ctx: &mut FnCtx<'_>,
    b: Builtin,
    args: Vec<Expr>,
    s: Scalar,
    span: Span,
) -> R<Expr> {
    let name = b.name();
    let mut conv = Vec::new();
    for a in args {
        conv.push(if s == Scalar::Float {
            float_arg(ctx, name, a)?
        } else {
            a
        });
    }
    let width = conv
        .iter()
        .map(|a| a.ty.width().unwrap_or(1))
        .max()
        .unwrap_or(1);
    if let Some(bad) = conv.iter().find(|a| {
        let w = a.ty.width().unwrap_or(1);
        w != 1 && w != width
    }) {
        let tn = ctx.type_name(&bad.ty);
        let want = ctx.type_name(&Type::vector(s, width));
        return Err(ctx.error(
            Diagnostic::error(
                format!("`{name}` arguments have mismatched widths: `{tn}` with `{want}`"),
                bad.span,
            )
            .with_label(bad.span, format!("this is `{tn}`"))
            .with_hint("give every argument the same width, or use a scalar"),
        ));
    }
    let ty = Type::vector(s, width);
    let out: Vec<Expr> = conv
        .into_iter()
        .map(|a| {
            if a.ty == ty {
                a
            } else {
                splat(convert_to(a, Type::Scalar(s)), ty.clone())
            }
        })
        .collect();
    Ok(result(b, out, ty, span))
}

fn mul(ctx: &mut FnCtx<'_>, args: Vec<Expr>, span: Span) -> R<Expr> {
    let mut it = args.into_iter();
    let (x, y) = (it.next().ok_or(Reported)?, it.next().ok_or(Reported)?);
    let fvec = |e: Expr| {
        if e.ty.width().is_some() && e.ty.scalar() == Some(Scalar::Int) {
            with_scalar(e, Scalar::Float)
        } else {
            e
        }
    };
    let (x, y) = (fvec(x), fvec(y));
    // The catalogue's typing of `mul` (brook_ir::builtin).
    let ty = Builtin::Mul.result_type(&[x.ty.clone(), y.ty.clone()]);
    match ty {
        Some(ty) => Ok(result(Builtin::Mul, vec![x, y], ty, span)),
        None => {
            let (tx, ty) = (ctx.type_name(&x.ty), ctx.type_name(&y.ty));
            Err(ctx.error(
                Diagnostic::error(format!("`mul` cannot multiply `{tx}` by `{ty}`"), span)
                    .with_label(x.span, format!("`{tx}`"))
                    .with_label(y.span, format!("`{ty}`"))
                    .with_hint("`mul` takes (floatRxC, floatC), (floatR, floatRxC) or (floatRxK, floatKxC); use `*` for component-wise products"),
            ))
        }
    }
}

/// `frexp(x, e)` / `modf(x, ip)`: Cg's out-parameter forms. The second argument must be a
/// local variable of `x`'s type, which the call writes.
fn out_argument(ctx: &mut FnCtx<'_>, b: Builtin, mut args: Vec<Expr>, span: Span) -> R<Expr> {
    let name = b.name();
    let out = args.pop().expect("arity checked");
    let x = float_arg(ctx, name, args.pop().expect("arity checked"))?;
    let what = if b == Builtin::Frexp {
        "exponent"
    } else {
        "integer part"
    };
    let tn = ctx.type_name(&x.ty);
    if !matches!(out.kind, ExprKind::Local(_)) || out.ty != x.ty {
        return Err(ctx.error(
            Diagnostic::error(
                format!("the second argument of `{name}` must be a local `{tn}` variable"),
                out.span,
            )
            .with_label(out.span, format!("receives the {what}"))
            .with_hint(format!(
                "declare `{tn} {}` and pass it here",
                if b == Builtin::Frexp { "e" } else { "whole" }
            )),
        ));
    }
    let ty = x.ty.clone();
    Ok(result(b, vec![x, out], ty, span))
}
