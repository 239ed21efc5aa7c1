//! Streams as the user holds them: a shape, an element format, and a backend's storage.

use std::any::Any;
#[cfg(any(feature = "gl", feature = "wgpu"))]
use std::cell::Ref;
use std::rc::Rc;

use brook_core::{Backend, BrookError, Domain, ElementFormat, StreamArg};

use crate::gate::{Gate, StreamBody};

/// A Brook stream on one runtime.
pub struct Stream {
    /// The gate of the runtime that made it, which every operation on it passes.
    pub(crate) gate: Rc<Gate>,
    pub(crate) body: Rc<StreamBody>,
}

impl Stream {
    /// Extents, first dimension first (`float s<10, 5>` is `[10, 5]`: 10 rows of 5).
    pub fn shape(&self) -> &[usize] {
        &self.body.shape
    }

    /// The element type's layout: its members and each one's float count.
    pub fn format(&self) -> &ElementFormat {
        &self.body.format
    }

    /// Elements in the stream.
    pub fn len(&self) -> usize {
        self.body.shape.iter().product()
    }

    /// Whether the stream has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether this is an `iter` stream (computed, read-only).
    pub fn is_iter(&self) -> bool {
        self.body.iter.is_some()
    }

    /// The stream (or its `domain`) as the gate and the call checks see it.
    pub(crate) fn arg<'a>(&'a self, domain: Option<&'a Domain>) -> StreamArg<'a> {
        self.body.arg(domain)
    }

    /// Brook's `streamRead`: fills the stream from a host array in C layout (each element's
    /// floats back to back, struct members in declaration order, elements row-major).
    pub fn read(&self, data: &[f32]) -> Result<(), BrookError> {
        self.read_region(None, data)
    }

    /// Brook's `streamWrite`: copies the stream to a host array in C layout.
    pub fn write(&self, out: &mut [f32]) -> Result<(), BrookError> {
        self.write_region(None, out)
    }

    fn read_region(&self, domain: Option<&Domain>, data: &[f32]) -> Result<(), BrookError> {
        if self.is_iter() {
            return Err(BrookError::ArgumentType {
                call: "streamRead".into(),
                param: String::new(),
                message: "an iterator stream is computed, it cannot be read into".into(),
            });
        }
        self.gate.read(&self.arg(domain), data)
    }

    fn write_region(&self, domain: Option<&Domain>, out: &mut [f32]) -> Result<(), BrookError> {
        match &self.body.iter {
            // Every backend's iterators have these values: no storage to ask.
            Some(spec) => Ok(spec.write(domain, out)?),
            None => self.gate.write(&self.arg(domain), out),
        }
    }

    /// The stream's contents as a new host array.
    pub fn to_vec(&self) -> Result<Vec<f32>, BrookError> {
        let mut out = vec![0.0; self.len() * self.floats_per_element()];
        self.write(&mut out)?;
        Ok(out)
    }

    /// The backend's own storage of this stream, lent to code outside the runtime: for a
    /// backend's own operations (downcast it to the backend's stream type), or to share the
    /// data without a copy ([`Stream::gl_textures`] and [`Stream::wgpu_buffer`] do this for
    /// GL and wgpu). A deferred kernel call that reads or writes the stream runs first, so it
    /// holds the stream's current values; the error is that call's.
    pub fn storage(&self) -> Result<&dyn Any, BrookError> {
        self.gate.lend(&self.arg(None))
    }

    /// The GL textures holding this stream and their documented [`Layout`](brook_texture_streams::Layout)
    /// (element with linear index `L` at texel `(L mod W, L div W)`, one texture per struct member),
    /// to bind in one's own rendering without a copy — as the Brook paper's runtime lets
    /// applications do (001 §4.1). `None` on other backends and for iterator streams. While
    /// the guard lives, calls that replace the stream's textures (`read`, an in-place kernel
    /// call, `streamSwap`) fail with [`BrookError::State`]; asking while one of them holds
    /// the textures is that error. Lent as [`Stream::storage`] lends: a deferred kernel call
    /// that uses the stream runs first (it draws on the runtime's context and leaves its own
    /// framebuffer bound, so ask before binding a framebuffer of one's own on a shared
    /// context), and its error is returned.
    #[cfg(feature = "gl")]
    pub fn gl_textures(
        &self,
    ) -> Result<Option<Ref<'_, brook_texture_streams::Stream>>, BrookError> {
        brook_passes::gl_textures(self.storage()?).transpose()
    }

    /// The storage buffer holding the stream's elements on the wgpu backend (C layout, `f32`;
    /// `STORAGE | VERTEX | COPY_SRC | COPY_DST`), to bind in the application's own passes
    /// with no copy. `None` on other backends and for iterator streams. Lent as
    /// [`Stream::storage`] lends.
    #[cfg(feature = "wgpu")]
    pub fn wgpu_buffer(&self) -> Result<Option<Ref<'_, brook_wgpu::wgpu::Buffer>>, BrookError> {
        let storage = self.storage()?.downcast_ref::<brook_wgpu::WgpuStream>();
        Ok(storage.and_then(brook_wgpu::WgpuStream::buffer))
    }

    /// Brook's `streamPrint` as a string, in the original's exact format (see
    /// [`format_stream`](crate::format_stream)): `%3.2f` values, one row per line.
    pub fn print_string(&self) -> Result<String, BrookError> {
        Ok(crate::print::format_stream(
            &self.to_vec()?,
            self.floats_per_element(),
            self.shape(),
        ))
    }

    /// Brook's `streamPrint`: the stream to standard output.
    pub fn print(&self) -> Result<(), BrookError> {
        print!("{}", self.print_string()?);
        Ok(())
    }

    /// Floats per element in the host (C array-of-structs) layout.
    pub fn floats_per_element(&self) -> usize {
        self.body.format.floats_per_element()
    }

    /// Brook's `s.domain(lo, hi)` with Brook's vector convention: component 0 is the column
    /// (last dimension), 1 the row, …; `hi` is exclusive. `domain([3, 5], [9, 10])` on a 2D
    /// stream is columns 3–8 of rows 5–9.
    pub fn domain(&self, lo: &[usize], hi: &[usize]) -> Result<StreamDomain<'_>, BrookError> {
        let rev = |v: &[usize]| v.iter().rev().copied().collect::<Vec<_>>();
        let domain = Domain::new(&rev(lo), &rev(hi))?;
        domain.fits(self.shape()).map_err(|_| {
            brook_core::StreamError::Domain(format!(
                "domain {lo:?}..{hi:?} (column first) does not fit a stream of shape {:?}",
                self.body.shape
            ))
        })?;
        Ok(StreamDomain {
            stream: self,
            domain,
        })
    }
}

/// A rectangular region of a stream, for `streamRead`/`streamWrite` of part of it, and as a
/// kernel argument (`args![&a.domain(&[1], &[9])?, &b]`): an input sub-stream, or the region
/// of an output that a call writes.
pub struct StreamDomain<'a> {
    pub(crate) stream: &'a Stream,
    pub(crate) domain: Domain,
}

impl StreamDomain<'_> {
    /// Elements in the region.
    pub fn len(&self) -> usize {
        self.domain.len()
    }

    /// Whether the region has no elements.
    pub fn is_empty(&self) -> bool {
        self.domain.len() == 0
    }

    /// Extents of the region, first dimension first (the shape a kernel sees).
    pub fn shape(&self) -> Vec<usize> {
        self.domain.shape()
    }

    /// `streamRead` of the region: `data` holds its elements row-major.
    pub fn read(&self, data: &[f32]) -> Result<(), BrookError> {
        self.stream.read_region(Some(&self.domain), data)
    }

    /// `streamWrite` of the region into `out`, row-major.
    pub fn write(&self, out: &mut [f32]) -> Result<(), BrookError> {
        self.stream.write_region(Some(&self.domain), out)
    }
}
