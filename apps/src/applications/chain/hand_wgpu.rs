//! The hand-written wgpu versions of a chain. Each program is a WGSL function
//! `fn next_texel(p: vec2<i32>) -> T` (`T` the texel: `f32`, `vec2<f32>` or `vec4<f32>`) the
//! application writes, reading the previous image through `at(x, y)` (Brook's gather rule: an
//! index off the image is clamped to its edge) and its constants, if its steps have any, as
//! `k[0]`, `k[1]`, … (one `vec4` each, in the step's order); the image's size is baked in as
//! `W` and `H`.
//!
//! - [`HandWgpuChain::same_passes`] runs what Brook's wgpu backend runs: one dispatch per pass,
//!   one invocation per texel in workgroups of 64 along the rows, each pass its own
//!   submission (as each Brook call is).
//! - [`HandWgpuChain::expert`] is what a wgpu programmer would write instead: 8 × 8 tiles of
//!   invocations (neighbours in a tile share the rows they gather), and every pass of the
//!   chain in one submission.

use crate::app::{Env, Variant};
use crate::error::AppError;
use crate::wgpukit::{grid, Gpu, Kernel};

use super::{Chain, Grid};

/// Constants per step, at most (each a `vec4`).
const MAX_CONSTANTS: usize = 4;

/// How the invocations are laid over the image and the passes submitted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Brook's: 64 invocations along the rows, one submission per pass.
    Rows,
    /// 8 × 8 tiles, one submission for the chain.
    Tiles,
}

/// What every pass declares before the application's `next_texel`; the constants only for a
/// program that has some (a binding the WGSL does not use is not in its layout).
fn header(g: Grid, constants: bool) -> String {
    let texel = texel(g);
    let (w, h) = (g.width, g.height);
    let k = match constants {
        true => format!("@group(0) @binding(2) var<uniform> k: array<vec4<f32>, {MAX_CONSTANTS}>;"),
        false => String::new(),
    };
    format!(
        "
const W: i32 = {w};
const H: i32 = {h};
@group(0) @binding(0) var<storage, read> src: array<{texel}>;
@group(0) @binding(1) var<storage, read_write> dst: array<{texel}>;
{k}
fn at(x: i32, y: i32) -> {texel} {{
    return src[clamp(y, 0, H - 1) * W + clamp(x, 0, W - 1)];
}}
"
    )
}

/// The entry point of each shape.
fn entry(shape: Shape) -> &'static str {
    match shape {
        Shape::Rows => {
            "
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let i = i32(g.x + g.y * nw.x * 64u);
    if i < W * H {
        dst[i] = next_texel(vec2<i32>(i % W, i / W));
    }
}
"
        }
        Shape::Tiles => {
            "
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let p = vec2<i32>(g.xy);
    if p.x < W && p.y < H {
        dst[p.y * W + p.x] = next_texel(p);
    }
}
"
        }
    }
}

/// The WGSL type of one texel.
fn texel(g: Grid) -> &'static str {
    match g.components {
        1 => "f32",
        2 => "vec2<f32>",
        _ => "vec4<f32>",
    }
}

pub struct HandWgpuChain {
    gpu: Gpu,
    shape: Shape,
    data: Vec<f32>,
    input: wgpu::Buffer,
    /// Each step's kernel index, bind group; the two images it ping-pongs through.
    steps: Vec<(usize, wgpu::BindGroup)>,
    kernels: Vec<Kernel>,
    scratch: [wgpu::Buffer; 2],
    grid: Grid,
    result: usize,
}

impl HandWgpuChain {
    /// Brook's passes by hand; `passes[i]` is program `i`'s WGSL `next_texel`.
    pub fn same_passes(env: &Env, chain: &Chain, passes: &[&str]) -> Result<Self, AppError> {
        HandWgpuChain::new(env, chain, passes, Shape::Rows)
    }

    /// The expert's tiles and single submission.
    pub fn expert(env: &Env, chain: &Chain, passes: &[&str]) -> Result<Self, AppError> {
        HandWgpuChain::new(env, chain, passes, Shape::Tiles)
    }

    fn new(env: &Env, chain: &Chain, passes: &[&str], shape: Shape) -> Result<Self, AppError> {
        let gpu = Gpu::of(env)?;
        let g = chain.grid;
        let has_constants = |program: usize| {
            (chain.steps.iter()).any(|s| s.program == program && !s.constants.is_empty())
        };
        let kernels = (passes.iter().enumerate())
            .map(|(i, p)| {
                let head = header(g, has_constants(i));
                gpu.kernel(&format!("{head}{p}{}", entry(shape)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let input = gpu.storage(g.len());
        let scratch = [gpu.storage(g.len()), gpu.storage(g.len())];
        let mut steps = Vec::new();
        for (i, step) in chain.steps.iter().enumerate() {
            if step.constants.len() > MAX_CONSTANTS {
                return Err(AppError::Usage(format!(
                    "more than {MAX_CONSTANTS} constants"
                )));
            }
            let mut words = vec![0u32; 4 * MAX_CONSTANTS];
            for (slot, (_, values)) in words.chunks_mut(4).zip(&step.constants) {
                for (w, v) in slot.iter_mut().zip(values) {
                    *w = v.to_bits();
                }
            }
            let constants = gpu.uniform(&words);
            let src = match i {
                0 => &input,
                _ => &scratch[Chain::target(i - 1)],
            };
            let dst = &scratch[Chain::target(i)];
            let mut bound = vec![src, dst];
            if has_constants(step.program) {
                bound.push(&constants);
            }
            let group = gpu.bind(&kernels[step.program], &bound)?;
            steps.push((step.program, group));
        }
        Ok(HandWgpuChain {
            gpu,
            shape,
            data: chain.input.clone(),
            input,
            steps,
            kernels,
            scratch,
            grid: g,
            result: chain.result(),
        })
    }
}

impl Variant for HandWgpuChain {
    fn upload(&mut self) -> Result<(), AppError> {
        self.gpu.upload(&self.input, &self.data)
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let g = self.grid;
        let passes = self.steps.iter().map(|(program, group)| {
            let size = match self.shape {
                Shape::Rows => grid(g.width * g.height, 64),
                Shape::Tiles => [g.width.div_ceil(8) as u32, g.height.div_ceil(8) as u32, 1],
            };
            (&self.kernels[*program], group, size)
        });
        match self.shape {
            Shape::Rows => passes.into_iter().try_for_each(|p| self.gpu.run(&[p])),
            Shape::Tiles => self.gpu.run(&passes.collect::<Vec<_>>()),
        }
    }

    fn sync(&self) {
        self.gpu.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        let texels = self.grid.width * self.grid.height;
        let floats = texels * usize::from(self.grid.components);
        self.gpu.read(&self.scratch[self.result], floats)
    }
}
