//! The winit application behind [`run_window`]: window and runtime made on the first
//! `resumed`; per frame the panel's egui pass, one step, the view, the panel drawn over the
//! window, present; input to egui first, then to [`Controls`].

use std::path::PathBuf;
use std::rc::Rc;
use std::time::Instant;

use brook::texture_streams::{ContextOptions, GlContext};
use brook::{BrookError, Runtime};
use glow::HasContext;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{Key as WinitKey, NamedKey};
use winit::window::WindowId;

use super::controls::{Controls, Key, HELP};
use super::gui::Gui;
use super::lanes::{shown, Lanes};
use super::panel::{Action, Panel, Status, PANEL_WIDTH};
use super::pick::{element_at, element_values, Readout};
use super::picture::{cell_areas, draw_picture, picture_size, Labels};
use super::script::{PanelFrame, Script};
use super::stats::Stats;
use super::window::GlWindow;
use super::{Finished, LiveOptions, Simulation};
use crate::error::VizError;
use crate::image_io::{rgba_from_bytes, save_png};
use crate::overlay::Overlay;
use crate::renderer::Renderer;

/// Opens a window, creates the Brook runtime of each of `options.backends` (GL on the
/// window's context), makes the simulation with `make` on each, and runs them: one `step`
/// each and one redraw per frame, until the window is closed (or `options.exit_after`
/// steps). Several backends are shown side by side, each view labelled with its backend and
/// step time, then the difference view (elements beyond the tolerance of
/// [`TOLERANCE`](crate::TOLERANCE) highlighted); the panel steers the first and its
/// constants reach all. The side panel chooses the stream, colour map and range,
/// pauses and steps, reads the element under the cursor and sets the simulation's constants.
/// Keys: space pause, n/→ one step, wheel/drag zoom and pan, r reset, s save a PNG (of the
/// view, without the panel), p panel, h help, esc/q quit.
///
/// Needs a display (X11, or XWayland on Wayland). A process can run one window loop: winit
/// allows one event loop per process.
pub fn run_window<S: Simulation>(
    options: LiveOptions,
    make: impl Fn(&Runtime) -> Result<S, BrookError>,
) -> Result<Finished, VizError> {
    run(options, make, None)
}

/// [`run_window`] with `script` adding input to the panel's: before each frame it is shown
/// the last one ([`PanelFrame`]) and returns egui events, which the panel handles as it
/// handles the window's (for tests and scripted demonstrations; see [`click`](super::click)).
pub fn run_window_scripted<S: Simulation>(
    options: LiveOptions,
    make: impl Fn(&Runtime) -> Result<S, BrookError>,
    script: &mut Script<'_>,
) -> Result<Finished, VizError> {
    run(options, make, Some(script))
}

fn run<S: Simulation>(
    options: LiveOptions,
    make: impl Fn(&Runtime) -> Result<S, BrookError>,
    script: Option<&mut Script<'_>>,
) -> Result<Finished, VizError> {
    let event_loop = new_event_loop()?;
    let mut controls = Controls::default();
    controls.show_panel = options.panel;
    let mut app = App {
        controls,
        options,
        make: Some(make),
        running: None,
        panel: Panel::default(),
        readout: None,
        area: [0, 0, 1, 1],
        cells: vec![[0, 0, 1, 1]],
        script,
        stats: Stats::new(),
        error: None,
        last_frame: None,
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| VizError::Window(format!("event loop: {e}")))?;
    if let Some(error) = app.error {
        return Err(error);
    }
    Ok(Finished {
        steps: app.stats.steps,
        last_frame: app.last_frame,
    })
}

/// An event loop that may run on any thread (test harnesses run tests off the main thread).
fn new_event_loop() -> Result<EventLoop<()>, VizError> {
    let mut builder = EventLoop::builder();
    #[cfg(any(
        target_os = "linux",
        target_os = "dragonfly",
        target_os = "freebsd",
        target_os = "netbsd",
        target_os = "openbsd"
    ))]
    winit::platform::x11::EventLoopBuilderExtX11::with_any_thread(&mut builder, true);
    builder
        .build()
        .map_err(|e| VizError::Window(format!("no event loop (is DISPLAY set?): {e}")))
}

/// Everything that lives while the window is open. Field order is drop order: the
/// simulations' streams and their runtimes, then viz's GL objects, then the window's context.
struct Running<S> {
    lanes: Lanes<S>,
    overlay: Overlay,
    labels: Labels,
    gui: Gui,
    renderer: Renderer,
    window: GlWindow,
}

struct App<'s, 'f, S, F> {
    options: LiveOptions,
    make: Option<F>,
    running: Option<Running<S>>,
    controls: Controls,
    panel: Panel,
    /// The element under the pointer after the last frame's step.
    readout: Option<Readout>,
    /// Where the picture is drawn: `[x, y, width, height]`, GL pixels.
    area: [u32; 4],
    /// Where each cell's view is drawn in it (one, or each backend's and the difference).
    cells: Vec<[u32; 4]>,
    script: Option<&'s mut Script<'f>>,
    stats: Stats,
    error: Option<VizError>,
    last_frame: Option<image::RgbaImage>,
}

impl<S: Simulation> Running<S> {
    /// The panel's egui pass over this frame's input: the viewer's changes to the shown
    /// stream, its view and the simulation's constants, and the actions for the window.
    fn panel_pass(&mut self, panel: &mut Panel, status: &Status) -> Vec<Action> {
        let sim = self.lanes.first();
        let streams: Vec<(String, crate::View)> = sim
            .streams()
            .iter()
            .map(|s| (s.name.to_string(), s.view))
            .collect();
        let mut actions = Vec::new();
        // egui may lay out twice in a frame (the second time without input): keep the
        // actions of every pass.
        self.gui.run(&self.window.window, |ui| {
            actions.extend(
                egui::Panel::left("brook-viz-panel")
                    .resizable(false)
                    .exact_size(PANEL_WIDTH)
                    .show(ui, |ui| {
                        // Short windows scroll the panel rather than cut it off.
                        egui::ScrollArea::vertical()
                            .show(ui, |ui| panel.show(ui, &streams, sim.constants(), status))
                            .inner
                    })
                    .inner,
            );
        });
        self.lanes.share_constants();
        actions
    }
}

impl<S: Simulation, F: Fn(&Runtime) -> Result<S, BrookError>> App<'_, '_, S, F> {
    fn start(&mut self, event_loop: &ActiveEventLoop) -> Result<(), VizError> {
        let Some(make) = self.make.take() else {
            return Ok(());
        };
        let (window, gl, profile) = GlWindow::open(
            event_loop,
            &self.options.title,
            self.window_size(event_loop),
        )?;
        let ctx: Rc<GlContext> = GlContext::from_glow(
            gl,
            ContextOptions {
                profile,
                ..ContextOptions::default()
            },
        )?;
        let mut renderer = Renderer::new(&ctx)?;
        let gui = Gui::new(&window)?;
        let lanes = Lanes::new(&self.options.backends, Some(&ctx), &make)?;
        // The wgpu lane's streams are drawn by wgpu, their pictures then here.
        lanes.show_wgpu_streams_in(&mut renderer)?;
        window.make_current()?;
        self.running = Some(Running {
            lanes,
            overlay: Overlay::new(&ctx),
            labels: Labels::new(&ctx),
            gui,
            renderer,
            window,
        });
        Ok(())
    }

    /// The window's size in pixels: the picture's (each view `options.size`) and the
    /// panel's width beside it, at the scale of the primary monitor (where the window
    /// opens), so each view keeps `options.size`.
    fn window_size(&self, event_loop: &ActiveEventLoop) -> (u32, u32) {
        let backends = self.options.backends.len();
        let cells = backends + usize::from(backends > 1);
        let (w, h) = picture_size(self.options.size, cells);
        let scale = event_loop
            .primary_monitor()
            .map_or(1.0, |m| m.scale_factor() as f32);
        let panel = if self.options.panel {
            panel_pixels(scale)
        } else {
            0
        };
        (w + panel, h)
    }

    /// One frame: the panel's pass (its clicks decide this frame's step), a step unless
    /// paused, the view beside the panel, the readout, the overlay or the panel, present.
    fn frame(&mut self, event_loop: &ActiveEventLoop) -> Result<(), VizError> {
        let App {
            options,
            running: Some(running),
            controls,
            panel,
            readout,
            area,
            cells: cell_rects,
            script,
            stats,
            last_frame,
            ..
        } = self
        else {
            return Ok(());
        };
        let size = running.window.size();
        let ppp = running.gui.pixels_per_point();
        let panel_px = if controls.show_panel {
            panel_pixels(ppp).min(size.0 - 1)
        } else {
            0
        };
        if controls.show_panel {
            if let Some(script) = script {
                let frame =
                    panel_frame(running, controls, panel, readout, cell_rects[0], ppp, stats);
                running.gui.inject(script(&frame));
            }
            let status = Status {
                line: stats.line(controls.paused),
                paused: controls.paused,
                show_help: controls.show_help,
                readout: readout.as_ref(),
            };
            let actions = running.panel_pass(panel, &status);
            for action in actions {
                let key = match action {
                    Action::Pause => Key::Pause,
                    Action::Step => Key::Step,
                    Action::Help => Key::Help,
                };
                controls.key(key, size);
            }
        }
        *area = [panel_px, 0, size.0 - panel_px, size.1];
        if controls.take_step() {
            let took = running.lanes.step()?;
            stats.step_done(took);
        }
        let selected = Some(panel.selected());
        let view = panel.view(shown(running.lanes.first(), selected).1);
        running.lanes.compare(selected, &view)?;
        let gl = running.renderer.context().gl();
        // SAFETY: the window's context is current; kernels and the comparison's read-back
        // leave their FBOs bound.
        unsafe { gl.bind_framebuffer(glow::FRAMEBUFFER, None) };
        let cells = running.lanes.cells(selected);
        *cell_rects = cell_areas(*area, cells.len());
        let resolved = draw_picture(
            &running.renderer,
            &cells,
            &view,
            &controls.camera,
            size,
            *area,
            &mut running.labels,
        )?;
        panel.drawn_with(resolved.value);
        let done = options.exit_after == Some(stats.steps);
        if done || controls.take_screenshot() {
            let image = read_window(running.renderer.context(), *area)?;
            if done {
                *last_frame = Some(image);
                event_loop.exit();
                return Ok(());
            }
            let path = PathBuf::from(format!("brook-viz-step{}.png", stats.steps));
            save_png(&image, &path)?;
            eprintln!("saved {}", path.display());
        }
        if controls.show_panel {
            let at = running
                .gui
                .pointer()
                .map(|p| [p.x * ppp, size.1 as f32 - p.y * ppp]);
            *readout = None;
            // The element under the pointer in whichever cell it is over.
            for (cell, rect) in cells.iter().zip(cell_rects.iter()) {
                let view = cell.view.unwrap_or(view);
                let shape = cell.stream.shape();
                let content = controls.camera.content_rect(&view, shape, *rect);
                let index = at
                    .filter(|at| inside(*rect, *at))
                    .and_then(|at| element_at(&view, shape, content, at));
                if let Some(index) = index {
                    let values = element_values(cell.stream, view.member, index)?;
                    *readout = Some(Readout { index, values });
                    break;
                }
            }
        }
        // SAFETY: as above; reading the element left its texture's FBO bound.
        unsafe { gl.bind_framebuffer(glow::FRAMEBUFFER, None) };
        if controls.show_panel {
            running.gui.paint(&running.window.window, size);
        } else if options.overlay {
            let mut lines = vec![stats.line(controls.paused)];
            if controls.show_help {
                lines.extend(HELP.iter().map(|l| l.to_string()));
            }
            running.overlay.set_text(lines, size.0)?;
            running.overlay.draw(&running.renderer, size)?;
        }
        running.window.present()?;
        stats.frame_done(Instant::now());
        Ok(())
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, error: VizError) {
        self.error = Some(error);
        event_loop.exit();
    }

    /// Mouse and keys for the view: zoom and pan work in the area of the cell under the
    /// pointer (every cell has the same camera).
    fn view_event(&mut self, event_loop: &ActiveEventLoop, event: WindowEvent) {
        let [_, _, width, height] = self.cells[0];
        let area = (width, height);
        match event {
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                if let Some(key) = decode(&event.logical_key) {
                    if self.controls.key(key, area) {
                        event_loop.exit();
                    }
                }
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let notches = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.controls.wheel(notches, area);
            }
            WindowEvent::CursorMoved { position, .. } => {
                let x = position.x as f32;
                let cell = (self.cells.iter())
                    .find(|c| x >= c[0] as f32 && x < (c[0] + c[2]) as f32)
                    .unwrap_or(&self.cells[0]);
                // The cell's top edge in window pixels (y down).
                let top = self.area[1] + self.area[3] - (cell[1] + cell[3]);
                self.controls
                    .cursor_moved(x - cell[0] as f32, position.y as f32 - top as f32, area)
            }
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => self.controls.drag(state == ElementState::Pressed),
            _ => {}
        }
    }
}

impl<S: Simulation, F: Fn(&Runtime) -> Result<S, BrookError>> ApplicationHandler
    for App<'_, '_, S, F>
{
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if let Err(e) = self.start(event_loop) {
            self.fail(event_loop, e);
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(running) = &mut self.running else {
            return;
        };
        match event {
            WindowEvent::CloseRequested => return event_loop.exit(),
            WindowEvent::Resized(new) => running.window.resize(new.width, new.height),
            WindowEvent::RedrawRequested => {
                if let Err(e) = self.frame(event_loop) {
                    self.fail(event_loop, e);
                }
                return;
            }
            _ => {}
        }
        // Keys are shortcuts unless a number is being typed into the panel (egui would
        // otherwise also press a focused button with space); the pointer is the panel's
        // over the panel and the view's elsewhere.
        let taken = self.controls.show_panel
            && match &event {
                WindowEvent::KeyboardInput { .. } => {
                    running.gui.wants_keyboard()
                        && running.gui.on_event(&running.window.window, &event)
                }
                _ => running.gui.on_event(&running.window.window, &event),
            };
        if !taken {
            self.view_event(event_loop, event);
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(running) = &self.running {
            running.window.window.request_redraw();
        }
    }
}

/// The panel's width in pixels at `pixels_per_point`.
fn panel_pixels(pixels_per_point: f32) -> u32 {
    (PANEL_WIDTH * pixels_per_point).round() as u32
}

/// What a script is shown before a frame: the last frame's panel, in egui points.
fn panel_frame<S: Simulation>(
    running: &mut Running<S>,
    controls: &Controls,
    panel: &Panel,
    readout: &Option<Readout>,
    area: [u32; 4],
    ppp: f32,
    stats: &Stats,
) -> PanelFrame {
    let size = running.window.size();
    let [x, y, width, height] = area.map(|v| v as f32 / ppp);
    let top = size.1 as f32 / ppp - y - height;
    let shown = running
        .lanes
        .first()
        .streams()
        .get(panel.selected())
        .map(|s| (s.name.to_string(), s.view));
    PanelFrame {
        steps: stats.steps,
        paused: controls.paused,
        shown: shown.as_ref().map_or_else(String::new, |s| s.0.clone()),
        view: shown.map(|s| panel.view(s.1)),
        constants: running
            .lanes
            .first()
            .constants()
            .iter()
            .map(|c| (c.name().to_string(), c.value()))
            .collect(),
        readout: readout.clone(),
        view_area: egui::Rect::from_min_size(egui::pos2(x, top), egui::vec2(width, height)),
        controls: panel.controls().to_vec(),
    }
}

/// Whether GL pixel `at` is inside `rect` (`[x, y, width, height]`).
fn inside(rect: [u32; 4], at: [f32; 2]) -> bool {
    let [x, y, w, h] = rect.map(|v| v as f32);
    at[0] >= x && at[0] < x + w && at[1] >= y && at[1] < y + h
}

/// The viewer's key for a winit key, if it has one.
fn decode(key: &WinitKey) -> Option<Key> {
    Some(match key {
        WinitKey::Named(NamedKey::Space) => Key::Pause,
        WinitKey::Named(NamedKey::ArrowRight) => Key::Step,
        WinitKey::Named(NamedKey::Escape) => Key::Quit,
        WinitKey::Character(c) => match c.as_str() {
            "n" | "N" => Key::Step,
            "h" | "H" | "?" => Key::Help,
            "r" | "R" => Key::Reset,
            "s" | "S" => Key::Screenshot,
            "p" | "P" => Key::Panel,
            "+" | "=" => Key::ZoomIn,
            "-" | "_" => Key::ZoomOut,
            "q" | "Q" => Key::Quit,
            _ => return None,
        },
        _ => return None,
    })
}

/// `area` (`[x, y, width, height]`, GL pixels) of the window's back buffer (what was just
/// drawn) as an image.
fn read_window(ctx: &GlContext, area: [u32; 4]) -> Result<image::RgbaImage, VizError> {
    let gl = ctx.gl();
    let [x, y, width, height] = area;
    let mut bytes = vec![0u8; width as usize * height as usize * 4];
    // SAFETY: the default framebuffer is bound and `bytes` holds width × height RGBA8 pixels
    // at pack alignment 1.
    unsafe {
        gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
        gl.read_pixels(
            x as i32,
            y as i32,
            width as i32,
            height as i32,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelPackData::Slice(Some(&mut bytes)),
        );
    }
    ctx.check_error("reading the window's pixels")?;
    Ok(rgba_from_bytes(&bytes, (width, height)))
}
