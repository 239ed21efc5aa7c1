//! SAXPY on 1024×1024 float4 (the paper's first application), and the per-call overhead of a
//! cached kernel on a tiny stream (the kernel-call "knee", 000 §6.1.2): Brook-GL against the
//! same work written by hand in glow, the wgpu and CPU backends and a plain Rust loop, in one
//! run (the hand-written wgpu compute baseline is `wgpu-backend`'s bench `compare`).
//!
//! Every variant ping-pongs (each call reads the previous call's result), because llvmpipe
//! skips draws whose output a later draw overwrites, and each timed batch ends with glFinish.

mod common;

use std::time::{Duration, Instant};

use brook::Runtime;
use common::handwritten_saxpy::HandSaxpy;
use common::ping_pong::{inputs, PingPong};
use common::ratios::print_ratios;
use criterion::{BenchmarkId, Criterion};

const SAXPY: &str = "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 result<>) {
    result = a * x + y;
}";
const A: f32 = 0.5;

fn hand_time(hand: &mut HandSaxpy, iters: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        hand.step(A);
    }
    hand.finish();
    start.elapsed()
}

fn rust_saxpy(x: &[f32], y: &mut [f32], iters: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        for (yi, xi) in y.iter_mut().zip(x) {
            *yi += A * xi;
        }
        std::hint::black_box(&mut *y);
    }
    start.elapsed()
}

/// One group: every variant's state is built once, outside the timed loops, so each sample
/// times only the calls and the final glFinish.
fn bench(c: &mut Criterion, group_name: &str, shape: &[usize]) {
    let gl = Runtime::gl().expect("a headless GL context");
    let cpu = Runtime::cpu();
    let wgpu = Runtime::wgpu().expect("a wgpu adapter (lavapipe)");
    let n: usize = shape.iter().product();
    let (x, mut y) = inputs(n);
    let (h, w) = if shape.len() == 2 {
        (shape[0], shape[1])
    } else {
        (1, shape[0])
    };
    let ctx = gl.gl_context().expect("a GL runtime").clone();
    let mut hand = HandSaxpy::new(ctx.gl(), w, h, &x, &y);
    let mut on_gl = PingPong::new(&gl, SAXPY, "saxpy", A, shape);
    let mut on_cpu = PingPong::new(&cpu, SAXPY, "saxpy", A, shape);
    let mut on_wgpu = PingPong::new(&wgpu, SAXPY, "saxpy", A, shape);
    let mut group = c.benchmark_group(group_name);
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function(BenchmarkId::from_parameter("hand-written glow"), |b| {
        b.iter_custom(|i| hand_time(&mut hand, i))
    });
    group.bench_function(BenchmarkId::from_parameter("brook gl"), |b| {
        b.iter_custom(|i| on_gl.time(i))
    });
    group.bench_function(BenchmarkId::from_parameter("brook wgpu"), |b| {
        b.iter_custom(|i| on_wgpu.time(i))
    });
    group.bench_function(BenchmarkId::from_parameter("brook cpu"), |b| {
        b.iter_custom(|i| on_cpu.time(i))
    });
    group.bench_function(BenchmarkId::from_parameter("plain rust loop"), |b| {
        b.iter_custom(|i| rust_saxpy(&x, &mut y, i))
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, "saxpy 1024x1024 float4", &[1024, 1024]);
    bench(&mut c, "kernel call 4x4 float4", &[4, 4]);
    c.final_summary();
    let all = [
        "hand-written glow",
        "brook gl",
        "brook wgpu",
        "brook cpu",
        "plain rust loop",
    ];
    print_ratios(
        "saxpy 1024x1024 float4",
        "hand-written glow",
        &all,
        "per call",
    );
    print_ratios(
        "kernel call 4x4 float4",
        "hand-written glow",
        &all,
        "per call",
    );
}
