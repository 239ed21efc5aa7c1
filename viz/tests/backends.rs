//! Every viz example on every backend, headless: its picture on wgpu and on the CPU against
//! its GL picture; and side by side (`--backend gl,wgpu,cpu`): a panel per backend, each the
//! picture that backend gives alone, and a difference view that is empty where the backends
//! agree and marks the elements where a simulation built to disagree does.

mod common;

use brook::{BrookError, Runtime, Stream};
use brook_viz::{run_headless_on, Backend, ColorMap, Simulation, View};
use common::max_difference;
use image::RgbaImage;

// The examples' own simulations (their `main`s go unused here).
#[allow(dead_code)]
#[path = "../../examples/cloth.rs"]
mod cloth;
#[allow(dead_code)]
#[path = "../../examples/gray_scott.rs"]
mod gray_scott;
#[allow(dead_code)]
#[path = "../../examples/life.rs"]
mod life;
#[allow(dead_code)]
#[path = "../../examples/mandelbrot.rs"]
mod mandelbrot;
#[allow(dead_code)]
#[path = "../../examples/segmentation.rs"]
mod segmentation;

const SIZE: (u32, u32) = (128, 128);
const ALL: [Backend; 3] = [Backend::Gl, Backend::Wgpu, Backend::Cpu];
/// Pixels allowed to differ for examples calling built-ins with an ulp bound: 0.5%.
const CONTRACT_PIXELS: usize = (SIZE.0 * SIZE.1 / 200) as usize;

fn picture<S: Simulation>(
    backends: &[Backend],
    make: impl Fn(&Runtime) -> Result<S, BrookError>,
    frames: u64,
) -> RgbaImage {
    run_headless_on(backends, make, frames, SIZE)
        .unwrap_or_else(|e| panic!("{backends:?}: {e}"))
        .image
}

fn colours(image: &RgbaImage) -> usize {
    let distinct: std::collections::HashSet<[u8; 4]> = image.pixels().map(|p| p.0).collect();
    distinct.len()
}

/// Pixels whose colour differs by more than one 8-bit step in some channel.
fn differing_pixels(a: &RgbaImage, b: &RgbaImage) -> usize {
    a.pixels()
        .zip(b.pixels())
        .filter(|(p, q)| p.0.iter().zip(q.0).any(|(x, y)| x.abs_diff(y) > 1))
        .count()
}

/// Each backend's picture of an example against GL's: at most `allowed` pixels differ by
/// more than one 8-bit step.
///
/// The examples whose kernels use only `+ - * /`, comparisons, `sqrt` and the built-ins
/// defined by Cg's formulas (`fmod`, `length`) must give the same bits on every backend
/// (docs/limits.md, "Numbers"), so their pictures must be equal: `allowed` is 0. Mandelbrot
/// (`log2`, 1 ulp) and segmentation (`exp`, 1.5 ulp; `pow`) call built-ins the contract lets
/// backends round differently, which an escape-time orbit or a threshold can turn into a
/// different colour: they may differ in 0.5% of the pixels (82 of 128²). Measured on
/// llvmpipe and lavapipe: 0 pixels for every example.
fn on_every_backend<S: Simulation>(
    name: &str,
    make: impl Fn(&Runtime) -> Result<S, BrookError> + Copy,
    frames: u64,
    allowed: usize,
) {
    let gl = picture(&[Backend::Gl], make, frames);
    // Points on their plot area make two colours; images have many more.
    assert!(colours(&gl) >= 2, "{name}: the GL picture is blank");
    for backend in [Backend::Wgpu, Backend::Cpu] {
        let other = picture(&[backend], make, frames);
        let differing = differing_pixels(&gl, &other);
        println!(
            "{name} on {backend}: {differing} of {} pixels differ from GL's (max {})",
            SIZE.0 * SIZE.1,
            max_difference(&gl, &other)
        );
        assert!(
            differing <= allowed,
            "{name} on {backend}: {differing} pixels differ from GL's, {allowed} allowed"
        );
    }
}

#[test]
fn life_is_the_same_on_every_backend() {
    on_every_backend("life", life::Life::new, 30, 0);
}

#[test]
fn gray_scott_is_the_same_on_every_backend() {
    on_every_backend("gray_scott", gray_scott::GrayScott::new, 5, 0);
}

#[test]
fn mandelbrot_is_the_same_on_every_backend() {
    on_every_backend(
        "mandelbrot",
        mandelbrot::Mandelbrot::new,
        10,
        CONTRACT_PIXELS,
    );
}

#[test]
fn segmentation_is_the_same_on_every_backend() {
    on_every_backend(
        "segmentation",
        segmentation::Segmentation::new,
        30,
        CONTRACT_PIXELS,
    );
}

#[test]
fn cloth_is_the_same_on_every_backend() {
    on_every_backend("cloth", cloth::Cloth::new, 10, 0);
}

/// The `w × h` block of `image` at (`x`, `y`) (top-left, image rows).
fn crop(image: &RgbaImage, x: u32, y: u32, w: u32, h: u32) -> RgbaImage {
    image::imageops::crop_imm(image, x, y, w, h).to_image()
}

/// Pixels of `image` that are not `colour`.
fn not_of(image: &RgbaImage, colour: [u8; 4]) -> usize {
    image.pixels().filter(|p| p.0 != colour).count()
}

/// The colour the difference view gives agreeing elements: the magma map's low end.
fn agreeing() -> [u8; 4] {
    let [r, g, b] = ColorMap::Magma
        .sample(0.0)
        .map(|v| (v * 255.0).round() as u8);
    [r, g, b, 255]
}

#[test]
fn side_by_side_shows_each_backend_and_an_empty_difference_where_they_agree() {
    let frames = 20;
    let all = picture(&ALL, life::Life::new, frames);
    let (w, h) = SIZE;
    assert_eq!(all.width(), 4 * w, "three backends and the difference view");
    let strip = all.height() - h;
    assert!(strip > 8, "a label strip above the views: {strip} pixels");
    for (i, backend) in ALL.into_iter().enumerate() {
        let alone = picture(&[backend], life::Life::new, frames);
        let panel = crop(&all, i as u32 * w, strip, w, h);
        assert_eq!(
            max_difference(&panel, &alone),
            0,
            "the {backend} panel is what {backend} shows alone"
        );
        let label = crop(&all, i as u32 * w, 0, w, strip);
        assert!(colours(&label) >= 2, "the {backend} panel has its label");
    }
    let difference = crop(&all, 3 * w, strip, w, h);
    let inked = not_of(&difference, agreeing());
    // Life's image fills the square view: no background shows around it.
    assert_eq!(
        inked, 0,
        "Life agrees on every backend: the difference view is empty"
    );
}

/// A ramp whose element 37 and a 4×4 block the CPU backend starts differently (a simulation
/// built to disagree), stepped by a kernel that keeps every value.
struct Disagree {
    program: brook::Program,
    field: Stream,
    next: Stream,
}

const DISAGREE_SIDE: usize = 32;

impl Disagree {
    fn new(rt: &Runtime) -> Result<Disagree, BrookError> {
        let n = DISAGREE_SIDE * DISAGREE_SIDE;
        let mut data: Vec<f32> = (0..n).map(|i| i as f32 / n as f32).collect();
        if rt.backend_name() == "cpu" {
            data[37] += 0.5;
            for row in 20..24 {
                for column in 8..12 {
                    data[row * DISAGREE_SIDE + column] *= 1.001; // beyond 64 ulp
                }
            }
        }
        let field = rt.stream_of(1, &[DISAGREE_SIDE, DISAGREE_SIDE])?;
        field.read(&data)?;
        Ok(Disagree {
            program: rt.compile(
                "kernel void keep(float a<>, out float b<>) { b = a * 1.0; }",
                "keep.br",
            )?,
            next: rt.stream_of(1, &[DISAGREE_SIDE, DISAGREE_SIDE])?,
            field,
        })
    }
}

impl Simulation for Disagree {
    fn step(&mut self, rt: &Runtime) -> Result<(), BrookError> {
        rt.run(&self.program, "keep", brook::args![&self.field, &self.next])?;
        std::mem::swap(&mut self.field, &mut self.next);
        Ok(())
    }

    fn view(&self) -> (&Stream, View) {
        (
            &self.field,
            View::scalar(ColorMap::Grey).with_range(0.0, 1.5),
        )
    }
}

#[test]
fn the_difference_view_marks_the_elements_that_disagree() {
    let (w, h) = SIZE;
    let all = picture(&ALL, Disagree::new, 3);
    let strip = all.height() - h;
    let difference = crop(&all, 3 * w, strip, w, h);
    // Each of the 32×32 elements is a 4×4 block of pixels: 17 elements differ.
    let cell = w / DISAGREE_SIDE as u32;
    assert_eq!(not_of(&difference, agreeing()), 17 * (cell * cell) as usize);
    let marked = |element: usize| {
        let (row, column) = (element / DISAGREE_SIDE, element % DISAGREE_SIDE);
        difference
            .get_pixel(column as u32 * cell + 1, row as u32 * cell + 1)
            .0
            != agreeing()
    };
    assert!(marked(37) && marked(20 * DISAGREE_SIDE + 8) && marked(23 * DISAGREE_SIDE + 11));
    assert!(!marked(36) && !marked(38) && !marked(19 * DISAGREE_SIDE + 8));
    // Without the CPU the backends agree.
    let agree = picture(&[Backend::Gl, Backend::Wgpu], Disagree::new, 3);
    let difference = crop(&agree, 2 * w, strip, w, h);
    assert_eq!(not_of(&difference, agreeing()), 0);
}

#[test]
fn a_backend_named_twice_or_none_is_an_error() {
    let err = run_headless_on(
        &[Backend::Cpu, Backend::Gl, Backend::Cpu],
        life::Life::new,
        1,
        SIZE,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("--backend names cpu twice"), "{err}");
    let err = run_headless_on(&[], life::Life::new, 1, SIZE)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no backend"), "{err}");
}
