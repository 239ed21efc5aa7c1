//! Values taken apart into scalar components and put together again: what conversions,
//! constructors and the stream element codec share.
//!
//! A stream element is stored as floats in C layout (members in order, matrices row by row,
//! ints and bools one float each), the layout of the CPU backend and of the host arrays
//! `streamRead` takes. [`components`] lists a value's scalars in exactly that order and
//! [`assemble`] builds a value of any Brook type from scalars in that order, converting each
//! to the kind it needs (C rules, as the CPU backend's `Value::convert_to`); [`Elements`]
//! loads and stores stream elements with them.

use brook_ir::{self as ir, Scalar as BScalar, Type as BType};
use naga::{Expression, Handle, ScalarKind};

use super::builder::FnBuilder;
use super::types::{scalar, value_type};

/// A scalar expression and its Brook kind.
pub type Comp = (Handle<Expression>, BScalar);

/// Converts a scalar or vector `h` of kind `from` to kind `to`, keeping its width `n`:
/// float → int truncates toward zero, anything → bool is `!= 0`, bool → number is 0 or 1.
pub fn convert_kind(
    b: &mut FnBuilder,
    h: Handle<Expression>,
    from: BScalar,
    to: BScalar,
    n: u8,
) -> Handle<Expression> {
    if from == to {
        return h;
    }
    match (from, to) {
        (_, BScalar::Bool) => {
            let zero = zero_scalar(b, from);
            let zero = b.splat(zero, n);
            b.ne(h, zero)
        }
        (BScalar::Bool, _) => {
            let (one, zero) = match to {
                BScalar::Float => (b.f32(1.0), b.f32(0.0)),
                _ => (b.i32(1), b.i32(0)),
            };
            let (one, zero) = (b.splat(one, n), b.splat(zero, n));
            b.select(h, one, zero)
        }
        (_, BScalar::Float) => b.convert(h, ScalarKind::Float),
        _ => float_to_int(b, h, n),
    }
}

/// C's float → int as the CPU does it (Rust's `as`): toward zero, saturating at the `i32`
/// range, NaN giving 0 (WGSL leaves out-of-range and NaN conversions to the driver).
fn float_to_int(b: &mut FnBuilder, h: Handle<Expression>, n: u8) -> Handle<Expression> {
    let lo = b.f32(-2_147_483_648.0);
    let lo = b.splat(lo, n);
    // The largest f32 below 2^31.
    let hi = b.f32(2_147_483_520.0);
    let hi = b.splat(hi, n);
    let clamped = b.math(naga::MathFunction::Clamp, &[h, lo, hi]);
    let i = b.convert(clamped, ScalarKind::Sint);
    let bits = b.bitcast(h, ScalarKind::Uint);
    let mask = b.u32(0x7fff_ffff);
    let mask = b.splat(mask, n);
    let magnitude = b.bin(naga::BinaryOperator::And, bits, mask);
    let inf = b.u32(0x7f80_0000);
    let inf = b.splat(inf, n);
    let nan = b.gt(magnitude, inf);
    let zero = b.i32(0);
    let zero = b.splat(zero, n);
    b.select(nan, zero, i)
}

pub fn zero_scalar(b: &mut FnBuilder, s: BScalar) -> Handle<Expression> {
    match s {
        BScalar::Float => b.f32(0.0),
        BScalar::Int => b.i32(0),
        BScalar::Bool => b.bool(false),
    }
}

/// The scalar components of `v` (of type `ty`) in C layout order.
pub fn components(
    b: &mut FnBuilder,
    module: &ir::Module,
    v: Handle<Expression>,
    ty: &BType,
) -> Vec<Comp> {
    let mut out = Vec::new();
    push_components(b, module, v, ty, &mut out);
    out
}

fn push_components(
    b: &mut FnBuilder,
    module: &ir::Module,
    v: Handle<Expression>,
    ty: &BType,
    out: &mut Vec<Comp>,
) {
    match ty {
        BType::Void => {}
        BType::Scalar(s) => out.push((v, *s)),
        BType::Vector(s, n) => {
            for k in 0..*n {
                let c = b.index(v, u32::from(k));
                out.push((c, *s));
            }
        }
        BType::Matrix { rows, cols } => {
            for r in 0..*rows {
                let row = b.index(v, u32::from(r));
                for c in 0..*cols {
                    let x = b.index(row, u32::from(c));
                    out.push((x, BScalar::Float));
                }
            }
        }
        BType::Struct(id) => {
            for (k, m) in module.struct_def(*id).members.iter().enumerate() {
                let part = b.index(v, k as u32);
                push_components(b, module, part, &m.ty, out);
            }
        }
        BType::Array(elem, n) => {
            for k in 0..*n {
                let part = b.index(v, k);
                push_components(b, module, part, elem, out);
            }
        }
    }
}

/// Builds a value of `ty` from scalars taken in order from `comps` (each converted to the
/// kind its place needs). `None` when there are too few.
pub fn assemble(
    b: &mut FnBuilder,
    module: &ir::Module,
    ty: &BType,
    comps: &mut impl Iterator<Item = Comp>,
) -> Option<Handle<Expression>> {
    let mut take = |b: &mut FnBuilder, to: BScalar| -> Option<Handle<Expression>> {
        let (h, from) = comps.next()?;
        Some(convert_kind(b, h, from, to, 1))
    };
    Some(match ty {
        BType::Void => return None,
        BType::Scalar(s) => take(b, *s)?,
        BType::Vector(s, n) => {
            let parts = (0..*n).map(|_| take(b, *s)).collect::<Option<Vec<_>>>()?;
            let t = b.types.vector(scalar(*s), *n);
            b.compose(t, parts)
        }
        BType::Matrix { rows, cols } => {
            let row_ty = b.types.vector(naga::Scalar::F32, *cols);
            let mut rows_v = Vec::with_capacity(*rows as usize);
            for _ in 0..*rows {
                let row = (0..*cols)
                    .map(|_| take(b, BScalar::Float))
                    .collect::<Option<Vec<_>>>()?;
                rows_v.push(b.compose(row_ty, row));
            }
            let t = value_type(b.types, module, ty);
            b.compose(t, rows_v)
        }
        BType::Struct(id) => {
            let mut parts = Vec::new();
            for m in &module.struct_def(*id).members {
                parts.push(assemble(b, module, &m.ty, comps)?);
            }
            let t = value_type(b.types, module, ty);
            b.compose(t, parts)
        }
        BType::Array(elem, n) => {
            let mut parts = Vec::new();
            for _ in 0..*n {
                parts.push(assemble(b, module, elem, comps)?);
            }
            let t = value_type(b.types, module, ty);
            b.compose(t, parts)
        }
    })
}

/// How many floats a value of `ty` takes in a stream element (bools and ints one each).
pub fn flat_len(module: &ir::Module, ty: &BType) -> u32 {
    match ty {
        BType::Void => 0,
        BType::Scalar(_) => 1,
        BType::Vector(_, n) => u32::from(*n),
        BType::Matrix { rows, cols } => u32::from(*rows) * u32::from(*cols),
        BType::Struct(id) => module
            .struct_def(*id)
            .members
            .iter()
            .map(|m| flat_len(module, &m.ty))
            .sum(),
        BType::Array(elem, n) => flat_len(module, elem) * n,
    }
}

/// The elements of a stream in a storage buffer. An element of 2 or 4 floats is one
/// `vec2<f32>`/`vec4<f32>` of the array (one 8- or 16-byte load or store, as a hand-written
/// shader would do it); any other is that many `f32`s (a `vec3` would be padded to 16
/// bytes, which the C layout is not).
#[derive(Debug, Clone, Copy)]
pub struct Elements {
    pub buffer: Handle<naga::GlobalVariable>,
    pub fpe: u32,
}

/// The array element width for elements of `fpe` floats (see [`Elements`]).
pub fn vector_width(fpe: u32) -> u8 {
    if fpe == 2 || fpe == 4 {
        fpe as u8
    } else {
        1
    }
}

impl Elements {
    pub fn width(&self) -> u8 {
        vector_width(self.fpe)
    }

    /// The element `element` (a `u32`) as a value of type `ty`.
    pub fn load(
        &self,
        b: &mut FnBuilder,
        module: &ir::Module,
        element: Handle<Expression>,
        ty: &BType,
    ) -> Handle<Expression> {
        let g = b.global(self.buffer);
        let mut floats = Vec::with_capacity(self.fpe as usize);
        if self.width() > 1 {
            let p = b.access(g, element);
            let v = b.load(p);
            for k in 0..self.fpe {
                floats.push((b.index(v, k), BScalar::Float));
            }
        } else {
            let n = b.u32(self.fpe);
            let at = b.mul(element, n);
            for k in 0..self.fpe {
                let i = offset(b, at, k);
                let p = b.access(g, i);
                floats.push((b.load(p), BScalar::Float));
            }
        }
        assemble(b, module, ty, &mut floats.into_iter()).expect("fpe floats make the type")
    }

    /// Stores `v` (of type `ty`) as element `element`.
    pub fn store(
        &self,
        b: &mut FnBuilder,
        module: &ir::Module,
        element: Handle<Expression>,
        v: Handle<Expression>,
        ty: &BType,
    ) {
        let floats: Vec<Handle<Expression>> = components(b, module, v, ty)
            .into_iter()
            .map(|(c, kind)| convert_kind(b, c, kind, BScalar::Float, 1))
            .collect();
        let g = b.global(self.buffer);
        if self.width() > 1 {
            let t = b.types.vector(naga::Scalar::F32, self.width());
            let vector = b.compose(t, floats);
            let p = b.access(g, element);
            b.store(p, vector);
        } else {
            let n = b.u32(self.fpe);
            let at = b.mul(element, n);
            for (k, f) in floats.into_iter().enumerate() {
                let i = offset(b, at, k as u32);
                let p = b.access(g, i);
                b.store(p, f);
            }
        }
    }
}

/// `at + k` (`at` itself for 0).
pub fn offset(b: &mut FnBuilder, at: Handle<Expression>, k: u32) -> Handle<Expression> {
    if k == 0 {
        return at;
    }
    let k = b.u32(k);
    b.add_(at, k)
}
