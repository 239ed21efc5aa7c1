//! What each stream operation left in its streams, on any backend: the streams it wrote,
//! read back after it ran and sampled for the page.
//!
//! The camera photographs what each pass binds on a backend that observes its passes (GL),
//! but the CPU and wgpu backends show none; the runtime reads the operation's output streams back instead
//! ([`crate::Recorder::operation`]), which every backend can do, so every card gets pictures of
//! its results and backends can be compared element by element ([`crate::compare`]).

use crate::history::HistoryStep;
use crate::picture::Picture;

/// One stream an operation wrote, as the runtime read it back.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamContents {
    /// The parameter (or role: `dst`, `mask`, `result`) it was passed as.
    pub name: String,
    /// Extents, outermost first.
    pub shape: Vec<usize>,
    /// Floats per element.
    pub components: usize,
    /// Every element's floats, or why they could not be read.
    pub values: Result<Vec<f32>, String>,
    /// Where each element's value came from (one history per element, in order), for a
    /// small stream of a run whose history was recorded; empty otherwise.
    pub histories: Vec<HistoryStep>,
}

/// One operation as the explorer keeps it.
#[derive(Debug, Clone, Default)]
pub struct Operation {
    /// How many trace entries the operation became (a vout call: the kernel and its packing).
    pub entries: usize,
    /// The streams it wrote, as read back after it, in the order the operation names them.
    pub outcomes: Vec<Outcome>,
}

/// One output stream after the operation, sampled.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The stream's role in the operation (`result`, `dst`, the parameter's name).
    pub name: String,
    /// Its sampled elements, or why they could not be read back.
    pub sampled: Result<Sampled, String>,
    /// Each element's history, when the run recorded one ([`StreamContents::histories`]).
    pub histories: Vec<HistoryStep>,
}

/// A stream's elements laid out as a picture (`[n]` is one row, `[h, w]` is `h` rows of `w`,
/// more dimensions stack their rows), every `step`-th element shown each way.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    /// The whole stream's extents as a picture, in elements.
    pub width: u32,
    /// Rows of the whole stream as a picture, in elements.
    pub height: u32,
    /// Floats per element, as in [`StreamContents::components`].
    pub components: u8,
    /// Every `step`-th element is shown along each side (1: all of them).
    pub step: u32,
    /// The elements shown, row by row, `components` floats each.
    pub values: Vec<f32>,
}

impl Sampled {
    /// `contents` sampled to at most `max_side` pixels a side.
    pub fn of(contents: &StreamContents, max_side: u32) -> Result<Sampled, String> {
        let values = contents.values.as_ref().map_err(Clone::clone)?;
        let components = u8::try_from(contents.components)
            .map_err(|_| format!("{} floats per element", contents.components))?;
        let per = usize::from(components);
        let width = contents.shape.last().copied().unwrap_or(1);
        let height: usize = contents.shape.iter().rev().skip(1).product();
        if per == 0 || values.len() != width * height * per {
            return Err(format!(
                "{} floats read for a stream of shape {:?} with {per} per element",
                values.len(),
                contents.shape
            ));
        }
        let too_large = |n: usize| u32::try_from(n).map_err(|_| format!("{n} elements a side"));
        let (width, height) = (too_large(width)?, too_large(height)?);
        let step = Picture::step_for(width, height, max_side);
        let s = step as usize;
        let values = (0..height as usize)
            .step_by(s)
            .flat_map(|y| {
                let row = &values[y * width as usize * per..(y + 1) * width as usize * per];
                row.chunks(per).step_by(s).flatten().copied()
            })
            .collect();
        Ok(Sampled {
            width,
            height,
            components,
            step,
            values,
        })
    }

    /// The picture of the elements shown.
    pub fn picture(&self) -> Result<Picture, String> {
        Picture::of_rows(
            self.width,
            self.height,
            self.components,
            self.step,
            &self.values,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contents(shape: &[usize], components: usize) -> StreamContents {
        let n = shape.iter().product::<usize>() * components;
        StreamContents {
            name: "s".into(),
            shape: shape.to_vec(),
            components,
            values: Ok((0..n).map(|i| i as f32).collect()),
            histories: Vec::new(),
        }
    }

    #[test]
    fn streams_become_rows_sampled_every_step() {
        let s = Sampled::of(&contents(&[3, 10], 1), 5).unwrap();
        assert_eq!((s.width, s.height, s.step), (10, 3, 2));
        // Rows 0 and 2, every second element.
        assert_eq!(s.values, [0., 2., 4., 6., 8., 20., 22., 24., 26., 28.]);
        let s = Sampled::of(&contents(&[4], 2), 128).unwrap();
        assert_eq!((s.width, s.height, s.components), (4, 1, 2));
        assert_eq!(s.values.len(), 8);
        let s = Sampled::of(&contents(&[2, 2, 3], 1), 128).unwrap();
        assert_eq!((s.width, s.height), (3, 4));
    }

    #[test]
    fn a_read_that_failed_or_a_short_one_is_an_error() {
        let mut c = contents(&[4], 1);
        c.values = Err("lost".into());
        assert_eq!(Sampled::of(&c, 8).unwrap_err(), "lost");
        let mut c = contents(&[4], 1);
        c.values = Ok(vec![0.0; 3]);
        assert!(Sampled::of(&c, 8).is_err());
    }
}
