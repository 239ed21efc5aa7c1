//! A mutable walk over checked IR, for the rewrites the checker makes after a body is typed
//! (parameters becoming locals, kernel bodies inlined into their callers), and for back ends
//! that rewrite or inspect a copy (the CPU JIT's four-lane kernels).
//!
//! Each method has a default that visits the children; an implementation overrides the
//! nodes it rewrites and calls the matching `walk_*` function to keep descending.

use crate::module::{Access, Block, Expr, ExprKind, Place, Stmt, StmtKind};

/// A visitor of IR nodes; each method's default visits the node's children.
pub trait VisitMut {
    /// Visits an expression.
    fn expr(&mut self, e: &mut Expr) {
        walk_expr(self, e);
    }

    /// Visits an assigned place (its index expressions).
    fn place(&mut self, p: &mut Place) {
        walk_place(self, p);
    }

    /// Visits a statement.
    fn stmt(&mut self, s: &mut Stmt) {
        walk_stmt(self, s);
    }

    /// Visits each statement of a block.
    fn block(&mut self, b: &mut Block) {
        for s in b {
            self.stmt(s);
        }
    }
}

/// Visits the children of `e`.
pub fn walk_expr<V: VisitMut + ?Sized>(v: &mut V, e: &mut Expr) {
    match &mut e.kind {
        ExprKind::Float(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Local(_)
        | ExprKind::Param(_)
        | ExprKind::IndexOf(_) => {}
        ExprKind::Unary(_, a)
        | ExprKind::Convert(a)
        | ExprKind::Swizzle(a, _)
        | ExprKind::Member(a, _) => v.expr(a),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
            v.expr(a);
            v.expr(b);
        }
        ExprKind::Select {
            cond,
            accept,
            reject,
        } => {
            v.expr(cond);
            v.expr(accept);
            v.expr(reject);
        }
        ExprKind::Construct(parts)
        | ExprKind::Builtin(_, parts)
        | ExprKind::Call(_, parts)
        | ExprKind::Gather { indices: parts, .. } => {
            for p in parts {
                v.expr(p);
            }
        }
    }
}

/// Visits the index expressions of `p`'s path.
pub fn walk_place<V: VisitMut + ?Sized>(v: &mut V, p: &mut Place) {
    for step in &mut p.path {
        if let Access::Index(i) = step {
            v.expr(i);
        }
    }
}

/// Visits the expressions, places and blocks of `s`.
pub fn walk_stmt<V: VisitMut + ?Sized>(v: &mut V, s: &mut Stmt) {
    match &mut s.kind {
        StmtKind::Decl { init, .. } => {
            if let Some(e) = init {
                v.expr(e);
            }
        }
        StmtKind::Assign { target, value, .. } => {
            v.place(target);
            v.expr(value);
        }
        StmtKind::Expr(e) | StmtKind::Push { value: e, .. } | StmtKind::Return(Some(e)) => {
            v.expr(e)
        }
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => {
            v.expr(cond);
            v.block(then);
            v.block(otherwise);
        }
        StmtKind::Loop {
            init,
            cond,
            step,
            body,
            ..
        } => {
            v.block(init);
            if let Some(c) = cond {
                v.expr(c);
            }
            v.block(step);
            v.block(body);
        }
        StmtKind::Block(b) => v.block(b),
        StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) | StmtKind::Discard => {}
    }
}
