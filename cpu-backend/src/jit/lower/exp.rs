//! `exp` inline: the interpreter's formula (`exec::builtin::exp`, the math library's
//! `brook_exp`; in fast math `exec::builtin::exp_fast`, its polynomial shorter) as the same
//! IEEE operations in the same order, on a scalar or on the four lanes of a vector at once. A call per lane to the Rust function took 43% of Segment's
//! kernel (docs/cpu-backend.md); inline, its `float4` of `exp` is about thirty vector
//! instructions.
//!
//! Every lane computes the reduction and the polynomial; a NaN, or an argument beyond the
//! bounds where the interpreter returns early, then selects the early result (the
//! conversion of `k` saturates, so such a lane computes harmlessly).

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;

use super::builtin::{fsplat, pick};
use super::num::lane_cast;
use crate::exec::builtin::{exp_poly, EXP_MAX, EXP_MIN, LN2_HI, LN2_LO, LOG2_E};
use brook_ir::MathMode;

/// `exec::builtin::exp` (`math`: accurate) or `exp_fast` of each component of `x` (`f32` or
/// `f32x4`).
pub(super) fn exp(b: &mut FunctionBuilder, x: Value, math: MathMode) -> Value {
    let c = |b: &mut FunctionBuilder, v: f32| fsplat(b, x, v);
    let (log2e, half) = (c(b, LOG2_E), c(b, 0.5));
    let t = b.ins().fmul(x, log2e);
    let t = b.ins().fadd(t, half);
    let k = b.ins().floor(t);
    let (ln2_hi, ln2_lo) = (c(b, LN2_HI), c(b, LN2_LO));
    let hi = b.ins().fmul(k, ln2_hi);
    let lo = b.ins().fmul(k, ln2_lo);
    let r = b.ins().fsub(x, hi);
    let r = b.ins().fsub(r, lo);
    let poly = exp_poly(math);
    let mut p = c(b, poly[0]);
    for &coef in &poly[1..] {
        let rp = b.ins().fmul(r, p);
        let coef = c(b, coef);
        p = b.ins().fadd(coef, rp);
    }
    let one = c(b, 1.0);
    let one_r = b.ins().fadd(one, r);
    let rr = b.ins().fmul(r, r);
    let tail = b.ins().fmul(rr, p);
    let q = b.ins().fadd(one_r, tail);
    let e = scale(b, q, k);
    let (max, inf) = (c(b, EXP_MAX), c(b, f32::INFINITY));
    let big = b.ins().fcmp(FloatCC::GreaterThan, x, max);
    let e = pick(b, big, inf, e);
    let (min, zero) = (c(b, EXP_MIN), c(b, 0.0));
    let small = b.ins().fcmp(FloatCC::LessThan, x, min);
    let e = pick(b, small, zero, e);
    let nan = b.ins().fcmp(FloatCC::Unordered, x, x);
    pick(b, nan, x, e)
}

/// `exec::builtin::scale`: `q * 2^h * 2^(k-h)` with `h = k / 2` (truncated), each power of
/// two built from its exponent bits, for the integral `k` of a kept lane (|k| < 2^22). The
/// integers are read from float bits, not converted: `n + 1.5·2^23` holds `n` in its low
/// significand bits, and shifted by 23 those leave only `n`'s (the constant's bits vanish),
/// so `2^n` is `((bits + 127) << 23)` in two integer operations; a saturating vector
/// conversion is a longer sequence on x86.
fn scale(b: &mut FunctionBuilder, q: Value, k: Value) -> Value {
    let vector = b.func.dfg.value_type(q).is_vector();
    let int = |b: &mut FunctionBuilder, i: i64| {
        let s = b.ins().iconst(types::I32, i);
        if vector {
            b.ins().splat(types::I32X4, s)
        } else {
            s
        }
    };
    let (ity, fty, flags) = if vector {
        (types::I32X4, types::F32X4, lane_cast())
    } else {
        (types::I32, types::F32, MemFlagsData::new())
    };
    let half = fsplat(b, k, 0.5);
    let h = b.ins().fmul(k, half);
    let h = b.ins().trunc(h);
    let rest = b.ins().fsub(k, h);
    let s23 = b.ins().iconst(types::I32, 23);
    let power = |b: &mut FunctionBuilder, n: Value| {
        let shift = fsplat(b, n, 12_582_912.0);
        let held = b.ins().fadd(n, shift);
        let bits = b.ins().bitcast(ity, flags, held);
        let bias = int(b, 127);
        let biased = b.ins().iadd(bits, bias);
        let bits = b.ins().ishl(biased, s23);
        b.ins().bitcast(fty, flags, bits)
    };
    let ph = power(b, h);
    let pr = power(b, rest);
    let q = b.ins().fmul(q, ph);
    b.ins().fmul(q, pr)
}
