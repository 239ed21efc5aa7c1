//! Streams as storage buffers.
//!
//! A stream is one buffer of `f32`s in C layout: elements row-major (last dimension
//! fastest), each element's members back to back (`struct {float a; float3 b;}` is
//! `a b.x b.y b.z`). That is the layout of the host arrays `streamRead` and `streamWrite`
//! exchange (full reads and writes are single copies) and of the CPU backend, and it makes a
//! stream's buffer a ready vertex buffer for an application's own render pass (stride: the
//! element's floats). Why interleaved rather than one buffer per member: see the crate
//! documentation (measured).
//!
//! Storage is linear, so there is no texture size limit and no address translation: a
//! stream of any shape up to the device's storage-buffer binding size is one array.
//!
//! An iterator stream has no buffer: kernels compute its values (`start + i * step`).

use std::cell::{Cell, Ref, RefCell};

use crate::binds::{BufferKey, KeyedBuffer};
use brook_core::StreamError;

use crate::error::{Result, WgpuError};
use crate::gpu::Gpu;

pub use brook_core::{Domain, IterSpec};

/// Linear positions (in the whole stream of `shape`) of a domain's rows: each run of
/// consecutive elements along the last dimension, as (first, length). Buffer copies of a
/// domain are one copy per run.
pub fn domain_runs(d: &Domain, shape: &[usize]) -> Vec<(usize, usize)> {
    let row = d.shape()[shape.len() - 1];
    d.linear_positions(shape)
        .step_by(row)
        .map(|first| (first, row))
        .collect()
}

/// What a stream is made of.
#[derive(Debug)]
pub enum Storage {
    /// Its elements, in a storage buffer (exchanged by `streamSwap`, with its key).
    Buffer(RefCell<KeyedBuffer>),
    /// An iterator: computed, never stored.
    Iter(IterSpec),
}

/// A stream of the wgpu backend.
#[derive(Debug)]
pub struct WgpuStream {
    /// The backend that made it (its serial number): a stream works only there.
    pub(crate) owner: u64,
    shape: Vec<usize>,
    widths: Vec<u8>,
    /// A number for the trace (it travels with the buffer on a swap).
    id: Cell<u32>,
    pub(crate) storage: Storage,
}

impl WgpuStream {
    pub(crate) fn new_buffer(
        gpu: &Gpu,
        owner: u64,
        widths: &[u8],
        shape: &[usize],
        id: u32,
    ) -> Result<WgpuStream> {
        brook_core::shape::element_count(shape)?;
        // brook-core's `ElementFormat` has members of 1 to 4 floats.
        debug_assert!(!widths.is_empty() && widths.iter().all(|&w| (1..=4).contains(&w)));
        let fpe: usize = widths.iter().map(|&w| w as usize).sum();
        let bytes = byte_size(shape, fpe, &gpu.limits)?;
        let buffer = gpu.scoped("creating a stream", || {
            Ok(gpu.create_buffer(&wgpu::BufferDescriptor {
                label: Some("brook stream"),
                size: bytes,
                usage: stream_usages(),
                mapped_at_creation: false,
            }))
        })?;
        Ok(WgpuStream {
            owner,
            shape: shape.to_vec(),
            widths: widths.to_vec(),
            id: Cell::new(id),
            storage: Storage::Buffer(RefCell::new(KeyedBuffer::new(buffer, &gpu.binds))),
        })
    }

    pub(crate) fn new_iter(owner: u64, spec: IterSpec) -> WgpuStream {
        WgpuStream {
            owner,
            shape: spec.shape().to_vec(),
            widths: vec![spec.components()],
            id: Cell::new(0),
            storage: Storage::Iter(spec),
        }
    }

    /// Extents, first dimension first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Components of each member of the element.
    pub fn widths(&self) -> &[u8] {
        &self.widths
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Always false: a stream has at least one element.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Floats per element.
    pub fn floats_per_element(&self) -> usize {
        self.widths.iter().map(|&w| w as usize).sum()
    }

    /// The buffer's id in traces (0 for an iterator); `streamSwap` exchanges it with the buffer.
    pub fn id(&self) -> u32 {
        self.id.get()
    }

    /// The storage buffer holding the stream's elements (C layout, `f32`), to bind in an
    /// application's own passes (it has `STORAGE | VERTEX | COPY_SRC | COPY_DST` usage):
    /// no copy is made, and a later kernel call writes the same buffer. `None` for an
    /// iterator.
    pub fn buffer(&self) -> Option<Ref<'_, wgpu::Buffer>> {
        match &self.storage {
            Storage::Buffer(b) => Some(Ref::map(b.borrow(), KeyedBuffer::buffer)),
            Storage::Iter(_) => None,
        }
    }

    /// The storage buffer with its key, for binding it in a kernel call (`None` for an
    /// iterator).
    pub(crate) fn keyed_buffer(&self) -> Option<(wgpu::Buffer, BufferKey)> {
        match &self.storage {
            Storage::Buffer(b) => {
                let b = b.borrow();
                Some((b.buffer().clone(), b.key()))
            }
            Storage::Iter(_) => None,
        }
    }

    /// The iterator, for an iterator stream.
    pub fn iter_spec(&self) -> Option<&IterSpec> {
        match &self.storage {
            Storage::Iter(r) => Some(r),
            Storage::Buffer(_) => None,
        }
    }

    /// Exchanges the buffers (and trace ids) of two streams.
    pub(crate) fn swap_with(&self, other: &WgpuStream) -> Result<()> {
        match (&self.storage, &other.storage) {
            (Storage::Buffer(a), Storage::Buffer(b)) => {
                std::mem::swap(&mut *a.borrow_mut(), &mut *b.borrow_mut());
                let id = self.id.get();
                self.id.set(other.id.get());
                other.id.set(id);
                Ok(())
            }
            _ => Err(WgpuError::precondition("streamSwap", "an iterator stream")),
        }
    }
}

/// The usages of every stream buffer.
pub fn stream_usages() -> wgpu::BufferUsages {
    wgpu::BufferUsages::STORAGE
        | wgpu::BufferUsages::COPY_SRC
        | wgpu::BufferUsages::COPY_DST
        | wgpu::BufferUsages::VERTEX
}

/// The bytes of a stream of `shape` with `fpe` floats per element, checked against the
/// device's storage-buffer limits (the one size limit of linear storage).
pub fn byte_size(shape: &[usize], fpe: usize, limits: &wgpu::Limits) -> Result<u64> {
    let bytes = shape
        .iter()
        .try_fold(fpe as u64 * 4, |acc, &e| acc.checked_mul(e as u64))
        .ok_or_else(|| StreamError::Shape(format!("a stream of shape {shape:?} overflows")))?;
    let limit = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    if bytes > limit {
        return Err(WgpuError::DeviceLimit {
            call: "creating a stream".into(),
            message: format!(
                "a stream of shape {shape:?} needs {bytes} bytes, more than this device's storage buffer limit of {limit} bytes"
            ),
        });
    }
    if shape.iter().product::<usize>() > u32::MAX as usize {
        return Err(WgpuError::DeviceLimit {
            call: "creating a stream".into(),
            message: format!(
                "a stream of shape {shape:?} has more than 2^32 elements, more than WGSL's 32-bit indices reach"
            ),
        });
    }
    Ok(bytes.max(4))
}
