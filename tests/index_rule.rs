//! Brook's index rule for every index a program can compute, on GL (both profiles, direct and
//! address-translated layouts) and the CPU: `floor(v + 0.25)` clamped to `[0, extent-1]`, and
//! for the values a float→int conversion cannot take, +inf and huge positive values read the
//! last element, -inf and huge negative values element 0, NaN element 0 (docs/limits.md,
//! "Limits and guarantees"). Checked in gathers (scalar and vector subscripts, float, int and mixed, and
//! float indices proven integral, which GL, wgpu and the CPU's native code do not round:
//! `brook_ir::integral`), ScatterOp and GatherOp.

mod support;

use brook::{args, GatherOp, Runtime, ScatterOp, Stream};
use support::{agree_with_cpu, gl_profiles};

/// Index values and the element of a 10-element stream each must select.
fn cases() -> (Vec<f32>, Vec<f32>) {
    let pairs: [(f32, f32); 24] = [
        (1e30, 9.0),
        (3e9, 9.0),
        (2147483648.0, 9.0),
        (f32::INFINITY, 9.0),
        (f32::MAX, 9.0),
        (f32::NEG_INFINITY, 0.0),
        (-1e30, 0.0),
        (-3e9, 0.0),
        (f32::MIN, 0.0),
        (f32::NAN, 0.0),
        (-f32::NAN, 0.0),
        (-0.75, 0.0),
        (2.74, 2.0),
        (2.76, 3.0),
        (9.9, 9.0),
        (16777217.0, 9.0),
        // The rounding's boundaries, exact integers and the stream's ends.
        (0.75, 1.0),
        (0.7499999, 0.0),
        (8.75, 9.0),
        (3.0, 3.0),
        (9.0, 9.0),
        (10.0, 9.0),
        (-0.0, 0.0),
        (-0.25, 0.0),
    ];
    pairs.iter().copied().unzip()
}

fn stream(rt: &Runtime, components: u8, shape: &[usize], data: &[f32]) -> Stream {
    let s = rt.stream_of(components, shape).unwrap();
    s.read(data).unwrap();
    s
}

/// Every GL runtime to check: both profiles, as-is and with textures 8 texels wide (address
/// translation: the gathered stream's element becomes a computed texel).
fn all_gls() -> Vec<Runtime> {
    let mut gls = gl_profiles(None, None);
    gls.extend(gl_profiles(Some(8), None));
    gls
}

#[test]
fn gathers_clamp_non_finite_and_huge_indices() {
    let (idx, expected) = cases();
    let table: Vec<f32> = (0..10).map(|i| 100.0 + i as f32).collect();
    let src = "kernel void pick(float i<>, float t[], out float r<>) { r = t[i]; }";
    let got = agree_with_cpu(&all_gls(), 0, |rt| {
        let p = rt.compile(src, "pick.br").unwrap();
        let i = stream(rt, 1, &[idx.len()], &idx);
        let t = stream(rt, 1, &[10], &table);
        let r = rt.stream_of(1, &[idx.len()]).unwrap();
        rt.run(&p, "pick", args![&i, &t, &r]).unwrap();
        vec![r.to_vec().unwrap()]
    });
    let want: Vec<f32> = expected.iter().map(|e| 100.0 + e).collect();
    assert_eq!(got[0], want, "indices {idx:?}");
}

/// A dimension of more than 2²⁴ + 1 elements, whose last index is no `f32`: the clamp is still
/// exact (an index just below the end reads its own element, not the last one), on GL (a
/// wrapped texture, clamped in integers), wgpu, the CPU's native code and its interpreter.
#[test]
fn a_dimension_past_two_to_the_24_clamps_exactly() {
    let extent = (1 << 24) + 2;
    let table: Vec<f32> = (0..extent).map(|i| (i % 1000) as f32).collect();
    let idx = [16777216.0, 16777215.0, 16777218.0, 1e30, f32::INFINITY, 5.0];
    let want = [216.0, 215.0, 217.0, 217.0, 217.0, 5.0];
    let src = "kernel void pick(float i<>, float t[], out float r<>) { r = t[i]; }";
    let got = agree_with_cpu(&gl_profiles(None, None), 0, |rt| {
        let p = rt.compile(src, "pick.br").unwrap();
        let i = stream(rt, 1, &[idx.len()], &idx);
        let t = stream(rt, 1, &[extent], &table);
        let r = rt.stream_of(1, &[idx.len()]).unwrap();
        rt.run(&p, "pick", args![&i, &t, &r]).unwrap();
        vec![r.to_vec().unwrap()]
    });
    assert_eq!(got[0], want, "indices {idx:?}");
    let interpreter = Runtime::cpu_interpreter();
    let p = interpreter.compile(src, "pick.br").unwrap();
    let i = stream(&interpreter, 1, &[idx.len()], &idx);
    let t = stream(&interpreter, 1, &[extent], &table);
    let r = interpreter.stream_of(1, &[idx.len()]).unwrap();
    interpreter.run(&p, "pick", args![&i, &t, &r]).unwrap();
    assert_eq!(r.to_vec().unwrap(), want, "the interpreter");
}

#[test]
fn vector_and_c_style_subscripts_clamp_each_component() {
    let (idx, _) = cases();
    // A <6,10> table holding row*100 + column; the index selects (column, row) = (v, -v)
    // with a float2, and [v][v] C-style (row first). Textures 8 texels wide wrap its rows.
    let table: Vec<f32> = (0..60).map(|i| ((i / 10) * 100 + i % 10) as f32).collect();
    let src = "kernel void pick(float i<>, float t[][], out float2 r<>) {
        r = float2(t[float2(i, -i)], t[i][i]);
    }";
    let mut gls = gl_profiles(None, None);
    gls.extend(gl_profiles(Some(8), None));
    let got = agree_with_cpu(&gls, 0, |rt| {
        let p = rt.compile(src, "pick.br").unwrap();
        let i = stream(rt, 1, &[idx.len()], &idx);
        let t = stream(rt, 1, &[6, 10], &table);
        let r = rt.stream_of(2, &[idx.len()]).unwrap();
        rt.run(&p, "pick", args![&i, &t, &r]).unwrap();
        vec![r.to_vec().unwrap()]
    });
    for (k, v) in idx.iter().enumerate() {
        let (column, row) = (element(*v, 10), element(-v, 6));
        assert_eq!(
            got[0][2 * k],
            row * 100.0 + column,
            "t[float2({v}, {})]",
            -v
        );
        let (row, column) = (element(*v, 6), element(*v, 10));
        assert_eq!(got[0][2 * k + 1], row * 100.0 + column, "t[{v}][{v}]");
    }
}

/// The element index `v` selects in a dimension of `extent` elements, by the rule as stated.
fn element(v: f32, extent: usize) -> f32 {
    let r = (v + 0.25).floor();
    if r.is_nan() || r <= 0.0 {
        0.0
    } else {
        r.min(extent as f32 - 1.0)
    }
}

#[test]
fn integral_int_and_mixed_indices_clamp_alike() {
    // floor(i) and indexof arithmetic are integral floats (every backend but the interpreter
    // skips the rounding), n an int (negative and past the end), and t2[n][i] mixes an int
    // row with a float column.
    let (idx, _) = cases();
    let table: Vec<f32> = (0..60).map(|i| ((i / 10) * 100 + i % 10) as f32).collect();
    let src = "kernel void pick(float i<>, float t[], float t2[][], out float4 r<>) {
        float k = indexof(r).x;
        int n = (int)k * 3 - 20;
        r = float4(t[floor(i)], t[k * 3.0 - 20.0], t[n], t2[n][i]);
    }";
    let got = agree_with_cpu(&all_gls(), 0, |rt| {
        let p = rt.compile(src, "pick.br").unwrap();
        let i = stream(rt, 1, &[idx.len()], &idx);
        let t = stream(rt, 1, &[10], &table[..10]);
        let t2 = stream(rt, 1, &[6, 10], &table);
        let r = rt.stream_of(4, &[idx.len()]).unwrap();
        rt.run(&p, "pick", args![&i, &t, &t2, &r]).unwrap();
        vec![r.to_vec().unwrap()]
    });
    for (k, v) in idx.iter().enumerate() {
        let n = k as f32 * 3.0 - 20.0;
        let want = [
            element(v.floor(), 10),
            element(n, 10),
            element(n, 10),
            element(n, 6) * 100.0 + element(*v, 10),
        ];
        assert_eq!(got[0][4 * k..4 * k + 4], want, "index {v}, k = {k}");
    }
}

/// The index values of [`integral_indices_past_the_edges_read_as_the_interpreter_does`] for
/// output element `k`, as its kernel computes them: `a`, `h`, `inf`, `nan`, `z`.
fn integral_edges(k: f32) -> [f32; 5] {
    let h = (k - 12.0) * 1e30;
    let inf = h * 1e30;
    [k - 5.0, h, inf, inf * 0.0, (k - 12.0) * 0.0]
}

#[test]
fn integral_indices_past_the_edges_read_as_the_interpreter_does() {
    // Every index is integer arithmetic on indexof, so every backend but the interpreter skips
    // the rounding: negative and past the end (`a`), huge (`h`), ±inf, NaN (`inf * 0.0`) and
    // -0.0 (`z`), as scalars, vector components and C-style subscripts. 26 elements: the
    // CPU's four-element code and its one-element tail.
    let table: Vec<f32> = (0..60).map(|i| ((i / 10) * 100 + i % 10) as f32).collect();
    let src = "kernel void pick(float t[], float t2[][], out float4 r<>, out float4 r2<>) {
        float k = indexof(r).x;
        float a = k - 5.0;
        float h = (k - 12.0) * 1e30;
        float inf = h * 1e30;
        float nan = inf * 0.0;
        float z = (k - 12.0) * 0.0;
        r = float4(t[a], t[h], t[inf], t[nan]);
        r2 = float4(t2[float2(a, inf)], t2[h][z], t2[float2(nan, -a)], t[-z - a]);
    }";
    let n = 26;
    let run = |rt: &Runtime| {
        let p = rt.compile(src, "pick.br").unwrap();
        let t = stream(rt, 1, &[10], &table[..10]);
        let t2 = stream(rt, 1, &[6, 10], &table);
        let r = rt.stream_of(4, &[n]).unwrap();
        let r2 = rt.stream_of(4, &[n]).unwrap();
        rt.run(&p, "pick", args![&t, &t2, &r, &r2]).unwrap();
        vec![r.to_vec().unwrap(), r2.to_vec().unwrap()]
    };
    let bits = |v: &[Vec<f32>]| -> Vec<Vec<u32>> {
        v.iter()
            .map(|s| s.iter().map(|x| x.to_bits()).collect())
            .collect()
    };
    let reference = run(&Runtime::cpu_interpreter());
    for native in [Runtime::cpu(), Runtime::cpu_one_element()] {
        assert_eq!(
            bits(&run(&native)),
            bits(&reference),
            "{}",
            native.describe()
        );
    }
    let got = agree_with_cpu(&all_gls(), 0, run);
    for k in 0..n {
        let [a, h, inf, nan, z] = integral_edges(k as f32);
        let at = |row: f32, column: f32| row * 100.0 + column;
        let want = [
            element(a, 10),
            element(h, 10),
            element(inf, 10),
            element(nan, 10),
            at(element(inf, 6), element(a, 10)),
            at(element(h, 6), element(z, 10)),
            at(element(-a, 6), element(nan, 10)),
            element(-z - a, 10),
        ];
        let have: Vec<f32> = (0..8).map(|c| got[c / 4][4 * k + c % 4]).collect();
        assert_eq!(
            have, want,
            "k = {k}: a, h, inf, nan, z = {a}, {h}, {inf}, {nan}, {z}"
        );
    }
}

#[test]
fn scatter_targets_follow_the_same_rule() {
    let (idx, expected) = cases();
    for (name, op) in [("replace", ScatterOp::Replace), ("add", ScatterOp::Add)] {
        let got = agree_with_cpu(&all_gls(), 0, |rt| {
            let dst = stream(rt, 1, &[10], &[0.0; 10]);
            let index = stream(rt, 1, &[idx.len()], &idx);
            // Element k carries 2^k, so every target's sum says which elements hit it.
            let data: Vec<f32> = (0..idx.len()).map(|k| (1u32 << k) as f32).collect();
            let d = stream(rt, 1, &[idx.len()], &data);
            rt.scatter(&dst, &index, &d, op).unwrap();
            vec![dst.to_vec().unwrap()]
        });
        let mut want = [0.0f32; 10];
        for (k, e) in expected.iter().enumerate() {
            let bit = (1u32 << k) as f32;
            let slot = &mut want[*e as usize];
            *slot = if name == "add" { *slot + bit } else { bit };
        }
        assert_eq!(got[0], want, "{name}: indices {idx:?}");
    }
}

#[test]
fn gather_op_sources_follow_the_same_rule() {
    let (idx, expected) = cases();
    let got = agree_with_cpu(&all_gls(), 0, |rt| {
        let data: Vec<f32> = (0..10).map(|i| 100.0 + i as f32).collect();
        let data = stream(rt, 1, &[10], &data);
        let index = stream(rt, 1, &[idx.len()], &idx);
        let dst = stream(rt, 1, &[idx.len()], &vec![-1.0; idx.len()]);
        rt.gather_op(&dst, &index, &data, GatherOp::Fetch).unwrap();
        vec![dst.to_vec().unwrap()]
    });
    let want: Vec<f32> = expected.iter().map(|e| 100.0 + e).collect();
    assert_eq!(got[0], want, "indices {idx:?}");
}
