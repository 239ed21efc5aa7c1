//! The FFT in plain Rust, as the paper benchmarked FFTW: rustfft's planned transforms, rows in
//! parallel with rayon; the columns by transposing, transforming rows and transposing back.

use std::sync::Arc;

use rayon::prelude::*;
use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};

use super::{Signal, CHANNELS};
use crate::app::Variant;
use crate::error::AppError;

pub struct RustFft {
    signal: Signal,
    rows: Arc<dyn Fft<f32>>,
    columns: Arc<dyn Fft<f32>>,
    /// One plane per channel, row-major; the transform is done in place.
    planes: Vec<Vec<Complex<f32>>>,
}

impl RustFft {
    pub fn new(signal: Signal) -> RustFft {
        let mut planner = FftPlanner::new();
        RustFft {
            rows: planner.plan_fft_forward(signal.width),
            columns: planner.plan_fft_forward(signal.height),
            signal,
            planes: vec![],
        }
    }
}

/// Transforms every `fft.len()`-long row of `plane`, in parallel, each worker with its scratch.
fn transform_rows(fft: &Arc<dyn Fft<f32>>, plane: &mut [Complex<f32>]) {
    let scratch = || vec![Complex::default(); fft.get_inplace_scratch_len()];
    plane
        .par_chunks_mut(fft.len())
        .for_each_init(scratch, |scratch, row| {
            fft.process_with_scratch(row, scratch)
        });
}

/// `plane` (`height` rows of `width`) transposed into `out` (`width` rows of `height`).
fn transpose(plane: &[Complex<f32>], width: usize, out: &mut [Complex<f32>]) {
    let height = plane.len() / width;
    out.par_chunks_mut(height).enumerate().for_each(|(x, row)| {
        for (y, v) in row.iter_mut().enumerate() {
            *v = plane[y * width + x];
        }
    });
}

impl Variant for RustFft {
    fn upload(&mut self) -> Result<(), AppError> {
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let Signal { width, re, im, .. } = &self.signal;
        let (rows, columns) = (&self.rows, &self.columns);
        self.planes = (0..CHANNELS)
            .into_par_iter()
            .map(|c| {
                let mut plane: Vec<_> = re
                    .iter()
                    .zip(im)
                    .skip(c)
                    .step_by(CHANNELS)
                    .map(|(&r, &i)| Complex::new(r, i))
                    .collect();
                let mut turned = vec![Complex::default(); plane.len()];
                transform_rows(rows, &mut plane);
                transpose(&plane, *width, &mut turned);
                transform_rows(columns, &mut turned);
                transpose(&turned, columns.len(), &mut plane);
                plane
            })
            .collect();
        Ok(())
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        let n = self.signal.re.len();
        let mut result = vec![0.0; 2 * n];
        for (c, plane) in self.planes.iter().enumerate() {
            for (e, v) in plane.iter().enumerate() {
                result[e * CHANNELS + c] = v.re;
                result[n + e * CHANNELS + c] = v.im;
            }
        }
        Ok(result)
    }
}
