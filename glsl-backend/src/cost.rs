//! The compile-time budget of a shader: how big a function is once the driver has inlined
//! every call, refused before the driver sees it when that is too big to compile in
//! reasonable time.
//!
//! GLSL compilers inline every function, so a helper called twice by a helper called twice
//! … grows the shader exponentially: ten statements under thirteen such levels are 100,000
//! statements, on which Mesa's compiler ran for minutes and past a gigabyte. Its time grows
//! faster than linearly in the inlined size (llvmpipe on a loaded machine, measured at link:
//! a chain of 10,000 dependent statements 5 s, 20,000 16 s), and a compile cannot be stopped
//! once it has started, so the budget is a static one, set so that a shader within it
//! compiles in well under a minute. Loops count once: drivers unroll only small ones.

use std::collections::HashMap;

use brook_frontend::ir::{ExprKind, FunctionId, Module, Stmt, StmtKind};

use crate::error::GenError;
use crate::walk::for_each_expr;

/// The most statements a shader's functions may hold once every call is inlined.
pub const MAX_INLINED_STATEMENTS: u64 = 25_000;

/// An error at the statement of `f` whose calls take it past [`MAX_INLINED_STATEMENTS`].
pub fn refuse_costly(module: &Module, f: FunctionId) -> Result<(), GenError> {
    let mut sizes = HashMap::new();
    let mut total = 0u64;
    for stmt in &module.func(f).body {
        total += size(module, std::slice::from_ref(stmt), &mut sizes);
        if total > MAX_INLINED_STATEMENTS {
            return Err(GenError::At {
                message: format!(
                    "`{}` is more than {MAX_INLINED_STATEMENTS} statements once every function call is inlined, as GL drivers do (this statement takes it past); their compile time grows faster than the shader (Mesa: 16 s at 20,000 statements, minutes at 100,000) and cannot be stopped once started. Call helpers from a loop instead of from many places, split the kernel, or run on the CPU backend",
                    module.func(f).name
                ),
                span: stmt.span,
            });
        }
    }
    Ok(())
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
        for_each_own_expr(stmt, &mut |g| calls.push(g));
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
fn for_each_own_expr(stmt: &Stmt, f: &mut impl FnMut(FunctionId)) {
    let own = match &stmt.kind {
        StmtKind::If { cond, .. } => Some(cond),
        StmtKind::Loop { cond, .. } => cond.as_ref(),
        StmtKind::Block(_) => None,
        _ => {
            for_each_expr(std::slice::from_ref(stmt), &mut |e| {
                if let ExprKind::Call(g, _) = &e.kind {
                    f(*g);
                }
            });
            return;
        }
    };
    if let Some(e) = own {
        crate::walk::expr(e, &mut |e| {
            if let ExprKind::Call(g, _) = &e.kind {
                f(*g);
            }
        });
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
        assert!(refuse_costly(&module, k).is_ok());
    }
}
