//! Primitive built-in functions (the interpreter's `exec::builtin::builtin`), bit for bit;
//! the composite ones (`lerp`, `smoothstep`, `clamp`, `length`, …) never get here, written as
//! their formulas by `brook_ir::lower_composites`.
//!
//! Two ways, chosen per function:
//! - **Inline**, where the interpreter's formula is IEEE operations: `abs`, `floor`,
//!   `ceil`, `sqrt`, `exp` ([`super::exp`]), `fmod`, `sign`, `min`, `max`, `saturate`, the tests
//!   `isnan`/`isinf`/`isfinite`, the integer forms, and the non-component-wise `dot`,
//!   `cross`, `mul`, `all`, `any`. Same operations in the same order, on SIMD lanes for
//!   vectors. `min`/`max` are IEEE 754-2019 minimumNumber/maximumNumber, as the
//!   interpreter's `fmin`/`fmax` (see [`min_max`]).
//! - **Called**, everything else (`sin`, `exp2`, `log`, `pow`, `atan2`, `round`, `ldexp`,
//!   `frexp`, …): the code calls the interpreter's formula itself, one component at a time
//!   (see [`crate::jit::runtime`]).
//!
//! Nothing is fused: no multiply-add contracts, so every built-in gives the interpreter's
//! bits (`cpu-backend/tests/jit_builtins.rs` checks each one on special values).

use brook_ir::{unlowered, BinaryOp, Builtin, MathMode, Scalar};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{
    types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::FunctionBuilder;

use super::num::{convert, fconst, from_lanes, lane_cast, per_lane, shuffle, splat, Num, Val};
use super::ops::{fmod, widen2, width2};
use super::{no, Lower, Res};
use crate::exec::builtin::{
    float1, float2, float_test, formula, int_form, Formula, IntForm, Whole,
};
use crate::jit::runtime::Call;

/// `c ? x : y` per component: `c` is an `i8` truth for scalars, a mask for vectors.
pub(super) fn pick(b: &mut FunctionBuilder, c: Value, x: Value, y: Value) -> Value {
    let ty = b.func.dfg.value_type(x);
    if ty.is_vector() {
        let m = if ty == b.func.dfg.value_type(c) {
            c
        } else {
            b.ins().bitcast(ty, lane_cast(), c)
        };
        b.ins().bitselect(m, x, y)
    } else {
        b.ins().select(c, x, y)
    }
}

/// `min` (`smaller`) or `max` of floats of one shape, as the interpreter's `fmin`/`fmax`
/// (IEEE 754-2019 minimumNumber/maximumNumber): Cranelift's `fmin`/`fmax` (-0 below +0, NaN
/// where either is NaN), then a NaN argument gives the other one. The two NaN tests are
/// selects that go the same way for almost all data; the formula written out with
/// compares (as before) made `x < y` a select too, a branch the data decides at random:
/// Segment's 7 `max`es an element took 30% of its time that way.
fn min_max(b: &mut FunctionBuilder, x: Value, y: Value, smaller: bool) -> Value {
    let r = if smaller {
        b.ins().fmin(x, y)
    } else {
        b.ins().fmax(x, y)
    };
    let y_nan = b.ins().fcmp(FloatCC::Unordered, y, y);
    let r = pick(b, y_nan, x, r);
    let x_nan = b.ins().fcmp(FloatCC::Unordered, x, x);
    pick(b, x_nan, y, r)
}

/// Whether `bi` acts on each component of a vector as on a scalar (the interpreter's
/// `map1`/`map2`/`test1` built-ins).
pub(crate) fn componentwise(bi: Builtin) -> bool {
    matches!(
        formula(bi),
        Formula::Float1(_) | Formula::Float2(_) | Formula::Test(_)
    )
}

/// A float constant in the shape of `like` (scalar or vector).
pub(super) fn fsplat(b: &mut FunctionBuilder, like: Value, x: f32) -> Value {
    let c = fconst(b, x);
    if b.func.dfg.value_type(like).is_vector() {
        splat(b, Scalar::Float, c)
    } else {
        c
    }
}

/// The inline form of a component-wise float built-in, on arguments of one shape, or `None`
/// when it is called instead.
fn inline(b: &mut FunctionBuilder, bi: Builtin, a: &[Value], math: MathMode) -> Option<Value> {
    use Builtin::*;
    let x = a[0];
    Some(match bi {
        Abs => b.ins().fabs(x),
        Ceil => b.ins().ceil(x),
        Exp => super::exp::exp(b, x, math),
        Floor => b.ins().floor(x),
        Sqrt => b.ins().sqrt(x),
        Saturate => {
            let (zero, one) = (fsplat(b, x, 0.0), fsplat(b, x, 1.0));
            let m = min_max(b, x, zero, false);
            min_max(b, m, one, true)
        }
        Sign => {
            let (zero, one, minus) = (fsplat(b, x, 0.0), fsplat(b, x, 1.0), fsplat(b, x, -1.0));
            let pos = b.ins().fcmp(FloatCC::GreaterThan, x, zero);
            let neg = b.ins().fcmp(FloatCC::LessThan, x, zero);
            let r = pick(b, neg, minus, zero);
            pick(b, pos, one, r)
        }
        Min => min_max(b, x, a[1], true),
        Max => min_max(b, x, a[1], false),
        Fmod => fmod(b, x, a[1]),
        IsNan => b.ins().fcmp(FloatCC::Unordered, x, x),
        IsInf | IsFinite => {
            let m = b.ins().fabs(x);
            let inf = fsplat(b, x, f32::INFINITY);
            let cc = if bi == IsInf {
                FloatCC::Equal
            } else {
                FloatCC::LessThan
            };
            b.ins().fcmp(cc, m, inf)
        }
        // Called: the interpreter's formula itself.
        Acos | Asin | Atan | Atan2 | Cos | Cosh | Exp2 | Ldexp | Log | Log2 | Log10 | Pow
        | Round | Sin | Sinh | Tan | Tanh => return None,
        // Not component-wise, or composite: never asked for here.
        All | Any | Clamp | Cross | Degrees | Distance | Dot | Frac | Frexp | Length | Lerp
        | Modf | Mul | Normalize | Pack4ubyte | Radians | Rsqrt | Smoothstep | Step
        | Unpack4ubyte => return None,
    })
}

/// `exec::builtin::pack_4ubyte` on a `float4`: per lane `floor(saturate(x) * 255 + 0.5)`
/// (saturate with the interpreter's `fmin`/`fmax`), converted as Rust's saturating `as u32`,
/// the bytes joined `.x` lowest and the word's bits read as a float.
fn pack_4ubyte(b: &mut FunctionBuilder, x: Value) -> Num {
    let (zero, one) = (fsplat(b, x, 0.0), fsplat(b, x, 1.0));
    let m = min_max(b, x, zero, false);
    let s = min_max(b, m, one, true);
    let scale = fsplat(b, x, 255.0);
    let half = fsplat(b, x, 0.5);
    let p = b.ins().fmul(s, scale);
    let p = b.ins().fadd(p, half);
    let p = b.ins().floor(p);
    let mut bits = b.ins().iconst(types::I32, 0);
    for i in (0..4u8).rev() {
        let c = b.ins().extractlane(p, i);
        let byte = b.ins().fcvt_to_uint_sat(types::I32, c);
        let shifted = b.ins().ishl_imm_u(bits, 8);
        bits = b.ins().bor(shifted, byte);
    }
    let f = b.ins().bitcast(types::F32, MemFlagsData::new(), bits);
    Num::scalar(Scalar::Float, f)
}

/// `exec::builtin::unpack_4ubyte`: the four bytes of `x`'s bits, lowest first, each as a
/// float divided by 255 (a division, as the interpreter's, not a product by `1/255`).
fn unpack_4ubyte(b: &mut FunctionBuilder, x: Value) -> Num {
    let bits = b.ins().bitcast(types::I32, MemFlagsData::new(), x);
    let lanes: Vec<Value> = [0, 8, 16, 24]
        .iter()
        .map(|&shift| {
            let s = b.ins().ushr_imm_u(bits, shift);
            let byte = b.ins().band_imm_u(s, 0xff);
            b.ins().fcvt_from_uint(types::F32, byte)
        })
        .collect();
    let v = from_lanes(b, Scalar::Float, &lanes);
    let d = fsplat(b, v.v, 255.0);
    Num {
        v: b.ins().fdiv(v.v, d),
        ..v
    }
}

/// The address of a formula, for the runtime's trampolines.
fn address(f: usize) -> i64 {
    f as i64
}

impl Lower<'_, '_, '_, '_> {
    /// `b(args)` on evaluated arguments.
    pub fn builtin(&mut self, bi: Builtin, args: &[Val]) -> Res<Val> {
        let nums: Option<Vec<Num>> = args.iter().map(Val::num).collect();
        if let Some(nums) = &nums {
            if !nums.is_empty() && nums.iter().all(|n| n.s == Scalar::Int) {
                if let Some(v) = self.int_builtin(bi, nums)? {
                    return Ok(Val::Num(v));
                }
            }
        }
        if componentwise(bi) {
            let Some(nums) = nums else {
                return no(format!("{}() of {args:?}", bi.name()));
            };
            return self.componentwise(bi, &nums).map(Val::Num);
        }
        let f = |l: &mut Self, i: usize| -> Res<Num> {
            match args.get(i).and_then(Val::num) {
                Some(n) => Ok(convert(l.b, n, Scalar::Float)),
                None => no(format!("{}() argument {i} of {args:?}", bi.name())),
            }
        };
        let whole = match formula(bi) {
            Formula::Whole(w) => w,
            Formula::Float1(_) | Formula::Float2(_) | Formula::Test(_) => {
                return no(format!("{}() of {args:?}", bi.name()))
            }
            Formula::Out => {
                return no(format!(
                    "{}() without an assignable second argument",
                    bi.name()
                ))
            }
            Formula::Composite => return no(unlowered(bi)),
        };
        Ok(match whole {
            Whole::All | Whole::Any => {
                let v = args
                    .first()
                    .and_then(Val::num)
                    .ok_or_else(|| super::Unjittable(format!("{}() of {args:?}", bi.name())))?;
                let v = convert(self.b, v, Scalar::Bool);
                let lanes = v.lanes(self.b);
                let mut acc = lanes[0];
                for &t in &lanes[1..] {
                    acc = if whole == Whole::All {
                        self.b.ins().band(acc, t)
                    } else {
                        self.b.ins().bor(acc, t)
                    };
                }
                Val::Num(Num::scalar(Scalar::Bool, acc))
            }
            Whole::Dot => {
                let (x, y) = (f(self, 0)?, f(self, 1)?);
                Val::Num(self.dot(x, y)?)
            }
            Whole::Cross => {
                let (x, y) = (f(self, 0)?, f(self, 1)?);
                if x.n != 3 || y.n != 3 {
                    return no("cross() takes two float3");
                }
                let b = &mut *self.b;
                let (yzx, zxy) = ([1, 2, 0, 3], [2, 0, 1, 3]);
                let (a1, b1) = (shuffle(b, x.v, yzx), shuffle(b, y.v, zxy));
                let (a2, b2) = (shuffle(b, x.v, zxy), shuffle(b, y.v, yzx));
                let p = b.ins().fmul(a1, b1);
                let q = b.ins().fmul(a2, b2);
                Val::Num(Num {
                    v: b.ins().fsub(p, q),
                    ..x
                })
            }
            Whole::Mul => self.mul(
                &args[0],
                args.get(1)
                    .ok_or_else(|| super::Unjittable("mul() takes two arguments".into()))?,
            )?,
            Whole::Pack4ubyte => {
                let x = f(self, 0)?;
                if x.n != 4 {
                    return no("pack_4ubyte() takes a float4");
                }
                Val::Num(pack_4ubyte(self.b, x.v))
            }
            Whole::Unpack4ubyte => {
                let x = f(self, 0)?;
                let x = x.lane(self.b, 0);
                Val::Num(unpack_4ubyte(self.b, x))
            }
        })
    }

    /// The integer forms, when every argument is an int (`abs`, `sign`, `min`, `max`);
    /// `None` for other built-ins, which then convert their arguments to float.
    fn int_builtin(&mut self, bi: Builtin, a: &[Num]) -> Res<Option<Num>> {
        let b = &mut *self.b;
        let imap2 = |b: &mut FunctionBuilder, x: Num, y: Num, smaller: bool| -> Res<Num> {
            let (x, y) = widen2(b, x, y)?;
            Ok(Num {
                v: if smaller {
                    b.ins().smin(x.v, y.v)
                } else {
                    b.ins().smax(x.v, y.v)
                },
                ..x
            })
        };
        let Some(form) = int_form(bi) else {
            return Ok(None);
        };
        Ok(Some(match form {
            IntForm::Abs => Num {
                v: b.ins().iabs(a[0].v),
                ..a[0]
            },
            IntForm::Sign => per_lane(b, Scalar::Int, &a[..1], |b, x| {
                // i32::signum: (x > 0) - (x < 0).
                let zero = b.ins().iconst(types::I32, 0);
                let pos = b.ins().icmp(
                    cranelift_codegen::ir::condcodes::IntCC::SignedGreaterThan,
                    x[0],
                    zero,
                );
                let neg = b.ins().icmp(
                    cranelift_codegen::ir::condcodes::IntCC::SignedLessThan,
                    x[0],
                    zero,
                );
                let p = b.ins().uextend(types::I32, pos);
                let n = b.ins().uextend(types::I32, neg);
                b.ins().isub(p, n)
            }),
            IntForm::Min | IntForm::Max if a.len() >= 2 => {
                imap2(b, a[0], a[1], form == IntForm::Min)?
            }
            IntForm::Min | IntForm::Max => return no(format!("{}() of one argument", bi.name())),
        }))
    }

    /// A component-wise float built-in (`map1`/`map2`/`test1` of the interpreter):
    /// arguments converted to float, scalars splatting.
    fn componentwise(&mut self, bi: Builtin, args: &[Num]) -> Res<Num> {
        let arity = if float2(bi, self.math).is_some() {
            2
        } else {
            1
        };
        if args.len() < arity {
            return no(format!("{}() with {} arguments", bi.name(), args.len()));
        }
        let mut xs: Vec<Num> = args[..arity]
            .iter()
            .map(|&a| convert(self.b, a, Scalar::Float))
            .collect();
        let n = match arity {
            1 => xs[0].n,
            _ => width2(xs[0].n, xs[1].n)?,
        };
        for x in xs.iter_mut() {
            *x = x.widen(self.b, n);
        }
        let result_kind = if float_test(bi).is_some() {
            Scalar::Bool
        } else {
            Scalar::Float
        };
        let vals: Vec<Value> = xs.iter().map(|x| x.v).collect();
        if let Some(v) = inline(self.b, bi, &vals, self.math) {
            return Ok(Num {
                s: result_kind,
                n,
                v,
            });
        }
        let (call, f) = match arity {
            1 => (Call::Float1, float1(bi, self.math).map(|f| f as usize)),
            _ => (Call::Float2, float2(bi, self.math).map(|f| f as usize)),
        };
        let Some(f) = f else {
            return no(format!("{}() has no formula to call", bi.name()));
        };
        let fv = self.b.ins().iconst(self.ptr, address(f));
        if n > 1 {
            return Ok(self.call_lanes(fv, &xs));
        }
        let func = self.imports.get(self.b.func, call);
        Ok(per_lane(self.b, Scalar::Float, &xs, |b, lanes| {
            let mut call_args = vec![fv];
            call_args.extend_from_slice(lanes);
            let inst = b.ins().call(func, &call_args);
            b.inst_results(inst)[0]
        }))
    }

    /// Formula `fv` on every component of the float vectors `xs` (1 or 2 of one width), in
    /// one call ([`Call::Lanes`]): the vectors go to a stack slot, the results come back over
    /// the first. The formula runs on each component exactly as a call per component would.
    fn call_lanes(&mut self, fv: Value, xs: &[Num]) -> Num {
        let b = &mut *self.b;
        let slot = b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            16 * xs.len() as u32,
            4,
        ));
        let addrs: Vec<Value> = (0..2)
            .map(|k| {
                let at = 16 * k.min(xs.len() - 1) as i32;
                b.ins().stack_addr(self.ptr, slot, at)
            })
            .collect();
        for (x, &addr) in xs.iter().zip(&addrs) {
            b.ins().store(MemFlagsData::trusted(), x.v, addr, 0);
        }
        let arity = b.ins().iconst(types::I32, xs.len() as i64);
        let n = b.ins().iconst(types::I32, xs[0].n as i64);
        let func = self.imports.get(b.func, Call::Lanes);
        b.ins().call(func, &[fv, arity, addrs[0], addrs[1], n]);
        let v = b
            .ins()
            .load(types::F32X4, MemFlagsData::trusted(), addrs[0], 0);
        Num { v, ..xs[0] }
    }

    /// `dot`: `0 + x0*y0 + x1*y1 + …` in component order.
    fn dot(&mut self, x: Num, y: Num) -> Res<Num> {
        if x.n != y.n {
            return no("dot of vectors of different widths");
        }
        let b = &mut *self.b;
        let p = Num {
            v: b.ins().fmul(x.v, y.v),
            ..x
        };
        let mut s = fconst(b, 0.0);
        for c in p.lanes(b) {
            s = b.ins().fadd(s, c);
        }
        Ok(Num::scalar(Scalar::Float, s))
    }

    /// Cg's `mul` (`exec::builtin::mul`): matrix × column vector, row vector × matrix,
    /// matrix × matrix, each sum in index order from 0; anything else a plain product.
    fn mul(&mut self, a: &Val, c: &Val) -> Res<Val> {
        let float = |l: &mut Self, v: &Val| -> Res<Num> {
            match v.num() {
                Some(n) => Ok(convert(l.b, n, Scalar::Float)),
                None => no("mul() of these arguments"),
            }
        };
        // `acc + splat(k) * row`, the accumulation of one term across a row's lanes.
        let term = |b: &mut FunctionBuilder, acc: Value, k: Value, row: Num| -> Value {
            let k = Num::scalar(Scalar::Float, k).widen(b, row.n);
            let p = b.ins().fmul(k.v, row.v);
            b.ins().fadd(acc, p)
        };
        match (a, c) {
            (Val::Mat(m), Val::Mat(n)) => {
                let cols_m = m.first().map_or(0, |r| r.n) as usize;
                if cols_m != n.len() {
                    return no("mul() of matrices of these shapes");
                }
                let mut rows = Vec::with_capacity(m.len());
                for r in m {
                    let ks = r.lanes(self.b);
                    let width = n[0].n;
                    let zero = fconst(self.b, 0.0);
                    let mut acc = Num::scalar(Scalar::Float, zero).widen(self.b, width).v;
                    for (k, nr) in ks.iter().zip(n) {
                        acc = term(self.b, acc, *k, *nr);
                    }
                    rows.push(Num {
                        s: Scalar::Float,
                        n: width,
                        v: acc,
                    });
                }
                Ok(Val::Mat(rows))
            }
            (Val::Mat(m), v) => {
                let x = float(self, v)?;
                if m.first().map(|r| r.n) != Some(x.n) {
                    return no("mul(matrix, vector) of these shapes");
                }
                let mut out = Vec::with_capacity(m.len());
                for r in m {
                    let d = self.dot(*r, x)?;
                    out.push(d.v);
                }
                Ok(Val::Num(from_lanes(self.b, Scalar::Float, &out)))
            }
            (v, Val::Mat(m)) => {
                let x = float(self, v)?;
                if x.n as usize != m.len() {
                    return no("mul(vector, matrix) of these shapes");
                }
                let width = m[0].n;
                let zero = fconst(self.b, 0.0);
                let mut acc = Num::scalar(Scalar::Float, zero).widen(self.b, width).v;
                let xs = x.lanes(self.b);
                for (xi, row) in xs.iter().zip(m) {
                    acc = term(self.b, acc, *xi, *row);
                }
                Ok(Val::Num(Num {
                    s: Scalar::Float,
                    n: width,
                    v: acc,
                }))
            }
            _ => self.binary(BinaryOp::Mul, a.clone(), c.clone()),
        }
    }
}
