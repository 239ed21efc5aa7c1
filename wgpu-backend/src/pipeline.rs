//! Compute pipelines from naga modules: validated by naga first (a failure points at the
//! Brook line the bad expression came from), handed to wgpu as `ShaderSource::Naga`, with an
//! explicit bind group layout (binding 0 the call-info uniform, then storage buffers).

use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::sync::Arc;

use brook_core::ShaderSource;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::binds::{BindGroups, BufferKey, KeyedBuffer};
use crate::error::{Result, WgpuError};
use crate::gpu::Gpu;
use crate::shaders::kernel::{KernelPlan, KernelVariant};
use crate::shaders::reduce::PassLayout;
use crate::shaders::Resource;
use crate::work::Bound;

/// Where a Brook program came from, to map shader errors to lines: brook-core's source text.
pub use brook_core::SourceText as Source;

/// A compute pipeline with what it was made from.
pub struct Pipeline {
    /// The wgpu pipeline, ready to dispatch.
    pub pipeline: wgpu::ComputePipeline,
    /// Its bind group layout: the info uniform at binding 0, then `resources`.
    pub layout: wgpu::BindGroupLayout,
    /// The storage buffers it binds from binding 1, in order.
    pub resources: Vec<Resource>,
    /// Where a call puts its values and buffers: planned with the shader and kept with it,
    /// so that a call finds the plan with the pipeline instead of planning again.
    pub plan: Plan,
    /// The validated module, for printing its WGSL.
    pub module: naga::Module,
    /// What naga's validator found out about `module` (needed to print it as WGSL).
    pub module_info: naga::valid::ModuleInfo,
    /// A number for the trace.
    pub id: u32,
    /// What it runs, for the trace (`kernel saxpy`, `reduce sum pass`, …).
    pub label: String,
    /// Its WGSL for the trace, printed on its first dispatch and shared by every later one.
    source: OnceCell<Arc<ShaderSource>>,
    /// Call-info buffers kept with the slots each holds, most recently used last
    /// ([`Pipeline::kept_bind`]).
    infos: RefCell<Vec<(KeyedBuffer, Vec<[u32; 4]>)>>,
    /// Where its bind groups are kept.
    binds: Arc<BindGroups>,
}

/// How the host fills a pipeline's call info and binds its resources: the plan its shader was
/// generated from.
#[derive(Debug)]
pub enum Plan {
    /// A kernel's variant (its pipeline key's) and its slots and resources.
    Kernel(std::rc::Rc<KernelVariant>, KernelPlan),
    /// A reduction pass's (with a fused kernel's).
    Reduce(PassLayout),
    /// Nothing beyond the resources (scatter rounds, fixed shaders): the call binds them in
    /// order.
    Resources,
}

impl Pipeline {
    /// The variant and plan of a kernel's pipeline.
    pub fn kernel_plan(&self) -> (&KernelVariant, &KernelPlan) {
        match &self.plan {
            Plan::Kernel(v, p) => (v, p),
            _ => unreachable!("pipeline `{}` is no kernel's", self.label),
        }
    }

    /// The layout of a reduction pass's pipeline.
    pub fn pass_layout(&self) -> &PassLayout {
        match &self.plan {
            Plan::Reduce(l) => l,
            _ => unreachable!("pipeline `{}` is no reduction pass's", self.label),
        }
    }

    /// The WGSL of the module, for people.
    pub fn wgsl(&self) -> String {
        crate::lower::module::wgsl(&self.module, &self.module_info)
    }

    /// The WGSL as the pass trace carries it.
    pub fn source(&self) -> Arc<ShaderSource> {
        self.source
            .get_or_init(|| Arc::new(ShaderSource::Compute(self.wgsl())))
            .clone()
    }

    /// A bind group of `info` (the uniform) and `buffers` (in resource order).
    pub fn bind(&self, gpu: &Gpu, info: &wgpu::Buffer, buffers: &[Bound]) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = std::iter::once(info)
            .chain(buffers.iter().map(|(b, _)| *b))
            .enumerate()
            .map(|(k, b)| wgpu::BindGroupEntry {
                binding: k as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        gpu.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&self.label),
            layout: &self.layout,
            entries: &entries,
        })
    }

    /// A bind group of a call-info buffer holding `info` and `buffers`: kept and reused when
    /// `keys` names every buffer, made afresh otherwise (a call that binds a scratch buffer of
    /// its own).
    ///
    /// The pipeline keeps one info buffer per distinct `info` it was called with (at most
    /// [`KEPT_INFOS`]), so a loop that calls a kernel with a few sets of constants (a sort's
    /// stages, a scan's offsets, ping-pong extents) writes no buffer and makes no bind group
    /// after its first round, as a hand-written wgpu loop makes its uniforms once. When all
    /// are taken (a constant that changes every call), the least recently used one is
    /// rewritten with `queue.write_buffer`, keeping its bind groups.
    ///
    /// For a pipeline dispatched at most once per submission (a kernel's): a buffer written
    /// with `queue.write_buffer` holds the new values for every dispatch of the next
    /// submission, so two dispatches of one submission could both see the last write.
    pub fn kept_bind(
        &self,
        gpu: &Gpu,
        info: &[[u32; 4]],
        buffers: &[Bound],
        keys: Option<&[BufferKey]>,
    ) -> wgpu::BindGroup {
        let (info_buf, info_key) = self.kept_info(gpu, info);
        match keys {
            Some(keys) => {
                let keys: Vec<BufferKey> = std::iter::once(info_key)
                    .chain(keys.iter().copied())
                    .collect();
                self.binds
                    .get_or_make(self.id, &keys, || self.bind(gpu, &info_buf, buffers))
            }
            None => self.bind(gpu, &info_buf, buffers),
        }
    }

    /// The kept info buffer holding `info` (made now if none does) and its key.
    fn kept_info(&self, gpu: &Gpu, info: &[[u32; 4]]) -> (wgpu::Buffer, BufferKey) {
        let mut infos = self.infos.borrow_mut();
        let kept = match infos.iter().position(|(_, held)| held.as_slice() == info) {
            Some(at) => infos.remove(at),
            // A pipeline's info has one size; the check keeps a mistake from writing past it.
            None if infos.len() >= KEPT_INFOS && infos[0].1.len() == info.len() => {
                let (buffer, mut held) = infos.remove(0);
                gpu.write_buffer(buffer.buffer(), 0, bytemuck::cast_slice(info));
                held.copy_from_slice(info);
                (buffer, held)
            }
            None => {
                if infos.len() >= KEPT_INFOS {
                    infos.remove(0);
                }
                (
                    KeyedBuffer::new(info_buffer(gpu, info), &gpu.binds),
                    info.to_vec(),
                )
            }
        };
        let found = (kept.0.buffer().clone(), kept.0.key());
        infos.push(kept);
        found
    }

    /// Forgets the bind groups kept for this pipeline (after a failed call, so that one
    /// wgpu refused is not reused).
    pub fn forget_bind_groups(&self) {
        self.binds.forget_pipeline(self.id);
    }
}

impl Drop for Pipeline {
    /// Its kept bind groups hold its layout and buffers: they go with it.
    fn drop(&mut self) {
        self.binds.forget_pipeline(self.id);
    }
}

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// The most call-info buffers a pipeline keeps ([`Pipeline::kept_bind`]): more distinct
/// constants than a loop's stages (a bitonic sort of 2^20 floats has 210), each a few hundred
/// bytes.
pub const KEPT_INFOS: usize = 256;

/// Whether naga guards a module's indexing at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bounds {
    /// naga clamps every index into its array, vector, matrix or buffer (wgpu's default):
    /// for the reduction, scatter and fixed shaders, whose indices come from pass geometry.
    Checked,
    /// No bounds checks from naga: the module is a kernel's (`shaders/kernel.rs`), every one
    /// of whose indices Brook's own rules already keep in range, so naga's clamp is a second,
    /// redundant one per access (issue 34; measured in `docs/performance.md`, "wgpu").
    /// - An element read or write is at the invocation's id, behind `id < count` (the
    ///   call's elements), or at the id resized or offset through a domain, which the gate
    ///   has checked lies inside its stream (`brook_core::call`); every output has the call's
    ///   shape (`ops/kernel.rs` refuses one that does not).
    /// - A gather index is rounded and clamped into `[0, extent − 1]` per dimension by
    ///   Brook's index rule (`lower/address.rs`), with the gathered stream's own extents.
    /// - A subscript of a local array, vector or matrix is clamped into its length
    ///   (`lower/expr.rs`'s `clamped_index`), as on the CPU.
    /// - Vout candidates, the write mask, the query counter and the loop status are indexed
    ///   by the id or by a candidate number below the vout's declared count.
    ///
    /// Division checks and loop bounding stay on: nothing here proves a divisor non-zero.
    /// `tests/wgpu_backend.rs` checks that out-of-range gathers and subscripts still read the
    /// elements Brook's rule picks.
    BrookClamped,
}

/// Validates `module` and makes its pipeline, with naga's bounds checks as `bounds` says.
/// `function` and `source` name the Brook function a validation error is reported against.
pub fn build(
    gpu: &Gpu,
    label: String,
    mut module: naga::Module,
    (resources, plan): (Vec<Resource>, Plan),
    function: &str,
    source: Option<&Source>,
    bounds: Bounds,
) -> Result<Pipeline> {
    let module_info = crate::lower::module::validate(&mut module).map_err(|(message, span)| {
        shader_error(
            function,
            source,
            span.and_then(|s| s.to_range()).map(|r| r.start),
            message,
        )
    })?;
    gpu.scoped(format_args!("creating the pipeline of {label}"), || {
        let exact = match gpu.math.get() {
            brook_ir::MathMode::Accurate => gpu.exact.as_ref(),
            brook_ir::MathMode::Fast => None,
        };
        let shader = match exact {
            Some(exact) => {
                let spirv = exact
                    .write(&module, &module_info, bounds)
                    .map_err(|e| shader_error(function, source, None, e))?;
                let entry = wgpu::PassthroughShaderEntryPoint {
                    name: "main".into(),
                    workgroup_size: workgroup_size(&module),
                };
                // SAFETY: naga validated the module and wrote it; the marks `exact.rs` adds
                // are decorations and an execution mode the device said it supports.
                unsafe {
                    gpu.device.create_shader_module_passthrough(
                        wgpu::ShaderModuleDescriptorPassthrough {
                            label: Some(&label),
                            entry_points: Cow::Owned(vec![entry]),
                            spirv: Some(Cow::Owned(spirv)),
                            ..Default::default()
                        },
                    )
                }
            }
            None => {
                let descriptor = wgpu::ShaderModuleDescriptor {
                    label: Some(&label),
                    source: wgpu::ShaderSource::Naga(Cow::Owned(module.clone())),
                };
                match bounds {
                    Bounds::Checked => gpu.device.create_shader_module(descriptor),
                    // SAFETY: every index of a kernel's module is in range by construction
                    // (`Bounds::BrookClamped`); division checks and loop bounding stay on.
                    Bounds::BrookClamped => unsafe {
                        (gpu.device).create_shader_module_trusted(descriptor, brook_shader_checks())
                    },
                }
            }
        };
        let mut entries = vec![wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }];
        for (k, r) in resources.iter().enumerate() {
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: k as u32 + 1,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage {
                        read_only: !r.writable,
                    },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            });
        }
        let layout = gpu
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(&label),
                entries: &entries,
            });
        let pipeline_layout = gpu
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(&label),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
        gpu.count(|c| c.pipelines += 1);
        let pipeline = gpu
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&label),
                layout: Some(&pipeline_layout),
                module: &shader,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
        Ok(Pipeline {
            pipeline,
            layout,
            resources,
            plan,
            module,
            module_info,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            label: label.clone(),
            source: OnceCell::new(),
            infos: RefCell::default(),
            binds: gpu.binds.clone(),
        })
    })
}

/// The runtime checks a [`Bounds::BrookClamped`] module is built with through wgpu: no bounds
/// checks, division checks and loop bounding on.
fn brook_shader_checks() -> wgpu::ShaderRuntimeChecks {
    let mut checks = wgpu::ShaderRuntimeChecks::checked();
    checks.bounds_checks = false;
    checks
}

/// A shader error at byte `at` of the Brook source, as `file:line`.
pub fn shader_error(
    function: &str,
    source: Option<&Source>,
    at: Option<usize>,
    message: String,
) -> WgpuError {
    let place = match (source, at) {
        (Some(s), Some(at)) => {
            let line = s.text[..at.min(s.text.len())].matches('\n').count() + 1;
            format!("{}:{line}", s.name)
        }
        (Some(s), None) => s.name.clone(),
        (None, Some(at)) => format!("byte {at}"),
        (None, None) => "<program>".into(),
    };
    WgpuError::Shader {
        function: function.to_string(),
        place,
        message,
    }
}

/// A uniform buffer holding `slots` (the call info of one dispatch).
pub fn info_buffer(gpu: &Gpu, slots: &[[u32; 4]]) -> wgpu::Buffer {
    let data: &[u8] = bytemuck::cast_slice(slots);
    let size = (data.len() as u64).max(16);
    let mut padded = data.to_vec();
    padded.resize(size as usize, 0);
    let buf = gpu.create_buffer(&wgpu::BufferDescriptor {
        label: Some("brook call info"),
        size,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: true,
    });
    if let Ok(mut m) = buf.slice(..).get_mapped_range_mut() {
        m.copy_from_slice(&padded);
    }
    buf.unmap();
    buf
}

/// A scratch storage buffer of `bytes` (at least 4).
pub fn scratch(gpu: &Gpu, label: &str, bytes: u64) -> wgpu::Buffer {
    gpu.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(4).next_multiple_of(4),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The workgroup size of `module`'s entry point `main` (what a passthrough module declares).
fn workgroup_size(module: &naga::Module) -> (u32, u32, u32) {
    module
        .entry_points
        .iter()
        .find(|e| e.name == "main")
        .map_or((1, 1, 1), |e| {
            let [x, y, z] = e.workgroup_size;
            (x, y, z)
        })
}

/// A shader that naga's validator refuses is reported at the Brook line its bad expression
/// came from (every naga expression and statement carries the Brook byte range it lowers),
/// as a driver's GLSL compile error is mapped back on the GL backend. A unit test: only a
/// module broken on purpose gets here, which no call through the runtime can make.
#[cfg(test)]
mod tests {
    use super::{build, Source};
    use crate::error::WgpuError;
    use crate::gpu::Gpu;
    use crate::shaders::kernel::{kernel_module, ArgShape, KernelVariant};

    const SRC: &str =
        "kernel void k(float a<>, out float r<>) {\n    float t = a;\n    r = t;\n}\n";

    #[test]
    fn a_validation_failure_points_at_the_brook_line() {
        let module = brook_frontend::compile(SRC, "prog.br").unwrap();
        let variant = KernelVariant {
            kernel: brook_ir::FunctionId(0),
            args: vec![
                ArgShape::Stream {
                    direct: true,
                    domain: false,
                    rank: 1,
                    aliased: false,
                    resize: Default::default(),
                },
                ArgShape::Out { domain: false },
            ],
            rank: 1,
            masked: false,
            sets_mask: false,
            counting: false,
            check_loops: false,
            rows: false,
        };
        let (mut naga_module, plan) =
            kernel_module(&module, &variant, brook_ir::MathMode::Accurate).unwrap();
        // Break the lowered `r = t;` (line 3): store through something that is not a pointer.
        let line3 = SRC.find("r = t").unwrap() as u32;
        let span = naga::Span::new(line3, line3 + 5);
        let (_, f) = naga_module.functions.iter_mut().next().unwrap();
        let not_a_pointer = f
            .expressions
            .append(naga::Expression::Literal(naga::Literal::F32(1.0)), span);
        let value = f
            .expressions
            .append(naga::Expression::Literal(naga::Literal::F32(2.0)), span);
        f.body.push(
            naga::Statement::Store {
                pointer: not_a_pointer,
                value,
            },
            span,
        );

        let gpu = Gpu::headless().unwrap();
        let source = Source::new("prog.br", SRC);
        let err = build(
            &gpu,
            "kernel k".into(),
            naga_module,
            (plan.resources, super::Plan::Resources),
            "k",
            Some(&source),
            super::Bounds::BrookClamped,
        )
        .err()
        .expect("the module is invalid");
        match &err {
            WgpuError::Shader {
                function, place, ..
            } => {
                assert_eq!(function, "k");
                assert_eq!(place, "prog.br:3", "{err}");
            }
            other => panic!("expected a shader error, got {other}"),
        }
        assert!(
            err.to_string()
                .starts_with("prog.br:3: the compute shader generated for `k` is invalid"),
            "{err}"
        );
    }
}
