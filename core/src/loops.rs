//! Loops on drivers that cap them. Mesa's gallivm drivers (llvmpipe for GL, lavapipe for
//! Vulkan, softpipe) end all of a shader's loops once they have made 65,535 iterations in all,
//! silently (`LP_MAX_TGSI_LOOP_ITERATIONS`, shared by every loop of the shader, so nesting a
//! long loop as two short ones does not help). A kernel whose loops have trip counts known from
//! constants, within the cap, needs nothing; the backends check any other at run time (each
//! loop records whether it ended by its own condition or `break`, and the call reports the
//! Brook line of one that did not) or refuse it where they cannot. This module is what the GL
//! and wgpu backends share: the cap, the bound, and the messages.

use brook_ir::{
    BinaryOp, Block, Expr, ExprKind, FunctionId, LocalId, Module, Place, PlaceRoot, Stmt, StmtKind,
};

use crate::program::SourceText;
use brook_ir::walk::{expr, for_each_expr};

/// The loop iterations one shader invocation may make, over all its loops, before the driver
/// named `driver` (a GL renderer string, a wgpu adapter's name) silently ends them: 65,535 on
/// Mesa's gallivm drivers. GPU drivers have no such cap; their watchdog ends a whole dispatch
/// that runs too long instead (docs/limits.md).
pub fn loop_iteration_cap(driver: &str) -> Option<u32> {
    let gallivm = ["llvmpipe", "softpipe"];
    gallivm.iter().any(|d| driver.contains(d)).then_some(65_535)
}

/// The error of a call in which the driver cut short the loop at `line` of `source`.
pub fn cut_loop_message(source: &SourceText, line: usize, driver: &str, cap: u32) -> String {
    format!(
        "the loop at {}:{line}: {} did not finish: this driver ({driver}) ends a shader's loops after {cap} iterations in all, without an error, so the call's results would be wrong. Bound the loop by constants within {cap} iterations, split the work over several calls, or run on the CPU backend",
        source.name,
        source.line(line),
    )
}

/// The error of a reduce function or scatter operator `function` whose loops are not known to
/// stay within the cap: their shaders cannot report a cut loop, so they are refused.
pub fn unbounded_loops_message(function: &str, cap: u32) -> String {
    format!(
        "reduce function `{function}` has loops whose iterations are not known to stay within this driver's cap of {cap} loop iterations per element (llvmpipe ends longer loops early and silently); give its loops constant bounds (at most {cap} iterations in all per element), or run on the CPU backend"
    )
}

/// Whether one call of `f` (`calls` times per invocation) is known to stay within `cap`.
pub fn within_cap(module: &Module, f: FunctionId, calls: u32, cap: u32) -> bool {
    iteration_bound(module, f)
        .and_then(|b| b.checked_mul(u64::from(calls)))
        .is_some_and(|b| b <= u64::from(cap))
}

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

/// Guards against a malformed module calling itself; real call chains are far shorter.
pub const MAX_CALL_DEPTH: usize = 64;

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
