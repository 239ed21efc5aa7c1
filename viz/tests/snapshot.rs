//! Headless views of known streams, pixel by pixel: every expected colour is computed on the
//! host from the documented view rules (colour-map stops, clamping, the grid layout), with at
//! most one 8-bit step of difference allowed for float rounding.

use brook::{ContextOptions, Runtime};
use brook_viz::{render, snapshot, Camera, ColorMap, Renderer, View};
use image::RgbaImage;

fn gl() -> Runtime {
    Runtime::gl().expect("a headless GL context (Mesa llvmpipe through EGL)")
}

fn rgb(image: &RgbaImage, x: u32, y: u32) -> [u8; 3] {
    let p = image.get_pixel(x, y).0;
    [p[0], p[1], p[2]]
}

fn to_bytes(c: [f32; 3]) -> [u8; 3] {
    c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
}

fn assert_close(got: [u8; 3], expected: [u8; 3], what: &str) {
    let off = got
        .iter()
        .zip(&expected)
        .map(|(g, e)| (i16::from(*g) - i16::from(*e)).abs())
        .max()
        .unwrap();
    assert!(off <= 1, "{what}: got {got:?}, expected {expected:?}");
}

/// A `<rows, 64>` stream whose every row is `offset + scale · column`.
fn ramp(rt: &Runtime, rows: usize, offset: f32, scale: f32) -> brook::Stream {
    let s = rt.stream_of(1, &[rows, 64]).unwrap();
    let data: Vec<f32> = (0..rows * 64)
        .map(|i| offset + scale * (i % 64) as f32)
        .collect();
    s.read(&data).unwrap();
    s
}

#[test]
fn colour_maps_of_a_ramp_match_the_stops() {
    let rt = gl();
    let renderer = brook_viz::renderer_for(&rt).unwrap();
    let fixed = ramp(&rt, 4, 0.0, 1.0 / 63.0);
    // The same ramp shifted and scaled: the auto range must map it identically.
    let auto = ramp(&rt, 4, 10.0, 2.0);
    for map in ColorMap::ALL {
        let views = [
            (&fixed, View::scalar(map).with_range(0.0, 1.0)),
            (&auto, View::scalar(map)),
        ];
        for (stream, view) in views {
            if map.is_diverging() && view == View::scalar(map) {
                continue; // a diverging auto range is symmetric about 0; tested below
            }
            let image = renderer
                .render(stream, &view, &Camera::default(), (64, 4))
                .unwrap();
            for column in [0u32, 1, 16, 31, 32, 47, 62, 63] {
                let expected = to_bytes(map.sample(column as f32 / 63.0));
                for row in 0..4 {
                    assert_close(
                        rgb(&image, column, row),
                        expected,
                        &format!("{map:?} {view:?} column {column}"),
                    );
                }
            }
        }
    }
}

#[test]
fn a_diverging_auto_range_is_centred_on_zero() {
    let rt = gl();
    // -1 .. 3 in steps of 4/63: the auto range is -3..3, so 0 is the neutral middle.
    let s = ramp(&rt, 1, -1.0, 4.0 / 63.0);
    let image = render(&rt, &s, &View::scalar(ColorMap::Diverging), 64, 1).unwrap();
    let value = |c: u32| -1.0 + 4.0 / 63.0 * c as f32;
    for column in [0u32, 20, 40, 63] {
        let expected = to_bytes(ColorMap::Diverging.sample((value(column) + 3.0) / 6.0));
        assert_close(
            rgb(&image, column, 0),
            expected,
            &format!("column {column}"),
        );
    }
    assert_close(
        rgb(&image, 0, 0),
        to_bytes(ColorMap::Diverging.sample(1.0 / 3.0)),
        "-1 is a third of the way from -3 to 3",
    );
}

#[test]
fn rgb_and_rgba_streams_show_their_colours_row_0_on_top() {
    let rt = gl();
    // float3 <2, 3>: row 0 red, green, blue; row 1 clamped values and a grey.
    let colours = [
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [2.0, -1.0, 0.5],
        [0.25, 0.75, 1.5],
        [0.5, 0.5, 0.5],
    ];
    let s = rt.stream_of(3, &[2, 3]).unwrap();
    s.read(&colours.concat()).unwrap();
    let image = render(&rt, &s, &View::rgb(), 3, 2).unwrap();
    let s4 = rt.stream_of(4, &[2, 3]).unwrap();
    let opaque: Vec<f32> = colours
        .iter()
        .flat_map(|c| [c[0], c[1], c[2], 1.0])
        .collect();
    s4.read(&opaque).unwrap();
    let image4 = render(&rt, &s4, &View::rgba(), 3, 2).unwrap();
    for (i, c) in colours.iter().enumerate() {
        let (x, y) = ((i % 3) as u32, (i / 3) as u32);
        assert_close(rgb(&image, x, y), to_bytes(*c), &format!("element {i}"));
        assert_close(
            rgb(&image4, x, y),
            to_bytes(*c),
            &format!("rgba element {i}"),
        );
    }
}

#[test]
fn each_element_covers_its_share_of_a_larger_image() {
    let rt = gl();
    let s = rt.stream_of(1, &[2, 2]).unwrap();
    s.read(&[0.0, 1.0, 2.0, 3.0]).unwrap();
    let view = View::scalar(ColorMap::Grey).with_range(0.0, 3.0);
    // 8×4 pixels for a square stream: fitted to 4×4 in the middle, background at the sides.
    let image = render(&rt, &s, &view, 8, 4).unwrap();
    let grey = |v: f32| to_bytes([v / 3.0; 3]);
    assert_close(rgb(&image, 2, 0), grey(0.0), "top-left element");
    assert_close(rgb(&image, 5, 1), grey(1.0), "top-right element");
    assert_close(rgb(&image, 3, 2), grey(2.0), "bottom-left element");
    assert_close(rgb(&image, 4, 3), grey(3.0), "bottom-right element");
    assert_close(
        rgb(&image, 0, 0),
        to_bytes(brook_viz::BACKGROUND),
        "letterbox",
    );
    assert_close(
        rgb(&image, 7, 3),
        to_bytes(brook_viz::BACKGROUND),
        "letterbox",
    );
}

#[test]
fn address_translated_streams_display_like_direct_ones() {
    let direct_rt = gl();
    let translated_rt = Runtime::gl_with(ContextOptions {
        max_texture_size: Some(16),
        ..ContextOptions::default()
    })
    .unwrap();
    let data: Vec<f32> = (0..4 * 20).map(|i| ((i * 7) % 13) as f32).collect();
    let view = View::scalar(ColorMap::Viridis).with_range(0.0, 12.0);
    let shot = |rt: &Runtime, shape: &[usize], translated: bool, size: (u32, u32)| {
        let s = rt.stream_of(1, shape).unwrap();
        s.read(&data).unwrap();
        assert_eq!(
            s.gl_textures().unwrap().unwrap().layout().is_translated(),
            translated
        );
        render(rt, &s, &view, size.0, size.1).unwrap()
    };
    // 20 columns do not fit a texture 16 wide: the 80 elements wrap into 16 × 5 texels.
    // (Rendered at half size: the limit also bounds the target.)
    assert_eq!(
        shot(&translated_rt, &[4, 20], true, (10, 2)),
        shot(&direct_rt, &[4, 20], false, (10, 2))
    );
    // A 3D stream shows its slices stacked: <4, 1, 20> is the same 4 rows of 20.
    let direct = shot(&direct_rt, &[4, 20], false, (20, 4));
    assert_eq!(shot(&direct_rt, &[4, 1, 20], true, (20, 4)), direct);
    // And the picture is the data: element (r, c) at pixel (c, r).
    for (i, v) in data.iter().enumerate() {
        let expected = to_bytes(ColorMap::Viridis.sample(v / 12.0));
        assert_close(
            rgb(&direct, (i % 20) as u32, (i / 20) as u32),
            expected,
            "element",
        );
    }
}

#[test]
fn a_1d_plot_draws_its_values_at_their_heights() {
    let rt = gl();
    // 64 values: 0.25 for the first half, 0.75 for the second, over a fixed 0..1 axis.
    let s = rt.stream_of(1, &[64]).unwrap();
    let data: Vec<f32> = (0..64).map(|i| if i < 32 { 0.25 } else { 0.75 }).collect();
    s.read(&data).unwrap();
    let image = render(&rt, &s, &View::plot().with_range(0.0, 1.0), 64, 64).unwrap();
    let line = to_bytes([
        brook_viz::PLOT_LINE[0],
        brook_viz::PLOT_LINE[1],
        brook_viz::PLOT_LINE[2],
    ]);
    let lit_rows =
        |x: u32| -> Vec<u32> { (0..64).filter(|&y| rgb(&image, x, y) == line).collect() };
    for (x, value) in [(5u32, 0.25f32), (20, 0.25), (45, 0.75), (60, 0.75)] {
        // Height value·64 from the bottom is image row 64 − value·64 from the top.
        let expected = 64.0 - value * 64.0;
        let rows = lit_rows(x);
        assert!(!rows.is_empty(), "column {x} has no line pixel");
        assert!(
            rows.iter().all(|&y| (y as f32 - expected).abs() <= 1.0),
            "column {x}: line at rows {rows:?}, expected about {expected}"
        );
    }
    // The step between the halves is drawn as a vertical segment at x ≈ 32.
    assert!(lit_rows(32).len() + lit_rows(31).len() > 20);
    assert_close(rgb(&image, 10, 5), to_bytes(brook_viz::PANEL), "plot panel");
}

#[test]
fn vector_fields_show_direction_as_hue_and_magnitude_as_brightness() {
    let rt = gl();
    let s = rt.stream_of(2, &[1, 4]).unwrap();
    s.read(&[1.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 1.0]).unwrap();
    let image = render(&rt, &s, &View::vector().with_range(0.0, 2.0), 4, 1).unwrap();
    assert_close(
        rgb(&image, 0, 0),
        [128, 0, 0],
        "+x at half the range: dark red",
    );
    assert_close(rgb(&image, 1, 0), [0, 255, 255], "-x at full range: cyan");
    assert_close(rgb(&image, 2, 0), [0, 0, 0], "zero: black");
    // +y is a quarter turn: hue 1/4 = yellow-green (0.5, 1, 0) at half brightness.
    assert_close(rgb(&image, 3, 0), [64, 128, 0], "+y");
}

#[test]
fn non_finite_values_show_in_magenta_and_points_land_where_they_are() {
    let rt = gl();
    let s = rt.stream_of(1, &[1, 3]).unwrap();
    s.read(&[0.0, f32::NAN, f32::INFINITY]).unwrap();
    let image = render(&rt, &s, &View::scalar(ColorMap::Grey), 3, 1).unwrap();
    assert_close(rgb(&image, 1, 0), [255, 0, 255], "NaN");
    assert_close(rgb(&image, 2, 0), [255, 0, 255], "inf");
    let p = rt.stream_of(2, &[2]).unwrap();
    p.read(&[0.25, 0.75, 0.75, 0.25]).unwrap();
    let view = View::points().with_bounds((0.0, 1.0), (0.0, 1.0));
    let image = render(&rt, &p, &view, 32, 32).unwrap();
    let point = to_bytes([
        brook_viz::POINT[0],
        brook_viz::POINT[1],
        brook_viz::POINT[2],
    ]);
    // (0.25, 0.75) is 8 px from the left and 8 px from the top.
    assert_eq!(rgb(&image, 8, 8), point);
    assert_eq!(rgb(&image, 24, 24), point);
    assert_close(rgb(&image, 16, 16), to_bytes(brook_viz::PANEL), "no point");
}

#[test]
fn snapshots_are_pngs_of_the_render() {
    let rt = gl();
    let s = ramp(&rt, 8, 0.0, 1.0);
    let view = View::scalar(ColorMap::Magma);
    let dir = std::env::temp_dir().join(format!("brook-viz-test-{}", std::process::id()));
    let path = dir.join("ramp.png");
    snapshot(&rt, &s, &view, 64, 8, &path).unwrap();
    let saved = image::open(&path).unwrap().to_rgba8();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(saved, render(&rt, &s, &view, 64, 8).unwrap());
}

#[test]
fn views_that_do_not_fit_are_errors() {
    let rt = gl();
    let s = rt.stream_of(1, &[4]).unwrap();
    s.read(&[0.0; 4]).unwrap();
    let err = |view: View| render(&rt, &s, &view, 4, 4).unwrap_err().to_string();
    assert!(err(View::rgb()).contains("needs at least 3 components"));
    assert!(err(View::scalar(ColorMap::Grey).of_component(1)).contains("component 1"));
    assert!(err(View::scalar(ColorMap::Grey).of_member(1)).contains("member"));
    assert!(err(View::plot().with_range(1.0, 1.0)).contains("lo < hi"));
}

#[test]
fn streams_of_the_cpu_wgpu_and_another_context_show_as_a_gl_stream_does() {
    let rt = gl();
    let view = View::scalar(ColorMap::Viridis).with_range(0.0, 63.0);
    let want = render(&rt, &ramp(&rt, 3, 0.0, 1.0), &view, 64, 32).unwrap();
    let others = [Runtime::cpu(), Runtime::wgpu().unwrap(), gl()];
    for other in &others {
        let s = ramp(other, 3, 0.0, 1.0);
        // On the GL runtime's renderer (staged: another backend or context) and on its own.
        let renderer: Renderer = brook_viz::renderer_for(&rt).unwrap();
        let staged = renderer
            .render(&s, &view, &Camera::default(), (64, 32))
            .unwrap();
        let own = render(other, &s, &view, 64, 32).unwrap();
        for image in [&staged, &own] {
            assert_eq!(image.dimensions(), want.dimensions());
            for (x, y, p) in want.enumerate_pixels() {
                assert_eq!(
                    image.get_pixel(x, y),
                    p,
                    "{} at ({x}, {y})",
                    other.describe()
                );
            }
        }
    }
}

/// A kernel's output drawn right after the call, while GL defers the call (automatic
/// fusion, docs/pipeline.md, "Reductions"): the call runs before the view binds its framebuffer,
/// so the picture is the kernel's result, the same as the picture of the same values read in.
#[test]
fn a_kernel_output_drawn_right_after_the_call_shows_its_result() {
    let rt = gl();
    let view = View::scalar(ColorMap::Viridis).with_range(0.0, 63.0);
    let want = render(&rt, &ramp(&rt, 3, 0.0, 1.0), &view, 64, 32).unwrap();
    let p = rt
        .compile(
            "kernel void double(float x<>, out float y<>) { y = 2.0 * x; }",
            "double.br",
        )
        .unwrap();
    let (x, y) = (ramp(&rt, 3, 0.0, 0.5), rt.stream_of(1, &[3, 64]).unwrap());
    rt.run(&p, "double", brook::args![&x, &y]).unwrap();
    assert_eq!(render(&rt, &y, &view, 64, 32).unwrap(), want);
}
