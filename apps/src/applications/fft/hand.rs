//! The FFT by hand: the same passes as the Brook version — bit reversal, then radix-2
//! butterflies along rows and then columns — in GLSL with integer index arithmetic, writing
//! the real and imaginary planes through two draw buffers at once.

use super::Signal;
use crate::app::{Env, Variant};
use crate::error::AppError;
use crate::glkit::{self, Draw, Shader, Texture, Uniform};

const BITREVERSE: &str = "
uniform sampler2D re;
uniform sampler2D im;
uniform ivec2 bits;
layout(location = 0) out vec4 ore;
layout(location = 1) out vec4 oim;
int reverse(int v, int n) {
    int r = 0;
    for (int b = 0; b < n; b++) {
        r = (r << 1) | (v & 1);
        v >>= 1;
    }
    return r;
}
void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    ivec2 from = ivec2(reverse(at.x, bits.x), reverse(at.y, bits.y));
    ore = texelFetch(re, from, 0);
    oim = texelFetch(im, from, 0);
}
";

const BUTTERFLY: &str = "
uniform sampler2D re;
uniform sampler2D im;
uniform sampler2D twiddle;
uniform ivec2 axis;
uniform int span;
uniform int stride;
layout(location = 0) out vec4 ore;
layout(location = 1) out vec4 oim;
void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    int halfspan = span >> 1;
    int k = (at.x * axis.x + at.y * axis.y) & (span - 1);
    int p = k & (halfspan - 1);
    ivec2 even = at - axis * (k - p);
    ivec2 odd = even + axis * halfspan;
    vec2 w = texelFetch(twiddle, ivec2(p * stride, 0), 0).xy;
    vec4 br = texelFetch(re, odd, 0);
    vec4 bi = texelFetch(im, odd, 0);
    vec4 tr = w.x * br - w.y * bi;
    vec4 ti = w.x * bi + w.y * br;
    float s = k < halfspan ? 1.0 : -1.0;
    ore = texelFetch(re, even, 0) + s * tr;
    oim = texelFetch(im, even, 0) + s * ti;
}
";

pub struct HandFft<'a> {
    env: &'a Env,
    signal: Signal,
    bitreverse: Shader,
    butterfly: Shader,
    /// The input planes, then two ping-pong pairs; the result ends in pair `result`.
    input: [Texture; 2],
    scratch: [[Texture; 2]; 2],
    twiddle: Texture,
    result: usize,
}

impl<'a> HandFft<'a> {
    pub fn new(env: &'a Env, signal: Signal) -> Result<Self, AppError> {
        let ctx = &env.context;
        let (w, h) = (signal.width, signal.height);
        let plane = || glkit::texture(ctx, w, h, 4, None);
        let twiddles = signal.twiddles();
        Ok(HandFft {
            env,
            bitreverse: Shader::fragment(ctx, BITREVERSE)?,
            butterfly: Shader::fragment(ctx, BUTTERFLY)?,
            input: [plane()?, plane()?],
            scratch: [[plane()?, plane()?], [plane()?, plane()?]],
            twiddle: glkit::texture(ctx, twiddles.len() / 2, 1, 2, Some(&twiddles))?,
            signal,
            result: 0,
        })
    }
}

impl Variant for HandFft<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        let [re, im] = &self.input;
        re.upload(glkit::whole(re), &self.signal.re)?;
        im.upload(glkit::whole(im), &self.signal.im)?;
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let (w, h) = (self.signal.width, self.signal.height);
        let [re, im] = &self.input;
        let [ore, oim] = &self.scratch[0];
        Draw {
            shader: &self.bitreverse,
            samplers: &[("re", re), ("im", im)],
            uniforms: &[(
                "bits",
                Uniform::IVec2([w.trailing_zeros() as i32, h.trailing_zeros() as i32]),
            )],
            targets: &[ore, oim],
            viewport: None,
        }
        .cover()?;
        let longest = w.max(h);
        let rows = Signal::spans(w).map(|s| ([1, 0], s));
        let columns = Signal::spans(h).map(|s| ([0, 1], s));
        let mut current = 0;
        for (axis, span) in rows.chain(columns) {
            let ([re, im], [ore, oim]) = (&self.scratch[current], &self.scratch[1 - current]);
            Draw {
                shader: &self.butterfly,
                samplers: &[("re", re), ("im", im), ("twiddle", &self.twiddle)],
                uniforms: &[
                    ("axis", Uniform::IVec2(axis)),
                    ("span", Uniform::Int(span as i32)),
                    ("stride", Uniform::Int((longest / span) as i32)),
                ],
                targets: &[ore, oim],
                viewport: None,
            }
            .cover()?;
            current = 1 - current;
        }
        self.result = current;
        Ok(())
    }

    fn sync(&self) {
        glkit::finish(&self.env.context);
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        glkit::check(&self.env.context, "FFT")?;
        let [re, im] = &self.scratch[self.result];
        let mut result = glkit::read(re)?;
        result.extend(glkit::read(im)?);
        Ok(result)
    }
}
