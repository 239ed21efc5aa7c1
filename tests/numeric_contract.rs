//! The numeric contract of Brook's built-ins (README, "Limits and guarantees"), checked on GL
//! (both profiles) and the CPU backend.

mod support;

use brook::{args, Runtime};
use support::gl_profiles;

/// Runs `r = EXPR` (with `x` the input element) over `inputs` on `rt`.
fn map(rt: &Runtime, expr: &str, inputs: &[f32]) -> Vec<f32> {
    let src = format!("kernel void f(float x<>, out float r<>) {{ r = {expr}; }}");
    let p = rt.compile(&src, "f.br").unwrap_or_else(|e| panic!("{e}"));
    let x = rt.stream_of(1, &[inputs.len()]).unwrap();
    x.read(inputs).unwrap();
    let r = rt.stream_of(1, &[inputs.len()]).unwrap();
    rt.run(&p, "f", args![&x, &r]).unwrap();
    r.to_vec().unwrap()
}

#[test]
fn round_takes_halves_away_from_zero_exactly_and_keeps_the_sign_of_zero() {
    let cases: [(f32, f32); 16] = [
        (0.49999997, 0.0),
        (-0.49999997, -0.0),
        (0.5, 1.0),
        (-0.5, -1.0),
        (1.5, 2.0),
        (2.5, 3.0),
        (-2.5, -3.0),
        (8388609.0, 8388609.0),
        (-8388609.0, -8388609.0),
        (16777215.0, 16777215.0),
        (-0.0, -0.0),
        (-0.3, -0.0),
        (0.3, 0.0),
        (f32::INFINITY, f32::INFINITY),
        (f32::NEG_INFINITY, f32::NEG_INFINITY),
        (1e30, 1e30),
    ];
    let (x, want): (Vec<f32>, Vec<f32>) = cases.iter().copied().unzip();
    let mut runtimes = gl_profiles(None, None);
    runtimes.push(Runtime::cpu());
    for rt in &runtimes {
        for expr in [
            "round(x)",
            "round(float2(x, -x)).x",
            "round(float4(x, x, x, x)).w",
        ] {
            let got = map(rt, expr, &x);
            for ((g, w), x) in got.iter().zip(&want).zip(&x) {
                assert_eq!(
                    g.to_bits(),
                    w.to_bits(),
                    "{}: {expr} at x = {x}: got {g}, want {w}",
                    rt.describe()
                );
            }
        }
        assert!(map(rt, "round(x)", &[f32::NAN])[0].is_nan());
    }
}
