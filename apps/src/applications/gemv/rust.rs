//! SGEMV in plain Rust: rows in parallel with rayon, each a dot product kept in 8 independent
//! lanes so the compiler can vectorise it (a single f32 accumulator forces a serial chain).

use rayon::prelude::*;

use super::Problem;
use crate::app::Variant;
use crate::error::AppError;

const LANES: usize = 8;

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

fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; LANES];
    let (a_chunks, b_chunks) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(a, b)| a * b)
        .sum();
    for (ca, cb) in a_chunks.zip(b_chunks) {
        for l in 0..LANES {
            acc[l] += ca[l] * cb[l];
        }
    }
    acc.iter().sum::<f32>() + tail
}

impl Variant for RustGemv {
    fn upload(&mut self) -> Result<(), AppError> {
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let p = &self.problem;
        self.result = p
            .a
            .par_chunks(p.n)
            .zip(&p.y)
            .with_min_len(16)
            .map(|(row, y)| {
                let ax = dot(row, &p.x);
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
