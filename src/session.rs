//! What a runtime shares with every stream made on it: the backend, the kernel call deferred
//! for automatic fusion ([`crate::deferred`]), and the explorer's recorder. A stream's
//! `read` or `write` may have to run the deferred call first, and that call's card belongs in
//! the recording like any other, so both live here rather than in the [`Runtime`](crate::Runtime).

use std::cell::RefCell;
use std::rc::Rc;

use brook_core::{Backend, TraceEntry};
use brook_explain::{Recorder, StreamContents};

use crate::deferred::Deferred;

/// The state a runtime and its streams share.
pub(crate) struct Session {
    pub(crate) backend: Rc<dyn Backend>,
    pub(crate) deferred: Deferred,
    /// The explorer's recorder, while a run is explained ([`crate::explaining`]).
    pub(crate) recorder: RefCell<Option<Recorder>>,
}

impl Session {
    /// A session on `backend`, deferring kernel calls for fusion when `automatic`.
    pub(crate) fn new(backend: Rc<dyn Backend>, automatic: bool) -> Session {
        Session {
            backend,
            deferred: Deferred::new(automatic),
            recorder: RefCell::new(None),
        }
    }

    /// Reports an operation that ran, when a run is explained: `outputs` makes the
    /// streams it wrote (called only then), `untraced` the card of a backend that traced
    /// nothing for it.
    pub(crate) fn explained(
        &self,
        untraced: impl FnOnce() -> Option<TraceEntry>,
        outputs: impl FnOnce() -> Vec<StreamContents>,
    ) {
        if self.recorder.borrow().is_none() {
            return;
        }
        // Read back before borrowing the recorder: reading a stream may run the deferred
        // call, which reports itself.
        let (untraced, outputs) = (untraced(), outputs());
        if let Some(recorder) = self.recorder.borrow_mut().as_mut() {
            recorder.operation(self.backend.as_ref(), untraced, outputs);
        }
    }
}
