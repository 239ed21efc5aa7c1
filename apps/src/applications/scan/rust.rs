//! The scan in plain Rust: the classic three-phase parallel scan — each chunk's sum in
//! parallel, an exclusive scan of those few sums, then each chunk scanned from its offset in
//! parallel.

use rayon::prelude::*;

use crate::app::Variant;
use crate::error::AppError;

/// Elements per chunk: large enough that a chunk's work dwarfs rayon's scheduling.
const CHUNK: usize = 1 << 14;

pub(super) struct RustScan {
    values: Vec<f32>,
    result: Vec<f32>,
}

impl RustScan {
    pub fn new(values: Vec<f32>) -> Self {
        let result = vec![0.0; values.len()];
        RustScan { values, result }
    }
}

impl Variant for RustScan {
    fn upload(&mut self) -> Result<(), AppError> {
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let sums: Vec<f32> = self
            .values
            .par_chunks(CHUNK)
            .map(|chunk| chunk.iter().sum())
            .collect();
        let offsets = sums.iter().scan(0.0f32, |total, s| {
            let start = *total;
            *total += s;
            Some(start)
        });
        let offsets: Vec<f32> = offsets.collect();
        self.result
            .par_chunks_mut(CHUNK)
            .zip(self.values.par_chunks(CHUNK))
            .zip(offsets)
            .for_each(|((out, chunk), mut total)| {
                for (o, v) in out.iter_mut().zip(chunk) {
                    *o = total;
                    total += v;
                }
            });
        Ok(())
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(self.result.clone())
    }
}
