//! What the particles example draws, shared with the headless test: Brook kernels move
//! particles each frame, and the application's own render pipeline draws the particle
//! stream straight from its storage buffer, bound as a vertex buffer (no copy).

use std::rc::Rc;

use brook_ir::FunctionId;
use brook_wgpu::{KernelArg, Source, WgpuBackend, WgpuProgram, WgpuStream};

/// The Brook side: one kernel step moves every particle and bounces it off the walls.
pub const KERNELS: &str = "
kernel void step(float2 p<>, float2 v<>, float dt, out float2 np<>, out float2 nv<>) {
    float2 q = p + v * dt;
    float2 w = v;
    if (q.x < -0.95 || q.x > 0.95) { w.x = -w.x; }
    if (q.y < -0.95 || q.y > 0.95) { w.y = -w.y; }
    np = clamp(q, -0.95, 0.95);
    nv = w;
}
";

/// The application's own drawing: each particle a point at its position.
pub const DRAW: &str = "
@vertex fn vs(@location(0) p: vec2<f32>) -> @builtin(position) vec4<f32> {
    return vec4<f32>(p, 0.0, 1.0);
}
@fragment fn fs() -> @location(0) vec4<f32> {
    return vec4<f32>(1.0, 0.8, 0.2, 1.0);
}
";

pub struct Scene {
    pub brook: WgpuBackend,
    program: WgpuProgram,
    step: FunctionId,
    pub positions: WgpuStream,
    velocities: WgpuStream,
    pipeline: wgpu::RenderPipeline,
}

impl Scene {
    /// The scene on the application's device and queue, drawing into `format` targets.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        adapter: wgpu::AdapterInfo,
        format: wgpu::TextureFormat,
        count: usize,
    ) -> Scene {
        let brook = WgpuBackend::with_device(device.clone(), queue.clone(), adapter);
        let mut module =
            brook_frontend::compile(KERNELS, "particles.br").expect("the kernels compile");
        // What the runtime does before any backend: composite built-ins (`clamp`) written as
        // their formulas.
        brook_ir::lower_composites(&mut module);
        let program = brook.prepare(Rc::new(module), Some(Source::new("particles.br", KERNELS)));
        let step = program.module().function("step").expect("a step kernel").0;
        let positions = brook.create_stream(&[2], &[count]).expect("a stream");
        let velocities = brook.create_stream(&[2], &[count]).expect("a stream");
        // A spiral of particles, each moving along its tangent.
        let (mut p, mut v) = (Vec::with_capacity(2 * count), Vec::with_capacity(2 * count));
        for i in 0..count {
            let t = i as f32 / count as f32;
            let a = t * 40.0;
            p.extend_from_slice(&[0.8 * t * a.cos(), 0.8 * t * a.sin()]);
            v.extend_from_slice(&[-0.5 * a.sin(), 0.5 * a.cos()]);
        }
        brook.read(&positions, None, &p).expect("streamRead");
        brook.read(&velocities, None, &v).expect("streamRead");

        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("particles draw"),
            source: wgpu::ShaderSource::Wgsl(DRAW.into()),
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("particles draw"),
            bind_group_layouts: &[],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("particles draw"),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                // A float2 stream's buffer is an array of vec2<f32>: 8 bytes per element.
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: 8,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &wgpu::vertex_attr_array![0 => Float32x2],
                })],
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::PointList,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some("fs"),
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        Scene {
            brook,
            program,
            step,
            positions,
            velocities,
            pipeline,
        }
    }

    /// One frame: the Brook step (in place), then the draw of the positions into `view`.
    pub fn frame(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        view: &wgpu::TextureView,
        dt: f32,
    ) {
        let dt = [dt];
        self.brook
            .run_kernel(
                &self.program,
                self.step,
                &[
                    KernelArg::Stream(&self.positions),
                    KernelArg::Stream(&self.velocities),
                    KernelArg::Constant(&dt),
                    KernelArg::Stream(&self.positions),
                    KernelArg::Stream(&self.velocities),
                ],
            )
            .expect("the step kernel runs");
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("particles"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            pass.set_pipeline(&self.pipeline);
            let buffer = self.positions.buffer().expect("a data stream");
            pass.set_vertex_buffer(0, buffer.slice(..));
            pass.draw(0..self.positions.len() as u32, 0..1);
        }
        queue.submit([encoder.finish()]);
    }
}
