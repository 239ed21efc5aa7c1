//! Vout compaction of 2^20 elements: each element of a 1024×1024 stream pushes 0, 1 or 2
//! values (`a > 0` pushes `a`, `a > 1` also pushes `-a`; `a = i mod 3`), by Brook-GL
//! (candidate pass, work-efficient scan of the counts, compaction), by the same algorithm
//! written by hand in glow on the same context, and by the CPU backend, in one run. Every call
//! ends by reading the number of pushes back, which also waits for the GPU work.

mod common;

use std::time::Duration;

use brook::{args, Runtime};
use common::handwritten_vout::HandVout;
use common::ratios::print_ratios;
use common::timing::timed;
use criterion::{BenchmarkId, Criterion, SamplingMode};

const SPREAD: &str = r#"
kernel void spread(float a<>, vout [2] float o<>) {
    if (a > 0.0) { o = a; push(o); }
    if (a > 1.0) { o = -a; push(o); }
}
"#;
const SIDE: usize = 1024;
const GROUP: &str = "vout compaction of 1024x1024";

const HAND: &str = "hand-written glow";
const GL: &str = "brook gl";
const CPU: &str = "brook cpu";

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let data: Vec<f32> = (0..SIDE * SIDE).map(|i| (i % 3) as f32).collect();
    let expected: Vec<f32> = data
        .iter()
        .flat_map(|&a| match a as u32 {
            0 => vec![],
            1 => vec![a],
            _ => vec![a, -a],
        })
        .collect();
    let capacity = 2 * SIDE * SIDE;
    let gl = Runtime::gl().expect("a headless GL context");
    let cpu = Runtime::cpu();
    let on = |rt: &Runtime| {
        let program = rt.compile(SPREAD, "spread.br").unwrap();
        let input = rt.stream_of(1, &[SIDE, SIDE]).unwrap();
        input.read(&data).unwrap();
        let out = rt.stream_of(1, &[capacity]).unwrap();
        (program, input, out)
    };
    let (gl_program, gl_input, gl_out) = on(&gl);
    let (cpu_program, cpu_input, cpu_out) = on(&cpu);
    let ctx = gl.gl_context().expect("a GL runtime").clone();
    ctx.make_current().unwrap();
    let hand = HandVout::new(ctx.gl(), SIDE, &data, capacity);

    // All three pack the same values.
    let brook = |rt: &Runtime, p, i, o| rt.run_vout(p, "spread", args![i, o]).unwrap();
    assert_eq!(
        brook(&gl, &gl_program, &gl_input, &gl_out),
        vec![expected.len()]
    );
    assert_eq!(
        &gl_out.to_vec().unwrap()[..expected.len()],
        expected.as_slice()
    );
    assert_eq!(
        brook(&cpu, &cpu_program, &cpu_input, &cpu_out),
        vec![expected.len()]
    );
    assert_eq!(
        &cpu_out.to_vec().unwrap()[..expected.len()],
        expected.as_slice()
    );
    ctx.make_current().unwrap();
    assert_eq!(hand.run(), expected.len());
    assert_eq!(hand.packed(expected.len()), expected);

    let mut group = c.benchmark_group(GROUP);
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function(BenchmarkId::from_parameter(HAND), |b| {
        b.iter_custom(|iters| {
            ctx.make_current().unwrap();
            timed(iters, || assert_eq!(hand.run(), expected.len()))
        })
    });
    group.bench_function(BenchmarkId::from_parameter(GL), |b| {
        b.iter_custom(|iters| {
            timed(iters, || {
                brook(&gl, &gl_program, &gl_input, &gl_out);
            })
        })
    });
    group.bench_function(BenchmarkId::from_parameter(CPU), |b| {
        b.iter_custom(|iters| {
            timed(iters, || {
                brook(&cpu, &cpu_program, &cpu_input, &cpu_out);
            })
        })
    });
    group.finish();
    c.final_summary();
    print_ratios(
        GROUP,
        HAND,
        &[HAND, GL, CPU],
        "per call (2^20 elements, 2^20 pushes)",
    );
}
