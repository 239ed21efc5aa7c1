//! The GL backend: Brook calls as passes of the graphics pipeline (001 §4, 000 ch. 5).
//!
//! Streams are float textures (`brook-texture-streams`); a call is checked by the runtime
//! (`brook-core`), then encoded and executed:
//!
//! - `encode`: each mechanism — kernel call, vout packing, reduction, scatter, gather-op,
//!   write mask, in-place scratch — turns a call into a list of [`Step`]s: the program, the
//!   textures on every unit and draw buffer, the uniform values, the viewport, the primitive,
//!   blending and depth. Shaders come from `brook-glsl`, linked once (`programs`).
//! - [`Executor`]: issues a step list, the only code that draws or changes GL state; it
//!   records the pass trace (the same list, as data) and lets brook-core's `PassObserver`
//!   see each step, its textures readable.
//! - [`GlBackend`]: brook-core's `Backend` trait over the two, with what lives across calls.
//!
//! A repeated call makes no GL calls beyond binding and drawing: programs, framebuffers and
//! intermediate streams are all found in caches.

#![warn(missing_docs)]

mod args;
mod backend;
mod encode;
mod error;
mod executor;
mod linked;
mod program;
mod programs;
mod spare;
mod step;
mod uniforms;

pub use backend::{gl_textures, GlBackend};
pub use brook_texture_streams::Texture;
pub use encode::mask::WriteMask;
pub use encode::vout::MAX_VOUT_PUSHES;
pub use error::PassError;
pub use executor::Executor;
pub use linked::{LinkedKernel, LinkedPass};
pub use step::{DepthUse, MaskTest, Pass, Primitive, Step};
pub use uniforms::extent_vector;
