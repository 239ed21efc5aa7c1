//! SASUM, the sum of `|x|` over a 1000 × 1000 matrix (003's "Sum", BLAS SASUM): a reduction
//! to one value, the Brook papers' other use of `reduce` (001 §3.3).

use brook::{args, Program, Runtime, Stream};
use rayon::prelude::*;

use crate::app::{App, Baseline, Env, Flavor, Instance, Scale, Tolerance, Variant, Work};
use crate::applications::hand_fold::{Extent, Fold};
use crate::applications::lanes;
use crate::applications::wgpu_fold;
use crate::brook_run::Inputs;
use crate::data;
use crate::error::AppError;
use crate::glkit::{self, Texture};
use crate::wgpukit::Gpu;

pub struct Sasum;

/// A kernel for `|x|` feeding a sum: a `reduce` function sees partial sums as well as
/// elements, so the absolute value cannot live inside it.
const BROOK: &str = "
kernel void absolute(float x<>, out float a<>) {
    a = abs(x);
}

reduce void sum(float a<>, reduce float r<>) {
    r += a;
}
";

/// The hand-written fold takes `|x|` as its first pass reads.
const ABS: &str = "float load(ivec2 t) { return abs(texelFetch(src, t, 0).r); }\n";

impl App for Sasum {
    fn name(&self) -> &'static str {
        "SASUM"
    }

    fn summary(&self) -> &'static str {
        "sum of |x| over a 1000² matrix, a reduction to one value (003's Sum)"
    }

    fn baseline(&self) -> Baseline {
        Baseline::Expert(
            "the hand version takes |x| inside its first fold pass and folds 16-way; Brook's \
             `map_reduce_to_value` computes |x| inside its first 8-way pass too",
        )
    }

    fn instance<'a>(&self, env: &'a Env, scale: Scale) -> Result<Instance<'a>, AppError> {
        // 37 × 37 takes three passes of the hand-written 16-way fold (37 × 37 → 3 × 37 → 1 × 3
        // → 1 × 1) and three of Brook's 8-way one, with partial blocks in each.
        let side = scale.pick(1000, 300, 37);
        // Sixteenths in [-1, 1]: every partial sum of up to 10⁶ of them (≤ 2²⁰ in size, a
        // multiple of 2⁻⁴) is exact in f32, so every order of summation gives the exact
        // answer and the check below can demand it: a lost or doubled block cannot hide.
        let x: Vec<f32> = data::whole(side * side, 21, 33)
            .into_iter()
            .map(|v| (v - 16.0) / 16.0)
            .collect();
        let reference = vec![x.iter().map(|v| v.abs() as f64).sum()];
        let mut variants: Vec<(Flavor, Box<dyn Variant + 'a>)> =
            vec![(Flavor::HandGl, Box::new(Hand::new(env, side, x.clone())?))];
        for flavor in Flavor::BROOK {
            let brook = BrookSasum::new(env.runtime(flavor), side, x.clone())?;
            variants.push((flavor, Box::new(brook)));
        }
        let hand_wgpu = HandWgpu::new(env, x.clone())?;
        variants.push((Flavor::HandWgpu, Box::new(hand_wgpu)));
        variants.push((Flavor::Rust, Box::new(RustSasum { x, sum: 0.0 })));
        Ok(Instance {
            size: format!("{side}×{side}"),
            // One add per element; |x| only clears a sign bit (BLAS counts SASUM as n flops).
            work: Work::Flops((side * side) as f64),
            reference,
            // Exact: the data make every order of summation exact (see above).
            tolerance: Tolerance(0.0),
            variants,
        })
    }
}

struct BrookSasum<'a> {
    rt: &'a Runtime,
    program: Program,
    inputs: Inputs,
    /// The kernel's output stream: scratch, never written (the kernel is fused).
    absolute: Stream,
    sum: f32,
}

impl<'a> BrookSasum<'a> {
    fn new(rt: &'a Runtime, side: usize, x: Vec<f32>) -> Result<Self, AppError> {
        let mut inputs = Inputs::default();
        inputs.add(rt, 1, &[side, side], x)?;
        Ok(BrookSasum {
            rt,
            program: rt.compile(BROOK, "sasum.br")?,
            inputs,
            absolute: rt.stream_of(1, &[side, side])?,
            sum: 0.0,
        })
    }
}

impl Variant for BrookSasum<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        self.inputs.upload()
    }

    fn host_inputs(&self) -> Vec<&[f32]> {
        self.inputs.host()
    }

    fn compute(&mut self) -> Result<(), AppError> {
        // Brook's `absolute(x, a); reduceToValue(sum, a)` as one call, so GL computes |x|
        // inside the sum's first pass and never writes `a`.
        let x = self.inputs.get(0);
        let args = args![x, &self.absolute];
        let value =
            (self.rt).map_reduce_to_value(&self.program, "absolute", args, "sum", args![])?;
        self.sum = value[0];
        Ok(())
    }

    fn sync(&self) {
        self.rt.finish();
    }

    /// `reduceToValue` already brought the value to the host.
    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(vec![self.sum])
    }
}

struct Hand<'a> {
    env: &'a Env,
    data: Vec<f32>,
    x: Texture,
    fold: Fold,
    sum: f32,
}

impl<'a> Hand<'a> {
    fn new(env: &'a Env, side: usize, data: Vec<f32>) -> Result<Self, AppError> {
        let ctx = &env.context;
        Ok(Hand {
            env,
            data,
            x: glkit::texture(ctx, side, side, 1, None)?,
            fold: Fold::new(ctx, side, side, Extent::All, ABS)?,
            sum: 0.0,
        })
    }
}

impl Variant for Hand<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        self.x.upload(glkit::whole(&self.x), &self.data)?;
        Ok(())
    }

    /// Folds and reads the one texel back, as Brook's `reduceToValue` does, so both sides
    /// time the same region.
    fn compute(&mut self) -> Result<(), AppError> {
        let result = self.fold.run(&self.x, &[])?;
        self.sum = glkit::read(result)?[0];
        Ok(())
    }

    fn sync(&self) {
        glkit::finish(&self.env.context);
    }

    /// `compute` already brought the value to the host.
    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        glkit::check(&self.env.context, "SASUM")?;
        Ok(vec![self.sum])
    }
}

/// The hand-written wgpu sum takes `|x|` as its first pass reads, as Brook's fused
/// `map_reduce_to_value` does.
const WGPU_ABS: &str = "
@group(0) @binding(2) var<storage, read> x: array<f32>;
fn load(segment: u32, k: u32) -> f32 { return abs(x[k]); }
";

/// Brook's wgpu passes by hand: the fold of every `|x|` to one value, read back inside the
/// timed region as `reduceToValue` does.
struct HandWgpu {
    gpu: Gpu,
    data: Vec<f32>,
    x: wgpu::Buffer,
    fold: wgpu_fold::Fold,
    sum: f32,
}

impl HandWgpu {
    fn new(env: &Env, data: Vec<f32>) -> Result<Self, AppError> {
        let gpu = Gpu::of(env)?;
        let x = gpu.storage(data.len());
        let fold = wgpu_fold::Fold::new(&gpu, 1, data.len(), WGPU_ABS, &[&x])?;
        Ok(HandWgpu {
            gpu,
            data,
            x,
            fold,
            sum: 0.0,
        })
    }
}

impl Variant for HandWgpu {
    fn upload(&mut self) -> Result<(), AppError> {
        self.gpu.upload(&self.x, &self.data)
    }

    fn compute(&mut self) -> Result<(), AppError> {
        self.gpu.run(&self.fold.passes())?;
        self.sum = self.gpu.read(self.fold.result(), 1)?[0];
        Ok(())
    }

    fn sync(&self) {
        self.gpu.finish();
    }

    /// `compute` already brought the value to the host.
    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(vec![self.sum])
    }
}

struct RustSasum {
    x: Vec<f32>,
    sum: f32,
}

/// Elements per rayon task.
const CHUNK: usize = 1 << 14;

impl Variant for RustSasum {
    fn upload(&mut self) -> Result<(), AppError> {
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        self.sum = self
            .x
            .par_chunks(CHUNK)
            .map(|c| lanes::sum_of(c, c, |v, _| v.abs()))
            .sum();
        Ok(())
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(vec![self.sum])
    }
}
