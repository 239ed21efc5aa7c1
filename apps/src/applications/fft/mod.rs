//! FFT (001 §5): a 2D Cooley–Tukey transform of a 4-channel complex signal. The signal is two
//! `float4` planes, real parts and imaginary parts, one channel per component. The GPU versions
//! are the paper's: one bit-reversal pass, then radix-2 butterfly passes along the rows and then
//! along the columns, ping-ponging between two pairs of textures, twiddle factors gathered from
//! a table. The result is the real plane followed by the imaginary plane.

mod brook;
mod hand;
mod hand_wgpu;
mod rust;

use rustfft::num_complex::Complex;
use rustfft::FftPlanner;

use crate::app::{App, Env, Flavor, Instance, Scale, Tolerance, Variant, Work};
use crate::data;
use crate::error::AppError;

pub struct Fft;

/// Four channels of complex values per element.
const CHANNELS: usize = 4;

/// One instance's signal: `height` rows of `width` elements, each 4 real and 4 imaginary parts.
#[derive(Clone)]
struct Signal {
    width: usize,
    height: usize,
    /// `float4` per element, row-major.
    re: Vec<f32>,
    im: Vec<f32>,
}

impl Signal {
    /// The radix-2 passes along one axis of `extent` elements: span 2, 4, …, `extent`.
    fn spans(extent: usize) -> impl Iterator<Item = usize> {
        (1..=extent.trailing_zeros()).map(|s| 1 << s)
    }

    /// The twiddle table for the longer side `n`: `exp(-2πi·p/n)` for `p < n/2`, as (re, im)
    /// pairs computed in f64. A butterfly of span `m` uses entry `p·(n/m)`.
    fn twiddles(&self) -> Vec<f32> {
        let n = self.width.max(self.height);
        (0..n / 2)
            .flat_map(|p| {
                let angle = -2.0 * std::f64::consts::PI * p as f64 / n as f64;
                [angle.cos() as f32, angle.sin() as f32]
            })
            .collect()
    }
}

impl App for Fft {
    fn name(&self) -> &'static str {
        "FFT"
    }

    fn summary(&self) -> &'static str {
        "2D radix-2 Cooley–Tukey FFT of a 4-channel complex signal (001 §5)"
    }

    fn instance<'a>(&self, env: &'a Env, scale: Scale) -> Result<Instance<'a>, AppError> {
        // Radix 2 needs powers of two; the tiny size is not square, so rows and columns differ.
        let (width, height) = scale.pick((1024, 1024), (256, 256), (16, 8));
        let n = width * height * CHANNELS;
        let signal = Signal {
            width,
            height,
            re: data::uniform(n, 21, -1.0, 1.0),
            im: data::uniform(n, 22, -1.0, 1.0),
        };
        let reference = reference(&signal);
        let log_n = ((width * height) as f64).log2();
        let mut variants: Vec<(Flavor, Box<dyn Variant + 'a>)> = vec![(
            Flavor::HandGl,
            Box::new(hand::HandFft::new(env, signal.clone())?),
        )];
        for flavor in Flavor::BROOK {
            let brook = brook::BrookFft::new(env.runtime(flavor), signal.clone())?;
            variants.push((flavor, Box::new(brook)));
        }
        let hand_wgpu = hand_wgpu::HandWgpuFft::same_passes(env, signal.clone())?;
        variants.push((Flavor::HandWgpu, Box::new(hand_wgpu)));
        let expert = hand_wgpu::HandWgpuFft::expert(env, signal.clone())?;
        variants.push((Flavor::HandWgpuExpert, Box::new(expert)));
        variants.push((Flavor::Rust, Box::new(rust::RustFft::new(signal))));
        Ok(Instance {
            size: format!("{width}×{height}, {CHANNELS} complex channels"),
            // benchFFT's count, as the paper uses it.
            work: Work::Flops(5.0 * (width * height * CHANNELS) as f64 * log_n),
            reference,
            // An f32 FFT's error grows with the number of butterfly levels: each of the
            // log2(w·h) levels adds a few ulp (2^-24 ≈ 6e-8) of the values' magnitude, and
            // the twiddles are rounded once. Against the largest output magnitude,
            // 1e-6·log2(w·h) leaves a margin of several times what the variants reach
            // (see the report's error column), and still fails any wrong butterfly or twiddle.
            tolerance: Tolerance(1e-6 * log_n),
            variants,
        })
    }
}

/// The transform in f64 by rustfft, each channel on its own: every row, then every column
/// (gathered into a buffer, transformed, put back). Real plane then imaginary plane.
fn reference(signal: &Signal) -> Vec<f64> {
    let (w, h) = (signal.width, signal.height);
    let mut planner = FftPlanner::<f64>::new();
    let (rows, columns) = (planner.plan_fft_forward(w), planner.plan_fft_forward(h));
    let mut re = vec![0.0; w * h * CHANNELS];
    let mut im = vec![0.0; w * h * CHANNELS];
    for c in 0..CHANNELS {
        let mut plane: Vec<Complex<f64>> = (0..w * h)
            .map(|e| {
                let at = e * CHANNELS + c;
                Complex::new(signal.re[at] as f64, signal.im[at] as f64)
            })
            .collect();
        for row in plane.chunks_mut(w) {
            rows.process(row);
        }
        let mut column = vec![Complex::default(); h];
        for x in 0..w {
            for (y, v) in column.iter_mut().enumerate() {
                *v = plane[y * w + x];
            }
            columns.process(&mut column);
            for (y, v) in column.iter().enumerate() {
                plane[y * w + x] = *v;
            }
        }
        for (e, v) in plane.iter().enumerate() {
            re[e * CHANNELS + c] = v.re;
            im[e * CHANNELS + c] = v.im;
        }
    }
    re.extend(im);
    re
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_transforms_an_impulse_into_a_constant_and_a_constant_into_an_impulse() {
        let (w, h) = (4, 2);
        let mut re = vec![0.0; w * h * CHANNELS];
        re[0] = 1.0; // channel 0: impulse at the origin
        for e in 0..w * h {
            re[e * CHANNELS + 1] = 2.0; // channel 1: constant
        }
        let signal = Signal {
            width: w,
            height: h,
            re,
            im: vec![0.0; w * h * CHANNELS],
        };
        let out = reference(&signal);
        for e in 0..w * h {
            assert_eq!(out[e * CHANNELS], 1.0);
            let dc = if e == 0 { 2.0 * (w * h) as f64 } else { 0.0 };
            assert!((out[e * CHANNELS + 1] - dc).abs() < 1e-12);
        }
        assert!(out[w * h * CHANNELS..].iter().all(|v| v.abs() < 1e-12));
    }

    #[test]
    fn twiddles_are_the_roots_of_unity_of_the_longer_side() {
        let signal = Signal {
            width: 8,
            height: 4,
            re: vec![],
            im: vec![],
        };
        let t = signal.twiddles();
        assert_eq!(t.len(), 8);
        assert_eq!(&t[..2], &[1.0, 0.0]);
        assert!((t[4] - 0.0).abs() < 1e-7 && (t[5] + 1.0).abs() < 1e-7); // p = 2: -i
        assert_eq!(Signal::spans(8).collect::<Vec<_>>(), [2, 4, 8]);
    }
}
