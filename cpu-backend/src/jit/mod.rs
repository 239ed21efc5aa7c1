//! The JIT: kernels and reductions compiled to native code with Cranelift.
//!
//! The typed IR of a kernel becomes one Cranelift function over a *tile* of consecutive
//! output elements (`kernel`): a loop that loads each element's inputs, runs the body and
//! stores the outputs, with Brook's vector types on 128-bit SIMD lanes (`float4` is one
//! `f32x4`), gathers, resizing, iterators and `indexof` as inline address arithmetic, and
//! real branches for control flow (one element at a time, nothing diverges); for kernels on
//! scalar and vector streams, also one over four elements per iteration (`soa`). Tiles run in
//! parallel with rayon (`drive`). A reduction becomes a fold over consecutive elements and
//! a one-element update (`reduce`); ScatterOp and GatherOp call the update.
//!
//! Kernels whose every value splits into scalars also get a second function that runs four
//! consecutive elements per iteration, one `f32x4` holding the same scalar of four elements
//! (structure of arrays, what llvmpipe does with eight); `soa` says which kernels and how.
//! Why (measured by `cargo bench -p brook-cpu --bench lanes`, the same kernels built both
//! ways with this crate's Cranelift, on 2 cores of an AMD EPYC at load ~12): four per
//! iteration took 0.51–0.57× the time on the 64-tap scalar gather (the index rule on four
//! lanes, the four loads still scalar), 0.31–0.35× on `float` SAXPY, and 0.04–0.10× on a
//! `float` branch that diverges at random with both sides and a select; on `float4` SAXPY,
//! transposing four elements in and out, it was equal (1.10×, interval holding 1), so a
//! kernel whose every vector is a `float4` keeps one element per iteration; other vector
//! kernels run four (measured per application in docs/cpu-backend.md).
//! What is built is the simplest correct form: a
//! branch or loop whose condition differs between the four lanes is not masked but *bails
//! out* (the quad runs through the one-element function), so a divergent branch runs at the
//! one-element speed rather than the bench's select; the rest of a tile after its last quad
//! runs one element at a time; reductions stay one element per step (their float fold order
//! unchanged). docs/cpu-backend.md has the table and what it measured.
//!
//! The pieces:
//! - `lower`: IR → Cranelift IR for one element (expressions, statements, built-ins,
//!   places, helper inlining, memory layouts, address arithmetic), rule by rule the
//!   interpreter's.
//! - `slots`: what a compiled function reads from its call (addresses, extents, constants).
//! - `code`: the target, the Cranelift JIT module and the executable memory.
//! - `runtime`: the Rust functions compiled code calls (built-in formulas, vout buffers).
//! - `kernel`, `reduce`: the compiled functions' shapes; `drive`: running them.
//! - `soa`: which kernels run four elements per iteration, and the IR they are lowered from.
//! - [`clif`]: the Cranelift IR of a kernel as text, for people learning from it.
//!
//! The interpreter ([`crate::exec`]) stays the reference: every construct is lowered to the
//! same operations in the same order, built-ins call the same Rust functions or inline the
//! same IEEE operations, and nothing is fused, so both engines give the same bits. A
//! construct the lowering does not take makes the call run on the interpreter
//! ([`Unjittable`] says why), never a different answer.

pub mod clif;
pub(crate) mod code;
pub(crate) mod drive;
pub(crate) mod kernel;
pub(crate) mod lower;
pub(crate) mod reduce;
pub(crate) mod runtime;
pub(crate) mod select;
pub(crate) mod slots;
pub(crate) mod soa;
pub(crate) mod split;

pub use clif::{clif_text, ClifError};

/// Function `id` of `module`, to compile.
fn function(
    module: &brook_ir::Module,
    id: brook_ir::FunctionId,
) -> Result<&brook_ir::Function, Unjittable> {
    module
        .functions
        .get(id.0 as usize)
        .ok_or_else(|| Unjittable("no such function".into()))
}

/// Why a kernel or reduction does not run as native code (it runs on the interpreter, which
/// reports any error in it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unjittable(pub String);

impl std::fmt::Display for Unjittable {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
