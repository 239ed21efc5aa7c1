//! The hand-written wgpu transfers that Brook wgpu's streamRead and streamWrite are measured
//! against (issue 34: transfers at the API's speed), on the Brook wgpu runtime's own device,
//! with the same host arrays: what a wgpu programmer writes — `queue.write_buffer` of each
//! input and a submit, and a read back that copies the result's buffer into a `MAP_READ`
//! staging buffer, maps it and copies the floats out once. GL's counterpart is each
//! application's hand-written GL version, whose upload and read back are plain
//! `texSubImage2D` and `readPixels`. The report ([`HandWgpu`]) and the transfer bench
//! (`benches/transfers.rs`) use the same pieces.

use std::time::{Duration, Instant};

use brook::wgpu_backend::wgpu;
use brook::Runtime;

use crate::error::AppError;

/// A storage buffer of `floats` floats that transfers copy to and from, as a hand-written
/// kernel's inputs and outputs are.
pub fn storage(device: &wgpu::Device, floats: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("hand-written transfer"),
        size: (floats.max(1) * 4) as u64,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// A `MAP_READ` staging buffer of `floats` floats for [`read_back_into`].
pub fn staging(device: &wgpu::Device, floats: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("hand-written read back"),
        size: (floats.max(1) * 4) as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The hand-written upload: `queue.write_buffer` of each of `inputs` into its buffer, then a
/// submit (which does not wait: [`wait`] does).
pub fn write(queue: &wgpu::Queue, buffers: &[wgpu::Buffer], inputs: &[&[f32]]) {
    for (buffer, data) in buffers.iter().zip(inputs) {
        queue.write_buffer(buffer, 0, bytemuck::cast_slice(data));
    }
    queue.submit([]);
}

/// Waits until the device's queued work has finished.
pub fn wait(device: &wgpu::Device) -> Result<(), AppError> {
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map(drop)
        .map_err(|e| AppError::Wgpu(e.to_string()))
}

/// The hand-written read back: the first `out.len()` floats of `source` copied into
/// `staging` (a [`staging`] buffer at least that large), mapped, and copied into `out` once.
pub fn read_back_into(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    source: &wgpu::Buffer,
    staging: &wgpu::Buffer,
    out: &mut [f32],
) -> Result<(), AppError> {
    let size = (out.len() * 4) as u64;
    if size == 0 {
        return Ok(());
    }
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(source, 0, staging, 0, size);
    queue.submit([encoder.finish()]);
    let slice = staging.slice(..size);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    wait(device)?;
    rx.recv()
        .map_err(|e| AppError::Wgpu(e.to_string()))?
        .map_err(|e| AppError::Wgpu(e.to_string()))?;
    let mapped = slice
        .get_mapped_range()
        .map_err(|e| AppError::Wgpu(e.to_string()))?;
    out.copy_from_slice(bytemuck::cast_slice(&mapped));
    drop(mapped);
    staging.unmap();
    Ok(())
}

/// The hand-written wgpu transfers of one application's arrays on the Brook wgpu runtime's
/// device, to time as often as Brook's: a buffer per input and one holding the result, made
/// before any timer starts, as Brook's streams are before streamRead.
pub struct HandWgpu<'a> {
    device: &'a wgpu::Device,
    queue: &'a wgpu::Queue,
    inputs: Vec<Vec<f32>>,
    buffers: Vec<wgpu::Buffer>,
    result: Vec<f32>,
    source: wgpu::Buffer,
}

impl<'a> HandWgpu<'a> {
    /// The transfers of `inputs` and of a result of `read` floats on `rt`'s device, holding
    /// `result` then zeros (`read` is what the Brook variant's streamWrite reads, which may be
    /// more than the `result` it keeps: [`crate::Variant::read_floats`]); `None` when `rt`
    /// is not wgpu or there is nothing to compare: no inputs.
    pub fn new(
        rt: &'a Runtime,
        inputs: &[&[f32]],
        result: &[f32],
        read: usize,
    ) -> Result<Option<HandWgpu<'a>>, AppError> {
        let Some(backend) = rt.as_wgpu() else {
            return Ok(None);
        };
        if inputs.is_empty() {
            return Ok(None);
        }
        let (device, queue) = (backend.device(), backend.queue());
        let mut result = result.to_vec();
        result.resize(read.max(result.len()), 0.0);
        let source = storage(device, result.len());
        write(queue, std::slice::from_ref(&source), &[&result]);
        wait(device)?;
        Ok(Some(HandWgpu {
            device,
            queue,
            inputs: inputs.iter().map(|d| d.to_vec()).collect(),
            buffers: inputs.iter().map(|d| storage(device, d.len())).collect(),
            result,
            source,
        }))
    }

    /// How many floats [`HandWgpu::download`] reads back.
    pub fn read_floats(&self) -> usize {
        self.result.len()
    }

    /// Times the upload of every input: written, submitted, the queue's work finished.
    pub fn upload(&self) -> Result<Duration, AppError> {
        let inputs: Vec<&[f32]> = self.inputs.iter().map(Vec::as_slice).collect();
        wait(self.device)?;
        let started = Instant::now();
        write(self.queue, &self.buffers, &inputs);
        wait(self.device)?;
        Ok(started.elapsed())
    }

    /// Times the read back of the result into a new host array (as Brook's download makes
    /// one) through a staging buffer made for the read, as the simplest hand-written read
    /// does, then what `keep` does with it (the Brook variant's [`crate::Variant::kept`]:
    /// what its download does after its read); the floats read must be the result's.
    pub fn download(
        &self,
        keep: &dyn Fn(Vec<f32>) -> Result<Vec<f32>, AppError>,
    ) -> Result<Duration, AppError> {
        let started = Instant::now();
        let mut back = vec![0.0; self.result.len()];
        let staging = staging(self.device, self.result.len());
        read_back_into(self.device, self.queue, &self.source, &staging, &mut back)?;
        let took = started.elapsed();
        let bits = |floats: &[f32]| bytemuck::cast_slice::<f32, u32>(floats).to_vec();
        if bits(&back) != bits(&self.result) {
            return Err(AppError::Mismatch(
                "the hand-written wgpu read back differs from what was written".into(),
            ));
        }
        let started = Instant::now();
        keep(back)?;
        Ok(took + started.elapsed())
    }
}
