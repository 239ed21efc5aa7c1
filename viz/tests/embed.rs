//! Brook inside applications of their own (examples/embed_*.rs), headless: each draws a
//! stream with its own pipeline, and its picture must be viz's of the same stream.

mod common;

use brook_viz::{render, ColorMap, View};
use common::max_difference;

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
    // viz's picture of the same stream (read back and staged into a GL context of its own).
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
