//! A hand-written wgpu version that is one dispatch: input buffers filled from host data, one
//! output buffer, one WGSL kernel run by one invocation per output element in workgroups of
//! 64 along the rows (Brook's kernel calls' shape), then the output read back. SAXPY and
//! matmul are this.

use crate::app::{Env, Variant};
use crate::error::AppError;
use crate::wgpukit::{grid, Gpu, Kernel};

pub struct OnePass {
    gpu: Gpu,
    inputs: Vec<(wgpu::Buffer, Vec<f32>)>,
    output: wgpu::Buffer,
    /// Floats in the output.
    floats: usize,
    /// Invocations of the dispatch.
    threads: usize,
    kernel: Kernel,
    group: wgpu::BindGroup,
    /// Kept alive with the bind group that holds it.
    _uniform: Option<wgpu::Buffer>,
}

impl OnePass {
    /// `wgsl` binds `inputs` at 0, 1, …, the output (`floats` floats) after them, and
    /// `uniform`'s words (if any) after that; it runs `threads` invocations.
    pub fn new(
        env: &Env,
        wgsl: &str,
        inputs: Vec<Vec<f32>>,
        uniform: Option<&[u32]>,
        floats: usize,
        threads: usize,
    ) -> Result<OnePass, AppError> {
        let gpu = Gpu::of(env)?;
        let kernel = gpu.kernel(wgsl)?;
        let inputs: Vec<_> = (inputs.into_iter())
            .map(|data| (gpu.storage(data.len()), data))
            .collect();
        let output = gpu.storage(floats);
        let uniform = uniform.map(|words| gpu.uniform(words));
        let mut bound: Vec<&wgpu::Buffer> = inputs.iter().map(|(b, _)| b).collect();
        bound.push(&output);
        bound.extend(&uniform);
        let group = gpu.bind(&kernel, &bound)?;
        Ok(OnePass {
            gpu,
            inputs,
            output,
            floats,
            threads,
            kernel,
            group,
            _uniform: uniform,
        })
    }
}

impl Variant for OnePass {
    fn upload(&mut self) -> Result<(), AppError> {
        for (buffer, data) in &self.inputs {
            self.gpu.upload(buffer, data)?;
        }
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let size = grid(self.threads, 64);
        self.gpu.run(&[(&self.kernel, &self.group, size)])
    }

    fn sync(&self) {
        self.gpu.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        self.gpu.read(&self.output, self.floats)
    }
}
