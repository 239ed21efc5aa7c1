//! Expressions: one rule per `ExprKind`, evaluated left to right like the interpreter's
//! `eval`.

use brook_ir::{BinaryOp, Builtin, Expr, ExprKind, Scalar, Type};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, MemFlagsData, Value};

use super::address::{gather_component, gather_lanes, ravel, GatherRef};
use super::effects::has_effects;
use super::memory::{decode, Layout};
use super::num::{from_lanes, swizzle, vconst, Comp, Num, Val};
use super::ops::{index_value, truth};
use super::{no, transpose, Bind, Lower, Res, Scope};

/// `clamp_index`: `i` clamped to `[0, len - 1]`, as an `i64`.
pub(crate) fn clamp_index(l: &mut Lower, i: Value, len: usize) -> Value {
    let b = &mut *l.b;
    let zero = b.ins().iconst(types::I64, 0);
    let last = b.ins().iconst(types::I64, len.saturating_sub(1) as i64);
    let i = b.ins().smax(i, zero);
    b.ins().smin(i, last)
}

/// `a` where `c` (an `i8` truth) holds, else `b`, for values of one shape.
pub(crate) fn select_val(l: &mut Lower, c: Value, a: &Val, b: &Val) -> Res<Val> {
    Ok(match (a, b) {
        (Val::Void, Val::Void) => Val::Void,
        (Val::Num(x), Val::Num(y)) if x.s == y.s && x.n == y.n => Val::Num(Num {
            v: l.b.ins().select(c, x.v, y.v),
            ..*x
        }),
        (Val::Mat(x), Val::Mat(y)) if x.len() == y.len() => Val::Mat(
            x.iter()
                .zip(y)
                .map(|(p, q)| Num {
                    v: l.b.ins().select(c, p.v, q.v),
                    ..*p
                })
                .collect(),
        ),
        (Val::Agg(x), Val::Agg(y)) if x.len() == y.len() => Val::Agg(
            x.iter()
                .zip(y)
                .map(|(p, q)| select_val(l, c, p, q))
                .collect::<Res<_>>()?,
        ),
        _ => return no(format!("select between {a:?} and {b:?}")),
    })
}

/// The parts `v[i]` may select: array elements, vector components, matrix rows.
pub(crate) fn elements(l: &mut Lower, v: &Val) -> Res<Vec<Val>> {
    Ok(match v {
        Val::Agg(parts) => parts.clone(),
        Val::Num(x) => x
            .lanes(l.b)
            .into_iter()
            .map(|c| Val::Num(Num::scalar(x.s, c)))
            .collect(),
        Val::Mat(rows) => rows.iter().map(|r| Val::Num(*r)).collect(),
        Val::Void => return no("indexing void"),
    })
}

/// The literal index of `e`, if it is a literal (the interpreter's `index_of_value`).
pub(crate) fn literal_index(e: &Expr) -> Option<i64> {
    match e.kind {
        ExprKind::Int(i) => Some(i as i64),
        ExprKind::Float(x) => Some(x as i64),
        ExprKind::Bool(b) => Some(b as i64),
        _ => None,
    }
}

pub(crate) use crate::exec::clamp_index as clamp_static;

impl<'m> Lower<'m, '_, '_, '_> {
    /// The value of `e`. In code for four elements, a value its rules leave scalar (a
    /// literal) is splat to the four lanes its type says.
    pub fn eval(&mut self, s: &mut Scope<'m>, e: &'m Expr) -> Res<Val> {
        let v = self.eval_kind(s, e)?;
        Ok(match (self.soa, v, &e.ty) {
            (Some(_), Val::Num(x), Type::Vector(_, n)) if x.n == 1 => Val::Num(x.widen(self.b, *n)),
            (_, v, _) => v,
        })
    }

    fn eval_kind(&mut self, s: &mut Scope<'m>, e: &'m Expr) -> Res<Val> {
        let b = &mut *self.b;
        Ok(match &e.kind {
            ExprKind::Float(x) => Val::Num(Num::scalar(Scalar::Float, b.ins().f32const(*x))),
            ExprKind::Int(i) => Val::Num(Num::scalar(
                Scalar::Int,
                b.ins().iconst(types::I32, *i as i64),
            )),
            ExprKind::Bool(v) => Val::Num(Num::scalar(
                Scalar::Bool,
                b.ins().iconst(types::I8, *v as i64),
            )),
            ExprKind::Local(l) => {
                let st = s
                    .locals
                    .get(l.0 as usize)
                    .cloned()
                    .ok_or_else(|| super::Unjittable("missing local".into()))?;
                self.read(&st)
            }
            ExprKind::Param(p) => match s.params.get(*p as usize) {
                Some(Bind::Value(st)) => {
                    let st = st.clone();
                    self.read(&st)
                }
                _ => return no("a gather parameter read without a subscript"),
            },
            ExprKind::Unary(op, a) => {
                let v = self.eval(s, a)?;
                self.unary(*op, v)?
            }
            ExprKind::Binary(op @ (BinaryOp::And | BinaryOp::Or), a, c) => {
                self.logical(s, *op, a, c)?
            }
            ExprKind::Binary(op, a, c) => {
                let x = self.eval(s, a)?;
                let y = self.eval(s, c)?;
                self.binary(*op, x, y)?
            }
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => self.select(s, cond, accept, reject)?,
            ExprKind::Convert(a) => {
                let v = self.eval(s, a)?;
                self.coerce(v, &e.ty)?
            }
            ExprKind::Construct(parts) => self.construct(s, &e.ty, parts)?,
            ExprKind::Swizzle(a, sel) => {
                // In code for four elements, `indexof(p).x` of a stream read at the element's
                // own position: that component of the four elements' positions.
                let quad = self.soa.and_then(|q| q.position);
                if let (Some(pos), ExprKind::IndexOf(_), [c]) = (quad, &a.kind, sel.as_slice()) {
                    return Ok(Val::Num(pos[(*c as usize).min(3)]));
                }
                let v = self.eval(s, a)?;
                let x = v.num().ok_or_else(|| super::Unjittable("swizzle".into()))?;
                Val::Num(
                    swizzle(self.b, x, sel)
                        .ok_or_else(|| super::Unjittable(format!("swizzle {sel:?}")))?,
                )
            }
            ExprKind::Member(a, i) => match self.eval(s, a)? {
                Val::Agg(mut parts) if (*i as usize) < parts.len() => {
                    parts.swap_remove(*i as usize)
                }
                v => return no(format!("member {i} of {v:?}")),
            },
            // In code for four elements, component `c` of a gather of vectors (split's
            // `component`): that component of each lane's element.
            ExprKind::Index(a, i) if self.soa.is_some() && literal_index(i).is_some() => {
                match (&a.kind, literal_index(i)) {
                    (ExprKind::Gather { param, indices }, Some(c)) => {
                        self.gather(s, *param, indices, c as usize)?
                    }
                    _ => {
                        let v = self.eval(s, a)?;
                        self.index(&v, Err(literal_index(i).unwrap_or(0)))?
                    }
                }
            }
            ExprKind::Index(a, i) => {
                let idx = match literal_index(i) {
                    Some(k) => Err(k),
                    None => {
                        let iv = self.eval(s, i)?;
                        Ok(index_value(self.b, &iv)?)
                    }
                };
                let v = self.eval(s, a)?;
                self.index(&v, idx)?
            }
            ExprKind::Gather { param, indices } => self.gather(s, *param, indices, 0)?,
            ExprKind::IndexOf(p) => match s.positions.get(*p as usize) {
                Some(Some(pos)) => Val::Num(*pos),
                Some(None) => self.zero(&Type::Vector(Scalar::Float, 4))?,
                None => return no("indexof of a missing parameter"),
            },
            ExprKind::Builtin(bi @ (Builtin::Frexp | Builtin::Modf), args) => {
                self.out_builtin(s, *bi, args)?
            }
            ExprKind::Builtin(bi, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(s, a)?);
                }
                let r = self.builtin(*bi, &vals)?;
                match (r.num().map(|x| x.s), e.ty.scalar()) {
                    (Some(have), Some(want)) if have != want => self.coerce(r, &e.ty)?,
                    _ => r,
                }
            }
            ExprKind::Call(f, args) => self.call(s, *f, args)?,
        })
    }

    /// `v[i]`: `Err(k)` is a literal index, `Ok(i)` a computed `i64` one (clamped either way).
    pub fn index(&mut self, v: &Val, i: Result<Value, i64>) -> Res<Val> {
        let els = elements(self, v)?;
        match i {
            Err(k) => {
                let k = clamp_static(k, els.len());
                Ok(els[k].clone())
            }
            Ok(i) => {
                let i = clamp_index(self, i, els.len());
                let mut out = els[0].clone();
                for (k, el) in els.iter().enumerate().skip(1) {
                    let hit = self.b.ins().icmp_imm_s(IntCC::Equal, i, k as i64);
                    out = select_val(self, hit, el, &out)?;
                }
                Ok(out)
            }
        }
    }

    /// `a && b`, `a || b`. On a scalar left side C's short-circuit holds: the right side is
    /// evaluated only when needed, by a branch when it has effects.
    fn logical(&mut self, s: &mut Scope<'m>, op: BinaryOp, a: &'m Expr, c: &'m Expr) -> Res<Val> {
        let x = self.eval(s, a)?;
        let is_scalar = x.num().is_some_and(|n| n.n == 1);
        if !is_scalar {
            let y = self.eval(s, c)?;
            return self.binary(op, x, y);
        }
        if c.ty.width() != Some(1) {
            return no("a short-circuit operator with a vector right side");
        }
        let t = truth(self.b, &x)?;
        if !has_effects(self.module, c) {
            let y = self.eval(s, c)?;
            let u = truth(self.b, &y)?;
            let v = if op == BinaryOp::And {
                self.b.ins().band(t, u)
            } else {
                self.b.ins().bor(t, u)
            };
            return Ok(Val::Num(Num::scalar(Scalar::Bool, v)));
        }
        let rhs = self.b.create_block();
        let done = self.b.create_block();
        let result = self.b.append_block_param(done, types::I8);
        let (on_true, on_false) = if op == BinaryOp::And {
            (rhs, done)
        } else {
            (done, rhs)
        };
        let arg = [t.into()];
        let (targs, fargs): (&[_], &[_]) = if op == BinaryOp::And {
            (&[], &arg)
        } else {
            (&arg, &[])
        };
        self.b.ins().brif(t, on_true, targs, on_false, fargs);
        self.b.seal_block(rhs);
        self.b.switch_to_block(rhs);
        let y = self.eval(s, c)?;
        let u = truth(self.b, &y)?;
        self.b.ins().jump(done, &[u.into()]);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        Ok(Val::Num(Num::scalar(Scalar::Bool, result)))
    }

    /// `cond ? accept : reject`: a scalar condition picks one side (evaluating only that
    /// side, by a branch, when a side has effects); a vector condition picks per component.
    fn select(
        &mut self,
        s: &mut Scope<'m>,
        cond: &'m Expr,
        accept: &'m Expr,
        reject: &'m Expr,
    ) -> Res<Val> {
        let c = self.eval(s, cond)?;
        let cn = c.num().ok_or_else(|| super::Unjittable("select".into()))?;
        if cn.n == 1 {
            let t = truth(self.b, &c)?;
            if has_effects(self.module, accept) || has_effects(self.module, reject) {
                return self.select_branch(s, t, accept, reject);
            }
            let y = self.eval(s, accept)?;
            let n = self.eval(s, reject)?;
            return select_val(self, t, &y, &n);
        }
        let y = self.eval(s, accept)?;
        let n = self.eval(s, reject)?;
        match (y.num(), n.num()) {
            (Some(y), Some(n)) if y.s == n.s && y.n == cn.n && n.n == cn.n => {
                let mask = super::num::convert(self.b, cn, Scalar::Bool);
                let m = if y.s == Scalar::Float {
                    let cast = super::num::lane_cast();
                    self.b
                        .ins()
                        .bitcast(cranelift_codegen::ir::types::F32X4, cast, mask.v)
                } else {
                    mask.v
                };
                Ok(Val::Num(Num {
                    v: self.b.ins().bitselect(m, y.v, n.v),
                    ..y
                }))
            }
            _ => no("component-wise select of these types"),
        }
    }

    fn select_branch(
        &mut self,
        s: &mut Scope<'m>,
        t: Value,
        accept: &'m Expr,
        reject: &'m Expr,
    ) -> Res<Val> {
        let ty = accept.ty.clone();
        let out = self.declare(&ty)?;
        self.if_else(
            s,
            t,
            |l, s| {
                let y = l.eval(s, accept)?;
                let y = l.coerce(y, &ty)?;
                l.write(&out, &y)
            },
            |l, s| {
                let n = l.eval(s, reject)?;
                let n = l.coerce(n, &ty)?;
                l.write(&out, &n)
            },
        )?;
        Ok(self.read(&out))
    }

    /// The interpreter's `construct`.
    fn construct(&mut self, s: &mut Scope<'m>, ty: &Type, parts: &'m [Expr]) -> Res<Val> {
        let mut vals = Vec::with_capacity(parts.len());
        for p in parts {
            vals.push(self.eval(s, p)?);
        }
        let too_few = || super::Unjittable(format!("too few components to construct {ty:?}"));
        match ty {
            Type::Scalar(_) | Type::Vector(..) | Type::Matrix { .. } => {
                if let [one] = vals.as_slice() {
                    let scalar = one.num().is_some_and(|n| n.n == 1);
                    if scalar || matches!(one, Val::Mat(_)) {
                        return self.coerce(one.clone(), ty);
                    }
                }
                // Structs and arrays contribute no components here (`Value::width` is 0).
                let mut comps: Vec<Comp> = Vec::new();
                for v in vals
                    .iter()
                    .filter(|v| matches!(v, Val::Num(_) | Val::Mat(_)))
                {
                    v.flatten(self.b, &mut comps);
                }
                comps.truncate(16);
                self.from_comps(ty, &mut comps.into_iter())?
                    .ok_or_else(too_few)
            }
            Type::Struct(_) | Type::Array(..) => {
                let member_types: Vec<Type> = match ty {
                    Type::Struct(id) => self
                        .module
                        .struct_def(*id)
                        .members
                        .iter()
                        .map(|m| m.ty.clone())
                        .collect(),
                    Type::Array(elem, n) => vec![(**elem).clone(); *n as usize],
                    _ => unreachable!("matched above"),
                };
                if member_types.len() == vals.len() {
                    let mut out = Vec::with_capacity(vals.len());
                    for (t, v) in member_types.iter().zip(vals) {
                        out.push(self.coerce(v, t)?);
                    }
                    return Ok(Val::Agg(out));
                }
                let mut comps = Vec::new();
                for v in &vals {
                    v.flatten(self.b, &mut comps);
                }
                self.from_comps(ty, &mut comps.into_iter())?
                    .ok_or_else(too_few)
            }
            Type::Void => no("constructing void"),
        }
    }

    /// `a[i]`, `a[r][c]`, `a[v]` on gather parameter `p` (the interpreter's `gather`); in
    /// code for four elements, component `comp` (0 for scalars) of each lane's element by
    /// that lane's indices.
    fn gather(&mut self, s: &mut Scope<'m>, p: u32, indices: &'m [Expr], comp: usize) -> Res<Val> {
        let Some(Bind::Gather(g)) = s.params.get(p as usize).cloned() else {
            return no("gather from a parameter that is not a gather");
        };
        if let Some((q, at, comps)) = &self.gathered {
            if *q == p && *at == indices && comp < comps.len() {
                return Ok(Val::Num(comps[comp]));
            }
        }
        // Per subscript: its value, and whether it is proven integral (no rounding needed).
        let mut xs = Vec::with_capacity(indices.len());
        for e in indices {
            let v = self.eval(s, e)?;
            let v = v
                .num()
                .ok_or_else(|| super::Unjittable("gather index".into()))?;
            xs.push((v, s.integral.expr(e)));
        }
        let ty = s.func.params[p as usize].ty.clone();
        if self.soa.is_none() {
            return self.gather_at(&g, &xs, &ty);
        }
        // A scalar stream's type is four lanes; a vector stream's one four lanes per
        // component (`soa::widened`).
        let k = match ty {
            Type::Vector(k, 4) if comp == 0 => k,
            Type::Array(c, n) if (comp as u32) < n => match *c {
                Type::Vector(k, 4) => k,
                _ => return no("a gather of four elements of a non-scalar"),
            },
            _ => return no("a gather of four elements of a non-scalar"),
        };
        // Brook's rule on the four lanes at once, then one load per lane.
        let Some(off) = g.rank.checked_sub(xs.len()) else {
            return no("more gather subscripts than the stream has dimensions");
        };
        let per_dim: Vec<Option<Value>> = (0..g.rank)
            .map(|d| {
                (d >= off).then(|| {
                    let (x, integral) = xs[d - off];
                    gather_lanes(self.b, x, integral, g.last[d], g.last_f[d])
                })
            })
            .collect();
        if k == Scalar::Float {
            let comps = self.gather_row(&g, &per_dim)?;
            let v = *comps
                .get(comp)
                .ok_or_else(|| super::Unjittable("gather component".into()))?;
            if g.fpe > 1 {
                self.gathered = Some((p, indices, comps));
            }
            return Ok(Val::Num(v));
        }
        self.gather_each(&g, &per_dim, k, comp)
    }

    /// The components of a gather of four `float`s or `float` vectors at per-lane indices
    /// `per_dim` (`i32x4` per dimension; `None`: index 0), in code for four elements: where
    /// the four lanes read four consecutive elements of one row (neighbouring output
    /// elements reading neighbouring inputs, as Life's, Convolve's, Segment's and the 64-tap
    /// loop's gathers do away from the edges) vector loads of the same floats (transposed
    /// for vectors), else one load per lane (of its whole element, then transposed).
    fn gather_row(&mut self, g: &GatherRef, per_dim: &[Option<Value>]) -> Res<Vec<Num>> {
        let mut row = None;
        for (d, v) in per_dim.iter().enumerate() {
            let Some(v) = *v else { continue };
            let first = self.b.ins().extractlane(v, 0);
            let mut want = self.b.ins().splat(types::I32X4, first);
            if d + 1 == per_dim.len() {
                let steps = vconst(self.b, types::I32X4, [0, 1, 2, 3]);
                want = self.b.ins().iadd(want, steps);
            }
            let same = self.b.ins().icmp(IntCC::Equal, v, want);
            row = Some(match row {
                Some(r) => self.b.ins().band(r, same),
                None => same,
            });
        }
        let Some(row) = row else {
            return no("a gather with no index");
        };
        let row = self.b.ins().vall_true(row);
        let (vector, lanes, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let n = g.fpe;
        let results: Vec<Value> = (0..n)
            .map(|_| self.b.append_block_param(done, types::F32X4))
            .collect();
        self.b.ins().brif(row, vector, &[], lanes, &[]);
        self.b.seal_block(vector);
        self.b.seal_block(lanes);
        self.b.switch_to_block(vector);
        let idx = self.lane_index(per_dim, 0);
        let lin = ravel(self.b, &idx, &g.strides);
        let bytes = self.b.ins().imul_imm_s(lin, 4 * g.fpe as i64);
        let addr = self.b.ins().iadd(g.data, bytes);
        let flags = MemFlagsData::new()
            .with_notrap()
            .with_readonly()
            .with_can_move();
        let four: Vec<BlockArg> = match n {
            1 => vec![self.b.ins().load(types::F32X4, flags, addr, 0)],
            n => transpose::load(self.b, n as u8, flags, addr),
        }
        .into_iter()
        .map(Into::into)
        .collect();
        self.b.ins().jump(done, &four);
        self.b.switch_to_block(lanes);
        let each: Vec<BlockArg> = match n {
            1 => {
                let each = self.gather_each(g, per_dim, Scalar::Float, 0)?;
                let each = each
                    .num()
                    .ok_or_else(|| super::Unjittable("gather".into()))?;
                vec![each.v.into()]
            }
            n => self
                .gather_elements(g, per_dim, n as u8)?
                .into_iter()
                .map(Into::into)
                .collect(),
        };
        self.b.ins().jump(done, &each);
        self.b.seal_block(done);
        self.b.switch_to_block(done);
        Ok(results
            .into_iter()
            .map(|v| Num {
                s: Scalar::Float,
                n: 4,
                v,
            })
            .collect())
    }

    /// The `n` components of a gather of four `float` vectors at per-lane indices `per_dim`:
    /// each lane's element in one load, then transposed.
    fn gather_elements(
        &mut self,
        g: &GatherRef,
        per_dim: &[Option<Value>],
        n: u8,
    ) -> Res<Vec<Value>> {
        let mut elements = Vec::with_capacity(4);
        for j in 0..4u8 {
            let idx = self.lane_index(per_dim, j);
            let v = self.gather_load(g, &idx, &Type::Vector(Scalar::Float, n), 0)?;
            elements.push(v.num().ok_or_else(|| super::Unjittable("gather".into()))?.v);
        }
        Ok((0..n)
            .map(|c| transpose::pick(self.b, &elements, [0, 1, 2, 3].map(|j| (j, c))))
            .collect())
    }

    /// Lane `j`'s indices (`i64`, outermost first) of per-lane indices `per_dim`.
    fn lane_index(&mut self, per_dim: &[Option<Value>], j: u8) -> Vec<Value> {
        per_dim
            .iter()
            .map(|v| match v {
                Some(v) => {
                    let i = self.b.ins().extractlane(*v, j);
                    self.b.ins().uextend(types::I64, i)
                }
                None => self.b.ins().iconst(types::I64, 0),
            })
            .collect()
    }

    /// Component `comp` of a gather of four elements of kind `k`, one load per lane at
    /// indices `per_dim`.
    fn gather_each(
        &mut self,
        g: &GatherRef,
        per_dim: &[Option<Value>],
        k: Scalar,
        comp: usize,
    ) -> Res<Val> {
        let mut lanes = Vec::with_capacity(4);
        for j in 0..4u8 {
            let idx = self.lane_index(per_dim, j);
            let v = self.gather_load(g, &idx, &Type::Scalar(k), comp as i32)?;
            lanes.push(v.num().ok_or_else(|| super::Unjittable("gather".into()))?.v);
        }
        Ok(Val::Num(from_lanes(self.b, k, &lanes)))
    }

    /// The element of `g` at indices `xs` (one vector, or one scalar per subscript, each
    /// with whether it is proven integral), read as `ty`.
    fn gather_at(&mut self, g: &GatherRef, xs: &[(Num, bool)], ty: &Type) -> Res<Val> {
        let rank = g.rank;
        // Per dimension, the index component and whether it is integral (none: index 0).
        let mut comps: Vec<Option<(Comp, bool)>> = vec![None; rank];
        if let [(x, integral)] = xs {
            for k in 0..(x.n as usize).min(rank) {
                comps[rank - 1 - k] = Some(((x.s, x.lane(self.b, k)), *integral));
            }
        } else {
            let Some(off) = rank.checked_sub(xs.len()) else {
                return no("more gather subscripts than the stream has dimensions");
            };
            for (j, (x, integral)) in xs.iter().enumerate() {
                comps[off + j] = Some(((x.s, x.lane(self.b, 0)), *integral));
            }
        }
        let idx: Vec<Value> = comps
            .iter()
            .enumerate()
            .map(|(d, c)| match c {
                Some((c, integral)) => {
                    gather_component(self.b, *c, *integral, g.last[d], g.last_f[d])
                }
                None => self.b.ins().iconst(types::I64, 0),
            })
            .collect();
        self.gather_load(g, &idx, ty, 0)
    }

    /// The element of `g` at clamped indices `idx` (`i64`, outermost first), read as `ty`
    /// from its float `at` on.
    fn gather_load(&mut self, g: &GatherRef, idx: &[Value], ty: &Type, at: i32) -> Res<Val> {
        let lin = ravel(self.b, idx, &g.strides);
        let bytes = self.b.ins().imul_imm_s(lin, 4 * g.fpe as i64);
        let addr = self.b.ins().iadd(g.data, bytes);
        decode(self, ty, addr, &mut { at }, Layout::Stream, true)
    }
}
