//! The CPU backend's two engines through the runtime: native code by default, the interpreter
//! on request, the same results, and the trace saying which ran and what compiling cost.

use std::time::Duration;

use brook::{args, GatherOp, Runtime, ScatterOp, TraceEntry};

const SRC: &str = "kernel void scale(float k, float4 a<>, out float4 b<>) {
    b = a * k + indexof(b).x;
}
reduce void total(float a<>, reduce float r<>) { r += a; }";

/// `scale` on a 3×5 stream and `total` of its first components, on `rt`.
fn run(rt: &Runtime) -> (Vec<f32>, Vec<f32>) {
    let program = rt.compile(SRC, "engines.br").unwrap();
    let a = rt.stream_of(4, &[3, 5]).unwrap();
    let b = rt.stream_of(4, &[3, 5]).unwrap();
    let data: Vec<f32> = (0..60).map(|i| i as f32 * 0.37 - 4.0).collect();
    a.read(&data).unwrap();
    rt.run(&program, "scale", args![1.5f32, &a, &b]).unwrap();
    let x = rt.stream_of(1, &[15]).unwrap();
    x.read(&data[..15]).unwrap();
    let total = rt.reduce_to_value(&program, "total", &x, args![]).unwrap();
    (b.to_vec().unwrap(), total)
}

#[test]
fn native_code_and_the_interpreter_agree_bit_for_bit() {
    let (native, interpreted) = (run(&Runtime::cpu()), run(&Runtime::cpu_interpreter()));
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&native.0), bits(&interpreted.0));
    assert_eq!(bits(&native.1), bits(&interpreted.1));
    // Element (1, 2) is a * 1.5 + 2 (its column).
    let e = 5 + 2;
    assert_eq!(native.0[4 * e], ((4 * e) as f32 * 0.37 - 4.0) * 1.5 + 2.0);
}

#[test]
fn the_trace_names_the_engine_and_the_compile_time() {
    let rt = Runtime::cpu();
    let program = rt.compile(SRC, "engines.br").unwrap();
    let a = rt.stream_of(4, &[3, 5]).unwrap();
    let b = rt.stream_of(4, &[3, 5]).unwrap();
    let x = rt.stream_of(1, &[15]).unwrap();
    rt.set_trace(true);
    rt.run(&program, "scale", args![2.0f32, &a, &b]).unwrap();
    rt.run(&program, "scale", args![2.0f32, &a, &b]).unwrap();
    rt.reduce_to_value(&program, "total", &x, args![]).unwrap();
    rt.reduce_to_value(&program, "total", &x, args![]).unwrap();
    let trace = rt.take_trace();
    let [TraceEntry::Kernel(first), TraceEntry::Kernel(second), TraceEntry::Reduce(fold), TraceEntry::Reduce(again)] =
        &trace[..]
    else {
        panic!("two kernel and two reduce entries expected: {trace:?}");
    };
    assert_eq!(
        (first.function.as_str(), first.source_line),
        ("scale", Some(1))
    );
    assert_eq!(
        first.variant,
        "<3, 5>, native code for rank 2 output; constant, stream, out; one element per iteration"
    );
    let took = first.compiled.expect("the first call compiles");
    assert!(
        took > Duration::ZERO && took < Duration::from_secs(10),
        "{took:?}"
    );
    assert_eq!(
        (second.variant.as_str(), second.compiled),
        ("<3, 5>, native code", None)
    );
    assert!(first.passes.is_empty());
    assert_eq!(
        (fold.function.as_str(), fold.source_line),
        ("total", Some(4))
    );
    assert!(
        fold.variant
            .starts_with("<15> -> a value, native code for "),
        "{}",
        fold.variant
    );
    assert!(fold.compiled.is_some(), "{fold:?}");
    assert_eq!(
        (again.variant.as_str(), again.compiled),
        ("<15> -> a value, native code", None)
    );

    let rt = Runtime::cpu_interpreter();
    let program = rt.compile(SRC, "engines.br").unwrap();
    let (a, b) = (
        rt.stream_of(4, &[3, 5]).unwrap(),
        rt.stream_of(4, &[3, 5]).unwrap(),
    );
    rt.set_trace(true);
    rt.run(&program, "scale", args![2.0f32, &a, &b]).unwrap();
    let trace = rt.take_trace();
    let [TraceEntry::Kernel(only)] = &trace[..] else {
        panic!("one kernel entry expected: {trace:?}");
    };
    assert_eq!(
        (only.variant.as_str(), only.compiled),
        ("<3, 5>, interpreter", None)
    );
}

#[test]
fn scatter_and_gather_op_are_traced_with_their_combiners_compile_time() {
    let rt = Runtime::cpu();
    let program = rt.compile(SRC, "engines.br").unwrap();
    let index = rt.stream_of(1, &[3]).unwrap();
    index.read(&[1.0, 0.0, 1.0]).unwrap();
    let data = rt.stream_of(1, &[3]).unwrap();
    data.read(&[1.0, 2.0, 3.0]).unwrap();
    let dst = rt.stream_of(1, &[2]).unwrap();
    let fetched = rt.stream_of(1, &[3]).unwrap();
    rt.set_trace(true);
    rt.scatter(&dst, &index, &data, ScatterOp::Reduce(&program, "total"))
        .unwrap();
    rt.scatter(&dst, &index, &data, ScatterOp::Add).unwrap();
    let op = GatherOp::With(ScatterOp::Reduce(&program, "total"), &[10.0]);
    rt.gather_op(&fetched, &index, &dst, op).unwrap();
    rt.gather_op(&fetched, &index, &dst, GatherOp::Fetch)
        .unwrap();
    // Scattered with `total` (+) and again with add: [4, 8]; the gather-op's update then
    // added 10 once to element 0 and twice to element 1.
    assert_eq!(dst.to_vec().unwrap(), vec![4.0 + 10.0, 8.0 + 20.0]);
    let trace = rt.take_trace();
    let [TraceEntry::Scatter(user), TraceEntry::Scatter(add), TraceEntry::GatherOp(update), TraceEntry::GatherOp(fetch)] =
        &trace[..]
    else {
        panic!("two scatter and two gather-op entries expected: {trace:?}");
    };
    assert_eq!(
        (user.function.as_str(), user.source_line),
        ("streamScatterOp `total`", Some(4))
    );
    assert!(
        user.variant.starts_with("3 elements, native code for "),
        "{}",
        user.variant
    );
    assert!(user.compiled.is_some(), "{user:?}");
    assert_eq!(
        (
            add.function.as_str(),
            add.variant.as_str(),
            add.compiled,
            add.source_line
        ),
        ("streamScatterOp add", "3 elements", None, None)
    );
    // The reduction's code was compiled by the scatter: the gather-op reuses it.
    assert_eq!(
        (
            update.function.as_str(),
            update.variant.as_str(),
            update.compiled
        ),
        ("streamGatherOp `total`", "3 elements, native code", None)
    );
    assert_eq!(
        (fetch.function.as_str(), fetch.variant.as_str()),
        ("streamGatherOp fetch", "3 elements")
    );
}

/// A kernel on scalars only: a gather, a branch the lanes of a quad may disagree on, a loop
/// whose trip count differs per element, and an int.
const SCALAR: &str = "kernel void mix(float a<>, float m<>, float k, float g[], out float b<>) {
    int n = (int)m;
    float s = 0.0;
    for (int i = 0; i < n; i++) { s += g[a + i]; }
    if (a > 5.0) { b = a * k + s; } else { b = s - a; }
}";

/// `mix` over `len` elements on `rt`, with its trace.
fn mix(rt: &Runtime, len: usize) -> (Vec<f32>, Vec<TraceEntry>) {
    let program = rt.compile(SCALAR, "mix.br").unwrap();
    let (a, n, b) = (
        rt.stream_of(1, &[len]).unwrap(),
        rt.stream_of(1, &[len]).unwrap(),
        rt.stream_of(1, &[len]).unwrap(),
    );
    let g = rt.stream_of(1, &[16]).unwrap();
    let a_data: Vec<f32> = (0..len).map(|i| (i * 7 % 11) as f32).collect();
    // Runs of four equal trip counts (quads that agree) and runs that differ.
    let n_data: Vec<f32> = (0..len)
        .map(|i| {
            if i % 32 < 16 {
                (i / 4 % 3) as f32
            } else {
                (i % 3) as f32
            }
        })
        .collect();
    a.read(&a_data).unwrap();
    n.read(&n_data).unwrap();
    g.read(&(0..16).map(|i| i as f32 * 0.5).collect::<Vec<_>>())
        .unwrap();
    rt.set_trace(true);
    rt.run(&program, "mix", args![&a, &n, 1.5f32, &g, &b])
        .unwrap();
    (b.to_vec().unwrap(), rt.take_trace())
}

#[test]
fn scalar_kernels_run_four_elements_per_iteration_with_the_same_bits() {
    // Lengths with and without a tail after the last quad, and one over several tiles.
    for len in [1, 3, 4, 7, 64, 1027, 20_003] {
        let (quads, trace) = mix(&Runtime::cpu(), len);
        let (one, one_trace) = mix(&Runtime::cpu_one_element(), len);
        let (interpreted, _) = mix(&Runtime::cpu_interpreter(), len);
        let variant = |t: &[TraceEntry]| match t {
            [TraceEntry::Kernel(k)] => k.variant.clone(),
            _ => panic!("one kernel entry expected: {t:?}"),
        };
        assert_eq!(
            variant(&trace),
            format!(
                "<{len}>, native code for rank 1 output; stream, stream, constant, gather rank 1, \
                 out; four elements per iteration"
            )
        );
        assert!(
            variant(&one_trace).ends_with("; one element per iteration"),
            "{}",
            variant(&one_trace)
        );
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&quads), bits(&interpreted), "{len} elements");
        assert_eq!(bits(&one), bits(&interpreted), "{len} elements");
        // Element 5: a = 2, n = 1 (its quad's count): s = g[2] = 1, b = s - a.
        if len > 5 {
            assert_eq!(quads[5], 1.0 - 2.0);
        }
    }
}

/// A kernel on streams of scalars with `float2` values (the index, as in Life and Convolve):
/// its gathers read four consecutive floats of a row for quads inside the grid (one vector
/// load), and clamped or row-crossing lanes elsewhere (one load per lane).
const ROWS: &str = "kernel void blur(float g[][], out float o<>) {
    float2 p = indexof(o).xy;
    o = g[p - float2(1.0, 0.0)] + 2.0 * g[p] + g[p + float2(1.0, 1.0)];
}";

/// `blur` over a `rows` × `cols` grid on `rt`, with its trace.
fn blur(rt: &Runtime, rows: usize, cols: usize) -> (Vec<f32>, Vec<TraceEntry>) {
    let program = rt.compile(ROWS, "blur.br").unwrap();
    let (g, o) = (
        rt.stream_of(1, &[rows, cols]).unwrap(),
        rt.stream_of(1, &[rows, cols]).unwrap(),
    );
    g.read(
        &(0..rows * cols)
            .map(|i| i as f32 * 0.37)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    rt.set_trace(true);
    rt.run(&program, "blur", args![&g, &o]).unwrap();
    (o.to_vec().unwrap(), rt.take_trace())
}

#[test]
fn vector_values_over_scalar_streams_run_four_elements_per_iteration_with_the_same_bits() {
    for (rows, cols) in [(1, 1), (3, 2), (5, 9), (40, 33), (17, 256)] {
        let (quads, trace) = blur(&Runtime::cpu(), rows, cols);
        let (interpreted, _) = blur(&Runtime::cpu_interpreter(), rows, cols);
        assert_four_per_iteration(&trace);
        assert_eq!(bits(&quads), bits(&interpreted), "{rows} × {cols}");
        // An element inside the grid: row 1, column 2 reads (1, 1), (1, 2) twice, (2, 3).
        if rows > 2 && cols > 3 {
            let g = |r: usize, c: usize| (r * cols + c) as f32 * 0.37;
            let want = g(1, 1) + 2.0 * g(1, 2) + g(2, 3);
            assert_eq!(quads[cols + 2], want, "{rows} × {cols}");
        }
    }
}

/// A helper that can `discard`, called inside a vector component nothing reads: splitting the
/// kernel into scalars drops that call, so the kernel must still keep one element per
/// iteration, and the discarded elements keep their old values on both engines.
#[test]
fn a_discard_in_a_dropped_component_still_discards() {
    const SRC: &str = "float keep(float x) { if (x > 0.5) { discard; } return x; }
        kernel void k(float a<>, out float o<>) { o = float2(a, keep(a)).x + 1.0; }";
    let outputs: Vec<Vec<f32>> = [Runtime::cpu(), Runtime::cpu_interpreter()]
        .iter()
        .map(|rt| {
            let p = rt.compile(SRC, "k.br").unwrap();
            let (a, o) = (
                rt.stream_of(1, &[64]).unwrap(),
                rt.stream_of(1, &[64]).unwrap(),
            );
            a.read(&(0..64).map(|i| i as f32 / 64.0).collect::<Vec<_>>())
                .unwrap();
            o.read(&[-1.0; 64]).unwrap();
            rt.run(&p, "k", args![&a, &o]).unwrap();
            o.to_vec().unwrap()
        })
        .collect();
    let want: Vec<f32> = (0..64)
        .map(|i| i as f32 / 64.0)
        .map(|a| if a > 0.5 { -1.0 } else { a + 1.0 })
        .collect();
    assert_eq!(outputs[0], want, "native code");
    assert_eq!(outputs[1], want, "interpreter");
}

/// A kernel on `float2`, `float3` and `float4` streams: vector inputs, outputs written whole,
/// by component and by swizzle (`+=` reading another output), vector gathers (2D with a
/// `float2` index, 1D of `float3`), a `float2` constant, built-ins that combine components,
/// and a branch some quads disagree on (those quads run one element at a time).
const VECTORS: &str = "kernel void vec(float2 a<>, float3 b<>, float4 g[][], float3 t[], float2 k,
                                      out float4 o<>, out float3 p<>, out float2 q<>) {
    float2 at = indexof(o).xy;
    float4 x = g[at + float2(1.0, 0.0)] + g[float2(at.x - 1.0, at.y + a.x)];
    float3 y = t[a.y] * b;
    o = x * k.x + float4(b, a.x);
    p = cross(y, b) + k.yyy;
    q.y = dot(x.xy, a);
    q.x = length(y);
    o.xz += q.yx;
    if (a.x > 2.0) {
        o.w = -o.w;
    }
}";

/// `vec` over a `rows` × `cols` grid on `rt`: its three outputs and its trace.
fn vectors(rt: &Runtime, rows: usize, cols: usize) -> ([Vec<f32>; 3], Vec<TraceEntry>) {
    let program = rt.compile(VECTORS, "vec.br").unwrap();
    let n = rows * cols;
    let stream = |c: u8, shape: &[usize]| rt.stream_of(c, shape).unwrap();
    let (a, b, g, t) = (
        stream(2, &[rows, cols]),
        stream(3, &[rows, cols]),
        stream(4, &[rows, cols]),
        stream(3, &[5]),
    );
    let (o, p, q) = (
        stream(4, &[rows, cols]),
        stream(3, &[rows, cols]),
        stream(2, &[rows, cols]),
    );
    let data = |len: usize, f: fn(usize) -> f32| (0..len).map(f).collect::<Vec<f32>>();
    // `a.x` in 0..=3 (some quads' lanes on both sides of the branch), `a.y` indexes `t`.
    a.read(&data(2 * n, |i| {
        ((i * 7 / 3) % 4) as f32 + 0.1 * (i % 5) as f32
    }))
    .unwrap();
    b.read(&data(3 * n, |i| (i % 13) as f32 * 0.29 - 1.7))
        .unwrap();
    g.read(&data(4 * n, |i| (i as f32 * 0.61).sin() * 3.0))
        .unwrap();
    t.read(&data(15, |i| 1.0 / (i as f32 + 0.7))).unwrap();
    rt.set_trace(true);
    rt.run(
        &program,
        "vec",
        args![&a, &b, &g, &t, [1.25f32, -0.5], &o, &p, &q],
    )
    .unwrap();
    let trace = rt.take_trace();
    (
        [
            o.to_vec().unwrap(),
            p.to_vec().unwrap(),
            q.to_vec().unwrap(),
        ],
        trace,
    )
}

#[test]
fn kernels_on_vector_streams_run_four_elements_per_iteration_with_the_same_bits() {
    // Sizes with and without tails, quads crossing rows, and several tiles.
    for (rows, cols) in [(1, 1), (1, 3), (3, 2), (5, 9), (40, 33), (70, 301)] {
        let (quads, trace) = vectors(&Runtime::cpu(), rows, cols);
        let (one, one_trace) = vectors(&Runtime::cpu_one_element(), rows, cols);
        let (interpreted, _) = vectors(&Runtime::cpu_interpreter(), rows, cols);
        assert_four_per_iteration(&trace);
        assert!(matches!(one_trace.as_slice(), [TraceEntry::Kernel(k)]
            if k.variant.ends_with("; one element per iteration")));
        for (k, name) in ["o", "p", "q"].iter().enumerate() {
            let want = bits(&interpreted[k]);
            assert_eq!(bits(&quads[k]), want, "{name}, {rows} × {cols}");
            assert_eq!(bits(&one[k]), want, "{name}, {rows} × {cols}");
        }
    }
}

/// Branches that differ between neighbouring elements, as Ray's nearest-hit test does: an
/// `if`/`else if`/`else` of assignments inside a loop (a compound `int` assignment, a local
/// declared in a side, an integer division by a lane's zero on the side not taken) and a
/// vector output written under a condition. The four-element code computes such an `if` as
/// selects instead of leaving the quad to the one-element code; every lane must still get
/// the interpreter's bits.
const BRANCHES: &str =
    "kernel void nearest(float4 a<>, float t[], out float2 r<>, out float3 s<>) {
    float best = 0.0;
    float id = -1.0;
    int hits = 0;
    for (float i = 0.0; i < 6.0; i += 1.0) {
        float d = t[i] - a.x;
        if (d > 0.0 && (id < 0.0 || d < best)) {
            best = d;
            id = i;
            hits += 1;
        } else if (a.y > 0.5) {
            float q = d * a.z;
            best -= q;
        } else {
            hits = hits / int(a.w);
        }
    }
    r = float2(best, id + float(hits));
    s = a.xyz;
    if (id > 2.0) {
        s.yz = float2(best, -best);
    }
}";

/// `nearest` over `len` elements on `rt`: its outputs and its trace.
fn nearest(rt: &Runtime, len: usize) -> ([Vec<f32>; 2], Vec<TraceEntry>) {
    let program = rt.compile(BRANCHES, "nearest.br").unwrap();
    let (a, t) = (
        rt.stream_of(4, &[len]).unwrap(),
        rt.stream_of(1, &[6]).unwrap(),
    );
    let (r, s) = (
        rt.stream_of(2, &[len]).unwrap(),
        rt.stream_of(3, &[len]).unwrap(),
    );
    a.read(
        &(0..4 * len)
            .map(|i| ((i * 37 % 23) as f32 * 0.13).fract() * [4.0, 2.0, 2.0, 3.0][i % 4])
            .map(f32::floor)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    t.read(&[0.5, 3.25, 1.5, 2.75, 0.25, 3.5]).unwrap();
    rt.set_trace(true);
    rt.run(&program, "nearest", args![&a, &t, &r, &s]).unwrap();
    let trace = rt.take_trace();
    ([r.to_vec().unwrap(), s.to_vec().unwrap()], trace)
}

#[test]
fn branches_that_differ_between_lanes_keep_the_interpreters_bits() {
    for len in [1, 5, 8, 203, 9_001] {
        let (quads, trace) = nearest(&Runtime::cpu(), len);
        let (interpreted, _) = nearest(&Runtime::cpu_interpreter(), len);
        assert_four_per_iteration(&trace);
        assert_eq!(bits(&quads[0]), bits(&interpreted[0]), "r, {len} elements");
        assert_eq!(bits(&quads[1]), bits(&interpreted[1]), "s, {len} elements");
    }
}

/// Asserts that `trace` is one kernel call, run four elements per iteration.
fn assert_four_per_iteration(trace: &[TraceEntry]) {
    let [TraceEntry::Kernel(k)] = trace else {
        panic!("one kernel entry expected: {trace:?}");
    };
    assert!(
        k.variant.ends_with("; four elements per iteration"),
        "{}",
        k.variant
    );
}

/// The bits of `v`'s floats, to compare engines exactly.
fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}
