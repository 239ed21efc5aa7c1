//! Assignment to places (`r.pos.xz = …`, `w[i] += …`): the interpreter's `assign`, `load` and
//! `store`, as a functional update. The whole variable is read, the path's part of it
//! replaced, and the variable written back; unchanged parts are the same SSA values, so this
//! costs nothing for them. A computed index picks its element with selects, clamped like the
//! interpreter's index.

use brook_ir::{Access, BinaryOp, Expr, Place, PlaceRoot, Type};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value};

use super::expr::{clamp_index, clamp_static, literal_index, select_val};
use super::num::{convert, set_lane, swizzle, Num, Val};
use super::ops::index_value;
use super::{no, Bind, Lower, Res, Scope};

/// One resolved step of a place path (index expressions already evaluated).
#[derive(Debug, Clone, Copy)]
enum Step<'a> {
    Member(usize),
    /// A computed `i64` index, or a literal one.
    Index(Result<Value, i64>),
    Swizzle(&'a [u8]),
}

/// The type a stored value is converted to: that of the scalar, vector or matrix it replaces.
fn type_of(v: &Val) -> Option<Type> {
    match v {
        Val::Num(x) => Some(Type::vector(x.s, x.n)),
        Val::Mat(rows) => Some(Type::Matrix {
            rows: rows.len() as u8,
            cols: rows.first().map_or(1, |r| r.n),
        }),
        _ => None,
    }
}

impl<'m> Lower<'m, '_, '_, '_> {
    /// `target = value` or `target op= value`.
    pub fn assign(
        &mut self,
        s: &mut Scope<'m>,
        target: &'m Place,
        op: Option<BinaryOp>,
        value: &'m Expr,
    ) -> Res<()> {
        let mut steps = Vec::with_capacity(target.path.len());
        for a in &target.path {
            steps.push(match a {
                Access::Member(i) => Step::Member(*i as usize),
                Access::Swizzle(sel) => Step::Swizzle(sel),
                Access::Index(e) => Step::Index(match literal_index(e) {
                    Some(k) => Err(k),
                    None => {
                        let v = self.eval(s, e)?;
                        Ok(index_value(self.b, &v)?)
                    }
                }),
            });
        }
        let rhs = self.eval(s, value)?;
        let store = match target.root {
            PlaceRoot::Local(l) => s.locals.get(l.0 as usize).cloned(),
            PlaceRoot::Param(p) => match s.params.get(p as usize) {
                Some(Bind::Value(st)) => Some(st.clone()),
                _ => None,
            },
        }
        .ok_or_else(|| {
            super::Unjittable("assignment to something that is not a variable".into())
        })?;
        let root = self.read(&store);
        let new = match op {
            None => rhs,
            Some(op) => {
                let current = self.load(&root, &steps)?;
                self.binary(op, current, rhs)?
            }
        };
        let updated = self.update(&root, &steps, new)?;
        self.write(&store, &updated)
    }

    fn load(&mut self, v: &Val, steps: &[Step]) -> Res<Val> {
        let Some((step, rest)) = steps.split_first() else {
            return Ok(v.clone());
        };
        let part = match *step {
            Step::Member(i) => match v {
                Val::Agg(parts) if i < parts.len() => parts[i].clone(),
                _ => return no(format!("member {i} of {v:?}")),
            },
            Step::Index(i) => self.index(v, i)?,
            Step::Swizzle(sel) => {
                let x = v.num().ok_or_else(|| super::Unjittable("swizzle".into()))?;
                Val::Num(
                    swizzle(self.b, x, sel)
                        .ok_or_else(|| super::Unjittable(format!("swizzle {sel:?}")))?,
                )
            }
        };
        self.load(&part, rest)
    }

    /// `v` with the part at `steps` replaced by `x` (the interpreter's `store`).
    fn update(&mut self, v: &Val, steps: &[Step], x: Val) -> Res<Val> {
        let Some((step, rest)) = steps.split_first() else {
            return match type_of(v) {
                Some(ty) => self.coerce(x, &ty),
                None => Ok(x),
            };
        };
        match (*step, v) {
            (Step::Member(i), Val::Agg(parts)) if i < parts.len() => {
                let mut parts = parts.clone();
                parts[i] = self.update(&parts[i], rest, x)?;
                Ok(Val::Agg(parts))
            }
            (Step::Index(i), Val::Agg(parts)) => {
                let new = self.update_parts(parts, i, rest, x)?;
                Ok(Val::Agg(new))
            }
            (Step::Index(i), Val::Mat(rows)) => {
                let parts: Vec<Val> = rows.iter().map(|r| Val::Num(*r)).collect();
                let new = self.update_parts(&parts, i, rest, x)?;
                let rows = new
                    .into_iter()
                    .map(|p| {
                        p.num()
                            .ok_or_else(|| super::Unjittable("matrix row".into()))
                    })
                    .collect::<Res<_>>()?;
                Ok(Val::Mat(rows))
            }
            (Step::Index(i), Val::Num(n)) => {
                let comps: Vec<Val> = n
                    .lanes(self.b)
                    .into_iter()
                    .map(|c| Val::Num(Num::scalar(n.s, c)))
                    .collect();
                let new = self.update_parts(&comps, i, rest, x)?;
                let mut out = *n;
                for (k, c) in new.iter().enumerate() {
                    let c = c
                        .num()
                        .ok_or_else(|| super::Unjittable("component".into()))?;
                    let first = Num::scalar(c.s, c.lane(self.b, 0));
                    let c = convert(self.b, first, n.s);
                    out = set_lane(self.b, out, k, c.v);
                }
                Ok(Val::Num(out))
            }
            (Step::Swizzle(sel), Val::Num(n)) => {
                let sub = swizzle(self.b, *n, sel)
                    .ok_or_else(|| super::Unjittable(format!("write mask {sel:?}")))?;
                let sub = self.update(&Val::Num(sub), rest, x)?;
                let sub = sub
                    .num()
                    .ok_or_else(|| super::Unjittable("write mask".into()))?;
                let mut out = *n;
                for (k, &j) in sel.iter().enumerate() {
                    // A swizzle of a scalar (`x.x = …`) writes the scalar itself.
                    let j = if n.n == 1 { 0 } else { j as usize };
                    let c = Num::scalar(sub.s, sub.lane(self.b, k));
                    let c = convert(self.b, c, n.s);
                    out = set_lane(self.b, out, j, c.v);
                }
                Ok(Val::Num(out))
            }
            _ => no(format!("assignment through {step:?} of {v:?}")),
        }
    }

    /// `parts` with element `i` (clamped) updated at `rest` by `x`; a computed index updates
    /// every candidate and keeps the one whose index matches.
    fn update_parts(
        &mut self,
        parts: &[Val],
        i: Result<Value, i64>,
        rest: &[Step],
        x: Val,
    ) -> Res<Vec<Val>> {
        let mut out = parts.to_vec();
        match i {
            Err(k) => {
                let k = clamp_static(k, parts.len());
                out[k] = self.update(&parts[k], rest, x)?;
            }
            Ok(i) => {
                let i = clamp_index(self, i, parts.len());
                for (k, p) in parts.iter().enumerate() {
                    let cand = self.update(p, rest, x.clone())?;
                    let hit = self.b.ins().icmp_imm_s(IntCC::Equal, i, k as i64);
                    out[k] = select_val(self, hit, &cand, p)?;
                }
            }
        }
        Ok(out)
    }
}
