//! SGEMV as a GL programmer writes it in one pass: each fragment of the `n × 1` result loops
//! over its row of `A` with `texelFetch`, then applies α and β.

use super::Problem;
use crate::app::{Env, Variant};
use crate::error::AppError;
use crate::glkit::{self, Draw, Shader, Texture, Uniform};

const LOOP: &str = "
uniform int n;
uniform float alpha;
uniform float beta;
uniform sampler2D a;
uniform sampler2D x;
uniform sampler2D y;
out float result;
void main() {
    int i = int(gl_FragCoord.x);
    float sum = 0.0;
    for (int j = 0; j < n; j++) {
        sum += texelFetch(a, ivec2(j, i), 0).r * texelFetch(x, ivec2(j, 0), 0).r;
    }
    result = alpha * sum + beta * texelFetch(y, ivec2(i, 0), 0).r;
}
";

pub struct Hand<'a> {
    env: &'a Env,
    problem: Problem,
    shader: Shader,
    /// `A` (n × n), then `x`, `y` and the result (n × 1 each).
    textures: [Texture; 4],
}

impl<'a> Hand<'a> {
    pub fn new(env: &'a Env, problem: Problem) -> Result<Self, AppError> {
        let ctx = &env.context;
        let n = problem.n;
        Ok(Hand {
            env,
            shader: Shader::fragment(ctx, LOOP)?,
            textures: [
                glkit::texture(ctx, n, n, 1, None)?,
                glkit::texture(ctx, n, 1, 1, None)?,
                glkit::texture(ctx, n, 1, 1, None)?,
                glkit::texture(ctx, n, 1, 1, None)?,
            ],
            problem,
        })
    }
}

impl Variant for Hand<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        let p = &self.problem;
        for (t, d) in self.textures.iter().zip([&p.a, &p.x, &p.y]) {
            t.upload(glkit::whole(t), d)?;
        }
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let [a, x, y, result] = &self.textures;
        let (alpha, beta) = self.problem.alpha_beta_or_plain();
        Draw {
            shader: &self.shader,
            samplers: &[("a", a), ("x", x), ("y", y)],
            uniforms: &[
                ("n", Uniform::Int(self.problem.n as i32)),
                ("alpha", Uniform::Float(alpha)),
                ("beta", Uniform::Float(beta)),
            ],
            targets: &[result],
            viewport: None,
        }
        .cover()
    }

    fn sync(&self) {
        glkit::finish(&self.env.context);
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        glkit::check(&self.env.context, "SGEMV-gather")?;
        glkit::read(&self.textures[3])
    }
}
