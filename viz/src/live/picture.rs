//! The picture of a run: one cell per lane, and with several lanes the difference view,
//! side by side; with several cells each has a label strip above it (its backend and step
//! time, or how many elements differ).

use std::rc::Rc;

use brook::texture_streams::GlContext;

use super::lanes::Cell;
use crate::camera::Camera;
use crate::error::VizError;
use crate::overlay::{Overlay, LABEL_HEIGHT};
use crate::range::Resolved;
use crate::renderer::Renderer;
use crate::view::View;

/// The picture's size for `cells` cells whose views are `view` pixels each.
pub(crate) fn picture_size(view: (u32, u32), cells: usize) -> (u32, u32) {
    if cells <= 1 {
        view
    } else {
        (view.0 * cells as u32, view.1 + LABEL_HEIGHT)
    }
}

/// Each cell's view in `area` (`[x, y, width, height]`, GL pixels): equal widths side by
/// side, under a label strip when there are several; one cell is the whole area.
pub(crate) fn cell_areas(area: [u32; 4], cells: usize) -> Vec<[u32; 4]> {
    if cells <= 1 {
        return vec![area];
    }
    let [x, y, width, height] = area;
    let width = (width / cells as u32).max(1);
    let height = height.saturating_sub(LABEL_HEIGHT).max(1);
    (0..cells as u32)
        .map(|i| [x + i * width, y, width, height])
        .collect()
}

/// The cells' label textures, remade when their text changes.
pub(crate) struct Labels {
    ctx: Rc<GlContext>,
    overlays: Vec<Overlay>,
}

impl Labels {
    pub fn new(ctx: &Rc<GlContext>) -> Labels {
        Labels {
            ctx: Rc::clone(ctx),
            overlays: Vec::new(),
        }
    }

    /// Draws each cell's label in the strip above its view (`areas`), cut to the cell's
    /// width.
    fn draw(
        &mut self,
        renderer: &Renderer,
        viewport: (u32, u32),
        cells: &[Cell<'_>],
        areas: &[[u32; 4]],
    ) -> Result<(), VizError> {
        while self.overlays.len() < cells.len() {
            self.overlays.push(Overlay::label(&self.ctx));
        }
        for ((cell, area), overlay) in cells.iter().zip(areas).zip(&mut self.overlays) {
            let fits = (area[2] as usize).saturating_sub(LABEL_HEIGHT as usize - 8) / 8;
            let text: String = cell.label.chars().take(fits.max(1)).collect();
            overlay.set_text(vec![text], area[2])?;
            overlay.draw_at(
                renderer,
                viewport,
                [area[0], area[1] + area[3] + LABEL_HEIGHT],
            )?;
        }
        Ok(())
    }
}

/// Draws `cells` over `area` of the bound framebuffer (a `viewport` of (width, height)
/// pixels), lanes with `view` and the difference view with its own, under `camera`; returns
/// the ranges the first cell was drawn with.
pub(crate) fn draw_picture(
    renderer: &Renderer,
    cells: &[Cell<'_>],
    view: &View,
    camera: &Camera,
    viewport: (u32, u32),
    area: [u32; 4],
    labels: &mut Labels,
) -> Result<Resolved, VizError> {
    let areas = cell_areas(area, cells.len());
    renderer.clear(area.map(|v| v as f32))?;
    let mut first = None;
    for (cell, cell_area) in cells.iter().zip(&areas) {
        let view = cell.view.unwrap_or(*view);
        let resolved = renderer.draw_in(cell.stream, &view, camera, viewport, *cell_area)?;
        first.get_or_insert(resolved);
    }
    if cells.len() > 1 {
        labels.draw(renderer, viewport, cells, &areas)?;
    }
    first.ok_or_else(|| VizError::Usage("nothing to draw".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_share_the_width_under_their_labels() {
        assert_eq!(picture_size((64, 48), 1), (64, 48));
        assert_eq!(picture_size((64, 48), 4), (256, 48 + LABEL_HEIGHT));
        assert_eq!(cell_areas([10, 0, 64, 48], 1), vec![[10, 0, 64, 48]]);
        let h = 48;
        assert_eq!(
            cell_areas([10, 0, 256, h + LABEL_HEIGHT], 4),
            vec![
                [10, 0, 64, h],
                [74, 0, 64, h],
                [138, 0, 64, h],
                [202, 0, 64, h]
            ]
        );
    }
}
