//! Cg's built-in functions on runtime values.
//!
//! Component-wise built-ins accept scalars where the others are vectors (splat), as Cg does.
//! The formulas are the ones GPUs use, so the reference agrees with GLSL up to rounding:
//! `round` halves away from zero, `frac(x) = x - floor(x)`, `fmod(x, y) = x - y*trunc(x/y)`,
//! `lerp(a, b, t) = a + t*(b - a)`, `saturate = clamp(x, 0, 1)`, `rsqrt = 1/sqrt`,
//! `step(e, x) = x >= e ? 1 : 0`, `smoothstep` is the Hermite `t*t*(3 - 2t)`, `min`/`max`
//! ignore a NaN argument (IEEE minNum/maxNum), `mul(m, v)` treats `m` as rows (Cg).
//! `frexp` and `modf` write an out argument and live with the expression evaluator.

use brook_frontend::ir::Builtin;

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

fn map3(args: &[Value], f: impl Fn(f32, f32, f32) -> f32) -> Result<Value, CpuError> {
    let (x, na) = floats(arg(args, 0)?)?;
    let (y, nb) = floats(arg(args, 1)?)?;
    let (z, nc) = floats(arg(args, 2)?)?;
    let n = na.max(nb).max(nc);
    for w in [na, nb, nc] {
        if w != 1 && w != n {
            return Err(bad("built-in arguments of different widths"));
        }
    }
    let pick = |a: &[f32; 4], w: u8, i: usize| if w == 1 { a[0] } else { a[i] };
    let mut o = [0.0; 4];
    for (i, oi) in o.iter_mut().enumerate().take(n as usize) {
        *oi = f(pick(&x, na, i), pick(&y, nb, i), pick(&z, nc, i));
    }
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

fn int_map2(args: &[Value], f: impl Fn(i32, i32) -> i32) -> Result<Value, CpuError> {
    let (x, na) = ints(arg(args, 0)?);
    let (y, nb) = ints(arg(args, 1)?);
    let (o, n) = zip(&x, na, &y, nb, f)?;
    Ok(Value::Int(o, n))
}

/// `min` as IEEE 754-2019's minimumNumber (Direct3D 10+ for NaN): a NaN argument gives the
/// other one (`brook_frontend::accuracy`; GLSL leaves NaN undefined, llvmpipe does this too),
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

/// Cg's `smoothstep`: 0 below `e0`, 1 above `e1`, the cubic `3t² − 2t³` between.
pub fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = fmin(fmax((x - e0) / (e1 - e0), 0.0), 1.0);
    t * t * (3.0 - 2.0 * t)
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

/// `x * 2^n` for an integral `n` in [-252, 254], as two exact factors.
fn scale(x: f32, n: f32) -> f32 {
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

/// 180/pi and pi/180 rounded once to float (`180.0 / PI` in float is an ulp off); the GLSL
/// lowering multiplies by the same constants, so `degrees` and `radians` agree bit for bit.
pub const DEGREES_PER_RADIAN: f32 = (180.0 / std::f64::consts::PI) as f32;
/// pi/180 rounded once to float (see [`DEGREES_PER_RADIAN`]).
pub const RADIANS_PER_DEGREE: f32 = (std::f64::consts::PI / 180.0) as f32;

/// The formula of a one-argument component-wise float built-in.
pub fn float1(b: Builtin) -> Option<fn(f32) -> f32> {
    use Builtin::*;
    Some(match b {
        Abs => f32::abs,
        Acos => f32::acos,
        Asin => f32::asin,
        Atan => f32::atan,
        Ceil => f32::ceil,
        Cos => f32::cos,
        Cosh => f32::cosh,
        Degrees => |x| x * DEGREES_PER_RADIAN,
        Exp => f32::exp,
        Exp2 => f32::exp2,
        Floor => f32::floor,
        Frac => |x| x - x.floor(),
        Log => f32::ln,
        Log2 => f32::log2,
        Log10 => f32::log10,
        Radians => |x| x * RADIANS_PER_DEGREE,
        Round => f32::round,
        Rsqrt => |x| 1.0 / x.sqrt(),
        Saturate => |x| fmin(fmax(x, 0.0), 1.0),
        Sign => sign,
        Sin => f32::sin,
        Sinh => f32::sinh,
        Sqrt => f32::sqrt,
        Tan => f32::tan,
        Tanh => f32::tanh,
        _ => return None,
    })
}

/// The formula of a two-argument component-wise float built-in.
pub fn float2(b: Builtin) -> Option<fn(f32, f32) -> f32> {
    use Builtin::*;
    Some(match b {
        Atan2 => f32::atan2,
        Fmod => fmod,
        Max => fmax,
        Min => fmin,
        Pow => f32::powf,
        Step => |edge, x| if x >= edge { 1.0 } else { 0.0 },
        Ldexp => ldexp,
        _ => return None,
    })
}

/// The formula of a three-argument component-wise float built-in.
pub fn float3(b: Builtin) -> Option<fn(f32, f32, f32) -> f32> {
    use Builtin::*;
    Some(match b {
        Clamp => |x, lo, hi| fmin(fmax(x, lo), hi),
        Lerp => |a, b, t| a + t * (b - a),
        Smoothstep => smoothstep,
        _ => return None,
    })
}

/// The test of a component-wise float predicate (`isnan`, …).
pub fn float_test(b: Builtin) -> Option<fn(f32) -> bool> {
    use Builtin::*;
    Some(match b {
        IsFinite => f32::is_finite,
        IsInf => f32::is_infinite,
        IsNan => f32::is_nan,
        _ => return None,
    })
}

/// The int formula of a built-in that keeps ints when all its arguments are ints.
pub fn int1(b: Builtin) -> Option<fn(i32) -> i32> {
    match b {
        Builtin::Abs => Some(i32::wrapping_abs),
        Builtin::Sign => Some(i32::signum),
        _ => None,
    }
}

/// See [`int1`]; `clamp` on ints is `min(max(x, lo), hi)`.
pub fn int2(b: Builtin) -> Option<fn(i32, i32) -> i32> {
    match b {
        Builtin::Max => Some(i32::max),
        Builtin::Min => Some(i32::min),
        _ => None,
    }
}

/// Evaluates `b` on already evaluated arguments.
pub fn builtin(b: Builtin, args: &[Value]) -> Result<Value, CpuError> {
    use Builtin::*;
    if all_ints(args) {
        if let Some(f) = int1(b) {
            let (x, n) = ints(&args[0]);
            return Ok(Value::Int(x.map(f), n));
        }
        if let Some(f) = int2(b) {
            return int_map2(args, f);
        }
        if b == Clamp {
            let lo = int_map2(&args[..2], i32::max)?;
            return int_map2(&[lo, arg(args, 2)?.clone()], i32::min);
        }
    }
    if let Some(f) = float1(b) {
        return map1(args, f);
    }
    if let Some(f) = float2(b) {
        return map2(args, f);
    }
    if let Some(f) = float3(b) {
        return map3(args, f);
    }
    if let Some(f) = float_test(b) {
        return test1(args, f);
    }
    match b {
        All | Any => {
            let v = arg(args, 0)?;
            let n = v.width();
            if n == 0 {
                return Err(bad(format!("{}() of {}", b.name(), describe(v))));
            }
            let mut it = (0..n as usize).map(|i| v.comp(i).is_some_and(|c| c.to_bool()));
            Ok(Value::bool(if b == All {
                it.all(|t| t)
            } else {
                it.any(|t| t)
            }))
        }
        Dot => Ok(Value::float(dot(arg(args, 0)?, arg(args, 1)?)?)),
        Length => {
            let v = arg(args, 0)?;
            Ok(Value::float(dot(v, v)?.sqrt()))
        }
        Distance => {
            let d = map2(args, |p, q| p - q)?;
            Ok(Value::float(dot(&d, &d)?.sqrt()))
        }
        Normalize => {
            let v = arg(args, 0)?;
            let len = dot(v, v)?.sqrt();
            map1(args, |x| x / len)
        }
        Cross => {
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
        Mul => mul(arg(args, 0)?, arg(args, 1)?),
        Pack4ubyte => {
            let (x, n) = floats(arg(args, 0)?)?;
            if n != 4 {
                return Err(bad("pack_4ubyte() takes a float4"));
            }
            Ok(Value::float(pack_4ubyte(x)))
        }
        Unpack4ubyte => {
            let (x, _) = floats(arg(args, 0)?)?;
            Ok(Value::floats(&unpack_4ubyte(x[0])))
        }
        Frexp | Modf => Err(CpuError::Unsupported(format!(
            "{}() without an assignable second argument",
            b.name()
        ))),
        _ => Err(bad(format!("{}() on these arguments", b.name()))),
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
        _ => super::ops::binary(brook_frontend::ir::BinaryOp::Mul, a, b),
    }
}
