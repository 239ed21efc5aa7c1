//! The hand-written wgpu transfers that Brook wgpu's streamRead and streamWrite are measured
//! against (issue 34: transfers at the API's speed), on the Brook wgpu runtime's own device,
//! with the same host arrays: what a wgpu programmer writes — `queue.write_buffer` of each
//! input, and a read back that copies the result's buffer into a `MAP_READ` staging buffer,
//! maps it and copies the floats out once. GL's counterpart is each application's
//! hand-written GL version, whose upload and read back are plain `texSubImage2D` and
//! `readPixels`.

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

/// Times the hand-written wgpu upload of `inputs` and read back of a buffer of
/// `result.len()` floats holding `result`, on `rt`'s device (`None` when `rt` is not wgpu or
/// there is nothing to compare: no inputs).
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
    let storage = |floats: usize| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("hand-written transfer"),
            size: (floats.max(1) * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    };
    // The buffers exist before the timer starts, as Brook's streams do before streamRead.
    let buffers: Vec<wgpu::Buffer> = inputs.iter().map(|data| storage(data.len())).collect();
    let wait = || {
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(drop)
            .map_err(|e| AppError::Wgpu(e.to_string()))
    };
    wait()?;
    let started = Instant::now();
    for (buffer, data) in buffers.iter().zip(inputs) {
        queue.write_buffer(buffer, 0, bytemuck::cast_slice(data));
    }
    queue.submit([]);
    wait()?;
    let upload = started.elapsed();

    let source = storage(result.len());
    queue.write_buffer(&source, 0, bytemuck::cast_slice(result));
    queue.submit([]);
    wait()?;
    let started = Instant::now();
    let back = read_back(device, queue, &source, result.len())?;
    let download = started.elapsed();
    if back != result {
        return Err(AppError::Mismatch(
            "the hand-written wgpu read back differs from what was written".into(),
        ));
    }
    Ok(Some(Transfers { upload, download }))
}

/// The first `floats` floats of `source`, through a staging buffer made for the read.
fn read_back(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    source: &wgpu::Buffer,
    floats: usize,
) -> Result<Vec<f32>, AppError> {
    let size = (floats.max(1) * 4) as u64;
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("hand-written read back"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(source, 0, &staging, 0, size);
    queue.submit([encoder.finish()]);
    let slice = staging.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| AppError::Wgpu(e.to_string()))?;
    rx.recv()
        .map_err(|e| AppError::Wgpu(e.to_string()))?
        .map_err(|e| AppError::Wgpu(e.to_string()))?;
    let mapped = slice
        .get_mapped_range()
        .map_err(|e| AppError::Wgpu(e.to_string()))?;
    let floats = bytemuck::pod_collect_to_vec(&mapped[..floats * 4]);
    drop(mapped);
    staging.unmap();
    Ok(floats)
}
