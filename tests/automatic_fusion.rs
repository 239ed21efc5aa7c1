//! Automatic kernel → reduction fusion (`Runtime::set_automatic_fusion`): a plain kernel call
//! waits, a reduction of its output computes it inside its first pass (GL, wgpu) or its fold
//! (the CPU), and every interleaving of later operations sees what running each call at once
//! gives. Every scenario runs on every backend and GL layout with deferral on and must equal
//! the CPU with it off, bit for bit (small integers: every order of summation is exact). The
//! traces show that the kernel ran inside the reduction and nowhere else.

mod support;

use brook::{args, Arg, Program, Runtime, Stream, TraceEntry};
use support::{ints, runtimes};

const SRC: &str = "
    kernel void absolute(float x<>, out float a<>) { a = abs(x); }
    kernel void twice(float a<>, out float b<>) { b = 2.0 * a; }
    kernel void bump(float a<>, out float b<>) { b = a + 1.0; }
    kernel void positive(float x<>, out float a<>) { if (x < 0.0) discard; a = x; }
    kernel void offset(float x<>, float w<>, out float y<>) { y = x + w; }
    kernel void both(float x<>, out float a<>, out float b<>) { a = abs(x); b = x - 1.0; }
    reduce void sum(float a<>, reduce float r<>) { r += a; }";

const N: usize = 64;

/// A runtime, its program, and `float` streams of `N` elements, for one scenario.
struct Setup<'a> {
    rt: &'a Runtime,
    p: Program,
}

impl Setup<'_> {
    fn stream(&self, salt: usize) -> Stream {
        let s = self.rt.stream_of(1, &[N]).unwrap();
        s.read(&ints(N, salt)).unwrap();
        s
    }

    fn run(&self, kernel: &str, args: &[Arg]) {
        self.rt.run(&self.p, kernel, args).unwrap();
    }

    fn sum(&self, s: &Stream) -> f32 {
        self.rt.reduce_to_value(&self.p, "sum", s, args![]).unwrap()[0]
    }
}

/// A scenario: operations on a runtime, returning everything it observed.
type Scenario = fn(&Setup) -> Vec<f32>;

/// The scenarios, by name.
const SCENARIOS: &[(&str, Scenario)] = &[
    ("a kernel with two outputs, one reduced, both read", |s| {
        let (x, a, b) = (s.stream(0), s.stream(1), s.stream(2));
        s.run("both", args![&x, &a, &b]);
        let mut seen = vec![s.sum(&a), s.sum(&b)];
        seen.extend(a.to_vec().unwrap());
        seen.extend(b.to_vec().unwrap());
        seen
    }),
    ("the output read after the reduction", |s| {
        let (x, y) = (s.stream(0), s.stream(1));
        s.run("absolute", args![&x, &y]);
        let mut seen = vec![s.sum(&y)];
        seen.extend(y.to_vec().unwrap());
        seen
    }),
    ("two reductions of the output", |s| {
        let (x, y) = (s.stream(0), s.stream(1));
        s.run("absolute", args![&x, &y]);
        let mut seen = vec![s.sum(&y), s.sum(&y)];
        seen.extend(y.to_vec().unwrap());
        seen
    }),
    ("an input written between the call and the reduction", |s| {
        let (x, y) = (s.stream(0), s.stream(1));
        s.run("absolute", args![&x, &y]);
        x.read(&ints(N, 5)).unwrap();
        let mut seen = vec![s.sum(&y)];
        seen.extend(y.to_vec().unwrap());
        seen
    }),
    (
        "an input written after the reduction, the output read later",
        |s| {
            let (x, y) = (s.stream(0), s.stream(1));
            s.run("absolute", args![&x, &y]);
            let mut seen = vec![s.sum(&y)];
            x.read(&ints(N, 5)).unwrap();
            seen.extend(y.to_vec().unwrap());
            seen
        },
    ),
    ("the output swapped", |s| {
        let (x, y, z) = (s.stream(0), s.stream(1), s.stream(2));
        s.run("absolute", args![&x, &y]);
        let mut seen = vec![s.sum(&y)];
        s.rt.swap(&y, &z).unwrap();
        seen.extend([s.sum(&z), s.sum(&y)]);
        seen.extend(z.to_vec().unwrap());
        seen
    }),
    ("a kernel and its reduction in a loop (SASUM)", |s| {
        let (x, y) = (s.stream(0), s.stream(1));
        let mut seen = Vec::new();
        for i in 0..4 {
            s.run("absolute", args![&x, &y]);
            seen.push(s.sum(&y));
            if i == 2 {
                x.read(&ints(N, 9)).unwrap();
            }
        }
        seen.extend(y.to_vec().unwrap());
        seen
    }),
    ("the output another kernel's input", |s| {
        let (x, y, z) = (s.stream(0), s.stream(1), s.stream(2));
        s.run("absolute", args![&x, &y]);
        let mut seen = vec![s.sum(&y)];
        s.run("twice", args![&y, &z]);
        seen.push(s.sum(&z));
        s.run("bump", args![&z, &y]);
        seen.push(s.sum(&y));
        seen.extend(z.to_vec().unwrap());
        seen.extend(y.to_vec().unwrap());
        seen
    }),
    ("a write mask set between", |s| {
        let (x, y, m) = (s.stream(0), s.stream(1), s.stream(2));
        s.run("absolute", args![&x, &y]);
        let mut seen = vec![s.sum(&y)];
        s.rt.set_write_mask(&m).unwrap();
        s.rt.enable_write_mask().unwrap();
        // Masked: only some elements change, the others keep the first call's values.
        s.run("bump", args![&x, &y]);
        s.rt.disable_write_mask().unwrap();
        seen.push(s.sum(&y));
        seen.extend(y.to_vec().unwrap());
        seen
    }),
    (
        "a kernel that can discard, after and before a reduction",
        |s| {
            let (x, y, w) = (s.stream(0), s.stream(1), s.stream(4));
            s.run("absolute", args![&w, &y]);
            let mut seen = vec![s.sum(&y)];
            // It writes only the non-negative elements: the rest keep |w|.
            s.run("positive", args![&x, &y]);
            seen.push(s.sum(&y));
            seen.extend(y.to_vec().unwrap());
            seen
        },
    ),
    ("an in-place call, never deferred", |s| {
        let y = s.stream(1);
        s.run("bump", args![&y, &y]);
        let mut seen = vec![s.sum(&y)];
        s.run("bump", args![&y, &y]);
        seen.push(s.sum(&y));
        seen.extend(y.to_vec().unwrap());
        seen
    }),
    ("a partial reduction into a stream the kernel reads", |s| {
        let x = s.rt.stream_of(1, &[8, 8]).unwrap();
        x.read(&ints(64, 0)).unwrap();
        let (w, y, r) = (
            s.rt.stream_of(1, &[8, 1]).unwrap(),
            s.rt.stream_of(1, &[8, 8]).unwrap(),
            s.rt.stream_of(1, &[8, 1]).unwrap(),
        );
        w.read(&ints(8, 3)).unwrap();
        s.run("offset", args![&x, &w, &y]);
        s.rt.reduce_to_stream(&s.p, "sum", &y, &r, args![]).unwrap();
        let mut seen = r.to_vec().unwrap();
        // Into w, which the call reads: the call must not see the new w.
        s.rt.reduce_to_stream(&s.p, "sum", &y, &w, args![]).unwrap();
        seen.extend(w.to_vec().unwrap());
        seen.extend(y.to_vec().unwrap());
        seen
    }),
    ("a reduction of another program", |s| {
        let other =
            s.rt.compile(
                "reduce void total(float a<>, reduce float r<>) { r += a; }",
                "other.br",
            )
            .unwrap();
        let (x, y) = (s.stream(0), s.stream(1));
        s.run("absolute", args![&x, &y]);
        let mut seen = s.rt.reduce_to_value(&other, "total", &y, args![]).unwrap();
        seen.extend(y.to_vec().unwrap());
        seen
    }),
    (
        "streams and the program dropped while the call waits",
        |s| {
            let p = s.rt.compile(SRC, "fusion.br").unwrap();
            let (x, y) = (s.stream(0), s.stream(1));
            s.rt.run(&p, "absolute", args![&x, &y]).unwrap();
            let total = s.rt.reduce_to_value(&p, "sum", &y, args![]).unwrap();
            drop((p, x, y));
            let z = s.stream(3);
            s.run("twice", args![&z, &z]);
            let mut seen = total;
            seen.extend(z.to_vec().unwrap());
            seen
        },
    ),
];

fn observe(rt: &Runtime, scenario: Scenario) -> Vec<f32> {
    let p = rt.compile(SRC, "fusion.br").unwrap();
    scenario(&Setup { rt, p })
}

#[test]
fn every_interleaving_gives_the_cpus_results_without_deferral() {
    let cpu = Runtime::cpu();
    cpu.set_automatic_fusion(false).unwrap();
    let reference: Vec<Vec<f32>> = SCENARIOS.iter().map(|(_, f)| observe(&cpu, *f)).collect();
    for rt in runtimes() {
        rt.set_automatic_fusion(true).unwrap();
        for ((name, scenario), want) in SCENARIOS.iter().zip(&reference) {
            assert_eq!(&observe(&rt, *scenario), want, "{}: {name}", rt.describe());
        }
    }
}

/// The calls of a trace, by kind, and whether each reduction had a kernel fused into it.
fn calls(trace: &[TraceEntry]) -> Vec<String> {
    trace
        .iter()
        .map(|t| match t {
            TraceEntry::Kernel(c) => format!("kernel {}", c.function),
            TraceEntry::Reduce(c) if c.variant.contains("fused into") => {
                format!("fused {}", c.function)
            }
            TraceEntry::Reduce(c) => format!("reduce {}", c.function),
            other => format!("{other:?}"),
        })
        .collect()
}

/// What `f` traced.
fn traced(rt: &Runtime, f: impl FnOnce()) -> Vec<String> {
    rt.set_trace(true);
    f();
    let trace = rt.take_trace();
    rt.set_trace(false);
    calls(&trace)
}

/// GL, wgpu, and the CPU's native code and interpreter: every backend fuses by default.
fn fusing_runtimes() -> Vec<Runtime> {
    vec![
        Runtime::gl().unwrap(),
        support::wgpu(),
        Runtime::cpu(),
        Runtime::cpu_interpreter(),
    ]
}

#[test]
fn on_every_backend_a_call_then_a_reduction_of_its_output_is_one_fused_reduction() {
    for rt in fusing_runtimes() {
        one_fused_reduction(&rt);
    }
}

fn one_fused_reduction(rt: &Runtime) {
    let s = Setup {
        rt,
        p: rt.compile(SRC, "fusion.br").unwrap(),
    };
    let (x, y) = (s.stream(0), s.stream(1));
    let fused = traced(rt, || {
        s.run("absolute", args![&x, &y]);
        s.sum(&y);
    });
    assert_eq!(fused, ["fused sum"], "{}", rt.describe());

    // The loop: each iteration's call replaces the last, which already ran fused.
    let looped = traced(rt, || {
        for _ in 0..3 {
            s.run("absolute", args![&x, &y]);
            s.sum(&y);
        }
    });
    assert_eq!(looped, ["fused sum"; 3], "{}", rt.describe());

    // Reading the output afterwards runs the kernel for it, after the reduction.
    let read = traced(rt, || {
        s.run("absolute", args![&x, &y]);
        s.sum(&y);
        let abs: Vec<f32> = ints(N, 0).iter().map(|v| v.abs()).collect();
        assert_eq!(y.to_vec().unwrap(), abs, "{}", rt.describe());
    });
    assert_eq!(read, ["fused sum", "kernel absolute"], "{}", rt.describe());

    // A kernel with two outputs never waits: it runs at its call, then the plain reduction.
    let z = s.stream(2);
    let two = traced(rt, || {
        s.run("both", args![&x, &y, &z]);
        s.sum(&y);
    });
    assert_eq!(two, ["kernel both", "reduce sum"], "{}", rt.describe());

    // A call no backend fuses (it can discard) runs once, before the plain reduction.
    let refused = traced(rt, || {
        s.run("positive", args![&x, &y]);
        s.sum(&y);
        y.to_vec().unwrap();
    });
    assert_eq!(
        refused,
        ["kernel positive", "reduce sum"],
        "{}",
        rt.describe()
    );

    rt.set_automatic_fusion(false).unwrap();
    let off = traced(rt, || {
        s.run("absolute", args![&x, &y]);
        s.sum(&y);
    });
    assert_eq!(off, ["kernel absolute", "reduce sum"], "{}", rt.describe());
}

/// A kernel whose call waited for a reduction that did not come runs at once from then on
/// (waiting costs GL its shader preparation twice), until a reduction folds its output: then
/// it waits, and fuses, again.
#[test]
fn only_kernels_that_feed_reductions_wait() {
    let rt = Runtime::gl().unwrap();
    let s = Setup {
        rt: &rt,
        p: rt.compile(SRC, "fusion.br").unwrap(),
    };
    let (x, y) = (s.stream(0), s.stream(1));
    let learned = traced(&rt, || {
        s.run("absolute", args![&x, &y]);
        y.to_vec().unwrap(); // It waited for nothing.
        s.run("absolute", args![&x, &y]); // So this one runs at once,
        s.sum(&y); // and this reduction is on its own: it teaches that the kernel feeds one.
        s.run("absolute", args![&x, &y]);
        s.sum(&y);
    });
    assert_eq!(
        learned,
        [
            "kernel absolute",
            "kernel absolute",
            "reduce sum",
            "fused sum"
        ]
    );
}

/// What is learned about a kernel belongs to its program, not to the memory it lived in: a
/// program compiled after the first is dropped (often at the same address) starts unseen, so
/// its kernel waits and fuses.
#[test]
fn a_new_program_is_not_taken_for_a_dropped_one() {
    let rt = Runtime::gl().unwrap();
    let (x, y) = (
        rt.stream_of(1, &[N]).unwrap(),
        rt.stream_of(1, &[N]).unwrap(),
    );
    x.read(&ints(N, 0)).unwrap();
    for round in 0..4 {
        let s = Setup {
            rt: &rt,
            p: rt.compile(SRC, "fusion.br").unwrap(),
        };
        let learned = traced(&rt, || {
            s.run("absolute", args![&x, &y]);
            s.sum(&y);
            s.run("absolute", args![&x, &y]);
            y.to_vec().unwrap(); // It waited for nothing: the next call runs at once.
            s.run("absolute", args![&x, &y]);
        });
        assert_eq!(
            learned,
            ["fused sum", "kernel absolute", "kernel absolute"],
            "program {round}"
        );
    }
}

#[test]
fn errors_are_the_calls_or_reported_where_it_runs_at_the_kernels_line() {
    // GL runs a call whose loops it checks against the driver's cap at once (it never fuses
    // one): the cut loop is the call's own error.
    let gl = Runtime::gl().unwrap();
    let p = gl.compile(support::COUNT_TO_N, "loops.br").unwrap();
    let (n, r) = (
        gl.stream_of(1, &[2]).unwrap(),
        gl.stream_of(1, &[2]).unwrap(),
    );
    n.read(&[100_000.0, 3.0]).unwrap();
    let err = gl.run(&p, "k", args![&n, &r]).expect_err("the loop is cut");
    assert!(err.to_string().contains("loops.br:4:"), "{err}");

    // The CPU's time limit stops a deferred call that never ends when it runs: for a read
    // of its output, the read reports it.
    let cpu = Runtime::cpu();
    cpu.set_automatic_fusion(true).unwrap();
    let p = cpu.compile(support::FOREVER, "forever.br").unwrap();
    let (x, y) = (
        cpu.stream_of(1, &[4]).unwrap(),
        cpu.stream_of(1, &[4]).unwrap(),
    );
    x.read(&[0.0; 4]).unwrap();
    cpu.set_time_limit(Some(std::time::Duration::from_millis(50)))
        .unwrap();
    cpu.run(&p, "forever", args![&x, &y]).expect("deferred");
    let err = y.to_vec().expect_err("stopped by the limit").to_string();
    assert!(
        err.starts_with("forever.br:1:") && err.contains("`forever`"),
        "{err}"
    );

    // finish cannot return it: the next call does, once. (A fresh program: this kernel's
    // last call waited for a reduction that never came, so it would now run at once.)
    let p = cpu.compile(&p.source().text, "forever.br").unwrap();
    cpu.run(&p, "forever", args![&x, &y]).expect("deferred");
    cpu.finish();
    let err = x.read(&[1.0; 4]).expect_err("kept for the next call");
    assert!(err.to_string().contains("`forever`"), "{err}");
    x.read(&[1.0; 4]).expect("reported once");
}
