//! Batcher's bitonic sort (000 §7.1): log²n passes of one compare-and-swap kernel with gathers.
//! Each pass writes every element once, as the smaller or the larger of itself and its partner,
//! because a fragment cannot write two places (no scatter). A count that is not a power of two
//! is padded with +∞, which sorts to the end and is cut off again by `download`.

use brook::{args, BrookError, IterSpec, Program, Runtime, Stream};
use rayon::prelude::*;

use crate::app::{App, Baseline, Env, Flavor, Instance, Scale, Tolerance, Variant, Work};
use crate::brook_run::Inputs;
use crate::data;
use crate::error::AppError;
use crate::glkit::{self, Draw, Shader, Uniform};

use super::chain::{self, Chain, Grid, Step};

pub struct Bitonic;

/// The dissertation's kernel (000 §7.1), verbatim but for `input[]`: it declares
/// `input[ARRAYSIZE]`, and the front end caps declared gather sizes at 65536.
const BROOK: &str = "
kernel void bitonic(iter float idx1<>, float input[],
    out float output<>, float stageWidth,
    float offset, float twoOffset) {

    float idx2;
    float sign, dir;
    float min, max;

    // either compared with element above or below
    sign = (fmod(idx1, twoOffset) < offset) ? 1.0 : -1.0;

    // \"arrow\" direction in the bitonic search algorithm
    dir = (fmod(floor(idx1/stageWidth), 2) == 0) ? 1.0 : -1.0;

    // comparing elements idx1 and idx2
    idx2 = idx1 + sign*offset;

    min = (input[idx1] < input[idx2]) ? input[idx1] : input[idx2];
    max = (input[idx1] > input[idx2]) ? input[idx1] : input[idx2];

    output = (sign == dir) ? min : max;
}
";

/// The same pass by hand: integer index arithmetic, the partner by XOR, the data in a texture
/// `2^shift` texels wide.
const HAND: &str = "
uniform sampler2D data;
uniform int stage;
uniform int offset;
uniform int shift;
out float result;
void main() {
    ivec2 t = ivec2(gl_FragCoord.xy);
    int i = (t.y << shift) | t.x;
    int partner = i ^ offset;
    int mask = (1 << shift) - 1;
    float a = texelFetch(data, t, 0).r;
    float b = texelFetch(data, ivec2(partner & mask, partner >> shift), 0).r;
    bool ascending = (i & stage) == 0;
    result = ((i < partner) == ascending) ? min(a, b) : max(a, b);
}
";

/// A pass hand-written in WGSL over the same power-of-two-wide image as the hand GL version
/// (`k[0].x` the stage, `k[0].y` the offset): the partner by integer XOR. Brook's wgpu passes
/// are one call per (stage, offset), as here ([`chain::hand_wgpu`]).
const WGPU: &str = "
fn next_texel(p: vec2<i32>) -> f32 {
    let i = p.y * W + p.x;
    let stage = i32(k[0].x);
    let partner = i ^ i32(k[0].y);
    let a = at(p.x, p.y);
    let b = at(partner % W, partner / W);
    let ascending = (i & stage) == 0;
    return select(max(a, b), min(a, b), (i < partner) == ascending);
}
";

impl App for Bitonic {
    fn name(&self) -> &'static str {
        "Bitonic"
    }

    fn summary(&self) -> &'static str {
        "Batcher bitonic sort of floats, log²n gather passes (000 §7.1)"
    }

    fn baseline(&self) -> Baseline {
        Baseline::Expert(
            "the hand version finds the partner by integer XOR in a power-of-two-wide texture; Brook's \
             kernel (the original's) computes it with float fmod and floor",
        )
    }

    fn instance<'a>(&self, env: &'a Env, scale: Scale) -> Result<Instance<'a>, AppError> {
        // 2^20 at full size: 210 passes over a million elements, about 16 s a sort for the
        // CPU backend on 2 quiet cores, within the report's budget.
        let n = scale.pick(1 << 20, 1 << 16, 1000);
        let values = data::uniform(n, 11, -1000.0, 1000.0);
        let mut reference = data::wide(&values);
        reference.sort_by(f64::total_cmp);
        let mut padded = values.clone();
        padded.resize(n.next_power_of_two(), f32::INFINITY);
        let mut variants: Vec<(Flavor, Box<dyn Variant + 'a>)> =
            vec![(Flavor::HandGl, Box::new(Hand::new(env, n, padded.clone())?))];
        for flavor in Flavor::BROOK {
            let brook = BrookBitonic::new(env.runtime(flavor), n, padded.clone())?;
            variants.push((flavor, Box::new(brook)));
        }
        let shift = padded.len().trailing_zeros().min(10);
        let sorting = Chain {
            grid: Grid {
                width: 1 << shift,
                height: padded.len() >> shift,
                components: 1,
            },
            input: padded.clone(),
            steps: (passes(padded.len()))
                .map(|(stage, offset)| Step {
                    program: 0,
                    constants: vec![("stage", vec![stage as f32, offset as f32])],
                })
                .collect(),
        };
        for (flavor, sort) in chain::hand_wgpu(env, &sorting, &[WGPU])? {
            variants.push((flavor, Box::new(FirstOf(sort, n))));
        }
        variants.push((
            Flavor::Rust,
            Box::new(RustSort {
                input: values,
                sorted: vec![],
            }),
        ));
        let padding = if padded.len() > n {
            format!(" (padded to {})", padded.len())
        } else {
            String::new()
        };
        Ok(Instance {
            size: format!("{n} floats{padding}"),
            work: Work::Elements(n as f64),
            reference,
            // Sorting moves values without arithmetic: the result must be exact.
            tolerance: Tolerance(0.0),
            variants,
        })
    }
}

/// The network's passes in order: `(stage width, offset)`, offsets halving within each stage.
/// A variant whose result is the first `.1` values of its own (the padding sorts last).
struct FirstOf<'a>(Box<dyn Variant + 'a>, usize);

impl Variant for FirstOf<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        self.0.upload()
    }

    fn compute(&mut self) -> Result<(), AppError> {
        self.0.compute()
    }

    fn sync(&self) {
        self.0.sync()
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        let mut sorted = self.0.download()?;
        sorted.truncate(self.1);
        Ok(sorted)
    }
}

fn passes(len: usize) -> impl Iterator<Item = (usize, usize)> {
    let stages = len.trailing_zeros();
    (1..=stages).flat_map(|s| (0..s).rev().map(move |o| (1 << s, 1 << o)))
}

struct BrookBitonic<'a> {
    rt: &'a Runtime,
    program: Program,
    inputs: Inputs,
    index: Stream,
    /// Ping-pong pair; the sorted values end in `scratch[result]`.
    scratch: [Stream; 2],
    result: usize,
    count: usize,
}

impl<'a> BrookBitonic<'a> {
    fn new(rt: &'a Runtime, count: usize, padded: Vec<f32>) -> Result<Self, AppError> {
        let len = padded.len();
        let mut inputs = Inputs::default();
        inputs.add(rt, 1, &[len], padded)?;
        Ok(BrookBitonic {
            rt,
            program: rt.compile(BROOK, "bitonic.br")?,
            inputs,
            index: rt.iter(
                IterSpec::new(&[len], 1, [0.0; 4], [len as f32, 0.0, 0.0, 0.0])
                    .map_err(BrookError::from)?,
            )?,
            scratch: [rt.stream_of(1, &[len])?, rt.stream_of(1, &[len])?],
            result: 0,
            count,
        })
    }
}

impl Variant for BrookBitonic<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        self.inputs.upload()
    }

    fn host_inputs(&self) -> Vec<&[f32]> {
        self.inputs.host()
    }

    fn read_floats(&self) -> Option<usize> {
        Some(self.scratch[self.result].len())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let mut input = self.inputs.get(0);
        for (pass, (stage, offset)) in passes(self.scratch[0].len()).enumerate() {
            let output = &self.scratch[pass % 2];
            let (stage, offset) = (stage as f32, offset as f32);
            self.rt.run(
                &self.program,
                "bitonic",
                args![&self.index, input, output, stage, offset, 2.0 * offset],
            )?;
            input = output;
            self.result = pass % 2;
        }
        Ok(())
    }

    fn sync(&self) {
        self.rt.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        let mut sorted = self.scratch[self.result].to_vec()?;
        sorted.truncate(self.count);
        Ok(sorted)
    }
}

struct Hand<'a> {
    env: &'a Env,
    shader: Shader,
    padded: Vec<f32>,
    count: usize,
    shift: u32,
    /// The input, then the ping-pong pair; the sorted values end in `textures[result]`.
    textures: [glkit::Texture; 3],
    result: usize,
}

impl<'a> Hand<'a> {
    fn new(env: &'a Env, count: usize, padded: Vec<f32>) -> Result<Self, AppError> {
        let ctx = &env.context;
        // A square-ish power-of-two texture: 1024 wide once there are that many values.
        let len = padded.len();
        let shift = len.trailing_zeros().min(10);
        let (width, height) = (1 << shift, len >> shift);
        let texture = || glkit::texture(ctx, width, height, 1, None);
        Ok(Hand {
            env,
            shader: Shader::fragment(ctx, HAND)?,
            padded,
            count,
            shift,
            textures: [texture()?, texture()?, texture()?],
            result: 0,
        })
    }
}

impl Variant for Hand<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        let t = &self.textures[0];
        Ok(t.upload(glkit::whole(t), &self.padded)?)
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let mut input = 0;
        for (pass, (stage, offset)) in passes(self.padded.len()).enumerate() {
            let output = 1 + pass % 2;
            Draw {
                shader: &self.shader,
                samplers: &[("data", &self.textures[input])],
                uniforms: &[
                    ("stage", Uniform::Int(stage as i32)),
                    ("offset", Uniform::Int(offset as i32)),
                    ("shift", Uniform::Int(self.shift as i32)),
                ],
                targets: &[&self.textures[output]],
                viewport: None,
            }
            .cover()?;
            input = output;
        }
        self.result = input;
        Ok(())
    }

    fn sync(&self) {
        glkit::finish(&self.env.context);
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        glkit::check(&self.env.context, "bitonic sort")?;
        let mut sorted = glkit::read(&self.textures[self.result])?;
        sorted.truncate(self.count);
        Ok(sorted)
    }
}

/// Rayon's parallel pattern-defeating quicksort, on a copy of the input each run.
struct RustSort {
    input: Vec<f32>,
    sorted: Vec<f32>,
}

impl Variant for RustSort {
    fn upload(&mut self) -> Result<(), AppError> {
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        self.sorted.clone_from(&self.input);
        self.sorted.par_sort_unstable_by(f32::total_cmp);
        Ok(())
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        Ok(self.sorted.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_network_has_log_squared_passes_in_batchers_order() {
        let all: Vec<_> = passes(8).collect();
        assert_eq!(all, [(2, 1), (4, 2), (4, 1), (8, 4), (8, 2), (8, 1)]);
        assert_eq!(passes(1 << 20).count(), 20 * 21 / 2);
    }
}
