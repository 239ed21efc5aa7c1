//! The compile-time budget of a shader, shared by the backends that hand Brook functions to a
//! driver's compiler (GL, wgpu): what would keep that compiler busy for minutes is refused at
//! the Brook line, before the driver sees it. A compile cannot be stopped once started, so the
//! budget is a static one, set so that a shader within it compiles in well under a minute.
//!
//! Two things make Mesa's compiler (llvmpipe for GL, lavapipe for Vulkan: the same NIR and
//! LLVM pipeline) slow:
//!
//! - **Loop nesting.** llvmpipe's time is exponential in the depth, whatever the loops do (llvmpipe,
//!   measured at link: 12 levels 0.08 s, 14 0.36 s, 16 0.7-1.5 s, 18 2.9-6 s, so 30 would
//!   take hours and gigabytes). Loops in a called function nest inside the caller's.
//! - **Inlined size.** Shader compilers inline every function, so a helper called twice by a
//!   helper called twice … grows the shader exponentially: ten statements under thirteen such
//!   levels are 100,000 statements, on which Mesa ran for minutes and past a gigabyte. Its
//!   time grows faster than linearly (llvmpipe on a loaded machine: a chain of 10,000
//!   dependent statements 5 s, 20,000 16 s; lavapipe through wgpu: 10,240 inlined statements
//!   1.6 s, 20,480 3.3 s, 40,960 9.2 s). Loops count once: drivers unroll only small ones.
//!
//! lavapipe's time did not grow with nesting (0.2 s at 18 levels, measured through wgpu); the
//! nesting limit holds on wgpu too so that both GPU backends accept the same kernels.

use std::collections::HashMap;

use brook_ir::Span;
use brook_ir::{Block, ExprKind, FunctionId, Module, Stmt, StmtKind};

use crate::loops::MAX_CALL_DEPTH;
use brook_ir::walk::{expr, for_each_expr};

/// The deepest loop nesting, counting the loops of called functions, a shader may have.
pub const MAX_LOOP_NESTING: usize = 12;

/// The most statements a shader's function may hold once every call is inlined.
pub const MAX_INLINED_STATEMENTS: u64 = 25_000;

/// Why a function is refused: `message` says what and what to do, `span` is the statement
/// that goes past the budget.
#[derive(Debug, Clone, PartialEq)]
pub struct OverBudget {
    /// What is past the budget, by how much, and what to change.
    pub message: String,
    /// The statement (a loop, or the one past the count) it is reported at.
    pub span: Span,
}

/// An error if `f` (a kernel, reduce function or scatter operator), with the functions it
/// calls, is past the budget: loops nested deeper than [`MAX_LOOP_NESTING`] (at the loop
/// that goes too deep) or more than [`MAX_INLINED_STATEMENTS`] (at the statement whose calls
/// take it past).
pub fn refuse_over_budget(module: &Module, f: FunctionId) -> Result<(), OverBudget> {
    let name = &module.func(f).name;
    let mut sizes = HashMap::new();
    let mut total = 0u64;
    for stmt in &module.func(f).body {
        total = total.saturating_add(size(module, std::slice::from_ref(stmt), &mut sizes));
        if total > MAX_INLINED_STATEMENTS {
            return Err(OverBudget {
                message: format!(
                    "`{name}` is more than {MAX_INLINED_STATEMENTS} statements once every function call is inlined, as shader compilers do (this statement takes it past); their compile time grows faster than the shader (Mesa: 16 s at 20,000 statements, minutes at 100,000) and cannot be stopped once started. Call helpers from a loop instead of from many places, split the kernel, or run on the CPU backend"
                ),
                span: stmt.span,
            });
        }
    }
    // After the size check: the nesting walk is not memoised, and a chain of helpers each
    // calling the next twice is exponential for it, where the size check (memoised) refuses it.
    if let Some(span) = too_deep(module, &module.func(f).body, 0, 0) {
        return Err(OverBudget {
            message: format!(
                "`{name}` nests loops more than {MAX_LOOP_NESTING} deep (counting the loops of the functions it calls); shader compilers' time grows exponentially with loop nesting (Mesa's: 3 s at 18 levels, hours at 30), so GL and wgpu take at most {MAX_LOOP_NESTING}. Flatten the loops, or run on the CPU backend"
            ),
            span,
        });
    }
    Ok(())
}

/// The span of the first loop at nesting `MAX_LOOP_NESTING + 1` inside `block`, which is
/// `depth` loops deep and `calls` calls below the function checked.
fn too_deep(module: &Module, block: &Block, depth: usize, calls: usize) -> Option<Span> {
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

/// Statements of `block` with the calls in it inlined (saturating); `sizes` remembers each
/// function's inlined size.
fn size(module: &Module, block: &[Stmt], sizes: &mut HashMap<FunctionId, u64>) -> u64 {
    let mut n = 0u64;
    for stmt in block {
        n = n.saturating_add(1);
        n = n.saturating_add(match &stmt.kind {
            StmtKind::If {
                then, otherwise, ..
            } => size(module, then, sizes).saturating_add(size(module, otherwise, sizes)),
            StmtKind::Loop {
                init, step, body, ..
            } => size(module, init, sizes)
                .saturating_add(size(module, step, sizes))
                .saturating_add(size(module, body, sizes)),
            StmtKind::Block(b) => size(module, b, sizes),
            _ => 0,
        });
    }
    // The calls in the statements' own expressions (those of nested blocks were counted
    // with them above, so only the top-level expressions are walked here).
    for stmt in block {
        let mut calls = Vec::new();
        for_each_own_call(stmt, &mut |g| calls.push(g));
        for g in calls {
            n = n.saturating_add(function_size(module, g, sizes));
        }
    }
    n
}

/// The inlined size of function `g`, remembered.
fn function_size(module: &Module, g: FunctionId, sizes: &mut HashMap<FunctionId, u64>) -> u64 {
    if let Some(&s) = sizes.get(&g) {
        return s;
    }
    // Brook has no recursion (the front end refuses it), so this ends.
    let s = size(module, &module.func(g).body, sizes);
    sizes.insert(g, s);
    s
}

/// Calls `f` with the callee of every call in `stmt`'s own expressions (not those of the
/// blocks inside it).
fn for_each_own_call(stmt: &Stmt, f: &mut impl FnMut(FunctionId)) {
    let mut callee = |e: &brook_ir::Expr| {
        if let ExprKind::Call(g, _) = &e.kind {
            f(*g);
        }
    };
    match &stmt.kind {
        StmtKind::If { cond, .. } => expr(cond, &mut callee),
        StmtKind::Loop { cond, .. } => cond.iter().for_each(|c| expr(c, &mut callee)),
        StmtKind::Block(_) => {}
        _ => for_each_expr(std::slice::from_ref(stmt), &mut callee),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_count_their_callees_inlined_and_loops_once() {
        let src = "float f0(float a) { float x = a; x = x * 0.5; return x; }
float f1(float x) { return f0(x) + f0(x + 1.0); }
float f2(float x) { float s = 0.0; for (int i = 0; i < 9; i++) { s += f1(x); } return s; }
kernel void k(float a<>, out float b<>) { float c = a; b = f2(c) + f1(c); }";
        let module = brook_frontend::compile(src, "k.br").unwrap();
        let (k, _) = module.function("k").unwrap();
        let f0 = 3;
        let f1 = 1 + 2 * f0;
        // f2: the declaration, the loop, its init and step, the body's statement and its
        // call of f1, the return.
        let f2 = 1 + 1 + 1 + 1 + (1 + f1) + 1;
        assert_eq!(
            size(&module, &module.func(k).body, &mut HashMap::new()),
            2 + f2 + f1
        );
        assert!(refuse_over_budget(&module, k).is_ok());
    }

    #[test]
    fn loops_in_called_functions_nest_inside_the_callers_and_are_refused_at_the_call() {
        let loops = |n: usize, v: &str, inner: &str| {
            let open: String = (0..n)
                .map(|d| format!("for (int {v}{d} = 0; {v}{d} < 1; {v}{d}++) {{ "))
                .collect();
            format!("{open}{inner}{}", "}".repeat(n))
        };
        let refused_line = |inner: usize| {
            let src = format!(
                "float h(float a) {{ float x = 0.0; {} return x; }}\n\
                 kernel void k(float a<>, out float r<>) {{ float x = 0.0; {}\nr = x; }}",
                loops(inner, "j", "x += a;"),
                loops(6, "i", "\nx += h(a);\n")
            );
            let module = brook_frontend::compile(&src, "k.br").unwrap();
            let (k, _) = module.function("k").unwrap();
            refuse_over_budget(&module, k).err().map(|e| {
                assert!(
                    e.message.contains("nests loops more than 12 deep"),
                    "{}",
                    e.message
                );
                src[..e.span.start as usize].matches('\n').count() + 1
            })
        };
        assert_eq!(refused_line(6), None);
        assert_eq!(refused_line(7), Some(3));
    }
}
