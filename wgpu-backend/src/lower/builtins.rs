//! Cg's primitive built-ins with the CPU backend's formulas (`cpu-backend/src/exec/builtin.rs`);
//! the composite ones (`lerp`, `smoothstep`, `clamp`, `length`, …) never get here, written as
//! their formulas by `brook_ir::lower_composites`.
//!
//! Where naga has a function with the same meaning on every input it is used (`floor`,
//! `sqrt`, `abs`, …); where the meaning differs at an edge, the CPU's formula is written out:
//! `min`/`max` are IEEE's minNum/maxNum (a NaN argument gives the other), `round` halves away
//! from zero, `sign(NaN)` is 0, `isnan`/`isinf`/`isfinite` test the bits, `frexp` takes the exponent from
//! the bits. The transcendentals and `ldexp` call GL's math library (`math.rs`), so they meet
//! the accuracy contract (`brook_ir::accuracy`) as on GL.

use brook_ir::Span;
use brook_ir::{unlowered, Builtin, Expr, ExprKind, MathMode, Scalar as BScalar, Type as BType};
use naga::{Expression, Handle, MathFunction as M, ScalarKind};

use super::builder::FnBuilder;
use super::function::FnLower;
use super::math;
use super::module::error;
use super::ops::{coerce, fmod};
use super::values::convert_kind;
use super::Lowered;

type H = Handle<Expression>;

impl FnLower<'_, '_> {
    pub fn builtin(&mut self, f: Builtin, args: &[Expr], ty: &BType, span: Span) -> Lowered<H> {
        use Builtin::*;
        let brook = self.env.brook;
        if matches!(f, Frexp | Modf) {
            return self.out_builtin(f, args, ty, span);
        }
        let all_ints = !args.is_empty() && args.iter().all(|a| a.ty.scalar() == Some(BScalar::Int));
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.expr(a)?);
        }
        if all_ints && matches!(f, Abs | Sign | Max | Min) {
            let n = args.iter().filter_map(|a| a.ty.width()).max().unwrap_or(1);
            let v: Vec<H> = args
                .iter()
                .zip(&vals)
                .map(|(a, &v)| widen(&mut self.b, v, &a.ty, n))
                .collect();
            let b = &mut self.b;
            let r = match f {
                Abs => b.math(M::Abs, &[v[0]]),
                Sign => {
                    let zero = b.i32(0);
                    let zero = b.splat(zero, n);
                    let one = b.i32(1);
                    let one = b.splat(one, n);
                    let minus = b.i32(-1);
                    let minus = b.splat(minus, n);
                    let neg = b.lt(v[0], zero);
                    let pos = b.gt(v[0], zero);
                    let s = b.select(neg, minus, zero);
                    b.select(pos, one, s)
                }
                Max => b.max(v[0], v[1]),
                _ => b.min(v[0], v[1]),
            };
            let rt = BType::vector(BScalar::Int, n);
            return Ok(coerce(&mut self.b, brook, r, &rt, ty));
        }
        // Everything else computes in float, scalars splatted to the widest argument.
        let n = args.iter().filter_map(|a| a.ty.width()).max().unwrap_or(1);
        let float_of = |b: &mut FnBuilder, v: H, t: &BType| -> H {
            match t {
                BType::Matrix { .. } => v,
                _ => {
                    let w = t.width().unwrap_or(1);
                    convert_kind(
                        b,
                        v,
                        t.scalar().unwrap_or(BScalar::Float),
                        BScalar::Float,
                        w,
                    )
                }
            }
        };
        let mut fv: Vec<H> = Vec::with_capacity(vals.len());
        for (a, &v) in args.iter().zip(&vals) {
            fv.push(float_of(&mut self.b, v, &a.ty));
        }
        let componentwise = !matches!(f, Dot | Cross | Mul | Any | All | Pack4ubyte | Unpack4ubyte);
        if componentwise {
            for (a, v) in args.iter().zip(fv.iter_mut()) {
                if a.ty.width() == Some(1) {
                    *v = self.b.splat(*v, n);
                }
            }
        }
        let b = &mut self.b;
        let (r, rt): (H, BType) = match f {
            Any | All => {
                let a = &args[0];
                let w = a.ty.width().unwrap_or(1);
                let bv = convert_kind(
                    b,
                    vals[0],
                    a.ty.scalar().unwrap_or(BScalar::Float),
                    BScalar::Bool,
                    w,
                );
                let r = if w == 1 {
                    bv
                } else {
                    b.add(Expression::Relational {
                        fun: if f == All {
                            naga::RelationalFunction::All
                        } else {
                            naga::RelationalFunction::Any
                        },
                        argument: bv,
                    })
                };
                (r, BType::BOOL)
            }
            Dot => (dot(b, fv[0], fv[1], n), BType::FLOAT),
            Cross => {
                let c = |b: &mut FnBuilder, v: H, k: u32| b.index(v, k);
                let (a0, a1, a2) = (c(b, fv[0], 0), c(b, fv[0], 1), c(b, fv[0], 2));
                let (b0, b1, b2) = (c(b, fv[1], 0), c(b, fv[1], 1), c(b, fv[1], 2));
                let term = |b: &mut FnBuilder, p: H, q: H, r: H, s: H| {
                    let x = b.mul(p, q);
                    let y = b.mul(r, s);
                    b.sub(x, y)
                };
                let x = term(b, a1, b2, a2, b1);
                let y = term(b, a2, b0, a0, b2);
                let z = term(b, a0, b1, a1, b0);
                let t = b.types.vector(naga::Scalar::F32, 3);
                (
                    b.compose(t, vec![x, y, z]),
                    BType::vector(BScalar::Float, 3),
                )
            }
            Mul => mul(b, fv[0], &args[0].ty, fv[1], &args[1].ty),
            // Cg's packing is WGSL's unorm packing (saturate, `floor(0.5 + 255 * c)`, `.x` in
            // the lowest byte); the packed word is the float's bits, moved without arithmetic.
            Pack4ubyte => {
                let word = b.math(M::Pack4x8unorm, &[fv[0]]);
                (b.bitcast(word, ScalarKind::Float), BType::FLOAT)
            }
            Unpack4ubyte => {
                let word = b.bitcast(fv[0], ScalarKind::Uint);
                (
                    b.math(M::Unpack4x8unorm, &[word]),
                    BType::vector(BScalar::Float, 4),
                )
            }
            IsNan | IsInf | IsFinite => {
                let (magnitude, inf) = magnitude_bits(b, fv[0], n);
                let r = match f {
                    IsNan => b.gt(magnitude, inf),
                    IsInf => b.eq(magnitude, inf),
                    _ => b.lt(magnitude, inf),
                };
                (r, BType::vector(BScalar::Bool, n))
            }
            Abs | Acos | Asin | Atan | Atan2 | Ceil | Cos | Cosh | Exp | Exp2 | Floor | Fmod
            | Ldexp | Log | Log2 | Log10 | Max | Min | Pow | Round | Saturate | Sign | Sin
            | Sinh | Sqrt | Tan | Tanh => {
                let r = float_builtin(b, f, &fv, n, self.env.math)
                    .ok_or_else(|| error(format!("{}() is not supported here", f.name()), span))?;
                (r, BType::vector(BScalar::Float, n))
            }
            Frexp | Modf => return self.out_builtin(f, args, ty, span),
            Clamp | Degrees | Distance | Frac | Length | Lerp | Normalize | Radians | Rsqrt
            | Smoothstep | Step => return Err(error(unlowered(f), span)),
        };
        Ok(coerce(&mut self.b, brook, r, &rt, ty))
    }

    /// `frexp(x, e)` and `modf(x, ip)`: the result is returned, the second part stored into
    /// the second argument, a variable.
    fn out_builtin(&mut self, f: Builtin, args: &[Expr], ty: &BType, span: Span) -> Lowered<H> {
        let brook = self.env.brook;
        let [x, out] = args else {
            return Err(error(format!("{}() takes two arguments", f.name()), span));
        };
        if !matches!(out.kind, ExprKind::Local(_) | ExprKind::Param(_)) {
            return Err(error(
                format!(
                    "{}() whose second argument is not a plain variable",
                    f.name()
                ),
                out.span,
            ));
        }
        let v = self.expr(x)?;
        let n = x.ty.width().unwrap_or(1);
        let v = convert_kind(
            &mut self.b,
            v,
            x.ty.scalar().unwrap_or(BScalar::Float),
            BScalar::Float,
            n,
        );
        let (ret, second) = if f == Builtin::Modf {
            let ip = self.b.math(M::Trunc, &[v]);
            (self.b.sub(v, ip), ip)
        } else {
            frexp(&mut self.b, v, n)
        };
        let ft = BType::vector(BScalar::Float, n);
        if let Some(dst) = self.pointer(out)? {
            let s = coerce(&mut self.b, brook, second, &ft, &out.ty);
            self.b.store(dst, s);
        }
        Ok(coerce(&mut self.b, brook, ret, &ft, ty))
    }
}

/// A scalar int or float of type `t` splatted to width `n`.
fn widen(b: &mut FnBuilder, v: H, t: &BType, n: u8) -> H {
    if t.width() == Some(1) {
        b.splat(v, n)
    } else {
        v
    }
}

/// `x.0*y.0 + x.1*y.1 + …`, left to right like the CPU's loop.
fn dot(b: &mut FnBuilder, x: H, y: H, n: u8) -> H {
    if n == 1 {
        return b.mul(x, y);
    }
    let mut s = None;
    for k in 0..u32::from(n) {
        let xi = b.index(x, k);
        let yi = b.index(y, k);
        let p = b.mul(xi, yi);
        s = Some(match s {
            None => p,
            Some(acc) => b.add_(acc, p),
        });
    }
    s.expect("at least one component")
}

/// `min` as IEEE 754's minNum, as on the CPU: `y < x || isnan(x) ? y : x` (component-wise),
/// so a NaN argument gives the other one.
fn fmin(b: &mut FnBuilder, x: H, y: H, n: u8) -> H {
    let less = b.lt(y, x);
    let nan = is_nan(b, x, n);
    let c = b.bin(naga::BinaryOperator::InclusiveOr, less, nan);
    b.select(c, y, x)
}

/// `max` as IEEE 754's maxNum: `x < y || isnan(x) ? y : x`.
fn fmax(b: &mut FnBuilder, x: H, y: H, n: u8) -> H {
    let less = b.lt(x, y);
    let nan = is_nan(b, x, n);
    let c = b.bin(naga::BinaryOperator::InclusiveOr, less, nan);
    b.select(c, y, x)
}

/// The bits of `|x|` and of +inf, to compare: `isnan`, `isinf` and `isfinite` test the bits,
/// which no driver folds (Mesa may take `x != x` to be false).
fn magnitude_bits(b: &mut FnBuilder, x: H, n: u8) -> (H, H) {
    let bits = b.bitcast(x, ScalarKind::Uint);
    let mask = b.u32(0x7fff_ffff);
    let mask = b.splat(mask, n);
    let magnitude = b.bin(naga::BinaryOperator::And, bits, mask);
    let inf = b.u32(0x7f80_0000);
    (magnitude, b.splat(inf, n))
}

fn is_nan(b: &mut FnBuilder, x: H, n: u8) -> H {
    let (magnitude, inf) = magnitude_bits(b, x, n);
    b.gt(magnitude, inf)
}

/// Math library function `name` (`math.rs`) of `args`, scalars or vectors of `n` floats: on
/// vectors, component by component.
fn library(b: &mut FnBuilder, name: &str, args: &[H], n: u8) -> H {
    let f = math::function(name);
    let call = |b: &mut FnBuilder, args: Vec<H>| {
        b.call(f, args, true)
            .expect("a call asked for its result has one")
    };
    if n == 1 {
        return call(b, args.to_vec());
    }
    let components = (0..u32::from(n))
        .map(|k| {
            let at: Vec<H> = args.iter().map(|&v| b.index(v, k)).collect();
            call(b, at)
        })
        .collect();
    let t = b.types.vector(naga::Scalar::F32, n);
    b.compose(t, components)
}

/// A float constant of the shape of `like` (scalar or vector of `n`).
fn constant(b: &mut FnBuilder, v: f32, n: u8) -> H {
    let c = b.f32(v);
    b.splat(c, n)
}

/// The component-wise float built-ins, on float arguments already splatted to one width;
/// `None` for the others, which [`FnLower::builtin`] lowers itself.
fn float_builtin(b: &mut FnBuilder, f: Builtin, a: &[H], n: u8, math: MathMode) -> Option<H> {
    use Builtin::*;
    if math == MathMode::Fast {
        if let Some(r) = naga_builtin(b, f, a, n) {
            return Some(r);
        }
    }
    Some(match f {
        Abs => b.math(M::Abs, &[a[0]]),
        Acos => library(b, "brook_acos", a, n),
        Asin => library(b, "brook_asin", a, n),
        Atan if a.len() == 1 => library(b, "brook_atan", a, n),
        Atan | Atan2 => library(b, "brook_atan2", a, n),
        Ceil => b.math(M::Ceil, &[a[0]]),
        Cos => library(b, "brook_cos", a, n),
        Cosh => library(b, "brook_cosh", a, n),
        Exp => library(b, "brook_exp", a, n),
        Exp2 => library(b, "brook_exp2", a, n),
        Floor => b.math(M::Floor, &[a[0]]),
        Log => library(b, "brook_log", a, n),
        Log2 => library(b, "brook_log2", a, n),
        Log10 => library(b, "brook_log10", a, n),
        Round => {
            // Halves away from zero: trunc(x), plus sign(x) when |x - trunc(x)| >= 0.5.
            let t = b.math(M::Trunc, &[a[0]]);
            let d = b.sub(a[0], t);
            let ad = b.math(M::Abs, &[d]);
            let half = constant(b, 0.5, n);
            let up = b.ge(ad, half);
            let s = sign(b, a[0], n);
            let bumped = b.add_(t, s);
            b.select(up, bumped, t)
        }
        Saturate => {
            let zero = constant(b, 0.0, n);
            let one = constant(b, 1.0, n);
            let lo = fmax(b, a[0], zero, n);
            fmin(b, lo, one, n)
        }
        Sign => sign(b, a[0], n),
        Sin => library(b, "brook_sin", a, n),
        Sinh => library(b, "brook_sinh", a, n),
        Sqrt => b.math(M::Sqrt, &[a[0]]),
        Tan => library(b, "brook_tan", a, n),
        Tanh => library(b, "brook_tanh", a, n),
        Fmod => fmod(b, a[0], a[1]),
        Max => fmax(b, a[0], a[1], n),
        Min => fmin(b, a[0], a[1], n),
        Pow => library(b, "brook_pow", a, n),
        Ldexp => library(b, "brook_ldexp", a, n),
        All | Any | Clamp | Cross | Degrees | Distance | Dot | Frac | Frexp | IsFinite | IsInf
        | IsNan | Length | Lerp | Modf | Mul | Normalize | Pack4ubyte | Radians | Rsqrt
        | Smoothstep | Step | Unpack4ubyte => return None,
    })
}

/// Fast math: naga's own function for a transcendental that Brook's math library provides
/// in the accurate mode (`None` for the others). naga has no `log10`: `log2(x)` times
/// `log10(2)`.
fn naga_builtin(b: &mut FnBuilder, f: Builtin, a: &[H], n: u8) -> Option<H> {
    use Builtin::*;
    let fun = match f {
        Exp => M::Exp,
        Exp2 => M::Exp2,
        Log => M::Log,
        Log2 => M::Log2,
        Log10 => {
            let l = b.math(M::Log2, &[a[0]]);
            let k = constant(b, std::f32::consts::LOG10_2, n);
            return Some(b.mul(l, k));
        }
        Sin => M::Sin,
        Cos => M::Cos,
        Tan => M::Tan,
        Asin => M::Asin,
        Acos => M::Acos,
        Atan if a.len() == 1 => M::Atan,
        Atan | Atan2 => M::Atan2,
        Sinh => M::Sinh,
        Cosh => M::Cosh,
        Tanh => M::Tanh,
        Pow => M::Pow,
        _ => return None,
    };
    Some(b.math(fun, a))
}

/// `sign`: 1, -1, or +0 (also for NaN), component-wise. The -1 is chosen last: Mesa turns
/// `x < 0 ? -1.0 : 0.0` into `-float(x < 0)`, which is -0 where it should be +0.
fn sign(b: &mut FnBuilder, x: H, n: u8) -> H {
    let zero = constant(b, 0.0, n);
    let one = constant(b, 1.0, n);
    let minus = constant(b, -1.0, n);
    let neg = b.lt(x, zero);
    let pos = b.gt(x, zero);
    let s = b.select(pos, one, zero);
    b.select(neg, minus, s)
}

/// `frexp` from the bits (the CPU's `frexp`): `x = m * 2^e`, `|m|` in `[0.5, 1)`; zero,
/// infinities and NaN give `(x, 0)`; subnormals are scaled by 2^25 first.
fn frexp(b: &mut FnBuilder, x: H, n: u8) -> (H, H) {
    use naga::BinaryOperator as Op;
    let u = |b: &mut FnBuilder, v: u32| {
        let c = b.u32(v);
        b.splat(c, n)
    };
    let zero = constant(b, 0.0, n);
    let is_zero = b.eq(x, zero);
    let bits = b.bitcast(x, ScalarKind::Uint);
    let mask = u(b, 0x7fff_ffff);
    let magnitude = b.bin(Op::And, bits, mask);
    let inf = u(b, 0x7f80_0000);
    let not_finite = b.ge(magnitude, inf);
    let special = b.bin(Op::InclusiveOr, is_zero, not_finite);
    let ax = b.math(M::Abs, &[x]);
    let tiny = constant(b, f32::MIN_POSITIVE, n);
    let sub = b.lt(ax, tiny);
    let scale = constant(b, 33_554_432.0, n); // 2^25
    let scaled = b.mul(x, scale);
    let xs = b.select(sub, scaled, x);
    let sbits = b.bitcast(xs, ScalarKind::Uint);
    let sh = u(b, 23);
    let shifted = b.bin(Op::ShiftRight, sbits, sh);
    let ff = u(b, 0xff);
    let biased = b.bin(Op::And, shifted, ff);
    let biased = b.convert(biased, ScalarKind::Sint);
    let k126 = b.i32(126);
    let k126 = b.splat(k126, n);
    let e = b.sub(biased, k126);
    let m25 = b.i32(-25);
    let m25 = b.splat(m25, n);
    let z = b.i32(0);
    let z = b.splat(z, n);
    let bias = b.select(sub, m25, z);
    let e = b.add_(e, bias);
    let e = b.convert(e, ScalarKind::Float);
    let keep = u(b, 0x807f_ffff);
    let mant = b.bin(Op::And, sbits, keep);
    let half = u(b, 126 << 23);
    let mbits = b.bin(Op::InclusiveOr, mant, half);
    let m = b.bitcast(mbits, ScalarKind::Float);
    let m = b.select(special, x, m);
    let e = b.select(special, zero, e);
    (m, e)
}

/// Cg's `mul` on matrices kept with Brook rows as naga columns (see `types.rs`): the
/// operands swap; on scalars and vectors a plain product.
fn mul(b: &mut FnBuilder, x: H, xt: &BType, y: H, yt: &BType) -> (H, BType) {
    match (xt, yt) {
        (BType::Matrix { rows, .. }, BType::Matrix { cols, .. }) => (
            b.mul(y, x),
            BType::Matrix {
                rows: *rows,
                cols: *cols,
            },
        ),
        (BType::Matrix { rows, .. }, _) => (b.mul(y, x), BType::vector(BScalar::Float, *rows)),
        (_, BType::Matrix { cols, .. }) => (b.mul(y, x), BType::vector(BScalar::Float, *cols)),
        _ => {
            let n = xt.width().unwrap_or(1).max(yt.width().unwrap_or(1));
            let xs = widen(b, x, xt, n);
            let ys = widen(b, y, yt, n);
            (b.mul(xs, ys), BType::vector(BScalar::Float, n))
        }
    }
}
