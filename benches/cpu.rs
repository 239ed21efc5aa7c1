//! The CPU backend's native code against the same work written by hand as a rayon loop, the
//! CPU backend's interpreter, and Brook-GL on llvmpipe (the same two cores), in one run: the
//! single kernels of issue 15's goals.
//!
//! - SAXPY on 1024×1024 `float4`, and the 43-multiply-add kernel on the same streams;
//! - the sum of 2^20 `float4` (a reduction to one value);
//! - a 64-tap gather loop over 2^18 `float`s;
//! - the per-call overhead of a cached kernel over one element;
//! - compiling a kernel of 100 statements.
//!
//! The hand loops run with rayon over the same global pool the backend uses (the same cores),
//! and, for the first three, single-threaded. Every kernel variant ping-pongs (each call reads
//! the previous call's result), because llvmpipe skips draws whose output a later draw
//! overwrites. The goal is the native code within 1.5× of the rayon loop, the call overhead
//! at most 5 µs and the compile at most 10 ms; the ratios printed at the end say how close.

mod common;

use std::time::{Duration, Instant};

use brook::{args, Runtime};
use brook_cpu::{CpuArg, CpuStream, KernelPlan};
use common::ping_pong::{inputs, PingPong};
use common::ratios::print_ratios;
use common::timing::timed;
use criterion::{BenchmarkId, Criterion};
use rayon::prelude::*;

const A: f32 = 0.5;
const MADS: usize = 43;
const SHAPE: [usize; 2] = [1024, 1024];
/// Elements per rayon task of the hand loops (the backend's largest tile).
const CHUNK: usize = 4096;

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
    let floats = 4 * CHUNK;
    let start = Instant::now();
    for _ in 0..iters {
        if parallel {
            r.par_chunks_mut(floats)
                .zip(x.par_chunks(floats).zip(y.par_chunks(floats)))
                .for_each(|(r, (x, y))| f(x, y, r));
        } else {
            f(x, y, r);
        }
        std::mem::swap(y, r);
        std::hint::black_box(&mut *y);
    }
    start.elapsed()
}

fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group
}

/// Each Brook side of a group, ping-ponging, then the group's end.
fn bench_ping_pongs(
    mut group: criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    sides: [(&str, &mut PingPong); 3],
) {
    for (name, on) in sides {
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|i| on.time(i))
        });
    }
    group.finish();
}

fn elementwise(c: &mut Criterion, group_name: &str, kernel: &'static str, rts: &Runtimes) {
    let (x, mut y) = inputs(SHAPE.iter().product());
    let mut r = y.clone();
    let src = source(kernel);
    let mut on_cpu = PingPong::new(&rts.cpu, &src, kernel, A, &SHAPE);
    let mut on_interp = PingPong::new(&rts.interpreter, &src, kernel, A, &SHAPE);
    let mut on_gl = PingPong::new(&rts.gl, &src, kernel, A, &SHAPE);
    let mut group = group(c, group_name);
    group.bench_function(BenchmarkId::from_parameter("rust loop rayon"), |b| {
        b.iter_custom(|i| hand_time(kernel, true, &x, &mut y, &mut r, i))
    });
    group.bench_function(BenchmarkId::from_parameter("rust loop 1 thread"), |b| {
        b.iter_custom(|i| hand_time(kernel, false, &x, &mut y, &mut r, i))
    });
    let sides = [
        ("brook cpu", &mut on_cpu),
        ("brook cpu interpreter", &mut on_interp),
        ("brook gl", &mut on_gl),
    ];
    bench_ping_pongs(group, sides);
}

const SUM: &str = "reduce void sum(float4 a<>, reduce float4 r<>) { r += a; }";

/// The backend's algorithm by hand: chunks of [`CHUNK`] elements folded in parallel, the
/// partial sums folded in order.
fn hand_sum(data: &[f32], parallel: bool) -> [f32; 4] {
    let fold = |c: &[f32]| {
        let mut acc = [c[0], c[1], c[2], c[3]];
        for e in c[4..].chunks_exact(4) {
            for k in 0..4 {
                acc[k] += e[k];
            }
        }
        acc
    };
    let partials: Vec<[f32; 4]> = if parallel {
        data.par_chunks(4 * CHUNK).map(fold).collect()
    } else {
        data.chunks(4 * CHUNK).map(fold).collect()
    };
    let mut acc = partials[0];
    for p in &partials[1..] {
        for k in 0..4 {
            acc[k] += p[k];
        }
    }
    acc
}

fn sum(c: &mut Criterion, group_name: &str, rts: &Runtimes) {
    let data: Vec<f32> = (0..SHAPE[0] * SHAPE[1] * 4)
        .map(|i| (i % 7) as f32)
        .collect();
    let want = hand_sum(&data, false);
    let on = |rt: &Runtime| {
        let program = rt.compile(SUM, "sum.br").unwrap();
        let input = rt.stream_of(4, &SHAPE).unwrap();
        input.read(&data).unwrap();
        let got = rt
            .reduce_to_value(&program, "sum", &input, args![])
            .unwrap();
        assert_eq!(got, want, "{} sums differently", rt.describe());
        (program, input)
    };
    let variants = rts.brook();
    let bound: Vec<_> = variants.iter().map(|(_, rt)| on(rt)).collect();
    let mut group = group(c, group_name);
    group.bench_function(BenchmarkId::from_parameter("rust loop rayon"), |b| {
        b.iter_custom(|i| {
            timed(i, || {
                std::hint::black_box(hand_sum(&data, true));
            })
        })
    });
    group.bench_function(BenchmarkId::from_parameter("rust loop 1 thread"), |b| {
        b.iter_custom(|i| {
            timed(i, || {
                std::hint::black_box(hand_sum(&data, false));
            })
        })
    });
    for ((name, rt), (program, input)) in variants.iter().zip(&bound) {
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|i| {
                timed(i, || {
                    let r = rt.reduce_to_value(program, "sum", input, args![]).unwrap();
                    std::hint::black_box(r);
                })
            })
        });
    }
    group.finish();
}

const TAPS: usize = 64;
const TAP_ELEMENTS: usize = 1 << 18;

/// Each element sums the 64 elements from its own position on (the last one repeating
/// past the end, Brook's clamp).
fn taps_source() -> String {
    format!(
        "kernel void taps(float src[], out float o<>) {{\n    float x = indexof(o).x;\n    float s = 0.0;\n    for (int k = 0; k < {TAPS}; k++) {{\n        s += src[x + k];\n    }}\n    o = s;\n}}\n"
    )
}

fn hand_taps(src: &[f32], out: &mut [f32]) {
    let last = src.len() - 1;
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, o)| {
        for (e, o) in o.iter_mut().enumerate() {
            let i = c * CHUNK + e;
            let mut s = 0.0;
            for k in 0..TAPS {
                s += src[(i + k).min(last)];
            }
            *o = s;
        }
    });
}

fn taps(c: &mut Criterion, group_name: &str, rts: &Runtimes) {
    let data: Vec<f32> = (0..TAP_ELEMENTS).map(|i| (i % 13) as f32).collect();
    let mut want = vec![0.0; TAP_ELEMENTS];
    hand_taps(&data, &mut want);
    let on = |rt: &Runtime| {
        let program = rt.compile(&taps_source(), "taps.br").unwrap();
        let src = rt.stream_of(1, &[TAP_ELEMENTS]).unwrap();
        let out = rt.stream_of(1, &[TAP_ELEMENTS]).unwrap();
        src.read(&data).unwrap();
        rt.run(&program, "taps", args![&src, &out]).unwrap();
        assert_eq!(
            out.to_vec().unwrap(),
            want,
            "{} taps differently",
            rt.describe()
        );
        (program, src, out)
    };
    let variants = rts.brook();
    let bound: Vec<_> = variants.iter().map(|(_, rt)| on(rt)).collect();
    let mut group = group(c, group_name);
    let mut out = vec![0.0; TAP_ELEMENTS];
    group.bench_function(BenchmarkId::from_parameter("rust loop rayon"), |b| {
        b.iter_custom(|i| timed(i, || hand_taps(&data, std::hint::black_box(&mut out))))
    });
    for ((name, rt), (program, src, out)) in variants.iter().zip(&bound) {
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|i| {
                let start = Instant::now();
                for _ in 0..i {
                    rt.run(program, "taps", args![src, out]).unwrap();
                }
                rt.finish();
                start.elapsed()
            })
        });
    }
    group.finish();
}

/// A cached kernel over one element: what every call costs besides its elements, through
/// the runtime (argument checks, stream borrows) and through `brook_cpu` directly.
fn overhead(c: &mut Criterion, group_name: &str, rts: &Runtimes) {
    let src = source("saxpy");
    let mut on_cpu = PingPong::new(&rts.cpu, &src, "saxpy", A, &[1]);
    let mut on_interp = PingPong::new(&rts.interpreter, &src, "saxpy", A, &[1]);
    let mut on_gl = PingPong::new(&rts.gl, &src, "saxpy", A, &[1]);
    let module = brook::frontend::compile(&src, "bench.br").unwrap();
    let (id, _) = module.function("saxpy").unwrap();
    let plan = KernelPlan::new(&module, id);
    let (x, y) = (
        CpuStream::from_data(&[4], &[1], &[1.0; 4]).unwrap(),
        CpuStream::from_data(&[4], &[1], &[2.0; 4]).unwrap(),
    );
    let mut r = CpuStream::new(&[4], &[1]).unwrap();
    let mut group = group(c, group_name);
    group.bench_function(BenchmarkId::from_parameter("brook_cpu KernelPlan"), |b| {
        b.iter_custom(|i| {
            timed(i, || {
                let mut call = [
                    CpuArg::Constant(vec![A]),
                    CpuArg::Stream(&x),
                    CpuArg::Stream(&y),
                    CpuArg::Out(&mut r),
                ];
                plan.run(&module, &mut call).unwrap();
            })
        })
    });
    let sides = [
        ("brook cpu", &mut on_cpu),
        ("brook cpu interpreter", &mut on_interp),
        ("brook gl", &mut on_gl),
    ];
    bench_ping_pongs(group, sides);
}

/// A kernel of 100 statements: a mix of arithmetic, built-ins, a branch and a loop on
/// vectors and scalars.
fn long_kernel() -> String {
    let mut body = String::from("    float4 v = x;\n    float s = a;\n");
    for k in 0..96 {
        body.push_str(&match k % 6 {
            0 => format!("    v = v * {}.5 + y;\n", k % 7),
            1 => "    s = s + dot(v, y) * 0.25;\n".into(),
            2 => "    v.xy = v.yx * s;\n".into(),
            3 => "    if (s > 10.0) { s = sqrt(s); } else { s = s * 2.0; }\n".into(),
            4 => "    v = max(v, float4(s, 0.0, 1.0, 2.0));\n".into(),
            _ => format!(
                "    for (int i = 0; i < {}; i++) {{ s += v.z; }}\n",
                k % 4 + 1
            ),
        });
    }
    body.push_str("    r = v + s;\n");
    format!("kernel void long(float a, float4 x<>, float4 y<>, out float4 r<>) {{\n{body}}}\n")
}

/// Compiling it to native code: a fresh plan's first call, over one element (the same call
/// on a cached plan is the overhead measured above).
fn compile(c: &mut Criterion, group_name: &str) {
    let src = long_kernel();
    let module = brook::frontend::compile(&src, "bench.br").unwrap();
    let (id, _) = module.function("long").unwrap();
    let (x, y) = (
        CpuStream::from_data(&[4], &[1], &[1.0; 4]).unwrap(),
        CpuStream::from_data(&[4], &[1], &[2.0; 4]).unwrap(),
    );
    let mut r = CpuStream::new(&[4], &[1]).unwrap();
    let mut call = |plan: &KernelPlan| {
        let mut args = [
            CpuArg::Constant(vec![A]),
            CpuArg::Stream(&x),
            CpuArg::Stream(&y),
            CpuArg::Out(&mut r),
        ];
        plan.run_masked(&module, &mut args, None).unwrap()
    };
    let first = call(&KernelPlan::new(&module, id));
    assert!(
        first.execution.compiled.is_some(),
        "the 100-statement kernel runs on the interpreter: {:?}",
        first.execution.fallback
    );
    let mut group = group(c, group_name);
    group.bench_function(
        BenchmarkId::from_parameter("brook cpu compile and run"),
        |b| b.iter_custom(|i| timed(i, || drop(call(&KernelPlan::new(&module, id))))),
    );
    group.bench_function(BenchmarkId::from_parameter("brook cpu cached run"), |b| {
        let plan = KernelPlan::new(&module, id);
        call(&plan);
        b.iter_custom(|i| timed(i, || drop(call(&plan))))
    });
    group.finish();
}

struct Runtimes {
    cpu: Runtime,
    interpreter: Runtime,
    gl: Runtime,
}

impl Runtimes {
    /// Each Brook runtime with its bench name.
    fn brook(&self) -> [(&'static str, &Runtime); 3] {
        [
            ("brook cpu", &self.cpu),
            ("brook cpu interpreter", &self.interpreter),
            ("brook gl", &self.gl),
        ]
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let rts = Runtimes {
        cpu: Runtime::cpu(),
        interpreter: Runtime::cpu_interpreter(),
        gl: Runtime::gl().expect("a headless GL context"),
    };
    let kernels = [
        ("cpu saxpy 1024x1024 float4", "saxpy"),
        ("cpu 43 mad 1024x1024 float4", "mad"),
    ];
    for (name, kernel) in kernels {
        elementwise(&mut c, name, kernel, &rts);
    }
    let (sum_group, taps_group) = (
        "cpu sum of 1024x1024 float4",
        "cpu 64-tap gather 262144 float",
    );
    sum(&mut c, sum_group, &rts);
    taps(&mut c, taps_group, &rts);
    let overhead_group = "cpu call of a cached 1-element kernel";
    overhead(&mut c, overhead_group, &rts);
    let compile_group = "cpu compile a 100-statement kernel";
    compile(&mut c, compile_group);
    c.final_summary();
    println!("\nthreads: {}", rayon::current_num_threads());
    let all = [
        "rust loop rayon",
        "rust loop 1 thread",
        "brook cpu",
        "brook cpu interpreter",
        "brook gl",
    ];
    for name in [kernels[0].0, kernels[1].0, sum_group, taps_group] {
        print_ratios(name, "rust loop rayon", &all, "per call");
    }
    print_ratios(
        overhead_group,
        "brook cpu",
        &[
            "brook_cpu KernelPlan",
            "brook cpu",
            "brook cpu interpreter",
            "brook gl",
        ],
        "per call",
    );
    print_ratios(
        compile_group,
        "brook cpu cached run",
        &["brook cpu compile and run", "brook cpu cached run"],
        "per call",
    );
}
