//! Recording one Brook operation's commands: dispatches, copies and clears go into one
//! command encoder (each dispatch in a compute pass of its own, so WebGPU orders them), and
//! the same steps into the trace.

use crate::binds::BufferKey;
use crate::error::Result;
use crate::gpu::Gpu;
use crate::pipeline::{info_buffer, Pipeline};
use crate::shaders::dispatch_size;
use crate::trace::{Dispatch, Step};

/// A buffer bound by a dispatch, with its trace id.
pub type Bound<'b> = (&'b wgpu::Buffer, u32);

/// The workgroups of a dispatch, and what its shader multiplies `gid.y` by to number an
/// invocation (slot 0 `.y` of the call info).
#[derive(Debug, Clone, Copy)]
pub enum Grid {
    /// `threads` invocations in workgroups of `per_group`, numbered in order over as few rows
    /// as [`dispatch_size`] needs.
    Linear {
        /// The invocations the work needs.
        threads: u64,
        /// The shader's workgroup size.
        per_group: u32,
    },
    /// Workgroup counts chosen by the caller (a [`crate::shaders::rows_grid`]), each grid row
    /// numbered as `row` invocations (the columns past it idle in the shader).
    Set {
        /// The workgroups along x, y and z.
        groups: [u32; 3],
        /// The invocations a grid row numbers.
        row: u32,
    },
}

impl Grid {
    /// `threads` invocations in workgroups of `per_group`, numbered in order.
    pub fn linear(threads: u64, per_group: u32) -> Grid {
        Grid::Linear { threads, per_group }
    }

    /// The workgroup counts and the invocations the work needs; sets slot 0 `.y` of `info`
    /// to the invocations a grid row numbers, which the shaders need to number invocations.
    fn numbered(self, info: &mut [[u32; 4]]) -> ([u32; 3], u64) {
        match self {
            Grid::Linear { threads, per_group } => {
                let (groups, row) = dispatch_size(threads, per_group);
                info[0][1] = row;
                (groups, threads)
            }
            Grid::Set { groups, row } => {
                info[0][1] = row;
                (groups, u64::from(row) * u64::from(groups[1]))
            }
        }
    }
}

pub struct Work<'g> {
    gpu: &'g Gpu,
    encoder: wgpu::CommandEncoder,
    /// Whether the steps are recorded (the trace is on); a call with the trace off builds
    /// none of their labels and lists.
    tracing: bool,
    pub steps: Vec<Step>,
}

impl<'g> Work<'g> {
    pub fn new(gpu: &'g Gpu, tracing: bool) -> Work<'g> {
        Work {
            gpu,
            tracing,
            encoder: gpu.encoder("brook"),
            steps: Vec::new(),
        }
    }

    pub fn gpu(&self) -> &'g Gpu {
        self.gpu
    }

    /// Whether the steps are recorded: labels worth formatting.
    pub fn tracing(&self) -> bool {
        self.tracing
    }

    /// Dispatches `p` over `grid` with call info `info` (slot 0 `.y` is set to the
    /// invocations per grid row) and `buffers` in the pipeline's resource order, through a
    /// call-info buffer and bind group of its own.
    pub fn dispatch(
        &mut self,
        label: &str,
        p: &Pipeline,
        mut info: Vec<[u32; 4]>,
        buffers: &[Bound],
        grid: Grid,
    ) {
        let (groups, threads) = grid.numbered(&mut info);
        let group = p.bind(self.gpu, &info_buffer(self.gpu, &info), buffers);
        self.encode(label, p, &group, buffers, groups, threads);
    }

    /// Like [`Work::dispatch`] through a call-info buffer the pipeline keeps and, when
    /// `keys` names every buffer, a kept bind group ([`Pipeline::kept_bind`]), so a repeated
    /// call creates neither; over `grid`. For a pipeline dispatched fewer than
    /// [`crate::pipeline::KEPT_INFOS`] times per submission.
    pub fn dispatch_kept(
        &mut self,
        label: &str,
        p: &Pipeline,
        mut info: Vec<[u32; 4]>,
        buffers: &[Bound],
        keys: Option<&[BufferKey]>,
        grid: Grid,
    ) {
        let (groups, threads) = grid.numbered(&mut info);
        let group = p.kept_bind(self.gpu, &info, buffers, keys);
        self.encode(label, p, &group, buffers, groups, threads);
    }

    /// One compute pass of `p` with `group` over `groups`; its trace step when tracing.
    fn encode(
        &mut self,
        label: &str,
        p: &Pipeline,
        group: &wgpu::BindGroup,
        buffers: &[Bound],
        groups: [u32; 3],
        threads: u64,
    ) {
        {
            let mut pass = self
                .encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(label),
                    timestamp_writes: None,
                });
            pass.set_pipeline(&p.pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        }
        if !self.tracing {
            return;
        }
        self.steps.push(Step::Dispatch(Dispatch {
            label: label.to_string(),
            pipeline: p.id,
            source: p.source(),
            bindings: p
                .resources
                .iter()
                .zip(buffers)
                .map(|(r, (_, id))| (r.name.clone(), *id))
                .collect(),
            workgroups: groups,
            invocations: threads,
        }));
    }

    pub fn copy(
        &mut self,
        what: &str,
        src: &wgpu::Buffer,
        src_offset: u64,
        dst: &wgpu::Buffer,
        dst_offset: u64,
        bytes: u64,
    ) {
        if bytes == 0 {
            return;
        }
        self.encoder
            .copy_buffer_to_buffer(src, src_offset, dst, dst_offset, bytes);
        if self.tracing {
            self.steps.push(Step::Copy {
                what: what.to_string(),
                bytes,
            });
        }
    }

    pub fn clear(&mut self, what: &str, buffer: &wgpu::Buffer, bytes: u64) {
        self.encoder
            .clear_buffer(buffer, 0, Some(bytes.next_multiple_of(4)));
        if self.tracing {
            self.steps.push(Step::Clear {
                what: what.to_string(),
                bytes,
            });
        }
    }

    /// Submits the commands; returns the trace steps (none when not tracing).
    pub fn submit(self) -> Result<Vec<Step>> {
        self.gpu.submit(Some(self.encoder.finish()));
        Ok(self.steps)
    }

    /// Submits the commands with a copy of the bytes `range` of `buffer` after them, and
    /// reads those back ([`Gpu::read_back_after`]): one submission, as a hand-written
    /// reduction reads its value. Returns the trace steps and the bytes.
    pub fn submit_reading(
        self,
        buffer: &wgpu::Buffer,
        range: std::ops::Range<u64>,
    ) -> Result<(Vec<Step>, Vec<u8>)> {
        let bytes = (self.gpu).read_back_after(self.encoder, buffer, range, <[u8]>::to_vec)?;
        Ok((self.steps, bytes))
    }
}
