//! Expressions: the dispatch over expression kinds, names (locals, parameters, constants),
//! literals and `indexof`. Operators, conversions, calls and accesses have modules of their
//! own.

use super::access::{index, member};
use super::assign::assignment_value;
use super::call::call;
use super::construct::{construct, explicit};
use super::items::resolve_type;
use super::operators::{binary, logical, ternary, unary};
use super::scope::{FnCtx, Resolved};
use super::{Reported, R};
use crate::ast::{self, BinOp};
use brook_ir::Diagnostic;
use brook_ir::Span;
use brook_ir::{Expr, ExprKind, ParamClass, Scalar, Type};

pub fn mk(kind: ExprKind, ty: Type, span: Span) -> Expr {
    Expr { kind, ty, span }
}

/// Checks every expression, reporting each error; all of them, or `None` if any failed.
pub fn check_all<'a>(
    ctx: &mut FnCtx<'_>,
    exprs: impl IntoIterator<Item = &'a ast::Expr>,
) -> Option<Vec<Expr>> {
    let mut checked = Vec::new();
    let mut failed = false;
    for e in exprs {
        match check(ctx, e) {
            Ok(e) => checked.push(e),
            Err(_) => failed = true,
        }
    }
    (!failed).then_some(checked)
}

/// The value of a call whose effects were all moved to `ctx.pre` (an inlined `void` kernel):
/// an expression statement drops it, and as an operand it is a `void` the type rules refuse.
pub fn nothing(span: Span) -> Expr {
    mk(ExprKind::Construct(Vec::new()), Type::Void, span)
}

pub fn is_nothing(e: &Expr) -> bool {
    e.ty == Type::Void && matches!(&e.kind, ExprKind::Construct(parts) if parts.is_empty())
}

pub(super) fn class_word(c: ParamClass) -> &'static str {
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

/// [`class_word`] with its article: "an input stream", "a gather array".
pub(super) fn a_class_word(c: ParamClass) -> String {
    let w = class_word(c);
    let vowel = w
        .trim_start_matches('`')
        .starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {w}", if vowel { "an" } else { "a" })
}

/// Reads parameter `i` as a value. Gathers are only read through subscripts; an output read
/// gives the value this element wrote (see `shadow.rs`).
fn read_param(ctx: &mut FnCtx<'_>, i: u32, span: Span) -> R<Expr> {
    let p = &ctx.params[i as usize];
    let (name, class, ty) = (p.name.clone(), p.class, p.ty.clone());
    match class {
        ParamClass::Gather { .. } => Err(ctx.error(
            Diagnostic::error(format!("gather array `{name}` must be indexed"), span)
                .with_label(span, "used without a subscript")
                .with_hint(format!("read one element with `{name}[i]`")),
        )),
        ParamClass::Out | ParamClass::Vout { .. } => {
            ctx.read_outputs.insert(i);
            Ok(mk(ExprKind::Param(i), ty, span))
        }
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
        ast::ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => logical(ctx, *op, a, b, span),
        ast::ExprKind::Binary(op, a, b) => {
            let a = check(ctx, a);
            let b = check(ctx, b);
            binary(ctx, *op, a?, b?, span)
        }
        ast::ExprKind::Assign { op, target, value } => {
            assignment_value(ctx, *op, target, value, span)
        }
        ast::ExprKind::Ternary {
            cond,
            accept,
            reject,
        } => ternary(ctx, cond, accept, reject, span),
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

/// `instance()`, of AMD's Brook+ (for which some of the original's later sample applications
/// were written): the current element's position in the call's output as `int4` (`.x` the
/// column), that is `indexof` of the first `out` stream (else of the first input stream or
/// iterator), converted.
pub(super) fn instance(ctx: &mut FnCtx<'_>, span: Span) -> R<Expr> {
    let of = |wanted: fn(ParamClass) -> bool| ctx.params.iter().position(|p| wanted(p.class));
    let Some(i) = of(|c| c == ParamClass::Out)
        .or_else(|| of(|c| matches!(c, ParamClass::Stream | ParamClass::Iter)))
    else {
        return Err(ctx.error(
            Diagnostic::error("`instance()` needs a kernel with a stream parameter", span)
                .with_label(span, "no current element here")
                .with_hint("`instance()` is the position of the element a kernel computes"),
        ));
    };
    ctx.uses_indexof = true;
    let position = mk(
        ExprKind::IndexOf(i as u32),
        Type::Vector(Scalar::Float, 4),
        span,
    );
    explicit(ctx, position, &Type::Vector(Scalar::Int, 4), span)
}

fn indexof(ctx: &mut FnCtx<'_>, name: &ast::Ident, span: Span) -> R<Expr> {
    match ctx.lookup(&name.name) {
        Resolved::Param(i) => {
            let p = &ctx.params[i as usize];
            match p.class {
                ParamClass::Stream | ParamClass::Out | ParamClass::Iter => {
                    ctx.uses_indexof = true;
                    Ok(mk(
                        ExprKind::IndexOf(i),
                        Type::Vector(Scalar::Float, 4),
                        span,
                    ))
                }
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
