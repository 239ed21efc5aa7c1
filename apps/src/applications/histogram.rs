//! 64-bin histogram of bytes (004 §3.5, NVIDIA's Histogram64: bin = byte >> 2) by scatter-add:
//! every value adds 1 to its bin. Brook's form is `streamScatterOp(hist, bins, ones,
//! SCATTER_ADD)` after a kernel that turns values into bin indices; on GL both it and the
//! hand-written version are point rendering with additive blending into a 64×1 float target.

use std::rc::Rc;

use brook::texture_streams::GlContext;
use brook::{args, Program, Runtime, ScatterOp, Stream};
use rayon::prelude::*;

use crate::app::{App, Baseline, Env, Flavor, Instance, Scale, Tolerance, Variant, Work};
use crate::brook_run::Inputs;
use crate::data;
use crate::error::AppError;
use crate::glkit::{self, Draw, Shader, Uniform};

use super::histogram_wgpu::HandWgpuHistogram;

pub struct Histogram;

const BINS: usize = 64;

/// Values per bin: bytes 0..255 into 64 bins.
const BIN_WIDTH: f32 = 4.0;

const BROOK: &str = "
kernel void clear(out float hist<>) {
    hist = 0.0;
}

kernel void bin_of(float value<>, out float bin<>) {
    bin = floor(value * 0.25);
}
";

/// One point per value, on its bin's texel; the fragment adds 1.
const HAND_VERTEX: &str = "
uniform sampler2D values;
uniform int width;
void main() {
    int i = gl_VertexID;
    int bin = int(texelFetch(values, ivec2(i % width, i / width), 0).x) >> 2;
    gl_Position = vec4((float(bin) + 0.5) / 32.0 - 1.0, 0.0, 0.0, 1.0);
    gl_PointSize = 1.0;
}
";

const HAND_FRAGMENT: &str = "
out float count;
void main() {
    count = 1.0;
}
";

impl App for Histogram {
    fn name(&self) -> &'static str {
        "Histogram"
    }

    fn summary(&self) -> &'static str {
        "64-bin histogram of bytes by scatter-add (004 §3.5, NVIDIA Histogram64)"
    }

    fn baseline(&self) -> Baseline {
        Baseline::Expert(
            "the hand version computes each bin in its point vertex shader; Brook runs a kernel for \
             the bins, then streamScatterOp, plus a kernel to clear the histogram",
        )
    }

    fn instance<'a>(&self, env: &'a Env, scale: Scale) -> Result<Instance<'a>, AppError> {
        // 2^20, 2^16, and 1000 values (40×25: an odd, non-power-of-two texture width).
        let (rows, cols) = scale.pick((1024, 1024), (256, 256), (40, 25));
        let n = rows * cols;
        let values = data::whole(n, 21, 256);
        let mut reference = vec![0.0f64; BINS];
        for v in &values {
            reference[(*v / BIN_WIDTH) as usize] += 1.0;
        }
        let mut variants: Vec<(Flavor, Box<dyn Variant + 'a>)> = vec![(
            Flavor::HandGl,
            Box::new(Hand::new(&env.context, rows, cols, values.clone())?),
        )];
        for flavor in Flavor::BROOK {
            let brook = BrookHistogram::new(env.runtime(flavor), rows, cols, values.clone())?;
            variants.push((flavor, Box::new(brook)));
        }
        let hand_wgpu = HandWgpuHistogram::same_passes(env, values.clone(), BINS)?;
        variants.push((Flavor::HandWgpu, Box::new(hand_wgpu)));
        let expert = HandWgpuHistogram::expert(env, values.clone(), BINS)?;
        variants.push((Flavor::HandWgpuExpert, Box::new(expert)));
        variants.push((
            Flavor::Rust,
            Box::new(RustHistogram {
                values,
                counts: vec![],
            }),
        ));
        Ok(Instance {
            size: format!("{n} bytes, {BINS} bins"),
            work: Work::Elements(n as f64),
            reference,
            // Counts up to 2^20 are exact in f32, and blending adds them exactly.
            tolerance: Tolerance(0.0),
            variants,
        })
    }
}

struct BrookHistogram<'a> {
    rt: &'a Runtime,
    program: Program,
    /// The values, and the ones that are scattered (constant, uploaded once).
    inputs: Inputs,
    bins: Stream,
    hist: Stream,
}

impl<'a> BrookHistogram<'a> {
    fn new(rt: &'a Runtime, rows: usize, cols: usize, values: Vec<f32>) -> Result<Self, AppError> {
        let shape = [rows, cols];
        let mut inputs = Inputs::default();
        inputs.add(rt, 1, &shape, values)?;
        inputs.add(rt, 1, &shape, vec![1.0; rows * cols])?;
        Ok(BrookHistogram {
            rt,
            program: rt.compile(BROOK, "histogram.br")?,
            inputs,
            bins: rt.stream_of(1, &shape)?,
            hist: rt.stream_of(1, &[BINS])?,
        })
    }
}

impl Variant for BrookHistogram<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        self.inputs.upload()
    }

    fn host_inputs(&self) -> Vec<&[f32]> {
        self.inputs.host()
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let (values, ones) = (self.inputs.get(0), self.inputs.get(1));
        self.rt.run(&self.program, "clear", args![&self.hist])?;
        self.rt
            .run(&self.program, "bin_of", args![values, &self.bins])?;
        self.rt
            .scatter(&self.hist, &self.bins, ones, ScatterOp::Add)?;
        Ok(())
    }

    fn sync(&self) {
        self.rt.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(self.hist.to_vec()?)
    }
}

struct Hand {
    ctx: Rc<GlContext>,
    shader: Shader,
    values: Vec<f32>,
    texture: glkit::Texture,
    hist: glkit::Texture,
}

impl Hand {
    fn new(
        ctx: &Rc<GlContext>,
        rows: usize,
        cols: usize,
        values: Vec<f32>,
    ) -> Result<Self, AppError> {
        Ok(Hand {
            ctx: ctx.clone(),
            shader: Shader::new(ctx, HAND_VERTEX, HAND_FRAGMENT)?,
            values,
            texture: glkit::texture(ctx, cols, rows, 1, None)?,
            hist: glkit::texture(ctx, BINS, 1, 1, None)?,
        })
    }
}

impl Variant for Hand {
    fn upload(&mut self) -> Result<(), AppError> {
        let t = &self.texture;
        t.upload(glkit::whole(t), &self.values)?;
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        glkit::clear(&self.ctx, &self.hist)?;
        glkit::additive(&self.ctx, || {
            Draw {
                shader: &self.shader,
                samplers: &[("values", &self.texture)],
                uniforms: &[("width", Uniform::Int(self.texture.width() as i32))],
                targets: &[&self.hist],
                viewport: None,
            }
            .points(self.values.len())
        })
    }

    fn sync(&self) {
        glkit::finish(&self.ctx);
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        glkit::check(&self.ctx, "histogram")?;
        glkit::read(&self.hist)
    }
}

struct RustHistogram {
    values: Vec<f32>,
    counts: Vec<f32>,
}

impl Variant for RustHistogram {
    fn upload(&mut self) -> Result<(), AppError> {
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let counts = self
            .values
            .par_iter()
            .with_min_len(1 << 14)
            .fold(
                || [0u32; BINS],
                |mut counts, v| {
                    counts[(*v as u32 >> 2) as usize] += 1;
                    counts
                },
            )
            .reduce(
                || [0u32; BINS],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                    a
                },
            );
        self.counts = counts.iter().map(|&c| c as f32).collect();
        Ok(())
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(self.counts.clone())
    }
}
