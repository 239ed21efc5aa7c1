//! Parameters that become locals once a body is checked, so that no back end needs to write
//! an input or read an output:
//! - a value parameter (stream element, iterator value, constant) the body assigns becomes a
//!   local copy initialised from the parameter: pass by value, as in C and Cg. The stream or
//!   constant itself never changes (the papers' read-only inputs);
//! - an `out` parameter the body reads becomes a local that starts at zero, as every output
//!   does, and is copied to the output at every `return` and at the end, so a read gives the
//!   value this element wrote; a `vout` parameter read becomes a local, which `push` reads.

use super::scope::FnCtx;
use brook_ir::visit::{walk_expr, walk_place, VisitMut};
use brook_ir::Span;
use brook_ir::{
    Block, Expr, ExprKind, LocalId, ParamClass, Place, PlaceRoot, Stmt, StmtKind, Type,
};

/// Rewrites `body` so the parameters in `ctx.assigned_values` and `ctx.read_outputs` are
/// locals.
pub fn shadow_params(ctx: &mut FnCtx<'_>, body: &mut Block) {
    let wanted: Vec<u32> = ctx
        .assigned_values
        .iter()
        .chain(&ctx.read_outputs)
        .copied()
        .filter(|&i| !ctx.poisoned_params.contains(&ctx.params[i as usize].name))
        .collect();
    if wanted.is_empty() {
        return;
    }
    let mut map = Vec::new();
    let mut prologue = Vec::new();
    let mut copy_out = Vec::new();
    for i in wanted {
        let p = ctx.params[i as usize].clone();
        let span = p.span;
        let local = ctx.temp(&p.name, p.ty.clone(), span);
        map.push((i, local));
        let param_value = Expr {
            kind: ExprKind::Param(i),
            ty: p.ty.clone(),
            span,
        };
        let init = (!p.class.is_output()).then_some(param_value);
        prologue.push(Stmt {
            kind: StmtKind::Decl { local, init },
            span,
        });
        if p.class == ParamClass::Out {
            copy_out.push(copy(i, local, p.ty, span));
        }
    }
    into_locals(body, &map, prologue, copy_out);
}

/// Rewrites `body` so each parameter of `map` is its local: every use becomes the local,
/// `prologue` (the locals' declarations) comes first, and `copy_out` (the outputs' copies)
/// runs at every `return` and at the end.
pub(super) fn into_locals(
    body: &mut Block,
    map: &[(u32, LocalId)],
    mut prologue: Block,
    copy_out: Block,
) {
    ToLocals {
        map,
        copy_out: &copy_out,
    }
    .block(body);
    let end = body.last().map_or(Span::new(0, 0), |s| s.span);
    prologue.append(body);
    prologue.extend(copy_out.into_iter().map(|s| Stmt { span: end, ..s }));
    *body = prologue;
}

/// `param = local`.
fn copy(param: u32, local: LocalId, ty: Type, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::Assign {
            target: Place {
                root: PlaceRoot::Param(param),
                path: Vec::new(),
                ty: ty.clone(),
            },
            op: None,
            value: Expr {
                kind: ExprKind::Local(local),
                ty,
                span,
            },
        },
        span,
    }
}

/// Reads and writes of the parameters in `map` turned into the locals standing for them,
/// with `copy_out` run before every `return` ([`into_locals`]).
struct ToLocals<'a> {
    pub map: &'a [(u32, LocalId)],
    /// Run before every `return`.
    pub copy_out: &'a [Stmt],
}

impl ToLocals<'_> {
    fn local(&self, param: u32) -> Option<LocalId> {
        self.map.iter().find(|(p, _)| *p == param).map(|(_, l)| *l)
    }
}

impl VisitMut for ToLocals<'_> {
    fn expr(&mut self, e: &mut Expr) {
        if let ExprKind::Param(p) = e.kind {
            if let Some(l) = self.local(p) {
                e.kind = ExprKind::Local(l);
            }
        }
        walk_expr(self, e);
    }

    fn place(&mut self, p: &mut Place) {
        if let PlaceRoot::Param(i) = p.root {
            if let Some(l) = self.local(i) {
                p.root = PlaceRoot::Local(l);
            }
        }
        walk_place(self, p);
    }

    fn block(&mut self, b: &mut Block) {
        let mut out = Vec::with_capacity(b.len());
        for mut s in b.drain(..) {
            self.stmt(&mut s);
            if matches!(s.kind, StmtKind::Return(_)) {
                out.extend(
                    self.copy_out
                        .iter()
                        .cloned()
                        .map(|c| Stmt { span: s.span, ..c }),
                );
            }
            out.push(s);
        }
        *b = out;
    }
}
