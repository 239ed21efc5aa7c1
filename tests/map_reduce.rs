//! `Runtime::map_reduce_to_value` and `map_reduce_to_stream`: a kernel whose output only feeds
//! a reduction. GL and wgpu compute the kernel inside the reduction's first pass, the CPU
//! inside its fold; every result must equal the CPU backend's kernel call followed by its
//! reduction. The data are small integers, so every order of summation is exact and the
//! comparison is bit for bit, as in `reductions.rs`; the non-commutative case (2×2 matrix
//! products of 0/±1 matrices) is exact too and catches any reordering. With floats that round,
//! each backend's fused result must equal its own two calls bit for bit (fusing keeps its
//! reduction order).

mod support;

use brook::{args, Arg, Runtime, TraceEntry};
use support::runtimes;

/// Small integers with repeats and signs.
fn ints(n: usize, salt: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7 + 3 + salt) % 13) as f32 - 6.0)
        .collect()
}

/// One kernel-then-reduce case: a program, its kernel's input streams (components, shape),
/// the kernel's output (components, shape), and the reduction's target shape (`None`: a value).
struct Case {
    src: &'static str,
    kernel: &'static str,
    reduction: &'static str,
    inputs: Vec<(u8, Vec<usize>)>,
    out: (u8, Vec<usize>),
    target: Option<Vec<usize>>,
}

impl Case {
    /// Runs the case on `rt`, fused (`map_reduce_*`) or as the two calls, and returns the
    /// result's floats.
    fn run(&self, rt: &Runtime, fused: bool) -> Vec<f32> {
        let program = rt.compile(self.src, "map_reduce.br").unwrap();
        let inputs: Vec<_> = self
            .inputs
            .iter()
            .enumerate()
            .map(|(k, (components, shape))| {
                let s = rt.stream_of(*components, shape).unwrap();
                let n = shape.iter().product::<usize>() * *components as usize;
                s.read(&ints(n, k)).unwrap();
                s
            })
            .collect();
        let scratch = rt.stream_of(self.out.0, &self.out.1).unwrap();
        let mut args: Vec<Arg> = inputs.iter().map(Arg::from).collect();
        args.push(Arg::from(&scratch));
        let ctx = format!("{} `{}`", rt.describe(), self.kernel);
        match (&self.target, fused) {
            (None, true) => rt
                .map_reduce_to_value(&program, self.kernel, &args, self.reduction, args![])
                .unwrap_or_else(|e| panic!("{ctx}: {e}")),
            (None, false) => {
                rt.run(&program, self.kernel, &args)
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                rt.reduce_to_value(&program, self.reduction, &scratch, args![])
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"))
            }
            (Some(shape), fused) => {
                let target = rt.stream_of(self.out.0, shape).unwrap();
                if fused {
                    rt.map_reduce_to_stream(
                        &program,
                        self.kernel,
                        &args,
                        self.reduction,
                        &target,
                        args![],
                    )
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                } else {
                    rt.run(&program, self.kernel, &args)
                        .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                    rt.reduce_to_stream(&program, self.reduction, &scratch, &target, args![])
                        .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                }
                target.to_vec().unwrap()
            }
        }
    }

    /// Every runtime's fused result equals the CPU's two calls, bit for bit.
    fn check(&self) {
        let reference = self.run(&Runtime::cpu(), false);
        for rt in runtimes() {
            let mut fused = Vec::new();
            let trace = traced(&rt, || fused = self.run(&rt, true));
            let what = format!(
                "{}: `{}` into `{}`",
                rt.describe(),
                self.kernel,
                self.reduction
            );
            assert_eq!(fused, reference, "{what}");
            assert_fused(&trace, &what);
        }
    }
}

/// The trace of a fused call: one reduction, its kernel in its first pass (GL, wgpu) or its
/// fold (the CPU).
fn assert_fused(trace: &[TraceEntry], what: &str) {
    let calls: Vec<&TraceEntry> = trace
        .iter()
        .filter(|e| matches!(e, TraceEntry::Kernel(_) | TraceEntry::Reduce(_)))
        .collect();
    match calls[..] {
        [TraceEntry::Reduce(c)] if c.variant.contains("fused into") => {}
        _ => panic!("{what}: not fused: {calls:#?}"),
    }
}

const SASUM: &str = "
kernel void absolute(float x<>, out float a<>) { a = abs(x); }
reduce void sum(float a<>, reduce float r<>) { r += a; }";

const GEMV: &str = "
kernel void mul(float a<>, float x<>, out float t<>) { t = a * x; }
reduce void sum(float t<>, reduce float r<>) { r += t; }";

#[test]
fn a_float_reduced_to_a_value_in_one_and_two_dimensions() {
    for shape in [vec![1009], vec![37, 37], vec![1], vec![3, 5, 7]] {
        Case {
            src: SASUM,
            kernel: "absolute",
            reduction: "sum",
            inputs: vec![(1, shape.clone())],
            out: (1, shape),
            target: None,
        }
        .check();
    }
}

#[test]
fn vectors_of_two_three_and_four_floats() {
    for (n, src) in [
        (
            2,
            "kernel void f(float2 x<>, float2 y<>, out float2 t<>) { t = x * y - 1.0; }
             reduce void g(float2 a<>, reduce float2 r<>) { r = max(r, a); }",
        ),
        (
            3,
            "kernel void f(float3 x<>, float3 y<>, out float3 t<>) { t = x + 2.0 * y; }
             reduce void g(float3 a<>, reduce float3 r<>) { r += a; }",
        ),
        (
            4,
            "kernel void f(float4 x<>, float4 y<>, out float4 t<>) { t = x * y; }
             reduce void g(float4 a<>, reduce float4 r<>) { r = min(r, a); }",
        ),
    ] {
        Case {
            src,
            kernel: "f",
            reduction: "g",
            inputs: vec![(n, vec![20, 30]), (n, vec![20, 30])],
            out: (n, vec![20, 30]),
            target: None,
        }
        .check();
    }
}

#[test]
fn partial_reductions_to_smaller_streams_with_resized_inputs() {
    // SGEMV's products: x<1, n> resized over the rows, each row summed.
    Case {
        src: GEMV,
        kernel: "mul",
        reduction: "sum",
        inputs: vec![(1, vec![37, 37]), (1, vec![1, 37])],
        out: (1, vec![37, 37]),
        target: Some(vec![37, 1]),
    }
    .check();
    // A row of twice the columns: every other element read, through the fused kernel's own
    // output extents (the resize ratio 72/36 reduced to 2/1).
    Case {
        src: GEMV,
        kernel: "mul",
        reduction: "sum",
        inputs: vec![(1, vec![36, 36]), (1, vec![1, 72])],
        out: (1, vec![36, 36]),
        target: Some(vec![36, 1]),
    }
    .check();
    // Blocks in both dimensions, several per dimension (the first pass finds its block).
    for (shape, target) in [
        (vec![12, 60], vec![3, 4]),
        (vec![100], vec![25]),
        (vec![6, 8], vec![6, 8]),
    ] {
        Case {
            src: GEMV,
            kernel: "mul",
            reduction: "sum",
            inputs: vec![(1, shape.clone()), (1, shape.clone())],
            out: (1, shape),
            target: Some(target),
        }
        .check();
    }
}

#[test]
fn a_non_commutative_reduction_keeps_index_order() {
    // Each element a 0/±1 shear or swap (x y; z w), chosen by its input; r = r · a.
    let src = "
        kernel void pick(float v<>, out float4 m<>) {
            m = v > 0.0 ? float4(1.0, v > 3.0 ? 1.0 : 0.0, 0.0, 1.0) : float4(0.0, 1.0, v < -3.0 ? -1.0 : 1.0, 0.0);
        }
        reduce void prod(float4 a<>, reduce float4 r<>) {
            r = float4(r.x * a.x + r.y * a.z, r.x * a.y + r.y * a.w,
                       r.z * a.x + r.w * a.z, r.z * a.y + r.w * a.w);
        }";
    for (shape, target) in [(vec![50], None), (vec![9, 14], Some(vec![9, 1]))] {
        Case {
            src,
            kernel: "pick",
            reduction: "prod",
            inputs: vec![(1, shape.clone())],
            out: (4, shape),
            target,
        }
        .check();
    }
}

#[test]
fn iterators_gathers_constants_and_indexof_reach_the_fused_kernel() {
    let src = "
        kernel void f(float s, float it<>, float g[], float x<>, out float t<>) {
            float2 i = indexof(t);
            t = s * x + it + g[i.x] + i.y;
        }
        reduce void sum(float a<>, reduce float r<>) { r += a; }";
    for rt in runtimes() {
        let run = |rt: &Runtime, fused: bool| {
            let p = rt.compile(src, "t.br").unwrap();
            let it = rt
                .iter(brook::IterSpec::new(&[24], 1, [0.0; 4], [24.0, 0.0, 0.0, 0.0]).unwrap())
                .unwrap();
            let (g, x) = (
                rt.stream_of(1, &[24]).unwrap(),
                rt.stream_of(1, &[6, 24]).unwrap(),
            );
            g.read(&ints(24, 1)).unwrap();
            x.read(&ints(6 * 24, 2)).unwrap();
            let (t, out) = (
                rt.stream_of(1, &[6, 24]).unwrap(),
                rt.stream_of(1, &[6, 1]).unwrap(),
            );
            let args = args![3.0f32, &it, &g, &x, &t];
            if fused {
                rt.map_reduce_to_stream(&p, "f", args, "sum", &out, args![])
                    .unwrap();
            } else {
                rt.run(&p, "f", args).unwrap();
                rt.reduce_to_stream(&p, "sum", &t, &out, args![]).unwrap();
            }
            out.to_vec().unwrap()
        };
        let mut fused = Vec::new();
        let trace = traced(&rt, || fused = run(&rt, true));
        assert_eq!(fused, run(&Runtime::cpu(), false), "{}", rt.describe());
        assert_fused(&trace, &rt.describe());
    }
}

/// The trace of what `call` runs.
fn traced(rt: &Runtime, call: impl FnOnce()) -> Vec<TraceEntry> {
    rt.set_trace(true);
    call();
    let trace = rt.take_trace();
    rt.set_trace(false);
    trace
}

#[test]
fn the_trace_shows_the_fused_pass_and_no_kernel_call() {
    let rt = Runtime::gl().unwrap();
    let p = rt.compile(SASUM, "sasum.br").unwrap();
    let (x, scratch) = (
        rt.stream_of(1, &[64, 64]).unwrap(),
        rt.stream_of(1, &[64, 64]).unwrap(),
    );
    x.read(&ints(64 * 64, 0)).unwrap();
    let trace = traced(&rt, || {
        rt.map_reduce_to_value(&p, "absolute", args![&x, &scratch], "sum", args![])
            .unwrap();
    });
    assert_eq!(trace.len(), 1, "{trace:#?}");
    let TraceEntry::Reduce(call) = &trace[0] else {
        panic!("a reduction, not {:?}", trace[0]);
    };
    assert!(
        call.variant.contains("kernel `absolute` fused into pass 1"),
        "{}",
        call.variant
    );
    let first = &call.passes[0];
    assert!(
        first
            .label
            .contains("kernel `absolute` computed in its reads"),
        "{}",
        first.label
    );
    let shader = first.program.as_ref().unwrap().source.to_string();
    assert!(
        shader.contains("float brook_map(ivec4 brook_output_index)"),
        "{shader}"
    );
    // The pass samples x, never the kernel's output.
    assert_eq!(first.inputs.len(), 1);
    assert!(first.inputs[0].0.starts_with("x_"), "{:?}", first.inputs);
    // Later passes read partial sums as usual.
    assert!(call.passes[1..]
        .iter()
        .all(|p| !p.label.contains("computed")));
}

#[test]
fn where_fusing_could_change_the_result_every_backend_runs_both_calls() {
    // An element that discards keeps its old value: the scratch stream's, read in first.
    let src = "
        kernel void positive(float x<>, out float a<>) { if (x < 0.0) { discard; } a = x; }
        reduce void sum(float a<>, reduce float r<>) { r += a; }";
    let run = |rt: &Runtime| {
        let p = rt.compile(src, "t.br").unwrap();
        let (x, scratch) = (
            rt.stream_of(1, &[40]).unwrap(),
            rt.stream_of(1, &[40]).unwrap(),
        );
        x.read(&ints(40, 0)).unwrap();
        scratch.read(&[100.0; 40]).unwrap();
        let mut value = Vec::new();
        let trace = traced(rt, || {
            value = rt
                .map_reduce_to_value(&p, "positive", args![&x, &scratch], "sum", args![])
                .unwrap();
        });
        let kinds: Vec<&str> = trace
            .iter()
            .map(|e| match e {
                TraceEntry::Kernel(_) => "kernel",
                TraceEntry::Reduce(_) => "reduction",
                _ => "other",
            })
            .collect();
        (value, kinds)
    };
    let (on_cpu, _) = run(&Runtime::cpu());
    assert!(
        on_cpu[0] > 1000.0,
        "discarded elements keep 100: {on_cpu:?}"
    );
    for rt in runtimes() {
        let (value, kinds) = run(&rt);
        assert_eq!(value, on_cpu, "{}", rt.describe());
        assert_eq!(kinds, ["kernel", "reduction"], "{}", rt.describe());
    }
}

#[test]
fn in_place_kernels_and_targets_the_kernel_reads() {
    let src = "
        kernel void twice(float x<>, float w<>, out float y<>) { y = 2.0 * x + w; }
        reduce void sum(float a<>, reduce float r<>) { r += a; }";
    let run = |rt: &Runtime| {
        let p = rt.compile(src, "t.br").unwrap();
        let (x, w) = (
            rt.stream_of(1, &[8, 16]).unwrap(),
            rt.stream_of(1, &[8, 1]).unwrap(),
        );
        x.read(&ints(128, 0)).unwrap();
        w.read(&ints(8, 3)).unwrap();
        // In place: the kernel's output is its input x, and every element reads its old value.
        let total = rt
            .map_reduce_to_value(&p, "twice", args![&x, &w, &x], "sum", args![])
            .unwrap();
        // The reduction writes w, which the kernel reads (resized over the rows): a fused
        // pass would sample its own target, so GL runs the two calls.
        let (other, scratch) = (
            rt.stream_of(1, &[8, 16]).unwrap(),
            rt.stream_of(1, &[8, 16]).unwrap(),
        );
        other.read(&ints(128, 5)).unwrap();
        rt.map_reduce_to_stream(&p, "twice", args![&other, &w, &scratch], "sum", &w, args![])
            .unwrap();
        (total, w.to_vec().unwrap())
    };
    let reference = run(&Runtime::cpu());
    for rt in runtimes() {
        assert_eq!(run(&rt), reference, "{}", rt.describe());
    }
}

#[test]
fn kernels_that_cannot_be_reduced_at_once_are_clear_errors() {
    let rt = Runtime::cpu();
    let p = rt
        .compile(
            "kernel void two(float x<>, out float a<>, out float b<>) { a = x; b = x; }
             kernel void one(float x<>, out float a<>) { a = x; }
             reduce void sum(float a<>, reduce float r<>) { r += a; }",
            "t.br",
        )
        .unwrap();
    let (x, a, b) = (
        rt.stream_of(1, &[8]).unwrap(),
        rt.stream_of(1, &[8]).unwrap(),
        rt.stream_of(1, &[8]).unwrap(),
    );
    let err = rt
        .map_reduce_to_value(&p, "two", args![&x, &a, &b], "sum", args![])
        .unwrap_err()
        .to_string();
    assert!(err.contains("exactly one `out` parameter"), "{err}");
    let part = a.domain(&[2], &[6]).unwrap();
    let err = rt
        .map_reduce_to_value(&p, "one", args![&x, &part], "sum", args![])
        .unwrap_err()
        .to_string();
    assert!(err.contains("must be a whole stream"), "{err}");
}

/// Floats whose sums round: fusing must not change the order they are added in.
fn rounding(n: usize, salt: usize) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let h = (i as u32 ^ (salt as u32).wrapping_mul(0x9e37_79b9)).wrapping_mul(0x85eb_ca6b);
            ((h >> 8) as f32 / (1 << 24) as f32 - 0.3) * (1.0 + (i % 7) as f32 * 1e-3)
        })
        .collect()
}

/// A kernel-then-reduce case of [`fusing_keeps_each_backends_reduction_order_bit_for_bit`]:
/// the reduction's constant, if it takes one, and the inputs', output's and target's
/// components and shapes (no target: a value).
struct Rounding {
    kernel: &'static str,
    reduction: &'static str,
    k: Option<f32>,
    inputs: Vec<(u8, Vec<usize>)>,
    out: (u8, Vec<usize>),
    target: Option<Vec<usize>>,
}

/// Every backend (and both CPU engines, each CPU layout) gives the same bits fused as unfused
/// on floats whose sums round, over sizes that span several of the CPU's chunks and runs: a
/// gather kernel, SGEMV's row sums, a 2D reduction to a smaller stream, `float4` elements, a
/// reduce function with a constant of its own (GL runs that as two calls; the CPU and wgpu
/// fuse it).
#[test]
fn fusing_keeps_each_backends_reduction_order_bit_for_bit() {
    let src = "
        kernel void taps(float g[], float x<>, out float t<>) {
            float2 i = indexof(t);
            t = x * g[i.x + 1.0] + g[i.x * 0.5];
        }
        kernel void mul(float a<>, float x<>, out float t<>) { t = a * x; }
        kernel void f4(float4 x<>, float4 y<>, out float4 t<>) { t = x * y + 0.25; }
        reduce void sum(float a<>, reduce float r<>) { r += a; }
        reduce void sum4(float4 a<>, reduce float4 r<>) { r += a; }
        reduce void scaled(float a<>, float k, reduce float r<>) { r = r * k + a; }";
    let case =
        |kernel, reduction, k, inputs: &[(u8, &[usize])], out: (u8, &[usize]), target| Rounding {
            kernel,
            reduction,
            k,
            inputs: inputs.iter().map(|(c, s)| (*c, s.to_vec())).collect(),
            out: (out.0, out.1.to_vec()),
            target,
        };
    let cases = [
        case(
            "taps",
            "sum",
            None,
            &[(1, &[9001]), (1, &[9000])],
            (1, &[9000]),
            None,
        ),
        case(
            "mul",
            "sum",
            None,
            &[(1, &[70, 1500]), (1, &[1, 1500])],
            (1, &[70, 1500]),
            Some(vec![70, 1]),
        ),
        case(
            "mul",
            "sum",
            None,
            &[(1, &[60, 300]), (1, &[60, 300])],
            (1, &[60, 300]),
            Some(vec![6, 20]),
        ),
        case(
            "mul",
            "sum",
            None,
            &[(1, &[40, 30]), (1, &[40, 30])],
            (1, &[40, 30]),
            Some(vec![1, 30]),
        ),
        case(
            "f4",
            "sum4",
            None,
            &[(4, &[5003]), (4, &[5003])],
            (4, &[5003]),
            None,
        ),
        case(
            "mul",
            "scaled",
            Some(0.999),
            &[(1, &[6000]), (1, &[6000])],
            (1, &[6000]),
            None,
        ),
    ];
    let mut rts = runtimes();
    rts.extend([Runtime::cpu_interpreter(), Runtime::cpu_one_element()]);
    for rt in rts {
        // The two calls run as two (automatic fusion would fuse them too).
        rt.set_automatic_fusion(false).unwrap();
        let p = rt.compile(src, "rounding.br").unwrap();
        for Rounding {
            kernel,
            reduction,
            k,
            inputs,
            out: (oc, oshape),
            target,
        } in &cases
        {
            // GL with 64-texel textures holds 4096 elements: it skips the larger cases.
            if inputs
                .iter()
                .any(|(_, shape)| shape.iter().product::<usize>() > 4096)
                && rt.stream_of(1, &[9001]).is_err()
            {
                continue;
            }
            let inputs: Vec<_> = (inputs.iter().enumerate())
                .map(|(i, (c, shape))| {
                    let s = rt.stream_of(*c, shape).unwrap();
                    s.read(&rounding(shape.iter().product::<usize>() * *c as usize, i))
                        .unwrap();
                    s
                })
                .collect();
            let scratch = rt.stream_of(*oc, oshape).unwrap();
            let mut args: Vec<Arg> = inputs.iter().map(Arg::from).collect();
            args.push(Arg::from(&scratch));
            let extra: Vec<Arg> = k.iter().map(|&k| Arg::from(k)).collect();
            let what = format!(
                "{}: `{kernel}` into `{reduction}` {target:?}",
                rt.describe()
            );
            let target = target.as_ref().map(|t| rt.stream_of(*oc, t).unwrap());
            let mut fused = Vec::new();
            let trace = traced(&rt, || {
                fused = match &target {
                    None => (rt.map_reduce_to_value(&p, kernel, &args, reduction, &extra))
                        .unwrap_or_else(|e| panic!("{what}: {e}")),
                    Some(t) => {
                        (rt.map_reduce_to_stream(&p, kernel, &args, reduction, t, &extra))
                            .unwrap_or_else(|e| panic!("{what}: {e}"));
                        t.to_vec().unwrap()
                    }
                }
            });
            if !(rt.backend_name() == "gl" && k.is_some()) {
                assert_fused(&trace, &what);
            }
            rt.run(&p, kernel, &args).unwrap();
            let unfused = match &target {
                None => rt.reduce_to_value(&p, reduction, &scratch, &extra).unwrap(),
                Some(t) => {
                    rt.reduce_to_stream(&p, reduction, &scratch, t, &extra)
                        .unwrap();
                    t.to_vec().unwrap()
                }
            };
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&fused), bits(&unfused), "{what}");
        }
    }
}

/// The CPU's time limit stops a kernel computed inside the fold, on either engine, as it stops
/// the kernel's own call: an error at the kernel.
#[test]
fn the_cpus_time_limit_stops_a_fused_kernel() {
    let src = "kernel void forever(float x<>, out float y<>) {\n  float a = x;\n  while (a > -1.0) { a += 1.0; }\n  y = a;\n}
        reduce void sum(float a<>, reduce float r<>) { r += a; }";
    for rt in [Runtime::cpu(), Runtime::cpu_interpreter()] {
        let p = rt.compile(src, "forever.br").unwrap();
        let (x, y) = (
            rt.stream_of(1, &[4]).unwrap(),
            rt.stream_of(1, &[4]).unwrap(),
        );
        x.read(&[0.0; 4]).unwrap();
        rt.set_time_limit(Some(std::time::Duration::from_millis(50)))
            .unwrap();
        let mut result = None;
        let trace = traced(&rt, || {
            result = Some(rt.map_reduce_to_value(&p, "forever", args![&x, &y], "sum", args![]));
        });
        let err = result.unwrap().expect_err("stopped").to_string();
        assert!(
            err.contains("`forever`") && err.contains("time limit"),
            "{err}"
        );
        assert!(trace.is_empty(), "nothing ran to its end: {trace:?}");
    }
}

/// wgpu's fused reduction is one call whose first pass binds the kernel's input and never its
/// output (nor the reduction's input, which is that output); the CPU's is one reduction whose
/// variant names the kernel fused into its fold.
#[test]
fn wgpu_and_the_cpu_trace_one_reduction_that_never_touches_the_kernels_output() {
    for rt in [support::wgpu(), Runtime::cpu(), Runtime::cpu_interpreter()] {
        let p = rt.compile(SASUM, "sasum.br").unwrap();
        let (x, scratch) = (
            rt.stream_of(1, &[64, 64]).unwrap(),
            rt.stream_of(1, &[64, 64]).unwrap(),
        );
        x.read(&ints(64 * 64, 0)).unwrap();
        let trace = traced(&rt, || {
            rt.map_reduce_to_value(&p, "absolute", args![&x, &scratch], "sum", args![])
                .unwrap();
        });
        let what = rt.describe();
        let [TraceEntry::Reduce(call)] = &trace[..] else {
            panic!("{what}: one reduction, not {trace:#?}");
        };
        let fused_into = match rt.backend_name() {
            "wgpu" => "kernel `absolute` fused into pass 1",
            _ => "kernel `absolute` fused into the fold",
        };
        assert!(
            call.variant.contains(fused_into),
            "{what}: {}",
            call.variant
        );
        if rt.backend_name() == "wgpu" {
            let bound: Vec<&str> = (call.passes[0].targets.iter())
                .map(|(name, _)| name.as_str())
                .collect();
            assert!(bound.contains(&"x"), "{what}: {bound:?}");
            assert!(
                !bound
                    .iter()
                    .any(|b| *b == "input" || b.starts_with("out a")),
                "{what}: the fused pass binds the kernel's output: {bound:?}"
            );
        }
    }
}
