//! What every Brook backend shares, with no graphics API below it.
//!
//! The runtime (`brook`) checks each call here and hands it to a [`Backend`]; the GL backend
//! (`brook-passes`), the CPU backend (`brook-cpu`) and any other implement that trait with
//! the types of this crate, so they agree on what a call means before they differ in how
//! they run it:
//!
//! - [`ElementFormat`], [`Domain`], [`IterSpec`], [`shape`]: what a stream is; [`HostScalar`]:
//!   the original's byte and fixed-point host arrays of float streams.
//! - [`index`]: Brook's index rules (resizing, gather rounding and clamping, `indexof`).
//! - [`call`]: the checks every call passes (kinds, element types, aliasing, shapes).
//! - [`ReducePlan`], [`Rounds`], [`scan_levels`]: how reductions, colliding scatters and vout
//!   packing are cut into passes, for backends that run passes.
//! - [`loops`]: loops on drivers that cap their iterations (the cap, trip-count bounds).
//! - [`budget`]: the compile-time budget of shaders (loop nesting, inlined size).
//! - [`WriteMaskState`]: which write-mask and write-query calls are allowed when.
//! - [`TraceEntry`]: what a call became, pass by pass, as data; [`PassObserver`]: each pass
//!   as it runs, with what it binds readable.
//! - [`BrookError`]: every failure, one variant per kind of mistake.

#![warn(missing_docs)]

pub mod backend;
pub mod budget;
pub mod call;
mod domain;
mod error;
mod format;
mod host_scalar;
pub mod index;
mod iter;
pub mod loops;
mod mask;
pub mod observe;
mod program;
mod reduce_plan;
mod rounds;
mod scan;
pub mod shape;
pub mod trace;

pub use backend::{
    Backend, BackendArg, BackendMask, BackendProgram, BackendStream, Combiner, GatherOpCall,
    KernelCall, MaskUse, Operand, ReduceCall, ReduceOutput, ScatterCall, StreamArg,
};
pub use domain::Domain;
pub use error::{fmt_shape, BrookError, ShaderRejection, StreamError};
pub use format::{ElementFormat, MemberFormat};
pub use host_scalar::HostScalar;
pub use iter::IterSpec;
pub use mask::WriteMaskState;
pub use observe::{Grid, ObservedPass, PassObserver, Readback};
pub use program::{quoted_source_line, Compiled, SourceText};
pub use reduce_plan::{ReducePass, ReducePlan};
pub use rounds::Rounds;
pub use scan::scan_levels;
pub use trace::{
    Blend, CallTrace, Depth, Draw, PassTrace, ProgramTrace, ScatterInputs, ScratchTrace,
    ShaderSource, TraceEntry, UniformData, VoutTrace,
};
