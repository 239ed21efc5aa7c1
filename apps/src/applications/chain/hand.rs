//! The hand-written GL version of a chain: each pass is a fragment shader drawn once over the
//! target texture, reading the previous image through `texelFetch` from the sampler `src`.

use crate::app::{Env, Variant};
use crate::error::AppError;
use crate::glkit::{self, Draw, Shader, Texture, Uniform};

use super::{Chain, Step};

/// A pass as drawn: its shader's index and its uniforms.
type PassDraw = (usize, Vec<(&'static str, Uniform)>);

pub struct HandChain<'a> {
    env: &'a Env,
    shaders: Vec<Shader>,
    steps: Vec<PassDraw>,
    data: Vec<f32>,
    input: Texture,
    scratch: [Texture; 2],
    result: usize,
}

impl<'a> HandChain<'a> {
    /// `shaders[i]` is the fragment source (after `#version`) of program `i` of the chain.
    pub fn new(env: &'a Env, chain: &Chain, shaders: &[&str]) -> Result<Self, AppError> {
        let ctx = &env.context;
        let g = chain.grid;
        let image = || glkit::texture(ctx, g.width, g.height, g.components, None);
        Ok(HandChain {
            env,
            shaders: shaders
                .iter()
                .map(|s| Shader::fragment(ctx, s))
                .collect::<Result<_, _>>()?,
            steps: chain.steps.iter().map(uniforms).collect::<Result<_, _>>()?,
            data: chain.input.clone(),
            input: image()?,
            scratch: [image()?, image()?],
            result: chain.result(),
        })
    }
}

/// A step's constants as uniforms (`float`, `vec2` or `vec4`).
fn uniforms(step: &Step) -> Result<PassDraw, AppError> {
    let values = step
        .constants
        .iter()
        .map(|(name, v)| {
            let value = match v[..] {
                [x] => Uniform::Float(x),
                [x, y] => Uniform::Vec2([x, y]),
                [x, y, z, w] => Uniform::Vec4([x, y, z, w]),
                _ => {
                    return Err(AppError::Usage(format!(
                        "uniform {name}: {} floats",
                        v.len()
                    )))
                }
            };
            Ok((*name, value))
        })
        .collect::<Result<_, _>>()?;
    Ok((step.program, values))
}

impl Variant for HandChain<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        self.input.upload(glkit::whole(&self.input), &self.data)?;
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        for (i, (program, uniforms)) in self.steps.iter().enumerate() {
            let src = match i {
                0 => &self.input,
                _ => &self.scratch[Chain::target(i - 1)],
            };
            Draw {
                shader: &self.shaders[*program],
                samplers: &[("src", src)],
                uniforms,
                targets: &[&self.scratch[Chain::target(i)]],
                viewport: None,
            }
            .cover()?;
        }
        Ok(())
    }

    fn sync(&self) {
        glkit::finish(&self.env.context);
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        glkit::check(&self.env.context, "hand-written chain")?;
        glkit::read(&self.scratch[self.result])
    }
}
