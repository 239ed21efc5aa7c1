//! A winit window with a current GL context from glutin (GLX or EGL on X11), for the runtime
//! to compute in and viz to draw in.

use std::ffi::CStr;
use std::num::NonZeroU32;

use brook::texture_streams::Profile;
use glutin::config::{ConfigTemplateBuilder, GlConfig};
use glutin::context::{
    ContextApi, ContextAttributesBuilder, GlProfile, PossiblyCurrentContext, Version,
};
use glutin::display::{Display, GetGlDisplay, GlDisplay};
use glutin::prelude::{GlSurface, NotCurrentGlContext, PossiblyCurrentGlContext};
use glutin::surface::{Surface, SwapInterval, WindowSurface};
use glutin_winit::{DisplayBuilder, GlWindow as _};
use raw_window_handle::HasWindowHandle;
use winit::dpi::PhysicalSize;
use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

use crate::error::VizError;

/// The window and its GL objects. Field order is drop order: the surface and context go
/// before the window they draw into.
pub(crate) struct GlWindow {
    surface: Surface<WindowSurface>,
    context: PossiblyCurrentContext,
    display: Display,
    pub window: Window,
}

/// The contexts asked for, best first: kernels need desktop GL 3.3 core or ES 3.0.
const ATTEMPTS: [(ContextApi, Option<GlProfile>, Profile); 2] = [
    (
        ContextApi::OpenGl(Some(Version::new(3, 3))),
        Some(GlProfile::Core),
        Profile::Gl33Core,
    ),
    (
        ContextApi::Gles(Some(Version::new(3, 0))),
        None,
        Profile::Es30,
    ),
];

impl GlWindow {
    /// Opens a `size` window titled `title` with a current context; returns the GL functions
    /// loaded from it and the dialect it speaks.
    pub fn open(
        event_loop: &ActiveEventLoop,
        title: &str,
        size: (u32, u32),
    ) -> Result<(GlWindow, glow::Context, Profile), VizError> {
        let attributes = Window::default_attributes()
            .with_title(title)
            .with_inner_size(PhysicalSize::new(size.0.max(1), size.1.max(1)));
        // No multisampling: views are pixel-exact, like the headless snapshots.
        let (window, config) = DisplayBuilder::new()
            .with_window_attributes(Some(attributes))
            .build(event_loop, ConfigTemplateBuilder::new(), |configs| {
                configs
                    .min_by_key(|c| c.num_samples())
                    .expect("glutin reports an error rather than an empty config list")
            })
            .map_err(|e| window_error("no GL config for a window", e))?;
        let window = window.ok_or_else(|| VizError::Window("no window was created".into()))?;
        let handle = window
            .window_handle()
            .map_err(|e| window_error("no window handle", e))?
            .as_raw();
        let display = config.display();
        let mut failures = Vec::new();
        let mut made = None;
        for (api, profile, dialect) in ATTEMPTS {
            let mut builder = ContextAttributesBuilder::new().with_context_api(api);
            if let Some(profile) = profile {
                builder = builder.with_profile(profile);
            }
            // SAFETY: the config and the window handle belong to this display and window.
            match unsafe { display.create_context(&config, &builder.build(Some(handle))) } {
                Ok(context) => {
                    made = Some((context, dialect));
                    break;
                }
                Err(e) => failures.push(format!("{dialect:?}: {e}")),
            }
        }
        let (context, dialect) = made.ok_or_else(|| {
            VizError::Window(format!(
                "no GL 3.3 core or ES 3.0 context: {}",
                failures.join("; ")
            ))
        })?;
        let surface_attributes = window
            .build_surface_attributes(Default::default())
            .map_err(|e| window_error("no surface attributes", e))?;
        // SAFETY: the attributes were made from this window, which outlives the surface.
        let surface = unsafe { display.create_window_surface(&config, &surface_attributes) }
            .map_err(|e| window_error("no window surface", e))?;
        let context = context
            .make_current(&surface)
            .map_err(|e| window_error("cannot make the window's context current", e))?;
        // Vsync where the display has it; Xvfb has none, which is fine.
        let _ = surface.set_swap_interval(&context, SwapInterval::Wait(NonZeroU32::MIN));
        // SAFETY: the context is current on this thread and outlives the loaded functions:
        // the runtime that owns them is dropped before this window.
        let gl = unsafe {
            glow::Context::from_loader_function_cstr(|name: &CStr| display.get_proc_address(name))
        };
        Ok((
            GlWindow {
                surface,
                context,
                display,
                window,
            },
            gl,
            dialect,
        ))
    }

    /// A GL function of the window's context, for a second loader (the panel's painter
    /// speaks another glow version than the runtime).
    pub fn proc_address(&self, name: &CStr) -> *const std::ffi::c_void {
        self.display.get_proc_address(name)
    }

    /// Makes the window's context current again: another backend's runtime (wgpu, on a
    /// device of its own) may make a context of its own current on this thread.
    pub fn make_current(&self) -> Result<(), VizError> {
        self.context
            .make_current(&self.surface)
            .map_err(|e| window_error("cannot make the window's context current", e))
    }

    /// The drawable size in pixels.
    pub fn size(&self) -> (u32, u32) {
        let size = self.window.inner_size();
        (size.width.max(1), size.height.max(1))
    }

    /// Follows a window resize.
    pub fn resize(&self, width: u32, height: u32) {
        if let (Some(w), Some(h)) = (NonZeroU32::new(width), NonZeroU32::new(height)) {
            self.surface.resize(&self.context, w, h);
        }
    }

    /// Shows the frame drawn since the last call.
    pub fn present(&self) -> Result<(), VizError> {
        self.surface
            .swap_buffers(&self.context)
            .map_err(|e| window_error("swapping buffers failed", e))
    }
}

fn window_error(what: &str, e: impl std::fmt::Display) -> VizError {
    VizError::Window(format!("{what}: {e}"))
}
