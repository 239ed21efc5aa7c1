//! Assignment targets: a place resolves to one or more register sets; a computed index
//! (`w[i] = …`) gives one alternative per element, each guarded by "this lane's index is k".

use brook_frontend::ir::{Access, BinaryOp, Expr, Place, PlaceRoot, Type};

use super::expr::{elements, index_static, swizzle};
use super::{literal, no, Bind, Compiler, Res, Scope};
use crate::batch::program::{Block, Ins, Reg, Val, When};
use crate::exec::index_of_value;

/// One register set a place may denote, and the lane conditions under which it does.
#[derive(Debug, Clone)]
pub(crate) struct Alt {
    pub when: Vec<When>,
    pub val: Val,
}

impl<'m> Compiler<'m> {
    /// Masked store of `src` into `dst` (kinds converted), copying `src` first when it
    /// shares registers with `dst` in other positions (`v = v.yx`).
    pub(crate) fn store(
        &mut self,
        dst: Vec<Reg>,
        src: Vec<Reg>,
        when: Vec<When>,
        out: &mut Block,
    ) -> Res<()> {
        self.store_with(dst, src, when, false, out)
    }

    /// A [`Compiler::store`] that ends its statement: nothing reads `src` afterwards, so
    /// when `src` is the statement's own distinct temporaries the store may move them.
    pub(crate) fn store_last(
        &mut self,
        dst: Vec<Reg>,
        src: Vec<Reg>,
        when: Vec<When>,
        out: &mut Block,
    ) -> Res<()> {
        self.store_with(dst, src, when, true, out)
    }

    fn store_with(
        &mut self,
        dst: Vec<Reg>,
        src: Vec<Reg>,
        when: Vec<When>,
        last: bool,
        out: &mut Block,
    ) -> Res<()> {
        if dst.len() != src.len() {
            return no("store of a value of another size");
        }
        let mut src: Vec<Reg> = src
            .iter()
            .zip(&dst)
            .map(|(&a, d)| self.conv(a, d.kind, out))
            .collect();
        let overlaps = src
            .iter()
            .enumerate()
            .any(|(k, a)| dst.iter().enumerate().any(|(j, d)| d == a && j != k));
        if overlaps {
            for a in src.iter_mut() {
                let d = self.reg(a.kind);
                out.push(Ins::Copy { d, a: *a });
                *a = d;
            }
        }
        let moves = last
            && when.is_empty()
            && src.iter().all(|&r| self.is_temp(r))
            && src
                .iter()
                .enumerate()
                .all(|(k, a)| !src[..k].contains(a) && !dst.contains(a));
        out.push(Ins::Store {
            dst,
            src,
            when,
            moves,
        });
        Ok(())
    }

    /// The register sets `target` denotes (index expressions evaluated now, before the value,
    /// as the interpreter does).
    fn place(&mut self, s: &mut Scope<'m>, target: &'m Place, out: &mut Block) -> Res<Vec<Alt>> {
        let root = match target.root {
            PlaceRoot::Local(l) => s.locals.get(l.0 as usize).cloned(),
            PlaceRoot::Param(p) => match s.params.get(p as usize) {
                Some(Bind::Value(v)) => Some(v.clone()),
                _ => None,
            },
        };
        let Some(root) = root else {
            return no("assignment to something that is not a variable");
        };
        let mut alts = vec![Alt {
            when: Vec::new(),
            val: root,
        }];
        for step in &target.path {
            match step {
                Access::Member(i) => {
                    for a in alts.iter_mut() {
                        a.val = self.member(&a.val, *i)?;
                    }
                }
                Access::Swizzle(sel) => {
                    for a in alts.iter_mut() {
                        a.val = swizzle(&a.val, sel)?;
                    }
                }
                Access::Index(e) => alts = self.index_step(s, alts, e, out)?,
            }
        }
        Ok(alts)
    }

    fn index_step(
        &mut self,
        s: &mut Scope<'m>,
        alts: Vec<Alt>,
        e: &'m Expr,
        out: &mut Block,
    ) -> Res<Vec<Alt>> {
        if let Some(lit) = literal(e) {
            let i = index_of_value(&lit).map_err(|e| super::Unbatchable(e.to_string()))?;
            return alts
                .into_iter()
                .map(|a| {
                    Ok(Alt {
                        val: index_static(&a.val, i, self.module)?,
                        when: a.when,
                    })
                })
                .collect();
        }
        let v = self.expr(s, e, out)?;
        // A copy, so a later write to the index variable cannot move the target.
        let reg = self.reg(v.regs[0].kind);
        out.push(Ins::Copy {
            d: reg,
            a: v.regs[0],
        });
        let mut next = Vec::new();
        for a in alts {
            let els = elements(&a.val, self.module)?;
            let len = els.len();
            for (value, val) in els.into_iter().enumerate() {
                let mut when = a.when.clone();
                when.push(When { reg, value, len });
                next.push(Alt { when, val });
            }
        }
        Ok(next)
    }

    /// `target = value` or `target op= value` (the interpreter's `assign`).
    pub(crate) fn assign(
        &mut self,
        s: &mut Scope<'m>,
        target: &'m Place,
        op: Option<BinaryOp>,
        value: &'m Expr,
        out: &mut Block,
    ) -> Res<()> {
        let alts = self.place(s, target, out)?;
        let rhs = self.expr(s, value, out)?;
        let ty = alts[0].val.ty.clone();
        let new = match op {
            None => rhs,
            Some(op) => {
                let current = self.load(&alts, out)?;
                self.binary(op, current, rhs, out)?
            }
        };
        let new = match ty {
            Type::Scalar(_) | Type::Vector(..) | Type::Matrix { .. } => {
                self.coerce(new, &ty, out)?
            }
            _ => new,
        };
        if let [one] = alts.as_slice() {
            return self.store_last(one.val.regs.clone(), new.regs, one.when.clone(), out);
        }
        for a in alts {
            self.store(a.val.regs, new.regs.clone(), a.when, out)?;
        }
        Ok(())
    }

    /// The current value of a place.
    fn load(&mut self, alts: &[Alt], out: &mut Block) -> Res<Val> {
        if let [one] = alts {
            if one.when.is_empty() {
                return Ok(one.val.clone());
            }
        }
        let d = self.alloc(&alts[0].val.ty)?;
        for a in alts {
            self.store(d.regs.clone(), a.val.regs.clone(), a.when.clone(), out)?;
        }
        Ok(d)
    }
}
