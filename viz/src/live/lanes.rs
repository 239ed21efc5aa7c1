//! One simulation per backend, stepped together: a live run on one backend is one lane, a
//! side-by-side run (`--backend gl,wgpu,cpu`) one lane per backend plus the difference view,
//! which marks the elements where a backend's shown stream differs from the first one's.

use std::rc::Rc;
use std::time::{Duration, Instant};

use brook::texture_streams::GlContext;
use brook::{BrookError, Runtime, Stream};

use super::stats::Stats;
use super::{check_constants, Simulation};
use crate::backend::Backend;
use crate::difference::{differences, TOLERANCE};
use crate::error::VizError;
use crate::renderer::Renderer;
use crate::view::View;
use crate::ColorMap;

/// A simulation on one backend. Field order is drop order: the simulation's streams go
/// before their runtime.
pub(crate) struct Lane<S> {
    pub sim: S,
    pub rt: Runtime,
    pub backend: Backend,
    /// Steps run and the time they took (kernels waited for with `finish`).
    pub stepped: (u64, Duration),
    /// Step times, smoothed for the label.
    pub smoothed: Stats,
}

/// What a cell of the picture shows: a stream, how, and its label.
pub(crate) struct Cell<'a> {
    pub stream: &'a Stream,
    /// The difference view's own view; `None` draws the viewer's.
    pub view: Option<View>,
    pub label: String,
}

/// The lanes, and the difference view's stream (side by side only).
pub(crate) struct Lanes<S> {
    pub lanes: Vec<Lane<S>>,
    difference: Option<Difference>,
}

/// The difference view's marks, in a CPU stream (any backend's streams can be drawn; the
/// marks are computed on the host from every lane's values, read back).
struct Difference {
    marks: Option<Stream>,
    differing: usize,
    rt: Runtime,
}

/// How the difference view draws its marks: agreeing elements black, differing ones bright.
fn difference_view() -> View {
    View::scalar(ColorMap::Magma).with_range(0.0, 1.0)
}

impl<S: Simulation> Lanes<S> {
    /// `make` on each of `backends` (GL in `window` when given), with its constants checked.
    pub fn new(
        backends: &[Backend],
        window: Option<&Rc<GlContext>>,
        make: &impl Fn(&Runtime) -> Result<S, BrookError>,
    ) -> Result<Lanes<S>, VizError> {
        if backends.is_empty() {
            return Err(VizError::Usage("no backend to run on".into()));
        }
        if let Some((_, twice)) =
            (backends.iter().enumerate()).find(|(i, b)| backends[..*i].contains(b))
        {
            return Err(VizError::Usage(format!("--backend names {twice} twice")));
        }
        let mut lanes = Vec::with_capacity(backends.len());
        for &backend in backends {
            let rt = backend.runtime(window)?;
            let mut sim = make(&rt)?;
            check_constants(&mut sim)?;
            lanes.push(Lane {
                sim,
                rt,
                backend,
                stepped: (0, Duration::ZERO),
                smoothed: Stats::new(),
            });
        }
        let difference = (lanes.len() > 1).then(|| Difference {
            marks: None,
            differing: 0,
            rt: Runtime::cpu(),
        });
        Ok(Lanes { lanes, difference })
    }

    /// The first lane's simulation: the one the panel lists and steers.
    pub fn first(&mut self) -> &mut S {
        &mut self.lanes[0].sim
    }

    /// One step of every lane, each timed to its kernels' end; the time they took together.
    pub fn step(&mut self) -> Result<Duration, VizError> {
        let mut total = Duration::ZERO;
        for lane in &mut self.lanes {
            let started = Instant::now();
            lane.sim.step(&lane.rt)?;
            lane.rt.finish_checked()?;
            let took = started.elapsed();
            lane.smoothed.step_done(took);
            lane.stepped.0 += 1;
            lane.stepped.1 += took;
            total += took;
        }
        Ok(total)
    }

    /// Gives every other lane the first lane's constant values (the panel's sliders move
    /// the first's), so all lanes run the same simulation.
    pub fn share_constants(&mut self) {
        let (first, rest) = self.lanes.split_at_mut(1);
        let values: Vec<f32> = first[0].sim.constants().iter().map(|c| c.value()).collect();
        for lane in rest {
            for (constant, value) in lane.sim.constants().iter_mut().zip(&values) {
                constant.set(*value);
            }
        }
    }

    /// Recomputes the difference view for stream `selected` (`None`: the view's) drawn with
    /// `view` (side by side only): every lane's shown stream is read back and compared with the first's.
    pub fn compare(&mut self, selected: Option<usize>, view: &View) -> Result<(), VizError> {
        let Some(difference) = &mut self.difference else {
            return Ok(());
        };
        let mut values = Vec::with_capacity(self.lanes.len());
        let (mut shape, mut format) = (Vec::new(), None);
        for lane in &self.lanes {
            let (stream, _) = shown(&lane.sim, selected);
            if format.is_none() {
                shape = stream.shape().to_vec();
                format = Some(stream.format().clone());
            } else if stream.shape() != shape {
                return Err(VizError::Usage(format!(
                    "the {} lane's stream is {:?}, the first lane's {shape:?}",
                    lane.backend,
                    stream.shape()
                )));
            }
            values.push(stream.to_vec()?);
        }
        let format = format.expect("at least one lane");
        let (marks, differing) =
            differences(&format, view.member, &values[0], &values[1..], TOLERANCE)?;
        let stream = match difference.marks.take() {
            Some(s) if s.shape() == shape => s,
            _ => difference.rt.stream_of(1, &shape)?,
        };
        stream.read(&marks)?;
        difference.marks = Some(stream);
        difference.differing = differing;
        Ok(())
    }

    /// Has `renderer` draw the wgpu lane's streams with wgpu (there is at most one wgpu lane),
    /// unless it already does: building the view pipelines is not free.
    pub fn show_wgpu_streams_in(&self, renderer: &mut Renderer) -> Result<(), VizError> {
        match self.lanes.iter().find(|l| l.backend == Backend::Wgpu) {
            Some(lane) if !renderer.draws_wgpu_streams() => renderer.show_wgpu_streams_of(&lane.rt),
            _ => Ok(()),
        }
    }

    /// The cells to draw, left to right: each lane's stream `selected`, then the difference
    /// view (after [`compare`](Self::compare)). Labels are short, for narrow cells: the
    /// backend and its step time (smoothed), or how many of the elements differ.
    pub fn cells(&self, selected: Option<usize>) -> Vec<Cell<'_>> {
        let mut cells: Vec<Cell<'_>> = self
            .lanes
            .iter()
            .map(|lane| Cell {
                stream: shown(&lane.sim, selected).0,
                view: None,
                label: format!(
                    "{} {:.1} ms",
                    lane.backend,
                    lane.smoothed.kernel_seconds() * 1e3
                ),
            })
            .collect();
        if let Some(Difference {
            marks: Some(marks),
            differing,
            ..
        }) = &self.difference
        {
            cells.push(Cell {
                stream: marks,
                view: Some(difference_view()),
                label: format!("diff {differing}/{}", marks.len()),
            });
        }
        cells
    }

    /// Each backend's mean step time so far.
    pub fn mean_steps(&self) -> Vec<(Backend, Duration)> {
        self.lanes
            .iter()
            .map(|l| (l.backend, l.stepped.1 / l.stepped.0.max(1) as u32))
            .collect()
    }
}

/// Stream `selected` of `sim`'s list (`None`: its view's, as headless runs show), and the
/// simulation's view of it; the view's when the list is shorter.
pub(crate) fn shown<S: Simulation>(sim: &S, selected: Option<usize>) -> (&Stream, View) {
    // `streams()` borrows `sim`; the streams it names live in `sim`.
    match selected.and_then(|i| sim.streams().get(i).map(|s| (s.stream, s.view))) {
        Some(shown) => shown,
        None => sim.view(),
    }
}
