//! Loops in the IR's one form (`StmtKind::Loop`), including conditions and steps that need
//! statements of their own (an assignment or an inlined kernel call inside them).
//!
//! The IR's `cond` is a plain expression and its `step` holds only assignments and expression
//! statements (GLSL's `for` clause takes no more), so:
//! - a condition with statements becomes a test at the top of the body,
//!   `for (init; ; step) { pre; if (!cond) break; body }` (for `do … while`, a flag skips the
//!   test on the first pass, so `continue` still goes through the test);
//! - a step with other statements moves to the end of the body, and the body into a one-shot
//!   loop of its own so that `continue` still reaches the step (see `jumps.rs`).

use super::expr::mk;
use super::jumps::{breakable_one_shot, jumps_here};
use super::scope::FnCtx;
use super::stmt::st;
use brook_ir::Span;
use brook_ir::{Block, Expr, ExprKind, LocalId, Place, PlaceRoot, Stmt, StmtKind, Type, UnaryOp};

/// A checked loop: `for`, `while` and `do … while` alike.
pub struct LoopParts {
    pub init: Block,
    /// Statements the condition needs before it, on every test.
    pub cond_pre: Block,
    pub cond: Option<Expr>,
    pub step: Block,
    pub body: Block,
    pub test_first: bool,
}

/// The IR for a loop: one `Loop` statement (with, for `do … while` with a complex condition,
/// its flag declared inside its `init`).
pub fn build_loop(ctx: &mut FnCtx<'_>, parts: LoopParts, span: Span) -> Vec<Stmt> {
    let LoopParts {
        mut init,
        cond_pre,
        mut cond,
        mut step,
        mut body,
        test_first,
    } = parts;
    if !step.iter().all(simple_step) {
        if body.iter().any(jumps_here) {
            body = breakable_one_shot(ctx, body);
        }
        body.append(&mut step);
    }
    let mut test_first = test_first;
    if !cond_pre.is_empty() {
        let c = cond.take().expect("a condition with statements exists");
        let mut test = cond_pre;
        test.push(exit_unless(c, span));
        if test_first {
            test.append(&mut body);
            body = test;
        } else {
            // `do body while (pre; c)`: the test runs before every pass but the first.
            let first = ctx.temp("first", Type::BOOL, span);
            init.push(st(
                StmtKind::Decl {
                    local: first,
                    init: Some(mk(ExprKind::Bool(true), Type::BOOL, span)),
                },
                span,
            ));
            let mut front = vec![
                st(
                    StmtKind::If {
                        cond: not(local(first, span)),
                        then: test,
                        otherwise: Vec::new(),
                    },
                    span,
                ),
                set(first, false, span),
            ];
            front.append(&mut body);
            body = front;
            test_first = true;
        }
    }
    vec![st(
        StmtKind::Loop {
            init,
            cond,
            step,
            body,
            test_first,
        },
        span,
    )]
}

/// What GLSL's `for` clause can hold.
fn simple_step(s: &Stmt) -> bool {
    matches!(s.kind, StmtKind::Assign { .. } | StmtKind::Expr(_))
}

fn local(l: LocalId, span: Span) -> Expr {
    mk(ExprKind::Local(l), Type::BOOL, span)
}

fn not(e: Expr) -> Expr {
    let span = e.span;
    mk(ExprKind::Unary(UnaryOp::Not, Box::new(e)), Type::BOOL, span)
}

/// `if (!c) break;`
fn exit_unless(c: Expr, span: Span) -> Stmt {
    st(
        StmtKind::If {
            cond: not(c),
            then: vec![st(StmtKind::Break, span)],
            otherwise: Vec::new(),
        },
        span,
    )
}

fn set(l: LocalId, v: bool, span: Span) -> Stmt {
    st(
        StmtKind::Assign {
            target: Place {
                root: PlaceRoot::Local(l),
                path: Vec::new(),
                ty: Type::BOOL,
            },
            op: None,
            value: mk(ExprKind::Bool(v), Type::BOOL, span),
        },
        span,
    )
}
