//! Read-only walks over IR bodies, for the few facts the generator needs up front.

use brook_frontend::ir::{Access, Block, Expr, ExprKind, FunctionId, Module, Stmt, StmtKind};

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

/// Every function `root` calls, directly or not, callees before callers, without `root`.
pub fn callees(module: &Module, root: FunctionId) -> Vec<FunctionId> {
    let mut order = Vec::new();
    visit(module, root, &mut order, 0);
    order.retain(|f| *f != root);
    order
}

fn visit(module: &Module, f: FunctionId, order: &mut Vec<FunctionId>, depth: usize) {
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
        visit(module, g, order, depth + 1);
    }
    if !order.contains(&f) {
        order.push(f);
    }
}

/// Whether `block` uses `indexof`.
pub fn uses_indexof(block: &Block) -> bool {
    let mut found = false;
    for_each_expr(block, &mut |e| {
        found |= matches!(e.kind, ExprKind::IndexOf(_))
    });
    found
}
