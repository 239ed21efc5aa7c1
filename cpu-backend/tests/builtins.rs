//! Every built-in at a few values, against Rust `f32`/`f64` formulas, plus integer operators.

mod support;
use std::f32::consts::PI;
use support::*;
use Builtin::*;

/// Evaluates `e` in a one-element kernel (`o = e;`, bools and ints converted to float).
fn eval(e: Expr) -> Vec<f32> {
    let w = e.ty.width().unwrap_or(1);
    let e = if e.ty.scalar() == Some(Scalar::Float) {
        e
    } else {
        convert(e, fvec(w))
    };
    let m = module(vec![kernel(
        "k",
        vec![out_param("o", fvec(w))],
        vec![],
        vec![assign_out(0, e)],
    )]);
    let mut o = zeros(&[w], &[1]);
    run_kernel(&m, FunctionId(0), &mut [CpuArg::Out(&mut o)]).unwrap();
    o.data().to_vec()
}

fn f1(b: Builtin, x: f32) -> f32 {
    eval(bi(b, vec![lit(x)]))[0]
}

fn f2(b: Builtin, x: f32, y: f32) -> f32 {
    eval(bi(b, vec![lit(x), lit(y)]))[0]
}

fn f3(b: Builtin, x: f32, y: f32, z: f32) -> f32 {
    eval(bi(b, vec![lit(x), lit(y), lit(z)]))[0]
}

fn close(a: f32, b: f64) -> bool {
    ((a as f64) - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[test]
fn rounding_family() {
    assert_eq!(f1(Round, 2.5), 3.0);
    assert_eq!(f1(Round, -2.5), -3.0);
    assert_eq!(f1(Round, 0.4), 0.0);
    assert_eq!(f1(Round, -1.6), -2.0);
    assert_eq!(f1(Frac, -1.25), 0.75);
    assert_eq!(f1(Frac, 1.75), 0.75);
    assert_eq!(f1(Floor, -1.5), -2.0);
    assert_eq!(f1(Ceil, -1.5), -1.0);
    assert_eq!(f1(Ceil, 1.2), 2.0);
    assert_eq!(f1(Abs, -3.5), 3.5);
    assert_eq!(f1(Sign, -3.0), -1.0);
    assert_eq!(f1(Sign, 0.0), 0.0);
    assert_eq!(f1(Sign, 2.0), 1.0);
}

#[test]
fn fmod_has_the_sign_of_x() {
    assert_eq!(f2(Fmod, -5.5, 2.0), -1.5);
    assert_eq!(f2(Fmod, 5.5, -2.0), 1.5);
    assert_eq!(f2(Fmod, 5.5, 2.0), 1.5);
    assert_eq!(f2(Fmod, 1.0, 0.25), 0.0);
}

#[test]
fn interpolation_and_clamping() {
    assert_eq!(f3(Lerp, 2.0, 4.0, 0.25), 2.5);
    assert_eq!(f3(Lerp, 2.0, 4.0, 1.5), 5.0);
    assert_eq!(f1(Saturate, -1.0), 0.0);
    assert_eq!(f1(Saturate, 0.5), 0.5);
    assert_eq!(f1(Saturate, 2.0), 1.0);
    assert_eq!(f3(Clamp, 5.0, 0.0, 2.0), 2.0);
    assert_eq!(f3(Clamp, -5.0, 0.0, 2.0), 0.0);
    assert_eq!(f2(Step, 1.0, 0.5), 0.0);
    assert_eq!(f2(Step, 1.0, 1.0), 1.0);
    assert_eq!(f2(Step, 1.0, 2.0), 1.0);
    assert_eq!(f3(Smoothstep, 0.0, 1.0, 0.25), 0.15625);
    assert_eq!(f3(Smoothstep, 0.0, 1.0, -1.0), 0.0);
    assert_eq!(f3(Smoothstep, 0.0, 1.0, 2.0), 1.0);
    assert_eq!(f3(Smoothstep, 2.0, 4.0, 3.0), 0.5);
    assert_eq!(f2(Min, 1.0, -2.0), -2.0);
    assert_eq!(f2(Max, 1.0, -2.0), 1.0);
}

#[test]
fn transcendental_functions_match_rust() {
    type Case = (Builtin, fn(f32) -> f32, fn(f64) -> f64, &'static [f32]);
    let cases: &[Case] = &[
        (Sin, f32::sin, f64::sin, &[0.0, 0.5, -2.0, 10.0]),
        (Cos, f32::cos, f64::cos, &[0.0, 0.5, -2.0, 10.0]),
        (Tan, f32::tan, f64::tan, &[0.0, 0.5, -1.0]),
        (Asin, f32::asin, f64::asin, &[0.0, 0.5, -1.0]),
        (Acos, f32::acos, f64::acos, &[0.0, 0.5, -1.0]),
        (Atan, f32::atan, f64::atan, &[0.0, 0.5, -20.0]),
        (Sinh, f32::sinh, f64::sinh, &[0.0, 0.5, -2.0]),
        (Cosh, f32::cosh, f64::cosh, &[0.0, 0.5, -2.0]),
        (Tanh, f32::tanh, f64::tanh, &[0.0, 0.5, -2.0]),
        (Exp, f32::exp, f64::exp, &[0.0, 1.0, -2.5]),
        (Exp2, f32::exp2, f64::exp2, &[0.0, 3.0, -2.5]),
        (Log, f32::ln, f64::ln, &[1.0, 2.0, 100.0]),
        (Log2, f32::log2, f64::log2, &[1.0, 8.0, 3.0]),
        (Log10, f32::log10, f64::log10, &[1.0, 1000.0, 3.0]),
        (Sqrt, f32::sqrt, f64::sqrt, &[0.0, 2.0, 16.0]),
    ];
    for (b, f, g, xs) in cases {
        for &x in *xs {
            let got = f1(*b, x);
            assert_eq!(got, f(x), "{}({x})", b.name());
            assert!(
                close(got, g(x as f64)),
                "{}({x}) = {got}, f64 says {}",
                b.name(),
                g(x as f64)
            );
        }
    }
    assert_eq!(f1(Exp2, 3.0), 8.0);
    assert_eq!(f1(Log2, 8.0), 3.0);
    assert_eq!(f1(Log10, 1000.0), 3.0);
    assert_eq!(f1(Rsqrt, 4.0), 0.5);
    assert!(close(f1(Rsqrt, 2.0), 1.0 / 2f64.sqrt()));
    assert!(close(f1(Degrees, PI), 180.0));
    assert!(close(f1(Radians, 180.0), std::f64::consts::PI));
    assert!(close(f1(Radians, 90.0), std::f64::consts::FRAC_PI_2));
    assert!(close(
        f2(Atan2, 1.0, -1.0),
        3.0 * std::f64::consts::FRAC_PI_4
    ));
    assert!(close(f2(Atan2, -1.0, 0.0), -std::f64::consts::FRAC_PI_2));
    assert_eq!(f2(Pow, 2.0, 10.0), 1024.0);
    assert!(close(f2(Pow, 2.0, 0.5), 2f64.sqrt()));
    assert_eq!(f2(Ldexp, 3.0, 4.0), 48.0);
}

#[test]
fn classification() {
    let nan = || div(lit(0.0), lit(0.0));
    let inf = || div(lit(1.0), lit(0.0));
    let v = || construct(fvec(3), vec![nan(), inf(), lit(1.0)]);
    assert_eq!(eval(bi(IsNan, vec![v()])), vec![1.0, 0.0, 0.0]);
    assert_eq!(eval(bi(IsInf, vec![v()])), vec![0.0, 1.0, 0.0]);
    assert_eq!(eval(bi(IsFinite, vec![v()])), vec![0.0, 0.0, 1.0]);
    assert_eq!(eval(bi(IsInf, vec![neg(inf())])), vec![1.0]);
}

#[test]
fn any_and_all() {
    let bv = |xs: &[bool]| construct(bvec(xs.len() as u8), xs.iter().map(|&b| blit(b)).collect());
    assert_eq!(eval(bi(Any, vec![bv(&[false, true, false])])), vec![1.0]);
    assert_eq!(eval(bi(Any, vec![bv(&[false, false])])), vec![0.0]);
    assert_eq!(
        eval(bi(All, vec![bv(&[true, true, true, true])])),
        vec![1.0]
    );
    assert_eq!(eval(bi(All, vec![bv(&[true, false])])), vec![0.0]);
    // On a comparison result, as Brook code writes it.
    assert_eq!(
        eval(bi(All, vec![gt(flits(&[1.0, 2.0]), lit(0.5))])),
        vec![1.0]
    );
}

#[test]
fn geometric_functions() {
    assert_eq!(
        eval(bi(
            Cross,
            vec![flits(&[1.0, 0.0, 0.0]), flits(&[0.0, 1.0, 0.0])]
        )),
        vec![0.0, 0.0, 1.0]
    );
    assert_eq!(
        eval(bi(
            Cross,
            vec![flits(&[1.0, 2.0, 3.0]), flits(&[4.0, 5.0, 6.0])]
        )),
        vec![-3.0, 6.0, -3.0]
    );
    assert_eq!(
        eval(bi(
            Dot,
            vec![flits(&[1.0, 2.0, 3.0]), flits(&[4.0, 5.0, 6.0])]
        )),
        vec![32.0]
    );
    assert_eq!(eval(bi(Length, vec![flits(&[3.0, 4.0])])), vec![5.0]);
    assert_eq!(
        eval(bi(Distance, vec![flits(&[0.0, 0.0]), flits(&[3.0, 4.0])])),
        vec![5.0]
    );
    assert_eq!(
        eval(bi(
            Distance,
            vec![flits(&[1.0, 1.0, 1.0]), flits(&[1.0, 1.0, 3.0])]
        )),
        vec![2.0]
    );
    let n = eval(bi(Normalize, vec![flits(&[3.0, 4.0])]));
    assert!(close(n[0], 0.6) && close(n[1], 0.8), "{n:?}");
    assert_eq!(eval(bi(Length, vec![lit(-2.0)])), vec![2.0]);
}

#[test]
fn component_wise_with_scalar_splat() {
    assert_eq!(
        eval(bi(Max, vec![flits(&[-1.0, 2.0, -3.0]), lit(0.0)])),
        vec![0.0, 2.0, 0.0]
    );
    assert_eq!(
        eval(bi(
            Clamp,
            vec![flits(&[-1.0, 0.5, 3.0]), lit(0.0), lit(1.0)]
        )),
        vec![0.0, 0.5, 1.0]
    );
    assert_eq!(
        eval(bi(
            Lerp,
            vec![flits(&[0.0, 10.0]), flits(&[10.0, 20.0]), lit(0.5)]
        )),
        vec![5.0, 15.0]
    );
    assert_eq!(
        eval(bi(Step, vec![lit(0.5), flits(&[0.0, 0.5, 1.0])])),
        vec![0.0, 1.0, 1.0]
    );
    assert_eq!(
        eval(bi(Pow, vec![flits(&[2.0, 3.0]), lit(2.0)])),
        vec![4.0, 9.0]
    );
    assert_eq!(
        eval(bi(Round, vec![flits(&[2.5, -2.5, 0.5, 1.49])])),
        vec![3.0, -3.0, 1.0, 1.0]
    );
    assert_eq!(eval(bi(Frac, vec![flits(&[-1.25, 2.5])])), vec![0.75, 0.5]);
    // Vector + scalar splat in arithmetic too.
    assert_eq!(
        eval(add(flits(&[1.0, 2.0, 3.0]), lit(1.0))),
        vec![2.0, 3.0, 4.0]
    );
    assert_eq!(eval(sub(lit(1.0), flits(&[1.0, 2.0]))), vec![0.0, -1.0]);
}

#[test]
fn integer_built_ins() {
    assert_eq!(eval(bi(Abs, vec![ilit(-3)])), vec![3.0]);
    assert_eq!(eval(bi(Min, vec![ilit(3), ilit(-2)])), vec![-2.0]);
    assert_eq!(eval(bi(Max, vec![ilit(3), ilit(-2)])), vec![3.0]);
    assert_eq!(eval(bi(Clamp, vec![ilit(7), ilit(0), ilit(5)])), vec![5.0]);
    assert_eq!(eval(bi(Sign, vec![ilit(-7)])), vec![-1.0]);
}

#[test]
fn integer_operators() {
    assert_eq!(eval(rem(ilit(-7), ilit(3))), vec![-1.0]);
    assert_eq!(eval(rem(ilit(7), ilit(-3))), vec![1.0]);
    assert_eq!(eval(rem(ilit(7), ilit(0))), vec![0.0]);
    assert_eq!(eval(div(ilit(-7), ilit(2))), vec![-3.0]);
    assert_eq!(eval(div(ilit(7), ilit(0))), vec![0.0]);
    assert_eq!(eval(bin(BinaryOp::Shl, ilit(3), ilit(4))), vec![48.0]);
    assert_eq!(eval(bin(BinaryOp::Shr, ilit(-16), ilit(2))), vec![-4.0]);
    assert_eq!(eval(bin(BinaryOp::BitAnd, ilit(12), ilit(10))), vec![8.0]);
    assert_eq!(eval(bin(BinaryOp::BitOr, ilit(12), ilit(10))), vec![14.0]);
    assert_eq!(eval(bin(BinaryOp::BitXor, ilit(12), ilit(10))), vec![6.0]);
    assert_eq!(eval(unary(UnaryOp::BitNot, ilit(0))), vec![-1.0]);
    assert_eq!(eval(unary(UnaryOp::Not, blit(false))), vec![1.0]);
    assert_eq!(eval(neg(ilit(5))), vec![-5.0]);
}

#[test]
fn modf_and_frexp_write_their_second_argument() {
    // float ip; float f = modf(a, ip); o = float2(f, ip);  and the same for frexp.
    for (b, x, expected) in [
        (Modf, -2.75f32, [-0.75f32, -2.0]),
        (Modf, 3.5, [0.5, 3.0]),
        (Frexp, 8.0, [0.5, 4.0]),
        (Frexp, -3.0, [-0.75, 2.0]),
        (Frexp, 0.0, [0.0, 0.0]),
    ] {
        let m = module(vec![kernel(
            "k",
            vec![const_param("a", Type::FLOAT), out_param("o", fvec(2))],
            vec![Type::FLOAT, Type::FLOAT],
            vec![
                decl(0, None),
                decl(
                    1,
                    Some(bi(b, vec![param(0, Type::FLOAT), local(0, Type::FLOAT)])),
                ),
                assign_out(
                    1,
                    construct(fvec(2), vec![local(1, Type::FLOAT), local(0, Type::FLOAT)]),
                ),
            ],
        )]);
        let mut o = zeros(&[2], &[1]);
        run_kernel(
            &m,
            FunctionId(0),
            &mut [CpuArg::Constant(vec![x]), CpuArg::Out(&mut o)],
        )
        .unwrap();
        assert_eq!(o.data(), &expected, "{}({x})", b.name());
    }
    // frexp on a subnormal still gives a mantissa in [0.5, 1).
    let (mt, e) = brook_cpu::exec::frexp(1e-40);
    assert!((0.5..1.0).contains(&mt));
    assert!(close(mt * 2f32.powi(e as i32), 1e-40_f64));
}

#[test]
fn pack_4ubyte_moves_bytes_into_bits() {
    // Saturated, scaled by 255 and rounded, `.x` lowest: 0.5 → 128, 0.25 → 64, 2 → 255.
    let packed = eval(bi(Pack4ubyte, vec![flits(&[0.5, 0.25, 2.0, -1.0])]))[0];
    assert_eq!(packed.to_bits(), 0x00ff_4080);
    // Every pattern comes back, a denormal and a NaN included.
    for bits in [
        0x00ff_4080_u32,
        0x0000_00ff,
        0xffff_ff00,
        0x7fc0_0001,
        0x1234_5678,
    ] {
        let x = f32::from_bits(bits);
        let back = eval(bi(Unpack4ubyte, vec![lit(x)]));
        let bytes: Vec<u32> = back.iter().map(|b| (b * 255.0).round() as u32).collect();
        let want: Vec<u32> = (0..4).map(|i| (bits >> (8 * i)) & 0xff).collect();
        assert_eq!(bytes, want, "{bits:08x}");
        assert!(back.iter().all(|b| (0.0..=1.0).contains(b)));
    }
}

#[test]
fn every_builtin_is_covered() {
    // A guard: if the IR grows a built-in, this list (and the interpreter) must follow.
    assert_eq!(Builtin::ALL.len(), 50);
}
