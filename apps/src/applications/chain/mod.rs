//! What the image applications (Life, Segment, Convolve, Rotate) have in common: an image
//! goes through a chain of passes, each reading the whole previous image (gathering its
//! neighbours) and writing a new one of the same size — K generations of Life, N evolution
//! steps of Segment, the two 1-D passes of a separable blur, the one pass of a rotation.
//!
//! An application describes its chain once ([`Chain`]: the input and which pass runs with which
//! constants, in order) and gets its variants from it: [`HandChain`] (hand-written
//! GLSL, one draw per pass), [`BrookChain`] (one Brook program on any runtime, one kernel call
//! per pass) and [`RustChain`] (plain Rust functions, one per pass). Each reads the uploaded
//! input on the first pass and ping-pongs through two scratch images after it, so `compute`
//! can be repeated and never changes its input.

mod brook;
mod hand;
mod hand_wgpu;
mod rust;

pub use brook::BrookChain;
pub use hand::HandChain;
pub use hand_wgpu::HandWgpuChain;
pub use rust::{Pass, RustChain};

use crate::app::{Env, Flavor, Variant};
use crate::error::AppError;

/// Variants with their flavours, as an [`crate::app::Instance`] lists them.
type Variants<'a> = Vec<(Flavor, Box<dyn Variant + 'a>)>;

/// The hand-written wgpu variants of `chain`, Brook's passes and the expert's, with
/// `passes[i]` program `i`'s WGSL ([`HandWgpuChain`]).
pub fn hand_wgpu<'a>(env: &Env, chain: &Chain, passes: &[&str]) -> Result<Variants<'a>, AppError> {
    Ok(vec![
        (
            Flavor::HandWgpu,
            Box::new(HandWgpuChain::same_passes(env, chain, passes)?),
        ),
        (
            Flavor::HandWgpuExpert,
            Box::new(HandWgpuChain::expert(env, chain, passes)?),
        ),
    ])
}

/// An image `width` columns by `height` rows of `components` floats per texel, row-major,
/// lowest row first (the texture layout and Brook's `<height, width>` stream alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub width: usize,
    pub height: usize,
    pub components: u8,
}

impl Grid {
    /// How many floats an image of this grid holds.
    pub fn len(self) -> usize {
        self.width * self.height * self.components as usize
    }

    /// The texel at column `x`, row `y`, both clamped into the image: Brook's gather rule for
    /// out-of-range indices, which every variant and reference of these applications follows.
    pub fn clamped(self, x: isize, y: isize) -> usize {
        let x = x.clamp(0, self.width as isize - 1) as usize;
        let y = y.clamp(0, self.height as isize - 1) as usize;
        y * self.width + x
    }

    /// `size` for the Brook and GLSL programs: (columns, rows).
    pub fn size(self) -> [f32; 2] {
        [self.width as f32, self.height as f32]
    }
}

/// One pass: the index of its program (the GLSL shader, the Brook kernel and the Rust
/// function at that position) and its constants, in the Brook kernel's parameter order, named
/// as the GLSL shader's uniforms.
#[derive(Clone, Debug)]
pub struct Step {
    pub program: usize,
    pub constants: Vec<(&'static str, Vec<f32>)>,
}

impl Step {
    /// A pass of `program` without constants.
    pub fn plain(program: usize) -> Step {
        Step {
            program,
            constants: Vec::new(),
        }
    }
}

/// An application's chain: its input image and the passes it goes through.
#[derive(Clone, Debug)]
pub struct Chain {
    pub grid: Grid,
    pub input: Vec<f32>,
    pub steps: Vec<Step>,
}

impl Chain {
    /// Which scratch image (0 or 1) pass `i` writes; pass `i` reads the input when `i` is 0,
    /// else what pass `i - 1` wrote.
    pub fn target(i: usize) -> usize {
        i % 2
    }

    /// The scratch image that holds the result.
    pub fn result(&self) -> usize {
        Chain::target(self.steps.len().saturating_sub(1))
    }
}
