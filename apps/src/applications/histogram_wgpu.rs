//! The histogram hand-written in wgpu.
//!
//! - [`HandWgpuHistogram::same_passes`] runs Brook's passes: clear the 64 bins, compute each
//!   value's bin, then scatter-add a stream of ones into the bins with a compare-and-swap loop
//!   on each float's bits (what Brook's wgpu `ScatterOp::Add` does), each its own submission.
//! - [`HandWgpuHistogram::expert`] is NVIDIA's Histogram64 done the wgpu way: each workgroup
//!   of 256 counts its values into a private histogram in workgroup memory with integer
//!   `atomicAdd`, then adds it to the global integer bins (64 atomics a workgroup instead of
//!   one a value); a last pass turns the counts into floats. One submission.

use crate::app::{Env, Variant};
use crate::error::AppError;
use crate::wgpukit::{grid, Gpu, Sequence};

/// Brook's three passes: kernel 0 clears, 1 computes bins, 2 scatter-adds.
const CLEAR: &str = "
@group(0) @binding(0) var<storage, read_write> hist: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if g.x < arrayLength(&hist) {
        hist[g.x] = 0.0;
    }
}
";

const BIN_OF: &str = "
@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var<storage, read_write> bins: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let i = g.x + g.y * nw.x * 64u;
    if i < arrayLength(&bins) {
        bins[i] = floor(values[i] * 0.25);
    }
}
";

const SCATTER_ADD: &str = "
@group(0) @binding(0) var<storage, read> bins: array<f32>;
@group(0) @binding(1) var<storage, read> ones: array<f32>;
@group(0) @binding(2) var<storage, read_write> hist: array<atomic<u32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let i = g.x + g.y * nw.x * 64u;
    if i >= arrayLength(&bins) {
        return;
    }
    let to = u32(clamp(floor(bins[i] + 0.25), 0.0, f32(arrayLength(&hist) - 1u)));
    var old = atomicLoad(&hist[to]);
    loop {
        let sum = bitcast<u32>(bitcast<f32>(old) + ones[i]);
        let r = atomicCompareExchangeWeak(&hist[to], old, sum);
        if r.exchanged {
            break;
        }
        old = r.old_value;
    }
}
";

/// The expert's passes: kernel 0 clears the counts, 1 counts, 2 turns counts into floats.
const CLEAR_COUNTS: &str = "
@group(0) @binding(0) var<storage, read_write> counts: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if g.x < 64u {
        counts[g.x] = 0u;
    }
}
";

const COUNT: &str = "
@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var<storage, read_write> counts: array<atomic<u32>, 64>;
var<workgroup> local: array<atomic<u32>, 64>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    let i = g.x + g.y * nw.x * 256u;
    if i < arrayLength(&values) {
        atomicAdd(&local[u32(values[i]) >> 2u], 1u);
    }
    workgroupBarrier();
    if l < 64u {
        let mine = atomicLoad(&local[l]);
        if mine > 0u {
            atomicAdd(&counts[l], mine);
        }
    }
}
";

const TO_FLOATS: &str = "
@group(0) @binding(0) var<storage, read> counts: array<u32>;
@group(0) @binding(1) var<storage, read_write> hist: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if g.x < 64u {
        hist[g.x] = f32(counts[g.x]);
    }
}
";

pub struct HandWgpuHistogram {
    gpu: Gpu,
    /// The values, and for Brook's passes the ones it scatters.
    inputs: Vec<(wgpu::Buffer, Vec<f32>)>,
    hist: wgpu::Buffer,
    bins: usize,
    passes: Sequence,
}

impl HandWgpuHistogram {
    /// Brook's three passes, one submission each.
    pub fn same_passes(env: &Env, values: Vec<f32>, bins: usize) -> Result<Self, AppError> {
        let gpu = Gpu::of(env)?;
        let n = values.len();
        let kernels = [CLEAR, BIN_OF, SCATTER_ADD].map(|wgsl| gpu.kernel(wgsl));
        let mut passes = Sequence::new(kernels.into_iter().collect::<Result<_, _>>()?, false);
        let (input, ones, binned, hist) = (
            gpu.storage(n),
            gpu.storage(n),
            gpu.storage(n),
            gpu.storage(bins),
        );
        passes.push(0, gpu.bind(passes.kernel(0), &[&hist])?, grid(bins, 64));
        let group = gpu.bind(passes.kernel(1), &[&input, &binned])?;
        passes.push(1, group, grid(n, 64));
        let group = gpu.bind(passes.kernel(2), &[&binned, &ones, &hist])?;
        passes.push(2, group, grid(n, 64));
        Ok(HandWgpuHistogram {
            inputs: vec![(input, values), (ones, vec![1.0; n])],
            gpu,
            hist,
            bins,
            passes,
        })
    }

    /// The expert's workgroup histograms, in one submission.
    pub fn expert(env: &Env, values: Vec<f32>, bins: usize) -> Result<Self, AppError> {
        let gpu = Gpu::of(env)?;
        let n = values.len();
        let kernels = [CLEAR_COUNTS, COUNT, TO_FLOATS].map(|wgsl| gpu.kernel(wgsl));
        let mut passes = Sequence::new(kernels.into_iter().collect::<Result<_, _>>()?, true);
        let (input, counts, hist) = (gpu.storage(n), gpu.storage(bins), gpu.storage(bins));
        passes.push(0, gpu.bind(passes.kernel(0), &[&counts])?, grid(bins, 64));
        let group = gpu.bind(passes.kernel(1), &[&input, &counts])?;
        passes.push(1, group, grid(n, 256));
        let group = gpu.bind(passes.kernel(2), &[&counts, &hist])?;
        passes.push(2, group, grid(bins, 64));
        Ok(HandWgpuHistogram {
            inputs: vec![(input, values)],
            gpu,
            hist,
            bins,
            passes,
        })
    }
}

impl Variant for HandWgpuHistogram {
    fn upload(&mut self) -> Result<(), AppError> {
        for (buffer, data) in &self.inputs {
            self.gpu.upload(buffer, data)?;
        }
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        self.passes.run(&self.gpu)
    }

    fn sync(&self) {
        self.gpu.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        self.gpu.read(&self.hist, self.bins)
    }
}
