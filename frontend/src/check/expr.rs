//! Expressions: name resolution, typing, operator rules, swizzles, gathers, calls and
//! constructors.

use super::items::{coerce_or_report, resolve_type};
use super::scope::{FnCtx, Resolved};
use super::types::{self, cast, coerce, fold_int, is_numeric, with_scalar};
use super::{builtins, names, Reported, R};
use crate::ast::{self, BinOp, UnOp};
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Builtin, Expr, ExprKind, ParamClass, Scalar, Type, UnaryOp};
use crate::span::Span;

pub fn mk(kind: ExprKind, ty: Type, span: Span) -> Expr {
    Expr { kind, ty, span }
}

/// Parses a swizzle (`xyzw` or `rgba`, not mixed, 1..4 letters) into component indices.
pub fn parse_swizzle(name: &str) -> Option<Vec<u8>> {
    if name.is_empty() || name.len() > 4 {
        return None;
    }
    for set in ["xyzw", "rgba"] {
        let comps: Option<Vec<u8>> = name.chars().map(|c| set.find(c).map(|i| i as u8)).collect();
        if comps.is_some() {
            return comps;
        }
    }
    None
}

fn class_word(c: ParamClass) -> &'static str {
    match c {
        ParamClass::Stream => "input stream",
        ParamClass::Out => "`out` stream",
        ParamClass::Gather { .. } => "gather array",
        ParamClass::Constant => "constant parameter",
        ParamClass::Iter => "iterator",
        ParamClass::Reduce => "`reduce` parameter",
        ParamClass::Vout { .. } => "`vout` stream",
    }
}

/// Reads parameter `i` as a value, enforcing write-only outputs and indexed-only gathers.
fn read_param(ctx: &mut FnCtx<'_>, i: u32, span: Span) -> R<Expr> {
    let p = &ctx.params[i as usize];
    let (name, class, ty) = (p.name.clone(), p.class, p.ty.clone());
    match class {
        ParamClass::Out | ParamClass::Vout { .. } => Err(ctx.error(
            Diagnostic::error(
                format!(
                    "cannot read {} `{name}`: outputs are write-only",
                    class_word(class)
                ),
                span,
            )
            .with_label(span, "read here")
            .with_hint(format!(
                "compute the value in a local variable, then assign it to `{name}`"
            )),
        )),
        ParamClass::Gather { .. } => Err(ctx.error(
            Diagnostic::error(format!("gather array `{name}` must be indexed"), span)
                .with_label(span, "used without a subscript")
                .with_hint(format!("read one element with `{name}[i]`")),
        )),
        _ => Ok(mk(ExprKind::Param(i), ty, span)),
    }
}

pub fn check(ctx: &mut FnCtx<'_>, e: &ast::Expr) -> R<Expr> {
    let span = e.span;
    match &e.kind {
        ast::ExprKind::Ident(name) => match ctx.lookup(name) {
            Resolved::Local(id) => {
                let ty = ctx.locals[id.0 as usize].ty.clone();
                Ok(mk(ExprKind::Local(id), ty, span))
            }
            Resolved::Param(i) => read_param(ctx, i, span),
            Resolved::Const(mut c) => {
                c.span = span;
                Ok(c)
            }
            Resolved::Poisoned => Err(Reported),
            Resolved::Unknown => Err(ctx.unknown_ident(name, span)),
        },
        ast::ExprKind::Float(v) => {
            let f = *v as f32;
            if f.is_infinite() {
                return Err(ctx.error(
                    Diagnostic::error("float literal out of range", span)
                        .with_label(span, "does not fit in a 32-bit float"),
                ));
            }
            Ok(mk(ExprKind::Float(f), Type::FLOAT, span))
        }
        ast::ExprKind::Int(v) => match i32::try_from(*v) {
            Ok(i) => Ok(mk(ExprKind::Int(i), Type::INT, span)),
            Err(_) => Err(ctx.error(
                Diagnostic::error(format!("integer literal {v} is too large"), span)
                    .with_label(span, "does not fit in a 32-bit int")
                    .with_hint(format!("write it as a float literal: `{v}.0`")),
            )),
        },
        ast::ExprKind::Bool(b) => Ok(mk(ExprKind::Bool(*b), Type::BOOL, span)),
        ast::ExprKind::Unary(op, a) => unary(ctx, *op, a, span),
        ast::ExprKind::Binary(op, a, b) => {
            let a = check(ctx, a);
            let b = check(ctx, b);
            binary(ctx, *op, a?, b?, span)
        }
        ast::ExprKind::Assign { .. } => Err(ctx.error(
            Diagnostic::error("an assignment cannot be used as a value", span)
                .with_label(span, "assignment inside an expression")
                .with_hint("assign in a separate statement"),
        )),
        ast::ExprKind::Ternary {
            cond,
            accept,
            reject,
        } => {
            let c = check(ctx, cond).and_then(|c| to_bool(ctx, c, "the condition of `?:`"));
            let a = check(ctx, accept);
            let b = check(ctx, reject);
            let (c, a, b) = (c?, a?, b?);
            let (a, b) = unify(ctx, a, b, span)?;
            let ty = a.ty.clone();
            Ok(mk(
                ExprKind::Select {
                    cond: Box::new(c),
                    accept: Box::new(a),
                    reject: Box::new(b),
                },
                ty,
                span,
            ))
        }
        ast::ExprKind::Cast(ts, inner) => {
            let ty = resolve_type(ctx.g, ts);
            let v = check(ctx, inner);
            let (ty, v) = (ty?, v?);
            explicit(ctx, v, &ty, span)
        }
        ast::ExprKind::Construct(ts, args) => construct(ctx, ts, args, span),
        ast::ExprKind::Call(name, args) => call(ctx, name, args, span),
        ast::ExprKind::Member(base, m) => {
            let b = check(ctx, base)?;
            member(ctx, b, m, span)
        }
        ast::ExprKind::Index(..) => index(ctx, e),
        ast::ExprKind::IndexOf(name) => indexof(ctx, name, span),
        ast::ExprKind::Push(_) => Err(ctx.error(
            Diagnostic::error("`push` can only be used as a statement", span)
                .with_label(span, "used as a value")
                .with_hint("write `push(x);` on its own line"),
        )),
    }
}

fn indexof(ctx: &mut FnCtx<'_>, name: &ast::Ident, span: Span) -> R<Expr> {
    match ctx.lookup(&name.name) {
        Resolved::Param(i) => {
            let p = &ctx.params[i as usize];
            match p.class {
                ParamClass::Stream | ParamClass::Out | ParamClass::Iter => Ok(mk(
                    ExprKind::IndexOf(i),
                    Type::Vector(Scalar::Float, 4),
                    span,
                )),
                c => {
                    let msg = format!(
                        "`indexof` needs an input, output or iterator stream, but `{}` is a {}",
                        name.name,
                        class_word(c)
                    );
                    let hint = match c {
                        ParamClass::Gather { .. } => Some(
                            "a gather has no current element; use `indexof` on a stream parameter"
                                .to_string(),
                        ),
                        _ => None,
                    };
                    Err(ctx.error(
                        Diagnostic::error(msg, name.span)
                            .with_label(name.span, "not a stream")
                            .with_hint_opt(hint),
                    ))
                }
            }
        }
        Resolved::Local(_) | Resolved::Const(_) => Err(ctx.error(
            Diagnostic::error(
                format!(
                    "`indexof` needs a stream parameter, but `{}` is a variable",
                    name.name
                ),
                name.span,
            )
            .with_label(name.span, "not a stream"),
        )),
        Resolved::Poisoned => Err(Reported),
        Resolved::Unknown => Err(ctx.unknown_ident(&name.name, name.span)),
    }
}

fn unary(ctx: &mut FnCtx<'_>, op: UnOp, a: &ast::Expr, span: Span) -> R<Expr> {
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
fn unify(ctx: &mut FnCtx<'_>, a: Expr, b: Expr, span: Span) -> R<(Expr, Expr)> {
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

/// A cast or one-argument conversion `(T)e`.
fn explicit(ctx: &mut FnCtx<'_>, v: Expr, ty: &Type, span: Span) -> R<Expr> {
    match cast(v, ty) {
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

fn construct(ctx: &mut FnCtx<'_>, ts: &ast::TypeSpec, args: &[ast::Expr], span: Span) -> R<Expr> {
    let ty = resolve_type(ctx.g, ts);
    let mut checked = Vec::new();
    let mut failed = false;
    for a in args {
        match check(ctx, a) {
            Ok(e) => checked.push(e),
            Err(_) => failed = true,
        }
    }
    let ty = ty?;
    if failed {
        return Err(Reported);
    }
    build(ctx, &ty, checked, span, &ts.name)
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

fn call(ctx: &mut FnCtx<'_>, name: &ast::Ident, args: &[ast::Expr], span: Span) -> R<Expr> {
    let mut checked = Vec::new();
    let mut failed = false;
    for a in args {
        match check(ctx, a) {
            Ok(e) => checked.push(e),
            Err(_) => failed = true,
        }
    }
    let fname = &name.name;
    if ctx.kind.is_some() && *fname == ctx.name {
        return Err(ctx.error(
            Diagnostic::error(
                format!("recursive call to `{fname}` is not supported"),
                name.span,
            )
            .with_label(name.span, "calls the function being defined")
            .with_hint("GPU kernels cannot recurse; rewrite it with a loop"),
        ));
    }
    if let Some(&id) = ctx.g.functions.get(fname) {
        if ctx.g.poisoned_fns.contains(fname) || failed {
            return Err(Reported);
        }
        let callee = &ctx.g.module.functions[id.0 as usize];
        let (params, ret, kind) = (callee.params.clone(), callee.ret.clone(), callee.kind);
        if kind != ir::FunctionKind::Helper {
            if let Some(p) = params
                .iter()
                .find(|p| !matches!(p.class, ParamClass::Stream | ParamClass::Constant))
            {
                let what = if kind == ir::FunctionKind::Reduce {
                    "reduce function"
                } else {
                    "kernel"
                };
                return Err(ctx.error(
                    Diagnostic::error(
                        format!("cannot call {what} `{fname}` here: its parameter `{}` is a {}", p.name, class_word(p.class)),
                        span,
                    )
                    .with_label(name.span, "called from a kernel body")
                    .with_hint("only kernels whose parameters are all input values can be called like functions"),
                ));
            }
        }
        if checked.len() != params.len() {
            return Err(ctx.error(
                Diagnostic::error(
                    format!(
                        "`{fname}` takes {} argument{} but {} {} given",
                        params.len(),
                        if params.len() == 1 { "" } else { "s" },
                        checked.len(),
                        if checked.len() == 1 { "was" } else { "were" }
                    ),
                    span,
                )
                .with_label(
                    span,
                    format!(
                        "expected {} argument{}",
                        params.len(),
                        if params.len() == 1 { "" } else { "s" }
                    ),
                ),
            ));
        }
        let mut out = Vec::new();
        let mut bad = false;
        for (i, (a, p)) in checked.into_iter().zip(&params).enumerate() {
            match coerce_or_report(ctx, a, &p.ty, &format!("argument {} of `{fname}`", i + 1)) {
                Ok(e) => out.push(e),
                Err(_) => bad = true,
            }
        }
        if bad {
            return Err(Reported);
        }
        return Ok(mk(ExprKind::Call(id, out), ret, span));
    }
    if let Some(b) = Builtin::from_name(fname) {
        if failed {
            return Err(Reported);
        }
        return builtins::check(ctx, b, checked, span);
    }
    if failed {
        return Err(Reported);
    }
    let mut candidates: Vec<&str> = Builtin::ALL.iter().map(|(_, n)| *n).collect();
    let user: Vec<String> = ctx.g.functions.keys().cloned().collect();
    candidates.extend(user.iter().map(String::as_str));
    let mut hint = names::suggest(fname, candidates).map(|s| format!("did you mean `{s}`?"));
    if hint.is_none() && types::builtin_type(fname).is_none() {
        if let Some(t) = names::suggest_type(fname) {
            hint = Some(format!("did you mean the constructor `{t}(…)`?"));
        }
    }
    if hint.is_none() && ctx.g.types.contains_key(fname) {
        hint = Some(format!("`{fname}` is a type"));
    }
    Err(ctx.error(
        Diagnostic::error(format!("unknown function `{fname}`"), name.span)
            .with_label(
                name.span,
                "no function with this name is declared before here",
            )
            .with_hint_opt(hint),
    ))
}

/// `.name` on a value: a struct member or a swizzle.
pub fn member(ctx: &mut FnCtx<'_>, b: Expr, m: &ast::Ident, span: Span) -> R<Expr> {
    match &b.ty {
        Type::Struct(id) => {
            let sd = &ctx.g.module.structs[id.0 as usize];
            match sd.members.iter().position(|x| x.name == m.name) {
                Some(i) => {
                    let ty = sd.members[i].ty.clone();
                    Ok(mk(ExprKind::Member(Box::new(b), i as u32), ty, span))
                }
                None => {
                    let sname = sd.name.clone();
                    let hint = names::suggest(&m.name, sd.members.iter().map(|x| x.name.as_str()))
                        .map(|s| format!("did you mean `{s}`?"));
                    Err(ctx.error(
                        Diagnostic::error(
                            format!("struct `{sname}` has no member `{}`", m.name),
                            m.span,
                        )
                        .with_label(m.span, "unknown member")
                        .with_hint_opt(hint),
                    ))
                }
            }
        }
        Type::Scalar(s) | Type::Vector(s, _) => {
            let s = *s;
            let comps = swizzle(ctx, &b.ty, m, false)?;
            let ty = Type::vector(s, comps.len() as u8);
            Ok(mk(ExprKind::Swizzle(Box::new(b), comps), ty, span))
        }
        _ => {
            let tn = ctx.type_name(&b.ty);
            Err(ctx.error(
                Diagnostic::error(format!("`{tn}` has no member `{}`", m.name), m.span)
                    .with_label(b.span, format!("this is `{tn}`")),
            ))
        }
    }
}

/// Validates swizzle `m` on a value of type `ty`; `write` also forbids repeated components.
pub fn swizzle(ctx: &mut FnCtx<'_>, ty: &Type, m: &ast::Ident, write: bool) -> R<Vec<u8>> {
    let tn = ctx.type_name(ty);
    let Some(comps) = parse_swizzle(&m.name) else {
        return Err(ctx.error(
            Diagnostic::error(format!("invalid swizzle `.{}` on `{tn}`", m.name), m.span)
                .with_label(m.span, "not a swizzle")
                .with_hint("a swizzle is 1 to 4 of `xyzw` (or of `rgba`)"),
        ));
    };
    let width = ty.width().unwrap_or(1);
    if let Some(&c) = comps.iter().find(|&&c| c >= width) {
        let letter = m
            .name
            .chars()
            .nth(comps.iter().position(|&x| x == c).unwrap_or(0))
            .unwrap_or('?');
        return Err(ctx.error(
            Diagnostic::error(
                format!("swizzle `.{}` reads component `{letter}`, beyond the {width} component{} of `{tn}`", m.name, if width == 1 { "" } else { "s" }),
                m.span,
            )
            .with_label(m.span, "component out of range"),
        ));
    }
    if write {
        for (i, c) in comps.iter().enumerate() {
            if comps[..i].contains(c) {
                return Err(ctx.error(
                    Diagnostic::error(
                        format!("write mask `.{}` names a component twice", m.name),
                        m.span,
                    )
                    .with_label(m.span, "repeated component")
                    .with_hint("each component can be written once per assignment"),
                ));
            }
        }
    }
    Ok(comps)
}

/// Checks an index (of a local array, vector or matrix) as an `int` scalar.
pub fn index_value(ctx: &mut FnCtx<'_>, i: Expr, extent: Option<u32>) -> R<Expr> {
    let i = match &i.ty {
        Type::Scalar(Scalar::Int) => i,
        Type::Scalar(Scalar::Float) => types::convert_to(i, Type::INT),
        _ => {
            let tn = ctx.type_name(&i.ty);
            return Err(ctx.error(
                Diagnostic::error(
                    format!("an index must be an `int` scalar, found `{tn}`"),
                    i.span,
                )
                .with_label(i.span, format!("this is `{tn}`")),
            ));
        }
    };
    if let (Some(n), Some(v)) = (extent, fold_int(&i)) {
        if v < 0 || v >= i64::from(n) {
            return Err(ctx.error(
                Diagnostic::error(
                    format!("index {v} is out of bounds (the extent is {n})"),
                    i.span,
                )
                .with_label(i.span, format!("must be in 0..{n}")),
            ));
        }
    }
    Ok(i)
}

/// What `[i]` applies to: its element type and extent, if indexable.
pub fn indexable(ty: &Type) -> Option<(Type, u32)> {
    match ty {
        Type::Array(e, n) => Some(((**e).clone(), *n)),
        Type::Vector(s, n) => Some((Type::Scalar(*s), u32::from(*n))),
        Type::Matrix { rows, cols } => Some((Type::Vector(Scalar::Float, *cols), u32::from(*rows))),
        _ => None,
    }
}

/// Walks `a[i][j]…` down to its root; returns the root and the subscripts in source order.
pub fn index_chain(e: &ast::Expr) -> (&ast::Expr, Vec<&ast::Expr>) {
    let mut subs = Vec::new();
    let mut cur = e;
    while let ast::ExprKind::Index(base, i) = &cur.kind {
        subs.push(i.as_ref());
        cur = base;
    }
    subs.reverse();
    (cur, subs)
}

fn index(ctx: &mut FnCtx<'_>, e: &ast::Expr) -> R<Expr> {
    let (root, subs) = index_chain(e);
    if let ast::ExprKind::Ident(name) = &root.kind {
        if let Resolved::Param(p) = ctx.lookup(name) {
            let param = &ctx.params[p as usize];
            let (class, ty, pname) = (param.class, param.ty.clone(), param.name.clone());
            match class {
                ParamClass::Gather { rank } => {
                    return gather(ctx, p, rank, ty, &pname, &subs, e.span)
                }
                ParamClass::Stream
                | ParamClass::Iter
                | ParamClass::Out
                | ParamClass::Vout { .. }
                    if !matches!(ty, Type::Array(..) | Type::Vector(..) | Type::Matrix { .. }) =>
                {
                    return Err(ctx.error(
                        Diagnostic::error(
                            format!("{} `{pname}` cannot be indexed", class_word(class)),
                            root.span,
                        )
                        .with_label(root.span, "not a gather array")
                        .with_hint(format!(
                            "a stream parameter is the current element; declare it as `{} {pname}[]` to gather",
                            ctx.type_name(&ty)
                        )),
                    ));
                }
                _ => {}
            }
        }
    }
    let ast::ExprKind::Index(base, i) = &e.kind else {
        return Err(Reported);
    };
    let b = check(ctx, base);
    let i = check(ctx, i);
    let (b, i) = (b?, i?);
    let Some((elem, n)) = indexable(&b.ty) else {
        let tn = ctx.type_name(&b.ty);
        return Err(ctx.error(
            Diagnostic::error(format!("`{tn}` cannot be indexed"), b.span)
                .with_label(b.span, format!("this is `{tn}`")),
        ));
    };
    let i = index_value(ctx, i, Some(n))?;
    Ok(mk(ExprKind::Index(Box::new(b), Box::new(i)), elem, e.span))
}

fn gather(
    ctx: &mut FnCtx<'_>,
    p: u32,
    rank: u8,
    ty: Type,
    pname: &str,
    subs: &[&ast::Expr],
    span: Span,
) -> R<Expr> {
    if subs.len() > usize::from(rank) {
        return Err(ctx.error(
            Diagnostic::error(
                format!(
                    "too many subscripts for gather `{pname}`: it has {rank} dimension{} but {} subscripts are given",
                    if rank == 1 { "" } else { "s" },
                    subs.len()
                ),
                span,
            )
            .with_label(subs[usize::from(rank)].span, "extra subscript"),
        ));
    }
    let mut indices = Vec::new();
    let mut failed = false;
    for s in subs {
        match check(ctx, s) {
            Ok(i) => indices.push(i),
            Err(_) => failed = true,
        }
    }
    if failed {
        return Err(Reported);
    }
    for i in &indices {
        let ok = match &i.ty {
            Type::Scalar(Scalar::Float | Scalar::Int) => true,
            Type::Vector(Scalar::Float | Scalar::Int, _) => subs.len() == 1,
            _ => false,
        };
        if !ok {
            let tn = ctx.type_name(&i.ty);
            let hint = if matches!(i.ty, Type::Vector(..)) {
                "a vector index must be the only subscript (`a[v]` with `.x` the column)"
            } else {
                "a gather index is a `float` or `int`, or one `float2`..`float4` vector"
            };
            return Err(ctx.error(
                Diagnostic::error(format!("invalid gather index of type `{tn}`"), i.span)
                    .with_label(i.span, format!("this is `{tn}`"))
                    .with_hint(hint),
            ));
        }
    }
    Ok(mk(ExprKind::Gather { param: p, indices }, ty, span))
}

/// The scalar kind two numeric operands meet at: `float` if either is, else `int`.
fn promoted_scalar(a: &Expr, b: &Expr) -> Scalar {
    if a.ty.scalar() == Some(Scalar::Float) || b.ty.scalar() == Some(Scalar::Float) {
        Scalar::Float
    } else {
        Scalar::Int
    }
}
