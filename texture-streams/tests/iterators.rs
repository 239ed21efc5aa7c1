//! Iterator values on the host and materialised into streams.

mod common;

use brook_core::StreamError;
use brook_texture_streams::{IterSpec, Profile, Stream};

fn at(values: &[f32]) -> [f32; 4] {
    let mut v = [0.0; 4];
    v[..values.len()].copy_from_slice(values);
    v
}

/// The host values, and the same values read back from the materialised stream.
fn values_both_ways(spec: &IterSpec) -> Vec<f32> {
    let ctx = common::context(Profile::Gl33Core, None);
    let host = spec.values();
    let stream = Stream::from_iter(&ctx, spec).unwrap();
    let mut back = vec![f32::NAN; host.len()];
    stream.write(&mut back).unwrap();
    assert_eq!(back, host);
    host
}

#[test]
fn zero_to_ten_over_ten() {
    let spec = IterSpec::new(&[10], 1, at(&[0.0]), at(&[10.0])).unwrap();
    assert_eq!(
        values_both_ways(&spec),
        vec![0., 1., 2., 3., 4., 5., 6., 7., 8., 9.]
    );
}

#[test]
fn nine_down_to_zero() {
    let spec = IterSpec::new(&[10], 1, at(&[9.0]), at(&[-1.0])).unwrap();
    assert_eq!(
        values_both_ways(&spec),
        vec![9., 8., 7., 6., 5., 4., 3., 2., 1., 0.]
    );
}

#[test]
fn half_steps() {
    let spec = IterSpec::new(&[128], 1, at(&[0.0]), at(&[64.0])).unwrap();
    assert_eq!(spec.step(), at(&[0.5]));
    let expected: Vec<f32> = (0..128).map(|i| i as f32 * 0.5).collect();
    assert_eq!(values_both_ways(&spec), expected);
}

#[test]
fn float2_over_one_dimension() {
    let spec = IterSpec::new(&[4], 2, at(&[0.0, 10.0]), at(&[4.0, 2.0])).unwrap();
    assert_eq!(spec.step(), at(&[1.0, -2.0]));
    assert_eq!(
        values_both_ways(&spec),
        vec![0., 10., 1., 8., 2., 6., 3., 4.]
    );
}

#[test]
fn float4_over_one_dimension() {
    let spec = IterSpec::new(
        &[2],
        4,
        at(&[0.0, 1.0, 2.0, 3.0]),
        at(&[2.0, 3.0, 4.0, 5.0]),
    )
    .unwrap();
    assert_eq!(
        values_both_ways(&spec),
        vec![0., 1., 2., 3., 1., 2., 3., 4.]
    );
}

#[test]
fn two_d_float2() {
    // 3 rows, 4 columns: .x 0..4 along columns, .y -1..2 along rows.
    let spec = IterSpec::new(&[3, 4], 2, at(&[0.0, -1.0]), at(&[4.0, 2.0])).unwrap();
    let mut expected = Vec::new();
    for row in 0..3 {
        for column in 0..4 {
            expected.extend([column as f32, row as f32 - 1.0]);
        }
    }
    assert_eq!(values_both_ways(&spec), expected);
    assert_eq!(spec.value_at(&[2, 1]), at(&[1.0, 1.0]));
}

#[test]
fn an_n_d_iterator_has_one_component_per_dimension_and_at_most_four() {
    let err = IterSpec::new(&[2, 3, 4], 2, at(&[0.0]), at(&[1.0])).unwrap_err();
    assert!(matches!(err, StreamError::Format(_)));
    assert!(err
        .to_string()
        .contains("a 3D iterator has float3 elements"));
    let err = IterSpec::new(&[2, 2, 2, 2, 2], 4, at(&[0.0]), at(&[1.0])).unwrap_err();
    assert!(matches!(err, StreamError::Shape(_)));
    assert!(err.to_string().contains("iterators have 1 to 4 dimensions"));
}
