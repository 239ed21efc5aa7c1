//! The scan by hand: the same pyramid of textures and the same two passes as the Brook
//! version, written directly in GLSL with integer texel addresses.

use std::rc::Rc;

use brook::texture_streams::GlContext;

use super::pyramid::Pyramid;
use crate::app::Variant;
use crate::error::AppError;
use crate::glkit::{self, Draw, Shader, Texture, Uniform};

const UP: &str = "
uniform sampler2D below;
uniform ivec2 axis;
uniform int below_length;
out float sums;
void main() {
    ivec2 left = ivec2(gl_FragCoord.xy) * (1 + axis);
    ivec2 right = left + axis;
    float partner = right.x * axis.x + right.y * axis.y < below_length
        ? texelFetch(below, right, 0).x : 0.0;
    sums = texelFetch(below, left, 0).x + partner;
}
";

const DOWN: &str = "
uniform sampler2D above;
uniform sampler2D own;
uniform ivec2 axis;
out float prefix;
void main() {
    ivec2 i = ivec2(gl_FragCoord.xy);
    int k = i.x * axis.x + i.y * axis.y;
    float inherited = texelFetch(above, i - axis * (k - k / 2), 0).x;
    prefix = (k & 1) == 1 ? inherited + texelFetch(own, i - axis, 0).x : inherited;
}
";

pub(super) struct HandScan {
    ctx: Rc<GlContext>,
    up: Shader,
    down: Shader,
    values: Vec<f32>,
    pyramid: Pyramid<Texture>,
}

impl HandScan {
    pub fn new(
        ctx: &Rc<GlContext>,
        rows: usize,
        cols: usize,
        values: Vec<f32>,
    ) -> Result<Self, AppError> {
        Ok(HandScan {
            ctx: ctx.clone(),
            up: Shader::fragment(ctx, UP)?,
            down: Shader::fragment(ctx, DOWN)?,
            values,
            pyramid: Pyramid::new(rows, cols, |r, c| glkit::texture(ctx, c, r, 1, None))?,
        })
    }
}

impl Variant for HandScan {
    fn upload(&mut self) -> Result<(), AppError> {
        let p = &self.pyramid;
        p.values.upload(glkit::whole(&p.values), &self.values)?;
        p.top.upload(glkit::whole(&p.top), &[0.0])?;
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        self.pyramid.sweep(
            |level, below, sums| {
                Draw {
                    shader: &self.up,
                    samplers: &[("below", below)],
                    uniforms: &[
                        ("axis", Uniform::IVec2(level.axis)),
                        ("below_length", Uniform::Int(level.below as i32)),
                    ],
                    targets: &[sums],
                    viewport: None,
                }
                .cover()
            },
            |level, above, own, prefix| {
                Draw {
                    shader: &self.down,
                    samplers: &[("above", above), ("own", own)],
                    uniforms: &[("axis", Uniform::IVec2(level.axis))],
                    targets: &[prefix],
                    viewport: None,
                }
                .cover()
            },
        )
    }

    fn sync(&self) {
        glkit::finish(&self.ctx);
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        glkit::check(&self.ctx, "scan")?;
        glkit::read(self.pyramid.result())
    }
}
