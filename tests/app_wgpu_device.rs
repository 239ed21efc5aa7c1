//! A wgpu application's own device through the public API: `Runtime::on_wgpu_device` runs
//! Brook on it, and `Stream::wgpu_buffer` is the stream's storage on that device, which the
//! application copies with its own encoder (no readback through Brook). The values it finds
//! there must be the kernel's.

use brook::wgpu_backend::wgpu;
use brook::{args, Runtime};

mod support;

#[test]
fn a_stream_on_the_apps_device_is_a_buffer_the_app_reads_itself() {
    // The application's device, made the way any wgpu app makes one.
    let (device, queue, rt) = support::app_wgpu_device();
    let p = rt
        .compile(
            "kernel void saxpy(float a, float2 x<>, float2 y<>, out float2 r<>) { r = a * x + y; }",
            "saxpy.br",
        )
        .unwrap();
    let n = 100;
    let (x, y, r) = (
        rt.stream_of(2, &[n]).unwrap(),
        rt.stream_of(2, &[n]).unwrap(),
        rt.stream_of(2, &[n]).unwrap(),
    );
    let xs: Vec<f32> = (0..2 * n).map(|i| i as f32).collect();
    x.read(&xs).unwrap();
    y.read(&vec![0.5; 2 * n]).unwrap();
    rt.run(&p, "saxpy", args![3.0f32, &x, &y, &r]).unwrap();

    // The app copies Brook's buffer with its own encoder on its own queue.
    let bytes = (2 * n * 4) as u64;
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("app staging"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let buffer = (r.wgpu_buffer().unwrap()).expect("a wgpu stream has a buffer");
        assert_eq!(buffer.size(), bytes, "C layout: two floats per element");
        enc.copy_buffer_to_buffer(&buffer, 0, &staging, 0, bytes);
    }
    queue.submit([enc.finish()]);
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, |m| m.unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let got: Vec<f32> =
        bytemuck::cast_slice(&staging.slice(..).get_mapped_range().unwrap()).to_vec();
    let want: Vec<f32> = xs.iter().map(|v| 3.0 * v + 0.5).collect();
    assert_eq!(got, want);
    // The same values through Brook's own streamWrite.
    assert_eq!(r.to_vec().unwrap(), want);
    // Streams of other backends have no wgpu buffer.
    assert!(Runtime::cpu()
        .stream_of(1, &[4])
        .unwrap()
        .wgpu_buffer()
        .unwrap()
        .is_none());
}
