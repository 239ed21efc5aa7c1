//! Segment (001 §5, 000 §6.2.2): "a 2D version of the Perona and Malik nonlinear,
//! diffusion-based, seeded, region-growing algorithm, as presented in Sherbondy et al. [2003],
//! on a 2048 by 2048 image … Each iteration of the segmentation evolution kernel requires 32
//! floating point operations, reads 10 floats as input and writes 2 floats as output."
//!
//! Those figures fix the shape of the kernel: each texel is a `float2` — `.x` the image,
//! `.y` the region's label — and one evolution step gathers the texel and its 4 neighbours
//! (10 floats) and writes both (2 floats). Per neighbour, 8 operations (32 in all): the
//! difference `d` of the intensities, the Perona–Malik conductance `g = exp(-d²/K²)`, the
//! diffusion term `g·d` (the image is smoothed along small differences and kept sharp across
//! edges), and the growth `g·label` of the neighbour's label, kept when larger (the seeded
//! region spreads one texel per step where the image is homogeneous and stops at edges).
//! Edges follow Brook's gather rule: a neighbour off the image is the edge texel itself.
//!
//! `examples/segmentation.rs` shows the same idea as two kernels (smooth, then grow by a
//! threshold) for display; this is the paper's single evolution kernel, for measuring.

use rayon::prelude::*;

use crate::app::{App, Env, Flavor, Instance, Scale, Tolerance, Variant, Work};
use crate::brook_run::FastMath;
use crate::data;
use crate::error::AppError;

use super::chain::{self, BrookChain, Chain, Grid, HandChain, RustChain, Step};

/// Segment with Brook's accurate math (the default contract: Brook's own `exp`, 1.5 ulp), or
/// with `Runtime::set_fast_math(true)` on the Brook variants (the driver's `exp`, as the
/// hand-written version calls): the report shows both, labelled (issue 34).
pub struct Segment {
    name: &'static str,
    fast_math: bool,
}

impl Segment {
    /// The default: Brook's accurate math.
    pub const ACCURATE: Segment = Segment {
        name: "Segment",
        fast_math: false,
    };
    /// The Brook variants with fast math on (the CPU computes as in the accurate mode).
    pub const FAST_MATH: Segment = Segment {
        name: "Segment-fast-math",
        fast_math: true,
    };
}

/// The edge scale `K` of the conductance, as `1/K²` (intensities are in [0, 1]).
const INV_K2: f32 = 100.0;
/// The diffusion step: at most 1/4 with 4 neighbours for the explicit scheme to be stable.
const LAMBDA: f32 = 0.2;

const BROOK: &str = "
kernel void evolve(float2 src[][], float invK2, out float2 next<>) {
    float2 p = indexof(next).xy;
    float2 c = src[p];
    float2 e = src[p + float2(1.0, 0.0)];
    float2 w = src[p - float2(1.0, 0.0)];
    float2 n = src[p + float2(0.0, 1.0)];
    float2 s = src[p - float2(0.0, 1.0)];
    float4 d = float4(e.x, w.x, n.x, s.x) - float4(c.x, c.x, c.x, c.x);
    float4 g = exp(-invK2 * d * d);
    float4 reach = g * float4(e.y, w.y, n.y, s.y);
    next = float2(c.x + 0.2 * (g.x * d.x + g.y * d.y + g.z * d.z + g.w * d.w),
                  max(max(c.y, max(reach.x, reach.y)), max(reach.z, reach.w)));
}
";

const HAND: &str = "
uniform sampler2D src;
uniform float invK2;
out vec2 next;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 last = textureSize(src, 0) - 1;
    vec2 c = texelFetch(src, p, 0).rg;
    vec2 e = texelFetch(src, min(p + ivec2(1, 0), last), 0).rg;
    vec2 w = texelFetch(src, max(p - ivec2(1, 0), ivec2(0)), 0).rg;
    vec2 n = texelFetch(src, min(p + ivec2(0, 1), last), 0).rg;
    vec2 s = texelFetch(src, max(p - ivec2(0, 1), ivec2(0)), 0).rg;
    vec4 d = vec4(e.x, w.x, n.x, s.x) - c.x;
    vec4 g = exp(-invK2 * d * d);
    vec4 reach = g * vec4(e.y, w.y, n.y, s.y);
    next = vec2(c.x + 0.2 * (g.x * d.x + g.y * d.y + g.z * d.z + g.w * d.w),
                max(max(c.y, max(reach.x, reach.y)), max(reach.z, reach.w)));
}
";

/// The evolution step in WGSL, for the hand-written wgpu versions (`k[0].x` is `invK2`).
const WGPU: &str = "
fn next_texel(p: vec2<i32>) -> vec2<f32> {
    let c = at(p.x, p.y);
    let e = at(p.x + 1, p.y);
    let w = at(p.x - 1, p.y);
    let n = at(p.x, p.y + 1);
    let s = at(p.x, p.y - 1);
    let d = vec4(e.x, w.x, n.x, s.x) - c.x;
    let g = exp(-k[0].x * d * d);
    let reach = g * vec4(e.y, w.y, n.y, s.y);
    return vec2(c.x + 0.2 * (g.x * d.x + g.y * d.y + g.z * d.z + g.w * d.w),
                max(max(c.y, max(reach.x, reach.y)), max(reach.z, reach.w)));
}
";

impl App for Segment {
    fn name(&self) -> &'static str {
        self.name
    }

    fn summary(&self) -> &'static str {
        if self.fast_math {
            "Segment with Runtime::set_fast_math(true) on the Brook variants (the driver's exp)"
        } else {
            "Perona–Malik diffusion with seeded region growing, one float2 evolution kernel (001 §5)"
        }
    }

    fn instance<'a>(&self, env: &'a Env, scale: Scale) -> Result<Instance<'a>, AppError> {
        let (width, height) = scale.pick((2048, 2048), (512, 512), (13, 11));
        // The papers give no step count. Five keeps the full size (where the Brook CPU
        // backend takes about a second a step on two cores) at under 20 s for all variants.
        let steps = scale.pick(5, 5, 6);
        let grid = Grid {
            width,
            height,
            components: 2,
        };
        let input = scene(grid);
        let reference = reference(grid, &input, steps);
        let chain = Chain {
            grid,
            input,
            steps: vec![
                Step {
                    program: 0,
                    constants: vec![("invK2", vec![INV_K2])],
                };
                steps
            ],
        };
        let mut variants: Vec<(Flavor, Box<dyn Variant + 'a>)> = vec![(
            Flavor::HandGl,
            Box::new(HandChain::new(env, &chain, &[HAND])?),
        )];
        for flavor in Flavor::BROOK {
            let rt = env.runtime(flavor);
            let brook = Box::new(BrookChain::new(
                rt,
                &chain,
                BROOK,
                "segment.br",
                &["evolve"],
            )?);
            let brook: Box<dyn Variant + 'a> = match self.fast_math {
                true => Box::new(FastMath::new(rt, brook)),
                false => brook,
            };
            variants.push((flavor, brook));
        }
        variants.extend(chain::hand_wgpu(env, &chain, &[WGPU])?);
        let pass = Box::new(move |src: &[f32], dst: &mut [f32]| evolve(grid, src, dst));
        variants.push((Flavor::Rust, Box::new(RustChain::new(&chain, vec![pass]))));
        Ok(Instance {
            size: format!(
                "{width}×{height} float2, {steps} steps{}",
                if self.fast_math { ", fast math" } else { "" }
            ),
            work: Work::Flops(32.0 * (width * height * steps) as f64),
            reference,
            // Each step adds a few ulps of exp's error (GLSL allows 3 + 2|x| ulp) to values in
            // [0, 1]; the image diffuses (errors do not grow) and a label is a product of at
            // most `steps` conductances: well under 1e-4 for the step counts used here.
            tolerance: Tolerance(1e-4),
            variants,
        })
    }
}

/// The test image, as (intensity, label) pairs: a large and a small disc and a ring on a
/// background, with noise, and one seed at the large disc's centre.
fn scene(grid: Grid) -> Vec<f32> {
    let (w, h) = (grid.width as f32, grid.height as f32);
    let r = w.min(h);
    let noise = data::uniform(grid.width * grid.height, 41, -0.05, 0.05);
    let seed = grid.clamped((0.35 * w) as isize, (0.4 * h) as isize);
    let mut texels = Vec::with_capacity(grid.len());
    for (i, noise) in noise.iter().enumerate() {
        let (x, y) = ((i % grid.width) as f32, (i / grid.width) as f32);
        let from = |cx: f32, cy: f32| (x - cx * w).hypot(y - cy * h) / r;
        let intensity = if from(0.35, 0.4) < 0.22 {
            0.75
        } else if (0.14..0.2).contains(&from(0.7, 0.68)) {
            0.5
        } else if from(0.74, 0.24) < 0.12 {
            0.6
        } else {
            0.25
        };
        texels.push(intensity + noise);
        texels.push(if i == seed { 1.0 } else { 0.0 });
    }
    texels
}

/// One evolution step in plain Rust, rows in parallel, the same f32 arithmetic.
fn evolve(grid: Grid, src: &[f32], dst: &mut [f32]) {
    let (w, h) = (grid.width, grid.height);
    dst.par_chunks_mut(w * 2).enumerate().for_each(|(y, row)| {
        let at = |x: usize, y: usize| {
            let i = (y * w + x) * 2;
            (src[i], src[i + 1])
        };
        let (up, down) = ((y + 1).min(h - 1), y.saturating_sub(1));
        for (x, out) in row.chunks_exact_mut(2).enumerate() {
            let c = at(x, y);
            let neighbours = [
                at((x + 1).min(w - 1), y),
                at(x.saturating_sub(1), y),
                at(x, up),
                at(x, down),
            ];
            let mut flow = 0.0;
            let mut label = c.1;
            for (u, l) in neighbours {
                let d = u - c.0;
                let g = (-INV_K2 * d * d).exp();
                flow += g * d;
                label = label.max(g * l);
            }
            out[0] = c.0 + LAMBDA * flow;
            out[1] = label;
        }
    });
}

/// The reference: the same evolution in f64, one texel at a time.
fn reference(grid: Grid, input: &[f32], steps: usize) -> Vec<f64> {
    let mut now = data::wide(input);
    for _ in 0..steps {
        let mut next = Vec::with_capacity(now.len());
        for y in 0..grid.height as isize {
            for x in 0..grid.width as isize {
                let c = grid.clamped(x, y) * 2;
                let mut u = now[c];
                let mut label = now[c + 1];
                for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let n = grid.clamped(x + dx, y + dy) * 2;
                    let d = now[n] - now[c];
                    let g = (-(INV_K2 as f64) * d * d).exp();
                    u += LAMBDA as f64 * g * d;
                    label = label.max(g * now[n + 1]);
                }
                next.push(u);
                next.push(label);
            }
        }
        now = next;
    }
    now
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRID: Grid = Grid {
        width: 7,
        height: 5,
        components: 2,
    };

    #[test]
    fn on_a_flat_image_the_label_grows_one_texel_a_step() {
        let mut input = vec![0.5; GRID.len()];
        for (i, texel) in input.chunks_exact_mut(2).enumerate() {
            texel[1] = if i == 2 * 7 + 3 { 1.0 } else { 0.0 };
        }
        let after = reference(GRID, &input, 2);
        for y in 0..5isize {
            for x in 0..7isize {
                let i = (y * 7 + x) as usize * 2;
                let reached = (x - 3).abs() + (y - 2).abs() <= 2;
                assert_eq!(after[i], 0.5);
                assert_eq!(after[i + 1], if reached { 1.0 } else { 0.0 }, "({x}, {y})");
            }
        }
    }

    #[test]
    fn an_edge_stops_the_label_and_stays_sharp() {
        // Left half 0.2, right half 0.8, the seed on the left.
        let mut input = Vec::new();
        for i in 0..GRID.len() / 2 {
            input.push(if i % 7 < 3 { 0.2 } else { 0.8 });
            input.push(if i == 2 * 7 { 1.0 } else { 0.0 });
        }
        let after = reference(GRID, &input, 6);
        let (left, right) = ((2 * 7 + 2) * 2, (2 * 7 + 3) * 2);
        assert_eq!(after[left + 1], 1.0);
        // g = exp(-0.36 · 100): the label that crosses is ~1e-16, the image barely moves.
        assert!(after[right + 1] < 1e-15, "{}", after[right + 1]);
        for i in [left, right] {
            assert!((after[i] - input[i] as f64).abs() < 1e-12, "{}", after[i]);
        }
        let mut rust = (input.clone(), vec![0.0; GRID.len()]);
        for _ in 0..6 {
            evolve(GRID, &rust.0, &mut rust.1);
            std::mem::swap(&mut rust.0, &mut rust.1);
        }
        assert!(Tolerance::error(&after, &rust.0).unwrap() < 1e-6);
    }
}
