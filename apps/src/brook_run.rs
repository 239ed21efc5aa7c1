//! What the Brook versions share: streams filled from host data by `upload` (streamRead), and
//! a result stream read back by `download` (streamWrite). One Brook program serves both the GL
//! and the CPU flavour; only the runtime differs.

use brook::{Runtime, Stream};

use crate::error::AppError;

/// Input streams with the host data each is read from.
#[derive(Default)]
pub struct Inputs {
    streams: Vec<(Stream, Vec<f32>)>,
}

impl Inputs {
    /// A stream of `components` floats per element and `shape`, to be filled from `data`.
    pub fn add(
        &mut self,
        rt: &Runtime,
        components: u8,
        shape: &[usize],
        data: Vec<f32>,
    ) -> Result<usize, AppError> {
        self.streams.push((rt.stream_of(components, shape)?, data));
        Ok(self.streams.len() - 1)
    }

    /// The `i`th stream added.
    pub fn get(&self, i: usize) -> &Stream {
        &self.streams[i].0
    }

    /// streamRead of every input.
    pub fn upload(&self) -> Result<(), AppError> {
        for (stream, data) in &self.streams {
            stream.read(data)?;
        }
        Ok(())
    }
}
