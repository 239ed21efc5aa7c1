//! The Brook scan: one kernel per sweep, run once per pyramid level. Gathers do the pairing
//! (the paper's shared-memory indexing); `indexof` says which element a fragment computes.

use brook::{args, Program, Runtime, Stream};

use super::pyramid::{Level, Pyramid};
use crate::app::Variant;
use crate::error::AppError;

const BROOK: &str = "
// Up-sweep: element i of the level above is the sum of elements 2i and 2i+1 along `axis`
// below (the second one missing at an odd edge of `length` elements).
kernel void pair_sum(float below[][], float2 axis, float length, out float sums<>) {
    float2 left = indexof(sums).xy * (1.0 + axis);
    float2 right = left + axis;
    float partner = dot(right, axis) < length ? below[right] : 0.0;
    sums = below[left] + partner;
}

// Down-sweep: a left child inherits its parent's exclusive prefix; a right child adds its
// left sibling's sum.
kernel void down_sweep(float above[][], float own[][], float2 axis, out float prefix<>) {
    float2 i = indexof(prefix).xy;
    float k = dot(i, axis);
    float parent = floor(k * 0.5);
    float inherited = above[i - axis * (k - parent)];
    prefix = k - 2.0 * parent > 0.5 ? inherited + own[i - axis] : inherited;
}
";

pub(super) struct BrookScan<'a> {
    rt: &'a Runtime,
    program: Program,
    values: Vec<f32>,
    pyramid: Pyramid<Stream>,
}

impl<'a> BrookScan<'a> {
    pub fn new(
        rt: &'a Runtime,
        rows: usize,
        cols: usize,
        values: Vec<f32>,
    ) -> Result<Self, AppError> {
        Ok(BrookScan {
            rt,
            program: rt.compile(BROOK, "scan.br")?,
            values,
            pyramid: Pyramid::new(rows, cols, |r, c| Ok(rt.stream_of(1, &[r, c])?))?,
        })
    }
}

fn axis(level: &Level) -> [f32; 2] {
    level.axis.map(|a| a as f32)
}

impl Variant for BrookScan<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        self.pyramid.values.read(&self.values)?;
        self.pyramid.top.read(&[0.0])?;
        Ok(())
    }

    fn host_inputs(&self) -> Vec<&[f32]> {
        vec![&self.values, &[0.0]]
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let (rt, program) = (self.rt, &self.program);
        self.pyramid.sweep(
            |level, below, sums| {
                let length = level.below as f32;
                Ok(rt.run(program, "pair_sum", args![below, axis(level), length, sums])?)
            },
            |level, above, own, prefix| {
                Ok(rt.run(
                    program,
                    "down_sweep",
                    args![above, own, axis(level), prefix],
                )?)
            },
        )
    }

    fn sync(&self) {
        self.rt.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(self.pyramid.result().to_vec()?)
    }
}
