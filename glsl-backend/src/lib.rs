//! The GLSL generator (not a backend: `brook-passes` is the GL backend, which links and draws
//! what it writes): Brook's typed IR as GLSL fragment shaders, the way the paper maps kernels
//! onto the GPU (001 §4, 000 ch. 5): one fragment shader per kernel pass, drawn over the
//! output.
//!
//! Everything here is a pure function of (IR, [`Variant`], [`Target`]) → source text, so it is
//! tested without a GL context; `brook-passes` compiles and draws the result.
//!
//! The shaders are meant to be read: they keep the Brook names, quote the Brook line above
//! each statement, and call small named helpers (`brook_texel`, `brook_gather_clamp`, …) for
//! the addressing the paper describes, rather than inlining arithmetic.

#![warn(missing_docs)]

mod builder;
mod error;
mod fused;
mod kernel;
mod loops;
mod lower;
mod mask;
mod math;
mod members;
mod names;
mod pass;
mod prelude;
mod reduce;
mod resize;
mod scan;
mod scatter;
mod shader;
mod source;
mod types;
mod variant;
mod vertex;
mod vout;
mod walk;

pub use brook_core::budget::{MAX_INLINED_STATEMENTS, MAX_LOOP_NESTING};
pub use error::GenError;
pub use fused::{fusion_refused, generate_fused_reduce_pass};
pub use kernel::{generate_kernel, KernelProgram};
pub use mask::mask_pass;
pub use members::stream_members;
pub use names::glsl_name;
pub use pass::{MemberRef, PassProgram, SamplerSlot, UniformSlot, UniformValue};
pub use prelude::layout_helpers;
pub use reduce::{generate_reduce_pass, ReduceStep};
pub use scan::{compact_pass, scan_down_pass, scan_up_pass};
pub use scatter::{
    generate_gather_fetch, generate_scatter_reduce, generate_scatter_write, ScatterProgram,
    ScatterRoles,
};
pub use source::SourceText;
pub use variant::{Access, Axis, OutputRegion, Placement, Profile, Resize, Target, Variant, Wrap};
pub use vertex::vertex_shader;
pub use vout::candidate_of;
