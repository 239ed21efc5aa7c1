//! Brook expressions as naga expressions.

use brook_ir::{BinaryOp, Expr, ExprKind, ParamClass, Scalar as BScalar, Type as BType};
use naga::{Expression, Handle};

use super::address::{gather_clamp, gather_component_i, gather_round_clamp, linearize};
use super::function::{FnLower, ParamSlot};
use super::module::{call_binding, error};
use super::ops::{binary, coerce, unary};
use super::types::value_type;
use super::values::{assemble, components, Comp, Elements};
use super::{naga_span, Lowered};
use brook_ir::effects::has_effects;

impl FnLower<'_, '_> {
    /// `e` as a naga expression; in the accurate mode, a float constant hidden from the
    /// driver's compiler (`brook_ir::exact`) where the module has an opaque zero.
    pub fn expr(&mut self, e: &Expr) -> Lowered<Handle<Expression>> {
        let v = self.expr_value(e)?;
        if self.env.math == brook_ir::MathMode::Fast || !brook_ir::exact::hidden_constant(e) {
            return Ok(v);
        }
        let Some(zero) = self.opaque_zero() else {
            return Ok(v);
        };
        // The constant's bits exclusive-or the zero: the same value, known only at run time.
        let zero = match e.ty.width() {
            Some(n) if n > 1 => self.b.splat(zero, n),
            _ => zero,
        };
        let bits = self.b.bitcast(v, naga::ScalarKind::Uint);
        let bits = self.b.bin(naga::BinaryOperator::ExclusiveOr, bits, zero);
        Ok(self.b.bitcast(bits, naga::ScalarKind::Float))
    }

    fn expr_value(&mut self, e: &Expr) -> Lowered<Handle<Expression>> {
        self.b.span = naga_span(e.span);
        let brook = self.env.brook;
        Ok(match &e.kind {
            ExprKind::Float(v) => self.b.f32(*v),
            ExprKind::Int(v) => self.b.i32(*v),
            ExprKind::Bool(v) => self.b.bool(*v),
            ExprKind::Local(l) => {
                let p = self.locals[l.0 as usize];
                self.b.load(p)
            }
            ExprKind::Param(p) => match self.params[*p as usize] {
                ParamSlot::Var(ptr) => self.b.load(ptr),
                _ => return Err(error("a gather or vout parameter read as a value", e.span)),
            },
            ExprKind::Unary(op, a) => {
                let x = self.expr(a)?;
                unary(&mut self.b, *op, x, &a.ty)
            }
            ExprKind::Binary(op @ (BinaryOp::And | BinaryOp::Or), a, c)
                if a.ty.width() == Some(1) && has_effects(c) =>
            {
                self.short_circuit(*op, a, c)?
            }
            ExprKind::Binary(op, a, c) => {
                let x = self.expr(a)?;
                let (op, y) = match (op, &c.kind) {
                    // IEEE's x / ±0 (±inf, NaN for 0 / 0) as x * ±inf: Mesa folds a division
                    // by a literal zero to 0, but keeps a product with an infinity made from
                    // its bits.
                    (BinaryOp::Div, ExprKind::Float(zero)) if *zero == 0.0 => {
                        let bits = self.b.u32((zero.to_bits() & 0x8000_0000) | 0x7f80_0000);
                        (BinaryOp::Mul, self.b.bitcast(bits, naga::ScalarKind::Float))
                    }
                    _ => (*op, self.expr(c)?),
                };
                binary(&mut self.b, brook, op, (x, &a.ty), (y, &c.ty), &e.ty)
            }
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => self.select(cond, accept, reject, &e.ty)?,
            ExprKind::Convert(a) => {
                let x = self.expr(a)?;
                coerce(&mut self.b, brook, x, &a.ty, &e.ty)
            }
            ExprKind::Construct(parts) => self.construct(&e.ty, parts, e)?,
            ExprKind::Swizzle(a, sel) => {
                let x = self.expr(a)?;
                match a.ty {
                    BType::Scalar(_) => self.b.splat(x, sel.len() as u8),
                    _ => self.b.swizzle(x, sel),
                }
            }
            ExprKind::Member(..) | ExprKind::Index(..) => match self.pointer(e)? {
                Some(p) => self.b.load(p),
                None => self.value_access(e)?,
            },
            ExprKind::Gather { param, indices } => self.gather(*param, indices, e)?,
            ExprKind::IndexOf(p) => {
                let g = self
                    .binding
                    .get(*p as usize)
                    .copied()
                    .flatten()
                    .and_then(|k| self.env.positions.get(k as usize).copied().flatten());
                match g {
                    Some(g) => {
                        let p = self.b.global(g);
                        self.b.load(p)
                    }
                    None => {
                        let t = self.b.types.vector(naga::Scalar::F32, 4);
                        self.b.zero(t)
                    }
                }
            }
            ExprKind::Builtin(f, args) => self.builtin(*f, args, &e.ty, e.span)?,
            ExprKind::Call(f, args) => self.call(*f, args, e)?,
        })
    }

    /// The pointer to a local, a parameter, or a member/element/component chain of them.
    pub fn pointer(&mut self, e: &Expr) -> Lowered<Option<Handle<Expression>>> {
        Ok(match &e.kind {
            ExprKind::Local(l) => Some(self.locals[l.0 as usize]),
            ExprKind::Param(p) => match self.params[*p as usize] {
                ParamSlot::Var(ptr) => Some(ptr),
                _ => None,
            },
            ExprKind::Member(base, i) => match self.pointer(base)? {
                Some(p) => Some(self.b.index(p, *i)),
                None => None,
            },
            ExprKind::Index(base, i) => match self.pointer(base)? {
                Some(p) => {
                    let len = indexed_len(&base.ty);
                    let i = self.clamped_index(i, len)?;
                    Some(self.b.access(p, i))
                }
                None => None,
            },
            _ => None,
        })
    }

    /// `a.m` or `a[i]` on a value that is not in a variable: spilled to a temporary, so that
    /// dynamic indexing works on every kind of value.
    fn value_access(&mut self, e: &Expr) -> Lowered<Handle<Expression>> {
        let (base, step) = match &e.kind {
            ExprKind::Member(base, i) => (base, Err(*i)),
            ExprKind::Index(base, i) => (base, Ok(i)),
            _ => unreachable!("called for members and indices"),
        };
        let v = self.expr(base)?;
        match step {
            Err(i) => Ok(self.b.index(v, i)),
            Ok(i) => {
                let ty = value_type(self.b.types, self.env.brook, &base.ty);
                let tmp = self.b.local_with("brook_indexed", ty, v);
                let i = self.clamped_index(i, indexed_len(&base.ty))?;
                let p = self.b.access(tmp, i);
                Ok(self.b.load(p))
            }
        }
    }

    /// An index expression as an `i32` in `[0, len-1]` (floats truncate, as C converts them;
    /// out-of-range indices read the nearest element, as on the CPU).
    pub fn clamped_index(&mut self, i: &Expr, len: u32) -> Lowered<Handle<Expression>> {
        let v = self.expr(i)?;
        let v = match i.ty.scalar() {
            Some(BScalar::Int) => v,
            Some(k) => super::values::convert_kind(&mut self.b, v, k, BScalar::Int, 1),
            None => return Err(error("an index must be a number", i.span)),
        };
        let zero = self.b.i32(0);
        let last = self.b.i32(len.saturating_sub(1) as i32);
        let lo = self.b.max(v, zero);
        Ok(self.b.min(lo, last))
    }

    /// `a && b` / `a || b` whose right side has effects: evaluated only when needed.
    fn short_circuit(&mut self, op: BinaryOp, a: &Expr, c: &Expr) -> Lowered<Handle<Expression>> {
        let x = self.expr(a)?;
        let bool_ty = self.b.types.bool();
        let result = self.b.local_with("brook_logic", bool_ty, x);
        let need_rhs = if op == BinaryOp::And {
            x
        } else {
            self.b.not(x)
        };
        let then = self.lower_block_into(|l| {
            let y = l.expr(c)?;
            let y = coerce(&mut l.b, l.env.brook, y, &c.ty, &BType::BOOL);
            l.b.store(result, y);
            Ok(())
        })?;
        self.b.stmt(naga::Statement::If {
            condition: need_rhs,
            accept: then,
            reject: naga::Block::new(),
        });
        Ok(self.b.load(result))
    }

    /// Runs `build` into a fresh block and returns it.
    pub fn lower_block_into(
        &mut self,
        build: impl FnOnce(&mut Self) -> Lowered<()>,
    ) -> Lowered<naga::Block> {
        self.b.open_block();
        let r = build(self);
        let block = self.b.close_block();
        r.map(|()| block)
    }

    /// `c ? a : b`: naga's `select` for scalars and vectors without effects, else an `if`
    /// storing into a temporary (only the chosen side is evaluated, as on the CPU).
    fn select(
        &mut self,
        cond: &Expr,
        accept: &Expr,
        reject: &Expr,
        ty: &BType,
    ) -> Lowered<Handle<Expression>> {
        let brook = self.env.brook;
        let simple = matches!(ty, BType::Scalar(_) | BType::Vector(..))
            && !has_effects(accept)
            && !has_effects(reject);
        let c = self.expr(cond)?;
        if simple || cond.ty.width().is_some_and(|w| w > 1) {
            let x = self.expr(accept)?;
            let x = coerce(&mut self.b, brook, x, &accept.ty, ty);
            let y = self.expr(reject)?;
            let y = coerce(&mut self.b, brook, y, &reject.ty, ty);
            return Ok(self.b.select(c, x, y));
        }
        let t = value_type(self.b.types, brook, ty);
        let tmp = self.b.local("brook_choice", t);
        let yes = self.lower_block_into(|l| {
            let x = l.expr(accept)?;
            let x = coerce(&mut l.b, l.env.brook, x, &accept.ty, ty);
            l.b.store(tmp, x);
            Ok(())
        })?;
        let no = self.lower_block_into(|l| {
            let y = l.expr(reject)?;
            let y = coerce(&mut l.b, l.env.brook, y, &reject.ty, ty);
            l.b.store(tmp, y);
            Ok(())
        })?;
        self.b.stmt(naga::Statement::If {
            condition: c,
            accept: yes,
            reject: no,
        });
        Ok(self.b.load(tmp))
    }

    /// `float4(a, b.xy, 1)`, matrices, structs and arrays from parts (the CPU's `construct`).
    fn construct(&mut self, ty: &BType, parts: &[Expr], e: &Expr) -> Lowered<Handle<Expression>> {
        let brook = self.env.brook;
        let too_few = || error(format!("too few components to construct {ty:?}"), e.span);
        match ty {
            BType::Scalar(_) | BType::Vector(..) | BType::Matrix { .. } => {
                if let [one] = parts {
                    if one.ty.width() == Some(1) || matches!(one.ty, BType::Matrix { .. }) {
                        let x = self.expr(one)?;
                        return Ok(coerce(&mut self.b, brook, x, &one.ty, ty));
                    }
                }
                let mut comps: Vec<Comp> = Vec::new();
                for p in parts {
                    let x = self.expr(p)?;
                    comps.extend(components(&mut self.b, brook, x, &p.ty));
                }
                assemble(&mut self.b, brook, ty, &mut comps.into_iter()).ok_or_else(too_few)
            }
            BType::Struct(id) if brook.struct_def(*id).members.len() == parts.len() => {
                let mut vals = Vec::with_capacity(parts.len());
                for (m, p) in brook.struct_def(*id).members.iter().zip(parts) {
                    let x = self.expr(p)?;
                    vals.push(coerce(&mut self.b, brook, x, &p.ty, &m.ty));
                }
                let t = value_type(self.b.types, brook, ty);
                Ok(self.b.compose(t, vals))
            }
            BType::Array(elem, n) if *n as usize == parts.len() => {
                let mut vals = Vec::with_capacity(parts.len());
                for p in parts {
                    let x = self.expr(p)?;
                    vals.push(coerce(&mut self.b, brook, x, &p.ty, elem));
                }
                let t = value_type(self.b.types, brook, ty);
                Ok(self.b.compose(t, vals))
            }
            BType::Struct(_) | BType::Array(..) => {
                let mut comps: Vec<Comp> = Vec::new();
                for p in parts {
                    let x = self.expr(p)?;
                    comps.extend(components(&mut self.b, brook, x, &p.ty));
                }
                assemble(&mut self.b, brook, ty, &mut comps.into_iter()).ok_or_else(too_few)
            }
            BType::Void => Err(error("constructing void", e.span)),
        }
    }

    /// `a[i]`, `a[r][c]`, `a[v]` on gather parameter `param` (Brook's rounding and clamping;
    /// the CPU's `gather`).
    fn gather(&mut self, param: u32, indices: &[Expr], e: &Expr) -> Lowered<Handle<Expression>> {
        let ParamSlot::Gather(slot) = self.params[param as usize] else {
            return Err(error(
                "a gather from a parameter that is not a gather",
                e.span,
            ));
        };
        let Some(g) = slot else {
            return Err(error(
                "a gather parameter that is not bound to a stream here",
                e.span,
            ));
        };
        let rank = g.access.rank as usize;
        // Index components, component 0 the last dimension.
        let zero = self.b.u32(0);
        let mut idx = vec![zero; rank];
        // A float component is rounded unless its expression is proven integral
        // (`brook_ir::integral`: the rounding would leave it unchanged); the clamp is the same.
        let component = |l: &mut Self, v: Handle<Expression>, index: &Expr, k: usize| {
            let last = l.b.index(g.last, k as u32);
            match index.ty.scalar().unwrap_or(BScalar::Float) {
                BScalar::Float if l.integral.expr(index) => gather_clamp(&mut l.b, v, last),
                BScalar::Float => gather_round_clamp(&mut l.b, v, last),
                BScalar::Int => gather_component_i(&mut l.b, v, last),
                BScalar::Bool => {
                    let i =
                        super::values::convert_kind(&mut l.b, v, BScalar::Bool, BScalar::Int, 1);
                    gather_component_i(&mut l.b, i, last)
                }
            }
        };
        if let [one] = indices {
            let v = self.expr(one)?;
            let w = one.ty.width().unwrap_or(1) as usize;
            for (k, slot) in idx.iter_mut().enumerate().take(w.min(rank)) {
                let c = if w == 1 { v } else { self.b.index(v, k as u32) };
                *slot = component(self, c, one, k);
            }
        } else {
            if indices.len() > rank {
                return Err(error(
                    format!(
                        "gathering with {} subscripts from a stream of {rank} dimension(s)",
                        indices.len()
                    ),
                    e.span,
                ));
            }
            // C order: the last subscript is the last dimension (component 0).
            for (j, i) in indices.iter().rev().enumerate() {
                let v = self.expr(i)?;
                idx[j] = component(self, v, i, j);
            }
        }
        let linear = match g.domain {
            None => linearize(&mut self.b, &idx, g.extents),
            Some((lo, full)) => {
                let shifted: Vec<_> = idx
                    .iter()
                    .enumerate()
                    .map(|(k, &i)| {
                        let o = self.b.index(lo, k as u32);
                        self.b.add_(i, o)
                    })
                    .collect();
                linearize(&mut self.b, &shifted, full)
            }
        };
        let elements = Elements {
            buffer: g.access.buffer,
            fpe: g.access.fpe,
        };
        let ty = &self.func.params[param as usize].ty;
        Ok(elements.load(&mut self.b, self.env.brook, linear, ty))
    }

    /// A call of a helper: values by value, `out` arguments through a temporary copied back
    /// to a variable argument afterwards (the CPU's copy-in, copy-out).
    fn call(
        &mut self,
        f: brook_ir::FunctionId,
        args: &[Expr],
        e: &Expr,
    ) -> Lowered<Handle<Expression>> {
        let brook = self.env.brook;
        let callee = brook.func(f);
        let binding = call_binding(brook, f, args, self.binding);
        let handle = *self
            .env
            .callees
            .get(&(f, binding))
            .ok_or_else(|| error(format!("`{}` was not instantiated", callee.name), e.span))?;
        let mut arguments = Vec::new();
        let mut copy_back = Vec::new();
        for (p, a) in callee.params.iter().zip(args) {
            match p.class {
                ParamClass::Gather { .. } => {}
                ParamClass::Out | ParamClass::Reduce => {
                    let x = self.expr(a)?;
                    let x = coerce(&mut self.b, brook, x, &a.ty, &p.ty);
                    let t = value_type(self.b.types, brook, &p.ty);
                    let tmp = self.b.local_with("brook_out", t, x);
                    arguments.push(tmp);
                    copy_back.push((tmp, p, a));
                }
                ParamClass::Vout { .. } => {
                    return Err(error("a helper with vout parameters", e.span));
                }
                _ => {
                    let x = self.expr(a)?;
                    arguments.push(coerce(&mut self.b, brook, x, &a.ty, &p.ty));
                }
            }
        }
        self.b.span = naga_span(e.span);
        let result = self.b.call(handle, arguments, callee.ret != BType::Void);
        if self.env.may_discard[f.0 as usize] {
            self.check_discard();
        }
        for (tmp, p, a) in copy_back {
            if let Some(dst) = self.pointer(a)? {
                let v = self.b.load(tmp);
                let v = coerce(&mut self.b, brook, v, &p.ty, &a.ty);
                self.b.store(dst, v);
            }
        }
        Ok(match result {
            Some(r) => r,
            None => self.b.bool(false),
        })
    }
}

/// The number of elements, components or rows an `Index` into `ty` chooses from.
pub fn indexed_len(ty: &BType) -> u32 {
    match ty {
        BType::Array(_, n) => *n,
        BType::Vector(_, n) => u32::from(*n),
        BType::Matrix { rows, .. } => u32::from(*rows),
        _ => 1,
    }
}
