//! Which expressions change something when they are evaluated. C evaluates the right side of
//! `&&` and `||`, and one side of `?:`, only when it decides the result; a back end may compute
//! a side without effects eagerly (both sides computed, one kept), which shaders prefer to a
//! branch, but must keep an expression with effects under control flow.

use crate::module::{Expr, ExprKind};
use crate::walk::any_in;
use crate::Builtin;

/// Whether evaluating `e` can change anything: a call (which may write its `out` arguments
/// or discard), or `frexp`/`modf` (which store their second argument).
pub fn has_effects(e: &Expr) -> bool {
    any_in(e, &mut |x| {
        matches!(
            x.kind,
            ExprKind::Call(..) | ExprKind::Builtin(Builtin::Frexp | Builtin::Modf, _)
        )
    })
}
