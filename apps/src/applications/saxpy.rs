//! SAXPY, `result = a·x + y` on `float4` streams (001 §5.1): the memory-bound end of the
//! papers' figure, two flops per float.

use brook::{args, Program, Runtime, Stream};
use rayon::prelude::*;

use crate::app::{App, Env, Flavor, Instance, Scale, Tolerance, Variant, Work};
use crate::applications::wgpu_one_pass::OnePass;
use crate::brook_run::Inputs;
use crate::data;
use crate::error::AppError;
use crate::glkit::{self, Draw, Shader, Uniform};

pub struct Saxpy;

const A: f32 = 2.5;

const BROOK: &str = "
kernel void saxpy(float a, float4 x<>, float4 y<>, out float4 result<>) {
    result = a * x + y;
}
";

const HAND: &str = "
uniform float a;
uniform sampler2D x;
uniform sampler2D y;
out vec4 result;
void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    result = a * texelFetch(x, t, 0) + texelFetch(y, t, 0);
}
";

/// Brook's kernel hand-written in WGSL, one invocation per `float4`.
const WGPU: &str = "
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> y: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> result: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> a: f32;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let i = g.x + g.y * nw.x * 64u;
    if i < arrayLength(&result) {
        result[i] = a * x[i] + y[i];
    }
}
";

impl App for Saxpy {
    fn name(&self) -> &'static str {
        "SAXPY"
    }

    fn summary(&self) -> &'static str {
        "result = a·x + y on float4 streams (001 §5.1)"
    }

    fn instance<'a>(&self, env: &'a Env, scale: Scale) -> Result<Instance<'a>, AppError> {
        let side = scale.pick(1024, 256, 7);
        let n = side * side * 4;
        let x = data::uniform(n, 1, -1.0, 1.0);
        let y = data::uniform(n, 2, -100.0, 100.0);
        let reference = x
            .iter()
            .zip(&y)
            .map(|(x, y)| A as f64 * *x as f64 + *y as f64)
            .collect();
        let mut variants: Vec<(Flavor, Box<dyn Variant + 'a>)> = vec![(
            Flavor::HandGl,
            Box::new(Hand::new(env, side, x.clone(), y.clone())?),
        )];
        for flavor in Flavor::BROOK {
            let brook = BrookSaxpy::new(env.runtime(flavor), side, x.clone(), y.clone())?;
            variants.push((flavor, Box::new(brook)));
        }
        let inputs = vec![x.clone(), y.clone()];
        let hand_wgpu = OnePass::new(env, WGPU, inputs, Some(&[A.to_bits()]), n, n / 4)?;
        variants.push((Flavor::HandWgpu, Box::new(hand_wgpu)));
        variants.push((
            Flavor::Rust,
            Box::new(RustSaxpy {
                x,
                y,
                result: vec![],
            }),
        ));
        Ok(Instance {
            size: format!("{side}×{side} float4"),
            work: Work::Flops(2.0 * n as f64),
            reference,
            tolerance: Tolerance(1e-6),
            variants,
        })
    }
}

struct BrookSaxpy<'a> {
    rt: &'a Runtime,
    program: Program,
    inputs: Inputs,
    result: Stream,
}

impl<'a> BrookSaxpy<'a> {
    fn new(rt: &'a Runtime, side: usize, x: Vec<f32>, y: Vec<f32>) -> Result<Self, AppError> {
        let shape = [side, side];
        let mut inputs = Inputs::default();
        inputs.add(rt, 4, &shape, x)?;
        inputs.add(rt, 4, &shape, y)?;
        Ok(BrookSaxpy {
            rt,
            program: rt.compile(BROOK, "saxpy.br")?,
            inputs,
            result: rt.stream_of(4, &shape)?,
        })
    }
}

impl Variant for BrookSaxpy<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        self.inputs.upload()
    }

    fn host_inputs(&self) -> Vec<&[f32]> {
        self.inputs.host()
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let (x, y) = (self.inputs.get(0), self.inputs.get(1));
        self.rt
            .run(&self.program, "saxpy", args![A, x, y, &self.result])?;
        Ok(())
    }

    fn sync(&self) {
        self.rt.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(self.result.to_vec()?)
    }
}

struct Hand<'a> {
    env: &'a Env,
    shader: Shader,
    data: [Vec<f32>; 2],
    textures: [glkit::Texture; 3],
}

impl<'a> Hand<'a> {
    fn new(env: &'a Env, side: usize, x: Vec<f32>, y: Vec<f32>) -> Result<Self, AppError> {
        let ctx = &env.context;
        Ok(Hand {
            env,
            shader: Shader::fragment(ctx, HAND)?,
            data: [x, y],
            textures: [
                glkit::texture(ctx, side, side, 4, None)?,
                glkit::texture(ctx, side, side, 4, None)?,
                glkit::texture(ctx, side, side, 4, None)?,
            ],
        })
    }
}

impl Variant for Hand<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        for (t, d) in self.textures.iter().zip(&self.data) {
            t.upload(glkit::whole(t), d)?;
        }
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let [x, y, result] = &self.textures;
        Draw {
            shader: &self.shader,
            samplers: &[("x", x), ("y", y)],
            uniforms: &[("a", Uniform::Float(A))],
            targets: &[result],
            viewport: None,
        }
        .cover()
    }

    fn sync(&self) {
        glkit::finish(&self.env.context);
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        glkit::check(&self.env.context, "SAXPY")?;
        glkit::read(&self.textures[2])
    }
}

struct RustSaxpy {
    x: Vec<f32>,
    y: Vec<f32>,
    result: Vec<f32>,
}

impl Variant for RustSaxpy {
    fn upload(&mut self) -> Result<(), AppError> {
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        self.result = self
            .x
            .par_iter()
            .zip(&self.y)
            .with_min_len(1 << 14)
            .map(|(x, y)| A * x + y)
            .collect();
        Ok(())
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(self.result.clone())
    }
}
