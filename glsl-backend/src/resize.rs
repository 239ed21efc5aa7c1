//! Brook's implicit resize as GLSL, specialised per index component (see [`Resize`]).

use crate::prelude::{Helper, Prelude};
use crate::variant::{Axis, Resize};

/// The `ivec4` index of the input element that the element `index` of a call of shape
/// `out_extent` reads from an input of shape `in_extent` (GLSL expressions). Components whose
/// extents are equal pass through and those of extent 1 are 0, so only the others divide.
pub fn resized_index(
    resize: Resize,
    index: &str,
    out_extent: &str,
    in_extent: &str,
    prelude: &mut Prelude,
) -> String {
    if resize.is_identity() {
        return index.to_string();
    }
    let components: Vec<String> = resize
        .0
        .iter()
        .zip(["x", "y", "z", "w"])
        .map(|(axis, c)| match axis {
            Axis::Same => format!("{index}.{c}"),
            Axis::Zero => "0".to_string(),
            Axis::Scaled => {
                prelude.require(Helper::Resize);
                format!("brook_resize({index}.{c}, {out_extent}.{c}, {in_extent}.{c})")
            }
        })
        .collect();
    format!("ivec4({})", components.join(", "))
}
