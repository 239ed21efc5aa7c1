//! Brook statements as naga statements.
//!
//! Loops: Brook's unified loop (`init`, `cond`, `step`, `body`, `test_first`) becomes
//!
//! ```text
//! init; var first = true;            // `first` only for do-while
//! loop {
//!     if (test_first || !first) && !cond { break; }
//!     first = false;
//!     body                           // `continue` jumps to the continuing block
//!     continuing { step  break if brook_discarded }
//! }
//! ```
//!
//! naga forbids `return` in a continuing block, so a call in `step` that discards is caught
//! by the `break if` and by a check after the loop instead of returning on the spot.
//!
//! On drivers that cap loop iterations (lavapipe: 65,535 in all per invocation, then every
//! loop ends silently; `brook_core::loops`), a kernel whose loops are not known to stay within
//! the cap checks every loop, as the GL backend does:
//!
//! ```text
//! before = left;                                   // `left` zeroed at the function's start
//! loop {
//!     if zero != 0 { left += 2; break; }           // `zero`: the call info, never nonzero
//!     if !cond { left += 1; break; }               // and every `break` of the body adds 1
//!     …
//! }
//! if left != before + 1 { atomicMax(status[0], 1 + the loop's byte offset) }
//! ```
//!
//! A loop the driver cut short left by neither exit. The exits give different counts, so the
//! count after the loop is a value only the exits write (the driver writes it under the lanes'
//! mask), which its compiler can neither fold nor compute ahead of them; it is never reset, so
//! a cut in a later run of the loop finds the count of the run before.

use brook_ir::{
    Block, Expr, ExprKind, ParamClass, Scalar as BScalar, Stmt, StmtKind, Type as BType,
};
use naga::Statement;

use super::function::{FnLower, VoutSlot};
use super::module::error;
use super::ops::coerce;
use super::types::value_type;
use super::{naga_span, Lowered};
use brook_ir::effects::has_effects;

impl FnLower<'_, '_> {
    pub fn block(&mut self, block: &Block) -> Lowered<()> {
        for s in block {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> Lowered<()> {
        self.b.span = naga_span(s.span);
        let brook = self.env.brook;
        match &s.kind {
            StmtKind::Decl { local, init } => {
                let ty = &self.func.local(*local).ty;
                let p = self.locals[local.0 as usize];
                let v = match init {
                    Some(e) => {
                        let x = self.expr(e)?;
                        coerce(&mut self.b, brook, x, &e.ty, ty)
                    }
                    // A float local declared without a value starts at a literal zero, hidden
                    // as every float literal is (`brook_ir::exact`): naga's zero would be one
                    // the driver's compiler can fold.
                    None if ty.scalar() == Some(BScalar::Float) && ty.width().is_some() => {
                        let zero = Expr {
                            kind: ExprKind::Float(0.0),
                            ty: BType::FLOAT,
                            span: s.span,
                        };
                        let x = self.expr(&zero)?;
                        coerce(&mut self.b, brook, x, &zero.ty, ty)
                    }
                    None => {
                        let t = value_type(self.b.types, brook, ty);
                        self.b.zero(t)
                    }
                };
                self.b.store(p, v);
            }
            StmtKind::Assign { target, op, value } => self.assign(target, *op, value)?,
            StmtKind::Expr(e) => {
                self.expr(e)?;
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let c = self.condition(cond)?;
                let accept = self.lower_block_into(|l| l.block(then))?;
                let reject = self.lower_block_into(|l| l.block(otherwise))?;
                self.b.stmt(Statement::If {
                    condition: c,
                    accept,
                    reject,
                });
            }
            StmtKind::Loop {
                init,
                cond,
                step,
                body,
                test_first,
            } => self.lower_loop(init, cond.as_ref(), step, body, *test_first, s.span)?,
            StmtKind::Break => self.break_loop(),
            StmtKind::Continue => self.b.stmt(Statement::Continue),
            StmtKind::Return(None) => self.return_zero(),
            StmtKind::Return(Some(e)) => {
                let x = self.expr(e)?;
                let v = coerce(&mut self.b, brook, x, &e.ty, &self.func.ret);
                self.b.ret(Some(v));
            }
            StmtKind::Block(b) => self.block(b)?,
            StmtKind::Discard => {
                if self.in_continuing {
                    return Err(error("`discard` in a loop step", s.span));
                }
                self.discard();
            }
            StmtKind::Push { param, value } => self.push(*param, value, s)?,
        }
        Ok(())
    }

    /// A `bool` condition.
    pub fn condition(&mut self, e: &Expr) -> Lowered<naga::Handle<naga::Expression>> {
        let x = self.expr(e)?;
        Ok(coerce(&mut self.b, self.env.brook, x, &e.ty, &BType::BOOL))
    }

    /// `break`, counted as the loop's own exit when its loop is checked.
    fn break_loop(&mut self) {
        if let Some(&count) = self.open_loops.last() {
            let one = self.b.i32(1);
            self.b.increment(count, one);
        }
        self.b.stmt(Statement::Break);
    }

    fn lower_loop(
        &mut self,
        init: &Block,
        cond: Option<&Expr>,
        step: &Block,
        body: &Block,
        test_first: bool,
        span: brook_ir::Span,
    ) -> Lowered<()> {
        self.block(init)?;
        let first = if test_first {
            None
        } else {
            let t = self.b.types.bool();
            let yes = self.b.bool(true);
            Some(self.b.local_with("brook_first", t, yes))
        };
        let step_effects = step.iter().any(|s| match &s.kind {
            StmtKind::Assign { value, .. } | StmtKind::Expr(value) => has_effects(value),
            _ => true,
        });
        let checked = self.env.loop_check.zip(self.loop_counts.next());
        let before = checked.map(|(_, count)| self.b.load(count));
        let loop_body = self.lower_block_into(|l| {
            if let Some((_, count)) = checked {
                let zero = l
                    .branch_zero()
                    .expect("a module with a loop check has a zero");
                let u0 = l.b.u32(0);
                let never = l.b.ne(zero, u0);
                l.b.when(never, |b| {
                    let two = b.i32(2);
                    b.increment(count, two);
                    b.stmt(Statement::Break);
                });
                l.open_loops.push(count);
            }
            if let Some(c) = cond {
                let test = l.lower_block_into(|l| {
                    let go = l.condition(c)?;
                    let stop = l.b.not(go);
                    let leave = l.lower_block_into(|l| {
                        l.break_loop();
                        Ok(())
                    })?;
                    l.b.stmt(Statement::If {
                        condition: stop,
                        accept: leave,
                        reject: naga::Block::new(),
                    });
                    Ok(())
                })?;
                match first {
                    None => l.b.stmt(Statement::Block(test)),
                    Some(first) => {
                        let f = l.b.load(first);
                        let later = l.b.not(f);
                        l.b.stmt(Statement::If {
                            condition: later,
                            accept: test,
                            reject: naga::Block::new(),
                        });
                    }
                }
            }
            if let Some(first) = first {
                let no = l.b.bool(false);
                l.b.store(first, no);
            }
            l.block(body)
        });
        if checked.is_some() {
            self.open_loops.pop();
        }
        let loop_body = loop_body?;
        let was = std::mem::replace(&mut self.in_continuing, true);
        let mut break_if = None;
        let continuing = self.lower_block_into(|l| {
            l.block(step)?;
            if step_effects {
                let flag = l.b.global(l.env.discard);
                break_if = Some(l.b.load(flag));
            }
            Ok(())
        });
        self.in_continuing = was;
        let continuing = continuing?;
        self.b.loop_(loop_body, continuing, break_if);
        // A discard in the step left the loop by the `break if`: unwind before the check.
        if step_effects {
            self.check_discard();
        }
        if let (Some((check, count)), Some(before)) = (checked, before) {
            let after = self.b.load(count);
            let one = self.b.i32(1);
            let finished = self.b.add_(before, one);
            let cut = self.b.ne(after, finished);
            self.b.when(cut, |b| {
                let status = b.global(check.status);
                let first = b.index(status, 0);
                let at = b.u32(span.start + 1);
                let u32_ty = b.types.u32();
                b.atomic(naga::AtomicFunction::Max, first, at, u32_ty);
            });
        }
        Ok(())
    }

    /// `push(value)` onto a vout: stored as the next candidate while there is room (later
    /// pushes are dropped, as the CPU backend drops them).
    fn push(&mut self, param: u32, value: &Expr, s: &Stmt) -> Lowered<()> {
        let Some(VoutSlot {
            candidates,
            count,
            max,
        }) = self.vouts[param as usize]
        else {
            return Err(error("`push` onto a parameter that is not a vout", s.span));
        };
        let p = &self.func.params[param as usize];
        debug_assert!(matches!(p.class, ParamClass::Vout { .. }));
        let n = self.b.load(count);
        let limit = self.b.i32(max as i32);
        let room = self.b.lt(n, limit);
        let block = self.lower_block_into(|l| {
            let x = l.expr(value)?;
            let v = coerce(&mut l.b, l.env.brook, x, &value.ty, &p.ty);
            let slot = l.b.access(candidates, n);
            l.b.store(slot, v);
            let one = l.b.i32(1);
            let next = l.b.add_(n, one);
            l.b.store(count, next);
            Ok(())
        })?;
        self.b.stmt(Statement::If {
            condition: room,
            accept: block,
            reject: naga::Block::new(),
        });
        Ok(())
    }
}
