//! The plain-Rust version of a chain: pass `i` is a function from the previous image to the
//! next, each written with rayon over rows by its application.

use crate::app::Variant;
use crate::error::AppError;

use super::Chain;

/// One pass in Rust: reads the whole source image, writes every float of the target.
pub type Pass = Box<dyn Fn(&[f32], &mut [f32]) + Sync>;

pub struct RustChain {
    passes: Vec<Pass>,
    chain: Chain,
    scratch: [Vec<f32>; 2],
}

impl RustChain {
    /// `passes[i]` is program `i` of the chain, with its constants already bound (the Rust
    /// version's constants are compiled in, as a C++ programmer's would be).
    pub fn new(chain: &Chain, passes: Vec<Pass>) -> RustChain {
        let len = chain.grid.len();
        RustChain {
            passes,
            chain: chain.clone(),
            scratch: [vec![0.0; len], vec![0.0; len]],
        }
    }
}

impl Variant for RustChain {
    fn upload(&mut self) -> Result<(), AppError> {
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let [a, b] = &mut self.scratch;
        for (i, step) in self.chain.steps.iter().enumerate() {
            let pass = &self.passes[step.program];
            match (i, Chain::target(i)) {
                (0, 0) => pass(&self.chain.input, a),
                (_, 0) => pass(b, a),
                _ => pass(a, b),
            }
        }
        Ok(())
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(self.scratch[self.chain.result()].clone())
    }
}
