#![doc = include_str!("../docs/walkthrough.md")]
#![warn(missing_docs)]

mod arg;
mod calls;
#[cfg(feature = "brcc")]
pub mod capi;
#[cfg(feature = "explain")]
mod explaining;
mod gate;
mod gather_op;
mod masks;
mod print;
mod program;
mod program_cache;
mod runtime;
mod scatter;
mod stream;
mod stream_copies;
#[cfg(feature = "cpu")]
pub mod why;
mod write_mask;

/// What most programs use: `use brook::prelude::*;`.
pub mod prelude {
    pub use crate::args;
    pub use crate::{Arg, BrookError, GatherOp, Program, Runtime, ScatterOp, Stream};
}

pub use arg::Arg;
pub use gather_op::GatherOp;
pub use print::{format_stream, format_value};
pub use program::Program;
pub use runtime::{Runtime, BACKEND_NAMES};
pub use scatter::ScatterOp;
pub use stream::{Stream, StreamDomain};
pub use write_mask::WriteMask;

pub use brook_core as core;
pub use brook_core::{
    Backend, BackendArg, BrookError, Domain, ElementFormat, IterSpec, MemberFormat, PassObserver,
    PassTrace, ReducePlan, StreamError, TraceEntry,
};
#[cfg(feature = "cpu")]
pub use brook_cpu::CpuBackend;
#[cfg(feature = "explain")]
pub use brook_explain as explain;
pub use brook_frontend as frontend;
#[cfg(feature = "gl")]
pub use brook_glsl as glsl;
pub use brook_ir as ir;
#[cfg(feature = "gl")]
pub use brook_passes as passes;
#[cfg(feature = "gl")]
pub use brook_passes::GlBackend;
#[cfg(feature = "gl")]
pub use brook_texture_streams as texture_streams;
#[cfg(feature = "gl")]
pub use brook_texture_streams::{ContextOptions, Profile};
#[cfg(feature = "wgpu")]
pub use brook_wgpu as wgpu_backend;
#[cfg(feature = "wgpu")]
pub use brook_wgpu::WgpuBackend;

/// The README's Rust example, compiled and run as a doctest so it cannot rot.
#[cfg(all(doctest, feature = "gl"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
