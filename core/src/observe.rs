//! Watching passes run, on any backend: the pipeline explorer's hook at the seam.
//!
//! A backend that runs calls as passes (GL draws, compute dispatches) can tell a
//! [`PassObserver`] about each one just before and just after it runs
//! ([`crate::Backend::set_pass_observer`]): the pass as the trace records it, and every
//! resource it binds — GL textures, storage buffers, host memory — readable as floats in one
//! stated layout ([`Grid`]), so an observer draws pictures of any backend's passes without
//! knowing its graphics API. Observing is for people learning the pipeline: a backend may
//! wait for its device around every observed pass, so `elapsed` is the pass's own time.

use std::time::Duration;

use crate::error::BrookError;
use crate::trace::PassTrace;

/// How a bound resource reads back: `height` rows of `width` texels, `components` floats
/// each, row 0 first, every row left to right. A GL texture reads as its texels; a backend
/// keeping streams in C layout reads one as its elements, its innermost extent per row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// Texels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Floats per texel (1 to 4).
    pub components: u8,
}

/// A resource a pass binds, readable while the observer is told about the pass.
pub trait Readback {
    /// Its extents and floats per texel.
    fn grid(&self) -> Grid;
    /// Rows `first..first + count`, whole, as [`Grid`] lays them out
    /// (`count × width × components` floats).
    fn read_rows(&self, first: u32, count: u32) -> Result<Vec<f32>, BrookError>;
}

/// One pass as an observer sees it.
pub struct ObservedPass<'a> {
    /// The pass as the trace records it (label, program, bindings, viewport, draw).
    pub trace: PassTrace,
    /// What `trace.inputs[k]` names, readable: before the pass it holds what the pass reads.
    pub inputs: Vec<&'a dyn Readback>,
    /// What `trace.targets[k]` names, readable: what the pass overwrites before it, what it
    /// wrote after it.
    pub targets: Vec<&'a dyn Readback>,
}

/// Sees every pass of every call as it runs (installed with
/// [`crate::Backend::set_pass_observer`]).
pub trait PassObserver {
    /// Before `pass` runs: reading its inputs and targets is allowed.
    fn before(&mut self, pass: &ObservedPass);
    /// Between `before` and the pass: a backend whose driver compiles at a program's first
    /// use (GL: at the first draw) may run the pass once writing nothing, so that `after`'s
    /// time is the pass's own; `took` is that warm-up, compile included. Not called where
    /// there is nothing to warm up.
    fn warmed_up(&mut self, pass: &ObservedPass, took: Duration) {
        let _ = (pass, took);
    }
    /// After `pass` ran and the device finished it, which took `elapsed` (after the
    /// warm-up, where there was one: the execution alone).
    fn after(&mut self, pass: &ObservedPass, elapsed: Duration);
}
