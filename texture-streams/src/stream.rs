//! A stream on the device: a [`Layout`], an [`ElementFormat`], and one texture
//! per member, with Brook's `streamRead`/`streamWrite` (whole or by domain).
//!
//! One texture per struct member is the choice of the Brook paper: a kernel
//! output of a struct type becomes several render targets, and a kernel that
//! only reads one field samples one texture. All of a stream's textures share
//! its layout, so element `i` is at the same texel in each.
//!
//! Host arrays are C arrays of the element type (array-of-structs, tightly
//! packed floats), in row-major element order.

use std::borrow::Cow;
use std::rc::Rc;

use brook_core::{Domain, ElementFormat, IterSpec, StreamError};

use crate::context::GlContext;
use crate::error::StoreError;
use crate::layout::Layout;
use crate::spans::{texel_spans, Span};
use crate::texture::Texture;

/// A Brook stream stored in float textures.
#[derive(Debug)]
pub struct Stream {
    ctx: Rc<GlContext>,
    layout: Layout,
    format: ElementFormat,
    textures: Vec<Texture>,
    /// The texel spans of the whole stream, worked out once from the layout: a whole-stream
    /// `streamRead` or `streamWrite` (the common call) then does no domain arithmetic and
    /// allocates nothing around its GL calls, which at a thousand floats is a fifth of the
    /// transfer's time.
    whole: Vec<Span>,
}

impl Stream {
    /// Allocates a stream of `format` elements and `shape` (outermost
    /// dimension first). Its contents are undefined until read or written by a kernel.
    pub fn new(
        ctx: &Rc<GlContext>,
        format: ElementFormat,
        shape: &[usize],
    ) -> Result<Stream, StoreError> {
        let layout = Layout::new(shape, ctx.caps().max_texture_size)?;
        let textures = format
            .members()
            .iter()
            .map(|member| Texture::new(ctx, layout.width(), layout.height(), member.components))
            .collect::<Result<Vec<_>, _>>()?;
        let whole = texel_spans(&layout, &Domain::full(layout.shape()));
        Ok(Stream {
            ctx: Rc::clone(ctx),
            layout,
            format,
            textures,
            whole,
        })
    }

    /// Where each element lives in the textures.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// What each element is made of.
    pub fn format(&self) -> &ElementFormat {
        &self.format
    }

    /// One texture per member, in member order.
    pub fn textures(&self) -> &[Texture] {
        &self.textures
    }

    /// The context the textures live in.
    pub fn context(&self) -> &Rc<GlContext> {
        &self.ctx
    }

    /// Materialises an iterator into a stream of its values.
    pub fn from_iter(ctx: &Rc<GlContext>, spec: &IterSpec) -> Result<Stream, StoreError> {
        let mut stream = Stream::new(ctx, ElementFormat::scalar(spec.components())?, spec.shape())?;
        stream.read(&spec.values())?;
        Ok(stream)
    }

    /// A new stream of the same shape and format holding a copy of this one, made on the GPU
    /// (the scratch of an in-place kernel call starts as one).
    pub fn duplicate(&self) -> Result<Stream, StoreError> {
        let copy = Stream::new(&self.ctx, self.format.clone(), self.layout.shape())?;
        for (to, from) in copy.textures.iter().zip(&self.textures) {
            to.copy_from(from)?;
        }
        Ok(copy)
    }

    /// Brook's `streamRead`: copies the whole host array `data` (`len ×
    /// floats_per_element` floats) into the stream.
    pub fn read(&mut self, data: &[f32]) -> Result<(), StoreError> {
        self.check_floats(self.layout.len(), data.len())?;
        self.upload_spans(&self.whole, data)
    }

    /// Brook's `streamWrite`: copies the whole stream into `out` (`len ×
    /// floats_per_element` floats).
    pub fn write(&self, out: &mut [f32]) -> Result<(), StoreError> {
        self.check_floats(self.layout.len(), out.len())?;
        self.read_spans(&self.whole, out)
    }

    /// Copies `data`, the elements of `domain` in row-major order, into that
    /// part of the stream; the rest is unchanged.
    pub fn read_domain(&mut self, domain: &Domain, data: &[f32]) -> Result<(), StoreError> {
        let spans = self.spans(domain, data.len())?;
        self.upload_spans(&spans, data)
    }

    /// Copies the elements of `domain`, in row-major order, into `out`.
    pub fn write_domain(&self, domain: &Domain, out: &mut [f32]) -> Result<(), StoreError> {
        let spans = self.spans(domain, out.len())?;
        self.read_spans(&spans, out)
    }

    /// Uploads `data`, the elements of `spans` in order, member by member (each
    /// member's floats gathered out of the elements unless it is the whole element).
    fn upload_spans(&self, spans: &[Span], data: &[f32]) -> Result<(), StoreError> {
        let stride = self.format.floats_per_element();
        for (m, texture) in self.textures.iter().enumerate() {
            let offset = self.format.member_offset(m);
            let components = usize::from(texture.components());
            for span in spans {
                let host = &data[span.host_floats(stride)];
                texture.upload(span.rect, &gather(host, stride, offset, components))?;
            }
        }
        Ok(())
    }

    /// Reads the elements of `spans`, in order, into `out`. A stream of one
    /// member is read straight into `out`, span by span (each span's texels are
    /// consecutive host elements); a struct's members, one texture each, are
    /// read one at a time and interleaved into the elements.
    fn read_spans(&self, spans: &[Span], out: &mut [f32]) -> Result<(), StoreError> {
        let stride = self.format.floats_per_element();
        if let [texture] = self.textures.as_slice() {
            for span in spans {
                texture.read_into(span.rect, &mut out[span.host_floats(stride)])?;
            }
            return Ok(());
        }
        for (m, texture) in self.textures.iter().enumerate() {
            let offset = self.format.member_offset(m);
            let components = usize::from(texture.components());
            for span in spans {
                let texels = texture.read(span.rect)?;
                let host = &mut out[span.host_floats(stride)];
                for (element, texel) in host
                    .chunks_exact_mut(stride)
                    .zip(texels.chunks_exact(components))
                {
                    element[offset..offset + components].copy_from_slice(texel);
                }
            }
        }
        Ok(())
    }

    /// Checks `domain` and a host array of `floats` for it; its texel spans.
    fn spans(&self, domain: &Domain, floats: usize) -> Result<Vec<Span>, StoreError> {
        domain.fits(self.layout.shape())?;
        self.check_floats(domain.len(), floats)?;
        Ok(texel_spans(&self.layout, domain))
    }

    /// Checks that a host array of `floats` holds `elements` elements.
    fn check_floats(&self, elements: usize, floats: usize) -> Result<(), StoreError> {
        let expected = elements * self.format.floats_per_element();
        if floats != expected {
            return Err(StreamError::Size {
                expected,
                got: floats,
            }
            .into());
        }
        Ok(())
    }
}

/// One member's floats out of host elements (`stride` floats each); borrowed
/// when the member is the whole element.
fn gather(host: &[f32], stride: usize, offset: usize, components: usize) -> Cow<'_, [f32]> {
    if components == stride {
        return Cow::Borrowed(host);
    }
    Cow::Owned(
        host.chunks_exact(stride)
            .flat_map(|element| &element[offset..offset + components])
            .copied()
            .collect(),
    )
}
