//! Photographing every pass: a [`PassObserver`] (brook-core's, at the seam) that reads what
//! each pass binds back before it runs (inputs and targets) and its targets after, and keeps
//! them as pictures. It names no graphics API: any backend that observes its passes
//! (`Backend::set_pass_observer`; GL today) hands it readable textures or buffers.
//!
//! It is installed only while a program is explained, so the normal path pays nothing; while
//! installed, everything a pass binds is read back twice per pass, which is what makes
//! explaining slow and why large resources are read a row at a time, only the rows shown.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use brook_core::{Grid, ObservedPass, PassObserver, PassTrace, Readback};

use crate::picture::Picture;

/// What a texture looked like, or why it could not be read.
pub type Snap = Result<Picture, String>;

/// One pass as it ran.
#[derive(Debug, Clone)]
pub struct Shot {
    /// The step as the trace shows it (to pair the shot with its trace entry).
    pub pass: PassTrace,
    /// Input `k` (texture unit, binding, the copy's source) before the pass; inputs do not
    /// change.
    pub inputs: Vec<Snap>,
    /// Target `k` (draw buffer, binding) before the pass.
    pub before: Vec<Snap>,
    /// Target `k` after the pass: what it wrote.
    pub after: Vec<Snap>,
    /// The pass's own time: the device was idle before it and finished after it, and on GL
    /// the program had been drawn once already (the warm-up), so this is execution alone.
    pub elapsed: Duration,
    /// The warm-up draw before the pass, which writes nothing: what the driver spent at the
    /// draw compiling (the first time a program meets its state) plus an empty draw's cost.
    /// `None` where the backend runs no warm-up.
    pub warm_up: Option<Duration>,
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

    /// An observer that adds a shot to this film for every pass, pictures at most
    /// `max_side` pixels a side.
    pub fn camera(&self, max_side: u32) -> Box<dyn PassObserver> {
        Box::new(Camera {
            film: self.clone(),
            max_side,
            pending: None,
            warm_up: None,
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
    /// The inputs and targets of the pass running now, photographed before it.
    pending: Option<(Vec<Snap>, Vec<Snap>)>,
    /// The warm-up of the pass running now, if it had one.
    warm_up: Option<Duration>,
}

impl Camera {
    /// A picture of `resource`: all of it, or every `step`-th row and texel of a large one,
    /// read a row at a time so only the rows shown are read.
    fn snap(&self, resource: &dyn Readback) -> Snap {
        let Grid {
            width,
            height,
            components,
        } = resource.grid();
        let step = Picture::step_for(width, height, self.max_side);
        let read = |first, count| resource.read_rows(first, count).map_err(|e| e.to_string());
        let rows = if step == 1 {
            read(0, height)?
        } else {
            let per = usize::from(components);
            let mut rows = Vec::new();
            for y in (0..height).step_by(step as usize) {
                let row = read(y, 1)?;
                rows.extend(row.chunks(per).step_by(step as usize).flatten());
            }
            rows
        };
        Picture::of_rows(width, height, components, step, &rows)
    }

    fn snaps(&self, resources: &[&dyn Readback]) -> Vec<Snap> {
        resources.iter().map(|r| self.snap(*r)).collect()
    }
}

impl PassObserver for Camera {
    fn before(&mut self, pass: &ObservedPass) {
        self.pending = Some((self.snaps(&pass.inputs), self.snaps(&pass.targets)));
        self.warm_up = None;
    }

    fn warmed_up(&mut self, _: &ObservedPass, took: Duration) {
        self.warm_up = Some(took);
    }

    fn after(&mut self, pass: &ObservedPass, elapsed: Duration) {
        let (inputs, before) = self.pending.take().unwrap_or_default();
        self.film.shots.borrow_mut().push(Shot {
            pass: pass.trace.clone(),
            inputs,
            before,
            after: self.snaps(&pass.targets),
            elapsed,
            warm_up: self.warm_up.take(),
        });
    }
}
