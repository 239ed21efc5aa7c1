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
use brook_core::fmt_shape;

/// The most dimensions a Brook stream may have.
pub const MAX_RANK: usize = 4;

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
        validate_shape(shape)?;
        if widths.is_empty() || widths.contains(&0) {
            return Err(CpuError::InvalidWidths {
                widths: widths.to_vec(),
                reason: "an element needs at least one member, each of at least one component"
                    .into(),
            });
        }
        let per: usize = widths.iter().map(|&w| w as usize).sum();
        let len = checked_len(shape)?;
        let floats = len.checked_mul(per).ok_or_else(|| CpuError::InvalidShape {
            shape: shape.to_vec(),
            reason: "too many floats for this machine".into(),
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
        if src.len() != self.data.len() {
            return Err(CpuError::HostSize {
                op: "streamRead",
                expected: self.data.len(),
                got: src.len(),
            });
        }
        self.data.copy_from_slice(src);
        Ok(())
    }

    /// Brook's `streamWrite`: copies the stream into host memory. `dst` must hold exactly
    /// `len() * floats_per_element()` floats.
    pub fn write(&self, dst: &mut [f32]) -> Result<(), CpuError> {
        if dst.len() != self.data.len() {
            return Err(CpuError::HostSize {
                op: "streamWrite",
                expected: self.data.len(),
                got: dst.len(),
            });
        }
        dst.copy_from_slice(&self.data);
        Ok(())
    }
}

/// Checks that `shape` is a Brook stream shape: 1 to 4 dimensions, none of extent zero.
pub fn validate_shape(shape: &[usize]) -> Result<(), CpuError> {
    let bad = |reason: &str| {
        Err(CpuError::InvalidShape {
            shape: shape.to_vec(),
            reason: reason.into(),
        })
    };
    if shape.is_empty() || shape.len() > MAX_RANK {
        return bad("a stream has 1 to 4 dimensions");
    }
    if shape.contains(&0) {
        return bad("no extent may be zero");
    }
    checked_len(shape).map(|_| ())
}

fn checked_len(shape: &[usize]) -> Result<usize, CpuError> {
    shape
        .iter()
        .try_fold(1usize, |acc, &e| acc.checked_mul(e))
        .ok_or_else(|| CpuError::InvalidShape {
            shape: shape.to_vec(),
            reason: format!("{} elements overflow this machine", fmt_shape(shape)),
        })
}
