//! Streams as the user holds them: a shape, an element format, and a backend's storage.

use std::rc::Rc;

use brook_texture_streams::{Domain, ElementFormat};

use crate::backend::{Backend, BackendStream};
use crate::error::BrookError;

/// A Brook stream on one runtime.
pub struct Stream {
    pub(crate) backend: Rc<dyn Backend>,
    pub(crate) format: ElementFormat,
    pub(crate) shape: Vec<usize>,
    pub(crate) storage: BackendStream,
    pub(crate) is_iter: bool,
}

impl Stream {
    /// Extents, first dimension first (`float s<10, 5>` is `[10, 5]`: 10 rows of 5).
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    pub fn format(&self) -> &ElementFormat {
        &self.format
    }

    /// Elements in the stream.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether this is an `iter` stream (computed, read-only).
    pub fn is_iter(&self) -> bool {
        self.is_iter
    }

    /// Brook's `streamRead`: fills the stream from a host array in C layout (each element's
    /// floats back to back, struct members in declaration order, elements row-major).
    pub fn read(&self, data: &[f32]) -> Result<(), BrookError> {
        self.writable()?;
        self.backend.read(self.storage.as_ref(), None, data)
    }

    /// Brook's `streamWrite`: copies the stream to a host array in C layout.
    pub fn write(&self, out: &mut [f32]) -> Result<(), BrookError> {
        self.backend.write(self.storage.as_ref(), None, out)
    }

    /// The stream's contents as a new host array.
    pub fn to_vec(&self) -> Result<Vec<f32>, BrookError> {
        let mut out = vec![0.0; self.len() * self.floats_per_element()];
        self.write(&mut out)?;
        Ok(out)
    }

    /// The GL textures holding this stream and their documented [`Layout`](brook_texture_streams::Layout)
    /// (element with linear index `L` at texel `(L mod W, L div W)`, one texture per struct member),
    /// to bind in one's own rendering without a copy — as the Brook paper's runtime lets
    /// applications do (001 §4.1). `None` on the CPU backend and for iterator streams.
    /// The borrow must end before the stream is next used by a kernel or `read`.
    pub fn gl_textures(&self) -> Option<std::cell::Ref<'_, brook_texture_streams::Stream>> {
        crate::gl::texture_stream(self.storage.as_ref())
    }

    /// Brook's `streamPrint` as a string, in the original's exact format (see
    /// [`format_stream`](crate::format_stream)): `%3.2f` values, one row per line.
    pub fn print_string(&self) -> Result<String, BrookError> {
        Ok(crate::print::format_stream(
            &self.to_vec()?,
            self.floats_per_element(),
            &self.shape,
        ))
    }

    /// Brook's `streamPrint`: the stream to standard output.
    pub fn print(&self) -> Result<(), BrookError> {
        print!("{}", self.print_string()?);
        Ok(())
    }

    fn writable(&self) -> Result<(), BrookError> {
        if self.is_iter {
            return Err(BrookError::Usage(
                "an iterator stream is computed, it cannot be read into".into(),
            ));
        }
        Ok(())
    }

    /// Floats per element in the host (C array-of-structs) layout.
    pub fn floats_per_element(&self) -> usize {
        self.format.floats_per_element()
    }

    /// Brook's `s.domain(lo, hi)` with Brook's vector convention: component 0 is the column
    /// (last dimension), 1 the row, …; `hi` is exclusive. `domain([3, 5], [9, 10])` on a 2D
    /// stream is columns 3–8 of rows 5–9.
    pub fn domain(&self, lo: &[usize], hi: &[usize]) -> Result<StreamDomain<'_>, BrookError> {
        let rev = |v: &[usize]| v.iter().rev().copied().collect::<Vec<_>>();
        let domain = Domain::new(&rev(lo), &rev(hi))?;
        if domain.lo().len() != self.shape.len()
            || domain.hi().iter().zip(&self.shape).any(|(h, e)| h > e)
        {
            return Err(BrookError::Usage(format!(
                "domain {lo:?}..{hi:?} (column first) does not fit a stream of shape {:?}",
                self.shape
            )));
        }
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

    pub fn is_empty(&self) -> bool {
        self.domain.len() == 0
    }

    /// Extents of the region, first dimension first (the shape a kernel sees).
    pub fn shape(&self) -> Vec<usize> {
        self.domain.shape()
    }

    /// Whether the region is the whole stream.
    pub(crate) fn is_whole(&self) -> bool {
        self.domain.lo().iter().all(|l| *l == 0) && self.domain.hi() == self.stream.shape.as_slice()
    }

    /// `streamRead` of the region: `data` holds its elements row-major.
    pub fn read(&self, data: &[f32]) -> Result<(), BrookError> {
        self.stream.writable()?;
        self.stream
            .backend
            .read(self.stream.storage.as_ref(), Some(&self.domain), data)
    }

    /// `streamWrite` of the region into `out`, row-major.
    pub fn write(&self, out: &mut [f32]) -> Result<(), BrookError> {
        self.stream
            .backend
            .write(self.stream.storage.as_ref(), Some(&self.domain), out)
    }
}
