//! Assignments: `target = value` and `target op= value` (the CPU's `assign`).
//!
//! The place's path is walked on pointers (member, element, row or component: out-of-range
//! indices clamp). A swizzle is a write mask: from the first swizzle on, the place is a list
//! of components of one vector, and the value is stored component by component.

use brook_ir::{Access, BinaryOp, Expr, Place, PlaceRoot, Scalar as BScalar, Type as BType};
use naga::{Expression, Handle};

use super::expr::indexed_len;
use super::function::{FnLower, ParamSlot};
use super::module::error;
use super::ops::{binary, coerce};
use super::Lowered;

impl FnLower<'_, '_> {
    pub fn assign(&mut self, target: &Place, op: Option<BinaryOp>, value: &Expr) -> Lowered<()> {
        let brook = self.env.brook;
        let (mut ptr, mut ty) = match target.root {
            PlaceRoot::Local(l) => (self.locals[l.0 as usize], self.func.local(l).ty.clone()),
            PlaceRoot::Param(p) => match self.params[p as usize] {
                ParamSlot::Var(ptr) => (ptr, self.func.params[p as usize].ty.clone()),
                _ => return Err(error("assignment to a gather or vout", value.span)),
            },
        };
        // The components written, once a swizzle has been met (of the vector at `ptr`).
        let mut mask: Option<Vec<u8>> = None;
        for step in &target.path {
            match (step, &mut mask) {
                (Access::Member(i), None) => {
                    ptr = self.b.index(ptr, *i);
                    ty = match &ty {
                        BType::Struct(id) => brook.struct_def(*id).members[*i as usize].ty.clone(),
                        other => other.clone(),
                    };
                }
                (Access::Index(i), None) => {
                    let len = indexed_len(&ty);
                    let i = self.clamped_index(i, len)?;
                    ptr = self.b.access(ptr, i);
                    ty = match &ty {
                        BType::Array(elem, _) => (**elem).clone(),
                        BType::Vector(s, _) => BType::Scalar(*s),
                        BType::Matrix { cols, .. } => BType::Vector(BScalar::Float, *cols),
                        other => other.clone(),
                    };
                }
                (Access::Swizzle(sel), None) => {
                    // A swizzle of a scalar (`x.x = …`) writes the scalar itself.
                    mask = Some(if ty.width() == Some(1) {
                        vec![0; sel.len()]
                    } else {
                        sel.clone()
                    });
                }
                (Access::Swizzle(sel), Some(m)) => {
                    *m = sel.iter().map(|&k| m[k as usize]).collect();
                }
                (Access::Index(i), Some(m)) => match i.kind {
                    brook_ir::ExprKind::Int(k) => {
                        let k = (k.max(0) as usize).min(m.len() - 1);
                        *m = vec![m[k]];
                    }
                    _ => {
                        return Err(error(
                            "a computed index into a swizzle cannot be assigned",
                            i.span,
                        ))
                    }
                },
                (Access::Member(_), Some(_)) => {
                    return Err(error("a member of a swizzle", value.span));
                }
            }
        }
        let x = self.expr(value)?;
        let place_ty = &target.ty;
        let scalar_place = ty.width() == Some(1);
        let current = |l: &mut Self| -> Handle<Expression> {
            let whole = l.b.load(ptr);
            match &mask {
                Some(m) if !scalar_place => l.b.swizzle(whole, m),
                Some(m) => l.b.splat(whole, m.len() as u8),
                None => whole,
            }
        };
        let new = match op {
            None => coerce(&mut self.b, brook, x, &value.ty, place_ty),
            Some(op) => {
                let old = current(self);
                // Mixed kinds are computed in float, as the CPU promotes them.
                let (old, ot, x, xt) = match (place_ty.scalar(), value.ty.scalar()) {
                    (Some(p), Some(v)) if p != v && !matches!(place_ty, BType::Matrix { .. }) => {
                        let ot = BType::vector(BScalar::Float, place_ty.width().unwrap_or(1));
                        let xt = BType::vector(BScalar::Float, value.ty.width().unwrap_or(1));
                        let old = coerce(&mut self.b, brook, old, place_ty, &ot);
                        let x = coerce(&mut self.b, brook, x, &value.ty, &xt);
                        (old, ot, x, xt)
                    }
                    _ => (old, place_ty.clone(), x, value.ty.clone()),
                };
                let rt = result_type(op, &ot, &xt);
                let r = binary(&mut self.b, brook, op, (old, &ot), (x, &xt), &rt);
                coerce(&mut self.b, brook, r, &rt, place_ty)
            }
        };
        match mask {
            None => self.b.store(ptr, new),
            Some(m) if scalar_place => {
                let last = if m.len() == 1 {
                    new
                } else {
                    self.b.index(new, m.len() as u32 - 1)
                };
                self.b.store(ptr, last);
            }
            Some(m) => {
                for (k, &c) in m.iter().enumerate() {
                    let part = if m.len() == 1 {
                        new
                    } else {
                        self.b.index(new, k as u32)
                    };
                    let dst = self.b.index(ptr, u32::from(c));
                    self.b.store(dst, part);
                }
            }
        }
        Ok(())
    }
}

/// The type `a op b` has (comparisons give booleans; a scalar side takes the other's width).
fn result_type(op: BinaryOp, a: &BType, b: &BType) -> BType {
    use BinaryOp::*;
    let n = a.width().unwrap_or(1).max(b.width().unwrap_or(1));
    match op {
        Eq | Ne | Lt | Le | Gt | Ge | And | Or => BType::vector(BScalar::Bool, n),
        _ if matches!(a, BType::Matrix { .. }) => a.clone(),
        _ => BType::vector(a.scalar().unwrap_or(BScalar::Float), n),
    }
}
