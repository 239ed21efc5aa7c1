//! A kernel called from another kernel, inlined: its body, already checked, is copied into
//! the caller ahead of the calling statement (through `ctx.pre`), with its names bound to the
//! caller's. This is how the original's GPU back end treated such calls (Cg functions with
//! the caller's gathers and `indexof` values passed along), but with nothing new for a back
//! end to support.
//!
//! The binding follows Cg's parameter passing:
//! - a value parameter is the argument's value: the argument expression itself when it is a
//!   plain name (nothing in the callee can change it), else a temporary;
//! - an `out` parameter is a temporary that starts at zero and is copied to the argument's
//!   place when the body ends (copy-out, in parameter order);
//! - a gather parameter is the caller's gather parameter;
//! - `indexof(p)` is `indexof` of the caller's stream parameter passed for `p` (the original
//!   passed that value along too, and refused other arguments);
//! - `return v` sets the call's value and leaves the body (see `jumps.rs`).

use super::expr::{mk, nothing};
use super::jumps::without_returns;
use super::scope::FnCtx;
use super::types::coerce;
use super::R;
use brook_ir::visit::{walk_expr, walk_place, walk_stmt, VisitMut};
use brook_ir::Diagnostic;
use brook_ir::Span;
use brook_ir::{
    Access, Block, Expr, ExprKind, FunctionId, LocalId, ParamClass, Place, PlaceRoot, Stmt,
    StmtKind, Type,
};

/// The most IR nodes a function body may grow to by inlining (kernels calling kernels that
/// call kernels multiply): beyond it the program is refused rather than compiled for ever.
const MAX_INLINED_NODES: usize = 1 << 20;

/// How the caller binds one parameter of the callee.
pub enum Binding {
    /// A stream, iterator or constant parameter: the argument's value (already converted).
    Value(Expr),
    /// An `out` parameter: the place the result is copied to.
    Out(Place),
    /// A gather parameter: the caller's gather parameter.
    Gather(u32),
}

/// What a parameter of the callee becomes in the caller.
enum Subst {
    Expr(Expr),
    Local(LocalId),
    Gather(u32),
}

/// Inlines a call of kernel `id`; the call's value (or [`nothing`] for a `void` kernel).
pub fn inline_kernel(
    ctx: &mut FnCtx<'_>,
    id: FunctionId,
    bindings: Vec<Binding>,
    span: Span,
) -> R<Expr> {
    let callee = ctx.g.module.func(id).clone();
    let mut body = callee.body.clone();
    ctx.inlined_nodes += count_nodes(&mut body);
    if ctx.inlined_nodes > MAX_INLINED_NODES {
        return Err(ctx.error(
            Diagnostic::error(
                format!(
                    "`{}` grows too large by inlining the kernels it calls (more than {MAX_INLINED_NODES} operations)",
                    ctx.name
                ),
                span,
            )
            .with_label(span, "inlined here")
            .with_hint("call fewer kernels from kernels, or split the work into several kernel calls"),
        ));
    }
    let base = ctx.locals.len() as u32;
    for l in &callee.locals {
        ctx.temp(&l.name, l.ty.clone(), span);
    }
    let mut subst = Vec::with_capacity(bindings.len());
    let mut positions = Vec::with_capacity(bindings.len());
    let mut copy_out = Vec::new();
    for (p, b) in callee.params.iter().zip(bindings) {
        positions.push(position_source(ctx, &b));
        subst.push(match b {
            Binding::Value(e) if is_plain(&e) => Subst::Expr(e),
            Binding::Value(e) => Subst::Local(declare(ctx, &p.name, &p.ty, Some(e), span)),
            Binding::Out(place) => {
                let t = declare(ctx, &p.name, &p.ty, None, span);
                copy_out.push((place, t, p.ty.clone()));
                Subst::Local(t)
            }
            Binding::Gather(q) => Subst::Gather(q),
        });
    }
    let ret = (callee.ret != Type::Void).then(|| {
        declare(
            ctx,
            &format!("{}_result", callee.name),
            &callee.ret,
            None,
            span,
        )
    });
    let mut bind = Bind {
        base,
        subst: &subst,
        positions: &positions,
        missing_position: None,
        used_position: false,
    };
    bind.block(&mut body);
    if let Some(i) = bind.missing_position {
        let p = &callee.params[i];
        return Err(ctx.error(
            Diagnostic::error(
                format!(
                    "argument {} of `{}` must be a stream parameter of `{}`, because `{}` uses `indexof({})`",
                    i + 1,
                    callee.name,
                    ctx.name,
                    callee.name,
                    p.name
                ),
                span,
            )
            .with_label(span, "called here")
            .with_hint("pass a stream parameter by name, or pass its `indexof` as a value"),
        ));
    }
    ctx.uses_indexof |= bind.used_position;
    let body = without_returns(ctx, body, ret);
    ctx.pre.extend(body);
    for (place, t, ty) in copy_out {
        let value = match coerce(mk(ExprKind::Local(t), ty, span), &place.ty) {
            Ok(v) => v,
            Err(v) => {
                let (from, to) = (ctx.type_name(&v.ty), ctx.type_name(&place.ty));
                return Err(ctx.error(
                    Diagnostic::error(
                        format!(
                            "`{}` writes a `{from}` to its `out` argument, which is a `{to}`",
                            callee.name
                        ),
                        span,
                    )
                    .with_label(span, "called here"),
                ));
            }
        };
        ctx.pre.push(Stmt {
            kind: StmtKind::Assign {
                target: place,
                op: None,
                value,
            },
            span,
        });
    }
    Ok(match ret {
        Some(r) => mk(ExprKind::Local(r), callee.ret, span),
        None => nothing(span),
    })
}

/// A temporary of the caller, declared (and initialised) in `ctx.pre`.
fn declare(ctx: &mut FnCtx<'_>, name: &str, ty: &Type, init: Option<Expr>, span: Span) -> LocalId {
    let t = ctx.temp(name, ty.clone(), span);
    ctx.pre.push(Stmt {
        kind: StmtKind::Decl { local: t, init },
        span,
    });
    t
}

/// An argument the callee may read any number of times in its place: a name, a literal, or a
/// part of one.
pub(super) fn is_plain(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Float(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Local(_)
        | ExprKind::Param(_)
        | ExprKind::IndexOf(_) => true,
        ExprKind::Swizzle(a, _) | ExprKind::Member(a, _) => is_plain(a),
        _ => false,
    }
}

/// The caller's stream parameter whose `indexof` a parameter bound by `b` has.
fn position_source(ctx: &FnCtx<'_>, b: &Binding) -> Option<u32> {
    // A member or components of a stream's element are at the element's position.
    fn root(e: &Expr) -> Option<u32> {
        match &e.kind {
            ExprKind::Param(q) => Some(*q),
            ExprKind::Swizzle(a, _) | ExprKind::Member(a, _) => root(a),
            _ => None,
        }
    }
    let q = match b {
        Binding::Value(e) => root(e)?,
        Binding::Out(Place {
            root: PlaceRoot::Param(q),
            path,
            ..
        }) if path
            .iter()
            .all(|a| matches!(a, Access::Member(_) | Access::Swizzle(_))) =>
        {
            *q
        }
        _ => return None,
    };
    matches!(
        ctx.params[q as usize].class,
        ParamClass::Stream | ParamClass::Out | ParamClass::Iter
    )
    .then_some(q)
}

/// Rebinds an inlined body's names to the caller's.
struct Bind<'a> {
    /// The callee's locals start here among the caller's.
    base: u32,
    subst: &'a [Subst],
    positions: &'a [Option<u32>],
    /// A parameter whose `indexof` is used but has no stream behind it.
    missing_position: Option<usize>,
    used_position: bool,
}

impl VisitMut for Bind<'_> {
    fn expr(&mut self, e: &mut Expr) {
        match &mut e.kind {
            ExprKind::Local(l) => l.0 += self.base,
            ExprKind::Param(p) => match &self.subst[*p as usize] {
                Subst::Expr(x) => {
                    e.kind = x.kind.clone();
                    return;
                }
                Subst::Local(l) => e.kind = ExprKind::Local(*l),
                Subst::Gather(_) => {}
            },
            ExprKind::Gather { param, .. } => {
                if let Subst::Gather(q) = self.subst[*param as usize] {
                    *param = q;
                }
            }
            ExprKind::IndexOf(p) => match self.positions[*p as usize] {
                Some(q) => {
                    *p = q;
                    self.used_position = true;
                }
                None => {
                    self.missing_position.get_or_insert(*p as usize);
                }
            },
            _ => {}
        }
        walk_expr(self, e);
    }

    fn place(&mut self, p: &mut Place) {
        match &mut p.root {
            PlaceRoot::Local(l) => l.0 += self.base,
            PlaceRoot::Param(i) => {
                // Only outputs are written: assigned value parameters are locals already
                // (see `shadow.rs`), and gathers are read-only.
                if let Subst::Local(l) = self.subst[*i as usize] {
                    p.root = PlaceRoot::Local(l);
                }
            }
        }
        walk_place(self, p);
    }

    fn stmt(&mut self, s: &mut Stmt) {
        if let StmtKind::Decl { local, .. } = &mut s.kind {
            local.0 += self.base;
        }
        walk_stmt(self, s);
    }
}

/// The statements and expressions of a body, to bound how much inlining may add.
fn count_nodes(b: &mut Block) -> usize {
    struct Count(usize);
    impl VisitMut for Count {
        fn expr(&mut self, e: &mut Expr) {
            self.0 += 1;
            walk_expr(self, e);
        }
        fn stmt(&mut self, s: &mut Stmt) {
            self.0 += 1;
            walk_stmt(self, s);
        }
    }
    let mut c = Count(0);
    c.block(b);
    c.0
}
