//! Conway's Game of Life (003's table: "one iteration … on a 1000 × 1000 grid; cell values are
//! single-precision floats to model a general cellular automaton"), run for several
//! generations, each reading the last through gathers of the eight neighbours. Edges follow
//! Brook's gather rule: an index off the grid reads the nearest edge cell, so an edge cell
//! sees its edge neighbours (and itself) again across the border.

use rayon::prelude::*;

use crate::app::{App, Env, Flavor, Instance, Scale, Tolerance, Variant, Work};
use crate::data;
use crate::error::AppError;

use super::chain::{self, BrookChain, Chain, Grid, HandChain, RustChain, Step};

pub struct Life;

const BROOK: &str = "
kernel void life(float src[][], out float next<>) {
    float2 p = indexof(next).xy;
    float n = src[p + float2(-1.0, -1.0)] + src[p + float2(0.0, -1.0)] + src[p + float2(1.0, -1.0)]
            + src[p + float2(-1.0, 0.0)] + src[p + float2(1.0, 0.0)]
            + src[p + float2(-1.0, 1.0)] + src[p + float2(0.0, 1.0)] + src[p + float2(1.0, 1.0)];
    next = (n == 3.0 || (n == 2.0 && src[p] > 0.5)) ? 1.0 : 0.0;
}
";

const HAND: &str = "
uniform sampler2D src;
out float next;
float cell(ivec2 p, ivec2 last) {
    return texelFetch(src, clamp(p, ivec2(0), last), 0).r;
}
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 last = textureSize(src, 0) - 1;
    float n = cell(p + ivec2(-1, -1), last) + cell(p + ivec2(0, -1), last)
            + cell(p + ivec2(1, -1), last) + cell(p + ivec2(-1, 0), last)
            + cell(p + ivec2(1, 0), last) + cell(p + ivec2(-1, 1), last)
            + cell(p + ivec2(0, 1), last) + cell(p + ivec2(1, 1), last);
    next = (n == 3.0 || (n == 2.0 && texelFetch(src, p, 0).r > 0.5)) ? 1.0 : 0.0;
}
";

/// A generation in WGSL, for the hand-written wgpu versions.
const WGPU: &str = "
fn next_texel(p: vec2<i32>) -> f32 {
    let n = at(p.x - 1, p.y - 1) + at(p.x, p.y - 1) + at(p.x + 1, p.y - 1)
          + at(p.x - 1, p.y) + at(p.x + 1, p.y)
          + at(p.x - 1, p.y + 1) + at(p.x, p.y + 1) + at(p.x + 1, p.y + 1);
    return select(0.0, 1.0, n == 3.0 || (n == 2.0 && at(p.x, p.y) > 0.5));
}
";

impl App for Life {
    fn name(&self) -> &'static str {
        "Life"
    }

    fn summary(&self) -> &'static str {
        "Conway's Game of Life, K generations on float cells, edges clamped (003's table)"
    }

    fn instance<'a>(&self, env: &'a Env, scale: Scale) -> Result<Instance<'a>, AppError> {
        let (width, height) = scale.pick((1000, 1000), (256, 256), (13, 11));
        // 003 times one generation; ten make the chain's ping-pong matter while the full
        // size stays under 15 s for all variants (the Brook CPU backend: ~0.4 s a generation).
        let generations = scale.pick(10, 20, 6);
        let grid = Grid {
            width,
            height,
            components: 1,
        };
        // A soup with about a third of the cells alive.
        let cells = data::uniform(grid.len(), 11, 0.0, 1.0)
            .into_iter()
            .map(|v| if v < 0.35 { 1.0 } else { 0.0 })
            .collect::<Vec<f32>>();
        let reference = reference(grid, &cells, generations);
        let chain = Chain {
            grid,
            input: cells,
            steps: vec![Step::plain(0); generations],
        };
        let mut variants: Vec<(Flavor, Box<dyn Variant + 'a>)> = vec![(
            Flavor::HandGl,
            Box::new(HandChain::new(env, &chain, &[HAND])?),
        )];
        for flavor in Flavor::BROOK {
            let brook = BrookChain::new(env.runtime(flavor), &chain, BROOK, "life.br", &["life"])?;
            variants.push((flavor, Box::new(brook)));
        }
        variants.extend(chain::hand_wgpu(env, &chain, &[WGPU])?);
        let pass = Box::new(move |src: &[f32], dst: &mut [f32]| generation(grid, src, dst));
        variants.push((Flavor::Rust, Box::new(RustChain::new(&chain, vec![pass]))));
        Ok(Instance {
            size: format!("{width}×{height}, {generations} generations"),
            work: Work::Elements((grid.len() * generations) as f64),
            reference,
            // Cells are 0 or 1 and neighbour counts small whole numbers: every variant is exact.
            tolerance: Tolerance(0.0),
            variants,
        })
    }
}

/// One generation in plain Rust: rows in parallel, the clamped neighbour rows and columns
/// looked up once per row and cell.
fn generation(grid: Grid, src: &[f32], dst: &mut [f32]) {
    let (w, h) = (grid.width, grid.height);
    dst.par_chunks_mut(w).enumerate().for_each(|(y, out)| {
        let rows = [y.saturating_sub(1), y, (y + 1).min(h - 1)].map(|r| &src[r * w..(r + 1) * w]);
        for (x, cell) in out.iter_mut().enumerate() {
            let cols = [x.saturating_sub(1), x, (x + 1).min(w - 1)];
            let block: f32 = rows
                .iter()
                .map(|row| cols.iter().map(|&c| row[c]).sum::<f32>())
                .sum();
            let alive = rows[1][x] > 0.5;
            let n = block - rows[1][x];
            *cell = if n == 3.0 || (n == 2.0 && alive) {
                1.0
            } else {
                0.0
            };
        }
    });
}

/// The reference: whole-number neighbour counts on a grid of booleans, one cell at a time.
fn reference(grid: Grid, cells: &[f32], generations: usize) -> Vec<f64> {
    let mut alive: Vec<bool> = cells.iter().map(|&c| c > 0.5).collect();
    for _ in 0..generations {
        alive = (0..grid.height as isize)
            .flat_map(|y| (0..grid.width as isize).map(move |x| (x, y)))
            .map(|(x, y)| {
                let mut n = 0u32;
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        if (dx, dy) != (0, 0) && alive[grid.clamped(x + dx, y + dy)] {
                            n += 1;
                        }
                    }
                }
                n == 3 || (n == 2 && alive[grid.clamped(x, y)])
            })
            .collect();
    }
    alive.iter().map(|&a| if a { 1.0 } else { 0.0 }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRID: Grid = Grid {
        width: 5,
        height: 5,
        components: 1,
    };

    fn cells(alive: &[(usize, usize)]) -> Vec<f32> {
        let mut c = vec![0.0; GRID.len()];
        for (x, y) in alive {
            c[y * GRID.width + x] = 1.0;
        }
        c
    }

    #[test]
    fn a_blinker_turns_and_turns_back() {
        let across = cells(&[(1, 2), (2, 2), (3, 2)]);
        let down = data::wide(&cells(&[(2, 1), (2, 2), (2, 3)]));
        assert_eq!(reference(GRID, &across, 1), down);
        assert_eq!(reference(GRID, &across, 2), data::wide(&across));
        let mut next = vec![0.0; GRID.len()];
        generation(GRID, &across, &mut next);
        assert_eq!(data::wide(&next), down);
    }

    #[test]
    fn a_lone_corner_cell_lives_on_its_clamped_copies() {
        // Across the corner, (-1, -1), (0, -1) and (-1, 0) all clamp to (0, 0): the cell is
        // its own three neighbours, so it survives (on a dead border it would die), and its
        // neighbours see it at most twice, so none is born.
        let corner = cells(&[(0, 0)]);
        assert_eq!(reference(GRID, &corner, 3), data::wide(&corner));
        let mut next = vec![0.0; GRID.len()];
        generation(GRID, &corner, &mut next);
        assert_eq!(next, corner);
    }
}
