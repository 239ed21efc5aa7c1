//! Recording a run for the explorer: the pass trace, a shot of every pass on a backend that
//! observes its passes (`Backend::set_pass_observer`: GL), and on every backend the streams
//! each operation wrote.

use brook_core::{Backend, SourceText, TraceEntry};

use crate::camera::{Film, Shot};
use crate::outcome::{Operation, Outcome, Sampled, StreamContents};

/// What a run did, ready to be written as a site ([`crate::write`]).
#[derive(Debug, Clone, Default)]
pub struct Recording {
    /// The backend's short name (`gl`, `cpu`, `wgpu`).
    pub name: String,
    /// The backend and machine it ran on.
    pub backend: String,
    /// What each call became, pass by pass: one card per entry.
    pub trace: Vec<TraceEntry>,
    /// One shot per pass of the trace, in order, on a backend that observes its passes (GL);
    /// none on others (their cards show each operation's results instead).
    pub shots: Vec<Shot>,
    /// The operations the runtime reported ([`Recorder::operation`]), in order: which trace
    /// entries each became and the streams it wrote. Empty when the recorder was driven
    /// without a runtime (then the cards show the trace alone).
    pub operations: Vec<Operation>,
    /// The Brook sources the runtime compiled while recording ([`Recorder::compiled`]), so a
    /// program that compiles its kernels inside the run (a viz simulation) still gets its
    /// Brook lines quoted on the cards.
    pub sources: Vec<SourceText>,
}

/// A recording under way: the trace is on and, where the backend takes one, the camera is
/// installed.
pub struct Recorder {
    film: Option<Film>,
    max_side: u32,
    /// The entries of the operations reported so far (taken from the backend after each).
    trace: Vec<TraceEntry>,
    operations: Vec<Operation>,
    sources: Vec<SourceText>,
}

impl Recorder {
    /// Starts tracing `backend` (forgetting earlier entries) and, where it observes its
    /// passes, photographing every pass with pictures at most `max_side` pixels a side.
    pub fn start(backend: &dyn Backend, max_side: u32) -> Recorder {
        backend.set_trace(true);
        let film = Film::new();
        // A backend that refuses the observer has no passes to show: its cards show each
        // operation's results.
        let film = backend
            .set_pass_observer(Some(film.camera(max_side)))
            .is_ok()
            .then_some(film);
        Recorder {
            film,
            max_side,
            trace: Vec::new(),
            operations: Vec::new(),
            sources: Vec::new(),
        }
    }

    /// An operation has run: its trace entries are the backend's since the last one, and
    /// `outputs` the streams it wrote, read back. A backend that traces nothing for the
    /// operation (the CPU has no passes to record for a write mask or a swap) gets
    /// `untraced` as its entry, so every backend's page has a card for it.
    pub fn operation(
        &mut self,
        backend: &dyn Backend,
        untraced: Option<TraceEntry>,
        outputs: Vec<StreamContents>,
    ) {
        let mut entries = backend.take_trace();
        if entries.is_empty() {
            entries.extend(untraced);
        }
        let outcomes = outputs
            .into_iter()
            .map(|c| Outcome {
                sampled: Sampled::of(&c, self.max_side),
                name: c.name,
                histories: c.histories,
            })
            .collect();
        self.operations.push(Operation {
            entries: entries.len(),
            outcomes,
        });
        self.trace.extend(entries);
    }

    /// Operations reported so far: the number ([`Recording::operations`]' index) the next one
    /// gets, which element histories link to.
    pub fn operations(&self) -> usize {
        self.operations.len()
    }

    /// A program was compiled while recording: its source is kept for the cards.
    pub fn compiled(&mut self, source: &SourceText) {
        if !self.sources.contains(source) {
            self.sources.push(source.clone());
        }
    }

    /// Stops tracing and photographing; what was recorded since [`Recorder::start`].
    pub fn finish(mut self, backend: &dyn Backend) -> Recording {
        self.trace.extend(backend.take_trace());
        backend.set_trace(false);
        if self.film.is_some() {
            // Removing an observer cannot fail.
            let _ = backend.set_pass_observer(None);
        }
        Recording {
            name: backend.name().into(),
            backend: backend.describe(),
            trace: self.trace,
            shots: self.film.map(|f| f.take()).unwrap_or_default(),
            operations: self.operations,
            sources: self.sources,
        }
    }
}
