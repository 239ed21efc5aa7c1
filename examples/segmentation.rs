//! Seeded region growing, the paper's Segment application (Buck et al. 2004 §5.1, after
//! Sherbondy et al. 2003): each step, one Perona–Malik nonlinear diffusion pass smooths the
//! image while keeping its edges, and one growth pass lets each of two seeded regions take
//! a pixel whose 4-neighbour belongs to it when the two are similar in the smoothed image.
//! A third kernel paints the image with the regions for display. The image is synthetic:
//! two noisy blobs and a ring on a noisy background, one seed inside the large blob and one
//! inside the ring.
//!
//! `cargo run --release --example segmentation` (a window), or
//! `cargo run --release --example segmentation -- --headless --frames 150 --png segment.png`

use brook::{args, BrookError, Program, Runtime, Stream};
use brook_viz::{Simulation, View};

const SEGMENT: &str = "
// Perona-Malik: diffuse along small differences, stop at edges (g(d) = exp(-(d/k)^2)).
kernel void diffuse(float img[][], float k, out float next<>) {
    float2 p = indexof(next).xy;
    float c = img[p];
    float e = img[p + float2(1.0, 0.0)] - c;
    float w = img[p - float2(1.0, 0.0)] - c;
    float n = img[p + float2(0.0, 1.0)] - c;
    float s = img[p - float2(0.0, 1.0)] - c;
    float kk = k * k;
    next = c + 0.2 * (exp(-e * e / kk) * e + exp(-w * w / kk) * w
                    + exp(-n * n / kk) * n + exp(-s * s / kk) * s);
}

// Region growing: .x and .y are membership of the two regions (0 or 1).
kernel void grow(float2 seg[][], float img[][], float threshold, out float2 next<>) {
    float2 p = indexof(next).xy;
    float c = img[p];
    float2 grown = seg[p];
    float2 q = p + float2(1.0, 0.0);
    if (abs(img[q] - c) < threshold) { grown = max(grown, seg[q]); }
    q = p - float2(1.0, 0.0);
    if (abs(img[q] - c) < threshold) { grown = max(grown, seg[q]); }
    q = p + float2(0.0, 1.0);
    if (abs(img[q] - c) < threshold) { grown = max(grown, seg[q]); }
    q = p - float2(0.0, 1.0);
    if (abs(img[q] - c) < threshold) { grown = max(grown, seg[q]); }
    next = grown;
}

// The image in grey, tinted orange where region 1 grew and blue where region 2 did.
kernel void paint(float img<>, float2 seg<>, out float4 rgb<>) {
    float3 grey = float3(img, img, img);
    float3 tint = seg.x * float3(1.0, 0.5, 0.1) + seg.y * float3(0.2, 0.6, 1.0);
    float amount = 0.6 * max(seg.x, seg.y);
    rgb = float4(grey * (1.0 - amount) + tint * amount, 1.0);
}
";

const SIDE: usize = 256;
const EDGE_K: f32 = 0.08;
const THRESHOLD: f32 = 0.06;

pub struct Segmentation {
    program: Program,
    image: Stream,
    smoothed: Stream,
    regions: Stream,
    grown: Stream,
    painted: Stream,
}

/// Two blobs and a ring on a background, with noise; intensities in [0, 1].
fn synthetic_image() -> Vec<f32> {
    let mut seed = 0x9e37_79b9_u32;
    let mut noise = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed % 1000) as f32 / 1000.0 - 0.5
    };
    (0..SIDE * SIDE)
        .map(|i| {
            let (x, y) = ((i % SIDE) as f32, (i / SIDE) as f32);
            let d = |cx: f32, cy: f32| ((x - cx).powi(2) + (y - cy).powi(2)).sqrt();
            let base = if d(90.0, 100.0) < 55.0 {
                0.75
            } else if (35.0..50.0).contains(&d(180.0, 170.0)) {
                0.5
            } else if d(190.0, 60.0) < 30.0 {
                0.6
            } else {
                0.25
            };
            base + 0.08 * noise()
        })
        .collect()
}

impl Segmentation {
    pub fn new(rt: &Runtime) -> Result<Segmentation, BrookError> {
        let program = rt.compile(SEGMENT, "segment.br")?;
        let image = rt.stream_of(1, &[SIDE, SIDE])?;
        image.read(&synthetic_image())?;
        let regions = rt.stream_of(2, &[SIDE, SIDE])?;
        let mut seeds = vec![0.0; SIDE * SIDE * 2];
        seeds[(100 * SIDE + 90) * 2] = 1.0; // inside the large blob
        seeds[(170 * SIDE + 222) * 2 + 1] = 1.0; // inside the ring
        regions.read(&seeds)?;
        Ok(Segmentation {
            program,
            image,
            smoothed: rt.stream_of(1, &[SIDE, SIDE])?,
            regions,
            grown: rt.stream_of(2, &[SIDE, SIDE])?,
            painted: rt.stream_of(4, &[SIDE, SIDE])?,
        })
    }
}

impl Simulation for Segmentation {
    fn step(&mut self, rt: &Runtime) -> Result<(), BrookError> {
        let p = &self.program;
        rt.run(p, "diffuse", args![&self.image, EDGE_K, &self.smoothed])?;
        std::mem::swap(&mut self.image, &mut self.smoothed);
        rt.run(
            p,
            "grow",
            args![&self.regions, &self.image, THRESHOLD, &self.grown],
        )?;
        std::mem::swap(&mut self.regions, &mut self.grown);
        rt.run(p, "paint", args![&self.image, &self.regions, &self.painted])
    }

    fn view(&self) -> (&Stream, View) {
        (&self.painted, View::rgb())
    }
}

fn main() {
    brook_viz::main("Brook: seeded region growing", Segmentation::new);
}
