//! Kernel calls reuse their bind groups, keyed by the exact buffers bound, and their call-info
//! buffer, written only when it changes: a reused group must never bind the wrong buffer or
//! stale call info. Each test checks every call's values against ones computed here, with
//! integers so that the kernels' results are exact.

mod support;

use brook_wgpu::KernelArg;
use support::{backend, function, program, read_all, stream};

const STEP: &str =
    "kernel void step(float a, float x<>, float y<>, out float r<>) { r = a * x + y; }";

#[test]
fn ping_pong_with_swap_binds_the_swapped_buffers_every_call() {
    let b = backend();
    let p = program(&b, STEP);
    let k = function(&p, "step");
    let n = 37;
    let x: Vec<f32> = (0..n).map(|i| (i % 5) as f32).collect();
    let y = stream(
        &b,
        &[1],
        &[n],
        &(0..n).map(|i| i as f32).collect::<Vec<_>>(),
    );
    let r = stream(&b, &[1], &[n], &vec![-1.0; n]);
    let xs = stream(&b, &[1], &[n], &x);
    let mut want: Vec<f32> = (0..n).map(|i| i as f32).collect();
    // The constant changes on some calls and repeats on others: the call info must follow.
    for (call, a) in [1.0f32, 1.0, 2.0, 2.0, -3.0, 1.0, 1.0]
        .into_iter()
        .enumerate()
    {
        let args = [
            KernelArg::Constant(&[a]),
            KernelArg::Stream(&xs),
            KernelArg::Stream(&y),
            KernelArg::Stream(&r),
        ];
        b.run_kernel(&p, k, &args).unwrap();
        for (w, xi) in want.iter_mut().zip(&x) {
            *w += a * xi;
        }
        assert_eq!(read_all(&b, &r), want, "call {call}: r = a·x + y");
        b.swap(&y, &r).unwrap();
        assert_eq!(read_all(&b, &y), want, "call {call}: y after the swap");
    }
    // Two buffer sets alternate (x, y, r) and (x, r, y): two kept groups, not one per call.
    assert_eq!(b.kept_bind_groups(), 2);
}

#[test]
fn streams_dropped_and_made_again_are_bound_afresh_and_their_groups_forgotten() {
    let b = backend();
    let p = program(&b, STEP);
    let k = function(&p, "step");
    let n = 16;
    for round in 0..4 {
        // New streams of the same size each round: the allocator may well hand out the old
        // memory again, which must not find the old streams' bind group.
        let base = round as f32 * 100.0;
        let x = stream(&b, &[1], &[n], &vec![1.0; n]);
        let y = stream(
            &b,
            &[1],
            &[n],
            &(0..n).map(|i| base + i as f32).collect::<Vec<_>>(),
        );
        let r = b.create_stream(&[1], &[n]).unwrap();
        let args = [
            KernelArg::Constant(&[2.0]),
            KernelArg::Stream(&x),
            KernelArg::Stream(&y),
            KernelArg::Stream(&r),
        ];
        b.run_kernel(&p, k, &args).unwrap();
        let want: Vec<f32> = (0..n).map(|i| base + i as f32 + 2.0).collect();
        assert_eq!(read_all(&b, &r), want, "round {round}");
        assert_eq!(b.kept_bind_groups(), 1, "round {round}: this round's group");
        drop((x, y, r));
        assert_eq!(
            b.kept_bind_groups(),
            0,
            "round {round}: dropping a stream frees its groups"
        );
    }
}

#[test]
fn a_call_with_an_in_place_copy_or_a_new_output_still_gets_the_right_buffers() {
    let b = backend();
    let p = program(&b, STEP);
    let k = function(&p, "step");
    let n = 9;
    let x = stream(&b, &[1], &[n], &vec![3.0; n]);
    let y = stream(
        &b,
        &[1],
        &[n],
        &(0..n).map(|i| i as f32).collect::<Vec<_>>(),
    );
    let r = b.create_stream(&[1], &[n]).unwrap();
    let call = |out: &brook_wgpu::WgpuStream, input: &brook_wgpu::WgpuStream| {
        let args = [
            KernelArg::Constant(&[1.0]),
            KernelArg::Stream(&x),
            KernelArg::Stream(input),
            KernelArg::Stream(out),
        ];
        b.run_kernel(&p, k, &args).unwrap();
    };
    call(&r, &y);
    let once: Vec<f32> = (0..n).map(|i| i as f32 + 3.0).collect();
    assert_eq!(read_all(&b, &r), once);
    // In place (y both input and output): read whole and written whole, bound read-write.
    call(&y, &y);
    assert_eq!(read_all(&b, &y), once);
    // The first buffer set again, after other sets were bound: its kept group.
    call(&r, &y);
    let twice: Vec<f32> = (0..n).map(|i| i as f32 + 6.0).collect();
    assert_eq!(read_all(&b, &r), twice);
    // A fresh output, then the first output again.
    let s = b.create_stream(&[1], &[n]).unwrap();
    call(&s, &r);
    assert_eq!(
        read_all(&b, &s),
        (0..n).map(|i| i as f32 + 9.0).collect::<Vec<_>>()
    );
    call(&r, &s);
    assert_eq!(
        read_all(&b, &r),
        (0..n).map(|i| i as f32 + 12.0).collect::<Vec<_>>()
    );
}
