//! SGEMV in plain Rust: rows in parallel with rayon, each a vectorised dot product.

use rayon::prelude::*;

use super::Problem;
use crate::app::Variant;
use crate::applications::lanes;
use crate::error::AppError;

pub struct RustGemv {
    problem: Problem,
    result: Vec<f32>,
}

impl RustGemv {
    pub fn new(problem: Problem) -> Self {
        RustGemv {
            problem,
            result: vec![],
        }
    }
}

impl Variant for RustGemv {
    fn upload(&mut self) -> Result<(), AppError> {
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let p = &self.problem;
        self.result =
            p.a.par_chunks(p.n)
                .zip(&p.y)
                .with_min_len(16)
                .map(|(row, y)| {
                    let ax = lanes::sum_of(row, &p.x, |a, x| a * x);
                    match p.alpha_beta {
                        Some((alpha, beta)) => alpha * ax + beta * y,
                        None => ax,
                    }
                })
                .collect();
        Ok(())
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(self.result.clone())
    }
}
