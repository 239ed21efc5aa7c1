//! The Brook version of a chain, one program for the GL and the CPU runtime: pass `i` is a
//! call of its kernel `k(src, constants…, out dst)`, `src` gathered (`float src[][]`).

use brook::{Arg, Program, Runtime, Stream};

use crate::app::Variant;
use crate::error::AppError;

use super::Chain;

pub struct BrookChain<'a> {
    rt: &'a Runtime,
    program: Program,
    kernels: Vec<&'static str>,
    chain: Chain,
    input: Stream,
    scratch: [Stream; 2],
}

impl<'a> BrookChain<'a> {
    /// `kernels[i]` names program `i` of the chain in the Brook `source`.
    pub fn new(
        rt: &'a Runtime,
        chain: &Chain,
        source: &str,
        file: &str,
        kernels: &[&'static str],
    ) -> Result<Self, AppError> {
        let g = chain.grid;
        let image = || rt.stream_of(g.components, &[g.height, g.width]);
        Ok(BrookChain {
            rt,
            program: rt.compile(source, file)?,
            kernels: kernels.to_vec(),
            chain: chain.clone(),
            input: image()?,
            scratch: [image()?, image()?],
        })
    }
}

impl Variant for BrookChain<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        Ok(self.input.read(&self.chain.input)?)
    }

    fn host_inputs(&self) -> Vec<&[f32]> {
        vec![&self.chain.input]
    }

    fn compute(&mut self) -> Result<(), AppError> {
        for (i, step) in self.chain.steps.iter().enumerate() {
            let src = match i {
                0 => &self.input,
                _ => &self.scratch[Chain::target(i - 1)],
            };
            let mut args = vec![Arg::Stream(src)];
            args.extend(step.constants.iter().map(|(_, v)| Arg::Constant(v.clone())));
            args.push(Arg::Stream(&self.scratch[Chain::target(i)]));
            self.rt
                .run(&self.program, self.kernels[step.program], &args)?;
        }
        Ok(())
    }

    fn sync(&self) {
        self.rt.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(self.scratch[self.chain.result()].to_vec()?)
    }
}
