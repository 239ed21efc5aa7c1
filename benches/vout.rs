//! Vout compaction of 2^20 elements: each element of a 1024×1024 stream pushes 0, 1 or 2
//! values (`a > 0` pushes `a`, `a > 1` also pushes `-a`; `a = i mod 3`), by Brook-GL
//! (candidate pass, work-efficient scan of the counts, compaction), by the same algorithm
//! written by hand in glow on the same context, and by the CPU backend, in one run. Every call
//! ends by reading the number of pushes back, which also waits for the GPU work; each is
//! checked (the values packed, in order) before it is timed.

mod common;

use std::time::Duration;

use brook::{args, Runtime};
use brook_bench_kit::{Comparison, Tolerance, Variant};
use common::handwritten_vout::HandVout;
use criterion::Criterion;

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

/// A variant whose run packs `n` times and keeps the last packing's values for the check.
fn variant<'a>(
    name: &str,
    mut pack: impl FnMut() -> usize + 'a,
    read: impl Fn(usize) -> Vec<f32> + 'a,
) -> Variant<'a> {
    let count = std::rc::Rc::new(std::cell::Cell::new(0));
    let kept = count.clone();
    Variant::new(
        name,
        move |n| {
            for _ in 0..n {
                count.set(pack());
            }
        },
        move || read(kept.get()),
    )
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let data: Vec<f32> = (0..SIDE * SIDE).map(|i| (i % 3) as f32).collect();
    let expected: Vec<f64> = data
        .iter()
        .flat_map(|&a| match a as u32 {
            0 => vec![],
            1 => vec![a],
            _ => vec![a, -a],
        })
        .map(f64::from)
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
    let brook = |rt: &Runtime, p, i, o| rt.run_vout(p, "spread", args![i, o]).unwrap()[0];
    let packed = |out: &brook::Stream, n: usize| out.to_vec().unwrap()[..n].to_vec();
    // Every variant reads its number of pushes back (which waits for the GPU) and packs
    // exactly the expected values, in element order.
    Comparison::new(
        GROUP,
        "per call (2^20 elements, 2^20 pushes)",
        1,
        expected,
        Tolerance::Exact,
    )
    .measurement_time(Duration::from_secs(3))
    .variant(variant(
        HAND,
        || {
            ctx.make_current().unwrap();
            hand.run()
        },
        |n| {
            ctx.make_current().unwrap();
            hand.packed(n)
        },
    ))
    .variant(variant(
        GL,
        || brook(&gl, &gl_program, &gl_input, &gl_out),
        |n| packed(&gl_out, n),
    ))
    .variant(variant(
        CPU,
        || brook(&cpu, &cpu_program, &cpu_input, &cpu_out),
        |n| packed(&cpu_out, n),
    ))
    .run(&mut c);
    c.final_summary();
}
