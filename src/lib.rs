#![doc = include_str!("../docs/walkthrough.md")]
#![warn(missing_docs)]

mod arg;
mod calls;
#[cfg(feature = "brcc")]
pub mod capi;
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

pub use brook_core as core;
pub use brook_core::{
    Backend, BackendArg, BrookError, Domain, ElementFormat, IterSpec, MemberFormat, PassObserver,
    PassTrace, ReducePlan, StreamError, TraceEntry,
};
pub use brook_cpu::CpuBackend;
pub use brook_explain as explain;
pub use brook_frontend as frontend;
pub use brook_glsl as glsl;
pub use brook_ir as ir;
pub use brook_passes as passes;
pub use brook_passes::GlBackend;
pub use brook_texture_streams as texture_streams;
pub use brook_texture_streams::{ContextOptions, Profile};
pub use brook_wgpu as wgpu_backend;
pub use brook_wgpu::WgpuBackend;

/// The README's Rust example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
