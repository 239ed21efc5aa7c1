//! Statements: structured control flow stays structured; the executor narrows the mask.

use brook_frontend::ir::{Expr, Stmt, StmtKind};

use super::expr::writes_below_root;
use super::{no, Compiler, Res, Scope};
use crate::batch::program::{Block, Ins, Kind, Reg, Val};

impl<'m> Compiler<'m> {
    /// A block, each statement's temporaries freed after it.
    pub(crate) fn block(&mut self, s: &mut Scope<'m>, b: &'m [Stmt]) -> Res<Block> {
        let mut out = Vec::new();
        for st in b {
            self.scoped(|c| c.stmt(s, st, &mut out))?;
        }
        Ok(out)
    }

    /// The expression of a statement.
    fn top(&mut self, s: &mut Scope<'m>, e: &'m Expr, out: &mut Block) -> Res<Val> {
        self.copy_reads = writes_below_root(e);
        self.expr(s, e, out)
    }

    /// The truth of a condition (its first component, as the interpreter's `truth`).
    fn cond(&mut self, s: &mut Scope<'m>, e: &'m Expr, out: &mut Block) -> Res<Reg> {
        let v = self.top(s, e, out)?;
        let Some(&r) = v.regs.first().filter(|_| super::width(&v.ty) > 0) else {
            return no("condition that is not a scalar");
        };
        Ok(self.conv(r, Kind::B, out))
    }

    fn stmt(&mut self, s: &mut Scope<'m>, st: &'m Stmt, out: &mut Block) -> Res<()> {
        match &st.kind {
            StmtKind::Decl { local, init } => {
                let l = local.0 as usize;
                let Some(target) = s.locals.get(l).cloned() else {
                    return no("missing local");
                };
                let v = match init {
                    Some(e) => {
                        let v = self.top(s, e, out)?;
                        self.coerce(v, &target.ty, out)?
                    }
                    None => self.zero(&target.ty)?,
                };
                self.store_last(target.regs, v.regs, Vec::new(), out)?;
            }
            StmtKind::Assign { target, op, value } => {
                self.copy_reads = writes_below_root(value);
                self.assign(s, target, *op, value, out)?;
            }
            StmtKind::Expr(e) => {
                self.top(s, e, out)?;
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.cond(s, cond, out)?;
                let then = self.block(s, then)?;
                let otherwise = self.block(s, otherwise)?;
                out.push(Ins::If {
                    cond,
                    then,
                    otherwise,
                });
            }
            StmtKind::Loop {
                init,
                cond,
                step,
                body,
                test_first,
            } => {
                let init = self.block(s, init)?;
                let cond = match cond {
                    Some(e) => {
                        let mut ops = Vec::new();
                        let r = self.cond(s, e, &mut ops)?;
                        Some((ops, r))
                    }
                    None => None,
                };
                let body = self.block(s, body)?;
                let step = self.block(s, step)?;
                out.push(Ins::Loop {
                    init,
                    cond,
                    step,
                    body,
                    test_first: *test_first,
                });
            }
            StmtKind::Break => out.push(Ins::Break),
            StmtKind::Continue => out.push(Ins::Continue),
            StmtKind::Discard => out.push(Ins::Discard),
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    let v = self.top(s, e, out)?;
                    if let Some(ret) = s.ret.clone() {
                        let v = self.coerce(v, &s.func.ret, out)?;
                        self.store_last(ret.regs, v.regs, Vec::new(), out)?;
                    }
                }
                out.push(Ins::Return);
            }
            StmtKind::Block(b) => {
                let b = self.block(s, b)?;
                out.extend(b);
            }
            StmtKind::Push { .. } => return no("vout (push)"),
        }
        Ok(())
    }
}
