//! The CPU backend's native code against the same algorithm written by hand as a rayon loop
//! over the global pool the backend uses (the same cores), in one run: the single kernels of
//! issue 15's goals, compared through bench-kit (each variant checked against an f64
//! reference first, then rotated rounds, ratios with 95% intervals).
//!
//! - SAXPY on 1024×1024 `float4`, and the 43-multiply-add kernel on the same streams;
//! - the sum of 2^20 `float4` (a reduction to one value);
//! - a 64-tap gather loop over 2^18 `float`s (native code four elements per iteration, and
//!   one, `Runtime::cpu_one_element`);
//! - the per-call overhead of a cached kernel over one element, through the runtime and
//!   through `brook_cpu`'s `KernelPlan` directly;
//! - compiling a kernel of 100 statements.
//!
//! The elementwise variants ping-pong (each call reads the previous call's result), as in the
//! other benches. The goals are the native code within 1.5× of the rayon loop, the call
//! overhead at most 5 µs and the compile at most 10 ms; the tables say how close. The same
//! kernels on Brook-GL and wgpu are in the saxpy, reduce and kernels benches.

mod common;

use std::cell::RefCell;
use std::ops::{Add, Mul};
use std::rc::Rc;
use std::time::Duration;

use brook::ir::{FunctionId, Module};
use brook::{args, Runtime};
use brook_bench_kit::{Comparison, Tolerance, Variant};
use brook_cpu::{CpuArg, CpuStream, KernelPlan, KernelRun};
use common::ping_pong::{inputs, PingPong};
use criterion::Criterion;
use rayon::prelude::*;

const A: f32 = 0.5;
const MADS: usize = 43;
const SHAPE: [usize; 2] = [1024, 1024];
/// Elements per rayon task of the hand loops (the backend's largest tile).
const CHUNK: usize = 4096;
/// f32's machine epsilon, the unit of the tolerances.
const EPS: f64 = f32::EPSILON as f64;

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

/// One float of SAXPY: in f32 for the hand loop, in f64 for the reference.
fn saxpy<T: Copy + Mul<Output = T> + Add<Output = T>>(a: T, x: T, y: T) -> T {
    a * x + y
}

/// One float of the 43-MAD kernel, likewise.
fn mad<T: Copy + Mul<Output = T> + Add<Output = T>>(a: T, x: T, y: T) -> T {
    (0..MADS).fold(y, |v, _| v * x + a)
}

/// One call of an elementwise kernel on `x` and `y` from [`inputs`], in f64.
fn reference(f: fn(f64, f64, f64) -> f64, x: &[f32], y: &[f32]) -> Vec<f64> {
    x.iter()
        .zip(y)
        .map(|(&x, &y)| f(f64::from(A), f64::from(x), f64::from(y)))
        .collect()
}

/// The hand-written loop's streams: `x`, and `y` and `r` ping-ponging like the Brook
/// variant's, so that `y` always holds the last call's result.
struct HandLoop {
    x: Vec<f32>,
    y: Vec<f32>,
    r: Vec<f32>,
}

impl HandLoop {
    /// One call: `f` on every float, [`CHUNK`] elements per rayon task.
    fn step(&mut self, f: impl Fn(f32, f32, f32) -> f32 + Sync) {
        let floats = 4 * CHUNK;
        self.r
            .par_chunks_mut(floats)
            .zip(self.x.par_chunks(floats).zip(self.y.par_chunks(floats)))
            .for_each(|(r, (x, y))| {
                for ((r, x), y) in r.iter_mut().zip(x).zip(y) {
                    *r = f(A, *x, *y);
                }
            });
        std::mem::swap(&mut self.y, &mut self.r);
        std::hint::black_box(&mut self.y);
    }
}

/// `kernel` on 1024×1024 `float4` by the CPU backend and by the rayon loop running `f` (the
/// same arithmetic as `expected`, in f32), one call checked within `tolerance`.
fn elementwise(
    c: &mut Criterion,
    group: &str,
    kernel: &'static str,
    f: impl Fn(f32, f32, f32) -> f32 + Sync + Copy,
    expected: fn(f64, f64, f64) -> f64,
    tolerance: impl Fn(&[f32]) -> Tolerance,
    cpu: &Runtime,
) {
    let (x, y) = inputs(SHAPE.iter().product());
    let expected = reference(expected, &x, &y);
    let tolerance = tolerance(&y);
    let hand = RefCell::new(HandLoop { x, r: y.clone(), y });
    Comparison::new(group, "per call", 1, expected, tolerance)
        .measurement_time(Duration::from_secs(3))
        .variant(Variant::new(
            "rust loop rayon",
            |n| {
                let mut hand = hand.borrow_mut();
                for _ in 0..n {
                    hand.step(f);
                }
            },
            || hand.borrow().y.clone(),
        ))
        .variant(PingPong::new(cpu, &source(kernel), kernel, A, &SHAPE).into_variant("brook cpu"))
        .run(c);
}

const SUM: &str = "reduce void sum(float4 a<>, reduce float4 r<>) { r += a; }";

/// The backend's algorithm by hand: chunks of [`CHUNK`] elements folded in parallel, the
/// partial sums folded in order.
fn hand_sum(data: &[f32]) -> [f32; 4] {
    let fold = |c: &[f32]| {
        let mut acc = [c[0], c[1], c[2], c[3]];
        for e in c[4..].chunks_exact(4) {
            for k in 0..4 {
                acc[k] += e[k];
            }
        }
        acc
    };
    let partials: Vec<[f32; 4]> = data.par_chunks(4 * CHUNK).map(fold).collect();
    let mut acc = partials[0];
    for p in &partials[1..] {
        for k in 0..4 {
            acc[k] += p[k];
        }
    }
    acc
}

fn sum(c: &mut Criterion, cpu: &Runtime) {
    let data: Vec<f32> = (0..SHAPE[0] * SHAPE[1] * 4)
        .map(|i| (i % 7) as f32)
        .collect();
    // Small integers, each component's sum below 6·2^20 < 2^24: exact in any order.
    let expected: Vec<f64> = (0..4)
        .map(|k| data[k..].iter().step_by(4).map(|&v| f64::from(v)).sum())
        .collect();
    let program = cpu.compile(SUM, "sum.br").unwrap();
    let input = cpu.stream_of(4, &SHAPE).unwrap();
    input.read(&data).unwrap();
    Comparison::new(
        "cpu sum of 1024x1024 float4",
        "per reduction",
        1,
        expected,
        Tolerance::Exact,
    )
    .measurement_time(Duration::from_secs(3))
    .variant(Variant::returning("rust loop rayon", || {
        hand_sum(std::hint::black_box(&data)).to_vec()
    }))
    .variant(Variant::returning("brook cpu", || {
        cpu.reduce_to_value(&program, "sum", &input, args![])
            .unwrap()
    }))
    .run(c);
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

/// Element `i` of the taps kernel, summed in `T` (f32 by hand, f64 for the reference).
fn taps_at<T: From<f32> + std::iter::Sum>(src: &[f32], i: usize) -> T {
    let last = src.len() - 1;
    (0..TAPS).map(|k| T::from(src[(i + k).min(last)])).sum()
}

fn hand_taps(src: &[f32], out: &mut [f32]) {
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, o)| {
        for (e, o) in o.iter_mut().enumerate() {
            *o = taps_at(src, c * CHUNK + e);
        }
    });
}

fn taps(c: &mut Criterion, cpu: &Runtime) {
    let data: Vec<f32> = (0..TAP_ELEMENTS).map(|i| (i % 13) as f32).collect();
    // Sums of 64 integers below 13: exact.
    let expected: Vec<f64> = (0..TAP_ELEMENTS).map(|i| taps_at(&data, i)).collect();
    // The kernel is on scalars: `cpu` runs it four elements per iteration, `one` one.
    let one = Runtime::cpu_one_element();
    let prepare = |rt: &Runtime| {
        let program = rt.compile(&taps_source(), "taps.br").unwrap();
        let src = rt.stream_of(1, &[TAP_ELEMENTS]).unwrap();
        let out = rt.stream_of(1, &[TAP_ELEMENTS]).unwrap();
        src.read(&data).unwrap();
        (program, src, out)
    };
    let (program, src, out) = prepare(cpu);
    let (one_program, one_src, one_out) = prepare(&one);
    let hand_out = RefCell::new(vec![0.0; TAP_ELEMENTS]);
    Comparison::new(
        "cpu 64-tap gather 262144 float",
        "per call",
        1,
        expected,
        Tolerance::Exact,
    )
    .measurement_time(Duration::from_secs(3))
    .variant(Variant::new(
        "rust loop rayon",
        |n| {
            let mut out = hand_out.borrow_mut();
            for _ in 0..n {
                hand_taps(&data, std::hint::black_box(&mut out[..]));
            }
        },
        || hand_out.borrow().clone(),
    ))
    .variant(Variant::new(
        "brook cpu",
        |n| {
            for _ in 0..n {
                cpu.run(&program, "taps", args![&src, &out]).unwrap();
            }
            cpu.finish();
        },
        || out.to_vec().unwrap(),
    ))
    .variant(Variant::new(
        "brook cpu one element per iteration",
        |n| {
            for _ in 0..n {
                one.run(&one_program, "taps", args![&one_src, &one_out])
                    .unwrap();
            }
            one.finish();
        },
        || one_out.to_vec().unwrap(),
    ))
    .run(c);
}

/// A kernel `(float a, float4 x<>, float4 y<>, out float4 r<>)` over one element, called
/// through `brook_cpu` directly (no runtime: no argument checks, no stream borrows).
struct PlanCall {
    module: Module,
    kernel: FunctionId,
    a: f32,
    x: CpuStream,
    y: CpuStream,
    r: CpuStream,
}

impl PlanCall {
    fn new(source: &str, kernel: &str, a: f32, x: &[f32], y: &[f32]) -> PlanCall {
        let module = brook::frontend::compile(source, "bench.br").unwrap();
        let (kernel, _) = module.function(kernel).unwrap();
        let stream = |data: &[f32]| CpuStream::from_data(&[4], &[1], data).unwrap();
        PlanCall {
            kernel,
            a,
            x: stream(x),
            y: stream(y),
            r: CpuStream::new(&[4], &[1]).unwrap(),
            module,
        }
    }

    fn plan(&self) -> KernelPlan {
        KernelPlan::new(&self.module, self.kernel)
    }

    fn call(&mut self, plan: &KernelPlan) -> KernelRun {
        let mut args = [
            CpuArg::Constant(vec![self.a]),
            CpuArg::Stream(&self.x),
            CpuArg::Stream(&self.y),
            CpuArg::Out(&mut self.r),
        ];
        plan.run_masked(&self.module, &mut args, None).unwrap()
    }

    /// These calls as a comparison's variant named `name`, checked on `r`.
    fn into_variant(self, name: &str, plan: Plan) -> Variant<'static> {
        let cached = self.plan();
        let calls = Rc::new(RefCell::new(self));
        let read = calls.clone();
        Variant::new(
            name,
            move |n| {
                let mut calls = calls.borrow_mut();
                for _ in 0..n {
                    let fresh;
                    let this_call = match plan {
                        Plan::Cached => &cached,
                        Plan::FreshEachCall => {
                            fresh = calls.plan();
                            &fresh
                        }
                    };
                    calls.call(this_call);
                }
            },
            move || read.borrow().r.data().to_vec(),
        )
    }
}

/// Which plan each call of a [`PlanCall`] variant runs.
#[derive(Clone, Copy)]
enum Plan {
    /// One plan, compiled by the first call (the check) and cached from then on.
    Cached,
    /// A new plan each call, so each call compiles the kernel.
    FreshEachCall,
}

/// A cached kernel over one element: what every call costs besides its elements, through
/// the runtime (argument checks, stream borrows) and through `brook_cpu` directly.
fn overhead(c: &mut Criterion, cpu: &Runtime) {
    let src = source("saxpy");
    let (x, y) = inputs(1);
    let expected = reference(saxpy, &x, &y);
    let direct = PlanCall::new(&src, "saxpy", A, &x, &y);
    // a·x exact (a = ½), the sum one rounding.
    let tolerance = Tolerance::Relative(EPS);
    Comparison::new(
        "cpu call of a cached 1-element kernel",
        "per call",
        1,
        expected,
        tolerance,
    )
    .variant(PingPong::new(cpu, &src, "saxpy", A, &[1]).into_variant("brook cpu"))
    .variant(direct.into_variant("brook_cpu KernelPlan", Plan::Cached))
    .run(c);
}

/// The long kernel's inputs, every float of `x` and `y` alike: negative, because from
/// positive ones its values overflow to infinity, where a check would see nothing.
const LONG: [f32; 3] = [-0.5, -1.0, -2.0];

/// Statement `k` of the long kernel (a mix of arithmetic, built-ins, a branch and a loop on
/// vectors and scalars), and the same step on f64 `(v, s, y)` for the reference.
type Step = (String, Box<dyn Fn(&mut [f64; 4], &mut f64, f64)>);

fn long_step(k: usize) -> Step {
    match k % 6 {
        0 => {
            let m = (k % 7) as f64 + 0.5;
            (
                format!("    v = v * {m:.1} + y;\n"),
                Box::new(move |v, _, y| v.iter_mut().for_each(|c| *c = *c * m + y)),
            )
        }
        1 => (
            "    s = s + dot(v, y) * 0.25;\n".into(),
            Box::new(|v, s, y| *s += v.iter().map(|c| c * y).sum::<f64>() * 0.25),
        ),
        2 => (
            "    v.xy = v.yx * s;\n".into(),
            Box::new(|v, s, _| (v[0], v[1]) = (v[1] * *s, v[0] * *s)),
        ),
        3 => (
            "    if (s > 10.0) { s = sqrt(s); } else { s = s * 2.0; }\n".into(),
            Box::new(|_, s, _| *s = if *s > 10.0 { s.sqrt() } else { *s * 2.0 }),
        ),
        4 => (
            "    v = max(v, float4(s, 0.0, 1.0, 2.0));\n".into(),
            Box::new(|v, s, _| {
                for (c, m) in v.iter_mut().zip([*s, 0.0, 1.0, 2.0]) {
                    *c = c.max(m);
                }
            }),
        ),
        _ => {
            let times = k % 4 + 1;
            (
                format!("    for (int i = 0; i < {times}; i++) {{ s += v.z; }}\n"),
                Box::new(move |v, s, _| {
                    for _ in 0..times {
                        *s += v[2];
                    }
                }),
            )
        }
    }
}

/// A kernel of 100 statements, and its result on [`LONG`] in f64.
fn long_kernel() -> (String, Vec<f64>) {
    let [a, x, y] = LONG.map(f64::from);
    let (mut v, mut s) = ([x; 4], a);
    let mut body = String::from("    float4 v = x;\n    float s = a;\n");
    for k in 0..96 {
        let (source, step) = long_step(k);
        body.push_str(&source);
        step(&mut v, &mut s, y);
    }
    body.push_str("    r = v + s;\n");
    let source =
        format!("kernel void long(float a, float4 x<>, float4 y<>, out float4 r<>) {{\n{body}}}\n");
    (source, v.iter().map(|c| c + s).collect())
}

/// Compiling it to native code: a fresh plan's first call, over one element, against the
/// same call on a cached plan.
fn compile(c: &mut Criterion) {
    let (src, expected) = long_kernel();
    let [a, x, y] = LONG;
    let calls = || PlanCall::new(&src, "long", a, &[x; 4], &[y; 4]);
    let mut fresh = calls();
    let first = fresh.call(&fresh.plan());
    assert!(
        first.execution.compiled.is_some(),
        "the 100-statement kernel runs on the interpreter: {:?}",
        first.execution.fallback
    );
    // A few roundings per statement on values that reach 5e11, carried between components
    // through `s`: errors scaled by the largest value (an f32 emulation of the steps stays
    // within 1e-7 of it; the s > 10 branch is never closer than 5.5 to flipping).
    let tolerance = Tolerance::Scaled(1e-4);
    Comparison::new(
        "cpu compile a 100-statement kernel",
        "per call",
        1,
        expected,
        tolerance,
    )
    .variant(calls().into_variant("brook cpu cached run", Plan::Cached))
    .variant(fresh.into_variant("brook cpu compile and run", Plan::FreshEachCall))
    .run(c);
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    println!(
        "rayon threads: {} (the hand loops and the backend share the pool)",
        rayon::current_num_threads()
    );
    let cpu = Runtime::cpu();
    // a·x exact (a = ½), the sum one rounding.
    elementwise(
        &mut c,
        "cpu saxpy 1024x1024 float4",
        "saxpy",
        saxpy::<f32>,
        saxpy,
        |_| Tolerance::Relative(EPS),
        &cpu,
    );
    // Each step rounds a product and a sum by ε/2 of at most max|y| + 1 (|x| < 1 keeps v
    // below that and shrinks earlier errors): 43·ε·(max|y| + 1) bounds the error.
    elementwise(
        &mut c,
        "cpu 43 mad 1024x1024 float4",
        "mad",
        mad::<f32>,
        mad,
        |y| {
            let largest = y.iter().fold(0.0f64, |m, v| m.max(f64::from(v.abs())));
            Tolerance::Relative(MADS as f64 * EPS * (largest + 1.0))
        },
        &cpu,
    );
    sum(&mut c, &cpu);
    taps(&mut c, &cpu);
    overhead(&mut c, &cpu);
    compile(&mut c);
    c.final_summary();
}
