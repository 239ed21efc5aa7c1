//! Which float expressions of a function hold an integer whenever they are finite, so that a
//! gather at them may skip Brook's rounding. One analysis for every back end: GL, wgpu and
//! the CPU's native code each leave the rounding out where [`Integral::expr`] holds (the CPU's
//! interpreter, the readable reference, always rounds), so the shortcut and its proof live
//! here, once.
//!
//! Brook rounds every float index component to `floor(v + 0.25)`. For an integer `v` that is
//! `v` itself (below 2^22 the sum is exact; above, `v + 0.25` rounds back to `v`, the even
//! neighbour, and every float from 2^23 on is an integer), and ±inf and NaN pass through
//! unchanged; the clamp that follows handles those (and -0.0, which the rounding would make
//! +0.0, selects element 0 either way). So the rounding is dropped, with the same
//! results, wherever the value is proven integral: `indexof`, integer-valued literals, `int`
//! and `bool` values converted, `+`, `-`, `*`, negation, `abs`, `min`, `max`, `clamp` and
//! selections of integral values (a sum or product of integers rounds to a float at or above
//! 2^24, itself an integer, or overflows to inf), and `floor`, `ceil`, `round`. Parameters are
//! never assumed integral (a constant is a uniform any float may be passed to), nor are
//! gathered values or helper results.
//!
//! A local is integral when every value stored into it is; locals start at zero. This is
//! found as the greatest fixed point (assume all, drop those with a non-integral store until
//! none changes), which is sound by induction over the stores in execution order: a store is
//! integral when the locals it reads are. A local passed to a call or to `frexp`/`modf`, which
//! may write it, is dropped outright.

use crate::walk::for_each_expr;
use crate::{
    BinaryOp, Builtin, Expr, ExprKind, Function, PlaceRoot, Scalar, Stmt, StmtKind, UnaryOp,
};

/// The integral locals of one function, and the test for an expression.
#[derive(Debug, Clone)]
pub struct Integral {
    /// Per local of the function, whether it only ever holds integral values.
    locals: Vec<bool>,
}

/// A value stored into a local: `local = value`, or `local op= value` with `op`.
struct Store<'a> {
    local: usize,
    op: Option<BinaryOp>,
    value: &'a Expr,
}

impl Integral {
    /// The analysis of `func`'s body.
    pub fn of(func: &Function) -> Integral {
        let mut stores = Vec::new();
        collect_stores(&func.body, &mut stores);
        let mut locals = vec![true; func.locals.len()];
        for_each_expr(&func.body, &mut |e| {
            if let ExprKind::Call(_, args)
            | ExprKind::Builtin(Builtin::Frexp | Builtin::Modf, args) = &e.kind
            {
                for a in args {
                    if let ExprKind::Local(l) = a.kind {
                        locals[l.0 as usize] = false;
                    }
                }
            }
        });
        let mut analysis = Integral { locals };
        loop {
            let dropped: Vec<usize> = stores
                .iter()
                .filter(|s| analysis.locals[s.local] && !analysis.integral_store(s))
                .map(|s| s.local)
                .collect();
            if dropped.is_empty() {
                return analysis;
            }
            for l in dropped {
                analysis.locals[l] = false;
            }
        }
    }

    fn integral_store(&self, s: &Store) -> bool {
        match s.op {
            None | Some(BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul) => self.expr(s.value),
            Some(_) => false,
        }
    }

    /// Whether every finite value `e` can take is an integer (per component).
    pub fn expr(&self, e: &Expr) -> bool {
        if matches!(e.ty.scalar(), Some(Scalar::Int | Scalar::Bool)) {
            return true;
        }
        match &e.kind {
            ExprKind::Float(v) => !v.is_finite() || v.fract() == 0.0,
            ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::IndexOf(_) => true,
            ExprKind::Local(l) => self.locals[l.0 as usize],
            ExprKind::Unary(UnaryOp::Neg, x)
            | ExprKind::Convert(x)
            | ExprKind::Swizzle(x, _)
            | ExprKind::Member(x, _)
            | ExprKind::Index(x, _) => self.expr(x),
            ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul, a, b) => {
                self.expr(a) && self.expr(b)
            }
            ExprKind::Select { accept, reject, .. } => self.expr(accept) && self.expr(reject),
            ExprKind::Construct(parts) => parts.iter().all(|p| self.expr(p)),
            ExprKind::Builtin(Builtin::Floor | Builtin::Ceil | Builtin::Round, _) => true,
            ExprKind::Builtin(
                Builtin::Abs | Builtin::Min | Builtin::Max | Builtin::Clamp,
                args,
            ) => args.iter().all(|a| self.expr(a)),
            _ => false,
        }
    }
}

/// Every store into a local in `block`, nested blocks included.
fn collect_stores<'a>(block: &'a [Stmt], stores: &mut Vec<Store<'a>>) {
    for stmt in block {
        match &stmt.kind {
            StmtKind::Decl {
                local,
                init: Some(value),
            } => stores.push(Store {
                local: local.0 as usize,
                op: None,
                value,
            }),
            StmtKind::Assign { target, op, value } => {
                if let PlaceRoot::Local(local) = target.root {
                    stores.push(Store {
                        local: local.0 as usize,
                        op: *op,
                        value,
                    });
                }
            }
            StmtKind::If {
                then, otherwise, ..
            } => {
                collect_stores(then, stores);
                collect_stores(otherwise, stores);
            }
            StmtKind::Loop {
                init, step, body, ..
            } => {
                collect_stores(init, stores);
                collect_stores(step, stores);
                collect_stores(body, stores);
            }
            StmtKind::Block(b) => collect_stores(b, stores),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
