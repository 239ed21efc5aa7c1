//! egui in the live window: its input from winit events (egui-winit), its drawing with GL
//! (egui_glow) into the window's context.
//!
//! egui_glow 0.37 speaks glow 0.17 while Brook speaks glow 0.18, so the painter gets a glow
//! 0.17 `Context` of its own, loaded from the same GL context: both are tables of the same
//! context's function pointers, and GL state is the context's, not the table's. The painter
//! leaves blending on, which kernels must not inherit: [`Gui::paint`] turns it off again.

use std::sync::Arc;

use egui_glow::glow::{self, HasContext};
use winit::event::WindowEvent;
use winit::window::Window;

use super::window::GlWindow;
use crate::error::VizError;

/// The egui context, its winit input state and its GL painter. Dropped while the window's
/// context is current (the painter deletes its GL objects).
pub(crate) struct Gui {
    ctx: egui::Context,
    input: egui_winit::State,
    painter: egui_glow::Painter,
    gl: Arc<glow::Context>,
    /// Passes laid out and not yet painted (a frame that stopped early keeps its texture
    /// uploads for the next paint).
    unpainted: Option<egui::FullOutput>,
}

impl Gui {
    pub fn new(window: &GlWindow) -> Result<Gui, VizError> {
        // SAFETY: the window's context is current on this thread and outlives the painter,
        // which is dropped before the window (`Running`'s field order).
        let gl = Arc::new(unsafe {
            glow::Context::from_loader_function_cstr(|name| window.proc_address(name))
        });
        let painter = egui_glow::Painter::new(Arc::clone(&gl), "", None, false)
            .map_err(|e| VizError::Window(format!("the panel's painter: {e}")))?;
        let ctx = egui::Context::default();
        let input = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            &window.window,
            Some(window.window.scale_factor() as f32),
            None,
            Some(painter.max_texture_side()),
        );
        Ok(Gui {
            ctx,
            input,
            painter,
            gl,
            unpainted: None,
        })
    }

    /// Passes a window event to egui; `true` when egui uses it (a click on the panel), so
    /// the view's own controls should not.
    pub fn on_event(&mut self, window: &Window, event: &WindowEvent) -> bool {
        self.input.on_window_event(window, event).consumed
    }

    /// Whether egui is taking typed text (a number being edited): keys are then not
    /// shortcuts.
    pub fn wants_keyboard(&self) -> bool {
        self.ctx.egui_wants_keyboard_input()
    }

    /// Adds `events` to the next frame's input, after those from the window.
    pub fn inject(&mut self, events: Vec<egui::Event>) {
        self.input.egui_input_mut().events.extend(events);
    }

    /// Physical pixels per egui point.
    pub fn pixels_per_point(&self) -> f32 {
        self.ctx.pixels_per_point()
    }

    /// Where the pointer is, in points, if it is in the window.
    pub fn pointer(&self) -> Option<egui::Pos2> {
        self.ctx.input(|i| i.pointer.latest_pos())
    }

    /// One egui pass over this frame's input, laid out by `ui`, to draw with
    /// [`paint`](Gui::paint).
    pub fn run(&mut self, window: &Window, ui: impl FnMut(&mut egui::Ui)) {
        let input = self.input.take_egui_input(window);
        let output = self.ctx.run_ui(input, ui);
        match &mut self.unpainted {
            Some(older) => older.append(output),
            None => self.unpainted = Some(output),
        }
    }

    /// Draws what was laid out over the bound (default) framebuffer of `size` pixels.
    pub fn paint(&mut self, window: &Window, size: (u32, u32)) {
        let Some(output) = self.unpainted.take() else {
            return;
        };
        self.input
            .handle_platform_output(window, output.platform_output);
        let ppp = output.pixels_per_point;
        let primitives = self.ctx.tessellate(output.shapes, ppp);
        let mut textures = output.textures_delta;
        self.painter
            .paint_and_update_textures([size.0, size.1], ppp, &primitives, &mut textures);
        // SAFETY: a state change on the window's context, which is current.
        unsafe { self.gl.disable(glow::BLEND) };
    }
}

impl Drop for Gui {
    fn drop(&mut self) {
        if let Some(output) = self.unpainted.take() {
            output.drop_without_applying_deltas();
        }
        self.painter.destroy();
    }
}
