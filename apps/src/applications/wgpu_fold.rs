//! The hand-written wgpu sum the reductions share, pass for pass what Brook's wgpu backend
//! runs (`brook-wgpu`'s `shaders/reduce.rs`): each segment (a row, or the whole input) is cut
//! into runs of `P × 256` consecutive elements, one workgroup of 256 invocations per run; each
//! invocation adds up its `P` consecutive elements left to right, then the workgroup adds the
//! 256 partial sums as a tree in workgroup memory, and invocation 0 writes the run's sum. The
//! next pass sums the partials of each segment the same way, until one is left per segment.
//! `P` is as many elements as it takes to cover a segment with one workgroup, 1 to 8, as
//! Brook chooses it. The tree's eight steps are written out, as Brook's shader has them: as a
//! loop with the barrier inside, the hand fold took about twice Brook's time on lavapipe
//! (issue 34; `docs/performance.md`, "Reductions at hand-written speed (wgpu)").
//!
//! The first pass reads its elements through a WGSL `fn load(segment: u32, k: u32) -> f32`
//! the application supplies, so it can compute the map in front of the sum there (`|x|` for
//! SASUM, `A[i][j]·x[j]` for SGEMV), as Brook's fused `map_reduce` does; it may declare
//! storage buffers of its own from binding 2 on, which [`Fold::new`] binds in order.

use crate::error::AppError;
use crate::wgpukit::{grid, Gpu, Kernel, Pass};

/// Invocations per workgroup (Brook's `GROUP`).
const GROUP: usize = 256;
/// The most elements an invocation adds before the tree (Brook's `MAX_PER_THREAD`).
const MAX_PER: usize = 8;

/// What every pass declares before its `load`: its geometry and its output.
const HEADER: &str = "
struct Info { segments: u32, len: u32, runs: u32, per: u32 }
@group(0) @binding(0) var<uniform> info: Info;
@group(0) @binding(1) var<storage, read_write> sums: array<f32>;
";

/// A later pass's `load`: the previous pass's partial sums, `runs` per segment.
const PARTIALS: &str = "
@group(0) @binding(2) var<storage, read> partials: array<f32>;
fn load(segment: u32, k: u32) -> f32 { return partials[segment * info.len + k]; }
";

/// The fold: run `group % runs` of segment `group / runs`.
const MAIN: &str = "
var<workgroup> tree: array<f32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    let group = w.x + w.y * nw.x;
    if group >= info.segments * info.runs {
        return;
    }
    let segment = group / info.runs;
    let first = (group % info.runs) * info.per * 256u;
    let start = first + l * info.per;
    let end = min(start + info.per, info.len);
    // The invocations holding elements are a prefix: no identity element is needed.
    let live = (info.len - first + info.per - 1u) / info.per;
    if start < end {
        var acc = load(segment, start);
        for (var k = start + 1u; k < end; k++) {
            acc += load(segment, k);
        }
        tree[l] = acc;
    }
    workgroupBarrier();
    if l % 2u == 0u && l + 1u < live { tree[l] += tree[l + 1u]; }
    workgroupBarrier();
    if l % 4u == 0u && l + 2u < live { tree[l] += tree[l + 2u]; }
    workgroupBarrier();
    if l % 8u == 0u && l + 4u < live { tree[l] += tree[l + 4u]; }
    workgroupBarrier();
    if l % 16u == 0u && l + 8u < live { tree[l] += tree[l + 8u]; }
    workgroupBarrier();
    if l % 32u == 0u && l + 16u < live { tree[l] += tree[l + 16u]; }
    workgroupBarrier();
    if l % 64u == 0u && l + 32u < live { tree[l] += tree[l + 32u]; }
    workgroupBarrier();
    if l % 128u == 0u && l + 64u < live { tree[l] += tree[l + 64u]; }
    workgroupBarrier();
    if l % 256u == 0u && l + 128u < live { tree[l] += tree[l + 128u]; }
    if l == 0u {
        sums[group] = tree[0];
    }
}
";

/// The passes of one sum, with their buffers and bind groups made once.
pub struct Fold {
    first: Kernel,
    rest: Option<Kernel>,
    /// Each pass's bind group and grid, in order.
    passes: Vec<(wgpu::BindGroup, [u32; 3])>,
    /// Each pass's output (the last one's holds one sum per segment), kept alive with the
    /// uniforms the bind groups hold.
    outputs: Vec<wgpu::Buffer>,
}

impl Fold {
    /// A sum of `segments` segments of `len` elements each, the first pass reading through
    /// `load` (WGSL, binding `inputs` from binding 2 on).
    pub fn new(
        gpu: &Gpu,
        segments: usize,
        len: usize,
        load: &str,
        inputs: &[&wgpu::Buffer],
    ) -> Result<Fold, AppError> {
        let first = gpu.kernel(&format!("{HEADER}{load}{MAIN}"))?;
        let mut rest = None;
        let (mut passes, mut outputs) = (Vec::new(), Vec::<wgpu::Buffer>::new());
        let mut len = len;
        loop {
            let per = len.div_ceil(GROUP).clamp(1, MAX_PER);
            let runs = len.div_ceil(per * GROUP);
            let words = [segments, len, runs, per].map(|v| v as u32);
            let info = gpu.uniform(&words);
            let out = gpu.storage(segments * runs);
            let group = match outputs.last() {
                None => {
                    let mut bound = vec![&info, &out];
                    bound.extend_from_slice(inputs);
                    gpu.bind(&first, &bound)?
                }
                Some(previous) => {
                    let kernel = match &rest {
                        Some(k) => k,
                        None => rest.insert(gpu.kernel(&format!("{HEADER}{PARTIALS}{MAIN}"))?),
                    };
                    gpu.bind(kernel, &[&info, &out, previous])?
                }
            };
            passes.push((group, grid(segments * runs * GROUP, GROUP as u32)));
            outputs.push(out);
            if runs == 1 {
                break;
            }
            len = runs;
        }
        Ok(Fold {
            first,
            rest,
            passes,
            outputs,
        })
    }

    /// The dispatches of one sum, in order.
    pub fn passes(&self) -> Vec<Pass<'_>> {
        (self.passes.iter().enumerate())
            .map(|(i, (group, size))| {
                let kernel = match (i, &self.rest) {
                    (0, _) | (_, None) => &self.first,
                    (_, Some(rest)) => rest,
                };
                (kernel, group, *size)
            })
            .collect()
    }

    /// The buffer the sums end in: one per segment.
    pub fn result(&self) -> &wgpu::Buffer {
        self.outputs.last().expect("a fold has a pass")
    }
}
