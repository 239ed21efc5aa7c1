//! The CPU backend against the same work written by hand in Rust, and Brook-GL, in one run:
//! SAXPY and a 43-multiply-add kernel on 1024×1024 float4 streams.
//!
//! The goal is the CPU backend within 3× of a hand-written Rust loop on the same
//! cores; the hand loops run once with rayon over the same global pool the backend uses
//! (the same cores), and once single-threaded. Every variant ping-pongs (each call reads the
//! previous call's result), because llvmpipe skips draws whose output a later draw overwrites.

mod common;

use std::time::{Duration, Instant};

use brook::Runtime;
use common::ping_pong::{inputs, PingPong};
use common::ratios::print_ratios;
use criterion::{BenchmarkId, Criterion};
use rayon::prelude::*;

const A: f32 = 0.5;
const MADS: usize = 43;
const SHAPE: [usize; 2] = [1024, 1024];

/// Both kernels take `(float a, float4 x<>, float4 y<>, out float4 r<>)`.
fn source(kernel: &str) -> String {
    match kernel {
        "saxpy" => "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 r<>) {\n    r = a * x + y;\n}\n".into(),
        _ => format!(
            "kernel void mad(float a, float4 x<>, float4 y<>, out float4 r<>) {{\n    float4 v = y;\n{}    r = v;\n}}\n",
            "    v = v * x + a;\n".repeat(MADS)
        ),
    }
}

/// The same work by hand, one float at a time (the compiler vectorises it).
fn by_hand(kernel: &str) -> fn(&[f32], &[f32], &mut [f32]) {
    match kernel {
        "saxpy" => |x, y, r| {
            for ((r, x), y) in r.iter_mut().zip(x).zip(y) {
                *r = A * x + y;
            }
        },
        _ => |x, y, r| {
            for ((r, x), y) in r.iter_mut().zip(x).zip(y) {
                let mut v = *y;
                for _ in 0..MADS {
                    v = v * x + A;
                }
                *r = v;
            }
        },
    }
}

/// Hand-written loop, ping-ponging `y` and `r`; `parallel` splits it over rayon's pool.
fn hand_time(
    kernel: &str,
    parallel: bool,
    x: &[f32],
    y: &mut Vec<f32>,
    r: &mut Vec<f32>,
    iters: u64,
) -> Duration {
    let f = by_hand(kernel);
    const CHUNK: usize = 16 * 1024;
    let start = Instant::now();
    for _ in 0..iters {
        if parallel {
            r.par_chunks_mut(CHUNK)
                .zip(x.par_chunks(CHUNK).zip(y.par_chunks(CHUNK)))
                .for_each(|(r, (x, y))| f(x, y, r));
        } else {
            f(x, y, r);
        }
        std::mem::swap(y, r);
        std::hint::black_box(&mut *y);
    }
    start.elapsed()
}

fn bench(c: &mut Criterion, group_name: &str, kernel: &'static str) {
    let gl = Runtime::gl().expect("a headless GL context");
    let cpu = Runtime::cpu();
    let (x, mut y) = inputs(SHAPE.iter().product());
    let mut r = y.clone();
    let src = source(kernel);
    let mut on_cpu = PingPong::new(&cpu, &src, kernel, A, &SHAPE);
    let mut on_gl = PingPong::new(&gl, &src, kernel, A, &SHAPE);
    let mut group = c.benchmark_group(group_name);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function(BenchmarkId::from_parameter("rust loop rayon"), |b| {
        b.iter_custom(|i| hand_time(kernel, true, &x, &mut y, &mut r, i))
    });
    group.bench_function(BenchmarkId::from_parameter("rust loop 1 thread"), |b| {
        b.iter_custom(|i| hand_time(kernel, false, &x, &mut y, &mut r, i))
    });
    group.bench_function(BenchmarkId::from_parameter("brook cpu"), |b| {
        b.iter_custom(|i| on_cpu.time(i))
    });
    group.bench_function(BenchmarkId::from_parameter("brook gl"), |b| {
        b.iter_custom(|i| on_gl.time(i))
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let groups = [
        ("cpu saxpy 1024x1024 float4", "saxpy"),
        ("cpu 43 mad 1024x1024 float4", "mad"),
    ];
    for (name, kernel) in groups {
        bench(&mut c, name, kernel);
    }
    c.final_summary();
    println!("\nthreads: {}", rayon::current_num_threads());
    for (name, _) in groups {
        print_ratios(
            name,
            "rust loop rayon",
            &[
                "rust loop rayon",
                "rust loop 1 thread",
                "brook cpu",
                "brook gl",
            ],
            "per call",
        );
    }
}
