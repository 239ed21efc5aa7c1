//! Streams as the user holds them: a shape, an element format, and a backend's storage.

use std::rc::Rc;

use brook_core::{BackendStream, BrookError, Domain, ElementFormat, IterSpec, StreamArg};

use crate::session::Session;

/// A Brook stream on one runtime.
pub struct Stream {
    pub(crate) session: Rc<Session>,
    pub(crate) body: Rc<StreamBody>,
}

/// A stream's element format, extents and backend storage: shared by the user's [`Stream`]
/// and a deferred kernel call that uses it ([`crate::deferred`]), which keeps the storage
/// alive if the stream is dropped first. It holds no [`Session`]: the session holds the
/// deferred call, and a session held back would never be freed.
pub(crate) struct StreamBody {
    pub(crate) format: ElementFormat,
    pub(crate) shape: Vec<usize>,
    pub(crate) storage: BackendStream,
    /// The iterator, for an `iter` stream (computed, read-only).
    pub(crate) iter: Option<IterSpec>,
}

impl StreamBody {
    /// The stream (or its `domain`) as backends and call checks see it.
    pub(crate) fn arg<'a>(&'a self, domain: Option<&'a Domain>) -> StreamArg<'a> {
        StreamArg {
            storage: self.storage.as_ref(),
            format: &self.format,
            shape: &self.shape,
            domain: domain.filter(|d| !d.is_whole(&self.shape)),
            iter: self.iter.as_ref(),
        }
    }
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

    /// The stream (or its `domain`) as backends and call checks see it.
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
        let target = self.arg(domain);
        self.session.flush_before_writing(&target)?;
        self.session.backend.read(&target, data)
    }

    fn write_region(&self, domain: Option<&Domain>, out: &mut [f32]) -> Result<(), BrookError> {
        match &self.body.iter {
            // Every backend's iterators have these values: no storage to ask.
            Some(spec) => Ok(spec.write(domain, out)?),
            None => {
                let source = self.arg(domain);
                self.session.flush_before_reading(&source)?;
                self.session.backend.write(&source, out)
            }
        }
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
    /// applications do (001 §4.1). `None` on other backends and for iterator streams. While
    /// the guard lives, calls that replace the stream's textures (`read`, an in-place kernel
    /// call, `streamSwap`) fail with [`BrookError::State`]. A deferred kernel call that
    /// uses the stream runs first; an error it meets is returned by the runtime's next call.
    /// Running it draws on the runtime's context and leaves its own framebuffer bound: call
    /// [`Stream::run_waiting`] before binding a framebuffer of one's own on a shared context.
    pub fn gl_textures(&self) -> Option<std::cell::Ref<'_, brook_texture_streams::Stream>> {
        self.session.flush_before_sharing(&self.arg(None));
        brook_passes::gl_textures(self.body.storage.as_ref()).and_then(Result::ok)
    }

    /// Runs now a deferred kernel call that uses this stream (automatic fusion, "Reductions"
    /// in the README), returning its error; nothing when none waits. For code that draws with
    /// the stream's textures on the runtime's own GL context: running the call binds its
    /// framebuffer, so do it before binding one's own.
    pub fn run_waiting(&self) -> Result<(), BrookError> {
        self.session.flush_before_writing(&self.arg(None))
    }

    /// The storage buffer holding the stream's elements on the wgpu backend (C layout, `f32`;
    /// `STORAGE | VERTEX | COPY_SRC | COPY_DST`), to bind in the application's own passes
    /// with no copy. `None` on other backends and for iterator streams. A deferred kernel
    /// call that uses the stream runs first, as for [`Stream::gl_textures`].
    pub fn wgpu_buffer(&self) -> Option<std::cell::Ref<'_, brook_wgpu::wgpu::Buffer>> {
        self.session.flush_before_sharing(&self.arg(None));
        self.body
            .storage
            .downcast_ref::<brook_wgpu::WgpuStream>()
            .and_then(brook_wgpu::WgpuStream::buffer)
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
