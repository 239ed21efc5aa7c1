//! Brook's own host work per kernel call on wgpu, counted: the heap allocations a repeated
//! SAXPY call makes on the calling thread, beside the same dispatch written by hand on the
//! same device, buffers and bindings (a uniform and three storage buffers, made once; an
//! encoder, a compute pass and a submission per call, inside two error scopes, as the report's
//! hand-written versions call). wgpu's own allocations are the same on both sides, so the
//! difference is what Brook adds: the runtime's call checks, the gate, the backend's argument
//! binding and pipeline lookup (docs/performance.md, "Brook's host path per call").
//!
//! Allocations, unlike times, are the same on every run and machine with the same
//! dependencies: this is the regression check; the times are in the note and the doc.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use brook::args;
use brook::wgpu_backend::wgpu;

mod support;

/// The system allocator, counting the allocations of each thread (wgpu and lavapipe work on
/// threads of their own, which are not the call's).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the thread's counter may already be gone while the thread exits.
    let _ = ALLOCATIONS.try_with(|a| a.set(a.get() + 1));
}

// SAFETY: every request is passed to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The allocations per call of `call`, over `calls` calls after five untimed ones.
fn per_call(calls: u64, mut call: impl FnMut()) -> f64 {
    for _ in 0..5 {
        call();
    }
    let before = ALLOCATIONS.with(Cell::get);
    for _ in 0..calls {
        call();
    }
    (ALLOCATIONS.with(Cell::get) - before) as f64 / calls as f64
}

const HAND_SAXPY: &str = "
@group(0) @binding(0) var<uniform> a: vec4<f32>;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> y: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> r: array<vec4<f32>>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= arrayLength(&r)) { return; }
    r[g.x] = a.x * x[g.x] + y[g.x];
}";

#[test]
fn a_repeated_kernel_call_allocates_little_beyond_the_hand_written_dispatch() {
    // The application's device, made the way any wgpu app makes one.
    let (device, queue, rt) = support::app_wgpu_device();
    let p = rt
        .compile(
            "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 r<>) { r = a * x + y; }",
            "saxpy.br",
        )
        .unwrap();
    let n = 256;
    let (x, y, r) = (
        rt.stream_of(4, &[n]).unwrap(),
        rt.stream_of(4, &[n]).unwrap(),
        rt.stream_of(4, &[n]).unwrap(),
    );
    let xs: Vec<f32> = (0..4 * n).map(|i| i as f32).collect();
    x.read(&xs).unwrap();
    y.read(&vec![0.5; 4 * n]).unwrap();

    // The hand-written dispatch, on Brook's own buffers.
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(HAND_SAXPY.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let a = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&a, 0, bytemuck::cast_slice(&[3.0f32, 0.0, 0.0, 0.0]));
    let buffers = [&x, &y, &r].map(|s| s.wgpu_buffer().unwrap().unwrap());
    let entries: Vec<wgpu::BindGroupEntry> = std::iter::once(&a)
        .chain(buffers.iter().map(|b| &**b))
        .enumerate()
        .map(|(k, b)| wgpu::BindGroupEntry {
            binding: k as u32,
            resource: b.as_entire_binding(),
        })
        .collect();
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    });
    let wait = || {
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    };
    let hand = || {
        let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups((n as u32).div_ceil(64), 1, 1);
        }
        queue.submit([encoder.finish()]);
        assert!(pollster::block_on(validation.pop()).is_none());
        assert!(pollster::block_on(memory.pop()).is_none());
        wait();
    };
    let brook = || {
        rt.run(&p, "saxpy", args![3.0f32, &x, &y, &r]).unwrap();
        wait();
    };

    // Both compute the same: checked before counting.
    let want: Vec<f32> = xs.iter().map(|v| 3.0 * v + 0.5).collect();
    r.read(&vec![0.0; 4 * n]).unwrap();
    hand();
    assert_eq!(r.to_vec().unwrap(), want, "the hand-written dispatch");
    r.read(&vec![0.0; 4 * n]).unwrap();
    brook();
    assert_eq!(r.to_vec().unwrap(), want, "Brook");

    let calls = 50;
    let (hand_allocs, brook_allocs) = (per_call(calls, hand), per_call(calls, brook));
    let added = brook_allocs - hand_allocs;
    println!("allocations per call: hand-written {hand_allocs:.1}, Brook {brook_allocs:.1}");
    // On lavapipe Brook added 41 before its host path was trimmed (a kernel plan and two
    // variant clones per call, labels formatted for no trace, formats and shapes built only
    // to be compared, a signal per error scope) and 19 after (the call's arguments, its
    // checked shape and variant, the gate's and the backend's views of the arguments, the
    // info and binding lists, a third error scope). The bound leaves room for a dependency's
    // change, not for a return of that work.
    assert!(
        added <= 24.0,
        "Brook's kernel call allocates {added:.1} times more than the hand-written dispatch \
         ({brook_allocs:.1} against {hand_allocs:.1}); its host path has grown"
    );
}
