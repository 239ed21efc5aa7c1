//! The matrix–vector products hand-written in wgpu.
//!
//! - [`SamePasses`] runs what Brook's wgpu backend runs for each form: the row reduction with
//!   `A[i][j]·x[j]` computed in its first pass ([`Fold`], Brook's fused `map_reduce_to_stream`),
//!   then, for SGEMV, a kernel applying α and β (one submission each, as Brook's two calls); or
//!   the gather loop, one invocation per row in workgroups of 64.
//! - [`Expert`] is what a wgpu programmer would write instead: one dispatch, a workgroup per row
//!   whose 256 invocations stride across the row (neighbouring invocations read neighbouring
//!   elements), add their products as a tree in workgroup memory, and apply α and β in the same
//!   pass.

use super::{Form, Problem};
use crate::app::{Env, Variant};
use crate::applications::wgpu_fold::Fold;
use crate::error::AppError;
use crate::wgpukit::{grid, Gpu, Kernel};

/// The fused first pass's load: the product, `x` resized over the rows.
fn products(n: usize) -> String {
    format!(
        "
@group(0) @binding(2) var<storage, read> a: array<f32>;
@group(0) @binding(3) var<storage, read> x: array<f32>;
fn load(row: u32, k: u32) -> f32 {{ return a[row * {n}u + k] * x[k]; }}
"
    )
}

/// `result = α·ax + β·y`, one invocation per element (Brook's kernel, workgroups of 64).
const AXPBY: &str = "
struct Params { n: u32, alpha: f32, beta: f32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> ax: array<f32>;
@group(0) @binding(2) var<storage, read> y: array<f32>;
@group(0) @binding(3) var<storage, read_write> result: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let i = g.x + g.y * nw.x * 64u;
    if i < p.n {
        result[i] = p.alpha * ax[i] + p.beta * y[i];
    }
}
";

/// What the one-pass kernels bind: `n`, α, β, then `A`, `x`, `y` and the result.
const ONE_PASS: &str = "
struct Params { n: u32, alpha: f32, beta: f32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> y: array<f32>;
@group(0) @binding(4) var<storage, read_write> result: array<f32>;
";

/// The gather loop: one invocation per row.
const GATHER: &str = "
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let i = g.x + g.y * nw.x * 64u;
    if i >= p.n {
        return;
    }
    var sum = 0.0;
    for (var j = 0u; j < p.n; j++) {
        sum += a[i * p.n + j] * x[j];
    }
    result[i] = p.alpha * sum + p.beta * y[i];
}
";

/// The expert's one pass: a workgroup per row, strided products, a tree, α and β.
const ROWS: &str = "
var<workgroup> tree: array<f32, 256>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    let row = w.x + w.y * nw.x;
    if row >= p.n {
        return;
    }
    var sum = 0.0;
    for (var j = l; j < p.n; j += 256u) {
        sum += a[row * p.n + j] * x[j];
    }
    tree[l] = sum;
    for (var s = 128u; s > 0u; s /= 2u) {
        workgroupBarrier();
        if l < s {
            tree[l] += tree[l + s];
        }
    }
    if l == 0u {
        result[row] = p.alpha * tree[0] + p.beta * y[row];
    }
}
";

/// The device buffers of one problem: `A`, `x`, `y`, the result, and the uniform of `n`, α, β.
struct Buffers {
    gpu: Gpu,
    problem: Problem,
    a: wgpu::Buffer,
    x: wgpu::Buffer,
    y: wgpu::Buffer,
    result: wgpu::Buffer,
    params: wgpu::Buffer,
}

impl Buffers {
    fn new(env: &Env, problem: Problem) -> Result<Buffers, AppError> {
        let gpu = Gpu::of(env)?;
        let n = problem.n;
        let (alpha, beta) = problem.alpha_beta_or_plain();
        Ok(Buffers {
            a: gpu.storage(n * n),
            x: gpu.storage(n),
            y: gpu.storage(n),
            result: gpu.storage(n),
            params: gpu.uniform(&[n as u32, alpha.to_bits(), beta.to_bits()]),
            gpu,
            problem,
        })
    }

    fn upload(&self) -> Result<(), AppError> {
        let p = &self.problem;
        for (buffer, data) in [(&self.a, &p.a), (&self.x, &p.x), (&self.y, &p.y)] {
            self.gpu.upload(buffer, data)?;
        }
        Ok(())
    }
}

/// What the same-passes version dispatches.
enum Passes {
    /// The fused row sum, then (SGEMV) α and β.
    Reduce {
        fold: Fold,
        axpby: Option<(Kernel, wgpu::BindGroup)>,
    },
    /// The gather loop.
    Gather(Kernel, wgpu::BindGroup),
}

/// Brook's passes, written by hand.
pub struct SamePasses {
    buffers: Buffers,
    passes: Passes,
}

impl SamePasses {
    pub fn new(env: &Env, problem: Problem, form: Form) -> Result<Self, AppError> {
        let b = Buffers::new(env, problem)?;
        let (gpu, n) = (&b.gpu, b.problem.n);
        let passes = match form {
            Form::Reduce => {
                let fold = Fold::new(gpu, n, n, &products(n), &[&b.a, &b.x])?;
                let axpby = match b.problem.alpha_beta {
                    Some(_) => {
                        let k = gpu.kernel(AXPBY)?;
                        let group = gpu.bind(&k, &[&b.params, fold.result(), &b.y, &b.result])?;
                        Some((k, group))
                    }
                    None => None,
                };
                Passes::Reduce { fold, axpby }
            }
            Form::Gather => {
                let k = gpu.kernel(&format!("{ONE_PASS}{GATHER}"))?;
                let group = gpu.bind(&k, &[&b.params, &b.a, &b.x, &b.y, &b.result])?;
                Passes::Gather(k, group)
            }
        };
        Ok(SamePasses { buffers: b, passes })
    }
}

impl Variant for SamePasses {
    fn upload(&mut self) -> Result<(), AppError> {
        self.buffers.upload()
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let (gpu, n) = (&self.buffers.gpu, self.buffers.problem.n);
        match &self.passes {
            Passes::Reduce { fold, axpby } => {
                gpu.run(&fold.passes())?;
                if let Some((k, group)) = axpby {
                    gpu.run(&[(k, group, grid(n, 64))])?;
                }
            }
            Passes::Gather(k, group) => gpu.run(&[(k, group, grid(n, 64))])?,
        }
        Ok(())
    }

    fn sync(&self) {
        self.buffers.gpu.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        let b = &self.buffers;
        let result = match &self.passes {
            Passes::Reduce { fold, axpby: None } => fold.result(),
            _ => &b.result,
        };
        b.gpu.read(result, b.problem.n)
    }
}

/// The expert's single pass.
pub struct Expert {
    buffers: Buffers,
    kernel: Kernel,
    group: wgpu::BindGroup,
}

impl Expert {
    pub fn new(env: &Env, problem: Problem) -> Result<Self, AppError> {
        let b = Buffers::new(env, problem)?;
        let kernel = b.gpu.kernel(&format!("{ONE_PASS}{ROWS}"))?;
        let group = (b.gpu).bind(&kernel, &[&b.params, &b.a, &b.x, &b.y, &b.result])?;
        Ok(Expert {
            buffers: b,
            kernel,
            group,
        })
    }
}

impl Variant for Expert {
    fn upload(&mut self) -> Result<(), AppError> {
        self.buffers.upload()
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let b = &self.buffers;
        b.gpu
            .run(&[(&self.kernel, &self.group, grid(b.problem.n * 256, 256))])
    }

    fn sync(&self) {
        self.buffers.gpu.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        let b = &self.buffers;
        b.gpu.read(&b.result, b.problem.n)
    }
}
