//! The numeric contract of Brook's built-in functions: what every backend computes, and how
//! close to the true value. This table is the one statement of it; docs/limits.md
//! prints it (a test keeps the two equal) and `tests/numeric_contract.rs`
//! measures both backends against an f64 reference, per function, on every run.
//!
//! Rules for every function:
//! - Values are IEEE 754 single precision. Results in the normal range meet the bounds below;
//!   a denormal argument or result may be flushed to a zero of the same sign (GL does this,
//!   as Direct3D 10+ hardware, for which Cg was written, is allowed to; the CPU keeps
//!   denormals).
//! - Special values (zeros, infinities, NaN) give what C99's Annex F gives for the function of
//!   the same name, on every backend: `exp(-inf) = 0`, `log(0) = -inf`, `atan2(+0, -0) = pi`,
//!   `pow(x, 0) = 1`, `sin(inf) = NaN`, …
//! - `pow` keeps C's meaning for a negative base (Cg's reference implementation,
//!   `exp(y * log(x))`, has none): an integral exponent gives the real power with the sign of
//!   its parity (`pow(-2, 3) = -8`), any other exponent NaN.
//! - `min`, `max`, `clamp` and `saturate` ignore a NaN argument (IEEE 754's minNum/maxNum,
//!   as Direct3D 10+); for `-0` against `+0` either zero may come back.
//! - `+`, `-`, `*`, `/` and `sqrt` are the machine's: correctly rounded on the CPU and on
//!   llvmpipe (GLSL itself allows 2.5 ulp for `/` and ~3 ulp for `sqrt` on other drivers).
//!   Integer `/` and `%` truncate toward zero as in C, and give 0 for a zero divisor.
//! - Whole expressions are another matter: GLSL lets a driver reassociate and factor float
//!   arithmetic (`(a + b) + 1.0` as `a + (b + 1.0)`, `x*y + 2*y` as `y*(x + 2)`; Mesa does
//!   both), so an expression of several operations may round differently on GL than on the
//!   CPU, and an infinity or NaN inside it may vanish. Each built-in on its own meets this
//!   contract; the bits of a `Formula` built-in agree wherever the driver leaves its
//!   arguments' expressions alone.

use crate::builtin::Builtin;

/// How close a built-in's result is to the true value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Accuracy {
    /// The exact result (or, where it is not a float, the correctly rounded one): the same
    /// bits on every backend.
    Exact,
    /// Cg's defining formula, evaluated operation by operation in IEEE float: the same bits on
    /// every backend, as accurate as the formula is.
    Formula(&'static str),
    /// Within this many units in the last place of the correctly rounded result.
    Ulps(f32),
    /// Within `base + |y log2 x| / per_unit` ulps (`pow`: the error of `log2 x`, about 2^-29
    /// relative, grows with the exponent it is multiplied into).
    PowUlps {
        /// The error bound when the exponent is small, in ulps.
        base: f32,
        /// The amount of `|y log2 x|` that adds one ulp to the bound.
        per_unit: f32,
    },
    /// Not a float function: booleans, tests, matrix products (see `Formula` of `dot`), byte
    /// packing (`pack_4ubyte`'s bytes are exact on every backend: the conformance suite
    /// checks them).
    NotNumeric,
}

/// The contract of `b` (component-wise for vectors).
pub fn accuracy(b: Builtin) -> Accuracy {
    use Accuracy::*;
    use Builtin::*;
    match b {
        Abs | Ceil | Floor | Round | Sign | Min | Max | Clamp | Saturate | Step | Ldexp | Modf
        | Frexp => Exact,
        Sqrt => Ulps(0.5),
        Frac => Formula("x - floor(x)"),
        Fmod => Formula("x - y * trunc(x / y)"),
        Lerp => Formula("a + t * (b - a)"),
        Smoothstep => Formula("t * t * (3 - 2 t), t = saturate((x - e0) / (e1 - e0))"),
        Degrees => Formula("x * 57.2957802 (180/pi rounded to float)"),
        Radians => Formula("x * 0.0174532924 (pi/180 rounded to float)"),
        Rsqrt => Formula("1 / sqrt(x)"),
        Dot => Formula("x0 y0 + x1 y1 + ..., added in component order"),
        Length => Formula("sqrt(dot(v, v))"),
        Distance => Formula("length(a - b)"),
        Normalize => Formula("v / length(v)"),
        Cross => Formula("a.yzx * b.zxy - a.zxy * b.yzx"),
        Log | Log2 | Log10 | Atan => Ulps(1.0),
        Exp | Exp2 | Acos | Cosh => Ulps(1.5),
        Sinh | Tanh | Atan2 => Ulps(2.0),
        Sin | Cos | Asin => Ulps(2.5),
        Tan => Ulps(4.0),
        Pow => PowUlps {
            base: 1.5,
            per_unit: 16.0,
        },
        All | Any | IsFinite | IsInf | IsNan | Mul | Pack4ubyte | Unpack4ubyte => NotNumeric,
    }
}
