//! Questions about IR asked before lowering it.

use brook_ir::walk::{any_expr, any_in};
use brook_ir::{Block, Builtin, Expr, ExprKind, FunctionId, Module, ParamClass, StmtKind};

/// Whether evaluating `e` can write a variable or end the element (an `out` argument,
/// `frexp`/`modf`, a helper call that is not one formula): such an expression runs only
/// where C would run it.
pub(crate) fn has_effects(module: &Module, e: &Expr) -> bool {
    any_in(e, &mut |x| match &x.kind {
        ExprKind::Builtin(Builtin::Frexp | Builtin::Modf, _) => true,
        ExprKind::Call(f, _) => !is_formula(module, *f),
        _ => false,
    })
}

/// Whether helper `f` is one formula: value parameters, declarations of locals with their
/// values, then `return` of a value, all without effects. A call of it computes a value and
/// nothing else (it cannot discard, write an argument or loop), like the helpers
/// `brook_ir::lower_composites` makes.
pub(crate) fn is_formula(module: &Module, f: FunctionId) -> bool {
    let Some(callee) = module.functions.get(f.0 as usize) else {
        return false;
    };
    let last = callee.body.len().saturating_sub(1);
    callee
        .params
        .iter()
        .all(|p| p.class == ParamClass::Constant)
        && callee.body.iter().enumerate().all(|(i, s)| match &s.kind {
            StmtKind::Decl { init: Some(e), .. } => i < last && !has_effects(module, e),
            StmtKind::Return(Some(e)) => i == last && !has_effects(module, e),
            _ => false,
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
