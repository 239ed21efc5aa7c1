//! Read-only walks over IR bodies, for what backends and analyses need to know up front.

use brook_ir::{Access, Expr, ExprKind, FunctionId, Module, Stmt, StmtKind};

/// Calls `f` on every expression of `block`, outermost first.
pub fn for_each_expr(block: &[Stmt], f: &mut impl FnMut(&Expr)) {
    for stmt in block {
        match &stmt.kind {
            StmtKind::Decl { init, .. } => init.iter().for_each(|e| expr(e, f)),
            StmtKind::Assign { target, value, .. } => {
                for step in &target.path {
                    if let Access::Index(i) = step {
                        expr(i, f);
                    }
                }
                expr(value, f);
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) | StmtKind::Push { value: e, .. } => {
                expr(e, f)
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                expr(cond, f);
                for_each_expr(then, f);
                for_each_expr(otherwise, f);
            }
            StmtKind::Loop {
                init,
                cond,
                step,
                body,
                ..
            } => {
                for_each_expr(init, f);
                cond.iter().for_each(|e| expr(e, f));
                for_each_expr(step, f);
                for_each_expr(body, f);
            }
            StmtKind::Block(b) => for_each_expr(b, f),
            StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) | StmtKind::Discard => {}
        }
    }
}

/// Calls `f` on `e` and every expression inside it, outermost first.
pub fn expr(e: &Expr, f: &mut impl FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Unary(_, x)
        | ExprKind::Convert(x)
        | ExprKind::Swizzle(x, _)
        | ExprKind::Member(x, _) => expr(x, f),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
            expr(a, f);
            expr(b, f);
        }
        ExprKind::Select {
            cond,
            accept,
            reject,
        } => {
            expr(cond, f);
            expr(accept, f);
            expr(reject, f);
        }
        ExprKind::Construct(xs)
        | ExprKind::Builtin(_, xs)
        | ExprKind::Call(_, xs)
        | ExprKind::Gather { indices: xs, .. } => xs.iter().for_each(|x| expr(x, f)),
        ExprKind::Float(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Local(_)
        | ExprKind::Param(_)
        | ExprKind::IndexOf(_) => {}
    }
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

/// Whether `p` holds for any statement of `block`, nested ones included (the bodies of
/// `if`s, loops, including their init and step, and blocks).
pub fn any_stmt(block: &[Stmt], p: &mut impl FnMut(&Stmt) -> bool) -> bool {
    block.iter().any(|s| {
        p(s) || match &s.kind {
            StmtKind::If {
                then, otherwise, ..
            } => any_stmt(then, p) || any_stmt(otherwise, p),
            StmtKind::Loop {
                init, step, body, ..
            } => any_stmt(init, p) || any_stmt(step, p) || any_stmt(body, p),
            StmtKind::Block(b) => any_stmt(b, p),
            _ => false,
        }
    })
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
