//! The element under the cursor and its values, for the panel's readout.

use brook::texture_streams::TexelRect;
use brook::Stream;

use crate::error::VizError;
use crate::view::{View, ViewKind};

/// The element under the cursor of the shown stream: its linear index and the components of
/// the viewed member.
#[derive(Debug, Clone, PartialEq)]
pub struct Readout {
    /// The element's linear (row-major) index in the stream.
    pub index: usize,
    /// The viewed member's components at that element.
    pub values: Vec<f32>,
}

/// The linear index of the element drawn at GL pixel `at` (y up) when `view` of a stream of
/// `shape` fills `rect` (the camera's content rectangle). Image views pick as their fragment
/// shader does (`IMAGE_FRAGMENT`: last extent across, row 0 at the top); plots by the x
/// position; points overlap freely, so they have none.
pub(crate) fn element_at(
    view: &View,
    shape: &[usize],
    rect: [f32; 4],
    at: [f32; 2],
) -> Option<usize> {
    let count: usize = shape.iter().product();
    let p = [(at[0] - rect[0]) / rect[2], (at[1] - rect[1]) / rect[3]];
    let inside = (0.0..1.0).contains(&p[0]) && (0.0..1.0).contains(&p[1]);
    if !inside || count == 0 {
        return None;
    }
    match view.kind {
        ViewKind::Points { .. } => None,
        ViewKind::Plot { .. } => Some(((p[0] * count as f32) as usize).min(count - 1)),
        _ => {
            let columns = shape.last().copied().unwrap_or(1).max(1);
            let rows = count / columns;
            let column = ((p[0] * columns as f32) as usize).min(columns - 1);
            let row = (((1.0 - p[1]) * rows as f32) as usize).min(rows - 1);
            Some(row * columns + column)
        }
    }
}

/// The components of member `member` of element `index`: one texel read from a GL stream's
/// texture (the live window's streams), else the whole stream read back.
pub(crate) fn element_values(
    stream: &Stream,
    member: usize,
    index: usize,
) -> Result<Vec<f32>, VizError> {
    if let Some(textures) = stream.gl_textures()? {
        let (x, y) = textures.layout().texel_of_linear(index);
        let texture = textures
            .textures()
            .get(member)
            .ok_or_else(|| no_member(member))?;
        let one = TexelRect {
            x,
            y,
            width: 1,
            height: 1,
        };
        return Ok(texture.read(one)?);
    }
    let format = stream.format();
    let components = format
        .members()
        .get(member)
        .ok_or_else(|| no_member(member))?
        .components;
    let start = index * format.floats_per_element() + format.member_offset(member);
    let all = stream.to_vec()?;
    Ok(all[start..start + usize::from(components)].to_vec())
}

fn no_member(member: usize) -> VizError {
    VizError::Usage(format!("the stream's elements have no member {member}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ColorMap;

    #[test]
    fn image_views_pick_row_by_row_from_the_top() {
        let view = View::scalar(ColorMap::Grey);
        // 3 rows of 4 columns drawn in a 40×30 rectangle at (10, 5).
        let rect = [10.0, 5.0, 40.0, 30.0];
        let shape = [3, 4];
        // Bottom-left pixel: row 2 (the last), column 0.
        assert_eq!(element_at(&view, &shape, rect, [10.5, 5.5]), Some(8));
        // Top-right pixel: row 0, column 3.
        assert_eq!(element_at(&view, &shape, rect, [49.5, 34.5]), Some(3));
        // The middle of row 1, column 2.
        assert_eq!(element_at(&view, &shape, rect, [35.0, 20.0]), Some(6));
        assert_eq!(element_at(&view, &shape, rect, [9.5, 20.0]), None);
        assert_eq!(element_at(&view, &shape, rect, [20.0, 35.0]), None);
    }

    #[test]
    fn plots_pick_by_x_and_points_not_at_all() {
        let rect = [0.0, 0.0, 100.0, 50.0];
        assert_eq!(element_at(&View::plot(), &[10], rect, [55.0, 1.0]), Some(5));
        assert_eq!(
            element_at(&View::plot(), &[10], rect, [99.9, 49.0]),
            Some(9)
        );
        assert_eq!(element_at(&View::points(), &[10], rect, [55.0, 1.0]), None);
    }
}
