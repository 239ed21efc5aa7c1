//! What the Brook versions share: streams filled from host data by `upload` (streamRead), and
//! a result stream read back by `download` (streamWrite). One Brook program serves both the GL
//! and the CPU flavour; only the runtime differs.

use brook::{Runtime, Stream};

use crate::app::Variant;
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

    /// The host data of every input, in the order added.
    pub fn host(&self) -> Vec<&[f32]> {
        self.streams
            .iter()
            .map(|(_, data)| data.as_slice())
            .collect()
    }

    /// streamRead of every input.
    pub fn upload(&self) -> Result<(), AppError> {
        for (stream, data) in &self.streams {
            stream.read(data)?;
        }
        Ok(())
    }
}

/// A Brook variant run with fast math (`Runtime::set_fast_math(true)`): switched on for each
/// of its steps and off again after, because the runtimes are shared by every application and
/// the report interleaves the variants round by round.
pub struct FastMath<'a> {
    rt: &'a Runtime,
    inner: Box<dyn Variant + 'a>,
}

impl<'a> FastMath<'a> {
    /// `inner`, whose Brook calls run on `rt`, with fast math.
    pub fn new(rt: &'a Runtime, inner: Box<dyn Variant + 'a>) -> Self {
        FastMath { rt, inner }
    }

    fn fast<T>(
        &mut self,
        step: impl FnOnce(&mut dyn Variant) -> Result<T, AppError>,
    ) -> Result<T, AppError> {
        self.rt.set_fast_math(true)?;
        let done = step(self.inner.as_mut());
        // Switching back runs a deferred call first, still in fast math.
        self.rt.set_fast_math(false)?;
        done
    }
}

impl Variant for FastMath<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        self.fast(|v| v.upload())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        self.fast(|v| v.compute())
    }

    fn sync(&self) {
        self.inner.sync();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        self.fast(|v| v.download())
    }

    fn host_inputs(&self) -> Vec<&[f32]> {
        self.inner.host_inputs()
    }

    fn read_floats(&self) -> Option<usize> {
        self.inner.read_floats()
    }

    fn kept(&self, read: Vec<f32>) -> Result<Vec<f32>, AppError> {
        self.inner.kept(read)
    }
}
