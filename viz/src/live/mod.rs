//! The live loop: a simulation whose step runs kernels each frame, on GL in the window's
//! context (redrawn by viz from the stream textures directly) or on wgpu or the CPU (staged
//! into the window's context each frame), or on several backends side by side.

mod app;
mod constant;
mod controls;
mod gui;
mod lanes;
mod panel;
mod pick;
mod picture;
mod script;
mod stats;
mod window;

use std::time::Duration;

use brook::{BrookError, Runtime, Stream};
use image::RgbaImage;

use crate::backend::Backend;
use crate::camera::Camera;
use crate::error::VizError;
use crate::snapshot::renderer_for;
use crate::view::View;
use lanes::Lanes;
use picture::{draw_picture, picture_size, Labels};

pub use app::{run_window, run_window_scripted};
pub use constant::Constant;
pub use pick::Readout;
pub use script::{click, Control, PanelFrame, Script};

/// What an application shows live: its step runs kernels, its view says what to draw.
///
/// The window's panel lists [`streams`](Simulation::streams) to choose from and shows
/// [`constants`](Simulation::constants) as sliders; both have defaults (the view's stream
/// alone, no constants), so a simulation that only steps and shows needs neither.
pub trait Simulation {
    /// Advances the simulation by one frame (any number of kernel calls).
    fn step(&mut self, rt: &Runtime) -> Result<(), BrookError>;
    /// The stream to draw now, and how (headless runs and the window's first frame).
    fn view(&self) -> (&Stream, View);
    /// The streams the viewer may choose between, each named and with the view to draw it
    /// with; the first should be [`view`](Simulation::view)'s, which the window starts with.
    /// Asked again every frame, so streams swapped by a step are followed.
    fn streams(&self) -> Vec<Shown<'_>> {
        let (stream, view) = self.view();
        vec![Shown {
            name: "view",
            stream,
            view,
        }]
    }
    /// The kernel constants the viewer may change while it runs. The simulation owns them
    /// and reads each one's [`value`](Constant::value) in `step`.
    fn constants(&mut self) -> &mut [Constant] {
        &mut []
    }
}

/// A stream the panel offers: its name, the stream, and how to draw it.
pub struct Shown<'a> {
    /// The name in the panel's stream list.
    pub name: &'a str,
    /// The stream drawn when it is chosen.
    pub stream: &'a Stream,
    /// How it is drawn (the panel's colour map and range replace the view's own).
    pub view: View,
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
    /// Draw the text overlay (times, help) when the panel is hidden.
    pub overlay: bool,
    /// Start with the side panel shown (`p` shows and hides it). It takes the window's left
    /// part; the view is fitted into the rest.
    pub panel: bool,
    /// The backends to run the simulation on: one, or several side by side (each with its
    /// view, then the difference view; `size` is each view's). GL computes in the window's
    /// context; the others' streams are read back and uploaded to it each frame.
    pub backends: Vec<Backend>,
}

impl LiveOptions {
    /// A 512×512 window with the overlay, running until closed.
    pub fn new(title: &str) -> LiveOptions {
        LiveOptions {
            title: title.to_string(),
            size: (512, 512),
            exit_after: None,
            overlay: true,
            panel: true,
            backends: vec![Backend::Gl],
        }
    }
}

/// How a live run ended.
#[derive(Debug)]
pub struct Finished {
    /// Steps run.
    pub steps: u64,
    /// With `exit_after`: the window's last frame, the view only (read from its framebuffer
    /// before the overlay and the panel are drawn on it, and without the panel's part of the
    /// window: it equals [`run_headless`] at the view's size).
    pub last_frame: Option<RgbaImage>,
}

/// The headless twin of [`run_window`]: makes the simulation on a headless GL runtime, runs
/// `steps` steps and renders its view at `size` as the window would show it.
pub fn run_headless<S: Simulation>(
    make: impl Fn(&Runtime) -> Result<S, BrookError>,
    steps: u64,
    size: (u32, u32),
) -> Result<RgbaImage, VizError> {
    Ok(run_headless_on(&[Backend::Gl], make, steps, size)?.image)
}

/// What [`run_headless_on`] made: the picture, and each backend's mean step time.
#[derive(Debug)]
pub struct HeadlessRun {
    /// With one backend the view at `size`; with several, the views side by side (each
    /// `size`, with a label strip above it) and the difference view after them.
    pub image: RgbaImage,
    /// Each backend's mean step time (its kernels finished), in `backends`' order.
    pub step_times: Vec<(Backend, Duration)>,
}

/// [`run_headless`] on each of `backends` (GL on a headless context): `steps` steps of each
/// simulation, then the picture the window would show of them.
pub fn run_headless_on<S: Simulation>(
    backends: &[Backend],
    make: impl Fn(&Runtime) -> Result<S, BrookError>,
    steps: u64,
    size: (u32, u32),
) -> Result<HeadlessRun, VizError> {
    let mut lanes = Lanes::new(backends, None, &make)?;
    for _ in 0..steps {
        lanes.step()?;
    }
    // GL streams are drawn from their own textures on the GL lane's context.
    let gl = lanes.lanes.iter().find(|l| l.backend == Backend::Gl);
    let mut renderer = renderer_for(&gl.unwrap_or(&lanes.lanes[0]).rt)?;
    // The wgpu lane's streams are drawn by wgpu.
    lanes.show_wgpu_streams_in(&mut renderer)?;
    let view = lanes.lanes[0].sim.view().1;
    lanes.compare(None, &view)?;
    let cells = lanes.cells(None);
    let size = picture_size(size, cells.len());
    let mut labels = Labels::new(renderer.context());
    let image = renderer.render_with(size, || {
        let area = [0, 0, size.0, size.1];
        draw_picture(
            &renderer,
            &cells,
            &view,
            &Camera::default(),
            size,
            area,
            &mut labels,
        )
        .map(|_| ())
    })?;
    Ok(HeadlessRun {
        image,
        step_times: lanes.mean_steps(),
    })
}

/// Runs `steps` steps of a simulation headless on GL with every call recorded for the
/// pipeline explorer (pictures at most `max_side` pixels a side): what `--explain DIR` of
/// the viz programs writes as a site. The kernels the simulation compiles are quoted from
/// the recording's sources.
pub fn explain_headless<S: Simulation>(
    make: impl FnOnce(&Runtime) -> Result<S, BrookError>,
    steps: u64,
    max_side: u32,
) -> Result<brook::explain::Recording, VizError> {
    let rt = Runtime::gl()?;
    let (ran, recording) = rt.explain(max_side, |rt| -> Result<(), VizError> {
        let mut sim = make(rt)?;
        check_constants(&mut sim)?;
        for _ in 0..steps {
            sim.step(rt)?;
        }
        Ok(())
    });
    ran.map(|()| recording)
}

/// The simulation's constant declarations are usable (checked once, as a run starts).
fn check_constants(sim: &mut impl Simulation) -> Result<(), VizError> {
    sim.constants().iter().try_for_each(Constant::check)
}
