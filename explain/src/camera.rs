//! Photographing every GL pass: a [`PassObserver`] that reads each step's textures back
//! before it runs (inputs and targets) and its targets after, and keeps them as pictures.
//!
//! It is installed only while a program is explained (`GlBackend::set_observer`), so the
//! normal path pays nothing; while installed, every texture is read back twice per pass,
//! which is what makes explaining slow and why large textures are read a row at a time,
//! only the rows shown.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use brook_core::PassTrace;
use brook_passes::{PassObserver, Step, Texture};
use brook_texture_streams::TexelRect;

use crate::picture::Picture;

/// What a texture looked like, or why it could not be read.
pub type Snap = Result<Picture, String>;

/// One pass as it ran.
#[derive(Debug, Clone)]
pub struct Shot {
    /// The step as the trace shows it (to pair the shot with its trace entry).
    pub pass: PassTrace,
    /// Texture unit `k` (or the copy's source) before the pass; inputs do not change.
    pub inputs: Vec<Snap>,
    /// Draw buffer `k` before the pass.
    pub before: Vec<Snap>,
    /// Draw buffer `k` after the pass: what it drew.
    pub after: Vec<Snap>,
    /// The pass's own time: the GPU was idle before it and finished after it.
    pub elapsed: Duration,
}

/// The shots of a run, shared between the observer the backend owns and the explainer.
#[derive(Clone, Default)]
pub struct Film {
    shots: Rc<RefCell<Vec<Shot>>>,
}

impl Film {
    /// A film with no shots yet.
    pub fn new() -> Film {
        Film::default()
    }

    /// An observer that adds a shot to this film for every step, pictures at most
    /// `max_side` pixels a side.
    pub fn camera(&self, max_side: u32) -> Box<dyn PassObserver> {
        Box::new(Camera {
            film: self.clone(),
            max_side,
            pending: None,
        })
    }

    /// The shots so far, leaving the film empty.
    pub fn take(&self) -> Vec<Shot> {
        std::mem::take(&mut self.shots.borrow_mut())
    }
}

struct Camera {
    film: Film,
    max_side: u32,
    /// The inputs and targets of the step running now, photographed before it.
    pending: Option<(Vec<Snap>, Vec<Snap>)>,
}

/// The textures a step reads and the ones it writes.
fn textures<'a>(step: &Step<'a>) -> (Vec<&'a Texture>, Vec<&'a Texture>) {
    match step {
        Step::Draw(pass) => (pass.inputs.clone(), pass.targets.clone()),
        Step::Copy { from, to, .. } => (vec![*from], vec![*to]),
        Step::Clear { target, .. } => (Vec::new(), vec![*target]),
    }
}

impl Camera {
    fn snap(&self, texture: &Texture) -> Snap {
        let (width, height) = (texture.width(), texture.height());
        let step = Picture::step_for(width, height, self.max_side);
        let read = |rect: TexelRect| texture.read(rect).map_err(|e| e.to_string());
        let rows = if step == 1 {
            read(TexelRect {
                x: 0,
                y: 0,
                width,
                height,
            })?
        } else {
            let per = usize::from(texture.components());
            let mut rows = Vec::new();
            for y in (0..height).step_by(step as usize) {
                let row = read(TexelRect {
                    x: 0,
                    y,
                    width,
                    height: 1,
                })?;
                rows.extend(row.chunks(per).step_by(step as usize).flatten());
            }
            rows
        };
        Picture::of_rows(width, height, texture.components(), step, &rows)
    }
}

impl PassObserver for Camera {
    fn before(&mut self, step: &Step) {
        let (inputs, targets) = textures(step);
        let inputs = inputs.into_iter().map(|t| self.snap(t)).collect();
        let before = targets.into_iter().map(|t| self.snap(t)).collect();
        self.pending = Some((inputs, before));
    }

    fn after(&mut self, step: &Step, elapsed: Duration) {
        let (inputs, before) = self.pending.take().unwrap_or_default();
        let after = textures(step).1.into_iter().map(|t| self.snap(t)).collect();
        self.film.shots.borrow_mut().push(Shot {
            pass: step.trace(),
            inputs,
            before,
            after,
            elapsed,
        });
    }
}
