//! Brook inside a winit + wgpu application: the application makes its own device, Brook runs
//! its kernels on that device (`Runtime::on_wgpu_device`), and the application's own render
//! pass draws a stream straight from its storage buffer (`Stream::wgpu_buffer`, bound to the
//! app's fragment shader: nothing copied, nothing read back).
//!
//! `cargo run --example embed_wgpu` (a window), or
//! `cargo run --example embed_wgpu -- --headless --frames 30 --png waves.png`

pub use brook::wgpu_backend::wgpu;
use brook::{args, BrookError, Program, Runtime, Stream};

/// The Brook side: a height field of ripples from two sources, at time `t`.
pub const WAVES: &str = "
kernel void waves(float t, float2 size, out float h<>) {
    float2 p = indexof(h).xy / size.x;
    float a = length(p - float2(0.3, 0.35));
    float b = length(p - float2(0.7, 0.4));
    h = 0.5 + 0.25 * (sin(40.0 * a - t) + sin(33.0 * b - 1.3 * t));
}
";

/// The application's own drawing: one triangle over the target; each pixel finds its element
/// of the `rows × columns` field (row 0 at the top) in the storage buffer and shows it in grey
/// over `range`, as viz's `View::scalar(ColorMap::Grey)` does.
pub const DRAW: &str = "
struct Params { grid: vec2<u32>, size: vec2<f32>, range: vec2<f32>, pad: vec2<f32> }
@group(0) @binding(0) var<storage, read> field: array<f32>;
@group(0) @binding(1) var<uniform> params: Params;

@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let p = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(p * 2.0 - 1.0, 0.0, 1.0);
}

@fragment fn fs(@builtin(position) frag: vec4<f32>) -> @location(0) vec4<f32> {
    let p = frag.xy / params.size;
    let column = min(u32(p.x * f32(params.grid.x)), params.grid.x - 1u);
    let row = min(u32(p.y * f32(params.grid.y)), params.grid.y - 1u);
    let v = field[row * params.grid.x + column];
    let t = clamp((v - params.range.x) / (params.range.y - params.range.x), 0.0, 1.0);
    return vec4<f32>(t, t, t, 1.0);
}
";

/// The field's shape: rows, columns.
pub const SHAPE: [usize; 2] = [96, 128];
/// The values drawn black and white.
pub const RANGE: (f32, f32) = (0.0, 1.0);

/// Brook's program and stream on the application's device, and the application's pipeline.
pub struct Embedded {
    pub rt: Runtime,
    program: Program,
    pub field: Stream,
    t: f32,
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    params: wgpu::Buffer,
}

impl Embedded {
    /// Brook on `device` and `queue`; the pipeline draws into `format` targets.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        adapter: wgpu::AdapterInfo,
        format: wgpu::TextureFormat,
    ) -> Result<Embedded, BrookError> {
        let rt = Runtime::on_wgpu_device(device.clone(), queue.clone(), adapter);
        let program = rt.compile(WAVES, "waves.br")?;
        let field = rt.stream_of(1, &SHAPE)?;
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("field draw"),
            source: wgpu::ShaderSource::Wgsl(DRAW.into()),
        });
        let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("field draw"),
            entries: &[
                entry(0, wgpu::BufferBindingType::Storage { read_only: true }),
                entry(1, wgpu::BufferBindingType::Uniform),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("field draw"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("field draw"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some("fs"),
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("field draw params"),
            size: 32,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Ok(Embedded {
            rt,
            program,
            field,
            t: 0.0,
            pipeline,
            layout,
            params,
        })
    }

    /// One step of the simulation: Brook's kernel on the application's device.
    pub fn step(&mut self) -> Result<(), BrookError> {
        self.t += 0.2;
        let size = [SHAPE[1] as f32, SHAPE[0] as f32];
        self.rt
            .run(&self.program, "waves", args![self.t, size, &self.field])
    }

    /// The application's render pass over `target` (`size` pixels), reading the field's
    /// storage buffer.
    pub fn draw(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        target: &wgpu::TextureView,
        size: (u32, u32),
    ) -> Result<(), BrookError> {
        let words: [u32; 8] = [
            SHAPE[1] as u32,
            SHAPE[0] as u32,
            (size.0 as f32).to_bits(),
            (size.1 as f32).to_bits(),
            RANGE.0.to_bits(),
            RANGE.1.to_bits(),
            0,
            0,
        ];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
        queue.write_buffer(&self.params, 0, &bytes);
        // Lending the buffer runs a kernel call Brook may still defer.
        let buffer = (self.field.wgpu_buffer()?).expect("a wgpu stream has a buffer");
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("field draw"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: self.params.as_entire_binding(),
                },
            ],
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("the app's pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.draw(0..3, 0..1);
        }
        queue.submit([encoder.finish()]);
        Ok(())
    }
}

/// The application's device, made the way any wgpu application makes one (`surface`: the
/// window it must present to).
pub fn device_for(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<(wgpu::Adapter, wgpu::Device, wgpu::Queue), String> {
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        compatible_surface: surface,
        ..Default::default()
    }))
    .map_err(|e| format!("no adapter: {e}"))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&Default::default()))
        .map_err(|e| format!("no device: {e}"))?;
    Ok((adapter, device, queue))
}

/// `steps` steps on a device of the application's own, then [`offscreen`].
pub fn headless(steps: u64, size: (u32, u32)) -> Result<image::RgbaImage, String> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let (adapter, device, queue) = device_for(&instance, None)?;
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let mut app =
        Embedded::new(&device, &queue, adapter.get_info(), format).map_err(|e| e.to_string())?;
    for _ in 0..steps {
        app.step().map_err(|e| e.to_string())?;
    }
    offscreen(&app, &device, &queue, size)
}

/// The application's pass into an offscreen `size` texture (`Rgba8Unorm`), read back.
pub fn offscreen(
    app: &Embedded,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    size: (u32, u32),
) -> Result<image::RgbaImage, String> {
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("offscreen"),
        size: wgpu::Extent3d {
            width: size.0,
            height: size.1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = texture.create_view(&Default::default());
    app.draw(device, queue, &view, size)
        .map_err(|e| e.to_string())?;
    read_texture(device, queue, &texture)
}

/// The pixels of `texture` (8-bit RGBA or BGRA, with `COPY_SRC`) as an RGBA image: an
/// offscreen target, or a window's surface texture before it is presented.
pub fn read_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
) -> Result<image::RgbaImage, String> {
    let (w, h) = (texture.width(), texture.height());
    let row = (w * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: u64::from(row * h),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &staging,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: None,
            },
        },
        texture.size(),
    );
    queue.submit([encoder.finish()]);
    staging
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.expect("the readback maps"));
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| e.to_string())?;
    let mapped = staging
        .slice(..)
        .get_mapped_range()
        .map_err(|e| e.to_string())?;
    let bgra = matches!(
        texture.format(),
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
    );
    let pixels: Vec<u8> = mapped
        .chunks_exact(row as usize)
        .flat_map(|r| r[..(w * 4) as usize].chunks_exact(4))
        .flat_map(|p| {
            if bgra {
                [p[2], p[1], p[0], p[3]]
            } else {
                [p[0], p[1], p[2], p[3]]
            }
        })
        .collect();
    image::RgbaImage::from_raw(w, h, pixels).ok_or_else(|| "short readback".into())
}

pub mod window {
    //! The same application in a winit window: a step and a draw into the surface per frame.

    use std::sync::Arc;

    use super::{device_for, read_texture, wgpu, Embedded};
    use winit::application::ApplicationHandler;
    use winit::event::WindowEvent;
    use winit::event_loop::ActiveEventLoop;
    use winit::window::{Window, WindowId};

    struct Gfx {
        app: Embedded,
        config: wgpu::SurfaceConfiguration,
        queue: wgpu::Queue,
        device: wgpu::Device,
        surface: wgpu::Surface<'static>,
        window: Arc<Window>,
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
            let attributes = Window::default_attributes()
                .with_title("Brook in a wgpu app")
                .with_inner_size(winit::dpi::PhysicalSize::new(512, 384));
            let window = Arc::new(
                event_loop
                    .create_window(attributes)
                    .map_err(|e| e.to_string())?,
            );
            let instance =
                wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
            let surface = instance
                .create_surface(window.clone())
                .map_err(|e| e.to_string())?;
            let (adapter, device, queue) = device_for(&instance, Some(&surface))?;
            let size = window.inner_size();
            let mut config = surface
                .get_default_config(&adapter, size.width.max(1), size.height.max(1))
                .ok_or("the surface does not fit the adapter")?;
            // The field's values as they are, not sRGB-encoded; and copies out of the
            // surface where it allows them, so a frame can be checked (`last_frame`).
            let capabilities = surface.get_capabilities(&adapter);
            if let Some(linear) = capabilities.formats.iter().find(|f| !f.is_srgb()) {
                config.format = *linear;
            }
            if capabilities.usages.contains(wgpu::TextureUsages::COPY_SRC) {
                config.usage |= wgpu::TextureUsages::COPY_SRC;
            }
            surface.configure(&device, &config);
            let app = Embedded::new(&device, &queue, adapter.get_info(), config.format)
                .map_err(|e| e.to_string())?;
            Ok(Gfx {
                app,
                config,
                queue,
                device,
                surface,
                window,
            })
        }

        /// One step and one frame; with `capture`, what the frame shows (the surface
        /// texture read back before it is presented).
        fn frame(g: &mut Gfx, capture: bool) -> Result<Option<image::RgbaImage>, String> {
            g.app.step().map_err(|e| e.to_string())?;
            let mut shown = None;
            match g.surface.get_current_texture() {
                wgpu::CurrentSurfaceTexture::Success(frame)
                | wgpu::CurrentSurfaceTexture::Suboptimal(frame) => {
                    let view = frame.texture.create_view(&Default::default());
                    let size = (g.config.width, g.config.height);
                    (g.app.draw(&g.device, &g.queue, &view, size)).map_err(|e| e.to_string())?;
                    if capture {
                        if !g.config.usage.contains(wgpu::TextureUsages::COPY_SRC) {
                            return Err("the surface allows no copies out of it".into());
                        }
                        shown = Some(read_texture(&g.device, &g.queue, &frame.texture)?);
                    }
                    g.window.pre_present_notify();
                    g.queue.present(frame);
                }
                wgpu::CurrentSurfaceTexture::Outdated => g.surface.configure(&g.device, &g.config),
                _ => {}
            }
            Ok(shown)
        }
    }

    impl ApplicationHandler for App {
        fn resumed(&mut self, event_loop: &ActiveEventLoop) {
            if self.gfx.is_none() {
                match App::start(event_loop) {
                    Ok(g) => self.gfx = Some(g),
                    Err(e) => {
                        self.error = Some(e);
                        event_loop.exit();
                    }
                }
            }
        }

        fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
            let Some(g) = &mut self.gfx else { return };
            match event {
                WindowEvent::CloseRequested => event_loop.exit(),
                WindowEvent::Resized(size) => {
                    g.config.width = size.width.max(1);
                    g.config.height = size.height.max(1);
                    g.surface.configure(&g.device, &g.config);
                }
                WindowEvent::RedrawRequested => {
                    match App::frame(g, self.frames == Some(1)) {
                        Ok(shown) => self.last_frame = shown.or(self.last_frame.take()),
                        Err(e) => {
                            self.error = Some(e);
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
        headless(frames, (256, 192)).and_then(|image| {
            let path = options.png.expect("clap requires --png with --headless");
            image.save(&path).map_err(|e| e.to_string())?;
            println!("embed_wgpu: {frames} steps; wrote {}", path.display());
            Ok(())
        })
    } else {
        let mut app = window::App::new(options.frames);
        winit::event_loop::EventLoop::new()
            .map_err(|e| format!("no display: {e}"))
            .and_then(|l| l.run_app(&mut app).map_err(|e| e.to_string()))
            .and_then(|()| app.error.map_or(Ok(()), Err))
    };
    if let Err(e) = outcome {
        eprintln!("embed_wgpu: {e}");
        std::process::exit(1);
    }
}
