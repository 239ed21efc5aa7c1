//! The runtime's side of the pipeline explorer: starting and ending a recording. What each
//! operation reports to it is the gate's (`src/gate/recording.rs`), so every operation that
//! reaches the backend is recorded, a deferred kernel call when it runs.

use crate::runtime::Runtime;

impl Runtime {
    /// Starts recording every operation for the explorer (see [`Runtime::explain`]), pictures
    /// at most `max_side` pixels a side. For runs that cannot be one closure, as `brcc explain`
    /// running a whole C++ program; [`Runtime::finish_explaining`] ends it.
    pub fn start_explaining(&self, max_side: u32) {
        self.gate.start_recording(max_side);
    }

    /// Ends the recording [`Runtime::start_explaining`] began (an empty one, the trace left
    /// as it was, if none was).
    pub fn finish_explaining(&self) -> brook_explain::Recording {
        self.gate.finish_recording()
    }
}
