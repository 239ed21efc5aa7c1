//! Conway's Game of Life on a 256×256 torus, one Brook kernel per generation: each cell
//! gathers its eight neighbours. Dead cells keep a fading trace of when they last lived.
//!
//! `cargo run --release --example life` (a window), or
//! `cargo run --release --example life -- --headless --frames 200 --png life.png`

use brook::{args, BrookError, Program, Runtime, Stream};
use brook_viz::{ColorMap, Simulation, View};

const LIFE: &str = "
kernel void life(float cells[][], float2 size, out float next<>) {
    float2 p = indexof(next).xy;
    float neighbours = 0.0;
    for (float dy = -1.0; dy <= 1.0; dy = dy + 1.0) {
        for (float dx = -1.0; dx <= 1.0; dx = dx + 1.0) {
            // A torus: indices wrap around the edges.
            float2 q = fmod(p + float2(dx, dy) + size, size);
            neighbours = neighbours + (cells[q] >= 1.0 ? 1.0 : 0.0);
        }
    }
    float self = cells[p];
    bool alive = self >= 1.0;
    neighbours = neighbours - (alive ? 1.0 : 0.0);
    if (neighbours == 3.0 || (alive && neighbours == 2.0)) {
        next = 1.0;
    } else {
        next = min(self, 0.6) * 0.92;   // a dead cell's trace fades
    }
}
";

const SIDE: usize = 256;

pub struct Life {
    program: Program,
    cells: Stream,
    next: Stream,
}

impl Life {
    pub fn new(rt: &Runtime) -> Result<Life, BrookError> {
        let program = rt.compile(LIFE, "life.br")?;
        let cells = rt.stream_of(1, &[SIDE, SIDE])?;
        // A reproducible random soup: about a third of the cells alive.
        let mut seed = 0x2545_f491_u32;
        let soup: Vec<f32> = (0..SIDE * SIDE)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                match seed % 3 {
                    0 => 1.0,
                    _ => 0.0,
                }
            })
            .collect();
        cells.read(&soup)?;
        let next = rt.stream_of(1, &[SIDE, SIDE])?;
        Ok(Life {
            program,
            cells,
            next,
        })
    }
}

impl Simulation for Life {
    fn step(&mut self, rt: &Runtime) -> Result<(), BrookError> {
        let size = [SIDE as f32, SIDE as f32];
        rt.run(&self.program, "life", args![&self.cells, size, &self.next])?;
        std::mem::swap(&mut self.cells, &mut self.next);
        Ok(())
    }

    fn view(&self) -> (&Stream, View) {
        (
            &self.cells,
            View::scalar(ColorMap::Magma).with_range(0.0, 1.0),
        )
    }
}

fn main() {
    brook_viz::main("Brook: Conway's Life", Life::new);
}
