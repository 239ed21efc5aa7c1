//! SGEMV's multiply-and-reduce by hand: the row sums of `A[i][j]·x[j]` by a ping-pong chain
//! of fold passes whose first pass multiplies as it reads (no `n × n` product texture), then
//! one pass for `αAx + βy`.

use super::Problem;
use crate::app::{Env, Variant};
use crate::applications::hand_fold::{Extent, Fold};
use crate::error::AppError;
use crate::glkit::{self, Draw, Shader, Texture, Uniform};

/// The fold's first read: the matrix element times the vector's element for its column.
const PRODUCT: &str = "
uniform sampler2D x;
float load(ivec2 t) { return texelFetch(src, t, 0).r * texelFetch(x, ivec2(t.x, 0), 0).r; }
";

/// `αAx + βy` over the `1 × n` column of row sums.
const AXPBY: &str = "
uniform float alpha;
uniform float beta;
uniform sampler2D ax;
uniform sampler2D y;
out float result;
void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    result = alpha * texelFetch(ax, t, 0).r + beta * texelFetch(y, t, 0).r;
}
";

pub struct Hand<'a> {
    env: &'a Env,
    problem: Problem,
    fold: Fold,
    /// `A` (n × n) and `x` (n × 1).
    a: Texture,
    x: Texture,
    /// The `αAx + βy` pass, `y` and the result (1 × n each), when there is a `y` term.
    axpby: Option<(Shader, Texture, Texture)>,
}

impl<'a> Hand<'a> {
    pub fn new(env: &'a Env, problem: Problem) -> Result<Self, AppError> {
        let ctx = &env.context;
        let n = problem.n;
        let axpby = match problem.alpha_beta {
            Some(_) => Some((
                Shader::fragment(ctx, AXPBY)?,
                glkit::texture(ctx, 1, n, 1, None)?,
                glkit::texture(ctx, 1, n, 1, None)?,
            )),
            None => None,
        };
        Ok(Hand {
            env,
            fold: Fold::new(ctx, n, n, Extent::Rows, PRODUCT)?,
            a: glkit::texture(ctx, n, n, 1, None)?,
            x: glkit::texture(ctx, n, 1, 1, None)?,
            axpby,
            problem,
        })
    }
}

impl Variant for Hand<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        self.a.upload(glkit::whole(&self.a), &self.problem.a)?;
        self.x.upload(glkit::whole(&self.x), &self.problem.x)?;
        if let Some((_, y, _)) = &self.axpby {
            y.upload(glkit::whole(y), &self.problem.y)?;
        }
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let sums = self.fold.run(&self.a, &[("x", &self.x)])?;
        if let (Some((shader, y, result)), Some((alpha, beta))) =
            (&self.axpby, self.problem.alpha_beta)
        {
            Draw {
                shader,
                samplers: &[("ax", sums), ("y", y)],
                uniforms: &[
                    ("alpha", Uniform::Float(alpha)),
                    ("beta", Uniform::Float(beta)),
                ],
                targets: &[result],
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
        glkit::check(&self.env.context, "SGEMV")?;
        match &self.axpby {
            Some((_, _, result)) => glkit::read(result),
            None => glkit::read(self.fold.result()),
        }
    }
}
