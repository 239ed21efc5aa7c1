//! A winit + wgpu window that runs Brook kernels every frame and draws the result with its
//! own shader: the application owns the device, hands it to Brook, and binds a Brook stream's
//! buffer as its vertex buffer.
//!
//! `cargo run -p brook-wgpu --example particles` (needs a display; the same code path runs
//! headless in `tests/app_device.rs`).

mod scene;

use std::sync::Arc;

use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

struct Gfx {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    config: wgpu::SurfaceConfiguration,
    scene: scene::Scene,
}

#[derive(Default)]
struct App {
    gfx: Option<Gfx>,
}

impl App {
    fn start(event_loop: &ActiveEventLoop) -> Result<Gfx, String> {
        let window = Arc::new(
            event_loop
                .create_window(Window::default_attributes().with_title("Brook particles on wgpu"))
                .map_err(|e| e.to_string())?,
        );
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| e.to_string())?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        }))
        .map_err(|e| e.to_string())?;
        let (device, queue) = pollster::block_on(adapter.request_device(&Default::default()))
            .map_err(|e| e.to_string())?;
        let size = window.inner_size();
        let config = surface
            .get_default_config(&adapter, size.width.max(1), size.height.max(1))
            .ok_or("the surface does not fit the adapter")?;
        surface.configure(&device, &config);
        let scene = scene::Scene::new(&device, &queue, adapter.get_info(), config.format, 20_000);
        Ok(Gfx {
            window,
            surface,
            device,
            queue,
            config,
            scene,
        })
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gfx.is_none() {
            match App::start(event_loop) {
                Ok(g) => self.gfx = Some(g),
                Err(e) => {
                    eprintln!("particles: {e}");
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
                match g.surface.get_current_texture() {
                    wgpu::CurrentSurfaceTexture::Success(frame)
                    | wgpu::CurrentSurfaceTexture::Suboptimal(frame) => {
                        let view = frame.texture.create_view(&Default::default());
                        g.scene.frame(&g.device, &g.queue, &view, 1.0 / 60.0);
                        g.window.pre_present_notify();
                        g.queue.present(frame);
                    }
                    wgpu::CurrentSurfaceTexture::Outdated => {
                        g.surface.configure(&g.device, &g.config)
                    }
                    _ => {}
                }
                g.window.request_redraw();
            }
            _ => {}
        }
    }
}

fn main() {
    let event_loop = match EventLoop::new() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("particles: no display ({e})");
            std::process::exit(1);
        }
    };
    let mut app = App::default();
    if let Err(e) = event_loop.run_app(&mut app) {
        eprintln!("particles: {e}");
        std::process::exit(1);
    }
}
