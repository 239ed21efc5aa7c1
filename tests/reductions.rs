//! Reductions end to end on GL (desktop and ES profiles, with and without address
//! translation), on wgpu and on the CPU backend, each checked against an f64 (or exact integer)
//! reference computed here: exact for integer-valued data, a stated tolerance otherwise.
//! Non-commutative operators (2×2 matrix product, a group's multiplication table) check that
//! every backend combines in index order.

mod support;

use brook::{args, Arg, ElementFormat, MemberFormat, Runtime};
use support::{gl_with, runtimes};

fn name(rt: &Runtime, k: usize) -> String {
    format!("{} #{k}", rt.backend_name())
}

/// Reduces `data` (a stream of `format` and `shape`) to a value.
fn to_value(
    rt: &Runtime,
    src: &str,
    reduction: &str,
    format: ElementFormat,
    shape: &[usize],
    data: &[f32],
    extra: &[Arg],
) -> Vec<f32> {
    let program = rt.compile(src, "reduce.br").unwrap();
    let input = rt.stream(format, shape).unwrap();
    input.read(data).unwrap();
    rt.reduce_to_value(&program, reduction, &input, extra)
        .unwrap_or_else(|e| panic!("{}: {e}", rt.backend_name()))
}

/// Reduces `data` into a stream of `out_shape` and returns its contents.
fn to_stream(
    rt: &Runtime,
    src: &str,
    reduction: &str,
    components: u8,
    shape: &[usize],
    data: &[f32],
    out_shape: &[usize],
) -> Vec<f32> {
    let program = rt.compile(src, "reduce.br").unwrap();
    let input = rt.stream_of(components, shape).unwrap();
    input.read(data).unwrap();
    let output = rt.stream_of(components, out_shape).unwrap();
    rt.reduce_to_stream(&program, reduction, &input, &output, args![])
        .unwrap_or_else(|e| panic!("{}: {e}", rt.backend_name()));
    output.to_vec().unwrap()
}

const SUM: &str = "reduce void sum(float a<>, reduce float r<>) { r += a; }";
const MIN4: &str = "reduce void least(float4 a<>, reduce float4 r<>) { r = min(r, a); }";
const MAX: &str = "reduce void most(float a<>, reduce float r<>) { r = max(r, a); }";
/// A float4 (x y; z w) as a 2×2 matrix; the accumulator is the left factor: r = r · a.
const MATPROD: &str = "reduce void prod(float4 a<>, reduce float4 r<>) {
    r = float4(r.x * a.x + r.y * a.z, r.x * a.y + r.y * a.w,
               r.z * a.x + r.w * a.z, r.z * a.y + r.w * a.w);
}";

/// Small integers with repeats and signs: every partial sum is exact in f32.
fn ints(n: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7 + 3) % 13) as f32 - 6.0).collect()
}

fn product(shape: &[usize]) -> usize {
    shape.iter().product()
}

#[test]
fn sums_of_awkward_sizes_are_exact() {
    let shapes: [&[usize]; 8] = [
        &[1],
        &[1, 1],
        &[97],
        &[1009],
        &[10, 10],
        &[9, 9],
        &[11, 10],
        &[3, 4, 5],
    ];
    for (k, rt) in runtimes().iter().enumerate() {
        for shape in shapes {
            let data = ints(product(shape));
            let expected: f64 = data.iter().map(|&v| f64::from(v)).sum();
            let got = to_value(
                rt,
                SUM,
                "sum",
                ElementFormat::scalar(1).unwrap(),
                shape,
                &data,
                args![],
            );
            assert_eq!(got, [expected as f32], "{} {shape:?}", name(rt, k));
        }
    }
}

#[test]
fn sum_of_non_integer_data_is_within_the_f32_bound() {
    // Tolerance: any summation order of n f32 values is within n·ε·Σ|x| of the exact sum.
    // The data lie in [1.2, 3.4], so that bound (1000 · 1.2e-7 · ≤ 3400 ≈ 0.41) is smaller
    // than any one element: a reduction that dropped or doubled an element fails.
    let n = 1000;
    let data: Vec<f32> = (0..n)
        .map(|i| ((i as f32) * 0.731).sin() * 1.1 + 2.3)
        .collect();
    let exact: f64 = data.iter().map(|&v| f64::from(v)).sum();
    let bound =
        n as f64 * f64::from(f32::EPSILON) * data.iter().map(|&v| f64::from(v).abs()).sum::<f64>();
    let smallest = data.iter().fold(f32::INFINITY, |m, &v| m.min(v.abs()));
    assert!(
        bound < f64::from(smallest),
        "the bound must not hide one element"
    );
    for (k, rt) in runtimes().iter().enumerate() {
        let got = to_value(
            rt,
            SUM,
            "sum",
            ElementFormat::scalar(1).unwrap(),
            &[25, 40],
            &data,
            args![],
        );
        assert!(
            (f64::from(got[0]) - exact).abs() <= bound,
            "{}: {} vs {exact} (bound {bound})",
            name(rt, k),
            got[0]
        );
    }
}

#[test]
fn min_and_max_per_component() {
    let n = 9 * 11;
    let data: Vec<f32> = (0..n * 4)
        .map(|i| (((i * 37) % 101) as f32) - 50.0)
        .collect();
    let mut least = [f32::INFINITY; 4];
    for e in data.chunks(4) {
        for c in 0..4 {
            least[c] = least[c].min(e[c]);
        }
    }
    let scalars: Vec<f32> = data.iter().step_by(4).copied().collect();
    let most = scalars.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for (k, rt) in runtimes().iter().enumerate() {
        let got = to_value(
            rt,
            MIN4,
            "least",
            ElementFormat::scalar(4).unwrap(),
            &[9, 11],
            &data,
            args![],
        );
        assert_eq!(got, least, "{}", name(rt, k));
        let got = to_value(
            rt,
            MAX,
            "most",
            ElementFormat::scalar(1).unwrap(),
            &[n],
            &scalars,
            args![],
        );
        assert_eq!(got, [most], "{}", name(rt, k));
    }
}

#[test]
fn argmin_struct_keeps_the_first_minimum_in_index_order() {
    let src = "typedef struct { float value; float2 at; } Pick;
        reduce void argmin(Pick a<>, reduce Pick r<>) {
            if (a.value < r.value) { r = a; }
        }";
    let format = ElementFormat::structure(vec![
        MemberFormat {
            name: "value".into(),
            components: 1,
        },
        MemberFormat {
            name: "at".into(),
            components: 2,
        },
    ])
    .unwrap();
    let (rows, cols) = (13, 17);
    // Values repeat, so the minimum occurs several times: the first one in row-major order wins.
    let mut data = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            data.extend([((r * 5 + c * 3) % 11) as f32, c as f32, r as f32]);
        }
    }
    let first_min = (0..rows * cols)
        .min_by(|&i, &j| data[3 * i].total_cmp(&data[3 * j]))
        .unwrap();
    let expected = data[3 * first_min..3 * first_min + 3].to_vec();
    assert_eq!(expected[0], 0.0);
    for (k, rt) in runtimes()
        .into_iter()
        .chain([gl_with(None, Some(1))])
        .enumerate()
    {
        let got = to_value(
            &rt,
            src,
            "argmin",
            format.clone(),
            &[rows, cols],
            &data,
            args![],
        );
        assert_eq!(got, expected, "{}", name(&rt, k));
    }
}

/// Signed permutation matrices: products stay exact, and they do not commute.
fn signed_permutations(n: usize) -> Vec<f32> {
    const M: [[f32; 4]; 6] = [
        [0., 1., 1., 0.],
        [1., 0., 0., -1.],
        [0., -1., 1., 0.],
        [-1., 0., 0., 1.],
        [0., 1., -1., 0.],
        [1., 0., 0., 1.],
    ];
    (0..n).flat_map(|i| M[(i * 5 + i / 3) % 6]).collect()
}

fn mat_mul(r: [f64; 4], a: [f64; 4]) -> [f64; 4] {
    [
        r[0] * a[0] + r[1] * a[2],
        r[0] * a[1] + r[1] * a[3],
        r[2] * a[0] + r[3] * a[2],
        r[2] * a[1] + r[3] * a[3],
    ]
}

/// The sequential left fold of 2×2 matrices, in f64.
fn left_fold(data: &[f32]) -> Vec<f32> {
    let m = |e: &[f32]| [0, 1, 2, 3].map(|c| f64::from(e[c]));
    let mut chunks = data.chunks(4);
    let first = m(chunks.next().unwrap());
    chunks
        .fold(first, |r, e| mat_mul(r, m(e)))
        .map(|v| v as f32)
        .to_vec()
}

#[test]
fn matrix_product_combines_in_index_order() {
    let shapes: [&[usize]; 5] = [&[97], &[11, 10], &[9, 9], &[2, 3, 7], &[2, 2, 3, 5]];
    for (k, rt) in runtimes().iter().enumerate() {
        for shape in shapes {
            let data = signed_permutations(product(shape));
            let got = to_value(
                rt,
                MATPROD,
                "prod",
                ElementFormat::scalar(4).unwrap(),
                shape,
                &data,
                args![],
            );
            assert_eq!(got, left_fold(&data), "{} {shape:?}", name(rt, k));
        }
    }
    // The data really does not commute: the reversed fold differs.
    let data = signed_permutations(97);
    let reversed: Vec<f32> = data.chunks(4).rev().flatten().copied().collect();
    assert_ne!(left_fold(&data), left_fold(&reversed));
}

/// Each block of `out` reduced by a left fold, `block` the per-dimension block extents.
fn blocks_left_fold(data: &[f32], shape: &[usize], out: &[usize]) -> Vec<f32> {
    let block: Vec<usize> = shape.iter().zip(out).map(|(i, o)| i / o).collect();
    let mut result = Vec::new();
    for o in 0..product(out) {
        // Row-major index of output element o, then its block's elements in row-major order.
        let mut oi = vec![0; out.len()];
        let mut rest = o;
        for d in (0..out.len()).rev() {
            oi[d] = rest % out[d];
            rest /= out[d];
        }
        let mut items = Vec::new();
        for b in 0..product(&block) {
            let mut rest = b;
            let mut linear = 0;
            let mut idx = vec![0; shape.len()];
            for d in (0..shape.len()).rev() {
                idx[d] = oi[d] * block[d] + rest % block[d];
                rest /= block[d];
            }
            for d in 0..shape.len() {
                linear = linear * shape[d] + idx[d];
            }
            items.extend_from_slice(&data[linear * 4..linear * 4 + 4]);
        }
        result.extend(left_fold(&items));
    }
    result
}

#[test]
fn to_stream_blocks_follow_the_semantics_note() {
    for (k, rt) in runtimes().iter().enumerate() {
        // float a<100> into r<25>: every 4 consecutive elements.
        let data = ints(100);
        let expected: Vec<f32> = data.chunks(4).map(|c| c.iter().sum()).collect();
        assert_eq!(
            to_stream(rt, SUM, "sum", 1, &[100], &data, &[25]),
            expected,
            "{}",
            name(rt, k)
        );
        // T<50,50> into y<50,1>: each row.
        let data = ints(2500);
        let expected: Vec<f32> = data.chunks(50).map(|c| c.iter().sum()).collect();
        assert_eq!(
            to_stream(rt, SUM, "sum", 1, &[50, 50], &data, &[50, 1]),
            expected,
            "{}",
            name(rt, k)
        );
        // <1,N> (sum each column) and <N,1> (each row) of a 2D stream, with the matrix product.
        for (shape, out) in [
            ([6usize, 8usize], [1usize, 8usize]),
            ([6, 8], [6, 1]),
            ([12, 10], [3, 5]),
            ([60, 1], [3, 1]),
        ] {
            let data = signed_permutations(product(&shape));
            assert_eq!(
                to_stream(rt, MATPROD, "prod", 4, &shape, &data, &out),
                blocks_left_fold(&data, &shape, &out),
                "{} {shape:?} -> {out:?}",
                name(rt, k)
            );
        }
        // 3D under address translation on the third runtime, plain on the others.
        let (shape, out) = ([4usize, 6, 10], [2usize, 1, 5]);
        let data = signed_permutations(product(&shape));
        assert_eq!(
            to_stream(rt, MATPROD, "prod", 4, &shape, &data, &out),
            blocks_left_fold(&data, &shape, &out),
            "{}",
            name(rt, k)
        );
    }
}

#[test]
fn equal_shapes_copy_and_lower_ranks_pad() {
    for (k, rt) in runtimes().iter().enumerate() {
        let data = ints(12);
        assert_eq!(
            to_stream(rt, SUM, "sum", 1, &[3, 4], &data, &[3, 4]),
            data,
            "{}",
            name(rt, k)
        );
        // <3,4> into <4>: the output is <1,4>, so each column is summed.
        let columns: Vec<f32> = (0..4)
            .map(|c| (0..3).map(|r| data[r * 4 + c]).sum())
            .collect();
        assert_eq!(
            to_stream(rt, SUM, "sum", 1, &[3, 4], &data, &[4]),
            columns,
            "{}",
            name(rt, k)
        );
    }
}

#[test]
fn constants_and_gathers_reach_the_operator() {
    // Addition modulo a constant: associative on integers in [0, p).
    let addmod = "reduce void addmod(float a<>, reduce float r<>, float p) { r = fmod(r + a, p); }";
    let data: Vec<f32> = (0..333).map(|i| ((i * 11) % 7) as f32).collect();
    let expected = data.iter().fold(0.0, |r, a| (r + a) % 7.0);
    // The symmetric group S3 by its multiplication table (a 2D gather): not commutative.
    let compose =
        "reduce void compose(float a<>, reduce float r<>, float table[][]) { r = table[r][a]; }";
    let perms: [[usize; 3]; 6] = [
        [0, 1, 2],
        [1, 0, 2],
        [0, 2, 1],
        [2, 1, 0],
        [1, 2, 0],
        [2, 0, 1],
    ];
    let index = |p: [usize; 3]| perms.iter().position(|q| *q == p).unwrap();
    let table: Vec<f32> = (0..36)
        .map(|i| {
            let (x, y) = (perms[i / 6], perms[i % 6]);
            index([y[x[0]], y[x[1]], y[x[2]]]) as f32
        })
        .collect();
    let elements: Vec<f32> = (0..211).map(|i| ((i * i + 3 * i) % 6) as f32).collect();
    let composed = elements[1..]
        .iter()
        .fold(elements[0], |r, &a| table[r as usize * 6 + a as usize]);
    for (k, rt) in runtimes().iter().enumerate() {
        let got = to_value(
            rt,
            addmod,
            "addmod",
            ElementFormat::scalar(1).unwrap(),
            &[9, 37],
            &data,
            args![7.0f32],
        );
        assert_eq!(got, [expected], "{}", name(rt, k));
        let t = rt.stream_of(1, &[6, 6]).unwrap();
        t.read(&table).unwrap();
        let got = to_value(
            rt,
            compose,
            "compose",
            ElementFormat::scalar(1).unwrap(),
            &[211],
            &elements,
            args![&t],
        );
        assert_eq!(got, [composed], "{}", name(rt, k));
    }
}

#[test]
fn misuse_is_a_clear_error() {
    let src = "reduce void sum(float a<>, reduce float r<>) { r += a; }
        kernel void copy(float a<>, out float b<>) { b = a; }";
    for (k, rt) in runtimes().iter().enumerate() {
        let program = rt.compile(src, "reduce.br").unwrap();
        let input = rt.stream_of(1, &[10, 9]).unwrap();
        input.read(&ints(90)).unwrap();
        let err = |e: brook::BrookError| e.to_string();
        let bad = rt.stream_of(1, &[10, 2]).unwrap();
        let e = err(rt
            .reduce_to_stream(&program, "sum", &input, &bad, args![])
            .unwrap_err());
        assert!(
            e.contains("<10, 2>") && e.contains("<10, 9>"),
            "{}: {e}",
            name(rt, k)
        );
        let e = err(rt
            .reduce_to_value(&program, "copy", &input, args![])
            .unwrap_err());
        assert!(e.contains("not a reduce function"), "{}: {e}", name(rt, k));
        let wide = rt.stream_of(4, &[10]).unwrap();
        wide.read(&ints(40)).unwrap();
        assert!(
            rt.reduce_to_value(&program, "sum", &wide, args![]).is_err(),
            "{}",
            name(rt, k)
        );
        let out4 = rt.stream_of(4, &[5, 9]).unwrap();
        assert!(
            rt.reduce_to_stream(&program, "sum", &input, &out4, args![])
                .is_err(),
            "{}",
            name(rt, k)
        );
        assert!(
            rt.reduce_to_value(&program, "sum", &input, args![1.0f32])
                .is_err(),
            "{}",
            name(rt, k)
        );
        let e = err(rt
            .reduce_to_stream(&program, "sum", &input, &input, args![])
            .unwrap_err());
        assert!(e.contains("own input"), "{}: {e}", name(rt, k));
        let it = rt
            .iter(brook::IterSpec::new(&[10], 1, [0.0; 4], [10.0; 4]).unwrap())
            .unwrap();
        let e = err(rt
            .reduce_to_value(&program, "sum", &it, args![])
            .unwrap_err());
        assert!(e.contains("iterator"), "{}: {e}", name(rt, k));
    }
}

#[test]
fn the_plan_is_log8_passes_one_dimension_at_a_time() {
    use brook::ReducePlan;
    let plan = ReducePlan::new(&[1024, 1024], &[]).unwrap();
    let ks: Vec<(usize, usize)> = plan.passes.iter().map(|p| (p.dim, p.k)).collect();
    assert_eq!(
        ks,
        [
            (1, 8),
            (1, 8),
            (1, 8),
            (1, 2),
            (0, 8),
            (0, 8),
            (0, 8),
            (0, 2)
        ]
    );
    assert_eq!(
        plan.elements_read(),
        (1 << 20) + (1 << 17) + (1 << 14) + (1 << 11) + 1024 + 128 + 16 + 2
    );
}
