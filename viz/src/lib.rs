//! Brook streams drawn with GL straight from their textures: ready-made views (colour-mapped
//! scalar fields, vector fields, RGB(A) images, plots, points), headless snapshots to PNG, and
//! a live window in which the runtime computes and viz redraws every frame.
//!
//! The Brook paper's runtime lets an application bind streams as textures and render them
//! (001 §4.1); this crate is that, for the layout documented in
//! [`brook::texture_streams::layout`]: a view shader maps each pixel to an element, the
//! element to its linear index `L`, and `L` to texel `(L mod W, L div W)` in 32-bit integers,
//! as the kernels do, so address-translated streams display exactly like direct ones and
//! nothing is copied or read back (except to compute an auto range, see [`range`]).
//!
//! ```no_run
//! use brook::Runtime;
//! use brook_viz::{snapshot, ColorMap, View};
//!
//! let rt = Runtime::gl()?;
//! let field = rt.stream_of(1, &[64, 64])?;
//! field.read(&(0..64 * 64).map(|i| (i % 64) as f32).collect::<Vec<_>>())?;
//! snapshot(&rt, &field, &View::scalar(ColorMap::Viridis), 256, 256, "field.png")?;
//! # Ok::<(), brook_viz::VizError>(())
//! ```
//!
//! For a window, implement [`Simulation`] and call [`run_window`] (or [`main`], which also
//! gives every program `--headless --frames N --png out.png`). The window has a side panel
//! in which the viewer chooses among the simulation's [`streams`](Simulation::streams), their
//! colour map and range, pauses and steps, reads the element under the cursor, and moves
//! sliders for the simulation's [`Constant`]s; [`run_window_scripted`] drives that panel
//! from code. Every program takes `--backend gl|wgpu|cpu`, or several backends at once to
//! run the same simulation on each side by side with a view of the elements where they
//! differ ([`Backend`], [`run_headless_on`], [`TOLERANCE`]). wgpu streams are drawn by wgpu
//! from their storage buffers ([`WgpuRenderer`]), with the same pictures as the GL views.

#![warn(missing_docs)]

mod backend;
mod camera;
mod cli;
mod difference;
mod error;
mod image_io;
mod live;
mod overlay;
mod program;
pub mod range;
mod renderer;
mod shaders;
mod snapshot;
mod text;
mod view;
mod wgpu_renderer;

pub use backend::Backend;
/// The colour maps are defined once, in the pipeline explorer (`brook::explain`), which
/// colours texture snapshots the same way without a window or GL.
pub use brook::explain::{ColorMap, MAX_STOPS};
pub use camera::Camera;
pub use cli::{main, run_cli, CliOptions};
pub use difference::{differences, Tolerance, TOLERANCE};
pub use error::VizError;
pub use image_io::save_png;
pub use live::{
    click, run_headless, run_headless_on, run_window, run_window_scripted, Constant, Control,
    Finished, HeadlessRun, LiveOptions, PanelFrame, Readout, Script, Shown, Simulation,
};
pub use renderer::{Renderer, AXIS, BACKGROUND, PANEL, PLOT_LINE, POINT};
pub use snapshot::{render, renderer_for, snapshot};
pub use view::{Range, View, ViewKind};
pub use wgpu_renderer::WgpuRenderer;

/// The panel's GUI library, for scripts' events ([`run_window_scripted`]).
pub use egui;
pub use image::RgbaImage;
