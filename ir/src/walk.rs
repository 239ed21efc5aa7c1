//! Read-only questions about IR bodies, for what backends and analyses need to know up front
//! (which expressions occur, which functions a kernel calls, whether it can `discard`), all
//! asked through [`Visit`], in its order.

use crate::module::{Expr, ExprKind, FunctionId, Module, Stmt, StmtKind};
use crate::visit::{visit_expr, visit_stmt, Visit};

/// Calls a closure on every expression, outermost first.
struct EachExpr<F>(F);

impl<F: FnMut(&Expr)> Visit for EachExpr<F> {
    fn expr(&mut self, e: &Expr) {
        (self.0)(e);
        visit_expr(self, e);
    }
}

/// Calls `f` on every expression of `block`, outermost first.
pub fn for_each_expr(block: &[Stmt], f: &mut impl FnMut(&Expr)) {
    EachExpr(f).block(block);
}

/// Calls `f` on `e` and every expression inside it, outermost first.
pub fn expr(e: &Expr, f: &mut impl FnMut(&Expr)) {
    EachExpr(f).expr(e);
}

/// Whether `p` holds for any expression of `block`; `p` is not asked again once it has held.
pub fn any_expr(block: &[Stmt], p: &mut impl FnMut(&Expr) -> bool) -> bool {
    let mut hit = false;
    for_each_expr(block, &mut |e| hit = hit || p(e));
    hit
}

/// Whether `p` holds for `e` or any expression inside it; `p` is not asked again once it
/// has held.
pub fn any_in(e: &Expr, p: &mut impl FnMut(&Expr) -> bool) -> bool {
    let mut hit = false;
    expr(e, &mut |x| hit = hit || p(x));
    hit
}

/// Asks a predicate of every statement, outermost first, until it holds.
struct AnyStmt<P> {
    p: P,
    hit: bool,
}

impl<P: FnMut(&Stmt) -> bool> Visit for AnyStmt<P> {
    fn stmt(&mut self, s: &Stmt) {
        if !self.hit {
            self.hit = (self.p)(s);
            visit_stmt(self, s);
        }
    }

    /// Statements hold no statements inside their expressions.
    fn expr(&mut self, _: &Expr) {}
}

/// Whether `p` holds for any statement of `block`, nested ones included (the bodies of
/// `if`s, loops, including their init and step, and blocks).
pub fn any_stmt(block: &[Stmt], p: &mut impl FnMut(&Stmt) -> bool) -> bool {
    let mut v = AnyStmt { p, hit: false };
    v.block(block);
    v.hit
}

/// Every function `root` calls, directly or not, callees before callers, without `root`.
pub fn callees(module: &Module, root: FunctionId) -> Vec<FunctionId> {
    let mut order = Vec::new();
    visit_callees(module, root, &mut order, 0);
    order.retain(|f| *f != root);
    order
}

fn visit_callees(module: &Module, f: FunctionId, order: &mut Vec<FunctionId>, depth: usize) {
    // The front end only lets a function call earlier ones, so there is no cycle; the depth
    // bound is a guard against a malformed module, not a limit users meet.
    if order.contains(&f) || depth > module.functions.len() {
        return;
    }
    let mut direct = Vec::new();
    for_each_expr(&module.func(f).body, &mut |e| {
        if let ExprKind::Call(g, _) = e.kind {
            direct.push(g);
        }
    });
    for g in direct {
        visit_callees(module, g, order, depth + 1);
    }
    if !order.contains(&f) {
        order.push(f);
    }
}

/// Whether function `f` can `discard`, itself or through a function it calls: such a kernel
/// leaves the elements it discards unchanged, which fusing or deferring it must respect.
pub fn can_discard(module: &Module, f: FunctionId) -> bool {
    callees(module, f).into_iter().chain([f]).any(|g| {
        any_stmt(&module.func(g).body, &mut |s| {
            matches!(s.kind, StmtKind::Discard)
        })
    })
}
