//! Shared test support: a backend, Brook programs, streams in and out, and the CPU backend
//! as the reference.

#![allow(dead_code)]

use std::rc::Rc;

use brook_ir::FunctionId;
use brook_wgpu::{Source, WgpuBackend, WgpuProgram, WgpuStream};

pub fn backend() -> WgpuBackend {
    WgpuBackend::new()
        .expect("a wgpu adapter (lavapipe: apt-get install mesa-vulkan-drivers libvulkan1)")
}

/// Compiles Brook source for `backend`.
pub fn program(backend: &WgpuBackend, source: &str) -> WgpuProgram {
    let module =
        brook_frontend::compile(source, "test.br").unwrap_or_else(|d| panic!("{}", d.render()));
    // As the runtime hands it to a backend: composite built-ins written as formulas.
    let mut module = module;
    brook_ir::lower_composites(&mut module);
    backend.prepare(Rc::new(module), Some(Source::new("test.br", source)))
}

pub fn function(p: &WgpuProgram, name: &str) -> FunctionId {
    p.module()
        .function(name)
        .unwrap_or_else(|| panic!("no `{name}`"))
        .0
}

/// Reads a whole stream back.
pub fn read_all(b: &WgpuBackend, s: &WgpuStream) -> Vec<f32> {
    let mut v = vec![0.0; s.len() * s.floats_per_element()];
    b.write(s, None, &mut v).expect("streamWrite");
    v
}

/// A wgpu stream of `widths` and `shape` holding `data`.
pub fn stream(b: &WgpuBackend, widths: &[u8], shape: &[usize], data: &[f32]) -> WgpuStream {
    let s = b.create_stream(widths, shape).expect("a stream");
    b.read(&s, None, data).expect("streamRead");
    s
}

/// A CPU stream of `widths` and `shape` holding `data`.
pub fn cpu_stream(widths: &[u8], shape: &[usize], data: &[f32]) -> brook_cpu::CpuStream {
    brook_cpu::CpuStream::from_data(widths, shape, data).expect("a CPU stream")
}

/// Deterministic pseudo-random floats in [lo, hi).
pub fn values(n: usize, seed: u32, lo: f32, hi: f32) -> Vec<f32> {
    let mut x = seed.wrapping_mul(2654435761).max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            lo + (hi - lo) * ((x >> 8) as f32 / (1u32 << 24) as f32)
        })
        .collect()
}

/// Asserts `got` equals `want` within `rel` relative tolerance (0: bit-identical; NaNs
/// match NaNs).
pub fn assert_close(what: &str, got: &[f32], want: &[f32], rel: f32) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = if rel == 0.0 {
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan())
        } else {
            (g.is_nan() && w.is_nan()) || (g - w).abs() <= rel * w.abs().max(1.0)
        };
        assert!(
            ok,
            "{what}: element {i}: wgpu {g}, CPU {w} (tolerance {rel})"
        );
    }
}
