//! The gather-loop Brook version: one kernel instance per output element walks its row of
//! `A`, gathering `A[i][j]` and `x[j]`, and applies α and β itself — one pass, no reduction.

use brook::{args, Program, Runtime, Stream};

use super::Problem;
use crate::app::Variant;
use crate::brook_run::Inputs;
use crate::error::AppError;

const BROOK: &str = "
kernel void gemv(int n, float alpha, float beta, float a[][], float x[], float y<>,
                 out float result<>) {
    float i = indexof(result).x;
    float sum = 0.0;
    for (int j = 0; j < n; j++) {
        sum += a[i][j] * x[j];
    }
    result = alpha * sum + beta * y;
}
";

pub struct BrookGemv<'a> {
    rt: &'a Runtime,
    program: Program,
    inputs: Inputs,
    n: i32,
    alpha_beta: (f32, f32),
    result: Stream,
}

impl<'a> BrookGemv<'a> {
    pub fn new(rt: &'a Runtime, p: &Problem) -> Result<Self, AppError> {
        let n = p.n;
        let mut inputs = Inputs::default();
        inputs.add(rt, 1, &[n, n], p.a.clone())?;
        inputs.add(rt, 1, &[n], p.x.clone())?;
        inputs.add(rt, 1, &[n], p.y.clone())?;
        Ok(BrookGemv {
            rt,
            program: rt.compile(BROOK, "gemv_gather.br")?,
            inputs,
            n: n as i32,
            alpha_beta: p.alpha_beta_or_plain(),
            result: rt.stream_of(1, &[n])?,
        })
    }
}

impl Variant for BrookGemv<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        self.inputs.upload()
    }

    fn host_inputs(&self) -> Vec<&[f32]> {
        self.inputs.host()
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let (a, x, y) = (self.inputs.get(0), self.inputs.get(1), self.inputs.get(2));
        let (alpha, beta) = self.alpha_beta;
        self.rt.run(
            &self.program,
            "gemv",
            args![self.n, alpha, beta, a, x, y, &self.result],
        )?;
        Ok(())
    }

    fn sync(&self) {
        self.rt.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(self.result.to_vec()?)
    }
}
