//! Read-only walks over IR bodies, for the few facts the generator needs up front.

use brook_frontend::ir::{Block, ExprKind, FunctionId, Module};

pub use brook_core::walk::for_each_expr;

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
    brook_core::walk::any_expr(block, &mut |e| matches!(e.kind, ExprKind::IndexOf(_)))
}
