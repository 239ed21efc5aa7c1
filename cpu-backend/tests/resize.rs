//! Implicit resizing of inputs, iterators and `indexof`, with the values of
//! `docs/semantics.md`.

mod support;
use brook_core::IterSpec;
use brook_cpu::shape::{position, resize_index, unravel};
use support::*;

fn resized(input: &[usize], output: &[usize]) -> Vec<f32> {
    run_unary(&copy_kernel(), &ramp(input), output, 1)
}

#[test]
fn five_into_ten_repeats() {
    assert_eq!(
        resized(&[5], &[10]),
        vec![0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0]
    );
}

#[test]
fn ten_into_five_strides() {
    assert_eq!(resized(&[10], &[5]), vec![0.0, 2.0, 4.0, 6.0, 8.0]);
}

#[test]
fn seven_into_twenty_one_repeats_three_times() {
    let expected: Vec<f32> = (0..21).map(|i| (i / 3) as f32).collect();
    assert_eq!(resized(&[7], &[21]), expected);
}

#[test]
fn twenty_one_into_seven() {
    let expected: Vec<f32> = (0..7).map(|i| (3 * i) as f32).collect();
    assert_eq!(resized(&[21], &[7]), expected);
    assert_eq!(expected.last(), Some(&18.0));
}

#[test]
fn two_by_fifteen_into_four_by_five() {
    // Rows repeat (0 0 1 1) while columns stride (0 3 6 9 12).
    let got = resized(&[2, 15], &[4, 5]);
    let mut expected = Vec::new();
    for r in 0..4 {
        for c in 0..5 {
            expected.push(((r / 2) * 15 + 3 * c) as f32);
        }
    }
    assert_eq!(got, expected);
    assert_eq!(&got[..5], &[0.0, 3.0, 6.0, 9.0, 12.0]);
    assert_eq!(&got[10..15], &[15.0, 18.0, 21.0, 24.0, 27.0]);
}

/// An extent of 1 repeats over the output's dimension (SGEMV's `x<1,n>` over the rows of
/// `<n,n>`): native code compiles that index as 0, with no division (`jit::kernel::Along`).
#[test]
fn an_extent_of_one_repeats_along_its_dimension() {
    let row: Vec<f32> = (0..5).map(|c| c as f32).collect();
    assert_eq!(
        resized(&[1, 5], &[3, 5]),
        [row.clone(), row.clone(), row].concat()
    );
    let columns: Vec<f32> = (0..12).map(|i| (i / 4) as f32).collect();
    assert_eq!(resized(&[3, 1], &[3, 4]), columns);
    assert_eq!(resized(&[1, 1], &[2, 3]), vec![0.0; 6]);
    // Extent 1 in one dimension, scaled in the other.
    assert_eq!(
        resized(&[1, 2], &[2, 4]),
        vec![0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0]
    );
}

#[test]
fn differing_ranks_align_the_last_dimensions() {
    // <5> into <3, 10>: each row reads 0 0 1 1 … 4 4.
    let got = resized(&[5], &[3, 10]);
    let row: Vec<f32> = (0..10).map(|c| (c / 2) as f32).collect();
    assert_eq!(got, [row.clone(), row.clone(), row].concat());
    // <3, 4> into <4>: the row dimension collapses to row 0.
    assert_eq!(resized(&[3, 4], &[4]), vec![0.0, 1.0, 2.0, 3.0]);
}

#[test]
fn resize_rule_as_a_pure_function() {
    let r = |i: usize, n_in: usize, n_out: usize| {
        resize_index(&unravel(i, &[n_out]), &[n_out], &[n_in])[0]
    };
    assert_eq!(
        (0..10).map(|i| r(i, 5, 10)).collect::<Vec<_>>(),
        vec![0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    );
    // Large extents compute in u64 without overflow.
    let big = 3_000_000_000usize;
    assert_eq!(
        resize_index(&[big - 1, 0, 0, 0], &[big], &[big / 3])[0],
        big / 3 - 1
    );
    assert_eq!(position(&[2, 5, 0, 0], 2), [5.0, 2.0, 0.0, 0.0]);
}

// ---- iterators ---------------------------------------------------------------------------

fn iter_kernel(ty: Type) -> Module {
    module(vec![kernel(
        "k",
        vec![iter_param("it", ty.clone()), out_param("o", ty.clone())],
        vec![],
        vec![assign_out(1, param(0, ty))],
    )])
}

/// brook-core's iterator over `shape` from `start` to `end` (one float per component).
fn iter(shape: &[usize], start: &[f32], end: &[f32]) -> IterSpec {
    let four = |v: &[f32]| {
        let mut four = [0.0; 4];
        four[..v.len()].copy_from_slice(v);
        four
    };
    IterSpec::new(shape, start.len() as u8, four(start), four(end)).unwrap()
}

fn run_iter(it: &IterSpec, out_shape: &[usize]) -> Vec<f32> {
    let ty = fvec(it.components());
    let m = iter_kernel(ty);
    let mut o = zeros(&[it.components()], out_shape);
    run_kernel(
        &m,
        FunctionId(0),
        &mut [CpuArg::Iter(it), CpuArg::Out(&mut o)],
    )
    .unwrap();
    o.data().to_vec()
}

#[test]
fn iter_zero_to_ten() {
    let it = iter(&[10], &[0.0], &[10.0]);
    assert_eq!(
        run_iter(&it, &[10]),
        (0..10).map(|i| i as f32).collect::<Vec<_>>()
    );
}

#[test]
fn iter_nine_to_minus_one_counts_down() {
    let it = iter(&[10], &[9.0], &[-1.0]);
    assert_eq!(
        run_iter(&it, &[10]),
        (0..10).rev().map(|i| i as f32).collect::<Vec<_>>()
    );
}

#[test]
fn iter_zero_to_sixty_four_over_128_steps_by_half() {
    let it = iter(&[128], &[0.0], &[64.0]);
    assert_eq!(
        run_iter(&it, &[128]),
        (0..128).map(|i| i as f32 * 0.5).collect::<Vec<_>>()
    );
}

#[test]
fn iter_float2_over_one_dimension() {
    let it = iter(&[4], &[0.0, 10.0], &[4.0, 14.0]);
    assert_eq!(
        run_iter(&it, &[4]),
        vec![0.0, 10.0, 1.0, 11.0, 2.0, 11.0 + 1.0, 3.0, 13.0]
    );
}

#[test]
fn iter_two_dimensional_x_along_columns_y_along_rows() {
    // <2 rows, 4 cols> from (0, 10) to (1, 12): .x = col/4, .y = 10 + row.
    let it = iter(&[2, 4], &[0.0, 10.0], &[1.0, 12.0]);
    let got = run_iter(&it, &[2, 4]);
    let mut expected = Vec::new();
    for r in 0..2 {
        for c in 0..4 {
            expected.extend([c as f32 * 0.25, 10.0 + r as f32]);
        }
    }
    assert_eq!(got, expected);
}

#[test]
fn iterators_resize_like_streams() {
    let it = iter(&[5], &[0.0], &[5.0]);
    assert_eq!(
        run_iter(&it, &[10]),
        vec![0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0]
    );
}

// ---- indexof -----------------------------------------------------------------------------

#[test]
fn indexof_output_gives_column_then_row() {
    // kernel void k(float a<>, out float4 o<>) { o = indexof(o); }
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT), out_param("o", fvec(4))],
        vec![],
        vec![assign_out(1, indexof(1))],
    )]);
    let got = run_unary(&m, &ramp(&[2, 3]), &[2, 3], 4);
    let mut expected = Vec::new();
    for r in 0..2 {
        for c in 0..3 {
            expected.extend([c as f32, r as f32, 0.0, 0.0]);
        }
    }
    assert_eq!(got, expected);
}

#[test]
fn indexof_input_is_its_own_resized_position() {
    // kernel void k(float a<>, out float4 o<>) { o = indexof(a); } with <5> into <10>
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT), out_param("o", fvec(4))],
        vec![],
        vec![assign_out(1, indexof(0))],
    )]);
    let got = run_unary(&m, &ramp(&[5]), &[10], 4);
    let expected: Vec<f32> = (0..10)
        .flat_map(|i| [(i / 2) as f32, 0.0, 0.0, 0.0])
        .collect();
    assert_eq!(got, expected);
    // <2, 15> into <4, 5>: (.x, .y) = (3c, r/2).
    let got = run_unary(&m, &ramp(&[2, 15]), &[4, 5], 4);
    let expected: Vec<f32> = (0..4)
        .flat_map(|r| (0..5).flat_map(move |c| [(3 * c) as f32, (r / 2) as f32, 0.0, 0.0]))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn indexof_in_four_dimensions() {
    let m = module(vec![kernel(
        "k",
        vec![stream_param("a", Type::FLOAT), out_param("o", fvec(4))],
        vec![],
        vec![assign_out(1, indexof(1))],
    )]);
    let got = run_unary(&m, &ramp(&[1]), &[2, 2, 2, 3], 4);
    // Last element: (c, r, plane, w) = (2, 1, 1, 1).
    assert_eq!(&got[got.len() - 4..], &[2.0, 1.0, 1.0, 1.0]);
    // Element 3 is index [0, 0, 1, 0].
    assert_eq!(&got[12..16], &[0.0, 1.0, 0.0, 0.0]);
}
