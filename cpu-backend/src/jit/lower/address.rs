//! Address arithmetic, inline: Brook's gather rule, row-major linear positions, the implicit
//! resize and `indexof` positions (the functions of [`crate::shape`], emitted as code).
//! Indices are `i64`; extents, strides and bounds come from the call's slots, loaded once per
//! tile.

use brook_ir::Scalar;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

use super::num::{fconst, from_lanes, vconst, Comp, Num};
use super::Lower;
use crate::jit::kernel::Along;
use crate::jit::slots::Slot;

/// A gathered stream as the code sees it.
#[derive(Debug)]
pub(crate) struct GatherRef {
    pub rank: usize,
    /// Address of the first float.
    pub data: Value,
    /// Per dimension: elements between consecutive indices, `extent - 1`, and the same as
    /// `f32`.
    pub strides: Vec<Value>,
    pub last: Vec<Value>,
    pub last_f: Vec<Value>,
    /// Floats per element.
    pub fpe: usize,
}

/// The gather of parameter `p`, a stream of `rank` dimensions and `fpe` floats per element.
pub(crate) fn gather_ref(l: &mut Lower, p: u32, rank: usize, fpe: usize) -> GatherRef {
    let ptr = l.ptr;
    let mut get = |s: Slot, ty| l.slots.get(l.b.func, s, ty);
    let data = get(Slot::Data(p), ptr);
    let dims = 0..rank as u8;
    GatherRef {
        rank,
        data,
        strides: dims
            .clone()
            .map(|d| get(Slot::Stride(p, d), types::I64))
            .collect(),
        last: dims
            .clone()
            .map(|d| get(Slot::Last(p, d), types::I64))
            .collect(),
        last_f: dims.map(|d| get(Slot::LastF(p, d), types::F32)).collect(),
        fpe,
    }
}

/// Brook's rounding of float index component(s) `v` (`f32` or `f32x4`), `floor(v + 0.25)`;
/// `v` itself where `integral` (its expression is proven to hold integers:
/// `brook_ir::integral`), which the rounding leaves unchanged, ±inf and NaN included.
fn rounded(b: &mut FunctionBuilder, v: Value, integral: bool) -> Value {
    if integral {
        return v;
    }
    let mut quarter = fconst(b, 0.25);
    if b.func.dfg.value_type(v) == types::F32X4 {
        quarter = b.ins().splat(types::F32X4, quarter);
    }
    let biased = b.ins().fadd(v, quarter);
    b.ins().floor(biased)
}

/// One gather index component by Brook's rule (`shape::gather_index`): a float is
/// `floor(v + 0.25)` (unless `integral`: [`rounded`]), then (like any index) clamped to
/// `[0, last]`; NaN reads element 0.
pub(crate) fn gather_component(
    b: &mut FunctionBuilder,
    c: Comp,
    integral: bool,
    last: Value,
    last_f: Value,
) -> Value {
    let zero = b.ins().iconst(types::I64, 0);
    match c.0 {
        Scalar::Float => {
            let t = rounded(b, c.1, integral);
            let i = b.ins().fcvt_to_sint_sat(types::I64, t);
            let fzero = fconst(b, 0.0);
            let positive = b.ins().fcmp(FloatCC::GreaterThan, t, fzero);
            let i = b.ins().select(positive, i, zero);
            let beyond = b.ins().fcmp(FloatCC::GreaterThanOrEqual, t, last_f);
            b.ins().select(beyond, last, i)
        }
        Scalar::Int => {
            let i = b.ins().sextend(types::I64, c.1);
            let i = b.ins().smax(i, zero);
            b.ins().smin(i, last)
        }
        Scalar::Bool => {
            let i = b.ins().uextend(types::I64, c.1);
            b.ins().smin(i, last)
        }
    }
}

/// [`gather_component`] on the four lanes of `x` at once (code for four elements), each
/// lane's clamped index in an `i32x4`: the same rule with the same comparisons, in 32 bits
/// (a stream's extents are below 2^31; a float index at or past 2^31 is past `last`).
pub(crate) fn gather_lanes(
    b: &mut FunctionBuilder,
    x: Num,
    integral: bool,
    last: Value,
    last_f: Value,
) -> Value {
    let last32 = b.ins().ireduce(types::I32, last);
    let last_v = b.ins().splat(types::I32X4, last32);
    let zero = vconst(b, types::I32X4, [0; 4]);
    match x.s {
        Scalar::Float => {
            let t = rounded(b, x.v, integral);
            let i = b.ins().fcvt_to_sint_sat(types::I32X4, t);
            let fzero = vconst(b, types::F32X4, [0; 4]);
            let positive = b.ins().fcmp(FloatCC::GreaterThan, t, fzero);
            let i = b.ins().bitselect(positive, i, zero);
            let last_f = b.ins().splat(types::F32X4, last_f);
            let beyond = b.ins().fcmp(FloatCC::GreaterThanOrEqual, t, last_f);
            b.ins().bitselect(beyond, last_v, i)
        }
        Scalar::Int => {
            let i = b.ins().smax(x.v, zero);
            b.ins().smin(i, last_v)
        }
        Scalar::Bool => {
            // A mask lane is -1 for true: 1.
            let i = b.ins().ineg(x.v);
            b.ins().smin(i, last_v)
        }
    }
}

/// `shape::ravel`: the linear position of `idx` given each dimension's stride. The last
/// dimension's stride is 1 (row-major), so its index is added as it is.
pub(crate) fn ravel(b: &mut FunctionBuilder, idx: &[Value], strides: &[Value]) -> Value {
    let mut lin: Option<Value> = None;
    let last = idx.len().saturating_sub(1);
    for (d, (&i, &s)) in idx.iter().zip(strides).enumerate() {
        let term = if d == last { i } else { b.ins().imul(i, s) };
        lin = Some(match lin {
            Some(l) => b.ins().iadd(l, term),
            None => term,
        });
    }
    lin.unwrap_or_else(|| b.ins().iconst(types::I64, 0))
}

/// `shape::resize_index`: the index into a stream of extents `in_ext` read by output index
/// `out_idx` of extents `out_ext`. `along[d]` says how dimension `d` of the input follows
/// its aligned output dimension (known when the variant was compiled): straight through or
/// 0 with no division.
pub(crate) fn resize(
    b: &mut FunctionBuilder,
    out_idx: &[Value],
    out_ext: &[Value],
    in_ext: &[Value],
    along: &[Along],
) -> Vec<Value> {
    let (ro, ri) = (out_idx.len(), in_ext.len());
    (0..ri)
        .map(|d| {
            if d + ro < ri || along[d] == Along::Zero {
                return b.ins().iconst(types::I64, 0);
            }
            let od = d + ro - ri;
            if along[d] == Along::Same {
                return out_idx[od];
            }
            let scaled = b.ins().imul(out_idx[od], in_ext[d]);
            b.ins().udiv(scaled, out_ext[od])
        })
        .collect()
}

/// `shape::position`: the `float4` position of `idx` (`.x` = last dimension), unused
/// components 0. Indices are below 2^63, so the signed conversion (one instruction; the
/// unsigned one is a branchy sequence on x86) rounds them to the same float.
pub(crate) fn position(b: &mut FunctionBuilder, idx: &[Value]) -> Num {
    let rank = idx.len();
    let zero = fconst(b, 0.0);
    let lanes: Vec<Value> = (0..4)
        .map(|k| {
            if k < rank {
                b.ins().fcvt_from_sint(types::F32, idx[rank - 1 - k])
            } else {
                zero
            }
        })
        .collect();
    from_lanes(b, Scalar::Float, &lanes)
}
