//! SAXPY on 1024×1024 float4 (the paper's first application), and the per-call overhead of a
//! cached kernel on a tiny stream (the kernel-call "knee", 000 §6.1.2): Brook-GL against the
//! same work written by hand in glow, the wgpu and CPU backends and a plain Rust loop, in one
//! run (the hand-written wgpu compute baseline is `wgpu-backend`'s bench `compare`).
//!
//! Every variant ping-pongs (each call reads the previous call's result), because llvmpipe
//! skips draws whose output a later draw overwrites, and each timed batch ends with glFinish.
//! Each variant's first call is checked against `y + a·x` before anything is timed.

mod common;

use std::cell::RefCell;

use brook::Runtime;
use brook_bench_kit::{Comparison, Tolerance, Variant};
use common::handwritten_saxpy::HandSaxpy;
use common::ping_pong::{inputs, PingPong};
use criterion::Criterion;

const SAXPY: &str = "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 result<>) {
    result = a * x + y;
}";
const A: f32 = 0.5;

/// One comparison: every variant's state is built once, outside the timed loops, so each
/// batch times only the calls and the final glFinish.
fn bench(c: &mut Criterion, group_name: &str, shape: &[usize]) {
    let gl = Runtime::gl().expect("a headless GL context");
    let cpu = Runtime::cpu();
    let wgpu = Runtime::wgpu().expect("a wgpu adapter (lavapipe)");
    let n: usize = shape.iter().product();
    let (x, y) = inputs(n);
    let (h, w) = if shape.len() == 2 {
        (shape[0], shape[1])
    } else {
        (1, shape[0])
    };
    let ctx = gl.gl_context().expect("a GL runtime").clone();
    let hand = RefCell::new(HandSaxpy::new(ctx.gl(), w, h, &x, &y));
    let rust = RefCell::new(y.clone());
    // One call gives y + a·x: a·x is exact (a = ½), the sum one f32 rounding (or none, fused).
    let expected: Vec<f64> = x
        .iter()
        .zip(&y)
        .map(|(&xi, &yi)| f64::from(yi) + f64::from(A) * f64::from(xi))
        .collect();
    let table = Comparison::new(
        group_name,
        "per call",
        1,
        expected,
        Tolerance::Relative(f64::from(f32::EPSILON)),
    )
    .variant(Variant::new(
        "hand-written glow",
        |n| {
            let mut hand = hand.borrow_mut();
            for _ in 0..n {
                hand.step(A);
            }
            hand.finish();
        },
        || hand.borrow().result(),
    ))
    .variant(PingPong::new(&gl, SAXPY, "saxpy", A, shape).into_variant("brook gl"))
    .variant(PingPong::new(&wgpu, SAXPY, "saxpy", A, shape).into_variant("brook wgpu"))
    .variant(PingPong::new(&cpu, SAXPY, "saxpy", A, shape).into_variant("brook cpu"))
    .variant(Variant::new(
        "plain rust loop",
        |n| {
            let mut y = rust.borrow_mut();
            for _ in 0..n {
                for (yi, xi) in y.iter_mut().zip(&x) {
                    *yi += A * xi;
                }
                std::hint::black_box(&mut *y);
            }
        },
        || rust.borrow().clone(),
    ))
    .measurement_time(std::time::Duration::from_secs(3))
    .run(c);
    drop(table);
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, "saxpy 1024x1024 float4", &[1024, 1024]);
    bench(&mut c, "kernel call 4x4 float4", &[4, 4]);
    c.final_summary();
}
