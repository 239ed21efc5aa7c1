//! Convolve (003's table): a 1000 × 1000 monochrome image blurred by a 5 × 5 Gaussian, done
//! as the table says, separably: a 5 × 1 pass along the rows, then a 1 × 5 pass along the
//! columns. Edges follow Brook's gather rule (a tap off the image reads the edge texel).

use rayon::prelude::*;

use crate::app::{App, Env, Flavor, Instance, Scale, Tolerance, Variant, Work};
use crate::data;
use crate::error::AppError;

use super::chain::{self, BrookChain, Chain, Grid, HandChain, Pass, RustChain, Step};

pub struct Convolve;

/// The binomial approximation of a Gaussian, 1 4 6 4 1 over 16: exact in binary.
const WEIGHTS: [f32; 5] = [0.0625, 0.25, 0.375, 0.25, 0.0625];

const BROOK: &str = "
kernel void blur_x(float src[][], out float dst<>) {
    float2 p = indexof(dst).xy;
    dst = 0.0625 * src[p - float2(2.0, 0.0)] + 0.25 * src[p - float2(1.0, 0.0)]
        + 0.375 * src[p] + 0.25 * src[p + float2(1.0, 0.0)] + 0.0625 * src[p + float2(2.0, 0.0)];
}

kernel void blur_y(float src[][], out float dst<>) {
    float2 p = indexof(dst).xy;
    dst = 0.0625 * src[p - float2(0.0, 2.0)] + 0.25 * src[p - float2(0.0, 1.0)]
        + 0.375 * src[p] + 0.25 * src[p + float2(0.0, 1.0)] + 0.0625 * src[p + float2(0.0, 2.0)];
}
";

/// The hand-written pass, for one direction: `#define`d before the source.
const HAND: &str = "
uniform sampler2D src;
out float dst;
float tap(ivec2 p, ivec2 last) {
    return texelFetch(src, clamp(p, ivec2(0), last), 0).r;
}
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 last = textureSize(src, 0) - 1;
    dst = 0.0625 * tap(p - 2 * STEP, last) + 0.25 * tap(p - STEP, last)
        + 0.375 * texelFetch(src, p, 0).r + 0.25 * tap(p + STEP, last)
        + 0.0625 * tap(p + 2 * STEP, last);
}
";

/// The hand-written wgpu pass, for one direction `(DX, DY)`: `const`s before the source.
const WGPU: &str = "
fn next_texel(p: vec2<i32>) -> f32 {
    return 0.0625 * at(p.x - 2 * DX, p.y - 2 * DY) + 0.25 * at(p.x - DX, p.y - DY)
         + 0.375 * at(p.x, p.y) + 0.25 * at(p.x + DX, p.y + DY)
         + 0.0625 * at(p.x + 2 * DX, p.y + 2 * DY);
}
";

impl App for Convolve {
    fn name(&self) -> &'static str {
        "Convolve"
    }

    fn summary(&self) -> &'static str {
        "5×5 Gaussian blur of a monochrome image as a 5×1 then a 1×5 pass (003's table)"
    }

    fn instance<'a>(&self, env: &'a Env, scale: Scale) -> Result<Instance<'a>, AppError> {
        let (width, height) = scale.pick((1000, 1000), (500, 500), (13, 11));
        let grid = Grid {
            width,
            height,
            components: 1,
        };
        let image = data::uniform(grid.len(), 21, 0.0, 1.0);
        let reference = reference(grid, &image);
        let chain = Chain {
            grid,
            input: image,
            steps: vec![Step::plain(0), Step::plain(1)],
        };
        let hand = [
            format!("#define STEP ivec2(1, 0)\n{HAND}"),
            format!("#define STEP ivec2(0, 1)\n{HAND}"),
        ];
        let mut variants: Vec<(Flavor, Box<dyn Variant + 'a>)> = vec![(
            Flavor::HandGl,
            Box::new(HandChain::new(env, &chain, &[&hand[0], &hand[1]])?),
        )];
        for flavor in Flavor::BROOK {
            let rt = env.runtime(flavor);
            let brook = BrookChain::new(rt, &chain, BROOK, "convolve.br", &["blur_x", "blur_y"])?;
            variants.push((flavor, Box::new(brook)));
        }
        let wgpu = [
            format!("const DX: i32 = 1;\nconst DY: i32 = 0;\n{WGPU}"),
            format!("const DX: i32 = 0;\nconst DY: i32 = 1;\n{WGPU}"),
        ];
        variants.extend(chain::hand_wgpu(env, &chain, &[&wgpu[0], &wgpu[1]])?);
        let passes: Vec<Pass> = vec![
            Box::new(move |src: &[f32], dst: &mut [f32]| blur(grid, src, dst, [1, 0])),
            Box::new(move |src: &[f32], dst: &mut [f32]| blur(grid, src, dst, [0, 1])),
        ];
        variants.push((Flavor::Rust, Box::new(RustChain::new(&chain, passes))));
        Ok(Instance {
            size: format!("{width}×{height} float"),
            // A 5-tap filter is 5 multiplies and 4 adds, twice.
            work: Work::Flops(18.0 * grid.len() as f64),
            reference,
            // Nine f32 roundings of values below 1 per pass: a few ulps of 1.
            tolerance: Tolerance(1e-6),
            variants,
        })
    }
}

/// One 5-tap pass along `step` (`[1, 0]` rows, `[0, 1]` columns) in plain Rust, rows in
/// parallel.
fn blur(grid: Grid, src: &[f32], dst: &mut [f32], step: [isize; 2]) {
    dst.par_chunks_mut(grid.width)
        .enumerate()
        .for_each(|(y, out)| {
            for (x, value) in out.iter_mut().enumerate() {
                let tap = |k: isize| {
                    src[grid.clamped(x as isize + k * step[0], y as isize + k * step[1])]
                };
                *value = WEIGHTS[0] * tap(-2)
                    + WEIGHTS[1] * tap(-1)
                    + WEIGHTS[2] * tap(0)
                    + WEIGHTS[3] * tap(1)
                    + WEIGHTS[4] * tap(2);
            }
        });
}

/// The reference: the 5 × 5 outer-product kernel applied directly, in f64.
fn reference(grid: Grid, image: &[f32]) -> Vec<f64> {
    let mut out = Vec::with_capacity(grid.len());
    for y in 0..grid.height as isize {
        for x in 0..grid.width as isize {
            let mut sum = 0.0f64;
            for (j, wy) in WEIGHTS.iter().enumerate() {
                for (i, wx) in WEIGHTS.iter().enumerate() {
                    let texel = image[grid.clamped(x + i as isize - 2, y + j as isize - 2)];
                    sum += *wx as f64 * *wy as f64 * texel as f64;
                }
            }
            out.push(sum);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRID: Grid = Grid {
        width: 9,
        height: 7,
        components: 1,
    };

    #[test]
    fn an_impulse_spreads_into_the_outer_product_of_the_weights() {
        let mut image = vec![0.0; GRID.len()];
        image[3 * 9 + 4] = 1.0;
        let blurred = reference(GRID, &image);
        for (j, wy) in WEIGHTS.iter().enumerate() {
            for (i, wx) in WEIGHTS.iter().enumerate() {
                assert_eq!(blurred[(1 + j) * 9 + 2 + i], (wx * wy) as f64);
            }
        }
        assert_eq!(blurred.iter().sum::<f64>(), 1.0);
        let (mut across, mut both) = (vec![0.0; GRID.len()], vec![0.0; GRID.len()]);
        blur(GRID, &image, &mut across, [1, 0]);
        blur(GRID, &across, &mut both, [0, 1]);
        assert_eq!(data::wide(&both), blurred);
    }

    #[test]
    fn an_edge_texel_weighs_in_again_for_each_tap_off_the_image() {
        // A ramp along x: the clamped taps at column 0 read column 0 three times.
        let image: Vec<f32> = (0..GRID.len()).map(|i| (i % 9) as f32).collect();
        let blurred = reference(GRID, &image);
        assert_eq!(blurred[0], 0.25 + 2.0 * 0.0625);
        assert_eq!(blurred[4], 4.0);
    }
}
