//! Rotate (003's table): a 1000 × 1000 colour image turned by 10° about its centre, "with
//! bilinear inter-pixel interpolation and cropping". Each output texel maps back into the
//! source and blends the four texels around that point, gathered; a texel off the image
//! weighs nothing, so the rotated image fades to 0 over one texel at the source's border and
//! is 0 beyond it (the gathers themselves would clamp, but every such texel has weight 0).

use rayon::prelude::*;

use crate::app::{App, Env, Flavor, Instance, Scale, Tolerance, Variant, Work};
use crate::data;
use crate::error::AppError;

use super::chain::{self, BrookChain, Chain, Grid, HandChain, RustChain, Step};

pub struct Rotate;

const DEGREES: f64 = 10.0;

const BROOK: &str = "
kernel void rotate(float4 src[][], float2 centre, float2 turn, float2 size, out float4 dst<>) {
    // Where the output texel comes from: its offset from the centre turned back by the angle.
    float2 d = indexof(dst).xy - centre;
    float2 s = centre + float2(turn.x * d.x + turn.y * d.y, turn.x * d.y - turn.y * d.x);
    float2 lo = floor(s);
    float2 hi = lo + float2(1.0, 1.0);
    float2 f = s - lo;
    // Bilinear weights, 0 for a row or column off the image.
    float2 inLo = step(float2(0.0, 0.0), lo) * step(lo, size - float2(1.0, 1.0));
    float2 inHi = step(float2(0.0, 0.0), hi) * step(hi, size - float2(1.0, 1.0));
    float2 wLo = (float2(1.0, 1.0) - f) * inLo;
    float2 wHi = f * inHi;
    dst = wLo.y * (wLo.x * src[lo] + wHi.x * src[float2(hi.x, lo.y)])
        + wHi.y * (wLo.x * src[float2(lo.x, hi.y)] + wHi.x * src[hi]);
}
";

const HAND: &str = "
uniform sampler2D src;
uniform vec2 centre;
uniform vec2 turn;
uniform vec2 size;
out vec4 dst;
void main() {
    vec2 d = floor(gl_FragCoord.xy) - centre;
    vec2 s = centre + vec2(turn.x * d.x + turn.y * d.y, turn.x * d.y - turn.y * d.x);
    vec2 lo = floor(s);
    vec2 hi = lo + 1.0;
    vec2 f = s - lo;
    vec2 wLo = (1.0 - f) * step(vec2(0.0), lo) * step(lo, size - 1.0);
    vec2 wHi = f * step(vec2(0.0), hi) * step(hi, size - 1.0);
    ivec2 last = ivec2(size) - 1;
    ivec2 a = clamp(ivec2(lo), ivec2(0), last);
    ivec2 b = clamp(ivec2(hi), ivec2(0), last);
    dst = wLo.y * (wLo.x * texelFetch(src, a, 0) + wHi.x * texelFetch(src, ivec2(b.x, a.y), 0))
        + wHi.y * (wLo.x * texelFetch(src, ivec2(a.x, b.y), 0) + wHi.x * texelFetch(src, b, 0));
}
";

/// The rotation in WGSL, for the hand-written wgpu versions: `k[0].xy` the centre, `k[1].xy`
/// the turn, `k[2].xy` the size.
const WGPU: &str = "
fn next_texel(p: vec2<i32>) -> vec4<f32> {
    let centre = k[0].xy;
    let turn = k[1].xy;
    let size = k[2].xy;
    let d = vec2<f32>(p) - centre;
    let s = centre + vec2(turn.x * d.x + turn.y * d.y, turn.x * d.y - turn.y * d.x);
    let lo = floor(s);
    let hi = lo + 1.0;
    let f = s - lo;
    let wLo = (1.0 - f) * step(vec2(0.0), lo) * step(lo, size - 1.0);
    let wHi = f * step(vec2(0.0), hi) * step(hi, size - 1.0);
    let a = vec2<i32>(lo);
    let b = vec2<i32>(hi);
    return wLo.y * (wLo.x * at(a.x, a.y) + wHi.x * at(b.x, a.y))
         + wHi.y * (wLo.x * at(a.x, b.y) + wHi.x * at(b.x, b.y));
}
";

/// The rotation's constants: centre (column, row), (cos, sin) of the angle, size.
#[derive(Clone, Copy)]
struct Turn {
    centre: [f32; 2],
    turn: [f32; 2],
    size: [f32; 2],
}

impl Turn {
    fn new(grid: Grid) -> Turn {
        let angle = DEGREES.to_radians();
        Turn {
            centre: [
                (grid.width - 1) as f32 / 2.0,
                (grid.height - 1) as f32 / 2.0,
            ],
            turn: [angle.cos() as f32, angle.sin() as f32],
            size: grid.size(),
        }
    }
}

impl App for Rotate {
    fn name(&self) -> &'static str {
        "Rotate"
    }

    fn summary(&self) -> &'static str {
        "turn a colour image by 10° with bilinear gathers, cropped to 0 outside (003's table)"
    }

    fn instance<'a>(&self, env: &'a Env, scale: Scale) -> Result<Instance<'a>, AppError> {
        let (width, height) = scale.pick((1000, 1000), (500, 500), (13, 11));
        let grid = Grid {
            width,
            height,
            components: 4,
        };
        let image = data::uniform(grid.len(), 31, 0.0, 1.0);
        let t = Turn::new(grid);
        let reference = reference(grid, t, &image);
        let chain = Chain {
            grid,
            input: image,
            steps: vec![Step {
                program: 0,
                constants: vec![
                    ("centre", t.centre.to_vec()),
                    ("turn", t.turn.to_vec()),
                    ("size", t.size.to_vec()),
                ],
            }],
        };
        let mut variants: Vec<(Flavor, Box<dyn Variant + 'a>)> = vec![(
            Flavor::HandGl,
            Box::new(HandChain::new(env, &chain, &[HAND])?),
        )];
        for flavor in Flavor::BROOK {
            let rt = env.runtime(flavor);
            let brook = BrookChain::new(rt, &chain, BROOK, "rotate.br", &["rotate"])?;
            variants.push((flavor, Box::new(brook)));
        }
        variants.extend(chain::hand_wgpu(env, &chain, &[WGPU])?);
        let pass = Box::new(move |src: &[f32], dst: &mut [f32]| rotate(grid, t, src, dst));
        variants.push((Flavor::Rust, Box::new(RustChain::new(&chain, vec![pass]))));
        Ok(Instance {
            size: format!("{width}×{height} float4, {DEGREES}°"),
            work: Work::Elements((width * height) as f64),
            reference,
            // The source position is rounded in f32 (|s| up to ~1.5·side, a few ulps of 1000
            // is ~3e-4 texel) and moves a blend of values in [0, 1] by at most that much.
            tolerance: Tolerance(1e-3),
            variants,
        })
    }
}

/// The rotation in plain Rust, rows in parallel, the same arithmetic in f32.
fn rotate(grid: Grid, t: Turn, src: &[f32], dst: &mut [f32]) {
    let [cx, cy] = t.centre;
    let [cos, sin] = t.turn;
    let (w, h) = (grid.width as isize, grid.height as isize);
    let weights = |lo: f32, f: f32, n: isize| {
        let at = |i: isize| if (0..n).contains(&i) { 1.0 } else { 0.0 };
        let i = lo as isize;
        ([(1.0 - f) * at(i), f * at(i + 1)], i)
    };
    dst.par_chunks_mut(grid.width * 4)
        .enumerate()
        .for_each(|(y, row)| {
            let dy = y as f32 - cy;
            for (x, out) in row.chunks_exact_mut(4).enumerate() {
                let dx = x as f32 - cx;
                let (sx, sy) = (cx + (cos * dx + sin * dy), cy + (cos * dy - sin * dx));
                let (lx, ly) = (sx.floor(), sy.floor());
                let (wx, ix) = weights(lx, sx - lx, w);
                let (wy, iy) = weights(ly, sy - ly, h);
                out.fill(0.0);
                for (j, wy) in wy.iter().enumerate() {
                    for (i, wx) in wx.iter().enumerate() {
                        let texel = grid.clamped(ix + i as isize, iy + j as isize) * 4;
                        for (o, s) in out.iter_mut().zip(&src[texel..texel + 4]) {
                            *o += wy * wx * s;
                        }
                    }
                }
            }
        });
}

/// The reference in f64: bilinear interpolation of the source with 0 outside it, at the
/// rotated position.
fn reference(grid: Grid, t: Turn, image: &[f32]) -> Vec<f64> {
    let [cx, cy] = t.centre.map(f64::from);
    let [cos, sin] = t.turn.map(f64::from);
    let texel = |x: f64, y: f64, c: usize| {
        let inside =
            (0.0..grid.width as f64).contains(&x) && (0.0..grid.height as f64).contains(&y);
        match inside {
            true => image[(y as usize * grid.width + x as usize) * 4 + c] as f64,
            false => 0.0,
        }
    };
    let mut out = Vec::with_capacity(grid.len());
    for y in 0..grid.height {
        for x in 0..grid.width {
            let (dx, dy) = (x as f64 - cx, y as f64 - cy);
            let (sx, sy) = (cx + cos * dx + sin * dy, cy - sin * dx + cos * dy);
            let (x0, y0) = (sx.floor(), sy.floor());
            let (fx, fy) = (sx - x0, sy - y0);
            for c in 0..4 {
                let top = (1.0 - fx) * texel(x0, y0, c) + fx * texel(x0 + 1.0, y0, c);
                let bottom =
                    (1.0 - fx) * texel(x0, y0 + 1.0, c) + fx * texel(x0 + 1.0, y0 + 1.0, c);
                out.push((1.0 - fy) * top + fy * bottom);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(side: usize) -> Grid {
        Grid {
            width: side,
            height: side,
            components: 4,
        }
    }

    fn turned(grid: Grid, degrees: f64) -> Turn {
        let angle = degrees.to_radians();
        Turn {
            turn: [angle.cos() as f32, angle.sin() as f32],
            ..Turn::new(grid)
        }
    }

    #[test]
    fn a_quarter_turn_moves_whole_texels() {
        let grid = square(5);
        let image: Vec<f32> = (0..grid.len()).map(|i| i as f32).collect();
        let quarter = reference(grid, turned(grid, 90.0), &image);
        // Output (x, y) comes from (y, 4 - x), up to f32's cos 90° ≈ -4e-8.
        for (x, y, c) in [(0, 0, 0), (3, 1, 2), (2, 4, 3)] {
            let from = ((4 - x) * 5 + y) * 4 + c;
            assert!((quarter[(y * 5 + x) * 4 + c] - from as f64).abs() < 1e-4);
        }
        assert_eq!(
            reference(grid, turned(grid, 0.0), &image),
            data::wide(&image)
        );
        let mut rust = vec![0.0; grid.len()];
        rotate(grid, turned(grid, 90.0), &image, &mut rust);
        let error = Tolerance::error(&quarter, &rust).unwrap();
        assert!(error < 1e-6, "{error}");
    }

    #[test]
    fn outside_the_source_is_zero_and_its_border_blends_towards_zero() {
        let grid = square(9);
        let image = vec![1.0; grid.len()];
        let turn = turned(grid, 45.0);
        let rotated = reference(grid, turn, &image);
        // The corner comes from 4 - 4√2 ≈ -1.66 along x: off the image, weight 0.
        assert_eq!(rotated[0], 0.0);
        // (1, 0) comes from x = 4 - 7/√2 ≈ -0.95: 5% of texel 0 and 95% of nothing.
        let blend = 5.0 - 7.0 / 2f64.sqrt();
        assert!((rotated[4] - blend).abs() < 1e-5, "{}", rotated[4]);
        assert_eq!(rotated[(4 * 9 + 4) * 4], 1.0);
        let mut rust = vec![0.0; grid.len()];
        rotate(grid, turn, &image, &mut rust);
        assert!(Tolerance::error(&rotated, &rust).unwrap() < 1e-6);
    }
}
