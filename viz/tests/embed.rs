//! Brook inside applications of their own (examples/embed_*.rs), headless: each draws a
//! stream with its own pipeline, and its picture must be viz's of the same stream.

mod common;

use brook_viz::{egui, render, ColorMap, View};
use common::max_difference;

#[allow(dead_code)] // the example's `main` and window
#[path = "../../examples/embed_egui.rs"]
mod embed_egui;
#[allow(dead_code)] // the example's `main` and window
#[path = "../../examples/embed_wgpu.rs"]
mod embed_wgpu;

#[test]
fn a_wgpu_app_draws_a_streams_buffer_in_its_own_pass_as_viz_shows_it() {
    use embed_wgpu::{device_for, offscreen, wgpu, Embedded, RANGE, SHAPE};
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let (adapter, device, queue) = device_for(&instance, None).expect("a wgpu device");
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut app = Embedded::new(&device, &queue, adapter.get_info(), format).unwrap();
    for _ in 0..12 {
        app.step().unwrap();
    }
    // Two pixels per element, so every element shows.
    let size = (2 * SHAPE[1] as u32, 2 * SHAPE[0] as u32);
    let drawn = offscreen(&app, &device, &queue, size).unwrap();
    // viz's picture of the same stream, drawn by viz's own wgpu views from the same buffer.
    let view = View::scalar(ColorMap::Grey).with_range(RANGE.0, RANGE.1);
    let want = render(&app.rt, &app.field, &view, size.0, size.1).unwrap();
    assert_eq!(drawn.dimensions(), want.dimensions());
    assert!(
        max_difference(&drawn, &want) <= 1,
        "the app's pass and viz differ by {}",
        max_difference(&drawn, &want)
    );
    let greys: std::collections::HashSet<u8> = drawn.pixels().map(|p| p.0[0]).collect();
    assert!(greys.len() > 100, "the ripples show: {} greys", greys.len());
    // The stream the app drew is the kernel's: its element 0 from Brook's streamWrite.
    let field = app.field.to_vec().unwrap();
    let g = (field[0].clamp(0.0, 1.0) * 255.0).round() as u8;
    assert!(drawn.get_pixel(0, 0).0[0].abs_diff(g) <= 1);
}

#[test]
fn an_egui_app_shows_a_streams_own_texture_as_viz_shows_it() {
    use embed_egui::{Headless, IMAGE_AT, SCALE, SHAPE};
    let mut headless = Headless::new((320, 260)).expect("a headless GL 3.3 context");
    for _ in 0..8 {
        headless.app.step().unwrap();
    }
    let (frame, rect) = headless.frame().unwrap();
    let (w, h) = (
        SHAPE[1] as u32 * SCALE as u32,
        SHAPE[0] as u32 * SCALE as u32,
    );
    assert_eq!(
        rect,
        egui::Rect::from_min_size(IMAGE_AT, egui::vec2(w as f32, h as f32)),
        "the image is where the app put it"
    );
    let shown =
        image::imageops::crop_imm(&frame, rect.min.x as u32, rect.min.y as u32, w, h).to_image();
    // viz's picture of the same stream, drawn from the same texture on the app's context.
    let app = &headless.app;
    let want = render(&app.rt, &app.colours, &View::rgb(), w, h).unwrap();
    assert!(
        max_difference(&shown, &want) <= 1,
        "egui's image and viz differ by {}",
        max_difference(&shown, &want)
    );
    let colours: std::collections::HashSet<[u8; 4]> = shown.pixels().map(|p| p.0).collect();
    assert!(
        colours.len() > 500,
        "the plasma shows: {} colours",
        colours.len()
    );
    // The image is the kernel's output: one element read back through Brook.
    let values = app.colours.to_vec().unwrap();
    let first = [0, 1, 2].map(|c| (values[c] * 255.0).round() as u8);
    let p = shown.get_pixel(0, 0).0;
    assert!(
        (0..3).all(|c| p[c].abs_diff(first[c]) <= 1),
        "{p:?} vs {first:?}"
    );
}
