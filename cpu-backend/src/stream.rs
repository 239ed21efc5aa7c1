//! Host storage for streams.
//!
//! A [`CpuStream`] keeps its elements the way a C program declares the same data: an array of
//! structs. Each element is its members' floats back to back (`struct {float a; float3 b;}` is
//! `a b.x b.y b.z`), and elements are row-major, last dimension fastest (`float a<3,2>` holds
//! `a[0][0] a[0][1] a[1][0] …`). That is exactly the buffer a Brook host program hands to
//! `streamRead` and gets back from `streamWrite`, so both are plain copies, and the element of
//! any index is one contiguous slice the interpreter decodes directly. (The GL backend splits
//! members into one texture each; that is its business, not the host's.)

use crate::error::CpuError;
use brook_core::shape::element_count;
use brook_core::{fmt_shape, StreamError};

/// A stream in host memory (see the module documentation for the layout).
#[derive(Debug, Clone, PartialEq)]
pub struct CpuStream {
    shape: Vec<usize>,
    widths: Vec<u8>,
    data: Vec<f32>,
}

impl CpuStream {
    /// A zero-filled stream. `widths` are the components of each member of the element type
    /// (`[4]` for `float4`, `[1, 3]` for `struct {float a; float3 b;}`); `shape` has 1 to 4
    /// non-zero extents, first dimension first (`<rows, cols>`).
    pub fn new(widths: &[u8], shape: &[usize]) -> Result<CpuStream, CpuError> {
        let len = element_count(shape)?;
        if widths.is_empty() || widths.contains(&0) {
            return Err(StreamError::Format(format!(
                "member widths {widths:?}: an element needs at least one member, each of at least one component"
            ))
            .into());
        }
        let per: usize = widths.iter().map(|&w| w as usize).sum();
        let floats = len.checked_mul(per).ok_or_else(|| {
            StreamError::Shape(format!(
                "{}: too many floats for this machine",
                fmt_shape(shape)
            ))
        })?;
        // A stream too large for this machine is an error, not an abort of the process.
        let mut data = Vec::new();
        data.try_reserve_exact(floats)
            .map_err(|_| CpuError::OutOfMemory {
                shape: shape.to_vec(),
                widths: widths.to_vec(),
                bytes: floats as u128 * 4,
            })?;
        data.resize(floats, 0.0);
        Ok(CpuStream {
            shape: shape.to_vec(),
            widths: widths.to_vec(),
            data,
        })
    }

    /// A stream filled from `data` (host layout), like `new` followed by `read`.
    pub fn from_data(widths: &[u8], shape: &[usize], data: &[f32]) -> Result<CpuStream, CpuError> {
        let mut s = CpuStream::new(widths, shape)?;
        s.read(data)?;
        Ok(s)
    }

    /// Extents, first dimension first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Dimensions, 1 to 4.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Components of each member of the element type.
    pub fn widths(&self) -> &[u8] {
        &self.widths
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Always false: a stream has at least one element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Floats per element (the sum of the member widths).
    pub fn floats_per_element(&self) -> usize {
        self.widths.iter().map(|&w| w as usize).sum()
    }

    /// Every float, element after element, members in order (C's array-of-structs layout).
    pub fn data(&self) -> &[f32] {
        &self.data
    }

    /// The floats, to write (same layout as [`CpuStream::data`]).
    pub fn data_mut(&mut self) -> &mut [f32] {
        &mut self.data
    }

    /// The floats of element `linear` (row-major position).
    pub fn element(&self, linear: usize) -> &[f32] {
        let per = self.floats_per_element();
        &self.data[linear * per..(linear + 1) * per]
    }

    /// Brook's `streamRead`: copies host memory into the stream. `src` must hold exactly
    /// `len() * floats_per_element()` floats.
    pub fn read(&mut self, src: &[f32]) -> Result<(), CpuError> {
        check_host_size(self.data.len(), src.len())?;
        self.data.copy_from_slice(src);
        Ok(())
    }

    /// Brook's `streamWrite`: copies the stream into host memory. `dst` must hold exactly
    /// `len() * floats_per_element()` floats.
    pub fn write(&self, dst: &mut [f32]) -> Result<(), CpuError> {
        check_host_size(self.data.len(), dst.len())?;
        dst.copy_from_slice(&self.data);
        Ok(())
    }
}

/// A host array of `got` floats for a stream of `expected`: brook-core's error when they differ.
fn check_host_size(expected: usize, got: usize) -> Result<(), CpuError> {
    if expected != got {
        return Err(StreamError::Size { expected, got }.into());
    }
    Ok(())
}
