//! The live window side by side under a real display (Xvfb in CI): `--backend gl,wgpu,cpu`
//! runs the same simulation on the window's GL context, on wgpu and on the CPU; the last frame
//! has a view per backend, each equal to that backend's headless picture (the wgpu and CPU
//! streams uploaded to the window's context each frame), and an empty difference view.
//! Skipped, with the reason printed, when no display is available.
//!
//! One test in this file: winit allows a single event loop per process.

mod common;

use common::{display_available, max_difference, Scroll};

use brook_viz::{run_headless_on, run_window, Backend, ColorMap, LiveOptions};

const STEPS: u64 = 4;
const SIZE: (u32, u32) = (128, 96);
const ALL: [Backend; 3] = [Backend::Gl, Backend::Wgpu, Backend::Cpu];

#[test]
fn the_side_by_side_window_shows_each_backend_as_it_shows_alone() {
    if !display_available() {
        return;
    }
    let finished = run_window(
        LiveOptions {
            size: SIZE,
            exit_after: Some(STEPS),
            backends: ALL.to_vec(),
            ..LiveOptions::new("brook-viz side-by-side window test")
        },
        Scroll::new,
    )
    .expect("a window with a GL 3.3 core or ES 3.0 context, wgpu and the CPU");
    assert_eq!(finished.steps, STEPS);
    let window = finished.last_frame.expect("the last frame is kept");
    let (w, h) = SIZE;
    assert_eq!(window.width(), 4 * w, "three views and the difference view");
    let strip = window.height() - h;
    assert!(strip > 8, "a label strip above the views: {strip} pixels");
    let cell = |i: u32| image::imageops::crop_imm(&window, i * w, strip, w, h).to_image();
    for (i, backend) in ALL.into_iter().enumerate() {
        // Each reference on headless contexts of its own, in its own thread (contexts are
        // per thread).
        let alone = std::thread::spawn(move || {
            run_headless_on(&[backend], Scroll::new, STEPS, SIZE)
                .unwrap()
                .image
        })
        .join()
        .unwrap();
        let shown = cell(i as u32);
        assert!(
            max_difference(&shown, &alone) <= 1,
            "the {backend} view differs from its headless picture by {}",
            max_difference(&shown, &alone)
        );
    }
    let [r, g, b] = ColorMap::Magma
        .sample(0.0)
        .map(|v| (v * 255.0).round() as u8);
    let difference = cell(3);
    let marked = difference
        .pixels()
        .filter(|p| p.0 != [r, g, b, 255])
        .count();
    assert_eq!(
        marked, 0,
        "the backends agree: the difference view is empty"
    );
}
