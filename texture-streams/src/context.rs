//! The GL context every stream, texture and pass uses.
//!
//! A [`GlContext`] is a `glow::Context` plus what the runtime learns about it
//! once (its [`Caps`]), the objects shared by every pass (an empty VAO and the
//! framebuffer cache), and — for a context made here — the EGL objects that
//! keep it alive. It is shared as `Rc<GlContext>`: GL contexts are bound to a
//! thread, and `Rc` keeps it there.
//!
//! The runtime takes a context rather than insisting on making one:
//! [`GlContext::headless`] makes its own (tests, batch programs, servers) and
//! [`GlContext::from_glow`] adopts an application's (a window for viz).

use std::cell::{Cell, RefCell};
use std::fmt;
use std::rc::Rc;

use glow::HasContext;

use crate::caps::Caps;
use crate::check::{check_gl, check_gl_with};
use crate::egl::Headless;
use crate::error::GlError;
use crate::framebuffer::FramebufferCache;
use crate::texture::Texture;

/// The GL dialect kernels are generated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Desktop OpenGL 3.3 core (or any later core version; Mesa gives 4.5).
    Gl33Core,
    /// OpenGL ES 3.0 (or later).
    Es30,
}

/// How to set up a context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextOptions {
    /// The dialect.
    pub profile: Profile,
    /// Use at most this texture side even if the device allows more, e.g. to
    /// test address translation with small streams. Must be at least 1.
    pub max_texture_size: Option<u32>,
    /// Use at most this many outputs per pass, e.g. to test pass splitting.
    /// Must be at least 1.
    pub max_draw_buffers: Option<u32>,
}

impl Default for ContextOptions {
    fn default() -> Self {
        ContextOptions {
            profile: Profile::Gl33Core,
            max_texture_size: None,
            max_draw_buffers: None,
        }
    }
}

/// A current GL context with its capabilities and shared objects.
///
/// Every method of this crate that touches GL first makes a headless context
/// current on the calling thread, so several contexts may live on one thread.
/// Code that calls [`gl`](Self::gl) directly should call
/// [`make_current`](Self::make_current) first when that can happen.
pub struct GlContext {
    // Field order is drop order: GL objects are deleted in `Drop::drop`, then
    // the glow context goes, and only then the EGL context and display.
    gl: glow::Context,
    caps: Caps,
    profile: Profile,
    vao: glow::VertexArray,
    framebuffers: RefCell<FramebufferCache>,
    /// Programs and textures made on this context and not yet deleted, to check that long
    /// runs release what they make.
    live: Cell<LiveObjects>,
    /// Open [`CurrentScope`]s: while there is one, the context is known to be current.
    scopes: Cell<u32>,
    headless: Option<Headless>,
}

/// GL objects made through this crate and alive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LiveObjects {
    /// Linked [`Program`](crate::program::Program)s not yet deleted.
    pub programs: usize,
    /// Textures not yet deleted.
    pub textures: usize,
}

impl GlContext {
    /// Creates a context of `options.profile` with no window or display, on
    /// EGL's device platform: a GPU if EGL lists one, else Mesa's llvmpipe.
    pub fn headless(options: ContextOptions) -> Result<Rc<GlContext>, GlError> {
        check_options(&options)?;
        let (headless, gl) = Headless::create(options.profile)?;
        GlContext::adopt(gl, options, Some(headless))
    }

    /// Adopts an application's context, which must be current on this thread
    /// and stay alive (and current whenever the runtime is used) as long as the
    /// returned value. Its version must match `options.profile`.
    pub fn from_glow(gl: glow::Context, options: ContextOptions) -> Result<Rc<GlContext>, GlError> {
        check_options(&options)?;
        GlContext::adopt(gl, options, None)
    }

    /// Probes and wraps a current context whose options are checked.
    fn adopt(
        gl: glow::Context,
        options: ContextOptions,
        headless: Option<Headless>,
    ) -> Result<Rc<GlContext>, GlError> {
        check_version(&gl, options.profile)?;
        let caps = Caps::probe(&gl, &options)?;
        // SAFETY: plain object creation on the current context.
        let vao = unsafe { gl.create_vertex_array() }.map_err(|msg| {
            GlError::Unsupported(format!("glGenVertexArrays gave no name: {msg}"))
        })?;
        Ok(Rc::new(GlContext {
            gl,
            caps,
            profile: options.profile,
            vao,
            framebuffers: RefCell::new(FramebufferCache::default()),
            live: Cell::new(LiveObjects::default()),
            scopes: Cell::new(0),
            headless,
        }))
    }

    /// The raw GL functions. See the type's note on current contexts.
    pub fn gl(&self) -> &glow::Context {
        &self.gl
    }

    /// The limits and float support probed at creation, after the overrides.
    pub fn caps(&self) -> &Caps {
        &self.caps
    }

    /// The dialect kernels must be written in.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The first lines of every shader for this profile.
    pub fn glsl_header(&self) -> &'static str {
        match self.profile {
            Profile::Gl33Core => "#version 330 core\n",
            Profile::Es30 => {
                "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;\n"
            }
        }
    }

    /// Makes a headless context current on this thread if it is not; an
    /// adopted context is the application's business, so this does nothing.
    pub fn make_current(&self) -> Result<(), GlError> {
        if self.scopes.get() > 0 {
            return Ok(());
        }
        match &self.headless {
            Some(headless) => headless.make_current(),
            None => Ok(()),
        }
    }

    /// Makes the context current and keeps it known to be current until the scope is
    /// dropped, so the `make_current` of every operation inside it skips asking EGL (two EGL
    /// queries through the vendor dispatch, about a fifth of a cached 1-element kernel call
    /// with llvmpipe rasterising on the calling thread). Only for a stretch of GL work that
    /// runs no code that could make another context current: a pass executor's steps, not
    /// an observer's callbacks.
    pub fn current_scope(&self) -> Result<CurrentScope<'_>, GlError> {
        self.make_current()?;
        self.scopes.set(self.scopes.get() + 1);
        Ok(CurrentScope(self))
    }

    /// Reports (and clears) any pending GL error, blaming `what`.
    pub fn check_error(&self, what: &str) -> Result<(), GlError> {
        check_gl(&self.gl, what)
    }

    /// [`check_error`](Self::check_error) naming the operation with `what()`, called only
    /// when there is an error.
    pub fn check_error_with(&self, what: impl FnOnce() -> String) -> Result<(), GlError> {
        check_gl_with(&self.gl, what)
    }

    /// Binds (as draw and read framebuffer) an FBO with `textures` at
    /// `COLOR_ATTACHMENT0..n`, all enabled as draw buffers. The FBO is made and
    /// checked complete the first time, then cached until one of the textures
    /// is dropped.
    pub fn framebuffer_for(&self, textures: &[&Texture]) -> Result<glow::Framebuffer, GlError> {
        let limit = self
            .caps
            .max_draw_buffers
            .min(self.caps.max_color_attachments) as usize;
        if textures.is_empty() {
            return Err(GlError::InvalidArgument(
                "a framebuffer needs at least one texture".into(),
            ));
        }
        if textures.len() > limit {
            return Err(GlError::Unsupported(format!(
                "{} render targets in one pass, but at most {limit} are allowed here; split the pass",
                textures.len()
            )));
        }
        if let Some(foreign) = textures
            .iter()
            .find(|t| !std::ptr::eq(Rc::as_ptr(t.context()), self))
        {
            return Err(GlError::InvalidArgument(format!(
                "texture {} belongs to another GL context",
                foreign.id()
            )));
        }
        self.make_current()?;
        self.framebuffers.borrow_mut().bind(&self.gl, textures)
    }

    /// The number of cached FBOs (to check that dropped textures take theirs along).
    pub fn cached_framebuffers(&self) -> usize {
        self.framebuffers.borrow().len()
    }

    /// The programs and textures made on this context and alive now.
    pub fn live_objects(&self) -> LiveObjects {
        self.live.get()
    }

    /// Counts a program or texture made (`+1`) or deleted (`-1`).
    pub(crate) fn count(&self, programs: isize, textures: isize) {
        let live = self.live.get();
        self.live.set(LiveObjects {
            programs: live.programs.saturating_add_signed(programs),
            textures: live.textures.saturating_add_signed(textures),
        });
    }

    /// An empty VAO to draw with: core profiles draw nothing without one bound,
    /// even when the vertex shader makes positions from `gl_VertexID`.
    pub fn fullscreen_vao(&self) -> glow::VertexArray {
        self.vao
    }

    /// Deletes the cached FBOs that use texture `id`; called as it is dropped,
    /// with this context current.
    pub(crate) fn forget_texture(&self, id: u64) {
        self.framebuffers.borrow_mut().forget(&self.gl, id);
    }
}

/// The context is current while this lives ([`GlContext::current_scope`]).
pub struct CurrentScope<'a>(&'a GlContext);

impl Drop for CurrentScope<'_> {
    fn drop(&mut self) {
        self.0.scopes.set(self.0.scopes.get() - 1);
    }
}

impl Drop for GlContext {
    fn drop(&mut self) {
        // Deleting with another context current would hit that context's
        // objects; leaking is the lesser harm, and only happens if EGL fails.
        if self.make_current().is_err() {
            return;
        }
        self.framebuffers.get_mut().clear(&self.gl);
        // SAFETY: the VAO was made by this context and is deleted once.
        unsafe { self.gl.delete_vertex_array(self.vao) };
    }
}

impl fmt::Debug for GlContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GlContext")
            .field("profile", &self.profile)
            .field("caps", &self.caps)
            .field("cached_framebuffers", &self.cached_framebuffers())
            .field("headless", &self.headless.is_some())
            .finish()
    }
}

/// Overrides can only lower limits to something usable.
fn check_options(options: &ContextOptions) -> Result<(), GlError> {
    for (name, value) in [
        ("max_texture_size", options.max_texture_size),
        ("max_draw_buffers", options.max_draw_buffers),
    ] {
        if value == Some(0) {
            return Err(GlError::InvalidArgument(format!(
                "ContextOptions::{name} must be at least 1"
            )));
        }
    }
    Ok(())
}

/// Kernels are generated for `profile`, so the context must speak it: desktop
/// GL 3.3+ for `Gl33Core`, ES 3.0+ for `Es30`.
fn check_version(gl: &glow::Context, profile: Profile) -> Result<(), GlError> {
    let version = gl.version();
    let (embedded, minimum) = match profile {
        Profile::Gl33Core => (false, (3, 3)),
        Profile::Es30 => (true, (3, 0)),
    };
    if version.is_embedded == embedded && (version.major, version.minor) >= minimum {
        return Ok(());
    }
    let kind = |es| if es { "OpenGL ES" } else { "desktop OpenGL" };
    Err(GlError::Unsupported(format!(
        "{profile:?} needs {} {}.{} or later, but the context is {} {}.{}",
        kind(embedded),
        minimum.0,
        minimum.1,
        kind(version.is_embedded),
        version.major,
        version.minor
    )))
}
