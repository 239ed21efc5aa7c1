//! Walks over checked IR, read-only ([`Visit`]) and mutable ([`VisitMut`]), with one traversal
//! order written once (`visitor!` below generates both): statements in order; an assignment's
//! place (its index expressions) before its value; an `if`'s condition, then its branches; a
//! loop's init, condition, step, then body; an expression before the expressions inside it,
//! left to right.
//!
//! The read-only walk serves what backends and analyses need to know up front (the helpers
//! in [`crate::walk`]); the mutable one the rewrites the checker makes after a body is typed
//! (parameters becoming locals, kernel bodies inlined into their callers), and back ends that
//! rewrite a copy (the CPU JIT's four-lane kernels).
//!
//! Each method has a default that visits the children; an implementation overrides the
//! nodes it rewrites or inspects and calls the matching function to keep descending
//! (`visit_*` for [`Visit`], `walk_*` for [`VisitMut`]).

use crate::module::{Access, Block, Expr, ExprKind, Place, Stmt, StmtKind};

/// A visitor trait and its `walk_*` functions, for one mutability: `$m` is `mut` or nothing,
/// `$block` the type a block is visited as.
macro_rules! visitor {
    (
        $(#[$doc:meta])*
        trait $visit:ident, $walk_expr:ident, $walk_place:ident, $walk_stmt:ident,
        block: $block:ty $(, $m:tt)?
    ) => {
        $(#[$doc])*
        pub trait $visit {
            /// Visits an expression.
            fn expr(&mut self, e: &$($m)? Expr) {
                $walk_expr(self, e);
            }

            /// Visits an assigned place (its index expressions).
            fn place(&mut self, p: &$($m)? Place) {
                $walk_place(self, p);
            }

            /// Visits a statement.
            fn stmt(&mut self, s: &$($m)? Stmt) {
                $walk_stmt(self, s);
            }

            /// Visits each statement of a block.
            fn block(&mut self, b: &$($m)? $block) {
                for s in b {
                    self.stmt(s);
                }
            }
        }

        /// Visits the children of `e`.
        pub fn $walk_expr<V: $visit + ?Sized>(v: &mut V, e: &$($m)? Expr) {
            match &$($m)? e.kind {
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
        pub fn $walk_place<V: $visit + ?Sized>(v: &mut V, p: &$($m)? Place) {
            for step in &$($m)? p.path {
                if let Access::Index(i) = step {
                    v.expr(i);
                }
            }
        }

        /// Visits the expressions, places and blocks of `s`.
        pub fn $walk_stmt<V: $visit + ?Sized>(v: &mut V, s: &$($m)? Stmt) {
            match &$($m)? s.kind {
                StmtKind::Decl { init, .. } => {
                    if let Some(e) = init {
                        v.expr(e);
                    }
                }
                StmtKind::Assign { target, value, .. } => {
                    v.place(target);
                    v.expr(value);
                }
                StmtKind::Expr(e)
                | StmtKind::Push { value: e, .. }
                | StmtKind::Return(Some(e)) => v.expr(e),
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
                StmtKind::Break
                | StmtKind::Continue
                | StmtKind::Return(None)
                | StmtKind::Discard => {}
            }
        }
    };
}

visitor! {
    /// A read-only visitor of IR nodes; each method's default visits the node's children.
    trait Visit, visit_expr, visit_place, visit_stmt, block: [Stmt]
}

visitor! {
    /// A mutable visitor of IR nodes; each method's default visits the node's children.
    trait VisitMut, walk_expr, walk_place, walk_stmt, block: Block, mut
}
