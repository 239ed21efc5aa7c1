//! How many loop iterations a kernel can run, for drivers that cap them: llvmpipe (and every
//! Mesa driver built on gallivm) ends all of a shader's loops once they have made 65,535
//! iterations in all, silently (`LP_MAX_TGSI_LOOP_ITERATIONS`, shared by every loop of the
//! shader, so nesting a long loop as two short ones does not help). A kernel whose loops have
//! trip counts known from constants, within the cap, needs nothing; any other is checked at
//! run time (`lower/stmt.rs`: each loop records whether it ended by its own condition or
//! `break`, and the pass reports the Brook line of one that did not).

use brook_frontend::ir::{
    BinaryOp, Block, Expr, ExprKind, FunctionId, LocalId, Module, Place, PlaceRoot, Stmt, StmtKind,
};

use crate::error::GenError;
use crate::variant::Target;
use crate::walk::{expr, for_each_expr};

/// The most loop iterations, over all loops, that one call of `f` (with the functions it
/// calls) can run, when every loop's trip count follows from literals; `None` otherwise.
pub fn iteration_bound(module: &Module, f: FunctionId) -> Option<u64> {
    iteration_bound_given(module, f, &|_| None)
}

/// `iteration_bound` for a call whose scalar constant parameters have the values
/// `constant(param)` gives: a loop bounded by one (`for (k = 0; k < m; k++)`, `m` a kernel
/// constant) has a trip count known when the call is made.
pub fn iteration_bound_given(
    module: &Module,
    f: FunctionId,
    constant: &dyn Fn(u32) -> Option<f64>,
) -> Option<u64> {
    let body = &module.func(f).body;
    // A parameter the body assigns (Brook lets a kernel assign its value parameters) is not
    // the value the call passed by the time a loop reads it.
    let unassigned = |p: u32| {
        if assigns_param(body, p) {
            None
        } else {
            constant(p)
        }
    };
    let walk = Walk {
        module,
        constant: &unassigned,
    };
    walk.block(body, 0)
}

/// The constants a bound may use: literals, and the kernel's constant parameters when known.
struct Walk<'a> {
    module: &'a Module,
    constant: &'a dyn Fn(u32) -> Option<f64>,
}

/// The deepest loop nesting GLSL is generated for. Mesa's compiler takes time exponential in
/// loop nesting (llvmpipe, measured at link: 12 levels 0.08 s, 14 0.36 s, 16 0.7-1.5 s,
/// 18 2.9-6 s, so 30 would take hours and gigabytes), whatever the loops do; beyond this the
/// generator refuses rather than hang in the driver.
pub const MAX_LOOP_NESTING: usize = 12;

/// An error if `f`, with the functions it calls (whose loops nest inside the caller's), nests
/// loops deeper than [`MAX_LOOP_NESTING`]: the driver's compile would not end in reasonable
/// time. Points at the loop that goes past the limit.
pub fn refuse_deep_loops(module: &Module, f: FunctionId) -> Result<(), GenError> {
    match too_deep(module, &module.func(f).body, 0, 0) {
        None => Ok(()),
        Some(span) => Err(GenError::At {
            message: format!(
                "`{}` nests loops more than {MAX_LOOP_NESTING} deep (counting the loops of the functions it calls); GL drivers' compile time grows exponentially with loop nesting (Mesa's: 3 s at 18 levels, hours at 30), so GL takes at most {MAX_LOOP_NESTING}. Flatten the loops, or run on the CPU backend",
                module.func(f).name
            ),
            span,
        }),
    }
}

/// The span of the first loop at nesting `MAX_LOOP_NESTING + 1` inside `block`, which is
/// `depth` loops deep.
fn too_deep(
    module: &Module,
    block: &Block,
    depth: usize,
    calls: usize,
) -> Option<brook_frontend::Span> {
    for stmt in block {
        let found = match &stmt.kind {
            StmtKind::Loop {
                init, step, body, ..
            } => {
                if depth + 1 > MAX_LOOP_NESTING {
                    return Some(stmt.span);
                }
                too_deep(module, init, depth, calls)
                    .or_else(|| too_deep(module, step, depth + 1, calls))
                    .or_else(|| too_deep(module, body, depth + 1, calls))
            }
            StmtKind::If {
                then, otherwise, ..
            } => too_deep(module, then, depth, calls)
                .or_else(|| too_deep(module, otherwise, depth, calls)),
            StmtKind::Block(b) => too_deep(module, b, depth, calls),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
        // Calls anywhere in the statement inline the callee's loops at this depth.
        if calls < MAX_CALL_DEPTH {
            let mut inner = None;
            for_each_expr(std::slice::from_ref(stmt), &mut |e| {
                if let (None, ExprKind::Call(g, _)) = (inner, &e.kind) {
                    inner = too_deep(module, &module.func(*g).body, depth, calls + 1)
                        .map(|_| stmt.span);
                }
            });
            if inner.is_some() {
                return inner;
            }
        }
    }
    None
}

/// Whether kernel `f` must check its loops at run time on `target`: its driver caps loop
/// iterations and `f`'s loops are not known to stay within the cap.
pub fn needs_loop_check(module: &Module, f: FunctionId, target: &Target) -> bool {
    target
        .loop_cap
        .is_some_and(|cap| iteration_bound(module, f).map_or(true, |b| b > u64::from(cap)))
}

/// For shaders that cannot report a cut loop (reduction and scatter passes, which call `f`
/// `calls` times per fragment): an error unless `f`'s loops are known to stay within the
/// driver's cap, so a result is never silently wrong.
pub fn refuse_uncheckable_loops(
    module: &Module,
    f: FunctionId,
    calls: u32,
    target: &Target,
) -> Result<(), GenError> {
    let Some(cap) = target.loop_cap else {
        return Ok(());
    };
    let bound = iteration_bound(module, f).and_then(|b| b.checked_mul(u64::from(calls)));
    if bound.is_some_and(|b| b <= u64::from(cap)) {
        return Ok(());
    }
    Err(GenError::Unsupported(format!(
        "reduce function `{}` has loops whose iterations are not known to stay within this driver's cap of {cap} loop iterations per element (llvmpipe ends longer loops early and silently); give its loops constant bounds (at most {cap} iterations in all per element), or run on the CPU backend",
        module.func(f).name
    )))
}

/// Guards against a malformed module calling itself; real call chains are far shorter.
const MAX_CALL_DEPTH: usize = 64;

impl Walk<'_> {
    /// The iterations of `block`, `depth` calls below the kernel.
    fn block(&self, block: &Block, depth: usize) -> Option<u64> {
        let mut total: u64 = 0;
        for stmt in block {
            total = total.checked_add(self.stmt(stmt, depth)?)?;
        }
        Some(total)
    }

    fn stmt(&self, stmt: &Stmt, depth: usize) -> Option<u64> {
        match &stmt.kind {
            StmtKind::Loop {
                init,
                cond,
                step,
                body,
                test_first,
            } => {
                let trips = self.trip_count(init, cond.as_ref(), step, body, *test_first)?;
                // Each iteration runs the body, the step and the condition once more.
                let mut per = self.block(body, depth)?.checked_add(1)?;
                per = per.checked_add(self.block(step, depth)?)?;
                if let Some(c) = cond {
                    per = per.checked_add(self.calls(c, depth)?)?;
                }
                self.block(init, depth)?
                    .checked_add(trips.checked_mul(per)?)
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => self
                .calls(cond, depth)?
                .checked_add(self.block(then, depth)?.max(self.block(otherwise, depth)?)),
            StmtKind::Block(b) => self.block(b, depth),
            _ => {
                let mut total = Some(0u64);
                for_each_expr(std::slice::from_ref(stmt), &mut |e| {
                    if let ExprKind::Call(g, _) = e.kind {
                        total = total.and_then(|t| t.checked_add(self.call(g, depth)?));
                    }
                });
                total
            }
        }
    }

    /// The iterations of the functions `e` calls.
    fn calls(&self, e: &Expr, depth: usize) -> Option<u64> {
        let mut total = Some(0u64);
        expr(e, &mut |x| {
            if let ExprKind::Call(g, _) = x.kind {
                total = total.and_then(|t| t.checked_add(self.call(g, depth)?));
            }
        });
        total
    }

    /// A called function's iterations; its own parameters are not the kernel's, so only
    /// literals bound its loops.
    fn call(&self, g: FunctionId, depth: usize) -> Option<u64> {
        if depth >= MAX_CALL_DEPTH {
            return None;
        }
        let literals = Walk {
            module: self.module,
            constant: &|_| None,
        };
        literals.block(&self.module.func(g).body, depth + 1)
    }

    /// A literal, or a scalar constant parameter whose value is known.
    fn constant(&self, e: &Expr) -> Option<f64> {
        match &e.kind {
            ExprKind::Int(v) => Some(*v as f64),
            ExprKind::Float(v) if v.is_finite() => Some(*v as f64),
            ExprKind::Convert(x) => self.constant(x),
            ExprKind::Param(p) => (self.constant)(*p),
            _ => None,
        }
    }
    /// The trip count of `for (i = a; i OP b; i += s)` with constant `a`, `b` and `s` and a body
    /// that never assigns `i`; `None` for any other loop.
    fn trip_count(
        &self,
        init: &Block,
        cond: Option<&Expr>,
        step: &Block,
        body: &Block,
        test_first: bool,
    ) -> Option<u64> {
        let ExprKind::Binary(op, lhs, rhs) = &cond?.kind else {
            return None;
        };
        let (ExprKind::Local(i), Some(end)) = (&lhs.kind, self.constant(rhs)) else {
            return None;
        };
        let start = init.iter().rev().find_map(|s| match &s.kind {
            StmtKind::Decl {
                local,
                init: Some(v),
            } if local == i => self.constant(v),
            StmtKind::Assign {
                target,
                op: None,
                value,
            } if is_local(target, *i) => self.constant(value),
            _ => None,
        })?;
        let [stride] = step.as_slice() else {
            return None;
        };
        let stride = match &stride.kind {
            StmtKind::Assign {
                target,
                op: Some(op @ (BinaryOp::Add | BinaryOp::Sub)),
                value,
            } if is_local(target, *i) => {
                let s = self.constant(value)?;
                if *op == BinaryOp::Sub {
                    -s
                } else {
                    s
                }
            }
            _ => return None,
        };
        if assigns(body, *i) || !test_first {
            return None;
        }
        let span = end - start;
        let trips = match op {
            BinaryOp::Lt if stride > 0.0 => (span / stride).ceil(),
            BinaryOp::Le if stride > 0.0 => (span / stride).floor() + 1.0,
            BinaryOp::Gt if stride < 0.0 => (span / stride).ceil(),
            BinaryOp::Ge if stride < 0.0 => (span / stride).floor() + 1.0,
            _ => return None,
        };
        (trips.is_finite() && trips < 1e15).then(|| trips.max(0.0) as u64)
    }
}

fn is_local(place: &Place, i: LocalId) -> bool {
    place.root == PlaceRoot::Local(i)
}

/// Whether any statement in `block`, at any depth, assigns local `i`.
fn assigns(block: &Block, i: LocalId) -> bool {
    assigns_root(block, PlaceRoot::Local(i))
}

/// Whether any statement in `block`, at any depth, assigns parameter `p`.
fn assigns_param(block: &Block, p: u32) -> bool {
    assigns_root(block, PlaceRoot::Param(p))
}

fn assigns_root(block: &Block, root: PlaceRoot) -> bool {
    block.iter().any(|s| match &s.kind {
        StmtKind::Assign { target, .. } => target.root == root,
        StmtKind::If {
            then, otherwise, ..
        } => assigns_root(then, root) || assigns_root(otherwise, root),
        StmtKind::Loop {
            init, step, body, ..
        } => assigns_root(init, root) || assigns_root(step, root) || assigns_root(body, root),
        StmtKind::Block(b) => assigns_root(b, root),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::iteration_bound;

    fn bound(body: &str) -> Option<u64> {
        let src =
            format!("kernel void k(float a<>, out float b<>) {{ float x = 0.0; {body} b = x; }}");
        let module = brook_frontend::compile(&src, "k.br").expect("a valid kernel");
        let (id, _) = module.function("k").expect("the kernel");
        iteration_bound(&module, id)
    }

    #[test]
    fn constant_trip_counts_multiply_through_nesting_and_add_in_sequence() {
        assert_eq!(bound("for (int i = 0; i < 10; i++) x += 1.0;"), Some(10));
        assert_eq!(
            bound("for (float i = 0.0; i <= 4.0; i += 0.5) x += 1.0;"),
            Some(9)
        );
        assert_eq!(bound("for (int i = 10; i > 0; i -= 3) x += 1.0;"), Some(4));
        assert_eq!(
            bound("for (int i = 0; i < 300; i++) { for (int j = 0; j < 300; j++) x += 1.0; }"),
            Some(300 * 301)
        );
        assert_eq!(
            bound("for (int i = 0; i < 5; i++) x += 1.0; for (int j = 0; j < 7; j++) x += 2.0;"),
            Some(12)
        );
        assert_eq!(bound("x = a;"), Some(0));
    }

    #[test]
    fn loops_bounded_by_anything_else_have_no_bound() {
        assert_eq!(
            bound("for (float i = 0.0; i < a; i += 1.0) x += 1.0;"),
            None
        );
        assert_eq!(bound("while (x < a) x += 1.0;"), None);
        assert_eq!(bound("for (int i = 0; i < 10; i++) { i = i - 1; }"), None);
        assert_eq!(bound("for (int i = 0; i < 10; i--) x += 1.0;"), None);
        assert_eq!(bound("do { x += 1.0; } while (x < 3.0);"), None);
    }
}
