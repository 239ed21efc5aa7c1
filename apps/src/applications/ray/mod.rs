//! Ray (001 §5, after Purcell et al.): eye rays from a pinhole camera, one per pixel, tested
//! against every triangle of a small scene (a ground plane, three boxes, two tetrahedra) with
//! the paper's ray–triangle kernel (001 §3.2), nearest hit kept, then Lambert-shaded from one
//! point light. Three kernels, as in the paper: ray setup, intersection, shading.
//!
//! The result is, per pixel, (hit distance t, triangle id, shade); a miss is (0, -1, 0). Where
//! a ray passes within rounding of a triangle's edge, or two surfaces tie, f32 and f64 may
//! honestly pick different triangles; such pixels (found by the f64 reference alone, before
//! any variant runs) are left out of the comparison, so ids are compared exactly everywhere
//! else.

mod brook;
mod hand;
mod hand_wgpu;
mod reference;
mod rust;
mod scene;
mod vector;

use std::sync::Arc;

use crate::app::{App, Env, Flavor, Instance, Scale, Tolerance, Variant, Work};
use crate::error::AppError;

use scene::{Camera, Scene};

pub struct Ray;

/// Floats per pixel in a variant's image: t, triangle id, shade, and one unused.
const PIXEL: usize = 4;
/// Floats per pixel that are compared: t, triangle id, shade.
const COMPARED: usize = 3;

/// The pixels whose answer the f64 reference says is well determined.
#[derive(Clone)]
struct Compared(Arc<Vec<bool>>);

impl Compared {
    /// The compared values of an image of [`PIXEL`] floats per pixel.
    fn pick(&self, image: &[f32]) -> Result<Vec<f32>, AppError> {
        if image.len() != self.0.len() * PIXEL {
            return Err(AppError::Mismatch(format!(
                "the image has {} floats, expected {} pixels of {PIXEL}",
                image.len(),
                self.0.len()
            )));
        }
        Ok(image
            .chunks(PIXEL)
            .zip(self.0.iter())
            .filter(|(_, keep)| **keep)
            .flat_map(|(p, _)| p[..COMPARED].iter().copied())
            .collect())
    }
}

impl App for Ray {
    fn name(&self) -> &'static str {
        "Ray"
    }

    fn summary(&self) -> &'static str {
        "eye rays × every triangle of a small scene, nearest hit, Lambert shading (001 §3.2, §5)"
    }

    fn instance<'a>(&self, env: &'a Env, scale: Scale) -> Result<Instance<'a>, AppError> {
        // The tiny image is odd-sized and not square.
        let (width, height) = scale.pick((512, 512), (128, 128), (13, 9));
        let scene = Scene::new();
        let camera = Camera::new(width, height);
        let image = reference::render(&scene, &camera);
        let compared = Compared(Arc::new(image.iter().map(|p| p.well_determined).collect()));
        let left_out = image.iter().filter(|p| !p.well_determined).count();
        let reference = image
            .iter()
            .filter(|p| p.well_determined)
            .flat_map(|p| p.values)
            .collect();
        let mut variants: Vec<(Flavor, Box<dyn Variant + 'a>)> = vec![(
            Flavor::HandGl,
            Box::new(hand::HandRay::new(env, &scene, &camera, compared.clone())?),
        )];
        for flavor in Flavor::BROOK {
            let rt = env.runtime(flavor);
            let brook = brook::BrookRay::new(rt, &scene, &camera, compared.clone())?;
            variants.push((flavor, Box::new(brook)));
        }
        let hand_wgpu = hand_wgpu::HandWgpuRay::new(env, &scene, &camera, compared.clone())?;
        variants.push((Flavor::HandWgpu, Box::new(hand_wgpu)));
        variants.push((
            Flavor::Rust,
            Box::new(rust::RustRay::new(&scene, &camera, compared)),
        ));
        let tests = (width * height * scene.triangles.len()) as f64;
        Ok(Instance {
            size: format!(
                "{width}×{height} rays, {} triangles ({left_out} edge rays not compared)",
                scene.triangles.len()
            ),
            work: Work::RayTriangleTests(tests),
            reference,
            // Scaled by the largest value (the last triangle id, 45, or the farthest t). With
            // near-edge and near-tie rays left out, every id must match exactly (an id off by
            // one is an error of 1/45); t and the shade carry f32 rounding of a few ulp of
            // quantities up to ~30, i.e. ~1e-6 relative, well inside 1e-5.
            tolerance: Tolerance(1e-5),
            variants,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_sees_ground_below_sky_above_and_leaves_out_few_rays() {
        let scene = Scene::new();
        assert_eq!(scene.triangles.len(), 46);
        let camera = Camera::new(64, 48);
        let image = reference::render(&scene, &camera);
        let id = |column: usize, row: usize| image[row * 64 + column].values[1];
        // Row 0 is the bottom: the ground (triangles 0 and 1) fills the lower corners.
        assert!(id(0, 0) == 0.0 || id(0, 0) == 1.0);
        assert!(id(63, 0) == 0.0 || id(63, 0) == 1.0);
        // The top row looks over the ground's far edge at nothing.
        assert!((0..64).all(|c| id(c, 47) == -1.0));
        // Boxes and tetrahedra are seen, and shaded within (0.1, 1].
        let seen: std::collections::BTreeSet<i64> =
            image.iter().map(|p| p.values[1] as i64).collect();
        assert!(seen.len() > 10, "{seen:?}");
        assert!(image
            .iter()
            .filter(|p| p.values[1] >= 0.0)
            .all(|p| p.values[2] >= 0.1 && p.values[2] <= 1.0 && p.values[0] > 0.0));
        let left_out = image.iter().filter(|p| !p.well_determined).count();
        assert!(left_out < image.len() / 100, "{left_out} rays left out");
    }
}
