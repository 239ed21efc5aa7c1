//! The image in f64: the same rays, the same Möller–Trumbore test and the same shading as the
//! variants, plus the decision, per pixel, whether f32 rounding could change which triangle is
//! hit (a ray within `EDGE` of an edge of a triangle at least as near as the hit, two surfaces
//! at almost the same distance, or a grazing hit).

use super::scene::{Camera, Scene};
use super::vector::{cross, dot, normalize, scale, sub};

/// Barycentric distance to an edge under which f32 and f64 may disagree about a hit. f32
/// Möller–Trumbore barycentrics here are within ~1e-6 of the exact ones (a few ulp of products
/// of coordinates up to 16 over a determinant that is never small for a compared ray).
const EDGE: f64 = 1e-4;
/// Relative difference of two hit distances under which the nearer one is not clear.
const TIE: f64 = 1e-4;
/// |cos| of the angle between ray and surface under which a hit is grazing.
const GRAZING: f64 = 1e-2;

/// One pixel of the reference image.
pub struct Pixel {
    /// t, triangle id, shade; (0, -1, 0) for a miss.
    pub values: [f64; 3],
    pub well_determined: bool,
}

/// A ray's meeting with a triangle's plane: distance and barycentrics.
struct Meeting {
    t: f64,
    u: f64,
    v: f64,
}

impl Meeting {
    fn inside(&self) -> bool {
        self.u >= 0.0 && self.v >= 0.0 && self.u + self.v <= 1.0 && self.t > 0.0
    }

    /// Barycentric distance to the nearest edge (negative outside).
    fn edge_distance(&self) -> f64 {
        self.u.min(self.v).min(1.0 - self.u - self.v)
    }
}

/// Möller–Trumbore, as in the paper's kernel; `None` for a ray parallel to the plane.
fn meet(o: [f64; 3], d: [f64; 3], [v0, v1, v2]: [[f64; 3]; 3]) -> Option<Meeting> {
    let (edge1, edge2) = (sub(v1, v0), sub(v2, v0));
    let pvec = cross(d, edge2);
    let det = dot(edge1, pvec);
    if det == 0.0 {
        return None;
    }
    let tvec = sub(o, v0);
    let qvec = cross(tvec, edge1);
    Some(Meeting {
        t: dot(edge2, qvec) / det,
        u: dot(tvec, pvec) / det,
        v: dot(d, qvec) / det,
    })
}

/// The unit normal of `tri`, turned to face against `d`.
pub fn facing_normal([v0, v1, v2]: [[f64; 3]; 3], d: [f64; 3]) -> [f64; 3] {
    let n = normalize(cross(sub(v1, v0), sub(v2, v0)));
    if dot(n, d) > 0.0 {
        scale(n, -1.0)
    } else {
        n
    }
}

pub fn render(scene: &Scene, camera: &Camera) -> Vec<Pixel> {
    let wide = |v: [f32; 3]| v.map(f64::from);
    let triangles: Vec<[[f64; 3]; 3]> = scene.triangles.iter().map(|t| t.map(wide)).collect();
    let (eye, corner, dx, dy) = (
        wide(camera.eye),
        wide(camera.corner),
        wide(camera.dx),
        wide(camera.dy),
    );
    let light = wide(scene.light);
    let mut image = Vec::with_capacity(camera.width * camera.height);
    for row in 0..camera.height {
        for column in 0..camera.width {
            let (c, r) = (column as f64 + 0.5, row as f64 + 0.5);
            let d = normalize([0, 1, 2].map(|k| corner[k] + c * dx[k] + r * dy[k]));
            image.push(trace(&triangles, light, eye, d));
        }
    }
    image
}

fn trace(triangles: &[[[f64; 3]; 3]], light: [f64; 3], o: [f64; 3], d: [f64; 3]) -> Pixel {
    let meetings: Vec<Option<Meeting>> = triangles.iter().map(|&t| meet(o, d, t)).collect();
    let mut hits: Vec<(f64, usize)> = meetings
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.as_ref().filter(|m| m.inside()).map(|m| (m.t, i)))
        .collect();
    hits.sort_by(|a, b| a.0.total_cmp(&b.0));
    let nearest = hits.first().map_or(f64::INFINITY, |h| h.0);
    let near_edge = meetings
        .iter()
        .flatten()
        .any(|m| m.edge_distance().abs() < EDGE && m.t > 0.0 && m.t < nearest * (1.0 + TIE));
    let tie = hits.len() > 1 && hits[1].0 - hits[0].0 < TIE * hits[0].0;
    let Some(&(t, id)) = hits.first() else {
        return Pixel {
            values: [0.0, -1.0, 0.0],
            well_determined: !near_edge,
        };
    };
    let n = facing_normal(triangles[id], d);
    let grazing = dot(n, d).abs() < GRAZING;
    let p = [0, 1, 2].map(|k| o[k] + t * d[k]);
    let l = normalize(sub(light, p));
    Pixel {
        values: [t, id as f64, 0.1 + 0.9 * dot(n, l).max(0.0)],
        well_determined: !(near_edge || tie || grazing),
    }
}
