//! The scene and the camera, as the f32 values every variant is given (the f64 reference
//! widens the same values, so it traces exactly the rays and triangles the variants do).

use super::vector::{cross, normalize, scale, sub};

pub type Vec3 = [f32; 3];

pub struct Scene {
    /// Vertices v0, v1, v2 of each triangle; winding is not used (shading faces the viewer).
    pub triangles: Vec<[Vec3; 3]>,
    /// The point light.
    pub light: Vec3,
}

impl Scene {
    /// A ground quad, three boxes turned about the vertical and two tetrahedra: 46 triangles.
    pub fn new() -> Scene {
        let mut triangles = Vec::new();
        let g = 8.0;
        quad(
            &mut triangles,
            [[-g, 0.0, -g], [g, 0.0, -g], [g, 0.0, g], [-g, 0.0, g]],
        );
        for (centre, half, turn) in [
            ([-2.5, 1.0, -1.0], [1.0, 1.0, 1.0], 0.4),
            ([2.0, 0.75, 0.5], [0.75, 0.75, 1.2], -0.3),
            ([0.3, 0.5, -4.0], [2.5, 0.5, 0.5], 0.1),
        ] {
            cuboid(&mut triangles, centre, half, turn);
        }
        for [a, b, c, apex] in [
            [
                [3.0, 0.0, -2.0],
                [4.6, 0.0, -2.4],
                [3.8, 0.0, -3.6],
                [3.8, 2.4, -2.7],
            ],
            [
                [-1.3, 0.0, 2.2],
                [0.1, 0.0, 2.7],
                [-0.7, 0.0, 3.4],
                [-0.6, 1.3, 2.8],
            ],
        ] {
            triangles.extend([[a, b, c], [a, b, apex], [b, c, apex], [c, a, apex]]);
        }
        Scene {
            triangles,
            light: [5.0, 10.0, 6.0],
        }
    }
}

/// Two triangles of the quad `a b c d`.
fn quad(out: &mut Vec<[Vec3; 3]>, [a, b, c, d]: [Vec3; 4]) {
    out.extend([[a, b, c], [a, c, d]]);
}

/// A box of half-extents `half` around `centre`, turned by `turn` radians about the vertical.
fn cuboid(out: &mut Vec<[Vec3; 3]>, centre: Vec3, half: Vec3, turn: f32) {
    let (sin, cos) = turn.sin_cos();
    // Corner `b` has bit 0/1/2 set where it is on the + side of x/y/z.
    let corner = |b: usize| {
        let side = |bit: usize, h: f32| if b & bit != 0 { h } else { -h };
        let (x, y, z) = (side(1, half[0]), side(2, half[1]), side(4, half[2]));
        [
            centre[0] + cos * x + sin * z,
            centre[1] + y,
            centre[2] - sin * x + cos * z,
        ]
    };
    for face in [
        [0, 2, 6, 4],
        [1, 5, 7, 3],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 1, 3, 2],
        [4, 6, 7, 5],
    ] {
        quad(out, face.map(corner));
    }
}

/// A pinhole camera: the ray of pixel (column c, row r; row 0 at the bottom) leaves `eye` in
/// the direction `normalize(corner + (c + ½)·dx + (r + ½)·dy)`.
pub struct Camera {
    pub width: usize,
    pub height: usize,
    pub eye: Vec3,
    pub corner: Vec3,
    pub dx: Vec3,
    pub dy: Vec3,
}

impl Camera {
    /// Looking from above and in front of the scene at its middle, 45° vertical field of view.
    pub fn new(width: usize, height: usize) -> Camera {
        let eye = [0.0f64, 5.0, 11.0];
        let target = [0.0f64, 0.5, -1.0];
        let forward = normalize(sub(target, eye));
        let right = normalize(cross(forward, [0.0, 1.0, 0.0]));
        let up = cross(right, forward);
        let half_height = (22.5f64).to_radians().tan();
        let half_width = half_height * width as f64 / height as f64;
        let dx = scale(right, 2.0 * half_width / width as f64);
        let dy = scale(up, 2.0 * half_height / height as f64);
        let corner = sub(
            sub(forward, scale(right, half_width)),
            scale(up, half_height),
        );
        let narrow = |v: [f64; 3]| v.map(|c| c as f32);
        Camera {
            width,
            height,
            eye: narrow(eye),
            corner: narrow(corner),
            dx: narrow(dx),
            dy: narrow(dy),
        }
    }
}
