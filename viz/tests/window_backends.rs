//! The live window of each backend under a real display (Xvfb in CI): `--backend wgpu` (its
//! streams drawn by wgpu from their buffers, the picture then drawn in the window) and
//! `--backend cpu` (its streams uploaded each frame) show their headless pictures (GL's own
//! window is `window.rs`), and `--backend gl,wgpu,cpu` runs the same simulation on the
//! window's GL context, on wgpu and on the CPU: the last frame has a view per backend, each
//! equal to that backend's headless picture, and an empty difference view. Skipped, with the
//! reason printed, when no display is available. Each window runs in a process of its own
//! (`common::in_own_process`: winit allows one event loop per process).

mod common;

use common::{
    assert_shows_the_last_step, display_available, in_own_process, max_difference, Scroll,
};

use brook_viz::{run_headless_on, run_window, Backend, ColorMap, LiveOptions, RgbaImage};

const STEPS: u64 = 4;
const SIZE: (u32, u32) = (128, 96);
const ALL: [Backend; 3] = [Backend::Gl, Backend::Wgpu, Backend::Cpu];

/// `backend`'s headless picture after `steps` steps, on contexts and devices of its own, in
/// a thread of its own (GL contexts are per thread).
fn alone(backend: Backend, steps: u64) -> RgbaImage {
    std::thread::spawn(move || {
        run_headless_on(&[backend], Scroll::new, steps, SIZE)
            .unwrap()
            .image
    })
    .join()
    .unwrap()
}

/// `backend`'s window shows its headless picture (and not the one of a step before).
fn one_backend_window(backend: Backend, test: &str) {
    if !display_available() || !in_own_process(test) {
        return;
    }
    let finished = run_window(
        LiveOptions {
            size: SIZE,
            exit_after: Some(STEPS),
            backends: vec![backend],
            ..LiveOptions::new("brook-viz one-backend window test")
        },
        Scroll::new,
    )
    .expect("a window with a GL 3.3 core or ES 3.0 context, and the backend");
    assert_eq!(finished.steps, STEPS);
    let window = finished.last_frame.expect("the last frame is kept");
    assert_eq!(window.dimensions(), SIZE);
    let colours: std::collections::HashSet<[u8; 4]> = window.pixels().map(|p| p.0).collect();
    assert!(
        colours.len() > 40,
        "the window looks blank: {} colours",
        colours.len()
    );
    let (want, before) = (alone(backend, STEPS), alone(backend, STEPS - 1));
    let what = format!("the {backend} window");
    assert_shows_the_last_step(&what, STEPS, &window, &want, &before);
}

#[test]
fn the_wgpu_window_shows_its_headless_picture() {
    one_backend_window(Backend::Wgpu, "the_wgpu_window_shows_its_headless_picture");
}

#[test]
fn the_cpu_window_shows_its_headless_picture() {
    one_backend_window(Backend::Cpu, "the_cpu_window_shows_its_headless_picture");
}

#[test]
fn the_side_by_side_window_shows_each_backend_as_it_shows_alone() {
    if !display_available()
        || !in_own_process("the_side_by_side_window_shows_each_backend_as_it_shows_alone")
    {
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
        let alone = alone(backend, STEPS);
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
