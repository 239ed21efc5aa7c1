//! Brook calls executed on GL: programs, FBOs, quad draws.
//!
//! A kernel call picks a shader [`Variant`](brook_glsl::Variant) from its arguments, links the
//! generated passes once per context (the cache key is module, kernel and variant), then each
//! pass binds the output textures' framebuffer, the input textures, the uniforms, and draws one
//! triangle over the output. A repeated call makes no GL calls beyond those.

mod args;
mod draw;
mod error;
mod gather_op;
mod linked;
mod program;
mod reduce;
mod runner;
mod scatter;
mod spare;
mod trace;
mod uniforms;
mod vout;
mod write_mask;

pub use args::{KernelArg, StreamArg};
pub use brook_core::{ReducePass, ReducePlan};
pub use error::PassError;
pub use reduce::ReduceInto;
pub use runner::{KernelModule, KernelRun, KernelRunner, Replacement};
pub use scatter::ScatterWith;
pub use trace::{KernelTrace, PassTrace, ScratchTrace, TraceEntry, VoutTrace};
pub use uniforms::{extent_vector, UniformData};
pub use vout::MAX_VOUT_PUSHES;
