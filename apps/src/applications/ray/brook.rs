//! The Brook ray tracer: three kernels, as in the paper — ray setup from a pixel iterator,
//! intersection with every triangle gathered from a triangle stream (the paper's
//! Möller–Trumbore kernel, 001 §3.2, in a loop keeping the nearest hit), and shading.

use brook::{args, BrookError, IterSpec, Program, Runtime, Stream};

use super::scene::{Camera, Scene};
use super::Compared;
use crate::app::Variant;
use crate::brook_run::Inputs;
use crate::error::AppError;

const BROOK: &str = "
kernel void setup(iter float2 pixel<>, float3 eye, float3 corner, float3 dx, float3 dy,
                  out float3 o<>, out float3 d<>) {
    o = eye;
    d = normalize(corner + pixel.x * dx + pixel.y * dy);
}

// tris[i][k] is vertex k of triangle i. hit = (t, triangle id) of the nearest hit, (0, -1).
kernel void intersect(float3 o<>, float3 d<>, float3 tris[][], float count,
                      out float4 hit<>) {
    float best = 0.0;
    float id = -1.0;
    for (float i = 0.0; i < count; i += 1.0) {
        float3 v0 = tris[i][0];
        float3 edge1 = tris[i][1] - v0;
        float3 edge2 = tris[i][2] - v0;
        float3 pvec = cross(d, edge2);
        float inv_det = 1.0 / dot(edge1, pvec);
        float3 tvec = o - v0;
        float u = dot(tvec, pvec) * inv_det;
        float3 qvec = cross(tvec, edge1);
        float v = dot(d, qvec) * inv_det;
        float t = dot(edge2, qvec) * inv_det;
        if (u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t > 0.0 && (id < 0.0 || t < best)) {
            best = t;
            id = i;
        }
    }
    hit = float4(best, id, 0.0, 0.0);
}

// Lambert from a point light, the normal turned towards the viewer: (t, id, shade, 0).
kernel void shade(float3 o<>, float3 d<>, float4 hit<>, float3 tris[][], float3 light,
                  out float4 colour<>) {
    colour = float4(0.0, -1.0, 0.0, 0.0);
    if (hit.y >= 0.0) {
        float3 v0 = tris[hit.y][0];
        float3 n = normalize(cross(tris[hit.y][1] - v0, tris[hit.y][2] - v0));
        if (dot(n, d) > 0.0) {
            n = -n;
        }
        float3 l = normalize(light - (o + hit.x * d));
        colour = float4(hit.x, hit.y, 0.1 + 0.9 * max(dot(n, l), 0.0), 0.0);
    }
}
";

pub struct BrookRay<'a> {
    rt: &'a Runtime,
    program: Program,
    camera: [[f32; 3]; 4],
    light: [f32; 3],
    count: usize,
    /// The triangles, `<count, 3>` vertices.
    inputs: Inputs,
    pixels: Stream,
    origins: Stream,
    directions: Stream,
    hits: Stream,
    colours: Stream,
    compared: Compared,
}

impl<'a> BrookRay<'a> {
    pub fn new(
        rt: &'a Runtime,
        scene: &Scene,
        camera: &Camera,
        compared: Compared,
    ) -> Result<Self, AppError> {
        let shape = [camera.height, camera.width];
        let count = scene.triangles.len();
        let vertices = scene
            .triangles
            .iter()
            .flatten()
            .flatten()
            .copied()
            .collect();
        let mut inputs = Inputs::default();
        inputs.add(rt, 3, &[count, 3], vertices)?;
        let (w, h) = (camera.width as f32, camera.height as f32);
        let pixels = IterSpec::new(
            &shape,
            2,
            [0.5, 0.5, 0.0, 0.0],
            [w + 0.5, h + 0.5, 0.0, 0.0],
        )
        .map_err(BrookError::from)?;
        Ok(BrookRay {
            rt,
            program: rt.compile(BROOK, "ray.br")?,
            camera: [camera.eye, camera.corner, camera.dx, camera.dy],
            light: scene.light,
            count,
            inputs,
            pixels: rt.iter(pixels)?,
            origins: rt.stream_of(3, &shape)?,
            directions: rt.stream_of(3, &shape)?,
            hits: rt.stream_of(4, &shape)?,
            colours: rt.stream_of(4, &shape)?,
            compared,
        })
    }
}

impl Variant for BrookRay<'_> {
    fn upload(&mut self) -> Result<(), AppError> {
        self.inputs.upload()
    }

    fn host_inputs(&self) -> Vec<&[f32]> {
        self.inputs.host()
    }

    fn read_floats(&self) -> Option<usize> {
        Some(self.colours.len() * super::PIXEL)
    }

    fn kept(&self, read: Vec<f32>) -> Result<Vec<f32>, AppError> {
        self.compared.pick(&read)
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let [eye, corner, dx, dy] = self.camera;
        let (o, d, tris) = (&self.origins, &self.directions, self.inputs.get(0));
        let p = &self.program;
        self.rt
            .run(p, "setup", args![&self.pixels, eye, corner, dx, dy, o, d])?;
        let count = self.count as f32;
        self.rt
            .run(p, "intersect", args![o, d, tris, count, &self.hits])?;
        self.rt.run(
            p,
            "shade",
            args![o, d, &self.hits, tris, self.light, &self.colours],
        )?;
        Ok(())
    }

    fn sync(&self) {
        self.rt.finish();
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        self.kept(self.colours.to_vec()?)
    }
}
