//! wgpu streams drawn by wgpu from their buffers (`WgpuRenderer`, the WGSL twins of the GL
//! view shaders) give the GL views' pictures of the same values: every colour map, every view
//! kind, NaN and infinities, an address-translated shape, a zoomed and panned camera —
//! pixel for pixel, except where GL's and Vulkan's line rules differ about a plot segment's
//! end pixels.
//! This test pins the two shader languages of `viz/src/shaders.rs` to each other.

mod common;

use std::collections::HashSet;

use brook::{Runtime, Stream};
use brook_viz::{Camera, ColorMap, Renderer, RgbaImage, View, WgpuRenderer, PLOT_LINE};
use common::max_difference;

const SIZE: (u32, u32) = (160, 120);

/// The same values in a GL stream and a wgpu stream.
struct Pair {
    gl: Runtime,
    wgpu: Runtime,
    renderer: Renderer,
    wgpu_renderer: WgpuRenderer,
}

impl Pair {
    fn new() -> Pair {
        let gl = Runtime::gl().expect("a headless GL context");
        let wgpu = Runtime::wgpu().expect("a wgpu device");
        let renderer = Renderer::new(gl.gl_context().unwrap()).unwrap();
        let wgpu_renderer = WgpuRenderer::new(&wgpu).unwrap();
        Pair {
            gl,
            wgpu,
            renderer,
            wgpu_renderer,
        }
    }

    fn streams(&self, components: u8, shape: &[usize], data: &[f32]) -> (Stream, Stream) {
        let make = |rt: &Runtime| {
            let s = rt.stream_of(components, shape).unwrap();
            s.read(data).unwrap();
            s
        };
        (make(&self.gl), make(&self.wgpu))
    }

    /// Pixels that differ between the GL and the wgpu picture, the largest difference, and
    /// how many colours the wgpu picture has (so an empty picture cannot pass).
    fn compare(
        &self,
        streams: &(Stream, Stream),
        view: &View,
        camera: &Camera,
    ) -> (usize, u8, usize) {
        let gl = self
            .renderer
            .render(&streams.0, view, camera, SIZE)
            .unwrap();
        let wgpu = (self.wgpu_renderer.render(&streams.1, view, camera, SIZE)).unwrap();
        assert_eq!(gl.dimensions(), wgpu.dimensions());
        let differing = gl
            .pixels()
            .zip(wgpu.pixels())
            .filter(|(a, b)| a != b)
            .count();
        let colours: HashSet<[u8; 4]> = wgpu.pixels().map(|p| p.0).collect();
        (differing, max_difference(&gl, &wgpu), colours.len())
    }
}

/// A smooth field of `components` per element with NaN, ±inf and a few out-of-range values.
fn field(count: usize, components: usize) -> Vec<f32> {
    (0..count * components)
        .map(|i| match i % 97 {
            13 => f32::NAN,
            41 => f32::INFINITY,
            71 => f32::NEG_INFINITY,
            _ => ((i as f32) * 0.37).sin() * 1.5 + ((i / components) as f32 * 0.011).cos(),
        })
        .collect()
}

fn zoomed() -> Camera {
    let mut camera = Camera::default();
    camera.zoom_at(2.7, [40.0, 70.0], SIZE);
    camera.pan_by(-13.5, 7.25);
    camera
}

#[test]
fn every_image_view_and_colour_map_is_drawn_by_wgpu_as_gl_draws_it() {
    let pair = Pair::new();
    // A 2D grid, and a 3D stream (slices stacked) that GL lays out address-translated.
    let shapes: [&[usize]; 2] = [&[37, 53], &[3, 29, 41]];
    for shape in shapes {
        let count: usize = shape.iter().product();
        let scalars = pair.streams(1, shape, &field(count, 1));
        let vectors = pair.streams(2, shape, &field(count, 2));
        let colours = pair.streams(
            4,
            shape,
            &field(count, 4)
                .iter()
                .map(|v| v * 0.5 + 0.4)
                .collect::<Vec<_>>(),
        );
        let mut cases: Vec<(&str, &(Stream, Stream), View)> = Vec::new();
        for map in ColorMap::ALL {
            cases.push(("scalar auto", &scalars, View::scalar(map)));
            cases.push((
                "scalar fixed",
                &scalars,
                View::scalar(map).with_range(-0.5, 0.75),
            ));
            cases.push(("component 1", &vectors, View::scalar(map).of_component(1)));
        }
        cases.push(("vector auto", &vectors, View::vector()));
        cases.push((
            "vector fixed",
            &vectors,
            View::vector().with_range(0.0, 1.2),
        ));
        cases.push(("rgb", &colours, View::rgb()));
        cases.push(("rgba", &colours, View::rgba()));
        for camera in [Camera::default(), zoomed()] {
            for (what, streams, view) in &cases {
                let (differing, max, colours) = pair.compare(streams, view, &camera);
                assert!(
                    colours > 20,
                    "{what} {view:?}: only {colours} colours drawn"
                );
                assert_eq!(
                    differing, 0,
                    "{what} {view:?} of {shape:?} ({camera:?}): {differing} pixels differ, by up to {max}"
                );
            }
        }
    }
}

#[test]
fn points_are_drawn_by_wgpu_as_gl_draws_them() {
    let pair = Pair::new();
    // Some points off the fixed bounds, some whose squares only reach into the picture.
    let cloud: Vec<f32> = (0..2 * 24 * 18)
        .map(|i| ((i * 7919) % 1013) as f32 / 1013.0 * 2.2 - 1.1)
        .collect();
    let points = pair.streams(2, &[24, 18], &cloud);
    // Points on pixel edges and centres (bounds of one unit a pixel), where the rasterisers'
    // rules for pixels on a square's edge decide.
    let grid: Vec<f32> = (0..30 * 30)
        .flat_map(|i| [(i % 30) as f32 * 5.25, (i / 30) as f32 * 3.5])
        .collect();
    let grid = pair.streams(2, &[30, 30], &grid);
    let on_pixels = View::points().with_bounds((0.0, SIZE.0 as f32), (0.0, SIZE.1 as f32));
    for camera in [Camera::default(), zoomed()] {
        let views = [
            (&points, View::points()),
            (&points, View::points().with_range(-1.0, 1.0)),
            (&grid, on_pixels),
        ];
        for (points, view) in views {
            let (differing, max, colours) = pair.compare(points, &view, &camera);
            assert!(colours >= 2, "{view:?}: only {colours} colours drawn");
            assert_eq!(
                differing, 0,
                "{view:?} ({camera:?}): {differing} pixels differ, by up to {max}"
            );
        }
    }
}

/// Plots are lines, and GL's lines (llvmpipe: the diamond-exit rule, a segment's last pixel
/// left out) and Vulkan's (lavapipe) may disagree about a segment's end pixels. Everything
/// else is pinned: the panel, the axis and every other line pixel are equal, and each pixel
/// that differs is a line pixel in one picture with a line pixel of the other next to it.
#[test]
fn plots_are_drawn_by_wgpu_as_gl_draws_them_up_to_line_ends() {
    let pair = Pair::new();
    // A plot through zero, so its axis shows.
    let wave: Vec<f32> = (0..300)
        .map(|i| (i as f32 * 0.05).sin() * 2.0 + 0.3)
        .collect();
    let plot = pair.streams(1, &[300], &wave);
    let line = PLOT_LINE.map(|v| (v * 255.0).round() as u8);
    for camera in [Camera::default(), zoomed()] {
        for view in [View::plot(), View::plot().with_range(-1.0, 1.5)] {
            let gl = pair.renderer.render(&plot.0, &view, &camera, SIZE).unwrap();
            let wgpu = (pair.wgpu_renderer.render(&plot.1, &view, &camera, SIZE)).unwrap();
            let on = |image: &RgbaImage, x: i64, y: i64| {
                (0..SIZE.0 as i64).contains(&x)
                    && (0..SIZE.1 as i64).contains(&y)
                    && image.get_pixel(x as u32, y as u32).0 == line
            };
            let line_pixels = gl.pixels().filter(|p| p.0 == line).count();
            assert!(line_pixels > 100, "{view:?}: the line shows");
            let mut ends = 0;
            for (x, y, p) in gl.enumerate_pixels() {
                let q = wgpu.get_pixel(x, y);
                if p == q {
                    continue;
                }
                ends += 1;
                let (x, y) = (i64::from(x), i64::from(y));
                let (here, there) = if p.0 == line {
                    (&gl, &wgpu)
                } else {
                    (&wgpu, &gl)
                };
                assert!(
                    on(here, x, y),
                    "{view:?} ({camera:?}): ({x}, {y}) differs off the line: {p:?} / {q:?}"
                );
                let beside = (-1..=1).flat_map(|dx| (-1..=1).map(move |dy| (dx, dy)));
                assert!(
                    beside
                        .filter(|&d| d != (0, 0))
                        .any(|(dx, dy)| on(there, x + dx, y + dy)),
                    "{view:?} ({camera:?}): ({x}, {y}) is on one line only, far from the other"
                );
            }
            assert!(
                ends * 20 <= line_pixels,
                "{view:?} ({camera:?}): {ends} of {line_pixels} line pixels differ"
            );
        }
    }
}
