//! The few lines of wgpu every hand-written wgpu version needs, written once: storage and
//! uniform buffers, a compute pipeline from WGSL, a bind group of buffers in binding order, a
//! submission of passes, a 2D grid for more workgroups than one dimension takes, and a read
//! back. No Brook here: the hand-written versions are what a wgpu programmer writes for each
//! algorithm, on the Brook wgpu runtime's own device and queue, so that both sides run on the
//! same adapter.

use std::borrow::Cow;

use crate::app::Env;
use crate::error::AppError;

/// The most workgroups one dispatch dimension may have (wgpu's default limit).
const MAX_GROUPS: u32 = 65535;

/// The device and queue the hand-written wgpu versions share with Brook's wgpu runtime.
#[derive(Clone)]
pub struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
}

/// A compute pipeline (entry point `main`), its bind group layout inferred from the WGSL.
pub struct Kernel(wgpu::ComputePipeline);

/// One dispatch: a kernel, its bind group and its workgroup grid.
pub type Pass<'a> = (&'a Kernel, &'a wgpu::BindGroup, [u32; 3]);

impl Gpu {
    /// The device of `env`'s Brook wgpu runtime.
    pub fn of(env: &Env) -> Result<Gpu, AppError> {
        let backend = (env.wgpu.as_wgpu())
            .ok_or_else(|| AppError::Wgpu("the wgpu runtime has no wgpu device".into()))?;
        Ok(Gpu {
            device: backend.device().clone(),
            queue: backend.queue().clone(),
        })
    }

    /// A storage buffer of `floats` 32-bit words, which may be copied to and from.
    pub fn storage(&self, floats: usize) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: (floats.max(1) * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// A uniform buffer holding `words` (floats as their bits), padded to 16 bytes.
    pub fn uniform(&self, words: &[u32]) -> wgpu::Buffer {
        let mut padded = words.to_vec();
        padded.resize(words.len().next_multiple_of(4).max(4), 0);
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: (padded.len() * 4) as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.queue
            .write_buffer(&buffer, 0, bytemuck::cast_slice(&padded));
        buffer
    }

    /// Fills `buffer` from `data` (streamRead's hand-written counterpart), waiting until done.
    pub fn upload(&self, buffer: &wgpu::Buffer, data: &[f32]) -> Result<(), AppError> {
        self.scoped("upload", || {
            self.queue
                .write_buffer(buffer, 0, bytemuck::cast_slice(data));
            self.queue.submit([]);
        })?;
        self.finish();
        Ok(())
    }

    /// The compute pipeline of `wgsl`'s entry point `main`, with wgpu's default runtime checks.
    pub fn kernel(&self, wgsl: &str) -> Result<Kernel, AppError> {
        self.scoped("a pipeline", || {
            let module = self
                .device
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: None,
                    source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(wgsl)),
                });
            Kernel(
                self.device
                    .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                        label: None,
                        layout: None,
                        module: &module,
                        entry_point: Some("main"),
                        compilation_options: Default::default(),
                        cache: None,
                    }),
            )
        })
    }

    /// A bind group of `kernel`'s group 0 binding `buffers` at 0, 1, 2, … (each a binding
    /// the WGSL uses: the layout is inferred from it).
    pub fn bind(
        &self,
        kernel: &Kernel,
        buffers: &[&wgpu::Buffer],
    ) -> Result<wgpu::BindGroup, AppError> {
        let entries: Vec<_> = (buffers.iter().enumerate())
            .map(|(k, b)| wgpu::BindGroupEntry {
                binding: k as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        self.scoped("a bind group", || {
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &kernel.0.get_bind_group_layout(0),
                entries: &entries,
            })
        })
    }

    /// `passes` in order, each its own compute pass, in one submission (errors reported).
    pub fn run(&self, passes: &[Pass]) -> Result<(), AppError> {
        self.scoped("a dispatch", || {
            let mut encoder = self.device.create_command_encoder(&Default::default());
            for (kernel, group, [x, y, z]) in passes {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_pipeline(&kernel.0);
                pass.set_bind_group(0, *group, &[]);
                pass.dispatch_workgroups(*x, *y, *z);
            }
            self.queue.submit([encoder.finish()]);
        })
    }

    /// Waits until the queue's work has finished.
    pub fn finish(&self) {
        // A lost device fails the next `run` or `read` with its reason; nothing to wait for.
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
    }

    /// The first `floats` values of `buffer`, read back through a mapped staging buffer.
    pub fn read(&self, buffer: &wgpu::Buffer, floats: usize) -> Result<Vec<f32>, AppError> {
        let bytes = (floats * 4) as u64;
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: bytes.max(4),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.scoped("a read back", || {
            let mut encoder = self.device.create_command_encoder(&Default::default());
            encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, bytes);
            self.queue.submit([encoder.finish()]);
        })?;
        let (tx, rx) = std::sync::mpsc::channel();
        staging
            .slice(..bytes)
            .map_async(wgpu::MapMode::Read, move |r| {
                let _ = tx.send(r);
            });
        self.finish();
        rx.recv()
            .map_err(|_| AppError::Wgpu("the read back was dropped".into()))?
            .map_err(|e| AppError::Wgpu(format!("mapping the read back: {e}")))?;
        let view = (staging.slice(..bytes).get_mapped_range())
            .map_err(|e| AppError::Wgpu(format!("the mapped read back: {e}")))?;
        let values = bytemuck::pod_collect_to_vec(&view);
        drop(view);
        staging.unmap();
        Ok(values)
    }

    /// Runs `work` inside wgpu error scopes: a validation or out-of-memory error becomes an
    /// [`AppError::Wgpu`] naming `what`.
    fn scoped<T>(&self, what: &str, work: impl FnOnce() -> T) -> Result<T, AppError> {
        let memory = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = work();
        let v = pollster::block_on(validation.pop());
        let m = pollster::block_on(memory.pop());
        match v.or(m) {
            Some(e) => Err(AppError::Wgpu(format!("{what}: {e}"))),
            None => Ok(value),
        }
    }
}

/// A grid of `ceil(threads / per_group)` workgroups: one row of up to 65535, more rows when
/// needed. A shader finds its thread's number as `gid.x + gid.y × num_workgroups.x ×
/// per_group` and skips numbers past the end.
pub fn grid(threads: usize, per_group: u32) -> [u32; 3] {
    let groups = (threads.max(1) as u64).div_ceil(u64::from(per_group)) as u32;
    let rows = groups.div_ceil(MAX_GROUPS);
    [groups.div_ceil(rows), rows, 1]
}

/// A fixed list of dispatches, made once and run as a whole: each its own submission (as
/// Brook submits each call), or all in one.
pub struct Sequence {
    kernels: Vec<Kernel>,
    /// Each dispatch: its kernel's index, bind group and grid.
    steps: Vec<(usize, wgpu::BindGroup, [u32; 3])>,
    together: bool,
}

impl Sequence {
    /// A sequence of `kernels`' dispatches, to be added with [`Sequence::push`].
    pub fn new(kernels: Vec<Kernel>, together: bool) -> Sequence {
        Sequence {
            kernels,
            steps: Vec::new(),
            together,
        }
    }

    /// Kernel `k`, for making its bind groups.
    pub fn kernel(&self, k: usize) -> &Kernel {
        &self.kernels[k]
    }

    /// Adds a dispatch of kernel `k` with `group` over the grid `size`.
    pub fn push(&mut self, k: usize, group: wgpu::BindGroup, size: [u32; 3]) {
        self.steps.push((k, group, size));
    }

    /// Runs every dispatch in order.
    pub fn run(&self, gpu: &Gpu) -> Result<(), AppError> {
        let passes: Vec<Pass> = (self.steps.iter())
            .map(|(k, group, size)| (&self.kernels[*k], group, *size))
            .collect();
        match self.together {
            true => gpu.run(&passes),
            false => passes.into_iter().try_for_each(|p| gpu.run(&[p])),
        }
    }
}
