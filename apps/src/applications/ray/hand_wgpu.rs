//! The ray tracer hand-written in wgpu: Brook's three passes (ray setup, the nearest hit over
//! every triangle, shading), each one invocation per pixel in workgroups of 64 along the rows
//! and its own submission, as each Brook call is. Rays, hits and colours are `vec4` arrays
//! (Brook's `float3` streams take 16 bytes an element too).

use super::scene::{Camera, Scene};
use super::Compared;
use crate::app::{Env, Variant};
use crate::error::AppError;
use crate::wgpukit::{grid, Gpu, Kernel};

/// What all three passes declare: the camera and light, the image size, the triangle count.
const HEADER: &str = "
struct View { eye: vec4<f32>, corner: vec4<f32>, dx: vec4<f32>, dy: vec4<f32>,
              light: vec4<f32>, width: u32, pixels: u32, count: u32 }
@group(0) @binding(0) var<uniform> view: View;
fn pixel(g: vec3<u32>, nw: vec3<u32>) -> u32 {
    return g.x + g.y * nw.x * 64u;
}
";

const SETUP: &str = "
@group(0) @binding(1) var<storage, read_write> origins: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> directions: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let i = pixel(g, nw);
    if i >= view.pixels {
        return;
    }
    let p = vec2(f32(i % view.width), f32(i / view.width)) + 0.5;
    origins[i] = view.eye;
    directions[i] = vec4(normalize(view.corner.xyz + p.x * view.dx.xyz + p.y * view.dy.xyz), 0.0);
}
";

const INTERSECT: &str = "
@group(0) @binding(1) var<storage, read> origins: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> directions: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> tris: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> hits: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let p = pixel(g, nw);
    if p >= view.pixels {
        return;
    }
    let o = origins[p].xyz;
    let d = directions[p].xyz;
    var best = 0.0;
    var id = -1;
    for (var i = 0u; i < view.count; i++) {
        let v0 = tris[3u * i].xyz;
        let edge1 = tris[3u * i + 1u].xyz - v0;
        let edge2 = tris[3u * i + 2u].xyz - v0;
        let pvec = cross(d, edge2);
        let inv_det = 1.0 / dot(edge1, pvec);
        let tvec = o - v0;
        let u = dot(tvec, pvec) * inv_det;
        let qvec = cross(tvec, edge1);
        let v = dot(d, qvec) * inv_det;
        let t = dot(edge2, qvec) * inv_det;
        if u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t > 0.0 && (id < 0 || t < best) {
            best = t;
            id = i32(i);
        }
    }
    hits[p] = vec4(best, f32(id), 0.0, 0.0);
}
";

const SHADE: &str = "
@group(0) @binding(1) var<storage, read> origins: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> directions: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> tris: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> hits: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> colours: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {
    let p = pixel(g, nw);
    if p >= view.pixels {
        return;
    }
    let hit = hits[p];
    var colour = vec4(0.0, -1.0, 0.0, 0.0);
    if hit.y >= 0.0 {
        let id = 3u * u32(hit.y);
        let o = origins[p].xyz;
        let d = directions[p].xyz;
        let v0 = tris[id].xyz;
        var n = normalize(cross(tris[id + 1u].xyz - v0, tris[id + 2u].xyz - v0));
        if dot(n, d) > 0.0 {
            n = -n;
        }
        let l = normalize(view.light.xyz - (o + hit.x * d));
        colour = vec4(hit.x, hit.y, 0.1 + 0.9 * max(dot(n, l), 0.0), 0.0);
    }
    colours[p] = colour;
}
";

pub struct HandWgpuRay {
    gpu: Gpu,
    pixels: usize,
    vertices: Vec<f32>,
    tris: wgpu::Buffer,
    colours: wgpu::Buffer,
    /// Setup, intersection and shading, each with its bind group.
    passes: Vec<(Kernel, wgpu::BindGroup)>,
    compared: Compared,
}

impl HandWgpuRay {
    pub fn new(
        env: &Env,
        scene: &Scene,
        camera: &Camera,
        compared: Compared,
    ) -> Result<Self, AppError> {
        let gpu = Gpu::of(env)?;
        let pixels = camera.width * camera.height;
        let count = scene.triangles.len();
        let vec4 = |v: [f32; 3]| [v[0], v[1], v[2], 0.0];
        let mut words: Vec<u32> = [camera.eye, camera.corner, camera.dx, camera.dy, scene.light]
            .into_iter()
            .flat_map(vec4)
            .map(f32::to_bits)
            .collect();
        words.extend([camera.width, pixels, count].map(|v| v as u32));
        let view = gpu.uniform(&words);
        let vertices = (scene.triangles.iter().flatten())
            .flat_map(|v| vec4(*v))
            .collect();
        let tris = gpu.storage(count * 3 * 4);
        let [origins, directions, hits, colours] = [(); 4].map(|_| gpu.storage(pixels * 4));
        let mut passes = Vec::new();
        for (wgsl, bound) in [
            (SETUP, vec![&view, &origins, &directions]),
            (INTERSECT, vec![&view, &origins, &directions, &tris, &hits]),
            (
                SHADE,
                vec![&view, &origins, &directions, &tris, &hits, &colours],
            ),
        ] {
            let kernel = gpu.kernel(&format!("{HEADER}{wgsl}"))?;
            let group = gpu.bind(&kernel, &bound)?;
            passes.push((kernel, group));
        }
        Ok(HandWgpuRay {
            gpu,
            pixels,
            vertices,
            tris,
            colours,
            passes,
            compared,
        })
    }
}

impl Variant for HandWgpuRay {
    fn upload(&mut self) -> Result<(), AppError> {
        self.gpu.upload(&self.tris, &self.vertices)
    }

    fn compute(&mut self) -> Result<(), AppError> {
        for (kernel, group) in &self.passes {
            self.gpu.run(&[(kernel, group, grid(self.pixels, 64))])?;
        }
        Ok(())
    }

    fn sync(&self) {
        self.gpu.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        let image = self.gpu.read(&self.colours, self.pixels * 4)?;
        self.compared.pick(&image)
    }
}
