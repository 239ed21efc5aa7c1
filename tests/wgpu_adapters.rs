//! Choosing the adapter: `WGPU_BACKEND=gl` runs everything on wgpu's GL backend (the
//! fallback when no Vulkan driver exists), and a machine with no usable adapter gets an
//! error naming the packages to install. One test, because the environment is the
//! process's.

use brook::wgpu_backend::WgpuError;
use brook::{args, BrookError, Runtime};

#[test]
fn gl_fallback_and_no_adapter() {
    // SAFETY: this test binary has one test; nothing else reads the environment meanwhile.
    unsafe { std::env::set_var("WGPU_BACKEND", "gl") };
    let rt = Runtime::wgpu().expect("wgpu's GL backend on Mesa (EGL surfaceless)");
    // `WGPU_BACKEND` picks the adapter, as in every wgpu program.
    assert!(rt.describe().contains("Gl"), "{}", rt.describe());
    let p = rt
        .compile(
            "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 r<>) { r = a * x + y; }
             reduce void sum(float a<>, reduce float r<>) { r = r + a; }",
            "adapters.br",
        )
        .unwrap();
    let n = 10_000;
    let x: Vec<f32> = (0..4 * n).map(|i| ((i % 17) as f32 - 8.0) / 8.0).collect();
    let y: Vec<f32> = (0..4 * n).map(|i| ((i % 13) as f32 - 6.0) / 6.0).collect();
    let (sx, sy, r) = (
        rt.stream_of(4, &[n]).unwrap(),
        rt.stream_of(4, &[n]).unwrap(),
        rt.stream_of(4, &[n]).unwrap(),
    );
    sx.read(&x).unwrap();
    sy.read(&y).unwrap();
    rt.run(&p, "saxpy", args![2.0f32, &sx, &sy, &r]).unwrap();
    let got = r.to_vec().unwrap();
    for (i, ((g, x), y)) in got.iter().zip(&x).zip(&y).enumerate() {
        let want = 2.0 * x + y;
        assert!(
            (g - want).abs() <= 1e-6 * want.abs().max(1.0),
            "element {i}: {g} vs {want}"
        );
    }
    let ones = rt.stream_of(1, &[n]).unwrap();
    ones.read(&vec![1.0; n]).unwrap();
    let total = rt.reduce_to_value(&p, "sum", &ones, args![]).unwrap();
    assert_eq!(total, [n as f32]);
    drop((sx, sy, r, ones, p, rt));

    unsafe { std::env::set_var("WGPU_BACKEND", "metal") };
    match Runtime::wgpu() {
        Err(BrookError::Backend { backend, source }) => {
            assert_eq!(backend, "wgpu");
            assert!(
                matches!(source.downcast_ref(), Some(WgpuError::NoAdapter(_))),
                "expected NoAdapter, got {source}"
            );
            assert!(
                source
                    .to_string()
                    .contains("mesa-vulkan-drivers libvulkan1"),
                "{source}"
            );
        }
        Err(e) => panic!("expected the backend's NoAdapter, got {e}"),
        Ok(rt) => panic!("no Metal here, yet an adapter: {}", rt.describe()),
    }
    unsafe { std::env::remove_var("WGPU_BACKEND") };
}
