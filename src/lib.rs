//! Brook for GPUs, in Rust: streams are float textures, a kernel is a fragment shader drawn
//! over the output, exactly as the Brook papers map the stream model onto the graphics
//! pipeline — and the same program runs on a CPU reference backend for comparison.
//!
//! ```no_run
//! use brook::{args, Runtime};
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

mod arg;
mod backend;
pub mod capi;
mod cpu;
mod cpu_mask;
mod element_type;
mod error;
mod gather_op;
mod gl;
mod host_values;
mod print;
mod program;
mod program_cache;
mod runtime;
mod scatter;
mod stream;

pub use arg::Arg;
pub use backend::{Backend, BackendArg, BackendReduceTarget, BackendScatterOp};
pub use error::BrookError;
pub use gather_op::GatherOp;
pub use print::{format_stream, format_value};
pub use program::Program;
pub use runtime::{Runtime, BACKEND_NAMES};
pub use scatter::ScatterOp;
pub use stream::{Stream, StreamDomain};

pub use brook_frontend as frontend;
pub use brook_glsl as glsl;
pub use brook_passes as passes;
pub use brook_passes::TraceEntry;
pub use brook_texture_streams as texture_streams;
pub use brook_texture_streams::{ContextOptions, ElementFormat, IterSpec, MemberFormat, Profile};

/// The README's Rust example, compiled and run as a doctest so it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
