//! The live loop: a simulation whose step runs kernels each frame, in a window whose GL
//! context the runtime computes in, redrawn by viz from the stream textures directly.

mod app;
mod controls;
mod stats;
mod window;

use brook::{BrookError, Runtime, Stream};
use image::RgbaImage;

use crate::camera::Camera;
use crate::error::VizError;
use crate::snapshot::renderer_for;
use crate::view::View;

pub use app::run_window;

/// What an application shows live: its step runs kernels, its view says what to draw.
pub trait Simulation {
    /// Advances the simulation by one frame (any number of kernel calls).
    fn step(&mut self, rt: &Runtime) -> Result<(), BrookError>;
    /// The stream to draw now, and how.
    fn view(&self) -> (&Stream, View);
}

/// How the live window starts and when it stops by itself.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveOptions {
    /// The window's title.
    pub title: String,
    /// The window's inner size in pixels.
    pub size: (u32, u32),
    /// Close after this many steps, keeping the last frame in [`Finished::last_frame`]
    /// (for tests and recordings); `None` runs until the window is closed.
    pub exit_after: Option<u64>,
    /// Draw the text overlay (times, help).
    pub overlay: bool,
}

impl LiveOptions {
    /// A 512×512 window with the overlay, running until closed.
    pub fn new(title: &str) -> LiveOptions {
        LiveOptions {
            title: title.to_string(),
            size: (512, 512),
            exit_after: None,
            overlay: true,
        }
    }
}

/// How a live run ended.
#[derive(Debug)]
pub struct Finished {
    /// Steps run.
    pub steps: u64,
    /// With `exit_after`: the window's last frame (read from its framebuffer before the
    /// overlay is drawn on it).
    pub last_frame: Option<RgbaImage>,
}

/// The headless twin of [`run_window`]: makes the simulation on a headless runtime, runs
/// `steps` steps and renders its view at `size` as the window would show it.
pub fn run_headless<S: Simulation>(
    make: impl FnOnce(&Runtime) -> Result<S, BrookError>,
    steps: u64,
    size: (u32, u32),
) -> Result<RgbaImage, VizError> {
    let rt = Runtime::gl()?;
    let mut sim = make(&rt)?;
    for _ in 0..steps {
        sim.step(&rt)?;
    }
    let (stream, view) = sim.view();
    renderer_for(&rt)?.render(stream, &view, &Camera::default(), size)
}
