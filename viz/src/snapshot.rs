//! Views to images and PNG files without a window: on the runtime's own (headless) context,
//! or on one of viz's own for a runtime without GL, for tests, servers and the examples'
//! `--headless` mode.

use std::path::Path;

use brook::texture_streams::{ContextOptions, GlContext};
use brook::{Runtime, Stream};
use image::RgbaImage;

use crate::camera::Camera;
use crate::error::VizError;
use crate::image_io::save_png;
use crate::renderer::Renderer;
use crate::view::View;
use crate::wgpu_renderer::WgpuRenderer;

/// A renderer on `rt`'s GL context; on a runtime without one (the CPU, wgpu), a renderer on a
/// headless GL context of its own, which stages each CPU stream's contents into textures to
/// draw and has wgpu draw each of `rt`'s wgpu streams from its buffer.
pub fn renderer_for(rt: &Runtime) -> Result<Renderer, VizError> {
    let mut renderer = match rt.gl_context() {
        Some(ctx) => Renderer::new(ctx)?,
        None => Renderer::new(&GlContext::headless(ContextOptions::default())?)?,
    };
    renderer.show_wgpu_streams_of(rt)?;
    Ok(renderer)
}

/// `view` of `stream` (one of `rt`'s) as a `width × height` image, content fitted as in a
/// window of that size: drawn with GL, or with wgpu alone on a wgpu runtime. Builds the view
/// shaders each call: keep a [`Renderer`] or a [`WgpuRenderer`] to render many.
pub fn render(
    rt: &Runtime,
    stream: &Stream,
    view: &View,
    width: u32,
    height: u32,
) -> Result<RgbaImage, VizError> {
    let (camera, size) = (Camera::default(), (width, height));
    if rt.as_wgpu().is_some() && stream.wgpu_buffer()?.is_some() {
        return WgpuRenderer::new(rt)?.render(stream, view, &camera, size);
    }
    renderer_for(rt)?.render(stream, view, &camera, size)
}

/// `view` of `stream` rendered at `width × height` and saved as a PNG at `path`.
pub fn snapshot(
    rt: &Runtime,
    stream: &Stream,
    view: &View,
    width: u32,
    height: u32,
    path: impl AsRef<Path>,
) -> Result<(), VizError> {
    save_png(&render(rt, stream, view, width, height)?, path.as_ref())
}
