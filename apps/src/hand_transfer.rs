//! The hand-written wgpu transfers that Brook wgpu's streamRead and streamWrite are measured
//! against (issue 34: transfers at the API's speed), on the Brook wgpu runtime's own device,
//! with the same host arrays: what a wgpu programmer writes — `queue.write_buffer` of each
//! input and a submit, and a read back that copies the result's buffer into a `MAP_READ`
//! staging buffer, maps it and copies the floats out once. GL's counterpart is each
//! application's hand-written GL version, whose upload and read back are plain
//! `texSubImage2D` and `readPixels`. The report ([`wgpu`]) and the transfer bench
//! (`benches/transfers.rs`) use the same pieces.

use std::time::{Duration, Instant};

use brook::wgpu_backend::wgpu;
use brook::Runtime;

use crate::error::AppError;

/// The hand-written upload of some inputs and read back of a result, timed like Brook's:
/// from the host arrays to the data on the device, the device's work finished, and back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transfers {
    /// Every input written to its buffer, the queue's work finished.
    pub upload: Duration,
    /// The result copied to a staging buffer, mapped and copied into a host array.
    pub download: Duration,
}

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

/// Times the hand-written wgpu upload of `inputs` and read back of a buffer of
/// `result.len()` floats holding `result`, on `rt`'s device (`None` when `rt` is not wgpu or
/// there is nothing to compare: no inputs). The read back makes its staging buffer, as the
/// simplest hand-written read does.
pub fn wgpu(
    rt: &Runtime,
    inputs: &[&[f32]],
    result: &[f32],
) -> Result<Option<Transfers>, AppError> {
    let Some(backend) = rt.as_wgpu() else {
        return Ok(None);
    };
    if inputs.is_empty() {
        return Ok(None);
    }
    let (device, queue) = (backend.device(), backend.queue());
    // The buffers exist before the timer starts, as Brook's streams do before streamRead.
    let buffers: Vec<wgpu::Buffer> = inputs.iter().map(|d| storage(device, d.len())).collect();
    wait(device)?;
    let started = Instant::now();
    write(queue, &buffers, inputs);
    wait(device)?;
    let upload = started.elapsed();

    let source = storage(device, result.len());
    write(queue, std::slice::from_ref(&source), &[result]);
    wait(device)?;
    let started = Instant::now();
    let mut back = vec![0.0; result.len()];
    read_back_into(
        device,
        queue,
        &source,
        &staging(device, result.len()),
        &mut back,
    )?;
    let download = started.elapsed();
    if back != result {
        return Err(AppError::Mismatch(
            "the hand-written wgpu read back differs from what was written".into(),
        ));
    }
    Ok(Some(Transfers { upload, download }))
}
