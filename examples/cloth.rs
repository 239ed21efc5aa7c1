//! A hanging cloth, the mass–spring kernel the Brook paper uses to measure multiple outputs
//! (001 §4.3): a 48×48 grid of particles in `float3` streams, integrated with Verlet steps.
//! Each step a kernel gathers every particle's four neighbours and the four two apart
//! (stretch and bend springs), adds gravity and a gusting wind, and relaxes the springs;
//! the top row hangs from a pin every sixth particle, like a curtain. A second kernel projects the positions obliquely
//! for the points view.
//!
//! `cargo run --release --example cloth` (a window), or
//! `cargo run --release --example cloth -- --headless --frames 200 --png cloth.png`

use brook::{args, BrookError, Program, Runtime, Stream};
use brook_viz::{Simulation, View};

const CLOTH: &str = "
// The move of `x` that would give the spring to `y` its rest length, and a weight of 1; or
// nothing for a neighbour `q` outside the cloth (gathers clamp at the edges, so `y` would be
// a stand-in there).
float4 pull(float3 x, float3 y, float2 q, float2 size, float rest) {
    if (q.x < 0.0 || q.y < 0.0 || q.x >= size.x || q.y >= size.y) {
        return float4(0.0, 0.0, 0.0, 0.0);
    }
    float3 d = y - x;
    return float4(d * (1.0 - rest / max(length(d), 1e-6)), 1.0);
}

kernel void cloth(float3 pos[][], float3 prev<>, float2 size, float spacing, float3 wind,
                  out float3 next<>) {
    float2 p = indexof(next).xy;
    float3 x = pos[p];
    // Stretch springs to the four neighbours, bend springs to the four two apart.
    float2 e = float2(1.0, 0.0);
    float2 n = float2(0.0, 1.0);
    float s2 = 2.0 * spacing;
    float4 sum = pull(x, pos[p + e], p + e, size, spacing)
               + pull(x, pos[p - e], p - e, size, spacing)
               + pull(x, pos[p + n], p + n, size, spacing)
               + pull(x, pos[p - n], p - n, size, spacing)
               + pull(x, pos[p + 2.0 * e], p + 2.0 * e, size, s2)
               + pull(x, pos[p - 2.0 * e], p - 2.0 * e, size, s2)
               + pull(x, pos[p + 2.0 * n], p + 2.0 * n, size, s2)
               + pull(x, pos[p - 2.0 * n], p - 2.0 * n, size, s2);
    float3 velocity = (x - prev) * 0.995;
    float3 moved = x + velocity + float3(0.0, -0.00003, 0.0) + wind + 0.8 * sum.xyz / sum.w;
    bool pinned = p.y == 0.0 && (fmod(p.x, 6.0) == 0.0 || p.x == size.x - 1.0);
    next = pinned ? x : moved;
}

// An oblique view: depth shifts points right and up.
kernel void project(float3 pos<>, out float2 screen<>) {
    screen = float2(pos.x + 0.35 * pos.z, pos.y + 0.25 * pos.z);
}
";

const SIDE: usize = 48;
const SPACING: f32 = 1.0 / (SIDE as f32 - 1.0);
const SUBSTEPS: usize = 16;

pub struct Cloth {
    program: Program,
    prev: Stream,
    pos: Stream,
    next: Stream,
    screen: Stream,
    time: f32,
}

impl Cloth {
    pub fn new(rt: &Runtime) -> Result<Cloth, BrookError> {
        let program = rt.compile(CLOTH, "cloth.br")?;
        // A flat sheet hanging in the x–y plane, row 0 at the top.
        let flat: Vec<f32> = (0..SIDE * SIDE)
            .flat_map(|i| {
                let (col, row) = ((i % SIDE) as f32, (i / SIDE) as f32);
                [col * SPACING - 0.5, 0.5 - row * SPACING, 0.0]
            })
            .collect();
        let shape = [SIDE, SIDE];
        let (prev, pos) = (rt.stream_of(3, &shape)?, rt.stream_of(3, &shape)?);
        prev.read(&flat)?;
        pos.read(&flat)?;
        Ok(Cloth {
            program,
            prev,
            pos,
            next: rt.stream_of(3, &shape)?,
            screen: rt.stream_of(2, &shape)?,
            time: 0.0,
        })
    }
}

impl Simulation for Cloth {
    fn step(&mut self, rt: &Runtime) -> Result<(), BrookError> {
        let size = [SIDE as f32, SIDE as f32];
        for _ in 0..SUBSTEPS {
            self.time += 1.0;
            let gust = 0.5 + 0.5 * (self.time * 0.01).sin();
            let wind = [0.0, 0.0, 0.00002 * gust];
            rt.run(
                &self.program,
                "cloth",
                args![&self.pos, &self.prev, size, SPACING, wind, &self.next],
            )?;
            // prev ← pos ← next, the old prev becomes the next output.
            std::mem::swap(&mut self.prev, &mut self.pos);
            std::mem::swap(&mut self.pos, &mut self.next);
        }
        rt.run(&self.program, "project", args![&self.pos, &self.screen])
    }

    fn view(&self) -> (&Stream, View) {
        (
            &self.screen,
            View::points().with_bounds((-0.75, 0.85), (-1.0, 0.6)),
        )
    }
}

fn main() {
    brook_viz::main("Brook: cloth", Cloth::new);
}
