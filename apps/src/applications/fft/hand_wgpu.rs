//! The FFT hand-written in wgpu: Brook's passes — the bit-reversal permutation, then one
//! radix-2 butterfly pass per level along the rows and then the columns, ping-ponging
//! between two pairs of `vec4` planes (re, im) — each one invocation per element in
//! workgroups of 64 along the rows. Indices are integers (`reverseBits`, shifts and masks)
//! where Brook's kernel computes them in floats. [`HandWgpuFft::same_passes`] submits each
//! pass on its own, as each Brook call is; [`HandWgpuFft::expert`] submits the whole
//! transform at once.

use super::Signal;
use crate::app::{Env, Variant};
use crate::error::AppError;
use crate::wgpukit::{grid, Gpu, Sequence};

/// What both passes declare: the size, and a pass's axis (0 rows, 1 columns), span and
/// twiddle stride.
const HEADER: &str = "
struct Pass { width: u32, height: u32, bits_x: u32, bits_y: u32, axis: u32, span: u32, stride: u32 }
@group(0) @binding(0) var<uniform> pass_: Pass;
@group(0) @binding(1) var<storage, read> re: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> im: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> ore: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> oim: array<vec4<f32>>;
fn element(g: vec3<u32>, nw: vec3<u32>) -> u32 {
    return g.x + g.y * nw.x * 64u;
}
";

const BITREVERSE: &str = "
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let i = element(g, nw);
    if i >= pass_.width * pass_.height {
        return;
    }
    let x = reverseBits(i % pass_.width) >> (32u - pass_.bits_x);
    let y = reverseBits(i / pass_.width) >> (32u - pass_.bits_y);
    let source = y * pass_.width + x;
    ore[i] = re[source];
    oim[i] = im[source];
}
";

const BUTTERFLY: &str = "
@group(0) @binding(5) var<storage, read> twiddle: array<vec2<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let i = element(g, nw);
    if i >= pass_.width * pass_.height {
        return;
    }
    // The element's position along the axis, and one step along it.
    let along = select(i / pass_.width, i % pass_.width, pass_.axis == 0u);
    let step = select(pass_.width, 1u, pass_.axis == 0u);
    let half = pass_.span / 2u;
    let k = along % pass_.span;
    let p = k % half;
    let even = i - (k - p) * step;
    let odd = even + half * step;
    let w = twiddle[p * pass_.stride];
    let tr = w.x * re[odd] - w.y * im[odd];
    let ti = w.x * im[odd] + w.y * re[odd];
    let s = select(-1.0, 1.0, k < half);
    ore[i] = re[even] + s * tr;
    oim[i] = im[even] + s * ti;
}
";

pub struct HandWgpuFft {
    gpu: Gpu,
    signal: Signal,
    twiddles: Vec<f32>,
    /// The input planes, then the two scratch pairs.
    input: [wgpu::Buffer; 2],
    twiddle: wgpu::Buffer,
    scratch: [[wgpu::Buffer; 2]; 2],
    /// Every pass: kernel 0 the bit reversal, 1 the butterfly.
    passes: Sequence,
    result: usize,
}

impl HandWgpuFft {
    /// Brook's passes, one submission each.
    pub fn same_passes(env: &Env, signal: Signal) -> Result<Self, AppError> {
        HandWgpuFft::new(env, signal, false)
    }

    /// The same passes in one submission.
    pub fn expert(env: &Env, signal: Signal) -> Result<Self, AppError> {
        HandWgpuFft::new(env, signal, true)
    }

    fn new(env: &Env, signal: Signal, together: bool) -> Result<Self, AppError> {
        let gpu = Gpu::of(env)?;
        let (w, h) = (signal.width, signal.height);
        let floats = signal.re.len();
        let plane = || gpu.storage(floats);
        let input = [plane(), plane()];
        let scratch = [[plane(), plane()], [plane(), plane()]];
        let twiddles = signal.twiddles();
        let twiddle = gpu.storage(twiddles.len());
        let kernels = vec![
            gpu.kernel(&format!("{HEADER}{BITREVERSE}"))?,
            gpu.kernel(&format!("{HEADER}{BUTTERFLY}"))?,
        ];
        let mut passes = Sequence::new(kernels, together);
        let size = grid(w * h, 64);
        let bits = [w.trailing_zeros(), h.trailing_zeros()];
        let uniform = |axis: u32, span: usize, stride: usize| {
            let words = [w as u32, h as u32, bits[0], bits[1], axis];
            gpu.uniform(&[&words[..], &[span as u32, stride as u32]].concat())
        };
        let reverse = uniform(0, 0, 0);
        let [i_re, i_im] = &input;
        let [o_re, o_im] = &scratch[0];
        let group = gpu.bind(passes.kernel(0), &[&reverse, i_re, i_im, o_re, o_im])?;
        passes.push(0, group, size);
        let longest = w.max(h);
        let rows = Signal::spans(w).map(|s| (0, s));
        let columns = Signal::spans(h).map(|s| (1, s));
        let mut current = 0;
        for (axis, span) in rows.chain(columns) {
            let info = uniform(axis, span, longest / span);
            let ([re, im], [ore, oim]) = (&scratch[current], &scratch[1 - current]);
            let group = gpu.bind(passes.kernel(1), &[&info, re, im, ore, oim, &twiddle])?;
            passes.push(1, group, size);
            current = 1 - current;
        }
        Ok(HandWgpuFft {
            gpu,
            signal,
            twiddles,
            input,
            twiddle,
            scratch,
            passes,
            result: current,
        })
    }
}

impl Variant for HandWgpuFft {
    fn upload(&mut self) -> Result<(), AppError> {
        let s = &self.signal;
        self.gpu.upload(&self.input[0], &s.re)?;
        self.gpu.upload(&self.input[1], &s.im)?;
        self.gpu.upload(&self.twiddle, &self.twiddles)
    }

    fn compute(&mut self) -> Result<(), AppError> {
        self.passes.run(&self.gpu)
    }

    fn sync(&self) {
        self.gpu.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        let [re, im] = &self.scratch[self.result];
        let floats = self.signal.re.len();
        let mut result = self.gpu.read(re, floats)?;
        result.extend(self.gpu.read(im, floats)?);
        Ok(result)
    }
}
