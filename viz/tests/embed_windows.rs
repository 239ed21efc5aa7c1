//! The two embedding examples (examples/embed_*.rs) live, in their own windows under a real
//! display (Xvfb in CI): each runs a few frames and what its last frame shows must be its
//! headless picture after as many steps (`tests/embed.rs` checks those against viz).
//! Skipped, with the reason printed, when no display is available. Each window runs in a
//! process of its own (`common::in_own_process`).

mod common;

use winit::application::ApplicationHandler;

use common::{assert_shows_the_last_step, display_available, in_own_process, test_event_loop};

#[allow(dead_code)] // the example's `main`
#[path = "../../examples/embed_egui.rs"]
mod embed_egui;
#[allow(dead_code)] // the example's `main`
#[path = "../../examples/embed_wgpu.rs"]
mod embed_wgpu;

const FRAMES: u64 = 6;

/// Runs an example's window (its `App`, closing after `FRAMES` frames) and drops it (its
/// context with it); what its last frame showed. `outcome` takes the app's error and frame.
fn last_frame<A: ApplicationHandler>(
    mut app: A,
    outcome: impl FnOnce(&mut A) -> (Option<String>, Option<image::RgbaImage>),
) -> image::RgbaImage {
    test_event_loop()
        .run_app(&mut app)
        .expect("the event loop runs");
    let (error, frame) = outcome(&mut app);
    assert_eq!(error, None, "the app fails in its window");
    frame.expect("the last frame is kept")
}

#[test]
fn the_egui_apps_window_shows_its_streams_texture_as_headless() {
    use embed_egui::{window::App, Headless, IMAGE_AT, SCALE, SHAPE};
    if !display_available()
        || !in_own_process("the_egui_apps_window_shows_its_streams_texture_as_headless")
    {
        return;
    }
    let window = last_frame(App::new(Some(FRAMES)), |app| {
        (app.error.take(), app.last_frame.take())
    });
    let size = window.dimensions();
    // The references on headless contexts of their own, in threads of their own (contexts
    // are per thread): after as many steps, and after one fewer.
    let headless = |steps: u64| {
        std::thread::spawn(move || {
            let mut headless = Headless::new(size).expect("a headless GL 3.3 context");
            for _ in 0..steps {
                headless.app.step().unwrap();
            }
            headless.frame().unwrap().0
        })
        .join()
        .unwrap()
    };
    let (w, h) = (
        SHAPE[1] as u32 * SCALE as u32,
        SHAPE[0] as u32 * SCALE as u32,
    );
    let image = |frame: &image::RgbaImage| {
        image::imageops::crop_imm(frame, IMAGE_AT.x as u32, IMAGE_AT.y as u32, w, h).to_image()
    };
    let (shown, want, before) = (
        image(&window),
        image(&headless(FRAMES)),
        image(&headless(FRAMES - 1)),
    );
    let colours: std::collections::HashSet<[u8; 4]> = shown.pixels().map(|p| p.0).collect();
    assert!(
        colours.len() > 500,
        "the plasma shows: {} colours",
        colours.len()
    );
    assert_shows_the_last_step("the egui app's image", FRAMES, &shown, &want, &before);
}

#[test]
fn the_wgpu_apps_window_shows_its_streams_buffer_as_headless() {
    use embed_wgpu::{headless, window::App};
    if !display_available()
        || !in_own_process("the_wgpu_apps_window_shows_its_streams_buffer_as_headless")
    {
        return;
    }
    let window = last_frame(App::new(Some(FRAMES)), |app| {
        (app.error.take(), app.last_frame.take())
    });
    let size = window.dimensions();
    let (want, before) = (
        headless(FRAMES, size).unwrap(),
        headless(FRAMES - 1, size).unwrap(),
    );
    let greys: std::collections::HashSet<u8> = window.pixels().map(|p| p.0[0]).collect();
    assert!(greys.len() > 100, "the ripples show: {} greys", greys.len());
    assert_shows_the_last_step("the wgpu app's window", FRAMES, &window, &want, &before);
}
