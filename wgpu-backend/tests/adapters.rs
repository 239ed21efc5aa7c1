//! Choosing the adapter: `WGPU_BACKEND=gl` runs everything on wgpu's GL backend (the
//! fallback when no Vulkan driver exists), and a machine with no usable adapter gets an
//! error naming the packages to install. One test, because the environment is the
//! process's.

mod support;

use brook_wgpu::ops::reduce::ReduceTarget;
use brook_wgpu::{KernelArg, WgpuBackend, WgpuError};
use support::*;

#[test]
fn gl_fallback_and_no_adapter() {
    // SAFETY: this test binary has one test; nothing else reads the environment meanwhile.
    unsafe { std::env::set_var("WGPU_BACKEND", "gl") };
    let b = WgpuBackend::new().expect("wgpu's GL backend on Mesa (EGL surfaceless)");
    // `WGPU_BACKEND` picks the adapter, as in every wgpu program.
    assert!(b.describe().contains("Gl"), "{}", b.describe());
    let p = program(
        &b,
        "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 r<>) { r = a * x + y; }
         reduce void sum(float a<>, reduce float r<>) { r = r + a; }",
    );
    let n = 10_000;
    let x = values(4 * n, 1, -1.0, 1.0);
    let y = values(4 * n, 2, -1.0, 1.0);
    let (sx, sy) = (stream(&b, &[4], &[n], &x), stream(&b, &[4], &[n], &y));
    let r = b.create_stream(&[4], &[n]).unwrap();
    b.run_kernel(
        &p,
        function(&p, "saxpy"),
        &[
            KernelArg::Constant(&[2.0]),
            KernelArg::Stream(&sx),
            KernelArg::Stream(&sy),
            KernelArg::Stream(&r),
        ],
    )
    .unwrap();
    let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 2.0 * x + y).collect();
    assert_close("saxpy on GL", &read_all(&b, &r), &want, 1e-6);
    let ones = stream(&b, &[1], &[n], &vec![1.0; n]);
    let mut total = [0.0];
    b.reduce(
        &p,
        function(&p, "sum"),
        &ones,
        &[],
        ReduceTarget::Value(&mut total),
    )
    .unwrap();
    assert_eq!(total, [n as f32]);
    drop(b);

    unsafe { std::env::set_var("WGPU_BACKEND", "metal") };
    match WgpuBackend::new() {
        Err(e @ WgpuError::NoAdapter(_)) => {
            assert!(
                e.to_string().contains("mesa-vulkan-drivers libvulkan1"),
                "{e}"
            );
        }
        Err(e) => panic!("expected NoAdapter, got {e}"),
        Ok(b) => panic!("no Metal here, yet an adapter: {}", b.describe()),
    }
    unsafe { std::env::remove_var("WGPU_BACKEND") };
}
