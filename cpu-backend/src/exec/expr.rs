//! Expressions.

use brook_ir::{BinaryOp, Builtin, Expr, ExprKind, FunctionId, ParamClass, Type};

use super::builtin::builtin;
use super::ops::{self, bad, describe};
use super::stmt::{coerce, index_into, index_of_value, member_of};
use super::{Frame, Interp, Interrupt};
use crate::error::CpuError;
use crate::shape::{gather_index, ravel};
use crate::value::{Comp, Value};

/// Applies `f` component-wise to the float components of `v`, keeping its width.
fn map_floats(v: &Value, f: impl Fn(f32) -> (f32, f32)) -> Result<(Value, Value), CpuError> {
    let (x, n) = v
        .as_floats()
        .ok_or_else(|| bad(format!("argument of type {}", describe(v))))?;
    let (mut a, mut b) = ([0.0; 4], [0.0; 4]);
    for i in 0..n as usize {
        (a[i], b[i]) = f(x[i]);
    }
    Ok((Value::Float(a, n), Value::Float(b, n)))
}

/// `frexp`: `x = m * 2^e` with `|m|` in `[0.5, 1)`; zero, infinities and NaN give `(x, 0)`.
pub fn frexp(x: f32) -> (f32, f32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0.0);
    }
    let (x, bias) = if x.abs() < f32::MIN_POSITIVE {
        (x * 2f32.powi(25), -25)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let e = ((bits >> 23) & 0xff) as i32 - 126;
    let m = f32::from_bits((bits & 0x807f_ffff) | (126 << 23));
    (m, (e + bias) as f32)
}

impl<'a> Interp<'a> {
    /// A reference to the value of a local, a parameter or a member chain of them, without
    /// cloning the whole (used to read `w[i]` or `p.pos` without copying `w` or `p`).
    fn place_ref<'f>(&self, f: &'f Frame<'a>, e: &Expr) -> Option<&'f Value> {
        match e.kind {
            ExprKind::Local(l) => f.locals.get(l.0 as usize),
            ExprKind::Param(p) => f.params.get(p as usize),
            ExprKind::Member(ref b, i) => match self.place_ref(f, b)? {
                Value::Struct(parts) => parts.get(i as usize),
                _ => None,
            },
            _ => None,
        }
    }

    pub(crate) fn eval(&self, f: &mut Frame<'a>, e: &'a Expr) -> Result<Value, Interrupt> {
        Ok(match &e.kind {
            ExprKind::Float(x) => Value::float(*x),
            ExprKind::Int(i) => Value::int(*i),
            ExprKind::Bool(b) => Value::bool(*b),
            ExprKind::Local(l) => f
                .locals
                .get(l.0 as usize)
                .cloned()
                .ok_or_else(|| bad(format!("local #{} does not exist", l.0)))?,
            ExprKind::Param(p) => {
                let p = *p as usize;
                if f.gathers.get(p).is_some_and(|g| g.is_some()) && f.params[p] == Value::Void {
                    return Err(bad("a gather parameter read without a subscript").into());
                }
                f.params
                    .get(p)
                    .cloned()
                    .ok_or_else(|| bad(format!("parameter #{p} does not exist")))?
            }
            ExprKind::Unary(op, a) => ops::unary(*op, &self.eval(f, a)?)?,
            ExprKind::Binary(op @ (BinaryOp::And | BinaryOp::Or), a, b) => {
                let x = self.eval(f, a)?;
                if x.width() == 1 {
                    // Short-circuit, as in C.
                    let t = x.truth().unwrap_or(false);
                    if (*op == BinaryOp::And) != t {
                        return Ok(Value::bool(t));
                    }
                    let y = self.eval(f, b)?;
                    if y.width() == 1 {
                        return Ok(Value::bool(y.truth().unwrap_or(false)));
                    }
                    ops::binary(*op, &x, &y)?
                } else {
                    ops::binary(*op, &x, &self.eval(f, b)?)?
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(f, a)?;
                ops::binary(*op, &x, &self.eval(f, b)?)?
            }
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => {
                let c = self.eval(f, cond)?;
                if c.width() == 1 {
                    if c.truth().unwrap_or(false) {
                        self.eval(f, accept)?
                    } else {
                        self.eval(f, reject)?
                    }
                } else {
                    // Cg's component-wise select on a bool vector.
                    let mut y = self.eval(f, accept)?;
                    let n = self.eval(f, reject)?;
                    for i in 0..c.width() as usize {
                        if !c.comp(i).is_some_and(|t| t.to_bool()) {
                            let v = n.comp(i).ok_or_else(|| bad("component-wise select"))?;
                            y.set_comp(i, v);
                        }
                    }
                    y
                }
            }
            ExprKind::Convert(a) => {
                let v = self.eval(f, a)?;
                coerce(v, &e.ty)?
            }
            ExprKind::Construct(parts) => self.construct(f, &e.ty, parts)?,
            ExprKind::Swizzle(a, sel) => {
                let v = self.eval(f, a)?;
                v.swizzle(sel)
                    .ok_or_else(|| bad(format!("swizzle {sel:?} of {}", describe(&v))))?
            }
            ExprKind::Member(a, i) => match self.place_ref(f, a) {
                Some(v) => member_of(v, *i)?,
                None => member_of(&self.eval(f, a)?, *i)?,
            },
            ExprKind::Index(a, i) => {
                let i = index_of_value(&self.eval(f, i)?)?;
                match self.place_ref(f, a) {
                    Some(v) => index_into(v, i)?,
                    None => index_into(&self.eval(f, a)?, i)?,
                }
            }
            ExprKind::Gather { param, indices } => self.gather(f, *param as usize, indices)?,
            ExprKind::IndexOf(p) => Value::Float(
                *f.positions
                    .get(*p as usize)
                    .ok_or_else(|| bad(format!("indexof of missing parameter #{p}")))?,
                4,
            ),
            ExprKind::Builtin(b @ (Builtin::Frexp | Builtin::Modf), args) => {
                self.out_builtin(f, *b, args)?
            }
            ExprKind::Builtin(b, args) => {
                let mut vals = [Value::Void, Value::Void, Value::Void];
                if args.len() > vals.len() {
                    return Err(bad(format!("{}() with {} arguments", b.name(), args.len())).into());
                }
                for (v, a) in vals.iter_mut().zip(args) {
                    *v = self.eval(f, a)?;
                }
                let r = builtin(*b, &vals[..args.len()], self.math)?;
                match (r.scalar_kind(), e.ty.scalar()) {
                    (Some(have), Some(want)) if have != want => coerce(r, &e.ty)?,
                    _ => r,
                }
            }
            ExprKind::Call(fid, args) => self.call(f, *fid, args)?,
        })
    }

    /// `float4(a, b.xy, 1)`, matrices, structs and arrays from parts: components fill the
    /// result in order; a single scalar splats.
    fn construct(
        &self,
        f: &mut Frame<'a>,
        ty: &Type,
        parts: &'a [Expr],
    ) -> Result<Value, Interrupt> {
        let module = self.module;
        let too_few = || bad(format!("too few components to construct {ty:?}"));
        match ty {
            Type::Scalar(_) | Type::Vector(..) | Type::Matrix { .. } => {
                if let [one] = parts {
                    let v = self.eval(f, one)?;
                    if v.width() == 1 || matches!(v, Value::Matrix(_)) {
                        return Ok(coerce(v, ty)?);
                    }
                    let mut comps = Vec::with_capacity(16);
                    v.flatten(&mut comps);
                    return Ok(Value::from_comps(ty, module, &mut comps.into_iter())
                        .ok_or_else(too_few)?);
                }
                // Up to 16 components, kept on the stack.
                let mut buf = [Comp::F(0.0); 16];
                let mut len = 0;
                for p in parts {
                    let v = self.eval(f, p)?;
                    match v {
                        Value::Matrix(m) => {
                            for r in 0..m.rows as usize {
                                for c in 0..m.cols as usize {
                                    if len < 16 {
                                        buf[len] = Comp::F(m.m[r][c]);
                                        len += 1;
                                    }
                                }
                            }
                        }
                        _ => {
                            for i in 0..v.width() as usize {
                                if len < 16 {
                                    buf[len] = v.comp(i).ok_or_else(too_few)?;
                                    len += 1;
                                }
                            }
                        }
                    }
                }
                Ok(
                    Value::from_comps(ty, module, &mut buf[..len].iter().copied())
                        .ok_or_else(too_few)?,
                )
            }
            Type::Struct(id) => {
                let members = &module.struct_def(*id).members;
                if members.len() == parts.len() {
                    let mut vals = Vec::with_capacity(parts.len());
                    for (m, p) in members.iter().zip(parts) {
                        vals.push(coerce(self.eval(f, p)?, &m.ty)?);
                    }
                    return Ok(Value::Struct(vals.into_boxed_slice()));
                }
                self.construct_flat(f, ty, parts)
            }
            Type::Array(elem, n) => {
                if *n as usize == parts.len() {
                    let mut vals = Vec::with_capacity(parts.len());
                    for p in parts {
                        vals.push(coerce(self.eval(f, p)?, elem)?);
                    }
                    return Ok(Value::Array(vals.into_boxed_slice()));
                }
                self.construct_flat(f, ty, parts)
            }
            Type::Void => Err(bad("constructing void").into()),
        }
    }

    fn construct_flat(
        &self,
        f: &mut Frame<'a>,
        ty: &Type,
        parts: &'a [Expr],
    ) -> Result<Value, Interrupt> {
        let mut comps = Vec::new();
        for p in parts {
            self.eval(f, p)?.flatten(&mut comps);
        }
        Ok(Value::from_comps(ty, self.module, &mut comps.into_iter())
            .ok_or_else(|| bad(format!("too few components to construct {ty:?}")))?)
    }

    /// `a[i]`, `a[r][c]`, `a[v]` on gather parameter `p` (Brook's rounding and clamping).
    ///
    /// A single vector index: `.x` selects the last dimension, `.y` the one before, …;
    /// components beyond the stream's rank are ignored and missing ones are 0. Several scalar
    /// subscripts are C order; fewer subscripts than dimensions address the last dimensions
    /// (a lone scalar is the column), leading dimensions 0.
    fn gather(&self, f: &mut Frame<'a>, p: usize, indices: &'a [Expr]) -> Result<Value, Interrupt> {
        let stream = f
            .gathers
            .get(p)
            .copied()
            .flatten()
            .ok_or_else(|| bad(format!("gather from parameter #{p}, which is not a gather")))?;
        let func = f.func;
        let param = &func.params[p];
        let shape = stream.shape();
        let rank = shape.len();
        let mut idx = [0usize; 4];
        // The index as written, kept only when the element's reads are logged.
        let mut written = f.reads.as_ref().map(|_| Vec::new());
        if let [one] = indices {
            let v = self.eval(f, one)?;
            if let Some(w) = written.as_mut() {
                w.extend((0..v.width() as usize).filter_map(|k| v.comp(k).map(|c| c.to_f32())));
            }
            for k in 0..(v.width() as usize).min(rank) {
                let d = rank - 1 - k;
                idx[d] = gather_index(v.comp(k).ok_or_else(|| bad("gather index"))?, shape[d]);
            }
        } else {
            if indices.len() > rank {
                return Err(CpuError::Unsupported(format!(
                    "gathering `{}` with {} subscripts from a stream of {} dimension(s)",
                    param.name,
                    indices.len(),
                    rank
                ))
                .into());
            }
            let off = rank - indices.len();
            for (j, e) in indices.iter().enumerate() {
                let v = self.eval(f, e)?;
                let d = off + j;
                let c = v.comp(0).ok_or_else(|| bad("gather index"))?;
                if let Some(w) = written.as_mut() {
                    w.push(c.to_f32());
                }
                idx[d] = gather_index(c, shape[d]);
            }
        }
        let lin = ravel(&idx, shape);
        if let (Some(index), Some(log)) = (written, f.reads.as_mut()) {
            log.push(super::GatherRead {
                param: p,
                index,
                element: idx[..rank].to_vec(),
                linear: lin,
                at: indices.first().map_or(0, |e| e.span.start),
            });
        }
        Ok(Value::decode(&param.ty, self.module, stream.element(lin)).0)
    }

    /// `frexp(x, e)` and `modf(x, ip)`: the second argument must be a local or parameter,
    /// which receives the exponent or the integer part.
    fn out_builtin(
        &self,
        f: &mut Frame<'a>,
        b: Builtin,
        args: &'a [Expr],
    ) -> Result<Value, Interrupt> {
        let [x, out] = args else {
            return Err(bad(format!("{}() takes two arguments", b.name())).into());
        };
        let x = self.eval(f, x)?;
        let (ret, second) = if b == Builtin::Modf {
            // modf: fractional part returned, integer part (toward zero) stored.
            map_floats(&x, super::builtin::modf)?
        } else {
            map_floats(&x, frexp)?
        };
        let slot = match out.kind {
            ExprKind::Local(l) => f.locals.get_mut(l.0 as usize),
            ExprKind::Param(p) => f.params.get_mut(p as usize),
            _ => {
                return Err(CpuError::Unsupported(format!(
                    "{}() whose second argument is not a plain variable",
                    b.name()
                ))
                .into())
            }
        }
        .ok_or_else(|| bad("missing out argument"))?;
        *slot = coerce(second, &out.ty)?;
        Ok(ret)
    }

    /// A call of a helper function. Arguments are passed by value; gather parameters pass
    /// their stream (and `indexof` passes through a stream argument); `out` parameters whose
    /// argument is a local or parameter are copied back after the call.
    fn call(
        &self,
        f: &mut Frame<'a>,
        fid: FunctionId,
        args: &'a [Expr],
    ) -> Result<Value, Interrupt> {
        let module = self.module;
        let callee = module.functions.get(fid.0 as usize).ok_or_else(|| {
            bad(format!(
                "a call of function #{} that the module lacks",
                fid.0
            ))
        })?;
        if callee.params.len() != args.len() {
            return Err(bad(format!(
                "call of `{}` with {} arguments for {} parameters",
                callee.name,
                args.len(),
                callee.params.len()
            ))
            .into());
        }
        let mut c = super::Frame::new(module, callee);
        for (i, (p, a)) in callee.params.iter().zip(args).enumerate() {
            let from = match a.kind {
                ExprKind::Param(q) => Some(q as usize),
                _ => None,
            };
            if let ParamClass::Gather { .. } = p.class {
                let s = from
                    .and_then(|q| f.gathers.get(q).copied().flatten())
                    .ok_or_else(|| {
                        bad(format!(
                            "argument `{}` of `{}` must be a gather parameter",
                            p.name, callee.name
                        ))
                    })?;
                if s.floats_per_element() != Value::flat_len(&p.ty, module) {
                    return Err(bad(format!(
                        "gather argument `{}` of `{}` has the wrong element type",
                        p.name, callee.name
                    ))
                    .into());
                }
                c.gathers[i] = Some(s);
                continue;
            }
            c.params[i] = coerce(self.eval(f, a)?, &p.ty)?;
            if let Some(q) = from {
                c.positions[i] = f.positions.get(q).copied().unwrap_or_default();
                c.gathers[i] = f.gathers.get(q).copied().flatten();
            }
        }
        c.reads = f.reads.as_ref().map(|_| Vec::new());
        let ret = self.run(&mut c);
        // The callee's gathers are the caller's: each gather parameter was passed one of the
        // caller's (checked above).
        if let (Some(log), Some(callee_log)) = (f.reads.as_mut(), c.reads.take()) {
            for mut read in callee_log {
                if let ExprKind::Param(q) = args[read.param].kind {
                    read.param = q as usize;
                    log.push(read);
                }
            }
        }
        let ret = ret?;
        for (i, p) in callee.params.iter().enumerate() {
            if p.class != ParamClass::Out {
                continue;
            }
            let v = std::mem::replace(&mut c.params[i], Value::Void);
            match args[i].kind {
                ExprKind::Local(l) => f.locals[l.0 as usize] = coerce(v, &args[i].ty)?,
                ExprKind::Param(q) => f.params[q as usize] = coerce(v, &args[i].ty)?,
                _ => {}
            }
        }
        Ok(ret.unwrap_or(Value::Void))
    }
}
