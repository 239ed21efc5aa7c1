//! The GL side of loops on drivers that cap them (`brook_core::loops`): the nesting limit of
//! Mesa's GLSL compiler, and which kernels check their loops at run time (`lower/stmt.rs`:
//! each loop records whether it ended by its own condition or `break`, and the pass reports
//! the Brook line of one that did not).

use brook_core::loops::{unbounded_loops_message, within_cap, MAX_CALL_DEPTH};
use brook_frontend::ir::{Block, ExprKind, FunctionId, Module, StmtKind};

use crate::error::GenError;
use crate::variant::Target;
use crate::walk::for_each_expr;

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
        .is_some_and(|cap| !within_cap(module, f, 1, cap))
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
    match target.loop_cap {
        Some(cap) if !within_cap(module, f, calls, cap) => Err(GenError::Unsupported(
            unbounded_loops_message(&module.func(f).name, cap),
        )),
        _ => Ok(()),
    }
}
