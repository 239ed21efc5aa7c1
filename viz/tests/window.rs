//! The live window under a real display (Xvfb in CI): it opens, the runtime computes in the
//! window's context, frames advance, and the last frame matches the headless render of the
//! same state pixel for pixel. The side panel is shown (the default), so this also checks that
//! the window's saved frame is the view alone, at the requested size, without the panel.
//! Skipped, with the reason printed, when no display is available.
//!
//! One test in this file: winit allows a single event loop per process.

mod common;

use common::{assert_shows_the_last_step, display_available, Scroll};

use brook_viz::{run_headless, run_window, LiveOptions};

const STEPS: u64 = 5;
const SIZE: (u32, u32) = (160, 120);

#[test]
fn the_window_shows_what_the_headless_render_shows() {
    if !display_available() {
        return;
    }
    let finished = run_window(
        LiveOptions {
            size: SIZE,
            exit_after: Some(STEPS),
            overlay: true,
            ..LiveOptions::new("brook-viz window test")
        },
        Scroll::new,
    )
    .expect("a window with a GL 3.3 core or ES 3.0 context");
    assert_eq!(finished.steps, STEPS);
    let window = finished.last_frame.expect("the last frame is kept");
    assert_eq!(window.dimensions(), SIZE);
    let distinct: std::collections::HashSet<[u8; 4]> = window.pixels().map(|p| p.0).collect();
    assert!(
        distinct.len() > 40,
        "the window looks blank: {} colours",
        distinct.len()
    );
    // The reference on a headless context of its own, in its own thread (contexts are
    // per thread).
    let headless = std::thread::spawn(|| run_headless(Scroll::new, STEPS, SIZE).unwrap())
        .join()
        .unwrap();
    let before = std::thread::spawn(|| run_headless(Scroll::new, STEPS - 1, SIZE).unwrap())
        .join()
        .unwrap();
    assert_shows_the_last_step("the window", STEPS, &window, &headless, &before);
}
