//! Moving a block into a loop of its own, `do { … } while (false)`, so that a jump out of the
//! block becomes a `break` of that loop: the `return`s of a kernel body inlined into its caller,
//! and the `break`s of a `for` body whose step must run after it (see `loops.rs`).
//!
//! A jump at the block's own level is a plain `break`. One nested in loops of the block sets a
//! flag before its `break`, and every enclosing loop is followed by `if (flag) break;`, until
//! the one-shot loop is left.

use super::expr::mk;
use super::scope::FnCtx;
use brook_ir::Span;
use brook_ir::{Block, Expr, ExprKind, LocalId, Place, PlaceRoot, Stmt, StmtKind, Type};

/// The jump being turned into a `break` of the new loop.
#[derive(Clone, Copy)]
pub enum Exit {
    /// `return` (of an inlined body); a returned value goes to this local.
    Return(Option<LocalId>),
    /// `break` of the loop whose body is moved.
    Break,
}

fn st(kind: StmtKind, span: Span) -> Stmt {
    Stmt { kind, span }
}

fn assign(local: LocalId, ty: Type, value: Expr, span: Span) -> Stmt {
    st(
        StmtKind::Assign {
            target: Place {
                root: PlaceRoot::Local(local),
                path: Vec::new(),
                ty,
            },
            op: None,
            value,
        },
        span,
    )
}

fn flag_value(flag: LocalId, span: Span) -> Expr {
    mk(ExprKind::Local(flag), Type::BOOL, span)
}

/// An inlined body without its `return`s. When the only `return` ends the body, it becomes an
/// assignment of the value; otherwise the body runs inside a one-shot loop.
pub fn without_returns(ctx: &mut FnCtx<'_>, mut body: Block, value: Option<LocalId>) -> Block {
    let tail_only = match body.split_last() {
        Some((last, rest)) => {
            matches!(last.kind, StmtKind::Return(_)) && !rest.iter().any(contains_return)
        }
        None => true,
    };
    if tail_only {
        if let Some(Stmt {
            kind: StmtKind::Return(v),
            span,
        }) = body.pop()
        {
            if let (Some(v), Some(local)) = (v, value) {
                let ty = ctx.locals[local.0 as usize].ty.clone();
                body.push(assign(local, ty, v, span));
            }
        }
        return body;
    }
    if !body.iter().any(contains_return) {
        return body;
    }
    let span = first_span(&body);
    let (block, flag) = in_one_shot(ctx, body, Exit::Return(value));
    flag.map(|f| declare_flag(f, span))
        .into_iter()
        .chain(block)
        .collect()
}

/// A loop body that `break`s its loop, moved into a one-shot loop of its own: the one-shot
/// loop, then `if (flag) break;` when the body had such a `break`.
pub fn breakable_one_shot(ctx: &mut FnCtx<'_>, body: Block) -> Block {
    let span = first_span(&body);
    let (block, flag) = in_one_shot(ctx, body, Exit::Break);
    let Some(flag) = flag else {
        return block;
    };
    let mut out = vec![declare_flag(flag, span)];
    out.extend(block);
    out.push(break_if(flag, span));
    out
}

/// `if (flag) break;`
fn break_if(flag: LocalId, span: Span) -> Stmt {
    st(
        StmtKind::If {
            cond: flag_value(flag, span),
            then: vec![st(StmtKind::Break, span)],
            otherwise: Vec::new(),
        },
        span,
    )
}

fn first_span(body: &Block) -> Span {
    body.first().map_or(Span::new(0, 0), |s| s.span)
}

fn declare_flag(flag: LocalId, span: Span) -> Stmt {
    st(
        StmtKind::Decl {
            local: flag,
            init: None,
        },
        span,
    )
}

/// The one-shot loop around the rewritten body, and the flag it uses, if any.
fn in_one_shot(ctx: &mut FnCtx<'_>, body: Block, exit: Exit) -> (Block, Option<LocalId>) {
    let span = first_span(&body);
    let mut rw = Rewrite {
        exit,
        flag: None,
        ctx,
    };
    let body = rw.block(body, 0);
    let flag = rw.flag;
    let one_shot = st(
        StmtKind::Loop {
            init: Vec::new(),
            cond: Some(mk(ExprKind::Bool(false), Type::BOOL, span)),
            step: Vec::new(),
            body,
            test_first: false,
        },
        span,
    );
    (vec![one_shot], flag)
}

struct Rewrite<'c, 'g> {
    exit: Exit,
    /// Set by a jump that must also leave loops around the one-shot one (a `break` of the
    /// moved body), or loops inside it (a nested `return`).
    flag: Option<LocalId>,
    ctx: &'c mut FnCtx<'g>,
}

impl Rewrite<'_, '_> {
    fn flag(&mut self, span: Span) -> LocalId {
        match self.flag {
            Some(f) => f,
            None => {
                let name = match self.exit {
                    Exit::Return(_) => "returned",
                    Exit::Break => "broke",
                };
                let f = self.ctx.temp(name, Type::BOOL, span);
                self.flag = Some(f);
                f
            }
        }
    }

    /// `depth` counts the loops of the block between a statement and the one-shot loop.
    fn block(&mut self, block: Block, depth: u32) -> Block {
        let mut out = Vec::with_capacity(block.len());
        for s in block {
            self.stmt(s, depth, &mut out);
        }
        out
    }

    fn stmt(&mut self, s: Stmt, depth: u32, out: &mut Block) {
        let span = s.span;
        match (s.kind, self.exit) {
            (StmtKind::Return(value), Exit::Return(to)) => {
                if let (Some(v), Some(local)) = (value, to) {
                    let ty = self.ctx.locals[local.0 as usize].ty.clone();
                    out.push(assign(local, ty, v, span));
                }
                if depth > 0 {
                    let f = self.flag(span);
                    out.push(set_flag(f, span));
                }
                out.push(st(StmtKind::Break, span));
            }
            (StmtKind::Break, Exit::Break) if depth == 0 => {
                let f = self.flag(span);
                out.push(set_flag(f, span));
                out.push(st(StmtKind::Break, span));
            }
            (
                StmtKind::Loop {
                    init,
                    cond,
                    step,
                    body,
                    test_first,
                },
                exit,
            ) => {
                let leaves = match exit {
                    Exit::Return(_) => body.iter().any(contains_return),
                    Exit::Break => false,
                };
                let body = self.block(body, depth + 1);
                out.push(st(
                    StmtKind::Loop {
                        init,
                        cond,
                        step,
                        body,
                        test_first,
                    },
                    span,
                ));
                if leaves {
                    let f = self.flag(span);
                    out.push(break_if(f, span));
                }
            }
            (
                StmtKind::If {
                    cond,
                    then,
                    otherwise,
                },
                _,
            ) => {
                let then = self.block(then, depth);
                let otherwise = self.block(otherwise, depth);
                out.push(st(
                    StmtKind::If {
                        cond,
                        then,
                        otherwise,
                    },
                    span,
                ));
            }
            (StmtKind::Block(b), _) => {
                let b = self.block(b, depth);
                out.push(st(StmtKind::Block(b), span));
            }
            (kind, _) => out.push(st(kind, span)),
        }
    }
}

fn set_flag(flag: LocalId, span: Span) -> Stmt {
    assign(
        flag,
        Type::BOOL,
        mk(ExprKind::Bool(true), Type::BOOL, span),
        span,
    )
}

/// Does `s` contain a `return` anywhere?
pub fn contains_return(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::If {
            then, otherwise, ..
        } => then.iter().chain(otherwise).any(contains_return),
        StmtKind::Loop { body, .. } => body.iter().any(contains_return),
        StmtKind::Block(b) => b.iter().any(contains_return),
        _ => false,
    }
}

/// Does `s` `break` or `continue` the loop it is in (not a loop nested in it)?
pub fn jumps_here(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Break | StmtKind::Continue => true,
        StmtKind::If {
            then, otherwise, ..
        } => then.iter().chain(otherwise).any(jumps_here),
        StmtKind::Block(b) => b.iter().any(jumps_here),
        _ => false,
    }
}
