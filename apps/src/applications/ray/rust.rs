//! The ray tracer in plain Rust: rows of pixels in parallel with rayon, each ray tested against
//! every triangle in f32 with the same Möller–Trumbore test, the triangles' edges computed once.

use rayon::prelude::*;

use super::scene::{Camera, Scene, Vec3};
use super::vector::{cross, dot, normalize, sub};
use super::{Compared, PIXEL};
use crate::app::Variant;
use crate::error::AppError;

pub struct RustRay {
    /// v0, edge1, edge2 of each triangle.
    triangles: Vec<[Vec3; 3]>,
    light: Vec3,
    eye: Vec3,
    corner: Vec3,
    dx: Vec3,
    dy: Vec3,
    width: usize,
    image: Vec<f32>,
    compared: Compared,
}

impl RustRay {
    pub fn new(scene: &Scene, camera: &Camera, compared: Compared) -> RustRay {
        RustRay {
            triangles: scene
                .triangles
                .iter()
                .map(|&[v0, v1, v2]| [v0, sub(v1, v0), sub(v2, v0)])
                .collect(),
            light: scene.light,
            eye: camera.eye,
            corner: camera.corner,
            dx: camera.dx,
            dy: camera.dy,
            width: camera.width,
            image: vec![0.0; camera.width * camera.height * PIXEL],
            compared,
        }
    }

    /// (t, id) of the nearest hit of the ray `o + t·d`, (0, -1) for none.
    fn nearest(&self, o: Vec3, d: Vec3) -> (f32, i32) {
        let mut best = (0.0, -1);
        for (i, &[v0, edge1, edge2]) in self.triangles.iter().enumerate() {
            let pvec = cross(d, edge2);
            let inv_det = 1.0 / dot(edge1, pvec);
            let tvec = sub(o, v0);
            let u = dot(tvec, pvec) * inv_det;
            let qvec = cross(tvec, edge1);
            let v = dot(d, qvec) * inv_det;
            let t = dot(edge2, qvec) * inv_det;
            if u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t > 0.0 && (best.1 < 0 || t < best.0) {
                best = (t, i as i32);
            }
        }
        best
    }

    /// Lambert from the light, the normal turned towards the viewer.
    fn shade(&self, o: Vec3, d: Vec3, t: f32, id: usize) -> f32 {
        let [_, edge1, edge2] = self.triangles[id];
        let mut n = normalize(cross(edge1, edge2));
        if dot(n, d) > 0.0 {
            n = n.map(|c| -c);
        }
        let p = [0, 1, 2].map(|k| o[k] + t * d[k]);
        let l = normalize(sub(self.light, p));
        0.1 + 0.9 * dot(n, l).max(0.0)
    }
}

impl Variant for RustRay {
    fn upload(&mut self) -> Result<(), AppError> {
        Ok(())
    }

    fn compute(&mut self) -> Result<(), AppError> {
        let mut image = std::mem::take(&mut self.image);
        image
            .par_chunks_mut(self.width * PIXEL)
            .enumerate()
            .for_each(|(row, pixels)| {
                let r = row as f32 + 0.5;
                for (column, pixel) in pixels.chunks_mut(PIXEL).enumerate() {
                    let c = column as f32 + 0.5;
                    let d = normalize(
                        [0, 1, 2].map(|k| self.corner[k] + c * self.dx[k] + r * self.dy[k]),
                    );
                    let o = self.eye;
                    let (t, id) = self.nearest(o, d);
                    let value = if id < 0 {
                        [0.0, -1.0, 0.0, 0.0]
                    } else {
                        [t, id as f32, self.shade(o, d, t, id as usize), 0.0]
                    };
                    pixel.copy_from_slice(&value);
                }
            });
        self.image = image;
        Ok(())
    }

    fn download(&mut self) -> Result<Vec<f32>, AppError> {
        self.compared.pick(&self.image)
    }
}
