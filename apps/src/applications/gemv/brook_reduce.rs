//! The Brook version of 001 §3.3: `mul` forms `T = A·x` element by element (`x<1,n>` is
//! resized over the rows of `T<n,n>`), `sum` reduces each row of `T` into `Ax<n,1>`, and
//! `axpby` applies α and β. The plain product's row sums are its result. `mul` and `sum` run
//! as one `map_reduce_to_stream` call, which every backend fuses (the products are never
//! written: GL and wgpu compute them in the first reduction pass, the CPU in its fold).

use brook::{args, Program, Runtime, Stream};

use super::Problem;
use crate::app::Variant;
use crate::brook_run::Inputs;
use crate::error::AppError;

const BROOK: &str = "
kernel void mul(float a<>, float x<>, out float t<>) {
    t = a * x;
}

reduce void sum(float t<>, reduce float r<>) {
    r += t;
}

kernel void axpby(float alpha, float ax<>, float beta, float y<>, out float result<>) {
    result = alpha * ax + beta * y;
}
";

pub struct BrookGemv<'a> {
    rt: &'a Runtime,
    program: Program,
    inputs: Inputs,
    /// The products `A[i][j]·x[j]`: scratch, never written (the kernel is fused).
    products: Stream,
    /// The row sums `Ax`.
    sums: Stream,
    /// α, β and the stream for `αAx + βy`, when there is a `y` term.
    axpby: Option<(f32, f32, Stream)>,
}

impl<'a> BrookGemv<'a> {
    pub fn new(rt: &'a Runtime, p: &Problem) -> Result<Self, AppError> {
        let n = p.n;
        let mut inputs = Inputs::default();
        inputs.add(rt, 1, &[n, n], p.a.clone())?;
        inputs.add(rt, 1, &[1, n], p.x.clone())?;
        let axpby = match p.alpha_beta {
            Some((alpha, beta)) => {
                inputs.add(rt, 1, &[n, 1], p.y.clone())?;
                Some((alpha, beta, rt.stream_of(1, &[n, 1])?))
            }
            None => None,
        };
        Ok(BrookGemv {
            rt,
            program: rt.compile(BROOK, "gemv.br")?,
            inputs,
            products: rt.stream_of(1, &[n, n])?,
            sums: rt.stream_of(1, &[n, 1])?,
            axpby,
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
        let (rt, program) = (self.rt, &self.program);
        let (a, x) = (self.inputs.get(0), self.inputs.get(1));
        // `mul(a, x, products); reduce sum(products, sums)` as one call: GL forms each
        // product inside the row sum's first pass and never writes `products`.
        let products = args![a, x, &self.products];
        rt.map_reduce_to_stream(program, "mul", products, "sum", &self.sums, args![])?;
        if let Some((alpha, beta, result)) = &self.axpby {
            let y = self.inputs.get(2);
            rt.run(
                program,
                "axpby",
                args![*alpha, &self.sums, *beta, y, result],
            )?;
        }
        Ok(())
    }

    fn sync(&self) {
        self.rt.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        let result = self.axpby.as_ref().map_or(&self.sums, |(_, _, r)| r);
        Ok(result.to_vec()?)
    }
}
