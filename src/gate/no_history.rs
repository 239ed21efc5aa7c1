//! The gate's notes for element histories in a build without the CPU backend (cargo
//! feature `cpu` off), whose interpreter histories re-evaluate elements with: each is
//! nothing, so the operations in `mod.rs` read the same in every build.

use brook_core::{GatherOpCall, KernelCall, ReduceCall, ReduceOutput, ScatterCall, StreamArg};

use super::handles::StreamBody;
use super::Gate;

/// Nothing is noted.
pub(super) enum Noted {}

impl Gate {
    pub(super) fn recording_history(&self) -> bool {
        false
    }
    pub(super) fn history_created(&self, _: &StreamBody) {}
    pub(super) fn noted_read(&self, _: &StreamArg) {}
    pub(super) fn note_kernel(&self, _: &KernelCall) -> Option<Noted> {
        None
    }
    pub(super) fn noted_kernel(&self, _: Option<Noted>, _: &KernelCall) {}
    pub(super) fn note_reduce(&self, _: &ReduceCall) -> Option<Noted> {
        None
    }
    pub(super) fn noted_reduce(&self, _: Option<Noted>, _: &ReduceOutput) {}
    pub(super) fn note_scatter(&self, _: &ScatterCall) -> Option<Noted> {
        None
    }
    pub(super) fn noted_scatter(&self, _: Option<Noted>, _: &ScatterCall) {}
    pub(super) fn note_gather_op(&self, _: &GatherOpCall) -> Option<Noted> {
        None
    }
    pub(super) fn noted_gather_op(&self, _: Option<Noted>, _: &GatherOpCall) {}
    pub(super) fn noted_mask(&self, _: &dyn std::any::Any, _: &StreamArg) {}
    pub(super) fn noted_mask_cleared(&self, _: &dyn std::any::Any) {}
    pub(super) fn note_swap(&self, _: &StreamArg, _: &StreamArg) -> Option<Noted> {
        None
    }
    pub(super) fn noted_swap(&self, _: Option<Noted>) {}
}
