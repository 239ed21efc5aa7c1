//! Statements: structured control flow becomes blocks and branches (the interpreter's
//! `exec`).

use brook_ir::{ExprKind, Scalar, Stmt, StmtKind};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, StackSlotData, StackSlotKind, Value};

use super::memory::{encode, Layout};
use super::num::{convert, Val};
use super::ops::truth;
use super::{no, Lower, Res, Scope};
use crate::jit::runtime::Call;

impl<'m> Lower<'m, '_, '_, '_> {
    pub fn block(&mut self, s: &mut Scope<'m>, b: &'m [Stmt]) -> Res<()> {
        self.gathered = None;
        for st in b {
            self.stmt(s, st)?;
        }
        self.gathered = None;
        Ok(())
    }

    fn stmt(&mut self, s: &mut Scope<'m>, st: &'m Stmt) -> Res<()> {
        // A gather's components are reused only by the declarations that follow it in the
        // same block: nothing between can change its subscripts' values, and its code
        // dominates them.
        if !gather_decl(st) {
            self.gathered = None;
        }
        match &st.kind {
            StmtKind::Decl { local, init } => {
                let l = local.0 as usize;
                let (Some(store), Some(decl)) = (s.locals.get(l).cloned(), s.func.locals.get(l))
                else {
                    return no("missing local");
                };
                let v = match init {
                    Some(e) => {
                        let v = self.eval(s, e)?;
                        self.coerce(v, &decl.ty)?
                    }
                    None => self.zero(&decl.ty)?,
                };
                self.write(&store, &v)?;
            }
            StmtKind::Assign { target, op, value } => self.assign(s, target, *op, value)?,
            StmtKind::Expr(e) => {
                self.eval(s, e)?;
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let c = self.eval(s, cond)?;
                let t = self.condition(&c)?;
                self.if_else(s, t, |l, s| l.block(s, then), |l, s| l.block(s, otherwise))?;
            }
            StmtKind::Loop {
                init,
                cond,
                step,
                body,
                test_first,
            } => {
                self.block(s, init)?;
                let (test, run, next, exit) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().jump(if *test_first { test } else { run }, &[]);
                self.b.switch_to_block(test);
                match cond {
                    Some(c) => {
                        let v = self.eval(s, c)?;
                        let t = self.condition(&v)?;
                        self.loop_test(t, run, exit);
                    }
                    None => {
                        self.b.ins().jump(run, &[]);
                    }
                }
                self.b.seal_block(run);
                self.b.switch_to_block(run);
                s.loops.push((next, exit));
                let lowered = self.block(s, body);
                s.loops.pop();
                lowered?;
                self.b.ins().jump(next, &[]);
                self.b.seal_block(next);
                self.b.switch_to_block(next);
                self.block(s, step)?;
                self.back_edge();
                self.b.ins().jump(test, &[]);
                self.b.seal_block(test);
                self.b.seal_block(exit);
                self.b.switch_to_block(exit);
            }
            StmtKind::Break | StmtKind::Continue => {
                let Some(&(next, exit)) = s.loops.last() else {
                    return no("break or continue outside a loop");
                };
                let to = if matches!(st.kind, StmtKind::Break) {
                    exit
                } else {
                    next
                };
                self.b.ins().jump(to, &[]);
                self.unreachable_rest();
            }
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    let v = self.eval(s, e)?;
                    if let Some(ret) = s.ret.clone() {
                        let v = self.coerce(v, &s.func.ret)?;
                        self.write(&ret, &v)?;
                    }
                }
                self.b.ins().jump(s.exit, &[]);
                self.unreachable_rest();
            }
            StmtKind::Block(b) => self.block(s, b)?,
            StmtKind::Discard => {
                self.b.ins().jump(self.discard, &[]);
                self.unreachable_rest();
            }
            StmtKind::Push { param, value } => self.push(s, *param, value)?,
        }
        Ok(())
    }

    /// Whether a branch or loop condition holds. In code for four elements, it must hold for
    /// all four lanes or for none: a quad whose lanes disagree leaves for [`Lower::soa`].
    fn condition(&mut self, c: &Val) -> Res<Value> {
        let (Some(quad), Some(x)) = (self.soa, c.num()) else {
            return truth(self.b, c);
        };
        if x.n == 1 {
            return truth(self.b, c);
        }
        let mask = convert(self.b, x, Scalar::Bool).v;
        let all = self.b.ins().vall_true(mask);
        let any = self.b.ins().vany_true(mask);
        let split = self.b.ins().bxor(all, any);
        let agree = self.b.create_block();
        self.b.ins().brif(split, quad.bail, &[], agree, &[]);
        self.b.seal_block(agree);
        self.b.switch_to_block(agree);
        Ok(all)
    }

    /// `push(value)` onto vout `param`: kept while the element has pushed fewer than the
    /// vout's N values (GL has room for N), handed to the tile's buffer.
    fn push(&mut self, s: &mut Scope<'m>, param: u32, value: &'m brook_ir::Expr) -> Res<()> {
        let (Some(Some(vout)), Some(state)) =
            (s.vouts.get(param as usize).copied(), self.vout_state)
        else {
            return no("push onto a parameter that is not a vout of the kernel");
        };
        let count = self.b.use_var(vout.count);
        let room = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, count, vout.max as i64);
        let (keep, done) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(room, keep, &[], done, &[]);
        self.b.seal_block(keep);
        self.b.switch_to_block(keep);
        let v = self.eval(s, value)?;
        let v = self.coerce(v, &s.func.params[param as usize].ty)?;
        let floats = crate::value::Value::flat_len(&s.func.params[param as usize].ty, self.module);
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (4 * floats.max(4)) as u32,
            4,
        ));
        let addr = self.b.ins().stack_addr(self.ptr, slot, 0);
        encode(self.b, &v, addr, &mut 0, Layout::Stream)?;
        let push = self.imports.get(self.b.func, Call::VoutPush);
        let k = self.b.ins().iconst(types::I32, vout.index as i64);
        self.b.ins().call(push, &[state, k, addr]);
        let more = self.b.ins().iadd_imm_s(count, 1);
        self.b.def_var(vout.count, more);
        self.b.ins().jump(done, &[]);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        Ok(())
    }
}

/// Whether `st` declares a local holding one component of a gather (split's hoisting).
fn gather_decl(st: &Stmt) -> bool {
    match &st.kind {
        StmtKind::Decl { init: Some(e), .. } => match &e.kind {
            ExprKind::Index(a, c) => {
                matches!(a.kind, ExprKind::Gather { .. }) && matches!(c.kind, ExprKind::Int(_))
            }
            _ => false,
        },
        _ => false,
    }
}
