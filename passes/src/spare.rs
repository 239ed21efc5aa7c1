//! Intermediate streams kept from one multi-pass call for the next: a repeated reduction or
//! vout call allocates nothing and finds its framebuffers cached.

use std::cell::RefCell;
use std::rc::Rc;

use brook_texture_streams::{ElementFormat, GlContext, Stream};

use crate::error::PassError;

/// The intermediates of the last call of one kind, owned (their textures are freed on drop).
#[derive(Default)]
pub(crate) struct SpareStreams(RefCell<Vec<Stream>>);

impl SpareStreams {
    /// A stream of `format` and `shape`: a spare one if there is one, else a new one.
    pub fn take(
        &self,
        ctx: &Rc<GlContext>,
        format: &ElementFormat,
        shape: &[usize],
    ) -> Result<Stream, PassError> {
        let mut spare = self.0.borrow_mut();
        match spare
            .iter()
            .position(|s| s.format() == format && s.layout().shape() == shape)
        {
            Some(i) => Ok(spare.swap_remove(i)),
            None => Ok(Stream::new(ctx, format.clone(), shape)?),
        }
    }

    /// Keeps `streams` for the next call, freeing the spares it did not take.
    pub fn keep(&self, streams: Vec<Stream>) {
        *self.0.borrow_mut() = streams;
    }
}
