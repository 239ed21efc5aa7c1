//! What the window test files share: whether a window can open, how far two pictures
//! differ, and a simulation whose every step shows.

// Each test file uses some of these.
#![allow(dead_code)]

use brook::{args, BrookError, Program, Runtime, Stream};
use brook_viz::{ColorMap, Simulation, View};

/// `true` when there is an X display. Without one the test should return, skipped: this
/// prints why, and fails instead where `CI` is set, since CI runs under Xvfb (`.ci/run`) and
/// a missing display there means the window was never tested.
pub fn display_available() -> bool {
    if std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty()) {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but DISPLAY is not: run the suite under `xvfb-run -a`, as .ci/run does"
    );
    println!("skipped: no DISPLAY (run under `xvfb-run -a`, as .ci/run does)");
    false
}

/// The largest difference of any channel of any pixel (the pictures have the same size).
pub fn max_difference(a: &image::RgbaImage, b: &image::RgbaImage) -> u8 {
    a.pixels()
        .zip(b.pixels())
        .flat_map(|(p, q)| p.0.into_iter().zip(q.0).map(|(x, y)| x.abs_diff(y)))
        .max()
        .unwrap_or(0)
}

/// A gradient that scrolls one column left per step (a gather of the right neighbour,
/// wrapping), so each frame differs and the step count is visible in the picture.
const SCROLL: &str = "
kernel void scroll(float cells[][], float2 size, out float next<>) {
    float2 p = indexof(next).xy;
    next = cells[fmod(p + float2(1.0, 0.0), size)];
}
";

const SHAPE: [usize; 2] = [48, 64];

pub struct Scroll {
    program: Program,
    cells: Stream,
    next: Stream,
}

impl Scroll {
    pub fn new(rt: &Runtime) -> Result<Scroll, BrookError> {
        let program = rt.compile(SCROLL, "scroll.br")?;
        let cells = rt.stream_of(1, &SHAPE)?;
        let data: Vec<f32> = (0..SHAPE[0] * SHAPE[1])
            .map(|i| ((i % SHAPE[1]) + (i / SHAPE[1]) / 4) as f32)
            .collect();
        cells.read(&data)?;
        let next = rt.stream_of(1, &SHAPE)?;
        Ok(Scroll {
            program,
            cells,
            next,
        })
    }
}

impl Simulation for Scroll {
    fn step(&mut self, rt: &Runtime) -> Result<(), BrookError> {
        let size = [SHAPE[1] as f32, SHAPE[0] as f32];
        rt.run(
            &self.program,
            "scroll",
            args![&self.cells, size, &self.next],
        )?;
        std::mem::swap(&mut self.cells, &mut self.next);
        Ok(())
    }

    fn view(&self) -> (&Stream, View) {
        (
            &self.cells,
            View::scalar(ColorMap::Viridis).with_range(0.0, 75.0),
        )
    }
}

/// Whether the calling test should do its work here. winit allows one event loop per process,
/// so each window test runs in a process of its own: called in the test harness, this runs
/// `test` (the calling test's name) again in a child process of this test binary, fails if it
/// fails there (with its output), and returns `false`; in that child it returns `true`.
pub fn in_own_process(test: &str) -> bool {
    const CHILD: &str = "BROOK_VIZ_WINDOW_TEST";
    if std::env::var_os(CHILD).is_some_and(|t| t == test) {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = std::process::Command::new(exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, test)
        .output()
        .expect("the test binary runs again");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    println!("{stdout}");
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{test} in its own process: {}\n{stdout}\n{stderr}",
        out.status
    );
    false
}

/// An event loop for a test's window: tests run off the main thread.
pub fn test_event_loop() -> winit::event_loop::EventLoop<()> {
    let mut builder = winit::event_loop::EventLoop::builder();
    winit::platform::x11::EventLoopBuilderExtX11::with_any_thread(&mut builder, true);
    builder.build().expect("an event loop on the X display")
}

/// `window` (what a window's last frame showed, after `steps` steps) is `want` (its headless
/// picture after as many steps) within one 8-bit step, and is not `before` (the headless one
/// a step earlier): the window shows the last step, not an older frame.
pub fn assert_shows_the_last_step(
    what: &str,
    steps: u64,
    window: &image::RgbaImage,
    want: &image::RgbaImage,
    before: &image::RgbaImage,
) {
    assert_eq!(window.dimensions(), want.dimensions(), "{what}: the sizes");
    assert!(
        max_difference(window, want) <= 1,
        "{what} differs from its headless picture by {}",
        max_difference(window, want)
    );
    assert!(
        max_difference(window, before) > 1,
        "{what} shows {} steps, not {steps}",
        steps - 1
    );
}
