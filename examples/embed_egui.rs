//! Brook inside an egui application on the application's own GL context: the app makes the
//! context (glutin: a window, or EGL's device platform headless), draws its UI with egui_glow,
//! and hands the same context to Brook (`GlContext::from_glow`, `Runtime::on_context`). A
//! kernel writes a `float4` colour stream each frame, and the stream's own texture is
//! registered with egui's painter as a native texture and shown as an `egui::Image`: nothing
//! is copied or read back.
//!
//! `cargo run --example embed_egui` (a window), or
//! `cargo run --example embed_egui -- --headless --frames 30 --png plasma.png`
//!
//! egui_glow speaks glow 0.17 and Brook glow 0.18: each gets a function table of its own,
//! loaded from the same context (GL state belongs to the context, not the table).

use std::ffi::CStr;
use std::rc::Rc;
use std::sync::Arc;

use brook::texture_streams::{ContextOptions, GlContext, Profile};
use brook::{args, BrookError, Program, Runtime, Stream};
use brook_viz::egui;
use egui_glow::glow::{self as glow17, HasContext as _};

/// The Brook side: a plasma of colours at time `t`, alpha 1.
pub const PLASMA: &str = "
kernel void plasma(float t, float2 size, out float4 colour<>) {
    float2 p = indexof(colour).xy / size.x;
    float v = sin(9.0 * p.x + t) + sin(7.0 * p.y - 0.7 * t) + sin(11.0 * (p.x + p.y) + 0.5 * t);
    colour = float4(0.5 + 0.5 * sin(v), 0.5 + 0.5 * sin(v + 2.1), 0.5 + 0.5 * sin(v + 4.2), 1.0);
}
";

/// The stream's shape: rows, columns.
pub const SHAPE: [usize; 2] = [96, 128];
/// Screen pixels per element in the image.
pub const SCALE: f32 = 2.0;
/// Where the image is drawn, in points from the top-left corner.
pub const IMAGE_AT: egui::Pos2 = egui::pos2(16.0, 40.0);

/// Brook on the application's context, and the egui texture that is the stream's texture.
pub struct Embedded {
    pub rt: Runtime,
    program: Program,
    pub colours: Stream,
    t: f32,
    speed: f32,
    texture: Option<egui::TextureId>,
}

impl Embedded {
    /// Brook on the application's current context (`gl`: Brook's function table for it).
    pub fn new(gl: glow::Context, profile: Profile) -> Result<Embedded, String> {
        let options = ContextOptions {
            profile,
            ..ContextOptions::default()
        };
        let ctx: Rc<GlContext> = GlContext::from_glow(gl, options).map_err(|e| e.to_string())?;
        let rt = Runtime::on_context(ctx);
        let brook = |e: BrookError| e.to_string();
        Ok(Embedded {
            program: rt.compile(PLASMA, "plasma.br").map_err(brook)?,
            colours: rt.stream_of(4, &SHAPE).map_err(brook)?,
            rt,
            t: 0.0,
            speed: 0.2,
            texture: None,
        })
    }

    /// One step: the kernel writes the colour stream.
    pub fn step(&mut self) -> Result<(), BrookError> {
        self.t += self.speed;
        let size = [SHAPE[1] as f32, SHAPE[0] as f32];
        self.rt
            .run(&self.program, "plasma", args![self.t, size, &self.colours])
    }

    /// The application's UI: a speed slider and the stream as an image (its own texture,
    /// registered with `painter`); returns where the image went, in points.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        painter: &mut egui_glow::Painter,
    ) -> Result<egui::Rect, BrookError> {
        // Lending the textures first runs a kernel call Brook may still defer.
        let raw = {
            let textures = (self.colours.gl_textures()?).expect("a GL stream has textures");
            textures.textures()[0].raw()
        };
        let native = glow17::NativeTexture(raw.0);
        let id = match self.texture {
            Some(id) => {
                painter.replace_native_texture(id, native);
                id
            }
            None => *self.texture.insert(painter.register_native_texture(native)),
        };
        ui.add(egui::Slider::new(&mut self.speed, 0.0..=1.0).text("speed"));
        let size = egui::vec2(SHAPE[1] as f32 * SCALE, SHAPE[0] as f32 * SCALE);
        let rect = egui::Rect::from_min_size(IMAGE_AT, size);
        let image = egui::Image::new(egui::load::SizedTexture::new(id, size));
        Ok(ui.put(rect, image).rect)
    }
}

/// One egui frame of `app` over a `size` pixel framebuffer (bound): the UI laid out with
/// `input`, painted by `painter`; returns where the image went.
fn paint_frame(
    app: &mut Embedded,
    egui_ctx: &egui::Context,
    painter: &mut egui_glow::Painter,
    input: egui::RawInput,
    size: (u32, u32),
) -> Result<(egui::Rect, egui::PlatformOutput), BrookError> {
    let mut rect = Ok(egui::Rect::NOTHING);
    let mut output = egui_ctx.run_ui(input, |ui| rect = app.ui(ui, painter));
    let primitives = egui_ctx.tessellate(output.shapes, output.pixels_per_point);
    // SAFETY: the application's context is current; the default framebuffer (or the
    // headless target) is drawn into.
    unsafe {
        painter.gl().clear_color(0.1, 0.1, 0.12, 1.0);
        painter.gl().clear(glow17::COLOR_BUFFER_BIT);
    }
    painter.paint_and_update_textures(
        [size.0, size.1],
        output.pixels_per_point,
        &primitives,
        &mut output.textures_delta,
    );
    Ok((rect?, output.platform_output))
}

/// The application without a window: its own GL context on EGL's device platform, egui
/// painted into a texture of its own.
pub struct Headless {
    // Field order is drop order: Brook and the painter before the context.
    pub app: Embedded,
    painter: egui_glow::Painter,
    egui: egui::Context,
    target: (glow17::Framebuffer, glow17::Texture),
    pub size: (u32, u32),
    _context: glutin::api::egl::context::PossiblyCurrentContext,
    _display: glutin::api::egl::display::Display,
}

impl Headless {
    /// The application at `size` pixels.
    pub fn new(size: (u32, u32)) -> Result<Headless, String> {
        use glutin::api::egl::{device::Device, display::Display};
        use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
        use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
        use glutin::display::GlDisplay;
        let e = |what: &str, err: &dyn std::fmt::Display| format!("{what}: {err}");
        let device = Device::query_devices()
            .map_err(|err| e("no EGL devices", &err))?
            .next()
            .ok_or("no EGL device")?;
        // SAFETY: no DRM master fd; the device came from EGL.
        let display = unsafe { Display::with_device(&device, None) }
            .map_err(|err| e("no EGL display", &err))?;
        let template = ConfigTemplateBuilder::new()
            .with_surface_type(ConfigSurfaceTypes::empty())
            .with_api(Api::OPENGL)
            .build();
        // SAFETY: the template holds no native window.
        let config = unsafe { display.find_configs(template) }
            .map_err(|err| e("no EGL config", &err))?
            .next()
            .ok_or("no EGL config")?;
        let attributes = ContextAttributesBuilder::new()
            .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
            .with_profile(GlProfile::Core)
            .build(None);
        // SAFETY: the config belongs to the display; no window is involved.
        let context = unsafe { display.create_context(&config, &attributes) }
            .map_err(|err| e("no GL 3.3 context", &err))?
            .make_current_surfaceless()
            .map_err(|err| e("cannot make the context current", &err))?;
        let load = |name: &CStr| display.get_proc_address(name);
        // SAFETY: the context is current and outlives both tables (field order).
        let (gl17, gl18) = unsafe {
            (
                glow17::Context::from_loader_function_cstr(load),
                glow::Context::from_loader_function_cstr(load),
            )
        };
        let gl17 = Arc::new(gl17);
        // SAFETY: the app's own target, on the current context.
        let target = unsafe {
            let texture = gl17.create_texture()?;
            gl17.bind_texture(glow17::TEXTURE_2D, Some(texture));
            gl17.tex_storage_2d(
                glow17::TEXTURE_2D,
                1,
                glow17::RGBA8,
                size.0 as i32,
                size.1 as i32,
            );
            let fbo = gl17.create_framebuffer()?;
            gl17.bind_framebuffer(glow17::FRAMEBUFFER, Some(fbo));
            gl17.framebuffer_texture_2d(
                glow17::FRAMEBUFFER,
                glow17::COLOR_ATTACHMENT0,
                glow17::TEXTURE_2D,
                Some(texture),
                0,
            );
            (fbo, texture)
        };
        let painter = egui_glow::Painter::new(Arc::clone(&gl17), "", None, false)
            .map_err(|err| e("no egui painter", &err))?;
        let app = Embedded::new(gl18, Profile::Gl33Core)?;
        Ok(Headless {
            app,
            painter,
            egui: egui::Context::default(),
            target,
            size,
            _context: context,
            _display: display,
        })
    }

    /// One frame painted into the target and read back (row 0 at the top); where the image
    /// went, in pixels (one pixel per point).
    pub fn frame(&mut self) -> Result<(image::RgbaImage, egui::Rect), String> {
        let (w, h) = self.size;
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(w as f32, h as f32),
            )),
            ..Default::default()
        };
        let gl = Arc::clone(self.painter.gl());
        // SAFETY: the app's target on its current context.
        unsafe { gl.bind_framebuffer(glow17::FRAMEBUFFER, Some(self.target.0)) };
        let (rect, _) = paint_frame(
            &mut self.app,
            &self.egui,
            &mut self.painter,
            input,
            self.size,
        )
        .map_err(|err| err.to_string())?;
        // The target again: Brook binds its own FBOs.
        let image = read_pixels(&gl, Some(self.target.0), (w, h))?;
        Ok((image, rect))
    }
}

/// The `size` pixels of `framebuffer` (the default one for `None`: the window's back
/// buffer) as an image, row 0 at the top.
fn read_pixels(
    gl: &glow17::Context,
    framebuffer: Option<glow17::Framebuffer>,
    size: (u32, u32),
) -> Result<image::RgbaImage, String> {
    let (w, h) = size;
    let mut pixels = vec![0u8; (w * h * 4) as usize];
    // SAFETY: the app's current context; `pixels` holds `size` RGBA8 pixels at alignment 1.
    unsafe {
        gl.bind_framebuffer(glow17::FRAMEBUFFER, framebuffer);
        gl.pixel_store_i32(glow17::PACK_ALIGNMENT, 1);
        gl.read_pixels(
            0,
            0,
            w as i32,
            h as i32,
            glow17::RGBA,
            glow17::UNSIGNED_BYTE,
            glow17::PixelPackData::Slice(Some(&mut pixels)),
        );
    }
    let mut image = image::RgbaImage::from_raw(w, h, pixels).ok_or("short read")?;
    image::imageops::flip_vertical_in_place(&mut image);
    Ok(image)
}

impl Drop for Headless {
    fn drop(&mut self) {
        self.painter.destroy();
        // SAFETY: the app's own objects, on its current context.
        unsafe {
            let gl = self.painter.gl();
            gl.delete_framebuffer(self.target.0);
            gl.delete_texture(self.target.1);
        }
    }
}

pub mod window {
    //! The same application in a winit window with a glutin context (GLX or EGL on X11).

    use std::num::NonZeroU32;

    use super::*;
    use glutin::config::{ConfigTemplateBuilder, GlConfig};
    use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
    use glutin::display::{GetGlDisplay, GlDisplay};
    use glutin::prelude::{GlSurface, NotCurrentGlContext};
    use glutin_winit::{DisplayBuilder, GlWindow as _};
    use raw_window_handle::HasWindowHandle;
    use winit::application::ApplicationHandler;
    use winit::event::WindowEvent;
    use winit::event_loop::ActiveEventLoop;
    use winit::window::{Window, WindowId};

    struct Gfx {
        app: Embedded,
        painter: egui_glow::Painter,
        egui: egui::Context,
        input: egui_winit::State,
        surface: glutin::surface::Surface<glutin::surface::WindowSurface>,
        context: glutin::context::PossiblyCurrentContext,
        window: Window,
    }

    pub struct App {
        gfx: Option<Gfx>,
        pub frames: Option<u64>,
        pub error: Option<String>,
        /// What the last of `frames` frames showed.
        pub last_frame: Option<image::RgbaImage>,
    }

    impl App {
        pub fn new(frames: Option<u64>) -> App {
            App {
                gfx: None,
                frames,
                error: None,
                last_frame: None,
            }
        }

        fn start(event_loop: &ActiveEventLoop) -> Result<Gfx, String> {
            let e = |what: &str, err: &dyn std::fmt::Display| format!("{what}: {err}");
            let attributes = Window::default_attributes()
                .with_title("Brook in an egui app")
                .with_inner_size(winit::dpi::PhysicalSize::new(320, 260));
            let (window, config) = DisplayBuilder::new()
                .with_window_attributes(Some(attributes))
                .build(event_loop, ConfigTemplateBuilder::new(), |configs| {
                    configs.min_by_key(|c| c.num_samples()).expect("a config")
                })
                .map_err(|err| e("no GL config", &err))?;
            let window = window.ok_or("no window")?;
            let handle = window
                .window_handle()
                .map_err(|err| e("no window handle", &err))?
                .as_raw();
            let display = config.display();
            let attributes = ContextAttributesBuilder::new()
                .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
                .with_profile(GlProfile::Core)
                .build(Some(handle));
            // SAFETY: the config and the window belong to this display.
            let context = unsafe { display.create_context(&config, &attributes) }
                .map_err(|err| e("no GL 3.3 context", &err))?;
            let surface_attributes = window
                .build_surface_attributes(Default::default())
                .map_err(|err| e("no surface attributes", &err))?;
            // SAFETY: made from this window, which outlives the surface (field order).
            let surface = unsafe { display.create_window_surface(&config, &surface_attributes) }
                .map_err(|err| e("no window surface", &err))?;
            let context = context
                .make_current(&surface)
                .map_err(|err| e("cannot make the context current", &err))?;
            let load = |name: &CStr| display.get_proc_address(name);
            // SAFETY: the context is current and outlives both tables (field order).
            let (gl17, gl18) = unsafe {
                (
                    glow17::Context::from_loader_function_cstr(load),
                    glow::Context::from_loader_function_cstr(load),
                )
            };
            let painter = egui_glow::Painter::new(Arc::new(gl17), "", None, false)
                .map_err(|err| e("no egui painter", &err))?;
            let app = Embedded::new(gl18, Profile::Gl33Core)?;
            let egui = egui::Context::default();
            let input = egui_winit::State::new(
                egui.clone(),
                egui::ViewportId::ROOT,
                &window,
                Some(window.scale_factor() as f32),
                None,
                Some(painter.max_texture_side()),
            );
            Ok(Gfx {
                app,
                painter,
                egui,
                input,
                surface,
                context,
                window,
            })
        }

        /// One step and one painted frame; with `capture`, what the frame shows (read from
        /// the back buffer before the swap, row 0 at the top).
        fn frame(g: &mut Gfx, capture: bool) -> Result<Option<image::RgbaImage>, String> {
            g.app.step().map_err(|err| err.to_string())?;
            let size = g.window.inner_size();
            let size = (size.width.max(1), size.height.max(1));
            // SAFETY: the window's context is current; Brook leaves its FBOs bound.
            unsafe { g.painter.gl().bind_framebuffer(glow17::FRAMEBUFFER, None) };
            let input = g.input.take_egui_input(&g.window);
            let (_, platform) = paint_frame(&mut g.app, &g.egui, &mut g.painter, input, size)
                .map_err(|err| err.to_string())?;
            g.input.handle_platform_output(&g.window, platform);
            let shown = capture
                .then(|| read_pixels(g.painter.gl(), None, size))
                .transpose()?;
            g.surface
                .swap_buffers(&g.context)
                .map_err(|err| format!("swapping buffers: {err}"))?;
            Ok(shown)
        }
    }

    impl ApplicationHandler for App {
        fn resumed(&mut self, event_loop: &ActiveEventLoop) {
            if self.gfx.is_none() {
                match App::start(event_loop) {
                    Ok(g) => self.gfx = Some(g),
                    Err(err) => {
                        self.error = Some(err);
                        event_loop.exit();
                    }
                }
            }
        }

        fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
            let Some(g) = &mut self.gfx else { return };
            let _ = g.input.on_window_event(&g.window, &event);
            match event {
                WindowEvent::CloseRequested => event_loop.exit(),
                WindowEvent::Resized(size) => {
                    if let (Some(w), Some(h)) =
                        (NonZeroU32::new(size.width), NonZeroU32::new(size.height))
                    {
                        g.surface.resize(&g.context, w, h);
                    }
                }
                WindowEvent::RedrawRequested => {
                    match App::frame(g, self.frames == Some(1)) {
                        Ok(shown) => self.last_frame = shown.or(self.last_frame.take()),
                        Err(err) => {
                            self.error = Some(err);
                            return event_loop.exit();
                        }
                    }
                    if let Some(left) = &mut self.frames {
                        *left = left.saturating_sub(1);
                        if *left == 0 {
                            return event_loop.exit();
                        }
                    }
                    g.window.request_redraw();
                }
                _ => {}
            }
        }
    }

    impl Drop for Gfx {
        fn drop(&mut self) {
            self.painter.destroy();
        }
    }
}

/// `--headless --frames N --png PATH`, or a window (closing after `--frames N` when given).
#[derive(clap::Parser)]
struct Options {
    #[arg(long, requires = "png")]
    headless: bool,
    #[arg(long)]
    frames: Option<u64>,
    #[arg(long)]
    png: Option<std::path::PathBuf>,
}

fn main() {
    let options = <Options as clap::Parser>::parse();
    let outcome = if options.headless {
        let frames = options.frames.unwrap_or(30);
        Headless::new((320, 260)).and_then(|mut headless| {
            for _ in 0..frames {
                headless.app.step().map_err(|err| err.to_string())?;
            }
            let (image, _) = headless.frame()?;
            let path = options.png.expect("clap requires --png with --headless");
            image.save(&path).map_err(|err| err.to_string())?;
            println!("embed_egui: {frames} steps; wrote {}", path.display());
            Ok(())
        })
    } else {
        let mut app = window::App::new(options.frames);
        winit::event_loop::EventLoop::new()
            .map_err(|err| format!("no display: {err}"))
            .and_then(|l| l.run_app(&mut app).map_err(|err| err.to_string()))
            .and_then(|()| app.error.map_or(Ok(()), Err))
    };
    if let Err(err) = outcome {
        eprintln!("embed_egui: {err}");
        std::process::exit(1);
    }
}
