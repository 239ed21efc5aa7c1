//! Brook for GPUs, in Rust: streams are float textures, a kernel is a fragment shader drawn
//! over the output, exactly as the Brook papers map the stream model onto the graphics
//! pipeline — and the same program runs on a CPU reference backend for comparison.
//!
//! ```no_run
//! use brook::prelude::*;
//!
//! let rt = Runtime::gl()?; // headless EGL; `Runtime::cpu()` for the reference backend
//! let program = rt.compile(
//!     "kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 result<>) {
//!          result = a * x + y;
//!      }",
//!     "saxpy.br",
//! )?;
//! let (x, y, r) = (rt.stream_of(4, &[512, 512])?, rt.stream_of(4, &[512, 512])?, rt.stream_of(4, &[512, 512])?);
//! x.read(&vec![1.0; 512 * 512 * 4])?; // streamRead
//! y.read(&vec![2.0; 512 * 512 * 4])?;
//! rt.run(&program, "saxpy", args![3.0f32, &x, &y, &r])?;
//! assert_eq!(r.to_vec()?[0], 5.0); // streamWrite
//! # Ok::<(), brook::BrookError>(())
//! ```
//!
//! The runtime checks every call (brook-core) and hands it to a backend through the
//! [`Backend`] trait: GL ([`GlBackend`], from brook-passes), the CPU ([`CpuBackend`], from
//! brook-cpu), wgpu compute ([`WgpuBackend`], from brook-wgpu: [`Runtime::wgpu`]), or one's
//! own ([`Runtime::with_backend`]). `docs/architecture.md` walks through
//! how a call flows.

#![warn(missing_docs)]

mod arg;
mod calls;
#[cfg(feature = "brcc")]
pub mod capi;
mod explaining;
mod gather_op;
mod masks;
mod print;
mod program;
mod program_cache;
mod runtime;
mod scatter;
mod stream;

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
    Backend, BackendArg, BrookError, Domain, ElementFormat, IterSpec, MemberFormat, PassTrace,
    ReducePlan, StreamError, TraceEntry,
};
pub use brook_cpu::CpuBackend;
pub use brook_explain as explain;
pub use brook_frontend as frontend;
pub use brook_glsl as glsl;
pub use brook_passes as passes;
pub use brook_passes::{GlBackend, PassObserver};
pub use brook_texture_streams as texture_streams;
pub use brook_texture_streams::{ContextOptions, Profile};
pub use brook_wgpu as wgpu_backend;
pub use brook_wgpu::WgpuBackend;

/// The README's Rust example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
