//! Views of wgpu streams drawn with wgpu, on the stream's own device, straight from its
//! storage buffer: nothing of the stream is copied. The WGSL twins of the GL view shaders
//! ([`shaders`](crate::shaders)) draw into a float target laid out like the GL renderer's
//! framebuffer (same rectangle, scissors and fills), so the picture equals the GL view of the
//! same values pixel for pixel (`tests/wgpu_views.rs`).

use std::cell::RefCell;

use brook::wgpu_backend::wgpu;
use brook::{Runtime, Stream};
use image::RgbaImage;
use wgpu::util::DeviceExt;

use crate::camera::Camera;
use crate::error::VizError;
use crate::image_io::rgba_from_floats_top_down;
use crate::range::{resolve, Resolved};
use crate::renderer::{
    intersect, scissor_pixels, AXIS, BACKGROUND, PANEL, PLOT_LINE, POINT, POINT_SIZE,
};
use crate::shaders::{
    image_mode, ELEMENT_FETCH_WGSL, ELEMENT_WGSL, FILL_WGSL, FULLSCREEN_WGSL, IMAGE_WGSL,
};
use crate::view::{View, ViewKind};
use crate::MAX_STOPS;

/// Float pixels, so the 8-bit rounding is the host's (`rgba_from_floats`), as for GL.
const TARGET: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;
/// Bytes of one target pixel.
const PIXEL_BYTES: u32 = 16;

/// The view pipelines of one wgpu device.
pub struct WgpuRenderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// The stream's buffer (binding 0) and the view's uniforms (binding 1).
    views: wgpu::BindGroupLayout,
    /// A fill's colour (binding 0).
    fills: wgpu::BindGroupLayout,
    image: wgpu::RenderPipeline,
    plot: wgpu::RenderPipeline,
    points: wgpu::RenderPipeline,
    fill: wgpu::RenderPipeline,
    /// The last view's target, kept for the next of its size.
    target: RefCell<Option<Target>>,
}

/// Which of the renderer's pipelines a draw uses.
#[derive(Clone, Copy)]
enum Pipeline {
    Image,
    Plot,
    Points,
    Fill,
}

/// One draw of a pass: a pipeline, its bind group, the vertices and the scissor (top-left
/// origin, target pixels).
struct Draw {
    pipeline: Pipeline,
    group: wgpu::BindGroup,
    vertices: u32,
    scissor: [u32; 4],
}

impl WgpuRenderer {
    /// The view pipelines on `rt`'s device; an error on a runtime of another backend.
    pub fn new(rt: &Runtime) -> Result<WgpuRenderer, VizError> {
        let backend = rt.as_wgpu().ok_or_else(|| {
            VizError::Usage(format!(
                "a wgpu renderer needs a wgpu runtime, not {}",
                rt.backend_name()
            ))
        })?;
        WgpuRenderer::on_device(backend.device(), backend.queue())
    }

    /// The view pipelines on `device` (an application's own, as `Runtime::on_wgpu_device`).
    pub fn on_device(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<WgpuRenderer, VizError> {
        scoped(device, "building the wgpu view pipelines", || {
            let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
                binding,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            };
            let views = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("viz view"),
                entries: &[
                    entry(0, wgpu::BufferBindingType::Storage { read_only: true }),
                    entry(1, wgpu::BufferBindingType::Uniform),
                ],
            });
            let fills = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("viz fill"),
                entries: &[entry(0, wgpu::BufferBindingType::Uniform)],
            });
            let module = |label, parts: &[&str]| {
                device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(label),
                    source: wgpu::ShaderSource::Wgsl(parts.concat().into()),
                })
            };
            let image = module(
                "viz image view",
                &[FULLSCREEN_WGSL, ELEMENT_FETCH_WGSL, IMAGE_WGSL],
            );
            let elements = module("viz plot/points view", &[ELEMENT_FETCH_WGSL, ELEMENT_WGSL]);
            let fill = module("viz fill", &[FULLSCREEN_WGSL, FILL_WGSL]);
            let pipeline = |layout: &wgpu::BindGroupLayout,
                            module: &wgpu::ShaderModule,
                            (vertex, fragment),
                            topology| {
                let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: None,
                    bind_group_layouts: &[Some(layout)],
                    immediate_size: 0,
                });
                device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: Some(fragment),
                    layout: Some(&layout),
                    vertex: wgpu::VertexState {
                        module,
                        entry_point: Some(vertex),
                        compilation_options: Default::default(),
                        buffers: &[],
                    },
                    primitive: wgpu::PrimitiveState {
                        topology,
                        ..Default::default()
                    },
                    depth_stencil: None,
                    multisample: Default::default(),
                    fragment: Some(wgpu::FragmentState {
                        module,
                        entry_point: Some(fragment),
                        compilation_options: Default::default(),
                        targets: &[Some(TARGET.into())],
                    }),
                    multiview_mask: None,
                    cache: None,
                })
            };
            let triangles = wgpu::PrimitiveTopology::TriangleList;
            Ok(WgpuRenderer {
                image: pipeline(&views, &image, ("fullscreen", "image"), triangles),
                plot: pipeline(
                    &views,
                    &elements,
                    ("elements", "flat"),
                    wgpu::PrimitiveTopology::LineStrip,
                ),
                points: pipeline(&views, &elements, ("elements", "flat"), triangles),
                fill: pipeline(&fills, &fill, ("fullscreen", "fill"), triangles),
                device: device.clone(),
                queue: queue.clone(),
                target: RefCell::new(None),
                views,
                fills,
            })
        })
    }

    /// Renders `view` of `stream` (a stream of this renderer's device) into a new `size`
    /// image, as [`Renderer::render`](crate::Renderer::render) does with GL.
    pub fn render(
        &self,
        stream: &Stream,
        view: &View,
        camera: &Camera,
        size: (u32, u32),
    ) -> Result<RgbaImage, VizError> {
        let resolved = resolve(stream, view)?;
        let floats = self.draw_area(
            stream,
            view,
            &resolved,
            camera,
            size,
            [0, 0, size.0, size.1],
        )?;
        Ok(rgba_from_floats_top_down(&floats, size))
    }

    /// `view` of `stream` drawn over `area` (`[x, y, width, height]`, GL pixels of a
    /// `viewport`-sized framebuffer) as the GL renderer draws it there: the area's pixels as
    /// RGBA floats, top row first.
    pub(crate) fn draw_area(
        &self,
        stream: &Stream,
        view: &View,
        resolved: &Resolved,
        camera: &Camera,
        viewport: (u32, u32),
        area: [u32; 4],
    ) -> Result<Vec<f32>, VizError> {
        let components = view.check(stream.format())?;
        let buffer = stream.wgpu_buffer()?.ok_or_else(|| {
            VizError::Usage("only a wgpu stream (not an iterator) is drawn with wgpu".into())
        })?;
        let format = stream.format();
        let fetch = [
            format.floats_per_element() as i32,
            format.member_offset(view.member) as i32,
            i32::from(components),
            0,
        ];
        let shape = stream.shape();
        let rect = camera.content_rect(view, shape, area);
        let areaf = area.map(|v| v as f32);
        let clip = intersect(rect, areaf);
        let local = |r: [f32; 4]| scissor_in(scissor_pixels(r), area);
        let mut draws = Vec::new();
        let fill = |draws: &mut Vec<Draw>, r: [f32; 4], colour: [f32; 3]| {
            draws.push(Draw {
                pipeline: Pipeline::Fill,
                group: self.group(&self.fills, None, &words(&colour_words(colour, 1.0))),
                vertices: 3,
                scissor: local(r),
            });
        };
        let origin = [area[0] as f32, area[1] as f32];
        let (w, h) = (area[2], area[3]);
        if view.is_image() {
            let columns = shape[shape.len() - 1];
            let rows = stream.len() / columns;
            let (mode, stops) = image_mode(view);
            let mut u = Vec::new();
            u.extend(floats(&rect));
            u.extend(floats(&[resolved.value.0, resolved.value.1]));
            u.extend(ints(&[columns as i32, rows as i32]));
            u.extend(colour_words(BACKGROUND, 1.0));
            u.extend(ints(&[
                mode,
                i32::from(view.component),
                stops.len() as i32,
                0,
            ]));
            u.extend(ints(&fetch));
            u.extend(floats(&[origin[0], origin[1], h as f32, 0.0]));
            for i in 0..MAX_STOPS {
                u.extend(colour_words(stops.get(i).copied().unwrap_or_default(), 0.0));
            }
            draws.push(Draw {
                pipeline: Pipeline::Image,
                group: self.group(&self.views, Some(&buffer), &words(&u)),
                vertices: 3,
                scissor: local(intersect(rect, clip)),
            });
        } else {
            let points = matches!(view.kind, ViewKind::Points { .. });
            let (y_lo, y_hi) = resolved.value;
            fill(&mut draws, intersect(rect, clip), PANEL);
            if !points && y_lo < 0.0 && y_hi > 0.0 {
                let y = rect[1] + (0.0 - y_lo) / (y_hi - y_lo) * rect[3];
                fill(
                    &mut draws,
                    intersect([rect[0], y.floor(), rect[2], 1.0], clip),
                    AXIS,
                );
            }
            let colour = if points { POINT } else { PLOT_LINE };
            let mut u = Vec::new();
            u.extend(floats(&rect));
            u.extend(floats(&[resolved.x.0, resolved.x.1, y_lo, y_hi]));
            u.extend(floats(&colour));
            u.extend(floats(&[w as f32, h as f32, origin[0], origin[1]]));
            u.extend(ints(&[
                i32::from(points),
                i32::from(view.component),
                stream.len() as i32,
            ]));
            u.extend(floats(&[POINT_SIZE]));
            u.extend(ints(&fetch));
            u.extend(floats(&[viewport.0 as f32, viewport.1 as f32, 0.0, 0.0]));
            let count = stream.len() as u32;
            draws.push(Draw {
                pipeline: if points {
                    Pipeline::Points
                } else {
                    Pipeline::Plot
                },
                group: self.group(&self.views, Some(&buffer), &words(&u)),
                vertices: if points { count * 6 } else { count },
                scissor: local(intersect(rect, clip)),
            });
        }
        drop(buffer);
        self.run(&draws, (w, h))
    }

    /// A bind group of `layout`: the stream's buffer first when given, then `uniforms`.
    fn group(
        &self,
        layout: &wgpu::BindGroupLayout,
        stream: Option<&wgpu::Buffer>,
        uniforms: &[u8],
    ) -> wgpu::BindGroup {
        let uniforms = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("viz view uniforms"),
                contents: uniforms,
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let mut entries = Vec::new();
        if let Some(buffer) = stream {
            entries.push(buffer.as_entire_binding());
        }
        entries.push(uniforms.as_entire_binding());
        let entries: Vec<wgpu::BindGroupEntry<'_>> = (entries.into_iter().enumerate())
            .map(|(i, resource)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource,
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("viz view"),
            layout,
            entries: &entries,
        })
    }

    /// `draws` into a new `size` target cleared to the background, read back (top row
    /// first).
    fn run(&self, draws: &[Draw], size: (u32, u32)) -> Result<Vec<f32>, VizError> {
        let (w, h) = size;
        let row = (w * PIXEL_BYTES).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let mut kept = self.target.borrow_mut();
        let Target { texture, staging } = match kept.take() {
            Some(t) if t.texture.size() == extent(size) => t,
            _ => Target {
                texture: self.device.create_texture(&wgpu::TextureDescriptor {
                    label: Some("viz view target"),
                    size: extent(size),
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format: TARGET,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                    view_formats: &[],
                }),
                staging: self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("viz view read-back"),
                    size: u64::from(row) * u64::from(h),
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
            },
        };
        let target = &texture;
        let pixels = scoped(&self.device, "drawing a wgpu view", || {
            let mut encoder = self.device.create_command_encoder(&Default::default());
            {
                let view = target.create_view(&Default::default());
                let [r, g, b] = BACKGROUND.map(f64::from);
                let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("viz view"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a: 1.0 }),
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    ..Default::default()
                });
                for draw in draws
                    .iter()
                    .filter(|d| d.scissor[2] > 0 && d.scissor[3] > 0)
                {
                    let [x, y, sw, sh] = draw.scissor;
                    pass.set_scissor_rect(x, y, sw, sh);
                    pass.set_pipeline(match draw.pipeline {
                        Pipeline::Image => &self.image,
                        Pipeline::Plot => &self.plot,
                        Pipeline::Points => &self.points,
                        Pipeline::Fill => &self.fill,
                    });
                    pass.set_bind_group(0, &draw.group, &[]);
                    pass.draw(0..draw.vertices, 0..1);
                }
            }
            encoder.copy_texture_to_buffer(
                target.as_image_copy(),
                wgpu::TexelCopyBufferInfo {
                    buffer: &staging,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(row),
                        rows_per_image: None,
                    },
                },
                target.size(),
            );
            self.queue.submit([encoder.finish()]);
            staging.slice(..).map_async(wgpu::MapMode::Read, |_| {});
            self.device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| VizError::Wgpu(format!("waiting for a view: {e}")))?;
            let mapped = (staging.slice(..).get_mapped_range())
                .map_err(|e| VizError::Wgpu(format!("reading a view back: {e}")))?;
            let used = (w * PIXEL_BYTES) as usize;
            let mut pixels = Vec::with_capacity(used / 4 * h as usize);
            for r in mapped.chunks_exact(row as usize) {
                // Mapped ranges are aligned (`wgpu::MAP_ALIGNMENT`), rows too (256 bytes).
                pixels.extend_from_slice(bytemuck::cast_slice::<u8, f32>(&r[..used]));
            }
            drop(mapped);
            staging.unmap();
            Ok(pixels)
        });
        // After an error the buffer may still be mapped: the next view makes new ones.
        if pixels.is_ok() {
            *kept = Some(Target { texture, staging });
        }
        pixels
    }
}

/// A target of `size` pixels and the buffer it is read back through, kept for the next view
/// of the same size (a live window draws one every frame).
struct Target {
    texture: wgpu::Texture,
    staging: wgpu::Buffer,
}

fn extent(size: (u32, u32)) -> wgpu::Extent3d {
    wgpu::Extent3d {
        width: size.0,
        height: size.1,
        depth_or_array_layers: 1,
    }
}

/// A scissor rectangle of GL pixels (`[x, y, width, height]`, y up, in the framebuffer the
/// area is part of) as wgpu's in a target of the area alone (y down), clamped to it.
fn scissor_in(gl: [i32; 4], area: [u32; 4]) -> [u32; 4] {
    let [ax, ay, w, h] = area.map(|v| v as i32);
    let x0 = (gl[0] - ax).clamp(0, w);
    let x1 = (gl[0] + gl[2] - ax).clamp(0, w);
    let y0 = (gl[1] - ay).clamp(0, h);
    let y1 = (gl[1] + gl[3] - ay).clamp(0, h);
    [x0, h - y1, x1 - x0, y1 - y0].map(|v| v as u32)
}

/// Runs `work` inside a validation error scope, so a bad shader or draw is an error, not
/// wgpu's default panic.
fn scoped<T>(
    device: &wgpu::Device,
    what: &str,
    work: impl FnOnce() -> Result<T, VizError>,
) -> Result<T, VizError> {
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let result = work();
    match pollster::block_on(validation.pop()) {
        Some(e) => Err(VizError::Wgpu(format!("{what}: {e}"))),
        None => result,
    }
}

fn floats(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

fn ints(v: &[i32]) -> Vec<u32> {
    v.iter().map(|&i| i as u32).collect()
}

fn colour_words(rgb: [f32; 3], a: f32) -> Vec<u32> {
    floats(&[rgb[0], rgb[1], rgb[2], a])
}

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|w| w.to_ne_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scissors_move_into_the_area_and_flip() {
        // An area at (10, 20) of 100 × 50: a GL rectangle at its bottom-left corner, 5 × 4.
        assert_eq!(scissor_in([10, 20, 5, 4], [10, 20, 100, 50]), [0, 46, 5, 4]);
        // Clamped to the area.
        assert_eq!(
            scissor_in([0, 0, 300, 300], [10, 20, 100, 50]),
            [0, 0, 100, 50]
        );
    }
}
