//! streamRead/streamWrite of a domain touch exactly that box.

mod common;

use std::rc::Rc;

use brook_core::StreamError;
use brook_texture_streams::{
    Domain, ElementFormat, GlContext, Layout, Profile, StoreError, Stream,
};

/// The elements of `layout` inside `lo..hi`, as linear indices in row-major order.
fn domain_elements(layout: &Layout, lo: &[usize], hi: &[usize]) -> Vec<usize> {
    (0..layout.len())
        .filter(|&linear| {
            let index = layout.index_of_linear(linear);
            (0..index.len()).all(|k| lo[k] <= index[k] && index[k] < hi[k])
        })
        .collect()
}

/// Fills a stream of `format` and `shape`, overwrites the domain `lo..hi` with
/// new values, and checks a full write shows exactly that change; then reads
/// the domain back alone.
fn check_domain(
    ctx: &Rc<GlContext>,
    format: ElementFormat,
    shape: &[usize],
    lo: &[usize],
    hi: &[usize],
) {
    let fpe = format.floats_per_element();
    let mut stream = Stream::new(ctx, format, shape).unwrap();
    let layout = stream.layout().clone();
    let mut expected = common::distinct_values(layout.len() * fpe);
    stream.read(&expected).unwrap();

    let domain = Domain::new(lo, hi).unwrap();
    let inside = domain_elements(&layout, lo, hi);
    assert_eq!(inside.len(), domain.len());
    let patch: Vec<f32> = (0..inside.len() * fpe).map(|k| 5000.0 + k as f32).collect();
    stream.read_domain(&domain, &patch).unwrap();
    for (d, &linear) in inside.iter().enumerate() {
        expected[linear * fpe..(linear + 1) * fpe].copy_from_slice(&patch[d * fpe..(d + 1) * fpe]);
    }
    let mut whole = vec![f32::NAN; expected.len()];
    stream.write(&mut whole).unwrap();
    assert_eq!(whole, expected, "{shape:?} {lo:?}..{hi:?}");

    let mut part = vec![f32::NAN; patch.len()];
    stream.write_domain(&domain, &mut part).unwrap();
    assert_eq!(part, patch, "{shape:?} {lo:?}..{hi:?}");
}

#[test]
fn two_d_direct_rectangles() {
    let ctx = common::context(Profile::Gl33Core, Some(16));
    for components in [1, 3, 4] {
        let format = ElementFormat::scalar(components).unwrap();
        // Brook's a.domain(int2(3,5), int2(9,10)) on a <10, 12> stream: rows 5..10, columns 3..9.
        check_domain(&ctx, format.clone(), &[10, 12], &[5, 3], &[10, 9]);
        check_domain(&ctx, format.clone(), &[10, 12], &[0, 0], &[1, 12]);
        check_domain(&ctx, format, &[10, 12], &[9, 11], &[10, 12]);
    }
    check_domain(&ctx, ElementFormat::scalar(2).unwrap(), &[13], &[4], &[11]);
}

#[test]
fn translated_boxes() {
    let ctx = common::context(Profile::Gl33Core, Some(16));
    let float2 = ElementFormat::scalar(2).unwrap();
    check_domain(&ctx, float2.clone(), &[3, 5, 7], &[1, 1, 2], &[3, 4, 6]);
    check_domain(&ctx, float2.clone(), &[3, 5, 7], &[1, 0, 0], &[2, 5, 7]);
    check_domain(
        &ctx,
        float2.clone(),
        &[2, 3, 5, 7],
        &[1, 1, 1, 1],
        &[2, 3, 4, 6],
    );
    check_domain(&ctx, float2, &[200], &[17], &[190]);
    let member = |name: &str, components| brook_texture_streams::MemberFormat {
        name: name.into(),
        components,
    };
    let format = ElementFormat::structure(vec![member("p", 3), member("m", 1)]).unwrap();
    check_domain(&ctx, format, &[3, 5, 7], &[0, 2, 3], &[3, 3, 7]);
}

#[test]
fn es_profile_domains() {
    let ctx = common::context(Profile::Es30, Some(16));
    check_domain(
        &ctx,
        ElementFormat::scalar(3).unwrap(),
        &[10, 12],
        &[2, 3],
        &[7, 8],
    );
    check_domain(
        &ctx,
        ElementFormat::scalar(1).unwrap(),
        &[3, 5, 7],
        &[1, 1, 2],
        &[3, 4, 6],
    );
}

#[test]
fn bad_domains_are_errors() {
    let ctx = common::context(Profile::Gl33Core, None);
    let mut stream = Stream::new(&ctx, ElementFormat::scalar(1).unwrap(), &[4, 6]).unwrap();
    let outside = Domain::new(&[0, 0], &[5, 6]).unwrap();
    assert!(matches!(
        stream.read_domain(&outside, &[0.0; 30]),
        Err(StoreError::Invalid(StreamError::Domain(_)))
    ));
    let wrong_rank = Domain::new(&[0], &[4]).unwrap();
    assert!(matches!(
        stream.write_domain(&wrong_rank, &mut [0.0; 4]),
        Err(StoreError::Invalid(StreamError::Domain(_)))
    ));
    let fine = Domain::new(&[1, 1], &[3, 4]).unwrap();
    assert_eq!(
        stream.read_domain(&fine, &[0.0; 5]),
        Err(StoreError::Invalid(StreamError::Size {
            expected: 6,
            got: 5
        }))
    );
    assert!(matches!(
        Domain::new(&[2, 2], &[2, 3]),
        Err(StreamError::Domain(_))
    ));
}
