//! Cg's primitive built-in functions on runtime values; the composite ones (`lerp`,
//! `smoothstep`, `clamp`, `length`, …) are written as their formulas by
//! `brook_ir::lower_composites` before a kernel reaches the interpreter.
//!
//! Component-wise built-ins accept scalars where the others are vectors (splat), as Cg does.
//! The formulas are the ones GPUs use, so the reference agrees with GLSL up to rounding:
//! `round` halves away from zero, `fmod(x, y) = x - y*trunc(x/y)`, `saturate = clamp(x, 0,
//! 1)`, `min`/`max` ignore a NaN argument (IEEE minNum/maxNum), `mul(m, v)` treats `m` as
//! rows (Cg). `frexp` and `modf` write an out argument and live with the expression
//! evaluator.

use brook_ir::{unlowered, Builtin, MathMode};

use super::ops::{bad, describe, fmod, zip};
use crate::error::CpuError;
use crate::value::{Mat, Value};

fn arg(args: &[Value], i: usize) -> Result<&Value, CpuError> {
    args.get(i)
        .ok_or_else(|| bad(format!("built-in expects at least {} argument(s)", i + 1)))
}

fn floats(v: &Value) -> Result<([f32; 4], u8), CpuError> {
    v.as_floats().ok_or_else(|| {
        bad(format!(
            "built-in argument is {}, not a scalar or vector",
            describe(v)
        ))
    })
}

fn map1(args: &[Value], f: impl Fn(f32) -> f32) -> Result<Value, CpuError> {
    let (x, n) = floats(arg(args, 0)?)?;
    Ok(Value::Float(x.map(f), n))
}

fn test1(args: &[Value], f: impl Fn(f32) -> bool) -> Result<Value, CpuError> {
    let (x, n) = floats(arg(args, 0)?)?;
    let mut o = [false; 4];
    for i in 0..n as usize {
        o[i] = f(x[i]);
    }
    Ok(Value::Bool(o, n))
}

fn map2(args: &[Value], f: impl Fn(f32, f32) -> f32) -> Result<Value, CpuError> {
    let (x, na) = floats(arg(args, 0)?)?;
    let (y, nb) = floats(arg(args, 1)?)?;
    let (o, n) = zip(&x, na, &y, nb, f)?;
    Ok(Value::Float(o, n))
}

fn all_ints(args: &[Value]) -> bool {
    !args.is_empty() && args.iter().all(|a| matches!(a, Value::Int(..)))
}

fn ints(v: &Value) -> ([i32; 4], u8) {
    match v {
        Value::Int(c, n) => (*c, *n),
        _ => ([0; 4], 0),
    }
}

fn int_map1(args: &[Value], f: impl Fn(i32) -> i32) -> Value {
    let (x, n) = ints(&args[0]);
    Value::Int(x.map(f), n)
}

fn int_map2(args: &[Value], f: impl Fn(i32, i32) -> i32) -> Result<Value, CpuError> {
    let (x, na) = ints(arg(args, 0)?);
    let (y, nb) = ints(arg(args, 1)?);
    let (o, n) = zip(&x, na, &y, nb, f)?;
    Ok(Value::Int(o, n))
}

/// `min` as IEEE 754-2019's minimumNumber (Direct3D 10+ for NaN): a NaN argument gives the
/// other one (`brook_ir::accuracy`; GLSL leaves NaN undefined, llvmpipe does this too),
/// and -0 is below +0. Written out rather than `f32::min`, which may return either zero: its
/// answer for `min(+0, -0)` differed between the compiled instruction and LLVM's constant
/// folding, so the JIT (which reads the choice off this function once) and the interpreter
/// could disagree in the sign of a zero.
pub fn fmin(x: f32, y: f32) -> f32 {
    match (x.is_nan(), y.is_nan()) {
        (true, _) => y,
        (_, true) => x,
        _ if x == y => f32::from_bits(x.to_bits() | y.to_bits()),
        _ if x < y => x,
        _ => y,
    }
}

/// `max` as IEEE 754-2019's maximumNumber: a NaN argument gives the other one, and +0 is
/// above -0 (see [`fmin`] for why it is written out).
pub fn fmax(x: f32, y: f32) -> f32 {
    match (x.is_nan(), y.is_nan()) {
        (true, _) => y,
        (_, true) => x,
        _ if x == y => f32::from_bits(x.to_bits() & y.to_bits()),
        _ if x > y => x,
        _ => y,
    }
}

/// Cg's `sign`: 1, -1, or 0 for zero (either sign) and NaN.
pub fn sign(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

fn dot(a: &Value, b: &Value) -> Result<f32, CpuError> {
    let (x, na) = floats(a)?;
    let (y, nb) = floats(b)?;
    if na != nb {
        return Err(bad(format!("dot of {} and {}", describe(a), describe(b))));
    }
    let mut s = 0.0;
    for i in 0..na as usize {
        s += x[i] * y[i];
    }
    Ok(s)
}

/// Cg `ldexp`: `x * 2^n`. An integral `n` of any size saturates to 0 or inf in three exact
/// steps rather than overflowing 2^n first (`ldexp(1e-38, 200)` is 1.6e22); the GLSL
/// `brook_ldexp` takes the same steps.
pub fn ldexp(x: f32, n: f32) -> f32 {
    if n.floor() != n {
        return x * n.exp2();
    }
    let k = n.clamp(-300.0, 300.0);
    let third = (k / 3.0).floor();
    scale(scale(x, third), k - third)
}

/// Brook's `exp`, the math library's `brook_exp` (`math/glsl/exp.glsl`) operation for
/// operation: `e^x = 2^k e^r` with `k = floor(x log2(e) + 0.5)`, `r = x - k ln 2` with
/// `ln 2` in two parts (Cody-Waite: `k * LN2_HI` is exact), `e^r` by its Taylor series to
/// degree 8, then `2^k` as two exact factors (`scale`) (1.5 ulp, docs/limits.md). Only
/// IEEE operations and bit moves, no fused multiply-add: native code computes it inline on
/// four lanes at once with the same bits (`jit::lower::exp`), where libm's `expf` was a call
/// per lane.
pub fn exp(x: f32) -> f32 {
    exp_by(x, &EXP_TAYLOR)
}

/// `exp` in fast math ([`MathMode::Fast`]): [`exp`]'s reduction, bounds and scaling, with
/// `e^r = 1 + r + r² p(r)` by [`EXP_FAST`]'s four terms instead of eight (3 ulp against
/// 1.5; llvmpipe's own `exp`, which GL and wgpu call in fast math, is 65 ulp off:
/// docs/limits.md). Special values are [`exp`]'s.
pub fn exp_fast(x: f32) -> f32 {
    exp_by(x, &EXP_FAST)
}

/// `p`, the coefficients `exp` evaluates `e^r = 1 + r + r² p(r)` with in `math`.
pub fn exp_poly(math: MathMode) -> &'static [f32] {
    match math {
        MathMode::Accurate => &EXP_TAYLOR,
        MathMode::Fast => &EXP_FAST,
    }
}

/// [`exp`] with `e^r = 1 + r + r² p(r)`, `p` of coefficients `poly` (Horner's order).
fn exp_by(x: f32, poly: &[f32]) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x > EXP_MAX {
        return f32::INFINITY;
    }
    if x < EXP_MIN {
        return 0.0;
    }
    let k = (x * LOG2_E + 0.5).floor();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let mut p = poly[0];
    for c in &poly[1..] {
        p = c + r * p;
    }
    scale(1.0 + r + r * r * p, k)
}

/// Above this `exp` is infinite, below [`EXP_MIN`] zero (`brook_exp`'s bounds).
pub const EXP_MAX: f32 = 88.722_83;
/// See [`EXP_MAX`].
pub const EXP_MIN: f32 = -103.972_084;
/// `log2(e)` rounded to float (`brook_exp`'s `1.44269502`).
pub const LOG2_E: f32 = std::f32::consts::LOG2_E;
/// The high part of `ln 2` (its low bits zero, so `k * LN2_HI` is exact) and the rest.
pub const LN2_HI: f32 = 0.693_145_75;
/// See [`LN2_HI`].
pub const LN2_LO: f32 = 1.428_606_8e-6;
/// `e^r = 1 + r + r² p(r)`: `p`'s coefficients, highest degree first (Horner's order).
pub const EXP_TAYLOR: [f32; 8] = [
    2.755_731_9e-6,
    2.480_158_8e-5,
    1.984_127e-4,
    1.388_888_9e-3,
    8.333_334e-3,
    4.166_666_8e-2,
    0.166_666_67,
    0.5,
];
/// Fast math's `p` ([`exp_fast`]), highest degree first: the weighted minimax cubic for
/// `(e^r - 1 - r) / r²` on `|r| <= 0.3467` (the reduction's range), which makes `e^r` good to
/// about 1e-7 relative before rounding; found by Lawson's iteration in f64, rounded to f32.
pub const EXP_FAST: [f32; 4] = [8.312_507_5e-3, 4.189_027e-2, 0.166_671_16, 0.499_992_3];

/// `x * 2^n` for an integral `n` in [-252, 254], as two exact factors.
pub(crate) fn scale(x: f32, n: f32) -> f32 {
    let power = |k: i32| f32::from_bits(((k + 127) as u32) << 23);
    let k = n as i32;
    let h = k / 2;
    x * power(h) * power(k - h)
}

/// `modf`: the fractional part and the integer part (toward zero).
pub fn modf(v: f32) -> (f32, f32) {
    let ip = v.trunc();
    (v - ip, ip)
}

/// How the interpreter computes a built-in, and so what the JIT computes the same way. Every
/// built-in is placed by [`formula`], an exhaustive match: a new one makes rustc name it.
#[derive(Clone, Copy)]
pub enum Formula {
    /// A component-wise float function of one argument.
    Float1(fn(f32) -> f32),
    /// A component-wise float function of two arguments (a scalar splats).
    Float2(fn(f32, f32) -> f32),
    /// A component-wise float predicate.
    Test(fn(f32) -> bool),
    /// A function of whole values.
    Whole(Whole),
    /// `frexp` and `modf`, which write their second argument: the expression evaluator's.
    Out,
    /// A composite built-in, which `brook_ir::lower_composites` writes as its formula before
    /// any backend runs.
    Composite,
}

/// The built-ins computed on whole values rather than per component.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Whole {
    /// `all(v)`
    All,
    /// `any(v)`
    Any,
    /// `dot(a, b)`: `0 + a0 b0 + a1 b1 + …` in component order.
    Dot,
    /// `cross(a, b)`
    Cross,
    /// Cg's `mul`.
    Mul,
    /// `pack_4ubyte(v)`
    Pack4ubyte,
    /// `unpack_4ubyte(f)`
    Unpack4ubyte,
}

/// How `b` is computed in `math`: [`formula`]'s, except the built-ins fast math computes
/// with a shorter formula of their own (`exp`: [`exp_fast`]).
pub fn formula_in(b: Builtin, math: MathMode) -> Formula {
    match (b, math) {
        (Builtin::Exp, MathMode::Fast) => Formula::Float1(exp_fast),
        _ => formula(b),
    }
}

/// How `b` is computed in the accurate mode (see [`Formula`]); every mode's formula has
/// this one's kind ([`formula_in`]).
pub fn formula(b: Builtin) -> Formula {
    use Builtin::*;
    use Formula::{Float1, Float2, Test};
    match b {
        Abs => Float1(f32::abs),
        Acos => Float1(f32::acos),
        Asin => Float1(f32::asin),
        Atan => Float1(f32::atan),
        Ceil => Float1(f32::ceil),
        Cos => Float1(f32::cos),
        Cosh => Float1(f32::cosh),
        Exp => Float1(exp),
        Exp2 => Float1(f32::exp2),
        Floor => Float1(f32::floor),
        Log => Float1(f32::ln),
        Log2 => Float1(f32::log2),
        Log10 => Float1(f32::log10),
        Round => Float1(f32::round),
        Saturate => Float1(|x| fmin(fmax(x, 0.0), 1.0)),
        Sign => Float1(sign),
        Sin => Float1(f32::sin),
        Sinh => Float1(f32::sinh),
        Sqrt => Float1(f32::sqrt),
        Tan => Float1(f32::tan),
        Tanh => Float1(f32::tanh),
        Atan2 => Float2(f32::atan2),
        Fmod => Float2(fmod),
        Max => Float2(fmax),
        Min => Float2(fmin),
        Pow => Float2(f32::powf),
        Ldexp => Float2(ldexp),
        IsFinite => Test(f32::is_finite),
        IsInf => Test(f32::is_infinite),
        IsNan => Test(f32::is_nan),
        All => Formula::Whole(Whole::All),
        Any => Formula::Whole(Whole::Any),
        Dot => Formula::Whole(Whole::Dot),
        Cross => Formula::Whole(Whole::Cross),
        Mul => Formula::Whole(Whole::Mul),
        Pack4ubyte => Formula::Whole(Whole::Pack4ubyte),
        Unpack4ubyte => Formula::Whole(Whole::Unpack4ubyte),
        Frexp | Modf => Formula::Out,
        Clamp | Degrees | Distance | Frac | Length | Lerp | Normalize | Radians | Rsqrt
        | Smoothstep | Step => Formula::Composite,
    }
}

/// The formula of a one-argument component-wise float built-in in `math`.
pub fn float1(b: Builtin, math: MathMode) -> Option<fn(f32) -> f32> {
    match formula_in(b, math) {
        Formula::Float1(f) => Some(f),
        _ => None,
    }
}

/// The formula of a two-argument component-wise float built-in in `math`.
pub fn float2(b: Builtin, math: MathMode) -> Option<fn(f32, f32) -> f32> {
    match formula_in(b, math) {
        Formula::Float2(f) => Some(f),
        _ => None,
    }
}

/// The test of a component-wise float predicate (`isnan`, …).
pub fn float_test(b: Builtin) -> Option<fn(f32) -> bool> {
    match formula(b) {
        Formula::Test(f) => Some(f),
        _ => None,
    }
}

/// The built-ins that keep ints when all their arguments are ints.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum IntForm {
    /// `abs`, wrapping (`abs(INT_MIN)` is `INT_MIN`).
    Abs,
    /// `sign`: -1, 0 or 1.
    Sign,
    /// `max`
    Max,
    /// `min`
    Min,
}

/// The int form of `b`, used when every argument is an int; `None` for the built-ins that
/// convert ints to float.
pub fn int_form(b: Builtin) -> Option<IntForm> {
    use Builtin::*;
    match b {
        Abs => Some(IntForm::Abs),
        Sign => Some(IntForm::Sign),
        Max => Some(IntForm::Max),
        Min => Some(IntForm::Min),
        Acos | All | Any | Asin | Atan | Atan2 | Ceil | Clamp | Cos | Cosh | Cross | Degrees
        | Distance | Dot | Exp | Exp2 | Floor | Fmod | Frac | Frexp | IsFinite | IsInf | IsNan
        | Ldexp | Length | Lerp | Log | Log2 | Log10 | Modf | Mul | Normalize | Pack4ubyte
        | Pow | Radians | Round | Rsqrt | Saturate | Smoothstep | Sin | Sinh | Sqrt | Step
        | Tan | Tanh | Unpack4ubyte => None,
    }
}

/// Evaluates `b` on already evaluated arguments, in `math`.
pub fn builtin(b: Builtin, args: &[Value], math: MathMode) -> Result<Value, CpuError> {
    if all_ints(args) {
        match int_form(b) {
            Some(IntForm::Abs) => return Ok(int_map1(args, i32::wrapping_abs)),
            Some(IntForm::Sign) => return Ok(int_map1(args, i32::signum)),
            Some(IntForm::Max) => return int_map2(args, i32::max),
            Some(IntForm::Min) => return int_map2(args, i32::min),
            None => {}
        }
    }
    match formula_in(b, math) {
        Formula::Float1(f) => map1(args, f),
        Formula::Float2(f) => map2(args, f),
        Formula::Test(f) => test1(args, f),
        Formula::Whole(w) => whole(w, args),
        Formula::Out => Err(CpuError::Unsupported(format!(
            "{}() without an assignable second argument",
            b.name()
        ))),
        Formula::Composite => Err(bad(unlowered(b))),
    }
}

/// `all(v)` or `any(v)`: whether every (some) component is true.
fn all_or_any(all: bool, args: &[Value]) -> Result<Value, CpuError> {
    let v = arg(args, 0)?;
    let n = v.width();
    let name = if all { "all" } else { "any" };
    if n == 0 {
        return Err(bad(format!("{name}() of {}", describe(v))));
    }
    let mut it = (0..n as usize).map(|i| v.comp(i).is_some_and(|c| c.to_bool()));
    Ok(Value::bool(if all { it.all(|t| t) } else { it.any(|t| t) }))
}

/// A built-in on whole values.
fn whole(w: Whole, args: &[Value]) -> Result<Value, CpuError> {
    match w {
        Whole::All | Whole::Any => all_or_any(w == Whole::All, args),
        Whole::Dot => Ok(Value::float(dot(arg(args, 0)?, arg(args, 1)?)?)),
        Whole::Cross => {
            let (a, na) = floats(arg(args, 0)?)?;
            let (c, nb) = floats(arg(args, 1)?)?;
            if na != 3 || nb != 3 {
                return Err(bad("cross() takes two float3"));
            }
            Ok(Value::floats(&[
                a[1] * c[2] - a[2] * c[1],
                a[2] * c[0] - a[0] * c[2],
                a[0] * c[1] - a[1] * c[0],
            ]))
        }
        Whole::Mul => mul(arg(args, 0)?, arg(args, 1)?),
        Whole::Pack4ubyte => {
            let (x, n) = floats(arg(args, 0)?)?;
            if n != 4 {
                return Err(bad("pack_4ubyte() takes a float4"));
            }
            Ok(Value::float(pack_4ubyte(x)))
        }
        Whole::Unpack4ubyte => {
            let (x, _) = floats(arg(args, 0)?)?;
            Ok(Value::floats(&unpack_4ubyte(x[0])))
        }
    }
}

/// Cg's `pack_4ubyte`: each component saturated, scaled to 0..255 and rounded (halves up),
/// `.x` in the lowest byte; the four bytes are the bits of the result.
pub fn pack_4ubyte(v: [f32; 4]) -> f32 {
    let byte = |x: f32| (fmin(fmax(x, 0.0), 1.0) * 255.0 + 0.5).floor() as u32;
    f32::from_bits(v.iter().rev().fold(0, |bits, &x| (bits << 8) | byte(x)))
}

/// Cg's `unpack_4ubyte`: the four bytes of `f`'s bits, lowest first, each divided by 255.
pub fn unpack_4ubyte(f: f32) -> [f32; 4] {
    let bits = f.to_bits();
    [0, 8, 16, 24].map(|shift| ((bits >> shift) & 0xff) as f32 / 255.0)
}

/// Cg's `mul`: matrix × column vector (`result[i] = dot(m[i], v)`), row vector × matrix
/// (`result[j] = Σ_i v[i]*m[i][j]`), matrix × matrix; on scalars and vectors a plain product.
pub fn mul(a: &Value, b: &Value) -> Result<Value, CpuError> {
    let shape_err = || bad(format!("mul({}, {})", describe(a), describe(b)));
    match (a, b) {
        (Value::Matrix(m), Value::Matrix(n)) => {
            if m.cols != n.rows {
                return Err(shape_err());
            }
            let mut o = Mat::zero(m.rows, n.cols);
            for i in 0..m.rows as usize {
                for j in 0..n.cols as usize {
                    let mut s = 0.0;
                    for k in 0..m.cols as usize {
                        s += m.m[i][k] * n.m[k][j];
                    }
                    o.m[i][j] = s;
                }
            }
            Ok(Value::Matrix(o))
        }
        (Value::Matrix(m), v) => {
            let (x, n) = floats(v)?;
            if n != m.cols {
                return Err(shape_err());
            }
            let mut o = [0.0; 4];
            for (i, oi) in o.iter_mut().enumerate().take(m.rows as usize) {
                let mut s = 0.0;
                for (k, xk) in x.iter().enumerate().take(n as usize) {
                    s += m.m[i][k] * xk;
                }
                *oi = s;
            }
            Ok(Value::Float(o, m.rows))
        }
        (v, Value::Matrix(m)) => {
            let (x, n) = floats(v)?;
            if n != m.rows {
                return Err(shape_err());
            }
            let mut o = [0.0; 4];
            for (j, oj) in o.iter_mut().enumerate().take(m.cols as usize) {
                let mut s = 0.0;
                for (xi, row) in x.iter().zip(&m.m).take(n as usize) {
                    s += xi * row[j];
                }
                *oj = s;
            }
            Ok(Value::Float(o, m.cols))
        }
        _ => super::ops::binary(brook_ir::BinaryOp::Mul, a, b),
    }
}
