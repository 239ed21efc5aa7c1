//! Zoom and pan: where in the framebuffer a view's content is drawn.
//!
//! Content is fitted into the viewport (keeping the stream's aspect for images, filling it for
//! plots), then scaled by `zoom` about the viewport centre and shifted by `pan` pixels.
//! Rectangles are `[x, y, width, height]` in framebuffer pixels, y up, as GL counts them.

use crate::view::View;

/// The viewer's zoom and pan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// 1 = fitted to the viewport.
    pub zoom: f32,
    /// Shift in pixels (x right, y up).
    pub pan: [f32; 2],
}

impl Default for Camera {
    fn default() -> Self {
        Camera {
            zoom: 1.0,
            pan: [0.0, 0.0],
        }
    }
}

/// The zoom is kept within these factors of the fitted size.
const ZOOM_LIMITS: (f32, f32) = (0.05, 512.0);

impl Camera {
    /// The rectangle content of `aspect` (width / height; `None` = fill) occupies in a
    /// `viewport` of (width, height) pixels.
    pub fn rect(&self, viewport: (u32, u32), aspect: Option<f32>) -> [f32; 4] {
        let (vw, vh) = (viewport.0 as f32, viewport.1 as f32);
        let (w, h) = match aspect {
            Some(a) if vw / vh > a => (vh * a, vh),
            Some(a) => (vw, vw / a),
            None => (vw, vh),
        };
        let (w, h) = (w * self.zoom, h * self.zoom);
        [
            (vw - w) / 2.0 + self.pan[0],
            (vh - h) / 2.0 + self.pan[1],
            w,
            h,
        ]
    }

    /// Zooms by `factor` keeping the content under `cursor` (GL pixels, y up) where it is.
    pub fn zoom_at(&mut self, factor: f32, cursor: [f32; 2], viewport: (u32, u32)) {
        let zoom = (self.zoom * factor).clamp(ZOOM_LIMITS.0, ZOOM_LIMITS.1);
        let applied = zoom / self.zoom;
        let centre = [viewport.0 as f32 / 2.0, viewport.1 as f32 / 2.0];
        for k in 0..2 {
            // The point under the cursor is centre + pan + offset·zoom; keep it fixed.
            let offset = cursor[k] - centre[k] - self.pan[k];
            self.pan[k] = cursor[k] - centre[k] - offset * applied;
        }
        self.zoom = zoom;
    }

    /// Moves the content by (dx, dy) pixels (y up).
    pub fn pan_by(&mut self, dx: f32, dy: f32) {
        self.pan[0] += dx;
        self.pan[1] += dy;
    }

    /// Where `view` of a stream of `shape` is drawn when it is given `area` (`[x, y, width,
    /// height]` of the framebuffer, GL pixels, y up): the rectangle for a viewport of the
    /// area's size, moved to the area. The renderer draws there and the live window's
    /// readout finds the element under the cursor there, so both agree.
    pub(crate) fn content_rect(&self, view: &View, shape: &[usize], area: [u32; 4]) -> [f32; 4] {
        let [x, y, width, height] = area;
        let mut rect = self.rect((width, height), view.aspect(shape));
        rect[0] += x as f32;
        rect[1] += y as f32;
        rect
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_keeping_the_aspect() {
        let camera = Camera::default();
        assert_eq!(
            camera.rect((200, 100), Some(1.0)),
            [50.0, 0.0, 100.0, 100.0]
        );
        assert_eq!(camera.rect((100, 200), Some(2.0)), [0.0, 75.0, 100.0, 50.0]);
        assert_eq!(camera.rect((64, 32), None), [0.0, 0.0, 64.0, 32.0]);
    }

    #[test]
    fn zoom_keeps_the_point_under_the_cursor() {
        let mut camera = Camera::default();
        let viewport = (100, 100);
        let cursor = [80.0, 30.0];
        let before = camera.rect(viewport, Some(1.0));
        let u = [
            (cursor[0] - before[0]) / before[2],
            (cursor[1] - before[1]) / before[3],
        ];
        camera.zoom_at(2.5, cursor, viewport);
        let after = camera.rect(viewport, Some(1.0));
        assert_eq!(after[2], 250.0);
        let back = [after[0] + u[0] * after[2], after[1] + u[1] * after[3]];
        assert!((back[0] - cursor[0]).abs() < 1e-3 && (back[1] - cursor[1]).abs() < 1e-3);
    }

    #[test]
    fn zoom_is_limited_and_pan_adds() {
        let mut camera = Camera::default();
        camera.zoom_at(1e9, [0.0, 0.0], (10, 10));
        assert_eq!(camera.zoom, ZOOM_LIMITS.1);
        let mut camera = Camera::default();
        camera.pan_by(3.0, -2.0);
        assert_eq!(camera.rect((10, 10), None), [3.0, -2.0, 10.0, 10.0]);
    }
}
