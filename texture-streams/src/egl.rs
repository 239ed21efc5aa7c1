//! A headless GL context from EGL's device platform, with no window system.
//!
//! `eglGetDisplay(EGL_DEFAULT_DISPLAY)` makes Mesa look for X11 and fail on a
//! machine without a display; the device platform (`EGL_EXT_platform_device`)
//! names a device directly and works everywhere: Mesa lists llvmpipe as a
//! software device, NVIDIA's driver lists its GPUs. A context made current
//! without a surface has no default framebuffer, which suits streams: all
//! rendering and reading goes through FBOs.

use std::ffi::CStr;

use glutin::api::egl::context::PossiblyCurrentContext;
use glutin::api::egl::device::Device;
use glutin::api::egl::display::Display;
use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
use glutin::display::GlDisplay;
use glutin::prelude::PossiblyCurrentGlContext;

use crate::context::Profile;
use crate::error::GlError;

/// What users can do when no context can be had.
const HINT: &str = "install Mesa's EGL (e.g. `apt-get install libegl1 libegl-mesa0 \
                    libgl1-mesa-dri`, which brings the llvmpipe software renderer), or on a \
                    GPU machine the vendor's EGL library with EGL_EXT_device_enumeration; \
                    no window system or DISPLAY is needed";

/// The EGL objects behind a headless context. The display must outlive the
/// context, and both must outlive the `glow::Context` loaded from them.
#[derive(Debug)]
pub(crate) struct Headless {
    context: PossiblyCurrentContext,
    _display: Display,
}

impl Headless {
    /// Creates a context of `profile` on the first device that gives one,
    /// hardware devices before software ones, and makes it current on this thread.
    pub fn create(profile: Profile) -> Result<(Headless, glow::Context), GlError> {
        let mut devices: Vec<Device> = Device::query_devices()
            .map_err(|err| context_error(format!("EGL lists no devices: {err}")))?
            .collect();
        // Stable sort: hardware (false) first, the driver's order otherwise kept.
        devices.sort_by_key(is_software);
        let mut failures = Vec::new();
        for device in &devices {
            match on_device(device, profile) {
                Ok(made) => return Ok(made),
                Err(reason) => failures.push(format!("{}: {reason}", describe(device))),
            }
        }
        if failures.is_empty() {
            failures.push("EGL lists no devices".to_owned());
        }
        Err(context_error(failures.join("; ")))
    }

    /// Makes this context current on the calling thread unless it already is.
    ///
    /// Every kernel call checks this by asking EGL which context is current (a thread-local
    /// read in the driver's dispatch, tens of nanoseconds): other code on the thread may have
    /// switched contexts in between — wgpu's GL backend makes its own EGL context current for
    /// each of its calls and releases it after — so a cached answer would be wrong.
    pub fn make_current(&self) -> Result<(), GlError> {
        if !self.context.is_current() {
            self.context
                .make_current_surfaceless()
                .map_err(|err| GlError::Context {
                    reason: format!("eglMakeCurrent failed: {err}"),
                    hint: "the context may have been lost (e.g. a GPU reset); create a new one"
                        .to_owned(),
                })?;
        }
        Ok(())
    }
}

impl Drop for Headless {
    fn drop(&mut self) {
        // A context that is current is only destroyed once released, so
        // release it; but never release another context current on this thread.
        // A failure here cannot be acted on: the context is going away.
        if self.context.is_current() {
            let _ = self.context.make_not_current_in_place();
        }
    }
}

/// One attempt: display, config, context, current, GL loader.
fn on_device(device: &Device, profile: Profile) -> Result<(Headless, glow::Context), String> {
    // SAFETY: `None` asks for no DRM master fd; the device came from EGL.
    let display = unsafe { Display::with_device(device, None) }
        .map_err(|err| format!("no EGL display: {err}"))?;
    let (config_api, context_api, gl_profile) = match profile {
        Profile::Gl33Core => (
            Api::OPENGL,
            ContextApi::OpenGl(Some(Version::new(3, 3))),
            Some(GlProfile::Core),
        ),
        Profile::Es30 => (Api::GLES3, ContextApi::Gles(Some(Version::new(3, 0))), None),
    };
    // Surfaceless: no surface types (the default asks for window surfaces and
    // finds nothing), and no depth, stencil or alpha needed in a default framebuffer.
    let template = ConfigTemplateBuilder::new()
        .with_surface_type(ConfigSurfaceTypes::empty())
        .with_api(config_api)
        .with_alpha_size(0)
        .with_depth_size(0)
        .with_stencil_size(0)
        .build();
    // SAFETY: the template holds no native window.
    let config = unsafe { display.find_configs(template) }
        .map_err(|err| format!("no EGL config: {err}"))?
        .next()
        .ok_or_else(|| format!("no EGL config for {profile:?}"))?;
    let mut attributes = ContextAttributesBuilder::new().with_context_api(context_api);
    if let Some(gl_profile) = gl_profile {
        attributes = attributes.with_profile(gl_profile);
    }
    // SAFETY: the config belongs to `display`; no window handle is involved.
    let context = unsafe { display.create_context(&config, &attributes.build(None)) }
        .map_err(|err| format!("no {profile:?} context: {err}"))?
        .make_current_surfaceless()
        .map_err(|err| format!("cannot make the context current without a surface: {err}"))?;
    // SAFETY: the context is current on this thread and outlives the loader's
    // results, since `Headless` is kept alongside the glow context.
    let gl = unsafe {
        glow::Context::from_loader_function_cstr(|name: &CStr| display.get_proc_address(name))
    };
    Ok((
        Headless {
            context,
            _display: display,
        },
        gl,
    ))
}

/// Mesa marks its software rasteriser (llvmpipe) with this extension.
fn is_software(device: &Device) -> bool {
    device.extensions().contains("EGL_MESA_device_software")
}

/// A device's name for messages.
fn describe(device: &Device) -> String {
    let kind = if is_software(device) {
        "software"
    } else {
        "hardware"
    };
    match (device.name(), device.drm_render_device_node_path()) {
        (Some(name), _) => format!("{kind} device {name}"),
        (None, Some(path)) => format!("{kind} device {}", path.display()),
        (None, None) => format!("unnamed {kind} device"),
    }
}

/// A creation failure, with the installation hint.
fn context_error(reason: String) -> GlError {
    GlError::Context {
        reason,
        hint: HINT.to_owned(),
    }
}
