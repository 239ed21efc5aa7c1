//! Questions about IR asked before lowering it.

use brook_core::walk::{any_expr, any_in};
use brook_ir::{Block, Builtin, Expr, ExprKind, Module, StmtKind};

/// Whether evaluating `e` can write a variable or end the element (an `out` argument,
/// `frexp`/`modf`, any helper call): such an expression runs only where C would run it.
pub(crate) fn has_effects(e: &Expr) -> bool {
    any_in(e, &mut |x| {
        matches!(
            x.kind,
            ExprKind::Call(..) | ExprKind::Builtin(Builtin::Frexp | Builtin::Modf, _)
        )
    })
}

/// Whether `block` always ends in `return` (a helper that falls off its end returns nothing,
/// which the interpreter reports when the value is used).
pub(crate) fn always_returns(block: &Block) -> bool {
    match block.last().map(|s| &s.kind) {
        Some(StmtKind::Return(_)) => true,
        Some(StmtKind::Block(b)) => always_returns(b),
        Some(StmtKind::If {
            then, otherwise, ..
        }) => always_returns(then) && always_returns(otherwise),
        _ => false,
    }
}

/// Whether `body`, or a helper it calls, uses `indexof`: the element's multi-dimensional
/// index is then tracked.
pub(crate) fn uses_indexof(module: &Module, body: &Block) -> bool {
    any_expr(body, &mut |e| match &e.kind {
        ExprKind::IndexOf(_) => true,
        ExprKind::Call(f, _) => module
            .functions
            .get(f.0 as usize)
            .is_some_and(|c| uses_indexof(module, &c.body)),
        _ => false,
    })
}
