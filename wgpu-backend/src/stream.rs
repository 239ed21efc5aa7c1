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

use crate::error::{Result, WgpuError};
use crate::gpu::Gpu;

/// The most dimensions a Brook stream has.
pub const MAX_RANK: usize = 4;

/// A box-shaped part of a stream (`s.domain(lo, hi)`): bounds outermost dimension first,
/// `hi` exclusive.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Domain {
    lo: Vec<usize>,
    hi: Vec<usize>,
}

impl Domain {
    pub fn new(lo: &[usize], hi: &[usize]) -> Result<Domain> {
        if lo.len() != hi.len() || lo.is_empty() || lo.len() > MAX_RANK {
            return Err(WgpuError::Usage(format!(
                "domain bounds {lo:?} and {hi:?} must both have 1 to 4 coordinates, the same number"
            )));
        }
        if let Some(k) = (0..lo.len()).find(|&k| lo[k] >= hi[k]) {
            return Err(WgpuError::Usage(format!(
                "dimension {k} of domain {lo:?}..{hi:?} is empty: lo must be below hi (hi is exclusive)"
            )));
        }
        Ok(Domain {
            lo: lo.to_vec(),
            hi: hi.to_vec(),
        })
    }

    pub fn lo(&self) -> &[usize] {
        &self.lo
    }

    pub fn hi(&self) -> &[usize] {
        &self.hi
    }

    /// The extents of the box.
    pub fn shape(&self) -> Vec<usize> {
        self.lo.iter().zip(&self.hi).map(|(l, h)| h - l).collect()
    }

    pub fn len(&self) -> usize {
        self.shape().iter().product()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// Checks that the domain lies in a stream of `shape`.
    pub fn check(&self, shape: &[usize]) -> Result<()> {
        if self.lo.len() != shape.len() || self.hi.iter().zip(shape).any(|(h, e)| h > e) {
            return Err(WgpuError::Usage(format!(
                "domain {:?}..{:?} does not lie in the stream of shape {shape:?}",
                self.lo, self.hi
            )));
        }
        Ok(())
    }

    /// Linear positions (in the whole stream of `shape`) of the domain's rows: each run of
    /// consecutive elements along the last dimension, as (first, length).
    pub fn runs(&self, shape: &[usize]) -> Vec<(usize, usize)> {
        let sub = self.shape();
        let rank = shape.len();
        let row = sub[rank - 1];
        let rows = self.len() / row;
        (0..rows)
            .map(|r| {
                let mut rest = r;
                let mut linear = 0;
                let mut idx = vec![0; rank];
                for d in (0..rank - 1).rev() {
                    idx[d] = rest % sub[d] + self.lo[d];
                    rest /= sub[d];
                }
                idx[rank - 1] = self.lo[rank - 1];
                for (d, &e) in shape.iter().enumerate() {
                    linear = linear * e + idx[d];
                }
                (linear, row)
            })
            .collect()
    }
}

/// An iterator's range: component `c` of element `i` is `start[c] + i * step[c]`, with
/// `step = (end - start) / n` computed once in `f32` (1D); a 2D iterator's `.x` runs along
/// the columns and `.y` along the rows.
#[derive(Debug, Clone, PartialEq)]
pub struct IterRange {
    pub components: u8,
    pub start: [f32; 4],
    pub end: [f32; 4],
}

impl IterRange {
    /// The per-element step of each component for an iterator of `shape`.
    pub fn steps(&self, shape: &[usize]) -> [f32; 4] {
        let mut s = [0.0; 4];
        match shape {
            [n] => {
                let k = self.components as usize;
                for ((s, e), b) in s.iter_mut().zip(&self.end).zip(&self.start).take(k) {
                    *s = (e - b) / *n as f32;
                }
            }
            [rows, cols] => {
                s[0] = (self.end[0] - self.start[0]) / *cols as f32;
                s[1] = (self.end[1] - self.start[1]) / *rows as f32;
            }
            _ => {}
        }
        s
    }

    /// Every value of an iterator of `shape`, C layout.
    pub fn values(&self, shape: &[usize]) -> Vec<f32> {
        let steps = self.steps(shape);
        let n: usize = shape.iter().product();
        let k = self.components as usize;
        let mut out = Vec::with_capacity(n * k);
        for i in 0..n {
            if shape.len() == 2 {
                let (row, col) = (i / shape[1], i % shape[1]);
                out.push(self.start[0] + col as f32 * steps[0]);
                out.push(self.start[1] + row as f32 * steps[1]);
            } else {
                for (b, d) in self.start.iter().zip(&steps).take(k) {
                    out.push(b + i as f32 * d);
                }
            }
        }
        out
    }
}

/// What a stream is made of.
#[derive(Debug)]
pub enum Storage {
    /// Its elements, in a storage buffer (exchanged by `streamSwap`).
    Buffer(RefCell<wgpu::Buffer>),
    /// An iterator: computed, never stored.
    Iter(IterRange),
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
        check_shape(shape)?;
        if widths.is_empty() || widths.iter().any(|&w| !(1..=4).contains(&w)) {
            return Err(WgpuError::Usage(format!(
                "an element has 1 or more members of 1 to 4 floats, not {widths:?}"
            )));
        }
        let fpe: usize = widths.iter().map(|&w| w as usize).sum();
        let bytes = byte_size(shape, fpe, &gpu.limits)?;
        let buffer = gpu.scoped("creating a stream", || {
            Ok(gpu.device.create_buffer(&wgpu::BufferDescriptor {
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
            storage: Storage::Buffer(RefCell::new(buffer)),
        })
    }

    pub(crate) fn new_iter(owner: u64, shape: &[usize], range: IterRange) -> Result<WgpuStream> {
        check_shape(shape)?;
        match (shape.len(), range.components) {
            (1, 1..=4) | (2, 2) => {}
            (1, c) => {
                return Err(WgpuError::Usage(format!(
                    "an iterator has 1 to 4 components, not {c}"
                )))
            }
            (2, c) => {
                return Err(WgpuError::Usage(format!(
                "a 2D iterator is a float2 (.x along columns, .y along rows), not {c} component(s)"
            )))
            }
            (r, _) => {
                return Err(WgpuError::Usage(format!(
                    "iterators of {r} dimensions are not allowed (at most 2)"
                )))
            }
        }
        Ok(WgpuStream {
            owner,
            shape: shape.to_vec(),
            widths: vec![range.components],
            id: Cell::new(0),
            storage: Storage::Iter(range),
        })
    }

    /// Extents, first dimension first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Components of each member of the element.
    pub fn widths(&self) -> &[u8] {
        &self.widths
    }

    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// Floats per element.
    pub fn floats_per_element(&self) -> usize {
        self.widths.iter().map(|&w| w as usize).sum()
    }

    pub fn id(&self) -> u32 {
        self.id.get()
    }

    /// The storage buffer holding the stream's elements (C layout, `f32`), to bind in an
    /// application's own passes (it has `STORAGE | VERTEX | COPY_SRC | COPY_DST` usage):
    /// no copy is made, and a later kernel call writes the same buffer. `None` for an
    /// iterator.
    pub fn buffer(&self) -> Option<Ref<'_, wgpu::Buffer>> {
        match &self.storage {
            Storage::Buffer(b) => Some(b.borrow()),
            Storage::Iter(_) => None,
        }
    }

    /// The iterator's range, for an iterator stream.
    pub fn iter_range(&self) -> Option<&IterRange> {
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
            _ => Err(WgpuError::Usage(
                "streamSwap: an iterator stream has no storage to swap".into(),
            )),
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

/// Checks a stream shape: 1 to 4 dimensions, none of extent zero.
pub fn check_shape(shape: &[usize]) -> Result<()> {
    if shape.is_empty() || shape.len() > MAX_RANK || shape.contains(&0) {
        return Err(WgpuError::Usage(format!(
            "a stream has 1 to 4 dimensions, none of extent zero, not {shape:?}"
        )));
    }
    Ok(())
}

/// The bytes of a stream of `shape` with `fpe` floats per element, checked against the
/// device's storage-buffer limits (the one size limit of linear storage).
pub fn byte_size(shape: &[usize], fpe: usize, limits: &wgpu::Limits) -> Result<u64> {
    let bytes = shape
        .iter()
        .try_fold(fpe as u64 * 4, |acc, &e| acc.checked_mul(e as u64))
        .ok_or_else(|| WgpuError::Usage(format!("a stream of shape {shape:?} overflows")))?;
    let limit = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    if bytes > limit {
        return Err(WgpuError::Usage(format!(
            "a stream of shape {shape:?} needs {bytes} bytes, more than this device's storage buffer limit of {limit} bytes"
        )));
    }
    if shape.iter().product::<usize>() > u32::MAX as usize {
        return Err(WgpuError::Usage(format!(
            "a stream of shape {shape:?} has more than 2^32 elements"
        )));
    }
    Ok(bytes.max(4))
}
