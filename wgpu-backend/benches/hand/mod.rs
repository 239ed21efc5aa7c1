//! Hand-written wgpu compute: what a wgpu programmer writes without Brook (WGSL, one
//! pipeline, bind groups made once), on the Brook backend's own device so the comparison
//! is on the same adapter.

use wgpu::util::DeviceExt;

pub struct Hand {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
}

impl Hand {
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Hand {
        Hand {
            device: device.clone(),
            queue: queue.clone(),
        }
    }

    pub fn buffer(&self, data: &[f32]) -> wgpu::Buffer {
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: bytemuck::cast_slice(data),
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
            })
    }

    pub fn uniform(&self, data: &[u32]) -> wgpu::Buffer {
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: bytemuck::cast_slice(data),
                usage: wgpu::BufferUsages::UNIFORM,
            })
    }

    /// A compute pipeline from WGSL with its layout inferred.
    pub fn pipeline(&self, wgsl: &str) -> wgpu::ComputePipeline {
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: None,
                source: wgpu::ShaderSource::Wgsl(wgsl.into()),
            });
        self.device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: None,
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            })
    }

    pub fn bind(&self, p: &wgpu::ComputePipeline, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        let entries: Vec<_> = buffers
            .iter()
            .enumerate()
            .map(|(k, b)| wgpu::BindGroupEntry {
                binding: k as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &p.get_bind_group_layout(0),
            entries: &entries,
        })
    }

    /// One dispatch of `groups` workgroups, submitted.
    pub fn dispatch(&self, p: &wgpu::ComputePipeline, g: &wgpu::BindGroup, groups: [u32; 3]) {
        let mut enc = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(p);
            pass.set_bind_group(0, g, &[]);
            pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        }
        self.queue.submit([enc.finish()]);
    }

    /// Several dispatches in one submission.
    pub fn dispatches(&self, steps: &[(&wgpu::ComputePipeline, &wgpu::BindGroup, [u32; 3])]) {
        let mut enc = self.device.create_command_encoder(&Default::default());
        for &(p, g, groups) in steps {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(p);
            pass.set_bind_group(0, g, &[]);
            pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        }
        self.queue.submit([enc.finish()]);
    }

    pub fn finish(&self) {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("the queue drains");
    }

    /// The first `n` floats of `b`, read back.
    pub fn read(&self, b: &wgpu::Buffer, n: usize) -> Vec<f32> {
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: (n * 4) as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(b, 0, &staging, 0, (n * 4) as u64);
        self.queue.submit([enc.finish()]);
        staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, |r| r.expect("mapped"));
        self.finish();
        let v =
            bytemuck::pod_collect_to_vec(&staging.slice(..).get_mapped_range().expect("mapped"));
        staging.unmap();
        v
    }
}
