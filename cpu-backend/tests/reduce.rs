//! Reductions to a value and to smaller streams, combined in index order.

mod support;
use brook_cpu::ReduceTarget;
use support::*;

/// `reduce void sum(T a<>, reduce T r<>) { r += a; }`
fn sum(ty: Type) -> Module {
    module(vec![reduction(
        "sum",
        vec![stream_param("a", ty.clone()), reduce_param("r", ty.clone())],
        vec![],
        vec![assign_op(
            place_param(1, ty.clone()),
            BinaryOp::Add,
            param(0, ty),
        )],
    )])
}

/// `reduce void prod(float2x2 a<>, reduce float2x2 r<>) { r = mul(r, a); }`
fn matprod() -> Module {
    let m = mat(2, 2);
    module(vec![reduction(
        "prod",
        vec![stream_param("a", m.clone()), reduce_param("r", m.clone())],
        vec![],
        vec![assign(
            place_param(1, m.clone()),
            bi(Builtin::Mul, vec![param(1, m.clone()), param(0, m)]),
        )],
    )])
}

#[test]
fn sum_to_a_value() {
    let mut r = [0.0];
    run_reduce(
        &sum(Type::FLOAT),
        FunctionId(0),
        &ramp(&[100]),
        &mut [],
        ReduceTarget::Value(&mut r),
    )
    .unwrap();
    assert_eq!(r, [4950.0]);
}

#[test]
fn sum_of_float2_over_a_large_2d_stream() {
    // More than one parallel chunk; integers small enough to stay exact.
    let n = 3 * 4096 + 17;
    let data: Vec<f32> = (0..2 * n).map(|i| (i % 7) as f32).collect();
    let s = CpuStream::from_data(&[2], &[1, n], &data).unwrap();
    let mut r = [0.0; 2];
    run_reduce(
        &sum(fvec(2)),
        FunctionId(0),
        &s,
        &mut [],
        ReduceTarget::Value(&mut r),
    )
    .unwrap();
    let ex: f32 = data.iter().step_by(2).sum();
    let ey: f32 = data.iter().skip(1).step_by(2).sum();
    assert_eq!(r, [ex, ey]);
}

#[test]
fn sum_into_a_quarter_length_stream() {
    let mut out = zeros(&[1], &[25]);
    run_reduce(
        &sum(Type::FLOAT),
        FunctionId(0),
        &ramp(&[100]),
        &mut [],
        ReduceTarget::Stream(&mut out),
    )
    .unwrap();
    let expected: Vec<f32> = (0..25)
        .map(|i| (4 * i..4 * i + 4).sum::<usize>() as f32)
        .collect();
    assert_eq!(out.data(), expected.as_slice());
}

#[test]
fn sum_each_row_and_two_dimensional_blocks() {
    // <6, 8> into <6, 1>: row sums.
    let mut rows = zeros(&[1], &[6, 1]);
    run_reduce(
        &sum(Type::FLOAT),
        FunctionId(0),
        &ramp(&[6, 8]),
        &mut [],
        ReduceTarget::Stream(&mut rows),
    )
    .unwrap();
    let expected: Vec<f32> = (0..6)
        .map(|r| (8 * r..8 * r + 8).sum::<usize>() as f32)
        .collect();
    assert_eq!(rows.data(), expected.as_slice());
    // <6, 8> into <2, 4>: blocks of 3 rows × 2 columns.
    let mut blocks = zeros(&[1], &[2, 4]);
    run_reduce(
        &sum(Type::FLOAT),
        FunctionId(0),
        &ramp(&[6, 8]),
        &mut [],
        ReduceTarget::Stream(&mut blocks),
    )
    .unwrap();
    let mut expected = Vec::new();
    for br in 0..2 {
        for bc in 0..4 {
            let mut s = 0;
            for r in 3 * br..3 * br + 3 {
                for c in 2 * bc..2 * bc + 2 {
                    s += 8 * r + c;
                }
            }
            expected.push(s as f32);
        }
    }
    assert_eq!(blocks.data(), expected.as_slice());
}

/// The eight signed permutation matrices (a non-commutative group), row-major.
fn dihedral(k: usize) -> [f32; 4] {
    const G: [[f32; 4]; 8] = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, -1.0, 1.0, 0.0],
        [-1.0, 0.0, 0.0, -1.0],
        [0.0, 1.0, -1.0, 0.0],
        [1.0, 0.0, 0.0, -1.0],
        [-1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 1.0, 0.0],
        [0.0, -1.0, -1.0, 0.0],
    ];
    G[k % 8]
}

fn matmul(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
    ]
}

#[test]
fn matrix_product_matches_a_sequential_left_fold() {
    let n = 10_000;
    let mats: Vec<[f32; 4]> = (0..n)
        .map(|i| dihedral((i * 7 + i / 3) ^ (i >> 2)))
        .collect();
    let data: Vec<f32> = mats.iter().flatten().copied().collect();
    let s = CpuStream::from_data(&[4], &[n], &data).unwrap();
    let mut r = [0.0; 4];
    run_reduce(
        &matprod(),
        FunctionId(0),
        &s,
        &mut [],
        ReduceTarget::Value(&mut r),
    )
    .unwrap();
    let expected = mats[1..].iter().fold(mats[0], |acc, &m| matmul(acc, m));
    assert_eq!(r, expected);
    // Two elements whose products differ by order: the result is a·b, not b·a.
    let (a, b) = (dihedral(1), dihedral(4));
    assert_ne!(matmul(a, b), matmul(b, a));
    let s2 = CpuStream::from_data(&[4], &[2], &[a, b].concat()).unwrap();
    run_reduce(
        &matprod(),
        FunctionId(0),
        &s2,
        &mut [],
        ReduceTarget::Value(&mut r),
    )
    .unwrap();
    assert_eq!(r, matmul(a, b));

    // Per block too: <4, 2500> into <4, 1>.
    let s = CpuStream::from_data(&[4], &[4, 2500], &data).unwrap();
    let mut out = zeros(&[4], &[4, 1]);
    run_reduce(
        &matprod(),
        FunctionId(0),
        &s,
        &mut [],
        ReduceTarget::Stream(&mut out),
    )
    .unwrap();
    for row in 0..4 {
        let ms = &mats[row * 2500..(row + 1) * 2500];
        let e = ms[1..].iter().fold(ms[0], |acc, &m| matmul(acc, m));
        assert_eq!(&out.data()[4 * row..4 * row + 4], &e);
    }
}

#[test]
fn extra_constants_and_count_checks() {
    // reduce void maxk(float a<>, reduce float r<>, float floor_) { r = max(max(r, a), floor_); }
    let m = module(vec![reduction(
        "maxk",
        vec![
            stream_param("a", Type::FLOAT),
            reduce_param("r", Type::FLOAT),
            const_param("floor_", Type::FLOAT),
        ],
        vec![],
        vec![assign(
            place_param(1, Type::FLOAT),
            bi(
                Builtin::Max,
                vec![
                    bi(
                        Builtin::Max,
                        vec![param(1, Type::FLOAT), param(0, Type::FLOAT)],
                    ),
                    param(2, Type::FLOAT),
                ],
            ),
        )],
    )]);
    let s = floats(&[1.0, 5.0, 2.0]);
    let mut r = [0.0];
    run_reduce(
        &m,
        FunctionId(0),
        &s,
        &mut [CpuArg::Constant(vec![7.0])],
        ReduceTarget::Value(&mut r),
    )
    .unwrap();
    assert_eq!(r, [7.0]);
    let err = run_reduce(&m, FunctionId(0), &s, &mut [], ReduceTarget::Value(&mut r)).unwrap_err();
    assert!(matches!(err, CpuError::Precondition { .. }), "{err:?}");
}

/// What the runtime refuses (`tests/reductions.rs`, `tests/errors.rs` in the root crate) the
/// crate's own entry point refuses too, rather than read out of bounds.
#[test]
fn reductions_that_do_not_fit_are_refused() {
    let m = sum(Type::FLOAT);
    let input = ramp(&[10]);
    // Output extent not dividing the input.
    let mut out = zeros(&[1], &[3]);
    let err = run_reduce(
        &m,
        FunctionId(0),
        &input,
        &mut [],
        ReduceTarget::Stream(&mut out),
    )
    .unwrap_err();
    assert!(matches!(err, CpuError::Precondition { .. }), "{err:?}");
    // Wrong result size.
    let mut r = [0.0; 2];
    assert!(run_reduce(
        &m,
        FunctionId(0),
        &input,
        &mut [],
        ReduceTarget::Value(&mut r)
    )
    .is_err());
    // Wrong input element size.
    let wide = CpuStream::new(&[2], &[4]).unwrap();
    let mut r = [0.0];
    let err = run_reduce(
        &m,
        FunctionId(0),
        &wide,
        &mut [],
        ReduceTarget::Value(&mut r),
    )
    .unwrap_err();
    assert!(matches!(err, CpuError::Precondition { .. }), "{err:?}");
}
