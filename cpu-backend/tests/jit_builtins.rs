//! Every built-in on native code against the interpreter, bit for bit, on special values:
//! zeros of both signs, ±1, halves, denormals, huge values, infinities and NaN, each
//! argument cycling through them at its own pace so that many combinations meet. Scalars and
//! vectors (SIMD lanes), scalar arguments splatting over vector ones, int forms.
//!
//! `support::run_kernel` runs each kernel on both engines and fails on any differing bit, so
//! a built-in whose inline form drifts from the interpreter's formula (or a formula changed
//! in `exec::builtin` without the JIT following) fails here, named.

mod support;
use support::*;
use Builtin::*;

const SPECIAL: [f32; 17] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    2.5,
    3.0e-40,
    -1.0e-39,
    1.0e30,
    -7.0e25,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    std::f32::consts::PI,
    -0.75,
    88.5,
];

/// Elements per stream: enough that each pair of specials meets at several widths.
const N: usize = 17 * 19;

/// Stream `k` of `width` components: element `e` lane `c` is a special value picked at a
/// pace that differs per argument and lane.
fn input(k: usize, width: u8) -> CpuStream {
    let w = width as usize;
    let data: Vec<f32> = (0..N * w)
        .map(|i| {
            let (e, c) = (i / w, i % w);
            let pace = [1, 7, 13][k % 3] + c * 3;
            SPECIAL[(e * pace + e / 17 + k) % SPECIAL.len()]
        })
        .collect();
    CpuStream::from_data(&[width], &[N], &data).unwrap()
}

/// `o = b(a0, a1, …)` over streams of the given types, on both engines.
fn check(b: Builtin, arg_types: &[Type]) {
    let streams: Vec<CpuStream> = arg_types
        .iter()
        .enumerate()
        .map(|(k, t)| input(k, t.width().unwrap_or(1)))
        .collect();
    check_on(b, arg_types, &streams);
}

/// `o = b(a0, a1, …)` over the given streams (of `N` elements), on both engines; returns
/// the native code's `o`.
fn check_on(b: Builtin, arg_types: &[Type], streams: &[CpuStream]) -> CpuStream {
    check_in(b, arg_types, streams, MathMode::Accurate)
}

/// [`check_on`] with both engines computing built-ins as `math` asks.
fn check_in(b: Builtin, arg_types: &[Type], streams: &[CpuStream], math: MathMode) -> CpuStream {
    let args: Vec<Expr> = arg_types
        .iter()
        .enumerate()
        .map(|(k, t)| param(k as u32, t.clone()))
        .collect();
    let e = bi(b, args);
    let w = e.ty.width().unwrap_or(1);
    let e = if e.ty.scalar() == Some(Scalar::Float) {
        e
    } else {
        convert(e, fvec(w))
    };
    let mut params: Vec<Param> = arg_types
        .iter()
        .enumerate()
        .map(|(k, t)| stream_param(&format!("a{k}"), t.clone()))
        .collect();
    let out = params.len() as u32;
    params.push(out_param("o", fvec(w)));
    let m = module(vec![kernel("k", params, vec![], vec![assign_out(out, e)])]);
    let mut o = zeros(&[w], &[N]);
    let mut call: Vec<CpuArg> = streams.iter().map(CpuArg::Stream).collect();
    call.push(CpuArg::Out(&mut o));
    run_kernel_in(&m, FunctionId(0), &mut call, math).unwrap_or_else(|e| panic!("{b:?}: {e}"));
    drop(call);
    o
}

fn floats(widths: &[u8]) -> Vec<Type> {
    widths.iter().map(|&w| fvec(w)).collect()
}

#[test]
fn one_argument_built_ins() {
    let unary = [
        Abs, Acos, Asin, Atan, Ceil, Cos, Cosh, Degrees, Exp, Exp2, Floor, Frac, Log, Log2, Log10,
        Radians, Round, Rsqrt, Saturate, Sign, Sin, Sinh, Sqrt, Tan, Tanh, IsFinite, IsInf, IsNan,
        Normalize, Length, All, Any,
    ];
    for b in unary {
        for w in [1, 2, 3, 4] {
            check(b, &floats(&[w]));
        }
    }
}

#[test]
fn two_argument_built_ins() {
    for b in [Atan2, Fmod, Max, Min, Pow, Step, Ldexp, Dot, Distance] {
        for ws in [[1, 1], [4, 4], [3, 3], [2, 1], [1, 4]] {
            if matches!(b, Dot) && ws[0] != ws[1] {
                continue;
            }
            check(b, &floats(&ws));
        }
    }
    check(Cross, &floats(&[3, 3]));
}

#[test]
fn three_argument_built_ins() {
    for b in [Clamp, Lerp, Smoothstep] {
        for ws in [[1, 1, 1], [4, 4, 4], [3, 1, 1], [1, 1, 2], [4, 1, 4]] {
            check(b, &floats(&ws));
        }
    }
}

#[test]
fn integer_forms() {
    let ints = |ws: &[u8]| -> Vec<Type> { ws.iter().map(|&w| ivec(w)).collect() };
    for w in [1, 4] {
        check(Abs, &ints(&[w]));
        check(Sign, &ints(&[w]));
        check(Min, &ints(&[w, 1]));
        check(Max, &ints(&[w, w]));
        check(Clamp, &ints(&[w, 1, 1]));
        // Mixed int and float arguments go to float, as in the interpreter.
        check(Max, &[ivec(w), fvec(w)]);
    }
}

#[test]
fn matrix_products() {
    for (a, b) in [
        (mat(2, 3), fvec(3)),
        (fvec(2), mat(2, 4)),
        (mat(3, 3), mat(3, 3)),
        (mat(4, 2), mat(2, 4)),
        (fvec(4), fvec(4)),
        (mat(4, 1), fvec(1)),
    ] {
        let m = module(vec![kernel(
            "k",
            vec![
                stream_param("a", a.clone()),
                stream_param("b", b.clone()),
                out_param(
                    "o",
                    bi(Mul, vec![param(0, a.clone()), param(1, b.clone())]).ty,
                ),
            ],
            vec![],
            vec![assign_out(
                2,
                bi(Mul, vec![param(0, a.clone()), param(1, b.clone())]),
            )],
        )]);
        let flat = |t: &Type| match t {
            Type::Matrix { rows, cols } => rows * cols,
            t => t.width().unwrap_or(1),
        };
        let out_w = match bi(Mul, vec![param(0, a.clone()), param(1, b.clone())]).ty {
            Type::Matrix { rows, cols } => rows * cols,
            t => t.width().unwrap_or(1),
        };
        let (x, y) = (input(0, flat(&a)), input(1, flat(&b)));
        let mut o = zeros(&[out_w], &[N]);
        run_kernel(
            &m,
            FunctionId(0),
            &mut [CpuArg::Stream(&x), CpuArg::Stream(&y), CpuArg::Out(&mut o)],
        )
        .unwrap();
    }
}

/// `pack_4ubyte` on the specials and on every byte's rounding boundary `(k + 0.5) / 255`
/// with its neighbours one ulp either side; `unpack_4ubyte` on the specials and on bit
/// patterns whose floats are denormals, NaNs (quiet and signalling) and infinities.
#[test]
fn byte_packing() {
    check(Pack4ubyte, &floats(&[4]));
    let mut edges: Vec<f32> = Vec::new();
    for k in 0..=255u32 {
        let x = (k as f32 + 0.5) / 255.0;
        edges.extend([
            x,
            f32::from_bits(x.to_bits() - 1),
            f32::from_bits(x.to_bits() + 1),
        ]);
    }
    edges.extend([1.0, 1.0 + f32::EPSILON, 255.0, -1.0e-45, 1.0e-45, f32::NAN]);
    let mut data: Vec<f32> = (0..N * 4)
        .map(|i| edges[(i * 5 + i / 4) % edges.len()])
        .collect();
    // Words that are a quiet NaN, a signalling NaN and infinity.
    let b = |k: f32| k / 255.0;
    data[..12].copy_from_slice(&[
        1.0,
        1.0,
        1.0,
        1.0,
        b(1.0),
        0.0,
        b(128.0),
        b(127.0),
        0.0,
        0.0,
        b(128.0),
        b(127.0),
    ]);
    let packed = CpuStream::from_data(&[4], &[N], &data).unwrap();
    let o = check_on(Pack4ubyte, &floats(&[4]), &[packed]);
    // Packed words can be NaN patterns, which `run_kernel` matches as any NaN: here every
    // bit counts.
    for (e, x) in o.data().iter().enumerate() {
        let v: [f32; 4] = data[4 * e..4 * e + 4].try_into().unwrap();
        let want = brook_cpu::exec::builtin::pack_4ubyte(v);
        assert_eq!(x.to_bits(), want.to_bits(), "pack_4ubyte({v:?})");
    }

    check(Unpack4ubyte, &floats(&[1]));
    let patterns = [
        0x0000_0001u32,
        0x0000_00ff,
        0x007f_ffff,
        0x8000_00ff,
        0x807f_ff80,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        0xffff_ffff,
        0x0102_0304,
        0x4000_0000,
    ];
    let bits: Vec<f32> = (0..N)
        .map(|i| f32::from_bits(patterns[i % patterns.len()].rotate_left(i as u32 / 12 * 8)))
        .collect();
    let words = CpuStream::from_data(&[1], &[N], &bits).unwrap();
    check_on(Unpack4ubyte, &floats(&[1]), &[words]);
}

/// `exp` is computed inline (`jit::lower::exp`): across its whole range, its bounds and
/// their neighbours, on one lane and four, native code gives the interpreter's bits in each
/// math mode, and both are within the mode's bound of f64 (the accurate mode: `exp`'s 1.5
/// ulps, `brook_ir::accuracy`; fast math: 3 ulps, docs/limits.md; denormal results in their
/// own ulps), infinite above the range, +0 below it, NaN for NaN.
#[test]
fn exp_across_its_range() {
    for (math, bound) in [(MathMode::Accurate, 1.5), (MathMode::Fast, 3.0)] {
        let worst = exp_worst_ulps(math);
        println!("exp in {math:?}: {worst} ulps");
        assert!(worst <= bound, "exp in {math:?} is {worst} ulps off");
        assert!(
            worst > 0.0,
            "exp is exact everywhere: the sweep checks nothing"
        );
    }
}

/// The worst error of `exp` in `math` against f64 over the sweep of [`exp_across_its_range`],
/// both engines' bits asserted equal on the way.
fn exp_worst_ulps(math: MathMode) -> f64 {
    let (lo, hi) = (-105.0f32, 90.0f32);
    let bounds = [88.722_83f32, -103.972_084, -87.336_54, 0.0, -0.0];
    let mut args: Vec<f32> = bounds
        .iter()
        .flat_map(|&b| [b, b.next_up(), b.next_down()])
        .collect();
    args.extend([f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1.0e30, -1.0e30]);
    let batches = 8;
    let total = batches * N * 4;
    args.extend((0..total - args.len()).map(|i| lo + (hi - lo) * i as f32 / total as f32));
    let mut worst = 0.0f64;
    for batch in args.chunks(N * 4) {
        for w in [1u8, 4] {
            let lanes = &batch[..N * w as usize];
            let a = CpuStream::from_data(&[w], &[N], lanes).unwrap();
            let got = check_in(Exp, &floats(&[w]), &[a], math);
            for (&x, &e) in lanes.iter().zip(got.data()) {
                let exact = f64::from(x).exp();
                if x.is_nan() {
                    assert!(e.is_nan(), "exp(NaN) is {e}");
                } else if exact > f64::from(f32::MAX) {
                    assert_eq!(e, f32::INFINITY, "exp({x})");
                } else if x < -103.972_084 {
                    assert_eq!(e.to_bits(), 0, "exp({x}) is {e}, not +0");
                } else {
                    // Denormal results too, in their own ulps (2^-149).
                    let ulp = f64::from((exact as f32).next_up() - exact as f32);
                    worst = worst.max((f64::from(e) - exact).abs() / ulp);
                }
            }
        }
    }
    worst
}
