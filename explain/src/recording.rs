//! Recording a run for the explorer: the pass trace, and on GL a shot of every pass.

use brook_core::{Backend, TraceEntry};
use brook_passes::GlBackend;

use crate::camera::{Film, Shot};

/// What a run did, ready to be written as a site ([`crate::write`]).
#[derive(Debug, Clone, Default)]
pub struct Recording {
    /// The backend and machine it ran on.
    pub backend: String,
    /// What each call became, pass by pass: one card per entry.
    pub trace: Vec<TraceEntry>,
    /// One shot per pass of the trace, in order, on GL; none on other backends (their cards
    /// show the passes without pictures).
    pub shots: Vec<Shot>,
}

/// A recording under way: the trace is on and, on GL, the camera is installed.
pub struct Recorder {
    film: Option<Film>,
}

impl Recorder {
    /// Starts tracing `backend` (forgetting earlier entries) and, on GL, photographing
    /// every pass with pictures at most `max_side` pixels a side.
    pub fn start(backend: &dyn Backend, max_side: u32) -> Recorder {
        backend.set_trace(true);
        let film = gl(backend).map(|gl| {
            let film = Film::new();
            gl.set_observer(Some(film.camera(max_side)));
            film
        });
        Recorder { film }
    }

    /// Stops tracing and photographing; what was recorded since [`Recorder::start`].
    pub fn finish(self, backend: &dyn Backend) -> Recording {
        let trace = backend.take_trace();
        backend.set_trace(false);
        if let Some(gl) = gl(backend) {
            gl.set_observer(None);
        }
        Recording {
            backend: backend.describe(),
            trace,
            shots: self.film.map(|f| f.take()).unwrap_or_default(),
        }
    }
}

fn gl(backend: &dyn Backend) -> Option<&GlBackend> {
    backend.as_any().downcast_ref::<GlBackend>()
}
