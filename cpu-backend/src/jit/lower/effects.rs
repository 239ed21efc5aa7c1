//! Questions about IR asked before lowering it.

use brook_frontend::ir::{Access, Block, Builtin, Expr, ExprKind, Module, StmtKind};

/// Whether `p` holds for `e` or any expression inside it.
fn any_in(e: &Expr, p: &mut impl FnMut(&Expr) -> bool) -> bool {
    if p(e) {
        return true;
    }
    match &e.kind {
        ExprKind::Float(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Local(_)
        | ExprKind::Param(_)
        | ExprKind::IndexOf(_) => false,
        ExprKind::Unary(_, a)
        | ExprKind::Convert(a)
        | ExprKind::Swizzle(a, _)
        | ExprKind::Member(a, _) => any_in(a, p),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => any_in(a, p) || any_in(b, p),
        ExprKind::Select {
            cond,
            accept,
            reject,
        } => any_in(cond, p) || any_in(accept, p) || any_in(reject, p),
        ExprKind::Construct(xs)
        | ExprKind::Builtin(_, xs)
        | ExprKind::Call(_, xs)
        | ExprKind::Gather { indices: xs, .. } => xs.iter().any(|x| any_in(x, p)),
    }
}

/// Whether `p` holds for any expression of `block`.
fn any_in_block(block: &Block, p: &mut impl FnMut(&Expr) -> bool) -> bool {
    block.iter().any(|s| match &s.kind {
        StmtKind::Decl { init, .. } => init.as_ref().is_some_and(|e| any_in(e, p)),
        StmtKind::Assign { target, value, .. } => {
            any_in(value, p)
                || target.path.iter().any(|a| match a {
                    Access::Index(e) => any_in(e, p),
                    _ => false,
                })
        }
        StmtKind::Expr(e) | StmtKind::Push { value: e, .. } | StmtKind::Return(Some(e)) => {
            any_in(e, p)
        }
        StmtKind::If {
            cond,
            then,
            otherwise,
        } => any_in(cond, p) || any_in_block(then, p) || any_in_block(otherwise, p),
        StmtKind::Loop {
            init,
            cond,
            step,
            body,
            ..
        } => {
            any_in_block(init, p)
                || cond.as_ref().is_some_and(|c| any_in(c, p))
                || any_in_block(step, p)
                || any_in_block(body, p)
        }
        StmtKind::Block(b) => any_in_block(b, p),
        StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) | StmtKind::Discard => false,
    })
}

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
    any_in_block(body, &mut |e| match &e.kind {
        ExprKind::IndexOf(_) => true,
        ExprKind::Call(f, _) => module
            .functions
            .get(f.0 as usize)
            .is_some_and(|c| uses_indexof(module, &c.body)),
        _ => false,
    })
}
