//! Parallel prefix sum (004 §3.3, GPU Gems 3 ch. 39): the exclusive scan
//! `result[i] = values[0] + … + values[i-1]` of a 2D stream in row-major order, by the
//! work-efficient up-sweep/down-sweep of 004 §3.3.3 turned into render passes. The in-place
//! tree of the CUDA version becomes a pyramid of streams ([`pyramid`]); the Brook and the
//! hand-written GL versions walk the same pyramid, the Rust version is a chunked rayon scan.

mod brook;
mod hand;
mod hand_wgpu;
mod pyramid;
mod rust;

use crate::app::{App, Env, Flavor, Instance, Scale, Tolerance, Variant, Work};
use crate::data;
use crate::error::AppError;

pub struct Scan;

impl App for Scan {
    fn name(&self) -> &'static str {
        "Scan"
    }

    fn summary(&self) -> &'static str {
        "exclusive prefix sum, work-efficient up-sweep/down-sweep (004 §3.3, GPU Gems 3 ch. 39)"
    }

    fn instance<'a>(&self, env: &'a Env, scale: Scale) -> Result<Instance<'a>, AppError> {
        // 2^20, 2^16, and 1000 = 40×25: odd extents on both axes exercise the unpaired edge.
        let (rows, cols) = scale.pick((1024, 1024), (256, 256), (40, 25));
        let n = rows * cols;
        // Whole numbers 0..3: every partial sum is below 3·2^20 < 2^24, exact in f32.
        let values = data::whole(n, 11, 4);
        let mut variants: Vec<(Flavor, Box<dyn Variant + 'a>)> = vec![(
            Flavor::HandGl,
            Box::new(hand::HandScan::new(
                &env.context,
                rows,
                cols,
                values.clone(),
            )?),
        )];
        for flavor in Flavor::BROOK {
            let brook = brook::BrookScan::new(env.runtime(flavor), rows, cols, values.clone())?;
            variants.push((flavor, Box::new(brook)));
        }
        let reference = exclusive_scan(&values);
        let hand_wgpu = hand_wgpu::HandWgpuScan::same_passes(env, rows, cols, values.clone())?;
        variants.push((Flavor::HandWgpu, Box::new(hand_wgpu)));
        let expert = hand_wgpu::HandWgpuScan::expert(env, rows, cols, values.clone())?;
        variants.push((Flavor::HandWgpuExpert, Box::new(expert)));
        variants.push((Flavor::Rust, Box::new(rust::RustScan::new(values))));
        Ok(Instance {
            size: format!("{rows}×{cols} float ({n})"),
            work: Work::Elements(n as f64),
            reference,
            // Whole numbers with sums below 2^24: every variant must be exact.
            tolerance: Tolerance(0.0),
            variants,
        })
    }
}

/// The sequential exclusive scan in f64.
fn exclusive_scan(values: &[f32]) -> Vec<f64> {
    let mut sum = 0.0f64;
    values
        .iter()
        .map(|&v| {
            let before = sum;
            sum += v as f64;
            before
        })
        .collect()
}
