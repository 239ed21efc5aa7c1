//! The gate's reports to the explorer in a build without it (cargo feature `explain` off):
//! each is nothing, so the operations in `mod.rs` read the same in every build.

use brook_core::{Compiled, KernelCall, ReduceOutput, StreamArg, TraceEntry};

use super::Gate;

impl Gate {
    pub(super) fn compiled(&self, _: &Compiled) {}
    pub(super) fn record(&self, _: Option<TraceEntry>, _: &[(&str, &StreamArg)]) {}
    pub(super) fn record_kernel(&self, _: &KernelCall) {}
    pub(super) fn record_reduction(&self, _: &ReduceOutput) {}
    pub(super) fn record_write_mask(&self, _: &StreamArg) {}
    pub(super) fn record_mask_opened(&self, _: &str) {}
    pub(super) fn record_swap(&self, _: &StreamArg, _: &StreamArg) {}
}
