//! One program on every backend at once, in one process, calls interleaved: what a user
//! comparing classic GL, wgpu compute and the CPU does. Each backend keeps its own device
//! state (wgpu on its GL backend makes its own EGL context current; the GL backend must make
//! its own current again before each call), and every result is checked against f64.

mod support;

use brook::{args, Runtime};

const SRC: &str = "
kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 r<>) { r = a * x + y; }
reduce void sum(float4 v<>, reduce float4 s<>) { s += v; }
";

#[test]
fn gl_wgpu_wgpu_on_gl_and_the_cpu_interleave_calls_in_one_process() {
    let Some(wgpu_gl) = support::wgpu_gl() else {
        return;
    };
    let runtimes = [
        Runtime::gl().unwrap(),
        Runtime::wgpu().unwrap(),
        wgpu_gl,
        Runtime::cpu(),
    ];
    let n = 64;
    let x: Vec<f32> = (0..4 * n).map(|i| i as f32 * 0.25).collect();
    let y: Vec<f32> = (0..4 * n).map(|i| 100.0 - i as f32).collect();
    let setup: Vec<_> = runtimes
        .iter()
        .map(|rt| {
            let p = rt.compile(SRC, "side.br").unwrap();
            let (sx, sy, sr) = (
                rt.stream_of(4, &[n]).unwrap(),
                rt.stream_of(4, &[n]).unwrap(),
                rt.stream_of(4, &[n]).unwrap(),
            );
            sx.read(&x).unwrap();
            sy.read(&y).unwrap();
            (p, sx, sy, sr)
        })
        .collect();
    // Three rounds, each backend in turn: a call on one never disturbs another's state.
    for round in 1..=3 {
        let a = round as f32 * 0.5;
        for (rt, (p, sx, sy, sr)) in runtimes.iter().zip(&setup) {
            rt.run(p, "saxpy", args![a, sx, sy, sr]).unwrap();
        }
        for (rt, (p, _, _, sr)) in runtimes.iter().zip(&setup) {
            let got = sr.to_vec().unwrap();
            for (i, g) in got.iter().enumerate() {
                let want = f64::from(a) * f64::from(x[i]) + f64::from(y[i]);
                // a·x is exact (a is a multiple of ½, x of ¼, both small); the sum rounds once.
                assert!(
                    (f64::from(*g) - want).abs() <= want.abs() * f64::from(f32::EPSILON),
                    "{} round {round} element {i}: {g} vs {want}",
                    rt.describe()
                );
            }
            let total = rt.reduce_to_value(p, "sum", sr, args![]).unwrap();
            for (c, t) in total.iter().enumerate() {
                let want: f64 = got.iter().skip(c).step_by(4).map(|&v| f64::from(v)).sum();
                // 64 values: each partial sum within 64 ε of the sum of magnitudes.
                let bound = 64.0 * f64::from(f32::EPSILON) * want.abs();
                assert!(
                    (f64::from(*t) - want).abs() <= bound,
                    "{} round {round} sum {c}: {t} vs {want}",
                    rt.describe()
                );
            }
        }
    }
}
