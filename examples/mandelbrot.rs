//! A Mandelbrot zoom: each frame one Brook kernel iterates z ← z² + c for every pixel of a
//! 512×512 stream (smooth escape counts), a little deeper into the Seahorse Valley each time.
//! Single precision runs out near a width of 1e-5; the zoom then starts over.
//!
//! `cargo run --release --example mandelbrot` (a window), or
//! `cargo run --release --example mandelbrot -- --headless --frames 60 --png mandelbrot.png`

use brook::{args, BrookError, Program, Runtime, Stream};
use brook_viz::{ColorMap, Simulation, View};

const MANDELBROT: &str = "
kernel void mandelbrot(float2 centre, float width, float2 size, float limit, out float count<>) {
    float2 p = indexof(count).xy;
    // Row 0 is the top of the picture, so y grows upwards as p.y falls.
    float2 c = centre + float2(p.x - 0.5 * size.x, 0.5 * size.y - p.y) * (width / size.x);
    float2 z = float2(0.0, 0.0);
    float n = 0.0;
    while (n < limit && dot(z, z) < 256.0) {
        z = float2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
        n = n + 1.0;
    }
    // Smooth colouring: subtract how far past the escape radius the last step went.
    count = n < limit ? n + 1.0 - log2(log2(dot(z, z)) * 0.5) : 0.0;
}
";

const SIDE: usize = 512;
const CENTRE: [f32; 2] = [-0.743_643_9, 0.131_825_9];
const START_WIDTH: f32 = 3.0;
const ZOOM_PER_FRAME: f32 = 0.96;
const LIMIT: f32 = 256.0;

pub struct Mandelbrot {
    program: Program,
    counts: Stream,
    width: f32,
}

impl Mandelbrot {
    pub fn new(rt: &Runtime) -> Result<Mandelbrot, BrookError> {
        Ok(Mandelbrot {
            program: rt.compile(MANDELBROT, "mandelbrot.br")?,
            counts: rt.stream_of(1, &[SIDE, SIDE])?,
            width: START_WIDTH / ZOOM_PER_FRAME,
        })
    }
}

impl Simulation for Mandelbrot {
    fn step(&mut self, rt: &Runtime) -> Result<(), BrookError> {
        self.width *= ZOOM_PER_FRAME;
        if self.width < 2e-5 {
            self.width = START_WIDTH;
        }
        let size = [SIDE as f32, SIDE as f32];
        rt.run(
            &self.program,
            "mandelbrot",
            args![CENTRE, self.width, size, LIMIT, &self.counts],
        )
    }

    fn view(&self) -> (&Stream, View) {
        (
            &self.counts,
            View::scalar(ColorMap::Magma).with_range(0.0, 64.0),
        )
    }
}

fn main() {
    brook_viz::main("Brook: Mandelbrot zoom", Mandelbrot::new);
}
