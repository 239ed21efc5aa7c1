//! Drawing a view of a stream with GL, straight from the stream's own textures. A wgpu
//! stream is drawn by wgpu from its buffer ([`WgpuRenderer`], once the renderer is given its
//! runtime) and the finished picture of its area drawn here; a stream of another backend is
//! staged into textures of the renderer's context first.

use std::cell::{Ref, RefCell};
use std::rc::Rc;

use brook::texture_streams::{GlContext, Stream as GlStream, TexelRect, Texture};
use brook::{Runtime, Stream};
use glow::HasContext;
use image::RgbaImage;

use crate::camera::Camera;
use crate::error::VizError;
use crate::image_io::rgba_from_floats;
use crate::program::Program;
use crate::range::{resolve, Resolved};
use crate::shaders::{
    fullscreen_vertex, image_mode, with_header, ELEMENT_VERTEX, FLAT_FRAGMENT, IMAGE_FRAGMENT,
};
use crate::view::{View, ViewKind};
use crate::wgpu_renderer::WgpuRenderer;

/// Behind and around the content.
pub const BACKGROUND: [f32; 3] = [0.08, 0.08, 0.1];
/// The plotting area of plots and points.
pub const PANEL: [f32; 3] = [0.16, 0.16, 0.19];
/// The line of a plot.
pub const PLOT_LINE: [f32; 4] = [1.0, 0.78, 0.2, 1.0];
/// The y = 0 axis of a plot.
pub const AXIS: [f32; 3] = [0.4, 0.4, 0.45];
/// Points.
pub const POINT: [f32; 4] = [0.85, 0.9, 1.0, 1.0];
/// Side of a point in pixels.
pub(crate) const POINT_SIZE: f32 = 3.0;

/// One texture to draw from: its width (the layout's `W`) and how its elements form rows.
pub(crate) struct Source {
    pub texture: glow::Texture,
    /// The texture width `W` of the layout rule.
    pub width: u32,
    /// Elements in the stream.
    pub count: usize,
    /// Elements per displayed row: the last extent.
    pub columns: usize,
}

impl Source {
    fn rows(&self) -> usize {
        self.count / self.columns
    }
}

/// A stream's textures to draw from ([`Renderer::textures`]).
enum Textures<'a> {
    /// The stream's own.
    Lent(Ref<'a, GlStream>),
    /// A copy in textures of the renderer's context.
    Staged(GlStream),
}

impl std::ops::Deref for Textures<'_> {
    type Target = GlStream;

    fn deref(&self) -> &GlStream {
        match self {
            Textures::Lent(t) => t,
            Textures::Staged(t) => t,
        }
    }
}

/// The view programs of one GL context.
pub struct Renderer {
    ctx: Rc<GlContext>,
    image: Program,
    elements: Program,
    /// Draws the streams of one wgpu runtime ([`show_wgpu_streams_of`](Self::show_wgpu_streams_of)).
    wgpu: Option<WgpuRenderer>,
    /// The texture the wgpu-drawn pictures are uploaded into, kept while their size stays.
    picture: RefCell<Option<Texture>>,
    /// Textures staged streams were uploaded into, kept for the next draw of a stream of the
    /// same format and shape (a live window stages the same streams every frame).
    staged: RefCell<Vec<GlStream>>,
}

/// The most staging textures kept (a side-by-side window stages two streams a frame).
const KEPT_STAGES: usize = 4;

impl Renderer {
    /// Builds the view shaders on `ctx` (the runtime's: `rt.gl_context()`).
    pub fn new(ctx: &Rc<GlContext>) -> Result<Renderer, VizError> {
        Ok(Renderer {
            ctx: Rc::clone(ctx),
            image: Program::new(
                ctx,
                "image view",
                &fullscreen_vertex(ctx),
                &with_header(ctx, IMAGE_FRAGMENT),
            )?,
            elements: Program::new(
                ctx,
                "plot/points view",
                &with_header(ctx, ELEMENT_VERTEX),
                &with_header(ctx, FLAT_FRAGMENT),
            )?,
            wgpu: None,
            picture: RefCell::new(None),
            staged: RefCell::new(Vec::new()),
        })
    }

    /// Draws the streams of `rt` with wgpu from their buffers from now on, when `rt` is a
    /// wgpu runtime (else nothing changes): the picture of each view's area is drawn on
    /// `rt`'s device, read back and drawn here, instead of the stream being staged. The
    /// renderer knows one wgpu runtime: give it the one whose streams it draws (another's
    /// buffers belong to another device).
    pub fn show_wgpu_streams_of(&mut self, rt: &Runtime) -> Result<(), VizError> {
        if rt.as_wgpu().is_some() {
            self.wgpu = Some(WgpuRenderer::new(rt)?);
        }
        Ok(())
    }

    /// Whether wgpu streams are drawn by wgpu (after [`show_wgpu_streams_of`](Self::show_wgpu_streams_of)).
    pub fn draws_wgpu_streams(&self) -> bool {
        self.wgpu.is_some()
    }

    /// The context the programs live in.
    pub fn context(&self) -> &Rc<GlContext> {
        &self.ctx
    }

    /// Draws `view` of `stream` into the bound framebuffer, over a `viewport` of (width,
    /// height) pixels, clearing it first. Auto ranges read the stream back (see [`resolve`]);
    /// the framebuffer binding is restored after that readback.
    pub fn draw(
        &self,
        stream: &Stream,
        view: &View,
        camera: &Camera,
        viewport: (u32, u32),
    ) -> Result<(), VizError> {
        self.draw_in(
            stream,
            view,
            camera,
            viewport,
            [0, 0, viewport.0, viewport.1],
        )
        .map(|_| ())
    }

    /// [`draw`](Self::draw) with the content fitted into `area` (`[x, y, width, height]`,
    /// GL pixels) of the viewport instead of all of it (the live window keeps its panel
    /// beside the view); returns the ranges the view was drawn with.
    pub(crate) fn draw_in(
        &self,
        stream: &Stream,
        view: &View,
        camera: &Camera,
        viewport: (u32, u32),
        area: [u32; 4],
    ) -> Result<Resolved, VizError> {
        self.ctx.make_current()?;
        // SAFETY: a query on the current context.
        let bound = unsafe {
            self.ctx
                .gl()
                .get_parameter_framebuffer(glow::DRAW_FRAMEBUFFER_BINDING)
        };
        if let Some(wgpu) = self.wgpu.as_ref().filter(|_| is_wgpu(stream)) {
            let resolved = resolve(stream, view)?;
            let picture = wgpu.draw_area(stream, view, &resolved, camera, viewport, area)?;
            self.draw_picture(&picture, bound, viewport, area)?;
            return Ok(resolved);
        }
        // GL work that binds framebuffers of its own (a deferred kernel call writing the
        // stream, which lending its textures runs; an auto range's read-back) runs before the
        // one that was bound is restored.
        let textures = self.textures(stream)?;
        let resolved = resolve(stream, view)?;
        // SAFETY: rebinding the framebuffer that was bound (or the default one).
        unsafe { self.ctx.gl().bind_framebuffer(glow::FRAMEBUFFER, bound) };
        self.draw_resolved(&textures, view, &resolved, camera, viewport, area)?;
        if let Textures::Staged(staged) = textures {
            let mut kept = self.staged.borrow_mut();
            if kept.len() == KEPT_STAGES {
                kept.remove(0);
            }
            kept.push(staged);
        }
        Ok(resolved)
    }

    /// Draws `pixels` (RGBA floats, top row first) into `area` of framebuffer `bound`, one
    /// pixel to one: uploaded into a texture and drawn as an RGB view, which copies values
    /// in `[0, 1]` unchanged.
    fn draw_picture(
        &self,
        pixels: &[f32],
        bound: Option<glow::Framebuffer>,
        viewport: (u32, u32),
        area: [u32; 4],
    ) -> Result<(), VizError> {
        let (width, height) = (area[2], area[3]);
        let mut kept = self.picture.borrow_mut();
        let texture = match kept.take() {
            Some(t) if (t.width(), t.height()) == (width, height) => t,
            _ => Texture::new(&self.ctx, width, height, 4)?,
        };
        let texel_rect = TexelRect {
            x: 0,
            y: 0,
            width,
            height,
        };
        texture.upload(texel_rect, pixels)?;
        // SAFETY: rebinding the framebuffer that was bound (or the default one).
        unsafe { self.ctx.gl().bind_framebuffer(glow::FRAMEBUFFER, bound) };
        let source = Source {
            texture: texture.raw(),
            width,
            count: (width * height) as usize,
            columns: width as usize,
        };
        let unit = Resolved {
            value: (0.0, 1.0),
            x: (0.0, 1.0),
        };
        let rect = area.map(|v| v as f32);
        self.draw_source(&source, &View::rgb(), &unit, rect, rect, viewport)?;
        *kept = Some(texture);
        Ok(())
    }

    /// Renders `view` of `stream` into a new `width × height` image (no window needed).
    pub fn render(
        &self,
        stream: &Stream,
        view: &View,
        camera: &Camera,
        size: (u32, u32),
    ) -> Result<RgbaImage, VizError> {
        self.render_with(size, || self.draw(stream, view, camera, size))
    }

    /// A new `size` image of what `draw` draws into the bound framebuffer (an offscreen
    /// texture, bound before `draw` runs; [`draw_in`](Self::draw_in) keeps it bound).
    pub(crate) fn render_with(
        &self,
        size: (u32, u32),
        draw: impl FnOnce() -> Result<(), VizError>,
    ) -> Result<RgbaImage, VizError> {
        let target = Texture::new(&self.ctx, size.0, size.1, 4)?;
        self.ctx.framebuffer_for(&[&target])?;
        draw()?;
        let floats = target.read(TexelRect {
            x: 0,
            y: 0,
            width: size.0,
            height: size.1,
        })?;
        Ok(rgba_from_floats(&floats, size))
    }

    /// Clears `rect` (`[x, y, width, height]`, GL pixels) of the bound framebuffer to the
    /// background colour.
    pub(crate) fn clear(&self, rect: [f32; 4]) -> Result<(), VizError> {
        self.ctx.make_current()?;
        fill(self.ctx.gl(), Some(rect), BACKGROUND);
        Ok(())
    }

    /// The textures to draw `stream` from. A GL stream of this context is drawn from its own
    /// textures, lent by the runtime, which first runs a deferred kernel call writing them
    /// (it binds a framebuffer of its own, so this comes before the draw binds anything).
    /// Any other stream (the CPU's, an iterator, a GL stream of another context, wgpu's when
    /// the renderer does not draw them with wgpu) is staged: read back and uploaded into
    /// textures of this context with the same layout, once each draw.
    fn textures<'a>(&self, stream: &'a Stream) -> Result<Textures<'a>, VizError> {
        let lent = (stream.gl_textures()?).filter(|t| Rc::ptr_eq(t.context(), &self.ctx));
        Ok(match lent {
            Some(t) => Textures::Lent(t),
            None => Textures::Staged(self.stage(stream)?),
        })
    }

    fn draw_resolved(
        &self,
        textures: &GlStream,
        view: &View,
        resolved: &Resolved,
        camera: &Camera,
        viewport: (u32, u32),
        area: [u32; 4],
    ) -> Result<(), VizError> {
        let layout = textures.layout();
        let source = Source {
            texture: textures.textures()[view.member].raw(),
            width: layout.width(),
            count: layout.len(),
            columns: layout.shape()[layout.rank() - 1],
        };
        let rect = camera.content_rect(view, layout.shape(), area);
        let area = area.map(|v| v as f32);
        self.clear(area)?;
        // Zoomed content stays inside its area (side-by-side cells are neighbours).
        self.draw_source(
            &source,
            view,
            resolved,
            rect,
            intersect(rect, area),
            viewport,
        )
    }

    /// `stream`'s contents in textures of this renderer's context, laid out as a GL stream:
    /// one upload, into kept textures of the same format and shape when there are some.
    fn stage(&self, stream: &Stream) -> Result<GlStream, VizError> {
        let kept = {
            let mut kept = self.staged.borrow_mut();
            let same = |s: &GlStream| {
                s.format() == stream.format() && s.layout().shape() == stream.shape()
            };
            kept.iter().position(same).map(|i| kept.remove(i))
        };
        let mut staged = match kept {
            Some(staged) => staged,
            None => GlStream::new(&self.ctx, stream.format().clone(), stream.shape())?,
        };
        staged.read(&stream.to_vec()?)?;
        Ok(staged)
    }

    /// Draws `source` into `rect` of the bound framebuffer, touching only the part of it
    /// inside `clip` and leaving the rest as it was.
    pub(crate) fn draw_source(
        &self,
        source: &Source,
        view: &View,
        resolved: &Resolved,
        rect: [f32; 4],
        clip: [f32; 4],
        viewport: (u32, u32),
    ) -> Result<(), VizError> {
        self.ctx.make_current()?;
        let gl = self.ctx.gl();
        // SAFETY: state changes and draws on the current context with live objects.
        unsafe {
            gl.viewport(0, 0, viewport.0 as i32, viewport.1 as i32);
            gl.disable(glow::BLEND);
            gl.disable(glow::DEPTH_TEST);
            gl.disable(glow::SCISSOR_TEST);
            gl.active_texture(glow::TEXTURE0);
            gl.bind_texture(glow::TEXTURE_2D, Some(source.texture));
            gl.bind_vertex_array(Some(self.ctx.fullscreen_vao()));
        }
        match view.kind {
            ViewKind::Plot { .. } | ViewKind::Points { .. } => {
                self.draw_elements(source, view, resolved, rect, clip, viewport)
            }
            _ => self.draw_image(source, view, resolved, rect, clip),
        }
        self.ctx.check_error("drawing a viz view")?;
        Ok(())
    }

    fn draw_image(
        &self,
        source: &Source,
        view: &View,
        resolved: &Resolved,
        rect: [f32; 4],
        clip: [f32; 4],
    ) {
        // Only the content rectangle is touched: the overlay is drawn over a view this way.
        // SAFETY: a state change on the current context.
        unsafe { scissor(self.ctx.gl(), intersect(rect, clip)) };
        let p = &self.image;
        p.bind();
        let (mode, stops) = image_mode(view);
        p.set_i32("u_tex", 0);
        p.set_i32("u_mode", mode);
        p.set_i32("u_component", i32::from(view.component));
        p.set_vec2("u_range", [resolved.value.0, resolved.value.1]);
        if !stops.is_empty() {
            p.set_vec3_array("u_stops", &stops);
        }
        p.set_i32("u_stop_count", stops.len() as i32);
        p.set_vec4("u_rect", rect);
        p.set_ivec2("u_grid", [source.columns as i32, source.rows() as i32]);
        p.set_i32("u_width", source.width as i32);
        p.set_vec3("u_background", BACKGROUND);
        // SAFETY: the program, texture and VAO are bound on the current context.
        unsafe {
            self.ctx.gl().draw_arrays(glow::TRIANGLES, 0, 3);
            self.ctx.gl().disable(glow::SCISSOR_TEST);
        }
    }

    fn draw_elements(
        &self,
        source: &Source,
        view: &View,
        resolved: &Resolved,
        rect: [f32; 4],
        clip: [f32; 4],
        viewport: (u32, u32),
    ) {
        let gl = self.ctx.gl();
        let points = matches!(view.kind, ViewKind::Points { .. });
        let (y_lo, y_hi) = resolved.value;
        fill(gl, Some(intersect(rect, clip)), PANEL);
        if !points && y_lo < 0.0 && y_hi > 0.0 {
            let y = rect[1] + (0.0 - y_lo) / (y_hi - y_lo) * rect[3];
            fill(
                gl,
                Some(intersect([rect[0], y.floor(), rect[2], 1.0], clip)),
                AXIS,
            );
        }
        let p = &self.elements;
        p.bind();
        p.set_i32("u_tex", 0);
        p.set_i32("u_mode", i32::from(points));
        p.set_i32("u_component", i32::from(view.component));
        p.set_i32("u_width", source.width as i32);
        p.set_i32("u_count", source.count as i32);
        p.set_vec4("u_rect", rect);
        p.set_vec2("u_viewport", [viewport.0 as f32, viewport.1 as f32]);
        p.set_vec4(
            "u_bounds",
            [
                resolved.x.0,
                resolved.x.1,
                resolved.value.0,
                resolved.value.1,
            ],
        );
        p.set_f32("u_point_size", POINT_SIZE);
        p.set_vec4("u_colour", if points { POINT } else { PLOT_LINE });
        let mode = if points {
            glow::POINTS
        } else {
            glow::LINE_STRIP
        };
        // SAFETY: the program, texture and VAO are bound on the current context; the vertex
        // shader makes every vertex from its id, so no buffer is read.
        unsafe {
            scissor(gl, intersect(rect, clip));
            if points && self.ctx.profile() == brook::Profile::Gl33Core {
                gl.enable(glow::PROGRAM_POINT_SIZE);
            }
            gl.draw_arrays(mode, 0, source.count as i32);
            gl.disable(glow::SCISSOR_TEST);
        }
    }
}

/// Whether `stream` lives in a wgpu buffer.
fn is_wgpu(stream: &Stream) -> bool {
    stream.wgpu_buffer().is_ok_and(|b| b.is_some())
}

/// Clears `rect` (the whole viewport for `None`) to `colour`.
fn fill(gl: &glow::Context, rect: Option<[f32; 4]>, colour: [f32; 3]) {
    // SAFETY: plain state changes and a clear on the current context.
    unsafe {
        match rect {
            Some(rect) => scissor(gl, rect),
            None => gl.disable(glow::SCISSOR_TEST),
        }
        gl.clear_color(colour[0], colour[1], colour[2], 1.0);
        gl.clear(glow::COLOR_BUFFER_BIT);
        gl.disable(glow::SCISSOR_TEST);
    }
}

/// The part of rectangle `a` inside `b` (empty: zero width or height).
pub(crate) fn intersect(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    let x0 = a[0].max(b[0]);
    let y0 = a[1].max(b[1]);
    let x1 = (a[0] + a[2]).min(b[0] + b[2]);
    let y1 = (a[1] + a[3]).min(b[1] + b[3]);
    [x0, y0, (x1 - x0).max(0.0), (y1 - y0).max(0.0)]
}

/// Enables the scissor test over `rect`, rounded outwards to whole pixels.
///
/// # Safety
/// A GL context must be current.
unsafe fn scissor(gl: &glow::Context, rect: [f32; 4]) {
    let [x, y, w, h] = scissor_pixels(rect);
    gl.enable(glow::SCISSOR_TEST);
    gl.scissor(x, y, w, h);
}

/// The whole pixels a scissor over `rect` keeps (`[x, y, width, height]`): `rect` rounded
/// outwards. The wgpu views scissor the same pixels.
pub(crate) fn scissor_pixels(rect: [f32; 4]) -> [i32; 4] {
    let x0 = rect[0].floor();
    let y0 = rect[1].floor();
    let w = (rect[0] + rect[2]).ceil() - x0;
    let h = (rect[1] + rect[3]).ceil() - y0;
    [x0 as i32, y0 as i32, w.max(0.0) as i32, h.max(0.0) as i32]
}
