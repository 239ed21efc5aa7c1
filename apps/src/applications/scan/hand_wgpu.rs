//! The scan hand-written in wgpu: Brook's passes over the same [`Pyramid`] — a pair-sum pass
//! per level going up, a down-sweep pass per level coming back — each one invocation per
//! element in workgroups of 64 along the rows, with integer indices where Brook's kernels
//! compute them in floats. [`HandWgpuScan::same_passes`] submits each pass on its own, as
//! each Brook call is; [`HandWgpuScan::expert`] submits the whole sweep at once.

use super::pyramid::{Level, Pyramid};
use crate::app::{Env, Variant};
use crate::error::AppError;
use crate::wgpukit::{grid, Gpu, Sequence};

/// A pass's geometry (its output's width and height, the axis (1, 0) or (0, 1), the width of
/// the level below, its length along the axis, and the width of the level above), and its
/// entry point: the pass's `element` for each element of its output.
const HEADER: &str = "
struct Level { w: u32, h: u32, ax: u32, ay: u32, below_w: u32, length: u32, above_w: u32 }
@group(0) @binding(0) var<uniform> level: Level;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let i = g.x + g.y * nw.x * 64u;
    if i < level.w * level.h {
        element(i, vec2(level.ax, level.ay));
    }
}
";

const PAIR_SUM: &str = "
@group(0) @binding(1) var<storage, read> below: array<f32>;
@group(0) @binding(2) var<storage, read_write> sums: array<f32>;
fn element(i: u32, axis: vec2<u32>) {
    let left = vec2(i % level.w, i / level.w) * (1u + axis);
    let right = left + axis;
    var partner = 0.0;
    if dot(right, axis) < level.length {
        partner = below[right.y * level.below_w + right.x];
    }
    sums[i] = below[left.y * level.below_w + left.x] + partner;
}
";

const DOWN_SWEEP: &str = "
@group(0) @binding(1) var<storage, read> above: array<f32>;
@group(0) @binding(2) var<storage, read> own: array<f32>;
@group(0) @binding(3) var<storage, read_write> prefix: array<f32>;
fn element(i: u32, axis: vec2<u32>) {
    let at = vec2(i % level.w, i / level.w);
    let k = dot(at, axis);
    let parent = at - axis * (k - k / 2u);
    let inherited = above[parent.y * level.above_w + parent.x];
    if k % 2u == 1u {
        prefix[i] = inherited + own[i - dot(axis, vec2(1u, level.w))];
    } else {
        prefix[i] = inherited;
    }
}
";

pub(super) struct HandWgpuScan {
    gpu: Gpu,
    values: Vec<f32>,
    pyramid: Pyramid<wgpu::Buffer>,
    /// Every pass in order: kernel 0 the pair sums going up, 1 the down-sweep.
    passes: Sequence,
}

impl HandWgpuScan {
    /// Brook's passes, one submission each.
    pub fn same_passes(
        env: &Env,
        rows: usize,
        cols: usize,
        values: Vec<f32>,
    ) -> Result<Self, AppError> {
        HandWgpuScan::new(env, rows, cols, values, false)
    }

    /// The same passes in one submission.
    pub fn expert(env: &Env, rows: usize, cols: usize, values: Vec<f32>) -> Result<Self, AppError> {
        HandWgpuScan::new(env, rows, cols, values, true)
    }

    fn new(
        env: &Env,
        rows: usize,
        cols: usize,
        values: Vec<f32>,
        together: bool,
    ) -> Result<Self, AppError> {
        let gpu = Gpu::of(env)?;
        let pyramid = Pyramid::new(rows, cols, |r, c| Ok(gpu.storage(r * c)))?;
        let kernels = vec![
            gpu.kernel(&format!("{HEADER}{PAIR_SUM}"))?,
            gpu.kernel(&format!("{HEADER}{DOWN_SWEEP}"))?,
        ];
        let mut passes = Sequence::new(kernels, together);
        // The level below a level: its width (the level's own when the pass runs down the
        // columns, whose level is one column wide).
        let below_w = |l: &Level| if l.axis[0] == 1 { l.below } else { l.cols };
        let geometry = |w: usize, h: usize, l: &Level| {
            let words = [
                w,
                h,
                l.axis[0] as usize,
                l.axis[1] as usize,
                below_w(l),
                l.below,
                l.cols,
            ];
            gpu.uniform(&words.map(|v| v as u32))
        };
        // `sweep` makes every up pass, then every down pass.
        let (mut ups, mut downs) = (Vec::new(), Vec::new());
        pyramid.sweep(
            |l, below, sums| {
                let info = geometry(l.cols, l.rows, l);
                let group = gpu.bind(passes.kernel(0), &[&info, below, sums])?;
                ups.push((0, group, grid(l.rows * l.cols, 64)));
                Ok(())
            },
            |l, above, own, prefix| {
                let (w, h) = (below_w(l), if l.axis[0] == 1 { l.rows } else { l.below });
                let info = geometry(w, h, l);
                let group = gpu.bind(passes.kernel(1), &[&info, above, own, prefix])?;
                downs.push((1, group, grid(w * h, 64)));
                Ok(())
            },
        )?;
        for (k, group, size) in ups.into_iter().chain(downs) {
            passes.push(k, group, size);
        }
        Ok(HandWgpuScan {
            gpu,
            values,
            pyramid,
            passes,
        })
    }
}

impl Variant for HandWgpuScan {
    fn upload(&mut self) -> Result<(), AppError> {
        self.gpu.upload(&self.pyramid.values, &self.values)?;
        self.gpu.upload(&self.pyramid.top, &[0.0])
    }

    fn compute(&mut self) -> Result<(), AppError> {
        self.passes.run(&self.gpu)
    }

    fn sync(&self) {
        self.gpu.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        self.gpu.read(self.pyramid.result(), self.values.len())
    }
}
