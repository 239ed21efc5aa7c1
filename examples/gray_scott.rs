//! Gray–Scott reaction–diffusion on a 256×256 torus: two chemicals `u` and `v` in one
//! `float2` stream; each step a kernel gathers the four neighbours for the Laplacian.
//! Twenty steps per frame; the view shows `v` (the panel also offers `u`), and the panel's
//! sliders steer the feed and kill rates while it runs.
//!
//! `cargo run --release --example gray_scott` (a window), or
//! `cargo run --release --example gray_scott -- --headless --frames 150 --png gs.png`

use brook::{args, BrookError, Program, Runtime, Stream};
use brook_viz::{ColorMap, Constant, Shown, Simulation, View};

const GRAY_SCOTT: &str = "
kernel void react(float2 s[][], float2 size, float feed, float kill, out float2 next<>) {
    float2 p = indexof(next).xy;
    float2 c = s[p];
    float2 lap = s[fmod(p + float2(1.0, 0.0), size)] + s[fmod(p + float2(size.x - 1.0, 0.0), size)]
               + s[fmod(p + float2(0.0, 1.0), size)] + s[fmod(p + float2(0.0, size.y - 1.0), size)]
               - 4.0 * c;
    float uvv = c.x * c.y * c.y;
    next = c + float2(0.16 * lap.x - uvv + feed * (1.0 - c.x),
                      0.08 * lap.y + uvv - (feed + kill) * c.y);
}
";

const SIDE: usize = 256;
const STEPS_PER_FRAME: usize = 20;
/// The "coral" regime of Pearson's classification.
const FEED: f32 = 0.0545;
const KILL: f32 = 0.062;

pub struct GrayScott {
    program: Program,
    state: Stream,
    next: Stream,
    /// Feed and kill rates, as sliders in the window's panel.
    rates: [Constant; 2],
}

impl GrayScott {
    pub fn new(rt: &Runtime) -> Result<GrayScott, BrookError> {
        let program = rt.compile(GRAY_SCOTT, "gray_scott.br")?;
        let state = rt.stream_of(2, &[SIDE, SIDE])?;
        // u = 1 everywhere, v seeded in a few squares.
        let seeds = [(128, 128), (60, 80), (190, 70), (90, 200), (200, 190)];
        let mut data = Vec::with_capacity(SIDE * SIDE * 2);
        for row in 0..SIDE {
            for col in 0..SIDE {
                let seeded = seeds
                    .iter()
                    .any(|&(r, c)| row.abs_diff(r) < 6 && col.abs_diff(c) < 6);
                data.extend_from_slice(if seeded { &[0.5, 0.25] } else { &[1.0, 0.0] });
            }
        }
        state.read(&data)?;
        let next = rt.stream_of(2, &[SIDE, SIDE])?;
        Ok(GrayScott {
            program,
            state,
            next,
            rates: [
                Constant::new("feed", 0.01..=0.1, FEED),
                Constant::new("kill", 0.04..=0.075, KILL),
            ],
        })
    }
}

impl Simulation for GrayScott {
    fn step(&mut self, rt: &Runtime) -> Result<(), BrookError> {
        let size = [SIDE as f32, SIDE as f32];
        let [feed, kill] = self.rates.each_ref().map(Constant::value);
        for _ in 0..STEPS_PER_FRAME {
            rt.run(
                &self.program,
                "react",
                args![&self.state, size, feed, kill, &self.next],
            )?;
            std::mem::swap(&mut self.state, &mut self.next);
        }
        Ok(())
    }

    fn view(&self) -> (&Stream, View) {
        (
            &self.state,
            View::scalar(ColorMap::Viridis)
                .of_component(1)
                .with_range(0.0, 0.35),
        )
    }

    fn streams(&self) -> Vec<Shown<'_>> {
        let (state, v) = self.view();
        vec![
            Shown {
                name: "v",
                stream: state,
                view: v,
            },
            Shown {
                name: "u",
                stream: state,
                view: View::scalar(ColorMap::Grey).with_range(0.0, 1.0),
            },
        ]
    }

    fn constants(&mut self) -> &mut [Constant] {
        &mut self.rates
    }
}

fn main() {
    brook_viz::main("Brook: Gray-Scott reaction-diffusion", GrayScott::new);
}
