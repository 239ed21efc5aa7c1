//! The winit application behind [`run_window`]: window and runtime made on the first
//! `resumed`, one step and one redraw per frame, input to [`Controls`].

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
use super::stats::Stats;
use super::window::GlWindow;
use super::{Finished, LiveOptions, Simulation};
use crate::error::VizError;
use crate::image_io::{rgba_from_bytes, save_png};
use crate::overlay::Overlay;
use crate::renderer::Renderer;

/// Opens a window, creates the Brook runtime on its GL context, makes the simulation with
/// `make`, and runs it: one `step` and one redraw per frame, until the window is closed (or
/// `options.exit_after` steps). Keys: space pause, n/→ one step, wheel/drag zoom and pan,
/// r reset, s save a PNG, h help, esc/q quit.
///
/// Needs a display (X11, or XWayland on Wayland). A process can run one window loop: winit
/// allows one event loop per process.
pub fn run_window<S: Simulation>(
    options: LiveOptions,
    make: impl FnOnce(&Runtime) -> Result<S, BrookError>,
) -> Result<Finished, VizError> {
    let event_loop = new_event_loop()?;
    let mut app = App {
        options,
        make: Some(make),
        running: None,
        controls: Controls::default(),
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

/// Everything that lives while the window is open. Field order is drop order: GL objects go
/// before the runtime's context, and that before the window's context.
struct Running<S> {
    sim: S,
    overlay: Overlay,
    renderer: Renderer,
    rt: Runtime,
    window: GlWindow,
}

struct App<S, F> {
    options: LiveOptions,
    make: Option<F>,
    running: Option<Running<S>>,
    controls: Controls,
    stats: Stats,
    error: Option<VizError>,
    last_frame: Option<image::RgbaImage>,
}

impl<S: Simulation, F: FnOnce(&Runtime) -> Result<S, BrookError>> App<S, F> {
    fn start(&mut self, event_loop: &ActiveEventLoop) -> Result<(), VizError> {
        let Some(make) = self.make.take() else {
            return Ok(());
        };
        let (window, gl, profile) =
            GlWindow::open(event_loop, &self.options.title, self.options.size)?;
        let ctx: Rc<GlContext> = GlContext::from_glow(
            gl,
            ContextOptions {
                profile,
                ..ContextOptions::default()
            },
        )?;
        let rt = Runtime::on_context(ctx.clone());
        let renderer = Renderer::new(&ctx)?;
        let sim = make(&rt)?;
        self.running = Some(Running {
            sim,
            overlay: Overlay::new(&ctx),
            renderer,
            rt,
            window,
        });
        Ok(())
    }

    /// One frame: a step unless paused, the view, the overlay, present.
    fn frame(&mut self, event_loop: &ActiveEventLoop) -> Result<(), VizError> {
        let Some(running) = &mut self.running else {
            return Ok(());
        };
        if self.controls.take_step() {
            let started = Instant::now();
            running.sim.step(&running.rt)?;
            running.rt.finish();
            self.stats.step_done(started.elapsed());
        }
        let size = running.window.size();
        let gl = running.renderer.context().gl();
        // SAFETY: the window's context is current; kernels leave their FBOs bound.
        unsafe { gl.bind_framebuffer(glow::FRAMEBUFFER, None) };
        let (stream, view) = running.sim.view();
        running
            .renderer
            .draw(stream, &view, &self.controls.camera, size)?;
        let done = self.options.exit_after == Some(self.stats.steps);
        if done || self.controls.take_screenshot() {
            let image = read_window(running.renderer.context(), size)?;
            if done {
                self.last_frame = Some(image);
                event_loop.exit();
                return Ok(());
            }
            let path = PathBuf::from(format!("brook-viz-step{}.png", self.stats.steps));
            save_png(&image, &path)?;
            eprintln!("saved {}", path.display());
        }
        if self.options.overlay {
            let mut lines = vec![self.stats.line(self.controls.paused)];
            if self.controls.show_help {
                lines.extend(HELP.iter().map(|l| l.to_string()));
            }
            running.overlay.set_text(lines, size.0)?;
            running.overlay.draw(&running.renderer, size)?;
        }
        running.window.present()?;
        self.stats.frame_done(Instant::now());
        Ok(())
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, error: VizError) {
        self.error = Some(error);
        event_loop.exit();
    }
}

impl<S: Simulation, F: FnOnce(&Runtime) -> Result<S, BrookError>> ApplicationHandler for App<S, F> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if let Err(e) = self.start(event_loop) {
            self.fail(event_loop, e);
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(running) = &self.running else {
            return;
        };
        let size = running.window.size();
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(new) => running.window.resize(new.width, new.height),
            WindowEvent::RedrawRequested => {
                if let Err(e) = self.frame(event_loop) {
                    self.fail(event_loop, e);
                }
            }
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                if let Some(key) = decode(&event.logical_key) {
                    if self.controls.key(key, size) {
                        event_loop.exit();
                    }
                }
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let notches = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.controls.wheel(notches, size);
            }
            WindowEvent::CursorMoved { position, .. } => {
                self.controls
                    .cursor_moved(position.x as f32, position.y as f32, size)
            }
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => self.controls.drag(state == ElementState::Pressed),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(running) = &self.running {
            running.window.window.request_redraw();
        }
    }
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
            "+" | "=" => Key::ZoomIn,
            "-" | "_" => Key::ZoomOut,
            "q" | "Q" => Key::Quit,
            _ => return None,
        },
        _ => return None,
    })
}

/// The window's back buffer (what was just drawn) as an image.
fn read_window(ctx: &GlContext, size: (u32, u32)) -> Result<image::RgbaImage, VizError> {
    let gl = ctx.gl();
    let mut bytes = vec![0u8; size.0 as usize * size.1 as usize * 4];
    // SAFETY: the default framebuffer is bound and `bytes` holds width × height RGBA8 pixels
    // at pack alignment 1.
    unsafe {
        gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
        gl.read_pixels(
            0,
            0,
            size.0 as i32,
            size.1 as i32,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            glow::PixelPackData::Slice(Some(&mut bytes)),
        );
    }
    ctx.check_error("reading the window's pixels")?;
    Ok(rgba_from_bytes(&bytes, size))
}
